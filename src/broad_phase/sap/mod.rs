//! Sweep and prune over three sorted endpoint lists (I-COLLIDE, section 3.2).
//!
//! Cohen, Lin, Manocha, Ponamgi, *I-COLLIDE*, I3D 1995; Baraff's thesis (1992)
//! for the sort-and-sweep idea.
//!
//! Each proxy's box projects to an interval `[min, max]` on each of x, y, z.
//! The 2n endpoints of each axis are kept in a list sorted by value. Two boxes
//! overlap iff their intervals overlap on all three axes, and on one axis the
//! intervals `[a0, a1]`, `[b0, b1]` overlap iff `a0` comes before `b1` and `b0`
//! before `a1` in the sorted order: the per-axis overlap flag of a pair *is*
//! the order of its endpoints.
//!
//! When objects move a little (coherence), the lists stay nearly sorted and
//! insertion sort restores them in expected linear time. Only a swap of a min
//! endpoint with a max endpoint changes a pair's flag on that axis:
//!
//! | moving endpoint | passes | direction | the axis flag |
//! |-----------------|--------|-----------|---------------|
//! | min of A        | max of B | left    | set (start)   |
//! | max of A        | min of B | left    | cleared (end) |
//! | max of A        | min of B | right   | set (start)   |
//! | min of A        | max of B | right   | cleared (end) |
//!
//! A pair is *active* when all three flags are set. On a "set" swap we test the
//! two boxes on all three axes (the other two flags, read from the boxes in
//! O(1)); on a "cleared" swap the pair leaves the active set.
//!
//! **Why the flags are not stored.** I-COLLIDE keeps a flag matrix. Stored
//! per pair, the flags of pairs overlapping on *one* axis alone grow as
//! `n · n^(2/3)` at fixed density (at n = 100 000 and 5 % density about 10^8
//! pairs); read from the boxes they cost nothing and are exact: insertion sort
//! exchanges each out-of-order pair of endpoints exactly once, so the last swap
//! of two endpoints agrees with their final order, and a pair is added only
//! when its final boxes overlap. The result after each update is exactly the
//! set of overlapping box pairs (tested against brute force).
//!
//! **Incremental.** Each proxy remembers the list positions of its six
//! endpoints, so only moved proxies' endpoints are sifted (work grows with
//! what moved, not with the scene). When a third or more of the proxies
//! moved, every endpoint value is refreshed in list order and each list is
//! insertion-sorted whole, which reads memory sequentially. A moved proxy's endpoints are sifted one
//! at a time, min first when the box moved left and max first otherwise, so
//! the list is sorted again after each proxy. New proxies are appended and
//! sifted; many at once trigger a full sort and sweep instead, and so does
//! an update whose swaps exceed what a sort would cost (`4 e log2 e`, a
//! crowd shuffled in one spot), so no update is quadratic in swaps. Removed
//! proxies are compacted out. Static proxies never pair with each other,
//! and a pair the caller's [`PairFilter`] refuses is never stored: it costs
//! no memory, and is found again (by a scan of the proxy's overlaps) when
//! the caller says the answer may have changed.
//!
//! **Output.** See [`BroadPhase`](super::BroadPhase): the active pairs and their net changes
//! since the last drain. In steady state an update allocates nothing.

mod endpoint;
mod sort;
mod spatial;

pub(crate) use spatial::x_candidates;
mod sweep;

pub(in crate::broad_phase) use sort::SwapCtx;
pub(in crate::broad_phase) use sweep::{Boxes, SweepScratch, sweep_x};

pub use endpoint::Endpoint;

use super::pairs::{PairTable, pair_ids, pair_key};
use super::{
    BroadPhaseError, BroadPhaseStats, PairChanges, PairFilter, PairKey, ProxyKey, check_insert,
};
use crate::math::Aabb;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Endpoints are in the lists.
    Live,
    /// Inserted, not yet in the lists.
    Pending,
    /// Removed, endpoints still in the lists until the next update.
    Dead,
    /// No proxy has this key.
    Free,
}

#[derive(Clone, Copy, Debug)]
struct ProxyInfo {
    state: State,
    is_static: bool,
    moved: bool,
    refresh: bool,
}

const FREE: ProxyInfo = ProxyInfo {
    state: State::Free,
    is_static: false,
    moved: false,
    refresh: false,
};

/// Above this many insertions in one update (and 1/16 of the proxies), the
/// lists are sorted from scratch instead of sifting each new endpoint.
pub(in crate::broad_phase) const REBUILD_MIN_INSERTS: usize = 64;

/// When at least 1/`RESORT_FRACTION` of the proxies moved, all endpoint
/// values are refreshed in list order and the lists insertion-sorted whole
/// (sequential memory access), instead of sifting each moved proxy.
pub(in crate::broad_phase) const RESORT_FRACTION: usize = 3;

/// Swaps (summed over the three lists) after which an incremental update
/// gives up and sorts from scratch: insertion sort is linear only while
/// the lists stay nearly sorted, and a crowd jittering in one spot would
/// make it quadratic (5 000 such bodies: 6 · 10^6 swaps, 120 ms per
/// frame). The budget is about what a from-scratch sort costs, `4 e log2 e`
/// for `e` endpoints per list; coherent scenes stay far below it (the
/// multibody benchmark at 10 000 bodies: 1.3 · 10^5 swaps per frame against
/// a budget of 1.2 · 10^6).
pub(in crate::broad_phase) fn swap_budget(proxies: usize) -> u64 {
    let e = 2 * proxies.max(1) as u64;
    4 * e * (u64::from(e.ilog2()) + 1)
}

/// After a whole-list re-sort ran over [`swap_budget`], the next this many
/// re-sorts sort from scratch without trying insertion first.
pub(in crate::broad_phase) const SHUFFLED_UPDATES: u8 = 8;

/// The sweep-and-prune broad phase. See the module docs.
#[derive(Default)]
pub struct SweepAndPrune {
    axes: [Vec<Endpoint>; 3],
    /// By key.
    aabbs: Vec<Aabb>,
    /// Position of each proxy's endpoints: `[x_min, x_max, y_min, ...]`.
    positions: Vec<[u32; 6]>,
    info: Vec<ProxyInfo>,
    /// Proxies in use (live or pending).
    count: usize,
    inserted: Vec<ProxyKey>,
    removed: Vec<ProxyKey>,
    moved: Vec<ProxyKey>,
    refresh: Vec<ProxyKey>,
    refresh_pairs: Vec<PairKey>,
    table: PairTable,
    stats: BroadPhaseStats,
    /// Whether `positions` matches the lists (a full re-sort leaves it stale).
    positions_valid: bool,
    /// Re-sorts left to run from scratch (see [`SHUFFLED_UPDATES`]).
    shuffled: u8,
    /// Buffers of the from-scratch sweep.
    sweep_scratch: sweep::SweepScratch,
}

impl SweepAndPrune {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty broad phase with room for keys below `proxies` and as many
    /// pairs before it allocates.
    pub fn with_capacity(proxies: usize) -> Self {
        let mut s = Self::default();
        for list in &mut s.axes {
            list.reserve(2 * proxies);
        }
        s.aabbs.reserve(proxies);
        s.positions.reserve(proxies);
        s.info.reserve(proxies);
        s.inserted.reserve(proxies);
        s.removed.reserve(proxies);
        s.moved.reserve(proxies);
        s.table.reserve(proxies);
        s
    }

    /// Adds a proxy under `key`; it takes part from the next update.
    pub fn insert(
        &mut self,
        key: ProxyKey,
        aabb: Aabb,
        is_static: bool,
    ) -> Result<(), BroadPhaseError> {
        check_insert(key, &aabb)?;
        let i = key as usize;
        if i >= self.info.len() {
            self.info.resize(i + 1, FREE);
            self.aabbs.resize(i + 1, Aabb::EMPTY);
            self.positions.resize(i + 1, [0; 6]);
        }
        if self.info[i].state != State::Free {
            return Err(BroadPhaseError::KeyInUse(key));
        }
        self.info[i] = ProxyInfo {
            state: State::Pending,
            is_static,
            moved: false,
            refresh: false,
        };
        self.aabbs[i] = aabb;
        self.inserted.push(key);
        self.count += 1;
        Ok(())
    }

    /// Removes a proxy; its pairs end at the next update.
    pub fn remove(&mut self, key: ProxyKey) -> Result<(), BroadPhaseError> {
        let info = self.live_info_mut(key)?;
        let was_pending = info.state == State::Pending;
        info.state = State::Dead;
        self.count -= 1;
        if was_pending {
            // Never reached the lists: nothing to compact.
            self.inserted.retain(|&p| p != key);
            self.info[key as usize].state = State::Free;
        } else {
            self.removed.push(key);
        }
        Ok(())
    }

    /// Moves a proxy's box.
    pub fn set_aabb(&mut self, key: ProxyKey, aabb: Aabb) -> Result<(), BroadPhaseError> {
        if !aabb.is_valid() {
            return Err(BroadPhaseError::InvalidAabb);
        }
        self.live_info_mut(key)?;
        self.set_aabb_unchecked(key, aabb);
        Ok(())
    }

    /// [`set_aabb`](Self::set_aabb) for a valid box and a live proxy the
    /// caller has already checked (the grid's cells).
    #[inline]
    pub(crate) fn set_aabb_unchecked(&mut self, key: ProxyKey, aabb: Aabb) {
        let info = &mut self.info[key as usize];
        // A pending proxy enters the lists with its latest box anyway.
        let queue = info.state == State::Live && !info.moved;
        info.moved |= queue;
        self.aabbs[key as usize] = aabb;
        if queue {
            self.moved.push(key);
        }
    }

    /// Marks a proxy static or not; its pairs are recomputed at the next update.
    pub fn set_static(&mut self, key: ProxyKey, is_static: bool) -> Result<(), BroadPhaseError> {
        let info = self.live_info_mut(key)?;
        if info.is_static != is_static {
            info.is_static = is_static;
            self.queue_refresh(key);
        }
        Ok(())
    }

    /// Asks the filter again about `key`'s pairs at the next update.
    pub fn refilter(&mut self, key: ProxyKey) {
        if self.live_info_mut(key).is_ok() {
            self.queue_refresh(key);
        }
    }

    /// Asks the filter again about the pair `(a, b)` at the next update.
    pub fn refilter_pair(&mut self, a: ProxyKey, b: ProxyKey) {
        if a != b {
            self.refresh_pairs.push(pair_key(a, b));
        }
    }

    /// Brings the lists and the pair table up to date with every call since
    /// the last update.
    pub fn update<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        self.stats = BroadPhaseStats::default();
        self.compact_removed();
        if self.inserted.len() >= REBUILD_MIN_INSERTS && self.inserted.len() * 16 >= self.count {
            self.rebuild(filter);
        } else {
            let budget = swap_budget(self.count);
            let resort = self.moved.len() * RESORT_FRACTION >= self.count;
            let sorted = if resort && self.shuffled > 0 {
                // The last re-sorts ran over budget: sort from scratch
                // directly for a few updates before trying again.
                self.shuffled -= 1;
                false
            } else if resort {
                let sorted = self.resort_all(filter, budget);
                if !sorted {
                    self.shuffled = SHUFFLED_UPDATES;
                }
                sorted
            } else {
                self.ensure_positions();
                self.sift_moved(filter, budget) && self.sift_inserted(filter, budget)
            };
            if !sorted {
                // Far from sorted (a crowd shuffled in one spot): sorting
                // from scratch is cheaper than the swaps left.
                self.rebuild(filter);
            }
        }
        self.refresh_queued(filter);
    }

    /// Moves the net pair changes since the last drain into `out`.
    pub fn drain_changes(&mut self, out: &mut PairChanges) {
        self.table.drain(out);
    }

    /// Whether changes wait to be drained.
    pub fn has_changes(&self) -> bool {
        self.table.has_changes()
    }

    /// Whether the pair is active.
    pub fn is_active(&self, a: ProxyKey, b: ProxyKey) -> bool {
        self.table.is_active(a, b)
    }

    /// The active pairs, in no particular order.
    pub fn active_pairs(&self) -> impl Iterator<Item = PairKey> + '_ {
        self.table.active()
    }

    /// Number of pairs stored: the active ones.
    pub fn box_pairs(&self) -> usize {
        self.table.len()
    }

    /// A proxy's box.
    pub fn aabb(&self, key: ProxyKey) -> Option<Aabb> {
        self.info
            .get(key as usize)
            .filter(|i| matches!(i.state, State::Live | State::Pending))
            .map(|_| self.aabbs[key as usize])
    }

    /// Number of proxies in use.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no proxy is in use.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Counters of the last update.
    pub fn stats(&self) -> BroadPhaseStats {
        self.stats
    }

    /// The sorted endpoint list of `axis` (0, 1, 2), for inspection and for
    /// spatial queries.
    pub fn endpoints(&self, axis: usize) -> &[Endpoint] {
        &self.axes[axis]
    }

    fn live_info_mut(&mut self, key: ProxyKey) -> Result<&mut ProxyInfo, BroadPhaseError> {
        self.info
            .get_mut(key as usize)
            .filter(|i| matches!(i.state, State::Live | State::Pending))
            .ok_or(BroadPhaseError::UnknownProxy(key))
    }

    fn queue_refresh(&mut self, key: ProxyKey) {
        let info = &mut self.info[key as usize];
        if !info.refresh {
            info.refresh = true;
            self.refresh.push(key);
        }
    }
}

/// Whether the filter lets the pair `key` through.
#[inline]
fn allowed<F: PairFilter + ?Sized>(filter: &F, key: PairKey) -> bool {
    let (a, b) = pair_ids(key);
    filter.allows(a, b)
}
