//! From-scratch paths: a full sort and sweep after many insertions, and the
//! per-proxy recomputation after a change of layers or static flag.

use super::super::PairSet;
use super::{Endpoint, PairFilter, State, SweepAndPrune, allowed, pair_ids, pair_key};

impl SweepAndPrune {
    /// Sorts all lists from scratch and recomputes the pair set by one sweep
    /// along x, then applies the difference to the pair table.
    pub(super) fn rebuild<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        self.stats.rebuilt = true;
        for &id in &self.inserted {
            self.info[id as usize].state = State::Live;
        }
        self.inserted.clear();
        for &id in &self.moved {
            self.info[id as usize].moved = false;
        }
        self.moved.clear();
        for (axis, list) in self.axes.iter_mut().enumerate() {
            list.clear();
            for (id, (aabb, info)) in self.aabbs.iter().zip(&self.info).enumerate() {
                if info.state == State::Live {
                    list.push(Endpoint::new(aabb.min[axis], id as u32, false));
                    list.push(Endpoint::new(aabb.max[axis], id as u32, true));
                }
            }
            list.sort_unstable_by(|a, b| {
                if a.before(*b) {
                    std::cmp::Ordering::Less
                } else if b.before(*a) {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            });
        }
        self.reindex();
        let found = self.sweep_x(filter);
        let found_set: PairSet = found.iter().copied().collect();
        self.table.remove_where(|k| !found_set.contains(&k));
        for key in found {
            self.table.add(key);
        }
    }

    /// All overlapping, non-static-static pairs the filter allows, by a
    /// sweep of the x list.
    fn sweep_x<F: PairFilter + ?Sized>(&mut self, filter: &F) -> Vec<u64> {
        let mut found = Vec::new();
        let mut slot = vec![u32::MAX; self.aabbs.len()];
        let active = &mut self.sweep_active;
        active.clear();
        for e in &self.axes[0] {
            let p = e.proxy();
            if e.is_max() {
                let i = slot[p as usize] as usize;
                active.swap_remove(i);
                if let Some(&moved) = active.get(i) {
                    slot[moved as usize] = i as u32;
                }
                continue;
            }
            let (box_p, static_p) = (&self.aabbs[p as usize], self.info[p as usize].is_static);
            for &q in active.iter() {
                if !(static_p && self.info[q as usize].is_static)
                    && box_p.overlaps(&self.aabbs[q as usize])
                    && filter.allows(p, q)
                {
                    found.push(pair_key(p, q));
                }
            }
            slot[p as usize] = active.len() as u32;
            active.push(p);
        }
        found
    }

    /// Recomputes the pairs of proxies whose filter answer or static flag
    /// changed, against every other live proxy, then the single pairs queued.
    pub(super) fn refresh_queued<F: PairFilter + ?Sized>(&mut self, filter: &F) {
        let refresh = std::mem::take(&mut self.refresh);
        for &id in &refresh {
            self.info[id as usize].refresh = false;
            if self.info[id as usize].state != State::Live {
                continue;
            }
            for q in 0..self.aabbs.len() as u32 {
                if q != id && self.info[q as usize].state == State::Live {
                    self.refresh_pair(id, q, filter);
                }
            }
        }
        self.refresh = refresh;
        self.refresh.clear();
        let pairs = std::mem::take(&mut self.refresh_pairs);
        for &key in &pairs {
            let (a, b) = pair_ids(key);
            let live = |p: u32| {
                self.info
                    .get(p as usize)
                    .is_some_and(|i| i.state == State::Live)
            };
            if live(a) && live(b) {
                self.refresh_pair(a, b, filter);
            }
        }
        self.refresh_pairs = pairs;
        self.refresh_pairs.clear();
    }

    fn refresh_pair<F: PairFilter + ?Sized>(&mut self, a: u32, b: u32, filter: &F) {
        let key = pair_key(a, b);
        let (ia, ib) = (&self.info[a as usize], &self.info[b as usize]);
        let pair = !(ia.is_static && ib.is_static)
            && self.aabbs[a as usize].overlaps(&self.aabbs[b as usize])
            && allowed(filter, key);
        if pair {
            self.table.add(key);
        } else {
            self.table.remove(key);
        }
    }
}
