//! The move-and-slide loop: depenetration, then casts along the motion
//! projected onto the touched planes (see the [module docs](super)).

use glam::Vec3;
use smallvec::SmallVec;

use super::contacts::{Touch, body_contacts};
use super::planes::project_motion;
use crate::broad_phase::BroadPhase;
use crate::collider::SharedShape;
use crate::geometry::gjk::GjkCache;
use crate::math::{Aabb, Pose, RigidMotion};
use crate::pipeline::{BodyHandle, CollisionWorld, QueryFilter};
use crate::query::{PairSide, QueryError, ShapeCastOptions};

/// How the slide moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideOptions {
    /// The gap kept between the shape and what it touches (world length,
    /// finite, at least `2⁻¹⁶` of the shape's size: the casts' tolerance
    /// resolves no finer). Default `0.01`.
    pub skin: f32,
    /// Casts per step (each one a slide along the planes touched so far):
    /// the motion left when they run out is not taken. Default 4.
    pub max_iterations: u32,
    /// Rounds of depenetration of a start closer than `skin / 2` to a
    /// body. Default 4.
    pub depenetration_iterations: u32,
}

impl Default for SlideOptions {
    fn default() -> Self {
        SlideOptions {
            skin: 0.01,
            max_iterations: 4,
            depenetration_iterations: 4,
        }
    }
}

impl SlideOptions {
    /// Why the options cannot be used for `shape`, if they cannot.
    pub fn check(&self, shape: &SharedShape) -> Result<(), QueryError> {
        let size = shape.local_aabb().half_extents().max_element();
        if !(self.skin.is_finite() && self.skin > 0.0 && self.skin >= size * 2f32.powi(-16)) {
            return Err(QueryError::InvalidCast(
                "the skin must be finite and at least 2^-16 of the shape's size",
            ));
        }
        Ok(())
    }
}

/// Where a slide ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlideOutput {
    /// The shape's final pose (the start's rotation).
    pub pose: Pose,
    /// The translation from the start pose to the final pose
    /// (depenetration included).
    pub translation: Vec3,
    /// The depenetration's part of it.
    pub depenetration: Vec3,
    /// The motion left when the slide ended (projected onto the planes
    /// touched by then): zero when it went all the way.
    pub remaining: Vec3,
    /// Casts run.
    pub iterations: u32,
    /// The callback stopped the slide.
    pub stopped: bool,
    /// The start still overlaps a body after depenetration: the shape did
    /// not move further.
    pub stuck: bool,
}

/// Move and slide with reusable buffers: keep one per character (see the
/// [module docs](super)).
#[derive(Debug, Default)]
pub struct Slider {
    /// The settings.
    pub options: SlideOptions,
    touches: Vec<Touch>,
    /// The bodies near the slide (one broad-phase query per slide).
    nearby: Vec<BodyHandle>,
    /// Where `touches` are the slide's (within two skins, among `nearby`):
    /// the depenetration's last ones serve the first leg.
    touches_at: Option<Vec3>,
    reported: Vec<(BodyHandle, u32, Option<u32>)>,
    path: Vec<Vec3>,
    gjk: GjkCache,
    /// Steep slopes as walls: `up` and the cosine of the steepest walkable
    /// slope (set by the character controller).
    pub(super) steep_walls: Option<(Vec3, f32)>,
}

impl Slider {
    /// A slider with these settings.
    pub fn new(options: SlideOptions) -> Self {
        Slider {
            options,
            ..Default::default()
        }
    }

    /// The last slide's path: the shape's translation after depenetration,
    /// then after each cast (the shape moved in straight lines between).
    pub fn path(&self) -> &[Vec3] {
        &self.path
    }

    /// The touches of `shape` at `pose` within `reach` (gap below it) of the
    /// bodies `filter` passes, sorted by body, piece and triangle: every
    /// convex part against every convex part, mesh triangles one by one.
    pub fn touches<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, &Pose),
        reach: f32,
        filter: QueryFilter<'_>,
    ) -> &[Touch] {
        let Slider {
            touches,
            gjk,
            touches_at,
            ..
        } = self;
        *touches_at = None;
        collect_touches((touches, gjk), (shape, pose), reach, |query, f| {
            world.visit_sides(query, &filter, f)
        })
    }

    /// [`Self::touches`] among the bodies gathered for this slide
    /// ([`Self::gather`]), which hold every pose it reaches.
    fn touches_near<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, &Pose),
        reach: f32,
    ) -> &[Touch] {
        let Slider {
            touches,
            gjk,
            nearby,
            ..
        } = self;
        collect_touches((touches, gjk), (shape, pose), reach, |query, f| {
            world.visit_sides_among(nearby, query, f)
        })
    }

    /// The slide's touches at `pose` (within two skins, among the
    /// gathered bodies), computed unless they already are.
    fn slide_touches<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, &Pose),
    ) -> &[Touch] {
        if self.touches_at != Some(pose.translation) {
            self.touches_near(world, (shape, pose), 2.0 * self.options.skin);
            self.touches_at = Some(pose.translation);
        }
        &self.touches
    }

    /// The bodies `filter` passes within `pad` of `shape` at `pose`: the
    /// candidates of every touch and cast of a slide from there by at most
    /// `pad − 2 skins` (a slide's path is no longer than its motion: each
    /// leg moves at most by what the last left of it).
    fn gather<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, &Pose),
        pad: f32,
        filter: QueryFilter<'_>,
    ) {
        let region = shape.local_aabb().transformed(pose).padded(pad);
        world.gather(&region, &filter, &mut self.nearby);
        self.touches_at = None;
    }

    /// Moves `shape` from `pose` by `motion` (world translation; the
    /// rotation is kept) through the bodies `filter` passes, sliding along
    /// what it touches; `on_touch` hears of every part touched (once per
    /// body, piece and triangle) and returns `false` to stop the slide
    /// there. See the [module docs](super). Errors: a bad pose, a NaN or
    /// infinite motion, bad options, or a cast the world refuses.
    pub fn move_and_slide<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, Pose),
        motion: Vec3,
        filter: QueryFilter<'_>,
        on_touch: impl FnMut(&Touch) -> bool,
    ) -> Result<SlideOutput, QueryError> {
        pose.validate().map_err(QueryError::InvalidPose)?;
        if !motion.is_finite() {
            return Err(QueryError::InvalidCast("the motion must be finite"));
        }
        self.options.check(shape)?;
        self.path.clear();
        self.reported.clear();
        let start = pose.translation;
        // Everything the legs reach: within the motion (and the touches'
        // reach, the casts' target and tolerance: under 2 skins) of the
        // start after depenetration.
        let pad = motion.length() + 2.5 * self.options.skin;
        let pos = self.depenetrate(world, (shape, pose), (pad, filter));
        self.path.push(pos);
        let mut out = SlideOutput {
            pose,
            translation: Vec3::ZERO,
            depenetration: pos - start,
            remaining: motion,
            iterations: 0,
            stopped: false,
            stuck: false,
        };
        let end = self.slide_legs(world, (shape, pose.rotation), pos, &mut out, on_touch)?;
        out.pose = Pose::new(pose.rotation, end);
        out.translation = end - start;
        Ok(out)
    }

    /// The legs of the slide from `pos` (after depenetration): gather and
    /// report the touches, project the motion left onto the clip planes,
    /// cast; `out` keeps the motion left, the count and the flags. Returns
    /// where the shape ends.
    fn slide_legs<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, rotation): (&SharedShape, glam::Quat),
        mut pos: Vec3,
        out: &mut SlideOutput,
        mut on_touch: impl FnMut(&Touch) -> bool,
    ) -> Result<Vec3, QueryError> {
        let mut hits: SmallVec<[Vec3; 8]> = SmallVec::new();
        loop {
            let at = Pose::new(rotation, pos);
            self.slide_touches(world, (shape, &at));
            if !self.report(&mut on_touch) {
                out.stopped = true;
                break;
            }
            let min_gap = self
                .touches
                .iter()
                .map(|t| t.gap)
                .fold(f32::INFINITY, f32::min);
            out.stuck = min_gap <= 0.0;
            let done = out.remaining == Vec3::ZERO || out.iterations == self.options.max_iterations;
            if out.stuck || done {
                break;
            }
            out.iterations += 1;
            let v = project_motion(out.remaining, &self.clip_planes(&hits));
            out.remaining = v;
            if v == Vec3::ZERO {
                break;
            }
            match self.cast_step(world, (shape, at), v, min_gap)? {
                Step::Free => {
                    pos += v;
                    out.remaining = Vec3::ZERO;
                }
                Step::Moved(travel, normal) => {
                    pos += travel;
                    out.remaining = v - travel;
                    hits.push(normal);
                }
                Step::Blocked(normal) => hits.push(normal),
            }
            self.path.push(pos);
        }
        Ok(pos)
    }

    /// The planes the motion may not enter: the touches inside the skin
    /// and the planes this step's casts hit; with a slope limit (the
    /// character controller), the wall each steep slope stands for too.
    fn clip_planes(&self, hits: &[Vec3]) -> SmallVec<[Vec3; 16]> {
        let s = self.options.skin;
        let inside = self.touches.iter().filter(|t| t.gap < s);
        let mut planes: SmallVec<[Vec3; 16]> =
            inside.map(|t| seam_normal(t, &self.touches, s)).collect();
        planes.extend_from_slice(hits);
        if let Some((up, cos_max)) = self.steep_walls {
            let walls: SmallVec<[Vec3; 8]> = planes
                .iter()
                .filter_map(|n| steep_wall(*n, up, cos_max))
                .collect();
            planes.extend(walls);
        }
        planes
    }

    /// Reports the touches not yet reported; `false` if the callback says
    /// stop.
    fn report(&mut self, on_touch: &mut impl FnMut(&Touch) -> bool) -> bool {
        for t in &self.touches {
            let key = (t.body, t.piece, t.triangle);
            if !self.reported.contains(&key) {
                self.reported.push(key);
                if !on_touch(t) {
                    return false;
                }
            }
        }
        true
    }

    /// One cast along `v` from `at`, to `min(skin, min_gap) / 2` of the
    /// bodies, backed up along `v` to the skin less the cast's tolerance
    /// from the plane hit (not behind the start): inside the skin wherever
    /// within its tolerance the cast stopped, so that the next step from
    /// there takes the plane as a clip plane at once (backed up to a full
    /// skin, the shape rested just outside it, and every step of a
    /// character walking on a floor first cast into the floor again).
    fn cast_step<B: BroadPhase>(
        &self,
        world: &CollisionWorld<B>,
        (shape, at): (&SharedShape, Pose),
        v: Vec3,
        min_gap: f32,
    ) -> Result<Step, QueryError> {
        let s = self.options.skin;
        let target = 0.5 * s.min(min_gap);
        let options = ShapeCastOptions {
            max_time_of_impact: 1.0,
            target_distance: target,
            tolerance: 0.25 * target,
        };
        let motion = RigidMotion::linear(at, v);
        let Some(hit) = world.cast_shape_among(shape, &motion, &options, &self.nearby)? else {
            return Ok(Step::Free);
        };
        let len = v.length();
        let dir = v / len;
        let t = hit.hit.time_of_impact.clamp(0.0, 1.0);
        let normal = hit.hit.normal;
        let cos = dir.dot(normal).max(0.5);
        // To the skin less the cast's tolerance (and a little more): inside
        // the skin wherever in its tolerance the cast stopped.
        let back = (s - target - 1.25 * options.tolerance) / cos;
        let travel = t * len - back.min(t * len);
        let n = -(if normal == Vec3::ZERO { dir } else { normal }).normalize();
        if travel > 0.0 {
            return Ok(Step::Moved(dir * travel, n));
        }
        Ok(Step::Blocked(n))
    }

    /// The start moved out of every body closer than `skin / 2`, each
    /// touch within `skin` put `skin` away along its normal (Gauss–Seidel
    /// over all of them at once), measured again each round. The bodies
    /// within `pad` of where it ends are gathered ([`Self::gather`]).
    fn depenetrate<B: BroadPhase>(
        &mut self,
        world: &CollisionWorld<B>,
        (shape, pose): (&SharedShape, Pose),
        (pad, filter): (f32, QueryFilter<'_>),
    ) -> Vec3 {
        let s = self.options.skin;
        let mut pos = pose.translation;
        let mut gathered = None;
        for _ in 0..self.options.depenetration_iterations {
            let at = Pose::new(pose.rotation, pos);
            if gathered != Some(pos) {
                self.gather(world, (shape, &at), pad, filter);
                gathered = Some(pos);
            }
            let touches = self.slide_touches(world, (shape, &at));
            if touches.iter().all(|t| t.gap >= 0.5 * s) {
                break;
            }
            pos += push_out(touches.iter().filter(|t| t.gap < s), s);
        }
        if gathered != Some(pos) {
            self.gather(world, (shape, &Pose::new(pose.rotation, pos)), pad, filter);
        }
        pos
    }
}

/// The touches of `shape` at `pose` within `reach` of the bodies `visit`
/// hands over for the shape's box grown by `reach`, sorted: the one body of
/// [`Slider::touches`] (a broad-phase query) and of its slide's own
/// (among the gathered bodies).
fn collect_touches<'t>(
    (touches, gjk): (&'t mut Vec<Touch>, &mut GjkCache),
    (shape, pose): (&SharedShape, &Pose),
    reach: f32,
    visit: impl FnOnce(&Aabb, &mut dyn FnMut(BodyHandle, PairSide<'_>)),
) -> &'t [Touch] {
    touches.clear();
    let shape_box = shape.local_aabb().transformed(pose);
    visit(&shape_box.padded(reach), &mut |id, side| {
        body_contacts(
            (shape, pose),
            (id, &side),
            (&shape_box, reach),
            gjk,
            touches,
        );
    });
    sort_touches(touches);
    touches
}

/// Touches in the order they are reported: by body, piece and triangle.
fn sort_touches(touches: &mut [Touch]) {
    touches.sort_by(|a, b| {
        let key = |t: &Touch| (t.body, t.piece, t.triangle);
        key(a).cmp(&key(b))
    });
}

/// The plane of touch `t`: its normal, unless `t` is on a seam — its
/// point lies on the plane of a closer touch `u` (of another part: the
/// next box of a row, the next triangle of a floor), within a thousandth
/// of the skin and the rounding of the points' coordinates — where its
/// slanted normal (from an edge of a surface flush with `u`'s) would
/// lift the shape over the seam: `u`'s normal then. A real edge (a step,
/// a ledge) stands off `u`'s plane and keeps its normal.
fn seam_normal(t: &Touch, touches: &[Touch], skin: f32) -> Vec3 {
    let flush = |u: &&Touch| {
        let tol = 1e-3 * skin + 4.0 * f32::EPSILON * t.point.abs().max(u.point.abs()).max_element();
        u.gap < t.gap && (t.point - u.point).dot(u.normal).abs() <= tol
    };
    touches
        .iter()
        .filter(flush)
        .min_by(|a, b| a.gap.total_cmp(&b.gap))
        .map_or(t.normal, |u| u.normal)
}

/// The wall a steep slope (normal `n` facing up, but less than
/// `cos_max` with `up`) stands for: `n` without its `up` part. Added to the
/// clip planes next to `n`, it stops the motion up the slope (the
/// character does not climb it by sliding) and leaves the motion down it.
fn steep_wall(n: Vec3, up: Vec3, cos_max: f32) -> Option<Vec3> {
    let c = n.dot(up);
    if c <= 0.0 || c >= cos_max {
        return None;
    }
    (n - c * up).try_normalize()
}

/// The outcome of one cast.
enum Step {
    /// Nothing on the way: the whole motion.
    Free,
    /// Moved by this much, then stopped by a plane (this normal).
    Moved(Vec3, Vec3),
    /// No progress: a plane (this normal) blocks the motion.
    Blocked(Vec3),
}

/// A translation putting every touch at least `skin` away along its normal
/// (linearized: `gap + d·n ≥ skin`), by Gauss–Seidel sweeps over the
/// touches until they agree within `10⁻³ skin`.
fn push_out<'t>(touches: impl Iterator<Item = &'t Touch> + Clone, skin: f32) -> Vec3 {
    let mut d = Vec3::ZERO;
    for _ in 0..32 {
        let mut worst = 0.0f32;
        for t in touches.clone() {
            let err = skin - (t.gap + d.dot(t.normal));
            if err > 0.0 {
                d += err * t.normal;
                worst = worst.max(err);
            }
        }
        if worst < 1e-3 * skin {
            break;
        }
    }
    d
}
