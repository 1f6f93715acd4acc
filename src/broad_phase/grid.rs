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

mod query;

use super::pairs::{PairMap, PairTable, pair_ids, pair_key};
use super::{
    BroadPhaseError, PairKey, ProxyFilter, ProxyId, ProxyOptions, SapStats, SweepAndPrune,
};
use crate::math::Aabb;

/// Boxes spanning more cells than this are handled as oversized.
pub const MAX_CELLS: usize = 64;

/// Cell coordinates.
type Cell = [i32; 3];

/// Room reserved in each cell, so that steady-state frames do not allocate
/// when proxies come and go across cell boundaries.
const CELL_CAPACITY: usize = 64;

/// One cell: its sweep and prune and the map from its local ids to global.
#[derive(Default)]
struct Region {
    sap: SweepAndPrune,
    globals: Vec<ProxyId>,
    dirty: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Live,
    Free,
}

#[derive(Clone, Debug)]
struct Proxy {
    aabb: Aabb,
    state: State,
    is_static: bool,
    filter: ProxyFilter,
    /// Cell range `[min, max]`, inclusive; `None` until placed or when oversized.
    range: Option<[Cell; 2]>,
    /// `(region, local id)` of each cell it lives in.
    slots: SmallVec<[(u32, ProxyId); 8]>,
    oversized: bool,
    queued: bool,
    refresh: bool,
}

/// Sweep and prune per grid cell. Same interface as [`SweepAndPrune`].
#[derive(Default)]
pub struct GridSweepAndPrune {
    cell: f32,
    regions: Vec<Region>,
    region_cells: Vec<Cell>,
    region_of: PairMap<u32>,
    proxies: Vec<Proxy>,
    free: Vec<ProxyId>,
    queue: Vec<ProxyId>,
    removed: Vec<ProxyId>,
    refresh: Vec<ProxyId>,
    dirty: Vec<u32>,
    oversized: Vec<ProxyId>,
    /// Proxies to test against the oversized ones after the cells update
    /// (and oversized proxies to test against everything).
    check_oversized: Vec<ProxyId>,
    scratch: Vec<PairKey>,
    table: PairTable,
    stats: SapStats,
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

    /// Adds a proxy; it takes part from the next update.
    pub fn insert(
        &mut self,
        aabb: Aabb,
        options: ProxyOptions,
    ) -> Result<ProxyId, BroadPhaseError> {
        if !aabb.is_valid() {
            return Err(BroadPhaseError::InvalidAabb);
        }
        let proxy = Proxy {
            aabb,
            state: State::Live,
            is_static: options.is_static,
            filter: options.filter,
            range: None,
            slots: SmallVec::new(),
            oversized: false,
            queued: false,
            refresh: false,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.proxies[id as usize] = proxy;
                id
            }
            None if self.proxies.len() >= (1 << 31) => return Err(BroadPhaseError::TooManyProxies),
            None => {
                self.proxies.push(proxy);
                self.proxies.len() as ProxyId - 1
            }
        };
        self.enqueue(id);
        Ok(id)
    }

    /// Removes a proxy; its pairs end at the next update.
    pub fn remove(&mut self, id: ProxyId) -> Result<(), BroadPhaseError> {
        self.live(id)?;
        self.proxies[id as usize].state = State::Free;
        self.removed.push(id);
        Ok(())
    }

    /// Moves a proxy's box.
    pub fn set_aabb(&mut self, id: ProxyId, aabb: Aabb) -> Result<(), BroadPhaseError> {
        if !aabb.is_valid() {
            return Err(BroadPhaseError::InvalidAabb);
        }
        self.live(id)?;
        self.proxies[id as usize].aabb = aabb;
        self.enqueue(id);
        Ok(())
    }

    /// Marks a proxy static or not.
    pub fn set_static(&mut self, id: ProxyId, is_static: bool) -> Result<(), BroadPhaseError> {
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

    /// Changes a proxy's layers or activity.
    pub fn set_filter(&mut self, id: ProxyId, filter: ProxyFilter) -> Result<(), BroadPhaseError> {
        self.live(id)?;
        if self.proxies[id as usize].filter != filter {
            self.proxies[id as usize].filter = filter;
            self.queue_refresh(id);
        }
        Ok(())
    }

    /// Deactivates (`false`) or reactivates a specific pair. Takes effect at once.
    pub fn set_pair_enabled(&mut self, a: ProxyId, b: ProxyId, enabled: bool) {
        let key = pair_key(a, b);
        let layers = self.layers_allow(key);
        self.table.configure(key, enabled, layers);
    }

    /// Brings everything up to date; see [`SweepAndPrune::update`].
    pub fn update(&mut self) {
        self.stats = SapStats::default();
        if self.cell == 0.0 {
            self.choose_cell_size();
        }
        self.apply_removals();
        self.place_queued();
        self.update_regions();
        self.refresh_queued();
        self.fix_oversized_pairs();
        self.table.finish();
    }

    /// The overlapping pairs and the last update's changes.
    pub fn pairs(&self) -> &PairTable {
        &self.table
    }

    /// A proxy's box.
    pub fn aabb(&self, id: ProxyId) -> Option<Aabb> {
        self.live(id).ok().map(|_| self.proxies[id as usize].aabb)
    }

    /// Counters of the last update (swaps summed over the cells).
    pub fn stats(&self) -> SapStats {
        self.stats
    }

    /// Number of cells in use (some may be empty).
    pub fn cell_count(&self) -> usize {
        self.regions.len()
    }

    fn live(&self, id: ProxyId) -> Result<(), BroadPhaseError> {
        match self.proxies.get(id as usize) {
            Some(p) if p.state == State::Live => Ok(()),
            _ => Err(BroadPhaseError::UnknownProxy(id)),
        }
    }

    fn enqueue(&mut self, id: ProxyId) {
        let p = &mut self.proxies[id as usize];
        if !p.queued {
            p.queued = true;
            self.queue.push(id);
        }
    }

    fn queue_refresh(&mut self, id: ProxyId) {
        let p = &mut self.proxies[id as usize];
        if !p.refresh {
            p.refresh = true;
            self.refresh.push(id);
        }
    }

    #[inline]
    fn allowed(&self, key: PairKey) -> bool {
        self.layers_allow(key) && !self.table.is_disabled(key)
    }

    /// Whether layers and activity let `key` through.
    #[inline]
    fn layers_allow(&self, key: PairKey) -> bool {
        let (a, b) = pair_ids(key);
        let (pa, pb) = (&self.proxies[a as usize], &self.proxies[b as usize]);
        pa.filter.allows(&pb.filter)
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

    fn apply_removals(&mut self) {
        if self.removed.is_empty() {
            return;
        }
        for i in 0..self.removed.len() {
            let id = self.removed[i];
            let slots = std::mem::take(&mut self.proxies[id as usize].slots);
            for &(r, local) in &slots {
                self.leave(r, local);
            }
            let p = &mut self.proxies[id as usize];
            p.range = None;
            p.queued = false;
            p.oversized = false;
        }
        let proxies = &self.proxies;
        let dead = |p: ProxyId| proxies[p as usize].state == State::Free;
        self.oversized.retain(|&o| !dead(o));
        self.table.remove_where(|k| {
            let (a, b) = pair_ids(k);
            dead(a) || dead(b)
        });
        self.table.retain_disabled(|k| {
            let (a, b) = pair_ids(k);
            !dead(a) && !dead(b)
        });
        self.free.extend_from_slice(&self.removed);
        self.removed.clear();
    }

    fn leave(&mut self, r: u32, local: ProxyId) {
        let region = &mut self.regions[r as usize];
        let _ = region.sap.remove(local);
        mark_dirty(&mut self.dirty, region, r);
    }

    /// Moves queued proxies into the cells their boxes now overlap.
    fn place_queued(&mut self) {
        let queue = std::mem::take(&mut self.queue);
        for &id in &queue {
            let p = &mut self.proxies[id as usize];
            p.queued = false;
            if p.state == State::Live {
                self.place(id);
            }
        }
        self.queue = queue;
        self.queue.clear();
    }

    fn place(&mut self, id: ProxyId) {
        let p = &self.proxies[id as usize];
        let (aabb, old) = (p.aabb, p.range);
        let new = self.cell_range(&aabb);
        if old == Some(new) && !p.oversized {
            // Same cells (the common case): move the box in each.
            let (proxies, regions, dirty) = (&self.proxies, &mut self.regions, &mut self.dirty);
            for &(r, local) in &proxies[id as usize].slots {
                let region = &mut regions[r as usize];
                region.sap.set_aabb_unchecked(local, aabb);
                mark_dirty(dirty, region, r);
            }
            if !self.oversized.is_empty() {
                self.check_oversized.push(id);
            }
            return;
        }
        let cells: usize = (0..3)
            .map(|k| (new[1][k] - new[0][k]) as usize + 1)
            .product();
        if cells > MAX_CELLS {
            self.make_oversized(id);
            return;
        }
        if self.proxies[id as usize].oversized {
            // Its pairs came from oversized tests only: drop them; the cells
            // it enters now report them again.
            self.proxies[id as usize].oversized = false;
            self.oversized.retain(|&o| o != id);
            self.table.remove_where(|k| {
                let (a, b) = pair_ids(k);
                a == id || b == id
            });
        }
        let mut slots = std::mem::take(&mut self.proxies[id as usize].slots);
        if old == Some(new) {
            for &(r, local) in &slots {
                let region = &mut self.regions[r as usize];
                let _ = region.sap.set_aabb(local, aabb);
                mark_dirty(&mut self.dirty, region, r);
            }
        } else {
            self.reslot(id, &mut slots, new);
        }
        let p = &mut self.proxies[id as usize];
        p.slots = slots;
        p.range = Some(new);
        if !self.oversized.is_empty() {
            self.check_oversized.push(id);
        }
    }

    /// Takes a proxy out of the cells; its pairs are then found by tests
    /// against every proxy (after the cells have reported their ends).
    fn make_oversized(&mut self, id: ProxyId) {
        let slots = std::mem::take(&mut self.proxies[id as usize].slots);
        for &(r, local) in &slots {
            self.leave(r, local);
        }
        let p = &mut self.proxies[id as usize];
        p.range = None;
        if !p.oversized {
            p.oversized = true;
            self.oversized.push(id);
        }
        self.check_oversized.push(id);
    }

    /// Pairs involving oversized proxies, tested directly: an oversized
    /// proxy against every proxy, any other proxy against the oversized ones.
    fn fix_oversized_pairs(&mut self) {
        let check = std::mem::take(&mut self.check_oversized);
        for &id in &check {
            if self.proxies[id as usize].state != State::Live {
                continue;
            }
            if self.proxies[id as usize].oversized {
                for q in 0..self.proxies.len() as ProxyId {
                    if q != id && self.proxies[q as usize].state == State::Live {
                        self.set_pair_exact(id, q);
                    }
                }
            } else {
                for i in 0..self.oversized.len() {
                    self.set_pair_exact(id, self.oversized[i]);
                }
            }
        }
        self.check_oversized = check;
        self.check_oversized.clear();
    }

    fn set_pair_exact(&mut self, a: ProxyId, b: ProxyId) {
        let (pa, pb) = (&self.proxies[a as usize], &self.proxies[b as usize]);
        let key = pair_key(a, b);
        if !(pa.is_static && pb.is_static) && pa.aabb.overlaps(&pb.aabb) {
            let enabled = self.allowed(key);
            self.table.add(key, enabled);
        } else {
            self.table.remove(key);
        }
    }

    /// Re-evaluates the enabled bit of the pairs of proxies whose layers or
    /// static flag changed.
    fn refresh_queued(&mut self) {
        let refresh = std::mem::take(&mut self.refresh);
        for &id in &refresh {
            self.proxies[id as usize].refresh = false;
            if self.proxies[id as usize].state != State::Live {
                continue;
            }
            self.scratch.clear();
            self.scratch
                .extend(self.table.iter().map(|(k, _)| k).filter(|&k| {
                    let (a, b) = pair_ids(k);
                    a == id || b == id
                }));
            for i in 0..self.scratch.len() {
                let key = self.scratch[i];
                let enabled = self.allowed(key);
                self.table.set_enabled(key, enabled);
            }
            if !self.oversized.is_empty() {
                self.check_oversized.push(id);
            }
        }
        self.refresh = refresh;
        self.refresh.clear();
    }

    /// Leaves the cells outside `new`, moves in the kept ones, enters the new ones.
    fn reslot(&mut self, id: ProxyId, slots: &mut SmallVec<[(u32, ProxyId); 8]>, new: [Cell; 2]) {
        let aabb = self.proxies[id as usize].aabb;
        let inside = |c: &Cell| (0..3).all(|k| new[0][k] <= c[k] && c[k] <= new[1][k]);
        let mut kept: SmallVec<[Cell; 8]> = SmallVec::new();
        let mut i = 0;
        while i < slots.len() {
            let (r, local) = slots[i];
            let cell = self.cell_of_region(r);
            if inside(&cell) {
                let region = &mut self.regions[r as usize];
                let _ = region.sap.set_aabb(local, aabb);
                mark_dirty(&mut self.dirty, region, r);
                kept.push(cell);
                i += 1;
            } else {
                self.leave(r, local);
                slots.swap_remove(i);
            }
        }
        for x in new[0][0]..=new[1][0] {
            for y in new[0][1]..=new[1][1] {
                for z in new[0][2]..=new[1][2] {
                    if !kept.contains(&[x, y, z]) {
                        slots.push(self.enter([x, y, z], id));
                    }
                }
            }
        }
    }

    fn cell_of_region(&self, r: u32) -> Cell {
        // Regions are created in `enter`, which records the cell.
        self.region_cells[r as usize]
    }

    fn enter(&mut self, cell: Cell, id: ProxyId) -> (u32, ProxyId) {
        let key = cell_key(cell);
        let r = match self.region_of.get(&key) {
            Some(&r) => r,
            None => {
                let r = self.regions.len() as u32;
                self.regions.push(Region {
                    sap: SweepAndPrune::with_capacity(CELL_CAPACITY),
                    globals: Vec::with_capacity(CELL_CAPACITY),
                    dirty: false,
                });
                self.region_cells.push(cell);
                self.region_of.insert(key, r);
                self.occupied = Some(match self.occupied {
                    Some([lo, hi]) => [cell_min(lo, cell), cell_max(hi, cell)],
                    None => [cell, cell],
                });
                r
            }
        };
        let p = &self.proxies[id as usize];
        let options = ProxyOptions {
            is_static: p.is_static,
            filter: ProxyFilter::default(),
        };
        let region = &mut self.regions[r as usize];
        // The box was validated on the way in.
        let local = region.sap.insert(p.aabb, options).unwrap_or(0);
        if region.globals.len() <= local as usize {
            region.globals.resize(local as usize + 1, 0);
        }
        region.globals[local as usize] = id;
        mark_dirty(&mut self.dirty, region, r);
        (r, local)
    }

    /// Updates every touched cell and folds its pair changes into the table.
    fn update_regions(&mut self) {
        let dirty = std::mem::take(&mut self.dirty);
        for &r in &dirty {
            let region = &mut self.regions[r as usize];
            region.dirty = false;
            region.sap.update();
            let s = region.sap.stats();
            for k in 0..3 {
                self.stats.swaps[k] += s.swaps[k];
            }
            self.stats.moved += s.moved;
            self.stats.rebuilt |= s.rebuilt;
            let region = &self.regions[r as usize];
            for &local_key in region.sap.pairs().ended() {
                let (a, b) = pair_ids(local_key);
                let key = pair_key(region.globals[a as usize], region.globals[b as usize]);
                self.table.release(key);
            }
            for &local_key in region.sap.pairs().started() {
                let (a, b) = pair_ids(local_key);
                let key = pair_key(region.globals[a as usize], region.globals[b as usize]);
                let enabled = self.allowed(key);
                self.table.acquire(key, enabled);
            }
        }
        self.dirty = dirty;
        self.dirty.clear();
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
