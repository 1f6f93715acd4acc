//! Ray casts on shapes: Cyrus–Beck clipping against a convex polytope's
//! face planes (Cyrus, Beck 1978: the ray enters at the largest entering
//! parameter and leaves at the smallest leaving one), closed form for
//! spheres, capsules, cylinders and cones, the OBB tree with Möller–Trumbore at the leaves for
//! a mesh, the nearest piece's hit for a compound.
//!
//! A ray is `origin + t · dir` for `0 <= t <= max_toi`; `dir` need not be
//! unit length (`toi` is in units of `dir`).

use super::QueryError;
use super::pair::PairSide;
use crate::bvh::ray::ray_cast_surface;
use crate::collider::{LocalRay, SharedShape};
use crate::geometry::ray::{Ray, RayHit};
use crate::math::Pose;

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
    let pose = pose.validated().map_err(QueryError::InvalidPose)?;
    ray_cast_side(&PairSide::of(shape, &pose), ray, max_toi)
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
    let hit = match shape.kind().data().local_ray(&local, max_toi) {
        LocalRay::Answered(hit) => hit,
        LocalRay::BySurface => side
            .surface()
            .and_then(|s| ray_cast_surface(s, &local, max_toi, &mut Vec::new())),
    };
    Ok(hit.map(|h| RayHit {
        normal: pose.transform_vector(h.normal),
        ..h
    }))
}
