//! Distance and closest points when a triangle mesh is involved: two
//! surfaces by branch and bound over their trees
//! ([`crate::bvh::distance`]); a sphere or capsule against a surface by the
//! same search over the surface's tree with the core segment. Meshes are
//! surfaces here as in every mesh query: a shape inside a mesh, touching no
//! triangle, is some distance away from it; solids are solid (the one
//! rule of [`super::inside`]): a convex polytope against a mesh takes its
//! hull's surface, then, if they are apart, the mesh triangles inside it,
//! which gives 0 exactly when `intersects` says they touch.

use glam::Vec3;

use super::distance::ClosestPoints;
use super::inside::{self, INSIDE_SOLID};
use super::mesh_walk::nearest_triangle_by;
use crate::bvh::distance::FrameBox;
use crate::bvh::{BoxNode, DistanceLimit, MeshSide, Surface, TreeRef, distance_surfaces};
use crate::collider::ShapeData;
use crate::geometry::closest::segment_triangle;
use crate::math::Pose;
use crate::shape::{Feature, Rounded};

/// Closest points of two surfaces (meshes, or convex hulls' triangles);
/// `None` when a shape has no surface.
pub(super) fn surfaces(
    (a, pa): (&ShapeData, &Pose),
    (b, pb): (&ShapeData, &Pose),
    pieces: [u32; 2],
) -> Option<ClosestPoints> {
    let (sa, sb) = (a.surface()?, b.surface()?);
    let (found, _) = distance_surfaces((sa, *pa), (sb, *pb), DistanceLimit::EXACT, &mut Vec::new());
    let d = found?;
    if d.distance > 0.0
        && let Some(c) = mesh_inside_polytope((a, pa), (b, pb), pieces)
    {
        return Some(c);
    }
    Some(ClosestPoints {
        distance: d.distance,
        point_a: d.point_a,
        point_b: d.point_b,
        features: d.triangles.map(Feature::Face),
        intersecting: d.distance == 0.0,
        pieces,
    })
}

/// A polytope and a mesh apart by their surfaces, with a mesh triangle
/// inside the polytope (a solid, see [`super::inside`]): distance 0 at
/// that triangle's first vertex. `None` for other pairs.
fn mesh_inside_polytope(
    (a, pa): (&ShapeData, &Pose),
    (b, pb): (&ShapeData, &Pose),
    pieces: [u32; 2],
) -> Option<ClosestPoints> {
    let (poly, (mesh, pm), flip) = match (a.polytope(), b.polytope()) {
        (Some(p), None) => ((p, a.local_aabb(), pa), (b, pb), false),
        (None, Some(p)) => ((p, b.local_aabb(), pb), (a, pa), true),
        _ => return None,
    };
    let mut at = None;
    inside::triangles_inside(poly, (mesh.surface()?, pm), true, |t, v| at = Some((t, v)));
    let (t, v) = at?;
    let features = if flip {
        [Feature::Face(t), Feature::Face(INSIDE_SOLID)]
    } else {
        [Feature::Face(INSIDE_SOLID), Feature::Face(t)]
    };
    Some(ClosestPoints {
        distance: 0.0,
        point_a: v,
        point_b: v,
        features,
        intersecting: true,
        pieces,
    })
}

/// Closest points of a sphere or capsule (`a`) and a surface (`b`): the
/// nearest triangle to the core segment, less the radius (0 when the core
/// comes within the radius).
pub(super) fn rounded_surface(
    (r, pa): (&Rounded, &Pose),
    (b, pb): (Surface<'_>, &Pose),
    pieces: [u32; 2],
) -> ClosestPoints {
    let to_mesh = pb.inverse().mul(pa);
    let core = r.core().map(|p| to_mesh.transform_point(p));
    let found = match b.tree {
        TreeRef::Obb(t) => nearest_triangle(core, &b.side(t, *pb)),
        TreeRef::Aabb(t) => nearest_triangle(core, &b.side(t, *pb)),
    };
    let (d, on_core, on_mesh, t) = found.unwrap_or((f32::INFINITY, core[0], core[0], 0));
    let n = (on_mesh - on_core).normalize_or_zero();
    let reach = (d - r.radius).max(0.0);
    ClosestPoints {
        distance: reach,
        point_a: pb.transform_point(on_core + n * r.radius.min(d)),
        point_b: pb.transform_point(on_mesh),
        features: [Feature::Vertex(0), Feature::Face(t)],
        intersecting: d <= r.radius,
        pieces,
    }
}

/// The triangle nearest to the segment `core` (mesh frame) with the
/// distance and the closest points.
fn nearest_triangle<N: BoxNode>(
    core: [Vec3; 2],
    side: &MeshSide<'_, N>,
) -> Option<(f32, Vec3, Vec3, u32)> {
    let seg = FrameBox {
        axes: glam::Mat3::IDENTITY,
        center: (core[0] + core[1]) * 0.5,
        half: (core[1] - core[0]).abs() * 0.5,
    };
    nearest_triangle_by(side, &seg, |tri| segment_triangle(core[0], core[1], tri))
}
