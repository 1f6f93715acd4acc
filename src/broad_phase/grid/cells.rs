//! Moving proxies between cells (what leaving a cell does to the pairs),
//! the filter's second thoughts, and the oversized proxies' pairs.

use smallvec::SmallVec;

use super::{
    CELL_CAPACITY, Cell, GridSweepAndPrune, MAX_CELLS, MAX_INLINE_CELLS, Meta, Moved, PairFilter,
    Proxy, ProxyKey, Region, Slot, State, cell_count, cell_key, cell_max, cell_min, mark_dirty,
    pair_ids, pair_key,
};
use crate::broad_phase::sap::RESORT_FRACTION;
use crate::math::prefetch::{LINE, prefetch_past, prefetch_value};

/// How many queued proxies ahead `place_queued` hints their cells' queues
/// (and twice as far, their records).
const QUEUE_READ_AHEAD: usize = 4;

impl GridSweepAndPrune {
    /// Drops the removed proxies' endpoints, one pass over each list of
    /// each cell they were in (the cells are marked dirty on the way, and
    /// updated with the others), and their pairs, in one pass over the
    /// table. (Dropping each proxy's endpoints by its own scan of each of
    /// its cells' lists cost a pass per removed proxy: under churn, with a
    /// tenth of the bodies respawned every frame, several per cell.)
    pub(super) fn apply_removals(&mut self) {
        if self.removed.is_empty() {
            return;
        }
        for i in 0..self.removed.len() {
            let id = self.removed[i];
            let slots = std::mem::take(&mut self.proxies[id as usize].slots);
            for s in &slots {
                let r = s.region;
                mark_dirty(&mut self.dirty, &mut self.regions[r as usize], r);
            }
        }
        for &r in &self.dirty {
            let meta = &self.meta;
            for list in &mut self.regions[r as usize].axes {
                list.retain(|e| meta[e.proxy() as usize].state != State::Removed);
            }
        }
        let meta = &self.meta;
        let dead = |p: ProxyKey| meta[p as usize].state == State::Removed;
        self.oversized.retain(|&o| !dead(o));
        self.table.remove_where(|k| {
            let (a, b) = pair_ids(k);
            dead(a) || dead(b)
        });
        for &id in &self.removed {
            self.meta[id as usize] = Meta::FREE;
            self.proxies[id as usize] = Proxy::default();
        }
        self.removed.clear();
    }

    /// Moves queued proxies into the cells their boxes now overlap: a
    /// proxy staying in its cells is queued in each as moved, one entering
    /// a cell as entered; leaving a cell drops its endpoints there at once.
    ///
    /// The queue is in the caller's order, which need not follow space: at
    /// 50 000 bodies each proxy's record and its cells' queues are cache
    /// misses, so both are hinted a few proxies ahead
    /// (docs/notes/EXPERIMENTS.md#bp50k).
    pub(super) fn place_queued<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        // When most proxies moved, the queue walks their records nearly in
        // order, and the cells re-sort whole: no hints.
        let hint = self.queue.len() * RESORT_FRACTION < self.count;
        for i in 0..self.queue.len() {
            if hint {
                self.hint_queued(i);
            }
            let id = self.queue[i];
            if self.meta[id as usize].state == State::Live {
                self.place(id, filter);
            }
        }
    }

    /// Hints the record and box of the proxy `2 * QUEUE_READ_AHEAD` places
    /// after `i` in the queue, and the cell queues of the one
    /// `QUEUE_READ_AHEAD` after it.
    fn hint_queued(&self, i: usize) {
        if let Some(&far) = self.queue.get(i + 2 * QUEUE_READ_AHEAD) {
            prefetch_value(&self.proxies[far as usize], 3 * LINE);
            prefetch_value(&self.boxes[far as usize], LINE);
        }
        if let Some(&near) = self.queue.get(i + QUEUE_READ_AHEAD) {
            for s in &self.proxies[near as usize].slots {
                let region = &self.regions[s.region as usize];
                prefetch_value(region, LINE);
                prefetch_past(&region.moved);
            }
        }
    }

    /// After the cells' update: the lists hold the queued proxies' current
    /// boxes.
    pub(super) fn settle_queued(&mut self) {
        for &id in &self.queue {
            let m = &mut self.meta[id as usize];
            m.queued = false;
            if m.state == State::Live {
                self.listed[id as usize] = self.boxes[id as usize];
            }
        }
        self.queue.clear();
    }

    fn place<F: PairFilter + ?Sized>(&mut self, id: ProxyKey, filter: &F) {
        let p = &self.proxies[id as usize];
        let old = p.range;
        let new = self.cell_range(&self.boxes[id as usize]);
        self.stats.moved += 1;
        if !self.oversized.is_empty() {
            self.check_oversized.push(id);
        }
        if old == Some(new) && !self.meta[id as usize].oversized {
            // Same cells (the common case): moved in each.
            for s in &p.slots {
                let region = &mut self.regions[s.region as usize];
                region.moved.push(Moved { id, at: s.at });
                mark_dirty(&mut self.dirty, region, s.region);
            }
            return;
        }
        if cell_count(new) > MAX_CELLS {
            self.make_oversized(id, filter);
            return;
        }
        if self.meta[id as usize].oversized {
            // Its pairs came from oversized tests only: drop them; the cells
            // it enters now find them again.
            self.meta[id as usize].oversized = false;
            self.oversized.retain(|&o| o != id);
            self.table.remove_where(|k| {
                let (a, b) = pair_ids(k);
                a == id || b == id
            });
        }
        let mut slots = std::mem::take(&mut self.proxies[id as usize].slots);
        self.reslot(id, &mut slots, new, filter);
        let p = &mut self.proxies[id as usize];
        p.slots = slots;
        p.range = Some(new);
    }

    /// Takes a proxy out of the cells; its pairs are then found by tests
    /// against every proxy (after the cells have updated).
    fn make_oversized<F: PairFilter + ?Sized>(&mut self, id: ProxyKey, filter: &F) {
        let slots = std::mem::take(&mut self.proxies[id as usize].slots);
        for s in &slots {
            self.leave(s.region, id, filter);
        }
        self.proxies[id as usize].range = None;
        let m = &mut self.meta[id as usize];
        if !m.oversized {
            m.oversized = true;
            self.oversized.push(id);
        }
        self.check_oversized.push(id);
    }

    /// Drops `id`'s endpoints from region `r`, then ends each pair of `id`
    /// with a proxy of that cell whose current boxes no longer overlap: the
    /// cell saw the two together and no swap there will report them apart.
    /// (Pairs still overlapping share another cell, whose lists keep them.)
    fn leave<F: PairFilter + ?Sized>(&mut self, r: u32, id: ProxyKey, filter: &F) {
        let region = &mut self.regions[r as usize];
        drop_endpoints(region, id);
        if self.table.has_pairs(id) {
            let region = &self.regions[r as usize];
            for q in region.keys() {
                let key = pair_key(id, q);
                if self.table.contains(key) && !self.pair_ok(id, q, filter) {
                    self.table.remove(key);
                }
            }
        }
    }

    /// Pairs involving oversized proxies, tested directly: an oversized
    /// proxy against every proxy, any other proxy against the oversized ones.
    pub(super) fn fix_oversized_pairs<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        let check = std::mem::take(&mut self.check_oversized);
        for &id in &check {
            if self.meta[id as usize].state != State::Live {
                continue;
            }
            if self.meta[id as usize].oversized {
                for q in 0..self.meta.len() as ProxyKey {
                    if q != id && self.meta[q as usize].state == State::Live {
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

    /// Whether the pair belongs in the table: not both static, current
    /// boxes overlapping, allowed by the filter.
    #[inline]
    fn pair_ok<F: PairFilter + ?Sized>(&self, a: ProxyKey, b: ProxyKey, filter: &F) -> bool {
        !(self.statics[a as usize] && self.statics[b as usize])
            && self.boxes[a as usize].overlaps(&self.boxes[b as usize])
            && filter.allows(a, b)
    }

    pub(super) fn set_pair_exact<F: PairFilter + ?Sized>(
        &mut self,
        a: ProxyKey,
        b: ProxyKey,
        filter: &F,
    ) {
        let key = pair_key(a, b);
        if self.pair_ok(a, b, filter) {
            self.table.add(key);
        } else {
            self.table.remove(key);
        }
    }

    /// After the cells' update, the filter changes: a proxy whose answer
    /// may have changed is asked again about every proxy of its cells (any
    /// box overlapping its own shares a cell with it), a single pair
    /// directly; pairs with an oversized proxy are re-tested after.
    pub(super) fn refresh_queued<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        let refresh = std::mem::take(&mut self.refresh);
        for &id in &refresh {
            let m = &mut self.meta[id as usize];
            m.refresh = false;
            if m.state != State::Live {
                continue;
            }
            if !self.oversized.is_empty() || m.oversized {
                self.check_oversized.push(id);
            }
            for i in 0..self.proxies[id as usize].slots.len() {
                let r = self.proxies[id as usize].slots[i].region as usize;
                for j in 0..self.regions[r].axes[0].len() {
                    let e = self.regions[r].axes[0][j];
                    if !e.is_max() && e.proxy() != id {
                        self.set_pair_exact(id, e.proxy(), filter);
                    }
                }
            }
        }
        self.refresh = refresh;
        self.refresh.clear();
        for i in 0..self.refresh_pairs.len() {
            let (a, b) = pair_ids(self.refresh_pairs[i]);
            let live = |p: ProxyKey| {
                self.meta
                    .get(p as usize)
                    .is_some_and(|m| m.state == State::Live)
            };
            if live(a) && live(b) {
                self.set_pair_exact(a, b, filter);
            }
        }
        self.refresh_pairs.clear();
    }

    /// Leaves the cells outside `new`, marks the kept ones moved, enters
    /// the new ones.
    fn reslot<F: PairFilter + ?Sized>(
        &mut self,
        id: ProxyKey,
        slots: &mut SmallVec<[Slot; MAX_INLINE_CELLS]>,
        new: [Cell; 2],
        filter: &F,
    ) {
        let inside = |c: &Cell| (0..3).all(|k| new[0][k] <= c[k] && c[k] <= new[1][k]);
        let mut kept: SmallVec<[Cell; 8]> = SmallVec::new();
        let mut i = 0;
        while i < slots.len() {
            let r = slots[i].region;
            let cell = self.region_cells[r as usize];
            if inside(&cell) {
                let region = &mut self.regions[r as usize];
                region.moved.push(Moved {
                    id,
                    at: slots[i].at,
                });
                mark_dirty(&mut self.dirty, region, r);
                kept.push(cell);
                i += 1;
            } else {
                self.leave(r, id, filter);
                slots.swap_remove(i);
            }
        }
        for x in new[0][0]..=new[1][0] {
            for y in new[0][1]..=new[1][1] {
                for z in new[0][2]..=new[1][2] {
                    if !kept.contains(&[x, y, z]) {
                        slots.push(Slot::new(self.enter([x, y, z], id)));
                    }
                }
            }
        }
    }

    /// Queues `id` to enter the cell's lists at the next update; returns
    /// the cell's region (created if new).
    fn enter(&mut self, cell: Cell, id: ProxyKey) -> u32 {
        let key = cell_key(cell);
        let r = match self.region_of.get(&key) {
            Some(&r) => r,
            None => {
                let r = self.regions.len() as u32;
                self.regions.push(Region::with_capacity(CELL_CAPACITY));
                self.region_cells.push(cell);
                self.region_of.insert(key, r);
                self.occupied = Some(match self.occupied {
                    Some([lo, hi]) => [cell_min(lo, cell), cell_max(hi, cell)],
                    None => [cell, cell],
                });
                r
            }
        };
        let region = &mut self.regions[r as usize];
        region.entered.push(id);
        mark_dirty(&mut self.dirty, region, r);
        r
    }
}

/// Removes a proxy's endpoints from a cell's lists. (The cell's moved and
/// entering queues never hold it here: they are empty between updates, and
/// during placement a proxy leaving a cell was never queued in it.)
fn drop_endpoints(region: &mut Region, id: ProxyKey) {
    for list in &mut region.axes {
        list.retain(|e| e.proxy() != id);
    }
}
