//! Cylinders and cones in the plugin: `Collider::cylinder` / `cone` (and
//! their `try_` forms) as avian3d spells them, events as they touch and
//! part, their exact broad-phase boxes, and bad sizes refused.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::{Quat, Vec3};

use crate::event_log::{Starts, app};

fn move_to(app: &mut App, e: Entity, x: f32) {
    app.world_mut()
        .get_mut::<Transform>(e)
        .expect("transform")
        .translation
        .x = x;
    app.update();
}

/// A cone beside a cylinder (both 1 tall, radius 0.5, along Y): their
/// base rims meet when the cone's axis is 1 from the cylinder's; a cube
/// on the cylinder's cap touches it exactly when it reaches the cap.
#[test]
fn cylinders_and_cones_touch_and_part() {
    let mut app = app();
    let cyl = app
        .world_mut()
        .spawn((Collider::cylinder(0.5, 1.0), Transform::default()))
        .id();
    let cone = app
        .world_mut()
        .spawn((Collider::cone(0.5, 1.0), Transform::from_xyz(3.0, 0.0, 0.0)))
        .id();
    app.update();
    assert!(app.world().resource::<Starts>().0.is_empty());
    move_to(&mut app, cone, 0.98);
    assert_eq!(
        app.world().resource::<Starts>().0.len(),
        1,
        "the rims overlap"
    );
    move_to(&mut app, cone, 1.02);
    assert_eq!(app.world().resource::<Starts>().1, 1, "the rims parted");
    // Turned upside down above the cylinder, the cone's apex is its
    // lowest point: apart at height 1.02, touching the cap at 0.98.
    let mut place = |y: f32| {
        let mut t = app
            .world_mut()
            .get_mut::<Transform>(cone)
            .expect("transform");
        *t = Transform::from_xyz(0.0, y, 0.0)
            .with_rotation(Quat::from_rotation_z(std::f32::consts::PI));
        app.update();
        app.world().resource::<Starts>().0.len()
    };
    assert_eq!(place(1.02), 1, "apex above the cap");
    assert_eq!(place(0.98), 2, "apex into the cap");
    // Exact boxes: the cylinder's is its own extent.
    let aabb = app.world().get::<ColliderAabb>(cyl).expect("box").0;
    let want = Vec3::new(0.5, 0.5, 0.5);
    assert!(
        (aabb.max - want).abs().max_element() < 1e-3
            && (aabb.min + want).abs().max_element() < 1e-3,
        "{aabb:?}"
    );
}

#[test]
fn bad_sizes_are_errors_from_the_try_constructors() {
    assert!(Collider::try_cylinder(f32::NAN, 1.0).is_err());
    assert!(Collider::try_cylinder(0.5, 0.0).is_err());
    assert!(Collider::try_cone(-0.5, 1.0).is_err());
    assert!(
        Collider::try_cone(1.0, 1.0e6).is_err(),
        "aspect beyond MAX_ASPECT"
    );
    assert!(Collider::try_cone(0.5, 1.0).is_ok());
    assert!(Collider::try_round_cylinder(0.5, 1.0, -0.1).is_err());
    assert!(Collider::try_round_cone(0.5, 1.0, f32::NAN).is_err());
    assert!(Collider::try_round_cone(0.5, 1.0, 0.1).is_ok());
}

/// A rounded cylinder is its border radius larger all round: two of them
/// (0.4 radius, 0.1 border) side by side touch when their axes are 1
/// apart, not 1.02.
#[test]
fn rounded_cylinders_touch_at_their_rounded_size() {
    let mut app = app();
    let _a = app
        .world_mut()
        .spawn((
            Collider::round_cylinder(0.4, 1.0, 0.1),
            Transform::default(),
        ))
        .id();
    let b = app
        .world_mut()
        .spawn((
            Collider::round_cylinder(0.4, 1.0, 0.1),
            Transform::from_xyz(1.02, 0.0, 0.0),
        ))
        .id();
    app.update();
    assert!(app.world().resource::<Starts>().0.is_empty());
    move_to(&mut app, b, 0.98);
    assert_eq!(app.world().resource::<Starts>().0.len(), 1);
}

#[test]
#[should_panic(expected = "cylinder")]
fn a_literal_bad_cylinder_panics() {
    let _ = Collider::cylinder(-1.0, 1.0);
}

#[test]
#[should_panic(expected = "cone")]
fn a_literal_bad_cone_panics() {
    let _ = Collider::cone(1.0, f32::INFINITY);
}
