//! SOLID's traversal of two AABB trees (van den Bergen, JGT 1997): the
//! boxes of each tree are axis-aligned in their model's frame, so the
//! relative rotation `R` of B's frame in A's and `|R| + eps` are computed
//! once per query; a node pair costs B's box center mapped into A's frame
//! (`t = R c_b + t_ab - c_a`) and the axis tests.

use glam::{Mat3, Vec3};

use super::super::aabb_tree::AabbNode;
use super::{CollideOptions, CollideStats, Leaves, MeshSide, SatTest, volume};
use crate::math::Pose;

/// The relative rotation of the query and its absolute value (padded).
struct Relative {
    /// B's frame in A's.
    rel: Pose,
    /// `rm[i][j] = A_i · B_j`.
    rm: [[f32; 3]; 3],
    /// `|rm| + eps`.
    bf: [[f32; 3]; 3],
    eps: f32,
}

impl Relative {
    fn new(rel: Pose, eps: f32) -> Self {
        let rm = Mat3::from_quat(rel.rotation).transpose().to_cols_array_2d();
        let mut bf = [[0.0f32; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                bf[i][j] = rm[i][j].abs() + eps;
            }
        }
        Self { rel, rm, bf, eps }
    }

    /// Whether the boxes may overlap: A's `(ca, a)` (center, half-extents)
    /// and B's `(cb, b)`, each in its own frame; `lite` tries the face axes
    /// only. Conservative as [`obb_overlap`](super::obb_overlap) is.
    #[inline]
    fn overlap(&self, (ca, a): (Vec3, Vec3), (cb, b): (Vec3, Vec3), lite: bool) -> bool {
        let t = (self.rel.transform_point(cb) - ca).to_array();
        let (a, b) = (a.to_array(), b.to_array());
        let (rm, bf) = (&self.rm, &self.bf);
        let te = t.map(|x| x.abs() * self.eps);
        for i in 0..3 {
            if t[i].abs() > a[i] + b[0] * bf[i][0] + b[1] * bf[i][1] + b[2] * bf[i][2] {
                return false;
            }
        }
        let te_sum = te[0] + te[1] + te[2];
        for j in 0..3 {
            let s = (t[0] * rm[0][j] + t[1] * rm[1][j] + t[2] * rm[2][j]).abs();
            if s > b[j] + a[0] * bf[0][j] + a[1] * bf[1][j] + a[2] * bf[2][j] + te_sum {
                return false;
            }
        }
        if lite {
            return true;
        }
        for i in 0..3 {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            for j in 0..3 {
                let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
                let s = (t[i2] * rm[i1][j] - t[i1] * rm[i2][j]).abs();
                let ra = a[i1] * bf[i2][j] + a[i2] * bf[i1][j];
                let rb = b[j1] * bf[i][j2] + b[j2] * bf[i][j1];
                if s > ra + rb + te[i1] + te[i2] {
                    return false;
                }
            }
        }
        true
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
    let relative = Relative::new(rel, options.eps);
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
        let (ha, hb) = (la.aabb.half_extents(), lb.aabb.half_extents());
        if !relative.overlap((la.aabb.center(), ha), (lb.aabb.center(), hb), lite) {
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
