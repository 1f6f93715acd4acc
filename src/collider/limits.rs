//! The sizes a shape builder accepts: what `f32` can then answer for.
//!
//! - Coordinates up to [`MAX_COORDINATE`] (`2⁵⁰ ≈ 1.1·10¹⁵`) in the shape's
//!   frame: squared lengths of differences stay far below `f32::MAX`, so
//!   every query works on the shape as built (one-shot convex queries far
//!   outside unit scale are rescaled, see [`crate::query`]).
//! - An aspect ratio up to [`MAX_ASPECT`] (`10⁴`) for boxes (largest over
//!   smallest half-extent) and capsules (length over radius): a thinner
//!   shape's small dimension is lost in the rounding of its large one (a
//!   `10⁶ × 0.1 × 10⁶` box is 0.1 thick where `f32` steps by 0.06).
//!
//! A builder refuses what is outside with [`ShapeError::InvalidParameter`]
//! naming the limit; [`SharedShape::scaled`](super::SharedShape::scaled)
//! goes through the same builders.
//!
//! ## Casts
//!
//! A shape cast ([`crate::query::cast_shapes_nonlinear`], the world's and
//! the plugin's casts, continuous detection) is solved in the pair's own
//! frame, from the time the two shapes' bounding balls first come within
//! reach (`query/cast_frame.rs`), so its answer does not depend on where the
//! pair is or how fast it goes, within:
//!
//! - [`MAX_CAST_COORDINATE`] (`f32::MAX / 2 ≈ 1.7·10³⁸`): the cast's start
//!   positions (its motions' centers). Beyond, the cast is refused with
//!   [`QueryError::InvalidCast`](crate::query::QueryError::InvalidCast);
//!   contacts are looked for while both centers stay within it (a cast with
//!   an endless `max_time_of_impact` stops there). Every speed is accepted.
//! - [`MAX_CAST_TURN`] (`2¹² rad`): how far a shape turns over the cast,
//!   `|ω| · max_time_of_impact`. Beyond, refused: one `f32` step of a time
//!   near `max_time` then turns the shape by more than `2⁻¹¹ rad`, and its
//!   orientation at a time can no longer be computed to the tolerance.
//!
//! What `f32` can answer within them: the time of impact is an `f32`, the
//! last one not after the contact, so at that time the shapes are apart by
//! at most the target plus the tolerance plus the distance they move in one
//! `f32` step of time (`|v| · ulp(t)`: `2⁻²³` of the distance travelled), and
//! a tolerance below `2⁻²⁰` of the pair's size (the sum of the shapes'
//! radii about their motions' centers) is raised to it.

use glam::Vec3;

use super::ShapeError;

/// Largest coordinate a shape may have in its own frame.
pub const MAX_COORDINATE: f32 = 1_125_899_906_842_624.0; // 2^50

/// Largest coordinate of a cast's start position (its motions' centers):
/// the sum of two such coordinates is still finite.
pub const MAX_CAST_COORDINATE: f32 = f32::MAX / 2.0;

/// Largest angle (radians) a shape may turn over a cast, `|ω| ·
/// max_time_of_impact`: `f32` times near the end are `2⁻²³` of it apart,
/// a turn of `2⁻¹¹ rad` at most.
pub const MAX_CAST_TURN: f32 = 4096.0;

/// Largest ratio of a box's largest to smallest half-extent, and of a
/// capsule's length to its radius.
pub const MAX_ASPECT: f32 = 1.0e4;

/// Every finite coordinate within [`MAX_COORDINATE`] (NaN and infinity are
/// the builders' own checks, which name them).
pub(super) fn check_points(points: &[Vec3]) -> Result<(), ShapeError> {
    let far = points
        .iter()
        .any(|p| p.is_finite() && p.abs().max_element() > MAX_COORDINATE);
    if far {
        return Err(ShapeError::InvalidParameter(
            "a coordinate is beyond MAX_COORDINATE (2^50): f32 squares of such lengths overflow",
        ));
    }
    Ok(())
}

/// A box's half-extents within the limits.
pub(super) fn check_cuboid(half: Vec3) -> Result<(), ShapeError> {
    check_points(&[half])?;
    if half.max_element() > MAX_ASPECT * half.min_element() {
        return Err(ShapeError::InvalidParameter(
            "cuboid aspect ratio above MAX_ASPECT (1e4): f32 cannot resolve the thin side",
        ));
    }
    Ok(())
}

/// A sphere's or capsule's half-height and radius within the limits.
pub(super) fn check_rounded(half_height: f32, radius: f32) -> Result<(), ShapeError> {
    if !(half_height + radius).is_finite() || half_height + radius > MAX_COORDINATE {
        return Err(ShapeError::InvalidParameter(
            "capsule or sphere beyond MAX_COORDINATE (2^50): f32 squares of such lengths overflow",
        ));
    }
    if 2.0 * half_height > MAX_ASPECT * radius {
        return Err(ShapeError::InvalidParameter(
            "capsule length over radius above MAX_ASPECT (1e4): f32 cannot resolve the radius",
        ));
    }
    Ok(())
}
