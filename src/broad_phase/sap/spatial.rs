//! Queries on the sorted lists, the invariant check, and the
//! [`BroadPhase`] interface.

use glam::Vec3;

use super::super::{
    BroadPhaseError, BroadPhaseStats, InvariantError, PairChanges, PairFilter, PairKey, ProxyKey,
    delegate_broad_phase, ray_box, ray_is_valid,
};
use super::{Endpoint, State, SweepAndPrune};
use crate::math::Aabb;

impl SweepAndPrune {
    /// Calls `visit` once for each proxy whose latest box overlaps `aabb`:
    /// a binary search in the sorted x list, the shorter side scanned, and
    /// the proxies whose endpoints are not in the lists with their latest
    /// box (inserted or moved since the last update) tested directly.
    pub fn query_aabb(&self, aabb: &Aabb, mut visit: impl FnMut(ProxyKey)) {
        if !aabb.min.cmple(aabb.max).all() {
            return;
        }
        for &id in self.inserted.iter().chain(&self.moved) {
            if self.aabbs[id as usize].overlaps(aabb) {
                visit(id);
            }
        }
        for id in x_candidates(&self.axes[0], aabb.min.x, aabb.max.x) {
            let info = &self.info[id as usize];
            if info.state == State::Live && !info.moved && self.aabbs[id as usize].overlaps(aabb) {
                visit(id);
            }
        }
    }

    /// Calls `visit(key, t)` for each proxy whose latest box the ray
    /// reaches within the limit `visit` returns (see
    /// [`BroadPhase::query_ray`](super::super::BroadPhase::query_ray)); every live proxy is tested.
    pub fn query_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_toi: f32,
        mut visit: impl FnMut(ProxyKey, f32) -> f32,
    ) {
        if !ray_is_valid(origin, dir, max_toi) {
            return;
        }
        let mut limit = max_toi;
        for (id, info) in self.info.iter().enumerate() {
            if matches!(info.state, State::Live | State::Pending)
                && let Some((t, _)) = ray_box(origin, dir, &self.aabbs[id], limit)
            {
                limit = visit(id as ProxyKey, t);
            }
        }
    }

    /// Checks, after an update with `filter`: every list sorted and holding
    /// each live proxy's two endpoints at its box's values; the recorded
    /// positions; the pair table equal to the overlapping, non-static pairs
    /// the filter allows.
    pub fn validate<F: PairFilter + ?Sized>(&self, filter: &F) -> Result<(), InvariantError> {
        let err = |m: String| Err(InvariantError(m));
        let live: Vec<u32> = (0..self.info.len() as u32)
            .filter(|&i| self.info[i as usize].state == State::Live)
            .collect();
        for (axis, list) in self.axes.iter().enumerate() {
            if list.len() != 2 * live.len() {
                return err(format!("axis {axis}: {} endpoints", list.len()));
            }
            if let Some(w) = list.windows(2).find(|w| w[1].before(w[0])) {
                return err(format!("axis {axis}: {:?} before {:?}", w[1], w[0]));
            }
            for (i, e) in list.iter().enumerate() {
                let b = self.aabbs[e.proxy() as usize];
                let want = if e.is_max() { b.max[axis] } else { b.min[axis] };
                if self.info[e.proxy() as usize].state != State::Live || e.value != want {
                    return err(format!("axis {axis}: stale endpoint {e:?}"));
                }
                let slot = self.positions[e.proxy() as usize][e.slot(axis)];
                if self.positions_valid && slot as usize != i {
                    return err(format!("axis {axis}: position of {e:?} is {slot}, not {i}"));
                }
            }
        }
        self.validate_pairs(&live, filter)
    }

    fn validate_pairs<F: PairFilter + ?Sized>(
        &self,
        live: &[u32],
        filter: &F,
    ) -> Result<(), InvariantError> {
        let live: Vec<_> = live
            .iter()
            .map(|&k| (k, self.aabbs[k as usize], self.info[k as usize].is_static))
            .collect();
        self.table.check_exact(&live, filter)
    }
}

/// Proxies of a sorted x list whose interval may meet `[lo, hi]`: a binary
/// search, then the shorter side (min endpoints left of `hi`, or max
/// endpoints right of `lo`).
pub(crate) fn x_candidates(xs: &[Endpoint], lo: f32, hi: f32) -> impl Iterator<Item = u32> + '_ {
    let below = xs.partition_point(|e| e.value <= hi);
    let from = xs.partition_point(|e| e.value < lo);
    let (side, want_max) = if below <= xs.len() - from {
        (&xs[..below], false)
    } else {
        (&xs[from..], true)
    };
    side.iter()
        .filter(move |e| e.is_max() == want_max)
        .map(|e| e.proxy())
}

impl SweepAndPrune {
    /// Hints nothing: [`BroadPhase::prefetch_proxy`] is for the grid's
    /// callers (the world), this one's proxies are few.
    ///
    /// [`BroadPhase::prefetch_proxy`]: crate::broad_phase::BroadPhase::prefetch_proxy
    #[inline]
    pub fn prefetch_proxy(&self, _id: ProxyKey) {}
}

delegate_broad_phase!(SweepAndPrune);
