//! The parallel path: the pair tests split into tasks the caller runs on
//! its threads (Bevy's compute pool, `std::thread::scope`, rayon …); the
//! results are applied and the events recorded afterwards in one serial
//! pass, so they do not depend on the number of tasks or threads.
//!
//! Any task count is accepted: it is clamped to `1 ..= pairs to test` (a
//! task per pair is the finest split there is). A task the caller drops
//! (or forgets) instead of running leaves its pairs untested: the pass
//! after the caller returns finds them by their `done` flags and tests them
//! itself, serially, so the events stay exact; their number is in
//! [`NarrowStats::tested_after_tasks`] and a warning is logged the first
//! time.

use super::{
    NarrowPhase, NarrowStats, PairBodies, PairEvent, PairState, needs_test, pair_event, read_ahead,
    run_job,
};
use crate::broad_phase::{PairChanges, PairKey};
use crate::math::prefetch::for_each_read_ahead;
use crate::query::QueryScratch;

/// One pair to test.
struct Job<'a> {
    key: PairKey,
    state: &'a mut PairState,
    changed: bool,
    /// Tested (by its task, or by the serial pass after the tasks).
    done: bool,
}

/// A share of the narrow phase's pair tests, to run on any thread.
#[must_use = "a task tests nothing until it is run (a dropped task's pairs are tested serially afterwards)"]
pub struct NarrowTask<'t, 'a, B> {
    jobs: &'t mut [Job<'a>],
    bodies: &'a B,
    scratch: &'t mut QueryScratch,
}

impl<B: PairBodies> NarrowTask<'_, '_, B> {
    /// Runs the tests of this share.
    pub fn run(self) {
        for_each_read_ahead(
            self.jobs.iter_mut(),
            |job, stage| read_ahead(self.bodies, job.key, job.state, stage),
            |job| {
                job.changed = run_job(self.bodies, job.key, job.state, self.scratch);
                job.done = true;
            },
        );
    }

    /// Number of pair tests in this share.
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
    /// (clamped to `1 ..= pairs to test`): `run` gets the tasks (each `Send`
    /// when the bodies are `Sync`) and should run all of them before it
    /// returns (a scoped spawn); the pairs of a task it drops are tested
    /// serially afterwards (see the module docs). This path allocates its
    /// job list.
    pub fn update_with<B: PairBodies>(
        &mut self,
        changes: &PairChanges,
        bodies: &B,
        tasks: usize,
        run: impl FnOnce(Vec<NarrowTask<'_, '_, B>>),
        events: &mut Vec<PairEvent>,
    ) {
        self.apply_changes(changes, bodies, events);
        let mut touching = 0;
        let mut jobs: Vec<Job<'_>> = Vec::with_capacity(self.pairs.len());
        for (&key, state) in self.pairs.iter_mut() {
            if needs_test(bodies, key, state) {
                jobs.push(Job {
                    key,
                    state,
                    changed: false,
                    done: false,
                });
            } else {
                touching += u32::from(state.result.touching);
            }
        }
        let tests = jobs.len() as u32;
        let tasks = tasks.clamp(1, jobs.len().max(1));
        if self.scratches.len() < tasks {
            self.scratches.resize_with(tasks, QueryScratch::default);
        }
        let per_task = jobs.len().div_ceil(tasks).max(1);
        let list: Vec<NarrowTask<'_, '_, B>> = jobs
            .chunks_mut(per_task)
            .zip(self.scratches.iter_mut())
            .map(|(jobs, scratch)| NarrowTask {
                jobs,
                bodies,
                scratch,
            })
            .collect();
        run(list);
        let mut after = 0;
        for job in &mut jobs {
            if !job.done {
                job.changed = run_job(bodies, job.key, job.state, &mut self.scratch);
                after += 1;
            }
            touching += u32::from(job.state.result.touching);
            if job.changed {
                events.push(pair_event(job.key, job.state));
            }
        }
        if after > 0 && !self.warned_dropped_tasks {
            self.warned_dropped_tasks = true;
            log::warn!(
                "bevy_icollide: {after} pair tests were in tasks the narrow phase's \
                 caller did not run; they were tested serially after it returned"
            );
        }
        self.stats = NarrowStats {
            active_pairs: self.pairs.len() as u32,
            pair_tests: tests,
            touching,
            tested_after_tasks: after,
        };
    }
}
