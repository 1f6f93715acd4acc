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

use glam::Vec3;

use super::ShapeError;

/// Largest coordinate a shape may have in its own frame.
pub const MAX_COORDINATE: f32 = 1_125_899_906_842_624.0; // 2^50

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
