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

use glam::{Mat3, Quat, Vec3};

use super::collide::{BoxNode, MeshSide};
use super::obb::OBB_EPS;
pub use super::search::PendingPair;
use super::search::{PairSearch, branch_and_bound};
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
    /// An axis-aligned box (in some frame) mapped by `pose`.
    pub fn of_box(b: &crate::math::Aabb, pose: &Pose) -> Self {
        FrameBox {
            axes: pose.rotation_matrix(),
            center: pose.transform_point(b.center()),
            half: b.half_extents(),
        }
    }

    /// A node's box mapped by `pose` (into another frame).
    #[inline]
    pub fn of<N: BoxNode>(node: &N, pose: &Pose) -> Self {
        Self::of_parts((node.rotation(), node.center(), node.half_extents()), pose)
    }

    /// Node `i` of a side, scaled as the side is, mapped by `pose`.
    #[inline]
    pub fn of_side<N: BoxNode>(side: &MeshSide<'_, N>, i: u32, pose: &Pose) -> Self {
        Self::of_parts(side.node_box(i), pose)
    }

    #[inline]
    fn of_parts((rotation, center, half): (Quat, Vec3, Vec3), pose: &Pose) -> Self {
        FrameBox {
            axes: Mat3::from_quat(pose.rotation * rotation),
            center: pose.transform_point(center),
            half,
        }
    }
}

/// The two boxes along their six face axes (A's three, then B's three):
/// the signed offset of B's center from A's along each axis, and the two
/// boxes' summed half-widths along it, padded against rounding (`|R_ij| +
/// eps`), plus a slack relative to the coordinates' size. The boxes are
/// apart along axis `k` by at least `|offset[k]| − reach[k] − slack`.
pub struct FaceAxes {
    /// Signed center offsets, B minus A.
    pub offset: [f32; 6],
    /// Summed half-widths.
    pub reach: [f32; 6],
    /// Rounding slack.
    pub slack: f32,
}

impl FaceAxes {
    /// The face axes of two boxes in one frame.
    pub fn of(a: &FrameBox, b: &FrameBox) -> Self {
        let r = a.axes.transpose() * b.axes;
        let t = a.axes.transpose() * (b.center - a.center);
        let (rm, tt) = (r.transpose().to_cols_array_2d(), t.to_array());
        let (ha, hb) = (a.half.to_array(), b.half.to_array());
        let bf = rm.map(|row| row.map(|x| x.abs() + OBB_EPS));
        let (mut offset, mut reach) = ([0.0f32; 6], [0.0f32; 6]);
        for i in 0..3 {
            offset[i] = tt[i];
            reach[i] = ha[i] + hb[0] * bf[i][0] + hb[1] * bf[i][1] + hb[2] * bf[i][2];
        }
        for j in 0..3 {
            offset[3 + j] = tt[0] * rm[0][j] + tt[1] * rm[1][j] + tt[2] * rm[2][j];
            reach[3 + j] = hb[j] + ha[0] * bf[0][j] + ha[1] * bf[1][j] + ha[2] * bf[2][j];
        }
        let slack = 1e-5 * (t.abs().max_element() + a.half.max_element() + b.half.max_element());
        FaceAxes {
            offset,
            reach,
            slack,
        }
    }
}

/// A lower bound on the distance between two boxes in one frame: the
/// largest gap along one of their six face axes (0 when none separates
/// them), padded against rounding so that it never exceeds the distance.
pub fn box_gap(a: &FrameBox, b: &FrameBox) -> f32 {
    let f = FaceAxes::of(a, b);
    let gap = (0..6).fold(0.0f32, |g, k| g.max(f.offset[k].abs() - f.reach[k]));
    (gap - f.slack).max(0.0)
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
        stop_at: limit.stop_at,
        found: None,
        stats: DistanceStats::default(),
    };
    branch_and_bound(a.tree, b.tree, &mut search, stack);
    let found = search.found.map(|mut d| {
        d.point_a = a.pose.transform_point(d.point_a);
        d.point_b = a.pose.transform_point(d.point_b);
        d
    });
    (found, search.stats)
}

/// The state of one search.
struct Search<'q, 'a, NA, NB> {
    a: &'q MeshSide<'a, NA>,
    b: &'q MeshSide<'a, NB>,
    /// B's frame in A's.
    rel: Pose,
    best: f32,
    stop_at: f32,
    /// The best pair, points in A's frame.
    found: Option<SurfaceDistance>,
    stats: DistanceStats,
}

impl<NA: BoxNode, NB: BoxNode> PairSearch for Search<'_, '_, NA, NB> {
    fn bound(&mut self, na: u32, nb: u32, _parent: f32) -> f32 {
        self.stats.box_tests += 1;
        let a = FrameBox::of_side(self.a, na, &Pose::IDENTITY);
        let b = FrameBox::of_side(self.b, nb, &self.rel);
        box_gap(&a, &b)
    }

    fn best(&self) -> f32 {
        self.best
    }

    fn done(&self) -> bool {
        self.found.is_some() && self.best <= self.stop_at
    }

    /// Measures every triangle pair of two leaves.
    fn leaves(&mut self, na: u32, nb: u32, _bound: f32) {
        let (a, b) = (self.a, self.b);
        for &tb in b.tree.leaf_primitives(nb as usize) {
            let tri_b = b.mapped_triangle(tb, &self.rel);
            for &ta in a.tree.leaf_primitives(na as usize) {
                self.stats.triangle_tests += 1;
                let (d, p, q) = triangle_triangle(a.triangle(ta), tri_b);
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
