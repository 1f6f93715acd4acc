//! The collision world: bodies, their boxes, the broad phase and the narrow
//! phase, driven one stage at a time. No Bevy here: the plugin maps entities
//! to [`BodyId`]s and calls the stages from its systems, and tests and
//! benchmarks drive the same code without an `App`.
//!
//! One frame is [`CollisionWorld::update_bounds`] (dirty bodies' boxes, fixed
//! cube or dynamic box, padded by the margin), [`CollisionWorld::update_broad_phase`]
//! (sweep and prune) and [`CollisionWorld::update_narrow_phase`] (pair tests
//! and the start / end events), or [`CollisionWorld::step`] for all three.
//!
//! ## Spatial queries
//!
//! One-shot spatial queries against the whole world: the bodies whose
//! broad-phase box overlaps a box ([`CollisionWorld::aabb_query`]), the
//! bodies a shape at a pose intersects, exactly
//! ([`CollisionWorld::intersect_shape`]), and ray casts, nearest hit
//! ([`CollisionWorld::ray_cast`]) or every hit
//! ([`CollisionWorld::ray_cast_all`]), with a layer and exclusion filter
//! ([`QueryFilter`]).
//!
//! **No second world.** Candidates come from the broad phase's own data
//! ([`GridSweepAndPrune::query_aabb`](crate::broad_phase::GridSweepAndPrune::query_aabb),
//! [`GridSweepAndPrune::query_ray`](crate::broad_phase::GridSweepAndPrune::query_ray)):
//! the grid cells a box covers or a ray crosses (in order along the ray),
//! a binary search in each cell's sorted x endpoint list, the oversized
//! proxies tested directly. The exact tests are those of [`crate::query`]:
//! Lin–Canny for convex–convex, simultaneous OBB-tree traversal with exact
//! triangle tests when a triangle mesh is involved, Cyrus–Beck for rays on
//! convex shapes and the shape's OBB tree (Möller–Trumbore at the leaves)
//! for rays on meshes.
//!
//! **Cost.** A box query costs the cells it covers plus the candidates in
//! them; a shape query adds one cold exact test per candidate whose tight
//! box overlaps the shape's box. A first-hit ray cast walks the cells in
//! order and stops at the first cell entered beyond the nearest hit so far,
//! so it usually casts against a few shapes near the hit; [`ray_cast_all`]
//! walks to the end of the ray. Results are sorted (by body id, or by
//! distance then body id) so that they do not depend on the broad phase's
//! internal order. Queries take `&self`; box queries and ray casts on
//! convex bodies allocate nothing but their output (ray casts on meshes
//! take a traversal stack, shape queries the exact tests' scratch).
//!
//! **What a query sees.** Every live body with a valid pose, at its current
//! pose: bodies moved (or given a shape) since the last
//! [`update_bounds`](CollisionWorld::update_bounds) are tested with a box
//! computed afresh from their pose, the others with the box of the last
//! bounds update (the broad phase's box: tight box plus the margin). Layers
//! (`memberships`) are read from each body's [`ProxyFilter`]; a body whose
//! pairs are deactivated is still seen.
//!
//! [`ray_cast_all`]: CollisionWorld::ray_cast_all
//! [`ProxyFilter`]: crate::broad_phase::ProxyFilter

mod body;
mod query;

pub use body::{BodyDesc, BodyId};
pub use query::{QueryFilter, WorldRayHit};

use body::Body;

use crate::bounds::BoundsMode;
use crate::broad_phase::{
    GridSweepAndPrune, PairKey, PairMap, PairSet, ProxyFilter, ProxyOptions, pair_ids, pair_key,
};
use crate::math::{Aabb, Pose, PoseError};
use crate::narrow_phase::{CachePool, NarrowScratch, PairResult, PairSide, PairState, test_pair};
use crate::shape::SharedShape;

/// World settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldConfig {
    /// Padding added on every side of each box before the broad phase.
    pub margin: f32,
    /// Side of the broad phase's grid cells (see [`GridSweepAndPrune`]);
    /// `None` chooses 8 × the median box size at the first update.
    pub cell_size: Option<f32>,
    /// Compute penetration depth, normal and deepest points (EPA) for
    /// overlapping convex pairs. Off: overlapping pairs only report that
    /// they touch (I-COLLIDE's semantics), which is much cheaper when
    /// objects interpenetrate deeply.
    pub penetration: bool,
}

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            margin: 0.0,
            cell_size: None,
            penetration: true,
        }
    }
}

/// Why a world call was refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WorldError {
    /// No live body has this id.
    UnknownBody(BodyId),
    /// The pose cannot be used.
    InvalidPose(PoseError),
}

impl std::fmt::Display for WorldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorldError::UnknownBody(b) => write!(f, "body {} does not exist", b.0),
            WorldError::InvalidPose(e) => write!(f, "invalid pose: {e}"),
        }
    }
}

impl std::error::Error for WorldError {}

/// Two bodies started or stopped touching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactEvent {
    /// The bodies, ordered by user data.
    pub bodies: [BodyId; 2],
    /// Their user data (the plugin stores `Entity::to_bits`), ascending.
    pub user_data: [u64; 2],
    /// `true`: started touching; `false`: stopped.
    pub started: bool,
}

/// Counters of the last frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WorldStats {
    /// Boxes recomputed.
    pub bounds_updated: u32,
    /// Hull vertices visited by dynamic-box hill-climbing.
    pub hill_climb_visits: u64,
    /// Endpoint swaps per axis.
    pub swaps: [u64; 3],
    /// Box-overlapping pairs (enabled or not).
    pub box_pairs: u32,
    /// Pairs in the narrow phase.
    pub active_pairs: u32,
    /// Pair tests run.
    pub pair_tests: u32,
    /// Pairs touching.
    pub touching: u32,
}

/// The collision world. See the module docs.
#[derive(Default)]
pub struct CollisionWorld {
    config: WorldConfig,
    bodies: Vec<Body>,
    free: Vec<u32>,
    pending_free: Vec<u32>,
    proxy_body: Vec<u32>,
    dirty: Vec<u32>,
    moved: Vec<u32>,
    broad: GridSweepAndPrune,
    pairs: PairMap<PairState>,
    disabled_pairs: PairSet,
    events: Vec<ContactEvent>,
    stats: WorldStats,
    /// Caches of ended pairs, reused by new ones.
    cache_pool: CachePool,
    scratch: NarrowScratch,
    /// One scratch per task of the parallel narrow phase.
    scratches: Vec<NarrowScratch>,
}

impl CollisionWorld {
    /// An empty world.
    pub fn new(config: WorldConfig) -> Self {
        Self {
            config,
            broad: GridSweepAndPrune::new(config.cell_size),
            ..Default::default()
        }
    }

    /// The settings.
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Adds a body. It enters the broad phase at the first bounds update
    /// after it has a valid pose.
    pub fn add_body(&mut self, desc: BodyDesc) -> BodyId {
        let body = Body::new(desc);
        match self.free.pop() {
            Some(i) => {
                self.bodies[i as usize] = body;
                BodyId(i)
            }
            None => {
                self.bodies.push(body);
                BodyId(self.bodies.len() as u32 - 1)
            }
        }
    }

    /// Removes a body; its touching pairs end at the next narrow phase.
    pub fn remove_body(&mut self, id: BodyId) -> Result<(), WorldError> {
        let body = self.body_mut(id)?;
        body.alive = false;
        if let Some(p) = body.proxy.take() {
            // The proxy exists: removal cannot fail.
            let _ = self.broad.remove(p);
        }
        self.disabled_pairs.retain(|&k| {
            let (a, b) = pair_ids(k);
            a != id.0 && b != id.0
        });
        self.pending_free.push(id.0);
        Ok(())
    }

    /// Sets a body's pose. A NaN, infinite or non-unit pose is refused and
    /// the body keeps its last valid pose.
    pub fn set_pose(&mut self, id: BodyId, pose: Pose) -> Result<(), WorldError> {
        pose.validate().map_err(WorldError::InvalidPose)?;
        let body = self.body_mut(id)?;
        body.pose = Some(pose);
        self.mark_dirty(id);
        Ok(())
    }

    /// Replaces a body's shape or bounds mode. Its pairs are kept and retested.
    pub fn set_shape(
        &mut self,
        id: BodyId,
        shape: SharedShape,
        mode: BoundsMode,
    ) -> Result<(), WorldError> {
        let body = self.body_mut(id)?;
        body.set_shape(shape, mode);
        self.mark_dirty(id);
        Ok(())
    }

    /// Changes a body's layers / activity.
    pub fn set_filter(&mut self, id: BodyId, filter: ProxyFilter) -> Result<(), WorldError> {
        let body = self.body_mut(id)?;
        body.filter = filter;
        if let Some(p) = body.proxy {
            let _ = self.broad.set_filter(p, filter);
        }
        Ok(())
    }

    /// Deactivates (`false`) or reactivates every pair of a body.
    pub fn set_active(&mut self, id: BodyId, active: bool) -> Result<(), WorldError> {
        let filter = ProxyFilter {
            active,
            ..self.body(id)?.filter
        };
        self.set_filter(id, filter)
    }

    /// Marks a body static (static bodies never pair with each other) or not.
    pub fn set_static(&mut self, id: BodyId, is_static: bool) -> Result<(), WorldError> {
        let body = self.body_mut(id)?;
        body.is_static = is_static;
        if let Some(p) = body.proxy {
            let _ = self.broad.set_static(p, is_static);
        }
        Ok(())
    }

    /// Marks a body as a sensor (reports start / end only).
    pub fn set_sensor(&mut self, id: BodyId, sensor: bool) -> Result<(), WorldError> {
        self.body_mut(id)?.sensor = sensor;
        Ok(())
    }

    /// Deactivates (`false`) or reactivates one pair of bodies. A deactivated
    /// pair never reaches the narrow phase; if it was touching it ends.
    pub fn set_pair_enabled(
        &mut self,
        a: BodyId,
        b: BodyId,
        enabled: bool,
    ) -> Result<(), WorldError> {
        self.body(a)?;
        self.body(b)?;
        let key = pair_key(a.0, b.0);
        if enabled {
            self.disabled_pairs.remove(&key);
        } else {
            self.disabled_pairs.insert(key);
        }
        if let (Some(pa), Some(pb)) = (
            self.bodies[a.0 as usize].proxy,
            self.bodies[b.0 as usize].proxy,
        ) {
            self.broad.set_pair_enabled(pa, pb, enabled);
        }
        Ok(())
    }

    /// Stage 1: recomputes the boxes of bodies whose pose or shape changed.
    pub fn update_bounds(&mut self) {
        self.stats = WorldStats::default();
        let dirty = std::mem::take(&mut self.dirty);
        for &i in &dirty {
            self.update_body_bounds(i);
        }
        self.dirty = dirty;
        self.dirty.clear();
    }

    /// Stage 2: sweep and prune.
    pub fn update_broad_phase(&mut self) {
        self.broad.update();
        let s = self.broad.stats();
        self.stats.swaps = s.swaps;
        self.stats.box_pairs = self.broad.pairs().len() as u32;
    }

    /// Stage 3: tests pairs, records start / end events (sorted by user
    /// data), and frees removed bodies.
    pub fn update_narrow_phase(&mut self) {
        self.events.clear();
        self.apply_broad_changes();
        self.test_pairs();
        self.finish_narrow_phase();
    }

    /// Sorts the events, clears the moved flags, frees removed bodies.
    fn finish_narrow_phase(&mut self) {
        self.events
            .sort_unstable_by_key(|e| (e.user_data, e.bodies[0].0, e.bodies[1].0, e.started));
        for &i in &self.moved {
            self.bodies[i as usize].moved = false;
        }
        self.moved.clear();
        for &i in &self.pending_free {
            self.free.push(i);
        }
        self.pending_free.clear();
        self.stats.active_pairs = self.pairs.len() as u32;
    }

    /// All three stages.
    pub fn step(&mut self) {
        self.update_bounds();
        self.update_broad_phase();
        self.update_narrow_phase();
    }

    /// Start / end events of the last narrow phase, sorted by user data.
    pub fn events(&self) -> &[ContactEvent] {
        &self.events
    }

    /// The pairs in the narrow phase with their last result.
    pub fn pairs(&self) -> impl Iterator<Item = ([BodyId; 2], &PairState)> + '_ {
        self.pairs.iter().map(|(&k, s)| {
            let (a, b) = pair_ids(k);
            ([BodyId(a), BodyId(b)], s)
        })
    }

    /// The last result of a pair, if its boxes overlap and it is enabled.
    pub fn pair(&self, a: BodyId, b: BodyId) -> Option<&PairState> {
        self.pairs.get(&pair_key(a.0, b.0))
    }

    /// A body's broad-phase box (with margin), once it has one.
    pub fn aabb(&self, id: BodyId) -> Option<Aabb> {
        let body = self.body(id).ok()?;
        body.proxy.and_then(|p| self.broad.aabb(p))
    }

    /// A body's box without margin, once it has one.
    pub fn tight_aabb(&self, id: BodyId) -> Option<Aabb> {
        let body = self.body(id).ok()?;
        body.proxy.map(|_| body.tight)
    }

    /// A body's last valid pose.
    pub fn pose(&self, id: BodyId) -> Option<Pose> {
        self.body(id).ok()?.pose
    }

    /// A body's shape.
    pub fn shape(&self, id: BodyId) -> Option<&SharedShape> {
        Some(&self.body(id).ok()?.shape)
    }

    /// A body's layers and activity.
    pub fn filter(&self, id: BodyId) -> Option<ProxyFilter> {
        Some(self.body(id).ok()?.filter)
    }

    /// A body's user data.
    pub fn user_data(&self, id: BodyId) -> Option<u64> {
        Some(self.body(id).ok()?.user_data)
    }

    /// Bodies whose box changed in the last bounds update (until the narrow
    /// phase, which also adds the bodies of new pairs).
    pub fn moved_bodies(&self) -> impl Iterator<Item = BodyId> + '_ {
        self.moved.iter().map(|&i| BodyId(i))
    }

    /// The broad phase, read-only.
    pub fn broad_phase(&self) -> &GridSweepAndPrune {
        &self.broad
    }

    /// Counters of the last frame.
    pub fn stats(&self) -> WorldStats {
        self.stats
    }

    /// Number of live bodies.
    pub fn len(&self) -> usize {
        self.bodies.len() - self.free.len() - self.pending_free.len()
    }

    /// Whether the world has no body.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn body(&self, id: BodyId) -> Result<&Body, WorldError> {
        self.bodies
            .get(id.0 as usize)
            .filter(|b| b.alive)
            .ok_or(WorldError::UnknownBody(id))
    }

    fn body_mut(&mut self, id: BodyId) -> Result<&mut Body, WorldError> {
        self.bodies
            .get_mut(id.0 as usize)
            .filter(|b| b.alive)
            .ok_or(WorldError::UnknownBody(id))
    }

    fn mark_dirty(&mut self, id: BodyId) {
        let body = &mut self.bodies[id.0 as usize];
        if !body.dirty {
            body.dirty = true;
            self.dirty.push(id.0);
        }
    }

    fn update_body_bounds(&mut self, i: u32) {
        let margin = self.config.margin;
        let body = &mut self.bodies[i as usize];
        body.dirty = false;
        if !body.alive {
            return;
        }
        let Some((tight, visits)) = body.compute_tight_box() else {
            return;
        };
        self.stats.bounds_updated += 1;
        self.stats.hill_climb_visits += u64::from(visits);
        body.tight = tight;
        if !body.moved {
            body.moved = true;
            self.moved.push(i);
        }
        let padded = tight.padded(margin);
        match body.proxy {
            // Boxes of valid poses are finite; a refused box keeps the old one.
            Some(p) => {
                let _ = self.broad.set_aabb(p, padded);
            }
            None => self.insert_proxy(i, padded),
        }
    }

    fn insert_proxy(&mut self, i: u32, padded: Aabb) {
        let body = &self.bodies[i as usize];
        let options = ProxyOptions {
            is_static: body.is_static,
            filter: body.filter,
        };
        let Ok(p) = self.broad.insert(padded, options) else {
            return;
        };
        self.bodies[i as usize].proxy = Some(p);
        if self.proxy_body.len() <= p as usize {
            self.proxy_body.resize(p as usize + 1, u32::MAX);
        }
        self.proxy_body[p as usize] = i;
        let disabled: Vec<(u32, u32)> = self
            .disabled_pairs
            .iter()
            .map(|&k| pair_ids(k))
            .filter(|&(a, b)| a == i || b == i)
            .collect();
        for (a, b) in disabled {
            let other = if a == i { b } else { a };
            if let Some(q) = self.bodies[other as usize].proxy {
                self.broad.set_pair_enabled(p, q, false);
            }
        }
    }

    fn body_key(&self, proxy_key: PairKey) -> (u32, u32) {
        let (pa, pb) = pair_ids(proxy_key);
        (self.proxy_body[pa as usize], self.proxy_body[pb as usize])
    }

    /// Ends pairs the broad phase dropped, opens the ones it added.
    fn apply_broad_changes(&mut self) {
        for idx in 0..self.broad.pairs().ended().len() {
            let (a, b) = self.body_key(self.broad.pairs().ended()[idx]);
            if let Some(state) = self.pairs.remove(&pair_key(a, b)) {
                if state.result.touching {
                    self.push_event(a, b, state.user_data, false);
                }
                self.cache_pool.put(state.cache);
            }
        }
        for idx in 0..self.broad.pairs().started().len() {
            let (a, b) = self.body_key(self.broad.pairs().started()[idx]);
            let (lo, hi) = (a.min(b), a.max(b));
            let user_data = [
                self.bodies[lo as usize].user_data,
                self.bodies[hi as usize].user_data,
            ];
            let state = PairState {
                result: PairResult::default(),
                user_data,
                cache: self.cache_pool.take(
                    &self.bodies[a as usize].shape,
                    &self.bodies[b as usize].shape,
                ),
            };
            self.pairs.insert(pair_key(a, b), state);
            // New pairs are tested this frame whether or not a body moved.
            for id in [a, b] {
                let body = &mut self.bodies[id as usize];
                if !body.moved {
                    body.moved = true;
                    self.moved.push(id);
                }
            }
        }
    }

    /// Retests pairs with a moved body and records the changes.
    fn test_pairs(&mut self) {
        let depth = self.config.penetration;
        let mut events = std::mem::take(&mut self.events);
        let (mut tests, mut touching) = (0, 0);
        for (&key, state) in self.pairs.iter_mut() {
            if needs_test(&self.bodies, key) {
                tests += 1;
                if run_job(&self.bodies, key, state, &mut self.scratch, depth) {
                    events.push(pair_event(key, state));
                }
            }
            touching += u32::from(state.result.touching);
        }
        self.events = events;
        self.stats.pair_tests = tests;
        self.stats.touching = touching;
    }

    /// Stage 3 with the pair tests spread over `tasks` tasks, for a thread
    /// pool: `run` gets the tasks (each `Send`) and must run all of them
    /// before it returns (a scoped spawn). Results are applied and events
    /// recorded afterwards in one serial pass, sorted, so the events are the
    /// same whatever the number of tasks or threads.
    ///
    /// This path allocates its job list each frame; the serial
    /// [`update_narrow_phase`](Self::update_narrow_phase) does not allocate.
    pub fn update_narrow_phase_with(
        &mut self,
        tasks: usize,
        run: impl FnOnce(Vec<NarrowTask<'_, '_>>),
    ) {
        self.events.clear();
        self.apply_broad_changes();
        let tasks = tasks.max(1);
        if self.scratches.len() < tasks {
            self.scratches.resize_with(tasks, NarrowScratch::default);
        }
        let Self {
            bodies,
            pairs,
            scratches,
            events,
            config,
            ..
        } = self;
        let mut touching = 0;
        let mut jobs: Vec<Job<'_>> = Vec::with_capacity(pairs.len());
        for (&key, state) in pairs.iter_mut() {
            if needs_test(bodies, key) {
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
        let list: Vec<NarrowTask<'_, '_>> = jobs
            .chunks_mut(per_task)
            .zip(scratches.iter_mut())
            .map(|(jobs, scratch)| NarrowTask {
                jobs,
                bodies,
                scratch,
                penetration: config.penetration,
            })
            .collect();
        run(list);
        for job in &jobs {
            touching += u32::from(job.state.result.touching);
            if job.changed {
                events.push(pair_event(job.key, job.state));
            }
        }
        self.stats.pair_tests = tests;
        self.stats.touching = touching;
        self.finish_narrow_phase();
    }

    fn push_event(&mut self, a: u32, b: u32, user_data: [u64; 2], started: bool) {
        self.events.push(make_event(a, b, user_data, started));
    }
}

/// Whether a pair needs a test this frame (one of its bodies moved).
#[inline]
fn needs_test(bodies: &[Body], key: PairKey) -> bool {
    let (a, b) = pair_ids(key);
    bodies[a as usize].moved || bodies[b as usize].moved
}

/// Tests one pair and stores the result; returns whether `touching` changed.
#[inline]
fn run_job(
    bodies: &[Body],
    key: PairKey,
    state: &mut PairState,
    scratch: &mut NarrowScratch,
    penetration: bool,
) -> bool {
    let (a, b) = pair_ids(key);
    let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
    let result = test_pair(
        &ba.side(penetration),
        &bb.side(penetration),
        &mut state.cache,
        scratch,
    );
    let changed = result.touching != state.result.touching;
    state.result = result;
    changed
}

/// The start / end event of a pair whose `touching` just changed.
fn pair_event(key: PairKey, state: &PairState) -> ContactEvent {
    let (a, b) = pair_ids(key);
    make_event(a, b, state.user_data, state.result.touching)
}

/// One pair to test in [`CollisionWorld::update_narrow_phase_with`].
pub struct Job<'a> {
    key: PairKey,
    state: &'a mut PairState,
    changed: bool,
}

/// A share of the narrow phase's pair tests, to run on any thread.
pub struct NarrowTask<'t, 'a> {
    jobs: &'t mut [Job<'a>],
    bodies: &'a [Body],
    scratch: &'t mut NarrowScratch,
    penetration: bool,
}

impl NarrowTask<'_, '_> {
    /// Runs the tests of this share.
    pub fn run(self) {
        for job in self.jobs.iter_mut() {
            job.changed = run_job(
                self.bodies,
                job.key,
                job.state,
                self.scratch,
                self.penetration,
            );
        }
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

/// An event for bodies `a`, `b` (any order) whose user data is given for
/// `(min(a, b), max(a, b))`; the event lists them by ascending user data.
fn make_event(a: u32, b: u32, user_data: [u64; 2], started: bool) -> ContactEvent {
    let (lo, hi) = (a.min(b), a.max(b));
    let (bodies, user_data) = if user_data[0] <= user_data[1] {
        ([BodyId(lo), BodyId(hi)], user_data)
    } else {
        ([BodyId(hi), BodyId(lo)], [user_data[1], user_data[0]])
    };
    ContactEvent {
        bodies,
        user_data,
        started,
    }
}

impl Body {
    fn side(&self, penetration: bool) -> PairSide<'_> {
        PairSide {
            shape: &self.shape,
            pose: self.pose.unwrap_or_default(),
            tight: self.tight,
            boolean_only: self.sensor || !penetration,
        }
    }
}
