//! Spatial queries from a gameplay system: ray casts (first hit, every
//! hit), a shape cast, and the colliders a shape overlaps, each with a
//! `SpatialQueryFilter` (a layer mask, excluded entities).
//!
//! Queries see the world as the plugin last left it (the previous frame's
//! `PostUpdate`): colliders spawned this frame are seen from the next.
//!
//! Run: `cargo run --example queries`

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::{Quat, Vec3};

const SOLID: u32 = 1 << 0; // the default membership
const GHOST: u32 = 1 << 1;

#[derive(Component)]
struct Player;

/// What the probe system found, one line per query.
#[derive(Resource, Default)]
struct Found(Vec<String>);

fn probe(
    spatial: SpatialQuery,
    player: Single<Entity, With<Player>>,
    names: Query<&Name>,
    mut found: ResMut<Found>,
) {
    found.0.clear();
    let mut say = |line: String| {
        println!("{line}");
        found.0.push(line);
    };
    let name = |e: Entity| names.get(e).map_or("?", Name::as_str);
    let ray = |h: RayHitData| format!("{} at {:.2}", name(h.entity), h.distance);
    // The player's own collider is in the way of everything it casts.
    let not_me = SpatialQueryFilter::default().with_excluded_entities([*player]);
    let solid_only = not_me.clone().with_mask(SOLID);
    let (origin, ahead) = (Vec3::ZERO, Vec3::NEG_Z);

    // A ray straight ahead: the first hit in any layer, then in SOLID only.
    let first = spatial.cast_ray(origin, ahead, 100.0, &not_me);
    say(format!("first hit: {}", first.map_or("none".into(), ray)));
    let solid = spatial.cast_ray(origin, ahead, 100.0, &solid_only);
    if let Some(h) = solid {
        println!("the solid hit: point {}, normal {}", h.point, h.normal);
    }
    say(format!(
        "first solid hit: {}",
        solid.map_or("none".into(), ray)
    ));
    // Every solid hit along the ray (at most 10), nearest first.
    let all = spatial.ray_hits(origin, ahead, 100.0, 10, &solid_only);
    let all: Vec<String> = all.into_iter().map(ray).collect();
    say(format!("solid hits: {}", all.join(", ")));

    // A ball of radius 0.3 thrown along +X: where does it first touch?
    let ball = Collider::sphere(0.3);
    let config = ShapeCastConfig::from_max_distance(10.0);
    let cast = spatial.cast_shape(&ball, (origin, Quat::IDENTITY), Vec3::X, &config, &not_me);
    let cast = cast.map_or("none".into(), |h| {
        format!("{} after {:.2}", name(h.entity), h.distance)
    });
    say(format!("ball cast: {cast}"));

    // What a ball of radius 1.2 at z = -4.5 overlaps.
    let at = Vec3::new(0.0, 0.0, -4.5);
    let overlaps = spatial.shape_intersections(&Collider::sphere(1.2), at, Quat::IDENTITY, &not_me);
    let mut overlaps: Vec<&str> = overlaps.into_iter().map(name).collect();
    overlaps.sort();
    say(format!("overlaps: {}", overlaps.join(", ")));
}

pub fn main() {
    let mut app = App::new();
    app.add_plugins((TransformPlugin, CollisionPlugin::default()))
        .init_resource::<Found>()
        .add_systems(Update, probe);
    let world = app.world_mut();
    world.spawn((Collider::sphere(0.5), Transform::default(), Player));
    let on_z = |z: f32| Transform::from_xyz(0.0, 0.0, z);
    // Two crates ahead (-Z), faces at z = -2.5 and -5.5.
    let crate_box = (Collider::cuboid(1.0, 1.0, 1.0), StaticCollider);
    world.spawn((crate_box.clone(), Name::new("near crate"), on_z(-3.0)));
    world.spawn((crate_box.clone(), Name::new("far crate"), on_z(-6.0)));
    // A ghost in front of them (face at z = -1), in the GHOST layer only.
    let ghost = CollisionLayers::new(GHOST, LayerMask::ALL);
    world.spawn((crate_box, ghost, Name::new("ghost"), on_z(-1.5)));
    // A thin wall to the right (+X), face at x = 3.9.
    let wall = (
        Collider::cuboid(0.2, 4.0, 4.0),
        StaticCollider,
        Name::new("wall"),
    );
    world.spawn((wall, Transform::from_xyz(4.0, 0.0, 0.0)));

    // The queries in frame 1's Update run before the plugin has seen the
    // new colliders (in PostUpdate): they find nothing. Frame 2's see them.
    app.update();
    assert_eq!(app.world().resource::<Found>().0[0], "first hit: none");
    app.update();
    let found = &app.world().resource::<Found>().0;
    let expected = [
        "first hit: ghost at 1.00",
        "first solid hit: near crate at 2.50",
        "solid hits: near crate at 2.50, far crate at 5.50",
        "ball cast: wall after 3.60", // the ball's surface reaches x = 3.9
        "overlaps: far crate, near crate", // the ghost is 2.5 away
    ];
    assert_eq!(found, &expected);
    println!("queries: all as expected");
}
