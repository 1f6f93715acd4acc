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
//! **Pairs.** Each cell's [`SweepAndPrune`] reports its own started / ended
//! pairs; a global table counts in how many cells each pair overlaps, and
//! a pair is active while that count is positive (and layers and the pair
//! configuration allow it). Two boxes overlap iff they overlap in some cell
//! they share, so the result is exactly the set of overlapping box pairs
//! (tested against brute force).
//!
//! **Cell size.** Given by the user, or chosen at the first update as 8
//! times the median largest extent of the boxes. A box spanning more than
//! [`MAX_CELLS`] cells (a floor, a terrain) is *oversized*: it lives in no
//! cell, and its pairs are found by testing it against every moved proxy.

use glam::Vec3;
use smallvec::SmallVec;

mod cells;
mod spatial;

use super::pairs::{PairMap, PairTable, pair_ids, pair_key};
use super::{
    BroadPhaseError, BroadPhaseStats, InvariantError, PairChanges, PairFilter, PairKey, ProxyKey,
    SweepAndPrune, check_insert, delegate_broad_phase,
};
use crate::math::Aabb;

/// Boxes spanning more cells than this are handled as oversized.
pub const MAX_CELLS: usize = 64;

/// Cell coordinates.
type Cell = [i32; 3];

/// Room reserved in each cell, so that steady-state frames do not allocate
/// when proxies come and go across cell boundaries.
const CELL_CAPACITY: usize = 64;

/// The caller's filter seen from a cell: local ids mapped to the caller's
/// keys, so that a cell stores only allowed pairs.
struct CellFilter<'a, F: ?Sized> {
    globals: &'a [ProxyKey],
    filter: &'a F,
}

impl<F: PairFilter + ?Sized> PairFilter for CellFilter<'_, F> {
    #[inline]
    fn allows(&self, a: ProxyKey, b: ProxyKey) -> bool {
        self.filter
            .allows(self.globals[a as usize], self.globals[b as usize])
    }

    #[inline]
    fn group(&self, key: ProxyKey) -> u64 {
        self.filter.group(self.globals[key as usize])
    }

    #[inline]
    fn groups_pair(&self, g: u64, h: u64) -> bool {
        self.filter.groups_pair(g, h)
    }
}

/// One cell: its sweep and prune (keyed by local ids) and the map from its
/// local ids to the caller's keys.
#[derive(Default)]
struct Region {
    sap: SweepAndPrune,
    globals: Vec<ProxyKey>,
    /// Local ids free for reuse.
    free: Vec<u32>,
    /// Local ids removed since the cell's last update (reusable after it).
    freed: Vec<u32>,
    dirty: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Live,
    /// Removed, still in the cells until the next update.
    Removed,
    Free,
}

#[derive(Clone, Debug)]
struct Proxy {
    aabb: Aabb,
    state: State,
    is_static: bool,
    /// Cell range `[min, max]`, inclusive; `None` until placed or when oversized.
    range: Option<[Cell; 2]>,
    /// `(region, local id)` of each cell it lives in.
    slots: SmallVec<[(u32, u32); 8]>,
    oversized: bool,
    queued: bool,
    refresh: bool,
}

impl Proxy {
    fn free() -> Proxy {
        Proxy {
            aabb: Aabb::EMPTY,
            state: State::Free,
            is_static: false,
            range: None,
            slots: SmallVec::new(),
            oversized: false,
            queued: false,
            refresh: false,
        }
    }
}

/// Sweep and prune per grid cell. See the module docs.
#[derive(Default)]
pub struct GridSweepAndPrune {
    cell: f32,
    regions: Vec<Region>,
    region_cells: Vec<Cell>,
    region_of: PairMap<u32>,
    /// By key.
    proxies: Vec<Proxy>,
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
    /// A cell's changes, folded into `table` right after its update.
    cell_changes: PairChanges,
    table: PairTable,
    stats: BroadPhaseStats,
    /// The range of cells that have a region (regions are never dropped).
    occupied: Option<[Cell; 2]>,
}

impl GridSweepAndPrune {
    /// An empty broad phase; `cell_size` `None` chooses it at the first update.
    pub fn new(cell_size: Option<f32>) -> Self {
        Self {
            cell: cell_size
                .filter(|c| c.is_finite() && *c > 0.0)
                .unwrap_or(0.0),
            ..Default::default()
        }
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
            self.proxies.resize_with(i + 1, Proxy::free);
        }
        if self.proxies[i].state != State::Free {
            return Err(BroadPhaseError::KeyInUse(key));
        }
        self.proxies[i] = Proxy {
            aabb,
            state: State::Live,
            is_static,
            ..Proxy::free()
        };
        self.count += 1;
        self.enqueue(key);
        Ok(())
    }

    /// Removes a proxy; its pairs end at the next update, after which the
    /// key may be used again.
    pub fn remove(&mut self, key: ProxyKey) -> Result<(), BroadPhaseError> {
        self.live(key)?;
        self.proxies[key as usize].state = State::Removed;
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
        self.proxies[id as usize].aabb = aabb;
        self.enqueue(id);
        Ok(())
    }

    /// Marks a proxy static or not.
    pub fn set_static(&mut self, id: ProxyKey, is_static: bool) -> Result<(), BroadPhaseError> {
        self.live(id)?;
        let p = &mut self.proxies[id as usize];
        if p.is_static != is_static {
            p.is_static = is_static;
            for &(r, local) in &p.slots {
                let region = &mut self.regions[r as usize];
                let _ = region.sap.set_static(local, is_static);
                mark_dirty(&mut self.dirty, region, r);
            }
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
        self.place_queued();
        self.refresh_queued();
        self.update_regions(filter);
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

    /// A proxy's box.
    pub fn aabb(&self, id: ProxyKey) -> Option<Aabb> {
        self.live(id).ok().map(|_| self.proxies[id as usize].aabb)
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
        match self.proxies.get(id as usize) {
            Some(p) if p.state == State::Live => Ok(()),
            _ => Err(BroadPhaseError::UnknownProxy(id)),
        }
    }

    fn enqueue(&mut self, id: ProxyKey) {
        let p = &mut self.proxies[id as usize];
        if !p.queued {
            p.queued = true;
            self.queue.push(id);
        }
    }

    fn queue_refresh(&mut self, id: ProxyKey) {
        let p = &mut self.proxies[id as usize];
        if !p.refresh {
            p.refresh = true;
            self.refresh.push(id);
        }
    }

    /// 8 × the median largest extent of the boxes (1 if there are none).
    fn choose_cell_size(&mut self) {
        let mut extents: Vec<f32> = self
            .proxies
            .iter()
            .filter(|p| p.state == State::Live)
            .map(|p| (p.aabb.max - p.aabb.min).max_element())
            .collect();
        if extents.is_empty() {
            return;
        }
        let mid = extents.len() / 2;
        let median = *extents.select_nth_unstable_by(mid, f32::total_cmp).1;
        self.cell = (8.0 * median).max(f32::MIN_POSITIVE.sqrt());
    }

    fn cell_range(&self, aabb: &Aabb) -> [Cell; 2] {
        [self.cell_of(aabb.min), self.cell_of(aabb.max)]
    }

    /// The cell holding `v` (coordinates clamped to ±1e9 cells).
    #[inline]
    fn cell_of(&self, v: Vec3) -> Cell {
        let c = (v * (1.0 / self.cell)).clamp(Vec3::splat(-1e9), Vec3::splat(1e9));
        [fast_floor(c.x), fast_floor(c.y), fast_floor(c.z)]
    }
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

/// A hashable key for a cell (21 bits per coordinate after clamping).
fn cell_key(c: Cell) -> u64 {
    let f = |x: i32| (x.clamp(-(1 << 20), (1 << 20) - 1) + (1 << 20)) as u64;
    (f(c[0]) << 42) | (f(c[1]) << 21) | f(c[2])
}

impl GridSweepAndPrune {
    /// Checks, after an update with `filter`: every cell's sweep and prune;
    /// each live proxy in exactly the cells of its range (none when
    /// oversized) under the right local ids; the pair table equal to the
    /// overlapping, non-static pairs the filter allows.
    pub fn validate<F: PairFilter + ?Sized>(&self, filter: &F) -> Result<(), InvariantError> {
        let err = |m: String| Err(InvariantError(m));
        for (r, region) in self.regions.iter().enumerate() {
            let cell = CellFilter {
                globals: &region.globals,
                filter,
            };
            region
                .sap
                .validate(&cell)
                .map_err(|e| InvariantError(format!("cell {r}: {}", e.0)))?;
        }
        for (key, p) in self.proxies.iter().enumerate() {
            if p.state != State::Live {
                continue;
            }
            let cells: usize = p.range.map_or(0, |[lo, hi]| {
                (0..3).map(|k| (hi[k] - lo[k]) as usize + 1).product()
            });
            if p.slots.len() != cells || p.oversized != p.range.is_none() {
                return err(format!(
                    "proxy {key}: {} slots for {cells} cells",
                    p.slots.len()
                ));
            }
            for &(r, local) in &p.slots {
                let region = &self.regions[r as usize];
                if region.globals.get(local as usize) != Some(&(key as ProxyKey))
                    || region.sap.aabb(local) != Some(p.aabb)
                {
                    return err(format!("proxy {key}: cell {r} holds another box"));
                }
            }
        }
        self.table.validate().map_err(InvariantError)?;
        self.validate_pairs(filter)
    }

    fn validate_pairs<F: PairFilter + ?Sized>(&self, filter: &F) -> Result<(), InvariantError> {
        let live: Vec<usize> = (0..self.proxies.len())
            .filter(|&i| self.proxies[i].state == State::Live)
            .collect();
        let mut want = 0;
        for (i, &a) in live.iter().enumerate() {
            for &b in &live[i + 1..] {
                let (pa, pb) = (&self.proxies[a], &self.proxies[b]);
                let pair = !(pa.is_static && pb.is_static)
                    && pa.aabb.overlaps(&pb.aabb)
                    && filter.allows(a as u32, b as u32);
                if pair != self.table.contains(pair_key(a as u32, b as u32)) {
                    return Err(InvariantError(format!(
                        "pair ({a}, {b}) wrong in the table"
                    )));
                }
                want += usize::from(pair);
            }
        }
        if want != self.table.len() {
            return Err(InvariantError("the pair table holds dead pairs".into()));
        }
        Ok(())
    }
}

delegate_broad_phase!(GridSweepAndPrune);
