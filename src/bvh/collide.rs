//! Simultaneous traversal of two bounding-volume trees: which triangles of
//! two polygon soups intersect.
//!
//! - **OBB trees** (Gottschalk, Lin, Manocha, *OBBTree*, SIGGRAPH 1996; the
//!   RAPID library): B's frame is expressed in A's once per query; for a
//!   pair of nodes the relative rotation and translation of their boxes are
//!   `R = A^T R_ab B`, `t = A^T (R_ab c_b + t_ab - c_a)`, and the 15-axis
//!   separating axis test ([`obb_overlap`]) decides whether to descend
//!   (`collide/oriented.rs`).
//! - **AABB trees** (van den Bergen, JGT 1997; SOLID): every box of a tree
//!   shares its model's axes, so the relative rotation `R_ab` and its
//!   absolute value are computed once per *model* pair and a node pair costs
//!   one rotated center and the axis tests: all 15 ([`SatTest::Full`]) or
//!   only the 6 face axes ([`SatTest::Lite`], conservative)
//!   (`collide/solid.rs`).
//! - An OBB tree against an AABB tree takes the OBB path, the AABB boxes
//!   seen as oriented boxes with the identity rotation.
//!
//! The larger box (by volume) is split first. At two leaves every pair of
//! their triangles is tested exactly ([`triangles_intersect`]) with B's
//! triangle mapped into A's frame, the same way whatever the trees, so two
//! tree types give the same triangle pairs.
//!
//! **No touching pair is lost to rounding.** Every box test works on
//! rounded stand-ins of the exact boxes (centers and half extents taken
//! from an AABB's corners, B's center mapped into A's frame, the relative
//! rotation as a rounded matrix), and B's vertices are mapped into A's
//! frame in `f32` at the leaves. Both traversals grow both boxes of a pair
//! by a pad derived from bounds on all of these errors (relative to the
//! coordinates' size, the two boxes' distances from their origins and the
//! relative translation, not to the boxes' sizes) and raise the rotation
//! guard to what the relative rotation's rounding needs (`rounding.rs`):
//! two models touching at a shared vertex, or a model against its own
//! copy, report every touching triangle pair whatever the trees (the test
//! `tests/core/exact_trees.rs` checks this against an independent exact
//! reference). The pad is about `2·10⁻⁵` of the coordinates' size: on
//! 199 random placements of three models (1602 to 9438 triangles) against
//! their copies, 0.25 to 0.5 % more box tests and 0.4 to 1.3 % more
//! triangle tests, whatever the trees.
//!
//! **What a surface query reports.** Only triangles are tested: a mesh
//! entirely inside another (no triangles crossing) reports no contact.

mod oriented;
mod solid;

use glam::{Mat3, Quat, Vec3};

use super::aabb_tree::AabbNode;
use super::obb::{BOX_PAD, OBB_EPS, obb_overlap};
use super::obb_tree::ObbNode;
use super::tree::{BvNode, Bvh};
use crate::geometry::tritri::triangles_intersect;
use crate::math::Pose;
use crate::shape::TriMesh;

/// Stop at the first intersecting triangle pair, or find them all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ContactMode {
    /// Early exit at the first intersecting pair.
    First,
    /// Every intersecting pair.
    #[default]
    All,
}

/// Which axes the box test of two AABB trees tries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SatTest {
    /// All 15 axes: the exact separating axis test.
    #[default]
    Full,
    /// The 6 face axes only (van den Bergen's "SAT lite"): cheaper, and
    /// conservative (it never separates overlapping boxes; it may descend
    /// pairs that an edge axis separates).
    Lite,
}

/// Settings of one query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollideOptions {
    /// First contact or all.
    pub mode: ContactMode,
    /// The box test's relative epsilon (added to every `|R_ij|`, as in
    /// RAPID), raised by the query to what the relative rotation's own
    /// rounding needs: larger values make the box test more conservative,
    /// never a missed contact; the triangle tests stay exact whatever it
    /// is.
    pub eps: f32,
    /// The axes tried between two AABB trees.
    pub sat: SatTest,
}

impl Default for CollideOptions {
    fn default() -> Self {
        Self {
            mode: ContactMode::All,
            eps: OBB_EPS,
            sat: SatTest::Full,
        }
    }
}

/// Work done by one query (the cost model's `N_v` and `N_p`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollideStats {
    /// Box pairs tested.
    pub box_tests: u32,
    /// Triangle pairs tested.
    pub triangle_tests: u32,
}

/// One side of a query: a mesh, its tree (OBB by default), its pose and
/// its scale.
///
/// A vertex `p` of the mesh is at `pose.transform_point(p * scale)`: the
/// scale (per axis of the mesh's frame, as SOLID allows; Bevy's
/// `Transform::scale`) is applied in the query, to each box and triangle as
/// it is visited, without a rebuild of the tree and without a copy of the
/// vertices (see [`BoxNode::scaled_box`]). Build with [`MeshSide::new`]
/// (scale 1) and [`MeshSide::with_scale`].
#[derive(Clone, Copy)]
pub struct MeshSide<'a, N = ObbNode> {
    /// The triangles.
    pub mesh: &'a TriMesh,
    /// Its tree over those triangles.
    pub tree: &'a Bvh<N>,
    /// Its world pose.
    pub pose: Pose,
    /// Its scale along the mesh's own axes: finite and nonzero (negative
    /// mirrors); `Vec3::ONE` for none.
    pub scale: Vec3,
}

impl<'a, N> MeshSide<'a, N> {
    /// A side at `pose`, unscaled.
    pub fn new(mesh: &'a TriMesh, tree: &'a Bvh<N>, pose: Pose) -> Self {
        Self {
            mesh,
            tree,
            pose,
            scale: Vec3::ONE,
        }
    }

    /// The same side with the mesh scaled by `scale` along its own axes.
    pub fn with_scale(self, scale: Vec3) -> Self {
        Self { scale, ..self }
    }

    /// Triangle `t`, scaled: in the side's frame (its pose's).
    #[inline]
    pub fn triangle(&self, t: u32) -> [Vec3; 3] {
        self.mesh.triangle(t as usize).map(|p| p * self.scale)
    }

    /// Triangle `t`, scaled, then mapped by `rel` (this side's frame into
    /// the other side's): the coordinates every exact test of a query uses.
    #[inline]
    pub fn mapped_triangle(&self, t: u32, rel: &Pose) -> [Vec3; 3] {
        self.mesh
            .triangle(t as usize)
            .map(|p| rel.transform_point(p * self.scale))
    }
}

impl<N: BoxNode> MeshSide<'_, N> {
    /// Node `i`'s box in the side's frame, scaled: `(rotation, center,
    /// half extents)`.
    #[inline]
    pub fn node_box(&self, i: u32) -> (Quat, Vec3, Vec3) {
        let node = &self.tree.nodes[i as usize];
        if self.scale == Vec3::ONE {
            (node.rotation(), node.center(), node.half_extents())
        } else {
            node.scaled_box(self.scale)
        }
    }
}

/// Reusable traversal stacks (no allocation per query once grown).
#[derive(Clone, Debug, Default)]
pub struct CollideScratch {
    oriented: Vec<oriented::Pending>,
    pairs: Vec<(u32, u32)>,
}

impl CollideScratch {
    /// Grows each stack to at least `other`'s capacity.
    pub(crate) fn reserve_like(&mut self, other: &Self) {
        use crate::math::reserve_to;
        reserve_to(&mut self.oriented, other.oriented.capacity());
        reserve_to(&mut self.pairs, other.pairs.capacity());
    }
}

/// A node whose volume is a box: oriented, or axis-aligned in its tree's
/// frame (then with the identity rotation).
pub trait BoxNode: BvNode {
    /// The box's axes as a rotation of the tree's frame.
    fn rotation(&self) -> Quat;
    /// Center of the box.
    fn center(&self) -> Vec3;
    /// Half the box size along each of its axes.
    fn half_extents(&self) -> Vec3;

    /// `(rotation, center, half extents)` of a box holding this box scaled
    /// by `scale` along the tree's axes. The scaled box `S (c + R H u)`,
    /// `|u| <= 1`, is a parallelepiped with edge directions `S R`; the box
    /// returned has the axes `Q` of `S R = Q U` (Gram–Schmidt from the
    /// box's first, longest axis) and half widths `|U| h`, `U = Q^T S R`
    /// upper triangular: the first axis is the scaled first edge (exact),
    /// and the long extent never leaks into the other two. (Keeping the
    /// axes `R`, the half widths `|R^T S R| h` would spread the long
    /// extent over every axis: measured on non-uniformly scaled tori, 2.4
    /// times the triangle tests of trees built for the scaled copies.) An
    /// axis-aligned box is scaled exactly (see [`AabbNode`]). The half
    /// extents are padded by a few ulps of the coordinates, so the scaled
    /// triangles (`p * scale`, rounded) stay inside.
    #[inline]
    fn scaled_box(&self, scale: Vec3) -> (Quat, Vec3, Vec3) {
        let m = Mat3::from_diagonal(scale) * Mat3::from_quat(self.rotation());
        let (m0, m1, m2) = (m.x_axis, m.y_axis, m.z_axis);
        let u00 = m0.length();
        let q1 = m0 / u00;
        let u01 = q1.dot(m1);
        let w = m1 - q1 * u01;
        let u11 = w.length();
        let q2 = w / u11;
        let q3 = q1.cross(q2);
        let rotation = Quat::from_mat3(&Mat3::from_cols(q1, q2, q3)).normalize();
        // |U| h, U = Q^T S R upper triangular (the quaternion's frame is Q's
        // within rounding, which the padding covers).
        let h = self.half_extents();
        let (u02, u12, u22) = (q1.dot(m2), q2.dot(m2), q3.dot(m2));
        let half = Vec3::new(
            u00 * h.x + u01.abs() * h.y + u02.abs() * h.z,
            u11 * h.y + u12.abs() * h.z,
            u22.abs() * h.z,
        );
        let center = self.center() * scale;
        (rotation, center, padded(center, half))
    }
}

/// `half` grown by a few ulps of the box's coordinates (see
/// [`BoxNode::scaled_box`]).
#[inline]
fn padded(center: Vec3, half: Vec3) -> Vec3 {
    half + Vec3::splat(BOX_PAD * (center.abs().max_element() + half.max_element()))
}

impl BoxNode for ObbNode {
    #[inline]
    fn rotation(&self) -> Quat {
        self.rotation
    }
    #[inline]
    fn center(&self) -> Vec3 {
        self.center
    }
    #[inline]
    fn half_extents(&self) -> Vec3 {
        self.half_extents
    }
}

impl BoxNode for AabbNode {
    #[inline]
    fn rotation(&self) -> Quat {
        Quat::IDENTITY
    }
    #[inline]
    fn center(&self) -> Vec3 {
        self.aabb.center()
    }
    #[inline]
    fn half_extents(&self) -> Vec3 {
        self.aabb.half_extents()
    }
    /// Exact: the corners scale to corners (`min * s`, `max * s`, sorted
    /// per axis for a negative `s`), padded as the oriented case is.
    #[inline]
    fn scaled_box(&self, scale: Vec3) -> (Quat, Vec3, Vec3) {
        let b = self.aabb.scaled(scale);
        let center = b.center();
        (Quat::IDENTITY, center, padded(center, b.half_extents()))
    }
}

/// The traversal a pair of tree types takes: SOLID's for two AABB trees,
/// RAPID's otherwise.
pub trait TreePair<NB: BoxNode>: BoxNode {
    /// Intersecting triangle pairs of `a` and `b` into `out`.
    fn collide(
        a: &MeshSide<'_, Self>,
        b: &MeshSide<'_, NB>,
        options: &CollideOptions,
        scratch: &mut CollideScratch,
        out: &mut Vec<[u32; 2]>,
    ) -> CollideStats;
}

macro_rules! oriented_pair {
    ($a:ty, $b:ty) => {
        impl TreePair<$b> for $a {
            #[inline]
            fn collide(
                a: &MeshSide<'_, $a>,
                b: &MeshSide<'_, $b>,
                options: &CollideOptions,
                scratch: &mut CollideScratch,
                out: &mut Vec<[u32; 2]>,
            ) -> CollideStats {
                oriented::collide(a, b, options, &mut scratch.oriented, out)
            }
        }
    };
}
oriented_pair!(ObbNode, ObbNode);
oriented_pair!(ObbNode, AabbNode);
oriented_pair!(AabbNode, ObbNode);

impl TreePair<AabbNode> for AabbNode {
    #[inline]
    fn collide(
        a: &MeshSide<'_, AabbNode>,
        b: &MeshSide<'_, AabbNode>,
        options: &CollideOptions,
        scratch: &mut CollideScratch,
        out: &mut Vec<[u32; 2]>,
    ) -> CollideStats {
        solid::collide(a, b, options, &mut scratch.pairs, out)
    }
}

/// Intersecting triangle pairs `[triangle of a, triangle of b]`, appended
/// to `out` (cleared first), in traversal order. Returns the work done.
/// The box test's rotation guard is [`OBB_EPS`] (or what the relative
/// rotation's rounding needs, if more); see [`collide_with`] for the other
/// settings.
pub fn collide<NA: TreePair<NB>, NB: BoxNode>(
    a: &MeshSide<'_, NA>,
    b: &MeshSide<'_, NB>,
    mode: ContactMode,
    scratch: &mut CollideScratch,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    let options = CollideOptions {
        mode,
        ..CollideOptions::default()
    };
    NA::collide(a, b, &options, scratch, out)
}

/// [`collide`] with every setting.
pub fn collide_with<NA: TreePair<NB>, NB: BoxNode>(
    a: &MeshSide<'_, NA>,
    b: &MeshSide<'_, NB>,
    options: &CollideOptions,
    scratch: &mut CollideScratch,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    NA::collide(a, b, options, scratch, out)
}

/// [`collide`] with the box test's relative epsilon `eps`.
pub fn collide_with_eps<NA: TreePair<NB>, NB: BoxNode>(
    a: &MeshSide<'_, NA>,
    b: &MeshSide<'_, NB>,
    mode: ContactMode,
    eps: f32,
    scratch: &mut CollideScratch,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    let options = CollideOptions {
        mode,
        eps,
        ..CollideOptions::default()
    };
    NA::collide(a, b, &options, scratch, out)
}

#[inline]
fn volume(h: Vec3) -> f32 {
    h.x * h.y * h.z
}

/// What one query holds fixed: the sides, B's frame in A's, the mode.
struct Leaves<'q, NA, NB> {
    a: &'q MeshSide<'q, NA>,
    b: &'q MeshSide<'q, NB>,
    rel: Pose,
    mode: ContactMode,
}

impl<NA: BvNode, NB: BvNode> Leaves<'_, NA, NB> {
    /// Tests all triangle pairs of two leaves; true when `First` found one.
    fn test(
        &self,
        (na, nb): (u32, u32),
        stats: &mut CollideStats,
        out: &mut Vec<[u32; 2]>,
    ) -> bool {
        let (a, b) = (self.a, self.b);
        let tris_a = a.tree.leaf_primitives(na as usize);
        let tris_b = b.tree.leaf_primitives(nb as usize);
        for &tb in tris_b {
            let tri_b = b.mapped_triangle(tb, &self.rel);
            for &ta in tris_a {
                stats.triangle_tests += 1;
                if triangles_intersect(a.triangle(ta), tri_b) {
                    out.push([ta, tb]);
                    if self.mode == ContactMode::First {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// Triangle `t` of an unscaled `mesh` mapped by `rel` (B's frame into
/// A's): the coordinates every exact test of a query on unscaled meshes
/// uses ([`MeshSide::mapped_triangle`] for a scaled one).
#[inline]
pub fn mapped_triangle(mesh: &TriMesh, t: u32, rel: &Pose) -> [Vec3; 3] {
    mesh.triangle(t as usize).map(|p| rel.transform_point(p))
}
