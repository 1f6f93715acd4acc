//! A character controller on move and slide: ground with a slope limit,
//! steep slopes as walls, steps, snapping down (see the [module docs](super)).

use glam::Vec3;

use super::contacts::Touch;
use super::slide::{SlideOptions, SlideOutput, Slider};
use crate::broad_phase::BroadPhase;
use crate::collider::SharedShape;
use crate::math::Pose;
use crate::pipeline::{BodyHandle, CollisionWorld, QueryFilter};
use crate::query::QueryError;

/// How a [`CharacterController`] walks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ControllerOptions {
    /// The slide's settings (skin, iterations).
    pub slide: SlideOptions,
    /// The world's up (unit). Default `Vec3::Y`.
    pub up: Vec3,
    /// The steepest walkable slope, radians from `up`, in `[0, π/2)`: a
    /// touch whose normal is within it is ground; a steeper slope facing up
    /// is a wall the character does not slide up. Default 45°.
    pub max_slope: f32,
    /// The highest step climbed (0: none). Default 0.25.
    pub max_step_height: f32,
    /// How far along the motion a step moves the shape at least (more than
    /// the motion if need be): a rounded shape stands on a step only once
    /// its bottom is over it, about its radius past the step's edge.
    /// Default 0.3.
    pub min_step_width: f32,
    /// How far a grounded character not moving up is pulled down to the
    /// ground (0: never), over small drops and down slopes. Default 0.2.
    pub snap_distance: f32,
}

impl Default for ControllerOptions {
    fn default() -> Self {
        ControllerOptions {
            slide: SlideOptions::default(),
            up: Vec3::Y,
            max_slope: std::f32::consts::FRAC_PI_4,
            max_step_height: 0.25,
            min_step_width: 0.3,
            snap_distance: 0.2,
        }
    }
}

impl ControllerOptions {
    /// Why the options cannot be used for `shape`, if they cannot.
    pub fn check(&self, shape: &SharedShape) -> Result<(), QueryError> {
        self.slide.check(shape)?;
        if !(self.up.is_finite() && (self.up.length() - 1.0).abs() < 1e-4) {
            return Err(QueryError::InvalidCast("up must be a unit vector"));
        }
        let slope = (0.0..std::f32::consts::FRAC_PI_2).contains(&self.max_slope);
        let lengths = [
            self.max_step_height,
            self.min_step_width,
            self.snap_distance,
        ];
        if !slope || !lengths.iter().all(|l| l.is_finite() && *l >= 0.0) {
            return Err(QueryError::InvalidCast(
                "max_slope must be in [0, pi/2), step and snap finite and >= 0",
            ));
        }
        Ok(())
    }

    /// Whether a surface of this normal (unit, out of it) is walkable
    /// ground.
    pub fn is_walkable(&self, normal: Vec3) -> bool {
        normal.dot(self.up) >= self.max_slope.cos()
    }
}

/// The ground under a character: its nearest walkable touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    /// The body stood on.
    pub body: BodyHandle,
    /// Its normal (unit, out of it), within the slope limit of `up`.
    pub normal: Vec3,
    /// The closest point on it.
    pub point: Vec3,
    /// The gap between the shape and it (the skin, resting).
    pub gap: f32,
    /// How far down the probe that found it moved the shape (0 when the
    /// shape already stood within two skins of it).
    pub distance: f32,
}

impl Ground {
    fn of(t: &Touch) -> Ground {
        Ground {
            body: t.body,
            normal: t.normal,
            point: t.point,
            gap: t.gap,
            distance: 0.0,
        }
    }
}

/// Where a character's move ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterOutput {
    /// The final pose (the start's rotation).
    pub pose: Pose,
    /// From the start pose to the final pose.
    pub translation: Vec3,
    /// The ground at the end, if it stands on walkable ground.
    pub ground: Option<Ground>,
    /// The height of the step climbed (0: none).
    pub stepped: f32,
    /// How far it was snapped down to the ground (0: not).
    pub snapped: f32,
    /// The slide along the motion (before the step and the snap).
    pub slide: SlideOutput,
}

/// A kinematic character: move and slide with a slope limit, steps and
/// snapping to the ground. Keep one per character (it holds the slide's
/// buffers).
#[derive(Debug, Default)]
pub struct CharacterController {
    /// The settings.
    pub options: ControllerOptions,
    slider: Slider,
}

impl CharacterController {
    /// A controller with these settings.
    pub fn new(options: ControllerOptions) -> Self {
        CharacterController {
            options,
            slider: Slider::new(options.slide),
        }
    }

    /// The ground of `shape` at `pose`: the walkable touch (normal within
    /// the slope limit) with the smallest gap, among those within two skins.
    pub fn ground<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, &Pose),
        filter: QueryFilter<'_>,
    ) -> Result<Option<Ground>, QueryError> {
        pose.validate().map_err(QueryError::InvalidPose)?;
        self.options.check(shape)?;
        self.slider.options = self.options.slide;
        Ok(self.ground_at(world, (shape, pose), filter))
    }

    fn ground_at<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, &Pose),
        filter: QueryFilter<'_>,
    ) -> Option<Ground> {
        let o = self.options;
        let reach = 2.0 * o.slide.skin;
        let touches = self.slider.touches(world, (shape, pose), reach, filter);
        let walkable = touches.iter().filter(|t| o.is_walkable(t.normal));
        walkable
            .min_by(|a, b| a.gap.total_cmp(&b.gap))
            .map(Ground::of)
    }

    /// The ground found by moving `shape` from `pose` down (against `up`)
    /// by at most `distance`, sliding off what is too steep to stand on
    /// (an edge, a steep slope) and stopping on the first walkable ground:
    /// the pose there and the ground, or `None` if there is none within
    /// reach (the shape is then not moved).
    pub fn probe_ground<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, Pose),
        distance: f32,
        filter: QueryFilter<'_>,
    ) -> Result<Option<(Pose, Ground)>, QueryError> {
        self.options.check(shape)?;
        if !(distance.is_finite() && distance >= 0.0) {
            return Err(QueryError::InvalidCast(
                "the probe distance must be finite and >= 0",
            ));
        }
        self.slider.options = self.options.slide;
        self.probe_legs(world, (shape, pose), distance, filter)
    }

    /// [`Self::probe_ground`]'s slides: each down by the rest of the
    /// distance, stopped by the first walkable touch it reports; the ground
    /// looked for before each.
    fn probe_legs<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, Pose),
        distance: f32,
        filter: QueryFilter<'_>,
    ) -> Result<Option<(Pose, Ground)>, QueryError> {
        let up = self.options.up;
        let (mut at, mut left) = (pose, -up * distance);
        for _ in 0..=self.options.slide.max_iterations {
            if let Some(g) = self.ground_at(world, (shape, &at), filter) {
                let distance = (pose.translation - at.translation).dot(up);
                return Ok(Some((at, Ground { distance, ..g })));
            }
            if left.dot(up) > -1e-6 * distance {
                break;
            }
            let o = self.options;
            let stop = |t: &Touch| !o.is_walkable(t.normal);
            let out = self
                .slider
                .move_and_slide(world, (shape, at), left, filter, stop)?;
            if out.stuck {
                break;
            }
            at = out.pose;
            // Down by what is left of the distance (sliding along an edge
            // descends less than it moves).
            let descended = (pose.translation - at.translation).dot(up);
            left = -up * (distance - descended);
        }
        Ok(None)
    }

    /// Moves `shape` from `pose` by `motion` as a character: slides
    /// (steep slopes are walls), climbs a step that blocks it if it stood
    /// on the ground, and snaps down to the ground if it stood on it and
    /// does not move up. `on_touch` hears of the slide's touches (not the
    /// probes'). See the [module docs](super).
    pub fn move_character<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, Pose),
        motion: Vec3,
        filter: QueryFilter<'_>,
        mut on_touch: impl FnMut(&Touch) -> bool,
    ) -> Result<CharacterOutput, QueryError> {
        let was_grounded = self.ground(world, (shape, &pose), filter)?.is_some();
        let o = self.options;
        let mut blocked = false;
        let slide = self.walled_slide(world, (shape, pose), motion, filter, |t| {
            blocked |= !o.is_walkable(t.normal);
            on_touch(t)
        })?;
        let mut pos = slide.pose;
        let mut stepped = 0.0;
        let left = flat(motion - slide.translation, o.up);
        let try_step = was_grounded && blocked && !slide.stopped && !slide.stuck;
        let try_step = try_step && o.max_step_height > 0.0 && left.length() > o.slide.skin;
        if try_step && let Some((p, rise)) = self.step(world, (shape, slide.pose), left, filter)? {
            (pos, stepped) = (p, rise);
        }
        let mut snapped = 0.0;
        let mut ground = self.ground_at(world, (shape, &pos), filter);
        let snap = was_grounded && motion.dot(o.up) <= 0.0 && o.snap_distance > 0.0;
        let snap = snap && ground.is_none();
        if snap
            && let Some((p, g)) = self.probe_ground(world, (shape, pos), o.snap_distance, filter)?
        {
            (pos, snapped, ground) = (p, g.distance, Some(g));
        }
        Ok(CharacterOutput {
            pose: pos,
            translation: pos.translation - pose.translation,
            ground,
            stepped,
            snapped,
            slide,
        })
    }

    /// A slide with steep slopes as walls.
    fn walled_slide<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, Pose),
        motion: Vec3,
        filter: QueryFilter<'_>,
        on_touch: impl FnMut(&Touch) -> bool,
    ) -> Result<SlideOutput, QueryError> {
        let o = self.options;
        self.slider.options = o.slide;
        self.slider.steep_walls = Some((o.up, o.max_slope.cos()));
        let out = self
            .slider
            .move_and_slide(world, (shape, pose), motion, filter, on_touch);
        self.slider.steep_walls = None;
        out
    }

    /// A step from `at` over what blocks the horizontal motion `left`: up
    /// by at most `max_step_height`, along `left` (at least
    /// `min_step_width`), down onto walkable
    /// ground. The pose there and the height climbed, if it lands on
    /// walkable ground no higher than `max_step_height` (within the skin)
    /// and gets further along `left` than the skin.
    fn step<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, at): (&SharedShape, Pose),
        left: Vec3,
        filter: QueryFilter<'_>,
    ) -> Result<Option<(Pose, f32)>, QueryError> {
        let (up, h, skin) = (
            self.options.up,
            self.options.max_step_height,
            self.options.slide.skin,
        );
        let lift = self
            .slider
            .move_and_slide(world, (shape, at), up * h, filter, |_| true)?;
        let room = lift.translation.dot(up);
        if room <= skin {
            return Ok(None);
        }
        let width = self.options.min_step_width.max(left.length());
        let forward = left.normalize() * width;
        let ahead = self.walled_slide(world, (shape, lift.pose), forward, filter, |_| true)?;
        let landing = self.probe_ground(world, (shape, ahead.pose), room + 2.0 * skin, filter)?;
        let Some((land, _)) = landing else {
            return Ok(None);
        };
        let moved = land.translation - at.translation;
        let rise = moved.dot(up);
        let progress = moved.dot(left.normalize());
        Ok((rise <= h + skin && progress > skin).then_some((land, rise.max(0.0))))
    }
}

/// `v` without its `up` part.
fn flat(v: Vec3, up: Vec3) -> Vec3 {
    v - v.dot(up) * up
}

/// How far a point riding a platform moves when the platform goes from
/// `before` to `after` (a kinematic body's poses at two frames). A
/// character whose [`Ground`] was that platform is carried by adding it to
/// the start pose's translation once the platform has moved (their
/// relative placement, which was free, is kept; the move's depenetration
/// frees it from anything else it then overlaps), before its own move:
/// added to the move's motion instead, a platform going up would have
/// pushed it out already and lift it twice. The character's own rotation is
/// left to the caller.
pub fn platform_motion(before: &Pose, after: &Pose, point: Vec3) -> Vec3 {
    after.transform_point(before.inverse().transform_point(point)) - point
}
