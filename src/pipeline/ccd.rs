//! Continuous detection, opt-in per body ([`BodyDesc::ccd`](super::BodyDesc),
//! [`CollisionWorld::set_ccd`]): nothing tunnels.
//!
//! A body with continuous detection remembers its pose at the last narrow
//! phase. When it has moved since, its motion over the step is the rigid
//! motion from that pose to the current one (its box center in a straight
//! line, the shorter rotation about it: [`RigidMotion::between`]), and:
//!
//! - **bounds**: its broad-phase box holds its whole path: the union of its
//!   boxes at both ends, grown by `θ R / 2` when it turns by `θ` (a point
//!   at distance `R` from the center strays at most `2 t (1 − t) θ R` from
//!   the straight line between its two ends, which the union holds), so
//!   every body it passes is paired;
//! - **narrow phase**: a pair apart at the current poses is cast over the
//!   step ([`crate::query::cast_shapes_nonlinear`]'s algorithm; a body
//!   without continuous detection stands at its current pose). A hit makes
//!   the pair touch for this step (`PairResult::swept`, contact data at the
//!   time of impact): a start event now, and, since the pair is tested
//!   again at the next narrow phase, an end event then if it is apart. A
//!   hit at time 0 (touching where the step starts) is a new touch only
//!   when the shapes overlap there and the pair was apart at its last
//!   test (a body without continuous detection that jumped onto it, a
//!   sweep that `set_ccd` started inside another body); a pair touching at
//!   its last test that separates ends at once. A pair apart but within
//!   the cast's tolerance (`1e-4`) at time 0 is cast again with a
//!   tolerance under its gap: it touches if it comes closer later in the
//!   step, not for the near miss where the step starts.
//!
//! One cast per step finds a pair's first contact of the step: a pair
//! touching where the step starts that separates and touches again within
//! the same step (a turn of an elongated body) is reported as ending; the
//! re-touch is not seen (`tests/core/exact_ccd.rs` counts these against fine
//! stepping).
//!
//! The start's box is that of the body's current shape at the start pose:
//! the last narrow phase's bounds update when the step starts there, a box
//! computed afresh when `set_ccd` starts it elsewhere (after a teleport)
//! or its shape, scale or vertices change.
//!
//! After the narrow phase the step starts afresh at the current pose, and a
//! body that swept is marked for a bounds update so that its box shrinks
//! back. Poses set several times between two narrow phases sweep from the
//! first to the last in a straight line; a teleport sweeps too (turn
//! detection off for that step to jump).

use super::body::Body;
use super::{BodyHandle, CollisionWorld, WorldError};
use crate::broad_phase::BroadPhase;
use glam::DVec3;

use crate::math::{Aabb, MotionResidual, RigidMotion, WorldPose};

impl Body {
    /// Its motion over the step, when it has continuous detection and
    /// moved, in the frame whose origin is the world point `origin` (see
    /// [`WorldPose::in_frame`](crate::math::WorldPose::in_frame)).
    pub fn sweep(&self, origin: DVec3) -> Option<RigidMotion> {
        let (from, _) = self.step_start?;
        let to = self.pose?;
        let (from, to) = (from.in_frame(origin), to.in_frame(origin));
        (self.ccd && from != to)
            .then(|| RigidMotion::between(&from, &to, self.local_box().center()))
    }

    /// [`sweep`](Self::sweep) with its residual: the `f64` start
    /// translation and center velocity less the motion's `f32` ones, so
    /// that the cast sees the step's `f64` endpoints whatever the frame.
    pub fn sweep_exact(&self, origin: DVec3) -> Option<(RigidMotion, MotionResidual)> {
        let m = self.sweep(origin)?;
        let (from, to) = (self.step_start?.0, self.pose?);
        let c = m.local_center.as_dvec3();
        let center = |p: &WorldPose| (p.translation - origin) + p.rotation.as_dquat() * c;
        let start = (from.translation - origin) - m.start.translation.as_dvec3();
        let velocity = (center(&to) - center(&from)) - m.linvel.as_dvec3();
        Some((m, MotionResidual { start, velocity }))
    }

    /// The box holding the body along its step (see the module docs), from
    /// its box `now` at the current pose.
    pub fn swept_box(&self, now: Aabb) -> Aabb {
        let (Some(m), Some((_, start))) = (self.sweep(self.origin()), self.step_start) else {
            return now;
        };
        let radius = self.local_box().max_distance_from(m.local_center);
        now.union(start).padded(0.5 * m.angvel.length() * radius)
    }
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// Turns continuous detection of a body on or off (see the module
    /// docs). Turned on, its first step starts at its current pose (its
    /// pairs are then all retested: a sleeping pair's distance was measured
    /// from elsewhere); setting the same value again changes nothing.
    pub fn set_ccd(&mut self, h: BodyHandle, on: bool) -> Result<(), WorldError> {
        let body = self.body_mut(h)?;
        if body.ccd == on {
            return Ok(());
        }
        body.ccd = on;
        // The box of the pose where the step starts, not that of the last
        // bounds update (the body may have moved since).
        body.step_start = body.pose.map(|p| (p, body.box_at(&p)));
        if on {
            body.retest_pairs();
        }
        // Its box at the next bounds update: no sweep yet, or none any more.
        self.mark_dirty(h.index());
        Ok(())
    }

    /// Whether a body has continuous detection.
    pub fn ccd(&self, h: BodyHandle) -> Result<bool, WorldError> {
        Ok(self.body(h)?.ccd)
    }

    /// After a narrow phase: the moved bodies start their next step here
    /// (scheduling's odometer, continuous detection's sweep); those that
    /// swept get a bounds update.
    pub(super) fn restart_steps(&mut self) {
        let ttc = self.config.time_to_collision;
        for k in 0..self.moved.len() {
            let i = self.moved[k];
            let body = &mut self.bodies[i as usize];
            if body.pose.is_none() {
                continue;
            }
            if ttc {
                body.restart_travel();
            }
            if !body.ccd {
                continue;
            }
            let swept = body.sweep(body.origin()).is_some();
            // The bounds update of this narrow phase was at this pose.
            body.step_start = body.pose.map(|p| (p, body.unswept));
            if swept {
                self.mark_dirty(i);
            }
        }
    }
}
