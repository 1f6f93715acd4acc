//! The collision core without Bevy: a `CollisionWorld` of bodies you pose
//! yourself, `step()` for each frame's start and end events, and one-shot
//! queries on two shapes (`query::distance`, `query::ray_cast`,
//! `query::cast_shapes`).
//!
//! No Bevy crate is used: with `default-features = false` the crate builds
//! on glam alone (and a few small crates). This example builds that way:
//! `cargo run --example core_without_bevy --no-default-features --features obj`
//! (or simply `cargo run --example core_without_bevy`).

use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::prelude::*;
use bevy_icollide::query::{self, Ray, ShapeCastOptions};
use glam::Vec3;

pub fn main() {
    let mut world =
        CollisionWorld::new(WorldConfig::default()).expect("the default config is valid");
    // Shapes are built once and shared (an Arc). The core's constructors
    // take half-extents and return Result.
    let crate_shape = SharedShape::cuboid(Vec3::splat(0.5)).expect("a unit cube");
    let ball_shape = SharedShape::sphere(0.5).expect("a ball");

    // Bodies: user_data is your tag, carried into the events.
    let crate_box = world.add_body(BodyDesc {
        is_static: true,
        user_data: 1,
        ..BodyDesc::new(crate_shape.clone())
    });
    let ball = world.add_body(BodyDesc {
        user_data: 2,
        ..BodyDesc::new(ball_shape.clone())
    });
    // A body takes part once it has a pose.
    world
        .set_pose(crate_box, Pose::IDENTITY)
        .expect("a live body");

    // The ball rolls in along x and out again: touching while x <= 1.
    let mut log = Vec::new();
    for (frame, x) in [3.0, 1.5, 0.8, 0.0, 2.0].into_iter().enumerate() {
        world
            .set_pose(ball, Pose::from_translation(Vec3::new(x, 0.0, 0.0)))
            .expect("a live body");
        for event in world.step() {
            let what = if event.started { "start" } else { "end" };
            println!(
                "frame {}: {what}, user data {:?}",
                frame + 1,
                event.user_data
            );
            assert_eq!(event.user_data, [1, 2], "sorted by user data");
            log.push((frame + 1, event.started));
        }
        // The pair's cached state: contact data for convex pairs.
        if let Some(c) = world.pair(crate_box, ball).and_then(|p| p.result.contact) {
            let (d, depth) = (c.distance, c.depth);
            println!("frame {}: distance {d:.2}, depth {depth:.2}", frame + 1);
        }
    }
    assert_eq!(log, vec![(3, true), (5, false)]);

    // One-shot queries take shapes and poses; no world needed.
    let at = |x: f32| Pose::from_translation(Vec3::new(x, 0.0, 0.0));
    let gap = query::distance(&crate_shape, &at(0.0), &ball_shape, &at(3.0)).expect("valid poses");
    println!("distance from the crate to a ball at x = 3: {gap}");
    assert!((gap - 2.0).abs() < 1e-5);

    // A ray from x = -5 along +x meets the crate's face at x = -0.5.
    let ray = Ray::new(Vec3::new(-5.0, 0.0, 0.0), Vec3::X);
    let hit = query::ray_cast(&crate_shape, &at(0.0), &ray, 100.0)
        .expect("a valid ray")
        .expect("a hit");
    println!(
        "ray hits the crate at t = {}, normal {}",
        hit.toi, hit.normal
    );
    assert!((hit.toi - 4.5).abs() < 1e-5 && hit.normal == Vec3::NEG_X);

    // The ball at x = 3 moving at -1 per unit of time touches the crate at t = 2.
    let options = ShapeCastOptions {
        max_time_of_impact: 10.0,
        ..Default::default()
    };
    let cast = query::cast_shapes(
        (&crate_shape, &at(0.0), Vec3::ZERO),
        (&ball_shape, &at(3.0), Vec3::NEG_X),
        &options,
    )
    .expect("valid input")
    .expect("they meet");
    println!(
        "the cast ball touches the crate at t = {:.4}",
        cast.time_of_impact
    );
    assert!((cast.time_of_impact - 2.0).abs() < 1e-3);

    // A removed body's handle is refused from then on (even once its slot
    // is reused: handles are generational).
    world.remove_body(ball).expect("a live body");
    assert!(
        world.set_pose(ball, Pose::IDENTITY).is_err(),
        "a stale handle is an error"
    );
    println!("core_without_bevy: all as expected");
}
