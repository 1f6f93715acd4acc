//! The parallel path: the pair tests split into tasks the caller runs on
//! its threads (Bevy's compute pool, `std::thread::scope`, rayon …); the
//! results are applied and the events recorded afterwards in one serial
//! pass, so they do not depend on the number of tasks or threads.

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
}

/// A share of the narrow phase's pair tests, to run on any thread.
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
            |job| job.changed = run_job(self.bodies, job.key, job.state, self.scratch),
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
    /// [`update`](Self::update) with the tests spread over `tasks` tasks:
    /// `run` gets the tasks (each `Send` when the bodies are `Sync`) and must
    /// run all of them before it returns (a scoped spawn). This path
    /// allocates its job list.
    pub fn update_with<B: PairBodies>(
        &mut self,
        changes: &PairChanges,
        bodies: &B,
        tasks: usize,
        run: impl FnOnce(Vec<NarrowTask<'_, '_, B>>),
        events: &mut Vec<PairEvent>,
    ) {
        self.apply_changes(changes, bodies, events);
        let tasks = tasks.max(1);
        if self.scratches.len() < tasks {
            self.scratches.resize_with(tasks, QueryScratch::default);
        }
        let mut touching = 0;
        let mut jobs: Vec<Job<'_>> = Vec::with_capacity(self.pairs.len());
        for (&key, state) in self.pairs.iter_mut() {
            if needs_test(bodies, key, state) {
                jobs.push(Job {
                    key,
                    state,
                    changed: false,
                });
            } else {
                touching += u32::from(state.result.touching);
            }
        }
        let tests = jobs.len() as u32;
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
        for job in &jobs {
            touching += u32::from(job.state.result.touching);
            if job.changed {
                events.push(pair_event(job.key, job.state));
            }
        }
        self.stats = NarrowStats {
            active_pairs: self.pairs.len() as u32,
            pair_tests: tests,
            touching,
        };
    }
}
