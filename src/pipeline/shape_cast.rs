//! Shape casts against the world: where a moving shape first touches a
//! body ([`CollisionWorld::cast_shape`]), or every body it touches on its
//! way ([`CollisionWorld::cast_shape_all`]), with the layer and exclusion
//! filter of the other spatial queries.
//!
//! Candidates are the bodies whose broad-phase box overlaps the box the
//! shape sweeps (the union of its start and end boxes for a translation;
//! the start box grown by the farthest any point can travel when it also
//! turns). Each is cast exactly ([`query::cast_shapes_nonlinear`]'s
//! algorithm, on the body's current surface when it deforms), the bodies
//! standing still at their current poses, the earliest hit so far as the
//! limit. Results do not depend on the broad phase's order: ties go to the
//! smaller handle, and every-hit results are sorted by time then handle.
//!
//! The cast limits hold ([`crate::collider::limits`]): a cast starting
//! beyond `MAX_CAST_COORDINATE` or turning beyond `MAX_CAST_TURN` is
//! refused; the cast goes on while the shape's center is within
//! `MAX_CAST_COORDINATE` (an endless `max_time_of_impact` stops there), so
//! a body parked beyond it is never touched. A hit may be
//! [`CastStatus::OutOfIterations`](crate::query::CastStatus) (a near miss
//! the advancement could not pass): it ranks by its time like the others.

use glam::DVec3;
use smallvec::SmallVec;

use super::body::Body;
use super::spatial::{QueryFilter, shape_box};
use super::{BodyHandle, CollisionWorld};
use crate::broad_phase::BroadPhase;
use crate::bvh::cast::{Approach, time_bound};
use crate::bvh::distance::FrameBox;
use crate::collider::SharedShape;
use crate::collider::limits::{MAX_CAST_COORDINATE, MAX_POSITION};
use crate::math::{Aabb, Pose, PoseError, RigidMotion, WorldPose};
use crate::query::{self, PairSide, QueryError, ShapeCastHit, ShapeCastOptions};

/// Where a cast shape touches a body: the body and the contact, the cast
/// shape first (`point_a`, `features[0]`, `pieces[0]`), the normal from
/// the cast shape towards the body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldShapeHit {
    /// The body touched.
    pub body: BodyHandle,
    /// The contact.
    pub hit: ShapeCastHit,
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// The first body `shape` touches when it moves by `motion` within
    /// `options.max_time_of_impact`; among bodies touched at the same time,
    /// the smallest handle. Bodies stand still at their current poses.
    /// Errors: a bad motion or bad options (see
    /// [`query::cast_shapes_nonlinear`]).
    pub fn cast_shape(
        &self,
        shape: &SharedShape,
        motion: &RigidMotion,
        options: &ShapeCastOptions,
        filter: QueryFilter<'_>,
    ) -> Result<Option<WorldShapeHit>, QueryError> {
        self.cast_shape_f64(shape, (DVec3::ZERO, motion), options, filter)
    }

    /// [`cast_shape`](Self::cast_shape) far from the origin: `motion` is
    /// given in the frame whose origin is the world point `origin` (`f64`;
    /// the world's axes), the bodies are moved into that frame in `f64`
    /// (see [`super::large_world`]), and the hit's points and normal are in
    /// it: add `origin` for world points. Errors also for a NaN or
    /// infinite `origin` ([`PoseError::NonFinite`]) or one beyond
    /// [`MAX_POSITION`] ([`PoseError::TooFar`]), as for a body's pose.
    pub fn cast_shape_f64(
        &self,
        shape: &SharedShape,
        (origin, motion): (DVec3, &RigidMotion),
        options: &ShapeCastOptions,
        filter: QueryFilter<'_>,
    ) -> Result<Option<WorldShapeHit>, QueryError> {
        if !origin.is_finite() {
            return Err(QueryError::InvalidPose(PoseError::NonFinite));
        }
        if origin.abs().max_element() > f64::from(MAX_POSITION) {
            return Err(QueryError::InvalidPose(PoseError::TooFar));
        }
        let motion = &motion.with_unit_start().map_err(QueryError::InvalidPose)?;
        let visit = Candidates::Broad(&filter);
        self.first_hit(shape, (origin, motion), options, visit)
    }

    /// [`Self::cast_shape`] among `bodies` only (gathered beforehand, by
    /// [`Self::gather`] with a box holding this cast's swept box: the
    /// filter was applied then): the move and slide's casts, which share
    /// one broad-phase query per slide.
    pub(crate) fn cast_shape_among(
        &self,
        shape: &SharedShape,
        motion: &RigidMotion,
        options: &ShapeCastOptions,
        bodies: &[BodyHandle],
    ) -> Result<Option<WorldShapeHit>, QueryError> {
        let motion = &motion.with_unit_start().map_err(QueryError::InvalidPose)?;
        let visit = Candidates::Among(bodies);
        self.first_hit(shape, (DVec3::ZERO, motion), options, visit)
    }

    /// The earliest hit among the bodies `visit` gives for the swept box
    /// (`motion` in the frame at `origin`).
    fn first_hit(
        &self,
        shape: &SharedShape,
        (origin, motion): (DVec3, &RigidMotion),
        options: &ShapeCastOptions,
        visit: Candidates<'_, '_>,
    ) -> Result<Option<WorldShapeHit>, QueryError> {
        let mut limit = *options;
        let mut best: Option<WorldShapeHit> = None;
        self.cast_candidates(shape, (origin, motion), options, visit, |body, side| {
            let hit = cast_one((shape, motion), side, &limit)?;
            if let Some(hit) = hit {
                let earlier = best.is_none_or(|b| {
                    let t = (hit.time_of_impact, b.hit.time_of_impact);
                    t.0 < t.1 || (t.0 == t.1 && body < b.body)
                });
                if earlier {
                    limit.max_time_of_impact = hit.time_of_impact;
                    best = Some(WorldShapeHit { body, hit });
                }
            }
            Ok(limit.max_time_of_impact)
        })?;
        Ok(best)
    }

    /// Every body `shape` touches when it moves by `motion` within
    /// `options.max_time_of_impact`, its first contact each, sorted by time
    /// then handle, in `out` (cleared first).
    pub fn cast_shape_all(
        &self,
        shape: &SharedShape,
        motion: &RigidMotion,
        options: &ShapeCastOptions,
        filter: QueryFilter<'_>,
        out: &mut Vec<WorldShapeHit>,
    ) -> Result<(), QueryError> {
        out.clear();
        let motion = &motion.with_unit_start().map_err(QueryError::InvalidPose)?;
        let visit = Candidates::Broad(&filter);
        self.cast_candidates(
            shape,
            (DVec3::ZERO, motion),
            options,
            visit,
            |body, side| {
                if let Some(hit) = cast_one((shape, motion), side, options)? {
                    out.push(WorldShapeHit { body, hit });
                }
                Ok(options.max_time_of_impact)
            },
        )?;
        out.sort_unstable_by(|a, b| {
            let (x, y) = (a.hit.time_of_impact, b.hit.time_of_impact);
            x.total_cmp(&y).then(a.body.cmp(&b.body))
        });
        Ok(())
    }

    /// Checks the input, then calls `f` on every body `visit` gives for
    /// the box `shape` sweeps (those passing the filter whose box overlaps
    /// it), with its pair side in the frame at `origin` (where `motion` is
    /// given), in the order of the time their boxes can first meet (then
    /// handle); stops at the first body whose boxes cannot meet before
    /// `f`'s answer (the earliest contact so far, or the cast's limit).
    fn cast_candidates<'s>(
        &'s self,
        shape: &SharedShape,
        (origin, motion): (DVec3, &RigidMotion),
        options: &ShapeCastOptions,
        visit: Candidates<'_, '_>,
        mut f: impl FnMut(BodyHandle, &PairSide<'_>) -> Result<f32, QueryError>,
    ) -> Result<(), QueryError> {
        motion.start.validate().map_err(QueryError::InvalidPose)?;
        motion.check().map_err(QueryError::InvalidCast)?;
        options.check().map_err(QueryError::InvalidCast)?;
        let local = shape.local_aabb();
        let end = query::clipped_max_time(&[(motion, &local)], options.max_time_of_impact)?;
        // Bodies the shape comes within the target distance (plus the
        // tolerance) of count as touched: the swept box grown by that much.
        let within = options.target_distance + options.tolerance;
        let swept = swept_box(shape, motion, end as f32)
            .padded(within)
            .shifted_out(origin);
        let start = shape_box(shape, &motion.start.into());
        let approach = Approach {
            closing: motion.linvel,
            spin: motion.angvel.length()
                * shape.local_aabb().max_distance_from(motion.local_center),
            within,
        };
        let mut candidates: SmallVec<[(f32, BodyHandle, &'s Body); 16]> = SmallVec::new();
        let mut push = |id, body: &'s Body| {
            let standing = body.pose.is_some_and(|p| within_cast_limit(&p, origin));
            if let (true, Some(tight)) = (standing, body.current_box()) {
                let tight = tight.shifted_out(-origin);
                candidates.push((
                    time_bound(&world_box(&start), &world_box(&tight), &approach),
                    id,
                    body,
                ));
            }
        };
        match visit {
            Candidates::Broad(filter) => self.visit_boxes(&swept, filter, &mut push),
            Candidates::Among(bodies) => {
                for &id in bodies {
                    if let Ok(body) = self.body(id)
                        && body.current_box().is_some_and(|b| b.overlaps(&swept))
                    {
                        push(id, body);
                    }
                }
            }
        }
        candidates.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut limit = options.max_time_of_impact;
        for (bound, id, body) in candidates {
            if bound > limit {
                break;
            }
            limit = f(id, &body.side_in(origin, false))?;
        }
        Ok(())
    }
}

/// Where a cast's candidates come from.
#[derive(Clone, Copy)]
enum Candidates<'a, 'f> {
    /// The broad phase, with this filter.
    Broad(&'a QueryFilter<'f>),
    /// These bodies (gathered beforehand, filtered then).
    Among(&'a [BodyHandle]),
}

/// The cast of `shape` against one standing body.
fn cast_one(
    (shape, motion): (&SharedShape, &RigidMotion),
    body: &PairSide<'_>,
    options: &ShapeCastOptions,
) -> Result<Option<ShapeCastHit>, QueryError> {
    let side = PairSide::of(shape, &motion.start);
    let still = RigidMotion::stationary(body.pose);
    query::cast_sides((&side, motion), (body, &still), options)
}

/// A box holding `shape` at every pose of `motion` in `[0, max_time]`:
/// the start and end boxes' union for a translation; for a motion that
/// turns, the start box grown by the farthest a point can travel (`|v| T`
/// plus `min(|ω| T, 2) R` for a point at distance `R` from the center).
fn swept_box(shape: &SharedShape, motion: &RigidMotion, max_time: f32) -> Aabb {
    let start = shape_box(shape, &motion.start.into());
    if motion.is_linear() {
        return start.union(shape_box(shape, &motion.pose_at(max_time).into()));
    }
    let r = shape.local_aabb().max_distance_from(motion.local_center);
    let turn = (motion.angvel.length() * max_time).min(2.0);
    start.padded(motion.linvel.length() * max_time + turn * r)
}

/// Whether a body stands within the cast limit in the frame at `origin`
/// (a cast never reaches one beyond).
fn within_cast_limit(pose: &WorldPose, origin: DVec3) -> bool {
    (pose.translation - origin).abs().max_element() <= f64::from(MAX_CAST_COORDINATE)
}

/// A world box as a [`FrameBox`].
fn world_box(b: &Aabb) -> FrameBox {
    FrameBox::of_box(b, &Pose::IDENTITY)
}
