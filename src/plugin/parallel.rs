//! The plugin's stages on Bevy's compute task pool: the world's pose
//! writes, bounds update and narrow phase take their tasks from the core
//! ([`PoseTask`](crate::pipeline::PoseTask), [`BoundsTask`],
//! [`NarrowTask`](crate::narrow_phase::NarrowTask)) and run them here, so
//! the core never imports Bevy; the pose sync converts the changed
//! `GlobalTransform`s here in chunks. Every split is into
//! fixed, ordered shares whose results are applied serially afterwards in
//! one order, so the events are the same whatever the number of tasks or
//! threads.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use bevy_tasks::{ComputeTaskPool, TaskPool};

use super::resources::TaskShare;
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

/// Which thread ran a stage's tasks: counted as the tasks start, so that
/// [`TaskShare`] can tell whether the pool's other threads took part.
struct Tally {
    caller: ThreadId,
    spawned: Instant,
    elsewhere: AtomicU32,
    /// Nanoseconds from `spawned` to the first task started elsewhere.
    first_elsewhere: AtomicU64,
}

impl Tally {
    fn new() -> Self {
        Self {
            caller: std::thread::current().id(),
            spawned: Instant::now(),
            elsewhere: AtomicU32::new(0),
            first_elsewhere: AtomicU64::new(u64::MAX),
        }
    }

    /// Called by each task as it starts.
    fn started(&self) {
        if std::thread::current().id() != self.caller {
            let ns = self
                .spawned
                .elapsed()
                .as_nanos()
                .min(u128::from(u64::MAX - 1)) as u64;
            self.elsewhere.fetch_add(1, Ordering::Relaxed);
            self.first_elsewhere.fetch_min(ns, Ordering::Relaxed);
        }
    }

    /// The share of `tasks` tasks, all run.
    fn share(self, tasks: usize) -> TaskShare {
        let first = self.first_elsewhere.into_inner();
        TaskShare {
            tasks: tasks as u32,
            elsewhere: self.elsewhere.into_inner(),
            first_elsewhere: (first != u64::MAX).then(|| Duration::from_nanos(first)),
        }
    }
}

/// Runs every task on the compute pool and returns when all have run,
/// with how they were shared out.
fn run_all<T: Send>(tasks: impl IntoIterator<Item = T>, run: fn(T)) -> TaskShare {
    let (tally, mut count) = (Tally::new(), 0);
    compute_pool().scope(|scope| {
        for task in tasks {
            count += 1;
            let tally = &tally;
            scope.spawn(async move {
                tally.started();
                run(task);
            });
        }
    });
    tally.share(count)
}

/// The world's bounds update, split into `tasks` tasks when there are
/// enough dirty bodies.
pub(super) fn update_bounds(world: &mut CollisionWorld, tasks: usize) -> TaskShare {
    let mut share = TaskShare::default();
    if tasks <= 1 || world.dirty_bodies() < PARALLEL_MIN_BODIES {
        world.update_bounds();
    } else {
        world.update_bounds_with(tasks, |list| share = run_all(list, BoundsTask::run));
    }
    share
}

/// The world's narrow phase, split into `tasks` tasks when there are
/// enough pairs.
pub(super) fn update_narrow_phase(world: &mut CollisionWorld, tasks: usize) -> TaskShare {
    let mut share = TaskShare::default();
    if tasks <= 1 || world.stats().box_pairs < PARALLEL_MIN_PAIRS as u32 {
        world.update_narrow_phase();
    } else {
        world.update_narrow_phase_with(tasks, |list| share = run_all(list, |task| task.run()));
    }
    share
}

#[cfg(feature = "bevy_transform")]
pub(super) use poses::{PoseStaging, convert_poses};

#[cfg(feature = "bevy_transform")]
mod poses {
    use bevy_ecs::change_detection::Mut;
    use bevy_ecs::entity::Entity;
    use bevy_transform::components::GlobalTransform;
    use glam::Vec3;

    use super::{Tally, compute_pool, run_all};
    use crate::math::{Pose, PoseError};
    use crate::pipeline::{BodyHandle, CollisionWorld, PoseTask, PoseWrite, WorldError};
    use crate::plugin::components::ColliderPose;
    use crate::plugin::pose::pose_and_scale;
    use crate::plugin::resources::{CollisionState, TaskShare};
    use crate::plugin::systems::note_pose;

    /// Below this many changed transforms the pose sync converts them on
    /// the calling thread.
    const PARALLEL_MIN_POSES: usize = 1024;

    /// A changed transform's collider, as the query gave it.
    pub(crate) type Staged<'w> = (Entity, &'w GlobalTransform, Mut<'w, ColliderPose>);

    /// What a chunk task found for a staged collider: its body and its
    /// transform's pose and scale (or why it has none).
    pub(crate) type Found = (Option<BodyHandle>, Result<(Pose, Vec3), PoseError>);

    /// The staged colliders of the last sync and what was found for
    /// them, emptied: kept for the allocations (no allocation per frame
    /// once they have grown).
    #[derive(Default)]
    pub(crate) struct PoseStaging {
        items: Vec<Staged<'static>>,
        pub found: Vec<Found>,
        writes: Vec<PoseWrite>,
        outcomes: Vec<Result<(), WorldError>>,
    }

    impl PoseStaging {
        /// The kept allocation, empty, for this run's borrows.
        pub(crate) fn take<'w>(&mut self) -> Vec<Staged<'w>> {
            recycle(std::mem::take(&mut self.items))
        }

        /// Keeps `items`' allocation for the next run.
        pub(crate) fn keep(&mut self, items: Vec<Staged<'_>>) {
            self.items = recycle(items);
        }

        /// The converted poses (and scales) of `items` into their bodies,
        /// the writes in `tasks` tasks on the compute pool when there are
        /// many (the world then appends its dirty list in their order:
        /// the serial calls' result); then each collider's warning, in
        /// order.
        pub(crate) fn write(
            &mut self,
            state: &mut CollisionState,
            items: &[Staged],
            tasks: usize,
        ) -> TaskShare {
            self.writes.clear();
            for (body, converted) in &self.found {
                if let (Some(body), Ok((pose, scale))) = (body, converted) {
                    let scale = state.scale_to_set(*scale);
                    self.writes.push(PoseWrite {
                        body: *body,
                        pose: *pose,
                        scale,
                    });
                }
            }
            let share = set_poses(&mut state.world, &self.writes, tasks, &mut self.outcomes);
            let mut outcomes = self.outcomes.iter();
            for (&(e, _, _), (body, converted)) in items.iter().zip(&self.found) {
                if body.is_none() {
                    continue;
                }
                let result = match converted {
                    Ok(_) => *outcomes.next().expect("an outcome per write"),
                    Err(err) => Err(WorldError::InvalidPose(*err)),
                };
                note_pose(state, e, result);
            }
            share
        }
    }

    /// The world's pose writes, in `tasks` tasks on the compute pool when
    /// there are many, else in one on the calling thread.
    fn set_poses(
        world: &mut CollisionWorld,
        writes: &[PoseWrite],
        tasks: usize,
        outcomes: &mut Vec<Result<(), WorldError>>,
    ) -> TaskShare {
        if tasks <= 1 || writes.len() < PARALLEL_MIN_POSES {
            world.set_poses_with(writes, 1, |list| list.for_each(PoseTask::run), outcomes);
            return TaskShare::default();
        }
        let mut share = TaskShare::default();
        world.set_poses_with(
            writes,
            tasks,
            |list| share = run_all(list, PoseTask::run),
            outcomes,
        );
        share
    }

    /// An empty vector with `v`'s allocation: the same element type but
    /// for its lifetimes, so std collects the vector's own iterator in
    /// place (no allocation; `recycled_vectors_keep_their_allocation`).
    fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
        v.clear();
        v.into_iter()
            .map(|_| -> U { unreachable!("empty") })
            .collect()
    }

    /// `found[k]` = the body of `items[k]` and its transform's pose and
    /// scale; the `ColliderPose` written when the pose changed: in `tasks`
    /// contiguous chunks on the compute pool (on the calling thread when
    /// there are few). Each item reads and writes only itself, so the
    /// result does not depend on the split; the world is updated
    /// afterwards, serially, in order. Returns how the chunks were shared
    /// out.
    pub(crate) fn convert_poses(
        items: &mut [Staged],
        found: &mut Vec<Found>,
        bodies: &crate::plugin::entity_bodies::EntityBodies,
        tasks: usize,
    ) -> TaskShare {
        found.clear();
        found.resize(items.len(), (None, Err(PoseError::NonFinite)));
        let convert = |items: &mut [Staged], found: &mut [Found]| {
            for ((e, global, pose), f) in items.iter_mut().zip(found) {
                let converted = pose_and_scale(global);
                if let Ok((new, _)) = converted
                    && pose.0 != new
                {
                    pose.0 = new;
                }
                *f = (bodies.get(e).copied(), converted);
            }
        };
        if tasks <= 1 || items.len() < PARALLEL_MIN_POSES {
            convert(items, found);
            return TaskShare::default();
        }
        let per_task = items.len().div_ceil(tasks);
        let (tally, mut count) = (Tally::new(), 0);
        compute_pool().scope(|scope| {
            for (i, f) in items.chunks_mut(per_task).zip(found.chunks_mut(per_task)) {
                count += 1;
                let tally = &tally;
                scope.spawn(async move {
                    tally.started();
                    convert(i, f);
                });
            }
        });
        tally.share(count)
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn recycled_vectors_keep_their_allocation() {
            let mut v: Vec<(u32, &'static str)> = Vec::with_capacity(100);
            v.push((1, "a"));
            let (ptr, cap) = (v.as_ptr() as usize, v.capacity());
            let s = String::from("b");
            let mut w: Vec<(u32, &str)> = super::recycle(v);
            assert!(w.is_empty());
            w.push((2, &s));
            assert_eq!((w.as_ptr() as usize, w.capacity()), (ptr, cap));
        }
    }
}
