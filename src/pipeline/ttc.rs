//! Time-to-collision scheduling (Cohen, Lin, Manocha, Ponamgi, *I-COLLIDE*,
//! I3D 1995, §3.4), opt-in per world ([`WorldConfig::time_to_collision`](super::WorldConfig))
//! and per body ([`CollisionWorld::set_speed_bound`]).
//!
//! A body that declares how far it can move in one step (a [`SpeedBound`]:
//! its origin at most `linear`, its rotation at most `angular` radians)
//! moves each of its points at most `reach = linear + min(angular, 2) r`
//! per step, `r` being its farthest point from its origin (a turn by `θ`
//! moves a point at distance `r` by `2 r sin(θ/2)`). Two such bodies `d`
//! apart cannot touch for the next `⌈d / (reach_A + reach_B)⌉ − 1` steps,
//! so the narrow phase does not test their pair before then, however they
//! move: each pair keeps the count of steps it may skip, set when its test
//! finds it apart with an exact distance (two convex shapes, spheres or
//! capsules, not compounds: their contact data is the distance), counted
//! down at each narrow phase. This is I-COLLIDE's priority queue of wake-up
//! times as a per-pair counter: the narrow phase visits every active pair
//! each step anyway, and a counter costs no heap.
//!
//! A bound is a promise the caller makes; it is checked. When a body moves
//! farther in a step than its bound allows (or is teleported), every pair
//! of it is tested that step, as without scheduling, so a broken promise
//! costs time, never a missed contact. Contact data of a skipped pair is
//! that of its last test.

use super::body::Body;
use super::{BodyHandle, CollisionWorld, WorldError};
use crate::broad_phase::BroadPhase;
use crate::math::Pose;

/// How far a body can move in one step (between two narrow phases): its
/// origin by at most `linear`, its rotation by at most `angular` radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedBound {
    /// Largest translation of the body's origin per step.
    pub linear: f32,
    /// Largest rotation per step, radians.
    pub angular: f32,
}

/// Relative slack on the bound checks, for rounding of poses.
const SLACK: f32 = 1e-5;

impl Body {
    /// The farthest any point of the body moves in a step under its bound.
    pub fn step_reach(&self) -> Option<f32> {
        let b = self.speed_bound?;
        // The current box: a deformed or scaled mesh reaches farther than
        // its shape at rest.
        let r = self.local_box().max_distance_from(glam::Vec3::ZERO);
        Some(b.linear + b.angular.min(2.0) * r)
    }

    /// Whether the move from `from` to the current pose breaks the body's
    /// bound (or there is no bound or no start to measure from).
    pub fn breaks_bound(&self, from: Option<Pose>) -> bool {
        let (Some(b), Some(from), Some(to)) = (self.speed_bound, from, self.pose) else {
            return true;
        };
        let moved = from.translation.distance(to.translation);
        // The turn's angle, 2 atan2(|xyz|, |w|) (glam's angle_between uses
        // an approximate acos).
        let q = to.rotation * from.rotation.inverse();
        let turned = 2.0 * q.xyz().length().atan2(q.w.abs());
        moved > b.linear * (1.0 + SLACK) + SLACK || turned > b.angular * (1.0 + SLACK) + SLACK
    }
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// Declares how far a body can move per step (`None`: no bound, its
    /// pairs are tested whenever it moves). Used when the world schedules by
    /// time to collision (see the module docs). Errors: a NaN, infinite or
    /// negative bound, a distance beyond
    /// [`MAX_POSITION`](crate::collider::limits::MAX_POSITION).
    pub fn set_speed_bound(
        &mut self,
        h: BodyHandle,
        bound: Option<SpeedBound>,
    ) -> Result<(), WorldError> {
        if let Some(b) = &bound {
            super::checks::speed_bound(b)?;
        }
        let body = self.body_mut(h)?;
        body.speed_bound = bound;
        body.step_start = body.pose.map(|p| (p, body.unswept));
        Ok(())
    }
}
