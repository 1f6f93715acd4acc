//! Support-mapped shapes (cylinders, cones, rounded boxes and hulls,
//! segments, triangles: [`SupportShape`]) against every kind, through
//! their support mapping alone:
//!
//! - against another support-mapped shape (a convex polytope, a sphere or
//!   capsule, a cylinder or cone): GJK for distance and closest points,
//!   with the other's margin (van den Bergen 1999), warm-started from the
//!   pair's simplex; EPA for the depth ([`support_pair`]);
//! - against a triangle mesh (a surface): the mesh's tree descended with
//!   the shape's box in each node's frame (six supports, exact), then GJK
//!   shape–triangle at the leaves; for distance, branch and bound over the
//!   tree with GJK distances at the leaves.
//!
//! The support-mapped shape is side A here; [`super::test_pair`] flips the
//! pair in one place when it is side B.

use glam::Vec3;

use super::distance::ClosestPoints;
use super::mesh_walk::{nearest_triangle_by, touched_triangles_by};
use super::pair::{ContactData, PairResult, PairSide};
use crate::bounds::support_box;
use crate::bvh::distance::FrameBox;
use crate::bvh::{BoxNode, MeshSide, Surface, TreeRef};
use crate::geometry::epa;
use crate::geometry::gjk::{GjkCache, gjk_distance, gjk_intersect};
use crate::geometry::support::{PointSetSupport, SupportMap};
use crate::math::{Aabb, Pose};
use crate::shape::{Feature, SupportShape};

/// Two support-mapped shapes (either may have a margin): GJK for the
/// distance, EPA for the depth when they overlap; a boolean-only side (a
/// sensor, a world without depth) takes GJK's boolean test instead, as two
/// polytopes do, and computes no contact data.
pub(super) fn support_pair<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    (sa, a): (&A, &PairSide<'_>),
    (sb, b): (&B, &PairSide<'_>),
    cache: &mut GjkCache,
) -> PairResult {
    if a.boolean_only || b.boolean_only {
        // SOLID's coherent boolean test: the last separating axis first.
        let touching = gjk_intersect(sa, &a.pose, sb, &b.pose, cache);
        return PairResult::exact_without_contact(touching);
    }
    let g = gjk_distance(sa, &a.pose, sb, &b.pose, cache);
    let data = if !g.intersecting {
        let n = (g.point_b - g.point_a).normalize_or(Vec3::X);
        Some(ContactData::featureless(
            g.distance, 0.0, n, g.point_a, g.point_b,
        ))
    } else {
        let pen = epa::penetration(sa, &a.pose, sb, &b.pose, cache);
        let fallback = (b.pose.translation - a.pose.translation).normalize_or(Vec3::X);
        Some(match pen {
            Some(pen) => {
                ContactData::featureless(0.0, pen.depth, pen.normal, pen.point_a, pen.point_b)
            }
            None => ContactData::featureless(0.0, 0.0, fallback, g.point_a, g.point_b),
        })
    };
    PairResult {
        touching: g.intersecting,
        exact: true,
        contact: data,
        swept: false,
    }
}

/// A support-mapped shape (A) against the surface of a triangle mesh (B):
/// the triangles it touches, as pairs `[0, triangle]`.
pub(super) fn implicit_mesh<S: SupportShape>(
    s: &S,
    a: &PairSide<'_>,
    surface: Surface<'_>,
    b: &PairSide<'_>,
    pairs: &mut Vec<[u32; 2]>,
) -> PairResult {
    pairs.clear();
    let to_mesh = b.pose.inverse().mul(&a.pose);
    let first_only = a.boolean_only || b.boolean_only;
    let at = (s, &to_mesh);
    let touching = match surface.tree {
        TreeRef::Obb(t) => touched_triangles(at, &surface.side(t, b.pose), first_only, pairs),
        TreeRef::Aabb(t) => touched_triangles(at, &surface.side(t, b.pose), first_only, pairs),
    };
    PairResult::exact_without_contact(touching)
}

/// The triangles that `s` at `pose` (mesh frame) touches, as pairs `[0,
/// triangle]` (the first one only when `first_only`): the tree descended
/// with the shape's box in each node's frame, GJK at the leaves.
fn touched_triangles<S: SupportShape, N: BoxNode>(
    (s, pose): (&S, &Pose),
    side: &MeshSide<'_, N>,
    first_only: bool,
    pairs: &mut Vec<[u32; 2]>,
) -> bool {
    let mut cache = GjkCache::default();
    let near = |node_box| near_box(s, pose, node_box);
    touched_triangles_by(side, first_only, pairs, near, |tri| {
        touches_triangle((s, pose), tri, &mut cache)
    })
}

/// The per-triangle test of a support-mapped shape against a surface's
/// triangles (a mesh's, a height field's): GJK shape–triangle from a
/// fresh simplex.
#[inline]
pub(super) fn touches_triangle<S: SupportMap + ?Sized>(
    (s, pose): (&S, &Pose),
    tri: [Vec3; 3],
    cache: &mut GjkCache,
) -> bool {
    cache.reset();
    gjk_intersect(s, pose, &PointSetSupport(&tri), &Pose::IDENTITY, cache)
}

/// The box of `s` at `pose` (six supports), grown by the same relative
/// pad as the tree's box test ([`near_box`]): no triangle
/// [`touches_triangle`] finds lies outside it.
pub(super) fn shape_region<S: SupportShape>(s: &S, pose: &Pose) -> Aabb {
    let b = support_box(s, pose, s.reach());
    let size = s.reach() + pose.translation.abs().max_element();
    b.padded(1e-5 * size)
}

/// Conservative: the shape's box in the node's frame (six supports)
/// overlaps the node's box, grown by a relative pad against rounding (of
/// the node's center and half extents, `2⁻²⁴` of the coordinates, and of
/// GJK's touching tolerance).
fn near_box<S: SupportShape>(
    s: &S,
    pose: &Pose,
    (rotation, center, half): (glam::Quat, Vec3, Vec3),
) -> bool {
    let inv = rotation.conjugate();
    let in_node = Pose::new(inv * pose.rotation, inv * (pose.translation - center));
    let b = support_box(s, &in_node, s.reach());
    let size = half.max_element() + s.reach() + center.abs().max_element();
    let h = half + Vec3::splat(1e-5 * size);
    b.overlaps(&Aabb::new(-h, h))
}

/// Closest points of a support-mapped shape (`a`) and a surface (`b`): the
/// nearest triangle by branch and bound over the tree (a node's bound is
/// the gap between its box and the shape's box), GJK at the leaves.
pub(super) fn implicit_surface<S: SupportShape>(
    (s, pa): (&S, &Pose),
    (b, pb): (Surface<'_>, &Pose),
    pieces: [u32; 2],
) -> ClosestPoints {
    let to_mesh = pb.inverse().mul(pa);
    let found = match b.tree {
        TreeRef::Obb(t) => nearest_triangle((s, &to_mesh), &b.side(t, *pb)),
        TreeRef::Aabb(t) => nearest_triangle((s, &to_mesh), &b.side(t, *pb)),
    };
    let far = to_mesh.translation;
    let (d, on_shape, on_mesh, t) = found.unwrap_or((f32::INFINITY, far, far, 0));
    ClosestPoints {
        distance: d,
        point_a: pb.transform_point(on_shape),
        point_b: pb.transform_point(on_mesh),
        features: [Feature::Vertex(0), Feature::Face(t)],
        intersecting: d == 0.0,
        pieces,
    }
}

/// The triangle nearest to `s` at `pose` (mesh frame): distance, closest
/// points (mesh frame), triangle; GJK against each triangle the tree's
/// branch and bound reaches.
fn nearest_triangle<S: SupportShape, N: BoxNode>(
    (s, pose): (&S, &Pose),
    side: &MeshSide<'_, N>,
) -> Option<(f32, Vec3, Vec3, u32)> {
    let shape_box = FrameBox::of_box(&s.local_box(), pose);
    let mut cache = GjkCache::default();
    nearest_triangle_by(side, &shape_box, |tri| {
        cache.reset();
        let g = gjk_distance(s, pose, &PointSetSupport(&tri), &Pose::IDENTITY, &mut cache);
        (g.distance, g.point_a, g.point_b)
    })
}
