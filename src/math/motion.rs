//! Rigid motion over time, for time-of-impact queries.
//!
//! A [`RigidMotion`] moves a body from its start pose with constant linear
//! velocity of one of its points (the *center*, in the body's frame) and
//! constant angular velocity about that point, parry's
//! `NonlinearRigidMotion`:
//!
//! ```text
//! rotation(t)    = exp(t ω) · rotation(0)
//! center(t)      = center(0) + t v
//! translation(t) = center(t) − rotation(t) · local_center
//! ```
//!
//! A point of the body at distance `r` from the center moves at most at
//! `|v| + |ω| r`; conservative advancement ([`crate::geometry::cast`])
//! rests on that bound.

use glam::{DVec3, Quat, Vec3};

use super::Pose;

/// A body's motion: start pose, a center in its frame, linear velocity of
/// the center and angular velocity about it (world frame, radians per unit
/// of time). Time is in whatever unit the velocities use (e.g. one frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidMotion {
    /// The pose at time 0.
    pub start: Pose,
    /// The rotation center, in the body's frame.
    pub local_center: Vec3,
    /// Velocity of the center (world frame).
    pub linvel: Vec3,
    /// Angular velocity (world frame: axis times radians per unit time).
    pub angvel: Vec3,
}

impl RigidMotion {
    /// The motion with its start pose [validated](Pose::validated) (the
    /// rotation normalized where it is off unit length within the
    /// tolerance).
    pub fn with_unit_start(&self) -> Result<Self, super::PoseError> {
        let start = self.start.validated()?;
        Ok(Self { start, ..*self })
    }

    /// A body that does not move.
    pub fn stationary(start: Pose) -> Self {
        Self::linear(start, Vec3::ZERO)
    }

    /// A pure translation at `linvel`.
    pub fn linear(start: Pose, linvel: Vec3) -> Self {
        RigidMotion {
            start,
            local_center: Vec3::ZERO,
            linvel,
            angvel: Vec3::ZERO,
        }
    }

    /// The motion that takes a body from pose `from` at time 0 to pose `to`
    /// at time 1, turning about `local_center` by the shorter rotation
    /// (at most half a turn) while that point moves in a straight line.
    pub fn between(from: &Pose, to: &Pose, local_center: Vec3) -> Self {
        let mut turn = to.rotation * from.rotation.inverse();
        if turn.w < 0.0 {
            turn = -turn;
        }
        let (axis, angle) = turn.normalize().to_axis_angle();
        let angvel = if angle.is_finite() && angle > 0.0 {
            axis * angle
        } else {
            Vec3::ZERO
        };
        let linvel = to.transform_point(local_center) - from.transform_point(local_center);
        RigidMotion {
            start: *from,
            local_center,
            linvel,
            angvel,
        }
    }

    /// Whether the motion has no rotation.
    pub fn is_linear(&self) -> bool {
        self.angvel == Vec3::ZERO
    }

    /// The pose at time `t`.
    pub fn pose_at(&self, t: f32) -> Pose {
        if self.is_linear() {
            let mut p = self.start;
            p.translation += t * self.linvel;
            return p;
        }
        let rotation = (Quat::from_scaled_axis(t * self.angvel) * self.start.rotation).normalize();
        let center = self.start.transform_point(self.local_center) + t * self.linvel;
        Pose::new(rotation, center - rotation * self.local_center)
    }

    /// The motion of a part that sits at `local` in this body's frame (a
    /// compound's piece): same velocities, same center.
    pub fn of_part(&self, local: &Pose) -> RigidMotion {
        RigidMotion {
            start: self.start.mul(local),
            local_center: local.inverse().transform_point(self.local_center),
            ..*self
        }
    }

    /// Why the motion cannot be used, if it cannot: a bad start pose or a
    /// NaN or infinite center or velocity.
    pub fn check(&self) -> Result<(), &'static str> {
        if self.start.validate().is_err() {
            return Err("the start pose is NaN, infinite or not a unit rotation");
        }
        if !self.local_center.is_finite() {
            return Err("the rotation center is NaN or infinite");
        }
        if !self.linvel.is_finite() || !self.angvel.is_finite() {
            return Err("a velocity is NaN or infinite");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn center_follows_its_line_and_rotation_its_axis() {
        let m = RigidMotion {
            start: Pose::new(Quat::from_rotation_x(0.3), Vec3::new(1.0, 2.0, 3.0)),
            local_center: Vec3::new(0.5, -0.2, 0.1),
            linvel: Vec3::new(0.1, 0.0, -2.0),
            angvel: Vec3::new(0.0, 0.0, 1.5),
        };
        let c0 = m.start.transform_point(m.local_center);
        for t in [0.0, 0.25, 1.0, 3.0] {
            let p = m.pose_at(t);
            let c = p.transform_point(m.local_center);
            assert!(c.distance(c0 + t * m.linvel) < 1e-5, "t = {t}");
            let turned = p.rotation * m.start.rotation.inverse();
            let want = Quat::from_rotation_z(1.5 * t);
            assert!(turned.dot(want).abs() > 1.0 - 1e-6, "t = {t}");
        }
        // A part's motion moves the part's points as the body moves them.
        let local = Pose::new(Quat::from_rotation_y(1.0), Vec3::new(0.0, 1.0, 0.0));
        let part = m.of_part(&local);
        let x = Vec3::new(0.3, 0.4, -0.5);
        for t in [0.0, 0.7, 2.0] {
            let via_body = m.pose_at(t).transform_point(local.transform_point(x));
            assert!(part.pose_at(t).transform_point(x).distance(via_body) < 1e-5);
        }
    }

    #[test]
    fn between_two_poses_ends_at_the_second() {
        let from = Pose::new(Quat::from_rotation_x(0.3), Vec3::new(1.0, 2.0, 3.0));
        for (q, c) in [
            (
                Quat::from_rotation_y(2.5) * from.rotation,
                Vec3::new(0.2, 0.0, -0.4),
            ),
            (-(Quat::from_rotation_z(-3.0) * from.rotation), Vec3::ZERO),
            (from.rotation, Vec3::X),
        ] {
            let to = Pose::new(q, Vec3::new(-2.0, 0.5, 4.0));
            let m = RigidMotion::between(&from, &to, c);
            let end = m.pose_at(1.0);
            assert!(end.translation.distance(to.translation) < 1e-5, "{end:?}");
            assert!(end.rotation.dot(to.rotation).abs() > 1.0 - 1e-6, "{end:?}");
            assert!(m.angvel.length() <= std::f32::consts::PI + 1e-5);
        }
    }
}

/// What a motion's `f32` start translation and center velocity leave out
/// of `f64` endpoints: the motion `m` with residual `r` starts at
/// `m.start.translation + r.start` and its center moves at
/// `m.linvel + r.velocity`, both sums in `f64`. Continuous detection far
/// from the origin casts a sweep with its residual (the cast's frame takes
/// both, see `query/cast_frame.rs`), so that rounding the step's endpoints
/// into the pair's frame does not move the path.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MotionResidual {
    /// Start translation residual.
    pub start: DVec3,
    /// Center velocity residual.
    pub velocity: DVec3,
}

impl MotionResidual {
    /// No residual: the motion's `f32` values are exact.
    pub const ZERO: Self = Self {
        start: DVec3::ZERO,
        velocity: DVec3::ZERO,
    };
}
