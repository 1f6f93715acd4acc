//! Sweep and prune per grid cell ("multi-SAP", as PhysX's multi box
//! pruning): the world is cut into cubic cells, each with its own three
//! endpoint lists, and a proxy lives in every cell its box overlaps.
//!
//! **Why.** Along one axis, the endpoints of all n boxes of a scene at fixed
//! density lie `n^(2/3)` times closer together than the boxes are wide, so
//! the swaps of one sweep and prune grow as `n^(5/3)`: 6, 28 and 127 swaps
//! per object per frame at 1k, 10k and 100k objects of the multi-body
//! benchmark. Within a cell of side `c`, the endpoint density depends only
//! on the 3D density and `c`, so the swaps per object are constant and the
//! whole update is linear in n. The cost is that a box overlapping a cell
//! boundary lives in 2 to 8 cells.
//!
//! **Lean cells.** A cell is only its three lists: the endpoints carry the
//! caller's keys, the boxes live once in the grid (`boxes`, by key), and
//! every crossing decides a pair in the grid's one table. (An earlier
//! version gave each cell a whole [`SweepAndPrune`](super::SweepAndPrune)
//! with its own boxes, ids and pair table, and counted in how many cells
//! each pair overlapped. Its copies and bookkeeping were a third of the
//! profile at 10 000 bodies all moving; without them the frame took about
//! 6 % less, the rest of that time moving to the shared box array. The
//! larger gain came after, in the sort itself: see
//! [`sap`](super::sap)'s marked insertion sort.)
//!
//! **Pairs, decided at crossings.** When, in some cell, a min endpoint
//! passes a max one so that the two intervals start to overlap, the pair
//! is stored if the two *current* boxes overlap (and they are not both
//! static and the filter allows them); when the intervals stop overlapping
//! the pair is dropped. This is exact because each cell's lists end every
//! update sorted on the current values: insertion sort exchanges every
//! out-of-order pair of endpoints, so in each cell both share, the last
//! crossing of two proxies agrees with their final order, and two boxes
//! overlap iff they overlap in every axis of a cell they share. The one
//! event a crossing cannot see is a proxy *leaving* a cell: its endpoints
//! are dropped there, and each of its pairs with a proxy of that cell whose
//! boxes no longer overlap is dropped too (pairs still overlapping share
//! another cell). The result is exactly the set of overlapping box pairs,
//! tested against brute force after every update.
//!
//! **Finding a moved proxy's endpoints.** Each proxy remembers, per cell,
//! where its six endpoints were when it last moved there; other proxies'
//! moves shift them a little, so the search gallops from that hint to the
//! endpoint holding the proxy's previous value (the lists hold the previous
//! box, `listed`, until the update ends).
//!
//! **Cell size.** Given by the user, or chosen at the first update as 8
//! times the median largest extent of the boxes. A box spanning more than
//! [`MAX_CELLS`] cells (a floor, a terrain) is *oversized*: it lives in no
//! cell, and its pairs are found by testing it against every moved proxy.

use glam::Vec3;
use smallvec::SmallVec;

mod cells;
mod lists;
mod spatial;

use super::pairs::{PairBuildHasher, PairTable, pair_ids, pair_key};
use super::sap::{Endpoint, SweepScratch};
use super::{
    BroadPhaseError, BroadPhaseStats, InvariantError, PairChanges, PairFilter, PairKey, ProxyKey,
    check_insert, delegate_broad_phase,
};
use crate::math::Aabb;
use crate::math::prefetch::{LINE, prefetch_aabb, prefetch_value};
use std::collections::HashMap;

/// Boxes spanning more cells than this are handled as oversized.
pub const MAX_CELLS: usize = 64;

/// Cell coordinates.
type Cell = [i32; 3];

/// Room reserved in each cell's lists, so that steady-state frames do not
/// allocate when proxies come and go across cell boundaries.
const CELL_CAPACITY: usize = 64;

/// One cell: its three sorted endpoint lists, holding the caller's keys,
/// and what its next update must bring in.
#[derive(Default)]
struct Region {
    axes: [Vec<Endpoint>; 3],
    /// Proxies in the lists whose box changed since the last update.
    moved: Vec<Moved>,
    /// Proxies entering the cell: not in the lists yet.
    entered: Vec<ProxyKey>,
    dirty: bool,
    /// Re-sorts left to run from scratch (see `sap::SHUFFLED_UPDATES`).
    shuffled: u8,
}

impl Region {
    fn with_capacity(n: usize) -> Region {
        Region {
            axes: [0; 3].map(|_| Vec::with_capacity(2 * n)),
            moved: Vec::with_capacity(n),
            entered: Vec::with_capacity(n),
            ..Region::default()
        }
    }

    /// Number of proxies in the lists.
    fn len(&self) -> usize {
        self.axes[0].len() / 2
    }

    /// The proxies in the lists (each once: the min endpoints of x).
    fn keys(&self) -> impl Iterator<Item = ProxyKey> + '_ {
        self.axes[0]
            .iter()
            .filter(|e| !e.is_max())
            .map(|e| e.proxy())
    }
}

/// A moved proxy queued in a cell, with its position hints there (copied
/// from its slot when queued, so the cell's update reads them in order).
#[derive(Clone, Copy, Debug)]
struct Moved {
    id: ProxyKey,
    at: [u16; 6],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Live,
    /// Removed, still in the cells until the next update.
    Removed,
    Free,
}

/// Cells a proxy keeps inline (a box of at most twice the cell size
/// overlaps at most 8): moving between cells allocates nothing.
const MAX_INLINE_CELLS: usize = 8;

/// A cell a proxy lives in: its region and where its six endpoints were
/// when last placed there (`[x_min, x_max, y_min, ...]`): a hint for
/// finding them, as other proxies' moves shift them a little.
#[derive(Clone, Copy, Debug)]
struct Slot {
    region: u32,
    at: [u16; 6],
}

impl Slot {
    fn new(region: u32) -> Slot {
        Slot { region, at: [0; 6] }
    }
}

/// A proxy's flags: apart from its cells, four bytes a key, so that
/// `set_aabb` and the end of an update touch little memory.
#[derive(Clone, Copy, Debug)]
struct Meta {
    state: State,
    oversized: bool,
    queued: bool,
    refresh: bool,
}

impl Meta {
    const FREE: Meta = Meta {
        state: State::Free,
        oversized: false,
        queued: false,
        refresh: false,
    };
}

/// Where a proxy lives.
#[derive(Clone, Debug, Default)]
struct Proxy {
    /// Cell range `[min, max]`, inclusive; `None` until placed or when oversized.
    range: Option<[Cell; 2]>,
    /// The cells it lives in.
    slots: SmallVec<[Slot; MAX_INLINE_CELLS]>,
}

/// Automatic cells are this many times the median largest box extent.
pub const CELL_FACTOR: f32 = 8.0;

/// Sweep and prune per grid cell. See the module docs.
#[derive(Default)]
pub struct GridSweepAndPrune {
    cell: f32,
    /// Automatic cells: this times the median largest extent (0: the
    /// default, [`CELL_FACTOR`]).
    cell_factor: f32,
    /// `1 / cell`.
    inv_cell: f32,
    regions: Vec<Region>,
    region_cells: Vec<Cell>,
    region_of: HashMap<u128, u32, PairBuildHasher>,
    /// By key.
    meta: Vec<Meta>,
    /// By key.
    proxies: Vec<Proxy>,
    /// Whether each proxy is static, by key.
    statics: Vec<bool>,
    /// Each proxy's current box, by key: what pairs are decided on.
    boxes: Vec<Aabb>,
    /// Each proxy's box as its endpoints in the lists hold it (the box of
    /// the last update), by key: where a moved proxy's endpoints are found.
    listed: Vec<Aabb>,
    /// Proxies in use.
    count: usize,
    queue: Vec<ProxyKey>,
    removed: Vec<ProxyKey>,
    refresh: Vec<ProxyKey>,
    refresh_pairs: Vec<PairKey>,
    dirty: Vec<u32>,
    oversized: Vec<ProxyKey>,
    /// Proxies to test against the oversized ones after the cells update
    /// (and oversized proxies to test against everything).
    check_oversized: Vec<ProxyKey>,
    table: PairTable,
    stats: BroadPhaseStats,
    /// The range of cells that have a region (regions are never dropped).
    occupied: Option<[Cell; 2]>,
    /// Buffers of a cell's from-scratch sweep.
    sweep: SweepScratch,
    /// Per proxy: the number of the last from-scratch sweep of a cell it
    /// is in (see `lists`).
    swept: Vec<u32>,
    sweeps: u32,
    /// The proxies of a cell being swept from scratch.
    sweep_keys: Vec<ProxyKey>,
    /// Buffers of the entering proxies' merge into a cell's lists.
    merge: lists::MergeScratch,
}

impl GridSweepAndPrune {
    /// An empty broad phase; `cell_size` `None` chooses it at the first update.
    pub fn new(cell_size: Option<f32>) -> Self {
        let cell = cell_size
            .filter(|c| c.is_finite() && *c > 0.0)
            .unwrap_or(0.0);
        Self {
            cell,
            inv_cell: if cell > 0.0 { 1.0 / cell } else { 0.0 },
            ..Default::default()
        }
    }

    /// Automatic cells (no `cell_size` given) will be `factor` times the
    /// median largest box extent at the first update (default
    /// [`CELL_FACTOR`]; a factor that is not finite and positive keeps the
    /// default). Behind [`Enlarged`](super::Enlarged) with margin `m` the
    /// grid sees boxes `1 + 2m` times as large: `CELL_FACTOR / (1 + 2m)`
    /// gives the cells the tight boxes would have had.
    pub fn with_cell_factor(mut self, factor: f32) -> Self {
        self.cell_factor = if factor.is_finite() && factor > 0.0 {
            factor
        } else {
            0.0
        };
        self
    }

    /// The cell size (0 until chosen).
    pub fn cell_size(&self) -> f32 {
        self.cell
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
        if i >= self.proxies.len() {
            self.meta.resize(i + 1, Meta::FREE);
            self.proxies.resize_with(i + 1, Proxy::default);
            self.boxes.resize(i + 1, Aabb::EMPTY);
            self.listed.resize(i + 1, Aabb::EMPTY);
            self.swept.resize(i + 1, 0);
            self.statics.resize(i + 1, false);
        }
        if self.meta[i].state != State::Free {
            return Err(BroadPhaseError::KeyInUse(key));
        }
        self.meta[i] = Meta {
            state: State::Live,
            ..Meta::FREE
        };
        self.proxies[i] = Proxy::default();
        self.statics[i] = is_static;
        self.boxes[i] = aabb;
        self.listed[i] = aabb;
        self.count += 1;
        self.enqueue(key);
        Ok(())
    }

    /// Removes a proxy; its pairs end at the next update, after which the
    /// key may be used again.
    pub fn remove(&mut self, key: ProxyKey) -> Result<(), BroadPhaseError> {
        self.live(key)?;
        self.meta[key as usize].state = State::Removed;
        self.count -= 1;
        self.removed.push(key);
        Ok(())
    }

    /// Moves a proxy's box.
    pub fn set_aabb(&mut self, id: ProxyKey, aabb: Aabb) -> Result<(), BroadPhaseError> {
        if !aabb.is_valid() {
            return Err(BroadPhaseError::InvalidAabb);
        }
        self.live(id)?;
        self.boxes[id as usize] = aabb;
        self.enqueue(id);
        Ok(())
    }

    /// Marks a proxy static or not.
    pub fn set_static(&mut self, id: ProxyKey, is_static: bool) -> Result<(), BroadPhaseError> {
        self.live(id)?;
        if self.statics[id as usize] != is_static {
            self.statics[id as usize] = is_static;
            self.queue_refresh(id);
        }
        Ok(())
    }

    /// Asks the filter again about `key`'s pairs at the next update.
    pub fn refilter(&mut self, key: ProxyKey) {
        if self.live(key).is_ok() {
            self.queue_refresh(key);
        }
    }

    /// Asks the filter again about the pair `(a, b)` at the next update.
    pub fn refilter_pair(&mut self, a: ProxyKey, b: ProxyKey) {
        if a != b {
            self.refresh_pairs.push(pair_key(a, b));
        }
    }

    /// Brings everything up to date with every call since the last
    /// update; `filter` decides which overlapping pairs are active.
    pub fn update<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        self.stats = BroadPhaseStats::default();
        if self.cell == 0.0 {
            self.choose_cell_size();
        }
        self.apply_removals();
        self.place_queued(filter);
        self.update_regions(filter);
        self.settle_queued();
        self.refresh_queued(filter);
        self.fix_oversized_pairs(filter);
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

    /// Number of proxies in use.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no proxy is in use.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Starts loading what [`set_aabb`](Self::set_aabb) reads and writes
    /// for `id` (its state and box; a hint, any key accepted).
    #[inline]
    pub fn prefetch_proxy(&self, id: ProxyKey) {
        if let (Some(m), Some(b)) = (self.meta.get(id as usize), self.boxes.get(id as usize)) {
            prefetch_value(m, LINE);
            prefetch_aabb(b);
        }
    }

    /// A proxy's box.
    pub fn aabb(&self, id: ProxyKey) -> Option<Aabb> {
        self.live(id).ok().map(|_| self.boxes[id as usize])
    }

    /// Counters of the last update (swaps summed over the cells).
    pub fn stats(&self) -> BroadPhaseStats {
        self.stats
    }

    /// Number of cells in use (some may be empty).
    pub fn cell_count(&self) -> usize {
        self.regions.len()
    }

    fn live(&self, id: ProxyKey) -> Result<(), BroadPhaseError> {
        match self.meta.get(id as usize) {
            Some(m) if m.state == State::Live => Ok(()),
            _ => Err(BroadPhaseError::UnknownProxy(id)),
        }
    }

    fn enqueue(&mut self, id: ProxyKey) {
        let m = &mut self.meta[id as usize];
        if !m.queued {
            m.queued = true;
            self.queue.push(id);
        }
    }

    fn queue_refresh(&mut self, id: ProxyKey) {
        let m = &mut self.meta[id as usize];
        if !m.refresh {
            m.refresh = true;
            self.refresh.push(id);
        }
    }

    /// 8 × the median largest extent of the boxes (1 if there are none).
    fn choose_cell_size(&mut self) {
        let mut extents: Vec<f32> = self
            .meta
            .iter()
            .zip(&self.boxes)
            .filter(|(m, _)| m.state == State::Live)
            .map(|(_, b)| (b.max - b.min).max_element())
            .collect();
        if extents.is_empty() {
            return;
        }
        let mid = extents.len() / 2;
        let median = *extents.select_nth_unstable_by(mid, f32::total_cmp).1;
        let factor = if self.cell_factor > 0.0 {
            self.cell_factor
        } else {
            CELL_FACTOR
        };
        self.cell = (factor * median).max(f32::MIN_POSITIVE.sqrt());
        self.inv_cell = 1.0 / self.cell;
    }

    fn cell_range(&self, aabb: &Aabb) -> [Cell; 2] {
        [self.cell_of(aabb.min), self.cell_of(aabb.max)]
    }

    /// The cell holding `v` (coordinates clamped to ±1e9 cells).
    #[inline]
    fn cell_of(&self, v: Vec3) -> Cell {
        let c = (v * self.inv_cell).clamp(Vec3::splat(-1e9), Vec3::splat(1e9));
        [fast_floor(c.x), fast_floor(c.y), fast_floor(c.z)]
    }
}

/// The number of cells in a range, saturating (a box wider than 2.6 million
/// cells per axis would overflow the product).
fn cell_count([lo, hi]: [Cell; 2]) -> usize {
    (0..3).fold(1usize, |n, k| {
        n.saturating_mul((i64::from(hi[k]) - i64::from(lo[k]) + 1) as usize)
    })
}

/// `floor` for values within ±1e9 (the libm call does not inline).
#[inline]
fn fast_floor(x: f32) -> i32 {
    let t = x as i32;
    if (t as f32) > x { t - 1 } else { t }
}

fn cell_min(a: Cell, b: Cell) -> Cell {
    [a[0].min(b[0]), a[1].min(b[1]), a[2].min(b[2])]
}

fn cell_max(a: Cell, b: Cell) -> Cell {
    [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])]
}

fn mark_dirty(dirty: &mut Vec<u32>, region: &mut Region, r: u32) {
    if !region.dirty {
        region.dirty = true;
        dirty.push(r);
    }
}

/// A hashable key for a cell: its three coordinates, each whole (cells
/// are clamped to ±1e9 per axis only). (Packing 21 bits per coordinate
/// into a `u64`, as before, gave cells more than 2^20 apart from the
/// origin, 2.6 · 10^6 m out with cells of 2.5 m, one key: a box spanning
/// two of them entered one region twice.)
fn cell_key(c: Cell) -> u128 {
    let f = |x: i32| u128::from(x as u32);
    (f(c[0]) << 64) | (f(c[1]) << 32) | f(c[2])
}

impl GridSweepAndPrune {
    /// Checks, after an update with `filter`: every cell's lists sorted,
    /// holding the current boxes of proxies whose range covers the cell;
    /// each live proxy in exactly the cells of its range (none when
    /// oversized), with its two endpoints on each axis; the pair table
    /// equal to the overlapping, non-static pairs the filter allows.
    pub fn validate<F: PairFilter + ?Sized>(&self, filter: &F) -> Result<(), InvariantError> {
        let err = |m: String| Err(InvariantError(m));
        let mut ends = vec![0usize; self.proxies.len()];
        for (r, region) in self.regions.iter().enumerate() {
            if region.dirty || !region.moved.is_empty() || !region.entered.is_empty() {
                return err(format!("cell {r} has work left"));
            }
            for (axis, list) in region.axes.iter().enumerate() {
                if list.windows(2).any(|w| w[1].before(w[0])) {
                    return err(format!("cell {r}: list {axis} unsorted"));
                }
                for e in list {
                    let p = e.proxy() as usize;
                    let b = self.boxes.get(p).copied().unwrap_or(Aabb::EMPTY);
                    let want = if e.is_max() { b.max[axis] } else { b.min[axis] };
                    let live = self.meta.get(p).is_some_and(|m| m.state == State::Live);
                    let placed = live && self.proxies[p].slots.iter().any(|s| s.region == r as u32);
                    if !placed || e.value != want {
                        return err(format!("cell {r}: stale endpoint of proxy {p}"));
                    }
                    ends[p] += 1;
                }
            }
        }
        for (key, p) in self.proxies.iter().enumerate() {
            let oversized = self.meta[key].oversized;
            if self.meta[key].state != State::Live {
                continue;
            }
            let cells = p.range.map_or(0, cell_count);
            if p.slots.len() != cells || oversized != p.range.is_none() {
                return err(format!(
                    "proxy {key}: {} slots for {cells} cells",
                    p.slots.len()
                ));
            }
            let inside = |c: Cell| {
                p.range
                    .is_some_and(|[lo, hi]| (0..3).all(|k| lo[k] <= c[k] && c[k] <= hi[k]))
            };
            if ends[key] != 6 * cells
                || !p
                    .slots
                    .iter()
                    .all(|s| inside(self.region_cells[s.region as usize]))
            {
                return err(format!("proxy {key}: endpoints outside its cells"));
            }
        }
        self.validate_pairs(filter)
    }

    fn validate_pairs<F: PairFilter + ?Sized>(&self, filter: &F) -> Result<(), InvariantError> {
        let live: Vec<_> = (0..self.proxies.len())
            .filter(|&i| self.meta[i].state == State::Live)
            .map(|i| (i as ProxyKey, self.boxes[i], self.statics[i]))
            .collect();
        self.table.check_exact(&live, filter)
    }
}

delegate_broad_phase!(GridSweepAndPrune);
