//! The `MoveAndSlide` system parameter from an app: a ball walking into a
//! wall and a floor slides along them, hears of both colliders, and an
//! excluded wall is passed through.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::{Quat, Vec3};

/// Slides a ball of radius 0.25 from `(0, 0.3, 0)` by `(3, -3, 0.5)`
/// (skin 0.01); the end and the entities touched.
fn walk(app: &mut App, filter: SpatialQueryFilter) -> (Vec3, Vec<Entity>) {
    app.world_mut()
        .run_system_once(move |mut slide: MoveAndSlide| {
            let ball = Collider::sphere(0.25);
            let options = SlideOptions {
                skin: 0.01,
                ..Default::default()
            };
            let mut touched = Vec::new();
            let start = (&ball, Vec3::new(0.0, 0.3, 0.0), Quat::IDENTITY);
            let out = slide
                .move_and_slide(start, Vec3::new(3.0, -3.0, 0.5), &options, &filter, |hit| {
                    touched.push(hit.entity);
                    true
                })
                .expect("valid input");
            touched.sort();
            touched.dedup();
            (out.pose.translation, touched)
        })
        .expect("system runs")
}

#[test]
fn move_and_slide_param_in_an_app() {
    let mut app = App::new();
    app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()));
    let floor = app
        .world_mut()
        .spawn((
            Collider::cuboid(10.0, 1.0, 10.0),
            Transform::from_xyz(0.0, -0.5, 0.0),
        ))
        .id();
    let wall = app
        .world_mut()
        .spawn((
            Collider::cuboid(1.0, 10.0, 10.0),
            Transform::from_xyz(1.5, 0.0, 0.0),
        ))
        .id();
    // Before the plugin's systems have run nothing is there.
    let (end, touched) = walk(&mut app, SpatialQueryFilter::default());
    assert_eq!((end, touched.len()), (Vec3::new(3.0, -2.7, 0.5), 0));
    app.update();
    let (end, touched) = walk(&mut app, SpatialQueryFilter::default());
    assert!(
        (end - Vec3::new(0.74, 0.26, 0.5)).abs().max_element() < 2e-3,
        "{end}"
    );
    assert_eq!(touched, {
        let mut both = vec![floor, wall];
        both.sort();
        both
    });
    // Without the wall: along the floor all the way in x.
    let filter = SpatialQueryFilter::default().with_excluded_entities([wall]);
    let (end, touched) = walk(&mut app, filter);
    assert!(
        (end - Vec3::new(3.0, 0.26, 0.5)).abs().max_element() < 2e-3,
        "{end}"
    );
    assert_eq!(touched, vec![floor]);
}

/// A capsule character walking by +x into a movable crate (not static)
/// on a static floor: both are reported as hits, the crate's push is the
/// motion into it along its normal (a `CharacterPush` message), the
/// floor's is the fall into it (no message: it is static); the character
/// stays on the floor, a skin from the crate.
#[test]
fn a_character_reports_the_push_on_a_movable_crate() {
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default(),
        CharacterPlugin::default(),
    ));
    let floor = app
        .world_mut()
        .spawn((
            Collider::cuboid(20.0, 1.0, 20.0),
            Transform::from_xyz(0.0, -0.5, 0.0),
            StaticCollider,
        ))
        .id();
    let crate_ = app
        .world_mut()
        .spawn((
            Collider::cuboid(1.0, 1.0, 1.0),
            Transform::from_xyz(1.5, 0.5, 0.0),
        ))
        .id();
    let skin = ControllerOptions::default().slide.skin;
    let character = app
        .world_mut()
        .spawn((
            Collider::capsule(0.3, 0.8),
            Transform::from_xyz(0.0, 0.7 + skin, 0.0),
            KinematicCharacter::new(ControllerOptions::default()),
        ))
        .id();
    app.update();
    let mut pushes = Vec::new();
    for _ in 0..30 {
        let mut c = app.world_mut().get_mut::<KinematicCharacter>(character);
        c.as_mut().expect("character").desired_motion = Vec3::new(0.1, -0.05, 0.0);
        app.update();
        let messages = app.world().resource::<Messages<CharacterPush>>();
        pushes.extend(messages.iter_current_update_messages().copied());
    }
    let at = app
        .world()
        .get::<Transform>(character)
        .expect("t")
        .translation;
    let out = app
        .world()
        .get::<KinematicCharacterOutput>(character)
        .expect("out");
    // A skin from the crate's face at x = 1, on the floor.
    assert!((at.x - (1.0 - 0.3 - skin)).abs() < 2.0 * skin, "{at}");
    assert!((at.y - (0.7 + skin)).abs() < 2.0 * skin, "{at}");
    assert_eq!(out.ground.map(|g| g.entity), Some(floor));
    let on_crate = out
        .hits
        .iter()
        .find(|h| h.entity == crate_)
        .expect("crate hit");
    assert!(!on_crate.is_static && (on_crate.normal - Vec3::NEG_X).length() < 1e-3);
    assert!(
        (on_crate.push - Vec3::new(0.1, 0.0, 0.0)).length() < 1e-3,
        "{on_crate:?}"
    );
    let on_floor = out
        .hits
        .iter()
        .find(|h| h.entity == floor)
        .expect("floor hit");
    assert!(on_floor.is_static && (on_floor.push - Vec3::new(0.0, -0.05, 0.0)).length() < 1e-3);
    // Messages only for the crate, once per frame it was touched.
    assert!(!pushes.is_empty() && pushes.iter().all(|p| p.hit.entity == crate_));
    assert!(pushes.iter().all(|p| p.character == character));
}
