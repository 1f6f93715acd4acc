//! Ray casts against a tree of boxes (OBB or AABB): descend the boxes the
//! ray reaches (slab test in each box's frame, padded against rounding),
//! and test the leaves' triangles (Möller–Trumbore).

use super::collide::{BoxNode, MeshSide};
use super::surface::{Surface, TreeRef};
use super::tree::Bvh;
use crate::geometry::ray::{Ray, RayHit, ray_hits_box, ray_triangle};
use crate::math::Pose;
use crate::shape::TriMesh;

/// Relative padding of the boxes in the slab test: a ray grazing a box is
/// never culled by rounding. Relative to the box's size, the ray origin's
/// distance from its center, and the center's own distance from the
/// origin: the center and half extents of an axis-aligned node come from
/// its corners, each off by up to `2⁻²⁴` of the corners' coordinates,
/// which a box small and far from its tree's origin does not show in its
/// size (a ray from 10⁻² away grazing a triangle of a model at 10⁴ was
/// culled without the last term).
const PAD: f32 = 1e-5;

/// The first triangle `ray` (mesh frame) meets within `max_toi`; among
/// triangles hit at the same parameter, the smallest index.
pub fn ray_cast_tree<N: BoxNode>(
    mesh: &TriMesh,
    tree: &Bvh<N>,
    ray: &Ray,
    max_toi: f32,
    stack: &mut Vec<u32>,
) -> Option<RayHit> {
    ray_cast_side(
        &MeshSide::new(mesh, tree, Pose::IDENTITY),
        ray,
        max_toi,
        stack,
    )
}

/// [`ray_cast_tree`] on a side's mesh scaled as the side says (its pose is
/// not used: `ray` is in the side's frame). The triangles are scaled as they
/// are visited, so the answer is the one of the scaled triangles.
pub fn ray_cast_side<N: BoxNode>(
    side: &MeshSide<'_, N>,
    ray: &Ray,
    max_toi: f32,
    stack: &mut Vec<u32>,
) -> Option<RayHit> {
    let tree = side.tree;
    if tree.nodes.is_empty() {
        return None;
    }
    let mut best: Option<(f32, u32)> = None;
    stack.clear();
    stack.push(0);
    while let Some(n) = stack.pop() {
        let node = &tree.nodes[n as usize];
        let limit = best.map_or(max_toi, |b| b.0);
        let (rotation, center, half) = side.node_box(n);
        let inv = rotation.conjugate();
        let (o, d) = (inv * (ray.origin - center), inv * ray.dir);
        let pad = PAD * (half.max_element() + o.length() + center.abs().max_element());
        if !ray_hits_box(o, d, half, pad, limit) {
            continue;
        }
        if !node.is_leaf() {
            stack.push(node.first() + 1);
            stack.push(node.first());
            continue;
        }
        for &t in tree.leaf_primitives(n as usize) {
            let limit = best.map_or(max_toi, |b| b.0);
            if let Some(toi) = ray_triangle(ray, side.triangle(t), limit)
                && best.is_none_or(|(bt, bi)| toi < bt || (toi == bt && t < bi))
            {
                best = Some((toi, t));
            }
        }
    }
    best.map(|(toi, t)| {
        let [a, b, c] = side.triangle(t);
        let n = (b - a).cross(c - a).normalize_or_zero();
        RayHit {
            piece: 0,
            toi,
            normal: if n.dot(ray.dir) > 0.0 { -n } else { n },
            feature: t,
        }
    })
}

/// [`ray_cast_tree`] on a surface (scaled as it says), whichever its tree.
pub fn ray_cast_surface(
    surface: Surface<'_>,
    ray: &Ray,
    max_toi: f32,
    stack: &mut Vec<u32>,
) -> Option<RayHit> {
    match surface.tree {
        TreeRef::Obb(t) => ray_cast_side(&surface.side(t, Pose::IDENTITY), ray, max_toi, stack),
        TreeRef::Aabb(t) => ray_cast_side(&surface.side(t, Pose::IDENTITY), ray, max_toi, stack),
    }
}
