//! The narrow phase: the active pairs with their cached state, and the
//! exact test of each pair whose bodies moved.
//!
//! Pairs arrive as the broad phase's net changes ([`PairChanges`]); a pair's
//! state ([`PairState`]) lives from the update its boxes start overlapping
//! to the one they stop. Each update only pairs with a moved body, and new
//! pairs, are retested (coherence: work grows with what moved). When few
//! bodies moved, those pairs are found through the moved bodies' lists of
//! their pairs, not by passing over every pair (see `select.rs`), so a
//! frame's cost follows the movers, not the pairs at rest. The tests
//! themselves are the pair test of [`crate::query`]: this module keeps pairs and
//! their caches (recycled by kind, so a new pair does not allocate), runs
//! the tests serially or as tasks on the caller's threads, and reports which
//! pairs started or stopped touching, in pair order.

mod select;
mod tasks;

pub(crate) use tasks::recycle;
pub use tasks::{NarrowTask, NarrowTasks};

use glam::{DVec3, Vec3};

use crate::broad_phase::candidates::CandidateIndex;
use crate::broad_phase::{PairChanges, PairKey, pair_ids};
use crate::collider::ShapeData;
use crate::math::prefetch::for_each_read_ahead;
use crate::math::{MotionResidual, RigidMotion, WorldPose};
use crate::query::{
    CachePool, PairCache, PairResult, PairSide, QueryScratch, boolean_convex, swept_test, test_pair,
};
use crate::shape::ConvexPolytope;

/// Cached state of an active pair: its last result, and what its test keeps
/// between frames (Lin–Canny features, triangle pairs, piece pairs).
#[derive(Clone, Debug, Default)]
pub struct PairState {
    /// Last result.
    pub result: PairResult,
    /// Warm-start data.
    pub(crate) cache: PairCache,
    /// Not tested since it started.
    fresh: bool,
    /// Time-to-collision scheduling (see `pipeline/ttc.rs`): it cannot
    /// touch while its bodies' travels add up to less (0: test it).
    wake: f64,
    /// The world point the pair was last tested around (its first body's
    /// translation, see [`PairBodies::origin`]), and the contact points
    /// in that frame: the `f64` contact points.
    frame: (DVec3, [Vec3; 2]),
}

/// A touching piece pair of a pair involving a compound (see
/// [`PairState::touching_pieces`]).
#[derive(Clone, Copy, Debug)]
pub struct PieceTouch<'a> {
    /// `[piece of the first body, piece of the second]` (0 for a side that
    /// is not a compound).
    pub pieces: [u32; 2],
    /// The piece pair's result (contact data for two convex pieces).
    pub result: PairResult,
    /// Intersecting triangle pairs, when a piece is a mesh.
    pub triangles: &'a [[u32; 2]],
}

impl PairState {
    /// For pairs with a triangle mesh: the intersecting triangle pairs
    /// `[of the first body, of the second]` (all of them; the first one
    /// only when a sensor is involved); with a convex body and no crossing,
    /// the mesh triangles inside it, paired with
    /// [`INSIDE_SOLID`](crate::query::INSIDE_SOLID). `None` for other pair
    /// kinds.
    pub fn triangle_pairs(&self) -> Option<&[[u32; 2]]> {
        match &self.cache {
            PairCache::Mesh(pairs) => Some(pairs),
            _ => None,
        }
    }

    /// The contact points of [`result`](Self::result)'s contact data
    /// (`[on A, on B]`, world space) in `f64`: the pair is tested in a
    /// frame near it (see [`crate::pipeline::large_world`]), and these are
    /// its points there moved back in `f64`, where
    /// [`ContactData::point_a`](crate::query::ContactData) is rounded to
    /// `f32` world coordinates.
    pub fn contact_points_f64(&self) -> Option<[DVec3; 2]> {
        self.result.contact?;
        let (origin, local) = self.frame;
        Some(local.map(|p| origin + p.as_dvec3()))
    }

    /// For pairs with a compound: the touching piece pairs, sorted by
    /// pieces (contact points in world space). `None` for other pair kinds.
    pub fn touching_pieces(&self) -> Option<impl Iterator<Item = PieceTouch<'_>> + '_> {
        let PairCache::Compound(c) = &self.cache else {
            return None;
        };
        let pairs = c.piece_pairs().iter().filter(|p| p.result.touching);
        let origin = self.frame.0;
        Some(pairs.map(move |p| PieceTouch {
            pieces: p.pieces,
            result: in_world(p.result, origin).0,
            triangles: match &p.cache {
                PairCache::Mesh(t) => t,
                _ => &[],
            },
        }))
    }
}

/// What the narrow phase needs to know of the bodies, by the broad phase's
/// key (the world's body slot).
pub trait PairBodies: Sync {
    /// Body `key` as one side of a pair, in the frame whose origin is the
    /// world point `origin` (see [`crate::math::WorldPose::in_frame`]).
    fn side(&self, key: u32, origin: DVec3) -> PairSide<'_>;
    /// Body `key` as one side of a sweep cast in the frame at `origin`,
    /// which may be far from it: its box moved there rounded outward.
    fn swept_side(&self, key: u32, origin: DVec3) -> PairSide<'_> {
        self.side(key, origin)
    }
    /// The world point a pair whose first body is `key` is tested around:
    /// that body's translation (a frame near the pair, so that its answer
    /// does not depend on where in the world it is).
    fn origin(&self, _key: u32) -> DVec3 {
        DVec3::ZERO
    }
    /// The world point the sweep of the pair `(a, b)` is cast around (see
    /// [`crate::pipeline::large_world`]): [`origin`](Self::origin)`(a)`,
    /// the pair's frame. The sweeps carry the residual of their `f64`
    /// endpoints ([`MotionResidual`]), so the cast does not depend on it.
    fn sweep_origin(&self, a: u32, _b: u32) -> DVec3 {
        self.origin(a)
    }
    /// Its shape.
    fn shape(&self, key: u32) -> &ShapeData;
    /// Whether its box changed since the last narrow phase.
    fn moved(&self, key: u32) -> bool;
    /// The keys of the bodies whose box changed since the last narrow
    /// phase (those for which [`moved`](Self::moved) holds, each once), if
    /// the caller keeps them: an update then finds the pairs to test
    /// through these bodies' pairs when that visits fewer pairs than one
    /// pass over all of them. `None`: every pair is checked. A caller that
    /// keeps them must list, at the next update, every body whose sweep
    /// ([`sweep`](Self::sweep)) a pair touched by: those pairs are tested
    /// again and found only through their bodies.
    fn moved_keys(&self) -> Option<&[u32]> {
        None
    }
    /// Its motion over the step, for a body with continuous detection that
    /// moved (from its pose at the last narrow phase to its pose now), in
    /// the frame at the world point `origin`, with the residual of its
    /// `f64` endpoints.
    fn sweep(&self, _key: u32, _origin: DVec3) -> Option<(RigidMotion, MotionResidual)> {
        None
    }
    /// For time-to-collision scheduling, when its pairs may be scheduled
    /// (compounds aside, see `run_job`): its travel, an upper bound on how
    /// far any of its points has moved since it was added, up to its
    /// current pose (`None`: test its pairs whenever it moves).
    fn travel(&self, _key: u32) -> Option<f64> {
        None
    }
    /// Whether all its pairs must be tested at this narrow phase (it broke
    /// its speed bound, or what its pairs were measured on changed).
    fn retest(&self, _key: u32) -> bool {
        false
    }
    /// Body `key` as a side of a hull pair tested without building its
    /// [`side`](Self::side), when that gives the same answer: a convex
    /// polytope without continuous detection (its pairs are never swept;
    /// the pair test reads no box, scale or deformation of it). `None`:
    /// the general path.
    fn hull_side(&self, _key: u32) -> Option<HullSide<'_>> {
        None
    }
    /// Starts loading body `key`'s record (the pair tests' read-ahead, six
    /// pairs ahead; a hint, see `math::prefetch`).
    fn prefetch(&self, _key: u32) {}
}

/// A body that is a hull, as [`PairBodies::hull_side`] gives it.
#[derive(Clone, Copy, Debug)]
pub struct HullSide<'a> {
    /// Its polytope.
    pub hull: &'a ConvexPolytope,
    /// Its pose (the default pose before it has one, as in
    /// [`side`](PairBodies::side)).
    pub pose: WorldPose,
    /// It is a sensor, or the world computes no penetration depth: a pair
    /// with such a side wants the answer alone.
    pub boolean_only: bool,
}

/// A pair started (`true`) or stopped touching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PairEvent {
    /// The pair.
    pub pair: PairKey,
    /// Started (`true`) or stopped touching.
    pub started: bool,
}

/// Counters of the last update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NarrowStats {
    /// Pairs in the narrow phase.
    pub active_pairs: u32,
    /// Pair tests run.
    pub pair_tests: u32,
    /// Pairs whose need for a test was checked: all of them when many
    /// bodies moved, else only the moved bodies' pairs (each pair of two
    /// moved bodies twice), the new ones and those touching by sweep.
    pub pairs_checked: u32,
    /// Pairs touching.
    pub touching: u32,
    /// Pair tests in tasks the parallel path's caller dropped instead of
    /// running, run serially after it returned (0 on the serial path).
    pub tested_after_tasks: u32,
}

/// The active pairs and their states. See the module docs.
#[derive(Default)]
pub struct NarrowPhase {
    /// The pairs with their states, listed per body.
    pairs: CandidateIndex<PairState>,
    /// Which pairs an update tests.
    select: select::Selection,
    /// Pairs touching, kept as results change.
    touching: u32,
    /// Caches of ended pairs, reused by new ones.
    pool: CachePool,
    scratch: QueryScratch,
    /// One scratch per task of the parallel path.
    scratches: Vec<QueryScratch>,
    /// The parallel path's job and task lists, kept for their memory.
    task_lists: tasks::TaskLists,
    stats: NarrowStats,
    /// A dropped task was warned about (once per narrow phase object).
    warned_dropped_tasks: bool,
}

impl NarrowPhase {
    /// Applies the broad phase's changes, tests the pairs that need it, and
    /// appends the pairs that started or stopped touching to `events`
    /// (unsorted). Allocates nothing in steady state.
    pub fn update(
        &mut self,
        changes: &PairChanges,
        bodies: &impl PairBodies,
        events: &mut Vec<PairEvent>,
    ) {
        let fresh = self.apply_changes(changes, bodies, events);
        let walk = self.select.choose(&self.pairs, fresh, bodies);
        let mut tests = 0;
        let (scratch, touching) = (&mut self.scratch, &mut self.touching);
        let mut each = |(key, state, test): (PairKey, &mut PairState, bool)| {
            if test {
                tests += 1;
                let changed = run_job(bodies, key, state, scratch);
                record(key, state.result, changed, (touching, events));
            }
        };
        if walk {
            let due = self.pairs.values_at(&self.select.due);
            test_in_order(bodies, due.map(|(k, s)| (k, s, true)), &mut each);
        } else {
            // `needs_test` runs as a pair enters the read-ahead (it reads
            // only its own pair's state, and the bodies do not change in
            // this loop): only pairs that will be tested are hinted.
            let all = self.pairs.values_mut().map(|(key, state)| {
                let test = needs_test(bodies, key, state);
                (key, state, test)
            });
            test_in_order(bodies, all, &mut each);
        }
        self.stats = NarrowStats {
            active_pairs: self.pairs.len() as u32,
            pair_tests: tests,
            pairs_checked: self.select.checked,
            touching: self.touching,
            tested_after_tasks: 0,
        };
    }

    /// Ends the pairs the broad phase dropped (an event for those that
    /// touched), opens the ones it added with a recycled cache. Returns
    /// where the added pairs start: they are the last ones.
    fn apply_changes(
        &mut self,
        changes: &PairChanges,
        bodies: &impl PairBodies,
        events: &mut Vec<PairEvent>,
    ) -> usize {
        for &key in &changes.ended {
            let (a, b) = pair_ids(key);
            if let Some(state) = self.pairs.remove(a, b) {
                if state.result.touching {
                    self.touching -= 1;
                    events.push(PairEvent {
                        pair: key,
                        started: false,
                    });
                }
                self.pool.put(state.cache);
            }
        }
        let fresh = self.pairs.len();
        for &key in &changes.started {
            let (a, b) = pair_ids(key);
            if self.pairs.find(a, b).is_some() {
                continue;
            }
            let state = PairState {
                result: PairResult::default(),
                cache: self.pool.take(bodies.shape(a), bodies.shape(b)),
                fresh: true,
                wake: 0.0,
                frame: Default::default(),
            };
            self.pairs.insert(a, b, state);
        }
        fresh
    }

    /// The state of a pair, if it is in the narrow phase (found through
    /// its two bodies' lists of pairs, the shorter deciding the cost).
    pub fn pair(&self, key: PairKey) -> Option<&PairState> {
        let (a, b) = pair_ids(key);
        let s = self.pairs.find(a, b)?;
        Some(&self.pairs.all()[s as usize].value)
    }

    /// Every pair with its state, in no particular order.
    pub fn pairs(&self) -> impl Iterator<Item = (PairKey, &PairState)> + '_ {
        self.pairs.all().iter().map(|c| (c.key(), &c.value))
    }

    /// Counters of the last update.
    pub fn stats(&self) -> NarrowStats {
        self.stats
    }
}

/// Runs `each` on `pairs` (key, state, whether to test it) in order, with
/// the read-ahead hints for the ones to test.
#[inline]
fn test_in_order<'a>(
    bodies: &impl PairBodies,
    pairs: impl Iterator<Item = (PairKey, &'a mut PairState, bool)>,
    each: impl FnMut((PairKey, &'a mut PairState, bool)),
) {
    for_each_read_ahead(
        pairs,
        |(key, state, test), stage| {
            if *test {
                read_ahead(bodies, *key, state, stage);
            }
        },
        each,
    );
}

/// Records a tested pair's outcome: the touching count and an event when
/// `touching` changed.
#[inline]
fn record(
    key: PairKey,
    result: PairResult,
    changed: bool,
    (touching, events): (&mut u32, &mut Vec<PairEvent>),
) {
    if changed {
        if result.touching {
            *touching += 1;
        } else {
            *touching -= 1;
        }
        events.push(PairEvent {
            pair: key,
            started: result.touching,
        });
    }
}

/// Whether a pair needs a test: new, touching only by last step's sweep,
/// or one of its bodies moved, unless it sleeps (see [`asleep`]; only a
/// pair scheduled at its last test reads the bodies' travels).
#[inline]
fn needs_test(bodies: &impl PairBodies, key: PairKey, state: &PairState) -> bool {
    let (a, b) = pair_ids(key);
    if state.fresh || state.result.swept {
        return true;
    }
    let moved = bodies.moved(a) || bodies.moved(b);
    moved && !(state.wake > 0.0 && asleep(bodies, a, b, state.wake))
}

/// Whether a scheduled pair cannot touch yet: neither body must have all
/// its pairs retested, and their travels add up to less than its wake.
#[inline]
fn asleep(bodies: &impl PairBodies, a: u32, b: u32, wake: f64) -> bool {
    if bodies.retest(a) || bodies.retest(b) {
        return false;
    }
    match (bodies.travel(a), bodies.travel(b)) {
        (Some(ta), Some(tb)) => ta + tb < wake,
        _ => false,
    }
}

/// The wake of a pair found `distance` apart when its bodies' travels
/// added up to `travelled` (see `pipeline/ttc.rs`): it cannot touch while
/// they add up to less than `travelled + distance`, less a margin for the
/// tests' tolerance and rounding relative to `size`, the largest
/// coordinate of the two bodies' boxes: `10⁻⁴ (size + distance)`, fifty
/// times the tests' `2·10⁻⁶` of their scale. The sum's own rounding is
/// taken off (`8 ε` of it). 0 (test it) when nothing is left.
fn wake_at(distance: f32, travelled: f64, size: f32) -> f64 {
    let d = f64::from(distance);
    let budget = d - 1e-4 * (f64::from(size) + d);
    if budget.is_nan() || budget <= 0.0 {
        return 0.0;
    }
    (travelled + budget) * (1.0 - 8.0 * f64::EPSILON)
}

/// The largest coordinate of a side's box.
fn extent(side: &PairSide<'_>) -> f32 {
    side.tight.min.abs().max(side.tight.max.abs()).max_element()
}

/// The hints for the pair `key` at read-ahead stage `stage` (see
/// [`for_each_read_ahead`]): six pairs ahead the bodies' records and the
/// pair's cache, four ahead the shapes' fields, two ahead the records the
/// cache points at. When every body has its own hull, the shapes leave the
/// cache and each pair test would otherwise wait on a chain of misses.
#[inline]
fn read_ahead(bodies: &impl PairBodies, key: PairKey, state: &PairState, stage: usize) {
    let (a, b) = pair_ids(key);
    match stage {
        0 => {
            bodies.prefetch(a);
            bodies.prefetch(b);
            state.cache.prefetch();
        }
        1 => {
            bodies.shape(a).prefetch_fields();
            bodies.shape(b).prefetch_fields();
        }
        _ => state
            .cache
            .prefetch_records(bodies.shape(a), bodies.shape(b)),
    }
}

/// Tests one pair and stores the result; returns whether `touching` changed.
#[inline]
fn run_job(
    bodies: &impl PairBodies,
    key: PairKey,
    state: &mut PairState,
    scratch: &mut QueryScratch,
) -> bool {
    let (a, b) = pair_ids(key);
    if let Some(changed) = boolean_hull_job(bodies, (a, b), state, scratch) {
        return changed;
    }
    let origin = bodies.origin(a);
    let (sa, sb) = (bodies.side(a, origin), bodies.side(b, origin));
    let mut result = test_pair(&sa, &sb, &mut state.cache, scratch);
    let mut frame = origin;
    if !result.touching {
        // Touching where the step starts, as last tested.
        let touched = state.result.touching && !state.result.swept;
        if let Some(swept) = sweep_pair(bodies, (a, b), touched, scratch) {
            (result, frame) = swept;
        }
    }
    let (result, local) = in_world(result, frame);
    state.frame = (frame, local);
    let changed = result.touching != state.result.touching;
    // A compound's contact data is that of its tested pieces, not a bound
    // on its distance: its pairs are not scheduled.
    let convex = || sa.shape.compound().is_none() && sb.shape.compound().is_none();
    state.wake = match (result.contact, bodies.travel(a), bodies.travel(b)) {
        (Some(c), Some(ta), Some(tb)) if !result.touching && convex() => {
            wake_at(c.distance, ta + tb, extent(&sa).max(extent(&sb)))
        }
        _ => 0.0,
    };
    state.result = result;
    state.fresh = false;
    changed
}

/// [`run_job`] for a boolean pair of two hulls (see
/// [`PairBodies::hull_side`]; `None` for any other pair): the pair test's
/// boolean convex arm on the poses in the frame at the first body's
/// translation, without building the sides. What the general path would
/// store: no contact data (so no contact points and no wake), and no sweep
/// (neither body has continuous detection).
#[inline]
fn boolean_hull_job(
    bodies: &impl PairBodies,
    (a, b): (u32, u32),
    state: &mut PairState,
    scratch: &mut QueryScratch,
) -> Option<bool> {
    let (ha, hb) = (bodies.hull_side(a)?, bodies.hull_side(b)?);
    if !(ha.boolean_only || hb.boolean_only) {
        return None;
    }
    let origin = ha.pose.translation;
    let (pa, pb) = (ha.pose.in_frame(origin), hb.pose.in_frame(origin));
    let touching = boolean_convex((ha.hull, &pa), (hb.hull, &pb), &mut state.cache, scratch);
    let changed = touching != state.result.touching;
    state.result = PairResult::exact_without_contact(touching);
    state.frame = (origin, [Vec3::ZERO; 2]);
    state.wake = 0.0;
    state.fresh = false;
    Some(changed)
}

/// The swept test of a pair apart at its current poses (see
/// [`swept_test`]), cast in the frame at the pair's
/// [`sweep_origin`](PairBodies::sweep_origin), with that origin.
#[inline]
fn sweep_pair(
    bodies: &impl PairBodies,
    (a, b): (u32, u32),
    touched: bool,
    scratch: &mut QueryScratch,
) -> Option<(PairResult, DVec3)> {
    let origin = bodies.sweep_origin(a, b);
    let (ma, mb) = (bodies.sweep(a, origin), bodies.sweep(b, origin));
    if ma.is_none() && mb.is_none() {
        return None;
    }
    let (sa, sb) = (bodies.swept_side(a, origin), bodies.swept_side(b, origin));
    Some((swept_test((&sa, ma), (&sb, mb), touched, scratch)?, origin))
}

/// A result of a test in the frame at the world point `origin`, its
/// contact points moved to world coordinates (rounded to `f32`), and the
/// points as they were (zero without contact data).
#[inline]
fn in_world(mut result: PairResult, origin: DVec3) -> (PairResult, [Vec3; 2]) {
    let Some(c) = result.contact.as_mut() else {
        return (result, [Vec3::ZERO; 2]);
    };
    let local = [c.point_a, c.point_b];
    if origin != DVec3::ZERO {
        let moved = |p: Vec3| (origin + p.as_dvec3()).as_vec3();
        c.point_a = moved(c.point_a);
        c.point_b = moved(c.point_b);
    }
    (result, local)
}
