//! Ray casts on shapes: Cyrus–Beck clipping against a convex polytope's
//! face planes (Cyrus, Beck 1978: the ray enters at the largest entering
//! parameter and leaves at the smallest leaving one), closed form for
//! spheres, capsules, cylinders and cones, the OBB tree with Möller–Trumbore at the leaves for
//! a mesh, the nearest piece's hit for a compound.
//!
//! A ray is `origin + t · dir` for `0 <= t <= max_toi`; `dir` need not be
//! unit length (`toi` is in units of `dir`).

use glam::Vec3;

use super::QueryError;
use super::pair::PairSide;
use crate::bvh::ray::ray_cast_surface;
use crate::collider::{ShapeKind, SharedShape};
use crate::geometry::closest::point_segment;
use crate::geometry::ray::{Ray, RayHit, smallest_root};
use crate::math::Pose;
use crate::shape::{ConvexPolytope, Rounded};

/// The first point where `ray` (world space) meets `shape` at `pose`,
/// within `max_toi` (in units of `ray.dir`). The hit's normal is in world
/// space; `feature` is the face (convex) or triangle (mesh). A ray starting
/// inside a convex shape hits at `toi = 0`; a mesh is a surface, hit where
/// the ray crosses a triangle.
///
/// Errors: [`QueryError::InvalidPose`], and [`QueryError::InvalidRay`] for
/// a NaN or infinite origin or direction or a NaN or negative `max_toi`
/// (`f32::INFINITY` is an unbounded ray); such a ray never hits.
pub fn ray_cast(
    shape: &SharedShape,
    pose: &Pose,
    ray: &Ray,
    max_toi: f32,
) -> Result<Option<RayHit>, QueryError> {
    ray_cast_side(&PairSide::of(shape, pose), ray, max_toi)
}

/// [`ray_cast`] on a pair side (a deformable body's side casts against its
/// current surface).
pub(crate) fn ray_cast_side(
    side: &PairSide<'_>,
    ray: &Ray,
    max_toi: f32,
) -> Result<Option<RayHit>, QueryError> {
    let (shape, pose) = (side.shape, &side.pose);
    pose.validate().map_err(QueryError::InvalidPose)?;
    ray.check(max_toi).map_err(QueryError::InvalidRay)?;
    if let Some(c) = shape.compound() {
        let mut best: Option<RayHit> = None;
        for (i, p) in (0..).zip(c.pieces()) {
            let hit = ray_cast(&p.shape, &pose.mul(&p.pose), ray, max_toi)?;
            if let Some(h) = hit.filter(|h| best.is_none_or(|b| h.toi < b.toi)) {
                best = Some(RayHit { piece: i, ..h });
            }
        }
        return Ok(best);
    }
    let inv = pose.inverse();
    let local = Ray::new(
        inv.transform_point(ray.origin),
        inv.transform_vector(ray.dir),
    );
    let hit = match shape.kind() {
        ShapeKind::Convex(p) => ray_polytope(p, &local, max_toi),
        ShapeKind::Rounded(r) => ray_rounded(r, &local, max_toi),
        ShapeKind::Implicit(s) => s.ray_cast(&local, max_toi),
        ShapeKind::RoundConvex(s) => s.ray_cast(&local, max_toi),
        ShapeKind::HalfSpace(h) => h.ray_cast(&local, max_toi),
        ShapeKind::HeightField(h) => h.ray_cast(&local, max_toi),
        ShapeKind::TriMesh(_) | ShapeKind::Compound(_) => side
            .surface()
            .and_then(|s| ray_cast_surface(s, &local, max_toi, &mut Vec::new())),
    };
    Ok(hit.map(|h| RayHit {
        normal: pose.transform_vector(h.normal),
        ..h
    }))
}

/// The first hit of `ray` (in the polytope's frame) within `max_toi`.
pub fn ray_polytope(poly: &ConvexPolytope, ray: &Ray, max_toi: f32) -> Option<RayHit> {
    // The ray is inside face f's half-space for t on one side of t_f.
    let (mut enter, mut exit) = (f32::NEG_INFINITY, max_toi);
    let mut entered_by = None;
    for (f, face) in poly.faces().iter().enumerate() {
        let denom = face.normal.dot(ray.dir);
        let dist = face.offset - face.normal.dot(ray.origin);
        if denom == 0.0 {
            if dist < 0.0 {
                return None; // parallel to this face and outside it
            }
        } else if denom < 0.0 {
            let t = dist / denom;
            if t > enter {
                enter = t;
                entered_by = Some(f as u32);
            }
        } else {
            exit = exit.min(dist / denom);
        }
    }
    if enter.max(0.0) > exit {
        return None;
    }
    Some(match entered_by {
        Some(f) if enter > 0.0 => RayHit {
            piece: 0,
            toi: enter,
            normal: poly.face(f).normal,
            feature: f,
        },
        // The origin is inside (or on) the polytope.
        _ => RayHit {
            piece: 0,
            toi: 0.0,
            normal: Vec3::ZERO,
            feature: u32::MAX,
        },
    })
}

/// The first hit of `ray` (in the shape's frame) on a sphere or capsule
/// within `max_toi`: the nearest of the ray's hits on the two end balls and
/// on the cylinder between them (closed form). A ray starting inside hits
/// at `toi = 0` with a zero normal, as for convex polytopes.
pub fn ray_rounded(r: &Rounded, ray: &Ray, max_toi: f32) -> Option<RayHit> {
    let [p, q] = r.core();
    let on_core = |x: Vec3| point_segment(x, p, q);
    if ray.origin.distance_squared(on_core(ray.origin)) <= r.radius * r.radius {
        return Some(RayHit {
            toi: 0.0,
            normal: Vec3::ZERO,
            feature: 0,
            piece: 0,
        });
    }
    let ball = |c: Vec3| {
        smallest_root(
            ray.dir.length_squared(),
            2.0 * ray.dir.dot(ray.origin - c),
            (ray.origin - c).length_squared() - r.radius * r.radius,
        )
    };
    let (o, d) = (ray.origin, ray.dir);
    let side = smallest_root(
        d.x * d.x + d.z * d.z,
        2.0 * (o.x * d.x + o.z * d.z),
        o.x * o.x + o.z * o.z - r.radius * r.radius,
    )
    .filter(|&t| (o.y + t * d.y).abs() <= r.half_height);
    let toi = [ball(p), ball(q), side]
        .into_iter()
        .flatten()
        .filter(|&t| t <= max_toi)
        .fold(f32::INFINITY, f32::min);
    if !toi.is_finite() {
        return None;
    }
    let x = ray.at(toi);
    let normal = (x - on_core(x)).normalize_or_zero();
    Some(RayHit {
        toi,
        normal,
        feature: 0,
        piece: 0,
    })
}
