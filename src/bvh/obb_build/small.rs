//! The OBB build's single-triangle leaves, pairs and triples: made as
//! the splits reach them, fitted after the topology, four to a call.
//!
//! **Leaves after the topology, four at a time.** A single triangle's
//! box (its own axes: [`leaf_boxes`], no eigen-solve) depends on nothing
//! else, so single-triangle leaves are recorded as the splits make them
//! and fitted at the end, one per lane.
//!
//! **Pairs and triples the same way.** With one triangle per leaf, about
//! half of the inner nodes hold two triangles. Such a pair is split into
//! its two leaves as soon as its parent's split makes it (no keys: either
//! order holds), and its box is fitted at the end, four pairs to a call
//! ([`group_boxes`](crate::bvh::obb_leaves::group_boxes)): the summed
//! normal, and in that plane the edge direction of least rectangle area, as
//! for one triangle. A triple is split at once too, into the triangle whose
//! centroid is farthest from the three's mean and a pair, and fitted the
//! same way. No moments are summed and no eigenvalues solved for them, and
//! their boxes come out tighter than on the covariance axes. A pair's two
//! leaves and a triple's lone leaf are fitted in the same pass as their
//! parents, from the corners gathered for the parents' boxes (only the lone
//! leaves that are no pair's or triple's child wait in a list).
//!
//! Measured (2026-11-27; counts per query from the random-placement
//! table of `--bench solid`, `ICOLLIDE_BENCH_SCENES=table`, exact on any
//! machine; times the best of 100 builds of the 32k torus in the bench's
//! worker-thread loop, binaries alternated three times):
//! - pairs: box tests 4 604 → 4 575 (torus), 4 638 → 4 506 (wingnut),
//!   4 176 → 4 067 (teapot); triangle tests 665.4 → 619.5, 375.6 →
//!   355.1, 341.3 → 331.1; build 10.21 / 10.37 / 10.40 → 9.94 / 10.20 /
//!   10.06 ms;
//! - the waiting leaves and pairs keeping their node's `first` (a node
//!   is written, never read back: the read missed the cache) and their
//!   corners gathered by plain loops: 10.37 / 10.42 / 10.12 → 9.72 /
//!   9.77 / 9.20 ms;
//! - triples (the torus's 2¹⁵ triangles split into pairs only): box
//!   tests 4 388 (wingnut) and 3 907 (teapot), triangle tests 348.6 and
//!   325.2; the torus's build 8.92 / 8.87 / 9.29 → 9.12 / 9.15 / 9.25
//!   ms (the general gather's cost);
//! - not kept: the same fit done for each pair as its parent split (one
//!   pair at a time, the 15 segments between the corners as candidates,
//!   in 2-D lanes) gave the same trees but 11.8–11.9 ms against 10.2:
//!   one pair's chain of square roots and divisions does not overlap
//!   with anything, four lanes of it do. Six edges gave the same counts
//!   as the 15 segments within 0.1 %.

use glam::Vec3;

use super::{Builder, PLACEHOLDER, Pending, obb_node};
use crate::bvh::obb::Obb;
use crate::bvh::obb_leaves::leaf_boxes;
use crate::bvh::obb_tree::ObbNode;

impl Builder<'_> {
    /// The leaf node `node` over `group`, which starts at `start` in the
    /// order. A single triangle's box waits for [`Self::fit_waiting`]
    /// (the node's box is a placeholder until then).
    pub(super) fn leaf(&mut self, node: usize, group: &[u32], start: usize) -> ObbNode {
        if group.len() == 1 {
            self.waiting[0].push([node as u32, start as u32, start as u32]);
            return obb_node(PLACEHOLDER.rotation, &Obb::default(), start as u32, 1);
        }
        let (rotation, obb) = self.fit(group, Pending::Leaf);
        obb_node(rotation, &obb, start as u32, group.len() as u32)
    }

    /// Splits the pair or triple `group` (node `node`, at `start` in the
    /// order) into two leaves, or a leaf and a pair; its box and its
    /// single-triangle children's wait for [`Self::fit_waiting`] (the
    /// children are placeholders until then). A triple's leaf is the
    /// triangle whose centroid is farthest from the three's mean (moved to
    /// the front).
    pub(super) fn split_small(
        &mut self,
        node: usize,
        nodes: &mut Vec<ObbNode>,
        group: &mut [u32],
        start: usize,
    ) {
        let first = nodes.len();
        if let [a, b, c] = *group {
            let centroid = |t: u32| self.corners(t).iter().sum::<Vec3>();
            let cs = [centroid(a), centroid(b), centroid(c)];
            let mean = (cs[0] + cs[1] + cs[2]) / 3.0;
            let far = (1..3).fold(0, |f, k| {
                if cs[k].distance_squared(mean) > cs[f].distance_squared(mean) {
                    k
                } else {
                    f
                }
            });
            group.swap(0, far);
            nodes.extend([PLACEHOLDER, PLACEHOLDER]);
            self.split_small(first + 1, nodes, &mut group[1..], start + 1);
        } else {
            nodes.extend([PLACEHOLDER, PLACEHOLDER]);
        }
        nodes[node] = obb_node(PLACEHOLDER.rotation, &Obb::default(), first as u32, 0);
        self.waiting[group.len() - 1].push([node as u32, first as u32, start as u32]);
    }

    /// The boxes of the waiting nodes over `C / 3` triangles, four at a
    /// time: single triangles by [`leaf_boxes`], pairs and triples by
    /// [`group_boxes`](crate::bvh::obb_leaves::group_boxes). A node without
    /// one (zero area, no finite normal) is fitted like any group.
    pub(super) fn fit_waiting<const C: usize>(
        &mut self,
        nodes: &mut [ObbNode],
        order: &[u32],
        boxes: fn([[Vec3; C]; 4]) -> [Option<ObbNode>; 4],
    ) {
        let waiting = std::mem::take(&mut self.waiting[C / 3 - 1]);
        let group = |start: u32| &order[start as usize..start as usize + C / 3];
        let count = u32::from(C == 3);
        for batch in waiting.chunks(4) {
            // A short last batch repeats its first node.
            let mut corners = [[Vec3::ZERO; C]; 4];
            for (i, c) in corners.iter_mut().enumerate() {
                let start = batch.get(i).unwrap_or(&batch[0])[2] as usize;
                for (k, c) in c.chunks_exact_mut(3).enumerate() {
                    let [p, q, r] = self.corners(order[start + k]);
                    (c[0], c[1], c[2]) = (p, q, r);
                }
            }
            for (&[node, first, start], fitted) in batch.iter().zip(boxes(corners)) {
                nodes[node as usize] = self.placed(fitted, first, group(start), count);
            }
            if C > 3 {
                self.fit_leaf_children(nodes, order, batch, &corners);
            }
        }
    }

    /// The single-triangle children of a batch of waiting pairs (both
    /// children) or triples (the first), from the corners gathered for
    /// the parents' boxes: child `k` is node `first + k` over the triangle
    /// at `start + k` in the order, corners `3k..3k + 3`.
    fn fit_leaf_children<const C: usize>(
        &mut self,
        nodes: &mut [ObbNode],
        order: &[u32],
        batch: &[[u32; 3]],
        corners: &[[Vec3; C]; 4],
    ) {
        let per_parent = if C == 6 { 2 } else { 1 };
        for k in 0..per_parent {
            let tris = corners.map(|c| std::array::from_fn(|j| c[3 * k as usize + j]));
            for (&[_, first, start], fitted) in batch.iter().zip(leaf_boxes(tris)) {
                let start = (start + k) as usize;
                let node = self.placed(fitted, start as u32, &order[start..start + 1], 1);
                nodes[(first + k) as usize] = node;
            }
        }
    }

    /// The node over `group` (`first` and `count` as the tree stores
    /// them): the box `fitted` four to a call, or, without one (zero area,
    /// no finite normal), the group fitted the general way.
    fn placed(
        &mut self,
        fitted: Option<ObbNode>,
        first: u32,
        group: &[u32],
        count: u32,
    ) -> ObbNode {
        match fitted {
            Some(fitted) => ObbNode { first, ..fitted },
            None => {
                let (rotation, obb) = self.fit(group, Pending::Leaf);
                obb_node(rotation, &obb, first, count)
            }
        }
    }
}
