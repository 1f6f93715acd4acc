//! The pad that keeps a world box from dropping a pair the pair tests call
//! touching: [`rounding_pad`].
//!
//! # What must hold
//!
//! A world box is compared with other world boxes (the broad phase, the
//! tight-box test before a pair test, a compound's pieces, the world's
//! shape queries); the pair test itself never sees world coordinates. It
//! maps B into A's frame by the relative pose `pose_a.inverse().mul(pose_b)`
//! computed in `f32`, and decides there, exactly on the mapped vertices
//! (triangle tests) or within a tolerance (GJK, Lin–Canny). Whenever it
//! says "touching", the two boxes must overlap. A box is the box of the
//! shape's points moved by its pose, computed in `f32` (a vertex's row
//! `· v + t`, or a rotated box): grown by `p_A` and `p_B`, the boxes
//! overlap when the world points the test put together are within `p_A +
//! p_B` of each other on every axis.
//!
//! # The bound (Higham's model, `u = 2⁻²⁴`; `R` bounds `|x|₂` over a
//! shape's points in its own frame, `T = |t|∞` its world translation)
//!
//! With `bvh::rounding`'s item 1 (`fl(q * v + t)` within `u (64 |v|∞ + 2
//! T)` of its value, unit quaternions within `8 u` as the world stores
//! them):
//!
//! 1. **The relative translation** `fl(fl(q̄_A t_B) + fl(−q̄_A t_A))` is
//!    within `u (64 T_B + 50 T_A)` per component: two quaternion maps and
//!    a sum. Far from the origin this dominates.
//! 2. **The relative rotation and the vertex map**: the product `q̄_A q_B`
//!    is within `8 u` in norm, which moves a vertex by `4 · 8 u R`; its
//!    norm defect (`16 u`) scales it by as much; the map itself adds
//!    `u (64 R + 2 |t_AB|∞)` with `|t_AB| ≤ R_A + R_B` when the shapes
//!    touch: at most `118 u (R_A + R_B)` per component.
//! 3. **Back to world axes** a per-component error grows by up to `√3`:
//!    items 1 and 2 give `111 u (T_A + T_B) + 205 u (R_A + R_B)`.
//! 4. **The tolerances**: GJK counts `10⁻⁶` of the CSO's scale as touching
//!    and Lin–Canny `2·10⁻⁶` of `r_A + r_B + |t_AB| + |c_A|`, at most
//!    `8·10⁻⁶ (R_A + R_B) < 135 u (R_A + R_B)` when the shapes touch.
//! 5. **The box's own arithmetic**: a coordinate `q * v + t` (or `row ·
//!    v + t`) is within `u (64 R + 2 T)` of its value (item 1), a rotated
//!    box's corners likewise.
//! 6. **A compound's piece** is tested at its composed pose, itself within
//!    `u (64 R + 2 T)` of its value per component: `111 u R + 4 u T` more.
//!
//! Each box carries its own share, so `p ≥ 117 u T + 515 u R` per box
//! covers the pair: [`rounding_pad`] takes `2⁻¹⁷ T + 2⁻¹⁴ R` (`128 u T +
//! 1024 u R`). Near the origin this is `6·10⁻⁵` of the shape's size; far
//! from it, `7.6·10⁻⁶` of the distance. Item 1's bound is a worst case
//! over every rounding at once: against `f64` the relative translation's
//! error reaches a tenth of it (`bvh::rounding`'s tests), and the boxes
//! that dropped touching pairs without the pad were 1 to 3 `u T` apart
//! (`tests/core/exact_bounds.rs`).

//!
//! # Pairs in a frame near the pair
//!
//! The world tests a pair in the frame at its first body's translation
//! (`crate::pipeline::large_world`): item 1's `T_A` is then 0 and `T_B`
//! the pair's own offset, within `R_A + R_B` when the shapes touch, which
//! the reach share covers. The translation share stays for what is still
//! tested in world `f32` coordinates (`f32` rays and shape casts, the
//! character's contacts) and for the box's own arithmetic
//! ([`Aabb::placed_at`](crate::math::Aabb::placed_at)).

use glam::Vec3;

/// The unit roundoff of `f32`: `2⁻²⁴`.
pub(crate) const U: f32 = f32::EPSILON * 0.5;

/// Below every coordinate's rounding: keeps a pad positive when every
/// coordinate is 0 or subnormal (absolute errors of `2⁻¹⁴⁹` per step).
pub(crate) const TINY: f32 = 64.0 * f32::MIN_POSITIVE;

/// The pad per unit of the translation's largest component (`128 u`).
pub(crate) const PER_TRANSLATION: f32 = 1.0 / 131_072.0; // 2^-17

/// The pad per unit of the shape's reach (`1024 u`).
const PER_REACH: f32 = 1.0 / 16_384.0; // 2^-14

/// How much to grow, on every side, the world box of a shape whose points
/// are within `reach` (`|x|₂`) of its own origin, at world translation
/// `translation`, so that no pair the pair tests call touching has its
/// boxes apart (see the module docs): `2⁻¹⁴ reach + 2⁻¹⁷ |t|∞`. An
/// absolute value, two maxima, two multiply-adds per box.
#[inline]
pub fn rounding_pad(reach: f32, translation: Vec3) -> f32 {
    PER_REACH * reach + PER_TRANSLATION * translation.abs().max_element() + TINY
}
