//! The parallel path: the active pairs, in the serial update's order, cut
//! into contiguous shares, one task each, that the caller runs on its
//! threads (Bevy's compute pool, `std::thread::scope`, rayon …). A task
//! decides which of its pairs need a test and tests them (the serial
//! caller only lists the pairs); each writes its outcomes into its own
//! share of the job list, and the events are appended afterwards in one
//! serial pass over the list, in order, so they are the serial update's
//! whatever the number of tasks or threads.
//!
//! Any task count is accepted: it is clamped to `1 ..= active pairs` (a
//! task per pair is the finest split there is). A task the caller drops
//! (or forgets) instead of running leaves its pairs untested: the pass
//! after the caller returns finds them by their `done` flags and tests them
//! itself, serially, so the events stay exact; their number is in
//! [`NarrowStats::tested_after_tasks`] and a warning is logged the first
//! time.

use super::{
    NarrowPhase, NarrowStats, PairBodies, PairEvent, PairState, needs_test, read_ahead, record,
    run_job,
};
use crate::broad_phase::{PairChanges, PairKey};
use crate::math::prefetch::for_each_read_ahead;
use crate::query::{PairResult, QueryScratch};

/// One active pair: tested by its task if it needs a test.
pub(super) struct Job<'a> {
    key: PairKey,
    state: &'a mut PairState,
    /// It needed a test (decided by its task).
    test: bool,
    changed: bool,
    /// Its result (copied from the state by the task, so that the serial
    /// pass afterwards reads the job list alone).
    result: PairResult,
    /// Tested (by its task, or by the serial pass after the tasks).
    done: bool,
}

/// The tasks of one [`NarrowPhase::update_with`], handed to its caller's
/// closure; a task not taken from it is dropped with it (its pairs are
/// tested serially afterwards).
pub type NarrowTasks<'d, 't, 'a, B> = std::vec::Drain<'d, NarrowTask<'t, 'a, B>>;

/// The parallel path's lists, kept between updates for their memory (the
/// lists borrow the pairs, so they are stored empty, as lists of another
/// lifetime: see [`recycle`]).
#[derive(Default)]
pub(super) struct TaskLists {
    jobs: Vec<Job<'static>>,
    tasks: Vec<NarrowTask<'static, 'static, ()>>,
}

/// An empty list of another element type (here: the same type with other
/// lifetimes) with `list`'s memory: std collects a `Vec`'s own iterator in
/// place when the two types have the same size and alignment, and makes a
/// new empty list otherwise. Keeps the per-update lists of borrowed records
/// from allocating.
pub(crate) fn recycle<T, U>(mut list: Vec<T>) -> Vec<U> {
    list.clear();
    list.into_iter().filter_map(|_| None).collect()
}

/// A share of the narrow phase's pair tests, to run on any thread.
#[must_use = "a task tests nothing until it is run (a dropped task's pairs are tested serially afterwards)"]
pub struct NarrowTask<'t, 'a, B> {
    jobs: &'t mut [Job<'a>],
    bodies: &'a B,
    scratch: &'t mut QueryScratch,
}

impl<B: PairBodies> NarrowTask<'_, '_, B> {
    /// Runs the tests of this share: each pair that needs one (decided as
    /// it enters the read-ahead, as the serial update does) is tested.
    pub fn run(self) {
        let bodies = self.bodies;
        // `inspect` would hand out `&&mut Job`, which cannot be written.
        #[allow(clippy::manual_inspect)]
        let jobs = self.jobs.iter_mut().map(|job| {
            job.test = needs_test(bodies, job.key, job.state);
            job
        });
        for_each_read_ahead(
            jobs,
            |job, stage| {
                if job.test {
                    read_ahead(bodies, job.key, job.state, stage);
                }
            },
            |job| finish_job(bodies, job, self.scratch),
        );
    }

    /// Number of pairs in this share (each tested if it needs it).
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether this share is empty.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }
}

impl NarrowPhase {
    /// [`update`](Self::update) with the tests spread over `tasks` tasks
    /// (clamped to `1 ..= active pairs`): the pairs, in the serial
    /// update's order, are cut into that many contiguous shares; `run`
    /// gets the tasks (each `Send` when the bodies are `Sync`) and should
    /// run all of them before it returns (a scoped spawn). Each task writes
    /// its pairs' results into its own share of the job list; one serial
    /// pass afterwards reads the list in order and appends the events, so
    /// they are the serial update's, in its order, for any split and any
    /// thread count. The pairs of a task `run` drops are tested in that
    /// pass (see the module docs). Allocates nothing in steady state (the
    /// lists keep their memory; the executor's own spawning is `run`'s).
    pub fn update_with<B: PairBodies>(
        &mut self,
        changes: &PairChanges,
        bodies: &B,
        tasks: usize,
        run: impl FnOnce(NarrowTasks<'_, '_, '_, B>),
        events: &mut Vec<PairEvent>,
    ) {
        let fresh = self.apply_changes(changes, bodies, events);
        let walk = self.select.choose(&self.pairs, fresh, bodies);
        let TaskLists { jobs, tasks: list } = std::mem::take(&mut self.task_lists);
        let mut jobs: Vec<Job<'_>> = recycle(jobs);
        let job = |(key, state)| Job {
            key,
            state,
            test: false,
            changed: false,
            result: PairResult::default(),
            done: false,
        };
        if walk {
            jobs.extend(self.pairs.values_at(&self.select.due).map(job));
        } else {
            jobs.extend(self.pairs.values_mut().map(job));
        }
        let tasks = tasks.clamp(1, jobs.len().max(1));
        if self.scratches.len() < tasks {
            self.scratches.resize_with(tasks, QueryScratch::default);
        }
        let per_task = jobs.len().div_ceil(tasks).max(1);
        let mut list: Vec<NarrowTask<'_, '_, B>> = recycle(list);
        let shares = jobs.chunks_mut(per_task).zip(self.scratches.iter_mut());
        list.extend(shares.map(|(jobs, scratch)| NarrowTask {
            jobs,
            bodies,
            scratch,
        }));
        run(list.drain(..));
        let list = recycle(list);
        share_high_water(&mut self.scratches[..tasks]);
        let (mut tests, mut after) = (0, 0);
        let out = (&mut self.touching, events);
        for job in &mut jobs {
            if !job.done {
                job.test = needs_test(bodies, job.key, job.state);
                finish_job(bodies, job, &mut self.scratch);
                after += u32::from(job.test);
            }
            tests += u32::from(job.test);
            if job.test {
                record(job.key, job.result, job.changed, (out.0, out.1));
            }
        }
        self.task_lists = TaskLists {
            jobs: recycle(jobs),
            tasks: list,
        };
        self.warn_dropped(after);
        self.stats = NarrowStats {
            active_pairs: self.pairs.len() as u32,
            pair_tests: tests,
            pairs_checked: self.select.checked,
            touching: self.touching,
            tested_after_tasks: after,
        };
    }

    /// Warns, once, that `after` pair tests were in dropped tasks.
    fn warn_dropped(&mut self, after: u32) {
        if after > 0 && !self.warned_dropped_tasks {
            self.warned_dropped_tasks = true;
            log::warn!(
                "bevy_icollide: {after} pair tests were in tasks the narrow phase's \
                 caller did not run; they were tested serially after it returned"
            );
        }
    }
}

/// Tests a job's pair if it needs it and records the outcome in the job.
#[inline]
fn finish_job<B: PairBodies>(bodies: &B, job: &mut Job<'_>, scratch: &mut QueryScratch) {
    if job.test {
        job.changed = run_job(bodies, job.key, job.state, scratch);
    }
    job.result = job.state.result;
    job.done = true;
}

/// Grows every task's scratch to the largest buffers any of them needed
/// (a pair's slot, and so its task, changes as pairs come and go: without
/// this each scratch would reach the high-water mark on its own, later).
fn share_high_water(scratches: &mut [QueryScratch]) {
    let Some((first, rest)) = scratches.split_first_mut() else {
        return;
    };
    for other in rest.iter() {
        first.reserve_like(other);
    }
    for other in rest.iter_mut() {
        other.reserve_like(first);
    }
}
