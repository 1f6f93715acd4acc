//! A cell's update: its moved proxies brought to their places in its three
//! lists by insertion sort, every crossing deciding a pair in the grid's
//! one table, then its entering proxies inserted by binary search with
//! their pairs found by one overlap scan; a from-scratch sort and sweep
//! when that would cost more.
//!
//! The cells' endpoints carry the caller's keys, and a crossing reads the
//! proxies' current boxes from the grid's one array, so a cell is nothing
//! but its lists: no per-cell boxes, ids or pair tables. A moved proxy's
//! endpoints are found by galloping from its position hints to the values
//! of its previous box (`listed`), which the lists hold until the update
//! ends. The paths and
//! their thresholds are those of the single sweep and prune
//! ([`SweepAndPrune`](crate::broad_phase::SweepAndPrune)): a whole-list
//! re-sort when a third of the cell moved, per-proxy sifts otherwise, a
//! from-scratch sort and sweep over the swap budget or for many arrivals.

use super::{GridSweepAndPrune, Moved, PairFilter, Proxy, ProxyKey, Region, pair_ids};
use crate::broad_phase::sap::{
    Boxes, Endpoint, REBUILD_MIN_INSERTS, RESORT_FRACTION, SHUFFLED_UPDATES, SwapCtx, swap_budget,
    sweep_x,
};
use crate::math::Aabb;
use crate::math::prefetch::{LINE, prefetch_slice, prefetch_value};
use glam::Vec3A;

/// How many dirty cells ahead [`GridSweepAndPrune::hint_region`] runs.
const CELLS_READ_AHEAD: usize = 2;

/// How many endpoints past a moved proxy's hint `hint_crossings` hints.
const CROSSINGS_READ_AHEAD: usize = 4;

/// What a cell's update reads and writes outside the cell: the swaps'
/// context (current boxes, static flags, the pair table, the filter), the
/// boxes the lists hold, the proxies (their slots keep position hints) and
/// the swaps so far against the budget.
struct CellCtx<'a, F: ?Sized> {
    swap: SwapCtx<'a, F, [bool]>,
    listed: &'a [Aabb],
    proxies: &'a mut [Proxy],
    region: u32,
    budget: u64,
    swaps: [u64; 3],
    merge: &'a mut MergeScratch,
}

/// Buffers of the entering proxies' merge, kept by the grid for their
/// memory.
#[derive(Default)]
pub(super) struct MergeScratch {
    /// One axis's entering endpoints: sort key, `2 · index in entered +
    /// is_max`, the endpoint.
    ends: Vec<(u64, u32, Endpoint)>,
    /// Each entering proxy's endpoints' positions, `[x_min, x_max, y_min, ...]`.
    at: Vec<[u32; 6]>,
}

impl<F: ?Sized> CellCtx<'_, F> {
    fn over_budget(&self) -> bool {
        self.swaps.iter().sum::<u64>() > self.budget
    }

    /// `id`'s position hints in this cell.
    fn hints(&mut self, id: ProxyKey) -> Option<&mut [u16; 6]> {
        let r = self.region;
        self.proxies[id as usize]
            .slots
            .iter_mut()
            .find(|s| s.region == r)
            .map(|s| &mut s.at)
    }
}

impl GridSweepAndPrune {
    /// Updates every touched cell.
    pub(super) fn update_regions<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        for i in 0..self.dirty.len() {
            if let Some(&far) = self.dirty.get(i + 2 * CELLS_READ_AHEAD) {
                let region = &self.regions[far as usize];
                prefetch_slice(&region.moved, 2 * LINE);
            }
            if let Some(&ahead) = self.dirty.get(i + CELLS_READ_AHEAD) {
                self.hint_region(ahead as usize);
            }
            if let Some(&next) = self.dirty.get(i + 1) {
                self.hint_crossings(next as usize);
            }
            let r = self.dirty[i] as usize;
            let region = &mut self.regions[r];
            region.dirty = false;
            let mut ctx = CellCtx {
                swap: SwapCtx {
                    aabbs: &self.boxes,
                    statics: self.statics.as_slice(),
                    table: &mut self.table,
                    positions: None,
                    filter,
                },
                listed: &self.listed,
                proxies: &mut self.proxies,
                region: r as u32,
                budget: 0,
                swaps: [0; 3],
                merge: &mut self.merge,
            };
            let done = update_incrementally(region, &mut ctx);
            for (total, s) in self.stats.swaps.iter_mut().zip(ctx.swaps) {
                *total += s;
            }
            if !done {
                self.rebuild_region(r, filter);
            }
            let region = &mut self.regions[r];
            region.moved.clear();
            region.entered.clear();
        }
        self.dirty.clear();
    }

    /// Hints what the update of region `r` reads first and the cache no
    /// longer holds at 50 000 bodies: each moved proxy's endpoints at its
    /// position hints, its two boxes and its slots (the cells are visited
    /// in no spatial order; docs/notes/EXPERIMENTS.md#bp50k).
    fn hint_region(&self, r: usize) {
        let region = &self.regions[r];
        if !region.sifts() {
            // A re-sort reads its lists in order: the hardware follows.
            return;
        }
        for m in &region.moved {
            for (k, &at) in m.at.iter().enumerate() {
                let list = &region.axes[k / 2];
                prefetch_slice(list.get(at as usize..).unwrap_or(&[]), LINE);
            }
            let id = m.id as usize;
            prefetch_value(&self.listed[id], LINE);
            prefetch_value(&self.boxes[id], LINE);
            prefetch_value(&self.proxies[id], 2 * LINE);
        }
    }

    /// Hints the boxes a moved proxy's sifts in region `r` are likely to
    /// read: on each axis, those of the few proxies next to its position
    /// hint on the side it moved to, past which its leading endpoint may
    /// start a pair (the hints are only roughly right by now).
    fn hint_crossings(&self, r: usize) {
        let region = &self.regions[r];
        if !region.sifts() {
            return;
        }
        for m in &region.moved {
            let id = m.id as usize;
            let (old, new) = (&self.listed[id], &self.boxes[id]);
            for (axis, list) in region.axes.iter().enumerate() {
                let leading = if new.min[axis] < old.min[axis] {
                    left_of(list, usize::from(m.at[2 * axis]))
                } else {
                    right_of(list, usize::from(m.at[2 * axis + 1]))
                };
                for e in leading {
                    prefetch_value(&self.boxes[e.proxy() as usize], LINE);
                }
            }
        }
    }

    /// Sorts a cell's lists from scratch and finds its pairs by one sweep:
    /// every pair of the cell's proxies is then decided (found: stored;
    /// not found: their boxes do not overlap, or may not pair).
    fn rebuild_region<F: PairFilter + ?Sized>(&mut self, r: usize, filter: &F) {
        self.stats.rebuilt = true;
        self.sweeps = self.sweeps.wrapping_add(1).max(1);
        let now = self.sweeps;
        let region = &mut self.regions[r];
        // The cell's proxies: those in the lists and those entering.
        let keys = &mut self.sweep_keys;
        keys.clear();
        keys.extend(region.keys());
        keys.append(&mut region.entered);
        region.moved.clear();
        for (axis, list) in region.axes.iter_mut().enumerate() {
            list.clear();
            for &id in keys.iter() {
                let b = &self.boxes[id as usize];
                list.push(Endpoint::new(b.min[axis], id, false));
                list.push(Endpoint::new(b.max[axis], id, true));
            }
            list.sort_unstable_by_key(|e| e.sort_key());
        }
        for &id in keys.iter() {
            self.swept[id as usize] = now;
        }
        let boxes = Boxes {
            aabbs: &self.boxes,
            statics: self.statics.as_slice(),
        };
        self.stats.sweep_tests += sweep_x(&region.axes[0], boxes, filter, &mut self.sweep);
        let (found, swept) = (&self.sweep.found, &self.swept);
        self.table.remove_where(|k| {
            let (a, b) = pair_ids(k);
            swept[a as usize] == now && swept[b as usize] == now && found.binary_search(&k).is_err()
        });
        for &key in found {
            self.table.add(key);
        }
    }
}

impl Region {
    /// Whether the cell's update sifts its moved proxies one by one (fewer
    /// than a third of its proxies moved), rather than re-sorting whole.
    fn sifts(&self) -> bool {
        self.moved.len() * RESORT_FRACTION < self.len()
    }
}

/// Brings the cell's moved proxies to their places in its lists by
/// insertion sort, then inserts the entering ones; `false` when a sort
/// from scratch should do it instead (many arrivals, or swaps over the
/// budget: the lists are then left with every proxy once, in the lists or
/// still entering, unsorted).
fn update_incrementally<F: PairFilter + ?Sized>(
    region: &mut Region,
    ctx: &mut CellCtx<'_, F>,
) -> bool {
    let n = region.len();
    let entering = region.entered.len();
    if entering >= REBUILD_MIN_INSERTS && entering * 16 >= n + entering {
        return false;
    }
    ctx.budget = swap_budget(n + entering);
    let resort = !region.sifts();
    let sorted = if resort && region.shuffled > 0 {
        // The last re-sorts ran over budget: from scratch for a while.
        region.shuffled -= 1;
        false
    } else if resort {
        let sorted = resort_all(region, ctx);
        if !sorted {
            region.shuffled = SHUFFLED_UPDATES;
        }
        sorted
    } else {
        sift_moved(region, ctx)
    };
    if sorted {
        insert_entered(region, ctx);
    }
    sorted
}

/// Refreshes every endpoint from the current boxes (one pass per list)
/// and insertion-sorts each list whole; `false` once the swaps exceed the
/// budget. (Position hints go stale.)
fn resort_all<F: PairFilter + ?Sized>(region: &mut Region, ctx: &mut CellCtx<'_, F>) -> bool {
    for (axis, list) in region.axes.iter_mut().enumerate() {
        let left = ctx.budget.saturating_sub(ctx.swaps.iter().sum());
        match ctx.swap.refresh_and_sort(list, axis, left) {
            Some(s) => ctx.swaps[axis] += s,
            None => return false,
        }
    }
    true
}

/// Sifts each moved proxy's endpoints to their new values, one proxy at a
/// time (the lists sorted after each): on each axis the min first when
/// the box moved left, the max first otherwise. `false` once the swaps
/// exceed the budget.
fn sift_moved<F: PairFilter + ?Sized>(region: &mut Region, ctx: &mut CellCtx<'_, F>) -> bool {
    for &Moved { id, mut at } in &region.moved {
        let (old, new) = (ctx.listed[id as usize], ctx.swap.aabbs[id as usize]);
        for (axis, list) in region.axes.iter_mut().enumerate() {
            let ends = [
                (false, old.min[axis], new.min[axis]),
                (true, old.max[axis], new.max[axis]),
            ];
            let order = if new.min[axis] < old.min[axis] {
                [0, 1]
            } else {
                [1, 0]
            };
            for end in order {
                let (is_max, from, to) = ends[end];
                let k = 2 * axis + end;
                let Some(pos) = find(list, id, is_max, from, at[k] as usize) else {
                    // Not where its box says: sort from scratch.
                    return false;
                };
                list[pos].value = to;
                let to_pos = ctx.swap.sift_to(list, axis, pos);
                ctx.swaps[axis] += pos.abs_diff(to_pos) as u64;
                at[k] = hint(to_pos);
            }
        }
        if let Some(hints) = ctx.hints(id) {
            *hints = at;
        }
        if ctx.over_budget() {
            return false;
        }
    }
    true
}

/// Brings the entering proxies into the lists, which hold every other
/// proxy of the cell at its current box by now: on each axis their
/// endpoints are sorted and merged into the list in one backward pass
/// (each lands where inserting the proxies one by one, each endpoint after
/// every endpoint it does not come before, would put it), then each
/// proxy's pairs are the proxies of the cell whose current boxes overlap
/// its own, found by one scan (see [`scan_overlaps`]).
///
/// A merge because under churn several proxies enter each cell every
/// update: one pass per list costs less than a binary search and a shift
/// of the list's tail per endpoint, over lists mostly not in the cache.
/// The pairs added are every overlapping pair with an entering proxy,
/// which a sifted min would also cross: the table after the update, and
/// the changes drained from it, are those of sifting the proxies in.
fn insert_entered<F: PairFilter + ?Sized>(region: &mut Region, ctx: &mut CellCtx<'_, F>) {
    let Region { axes, entered, .. } = region;
    if entered.is_empty() {
        return;
    }
    let MergeScratch { ends, at } = &mut *ctx.merge;
    at.clear();
    at.resize(entered.len(), [0; 6]);
    for (axis, list) in axes.iter_mut().enumerate() {
        ends.clear();
        for (i, &id) in (0u32..).zip(entered.iter()) {
            let b = &ctx.swap.aabbs[id as usize];
            for (k, e) in [
                Endpoint::new(b.min[axis], id, false),
                Endpoint::new(b.max[axis], id, true),
            ]
            .into_iter()
            .enumerate()
            {
                ends.push((e.sort_key(), 2 * i + k as u32, e));
            }
        }
        // By value, min before max, then in the order of `entered`: where
        // one-by-one insertion puts endpoints that tie.
        ends.sort_unstable_by_key(|&(key, seq, _)| (key, seq));
        merge_into(list, ends, |seq, pos| {
            at[(seq / 2) as usize][2 * axis + (seq % 2) as usize] = pos as u32;
        });
    }
    for (i, &id) in entered.iter().enumerate() {
        let at = ctx.merge.at[i];
        scan_overlaps(axes, id, at, &mut ctx.swap);
        if let Some(hints) = ctx.hints(id) {
            *hints = at.map(|p| hint(p as usize));
        }
    }
    entered.clear();
}

/// Merges `ends` (sorted) into the sorted `list` from the back: an entering
/// endpoint goes after every endpoint it does not come before. Tells
/// `placed` where each one lands (by its sequence number).
fn merge_into(
    list: &mut Vec<Endpoint>,
    ends: &[(u64, u32, Endpoint)],
    mut placed: impl FnMut(u32, usize),
) {
    let mut r = list.len();
    list.resize(r + ends.len(), Endpoint::new(0.0, 0, false));
    let mut w = list.len();
    for &(_, seq, e) in ends.iter().rev() {
        while r > 0 && e.before(list[r - 1]) {
            r -= 1;
            w -= 1;
            list[w] = list[r];
        }
        w -= 1;
        list[w] = e;
        placed(seq, w);
    }
}

/// Starts `id`'s pair with each proxy of the cell whose box overlaps its
/// own, `at` being `id`'s endpoints' positions in the lists. A proxy
/// overlapping it has, on every axis, its min before `id`'s max and its
/// max after `id`'s min: the scan reads the shortest of those six
/// stretches (the part of a list before `id`'s max, for mins, or after its
/// min, for maxes), about a third of a list on average. Without branches
/// but the rare hit: which endpoints count, and which boxes overlap, follow no
/// pattern.
fn scan_overlaps<F: PairFilter + ?Sized>(
    axes: &[Vec<Endpoint>; 3],
    id: ProxyKey,
    at: [u32; 6],
    swap: &mut SwapCtx<'_, F, [bool]>,
) {
    let mut best = (usize::MAX, 0, false);
    for (axis, list) in axes.iter().enumerate() {
        let before_max = at[2 * axis + 1] as usize;
        let after_min = list.len() - at[2 * axis] as usize - 1;
        if before_max < best.0 {
            best = (before_max, axis, false);
        }
        if after_min < best.0 {
            best = (after_min, axis, true);
        }
    }
    let (_, axis, maxes) = best;
    let list = &axes[axis];
    let stretch = if maxes {
        &list[at[2 * axis] as usize + 1..]
    } else {
        &list[..at[2 * axis + 1] as usize]
    };
    let b = &swap.aabbs[id as usize];
    let (b_min, b_max) = (Vec3A::from(b.min), Vec3A::from(b.max));
    for &e in stretch {
        let q = e.proxy();
        let o = &swap.aabbs[q as usize];
        let overlap = (b_min.cmple(Vec3A::from(o.max)) & Vec3A::from(o.min).cmple(b_max)).all();
        if overlap & (e.is_max() == maxes) & (q != id) {
            swap.start(id, q);
        }
    }
}

/// The few endpoints just left of position `at` (clamped to the list).
fn left_of(list: &[Endpoint], at: usize) -> &[Endpoint] {
    let at = at.min(list.len());
    &list[at.saturating_sub(CROSSINGS_READ_AHEAD)..at]
}

/// The few endpoints just right of position `at`.
fn right_of(list: &[Endpoint], at: usize) -> &[Endpoint] {
    let from = (at + 1).min(list.len());
    &list[from..(from + CROSSINGS_READ_AHEAD).min(list.len())]
}

/// A position as a hint (a list longer than `u16::MAX` gets the last one:
/// the search gallops from there).
fn hint(pos: usize) -> u16 {
    pos.min(usize::from(u16::MAX)) as u16
}

/// The position of `id`'s min or max endpoint, at `value`, in a sorted
/// list: galloping from `hint` to the stretch of endpoints at `value`
/// (O(log d) for a hint d places off), then along it.
fn find(list: &[Endpoint], id: ProxyKey, is_max: bool, value: f32, hint: usize) -> Option<usize> {
    let len = list.len();
    let left_of = |i: usize| list[i].value < value;
    let h = hint.min(len.checked_sub(1)?);
    // The first index whose value is not below `value` lies in (lo, hi].
    let (mut lo, mut hi) = if left_of(h) {
        let mut step = 1;
        let mut lo = h;
        loop {
            let next = h + step;
            if next >= len || !left_of(next) {
                break (lo, next.min(len));
            }
            lo = next;
            step *= 2;
        }
    } else {
        let mut step = 1;
        let mut hi = h;
        loop {
            if step > h {
                break (usize::MAX, hi);
            }
            let next = h - step;
            if left_of(next) {
                break (next, hi);
            }
            hi = next;
            step *= 2;
        }
    };
    // Binary search in (lo, hi]: `lo` is left of the value (or none is).
    while lo.wrapping_add(1) < hi {
        let mid = lo.wrapping_add(1) + (hi - lo.wrapping_add(1)) / 2;
        if left_of(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let from = hi;
    list[from..]
        .iter()
        .take_while(|e| e.value == value)
        .position(|e| e.proxy() == id && e.is_max() == is_max)
        .map(|i| from + i)
}
