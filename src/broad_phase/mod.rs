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
//! sifted; many at once trigger a full sort and sweep instead. Removed
//! proxies are compacted out. Static proxies never pair with each other.
//! Layer filters and deactivated pairs keep a pair in the table but mark it
//! disabled: it never reaches the narrow phase, and re-enabling is O(1).
//!
//! **Output.** After [`SweepAndPrune::update`], [`SweepAndPrune::pairs`]
//! holds the net changes since the last update ([`PairTable::started`],
//! [`PairTable::ended`], sorted) and the enabled pairs ([`PairTable::active`]).
//! In steady state an update allocates nothing.

mod endpoint;
mod grid;
mod pairs;

pub use endpoint::Endpoint;
pub use grid::{GridSweepAndPrune, MAX_CELLS};
pub use pairs::{PairBuildHasher, PairKey, PairMap, PairSet, PairTable, pair_ids, pair_key};

use crate::math::Aabb;

/// Dense proxy id (reused after removal).
pub type ProxyId = u32;

/// Collision layers of a proxy, with the convention of avian and rapier:
/// two proxies may collide when each one's `memberships` meets the other's
/// `filters`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProxyFilter {
    /// Layers this proxy belongs to.
    pub memberships: u32,
    /// Layers this proxy collides with.
    pub filters: u32,
    /// `false` deactivates every pair of this proxy (I-COLLIDE's
    /// `deactivate_object`).
    pub active: bool,
}

impl Default for ProxyFilter {
    fn default() -> Self {
        Self {
            memberships: 1,
            filters: u32::MAX,
            active: true,
        }
    }
}

impl ProxyFilter {
    /// Whether two proxies' layers and activity allow them to collide.
    #[inline]
    pub fn allows(&self, other: &ProxyFilter) -> bool {
        self.active
            && other.active
            && self.memberships & other.filters != 0
            && other.memberships & self.filters != 0
    }
}

/// Why the broad phase refused a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadPhaseError {
    /// The box has a NaN or infinite coordinate or `min > max`.
    InvalidAabb,
    /// The proxy id is not in use.
    UnknownProxy(ProxyId),
    /// More than 2^31 proxies.
    TooManyProxies,
}

impl std::fmt::Display for BroadPhaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BroadPhaseError::InvalidAabb => f.write_str("the box is NaN, infinite or inverted"),
            BroadPhaseError::UnknownProxy(p) => write!(f, "proxy {p} does not exist"),
            BroadPhaseError::TooManyProxies => f.write_str("more than 2^31 proxies"),
        }
    }
}

impl std::error::Error for BroadPhaseError {}

/// Counters of the last update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SapStats {
    /// Endpoint exchanges on each axis.
    pub swaps: [u64; 3],
    /// Proxies whose endpoints were sifted.
    pub moved: u32,
    /// Whether the update sorted from scratch (many insertions).
    pub rebuilt: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Endpoints are in the lists.
    Live,
    /// Inserted, not yet in the lists.
    Pending,
    /// Removed, endpoints still in the lists until the next update.
    Dead,
    /// Id on the free list.
    Free,
}

#[derive(Clone, Copy, Debug)]
struct ProxyInfo {
    state: State,
    is_static: bool,
    moved: bool,
    refresh: bool,
    filter: ProxyFilter,
}

/// Insertion options of a proxy.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProxyOptions {
    /// Static proxies never pair with other static proxies.
    pub is_static: bool,
    /// Layers and activity.
    pub filter: ProxyFilter,
}

/// Above this many insertions in one update (and 1/16 of the proxies), the
/// lists are sorted from scratch instead of sifting each new endpoint.
const REBUILD_MIN_INSERTS: usize = 64;

/// When at least 1/`RESORT_FRACTION` of the proxies moved, all endpoint
/// values are refreshed in list order and the lists insertion-sorted whole
/// (sequential memory access), instead of sifting each moved proxy.
const RESORT_FRACTION: usize = 3;

/// The sweep-and-prune broad phase. See the module docs.
#[derive(Default)]
pub struct SweepAndPrune {
    axes: [Vec<Endpoint>; 3],
    aabbs: Vec<Aabb>,
    /// Position of each proxy's endpoints: `[x_min, x_max, y_min, ...]`.
    positions: Vec<[u32; 6]>,
    info: Vec<ProxyInfo>,
    free: Vec<ProxyId>,
    inserted: Vec<ProxyId>,
    removed: Vec<ProxyId>,
    moved: Vec<ProxyId>,
    refresh: Vec<ProxyId>,
    table: PairTable,
    stats: SapStats,
    /// Scratch for rebuilds.
    sweep_active: Vec<ProxyId>,
    /// Whether `positions` matches the lists (a full re-sort leaves it stale).
    positions_valid: bool,
}

mod sort;
mod sweep;

impl SweepAndPrune {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty broad phase with room for `proxies` proxies and as many
    /// pairs before it allocates.
    pub fn with_capacity(proxies: usize) -> Self {
        let mut s = Self::default();
        for list in &mut s.axes {
            list.reserve(2 * proxies);
        }
        s.aabbs.reserve(proxies);
        s.positions.reserve(proxies);
        s.info.reserve(proxies);
        s.free.reserve(proxies);
        s.inserted.reserve(proxies);
        s.removed.reserve(proxies);
        s.moved.reserve(proxies);
        s.table.reserve(proxies);
        s
    }

    /// Adds a proxy; it takes part from the next [`update`](Self::update).
    pub fn insert(
        &mut self,
        aabb: Aabb,
        options: ProxyOptions,
    ) -> Result<ProxyId, BroadPhaseError> {
        if !aabb.is_valid() {
            return Err(BroadPhaseError::InvalidAabb);
        }
        let info = ProxyInfo {
            state: State::Pending,
            is_static: options.is_static,
            moved: false,
            refresh: false,
            filter: options.filter,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.aabbs[id as usize] = aabb;
                self.info[id as usize] = info;
                id
            }
            None => {
                let id = self.aabbs.len();
                if id >= (1 << 31) {
                    return Err(BroadPhaseError::TooManyProxies);
                }
                self.aabbs.push(aabb);
                self.info.push(info);
                self.positions.push([0; 6]);
                id as ProxyId
            }
        };
        self.inserted.push(id);
        Ok(id)
    }

    /// Removes a proxy; its pairs end at the next update.
    pub fn remove(&mut self, id: ProxyId) -> Result<(), BroadPhaseError> {
        let info = self.live_info_mut(id)?;
        let was_pending = info.state == State::Pending;
        info.state = State::Dead;
        if was_pending {
            // Never reached the lists: nothing to compact.
            self.inserted.retain(|&p| p != id);
            self.info[id as usize].state = State::Free;
            self.free.push(id);
        } else {
            self.removed.push(id);
        }
        Ok(())
    }

    /// Moves a proxy's box.
    pub fn set_aabb(&mut self, id: ProxyId, aabb: Aabb) -> Result<(), BroadPhaseError> {
        if !aabb.is_valid() {
            return Err(BroadPhaseError::InvalidAabb);
        }
        let info = self.live_info_mut(id)?;
        // A pending proxy enters the lists with its latest box anyway.
        let queue = info.state == State::Live && !info.moved;
        info.moved |= queue;
        self.aabbs[id as usize] = aabb;
        if queue {
            self.moved.push(id);
        }
        Ok(())
    }

    /// Marks a proxy static or not; its pairs are recomputed at the next update.
    pub fn set_static(&mut self, id: ProxyId, is_static: bool) -> Result<(), BroadPhaseError> {
        let info = self.live_info_mut(id)?;
        if info.is_static != is_static {
            info.is_static = is_static;
            self.queue_refresh(id);
        }
        Ok(())
    }

    /// [`set_aabb`](Self::set_aabb) for a box and a live proxy the caller has
    /// already checked (the grid's cells).
    #[inline]
    pub(crate) fn set_aabb_unchecked(&mut self, id: ProxyId, aabb: Aabb) {
        let info = &mut self.info[id as usize];
        let queue = info.state == State::Live && !info.moved;
        info.moved |= queue;
        self.aabbs[id as usize] = aabb;
        if queue {
            self.moved.push(id);
        }
    }

    /// Changes a proxy's layers or activity.
    pub fn set_filter(&mut self, id: ProxyId, filter: ProxyFilter) -> Result<(), BroadPhaseError> {
        let info = self.live_info_mut(id)?;
        if info.filter != filter {
            info.filter = filter;
            self.queue_refresh(id);
        }
        Ok(())
    }

    /// Deactivates (`false`) or reactivates a specific pair (I-COLLIDE's
    /// `deactivate_pair` / `activate_pair`). Takes effect at once.
    pub fn set_pair_enabled(&mut self, a: ProxyId, b: ProxyId, enabled: bool) {
        let key = pair_key(a, b);
        let layers = layers_allow(&self.info, key);
        self.table.configure(key, enabled, layers);
    }

    /// Brings the lists, the pair table and the `started` / `ended` lists up
    /// to date with every call since the last update.
    pub fn update(&mut self) {
        self.stats = SapStats::default();
        self.compact_removed();
        let n_live = self.aabbs.len() - self.free.len();
        if self.inserted.len() >= REBUILD_MIN_INSERTS && self.inserted.len() * 16 >= n_live {
            self.rebuild();
        } else if self.moved.len() * RESORT_FRACTION >= n_live {
            self.resort_all();
        } else {
            self.ensure_positions();
            self.sift_moved();
            self.sift_inserted();
        }
        self.refresh_queued();
        self.table.finish();
    }

    /// The overlapping pairs and the last update's changes.
    pub fn pairs(&self) -> &PairTable {
        &self.table
    }

    /// A proxy's box.
    pub fn aabb(&self, id: ProxyId) -> Option<Aabb> {
        self.info
            .get(id as usize)
            .filter(|i| matches!(i.state, State::Live | State::Pending))
            .map(|_| self.aabbs[id as usize])
    }

    /// Number of proxies in use.
    pub fn len(&self) -> usize {
        self.aabbs.len() - self.free.len() - self.removed.len()
    }

    /// Whether no proxy is in use.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counters of the last update.
    pub fn stats(&self) -> SapStats {
        self.stats
    }

    /// The sorted endpoint list of `axis` (0, 1, 2), for inspection and for
    /// spatial queries.
    pub fn endpoints(&self, axis: usize) -> &[Endpoint] {
        &self.axes[axis]
    }

    fn live_info_mut(&mut self, id: ProxyId) -> Result<&mut ProxyInfo, BroadPhaseError> {
        self.info
            .get_mut(id as usize)
            .filter(|i| matches!(i.state, State::Live | State::Pending))
            .ok_or(BroadPhaseError::UnknownProxy(id))
    }

    fn queue_refresh(&mut self, id: ProxyId) {
        let info = &mut self.info[id as usize];
        if !info.refresh {
            info.refresh = true;
            self.refresh.push(id);
        }
    }

    #[inline]
    fn allowed(&self, key: PairKey) -> bool {
        layers_allow(&self.info, key) && !self.table.is_disabled(key)
    }
}

/// Whether layers and activity let `key` through.
#[inline]
fn layers_allow(info: &[ProxyInfo], key: PairKey) -> bool {
    let (a, b) = pair_ids(key);
    info[a as usize].filter.allows(&info[b as usize].filter)
}
