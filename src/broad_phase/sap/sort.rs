//! Incremental insertion sort: sifting moved and new endpoints into place,
//! toggling pairs on min/max swaps; compaction of removed proxies.

use super::{
    Endpoint, PairFilter, PairTable, ProxyInfo, State, SweepAndPrune, allowed, pair_ids, pair_key,
};
use crate::broad_phase::ProxyKey;
use crate::math::Aabb;

/// Whether `e` must go left of `left` ([`Endpoint::before`] without
/// branches).
#[inline(always)]
fn out_of_order(e: Endpoint, left: Endpoint) -> bool {
    (e.value < left.value) | ((e.value == left.value) & !e.is_max() & left.is_max())
}

/// Which proxies are static (static proxies never pair with each other).
pub(in crate::broad_phase) trait StaticFlags {
    /// Whether proxy `p` is static.
    fn is_static(&self, p: ProxyKey) -> bool;
}

impl StaticFlags for [bool] {
    #[inline]
    fn is_static(&self, p: ProxyKey) -> bool {
        self[p as usize]
    }
}

impl StaticFlags for [ProxyInfo] {
    #[inline]
    fn is_static(&self, p: ProxyKey) -> bool {
        self[p as usize].is_static
    }
}

/// What a swap needs to know and may change: the proxies' current boxes
/// (indexed by the keys in the endpoints), their static flags, the pair
/// table and the caller's filter. The single sweep and prune also keeps
/// each endpoint's position up to date (`positions`); the grid's cells,
/// which find endpoints from position hints, pass none.
pub(in crate::broad_phase) struct SwapCtx<'a, F: ?Sized, S: ?Sized> {
    pub aabbs: &'a [Aabb],
    pub statics: &'a S,
    pub table: &'a mut PairTable,
    pub positions: Option<&'a mut [[u32; 6]]>,
    pub filter: &'a F,
}

impl<F: PairFilter + ?Sized, S: StaticFlags + ?Sized> SwapCtx<'_, F, S> {
    /// Endpoint `e` moved past `o` (leftwards when `moving_left`). Inlined
    /// into the sorts: most swaps change nothing (two mins, two maxes, boxes
    /// apart on another axis, proxies without pairs), and those that do are
    /// out of line.
    #[inline(always)]
    fn crossed(&mut self, e: Endpoint, o: Endpoint, moving_left: bool) {
        if e.is_max() == o.is_max() || e.proxy() == o.proxy() {
            return;
        }
        let (a, b) = (e.proxy(), o.proxy());
        // A min moving left past a max, or a max moving right past a min,
        // sets this axis's flag; the opposite swaps clear it.
        if moving_left != e.is_max() {
            if self.aabbs[a as usize].overlaps(&self.aabbs[b as usize]) {
                self.start(a, b);
            }
        } else if self.table.has_pairs(a) && self.table.has_pairs(b) {
            self.end(a, b);
        }
    }

    /// The boxes of `a` and `b` overlap: store the pair if it may pair.
    #[cold]
    #[inline(never)]
    pub fn start(&mut self, a: ProxyKey, b: ProxyKey) {
        let key = pair_key(a, b);
        let both_static = self.statics.is_static(a) && self.statics.is_static(b);
        if !both_static && allowed(self.filter, key) {
            self.table.add(key);
        }
    }

    /// The boxes of `a` and `b` stopped overlapping on an axis.
    #[cold]
    #[inline(never)]
    fn end(&mut self, a: ProxyKey, b: ProxyKey) {
        self.table.remove(pair_key(a, b));
    }

    /// [`insertion_sort`](Self::insertion_sort) after setting every
    /// endpoint of `list`, the list of `axis`, to its proxy's current box.
    /// (One pass for the values, then the sort: refreshing inside the
    /// sort's marking pass was tried and was slower.)
    pub fn refresh_and_sort(
        &mut self,
        list: &mut [Endpoint],
        axis: usize,
        budget: u64,
    ) -> Option<u64> {
        for e in list.iter_mut() {
            let b = &self.aabbs[e.proxy() as usize];
            e.value = if e.is_max() { b.max[axis] } else { b.min[axis] };
        }
        self.insertion_sort(list, budget)
    }

    /// Sorts a whole list by insertion, toggling pairs on each swap (no
    /// positions are maintained); returns the number of swaps, or `None`
    /// (the list left unsorted) once they exceed `budget`.
    ///
    /// A nearly sorted list has most endpoints already in place, and a
    /// branch per endpoint asking so mispredicts at every one that is not.
    /// So the endpoints out of order with their left neighbour are marked
    /// 64 at a time without branches, and only those are inserted. (Each
    /// insertion changes only its own position and those left of it: the
    /// next endpoint is asked again; a block's marks are taken once the
    /// blocks left of it are sorted.) `--bench broad_phase`, 10 000 bodies
    /// all moving, grid over parry's BVH: 1.75× its time before the lean
    /// cells and this sort, 1.33× after (docs/notes/EXPERIMENTS.md#grid-alone).
    pub fn insertion_sort(&mut self, list: &mut [Endpoint], budget: u64) -> Option<u64> {
        let mut swaps = 0;
        let mut base = 1;
        while base < list.len() {
            let end = (base + 64).min(list.len());
            let mut marks = (base..end).fold(0u64, |m, k| {
                m | (u64::from(out_of_order(list[k], list[k - 1])) << (k - base))
            });
            while marks != 0 {
                if swaps > budget {
                    return None;
                }
                let k = base + marks.trailing_zeros() as usize;
                marks &= marks - 1;
                let j = self.insert(list, k);
                swaps += (k - j) as u64;
                let next = k + 1;
                if next < end {
                    let bit = 1u64 << (next - base);
                    marks &= !bit;
                    if list[next].before(list[k]) {
                        marks |= bit;
                    }
                }
            }
            base = end;
        }
        Some(swaps)
    }

    /// Moves the endpoint at `i` left to its place in the sorted `list[..i]`;
    /// returns where it landed.
    #[inline(always)]
    fn insert(&mut self, list: &mut [Endpoint], i: usize) -> usize {
        let e = list[i];
        let mut j = i;
        while j > 0 && e.before(list[j - 1]) {
            self.crossed(e, list[j - 1], true);
            list[j] = list[j - 1];
            j -= 1;
        }
        list[j] = e;
        j
    }

    /// Moves the endpoint at `i` of `list` to its sorted place (keeping
    /// the positions, if any); returns the number of swaps.
    pub fn sift(&mut self, list: &mut [Endpoint], axis: usize, i: usize) -> u64 {
        i.abs_diff(self.sift_to(list, axis, i)) as u64
    }

    /// [`sift`](Self::sift), returning where the endpoint ended.
    pub fn sift_to(&mut self, list: &mut [Endpoint], axis: usize, mut i: usize) -> usize {
        let e = list[i];
        while i > 0 && e.before(list[i - 1]) {
            let o = list[i - 1];
            self.crossed(e, o, true);
            list[i] = o;
            self.record(o, axis, i);
            i -= 1;
        }
        while i + 1 < list.len() && list[i + 1].before(e) {
            let o = list[i + 1];
            self.crossed(e, o, false);
            list[i] = o;
            self.record(o, axis, i);
            i += 1;
        }
        list[i] = e;
        self.record(e, axis, i);
        i
    }

    /// The recorded position of slot `slot` of proxy `id` (0 without positions).
    #[inline]
    fn position(&self, id: ProxyKey, slot: usize) -> usize {
        self.positions
            .as_deref()
            .map_or(0, |p| p[id as usize][slot] as usize)
    }

    #[inline]
    fn record(&mut self, e: Endpoint, axis: usize, i: usize) {
        if let Some(positions) = self.positions.as_deref_mut() {
            positions[e.proxy() as usize][e.slot(axis)] = i as u32;
        }
    }
}

impl SweepAndPrune {
    fn ctx<'a, F: PairFilter + ?Sized>(
        &'a mut self,
        filter: &'a F,
    ) -> (
        SwapCtx<'a, F, [ProxyInfo]>,
        &'a mut [Vec<Endpoint>; 3],
        &'a mut super::BroadPhaseStats,
    ) {
        (
            SwapCtx {
                aabbs: &self.aabbs,
                statics: self.info.as_slice(),
                table: &mut self.table,
                positions: Some(&mut self.positions),
                filter,
            },
            &mut self.axes,
            &mut self.stats,
        )
    }

    /// When most proxies moved: refresh every endpoint value from the boxes
    /// (one sequential pass per list) and restore the order with a plain
    /// insertion sort (I-COLLIDE's formulation). New proxies are appended
    /// first and sorted in with the rest. Positions are recomputed lazily.
    /// Returns `false`, the lists unsorted, once the swaps exceed `budget`.
    pub(super) fn resort_all<F: PairFilter + ?Sized>(&mut self, filter: &F, budget: u64) -> bool {
        for &id in &self.moved {
            self.info[id as usize].moved = false;
        }
        self.stats.moved = self.moved.len() as u32;
        self.moved.clear();
        for &id in &self.inserted {
            let info = &mut self.info[id as usize];
            info.state = State::Live;
            info.moved = false;
            for list in &mut self.axes {
                list.push(Endpoint::new(0.0, id, false));
                list.push(Endpoint::new(0.0, id, true));
            }
        }
        self.inserted.clear();
        self.positions_valid = false;
        let (mut ctx, axes, stats) = self.ctx(filter);
        for (axis, list) in axes.iter_mut().enumerate() {
            let left = budget.saturating_sub(stats.swaps.iter().sum());
            match ctx.refresh_and_sort(list, axis, left) {
                Some(swaps) => stats.swaps[axis] += swaps,
                None => return false,
            }
        }
        true
    }

    /// Sifts the endpoints of every moved live proxy, one proxy at a time so
    /// the lists are sorted after each. Returns `false`, the rest of the
    /// moved proxies left out of place, once the swaps exceed `budget`.
    pub(super) fn sift_moved<F: PairFilter + ?Sized>(&mut self, filter: &F, budget: u64) -> bool {
        let moved = std::mem::take(&mut self.moved);
        let mut within = true;
        for &id in &moved {
            let info = &mut self.info[id as usize];
            if !within {
                info.moved = false;
                continue;
            }
            info.moved = false;
            if info.state != State::Live {
                continue;
            }
            self.stats.moved += 1;
            let aabb = self.aabbs[id as usize];
            let (mut ctx, axes, stats) = self.ctx(filter);
            for (axis, list) in axes.iter_mut().enumerate() {
                let slots = [axis * 2, axis * 2 + 1];
                let new = [aabb.min[axis], aabb.max[axis]];
                let old_min = list[ctx.position(id, slots[0])].value;
                // Moving left: min first; otherwise max first. The other end
                // keeps its old value while the first one sifts.
                let order = if new[0] < old_min { [0, 1] } else { [1, 0] };
                for end in order {
                    let pos = ctx.position(id, slots[end]);
                    list[pos].value = new[end];
                    stats.swaps[axis] += ctx.sift(list, axis, pos);
                }
            }
            within = self.stats.swaps.iter().sum::<u64>() <= budget;
        }
        self.moved = moved;
        self.moved.clear();
        within
    }

    /// Appends and sifts the endpoints of newly inserted proxies. Returns
    /// `false`, the rest left pending, once the swaps exceed `budget`.
    pub(super) fn sift_inserted<F: PairFilter + ?Sized>(
        &mut self,
        filter: &F,
        budget: u64,
    ) -> bool {
        let mut inserted = std::mem::take(&mut self.inserted);
        for (done, &id) in inserted.iter().enumerate() {
            if self.stats.swaps.iter().sum::<u64>() > budget {
                inserted.drain(..done);
                self.inserted = inserted;
                return false;
            }
            let info = &mut self.info[id as usize];
            info.state = State::Live;
            info.moved = false;
            let aabb = self.aabbs[id as usize];
            let (mut ctx, axes, stats) = self.ctx(filter);
            for (axis, list) in axes.iter_mut().enumerate() {
                for (is_max, value) in [(false, aabb.min[axis]), (true, aabb.max[axis])] {
                    let pos = list.len();
                    list.push(Endpoint::new(value, id, is_max));
                    ctx.record(list[pos], axis, pos);
                }
                // Both ends arrive from the right: min first.
                let n = list.len();
                stats.swaps[axis] += ctx.sift(list, axis, n - 2);
                let pos = ctx.position(id, axis * 2 + 1);
                stats.swaps[axis] += ctx.sift(list, axis, pos);
            }
        }
        self.inserted = inserted;
        self.inserted.clear();
        true
    }

    /// Drops removed proxies' endpoints and pairs, and frees their keys.
    pub(super) fn compact_removed(&mut self) {
        if self.removed.is_empty() {
            return;
        }
        let info = &self.info;
        let dead = |p: u32| info[p as usize].state == State::Dead;
        for list in &mut self.axes {
            list.retain(|e| !dead(e.proxy()));
        }
        self.table.remove_where(|k| {
            let (a, b) = pair_ids(k);
            dead(a) || dead(b)
        });
        self.reindex();
        for &id in &self.removed {
            self.info[id as usize].state = State::Free;
        }
        self.removed.clear();
    }

    /// Recomputes every endpoint's position from the lists if a full
    /// re-sort left them stale.
    pub(super) fn ensure_positions(&mut self) {
        if !self.positions_valid {
            self.reindex();
        }
    }

    /// Recomputes every endpoint's position from the lists.
    pub(super) fn reindex(&mut self) {
        self.positions_valid = true;
        for (axis, list) in self.axes.iter().enumerate() {
            for (i, e) in list.iter().enumerate() {
                self.positions[e.proxy() as usize][e.slot(axis)] = i as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Endpoint, PairTable, SwapCtx};
    use crate::broad_phase::AllowAll;
    use crate::math::Aabb;
    use crate::testkit::Rng;
    use glam::Vec3;

    /// Pairs `(i, j)`, `i < j`, with `list[j]` before `list[i]`: what a
    /// plain insertion sort swaps.
    fn inversions(list: &[Endpoint]) -> u64 {
        let mut n = 0;
        for i in 0..list.len() {
            for j in i + 1..list.len() {
                n += u64::from(list[j].before(list[i]));
            }
        }
        n
    }

    #[test]
    fn marked_insertion_sort_swaps_each_inversion_once() {
        let mut rng = Rng::new(5);
        for round in 0..300 {
            let n = 1 + rng.below(300);
            // Values on a coarse grid (many ties), nearly sorted: each
            // endpoint displaced by a few places at most, some far.
            let mut list: Vec<Endpoint> = (0..n)
                .map(|i| {
                    let v = (i / 3) as f32 + (rng.below(7) as f32 - 3.0);
                    Endpoint::new(v, i as u32, rng.below(2) == 1)
                })
                .collect();
            if round % 10 == 0 {
                let (a, b) = (rng.below(n), rng.below(n));
                list.swap(a, b);
            }
            let want = inversions(&list);
            // Boxes far apart: no crossing stores a pair.
            let aabbs: Vec<Aabb> = (0..n)
                .map(|i| Aabb::from_center_half_extents(Vec3::X * 10.0 * i as f32, Vec3::ONE))
                .collect();
            let statics = vec![false; n];
            let mut table = PairTable::default();
            let mut ctx = SwapCtx {
                aabbs: &aabbs,
                statics: statics.as_slice(),
                table: &mut table,
                positions: None,
                filter: &AllowAll,
            };
            let swaps = ctx.insertion_sort(&mut list, u64::MAX);
            assert_eq!(swaps, Some(want), "round {round}");
            assert!(list.windows(2).all(|w| !w[1].before(w[0])), "round {round}");
            let mut again: Vec<Endpoint> = list.iter().rev().copied().collect();
            if inversions(&again) > 1 && again[1].before(again[0]) {
                // Over a budget of 0 after the first insertion.
                assert_eq!(ctx.insertion_sort(&mut again, 0), None, "budget");
            }
        }
    }
}
