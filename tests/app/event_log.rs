//! A headless app with the collision plugin sending messages for every
//! pair, and a log of them: the setup of the tests that watch shapes of a
//! kind touch and part (`implicit.rs`, `round_kinds.rs`, `polyline.rs`).

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;

/// The pairs whose collisions started, in order, and how many ended.
#[derive(Resource, Default)]
pub(crate) struct Starts(pub Vec<(Entity, Entity)>, pub usize);

fn record(
    mut log: ResMut<Starts>,
    mut s: MessageReader<CollisionStart>,
    mut e: MessageReader<CollisionEnd>,
) {
    log.0.extend(s.read().map(|m| (m.collider1, m.collider2)));
    log.1 += e.read().count();
}

/// The transform and collision plugins, messages for all pairs logged in
/// [`Starts`] at `Last`.
pub(crate) fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default().with_messages_for_all_pairs(),
    ))
    .init_resource::<Starts>()
    .add_systems(Last, record);
    app
}

/// Moves `e` to `at` and runs one frame.
pub(crate) fn place(app: &mut App, e: Entity, at: glam::Vec3) {
    app.world_mut()
        .get_mut::<bevy_transform::prelude::Transform>(e)
        .expect("transform")
        .translation = at;
    app.update();
}
