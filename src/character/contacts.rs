//! The touches of a shape at a pose: every convex part of the shape
//! against every convex part of each nearby body (polytopes, spheres,
//! capsules, compound pieces, mesh triangles), within a reach.
//!
//! A pair of parts apart is measured by GJK (distance and closest points:
//! the normal is their direction); a pair touching or overlapping by EPA
//! (depth and the shortest separating direction; van den Bergen 2001).
//! A triangle mesh is its triangles, each a flat convex part: a mesh is a
//! surface, as everywhere in the crate, and a shape near a wall and a
//! floor of one mesh gets one touch per triangle within reach, so the
//! slide sees the crease between them.

use glam::Vec3;
use smallvec::SmallVec;

use crate::bvh::collide::BoxNode;
use crate::bvh::{Bvh, Surface, TreeRef};
use crate::collider::ShapeData;
use crate::geometry::closest::{point_triangle, segment_triangle};
use crate::geometry::epa;
use crate::geometry::gjk::{GjkCache, gjk_distance};
use crate::geometry::support::{PointSetSupport, SupportMap};
use crate::math::{Aabb, Pose};
use crate::pipeline::BodyHandle;
use crate::query::PairSide;
use crate::shape::{HalfSpace, Rounded};

/// One touch of the sliding shape: a part of a body within reach.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    /// The body touched.
    pub body: BodyHandle,
    /// Distance between the parts; negative: penetration depth.
    pub gap: f32,
    /// Unit normal, world space, from the body toward the sliding shape:
    /// moving the shape along it separates them.
    pub normal: Vec3,
    /// Closest (or deepest) point on the body, world space.
    pub point: Vec3,
    /// The body's compound piece (0 for a body that is not a compound).
    pub piece: u32,
    /// The body's triangle, for a mesh (or a compound's mesh piece).
    pub triangle: Option<u32>,
}

/// A convex part, world space: a support map at a pose, or a triangle.
#[derive(Clone, Copy)]
enum Shape<'a> {
    Convex(&'a dyn SupportMap, Pose),
    /// A sphere or capsule (its core segment and radius: closed forms
    /// against a triangle).
    Rounded(&'a Rounded, Pose),
    Triangle([Vec3; 3]),
    HalfSpace(&'a HalfSpace, Pose),
}

/// A convex part and where it comes from.
#[derive(Clone, Copy)]
struct Part<'a> {
    shape: Shape<'a>,
    piece: u32,
    triangle: Option<u32>,
}

/// The convex parts of a shape at `pose` (a mesh with its `surface`,
/// deformed or scaled) whose box may come within `region`: polytopes and
/// rounded shapes whole, compounds by piece, meshes by triangle.
fn parts<'a>(
    (shape, pose, surface): (&'a ShapeData, Pose, Option<Surface<'a>>),
    region: &Aabb,
    out: &mut SmallVec<[Part<'a>; 16]>,
) {
    match shape.compound() {
        Some(c) => {
            for (i, p) in (0..).zip(c.pieces()) {
                let at = pose.mul(&p.pose);
                piece_parts((&p.shape, at, p.shape.surface()), i, region, out);
            }
        }
        None => piece_parts((shape, pose, surface), 0, region, out),
    }
}

/// [`parts`] of one non-compound piece.
fn piece_parts<'a>(
    (shape, pose, surface): (&'a ShapeData, Pose, Option<Surface<'a>>),
    piece: u32,
    region: &Aabb,
    out: &mut SmallVec<[Part<'a>; 16]>,
) {
    if let Some(r) = shape.rounded() {
        out.push(Part {
            shape: Shape::Rounded(r, pose),
            piece,
            triangle: None,
        });
        return;
    }
    if let Some(h) = shape.half_space() {
        out.push(Part {
            shape: Shape::HalfSpace(h, pose),
            piece,
            triangle: None,
        });
        return;
    }
    let convex: Option<&'a dyn SupportMap> = shape.kind().data().support_map();
    if let Some(map) = convex {
        out.push(Part {
            shape: Shape::Convex(map, pose),
            piece,
            triangle: None,
        });
        return;
    }
    if let Some(field) = shape.heightfield() {
        let local = mesh_region(region, &pose, Vec3::ONE);
        let _ = field.for_each_triangle_in(&local, |t, tri| {
            out.push(Part {
                shape: Shape::Triangle(tri.map(|v| pose.transform_point(v))),
                piece,
                triangle: Some(t),
            });
            std::ops::ControlFlow::Continue(())
        });
        return;
    }
    let Some(surface) = surface else { return };
    let local = mesh_region(region, &pose, surface.scale);
    let mut found: SmallVec<[u32; 32]> = SmallVec::new();
    match surface.tree {
        TreeRef::Aabb(t) => triangles_in(t, &local, &mut found),
        TreeRef::Obb(t) => triangles_in(t, &local, &mut found),
    }
    for t in found {
        let [a, b, c] = surface.mesh.triangle(t as usize);
        let world = |v: Vec3| pose.transform_point(v * surface.scale);
        out.push(Part {
            shape: Shape::Triangle([world(a), world(b), world(c)]),
            piece,
            triangle: Some(t),
        });
    }
}

/// A world box as a box in a mesh's unscaled frame holding it (the box of
/// the rotated box, divided by the scale; padded by a few ulps so rounding
/// never drops a triangle).
fn mesh_region(region: &Aabb, pose: &Pose, scale: Vec3) -> Aabb {
    let local = region.transformed(&pose.inverse());
    let (a, b) = (local.min / scale, local.max / scale);
    let b = Aabb::new(a.min(b), a.max(b));
    let ulps = b.min.abs().max(b.max.abs()).max_element() * 4.0 * f32::EPSILON;
    b.padded(ulps)
}

/// The triangles of the leaves of `tree` whose boxes overlap `region`
/// (the tree's frame).
fn triangles_in<N: BoxNode>(tree: &Bvh<N>, region: &Aabb, out: &mut SmallVec<[u32; 32]>) {
    if tree.nodes.is_empty() {
        return;
    }
    let mut stack: SmallVec<[usize; 32]> = smallvec::smallvec![0];
    while let Some(i) = stack.pop() {
        let node = &tree.nodes[i];
        let half = glam::Mat3::from_quat(node.rotation()).abs() * node.half_extents();
        let bx = Aabb::from_center_half_extents(node.center(), half);
        if !bx.overlaps(region) {
            continue;
        }
        if node.is_leaf() {
            out.extend_from_slice(tree.leaf_primitives(i));
        } else {
            let first = node.first() as usize;
            stack.extend([first, first + 1]);
        }
    }
}

/// Every touch within `reach` (gap below it) of `shape` at `pose` with one
/// body's side, appended to `out`.
pub(crate) fn body_contacts(
    (shape, pose): (&ShapeData, &Pose),
    (id, body): (BodyHandle, &PairSide<'_>),
    (shape_box, reach): (&Aabb, f32),
    cache: &mut GjkCache,
    out: &mut Vec<Touch>,
) {
    let body_box = body.tight.padded(reach);
    let near_body = shape_box.padded(reach);
    let mut mine = SmallVec::new();
    parts((shape, *pose, shape.surface()), &body_box, &mut mine);
    let mut theirs = SmallVec::new();
    parts(
        (body.shape, body.pose, body.surface()),
        &near_body,
        &mut theirs,
    );
    for a in &mine {
        for b in &theirs {
            if let Some(c) = part_contact(a, b, (id, reach), cache) {
                out.push(c);
            }
        }
    }
}

/// The touch of two convex parts, if within `reach`.
fn part_contact(
    a: &Part<'_>,
    b: &Part<'_>,
    (body, reach): (BodyHandle, f32),
    cache: &mut GjkCache,
) -> Option<Touch> {
    let contact = |gap: f32, normal: Vec3, point: Vec3| Touch {
        body,
        gap,
        normal,
        point,
        piece: b.piece,
        triangle: b.triangle,
    };
    if let (Shape::Rounded(r, pose), Shape::Triangle(t)) = (&a.shape, &b.shape)
        && let Some((d, x, y)) = rounded_triangle(r, pose, t, reach)
    {
        return (d - r.radius < reach).then(|| contact(d - r.radius, (x - y) / d, y));
    }
    let (mut tri_a, mut tri_b) = (None, None);
    // A sliding half-space touches nothing it could slide along.
    let (ma, pa) = support_of(&a.shape, &mut tri_a)?;
    if let Shape::HalfSpace(h, ph) = &b.shape {
        // The part's deepest point along the inward normal.
        let l = h.lowest(ph, (ma, &pa));
        return (l.d < reach).then(|| contact(l.d, l.normal, l.on_plane));
    }
    let (mb, pb) = support_of(&b.shape, &mut tri_b)?;
    cache.reset();
    let r = gjk_distance(ma, &pa, mb, &pb, cache);
    if r.distance >= reach {
        return None;
    }
    let d = r.point_a - r.point_b;
    let from_points = (!r.intersecting && d.length() > 0.0)
        .then(|| contact(r.distance, d.normalize(), r.point_b));
    // A direction from points at least a thousandth of the reach apart
    // (closer points give a rounded normal): else EPA's, if it finds an
    // overlap.
    if !r.intersecting && r.distance > 1e-3 * reach {
        return from_points;
    }
    cache.reset();
    let p = epa::penetration(ma, &pa, mb, &pb, cache)
        .filter(|p| p.normal.is_finite() && p.normal != Vec3::ZERO && p.depth.is_finite());
    match p {
        Some(p) => Some(contact(-p.depth, -p.normal.normalize(), p.point_b)),
        None => from_points,
    }
}

/// A part as a support map at a pose (`tri` holds a triangle's); `None`
/// for a half-space (no support map).
fn support_of<'a>(
    shape: &'a Shape<'a>,
    tri: &'a mut Option<PointSetSupport<'a>>,
) -> Option<(&'a dyn SupportMap, Pose)> {
    Some(match shape {
        Shape::Convex(m, p) => (*m, *p),
        Shape::Rounded(r, p) => (*r, *p),
        Shape::Triangle(t) => (tri.insert(PointSetSupport(t)), Pose::IDENTITY),
        Shape::HalfSpace(..) => return None,
    })
}

/// The closest points of a sphere's or capsule's core and a triangle,
/// `(distance, on the core, on the triangle)`, in closed form (the
/// narrow phase's rounded–mesh measure): `None` when the core comes
/// within a thousandth of `reach` of the triangle (the direction between
/// the points is then rounding: EPA's is used).
fn rounded_triangle(
    r: &Rounded,
    pose: &Pose,
    t: &[Vec3; 3],
    reach: f32,
) -> Option<(f32, Vec3, Vec3)> {
    let [p, q] = r.core().map(|v| pose.transform_point(v));
    let (d, x, y) = if r.half_height > 0.0 {
        segment_triangle(p, q, *t)
    } else {
        let y = point_triangle(p, *t);
        (p.distance(y), p, y)
    };
    (d > 1e-3 * reach && d.is_finite()).then_some((d, x, y))
}
