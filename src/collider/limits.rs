//! The numbers the crate accepts, and the one check of each: what `f32`
//! can then answer for. Shape builders, [`SharedShape::scaled`](super::SharedShape::scaled),
//! the world's mutators (`set_pose`, `set_scale`, `set_vertices`,
//! `set_shape`, `set_speed_bound`) and its settings (margins, cell size,
//! in the world and the plugin) all go through the checks here, so what a
//! builder refuses no mutator accepts.
//!
//! - **Shape coordinates** up to [`MAX_COORDINATE`] (`2²⁸ ≈ 2.7·10⁸`) in
//!   the shape's own frame: a hull's or mesh's vertices, a box's
//!   half-extents, a sphere's or capsule's reach, a compound's pieces where
//!   its pose puts them, and a world body's mesh as it is scaled
//!   ([`CollisionWorld::set_scale`](crate::pipeline::CollisionWorld::set_scale))
//!   or deformed ([`CollisionWorld::set_vertices`](crate::pipeline::CollisionWorld::set_vertices)).
//!   Why so low: the exact kernels multiply up to four coordinate
//!   differences (`|e₁ × e₂|²` of a triangle, `a e − b²` of two segments,
//!   the normalization of a cross product), and in a pair whose boxes touch
//!   those differences reach about `7 ×` the larger shape's largest
//!   coordinate: at `2²⁸` their fourth powers stay below `2¹²¹`, within
//!   `f32::MAX` (`2¹²⁸`). With coordinates past about `2³²` they overflow:
//!   the world's answers on a scaled scene changed from there on, and a
//!   sphere `10⁸` from a triangle `2·10¹⁰` wide was reported touching it
//!   (the triangle's normal had an infinite length). A scene scaled by
//!   powers of two up to this limit gets the answers of the unscaled one
//!   (`tests/core/exact_inputs.rs`).
//! - **World positions and lengths** up to [`MAX_POSITION`] (`2⁵⁰ ≈
//!   1.1·10¹⁵`): a body's translation, the world's margin, a speed bound's
//!   distance, the grid's cell size. Squared distances between any two
//!   points of the world then stay far below `f32::MAX`, and every box
//!   (translation, reach, margin, sweep) stays finite. A pair is decided
//!   from `f32` poses: far from the origin, to within the rounding of its
//!   translations.
//! - **The broad phase's margin** (a fraction of each box) up to
//!   [`MAX_BROAD_PHASE_MARGIN`] (`2²⁰`).
//! - **An aspect ratio** up to [`MAX_ASPECT`] (`10⁴`) for boxes (largest
//!   over smallest half-extent) and capsules (length over radius): a thinner
//!   shape's small dimension is lost in the rounding of its large one (a
//!   `10⁶ × 0.1 × 10⁶` box is 0.1 thick where `f32` steps by 0.06).
//!
//! NaN and infinities are refused everywhere, negative lengths too. Below
//! unit scale no limit is enforced yet: in the world's pair tests, shapes
//! smaller than about `2⁻³⁰` lose their fourth powers to underflow and can
//! be misjudged (checked right down to `2⁻²⁴`); the one-shot
//! [`crate::query`] functions rescale such pairs (checked down to `2⁻⁴⁰`),
//! but ray casts are not rescaled (a mesh at `2⁻⁵⁰` answered wrong).
//!
//! A builder refuses what is outside with [`ShapeError::InvalidParameter`]
//! naming the limit; the world's mutators with a
//! [`WorldError`](crate::pipeline::WorldError) naming it, and then change
//! nothing.
//! [`SharedShape::scaled`](super::SharedShape::scaled) goes through the
//! same builders.
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
use crate::math::Aabb;
use crate::shape::first_beyond;

/// Largest coordinate a shape may have in its own frame (`2²⁸`), scaled
/// and deformed meshes included.
pub const MAX_COORDINATE: f32 = 268_435_456.0; // 2^28

/// Largest translation component of a body in the world, and largest
/// world length (margin, speed bound, cell size): `2⁵⁰`.
pub const MAX_POSITION: f32 = 1_125_899_906_842_624.0; // 2^50

/// Largest broad-phase margin, as a fraction of each box's largest extent
/// (`2²⁰`): a box grown a million times its size.
pub const MAX_BROAD_PHASE_MARGIN: f32 = 1_048_576.0; // 2^20

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

/// The one-shot distance query's smallest tolerance, relative to the
/// pair's size: GJK's own convergence gap (`2·10⁻⁶`), the default.
pub const MIN_DISTANCE_TOLERANCE: f32 = 2e-6;

/// The one-shot distance query's largest tolerance, relative to the pair's
/// size (a tenth: beyond it a distance says little).
pub const MAX_DISTANCE_TOLERANCE: f32 = 0.1;

/// Whether `t` is a distance tolerance the queries accept: within
/// [`MIN_DISTANCE_TOLERANCE`]`..=`[`MAX_DISTANCE_TOLERANCE`] (NaN is not).
#[inline]
pub fn distance_tolerance_within(t: f32) -> bool {
    (MIN_DISTANCE_TOLERANCE..=MAX_DISTANCE_TOLERANCE).contains(&t)
}

/// Whether `x` is a length within `limit`: finite, `>= 0` and `<= limit`
/// (NaN is not).
#[inline]
pub fn length_within(x: f32, limit: f32) -> bool {
    (0.0..=limit).contains(&x)
}

/// Whether every component of a translation is within [`MAX_POSITION`]
/// (NaN is not).
#[inline]
pub fn position_within(t: Vec3) -> bool {
    t.abs().cmple(Vec3::splat(MAX_POSITION)).all()
}

/// Whether every component of an `f64` translation is within
/// [`MAX_POSITION`] (NaN is not).
#[inline]
pub fn position_within_f64(t: glam::DVec3) -> bool {
    t.abs()
        .cmple(glam::DVec3::splat(f64::from(MAX_POSITION)))
        .all()
}

/// The bound on a mesh's own coordinates under `scale` (per axis): its
/// scaled coordinates then stay within [`MAX_COORDINATE`]. `scale` is
/// finite and nonzero (checked before).
#[inline]
pub fn coordinate_bound(scale: Vec3) -> Vec3 {
    Vec3::splat(MAX_COORDINATE) / scale.abs()
}

/// Whether a box in a shape's frame, scaled by `scale` about the origin,
/// has every coordinate within [`MAX_COORDINATE`] (NaN is not).
#[inline]
pub fn box_within(b: &Aabb, scale: Vec3) -> bool {
    let reach = b.min.abs().max(b.max.abs()) * scale.abs();
    reach.cmple(Vec3::splat(MAX_COORDINATE)).all()
}

/// Every finite coordinate within [`MAX_COORDINATE`] (NaN and infinity are
/// the builders' own checks, which name them).
pub(super) fn check_points(points: &[Vec3]) -> Result<(), ShapeError> {
    let far = first_beyond(points, Vec3::splat(MAX_COORDINATE));
    if far.is_some_and(|i| points[i].is_finite()) {
        return Err(ShapeError::InvalidParameter(
            "a coordinate is beyond MAX_COORDINATE (2^28): f32 products of four such lengths overflow",
        ));
    }
    Ok(())
}

/// A compound's pieces where their poses put them: every corner of their
/// boxes within [`MAX_COORDINATE`], every translation too.
pub(super) fn check_piece(pose_translation: Vec3, placed: &Aabb) -> Result<(), ShapeError> {
    let limit = Vec3::splat(MAX_COORDINATE);
    let inside = pose_translation.abs().cmple(limit).all() && box_within(placed, Vec3::ONE);
    if !inside {
        return Err(ShapeError::InvalidParameter(
            "a compound piece reaches beyond MAX_COORDINATE (2^28) in the compound's frame",
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
    if !length_within(half_height + radius, MAX_COORDINATE) {
        return Err(ShapeError::InvalidParameter(
            "capsule or sphere beyond MAX_COORDINATE (2^28): f32 products of four such lengths overflow",
        ));
    }
    if 2.0 * half_height > MAX_ASPECT * radius {
        return Err(ShapeError::InvalidParameter(
            "capsule length over radius above MAX_ASPECT (1e4): f32 cannot resolve the radius",
        ));
    }
    Ok(())
}

/// A cylinder's or cone's half-height and radius: finite and positive, the
/// reach (with the rounding, finite and `>= 0`) within [`MAX_COORDINATE`],
/// the larger over the smaller within [`MAX_ASPECT`] (a needle or a disc
/// thinner than that is lost in the rounding of its large dimension).
pub(super) fn check_implicit(
    half_height: f32,
    radius: f32,
    rounding: f32,
) -> Result<(), ShapeError> {
    if !length_within(rounding, MAX_COORDINATE) {
        return Err(ShapeError::InvalidParameter(
            "border radius must be finite, >= 0 and within MAX_COORDINATE (2^28)",
        ));
    }
    let positive = |x: f32| x.is_finite() && x > 0.0;
    if !positive(half_height) || !positive(radius) {
        return Err(ShapeError::InvalidParameter(
            "cylinder or cone radius and height must be finite and positive",
        ));
    }
    if !length_within(half_height + radius + rounding, MAX_COORDINATE) {
        return Err(ShapeError::InvalidParameter(
            "cylinder or cone beyond MAX_COORDINATE (2^28): f32 products of four such lengths overflow",
        ));
    }
    if half_height.max(radius) > MAX_ASPECT * half_height.min(radius) {
        return Err(ShapeError::InvalidParameter(
            "cylinder or cone height over radius (or radius over height) above MAX_ASPECT (1e4)",
        ));
    }
    Ok(())
}

/// A rounding radius: finite and `> 0` (`>= 0` when `may_be_sharp`: a
/// segment or triangle), the shape's reach with it within
/// [`MAX_COORDINATE`].
pub(super) fn check_round_radius(
    core_reach: f32,
    radius: f32,
    may_be_sharp: bool,
) -> Result<(), ShapeError> {
    let ok = radius.is_finite() && (radius > 0.0 || (may_be_sharp && radius == 0.0));
    if !ok {
        return Err(ShapeError::InvalidParameter(
            "border radius must be finite and positive",
        ));
    }
    if !length_within(core_reach + radius, MAX_COORDINATE) {
        return Err(ShapeError::InvalidParameter(
            "rounded shape beyond MAX_COORDINATE (2^28): f32 products of four such lengths overflow",
        ));
    }
    Ok(())
}

/// A height field's box (every vertex) within [`MAX_COORDINATE`].
pub(super) fn check_heightfield(local: &Aabb) -> Result<(), ShapeError> {
    if !box_within(local, Vec3::ONE) {
        return Err(ShapeError::InvalidParameter(
            "height field beyond MAX_COORDINATE (2^28): a scaled height or half extent is too large",
        ));
    }
    Ok(())
}

/// A polyline's points and segments: finite points within
/// [`MAX_COORDINATE`], at least one segment, every index in range, every
/// segment of non-zero length (a segment has no inside: a point is no
/// shape).
pub(super) fn check_polyline(points: &[Vec3], segments: &[[u32; 2]]) -> Result<(), ShapeError> {
    if !points.iter().all(|p| p.is_finite()) {
        return Err(ShapeError::InvalidParameter(
            "polyline points must be finite",
        ));
    }
    check_points(points)?;
    if segments.is_empty() {
        return Err(ShapeError::InvalidParameter(
            "a polyline needs at least one segment (two points)",
        ));
    }
    for s in segments {
        let [a, b] = s.map(|i| points.get(i as usize));
        let (Some(a), Some(b)) = (a, b) else {
            return Err(ShapeError::InvalidParameter(
                "a polyline segment index is out of range",
            ));
        };
        check_flat(&[*a, *b])?;
    }
    Ok(())
}

/// A segment's (2) or a triangle's (3) corners: finite, within
/// [`MAX_COORDINATE`]; a segment of non-zero length; a triangle whose
/// longest edge is at most [`MAX_ASPECT`] times its smallest height
/// (`L² <= MAX_ASPECT · |e₁ × e₂|`, which refuses a zero area; as for a
/// box, a thinner triangle's height is lost in the rounding of its edges).
pub(super) fn check_flat(points: &[Vec3]) -> Result<(), ShapeError> {
    if !points.iter().all(|p| p.is_finite()) {
        return Err(ShapeError::InvalidParameter(
            "segment or triangle corners must be finite",
        ));
    }
    check_points(points)?;
    match *points {
        [a, b] if a != b => Ok(()),
        [_, _] => Err(ShapeError::InvalidParameter(
            "a segment must have a non-zero length",
        )),
        [a, b, c] => {
            let longest = (b - a)
                .length_squared()
                .max((c - b).length_squared())
                .max((a - c).length_squared());
            let area2 = (b - a).cross(c - a).length();
            if longest <= MAX_ASPECT * area2 {
                Ok(())
            } else {
                Err(ShapeError::InvalidParameter(
                    "triangle of zero area, or longest edge over smallest height above MAX_ASPECT (1e4)",
                ))
            }
        }
        _ => Err(ShapeError::InvalidParameter(
            "a flat shape is a segment (2 points) or a triangle (3)",
        )),
    }
}

/// A half-space's normal: finite and non-zero (any length: divided by its
/// largest component before normalizing, so neither overflows nor
/// underflows); returned unit.
pub(super) fn check_normal(normal: Vec3) -> Result<Vec3, ShapeError> {
    let m = normal.abs().max_element();
    if !(normal.is_finite() && m > 0.0) {
        return Err(ShapeError::InvalidParameter(
            "half-space normal must be finite and non-zero",
        ));
    }
    Ok((normal / m).normalize())
}
