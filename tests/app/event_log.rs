//! A headless app with the collision plugin sending messages for every
//! pair, and a log of them: the setup of the tests that watch shapes of a
//! kind touch and part (`implicit.rs`, `round_kinds.rs`, `polyline.rs`), and
//! every message in order (`bevy_app.rs`, `statics.rs`).

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

/// A start or end message, its pair as the message gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ev {
    Start(Entity, Entity),
    End(Entity, Entity),
}

/// Every start and end message, in order.
#[derive(Resource, Default)]
pub(crate) struct Log(pub Vec<Ev>);

pub(crate) fn record_all(
    mut log: ResMut<Log>,
    mut s: MessageReader<CollisionStart>,
    mut e: MessageReader<CollisionEnd>,
) {
    log.0
        .extend(s.read().map(|m| Ev::Start(m.collider1, m.collider2)));
    log.0
        .extend(e.read().map(|m| Ev::End(m.collider1, m.collider2)));
}

/// The transform and collision plugins, messages for all pairs logged in
/// [`Log`] at `Last`.
pub(crate) fn app_with_log() -> App {
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default().with_messages_for_all_pairs(),
    ))
    .init_resource::<Log>()
    .add_systems(Last, record_all);
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
