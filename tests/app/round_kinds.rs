//! Rounded boxes, segments, triangles and half-spaces in the plugin:
//! `Collider::round_cuboid` / `segment` / `triangle` / `half_space` (and
//! their `try_` forms), events as they touch and part, exact boxes, rays
//! through `SpatialQuery` (what picking uses), bad input refused.

use bevy_app::prelude::*;
use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

use crate::event_log::{Starts, app, place};

fn starts(app: &App) -> usize {
    app.world().resource::<Starts>().0.len()
}

/// Two rounded boxes (0.8 wide, border 0.1) touch when their centres are
/// 1 apart, not 1.02; their boxes are their rounded size.
#[test]
fn rounded_boxes_touch_at_their_rounded_size() {
    let mut app = app();
    let a = app
        .world_mut()
        .spawn((
            Collider::round_cuboid(0.8, 0.8, 0.8, 0.1),
            Transform::default(),
        ))
        .id();
    let b = app
        .world_mut()
        .spawn((
            Collider::round_cuboid(0.8, 0.8, 0.8, 0.1),
            Transform::from_xyz(1.02, 0.0, 0.0),
        ))
        .id();
    app.update();
    assert_eq!(starts(&app), 0);
    place(&mut app, b, Vec3::X * 0.98);
    assert_eq!(starts(&app), 1);
    let aabb = app.world().get::<ColliderAabb>(a).expect("box").0;
    assert!(
        (aabb.max - Vec3::splat(0.5)).abs().max_element() < 1e-3,
        "{aabb:?}"
    );
}

/// A ground (everything below y = 0) under a ball, a triangle and a
/// segment: each touches when it reaches the plane; a ray from above
/// meets the ground where it crosses the plane.
#[test]
fn a_ground_under_a_ball_a_triangle_and_a_segment() {
    let mut app = app();
    let ground = app
        .world_mut()
        .spawn((Collider::half_space(Vec3::Y), Transform::default()))
        .id();
    let ball = app
        .world_mut()
        .spawn((Collider::sphere(0.5), Transform::from_xyz(0.0, 0.52, 0.0)))
        .id();
    let tri = Collider::triangle(Vec3::ZERO, Vec3::X, Vec3::new(0.0, 1.0, 1.0));
    let tri = app
        .world_mut()
        .spawn((tri, Transform::from_xyz(5.0, 0.01, 0.0)))
        .id();
    let seg = Collider::segment(Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0));
    let seg = app
        .world_mut()
        .spawn((seg, Transform::from_xyz(-5.0, 0.01, 0.0)))
        .id();
    app.update();
    assert_eq!(starts(&app), 0);
    place(&mut app, ball, Vec3::Y * 0.48);
    place(&mut app, tri, Vec3::new(5.0, -0.01, 0.0));
    place(&mut app, seg, Vec3::new(-5.0, 0.0, 0.0));
    let log = &app.world().resource::<Starts>().0;
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(log.iter().all(|(x, y)| *x == ground || *y == ground));
    // A ray down from above the ground, away from the others.
    let hit = app
        .world_mut()
        .run_system_once(|q: SpatialQuery| {
            q.cast_ray(
                Vec3::new(20.0, 3.0, 0.0),
                -Vec3::Y,
                10.0,
                &SpatialQueryFilter::default(),
            )
        })
        .expect("system")
        .expect("hit");
    assert_eq!(
        (hit.entity, hit.distance, hit.normal),
        (ground, 3.0, Vec3::Y)
    );
    // Far above, nothing: the ground's box is huge, the pair test exact.
    place(&mut app, ball, Vec3::Y * 1.0e6);
    assert_eq!(app.world().resource::<Starts>().1, 1);
}

#[test]
fn bad_round_kinds_are_errors_from_the_try_constructors() {
    assert!(Collider::try_round_cuboid(1.0, 1.0, 1.0, 0.0).is_err());
    assert!(Collider::try_round_cuboid(1.0, f32::NAN, 1.0, 0.1).is_err());
    assert!(Collider::try_round_cuboid(1.0, 1.0, 1.0, 0.1).is_ok());
    assert!(Collider::round_convex_hull(&[Vec3::ZERO, Vec3::X, Vec3::Y], 0.1).is_err());
    assert!(Collider::try_segment(Vec3::X, Vec3::X).is_err());
    assert!(Collider::try_triangle(Vec3::ZERO, Vec3::X, Vec3::X * 2.0).is_err());
    assert!(Collider::try_half_space(Vec3::ZERO).is_err());
    assert!(Collider::try_half_space(Vec3::new(0.0, 2.0, 0.0)).is_ok());
}

#[test]
#[should_panic(expected = "half_space")]
fn a_literal_bad_half_space_panics() {
    let _ = Collider::half_space(Vec3::NAN);
}
