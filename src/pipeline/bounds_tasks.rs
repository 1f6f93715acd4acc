//! The bounds update split into tasks the caller runs on its threads
//! (Bevy's compute pool, `std::thread::scope`, rayon …), as the narrow
//! phase's pair tests are ([`NarrowTask`](crate::narrow_phase::NarrowTask)).
//!
//! A body's box depends on that body alone (its pose, shape and the dynamic
//! box's warm start), so the dirty bodies are split by slot into disjoint
//! runs of the body table, one per task, each refreshed on any thread. The
//! boxes then go to the broad phase in one serial pass, in the order the
//! bodies were marked dirty, exactly as the serial update hands them over:
//! the broad phase, its pair changes and the events are the same whatever
//! the number of tasks or threads. A task the caller drops instead of
//! running leaves its bodies dirty; the serial pass refreshes them itself.

use super::CollisionWorld;
use super::body::Body;
use super::driver::refresh_box;
use crate::bounds::READ_AHEAD;
use crate::broad_phase::BroadPhase;
use crate::narrow_phase::recycle;

/// A share of the bounds update: a run of the body table and the dirty
/// slots in it, to run on any thread.
#[must_use = "a task refreshes nothing until it is run (a dropped task's bodies are refreshed serially afterwards)"]
pub struct BoundsTask<'a> {
    bodies: &'a mut [Body],
    /// Slot of `bodies[0]`.
    first: u32,
    /// Dirty slots in this run, ascending.
    slots: &'a [u32],
    time_to_collision: bool,
    visits: &'a mut u64,
}

impl BoundsTask<'_> {
    /// Refreshes the boxes of this share's bodies.
    pub fn run(self) {
        let at = |k: usize| self.slots.get(k).map(|&i| (i - self.first) as usize);
        for k in 0..self.slots.len() {
            // Cache hints a little ahead, as the serial update gives them.
            if let Some(j) = at(k + 2 * READ_AHEAD) {
                self.bodies[j].prefetch_bounds_fields();
            }
            if let Some(j) = at(k + READ_AHEAD) {
                self.bodies[j].prefetch_bounds();
            }
            let j = (self.slots[k] - self.first) as usize;
            if let Some(v) = refresh_box(&mut self.bodies[j], self.time_to_collision) {
                *self.visits += u64::from(v);
            }
        }
    }

    /// Number of bodies in this share.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether this share is empty.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// Bodies whose box the next bounds update recomputes.
    pub fn dirty_bodies(&self) -> usize {
        self.dirty.len()
    }

    /// [`update_bounds`](Self::update_bounds) with the box computations
    /// spread over `tasks` tasks (clamped to `1 ..= dirty bodies`): `run`
    /// gets the tasks (each `Send`) and should run all of them before it
    /// returns (a scoped spawn). The boxes then go to the broad phase
    /// serially, in the serial update's order, so everything after is the
    /// same whatever the number of tasks or threads (see the module docs).
    /// A dropped task's bodies are refreshed serially after `run` returns.
    /// The tasks come as a draining iterator; the lists behind it keep
    /// their memory (nothing allocated in steady state beyond what `run`'s
    /// executor does).
    ///
    /// ```
    /// # let mut world = bevy_icollide::pipeline::CollisionWorld::default();
    /// world.update_bounds_with(2, |tasks| {
    ///     std::thread::scope(|s| {
    ///         for task in tasks {
    ///             s.spawn(move || task.run());
    ///         }
    ///     })
    /// });
    /// ```
    pub fn update_bounds_with(
        &mut self,
        tasks: usize,
        run: impl FnOnce(std::vec::Drain<'_, BoundsTask<'_>>),
    ) {
        if self.dirty.is_empty() {
            return;
        }
        let mut slots = std::mem::take(&mut self.bounds_order);
        slots.clear();
        slots.extend_from_slice(&self.dirty);
        slots.sort_unstable();
        let tasks = tasks.clamp(1, slots.len());
        let mut visits = std::mem::take(&mut self.bounds_visits);
        visits.clear();
        visits.resize(tasks, 0);
        let ttc = self.config.time_to_collision;
        let mut list = recycle(std::mem::take(&mut self.bounds_tasks));
        split(&mut list, &mut self.bodies, &slots, &mut visits, ttc);
        run(list.drain(..));
        self.bounds_tasks = recycle(list);
        self.bounds_order = slots;
        self.begin_bounds_update();
        self.stats.hill_climb_visits = visits.iter().sum();
        self.bounds_visits = visits;
        let dirty = std::mem::take(&mut self.dirty);
        for &i in &dirty {
            let body = &mut self.bodies[i as usize];
            // Still dirty: its task was dropped.
            let visits = if body.dirty {
                refresh_box(body, ttc).unwrap_or(0)
            } else {
                0
            };
            self.publish_box(i, visits);
        }
        self.dirty = dirty;
        self.dirty.clear();
    }
}

/// The body table cut into one run per task, each holding an equal share
/// of the (ascending, distinct) dirty `slots`.
fn split<'a>(
    list: &mut Vec<BoundsTask<'a>>,
    mut rest: &'a mut [Body],
    slots: &'a [u32],
    visits: &'a mut [u64],
    time_to_collision: bool,
) {
    let per_task = slots.len().div_ceil(visits.len()).max(1);
    let mut first = 0u32;
    for (slots, visits) in slots.chunks(per_task).zip(visits.iter_mut()) {
        let end = slots[slots.len() - 1] + 1;
        let (head, tail) = std::mem::take(&mut rest).split_at_mut((end - first) as usize);
        list.push(BoundsTask {
            bodies: head,
            first,
            slots,
            time_to_collision,
            visits,
        });
        rest = tail;
        first = end;
    }
}
