//! Exact answers for a boolean hull pair from two balls per hull, before
//! any support query: apart when the outer balls (about each centroid,
//! through its farthest vertex) are apart, touching when the inner balls
//! (inside each hull, see [`ConvexPolytope::inner_radius`]) overlap.
//! Otherwise `None`: GJK decides.
//!
//! The test reads only the hulls' own fields (centroid and radii, in the
//! lines the narrow phase's read-ahead hints), not their vertices nor the
//! pair's cache: a pair far apart or deep in contact costs two point
//! transforms. In the multi-body scene (5 % density, hulls of 40 points)
//! about a fifth of the boolean tests are outer-ball rejections and half
//! of the touching pairs inner-ball acceptances.
//!
//! **Rounding.** Both decisions keep a pad of `2⁻¹⁶` (128 `f32` ulps) of
//! the sum of the centres' and radii's magnitudes: the `f32` transforms of
//! the centroids (a few ulps of that sum), the outer radius's own `f32`
//! rounding (a few ulps of it) and the pose's (already in the pair's
//! frame) are far below it, and so is GJK's touching tolerance (`10⁻⁶` of
//! the pair's scale, which that sum bounds). A rotation that is not quite
//! unit (norm² `1 + δ`) scales what it turns by `1 + δ`: `|δ|` of each
//! pose is added to the pad's ratio. So a rejected pair is apart by more
//! than GJK could call touching, and an accepted one overlaps.

use crate::math::Pose;
use crate::shape::ConvexPolytope;

/// The pad, relative to the sum of the magnitudes involved.
const PAD: f32 = 1.0 / 65_536.0;

/// `Some(touching)` when the balls decide the pair, else `None`.
#[inline]
pub(crate) fn ball_answer(
    pa: &ConvexPolytope,
    a: &Pose,
    pb: &ConvexPolytope,
    b: &Pose,
) -> Option<bool> {
    let (la, lb) = (pa.centroid(), pb.centroid());
    let (ca, cb) = (a.transform_point(la), b.transform_point(lb));
    let (ra, rb) = (pa.radius(), pb.radius());
    let magnitudes = ca.abs() + cb.abs() + la.abs() + lb.abs();
    // A rotation of norm² `1 + δ` (the world takes `|δ| ≤ 2·10⁻³`) moves
    // a point by `δ` of its distance from the origin.
    let skew =
        (a.rotation.length_squared() - 1.0).abs() + (b.rotation.length_squared() - 1.0).abs();
    let pad = (PAD + skew) * (magnitudes.element_sum() + ra + rb);
    let d2 = (cb - ca).length_squared();
    let outer = ra + rb + pad;
    // NaN anywhere: both comparisons fail and GJK decides.
    if d2 > outer * outer {
        return Some(false);
    }
    let inner = pa.inner_radius() + pb.inner_radius() - pad;
    (inner > 0.0 && d2 < inner * inner).then_some(true)
}
