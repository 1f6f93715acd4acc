//! Terrain in the plugin: `Collider::heightfield` (and `try_heightfield`)
//! as parry/avian lay it out, events as a ball lands on it and leaves,
//! a ray from the `SpatialQuery` reporting the triangle, bad data refused.

use bevy_app::prelude::*;
use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

use crate::event_log::{Starts, app};

/// Starts and ends so far.
fn counts(app: &App) -> (usize, usize) {
    let s = app.world().resource::<Starts>();
    (s.0.len(), s.1)
}

/// A 5 × 5 terrain, 4 wide, flat at height 0 but for a bump of 1 at its
/// centre sample (its origin), placed at (10, 0, 0).
fn bumped_terrain() -> (Collider, Transform) {
    let mut heights = vec![0.0; 25];
    heights[12] = 1.0;
    (
        Collider::heightfield(heights, 5, 5, Vec3::new(4.0, 1.0, 4.0)),
        Transform::from_xyz(10.0, 0.0, 0.0),
    )
}

/// The bumped terrain; a ball of radius 0.25 above the bump.
#[test]
fn a_ball_lands_on_the_terrain_and_leaves() {
    let mut app = app();
    app.world_mut().spawn(bumped_terrain());
    let ball = app
        .world_mut()
        .spawn((Collider::sphere(0.25), Transform::from_xyz(10.0, 1.3, 0.0)))
        .id();
    app.update();
    assert_eq!(counts(&app).0, 0, "above the bump");
    let place = |app: &mut App, y: f32| {
        app.world_mut()
            .get_mut::<Transform>(ball)
            .expect("ball")
            .translation
            .y = y;
        app.update();
    };
    place(&mut app, 1.2);
    assert_eq!(counts(&app).0, 1, "on the bump's tip");
    place(&mut app, 1.3);
    assert_eq!(counts(&app).1, 1, "left it");
    let hit = app
        .world_mut()
        .run_system_once(|q: SpatialQuery| {
            q.cast_ray(
                Vec3::new(10.7, 5.0, 0.7),
                -Vec3::Y,
                100.0,
                &SpatialQueryFilter::default(),
            )
        })
        .expect("system runs")
        .expect("the terrain is hit");
    // Cell (row 2, col 2) of the 4 × 4 cells: the point (0.7, 0.7) is past
    // the cell's diagonal, in its triangle 1.
    assert_eq!(hit.triangle, Some(2 * (2 * 4 + 2) + 1));
    assert!((hit.distance - 5.0).abs() < 1e-5, "{hit:?}");
}

#[test]
fn bad_terrain_data_is_refused() {
    assert!(Collider::try_heightfield(vec![0.0; 3], 2, 2, Vec3::ONE).is_err());
    assert!(Collider::try_heightfield(vec![f32::NAN; 4], 2, 2, Vec3::ONE).is_err());
    assert!(Collider::try_heightfield(vec![0.0; 4], 2, 2, Vec3::ZERO).is_err());
    let e = std::panic::catch_unwind(|| Collider::heightfield(vec![0.0; 2], 1, 2, Vec3::ONE));
    assert!(e.is_err(), "the literal form panics with the reason");
}

/// A terrain meets a terrain: a flat 3 × 3 field (2 wide) lowered onto
/// the bump of the 5 × 5 terrain touches it exactly when it reaches the
/// tip (both fields' triangles named), and leaves it when lifted.
#[test]
fn a_terrain_meets_a_terrain() {
    let mut app = app();
    let ground = app.world_mut().spawn(bumped_terrain()).id();
    let lid = app
        .world_mut()
        .spawn((
            Collider::heightfield(vec![0.0; 9], 3, 3, Vec3::new(2.0, 1.0, 2.0)),
            Transform::from_xyz(10.0, 1.0 + 2f32.powi(-20), 0.0),
        ))
        .id();
    app.update();
    assert_eq!(counts(&app).0, 0, "just above the tip");
    let place = |app: &mut App, y: f32| {
        let mut t = app.world_mut().get_mut::<Transform>(lid).expect("lid");
        t.translation.y = y;
        app.update();
    };
    place(&mut app, 1.0);
    assert_eq!(counts(&app).0, 1, "on the tip");
    let pairs = app
        .world_mut()
        .run_system_once(move |c: Collisions| c.triangle_pairs(ground, lid))
        .expect("system runs")
        .expect("triangle pairs");
    // The tip is sample (2, 2) of the ground: a corner of its cells
    // (1, 1), (1, 2), (2, 1), (2, 2); the lid's centre sample (1, 1) is a
    // corner of all four of its cells.
    let ground_cells: std::collections::BTreeSet<u32> = pairs.iter().map(|p| p[0] / 2).collect();
    let lid_cells: std::collections::BTreeSet<u32> = pairs.iter().map(|p| p[1] / 2).collect();
    assert_eq!(ground_cells, [5, 6, 9, 10].into(), "{pairs:?}");
    assert_eq!(lid_cells, [0, 1, 2, 3].into(), "{pairs:?}");
    place(&mut app, 1.5);
    assert_eq!(counts(&app).1, 1, "lifted off");
}
