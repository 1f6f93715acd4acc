//! The plugin's stages on Bevy's compute task pool: the world's bounds
//! update and narrow phase take their tasks from the core
//! ([`BoundsTask`], [`NarrowTask`](crate::narrow_phase::NarrowTask)) and
//! run them here, so the core never imports Bevy; the pose sync converts
//! the changed `GlobalTransform`s here in chunks. Every split is into
//! fixed, ordered shares whose results are applied serially afterwards in
//! one order, so the events are the same whatever the number of tasks or
//! threads.

use bevy_tasks::{ComputeTaskPool, TaskPool};

use crate::pipeline::{BoundsTask, CollisionWorld};

/// Below this many dirty bodies the bounds update runs on the calling
/// thread: spawning tasks would cost more than it saves.
const PARALLEL_MIN_BODIES: usize = 512;

/// Below this many active pairs the narrow phase runs on the calling
/// thread.
const PARALLEL_MIN_PAIRS: usize = 256;

/// Below this many changed transforms the pose sync converts them on the
/// calling thread.
#[cfg(feature = "bevy_transform")]
const PARALLEL_MIN_POSES: usize = 1024;

/// Bevy's compute task pool (created with its defaults if no
/// `TaskPoolPlugin` made it).
pub(super) fn compute_pool() -> &'static TaskPool {
    ComputeTaskPool::get_or_init(TaskPool::default)
}

/// The number of tasks per parallel stage: `configured`
/// ([`CollisionPlugin::with_parallel_tasks`](super::CollisionPlugin::with_parallel_tasks)),
/// or four per compute thread (a share for threads that finish early);
/// 1 (serial) on a one-thread pool.
pub(super) fn task_count(configured: Option<usize>) -> usize {
    configured.unwrap_or_else(|| {
        let threads = compute_pool().thread_num();
        if threads > 1 { 4 * threads } else { 1 }
    })
}

/// Runs every task on the compute pool and returns when all have run.
fn run_all<T: Send>(tasks: Vec<T>, run: fn(T)) {
    compute_pool().scope(|scope| {
        for task in tasks {
            scope.spawn(async move { run(task) });
        }
    });
}

/// The world's bounds update, split into `tasks` tasks when there are
/// enough dirty bodies.
pub(super) fn update_bounds(world: &mut CollisionWorld, tasks: usize) {
    if tasks <= 1 || world.dirty_bodies() < PARALLEL_MIN_BODIES {
        world.update_bounds();
    } else {
        world.update_bounds_with(tasks, |list| run_all(list, BoundsTask::run));
    }
}

/// The world's narrow phase, split into `tasks` tasks when there are
/// enough pairs.
pub(super) fn update_narrow_phase(world: &mut CollisionWorld, tasks: usize) {
    if tasks <= 1 || world.stats().box_pairs < PARALLEL_MIN_PAIRS as u32 {
        world.update_narrow_phase();
    } else {
        world.update_narrow_phase_with(tasks, |list| run_all(list, |task| task.run()));
    }
}

#[cfg(feature = "bevy_transform")]
pub(super) use poses::{Converted, convert_poses};

#[cfg(feature = "bevy_transform")]
mod poses {
    use bevy_ecs::entity::Entity;
    use bevy_transform::components::GlobalTransform;
    use glam::Vec3;

    use super::{PARALLEL_MIN_POSES, compute_pool};
    use crate::math::{Pose, PoseError};
    use crate::plugin::pose::pose_and_scale;

    /// A transform's rigid pose and scale, or why it has none.
    pub(crate) type Converted = Result<(Pose, Vec3), PoseError>;

    /// `out[k]` = the pose and scale of `globals[k]`, converted in `tasks`
    /// chunks on the compute pool (on the calling thread when there are
    /// few). Each conversion reads its transform alone: the result does
    /// not depend on the split.
    pub(crate) fn convert_poses(
        globals: &[(Entity, GlobalTransform)],
        out: &mut Vec<Converted>,
        tasks: usize,
    ) {
        out.clear();
        out.resize(globals.len(), Err(PoseError::NonFinite));
        let convert = |globals: &[(Entity, GlobalTransform)], out: &mut [Converted]| {
            for ((_, g), o) in globals.iter().zip(out) {
                *o = pose_and_scale(g);
            }
        };
        if tasks <= 1 || globals.len() < PARALLEL_MIN_POSES {
            return convert(globals, out);
        }
        let per_task = globals.len().div_ceil(tasks);
        compute_pool().scope(|scope| {
            for (g, o) in globals.chunks(per_task).zip(out.chunks_mut(per_task)) {
                scope.spawn(async move { convert(g, o) });
            }
        });
    }
}
