//! The one "inside" rule: solids contain, a triangle mesh is a surface.
//!
//! Spheres, capsules and convex polytopes (and the convex pieces of a
//! compound) are solids; a triangle mesh is its triangles and nothing
//! between them (as in parry, where a `TriMesh` is a set of triangles and
//! a convex shape is solid). Two shapes touch when they share a point, so:
//!
//! - a mesh wholly inside a solid touches it (its triangles are points of
//!   the solid): a sphere or capsule finds it by the distance from its core
//!   (`rounded.rs`), a convex polytope here;
//! - anything wholly inside a closed mesh, touching none of its triangles,
//!   is apart from it, mesh or solid alike.
//!
//! A polytope's pair with a mesh is first a surface query (the hull's
//! triangles against the mesh's). When no triangle crosses the hull's
//! surface, each mesh triangle lies wholly inside the polytope or wholly
//! outside, so one vertex per triangle decides: the mesh's tree is
//! descended with the polytope's box, and a vertex on the inner side of
//! every face plane (to within a few ulps of the pair's size, counted
//! inside: a contact is never dropped) is inside.

use glam::{Mat3, Quat, Vec3};

use crate::bvh::{BoxNode, MeshSide, Surface, TreeRef};
use crate::math::{Aabb, Pose};
use crate::shape::ConvexPolytope;

/// The index that stands for a solid's side in a mesh pair's triangle
/// pairs when a mesh triangle lies inside the solid without crossing its
/// surface: `[INSIDE_SOLID, triangle]` (or `[triangle, INSIDE_SOLID]`).
pub const INSIDE_SOLID: u32 = u32::MAX;

/// Calls `found(triangle, vertex)` for the mesh triangles (the first one
/// only with `first_only`) whose first vertex (`vertex`, world space) lies
/// inside the polytope, and returns whether there was one. Meant for a
/// pair in which no mesh triangle crosses the polytope's surface (see the
/// module docs); `poly_box` is the polytope's own box.
pub(crate) fn triangles_inside(
    (poly, poly_box, poly_pose): (&ConvexPolytope, Aabb, &Pose),
    (mesh, mesh_pose): (Surface<'_>, &Pose),
    first_only: bool,
    mut found: impl FnMut(u32, Vec3),
) -> bool {
    let to_mesh = mesh_pose.inverse().mul(poly_pose);
    let region = poly_box.transformed(&to_mesh);
    let to_poly = poly_pose.inverse().mul(mesh_pose);
    let mut inside = |t: u32, v: Vec3| {
        let p = to_poly.transform_point(v);
        let tol = 8.0 * f32::EPSILON * (p.abs().max_element() + poly.radius());
        let within = (0..poly.faces().len() as u32).all(|f| poly.face_distance(f, p) <= tol);
        if within {
            found(t, mesh_pose.transform_point(v));
        }
        within
    };
    match mesh.tree {
        TreeRef::Obb(t) => descend(&mesh.side(t, *mesh_pose), &region, first_only, &mut inside),
        TreeRef::Aabb(t) => descend(&mesh.side(t, *mesh_pose), &region, first_only, &mut inside),
    }
}

/// The tree descended with `region` (mesh frame): `test(triangle, its
/// first vertex)` at the leaves whose boxes overlap it, until one passes
/// when `first_only`.
fn descend<N: BoxNode>(
    side: &MeshSide<'_, N>,
    region: &Aabb,
    first_only: bool,
    test: &mut impl FnMut(u32, Vec3) -> bool,
) -> bool {
    let tree = side.tree;
    let mut any = false;
    let mut stack: smallvec::SmallVec<[u32; 64]> = smallvec::SmallVec::new();
    if !tree.nodes.is_empty() {
        stack.push(0);
    }
    let (region_center, region_half) = (region.center(), region.half_extents());
    while let Some(n) = stack.pop() {
        if !box_meets_region(side.node_box(n), region_center, region_half) {
            continue;
        }
        let node = &tree.nodes[n as usize];
        if !node.is_leaf() {
            stack.push(node.first() + 1);
            stack.push(node.first());
            continue;
        }
        for &t in tree.leaf_primitives(n as usize) {
            if test(t, side.triangle(t)[0]) {
                any = true;
                if first_only {
                    return true;
                }
            }
        }
    }
    any
}

/// Whether a node's oriented box (mesh frame) can meet the region (an
/// axis-aligned box, mesh frame): no separating axis among the six face
/// normals of the two boxes, with a relative pad against rounding
/// (conservative: a meeting pair is never culled).
pub(super) fn box_meets_region(
    (rotation, center, half): (Quat, Vec3, Vec3),
    rc: Vec3,
    rh: Vec3,
) -> bool {
    let r = Mat3::from_quat(rotation);
    let abs = Mat3::from_cols(r.x_axis.abs(), r.y_axis.abs(), r.z_axis.abs());
    let d = rc - center;
    let size = center.abs().max_element() + rc.abs().max_element();
    let pad = 8.0 * f32::EPSILON * (size + half.max_element() + rh.max_element());
    // The region's axes (the mesh frame's x, y, z), then the node's own.
    let on_region = d.abs().cmple(abs * half + rh + Vec3::splat(pad)).all();
    let on_node = (r.transpose() * d)
        .abs()
        .cmple(half + abs.transpose() * rh + Vec3::splat(pad));
    on_region && on_node.all()
}
