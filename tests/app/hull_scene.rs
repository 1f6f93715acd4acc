//! The multi-body scene (moving hulls) in a headless app, as the tests
//! that compare the plugin's paths build it (`pose_order`, `parallel`).

use bevy_app::prelude::*;
use bevy_ecs::entity::Entity;
use bevy_icollide::prelude::*;
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};
use bevy_transform::prelude::*;

/// `count` hulls at density 0.1 from `seed`.
pub(crate) fn params(count: usize, seed: u64) -> MultiBodyParams {
    MultiBodyParams {
        count,
        density: 0.1,
        seed,
        ..Default::default()
    }
}

/// Body `i`'s pose in `scene` as a `Transform`.
pub(crate) fn transform(scene: &MultiBodyScene, i: usize) -> Transform {
    let pose = scene.bodies[i].pose;
    Transform::from_translation(pose.translation).with_rotation(pose.rotation)
}

/// Spawns body `i` of `scene` as a hull collider at its pose.
pub(crate) fn spawn_hull(app: &mut App, scene: &MultiBodyScene, i: usize) -> Entity {
    let collider = Collider::new(scene.shape_of(i).clone());
    app.world_mut().spawn((collider, transform(scene, i))).id()
}

/// Transform propagation and the plugin with messages for every pair, no
/// penetration depth, `tasks` tasks per parallel stage.
pub(crate) fn app(tasks: usize) -> App {
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default()
            .with_messages_for_all_pairs()
            .with_penetration(false)
            .with_parallel_tasks(tasks),
    ));
    app
}
