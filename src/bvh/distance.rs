//! Distance between surfaces by branch and bound over their trees (the
//! method of PQP: Larsen, Gottschalk, Lin, Manocha, *Fast proximity queries
//! with swept sphere volumes*, 1999; here over the trees' own boxes).
//!
//! The search keeps the best distance found so far and a stack of node
//! pairs, each with a lower bound on the distance between anything under
//! them ([`box_gap`]): in each box's frame, the other box lies in its
//! axis-aligned box there, and the distance between two axis-aligned
//! boxes is `√(Σ gap_k²)` over the three axes; the larger of the two is
//! the bound (and never less than the bound of the pair it was split
//! from). The largest gap along one axis alone, the bound this search
//! used before, is short of the distance by up to `√3` when the boxes lie
//! diagonally from each other; the gap along the line through the two
//! centers (each box's exact support along it) is within the boxes' size
//! of the distance whatever the direction, and counts too. A pair whose
//! bound is not below the best is dropped; of two child pairs the nearer
//! is searched first, so the first descent ends at a close leaf pair and
//! its distance prunes the rest. At two leaves every triangle pair is
//! measured exactly ([`triangle_triangle`]), with B's triangle mapped into
//! A's frame as the collision queries map it, unless the two triangles
//! are already farther apart than the best along the line through their
//! centroids: the answer is the minimum over all triangle pairs of that
//! same function, which is what the tests compare it with.
//!
//! With the largest single-axis gap as the bound (as before), two models
//! apart by a few times their size were searched almost exhaustively: the
//! low-resolution hand (1602 triangles) against its copy 2.5 sizes away,
//! six placements, measured 300 000 triangle pairs per query with AABB
//! trees and 62 000 with OBB trees, the teapot (9438 triangles) 11.5
//! million and 2.1 million (seconds per query); now about 50 and 80 for
//! the hand, 170 and 250 for the teapot (milliseconds).
//!
//! The bound is computed in `f32` and lowered by what rounding allows:
//! the separating axis test's guard on the rotation (`|R_ij| + eps`), a
//! slack relative to both boxes' coordinates, and the pad that the
//! collision queries grow their boxes by (see `rounding.rs`), so it never
//! exceeds the distance between what the boxes hold: rounding can only
//! make the search visit more pairs.
//!
//! A *tolerance* query ("are they within `d`?") is the same search started
//! with best `= d`, stopping at the first pair at most `d` apart.

use glam::{Mat3, Quat, Vec3};

use super::collide::{BoxNode, MeshSide};
use super::obb::OBB_EPS;
use super::rounding::{Slack, U, reach};
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
/// eps`), plus a slack relative to the coordinates' size: both centers'
/// and both boxes' extents as well as their offset (the centers'
/// rounding is relative to their own size, which the offset of two
/// nearby boxes far from the origin does not show). The boxes are apart
/// along axis `k` by at least `|offset[k]| − reach[k] − slack`.
pub struct FaceAxes {
    /// Signed center offsets, B minus A.
    pub offset: [f32; 6],
    /// Summed half-widths.
    pub reach: [f32; 6],
    /// Rounding slack.
    pub slack: f32,
    /// The gap along the line through the two centers (B's support along
    /// it bounded through `|R_ij| + eps`), before the slack.
    pub line: f32,
}

/// The gap between two boxes along the unit vector `d = t / |t|` (A's
/// frame), `t` B's center from A's: `|t| − Σ a_i |d_i| − Σ_j b_j |B_j · d|`,
/// where `B_j · d` is `offset[3 + j] / |t|` within `eps |d|₁`. Two boxes
/// far apart along a diagonal of their frames are separated along this
/// line by nearly their distance, which the face axes' boxes (each box
/// seen through the other's axes) fall short of.
#[inline]
fn center_line(t: Vec3, a: Vec3, b: Vec3, offset: &[f32; 6], eps: f32) -> f32 {
    let len = t.length();
    if len == 0.0 {
        return 0.0;
    }
    let along_b = Vec3::new(offset[3], offset[4], offset[5]).abs() + eps * t.abs().element_sum();
    len - (a.dot(t.abs()) + b.dot(along_b)) / len
}

impl FaceAxes {
    /// The face axes of two boxes in one frame.
    pub fn of(a: &FrameBox, b: &FrameBox) -> Self {
        Self::with_eps(a, b, OBB_EPS)
    }

    /// [`of`](Self::of) with the rotation guard `eps` added to every
    /// `|R_ij|`.
    pub fn with_eps(a: &FrameBox, b: &FrameBox, eps: f32) -> Self {
        let r = a.axes.transpose() * b.axes;
        let t = a.axes.transpose() * (b.center - a.center);
        let (rm, tt) = (r.transpose().to_cols_array_2d(), t.to_array());
        let (ha, hb) = (a.half.to_array(), b.half.to_array());
        let bf = rm.map(|row| row.map(|x| x.abs() + eps));
        let (mut offset, mut reach) = ([0.0f32; 6], [0.0f32; 6]);
        for i in 0..3 {
            offset[i] = tt[i];
            reach[i] = ha[i] + hb[0] * bf[i][0] + hb[1] * bf[i][1] + hb[2] * bf[i][2];
        }
        for j in 0..3 {
            offset[3 + j] = tt[0] * rm[0][j] + tt[1] * rm[1][j] + tt[2] * rm[2][j];
            reach[3 + j] = hb[j] + ha[0] * bf[0][j] + ha[1] * bf[1][j] + ha[2] * bf[2][j];
        }
        let size = |f: &FrameBox| super::rounding::reach(f.center, f.half);
        let slack = 1e-5 * (t.abs().max_element() + size(a) + size(b));
        FaceAxes {
            offset,
            reach,
            slack,
            line: center_line(t, a.half, b.half, &offset, eps),
        }
    }
}

/// A lower bound on the distance between two boxes in one frame: in each
/// box's frame, the distance to the other box's axis-aligned box there
/// (`√(Σ gap_k²)` over its three face axes), the larger of the two (0
/// when they overlap), lowered against rounding so that it never exceeds
/// the distance.
pub fn box_gap(a: &FrameBox, b: &FrameBox) -> f32 {
    FaceAxes::of(a, b).gap(0.0)
}

impl FaceAxes {
    /// [`box_gap`] on these axes, each gap lessened by `pad` more (and
    /// the center line's by twice the slack and `pad`: its unit vector
    /// has `|d|₁ ≤ √3` in each frame).
    #[inline]
    pub fn gap(&self, pad: f32) -> f32 {
        let cut = self.slack + pad;
        let g = |k: usize| (self.offset[k].abs() - self.reach[k] - cut).max(0.0);
        let in_frame = |k: usize| (g(k) * g(k) + g(k + 1) * g(k + 1) + g(k + 2) * g(k + 2)).sqrt();
        let line = self.line - 2.0 * cut;
        // A few squares, sums, a quotient and a square root: 8 u relative
        // at most.
        in_frame(0).max(in_frame(3)).max(line) * (1.0 - 16.0 * U)
    }
}

/// The gap between triangles `a` and `b` along the line through their
/// centroids (a lower bound on their distance; `-∞` when the centroids
/// coincide).
#[inline]
fn centroid_gap(a: [Vec3; 3], b: [Vec3; 3]) -> f32 {
    let line = (b[0] + b[1] + b[2]) - (a[0] + a[1] + a[2]);
    let len = line.length();
    if len == 0.0 {
        return f32::NEG_INFINITY;
    }
    let near_b = line.dot(b[0]).min(line.dot(b[1])).min(line.dot(b[2]));
    let far_a = line.dot(a[0]).max(line.dot(a[1])).max(line.dot(a[2]));
    (near_b - far_a) / len
}

/// The closest triangle pair of two surfaces within `limit` (see the
/// module docs), or `None` when none is within `limit.max`.
pub fn surface_distance<NA: BoxNode, NB: BoxNode>(
    a: &MeshSide<'_, NA>,
    b: &MeshSide<'_, NB>,
    limit: DistanceLimit,
    stack: &mut Vec<PendingPair>,
) -> (Option<SurfaceDistance>, DistanceStats) {
    let rel = a.pose.inverse().mul(&b.pose);
    let slack = Slack::new(&rel, OBB_EPS);
    let root_reach = |(_, c, h)| reach(c, h);
    let leaf_cut = match (a.tree.nodes.is_empty(), b.tree.nodes.is_empty()) {
        (false, false) => {
            let b_share = slack.pad_oriented_b(root_reach(b.node_box(0)));
            4.0 * Slack::pad_oriented(root_reach(a.node_box(0)), b_share)
        }
        _ => 0.0,
    };
    let mut search = Search {
        a,
        b,
        rel,
        slack,
        leaf_cut,
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
    /// What rounding allows the query.
    slack: Slack,
    /// What rounding allows [`centroid_gap`] and the triangles' distance:
    /// four pads of the root boxes (which hold every vertex).
    leaf_cut: f32,
    best: f32,
    stop_at: f32,
    /// The best pair, points in A's frame.
    found: Option<SurfaceDistance>,
    stats: DistanceStats,
}

impl<NA: BoxNode, NB: BoxNode> PairSearch for Search<'_, '_, NA, NB> {
    /// The boxes' [`box_gap`], lowered by what the collision queries grow
    /// A's box by (on each face axis, growing A by `2p` grows the radii by
    /// at most `2p (|R_ij| + eps)` summed, under 4 pads), with a rotation
    /// guard for the two rotation matrices; never below the parent pair's
    /// bound.
    fn bound(&mut self, na: u32, nb: u32, parent: f32) -> f32 {
        self.stats.box_tests += 1;
        let ((rot_a, ca, ha), (rot_b, cb, hb)) = (self.a.node_box(na), self.b.node_box(nb));
        let a = FrameBox {
            axes: Mat3::from_quat(rot_a),
            center: ca,
            half: ha,
        };
        let b = FrameBox {
            axes: Mat3::from_quat(self.rel.rotation * rot_b),
            center: self.rel.transform_point(cb),
            half: hb,
        };
        let pad = Slack::pad_oriented(reach(ca, ha), self.slack.pad_oriented_b(reach(cb, hb)));
        // Two rounded rotation matrices and their product, where the
        // oriented traversal rounds one: twice its guard covers them.
        let faces = FaceAxes::with_eps(&a, &b, 2.0 * self.slack.eps_oriented());
        parent.max(faces.gap(4.0 * pad))
    }

    fn best(&self) -> f32 {
        self.best
    }

    fn done(&self) -> bool {
        self.found.is_some() && self.best <= self.stop_at
    }

    /// Measures every triangle pair of two leaves whose gap along the
    /// line through the triangles' centroids ([`centroid_gap`]), lowered
    /// by [`leaf_cut`](Search::leaf_cut), is not beyond the best: two
    /// small triangles far apart are apart along that line by nearly
    /// their distance, where their boxes (loose around a triangle that
    /// lies across their axes) are not. The gaps count as box tests.
    fn leaves(&mut self, na: u32, nb: u32, _bound: f32) {
        let (a, b) = (self.a, self.b);
        for &tb in b.tree.leaf_primitives(nb as usize) {
            let tri_b = b.mapped_triangle(tb, &self.rel);
            for &ta in a.tree.leaf_primitives(na as usize) {
                let tri_a = a.triangle(ta);
                self.stats.box_tests += 1;
                if centroid_gap(tri_a, tri_b) - self.leaf_cut > self.best {
                    continue;
                }
                self.stats.triangle_tests += 1;
                let (d, p, q) = triangle_triangle(tri_a, tri_b);
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
