//! Branch and bound over two trees, shared by the distance search
//! ([`super::distance`]) and the time-of-impact search ([`super::cast`]).
//!
//! Each node pair carries a lower bound on what anything under it can give
//! (a distance, a time); a pair whose bound is above the best found so far
//! is dropped. The larger box of a pair is split (a leaf never is); of the
//! two child pairs the one with the smaller bound is searched first, so a
//! good best is found early. At two leaves the search's own `leaves` runs
//! the exact test on their primitives.

use super::collide::BoxNode;
use super::tree::Bvh;

/// One node pair of a search with its bound.
#[derive(Clone, Copy, Debug)]
pub struct PendingPair {
    na: u32,
    nb: u32,
    bound: f32,
}

/// What a branch and bound computes on node pairs.
pub(crate) trait PairSearch {
    /// A lower bound on the value of anything under nodes `na` and `nb`,
    /// given `parent`, the bound of the pair they were split from (which
    /// holds for them too).
    fn bound(&mut self, na: u32, nb: u32, parent: f32) -> f32;
    /// The exact test on two leaves' primitives, given the pair's bound;
    /// updates the best.
    fn leaves(&mut self, na: u32, nb: u32, bound: f32);
    /// The best value found so far (the initial limit before any).
    fn best(&self) -> f32;
    /// Whether the search can stop now.
    fn done(&self) -> bool;
}

/// Runs `search` over the node pairs of `ta` and `tb`.
pub(crate) fn branch_and_bound<NA: BoxNode, NB: BoxNode>(
    ta: &Bvh<NA>,
    tb: &Bvh<NB>,
    search: &mut impl PairSearch,
    stack: &mut Vec<PendingPair>,
) {
    stack.clear();
    if ta.nodes.is_empty() || tb.nodes.is_empty() {
        return;
    }
    stack.push(pair(search, 0, 0, 0.0));
    while let Some(p) = stack.pop() {
        if p.bound > search.best() {
            continue;
        }
        let (la, lb) = (&ta.nodes[p.na as usize], &tb.nodes[p.nb as usize]);
        if la.is_leaf() && lb.is_leaf() {
            search.leaves(p.na, p.nb, p.bound);
            if search.done() {
                break;
            }
            continue;
        }
        let split_a = !la.is_leaf()
            && (lb.is_leaf() || volume(la.half_extents()) >= volume(lb.half_extents()));
        let (x, y) = if split_a {
            let f = la.first();
            (
                pair(search, f, p.nb, p.bound),
                pair(search, f + 1, p.nb, p.bound),
            )
        } else {
            let f = lb.first();
            (
                pair(search, p.na, f, p.bound),
                pair(search, p.na, f + 1, p.bound),
            )
        };
        // The smaller bound on top.
        let (near, far) = if x.bound <= y.bound { (x, y) } else { (y, x) };
        for q in [far, near] {
            if q.bound <= search.best() {
                stack.push(q);
            }
        }
    }
}

#[inline]
fn pair(search: &mut impl PairSearch, na: u32, nb: u32, parent: f32) -> PendingPair {
    PendingPair {
        na,
        nb,
        bound: search.bound(na, nb, parent),
    }
}

#[inline]
fn volume(h: glam::Vec3) -> f32 {
    h.x * h.y * h.z
}
