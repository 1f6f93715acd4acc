//! Brute-force references for casts, in `f64` and independent of the cast
//! code: rigid motions evaluated in `f64` (exactly at `f32` times for
//! translations of `f32` inputs near a chosen origin), signed distances of
//! balls and polytopes over all their features, and the first time a
//! distance comes down to a level, by steps that a Lipschitz bound on its
//! rate of change makes safe.

use glam::{DQuat, DVec3, Quat, Vec3};

use super::reference::{Poly, distance, sat};
use crate::collider::SharedShape;
use crate::math::RigidMotion;

/// A convex shape for the references: a ball about its origin, or a
/// polytope's local vertices and triangles.
pub enum RefShape {
    /// A ball of this radius.
    Ball(f64),
    /// A convex polytope.
    Hull(Vec<Vec3>, Vec<[u32; 3]>),
}

impl RefShape {
    /// A sphere's ball, or a cuboid's or hull's polytope.
    pub fn of(shape: &SharedShape) -> RefShape {
        if let Some(r) = shape.rounded() {
            assert_eq!(r.half_height, 0.0, "a sphere, not a capsule");
            return RefShape::Ball(r.radius as f64);
        }
        let h = shape.hull().expect("a sphere, cuboid or hull");
        RefShape::Hull(h.vertices().to_vec(), h.triangles().to_vec())
    }

    /// The largest distance of its points from its origin.
    pub fn radius(&self) -> f64 {
        match self {
            RefShape::Ball(r) => *r,
            RefShape::Hull(v, _) => v.iter().map(|p| p.as_dvec3().length()).fold(0.0, f64::max),
        }
    }
}

/// An `f64` pose: rotation, translation.
pub type DPose = (DQuat, DVec3);

pub fn to_dquat(q: Quat) -> DQuat {
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

/// The pose of a motion at time `t` in a frame moving at `velocity`
/// from `origin` (translation relative to `origin + t velocity`): rotation
/// `exp(t ω) q₀`, center `c₀ + t v` (see [`RigidMotion`]). For a
/// translation (`local_center = 0`) of `f32` inputs, with `t` an `f32`,
/// the frame another body's start translation and velocity, and the two
/// bodies close in the frame, the translation is exact (each sum spans
/// fewer than 53 bits).
pub fn motion_pose(m: &RigidMotion, t: f64, (origin, velocity): (DVec3, DVec3)) -> DPose {
    let q0 = to_dquat(m.start.rotation);
    let lc = m.local_center.as_dvec3();
    // The large terms first: they cancel exactly.
    let moved = m.start.translation.as_dvec3() + t * (m.linvel.as_dvec3() - velocity);
    let center = (moved - origin) + q0 * lc;
    let q = if m.angvel == Vec3::ZERO {
        q0
    } else {
        (DQuat::from_scaled_axis(m.angvel.as_dvec3() * t) * q0).normalize()
    };
    (q, center - q * lc)
}

/// The distance of two shapes at `f64` poses; when they overlap, minus
/// the SAT depth for two polytopes, minus the ball's radius (or depth) for
/// a ball.
pub fn signed_gap(a: &RefShape, pa: DPose, b: &RefShape, pb: DPose) -> f64 {
    match (a, b) {
        (RefShape::Ball(ra), RefShape::Ball(rb)) => (pa.1 - pb.1).length() - ra - rb,
        (RefShape::Ball(r), RefShape::Hull(v, t)) => ball_gap(*r, pa.1, &Poly::at(v, t, pb)),
        (RefShape::Hull(v, t), RefShape::Ball(r)) => ball_gap(*r, pb.1, &Poly::at(v, t, pa)),
        (RefShape::Hull(va, ta), RefShape::Hull(vb, tb)) => {
            let (x, y) = (Poly::at(va, ta, pa), Poly::at(vb, tb, pb));
            let (overlap, _) = sat(&x, &y);
            if overlap > 0.0 {
                -overlap
            } else {
                distance(&x, &y)
            }
        }
    }
}

fn ball_gap(r: f64, c: DVec3, p: &Poly) -> f64 {
    let inside = p.plane_dist(c);
    if inside <= 0.0 {
        inside - r
    } else {
        p.point_dist(c) - r
    }
}

/// The first time in `[0, t_max]` at which `gap(t) ≤ level + eps` (or
/// within what an `f64` step of time resolves), stepping by
/// `(gap − level) / lipschitz` (the gap changes at most at `lipschitz`, so
/// no crossing of `level` is stepped over); `None` if never. Near a
/// crossing the steps shrink geometrically: give `eps > 0`.
pub fn first_within(
    gap: impl Fn(f64) -> f64,
    lipschitz: f64,
    t_max: f64,
    (level, eps): (f64, f64),
) -> Option<f64> {
    let mut t = 0.0f64;
    for _ in 0..50_000_000u64 {
        let d = gap(t) - level;
        if d <= eps {
            return Some(t);
        }
        let next = t + d / lipschitz;
        if next == t {
            // Within f64's resolution of the level.
            return Some(t);
        }
        t = next;
        if t > t_max {
            return None;
        }
    }
    panic!("the reference did not settle: a distance grazing its level")
}

/// A bound on how fast the distance of two shapes under these motions can
/// change: relative speed of the centers plus each turn times its radius
/// about the center (`radius` about the shape's origin).
pub fn lipschitz(a: (&RigidMotion, f64), b: (&RigidMotion, f64)) -> f64 {
    let spin = |(m, r): (&RigidMotion, f64)| {
        m.angvel.as_dvec3().length() * (r + m.local_center.as_dvec3().length())
    };
    (b.0.linvel.as_dvec3() - a.0.linvel.as_dvec3()).length() + spin(a) + spin(b)
}
