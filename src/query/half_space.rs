//! A half-space ([`HalfSpace`], side A here) against every kind, closed
//! form: a convex shape's deepest point is its support point along the
//! inward normal `-n` (the separating-axis test on the one axis a
//! half-space has), its signed distance `n · p` in the half-space's frame
//! (the pose of B relative to A, as every pair test computes); a triangle
//! mesh (a surface) touches it where a triangle has a vertex on or below
//! the plane, found by descending its tree with each node box's lowest
//! point; two half-spaces meet unless their normals are opposite and
//! their planes apart. [`super::test_pair`] flips the pair in one place
//! when the half-space is side B.

use glam::{Quat, Vec3};

use super::distance::ClosestPoints;
use super::mesh_walk::touched_triangles_by;
use super::pair::{ContactData, PairResult, PairSide};
use crate::bvh::{BoxNode, MeshSide, Surface, TreeRef};
use crate::geometry::epa::Penetration;
use crate::geometry::support::SupportMap;
use crate::math::Pose;
use crate::shape::{Feature, HalfSpace, Lowest};

fn contact(l: &Lowest) -> ContactData {
    let (d, n) = (l.d, l.normal);
    ContactData::featureless(d.max(0.0), (-d).max(0.0), n, l.on_plane, l.point)
}

/// The half-space (A) and a convex shape (B).
pub(super) fn half_space_convex<S: SupportMap + ?Sized>(
    h: &HalfSpace,
    a: &PairSide<'_>,
    s: &S,
    b: &PairSide<'_>,
) -> PairResult {
    let l = h.lowest(&a.pose, (s, &b.pose));
    let touching = l.d <= 0.0;
    let boolean = a.boolean_only || b.boolean_only;
    PairResult::exact_with_contact(touching, boolean, || Some(contact(&l)))
}

/// The half-space (A) and a mesh's surface (B): the triangles with a
/// vertex on or below the plane, as pairs `[0, triangle]`.
pub(super) fn half_space_mesh(
    h: &HalfSpace,
    a: &PairSide<'_>,
    surface: Surface<'_>,
    b: &PairSide<'_>,
    pairs: &mut Vec<[u32; 2]>,
) -> PairResult {
    pairs.clear();
    let first_only = a.boolean_only || b.boolean_only;
    let plane = plane_in(h, &a.pose, &b.pose);
    let touching = match surface.tree {
        TreeRef::Obb(t) => below(plane, &surface.side(t, b.pose), first_only, pairs),
        TreeRef::Aabb(t) => below(plane, &surface.side(t, b.pose), first_only, pairs),
    };
    PairResult::exact_without_contact(touching)
}

/// The plane `n · x = c` of `h` at `pose_h` in the frame of `pose`.
fn plane_in(h: &HalfSpace, pose_h: &Pose, pose: &Pose) -> (Vec3, f32) {
    let rel = pose.inverse().mul(pose_h);
    let n = rel.rotation * h.normal;
    (n, n.dot(rel.translation))
}

/// The triangles of `side` with a vertex on or below `n · x = c` (mesh
/// frame): a node entered when its box's lowest point is (within a
/// relative pad against rounding).
fn below<N: BoxNode>(
    (n, c): (Vec3, f32),
    side: &MeshSide<'_, N>,
    first_only: bool,
    pairs: &mut Vec<[u32; 2]>,
) -> bool {
    let near = |(rot, center, half): (Quat, Vec3, Vec3)| {
        let low = n.dot(center) - (rot.conjugate() * n).abs().dot(half);
        let size = c.abs() + center.abs().max_element() + half.max_element();
        low <= c + 1e-5 * size
    };
    let touches = |tri: [Vec3; 3]| tri.iter().any(|v| n.dot(*v) <= c);
    touched_triangles_by(side, first_only, pairs, near, touches)
}

/// Closest points of the half-space (A) and a mesh's surface (B): its
/// lowest vertex (every triangle visited).
pub(super) fn half_space_surface(
    (h, pa): (&HalfSpace, &Pose),
    (surface, pb): (Surface<'_>, &Pose),
    pieces: [u32; 2],
) -> ClosestPoints {
    let (n, c) = plane_in(h, pa, pb);
    let lowest_of = |side_tri: &dyn Fn(u32) -> [Vec3; 3]| {
        let mut best = (f32::INFINITY, Vec3::ZERO, 0);
        for t in 0..surface.mesh.triangles().len() as u32 {
            for v in side_tri(t) {
                let d = n.dot(v) - c;
                if d < best.0 {
                    best = (d, v, t);
                }
            }
        }
        best
    };
    let (d, v, t) = match surface.tree {
        TreeRef::Obb(tr) => {
            let side = surface.side(tr, *pb);
            lowest_of(&|t| side.triangle(t))
        }
        TreeRef::Aabb(tr) => {
            let side = surface.side(tr, *pb);
            lowest_of(&|t| side.triangle(t))
        }
    };
    ClosestPoints {
        distance: d.max(0.0),
        point_a: pb.transform_point(v - d * n),
        point_b: pb.transform_point(v),
        features: [Feature::Vertex(0), Feature::Face(t)],
        intersecting: d <= 0.0,
        pieces,
    }
}

/// Two half-spaces (A, B): apart only when their normals are opposite
/// (`|n_a × n_b| <= 2⁻²⁰`) and B's plane lies above A's; then the gap and
/// the depth are along `n_a`. Overlapping with other normals, their
/// overlap is unbounded: touching, no contact data, both witnesses one
/// point in both ([`common_point`]).
pub(super) fn half_spaces(
    (h, pa): (&HalfSpace, &Pose),
    (g, pb): (&HalfSpace, &Pose),
) -> (ClosestPoints, Option<ContactData>) {
    let (na, nb) = (pa.rotation * h.normal, pb.rotation * g.normal);
    let opposite = na.dot(nb) < 0.0 && na.cross(nb).length() <= 2f32.powi(-20);
    // B's plane along n_a, from A's plane.
    let gap = na.dot(pb.translation - pa.translation);
    let on_a = pa.translation;
    let apart = opposite && gap > 0.0;
    let (point_a, point_b) = if opposite {
        (on_a, on_a + gap * na)
    } else {
        let p = common_point((na, on_a), (nb, pb.translation));
        (p, p)
    };
    let c = ClosestPoints {
        distance: if apart { gap } else { 0.0 },
        point_a,
        point_b,
        features: [Feature::Vertex(0); 2],
        intersecting: !apart,
        pieces: [0, 0],
    };
    let data = opposite
        .then(|| ContactData::featureless(gap.max(0.0), (-gap).max(0.0), na, on_a, point_b));
    (c, data)
}

/// A point in both of two half-spaces whose normals are not opposite
/// (planes through `ta` and `tb`): `ta` when it is in B; else, for normals
/// within 60° of each other, `ta` moved along `-n_a` onto B's plane;
/// else the point of both planes nearest `ta` (on their line of
/// intersection, `|n_a × n_b|² ≥ 2⁻⁴⁰` away from parallel here).
/// Computed in `f64`: the line is far when the normals are nearly
/// opposite, and its offset divides by `|n_a × n_b|²`.
fn common_point((na, ta): (Vec3, Vec3), (nb, tb): (Vec3, Vec3)) -> Vec3 {
    let (na, nb) = (na.as_dvec3(), nb.as_dvec3());
    let d = nb.dot(tb.as_dvec3() - ta.as_dvec3());
    if d >= 0.0 {
        return ta;
    }
    let c = na.dot(nb);
    let step = if c > 0.5 {
        na * (d / c)
    } else {
        (nb - na * c) * (d / na.cross(nb).length_squared())
    };
    ta + step.as_vec3()
}

/// The pair test of two half-spaces (see [`half_spaces`]).
pub(super) fn half_space_pair(
    h: &HalfSpace,
    a: &PairSide<'_>,
    g: &HalfSpace,
    b: &PairSide<'_>,
) -> PairResult {
    let (c, data) = half_spaces((h, &a.pose), (g, &b.pose));
    let boolean = a.boolean_only || b.boolean_only;
    PairResult::exact_with_contact(c.intersecting, boolean, || data)
}

/// Closest points of the half-space (A) and a convex shape (B).
pub(super) fn half_space_closest<S: SupportMap + ?Sized>(
    (h, pa): (&HalfSpace, &Pose),
    (s, pb): (&S, &Pose),
    pieces: [u32; 2],
) -> ClosestPoints {
    let l = h.lowest(pa, (s, pb));
    ClosestPoints {
        distance: l.d.max(0.0),
        point_a: l.on_plane,
        point_b: l.point,
        features: [Feature::Vertex(0); 2],
        intersecting: l.d <= 0.0,
        pieces,
    }
}

/// The penetration of the half-space (A) and a convex shape (B), `None`
/// when apart.
pub(super) fn half_space_penetration<S: SupportMap + ?Sized>(
    (h, pa): (&HalfSpace, &Pose),
    (s, pb): (&S, &Pose),
) -> Option<Penetration> {
    let l = h.lowest(pa, (s, pb));
    (l.d <= 0.0).then_some(Penetration {
        depth: -l.d,
        normal: l.normal,
        point_a: l.on_plane,
        point_b: l.point,
    })
}
