//! Simultaneous traversal of two OBB trees (RAPID): which triangles of two
//! polygon soups intersect.
//!
//! Gottschalk, Lin, Manocha, *OBBTree: a hierarchical structure for rapid
//! interference detection*, SIGGRAPH 1996.
//!
//! B's frame is expressed in A's once per query (`R_ab`, `t_ab`). For a pair
//! of nodes, the relative rotation and translation of their boxes are
//! `R = A^T R_ab B` and `t = A^T (R_ab c_b + t_ab - c_a)`, and the 15-axis
//! separating axis test ([`obb_overlap`]) decides whether to descend. The
//! larger box (by volume) is split first. At two leaves, every pair of their
//! triangles is tested exactly ([`triangles_intersect`]), with B's triangle
//! mapped into A's frame: the answer is exact for those mapped coordinates.
//!
//! **What a surface query reports.** Only triangles are tested: a mesh
//! entirely inside another (no triangles crossing) reports no contact.

use glam::{Mat3, Quat, Vec3};

use super::obb::{OBB_EPS, obb_overlap};
use super::obb_tree::ObbTree;
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

/// Work done by one query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CollideStats {
    /// Box pairs tested.
    pub box_tests: u32,
    /// Triangle pairs tested.
    pub triangle_tests: u32,
}

/// One side of a query: a mesh, its tree and its pose.
#[derive(Clone, Copy)]
pub struct MeshSide<'a> {
    /// The triangles.
    pub mesh: &'a TriMesh,
    /// Its OBB tree.
    pub tree: &'a ObbTree,
    /// Its world pose.
    pub pose: Pose,
}

/// A pending node pair, with B's node box already expressed in A's frame
/// (rotation and center), so descending A's side reuses it.
#[derive(Clone, Copy, Debug)]
struct Pending {
    na: u32,
    nb: u32,
    b_rot: Quat,
    b_center: Vec3,
}

/// Reusable traversal stack (no allocation per query once grown).
#[derive(Clone, Debug, Default)]
pub struct CollideScratch {
    stack: Vec<Pending>,
}

/// Intersecting triangle pairs `[triangle of a, triangle of b]`, appended
/// to `out` (cleared first), in traversal order. Returns the work done.
/// The box test's guard against rounding is [`OBB_EPS`]; see
/// [`collide_with_eps`] to set it.
pub fn collide(
    a: &MeshSide<'_>,
    b: &MeshSide<'_>,
    mode: ContactMode,
    scratch: &mut CollideScratch,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    collide_with_eps(a, b, mode, OBB_EPS, scratch, out)
}

/// [`collide`] with the box test's relative epsilon `eps` (added to every
/// `|R_ij|`, as in RAPID): larger values make the box test more
/// conservative (more box pairs descend, never a missed contact); the
/// triangle tests stay exact whatever it is.
pub fn collide_with_eps(
    a: &MeshSide<'_>,
    b: &MeshSide<'_>,
    mode: ContactMode,
    eps: f32,
    scratch: &mut CollideScratch,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    out.clear();
    let mut stats = CollideStats::default();
    if a.tree.nodes.is_empty() || b.tree.nodes.is_empty() {
        return stats;
    }
    let q = Query {
        a,
        b,
        rel: a.pose.inverse().mul(&b.pose),
        mode,
    };
    let stack = &mut scratch.stack;
    stack.clear();
    stack.push(q.pending(0, 0));
    while let Some(p) = stack.pop() {
        stats.box_tests += 1;
        let (la, lb) = (&a.tree.nodes[p.na as usize], &b.tree.nodes[p.nb as usize]);
        // Box B relative to box A: R = A^T B', t = A^T (c_b' - c_a).
        let inv_a = la.rotation.conjugate();
        let r = Mat3::from_quat(inv_a * p.b_rot);
        let t = inv_a * (p.b_center - la.center);
        // `eps` is relative: conservative against rounding in R and t.
        if !obb_overlap(la.half_extents, lb.half_extents, &r, t, eps) {
            continue;
        }
        let descend_a = match (la.is_leaf(), lb.is_leaf()) {
            (true, true) => {
                if q.leaf_pairs((p.na, p.nb), &mut stats, out) {
                    return stats;
                }
                continue;
            }
            (false, true) => true,
            (true, false) => false,
            // Descend the larger box first.
            (false, false) => volume(la.half_extents) >= volume(lb.half_extents),
        };
        if descend_a {
            stack.push(Pending {
                na: la.first + 1,
                ..p
            });
            stack.push(Pending { na: la.first, ..p });
        } else {
            stack.push(q.pending(p.na, lb.first + 1));
            stack.push(q.pending(p.na, lb.first));
        }
    }
    stats
}

#[inline]
fn volume(h: Vec3) -> f32 {
    h.x * h.y * h.z
}

/// What one query holds fixed.
struct Query<'q, 'a> {
    a: &'q MeshSide<'a>,
    b: &'q MeshSide<'a>,
    /// B's frame in A's.
    rel: Pose,
    mode: ContactMode,
}

impl Query<'_, '_> {
    /// The pair `(na, nb)` with B's node box mapped into A's frame.
    #[inline]
    fn pending(&self, na: u32, nb: u32) -> Pending {
        let node = &self.b.tree.nodes[nb as usize];
        Pending {
            na,
            nb,
            b_rot: self.rel.rotation * node.rotation,
            b_center: self.rel.transform_point(node.center),
        }
    }

    /// Tests all triangle pairs of two leaves; true when `First` found one.
    fn leaf_pairs(
        &self,
        (na, nb): (u32, u32),
        stats: &mut CollideStats,
        out: &mut Vec<[u32; 2]>,
    ) -> bool {
        let (a, b) = (self.a, self.b);
        let (la, lb) = (&a.tree.nodes[na as usize], &b.tree.nodes[nb as usize]);
        let tris_a = &a.tree.order[la.first as usize..(la.first + la.count) as usize];
        let tris_b = &b.tree.order[lb.first as usize..(lb.first + lb.count) as usize];
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
