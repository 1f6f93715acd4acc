//! Moving proxies between cells, updating the cells and folding their pair
//! changes into the grid's table; the oversized proxies' pairs.

use smallvec::SmallVec;

use super::{
    CELL_CAPACITY, Cell, CellFilter, GridSweepAndPrune, MAX_CELLS, PairFilter, Proxy, ProxyKey,
    Region, State, SweepAndPrune, cell_key, cell_max, cell_min, mark_dirty, pair_ids, pair_key,
};

impl GridSweepAndPrune {
    pub(super) fn apply_removals(&mut self) {
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
        let dead = |p: ProxyKey| proxies[p as usize].state == State::Removed;
        self.oversized.retain(|&o| !dead(o));
        self.table.remove_where(|k| {
            let (a, b) = pair_ids(k);
            dead(a) || dead(b)
        });
        for &id in &self.removed {
            self.proxies[id as usize] = Proxy::free();
        }
        self.removed.clear();
    }

    pub(super) fn leave(&mut self, r: u32, local: u32) {
        let region = &mut self.regions[r as usize];
        // The local id is in the cell: removal cannot fail.
        let _ = region.sap.remove(local);
        region.freed.push(local);
        mark_dirty(&mut self.dirty, region, r);
    }

    /// Moves queued proxies into the cells their boxes now overlap.
    pub(super) fn place_queued(&mut self) {
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

    pub(super) fn place(&mut self, id: ProxyKey) {
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
    pub(super) fn make_oversized(&mut self, id: ProxyKey) {
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
    pub(super) fn fix_oversized_pairs<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        let check = std::mem::take(&mut self.check_oversized);
        for &id in &check {
            if self.proxies[id as usize].state != State::Live {
                continue;
            }
            if self.proxies[id as usize].oversized {
                for q in 0..self.proxies.len() as ProxyKey {
                    if q != id && self.proxies[q as usize].state == State::Live {
                        self.set_pair_exact(id, q, filter);
                    }
                }
            } else {
                for i in 0..self.oversized.len() {
                    self.set_pair_exact(id, self.oversized[i], filter);
                }
            }
        }
        self.check_oversized = check;
        self.check_oversized.clear();
    }

    pub(super) fn set_pair_exact<F: PairFilter + ?Sized>(
        &mut self,
        a: ProxyKey,
        b: ProxyKey,
        filter: &F,
    ) {
        let (pa, pb) = (&self.proxies[a as usize], &self.proxies[b as usize]);
        let key = pair_key(a, b);
        if !(pa.is_static && pb.is_static) && pa.aabb.overlaps(&pb.aabb) && filter.allows(a, b) {
            self.table.add(key);
        } else {
            self.table.remove(key);
        }
    }

    /// Passes the filter changes on to the cells, before they update: a
    /// proxy whose answer may have changed is re-asked in each of its cells,
    /// a single pair in each cell both share (the cells then report the
    /// pairs that start or stop being allowed); pairs with an oversized
    /// proxy are re-tested after the cells.
    pub(super) fn refresh_queued(&mut self) {
        let refresh = std::mem::take(&mut self.refresh);
        for &id in &refresh {
            self.proxies[id as usize].refresh = false;
            if self.proxies[id as usize].state != State::Live {
                continue;
            }
            for &(r, local) in &self.proxies[id as usize].slots {
                let region = &mut self.regions[r as usize];
                region.sap.refilter(local);
                mark_dirty(&mut self.dirty, region, r);
            }
            if !self.oversized.is_empty() {
                self.check_oversized.push(id);
            }
        }
        self.refresh = refresh;
        self.refresh.clear();
        for i in 0..self.refresh_pairs.len() {
            let (a, b) = pair_ids(self.refresh_pairs[i]);
            self.refresh_pair(a, b);
        }
        self.refresh_pairs.clear();
    }

    fn refresh_pair(&mut self, a: ProxyKey, b: ProxyKey) {
        let live = |p: ProxyKey| {
            self.proxies
                .get(p as usize)
                .is_some_and(|p| p.state == State::Live)
        };
        if !live(a) || !live(b) {
            return;
        }
        let (pa, pb) = (&self.proxies[a as usize], &self.proxies[b as usize]);
        if pa.oversized || pb.oversized {
            self.check_oversized.push(a);
            return;
        }
        for &(r, la) in &pa.slots {
            if let Some(&(_, lb)) = pb.slots.iter().find(|s| s.0 == r) {
                let region = &mut self.regions[r as usize];
                region.sap.refilter_pair(la, lb);
                mark_dirty(&mut self.dirty, region, r);
            }
        }
    }

    /// Leaves the cells outside `new`, moves in the kept ones, enters the new ones.
    pub(super) fn reslot(
        &mut self,
        id: ProxyKey,
        slots: &mut SmallVec<[(u32, u32); 8]>,
        new: [Cell; 2],
    ) {
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

    pub(super) fn cell_of_region(&self, r: u32) -> Cell {
        // Regions are created in `enter`, which records the cell.
        self.region_cells[r as usize]
    }

    pub(super) fn enter(&mut self, cell: Cell, id: ProxyKey) -> (u32, u32) {
        let key = cell_key(cell);
        let r = match self.region_of.get(&key) {
            Some(&r) => r,
            None => {
                let r = self.regions.len() as u32;
                self.regions.push(Region {
                    sap: SweepAndPrune::with_capacity(CELL_CAPACITY),
                    globals: Vec::with_capacity(CELL_CAPACITY),
                    free: Vec::with_capacity(CELL_CAPACITY),
                    freed: Vec::with_capacity(CELL_CAPACITY),
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
        let region = &mut self.regions[r as usize];
        let local = region.free.pop().unwrap_or(region.globals.len() as u32);
        // The box was validated on the way in and the local id is free.
        let _ = region.sap.insert(local, p.aabb, p.is_static);
        if region.globals.len() <= local as usize {
            region.globals.resize(local as usize + 1, 0);
        }
        region.globals[local as usize] = id;
        mark_dirty(&mut self.dirty, region, r);
        (r, local)
    }

    /// Updates every touched cell and folds its pair changes into the table.
    pub(super) fn update_regions<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        let dirty = std::mem::take(&mut self.dirty);
        for &r in &dirty {
            let Region {
                sap,
                globals,
                dirty,
                freed,
                free,
            } = &mut self.regions[r as usize];
            *dirty = false;
            sap.update(&CellFilter { globals, filter });
            free.append(freed);
            sap.drain_changes(&mut self.cell_changes);
            let region = &self.regions[r as usize];
            let s = region.sap.stats();
            for k in 0..3 {
                self.stats.swaps[k] += s.swaps[k];
            }
            self.stats.moved += s.moved;
            self.stats.rebuilt |= s.rebuilt;
            self.stats.sweep_tests += s.sweep_tests;
            for &local_key in &self.cell_changes.ended {
                let (a, b) = pair_ids(local_key);
                let key = pair_key(region.globals[a as usize], region.globals[b as usize]);
                self.table.release(key);
            }
            for &local_key in &self.cell_changes.started {
                let (a, b) = pair_ids(local_key);
                let key = pair_key(region.globals[a as usize], region.globals[b as usize]);
                self.table.acquire(key);
            }
        }
        self.dirty = dirty;
        self.dirty.clear();
    }
}
