//! The frame driver: the stages of one frame, in order, each draining the
//! output of the one before (see the [module docs](super)).
//!
//! ```text
//! set_pose / set_shape ──► dirty bodies
//! update_bounds        dirty bodies ──► boxes into the broad phase, `moved`
//! update_broad_phase   broad phase update ──► PairChanges (net, queued)
//! update_narrow_phase  PairChanges drained ──► pair tests ──► ContactEvents (queued)
//! drain_events         ContactEvents drained by the reader
//! ```
//!
//! Each stage first runs the earlier ones that have pending input, so any
//! call order gives the events of the right one; a stage with no input is
//! a no-op.

use glam::DVec3;

use super::body::PairRules;
use super::moved::MovedBodies;
use super::{Body, CollisionWorld, ContactEvent};
use crate::bounds::READ_AHEAD;
use crate::broad_phase::{BroadPhase, pair_ids};
use crate::math::prefetch::prefetch_value;
use crate::math::{MotionResidual, RigidMotion};
use crate::narrow_phase::{HullSide, NarrowTasks, PairBodies, PairEvent};
use crate::query::PairSide;

/// The contact events of a step, drained from the world's queue as they
/// are read (dropping this value drops the rest: hence `must_use`; to
/// discard them on purpose, `let _ = world.step();`).
#[must_use = "the step's contact events are drained: dropping them loses them"]
pub struct ContactEvents<'a>(std::vec::Drain<'a, ContactEvent>);

impl Iterator for ContactEvents<'_> {
    type Item = ContactEvent;
    fn next(&mut self) -> Option<ContactEvent> {
        self.0.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for ContactEvents<'_> {}

impl ContactEvents<'_> {
    /// The events not read yet.
    pub fn as_slice(&self) -> &[ContactEvent] {
        self.0.as_slice()
    }
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// One frame: bounds, broad phase, narrow phase, and the frame's events
    /// (with any not drained before), sorted by user data.
    pub fn step(&mut self) -> ContactEvents<'_> {
        self.update_bounds();
        self.update_broad_phase();
        self.update_narrow_phase();
        self.drain_events()
    }

    /// Stage 1: the boxes of bodies whose pose or shape changed, into the
    /// broad phase.
    pub fn update_bounds(&mut self) {
        if self.dirty.is_empty() {
            return;
        }
        self.begin_bounds_update();
        let dirty = std::mem::take(&mut self.dirty);
        for (k, &i) in dirty.iter().enumerate() {
            // Cache hints for bodies a little ahead: their shapes' hull
            // fields, then (once those are in) the hulls' lanes, separate
            // allocations that would otherwise miss.
            let ahead = |d: usize| dirty.get(k + d).and_then(|&j| self.bodies.get(j as usize));
            if let Some(body) = ahead(2 * READ_AHEAD) {
                body.prefetch_bounds_fields();
            }
            if let Some(body) = ahead(READ_AHEAD) {
                body.prefetch_bounds();
                // What `publish_box` reads and writes in the broad phase.
                self.broad.prefetch_proxy(dirty[k + READ_AHEAD]);
            }
            self.update_body_bounds(i);
        }
        self.dirty = dirty;
        self.dirty.clear();
    }

    /// Resets the bounds update's counters.
    pub(super) fn begin_bounds_update(&mut self) {
        self.stats.bounds_updated = 0;
        self.stats.hill_climb_visits = 0;
        self.stats.refit_nodes = std::mem::take(&mut self.refits_pending);
    }

    /// Stage 2: the broad phase applies the new boxes (after stage 1 if it
    /// has pending input).
    pub fn update_broad_phase(&mut self) {
        self.update_bounds();
        if !self.broad_pending {
            return;
        }
        self.broad_pending = false;
        self.broad.update(&PairRules {
            bodies: &self.bodies,
            disabled: &self.disabled_pairs,
        });
        self.stats.swaps = self.broad.stats().swaps;
        self.stats.box_pairs = self.broad.box_pairs() as u32;
    }

    /// Stage 3: drains the broad phase's pair changes, tests the pairs with
    /// a moved body (after stages 1 and 2 if they have pending input), and
    /// queues the start / end events, sorted by user data. Frees the slots
    /// of removed bodies. Allocates nothing in steady state.
    pub fn update_narrow_phase(&mut self) {
        self.update_broad_phase();
        self.broad.drain_changes(&mut self.changes);
        let bodies = Bodies::new(&self.bodies, &self.moved, &self.config);
        self.narrow
            .update(&self.changes, &bodies, &mut self.pair_events);
        self.finish_narrow_phase();
    }

    /// Stage 3 with the pair tests spread over `tasks` tasks, for a thread
    /// pool: `run` gets the tasks (each `Send`) and should run all of them
    /// before it returns (a scoped spawn). Results are applied and events
    /// recorded afterwards in one serial pass, sorted, so the events are the
    /// same whatever the number of tasks or threads. Any `tasks` is
    /// accepted: it is clamped to `1 ..= active pairs`. A task the closure
    /// drops instead of running is not lost: its pairs are tested serially
    /// after the closure returns (counted in
    /// [`WorldStats::tested_after_tasks`](super::WorldStats::tested_after_tasks),
    /// and a warning is logged the first time). Without Bevy:
    ///
    /// ```
    /// # let mut world = bevy_icollide::pipeline::CollisionWorld::default();
    /// world.update_narrow_phase_with(2, |tasks| {
    ///     std::thread::scope(|s| {
    ///         for task in tasks {
    ///             s.spawn(move || task.run());
    ///         }
    ///     })
    /// });
    /// ```
    ///
    /// The tasks come as a draining iterator (take them all, by value);
    /// the lists behind it keep their memory, so this path allocates
    /// nothing in steady state beyond what `run`'s executor does.
    pub fn update_narrow_phase_with(
        &mut self,
        tasks: usize,
        run: impl FnOnce(NarrowTasks<'_, '_, '_, Bodies<'_>>),
    ) {
        self.update_broad_phase();
        self.broad.drain_changes(&mut self.changes);
        let bodies = Bodies::new(&self.bodies, &self.moved, &self.config);
        self.narrow
            .update_with(&self.changes, &bodies, tasks, run, &mut self.pair_events);
        self.finish_narrow_phase();
    }

    /// Stage 4: the queued contact events, sorted by user data (ends before
    /// starts of the same user-data pair) within each
    /// narrow phase, drained.
    pub fn drain_events(&mut self) -> ContactEvents<'_> {
        ContactEvents(self.events.drain(..))
    }

    /// The queued contact events, not drained.
    #[must_use]
    pub fn events(&self) -> &[ContactEvent] {
        &self.events
    }

    /// Turns the narrow phase's pair events into contact events (sorted),
    /// clears the moved flags, frees removed bodies' slots.
    pub(super) fn finish_narrow_phase(&mut self) {
        let start = self.events.len();
        for i in 0..self.pair_events.len() {
            let e = self.contact_event(self.pair_events[i]);
            self.events.push(e);
        }
        self.pair_events.clear();
        // An end before a start of the same user-data pair: a body removed
        // and re-added in one frame (a new handle, perhaps a lower slot)
        // ends its old pairs before its new ones start.
        self.events[start..]
            .sort_unstable_by_key(|e| (e.user_data, e.started, e.bodies[0], e.bodies[1]));
        self.restart_steps();
        self.moved.clear();
        self.free.append(&mut self.pending_free);
        let s = self.narrow.stats();
        self.stats.active_pairs = s.active_pairs;
        self.stats.pair_tests = s.pair_tests;
        self.stats.pairs_checked = s.pairs_checked;
        self.stats.touching = s.touching;
        self.stats.tested_after_tasks = s.tested_after_tasks;
    }

    /// The contact event of a pair event: the bodies by ascending user data.
    fn contact_event(&self, e: PairEvent) -> ContactEvent {
        let (a, b) = pair_ids(e.pair);
        let (ua, ub) = (
            self.bodies[a as usize].user_data,
            self.bodies[b as usize].user_data,
        );
        let (ha, hb) = (self.handle(a), self.handle(b));
        let (bodies, user_data) = if ua <= ub {
            ([ha, hb], [ua, ub])
        } else {
            ([hb, ha], [ub, ua])
        };
        ContactEvent {
            bodies,
            user_data,
            started: e.started,
        }
    }

    /// The serial half of a body's bounds update, after
    /// [`refresh_box`]: counts it, marks it moved and hands its padded box
    /// to the broad phase. A body without a box (removed, or without a
    /// valid pose) is skipped.
    pub(super) fn publish_box(&mut self, i: u32, visits: u32) {
        let margin = self.config.margin;
        let body = &mut self.bodies[i as usize];
        if !body.alive || body.pose.is_none() {
            return;
        }
        self.stats.bounds_updated += 1;
        self.stats.hill_climb_visits += u64::from(visits);
        self.moved.insert(i);
        let padded = body.tight.padded(margin);
        // Boxes of valid poses are finite; a refused box keeps the old one.
        let ok = if body.in_broad {
            self.broad.set_aabb(i, padded).is_ok()
        } else {
            let ok = self.broad.insert(i, padded, body.is_static).is_ok();
            body.in_broad = ok;
            ok
        };
        self.broad_pending |= ok;
    }

    fn update_body_bounds(&mut self, i: u32) {
        let ttc = self.config.time_to_collision;
        if let Some(visits) = refresh_box(&mut self.bodies[i as usize], ttc) {
            self.publish_box(i, visits);
        }
    }
}

/// The half of a body's bounds update that reads and writes the body
/// alone (so bodies may be refreshed on several threads at once): clears
/// its dirty flag and, if it is alive with a pose, computes its tight box
/// (swept for continuous detection) and, with time-to-collision
/// scheduling, its travel. Returns the hill-climbing visits, or `None`
/// when it has no box.
pub(super) fn refresh_box(body: &mut Body, time_to_collision: bool) -> Option<u32> {
    body.dirty = false;
    if !body.alive {
        return None;
    }
    let (tight, visits) = body.compute_tight_box()?;
    body.unswept = tight;
    if time_to_collision {
        body.measure_travel();
    }
    body.tight = body.swept_box(tight);
    Some(visits)
}

/// The bodies as the narrow phase sees them.
pub struct Bodies<'a> {
    bodies: &'a [Body],
    /// The moved bodies.
    moved: &'a MovedBodies,
    penetration: bool,
    time_to_collision: bool,
}

impl<'a> Bodies<'a> {
    pub(super) fn new(
        bodies: &'a [Body],
        moved: &'a MovedBodies,
        config: &super::WorldConfig,
    ) -> Self {
        Self {
            bodies,
            moved,
            penetration: config.penetration,
            time_to_collision: config.time_to_collision,
        }
    }
}

impl PairBodies for Bodies<'_> {
    #[inline]
    fn side(&self, key: u32, origin: DVec3) -> PairSide<'_> {
        self.bodies[key as usize].pair_side(origin, self.penetration)
    }

    #[inline]
    fn hull_side(&self, key: u32) -> Option<HullSide<'_>> {
        let body = &self.bodies[key as usize];
        if body.ccd {
            return None;
        }
        Some(HullSide {
            hull: body.shape.polytope()?,
            pose: body.pose.unwrap_or_default(),
            boolean_only: body.sensor || !self.penetration,
        })
    }

    fn swept_side(&self, key: u32, origin: DVec3) -> PairSide<'_> {
        self.bodies[key as usize].side_in(origin, self.penetration)
    }

    #[inline]
    fn origin(&self, key: u32) -> DVec3 {
        self.bodies[key as usize].origin()
    }

    #[inline]
    fn shape(&self, key: u32) -> &crate::collider::ShapeData {
        &self.bodies[key as usize].shape
    }

    #[inline]
    fn moved(&self, key: u32) -> bool {
        self.moved.contains(key)
    }

    fn moved_keys(&self) -> Option<&[u32]> {
        Some(self.moved)
    }

    #[inline]
    fn prefetch(&self, key: u32) {
        if let Some(body) = self.bodies.get(key as usize) {
            // The lines the hull path reads: pose, shape, flags (`Body`'s
            // layout); the general path reads the box and scale after.
            prefetch_value(body, super::body::NARROW_BYTES);
        }
    }

    #[inline]
    fn sweep(&self, key: u32, origin: DVec3) -> Option<(RigidMotion, MotionResidual)> {
        let body = &self.bodies[key as usize];
        if body.ccd {
            body.sweep_exact(origin)
        } else {
            None
        }
    }

    #[inline]
    fn travel(&self, key: u32) -> Option<f64> {
        if !self.time_to_collision {
            return None;
        }
        let body = &self.bodies[key as usize];
        body.speed_bound.is_some().then_some(body.travel.now)
    }

    #[inline]
    fn retest(&self, key: u32) -> bool {
        self.bodies[key as usize].travel.retest
    }
}
