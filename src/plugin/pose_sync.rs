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
/// and ordering costs about 0.2 ms at 10 000 bodies when the order was
/// right already, so it is done only after a frame found it scattered.
/// The order changes no result: each body's pose is its own.
#[derive(Default)]
pub(super) struct BodyOrder {
    staged: Vec<(BodyHandle, Entity, Converted)>,
    /// By body slot: the index in `staged` of that body's item, or
    /// [`NOT_STAGED`] (a counting sort: each slot holds one body).
    position: Vec<u32>,
    /// Slot order of a sparse frame's items (sorted instead of swept).
    sparse: Vec<(u32, u32)>,
    /// The last frame's changed transforms came out of body order.
    scattered: bool,
}

/// A body slot without a staged item this frame.
const NOT_STAGED: u32 = u32::MAX;

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
        let mut steps = Steps::default();
        for (e, global, mut pose) in items {
            let converted = pose_and_scale(global);
            write_pose(&converted, &mut pose);
            if let Some(&body) = state.entity_body.get(&e) {
                steps.push(body.index());
                set_converted(state, (e, body), &converted);
            }
        }
        self.scattered = steps.scattered();
    }

    /// Stages the items in query order, then applies them in body order:
    /// by a sweep over the slots (each body's item placed at its slot, a
    /// counting sort, linear), or, when few of the slots have an item, by
    /// sorting their (slot, item) indices.
    fn sync_sorted<'a>(
        &mut self,
        state: &mut CollisionState,
        items: impl Iterator<Item = (Entity, &'a GlobalTransform, Mut<'a, ColliderPose>)>,
    ) {
        let (mut steps, mut slots) = (Steps::default(), 0);
        for (e, global, mut pose) in items {
            let converted = pose_and_scale(global);
            write_pose(&converted, &mut pose);
            if let Some(&body) = state.entity_body.get(&e) {
                steps.push(body.index());
                slots = slots.max(body.index() as usize + 1);
                self.staged.push((body, e, converted));
            }
        }
        self.scattered = steps.scattered();
        if self.staged.len() * 8 < slots {
            self.apply_sparse(state);
        } else {
            self.apply_swept(state, slots);
        }
        self.staged.clear();
    }

    /// Applies the staged items by sorting their slots (few items).
    fn apply_sparse(&mut self, state: &mut CollisionState) {
        let staged = &self.staged;
        let indices = (0u32..).zip(staged).map(|(i, it)| (it.0.index(), i));
        self.sparse.extend(indices);
        self.sparse.sort_unstable();
        for &(_, i) in &self.sparse {
            let (body, e, converted) = &staged[i as usize];
            set_converted(state, (*e, *body), converted);
        }
        self.sparse.clear();
    }

    /// Applies the staged items by placing each at its slot and sweeping
    /// the slots in order.
    fn apply_swept(&mut self, state: &mut CollisionState, slots: usize) {
        if self.position.len() < slots {
            self.position.resize(slots, NOT_STAGED);
        }
        for (i, &(body, _, _)) in (0u32..).zip(&self.staged) {
            self.position[body.index() as usize] = i;
        }
        for p in &mut self.position[..slots] {
            if *p != NOT_STAGED {
                let (body, e, converted) = &self.staged[*p as usize];
                *p = NOT_STAGED;
                set_converted(state, (*e, *body), converted);
            }
        }
    }
}

/// The steps between consecutive bodies' slots in the order they came.
#[derive(Default)]
struct Steps {
    last: Option<u32>,
    down: usize,
    count: usize,
}

impl Steps {
    fn push(&mut self, slot: u32) {
        if let Some(last) = self.last {
            self.down += usize::from(slot < last);
            self.count += 1;
        }
        self.last = Some(slot);
    }

    /// More than one step in 16 went down. A table in the reverse of body
    /// order (entities spawned by `Commands` in one batch sit in the
    /// reverse of their index order, and bodies are made in entity order)
    /// counts as scattered: applied ascending, the world's moved and dirty
    /// lists come out in body order for the boxes and the broad phase.
    fn scattered(&self) -> bool {
        self.down * 16 > self.count
    }
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
    write_pose(&converted, pose);
    if let Some(&body) = state.entity_body.get(&e) {
        set_converted(state, (e, body), &converted);
    }
}

/// A converted transform into the collider's `ColliderPose` (if valid and
/// different: change detection sees real changes only).
#[inline(always)]
fn write_pose(converted: &Converted, pose: &mut Mut<ColliderPose>) {
    if let Ok((new, _)) = converted
        && pose.0 != *new
    {
        pose.0 = *new;
    }
}

/// One converted transform into the world. A mesh takes the scale;
/// another shape refuses a scale other than 1 (and the pose is skipped
/// with a warning, as for a bad pose). Takes the conversion by
/// reference: passed by value, its copies through the stack stalled on
/// store forwarding.
#[inline(always)]
pub(super) fn set_converted(
    state: &mut CollisionState,
    (e, body): (Entity, BodyHandle),
    converted: &Converted,
) {
    let pose = match converted {
        Ok((pose, scale)) => state.set_scale(body, *scale).map(|()| *pose),
        Err(err) => Err(crate::pipeline::WorldError::InvalidPose(*err)),
    };
    apply_pose(state, (e, body), pose);
}
