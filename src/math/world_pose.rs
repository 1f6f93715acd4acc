//! Positions far from the origin: a [`WorldPose`] keeps a body's
//! translation in `f64`; everything else (shapes, trees, rotations, every
//! pair test) stays `f32`.
//!
//! This is the split Jolt makes with `JPH_DOUBLE_PRECISION`, Box2D with its
//! large-world positions, and avian with its `f64` positions (avian PR
//! #1027): only world-space positions are double precision. A pair is
//! tested in a frame near the pair, [`WorldPose::in_frame`]: the frame's
//! origin is a world point (the pair's first body's translation, a ray's
//! origin, a cast's start), each side's translation is its offset from it,
//! computed in `f64` and rounded once to `f32`. The pair test then forms
//! `q̄_A (t_B − t_A)` from an offset that carries the rounding of the
//! pair's own separation, not of the distance to the origin: a pair a
//! million kilometres out gets the answer it gets at the origin.
//!
//! An `f32` translation of magnitude `T` is off by up to `2⁻²⁴ T` (6 cm
//! at 10⁶ m, 64 m at 10⁹ m); an `f64` one by `2⁻⁵³ T` (`10⁻⁴ m` at
//! 10¹² m, `0.125 m` at the world's limit `2⁵⁰ m`).

use glam::{DVec3, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::rounding::TINY;
use super::{Aabb, Pose};

/// A rigid pose with an `f64` translation: `p_world = rotation * p_local +
/// translation`, the sum in `f64`. See the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorldPose {
    /// Unit quaternion (`f32`, as every rotation of the crate).
    pub rotation: Quat,
    /// Translation, world space, `f64`.
    pub translation: DVec3,
}

impl WorldPose {
    /// The identity pose.
    pub const IDENTITY: Self = Self {
        rotation: Quat::IDENTITY,
        translation: DVec3::ZERO,
    };

    /// A pose from a rotation and an `f64` translation.
    pub fn new(rotation: Quat, translation: DVec3) -> Self {
        Self {
            rotation,
            translation,
        }
    }

    /// The pose in the frame whose origin is the world point `origin` (axes
    /// the world's): the offset `translation − origin` in `f64`, rounded
    /// once to `f32`. Pair tests run on poses in one such frame.
    #[inline]
    pub fn in_frame(&self, origin: DVec3) -> Pose {
        Pose::new(self.rotation, (self.translation - origin).as_vec3())
    }

    /// The pose rounded to `f32` (the frame at the world origin).
    #[inline]
    pub fn to_pose(&self) -> Pose {
        self.in_frame(DVec3::ZERO)
    }

    /// Maps a point from local to world coordinates, the sum in `f64`.
    #[inline]
    pub fn transform_point(&self, p: Vec3) -> DVec3 {
        self.translation + (self.rotation * p).as_dvec3()
    }
}

impl From<Pose> for WorldPose {
    /// The same pose (an `f32` translation is exact in `f64`).
    fn from(p: Pose) -> Self {
        Self::new(p.rotation, p.translation.as_dvec3())
    }
}

impl Aabb {
    /// This box moved by `offset` (`f64`) and rounded outward to `f32`:
    /// the result holds every point of the moved box. Each corner's sum is
    /// computed in `f64` (within `2⁻⁵³` of it) and rounded to the nearest
    /// `f32` `r` (within half a step of it); `r ∓ 2⁻²³ |r|`, rounded, is at
    /// least a whole step below (above) `r` (a step of a normal `r` is at
    /// most `2⁻²³ |r|`), so past the corner by half a step, far more than
    /// the `f64` sum's rounding; `TINY` more for zeros and subnormals.
    pub fn shifted_out(&self, offset: DVec3) -> Aabb {
        let lo = (self.min.as_dvec3() + offset).as_vec3();
        let hi = (self.max.as_dvec3() + offset).as_vec3();
        let tiny = Vec3::splat(TINY);
        Aabb::new(
            lo - lo.abs() * f32::EPSILON - tiny,
            hi + hi.abs() * f32::EPSILON + tiny,
        )
    }

    /// A body's world box: this box of its shape at its rotation (around
    /// its own origin, rounded out for its reach) moved to its world
    /// translation `t`, in `f32`, grown by the translation's share of
    /// [`rounding_pad`](super::rounding_pad), `2⁻¹⁷ |t|∞ = 128 u T`
    /// (`u = 2⁻²⁴`, `T = |t|∞`).
    ///
    /// That pad covers the tests still made in world `f32` coordinates
    /// (`f32` rays and shape casts, the character's contacts: `117 u T`,
    /// see `math::rounding`) and this function's own rounding: `t` to
    /// `f32` (`u T`), the sum with a corner (`u (T + R)`), the pad's
    /// subtraction (`u (T + R)` and less), `R` the box's reach, whose
    /// share the box's own reach pad (`1024 u R`, of which the tests use
    /// `515 u R`) covers. Pair tests, made in a frame near the pair, need
    /// no translation share at all.
    #[inline]
    pub fn placed_at(&self, t: DVec3) -> Aabb {
        let t = t.as_vec3();
        let pad = super::rounding::PER_TRANSLATION * t.abs().max_element() + TINY;
        Aabb::new(self.min + t, self.max + t).padded(pad)
    }

    /// A world box (one [`placed_at`](Self::placed_at) its translation
    /// `t`, with its `2⁻¹⁷ |t|∞` share of the pad) moved into the frame at
    /// the world point `origin`, in `f32`: `origin` rounded to `f32` (`u
    /// |origin|∞` off) and the difference's rounding (`u (T + |origin|∞)`)
    /// take `4 u T` of that share when `origin` is within `T` of `t` (a
    /// pair's first body, near the second when they may touch), and hold
    /// whatever the box held.
    #[inline]
    pub fn moved_to_frame(&self, origin: DVec3) -> Aabb {
        let o = origin.as_vec3();
        Aabb::new(self.min - o, self.max - o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_frame_keeps_the_offset_far_out() {
        let far = DVec3::new(1e12, -3e9, 7e11);
        let a = WorldPose::new(Quat::IDENTITY, far);
        let b = WorldPose::new(Quat::IDENTITY, far + DVec3::new(0.25, 1.0 / 1024.0, -2.0));
        let rel = b.in_frame(a.translation);
        assert_eq!(rel.translation, Vec3::new(0.25, 1.0 / 1024.0, -2.0));
        assert_eq!(a.in_frame(a.translation).translation, Vec3::ZERO);
        // The f32 pose of b has lost the offset altogether.
        assert_ne!(
            b.to_pose().translation - a.to_pose().translation,
            rel.translation
        );
    }

    #[test]
    fn shifted_boxes_hold_the_moved_box() {
        let mut rng = crate::testkit::Rng::new(3);
        let b = Aabb::new(Vec3::splat(-0.3), Vec3::new(0.7, 0.1, 2.0));
        let mut cases = vec![
            (b, DVec3::ZERO),
            (b, DVec3::splat(1e6 + 0.1)),
            (b, DVec3::new(-1e12, 3e9, 0.5)),
            // Corners landing on zero, on a power of two, and subnormal.
            (b, DVec3::new(0.3, -0.1, -2.0)),
            (b, DVec3::new(1.3, 0.9, 2.0)),
            (
                Aabb::new(Vec3::splat(-1e-40), Vec3::splat(1e-40)),
                DVec3::ZERO,
            ),
        ];
        for _ in 0..10_000 {
            let c = rng.in_cube(10.0);
            let b = Aabb::new(c - rng.vec(0.0, 3.0), c + rng.vec(0.0, 3.0));
            let scale = 10f64.powi(rng.usize(0, 13) as i32);
            cases.push((b, rng.in_cube(1.0).as_dvec3() * scale));
        }
        for (b, offset) in cases {
            let s = b.shifted_out(offset);
            for i in 0..3 {
                assert!(f64::from(s.min[i]) <= f64::from(b.min[i]) + offset[i]);
                assert!(f64::from(s.max[i]) >= f64::from(b.max[i]) + offset[i]);
            }
        }
    }
}
