//! The broad phase: which pairs of boxes overlap, kept up to date as boxes
//! move, with the net changes since they were last read.
//!
//! One interface, [`BroadPhase`], three implementations:
//!
//! - [`SweepAndPrune`] ([`sap`]): I-COLLIDE's sweep and prune (Cohen, Lin,
//!   Manocha, Ponamgi, I3D 1995, section 3.2): three endpoint lists kept
//!   sorted by insertion sort, a min/max swap toggling the pair;
//! - [`GridSweepAndPrune`] ([`grid`]): one sweep and prune per cell of a
//!   uniform grid, so that the swaps per object stay constant as the scene
//!   grows (the world's default);
//! - [`BruteForce`]: every pair of boxes tested every update, the reference
//!   the other two are checked against (Jolt keeps `BroadPhaseBruteForce`
//!   beside its quad tree for the same reason).
//!
//! and one layer over any of them, [`Enlarged`] ([`enlarged`]): the inner
//! broad phase holds each box grown by a margin and hears of a move only
//! when the box leaves its grown copy, while the layer keeps the exact
//! pairs of the tight boxes (the world's broad phase is
//! `Enlarged<GridSweepAndPrune>`).
//!
//! **Keys.** A proxy is named by the caller's key, a small dense integer
//! (the world uses its body slot index), so there is no second id space:
//! the pairs a broad phase reports are pairs of the caller's keys. Internal
//! ids (a cell's local ids) stay private.
//!
//! **Filtering.** Whether two proxies may pair at all (layers, deactivated
//! bodies or pairs) is the caller's data, asked through a [`PairFilter`] at
//! each [`update`](BroadPhase::update) when a pair's boxes start to overlap;
//! after the caller changes that data it says which keys to ask again
//! ([`refilter`](BroadPhase::refilter),
//! [`refilter_pair`](BroadPhase::refilter_pair)). A pair the filter refuses
//! is not stored: it costs no memory. Static proxies never pair with each
//! other: that rule is the broad phase's own.
//!
//! **Output.** The active pairs (boxes overlap and the filter allows them)
//! and their net changes since the last
//! [`drain_changes`](BroadPhase::drain_changes): a pair that started and
//! ended again in between is in neither list. Updating twice before one
//! drain loses nothing; draining twice gives nothing new the second time.

mod brute_force;
pub(crate) mod candidates;
pub mod enlarged;
pub mod grid;
mod pairs;
pub mod sap;

pub use brute_force::BruteForce;
pub use enlarged::Enlarged;
pub use grid::{GridSweepAndPrune, MAX_CELLS};
pub use pairs::{PairBuildHasher, PairKey, PairMap, PairSet, pair_ids, pair_key};
pub use sap::SweepAndPrune;

use glam::Vec3;

use crate::geometry::ray::Ray;
use crate::math::Aabb;

/// The caller's name for a proxy: a small dense integer below 2^31.
pub type ProxyKey = u32;

/// Whether two proxies may pair (the caller's layers, deactivated bodies
/// and pairs). Asked when a pair's boxes start to overlap and for the keys
/// given to [`BroadPhase::refilter`]; must be symmetric.
///
/// **Groups** are an optional coarse version of the same answer, for
/// skipping whole crowds at once: a sweep tests a proxy only against the
/// groups its own group may pair with. The contract: when
/// `groups_pair(group(a), group(b))` is false, `allows(a, b)` is false (the
/// converse need not hold). By default every proxy is in group 0 and every
/// group pairs with every group, which is always correct. The world uses
/// its layers as the group, so 10 000 mutually filtered bodies in one spot
/// cost a sort, not 5 · 10^7 calls of `allows`.
pub trait PairFilter {
    /// Whether `a` and `b` may pair.
    fn allows(&self, a: ProxyKey, b: ProxyKey) -> bool;

    /// The proxy's group (see the trait docs). Must not change without a
    /// [`BroadPhase::refilter`] of the key.
    #[inline]
    fn group(&self, _key: ProxyKey) -> u64 {
        0
    }

    /// Whether proxies of groups `g` and `h` may pair at all; symmetric.
    #[inline]
    fn groups_pair(&self, _g: u64, _h: u64) -> bool {
        true
    }
}

/// Every pair is allowed.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllowAll;

impl PairFilter for AllowAll {
    #[inline]
    fn allows(&self, _: ProxyKey, _: ProxyKey) -> bool {
        true
    }
}

impl<F: Fn(ProxyKey, ProxyKey) -> bool> PairFilter for F {
    #[inline]
    fn allows(&self, a: ProxyKey, b: ProxyKey) -> bool {
        self(a, b)
    }
}

/// Why the broad phase refused a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadPhaseError {
    /// The box has a NaN or infinite coordinate or `min > max`.
    InvalidAabb,
    /// No proxy has this key.
    UnknownProxy(ProxyKey),
    /// A proxy already has this key.
    KeyInUse(ProxyKey),
    /// The key is 2^31 or more.
    KeyTooLarge(ProxyKey),
}

impl std::fmt::Display for BroadPhaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BroadPhaseError::InvalidAabb => f.write_str("the box is NaN, infinite or inverted"),
            BroadPhaseError::UnknownProxy(p) => write!(f, "proxy {p} does not exist"),
            BroadPhaseError::KeyInUse(p) => write!(f, "proxy {p} already exists"),
            BroadPhaseError::KeyTooLarge(p) => write!(f, "proxy key {p} is 2^31 or more"),
        }
    }
}

impl std::error::Error for BroadPhaseError {}

/// A broken invariant found by [`BroadPhase::validate`]: what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvariantError(pub String);

impl std::fmt::Display for InvariantError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "broken invariant: {}", self.0)
    }
}

impl std::error::Error for InvariantError {}

/// Counters of the last update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BroadPhaseStats {
    /// Endpoint exchanges on each axis (sweep and prune only).
    pub swaps: [u64; 3],
    /// Proxies whose box moved.
    pub moved: u32,
    /// Moves passed on to the inner broad phase ([`Enlarged`] only): the
    /// `set_aabb` calls whose box left its enlarged box.
    pub escaped: u32,
    /// Whether the update sorted from scratch (many insertions, or a
    /// re-sort over its swap budget).
    pub rebuilt: bool,
    /// Box tests made by from-scratch sweeps (0 without one): linear in the
    /// proxies plus the pairs found, whatever cannot pair (see
    /// `sap/sweep.rs`).
    pub sweep_tests: u64,
}

/// The net pair changes since they were last drained, sorted by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairChanges {
    /// Pairs that became active (boxes overlap, the filter allows them).
    pub started: Vec<PairKey>,
    /// Pairs that stopped being active (boxes apart, filtered out, or a
    /// proxy removed).
    pub ended: Vec<PairKey>,
}

impl PairChanges {
    /// Empties both lists, keeping their memory.
    pub fn clear(&mut self) {
        self.started.clear();
        self.ended.clear();
    }

    /// Whether there is no change.
    pub fn is_empty(&self) -> bool {
        self.started.is_empty() && self.ended.is_empty()
    }
}

/// A broad phase: proxies with boxes, the active pairs among them, and
/// their net changes. See the [module docs](self).
///
/// Calls between two updates are queued; [`update`](Self::update) applies
/// them all. A query ([`query_aabb`](Self::query_aabb),
/// [`query_ray`](Self::query_ray)) sees every proxy at its latest box, even
/// between updates.
pub trait BroadPhase {
    /// Adds a proxy under `key` (not in use, below 2^31) with a valid box.
    fn insert(&mut self, key: ProxyKey, aabb: Aabb, is_static: bool)
    -> Result<(), BroadPhaseError>;

    /// Removes a proxy; its pairs end at the next update and the key may be
    /// inserted again after it.
    fn remove(&mut self, key: ProxyKey) -> Result<(), BroadPhaseError>;

    /// Moves a proxy's box.
    fn set_aabb(&mut self, key: ProxyKey, aabb: Aabb) -> Result<(), BroadPhaseError>;

    /// Starts loading what [`set_aabb`](Self::set_aabb) reads and writes
    /// for `key`: a hint (see `math::prefetch`) for a caller about to move
    /// many proxies, a few calls ahead. Any key is accepted.
    fn prefetch_proxy(&self, _key: ProxyKey) {}

    /// Marks a proxy static (static proxies never pair with each other) or not.
    fn set_static(&mut self, key: ProxyKey, is_static: bool) -> Result<(), BroadPhaseError>;

    /// The filter's answer for `key`'s pairs may have changed: asked again
    /// at the next update. Unknown keys are ignored.
    fn refilter(&mut self, key: ProxyKey);

    /// The filter's answer for the pair `(a, b)` may have changed.
    fn refilter_pair(&mut self, a: ProxyKey, b: ProxyKey);

    /// Applies every call since the last update; `filter` decides which
    /// overlapping pairs are active.
    fn update(&mut self, filter: &dyn PairFilter);

    /// Moves the net changes since the last drain into `out` (cleared first).
    fn drain_changes(&mut self, out: &mut PairChanges);

    /// Whether the pair is active (as of the last update).
    fn is_active(&self, a: ProxyKey, b: ProxyKey) -> bool;

    /// Calls `visit` for every active pair, in no particular order.
    fn for_each_active(&self, visit: &mut dyn FnMut(PairKey));

    /// Number of pairs stored: the active ones.
    fn box_pairs(&self) -> usize;

    /// A proxy's latest box.
    fn aabb(&self, key: ProxyKey) -> Option<Aabb>;

    /// Calls `visit` once for each proxy whose latest box overlaps `aabb`
    /// (touching counts), in no particular order. A NaN or inverted box
    /// finds nothing.
    fn query_aabb(&self, aabb: &Aabb, visit: &mut dyn FnMut(ProxyKey));

    /// Calls `visit(key, t)` once for each proxy whose latest box the ray
    /// `origin + t · dir`, `0 <= t <= max_toi`, reaches (boxes padded by a
    /// relative 1e-5 against rounding); `t` is where it enters. `visit`
    /// returns the new limit (the nearest hit so far, or `max_toi` to see
    /// every proxy); proxies beyond it may be skipped. A NaN or infinite
    /// ray, or a negative or NaN `max_toi`, finds nothing.
    fn query_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_toi: f32,
        visit: &mut dyn FnMut(ProxyKey, f32) -> f32,
    );

    /// Counters of the last update.
    fn stats(&self) -> BroadPhaseStats;

    /// Checks the invariants after an update with `filter`: sorted lists,
    /// positions, cells, and the stored pairs equal to the overlapping,
    /// non-static, allowed pairs.
    fn validate(&self, filter: &dyn PairFilter) -> Result<(), InvariantError>;
}

/// Checks an insertion's box and key (valid box, key below 2^31).
pub(crate) fn check_insert(key: ProxyKey, aabb: &Aabb) -> Result<(), BroadPhaseError> {
    if !aabb.is_valid() {
        return Err(BroadPhaseError::InvalidAabb);
    }
    if key >= 1 << 31 {
        return Err(BroadPhaseError::KeyTooLarge(key));
    }
    Ok(())
}

/// [`BroadPhase`] for a type whose inherent methods have the trait's names
/// and signatures (the generic `update` and `validate` take the filter
/// as a trait object here).
macro_rules! delegate_broad_phase {
    ($t:ty) => {
        impl $crate::broad_phase::BroadPhase for $t {
            fn insert(
                &mut self,
                key: ProxyKey,
                aabb: Aabb,
                is_static: bool,
            ) -> Result<(), BroadPhaseError> {
                <$t>::insert(self, key, aabb, is_static)
            }
            fn remove(&mut self, key: ProxyKey) -> Result<(), BroadPhaseError> {
                <$t>::remove(self, key)
            }
            fn set_aabb(&mut self, key: ProxyKey, aabb: Aabb) -> Result<(), BroadPhaseError> {
                <$t>::set_aabb(self, key, aabb)
            }
            fn prefetch_proxy(&self, key: ProxyKey) {
                <$t>::prefetch_proxy(self, key);
            }
            fn set_static(
                &mut self,
                key: ProxyKey,
                is_static: bool,
            ) -> Result<(), BroadPhaseError> {
                <$t>::set_static(self, key, is_static)
            }
            fn refilter(&mut self, key: ProxyKey) {
                <$t>::refilter(self, key);
            }
            fn refilter_pair(&mut self, a: ProxyKey, b: ProxyKey) {
                <$t>::refilter_pair(self, a, b);
            }
            fn update(&mut self, filter: &dyn PairFilter) {
                <$t>::update(self, filter);
            }
            fn drain_changes(&mut self, out: &mut PairChanges) {
                <$t>::drain_changes(self, out);
            }
            fn is_active(&self, a: ProxyKey, b: ProxyKey) -> bool {
                <$t>::is_active(self, a, b)
            }
            fn for_each_active(&self, visit: &mut dyn FnMut(PairKey)) {
                self.active_pairs().for_each(visit);
            }
            fn box_pairs(&self) -> usize {
                <$t>::box_pairs(self)
            }
            fn aabb(&self, key: ProxyKey) -> Option<Aabb> {
                <$t>::aabb(self, key)
            }
            fn query_aabb(&self, aabb: &Aabb, visit: &mut dyn FnMut(ProxyKey)) {
                <$t>::query_aabb(self, aabb, visit);
            }
            fn query_ray(
                &self,
                origin: Vec3,
                dir: Vec3,
                max_toi: f32,
                visit: &mut dyn FnMut(ProxyKey, f32) -> f32,
            ) {
                <$t>::query_ray(self, origin, dir, max_toi, visit);
            }
            fn stats(&self) -> BroadPhaseStats {
                <$t>::stats(self)
            }
            fn validate(&self, filter: &dyn PairFilter) -> Result<(), InvariantError> {
                <$t>::validate(self, filter)
            }
        }
    };
}
pub(crate) use delegate_broad_phase;

/// Relative padding of boxes in ray tests: rounding never culls a ray that
/// grazes a box.
pub(crate) const RAY_PAD: f32 = 1e-5;

/// The slab test, boxes padded by [`RAY_PAD`] (relative to the box's size
/// and its distance from the origin): the parameters at which the ray
/// `origin + t · dir` enters and leaves the box within `[0, limit]`.
pub(crate) fn ray_box(origin: Vec3, dir: Vec3, aabb: &Aabb, limit: f32) -> Option<(f32, f32)> {
    let reach = (origin - aabb.center()).abs().max_element();
    let pad = Vec3::splat(RAY_PAD * ((aabb.max - aabb.min).max_element() + reach));
    let (min, max) = (aabb.min - pad, aabb.max + pad);
    let (mut lo, mut hi) = (0.0f32, limit);
    for k in 0..3 {
        let (o, d) = (origin[k], dir[k]);
        if d == 0.0 {
            if o < min[k] || o > max[k] {
                return None;
            }
            continue;
        }
        let (a, b) = ((min[k] - o) / d, (max[k] - o) / d);
        lo = lo.max(a.min(b));
        hi = hi.min(a.max(b));
        if lo > hi {
            return None;
        }
    }
    Some((lo, hi))
}

/// Whether a ray and its limit can be used by a query ([`Ray::check`]).
pub(crate) fn ray_is_valid(origin: Vec3, dir: Vec3, max_toi: f32) -> bool {
    Ray::new(origin, dir).check(max_toi).is_ok()
}
