//! Polylines in the plugin: `Collider::polyline` (and `try_polyline`),
//! events as a ball touches and leaves a chain of segments, a
//! `SpatialQuery` ray onto a segment, bad input refused.

use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

use crate::event_log::{Starts, app, place};

/// A zigzag along x at y = 0 and a ball of radius 0.5 above its middle
/// segment: apart at 0.52, touching at 0.48, apart again at 0.52; a ray
/// down through a segment meets it.
#[test]
fn a_ball_touches_and_leaves_a_polyline() {
    let mut app = app();
    let points = vec![
        Vec3::new(-2.0, 0.0, 0.0),
        Vec3::new(-1.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(2.0, -1.0, 0.0),
    ];
    let line = app
        .world_mut()
        .spawn((Collider::polyline(points, None), Transform::default()))
        .id();
    let ball = app
        .world_mut()
        .spawn((Collider::sphere(0.5), Transform::from_xyz(0.0, 0.52, 0.0)))
        .id();
    app.update();
    assert_eq!(app.world().resource::<Starts>().0.len(), 0);
    place(&mut app, ball, Vec3::Y * 0.48);
    let log = &app.world().resource::<Starts>().0;
    assert!(log == &[(line, ball)] || log == &[(ball, line)], "{log:?}");
    place(&mut app, ball, Vec3::Y * 0.52);
    assert_eq!(app.world().resource::<Starts>().1, 1);
    let hit = app
        .world_mut()
        .run_system_once(|q: SpatialQuery| {
            q.cast_ray(
                Vec3::new(-1.5, 3.0, 0.0),
                -Vec3::Y,
                10.0,
                &SpatialQueryFilter::default(),
            )
        })
        .expect("system")
        .expect("hit");
    assert_eq!(hit.entity, line);
    assert!((hit.distance - 3.0).abs() < 1e-5, "{hit:?}");
}

#[test]
fn bad_polylines_are_errors_from_the_try_constructor() {
    assert!(Collider::try_polyline(vec![Vec3::ZERO], None).is_err());
    assert!(Collider::try_polyline(vec![Vec3::ZERO, Vec3::ZERO], None).is_err());
    assert!(Collider::try_polyline(vec![Vec3::ZERO, Vec3::X], Some(vec![[0, 2]])).is_err());
    assert!(Collider::try_polyline(vec![Vec3::ZERO, Vec3::NAN], None).is_err());
    assert!(Collider::try_polyline(vec![Vec3::ZERO, Vec3::X], None).is_ok());
}

#[test]
#[should_panic(expected = "polyline")]
fn a_literal_bad_polyline_panics() {
    let _ = Collider::polyline(vec![Vec3::ZERO], None);
}
