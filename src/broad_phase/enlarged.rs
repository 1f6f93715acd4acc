//! Enlarged boxes ("fat AABBs"): any broad phase, told of a move only when
//! a box leaves a grown copy of itself, with the exact pairs of the tight
//! boxes kept on top.
//!
//! **Why.** When every body moves a little each frame, a sweep and prune
//! spends its time refreshing endpoints that barely moved: 2–3 swaps per
//! body per frame, but a fixed cost per moved proxy in every list. Box2D
//! (`b2_aabbMargin`), Bullet's `btDbvtBroadphase` and rapier's BVH
//! (prediction margin) store each proxy's box grown by a margin and touch
//! the structure only when the real box leaves the grown one. Those crates
//! then report the pairs of the grown boxes, a superset. Here the pairs stay
//! exact: the inner broad phase keeps the pairs of the grown ("fat") boxes,
//! and this layer keeps, for each fat pair, whether the tight boxes
//! overlap. A fat pair is a candidate; the active pairs are the candidates
//! whose tight boxes overlap, which is exactly the set of overlapping tight
//! boxes, because a tight box lies inside its fat box (two overlapping tight
//! boxes have overlapping fat boxes).
//!
//! **An update**, after `set_aabb` calls:
//!
//! 1. each moved box that left its fat box gets a new one, `margin` times
//!    its largest extent wider on every side, and is moved in the inner
//!    broad phase (the others cost one containment test); a proxy inserted
//!    static starts with its tight box as its fat box;
//! 2. the inner broad phase updates; its started and ended fat pairs are
//!    added to and dropped from the candidates (a started candidate is
//!    tested at once);
//! 3. every candidate of a moved proxy is tested again (six comparisons).
//!    When few proxies moved, they are found through each moved proxy's
//!    list of its candidates (a pair of two moved proxies is tested once);
//!    when many moved, by one pass over all the candidates, which reads
//!    the two moved flags of each in order: walking the lists then cost
//!    more, on branches that depend on the data.
//!
//! So steps 2 and 3 cost time in the changes and in the moved proxies'
//! candidates, not in all the candidates: a frame where few bodies move
//! costs little however many rest.
//!
//! The active pairs live in a pair table like every broad phase's, so
//! the net changes, their order and `is_active` mean the same thing.
//!
//! **The margin** trades the inner structure's work (boxes leaving their fat
//! boxes) against candidates (fat pairs whose tight boxes do not overlap).
//! The broad-phase bench prints both; see docs/notes/EXPERIMENTS.md#enlarged-boxes for measured margins.
//! With the default, in `--bench broad_phase` (10 000 hulls turning 10°
//! and moving 1.5 % of their radius per frame, moving on continuously), a
//! frame of box updates and this layer over the grid took 0.41× the CPU
//! time of parry3d's box updates and BVH with every body moving, 0.20× with
//! one body in ten; over the grid alone 0.58× (docs/BENCHMARKS.md#broad-phase).
//! Fast movers pay: a box that
//! leaves its fat box every few frames jumps by the margin each time, and
//! at 10–20 % of the radius per frame the grid made more swaps than without
//! the layer (docs/notes/EXPERIMENTS.md#fast-movers).
//!
//! **Why not the fat pairs** as Box2D and rapier do: the narrow phase would
//! test three times as many pairs (11 499 candidates for 3 313 overlapping
//! boxes in that run).

use glam::{Vec3, Vec3A};

use super::candidates::{CandidateIndex, NIL};
use super::grid::CELL_FACTOR;
use super::pairs::{PairTable, pair_ids};
use super::{
    BroadPhase, BroadPhaseError, BroadPhaseStats, GridSweepAndPrune, InvariantError, PairChanges,
    PairFilter, PairKey, ProxyKey, check_insert, ray_box,
};
use crate::math::Aabb;
use crate::math::prefetch::{LINE, prefetch_aabb, prefetch_value};

/// Default margin, relative to each box's largest extent.
pub const DEFAULT_MARGIN: f32 = 0.25;

/// [`Aabb::overlaps`] without branches: most candidates' boxes are apart
/// on some axis, which one varies, and a short-circuit test mispredicts.
#[inline]
fn overlap(p: &Aabb, q: &Aabb) -> bool {
    let (p_min, p_max) = (Vec3A::from(p.min), Vec3A::from(p.max));
    let (q_min, q_max) = (Vec3A::from(q.min), Vec3A::from(q.max));
    (p_min.cmple(q_max) & q_min.cmple(p_max)).all()
}

/// How many moved proxies ahead the walk hints the first candidate of a
/// list (the heads twice as far).
const LIST_READ_AHEAD: usize = 4;

/// An update walks the moved proxies' candidate lists when fewer than one
/// live proxy in `WALK_BELOW` (static ones included: the pass's cost
/// follows all the candidates) moved, else it passes over all the
/// candidates, which costs less per candidate (module docs).
const WALK_BELOW: usize = 4;

/// How many candidates ahead the one pass hints their two tight boxes:
/// the candidates are in no spatial order, so at 50 000 bodies each box
/// is a cache miss (docs/notes/EXPERIMENTS.md#bp50k).
const PASS_READ_AHEAD: usize = 16;

/// `margin` if it is finite and non-negative, else [`DEFAULT_MARGIN`].
fn usable_margin(margin: f32) -> f32 {
    if margin.is_finite() && margin >= 0.0 {
        margin
    } else {
        DEFAULT_MARGIN
    }
}

/// A broad phase over enlarged boxes with exact pairs. See the module docs.
pub struct Enlarged<B> {
    inner: B,
    margin: f32,
    /// Tight boxes by key (stale for removed keys: liveness is the inner's).
    tight: Vec<Aabb>,
    /// Whether the key's tight box moved (or it was inserted) since the
    /// last update.
    moved: Vec<bool>,
    /// The keys whose `moved` flag is set.
    moved_keys: Vec<ProxyKey>,
    /// The candidates: the inner broad phase's pairs, listed per proxy,
    /// with whether their tight boxes overlap (as of the last update).
    index: CandidateIndex,
    /// Live proxies (inserted and not removed).
    live: usize,
    /// Scratch: where the candidates whose overlap flipped are.
    flips: Vec<u32>,
    /// Scratch: the candidates a walk of the moved proxies' lists tests
    /// (slot, moved proxy, other proxy).
    walked: Vec<(u32, ProxyKey, ProxyKey)>,
    /// The active pairs and their change log.
    table: PairTable,
    /// Scratch for the inner broad phase's changes.
    inner_changes: PairChanges,
    /// Moves passed to the inner broad phase since the last update.
    escaped: u32,
    stats: BroadPhaseStats,
}

impl Enlarged<GridSweepAndPrune> {
    /// The grid behind enlarged boxes, as the world uses it. With automatic
    /// cells (`cell_size` `None`) the grid is told that its boxes are grown
    /// ([`GridSweepAndPrune::with_cell_factor`]), so its cells are sized by
    /// the tight boxes: cells sized by the grown ones are `1 + 2 margin`
    /// times as wide, with more endpoints per unit of length in each list
    /// to swap with (see docs/notes/EXPERIMENTS.md#grid-alone).
    pub fn over_grid(cell_size: Option<f32>, margin: f32) -> Self {
        let margin = usable_margin(margin);
        let factor = CELL_FACTOR / (1.0 + 2.0 * margin);
        Self::new(
            GridSweepAndPrune::new(cell_size).with_cell_factor(factor),
            margin,
        )
    }
}

impl<B: BroadPhase> Enlarged<B> {
    /// Wraps an empty broad phase; `margin` (relative to each box's largest
    /// extent, finite and non-negative, else [`DEFAULT_MARGIN`]) is how far
    /// a box may move before the inner broad phase hears of it.
    pub fn new(inner: B, margin: f32) -> Self {
        Self {
            inner,
            margin: usable_margin(margin),
            tight: Vec::new(),
            moved: Vec::new(),
            moved_keys: Vec::new(),
            index: CandidateIndex::default(),
            flips: Vec::new(),
            walked: Vec::new(),
            live: 0,
            table: PairTable::default(),
            inner_changes: PairChanges::default(),
            escaped: 0,
            stats: BroadPhaseStats::default(),
        }
    }

    /// The inner broad phase (it holds the fat boxes and their pairs).
    pub fn inner(&self) -> &B {
        &self.inner
    }

    /// The margin, relative to each box's largest extent.
    pub fn margin(&self) -> f32 {
        self.margin
    }

    /// Number of candidates: fat pairs, whose tight boxes may not overlap.
    pub fn candidates(&self) -> usize {
        self.index.len()
    }

    /// `aabb` grown by the margin; the box itself where growing it would
    /// leave the finite numbers (a box wider than `f32::MAX`, or a margin
    /// that large).
    fn fatten(&self, aabb: &Aabb) -> Aabb {
        let extent = (aabb.max - aabb.min).max_element();
        let fat = aabb.padded(self.margin * extent);
        if self.margin > 0.0 && fat.is_valid() {
            fat
        } else {
            *aabb
        }
    }

    fn mark_moved(&mut self, key: ProxyKey) {
        let m = &mut self.moved[key as usize];
        if !*m {
            *m = true;
            self.moved_keys.push(key);
        }
    }

    /// Steps 2 and 3 of an update (module docs): the inner changes, then
    /// the candidates of moved proxies.
    fn refresh_candidates(&mut self) {
        self.inner.drain_changes(&mut self.inner_changes);
        self.apply_inner_changes();
        self.flips.clear();
        if self.moved_keys.len() * WALK_BELOW >= self.live {
            self.find_flips_in_one_pass();
        } else {
            self.find_flips_by_walking();
        }
        for &s in &self.flips {
            let c = self.index.all()[s as usize];
            self.index.set_value(s, !c.value);
            if c.value {
                self.table.remove(c.key());
            } else {
                self.table.add(c.key());
            }
        }
    }

    /// The candidates of moved proxies whose overlap changed, by one pass
    /// over all the candidates.
    fn find_flips_in_one_pass(&mut self) {
        let (tight, moved) = (&self.tight, &self.moved);
        let all = self.index.all();
        for (s, c) in all.iter().enumerate() {
            if let Some(ahead) = all.get(s + PASS_READ_AHEAD) {
                prefetch_value(&tight[ahead.a as usize], LINE);
                prefetch_value(&tight[ahead.b as usize], LINE);
            }
            let (a, b) = (c.a as usize, c.b as usize);
            if (moved[a] || moved[b]) && overlap(&tight[a], &tight[b]) != c.value {
                self.flips.push(s as u32);
            }
        }
    }

    /// The same, by the moved proxies' lists (a pair of two moved proxies
    /// from the smaller), in two passes: the lists' walk collects the
    /// candidates to test and hints each one's other tight box, then the
    /// collected candidates are tested in the same order. Interleaved, each
    /// test waited on that box (the other proxy is mostly at rest, its box
    /// far from the cache) before the walk could go on.
    fn find_flips_by_walking(&mut self) {
        let (tight, moved, index) = (&self.tight, &self.moved, &self.index);
        let walked = &mut self.walked;
        walked.clear();
        let keys = &self.moved_keys;
        for (k, &a) in keys.iter().enumerate() {
            // The lists of the movers ahead: their heads, then (once those
            // are in) their first candidates.
            if let Some(&p) = keys.get(k + 2 * LIST_READ_AHEAD) {
                index.prefetch_head(p);
            }
            if let Some(&p) = keys.get(k + LIST_READ_AHEAD) {
                index.prefetch_first(p);
            }
            let mut s = index.head(a);
            while s != NIL {
                let b = index.all()[s as usize].other(a);
                // A pair of two moved proxies is tested from the smaller.
                if !(b < a && moved[b as usize]) {
                    prefetch_aabb(&tight[b as usize]);
                    walked.push((s, a, b));
                }
                s = index.next(s, a);
            }
        }
        for &(s, a, b) in walked.iter() {
            let on = overlap(&tight[a as usize], &tight[b as usize]);
            if on != index.all()[s as usize].value {
                self.flips.push(s);
            }
        }
    }

    /// The inner broad phase's changes: ended candidates leave (and their
    /// active pair ends), started ones come in tested.
    fn apply_inner_changes(&mut self) {
        let Self {
            inner_changes: PairChanges { started, ended },
            tight,
            index,
            table,
            ..
        } = self;
        for &key in ended.iter() {
            let (a, b) = pair_ids(key);
            let was = index.remove(a, b);
            debug_assert!(was.is_some(), "an ended inner pair was not a candidate");
            if was == Some(true) {
                table.remove(key);
            }
        }
        for &key in started.iter() {
            let (a, b) = pair_ids(key);
            let on = overlap(&tight[a as usize], &tight[b as usize]);
            index.insert(a, b, on);
            if on {
                table.add(key);
            }
        }
    }
}

impl<B: BroadPhase> BroadPhase for Enlarged<B> {
    fn insert(
        &mut self,
        key: ProxyKey,
        aabb: Aabb,
        is_static: bool,
    ) -> Result<(), BroadPhaseError> {
        check_insert(key, &aabb)?;
        // A static box is not expected to move: grown, it would only make
        // candidates. If it does move, it is grown when it leaves.
        let fat = if is_static { aabb } else { self.fatten(&aabb) };
        self.inner.insert(key, fat, is_static)?;
        self.live += 1;
        let i = key as usize;
        if i >= self.tight.len() {
            self.tight.resize(i + 1, Aabb::EMPTY);
            self.moved.resize(i + 1, false);
        }
        self.tight[i] = aabb;
        self.mark_moved(key);
        Ok(())
    }

    fn remove(&mut self, key: ProxyKey) -> Result<(), BroadPhaseError> {
        self.inner.remove(key)?;
        self.live -= 1;
        Ok(())
    }

    fn set_aabb(&mut self, key: ProxyKey, aabb: Aabb) -> Result<(), BroadPhaseError> {
        // `Aabb::is_valid` and `Aabb::contains` on four-lane vectors: this
        // runs for every moving body every frame.
        let (lo, hi) = (Vec3A::from(aabb.min), Vec3A::from(aabb.max));
        if !(lo.is_finite() && hi.is_finite() && lo.cmple(hi).all()) {
            return Err(BroadPhaseError::InvalidAabb);
        }
        // The inner broad phase holds the fat box (and knows the live keys).
        let fat = self
            .inner
            .aabb(key)
            .ok_or(BroadPhaseError::UnknownProxy(key))?;
        let inside = Vec3A::from(fat.min).cmple(lo) & hi.cmple(Vec3A::from(fat.max));
        if !inside.all() {
            self.inner.set_aabb(key, self.fatten(&aabb))?;
            self.escaped += 1;
        }
        self.tight[key as usize] = aabb;
        self.mark_moved(key);
        Ok(())
    }

    fn prefetch_proxy(&self, key: ProxyKey) {
        if let Some(t) = self.tight.get(key as usize) {
            prefetch_aabb(t);
        }
        if let Some(m) = self.moved.get(key as usize) {
            prefetch_value(m, 1);
        }
        self.inner.prefetch_proxy(key);
    }

    fn set_static(&mut self, key: ProxyKey, is_static: bool) -> Result<(), BroadPhaseError> {
        self.inner.set_static(key, is_static)
    }

    fn refilter(&mut self, key: ProxyKey) {
        self.inner.refilter(key);
    }

    fn refilter_pair(&mut self, a: ProxyKey, b: ProxyKey) {
        self.inner.refilter_pair(a, b);
    }

    fn update(&mut self, filter: &dyn PairFilter) {
        self.inner.update(filter);
        self.refresh_candidates();
        let inner = self.inner.stats();
        self.stats = BroadPhaseStats {
            moved: self.moved_keys.len() as u32,
            escaped: std::mem::take(&mut self.escaped),
            ..inner
        };
        for &k in &self.moved_keys {
            self.moved[k as usize] = false;
        }
        self.moved_keys.clear();
    }

    fn drain_changes(&mut self, out: &mut PairChanges) {
        self.table.drain(out);
    }

    fn is_active(&self, a: ProxyKey, b: ProxyKey) -> bool {
        self.table.is_active(a, b)
    }

    fn for_each_active(&self, visit: &mut dyn FnMut(PairKey)) {
        self.table.active().for_each(visit);
    }

    fn box_pairs(&self) -> usize {
        self.table.len()
    }

    fn aabb(&self, key: ProxyKey) -> Option<Aabb> {
        // The inner broad phase knows the live keys.
        self.inner.aabb(key).map(|_| self.tight[key as usize])
    }

    fn query_aabb(&self, aabb: &Aabb, visit: &mut dyn FnMut(ProxyKey)) {
        self.inner.query_aabb(aabb, &mut |k| {
            if self.tight[k as usize].overlaps(aabb) {
                visit(k);
            }
        });
    }

    /// The inner broad phase's ray query on the fat boxes, each hit tested
    /// again on its tight box. A ray that reaches a tight box reaches its
    /// fat box, so none is lost; only the rounding pad differs (a ray
    /// within about 1e-5 of the tight box's size outside it may not be
    /// reported, where `ray_box` alone would pad the tight box for it).
    fn query_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_toi: f32,
        visit: &mut dyn FnMut(ProxyKey, f32) -> f32,
    ) {
        let mut limit = max_toi;
        self.inner.query_ray(origin, dir, max_toi, &mut |k, _| {
            if let Some((t, _)) = ray_box(origin, dir, &self.tight[k as usize], limit) {
                limit = visit(k, t);
            }
            limit
        });
    }

    fn stats(&self) -> BroadPhaseStats {
        self.stats
    }

    fn validate(&self, filter: &dyn PairFilter) -> Result<(), InvariantError> {
        self.inner.validate(filter)?;
        self.table.validate().map_err(InvariantError)?;
        self.index.validate().map_err(InvariantError)?;
        let flagged = self.moved.iter().filter(|&&m| m).count();
        let listed = self.moved_keys.iter().all(|&k| self.moved[k as usize]);
        if !listed || flagged != self.moved_keys.len() {
            return Err(InvariantError("moved flags and moved keys differ".into()));
        }
        let mut fat_pairs = Vec::new();
        self.inner.for_each_active(&mut |key| fat_pairs.push(key));
        fat_pairs.sort_unstable();
        let mut keys = Vec::new();
        let mut on = 0;
        for c in self.index.all() {
            let now = overlap(&self.tight[c.a as usize], &self.tight[c.b as usize]);
            if c.value != now || self.table.contains(c.key()) != now {
                return Err(InvariantError(format!(
                    "candidate {:?} out of date",
                    (c.a, c.b)
                )));
            }
            keys.push(c.key());
            on += usize::from(now);
        }
        keys.sort_unstable();
        if keys != fat_pairs {
            return Err(InvariantError(
                "the candidates are not the inner pairs".into(),
            ));
        }
        if on != self.table.len() {
            return Err(InvariantError("an active pair is not a candidate".into()));
        }
        for (k, tight) in self.tight.iter().enumerate() {
            let fat = self.inner.aabb(k as ProxyKey);
            if fat.is_some_and(|fat| !fat.contains(tight)) {
                return Err(InvariantError(format!(
                    "proxy {k}: the fat box does not hold the tight one"
                )));
            }
        }
        Ok(())
    }
}
