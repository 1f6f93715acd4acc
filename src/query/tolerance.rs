//! The one-shot distance at a caller's accuracy: GJK stopped at a chosen
//! gap between its bounds instead of the default `2·10⁻⁶` of the size.
//!
//! GJK (Gilbert, Johnson, Keerthi 1988; van den Bergen, *A fast and robust
//! GJK implementation for collision detection of convex objects*, JGT
//! 1999, section 3.2) keeps two bounds on the distance `D` of the cores:
//! the upper bound `|v|`, `v` the point of the current simplex closest to
//! the origin (a point of the Minkowski difference, so `D ≤ |v|`), and the
//! lower bound `μ = max v·w / |v|` over the support points `w` it has met
//! (each a separating plane's offset, so `μ ≤ D`). It stops once `|v| − μ ≤
//! tol · s`, `s` the largest `|w|` met (at most `r_A + r_B + |t_B − t_A|`,
//! the shapes' reaches plus their centres' distance): the distance it
//! reports, `|v|` less the margins, is then at most `tol · s` above the
//! true one and never below it (up to `f32` rounding). Other pairs
//! (polytope pairs by Lin–Canny, meshes, height fields) already answer at
//! the default accuracy or better, which every accepted tolerance allows.
//! The bound holds when GJK stops on the gap; when it stops otherwise (a
//! support point met before, no progress in `f32`, or its iteration cap)
//! it reports its best `|v|`, as the default-accuracy query does, and the
//! bound is not certified (no such stop in the tests' random pairs).

use super::QueryError;
use super::distance::{ClosestPoints, closest_points_within};
use crate::collider::SharedShape;
use crate::collider::limits::distance_tolerance_within;
use crate::math::Pose;

/// [`closest_points`](super::closest_points) with GJK converged to
/// `tolerance` of the pair's size instead of the default `2·10⁻⁶`: GJK
/// stops once its upper bound `|v|` and lower bound `μ` are within
/// `tolerance · s` (van den Bergen 1999), so the distance is never below
/// the true one and at most `tolerance · (r_A + r_B + |t_B − t_A|)` above
/// it, `r` a shape's [`reach`](crate::collider::ShapeData::reach) (not
/// certified when GJK stops otherwise: a repeated support point, no
/// progress in `f32`, its iteration cap). A larger
/// tolerance stops GJK earlier on curved shapes (cylinders, cones,
/// rounded shapes), where its last digits cost the most.
///
/// # Errors
///
/// [`QueryError::InvalidTolerance`] for a tolerance outside
/// [`MIN_DISTANCE_TOLERANCE`](crate::collider::limits::MIN_DISTANCE_TOLERANCE)`..=`[`MAX_DISTANCE_TOLERANCE`](crate::collider::limits::MAX_DISTANCE_TOLERANCE)
/// (`2·10⁻⁶ ..= 0.1`) or NaN; otherwise as
/// [`closest_points`](super::closest_points).
pub fn closest_points_with_tolerance(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
    tolerance: f32,
) -> Result<ClosestPoints, QueryError> {
    if !distance_tolerance_within(tolerance) {
        return Err(QueryError::InvalidTolerance(tolerance));
    }
    closest_points_within((a, pose_a), (b, pose_b), tolerance)
}

/// [`distance`](super::distance) at `tolerance` of the pair's size: see
/// [`closest_points_with_tolerance`].
///
/// # Errors
///
/// As [`closest_points_with_tolerance`].
pub fn distance_with_tolerance(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
    tolerance: f32,
) -> Result<f32, QueryError> {
    closest_points_with_tolerance(a, pose_a, b, pose_b, tolerance).map(|c| c.distance)
}
