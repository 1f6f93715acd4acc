//! Changed `GlobalTransform`s into `ColliderPose` and the world's bodies:
//! the conversion's writes, and the one-thread sync's order (the compute
//! pool's path is in `parallel.rs`).

use bevy_ecs::prelude::*;
use bevy_transform::components::GlobalTransform;

use super::components::ColliderPose;
use super::pose::pose_and_scale;
use super::resources::CollisionState;
use super::systems::apply_pose;
use crate::math::Pose;
use crate::pipeline::BodyHandle;

/// The one-thread sync of changed transforms, in Bevy's table order while
/// that order follows the world's bodies, else in body order.
///
/// Reading the bodies (and, through the world's list of moved bodies,
/// their boxes) in memory order matters: once colliders are despawned and
/// spawned, Bevy's tables keep no such order (a despawned row takes the
/// last one, a new entity goes last), and table order then missed the
/// cache at almost every body (with a tenth of 10 000 colliders respawned
/// every frame, about 1.5 ms per frame in pose sync and boxes). Staging
/// and sorting costs about 0.2 ms at 10 000 bodies when the order was
/// right already, so it is done only after a frame found it scattered.
/// The order changes no result: each body's pose is its own.
#[derive(Default)]
pub(super) struct BodyOrder {
    staged: Vec<(BodyHandle, Entity, Converted)>,
    /// The last frame's changed transforms came out of body order.
    scattered: bool,
}

impl BodyOrder {
    /// Converts each changed transform, writes its `ColliderPose` and
    /// sets its body's pose (see the type's docs for the order).
    pub(super) fn sync<'a>(
        &mut self,
        state: &mut CollisionState,
        items: impl Iterator<Item = (Entity, &'a GlobalTransform, Mut<'a, ColliderPose>)>,
    ) {
        if self.scattered {
            self.sync_sorted(state, items);
        } else {
            self.sync_in_table_order(state, items);
        }
    }

    fn sync_in_table_order<'a>(
        &mut self,
        state: &mut CollisionState,
        items: impl Iterator<Item = (Entity, &'a GlobalTransform, Mut<'a, ColliderPose>)>,
    ) {
        let (mut last, mut descents, mut count) = (0, 0, 0);
        for (e, global, mut pose) in items {
            let converted = pose_and_scale(global);
            write_pose(converted, &mut pose);
            if let Some(&body) = state.entity_body.get(&e) {
                descents += usize::from(body.index() < last);
                last = body.index();
                count += 1;
                set_converted(state, (e, body), converted);
            }
        }
        self.scattered = scattered(descents, count);
    }

    fn sync_sorted<'a>(
        &mut self,
        state: &mut CollisionState,
        items: impl Iterator<Item = (Entity, &'a GlobalTransform, Mut<'a, ColliderPose>)>,
    ) {
        for (e, global, mut pose) in items {
            let converted = pose_and_scale(global);
            write_pose(converted, &mut pose);
            if let Some(&body) = state.entity_body.get(&e) {
                self.staged.push((body, e, converted));
            }
        }
        let staged = &mut self.staged;
        let descents = staged
            .windows(2)
            .filter(|w| w[1].0.index() < w[0].0.index())
            .count();
        self.scattered = scattered(descents, staged.len());
        staged.sort_unstable_by_key(|&(body, _, _)| body.index());
        for &(body, e, converted) in staged.iter() {
            set_converted(state, (e, body), converted);
        }
        staged.clear();
    }
}

/// More than one body in 16 came before the one applied just ahead of it.
fn scattered(descents: usize, count: usize) -> bool {
    descents * 16 > count
}

/// A transform's pose and scale, or why it has none.
pub(super) type Converted = Result<(Pose, glam::Vec3), crate::math::PoseError>;

/// One converted transform into `ColliderPose` and the world.
#[inline(always)]
pub(super) fn sync_transform(
    state: &mut CollisionState,
    e: Entity,
    converted: Converted,
    pose: &mut Mut<ColliderPose>,
) {
    write_pose(converted, pose);
    if let Some(&body) = state.entity_body.get(&e) {
        set_converted(state, (e, body), converted);
    }
}

/// A converted transform into the collider's `ColliderPose` (if valid and
/// different: change detection sees real changes only).
#[inline(always)]
fn write_pose(converted: Converted, pose: &mut Mut<ColliderPose>) {
    if let Ok((new, _)) = converted
        && pose.0 != new
    {
        pose.0 = new;
    }
}

/// One converted transform into the world. A mesh takes the scale;
/// another shape refuses a scale other than 1 (and the pose is skipped
/// with a warning, as for a bad pose).
#[inline(always)]
pub(super) fn set_converted(
    state: &mut CollisionState,
    (e, body): (Entity, BodyHandle),
    converted: Converted,
) {
    let scaled = converted.map_err(crate::pipeline::WorldError::InvalidPose);
    let result = scaled.and_then(|(_, scale)| state.world.set_scale(body, scale));
    apply_pose(state, (e, body), result.and(scaled.map(|(pose, _)| pose)));
}
