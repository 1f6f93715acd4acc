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
//! **What a surface query reports.** Only triangles are tested: a mesh
//! entirely inside another (no triangles crossing) reports no contact.

mod oriented;
mod solid;

use glam::{Quat, Vec3};

use super::aabb_tree::AabbNode;
use super::obb::{OBB_EPS, obb_overlap};
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
    /// RAPID): larger values make the box test more conservative, never a
    /// missed contact; the triangle tests stay exact whatever it is.
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

/// One side of a query: a mesh, its tree (OBB by default) and its pose.
#[derive(Clone, Copy)]
pub struct MeshSide<'a, N = ObbNode> {
    /// The triangles.
    pub mesh: &'a TriMesh,
    /// Its tree over those triangles.
    pub tree: &'a Bvh<N>,
    /// Its world pose.
    pub pose: Pose,
}

/// Reusable traversal stacks (no allocation per query once grown).
#[derive(Clone, Debug, Default)]
pub struct CollideScratch {
    oriented: Vec<oriented::Pending>,
    pairs: Vec<(u32, u32)>,
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
/// The box test's guard against rounding is [`OBB_EPS`]; see
/// [`collide_with`] for the other settings.
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
            let tri_b = mapped_triangle(b.mesh, tb, &self.rel);
            for &ta in tris_a {
                stats.triangle_tests += 1;
                if triangles_intersect(a.mesh.triangle(ta as usize), tri_b) {
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

/// Triangle `t` of `mesh` mapped by `rel` (B's frame into A's): the
/// coordinates every exact test of this query uses.
#[inline]
pub fn mapped_triangle(mesh: &TriMesh, t: u32, rel: &Pose) -> [Vec3; 3] {
    mesh.triangle(t as usize).map(|p| rel.transform_point(p))
}
