//! SOLID's traversal of two AABB trees (van den Bergen, JGT 1997): the
//! boxes of each tree are axis-aligned in their model's frame, so the
//! relative rotation `R` of B's frame in A's and `|R| + eps` are computed
//! once per query; a node pair costs B's box center mapped into A's frame
//! (`t = R c_b + t_ab - c_a`) and the axis tests.
//!
//! A's boxes are grown by one pad per query, derived from the reaches of
//! the two root boxes (every node box lies in its tree's root box) and
//! the relative pose ([`Slack::pad`]): it covers the rounding of the
//! centers and half extents taken from the corners, of B's center mapped
//! into A's frame, of the vertices' own mapping at the leaves and of the
//! axis tests, so that no node pair whose triangles touch is separated.

use glam::{Mat3, Vec3};

use super::super::aabb_tree::AabbNode;
use super::super::obb::sat_axes;
use super::super::rounding::{Slack, reach};
use super::{CollideOptions, CollideStats, Leaves, MeshSide, SatTest, volume};
use crate::math::Pose;

/// The relative rotation of the query, its absolute value (padded), and
/// the pad of every box.
struct Relative {
    /// B's frame in A's.
    rel: Pose,
    /// `rm[i][j] = A_i · B_j`.
    rm: [[f32; 3]; 3],
    /// `|rm| + eps`.
    bf: [[f32; 3]; 3],
    eps: f32,
    /// Added to A's half extents: twice the pad (see [`Slack`]).
    grow: Vec3,
}

impl Relative {
    /// `(reach_a, reach_b)`: the reaches of the two root boxes.
    fn new(rel: Pose, eps: f32, (reach_a, reach_b): (f32, f32)) -> Self {
        let slack = Slack::new(&rel, eps);
        let eps = slack.eps;
        let rm = Mat3::from_quat(rel.rotation).transpose().to_cols_array_2d();
        let bf = rm.map(|row| row.map(|x| x.abs() + eps));
        let grow = Vec3::splat(2.0 * slack.pad(reach_a, reach_b));
        Self {
            rel,
            rm,
            bf,
            eps,
            grow,
        }
    }

    /// Whether the boxes may overlap: A's `(ca, a)` (center, half-extents)
    /// and B's `(cb, b)`, each in its own frame, A's grown by the pad;
    /// `lite` tries the face axes only. Never separates boxes whose
    /// triangles touch (see [`Slack`]).
    #[inline]
    fn overlap(&self, (ca, a): (Vec3, Vec3), (cb, b): (Vec3, Vec3), lite: bool) -> bool {
        let t = self.rel.transform_point(cb) - ca;
        sat_axes(a + self.grow, b, (&self.rm, &self.bf), t, self.eps, lite)
    }
}

/// Intersecting triangle pairs of two AABB trees.
pub(super) fn collide(
    a: &MeshSide<'_, AabbNode>,
    b: &MeshSide<'_, AabbNode>,
    options: &CollideOptions,
    stack: &mut Vec<(u32, u32)>,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    out.clear();
    let mut stats = CollideStats::default();
    if a.tree.nodes.is_empty() || b.tree.nodes.is_empty() {
        return stats;
    }
    let rel = a.pose.inverse().mul(&b.pose);
    let root_reach = |(_, c, h)| reach(c, h);
    let reaches = (root_reach(a.node_box(0)), root_reach(b.node_box(0)));
    let relative = Relative::new(rel, options.eps, reaches);
    let leaves = Leaves {
        a,
        b,
        rel,
        mode: options.mode,
    };
    let lite = options.sat == SatTest::Lite;
    stack.clear();
    stack.push((0, 0));
    while let Some((na, nb)) = stack.pop() {
        stats.box_tests += 1;
        let (la, lb) = (&a.tree.nodes[na as usize], &b.tree.nodes[nb as usize]);
        let ((_, ca, ha), (_, cb, hb)) = (a.node_box(na), b.node_box(nb));
        if !relative.overlap((ca, ha), (cb, hb), lite) {
            continue;
        }
        let descend_a = match (la.count > 0, lb.count > 0) {
            (true, true) => {
                if leaves.test((na, nb), &mut stats, out) {
                    return stats;
                }
                continue;
            }
            (false, true) => true,
            (true, false) => false,
            (false, false) => volume(ha) >= volume(hb),
        };
        if descend_a {
            stack.push((la.first + 1, nb));
            stack.push((la.first, nb));
        } else {
            stack.push((na, lb.first + 1));
            stack.push((na, lb.first));
        }
    }
    stats
}
