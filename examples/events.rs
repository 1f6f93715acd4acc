//! Collision events three ways: messages read in the same frame, messages
//! read a frame later, and observers; `CollisionEventsEnabled` (opt-in);
//! `CollidingEntities`.
//!
//! A ball rolls through a crate and out again. The plugin runs in
//! `PostUpdate`, after transform propagation, and writes the events in its
//! last stage, `CollisionSystems::Report`. So:
//! - a reader in `PostUpdate` ordered `.after(CollisionSystems::Report)`
//!   sees them in the frame they happen;
//! - a reader in `Update` sees them one frame later (`Update` runs before
//!   `PostUpdate`; messages live two frames, so none is lost);
//! - observers run inside `Report`, in the frame they happen.
//!
//! Run: `cargo run --example events`

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;

/// The frame number, counted in `First`, and what each reader saw.
#[derive(Resource, Default)]
struct Log {
    frame: u32,
    seen: Vec<String>,
}

impl Log {
    fn note(&mut self, what: String) {
        let line = format!("frame {}: {what}", self.frame);
        println!("{line}");
        self.seen.push(line);
    }
}

/// A message reader; `reader` says where it runs.
fn read_messages(
    reader: &'static str,
) -> impl FnMut(MessageReader<CollisionStart>, MessageReader<CollisionEnd>, Query<&Name>, ResMut<Log>)
{
    move |mut starts, mut ends, names, mut log| {
        // Names in alphabetical order (messages have collider1 < collider2
        // in entity order, which says nothing about which is which).
        let pair = |a: Entity, b: Entity| {
            let mut pair = [a, b].map(|e| names.get(e).map_or("?", Name::as_str));
            pair.sort();
            pair.join(" and ")
        };
        for ev in starts.read() {
            let pair = pair(ev.collider1, ev.collider2);
            log.note(format!("{reader} reads: {pair} start touching"));
        }
        for ev in ends.read() {
            let pair = pair(ev.collider1, ev.collider2);
            log.note(format!("{reader} reads: {pair} stop touching"));
        }
    }
}

pub fn main() {
    let mut app = App::new();
    // TransformPlugin computes the GlobalTransform the colliders follow
    // (DefaultPlugins include it; MinimalPlugins do not).
    app.add_plugins((TransformPlugin, CollisionPlugin::default()))
        .init_resource::<Log>()
        .add_systems(First, |mut log: ResMut<Log>| log.frame += 1)
        .add_systems(Update, read_messages("Update"))
        .add_systems(
            PostUpdate,
            read_messages("PostUpdate").after(CollisionSystems::Report),
        );

    let world = app.world_mut();
    let crate_box = (
        Collider::cuboid(1.0, 1.0, 1.0),
        StaticCollider,
        Name::new("crate"),
    );
    let crate_box = world.spawn((crate_box, Transform::default())).id();
    // Only pairs with an entity marked CollisionEventsEnabled write events.
    let ball = (
        Collider::sphere(0.5),
        CollisionEventsEnabled,
        Name::new("ball"),
    );
    let ball = world
        .spawn((ball, Transform::from_xyz(-3.0, 0.0, 0.0)))
        // Observers get `collider1` = the observed entity, `collider2` = the other.
        .observe(
            |ev: On<CollisionStart>, names: Query<&Name>, mut log: ResMut<Log>| {
                let other = names.get(ev.collider2).map_or("?", Name::as_str);
                log.note(format!("observer: the ball hit the {other}"));
            },
        )
        .observe(
            |ev: On<CollisionEnd>, names: Query<&Name>, mut log: ResMut<Log>| {
                let other = names.get(ev.collider2).map_or("?", Name::as_str);
                log.note(format!("observer: the ball left the {other}"));
            },
        )
        .id();
    // Two balls that touch, neither opted in: no events, but their
    // CollidingEntities are kept up to date all the same.
    let quiet = |x| (Collider::sphere(0.5), Transform::from_xyz(x, 5.0, 0.0));
    let (q1, q2) = (world.spawn(quiet(0.0)).id(), world.spawn(quiet(0.9)).id());

    // The ball's x at frames 1 to 7: it reaches the crate (half size 0.5,
    // ball radius 0.5) at frame 3 and is clear of it again at frame 6.
    for x in [-3.0, -2.0, -0.9, 0.0, 0.9, 2.0, 3.0] {
        let at = Transform::from_xyz(x, 0.0, 0.0);
        app.world_mut().entity_mut(ball).insert(at);
        app.update();
        let touching = app.world().get::<CollidingEntities>(ball).unwrap();
        assert_eq!(touching.contains(crate_box), x.abs() < 1.0, "x = {x}");
    }

    assert_eq!(
        app.world().resource::<Log>().seen,
        [
            "frame 3: observer: the ball hit the crate",
            "frame 3: PostUpdate reads: ball and crate start touching",
            "frame 4: Update reads: ball and crate start touching",
            "frame 6: observer: the ball left the crate",
            "frame 6: PostUpdate reads: ball and crate stop touching",
            "frame 7: Update reads: ball and crate stop touching",
        ]
    );
    // Nothing about the quiet pair, yet each lists the other.
    let touches = |a, b| app.world().get::<CollidingEntities>(a).unwrap().contains(b);
    assert!(touches(q1, q2) && touches(q2, q1));
    println!("events: all as expected");
}
