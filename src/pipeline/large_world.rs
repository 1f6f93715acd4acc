//! Large worlds: a body's translation in `f64`, every pair tested in a
//! frame near the pair.
//!
//! The world keeps each body's pose as a [`WorldPose`]: a unit `f32`
//! rotation and an `f64` translation. Shapes, trees, hulls, rotations and
//! every pair test stay `f32`, as in Jolt's `JPH_DOUBLE_PRECISION` and
//! avian's `f64` positions (avian PR #1027): only world-space positions
//! are double precision.
//!
//! - **Pairs** are tested in the frame at the pair's first body (its
//!   translation as origin, the world's axes): each side's translation is
//!   its offset from that point in `f64`, rounded once to `f32`
//!   ([`WorldPose::in_frame`]), so the relative pose `q̄_A (t_B − t_A)`
//!   carries the rounding of the pair's separation, not of the distance to
//!   the origin. The narrow phase, distances, contacts, continuous
//!   detection and time-to-collision scheduling all do this (a sweep
//!   also carries what rounding its step's `f64` endpoints into the frame
//!   left out, [`MotionResidual`](crate::math::MotionResidual), which the
//!   cast takes: a fast body far out is swept along its `f64` path); contact
//!   points come back as world `f32` points and, to `f64` precision,
//!   through [`PairState::contact_points_f64`](crate::narrow_phase::PairState::contact_points_f64).
//! - **Queries** take `f64` inputs and give `f64` outputs in their `_f64`
//!   variants: [`set_pose_f64`](CollisionWorld::set_pose_f64),
//!   [`pose_f64`](CollisionWorld::pose_f64),
//!   [`ray_cast_f64`](CollisionWorld::ray_cast_f64) and
//!   [`intersect_shape_f64`](CollisionWorld::intersect_shape_f64); each
//!   tests a body in the frame at the query's own position.
//! - **Boxes** (broad phase, tight boxes) stay `f32`: a body's box is its
//!   box at its rotation around its own origin, then placed at its `f64`
//!   translation and rounded outward
//!   ([`Aabb::placed_at`](crate::math::Aabb::placed_at)), so no pair the
//!   pair tests call touching is ever dropped. It keeps the translation's
//!   share of [`rounding_pad`](crate::math::rounding_pad), `2⁻¹⁷ |t|∞`,
//!   for the tests still made in world `f32` coordinates (`f32` rays and
//!   shape casts, the character's contacts): far out the boxes grow by
//!   that much (7.6 m at 10⁶ m, as before `f64` positions), and the broad
//!   phase hands the narrow phase more candidate pairs, which it answers
//!   exactly (figures: `docs/notes/LARGE_WORLDS.md`).
//!
//! **Limits.** A translation component is at most
//! [`MAX_POSITION`] (`2⁵⁰ m ≈
//! 1.1·10¹⁵ m`); beyond, `set_pose` and `set_pose_f64` refuse it
//! ([`PoseError::TooFar`](crate::math::PoseError::TooFar)) and the body
//! keeps its last pose. Up to it a pair's answer is that of the `f64`
//! positions given: an `f64` translation of magnitude `T` is itself within
//! `2⁻⁵³ T` of what the caller meant (`10⁻⁴ m` at 10¹² m, `0.125 m` at
//! `2⁵⁰ m`), and box culling grows coarse with `T` (above).

use glam::{DVec3, Vec3};

use super::body::Body;
use super::spatial::{QueryFilter, WorldRayHit, cast_body, shape_box, shape_touches};
use super::{BodyHandle, CollisionWorld, WorldError, checks};
use crate::broad_phase::BroadPhase;
use crate::collider::SharedShape;
use crate::collider::limits::MAX_POSITION;
use crate::math::{Aabb, WorldPose};
use crate::query::Ray;

impl<B: BroadPhase> CollisionWorld<B> {
    /// Sets a body's pose with an `f64` translation (see the module docs).
    /// A NaN, infinite or non-unit pose, or a translation beyond
    /// [`MAX_POSITION`], is refused
    /// and the body keeps its last valid pose.
    #[inline]
    pub fn set_pose_f64(&mut self, h: BodyHandle, pose: WorldPose) -> Result<(), WorldError> {
        checks::world_pose(&pose)?;
        place(self.body_mut(h)?, pose);
        self.mark_dirty(h.index());
        Ok(())
    }

    /// A body's last valid pose, its translation in `f64`.
    pub fn pose_f64(&self, h: BodyHandle) -> Option<WorldPose> {
        self.body(h).ok()?.pose
    }

    /// The bodies `shape` at `at` intersects (touching counts), exactly,
    /// tested in the frame at `at`'s translation; otherwise as
    /// [`intersect_shape`](Self::intersect_shape). Errors: a pose the
    /// world refuses (see [`set_pose_f64`](Self::set_pose_f64)).
    pub fn intersect_shape_f64(
        &self,
        shape: &SharedShape,
        at: WorldPose,
        filter: QueryFilter<'_>,
        out: &mut Vec<BodyHandle>,
    ) -> Result<(), WorldError> {
        out.clear();
        let at = checks::world_pose(&at)?;
        let aabb = shape_box(shape, &at);
        self.visit_boxes(&aabb, &filter, |id, body| {
            let (Some(tight), Some(_)) = (body.current_box(), body.pose) else {
                return;
            };
            if tight.overlaps(&aabb) && shape_touches(shape, &at, body, tight) {
                out.push(id);
            }
        });
        out.sort_unstable();
        Ok(())
    }

    /// The nearest body the ray from `origin` (`f64`) along `dir` meets
    /// within `max_toi` (in units of `dir`), each body tested in the frame
    /// at the ray's origin; ties to the smaller handle. The hit's
    /// [`point_f64`](WorldRayHit::point_f64) is `origin + toi · dir` in
    /// `f64`. Candidates are the bodies whose boxes overlap the box of the
    /// ray's segment (clipped to the world's limit): keep `max_toi` to the
    /// range needed. `None` also for a NaN or infinite input or an origin
    /// beyond [`MAX_POSITION`].
    pub fn ray_cast_f64(
        &self,
        (origin, dir): (DVec3, Vec3),
        max_toi: f32,
        filter: QueryFilter<'_>,
    ) -> Option<WorldRayHit> {
        let segment = ray_box(origin, dir, max_toi)?;
        let ray = Ray::new(Vec3::ZERO, dir);
        let mut best: Option<WorldRayHit> = None;
        self.visit_boxes(&segment, &filter, |id, body| {
            let limit = best.map_or(max_toi, |b| b.toi);
            if let Some(hit) = cast_body(id, body, (origin, &ray), limit)
                && best.is_none_or(|b| hit.toi < b.toi || (hit.toi == b.toi && hit.body < b.body))
            {
                best = Some(hit);
            }
        });
        best
    }
}

/// The box of the ray's segment `origin + [0, max_toi] dir`, rounded
/// outward to `f32` and clipped to twice the world's limit (every body's
/// box is inside); `None` for a bad ray.
fn ray_box(origin: DVec3, dir: Vec3, max_toi: f32) -> Option<Aabb> {
    let limit = 2.0 * f64::from(MAX_POSITION);
    let ok = origin.is_finite()
        && origin.abs().max_element() <= f64::from(MAX_POSITION)
        && dir.is_finite()
        && max_toi >= 0.0;
    if !ok {
        return None;
    }
    let end = origin + dir.as_dvec3() * f64::from(max_toi);
    let end = end.clamp(DVec3::splat(-limit), DVec3::splat(limit));
    let end = DVec3::select(end.is_nan_mask(), origin, end);
    let (lo, hi) = (origin.min(end), origin.max(end));
    let b = Aabb::new(Vec3::ZERO, (hi - lo).as_vec3());
    Some(b.shifted_out(lo))
}

/// Sets a body's pose (checked by `checks::world_pose`), its rotation unit
/// to `f32` precision, as the box and pair tests' rounding bounds assume
/// (`validate` accepts |q|² within 2e-3 of 1, which scales what it rotates
/// by as much); a quaternion already unit within 8 · 2⁻²⁴ is kept bit for
/// bit.
#[inline]
pub(super) fn place(body: &mut Body, pose: WorldPose) {
    let q = pose.rotation;
    let rotation = if (q.length_squared() - 1.0).abs() > 4.0 * f32::EPSILON {
        q.normalize()
    } else {
        q
    };
    body.pose = Some(WorldPose::new(rotation, pose.translation));
}
