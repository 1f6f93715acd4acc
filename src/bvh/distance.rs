//! Distance between surfaces by branch and bound over their trees (the
//! method of PQP: Larsen, Gottschalk, Lin, Manocha, *Fast proximity queries
//! with swept sphere volumes*, 1999; here over the trees' own boxes).
//!
//! The search keeps the best distance found so far and a stack of node
//! pairs, each with a lower bound on the distance between anything under
//! them: the largest gap between the two boxes along one of their six face
//! axes (a gap along any unit axis is at most the distance; [`box_gap`]). A
//! pair whose bound is not below the best is dropped; of two child pairs
//! the nearer is searched first, so a good best is found early. At two
//! leaves every triangle pair is measured exactly
//! ([`triangle_triangle`]), with B's triangle mapped into A's frame as the
//! collision queries map it: the answer is the minimum over all triangle
//! pairs of that same function, which is what the tests compare it with.
//!
//! The bound is computed in `f32` with the separating axis test's padding
//! (`|R_ij| + eps`, and a relative slack), so it never exceeds the true box
//! distance: rounding can only make the search visit more pairs.
//!
//! A *tolerance* query ("are they within `d`?") is the same search started
//! with best `= d`, stopping at the first pair at most `d` apart.

use glam::{Mat3, Vec3};

use super::collide::{BoxNode, MeshSide, mapped_triangle};
use super::obb::OBB_EPS;
use crate::geometry::closest::triangle_triangle;
use crate::math::Pose;

/// The closest points of two surfaces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceDistance {
    /// The distance (0 when they intersect).
    pub distance: f32,
    /// Closest point on A, world space.
    pub point_a: Vec3,
    /// Closest point on B, world space.
    pub point_b: Vec3,
    /// The triangles the points are on, `[of A, of B]`.
    pub triangles: [u32; 2],
}

/// Work done by one search (the cost model's `N_v` and `N_p`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DistanceStats {
    /// Box-pair bounds computed.
    pub box_tests: u32,
    /// Triangle pairs measured.
    pub triangle_tests: u32,
}

/// How far to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceLimit {
    /// Only answers at most this far (`f32::INFINITY`: the distance).
    pub max: f32,
    /// Stop at the first pair at most this far (0 for the exact distance;
    /// `max` for a tolerance query).
    pub stop_at: f32,
}

impl DistanceLimit {
    /// The exact distance, however far.
    pub const EXACT: Self = DistanceLimit {
        max: f32::INFINITY,
        stop_at: 0.0,
    };

    /// "Are they within `d`?": any pair at most `d` apart.
    pub fn within(d: f32) -> Self {
        DistanceLimit { max: d, stop_at: d }
    }
}

/// A box in a frame: rotation (columns are its axes), center, half extents.
#[derive(Clone, Copy, Debug)]
pub struct FrameBox {
    /// Axes as columns.
    pub axes: Mat3,
    /// Center.
    pub center: Vec3,
    /// Half extents along the axes.
    pub half: Vec3,
}

impl FrameBox {
    /// A node's box mapped by `pose` (into another frame).
    #[inline]
    pub fn of<N: BoxNode>(node: &N, pose: &Pose) -> Self {
        FrameBox {
            axes: Mat3::from_quat(pose.rotation * node.rotation()),
            center: pose.transform_point(node.center()),
            half: node.half_extents(),
        }
    }
}

/// A lower bound on the distance between two boxes in one frame: the
/// largest gap along one of their six face axes (0 when none separates
/// them), padded against rounding so that it never exceeds the distance.
pub fn box_gap(a: &FrameBox, b: &FrameBox) -> f32 {
    let r = a.axes.transpose() * b.axes;
    let t = a.axes.transpose() * (b.center - a.center);
    let (rm, tt) = (r.transpose().to_cols_array_2d(), t.to_array());
    let (ha, hb) = (a.half.to_array(), b.half.to_array());
    let bf = rm.map(|row| row.map(|x| x.abs() + OBB_EPS));
    let mut gap = 0.0f32;
    for i in 0..3 {
        let reach = ha[i] + hb[0] * bf[i][0] + hb[1] * bf[i][1] + hb[2] * bf[i][2];
        gap = gap.max(tt[i].abs() - reach);
    }
    for j in 0..3 {
        let s = (tt[0] * rm[0][j] + tt[1] * rm[1][j] + tt[2] * rm[2][j]).abs();
        let reach = hb[j] + ha[0] * bf[0][j] + ha[1] * bf[1][j] + ha[2] * bf[2][j];
        gap = gap.max(s - reach);
    }
    let slack = 1e-5 * (t.abs().max_element() + a.half.max_element() + b.half.max_element());
    (gap - slack).max(0.0)
}

/// One node pair of the search with its bound.
#[derive(Clone, Copy, Debug)]
pub struct PendingPair {
    na: u32,
    nb: u32,
    bound: f32,
}

/// The closest triangle pair of two surfaces within `limit` (see the
/// module docs), or `None` when none is within `limit.max`.
pub fn surface_distance<NA: BoxNode, NB: BoxNode>(
    a: &MeshSide<'_, NA>,
    b: &MeshSide<'_, NB>,
    limit: DistanceLimit,
    stack: &mut Vec<PendingPair>,
) -> (Option<SurfaceDistance>, DistanceStats) {
    let mut search = Search {
        a,
        b,
        rel: a.pose.inverse().mul(&b.pose),
        best: limit.max,
        found: None,
        stats: DistanceStats::default(),
    };
    stack.clear();
    if a.tree.nodes.is_empty() || b.tree.nodes.is_empty() {
        return (None, search.stats);
    }
    let root = search.pair(0, 0);
    stack.push(root);
    while let Some(p) = stack.pop() {
        if p.bound > search.best {
            continue;
        }
        let (la, lb) = (&a.tree.nodes[p.na as usize], &b.tree.nodes[p.nb as usize]);
        if la.is_leaf() && lb.is_leaf() {
            search.leaves(p.na, p.nb);
            if search.found.is_some() && search.best <= limit.stop_at {
                break;
            }
            continue;
        }
        let split_a = !la.is_leaf()
            && (lb.is_leaf() || volume(la.half_extents()) >= volume(lb.half_extents()));
        let (x, y) = if split_a {
            let f = la.first();
            (search.pair(f, p.nb), search.pair(f + 1, p.nb))
        } else {
            let f = lb.first();
            (search.pair(p.na, f), search.pair(p.na, f + 1))
        };
        // The nearer pair on top.
        let (near, far) = if x.bound <= y.bound { (x, y) } else { (y, x) };
        for q in [far, near] {
            if q.bound <= search.best {
                stack.push(q);
            }
        }
    }
    let found = search.found.map(|mut d| {
        d.point_a = a.pose.transform_point(d.point_a);
        d.point_b = a.pose.transform_point(d.point_b);
        d
    });
    (found, search.stats)
}

#[inline]
fn volume(h: Vec3) -> f32 {
    h.x * h.y * h.z
}

/// The state of one search.
struct Search<'q, 'a, NA, NB> {
    a: &'q MeshSide<'a, NA>,
    b: &'q MeshSide<'a, NB>,
    /// B's frame in A's.
    rel: Pose,
    best: f32,
    /// The best pair, points in A's frame.
    found: Option<SurfaceDistance>,
    stats: DistanceStats,
}

impl<NA: BoxNode, NB: BoxNode> Search<'_, '_, NA, NB> {
    /// The node pair with its bound.
    fn pair(&mut self, na: u32, nb: u32) -> PendingPair {
        self.stats.box_tests += 1;
        let a = FrameBox::of(&self.a.tree.nodes[na as usize], &Pose::IDENTITY);
        let b = FrameBox::of(&self.b.tree.nodes[nb as usize], &self.rel);
        PendingPair {
            na,
            nb,
            bound: box_gap(&a, &b),
        }
    }

    /// Measures every triangle pair of two leaves.
    fn leaves(&mut self, na: u32, nb: u32) {
        let (a, b) = (self.a, self.b);
        for &tb in b.tree.leaf_primitives(nb as usize) {
            let tri_b = mapped_triangle(b.mesh, tb, &self.rel);
            for &ta in a.tree.leaf_primitives(na as usize) {
                self.stats.triangle_tests += 1;
                let (d, p, q) = triangle_triangle(a.mesh.triangle(ta as usize), tri_b);
                if d < self.best || (d <= self.best && self.found.is_none()) {
                    self.best = d;
                    self.found = Some(SurfaceDistance {
                        distance: d,
                        point_a: p,
                        point_b: q,
                        triangles: [ta, tb],
                    });
                }
            }
        }
    }
}
