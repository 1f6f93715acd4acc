//! The plugin's stages on Bevy's compute task pool: the world's bounds
//! update and narrow phase take their tasks from the core
//! ([`BoundsTask`], [`NarrowTask`](crate::narrow_phase::NarrowTask)) and
//! run them here, so the core never imports Bevy. Every split is into
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
fn run_all<T: Send>(tasks: impl IntoIterator<Item = T>, run: fn(T)) {
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
