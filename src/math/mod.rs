//! Small math layer: rigid [`Pose`]s and [`RigidMotion`]s, axis-aligned boxes ([`Aabb`]) and the
//! symmetric 3×3 eigen-solver ([`eigen`]) the OBB fit uses.
//!
//! The crate works in `f32` with glam 0.33, the same `Vec3` / `Quat` that
//! `bevy_math` 0.20 re-exports, so values pass between Bevy and the collision
//! core without conversion. Exact sign decisions (later: triangle tests) use
//! robust predicates; everything here is plain floating point.

mod aabb;
pub mod eigen;
mod motion;
mod pose;
pub(crate) mod prefetch;
pub(crate) mod rounding;
pub(crate) mod vec3x4;
mod world_pose;

pub use aabb::Aabb;
pub use motion::{MotionResidual, RigidMotion};
pub use pose::{Pose, PoseError};
pub use rounding::rounding_pad;
pub use world_pose::WorldPose;

/// Grows `v`'s capacity to at least `capacity` (its length unchanged): a
/// scratch buffer made as large as another's, so that several scratches
/// share one high-water mark.
pub(crate) fn reserve_to<T>(v: &mut Vec<T>, capacity: usize) {
    if v.capacity() < capacity {
        v.reserve_exact(capacity - v.len());
    }
}

/// The bits of `x` as an integer that orders like `x` under `<` (a
/// negative float's bits flipped, a positive one's sign bit set), with
/// `-0.0` read as `0.0`, which `<` does not order apart.
#[inline(always)]
pub(crate) fn ordered_bits(x: f32) -> u32 {
    let bits = (x + 0.0).to_bits();
    let flip = ((bits as i32 >> 31) as u32) | 0x8000_0000;
    bits ^ flip
}

#[cfg(test)]
mod tests {
    use super::ordered_bits;

    #[test]
    fn ordered_bits_order_like_the_floats() {
        // Ascending, with ±0 equal under `<` and so under the map.
        let xs = [
            f32::NEG_INFINITY,
            f32::MIN,
            -1.5,
            -1.0,
            -f32::MIN_POSITIVE,
            -1e-45,
            -0.0,
            0.0,
            1e-45,
            f32::MIN_POSITIVE,
            1.0,
            1.5,
            f32::MAX,
            f32::INFINITY,
        ];
        for a in xs {
            for b in xs {
                let (ka, kb) = (ordered_bits(a), ordered_bits(b));
                assert_eq!(a < b, ka < kb, "{a} < {b}");
                assert_eq!(a == b, ka == kb, "{a} == {b}");
            }
        }
    }
}
