//! Time of impact of two moving convex shapes: a GJK ray cast when both
//! only translate ([`time_of_impact`], see `gjk/raycast.rs`),
//! else conservative advancement
//! (Mirtich, *Impulse-based dynamic simulation of rigid body systems*,
//! 1996, §2.3; Zhang, Lee, Kim, *C²A: controlled conservative advancement*,
//! 2006), with GJK distances ([`gjk_distance`]) warm-started from step to
//! step.
//!
//! ## Why each step is safe
//!
//! Let `d` be the distance of the two convex shapes at time `t` and `n` the
//! unit direction from A's closest point to B's. The slab between the two
//! supporting planes orthogonal to `n` has width `d` and separates them; a
//! gap along any fixed direction is a lower bound on the distance. Along
//! the fixed `n`, A's support is its center's `n · c_A` plus `σ_A`, the
//! support of its points `q` about the center. The centers move at their
//! velocities. A turn at `ω` moves a point `q` along `n` at
//! `q · (n × ω)`: since `n × ω` is orthogonal to the axis, at most
//! `|n × ω| ρ` for a point at most `ρ` from the axis (its [`Reach`]'s
//! `radial`); and a turn about a fixed axis keeps every point's axial
//! coordinate and distance from the axis, so `σ` never exceeds
//! `|n · â| α + |n × â| ρ` (`α` the axial reach) nor the radius. So after
//! `Δ` the slab is at least
//!
//! ```text
//! d − Δ n·(v_A − v_B) − min(Δ |n × ω_A| ρ_A, h_A) − min(Δ |n × ω_B| ρ_B, h_B)
//! ```
//!
//! wide, `h` the headroom of each support (its cap minus its value now,
//! measured at the closest points). The next step is the first `Δ` at which
//! this piecewise linear bound reaches `target`; when it never does, there
//! is no contact, ever. The headroom is what ends a turning cast beside a
//! shape it cannot reach (a cube spinning next to a cube beyond its corners'
//! circle); the `|n × ω|` factor what lets a rod turn past a shape beside
//! its plane of turning in a few steps.
//!
//! ## The guarantee
//!
//! Every step is a time before which the shapes cannot get closer than
//! `target`: the reported time is never after the first time the distance
//! reaches `target` (up to GJK's rounding), and at the reported time the
//! distance is at most `target + tolerance` ([`CastStatus::Converged`]),
//! or the next step would not move `t` (an `f32` time step then closes at
//! most `d − target`: the contact is within one step of time). A pass
//! close to a near miss can take many small steps: after [`MAX_STEPS`] per
//! turn the current time is reported as [`CastStatus::OutOfIterations`]:
//! no contact before it, and none reached yet. Linear casts far along their
//! path or far from the origin lose `f32` precision: the query layer
//! (`query/cast_frame.rs`) hands this module a pair frame where both are
//! small.

use glam::Vec3;

use super::gjk::raycast::{self, ray_cast_cso};
use super::gjk::{Cso, GjkCache, GjkResult, Simplex, gjk_distance};
use super::support::NO_HINT;
use super::support::SupportMap;
use crate::math::{Pose, RigidMotion};

/// Advancement steps, per turn of the shapes over the cast (and one more),
/// before the loop gives up and reports its current (early, conservative)
/// time as [`CastStatus::OutOfIterations`]: each pass of a turning feature
/// by a near miss can take as many.
pub const MAX_STEPS: u32 = 1024;

/// Relative padding of reaches for the rounding of their computation.
const REACH_PAD: f32 = 1.0 / (1u32 << 20) as f32;

/// Bounds on a shape's points `q` about its motion's center `c`, in its own
/// frame, where the rotation axis `â` is fixed (a turn about a fixed world
/// axis): what a turn can do to them (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reach {
    /// `|q − c| ≤ radius`.
    pub radius: f32,
    /// `|(q − c) · â| ≤ axial`.
    pub axial: f32,
    /// The distance of `q` from the axis through `c` is at most `radial`.
    pub radial: f32,
}

impl Reach {
    /// A ball of `radius` about the center (no axis used).
    pub fn ball(radius: f32) -> Self {
        Reach {
            radius,
            axial: radius,
            radial: radius,
        }
    }

    /// The bounds over `points` (local frame) for `motion`: exact for the
    /// points (padded by `2⁻²⁰` of the radius for rounding), so for their
    /// convex hull, since each bound is a convex function of the point (a
    /// shape's vertices, or its box's corners).
    pub fn of_points(points: impl IntoIterator<Item = Vec3>, motion: &RigidMotion) -> Self {
        let c = motion.local_center;
        let axis = motion.start.rotation.inverse() * motion.angvel.normalize_or_zero();
        let mut r = Reach::ball(0.0);
        for p in points {
            let q = p - c;
            let along = q.dot(axis);
            r.radius = r.radius.max(q.length());
            r.axial = r.axial.max(along.abs());
            r.radial = r.radial.max((q - along * axis).length());
        }
        let pad = REACH_PAD * r.radius;
        Reach {
            radius: r.radius + pad,
            axial: r.axial.min(r.radius) + pad,
            radial: r.radial.min(r.radius) + pad,
        }
    }
}

/// A convex shape on its way: its support map (local frame), its motion,
/// and bounds on its points about the motion's center (only used when it
/// rotates).
#[derive(Clone, Copy)]
pub struct Mover<'a, S: ?Sized> {
    /// The shape.
    pub shape: &'a S,
    /// Its motion.
    pub motion: &'a RigidMotion,
    /// Bounds on its points about `motion.local_center`.
    pub reach: Reach,
}

impl<S: ?Sized> Mover<'_, S> {
    /// How fast its support along the fixed world direction `n` can advance
    /// by turning, and by how much at most, given that support now
    /// (`sigma`, relative to the center): `(rate, headroom)`.
    fn turn(&self, n: Vec3, sigma: f32) -> (f32, f32) {
        if self.motion.is_linear() {
            return (0.0, 0.0);
        }
        let w = self.motion.angvel;
        let speed = w.length();
        let axis = w / speed;
        let (along, across) = (n.dot(axis).abs(), n.cross(axis).length());
        let r = &self.reach;
        let cap = (along * r.axial + across * r.radial).min(r.radius);
        let pad = REACH_PAD * r.radius;
        (speed * across * r.radial, (cap - sigma).max(0.0) + pad)
    }
}

/// When to stop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastParams {
    /// No contact after this time is looked for.
    pub max_time: f32,
    /// The distance that counts as contact (0: touching).
    pub target: f32,
    /// How close to `target` the distance must come (absolute length).
    pub tolerance: f32,
}

/// How a cast ended (parry's `ShapeCastStatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastStatus {
    /// The shapes are within `target + tolerance` at the time, or within
    /// what one `f32` step of time can close (see the module docs).
    Converged,
    /// The advancement took [`MAX_STEPS`] steps first: the time is
    /// conservative (no contact before it) but the shapes are `distance`
    /// apart then, more than `target + tolerance`: the contact, if any, is
    /// later.
    OutOfIterations,
}

/// The first time two moving shapes come within the target distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastResult {
    /// The time of impact.
    pub time: f32,
    /// The distance at that time (at most `target + tolerance` when
    /// converged, see [`CastStatus`]).
    pub distance: f32,
    /// Closest point on A at that time, world space.
    pub point_a: Vec3,
    /// Closest point on B at that time, world space.
    pub point_b: Vec3,
    /// Unit normal from A towards B at that time; the direction of the last
    /// step when the shapes are touching, zero when they overlapped from the
    /// start.
    pub normal: Vec3,
    /// Advancement steps taken (GJK distance queries; 1 for a ray cast).
    pub steps: u32,
    /// The support vertices of the two shapes at the hit (polytopes' vertex
    /// indices, [`NO_HINT`] for other shapes): a warm start for their
    /// closest features.
    pub hints: [u32; 2],
    /// Whether the time is a contact or the step limit.
    pub status: CastStatus,
}

/// The first time in `[0, max_time]` at which `a` and `b` come within
/// `target + tolerance` of each other, or `None`: a GJK ray cast when both
/// only translate (`gjk/raycast.rs`; conservative
/// advancement if it does not settle), conservative advancement otherwise.
pub fn time_of_impact<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &Mover<'_, A>,
    b: &Mover<'_, B>,
    params: &CastParams,
    cache: &mut GjkCache,
) -> Option<CastResult> {
    if a.motion.is_linear() && b.motion.is_linear() {
        match ray_cast(a, b, params) {
            RayCast::Hit(hit) => return Some(hit),
            RayCast::Miss => return None,
            RayCast::Unsettled => {}
        }
    }
    conservative_advancement(a, b, params, cache)
}

/// The outcome of [`ray_cast`].
enum RayCast {
    Hit(CastResult),
    Miss,
    Unsettled,
}

/// The GJK ray cast of two translating shapes, in A's frame.
fn ray_cast<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &Mover<'_, A>,
    b: &Mover<'_, B>,
    params: &CastParams,
) -> RayCast {
    let (pa, pb) = (a.motion.start, b.motion.start);
    let cso = Cso::new(a.shape, &pa, b.shape, &pb);
    let (ma, mb) = cso.margins();
    let r = pa.rotation.inverse() * (b.motion.linvel - a.motion.linvel);
    let reach = (ma + mb + params.target, params.tolerance);
    let (t, v, n, simplex) = match ray_cast_cso(&cso, r, reach, params.max_time) {
        raycast::RayCast::Hit { t, v, n, simplex } => (t, v, n, simplex),
        raycast::RayCast::Miss => return RayCast::Miss,
        raycast::RayCast::Unsettled => return RayCast::Unsettled,
    };
    let len = v.length();
    let dir = contact_direction(&cso, t * r, v, n);
    let (wa, wb) = simplex.witnesses();
    let at = a.motion.pose_at(t);
    RayCast::Hit(CastResult {
        time: t,
        distance: (len - ma - mb).max(0.0),
        point_a: at.transform_point(wa + ma * dir),
        point_b: at.transform_point(wb + t * r - mb * dir),
        normal: at.rotation * dir,
        steps: 1,
        hints: main_vertices(&simplex),
        status: CastStatus::Converged,
    })
}

/// The contact normal of a ray cast's hit at the ray point `x` (A's
/// frame): of `v` (from the simplex's closest point to `x`) and `n` (the
/// last advancing normal), the direction along which the CSO lies farther
/// behind `x`, the better separating direction. `n` supports the CSO with
/// `x` exactly the reach in front of it (the shapes touch along it at the
/// hit); `v` is the closest points' direction once GJK has converged, but
/// the loop stops as soon as `|v|` is within the tolerance, and for sharp
/// cores then `|v| ≤ tolerance` and its direction can be far from any
/// separating one (seen 60° off between two mesh triangles), while for
/// cores apart by their margins it is the better of the two.
fn contact_direction<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    x: Vec3,
    v: Vec3,
    n: Vec3,
) -> Vec3 {
    let behind = |u: Vec3| {
        let u = u.normalize_or_zero();
        if u == Vec3::ZERO {
            return (f32::NEG_INFINITY, u);
        }
        (u.dot(x - cso.support(u, NO_HINT, NO_HINT).w), u)
    };
    let ((sv, dv), (sn, dn)) = (behind(v), behind(n));
    if sn > sv { dn } else { dv }
}

/// Conservative advancement (see the module docs): the first time in
/// `[0, max_time]` at which `a` and `b` come within `target + tolerance`
/// of each other, or `None`. `cache` warm-starts GJK from step to step;
/// pass a reset one for a new pair.
pub fn conservative_advancement<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &Mover<'_, A>,
    b: &Mover<'_, B>,
    params: &CastParams,
    cache: &mut GjkCache,
) -> Option<CastResult> {
    let spin = a.motion.angvel.length() + b.motion.angvel.length();
    let turns = (spin * params.max_time / std::f32::consts::TAU).min(1e4);
    advance(a, b, params, cache, MAX_STEPS * (1 + turns.ceil() as u32))
}

/// [`conservative_advancement`] with at most `max_steps` steps.
fn advance<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &Mover<'_, A>,
    b: &Mover<'_, B>,
    params: &CastParams,
    cache: &mut GjkCache,
    max_steps: u32,
) -> Option<CastResult> {
    let (mut t, mut normal) = (0.0f32, Vec3::ZERO);
    for step in 1..=max_steps {
        let poses = (a.motion.pose_at(t), b.motion.pose_at(t));
        let r = gjk_distance(a.shape, &poses.0, b.shape, &poses.1, cache);
        // The direction of nearly touching points is rounding noise: below
        // half the tolerance the last step's normal is kept.
        let gap = r.point_b - r.point_a;
        let clear = normal == Vec3::ZERO || r.distance > 0.5 * params.tolerance;
        if !r.intersecting && clear && gap.length_squared() > 0.0 {
            normal = gap.normalize();
        }
        let done = (step, [cache.hint_a, cache.hint_b]);
        if r.intersecting || r.distance <= params.target + params.tolerance {
            return Some(result(t, &r, normal, done, CastStatus::Converged));
        }
        if step == max_steps {
            return Some(result(t, &r, normal, done, CastStatus::OutOfIterations));
        }
        let next = t + safe_step((a, b), &poses, &r, normal, params.target);
        // Past the end, or not a number: no contact in the cast.
        if next.is_nan() || next > params.max_time {
            return None;
        }
        if next == t {
            // The bound closes `d − target` within one f32 step of time.
            return Some(result(t, &r, normal, done, CastStatus::Converged));
        }
        t = next;
    }
    None
}

/// The time the shapes at `poses`, `r` apart along `n`, stay more than
/// `target` apart (see the module docs); infinite when for ever.
fn safe_step<A: ?Sized, B: ?Sized>(
    (a, b): (&Mover<'_, A>, &Mover<'_, B>),
    poses: &(Pose, Pose),
    r: &GjkResult,
    n: Vec3,
    target: f32,
) -> f32 {
    let ca = poses.0.transform_point(a.motion.local_center);
    let cb = poses.1.transform_point(b.motion.local_center);
    let turn_a = a.turn(n, n.dot(r.point_a - ca));
    let turn_b = b.turn(-n, n.dot(cb - r.point_b));
    let closing = n.dot(a.motion.linvel - b.motion.linvel);
    first_crossing(r.distance - target, closing, [turn_a, turn_b])
}

/// The first `Δ ≥ 0` at which `gap − c Δ − Σ min(s_i Δ, h_i)` reaches 0,
/// for `turns = [(s_i, h_i)]` (rates and headrooms); infinite if never.
fn first_crossing(gap: f32, c: f32, turns: [(f32, f32); 2]) -> f32 {
    let knee = |(s, h): (f32, f32)| if s > 0.0 { h / s } else { f32::INFINITY };
    let (k0, k1) = (knee(turns[0]), knee(turns[1]));
    let (first, second) = if k0 <= k1 {
        ((k0, turns[0].0), (k1, turns[1].0))
    } else {
        ((k1, turns[1].0), (k0, turns[0].0))
    };
    // Segments [0, first), [first, second), [second, ∞): closing rates
    // c + both turns, c + the later one, c.
    let segments = [
        (first.0, c + first.1 + second.1),
        (second.0, c + second.1),
        (f32::INFINITY, c),
    ];
    let (mut at, mut left) = (0.0f32, gap);
    for (end, rate) in segments {
        let span = end - at;
        if rate > 0.0 && left <= rate * span {
            return at + left / rate;
        }
        if end == f32::INFINITY {
            break;
        }
        left -= rate * span;
        at = end;
    }
    f32::INFINITY
}

fn result(
    time: f32,
    r: &GjkResult,
    normal: Vec3,
    (steps, hints): (u32, [u32; 2]),
    status: CastStatus,
) -> CastResult {
    CastResult {
        time,
        distance: r.distance,
        point_a: r.point_a,
        point_b: r.point_b,
        normal,
        steps,
        hints,
        status,
    }
}

/// The support vertices of the simplex point with the largest weight.
fn main_vertices(s: &Simplex) -> [u32; 2] {
    let best = (0..s.len).max_by(|&i, &j| s.lambda[i].total_cmp(&s.lambda[j]));
    best.map_or([NO_HINT; 2], |i| [s.pts[i].hint_a, s.pts[i].hint_b])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::support::{Cuboid, Sphere};

    fn params() -> CastParams {
        CastParams {
            max_time: 10.0,
            target: 0.0,
            tolerance: 1e-5,
        }
    }

    #[test]
    fn sphere_against_box_head_on_and_missing() {
        let (s, c) = (Sphere::new(Vec3::ZERO, 0.5), Cuboid::new(Vec3::ONE));
        let box_motion = RigidMotion::stationary(Pose::IDENTITY);
        let boxed = Mover {
            shape: &c,
            motion: &box_motion,
            reach: Reach::ball(2.0),
        };
        // Head on from x = 5 at speed 2: the faces meet at t = (5 - 1.5) / 2.
        let m = RigidMotion::linear(Pose::from_translation(Vec3::X * 5.0), -2.0 * Vec3::X);
        let ball = Mover {
            shape: &s,
            motion: &m,
            reach: Reach::ball(0.5),
        };
        let hit = conservative_advancement(&boxed, &ball, &params(), &mut GjkCache::new())
            .expect("they meet");
        assert!((hit.time - 1.75).abs() < 1e-4, "{hit:?}");
        assert!(hit.normal.distance(Vec3::X) < 1e-3);
        // Passing beside the box: no hit.
        let m = RigidMotion::linear(
            Pose::from_translation(Vec3::new(5.0, 1.6, 0.0)),
            -2.0 * Vec3::X,
        );
        let ball = Mover { motion: &m, ..ball };
        assert!(conservative_advancement(&boxed, &ball, &params(), &mut GjkCache::new()).is_none());
    }

    #[test]
    fn ray_cast_agrees_with_conservative_advancement_and_settles() {
        use crate::geometry::support::PointSetSupport;
        let mut seed = 7u64;
        let mut f = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        };
        let (mut unsettled, mut hits) = (0, 0);
        for i in 0..2000 {
            let cloud = |f: &mut dyn FnMut() -> f32| -> Vec<Vec3> {
                (0..8).map(|_| Vec3::new(f(), f(), f()) * 0.5).collect()
            };
            let (pa, pb) = (cloud(&mut f), cloud(&mut f));
            let (sa, sb) = (PointSetSupport(&pa), PointSetSupport(&pb));
            let ma = RigidMotion::linear(Pose::IDENTITY, Vec3::new(f(), f(), f()) * 0.2);
            let from = Vec3::new(f(), f(), f()).normalize_or(Vec3::X) * 2.5;
            let aim = -from * (1.0 + f() * 0.5) + Vec3::new(f(), f(), f());
            let mb = RigidMotion::linear(Pose::from_translation(from), aim);
            let a = Mover {
                shape: &sa,
                motion: &ma,
                reach: Reach::ball(1.0),
            };
            let b = Mover {
                shape: &sb,
                motion: &mb,
                reach: Reach::ball(1.0),
            };
            let p = CastParams {
                max_time: 1.0,
                target: 0.02 * (i % 2) as f32,
                tolerance: 1e-4,
            };
            let ca = conservative_advancement(&a, &b, &p, &mut GjkCache::new());
            let rc = match ray_cast(&a, &b, &p) {
                RayCast::Hit(h) => Some(h),
                RayCast::Miss => None,
                RayCast::Unsettled => {
                    unsettled += 1;
                    continue;
                }
            };
            match (ca, rc) {
                (Some(x), Some(y)) => {
                    hits += 1;
                    assert!((x.time - y.time).abs() < 1e-3, "{i}: {x:?} vs {y:?}");
                    assert!(y.distance <= p.target + p.tolerance + 1e-5, "{i}: {y:?}");
                    let gap = (y.point_b - y.point_a).length();
                    assert!((gap - y.distance).abs() < 1e-4, "{i}: {y:?}");
                }
                (None, None) => {}
                (x, y) => panic!("{i}: advancement {x:?}, ray cast {y:?}"),
            }
        }
        assert!(
            unsettled <= 20 && hits >= 500,
            "{unsettled} unsettled, {hits} hits"
        );
    }

    #[test]
    fn a_spinning_bar_hits_a_ball_it_passes_over() {
        // A 4-long bar at the origin turning about z; a ball at (1.5, 1.5, 0).
        let bar = Cuboid::new(Vec3::new(2.0, 0.1, 0.1));
        let m = RigidMotion {
            angvel: Vec3::Z,
            ..RigidMotion::stationary(Pose::IDENTITY)
        };
        let turning = Mover {
            shape: &bar,
            motion: &m,
            reach: Reach::ball(Vec3::new(2.0, 0.1, 0.1).length()),
        };
        let ball_motion = RigidMotion::stationary(Pose::from_translation(Vec3::new(1.5, 1.5, 0.0)));
        let s = Sphere::new(Vec3::ZERO, 0.2);
        let ball = Mover {
            shape: &s,
            motion: &ball_motion,
            reach: Reach::ball(0.2),
        };
        let hit = conservative_advancement(&turning, &ball, &params(), &mut GjkCache::new())
            .expect("the bar sweeps through the ball");
        // Fine stepping: the first touching time is within the tolerance.
        let touch = |t: f32| {
            let r = gjk_distance(
                &bar,
                &m.pose_at(t),
                &s,
                &ball_motion.start,
                &mut GjkCache::new(),
            );
            r.distance
        };
        assert!(touch(hit.time) <= 1e-4, "{hit:?}");
        let first = (0..10_000)
            .map(|i| i as f32 * 1e-4)
            .find(|&t| touch(t) <= 0.0)
            .expect("touches within 1");
        assert!(hit.time <= first + 1e-4, "{} vs {first}", hit.time);
    }
}

#[cfg(test)]
mod bound_tests {
    use super::*;
    use crate::geometry::support::{Cuboid, Sphere};

    #[test]
    fn the_first_crossing_of_the_capped_bound() {
        // No turn: gap / closing, never when opening.
        assert_eq!(first_crossing(2.0, 4.0, [(0.0, 0.0); 2]), 0.5);
        assert_eq!(first_crossing(2.0, -1.0, [(0.0, 0.0); 2]), f32::INFINITY);
        // A turn capped at 0.5 below a gap of 1: never without closing,
        // else after the cap at the closing speed.
        assert_eq!(
            first_crossing(1.0, 0.0, [(10.0, 0.5), (0.0, 0.0)]),
            f32::INFINITY
        );
        let t = first_crossing(1.0, 1.0, [(10.0, 0.5), (0.0, 0.0)]);
        assert!((t - (0.05 + 0.45)).abs() < 1e-6, "{t}");
        // Within the cap: the turn's rate.
        let t = first_crossing(0.2, 0.0, [(10.0, 0.5), (2.0, 1.0)]);
        assert!((t - 0.2 / 12.0).abs() < 1e-7, "{t}");
    }

    #[test]
    fn reaches_about_the_axis_are_exact_for_the_points() {
        let m = RigidMotion {
            angvel: Vec3::Z * 3.0,
            ..RigidMotion::stationary(Pose::IDENTITY)
        };
        let r = Reach::of_points(crate::math::Aabb::new(-Vec3::ONE, Vec3::ONE).corners(), &m);
        let pad = 1e-5;
        assert!((r.radius - 3f32.sqrt()).abs() < pad, "{r:?}");
        assert!((r.axial - 1.0).abs() < pad && (r.radial - 2f32.sqrt()).abs() < pad);
        assert!(r.axial >= 1.0 && r.radial >= 2f32.sqrt() && r.radius >= 3f32.sqrt());
    }

    /// A cube spinning about z beside a cube beyond its corners' circle
    /// but within its ball: the cap on its support ends the cast at once.
    #[test]
    fn a_spin_that_cannot_reach_ends_in_a_few_steps() {
        let c = Cuboid::new(Vec3::splat(0.5));
        let reach = Reach::of_points(
            crate::math::Aabb::new(-Vec3::splat(0.5), Vec3::splat(0.5)).corners(),
            &RigidMotion {
                angvel: Vec3::Z,
                ..RigidMotion::stationary(Pose::IDENTITY)
            },
        );
        for w in [1.0f32, 1e3, 4e3] {
            let spin = RigidMotion {
                angvel: Vec3::Z * w,
                ..RigidMotion::stationary(Pose::IDENTITY)
            };
            let still = RigidMotion::stationary(Pose::from_translation(Vec3::X * 1.3));
            let a = Mover {
                shape: &c,
                motion: &spin,
                reach,
            };
            let b = Mover {
                shape: &c,
                motion: &still,
                reach: Reach::ball(0.0),
            };
            let p = CastParams {
                max_time: 1.0,
                target: 0.0,
                tolerance: 1e-4,
            };
            assert_eq!(advance(&a, &b, &p, &mut GjkCache::new(), 3), None, "{w}");
        }
    }

    /// Out of steps before a bar reaches a ball: the time is conservative,
    /// the status says so, the distance is what it is.
    #[test]
    fn out_of_steps_is_not_a_contact() {
        let bar = Cuboid::new(Vec3::new(2.0, 0.1, 0.1));
        let ball = Sphere::new(Vec3::ZERO, 0.2);
        let turning = RigidMotion {
            angvel: Vec3::Z,
            ..RigidMotion::stationary(Pose::IDENTITY)
        };
        let still = RigidMotion::stationary(Pose::from_translation(Vec3::new(1.5, 1.5, 0.0)));
        let radius = Vec3::new(2.0, 0.1, 0.1).length();
        let a = Mover {
            shape: &bar,
            motion: &turning,
            reach: Reach::ball(radius),
        };
        let b = Mover {
            shape: &ball,
            motion: &still,
            reach: Reach::ball(0.2),
        };
        let p = CastParams {
            max_time: 10.0,
            target: 0.0,
            tolerance: 1e-4,
        };
        let hit = advance(&a, &b, &p, &mut GjkCache::new(), 2).expect("out of steps");
        assert_eq!(hit.status, CastStatus::OutOfIterations);
        assert!(
            hit.distance > p.target + p.tolerance && hit.steps == 2,
            "{hit:?}"
        );
        let hit = advance(&a, &b, &p, &mut GjkCache::new(), MAX_STEPS).expect("hit");
        assert_eq!(hit.status, CastStatus::Converged);
        assert!(hit.distance <= p.target + p.tolerance, "{hit:?}");
    }
}
