//! Spheres and capsules ([`Rounded`]) against every kind. A rounded shape
//! is a core (point or segment) grown by a radius, so each test is a
//! distance between the core and the other shape, compared with the radius:
//!
//! - rounded – rounded: closest points of the two core segments (closed
//!   form, Ericson 2005, §5.1.9); touching when the distance is at most the
//!   sum of the radii;
//! - rounded – convex polytope: GJK on the core with the radius as margin
//!   (van den Bergen 1999), warm-started from the pair's simplex; EPA when
//!   the core itself enters the polytope (the same code as every pair of
//!   support-mapped shapes, `implicit::support_pair`);
//! - rounded – triangle mesh (a surface): the OBB tree descended with the
//!   core segment's box in each node's frame grown by the radius, then the
//!   exact segment–triangle distance at the leaves.
//!
//! The rounded shape is always side A here; [`super::test_pair`] flips the
//! pair in one place when it is side B.

use glam::{Quat, Vec3};

use super::mesh_walk::touched_triangles_by;
use super::pair::{ContactData, PairResult, PairSide};
use crate::bvh::{BoxNode, MeshSide, Surface, TreeRef};
use crate::geometry::closest::{segment_segment, segment_triangle_distance};
use crate::math::Pose;
use crate::shape::Rounded;

/// The core segment in world space.
pub(super) fn world_core(r: &Rounded, pose: &Pose) -> [Vec3; 2] {
    r.core().map(|p| pose.transform_point(p))
}

/// Two rounded shapes, closed form.
pub(super) fn rounded_rounded(
    ra: &Rounded,
    a: &PairSide<'_>,
    rb: &Rounded,
    b: &PairSide<'_>,
) -> PairResult {
    let ([p1, q1], [p2, q2]) = (world_core(ra, &a.pose), world_core(rb, &b.pose));
    let (ca, cb) = segment_segment(p1, q1, p2, q2);
    let d = ca.distance(cb);
    let reach = ra.radius + rb.radius;
    let n = (cb - ca)
        .try_normalize()
        .unwrap_or_else(|| (b.pose.translation - a.pose.translation).normalize_or(Vec3::X));
    let touching = d <= reach;
    let data = ContactData::featureless(
        (d - reach).max(0.0),
        (reach - d).max(0.0),
        n,
        ca + n * ra.radius,
        cb - n * rb.radius,
    );
    let boolean = a.boolean_only || b.boolean_only;
    PairResult::exact_with_contact(touching, boolean, || Some(data))
}

/// A rounded shape (A) against the surface of a triangle mesh (B): the
/// triangles within the radius of the core, as pairs `[0, triangle]`.
pub(super) fn rounded_mesh(
    r: &Rounded,
    a: &PairSide<'_>,
    surface: Surface<'_>,
    b: &PairSide<'_>,
    pairs: &mut Vec<[u32; 2]>,
) -> PairResult {
    pairs.clear();
    let to_mesh = b.pose.inverse().mul(&a.pose);
    let core = world_core(r, &to_mesh);
    let first_only = a.boolean_only || b.boolean_only;
    let touching = match surface.tree {
        TreeRef::Obb(t) => {
            near_triangles(r.radius, core, &surface.side(t, b.pose), first_only, pairs)
        }
        TreeRef::Aabb(t) => {
            near_triangles(r.radius, core, &surface.side(t, b.pose), first_only, pairs)
        }
    };
    PairResult::exact_without_contact(touching)
}

/// The triangles within `radius` of the segment `core` (mesh frame), as
/// pairs `[0, triangle]` (the first one only when `first_only`): the tree
/// descended with the segment's box in each node's frame grown by the
/// radius, the exact segment–triangle distance at the leaves.
fn near_triangles<N: BoxNode>(
    radius: f32,
    core: [Vec3; 2],
    side: &MeshSide<'_, N>,
    first_only: bool,
    pairs: &mut Vec<[u32; 2]>,
) -> bool {
    let near = |node_box| segment_near_box(core, radius, node_box);
    let touches = |tri| core_touches(core, radius, tri);
    touched_triangles_by(side, first_only, pairs, near, touches)
}

/// The per-triangle test of a sphere or capsule against a surface's
/// triangles (a mesh's, a height field's): the core segment within
/// `radius` of the triangle.
#[inline]
pub(super) fn core_touches(core: [Vec3; 2], radius: f32, tri: [Vec3; 3]) -> bool {
    segment_triangle_distance(core, tri) <= radius
}

/// A box (in the core's frame) holding every point within `radius` of
/// the segment `core`, grown by the same relative pad as the tree's box
/// test, so that no triangle [`core_touches`] is outside it.
pub(super) fn core_region([p, q]: [Vec3; 2], radius: f32) -> crate::math::Aabb {
    let size = p.abs().max(q.abs()).max_element();
    crate::math::Aabb::new(p.min(q), p.max(q)).padded(radius + 1e-5 * (size + radius))
}

/// Conservative: the box of the segment in the node's frame overlaps the
/// node's box grown by the radius (and a relative pad against rounding:
/// relative to the box's size, the segment's offset, the radius and the
/// box center's own distance from the origin, since an axis-aligned
/// node's center and half extents come from its corners, each off by up
/// to `2⁻²⁴` of the coordinates).
fn segment_near_box(
    [p, q]: [Vec3; 2],
    radius: f32,
    (rotation, center, half): (Quat, Vec3, Vec3),
) -> bool {
    let inv = rotation.conjugate();
    let (lp, lq) = (inv * (p - center), inv * (q - center));
    let size = half.max_element() + lp.abs().max_element() + center.abs().max_element();
    let pad = 1e-5 * (size + radius);
    let h = half + Vec3::splat(radius + pad);
    lp.min(lq).cmple(h).all() && (-h).cmple(lp.max(lq)).all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::{AabbTree, AabbTreeOptions, ObbTree, SplitRule};
    use crate::geometry::gjk::{GjkCache, gjk_distance};
    use crate::shape::TriMesh;
    use crate::testkit::{Rng, torus};
    use glam::Quat;

    /// Spheres and capsules grazing a mesh far from its own origin (its
    /// vertices near 10⁴): the triangles the tree finds are those every
    /// triangle's test finds (the same segment–triangle distance), for
    /// both tree kinds, unscaled and scaled. The box test's pad counts the
    /// box center's size: a node's center and half extents from its
    /// corners are off by `2⁻²⁴` of the coordinates.
    #[test]
    fn near_triangles_of_a_mesh_far_from_its_origin() {
        let (v, t) = torus(0.3, 0.1, 40, 20);
        let far = Vec3::new(1.0e4, -0.6e4, 0.2e4);
        let mesh = TriMesh::new(v.iter().map(|p| *p + far).collect(), t).expect("mesh");
        let obb = ObbTree::build(mesh.vertices(), mesh.triangles(), SplitRule::Mean, 1);
        let aabb = AabbTree::build_mesh(&mesh, &AabbTreeOptions::default());
        let mut rng = Rng::new(43);
        let (mut pairs, mut hits) = (Vec::new(), 0);
        for k in 0..4000 {
            let s = if k % 2 == 0 {
                Vec3::ONE
            } else {
                rng.vec(0.5, 2.0)
            };
            let o = MeshSide::new(&mesh, &obb, Pose::IDENTITY).with_scale(s);
            let x = MeshSide::new(&mesh, &aabb, Pose::IDENTITY).with_scale(s);
            let vertex = mesh.vertices()[rng.below(mesh.vertices().len())] * s;
            let radius = rng.range(1e-3, 2e-2);
            let c = vertex + rng.unit_vector() * radius;
            let core = [c, c + rng.unit_vector() * rng.range(0.0, 1e-2)];
            let want: Vec<[u32; 2]> = (0..mesh.triangles().len() as u32)
                .filter(|&t| segment_triangle_distance(core, o.triangle(t)) <= radius)
                .map(|t| [0, t])
                .collect();
            hits += usize::from(!want.is_empty());
            pairs.clear();
            near_triangles(radius, core, &o, false, &mut pairs);
            assert_eq!(
                pairs, want,
                "core {core:?}, radius {radius}, scale {s}: OBB tree"
            );
            pairs.clear();
            near_triangles(radius, core, &x, false, &mut pairs);
            assert_eq!(
                pairs, want,
                "core {core:?}, radius {radius}, scale {s}: AABB tree"
            );
        }
        assert!(hits > 2000, "{hits} of 4000 touch");
    }

    #[test]
    fn gjk_with_margins_matches_the_closed_form() {
        let mut rng = crate::testkit::Rng::new(3);
        for _ in 0..2000 {
            let a = Rounded {
                half_height: rng.range(0.0, 0.3),
                radius: rng.range(0.05, 0.3),
            };
            let b = Rounded {
                half_height: rng.range(0.0, 0.3),
                radius: rng.range(0.05, 0.3),
            };
            let pa = Pose::new(rng.rotation(), rng.in_cube(0.5));
            let pb = Pose::new(Quat::IDENTITY * rng.rotation(), rng.in_cube(0.5));
            let ([p1, q1], [p2, q2]) = (world_core(&a, &pa), world_core(&b, &pb));
            let (x, y) = segment_segment(p1, q1, p2, q2);
            let want = (x.distance(y) - a.radius - b.radius).max(0.0);
            let g = gjk_distance(&a, &pa, &b, &pb, &mut GjkCache::default());
            assert!((g.distance - want).abs() < 1e-4, "{} vs {want}", g.distance);
        }
    }
}
