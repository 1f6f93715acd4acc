//! Time-to-collision scheduling (Cohen, Lin, Manocha, Ponamgi, *I-COLLIDE*,
//! I3D 1995, §3.4), opt-in per world ([`WorldConfig::time_to_collision`](super::WorldConfig))
//! and per body ([`CollisionWorld::set_speed_bound`]).
//!
//! **Sleep measured in distance.** Two bodies found `d` apart cannot touch
//! while their points, together, have moved less than `d` since. So each
//! body of a scheduling world keeps an odometer, its *travel*: an upper
//! bound, rounded up, on how far any of its points has moved since it was
//! added, advanced at each narrow phase by the bound of its motion over the
//! step (below). A pair whose test finds it apart with an exact distance
//! (two convex shapes, spheres or capsules: their contact data is the
//! distance; not compounds or meshes) records the sum of its two bodies'
//! travels plus that distance, less a rounding margin, as its *wake*, and
//! the narrow phase does not test it while the sum stays below: I-COLLIDE's
//! wake-up times, counted in distance travelled rather than in steps.
//!
//! A count of steps, `⌈d / (reach_A + reach_B)⌉ − 1`, rests on every step
//! keeping to the declared bound, checked with a slack: a body creeping
//! under the slack (with a bound of 0, for ever), a bound raised, a shape
//! swapped or a teleport hidden by `set_speed_bound` mid-sleep went unseen.
//! The odometer measures the motion that happened, whatever was declared,
//! so no sequence of calls between two narrow phases can make a sleeping
//! pair miss a contact: the scheduled world reports exactly the events of
//! the unscheduled one (`tests/core/exact_ttc.rs`).
//!
//! **A step's travel.** From pose `P₀` (the last narrow phase) to `P₁`,
//! with `c` the center of the body's box (its own frame) and `R` the
//! farthest any of its points is from `c`: a point moves at most
//! `|c₁ − c₀| + min(θ, 2) R`, `θ` the angle of the shorter rotation from
//! `P₀` to `P₁` (a turn by `θ` moves a point at distance `R` by
//! `2 R sin(θ/2)`). That also bounds every point along continuous
//! detection's path (the center on a straight line, the turn about it).
//! The pose's quaternions may be off unit length by the tolerance of
//! [`Pose::validate`](crate::math::Pose::validate): a point is then placed within `2 |‖q‖² − 1| |p|`
//! of where the unit rotation puts it, which is added. Computed in `f64`
//! from the `f32` poses and accumulated rounding up.
//!
//! **Rounding margin.** The pair tests decide contact within a tolerance of
//! `2·10⁻⁶` of their scale (Lin–Canny, GJK), from points rounded to `f32`.
//! The wake is `d − 10⁻⁴ (s + d)` past the travel sum at the test, `s` the
//! largest coordinate of the two bodies' boxes, so a pair its test might
//! call touching is never skipped.
//!
//! **The bound** ([`SpeedBound`]) opts a body in and is a promise: a body
//! that moves farther in a step than its bound allows gets every pair
//! tested that step, as without scheduling (a broken promise costs time,
//! never a missed contact). So does a change of what its pairs' distances
//! were measured on: its shape, scale, deformable vertices, or where its
//! continuous detection's step starts. Contact data of a skipped pair is
//! that of its last test.

use glam::{DQuat, DVec3, Vec3};

use super::body::Body;
use super::{BodyHandle, CollisionWorld, WorldError};
use crate::broad_phase::BroadPhase;
use crate::math::WorldPose;

/// How far a body can move in one step (between two narrow phases): its
/// origin by at most `linear`, its rotation by at most `angular` radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedBound {
    /// Largest translation of the body's origin per step.
    pub linear: f32,
    /// Largest rotation per step, radians.
    pub angular: f32,
}

impl SpeedBound {
    /// Whether the step from `from` to `to` goes past the bound, beyond the
    /// rounding of the poses themselves (a few `f32` ulps of the
    /// translations and of the turn).
    fn broken_by(&self, from: &WorldPose, to: &WorldPose) -> bool {
        let eps = f64::from(f32::EPSILON);
        let (t0, t1) = (from.translation, to.translation);
        let linear = f64::from(self.linear);
        let angular = f64::from(self.angular);
        let moved = t1.distance(t0);
        let turned = turn_angle(unit(from), unit(to));
        moved > linear + 4.0 * eps * (linear + t0.length() + t1.length())
            || turned > angular + 8.0 * eps * (1.0 + angular)
    }
}

/// What scheduling keeps of a body (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Travel {
    /// The pose at the last narrow phase (`None` before it had one).
    from: Option<WorldPose>,
    /// The odometer at the last narrow phase.
    done: f64,
    /// `done` plus the travel from `from` to the current pose.
    pub now: f64,
    /// Every pair of the body is tested at the next narrow phase.
    pub retest: bool,
}

impl Body {
    /// With scheduling on: the travel up to the current pose (called at
    /// each bounds update), and a retest when the step breaks the bound.
    pub fn measure_travel(&mut self) {
        let (Some(from), Some(to)) = (self.travel.from, self.pose) else {
            return;
        };
        let b = self.local_box();
        let center = b.center();
        let step = step_travel(&from, &to, center, b.max_distance_from(center));
        // Rounded up: the odometer never lags the motion.
        self.travel.now = (self.travel.done + step).next_up();
        if self.speed_bound.is_some_and(|s| s.broken_by(&from, &to)) {
            self.travel.retest = true;
        }
    }

    /// After a narrow phase that saw the body moved: the next step starts
    /// here.
    pub fn restart_travel(&mut self) {
        self.travel.done = self.travel.now;
        self.travel.from = self.pose;
        self.travel.retest = false;
    }

    /// What the body's pairs were measured on changed (shape, scale,
    /// vertices, the start of its sweep): they are all tested at the next
    /// narrow phase.
    pub fn retest_pairs(&mut self) {
        self.travel.retest = true;
    }
}

/// A pose's rotation in `f64`, made unit.
fn unit(p: &WorldPose) -> DQuat {
    quat(p).normalize()
}

fn quat(p: &WorldPose) -> DQuat {
    let q = p.rotation;
    DQuat::from_xyzw(q.x.into(), q.y.into(), q.z.into(), q.w.into())
}

/// The angle of the shorter rotation from `a` to `b` (unit), `2 atan2(|xyz|,
/// |w|)` (an `acos` loses precision near 0).
fn turn_angle(a: DQuat, b: DQuat) -> f64 {
    let q = b * a.conjugate();
    2.0 * DVec3::new(q.x, q.y, q.z).length().atan2(q.w.abs())
}

/// How far any point of a body moves from `a` to `b` at most, directly or
/// along continuous detection's path; `center`: its box center, `radius`:
/// the farthest its points are from it (see the module docs).
pub(super) fn step_travel(a: &WorldPose, b: &WorldPose, center: Vec3, radius: f32) -> f64 {
    let (ua, ub) = (unit(a), unit(b));
    let c = center.as_dvec3();
    let ca = ua * c + a.translation;
    let cb = ub * c + b.translation;
    let r = f64::from(radius);
    let off_unit = (quat(a).length_squared() - 1.0).abs() + (quat(b).length_squared() - 1.0).abs();
    let bound =
        cb.distance(ca) + turn_angle(ua, ub).min(2.0) * r + 2.0 * off_unit * (c.length() + r);
    // The f64 evaluation's own rounding, with room to spare.
    bound * (1.0 + 1e-12)
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// Declares how far a body can move per step (`None`: no bound, its
    /// pairs are tested whenever it moves). Used when the world schedules by
    /// time to collision (see the module docs); the schedule itself rests
    /// on the motion measured, so changing the bound never hides a contact.
    /// Errors: a NaN, infinite or negative bound.
    pub fn set_speed_bound(
        &mut self,
        h: BodyHandle,
        bound: Option<SpeedBound>,
    ) -> Result<(), WorldError> {
        if let Some(b) = &bound {
            super::checks::speed_bound(b)?;
        }
        self.body_mut(h)?.speed_bound = bound;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Pose;
    use glam::Quat;

    /// The bound holds for every point of a box, at the ends and along
    /// the path continuous detection casts, against the points moved.
    #[test]
    fn step_travel_bounds_every_point_directly_and_along_the_path() {
        let mut rng = crate::testkit::Rng::new(5);
        for _ in 0..2000 {
            let a = Pose::new(rng.rotation(), rng.in_cube(100.0));
            let turn = Quat::from_axis_angle(rng.unit_vector(), rng.range(0.0, 3.1));
            let b = Pose::new(
                (turn * a.rotation).normalize(),
                a.translation + rng.in_cube(2.0),
            );
            let (center, half) = (rng.in_cube(1.0), rng.vec(0.01, 1.0));
            let radius = half.length();
            let bound = step_travel(&a.into(), &b.into(), center, radius);
            let m = crate::math::RigidMotion::between(&a, &b, center);
            for _ in 0..8 {
                let p = center + half * rng.vec(-1.0, 1.0);
                let p0 = a.transform_point(p).as_dvec3();
                for t in [0.25, 0.5, 0.75, 1.0] {
                    let moved = m.pose_at(t).transform_point(p).as_dvec3().distance(p0);
                    // Up to the f32 rounding of the points themselves.
                    assert!(moved <= bound + 1e-4, "{moved} > {bound}");
                }
                let moved = b.transform_point(p).as_dvec3().distance(p0);
                assert!(moved <= bound + 1e-4, "{moved} > {bound}");
            }
        }
    }

    #[test]
    fn a_bound_is_broken_by_any_motion_beyond_rounding() {
        let b = SpeedBound {
            linear: 1e-3,
            angular: 0.0,
        };
        let a = Pose::IDENTITY;
        let near = |x: f32| Pose::from_translation(Vec3::X * x);
        let a = WorldPose::from(a);
        assert!(!b.broken_by(&a, &near(1e-3).into()));
        assert!(b.broken_by(&a, &near(1.001e-3).into()));
        let zero = SpeedBound {
            linear: 0.0,
            angular: 0.0,
        };
        assert!(zero.broken_by(&a, &near(1e-6).into()));
        let turned = Pose::new(Quat::from_rotation_z(1e-4), Vec3::ZERO);
        assert!(zero.broken_by(&a, &turned.into()));
    }
}
