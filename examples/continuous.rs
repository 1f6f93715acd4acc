//! Continuous detection (`SweptCcd`): two small balls fly at 2 units per
//! frame through a wall 0.05 thick. The plugin samples poses once a frame,
//! and no frame finds the plain ball touching the wall: it tunnels. The
//! ball with `SweptCcd` has its pairs found along its whole path: it gets a
//! `CollisionStart` in the frame it crosses, and a `CollisionEnd` the frame
//! after (it is on the other side by then).
//!
//! A swept collider costs a shape cast per nearby pair in each frame it
//! moves: put it on fast movers only (bullets, thrown objects).
//!
//! Run: `cargo run --example continuous`

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

/// Units per frame. The crate has no dynamics: your systems move things.
#[derive(Component)]
struct Velocity(Vec3);

fn fly(mut movers: Query<(&Velocity, &mut Transform)>) {
    for (velocity, mut transform) in &mut movers {
        transform.translation += velocity.0;
    }
}

/// The frame number and the events, one line each.
#[derive(Resource, Default)]
struct Log {
    frame: u32,
    events: Vec<String>,
}

fn log(
    mut log: ResMut<Log>,
    mut starts: MessageReader<CollisionStart>,
    mut ends: MessageReader<CollisionEnd>,
    names: Query<&Name>,
) {
    log.frame += 1;
    let name = |e: Entity| names.get(e).map_or("?", Name::as_str);
    let starts = starts
        .read()
        .map(|ev| (ev.collider1, ev.collider2, "start"));
    let ends = ends.read().map(|ev| (ev.collider1, ev.collider2, "stop"));
    for (a, b, what) in starts.chain(ends).collect::<Vec<_>>() {
        let mut pair = [name(a), name(b)];
        pair.sort();
        let line = format!(
            "frame {}: {} and {} {what} touching",
            log.frame, pair[0], pair[1]
        );
        println!("{line}");
        log.events.push(line);
    }
}

pub fn main() {
    let mut app = App::new();
    app.add_plugins((TransformPlugin, CollisionPlugin::default()))
        .init_resource::<Log>()
        .add_systems(Update, fly)
        .add_systems(PostUpdate, log.after(CollisionSystems::Report));

    // The wall: 0.05 thick across x = 0.
    let wall = (
        Collider::cuboid(0.05, 4.0, 4.0),
        StaticCollider,
        Name::new("wall"),
    );
    app.world_mut().spawn((wall, Transform::default()));
    // Two balls of radius 0.1, one per lane. Each frame moves them by 2
    // before the plugin runs: x = -3.1, -1.1, 0.9, 2.9 at frames 1 to 4.
    let ball = |name: &'static str, y: f32| {
        let start = Transform::from_xyz(-5.1, y, 0.0);
        (
            Collider::sphere(0.1),
            start,
            Velocity(Vec3::X * 2.0),
            CollisionEventsEnabled,
            Name::new(name),
        )
    };
    app.world_mut().spawn(ball("plain ball", -1.0));
    app.world_mut().spawn((ball("swept ball", 1.0), SweptCcd));

    for _ in 0..5 {
        app.update();
    }
    // Frame 3 moved the balls from x = -1.1 to 0.9, across the wall: the
    // swept ball's pair is found along the way; the plain ball tunnelled.
    assert_eq!(
        app.world().resource::<Log>().events,
        [
            "frame 3: swept ball and wall start touching",
            "frame 4: swept ball and wall stop touching"
        ]
    );
    println!("continuous: the plain ball tunnelled, the swept one did not");
}
