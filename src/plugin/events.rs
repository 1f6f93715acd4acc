//! Collision events, for entities with
//! [`CollisionEventsEnabled`](super::CollisionEventsEnabled) (as in avian):
//! buffered messages for their pairs (for every pair with
//! [`with_messages_for_all_pairs`](super::CollisionPlugin::with_messages_for_all_pairs)),
//! and entity events for observers on them.

use std::collections::HashSet;

use bevy_ecs::prelude::*;

use super::components::CollisionEventsEnabled;

/// Two colliders started touching.
///
/// As a [`Message`], written once per pair with `collider1 < collider2`
/// (entity order), when either has
/// [`CollisionEventsEnabled`](super::CollisionEventsEnabled) (or for every
/// pair, see [`with_messages_for_all_pairs`](super::CollisionPlugin::with_messages_for_all_pairs)). As an [`EntityEvent`], triggered on each side that has
/// [`CollisionEventsEnabled`](super::CollisionEventsEnabled), with
/// `collider1` the observed entity. Both are emitted in the Report stage in
/// a deterministic order: sorted by pair.
///
/// **When to read them.** The Report stage runs in the plugin's schedule
/// (default `PostUpdate`, after transform propagation). A system in
/// `Update` reads the messages one frame later (they live two frames); to
/// react in the same frame, read them in `PostUpdate` after
/// [`CollisionSystems::Report`](super::CollisionSystems::Report), or use an
/// observer (triggered in the Report stage):
///
/// ```
/// # #[cfg(feature = "bevy_transform")] {
/// # use bevy_app::prelude::*;
/// # use bevy_ecs::prelude::*;
/// # use bevy_icollide::prelude::*;
/// fn same_frame(mut starts: MessageReader<CollisionStart>) {
///     for ev in starts.read() {
///         println!("{} touches {}", ev.collider1, ev.collider2);
///     }
/// }
/// let mut app = App::new();
/// app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()))
///     .add_systems(PostUpdate, same_frame.after(CollisionSystems::Report));
/// # }
/// ```
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(Debug, PartialEq, Hash)
)]
pub struct CollisionStart {
    /// The first collider (the observed one, for observers).
    #[event_target]
    pub collider1: Entity,
    /// The other collider.
    pub collider2: Entity,
}

/// Two colliders stopped touching, or one of them lost its collider (was
/// despawned, had `Collider` removed, or the pair was deactivated or filtered
/// out). Same conventions as [`CollisionStart`].
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(Debug, PartialEq, Hash)
)]
pub struct CollisionEnd {
    /// The first collider (the observed one, for observers).
    #[event_target]
    pub collider1: Entity,
    /// The other collider.
    pub collider2: Entity,
}

/// Which pairs' messages are written: every pair's with
/// `with_messages_for_all_pairs`; otherwise a start when either entity has
/// [`CollisionEventsEnabled`] (as avian does), and an end when its start
/// was written, so starts and ends always pair up.
pub(super) struct MessagePolicy<'a> {
    pub(super) all: bool,
    pub(super) reported: &'a mut HashSet<(Entity, Entity)>,
}

impl MessagePolicy<'_> {
    pub(super) fn due(
        &mut self,
        started: bool,
        [a, b]: [Entity; 2],
        observed: &Query<(), With<CollisionEventsEnabled>>,
    ) -> bool {
        if self.all {
            true
        } else if started {
            let due = observed.contains(a) || observed.contains(b);
            if due {
                self.reported.insert((a, b));
            }
            due
        } else {
            self.reported.remove(&(a, b))
        }
    }
}
