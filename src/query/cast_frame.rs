//! The frame a shape cast is solved in: the pair's own, from the time the
//! two shapes can first be within reach, with its own unit of time.
//!
//! `f32` positions far from the origin, or far along a fast path, are
//! coarse: a sphere of size 1 cast at `2·10⁴` per unit time meets a target
//! `10⁴` away, where `f32` steps by `10⁻³` (ten times the default
//! tolerance), and two shapes `2·10¹⁹` apart have a squared distance
//! beyond `f32::MAX`. So a cast is not solved where its input is:
//!
//! 1. **Window.** A shape stays within `ρ` of its motion's center (its
//!    box's farthest corner), and the center moves in a straight line
//!    whatever the turn. In `f64`, the times at which the two balls are
//!    within `ρ_A + ρ_B + target + tolerance` of each other form an
//!    interval `[t_in, t_out]`; outside it the shapes cannot touch. An
//!    empty interval is a miss.
//! 2. **Rebase, exactly.** The motions restart at `t_in`, in a frame that
//!    moves with A's center, its origin A's center then: every inner
//!    position is within about the balls' reach. `t_in` is kept as a sum of
//!    parts ([`Time`]): `f32` parts, each of whose products with an `f32`
//!    velocity is an exact `f64`, then an `f64` rest. The offset of the
//!    centers is carried as an exact double-double sum ([`Exact`], with
//!    [`two_sum`]): the centers at the first part, then each part's
//!    products, each part solved from the offset so far. The large terms
//!    cancel as the time comes close to the window's start, and what is
//!    left is exact: the pair's answer does not depend on where it is or
//!    how fast it goes.
//! 3. **Time unit.** Inner time runs `k` times faster, `k` a power of two
//!    (exact) that brings the fastest closing speed to about the pair's size
//!    per unit: inner lengths, speeds and times are all near the pair's
//!    size, and products of them stay in range.
//! 4. **Back.** The inner time `u` maps to `t_in + u / k`, rounded down to
//!    an `f32` (never after the contact); when that rounding moves the
//!    shapes by more than `f32` resolves at the pair's scale, the witness
//!    points follow their bodies back to that time and the distance is
//!    theirs: the honest distance at the reported time, at most what the
//!    shapes move in one `f32` step of time above the target and tolerance.
//!
//! The limits ([`MAX_CAST_COORDINATE`], [`MAX_CAST_TURN`]) are checked here
//! (see [`crate::collider::limits`]).

use glam::{DQuat, DVec3, Quat, Vec3};

use super::QueryError;
use super::cast::{ShapeCastHit, ShapeCastOptions};
use crate::collider::limits::{MAX_CAST_COORDINATE, MAX_CAST_TURN};
use crate::math::{Aabb, MotionResidual, Pose, RigidMotion};

/// Relative padding of the balls' radii for the rounding of their
/// computation, and the tolerance's floor relative to the pair's size.
const PAD: f64 = 1.0 / (1u64 << 20) as f64;

/// Witness motions below this fraction of the pair's size are not applied
/// (below `f32`'s resolution of the inner problem).
const RESOLUTION: f32 = 1.0 / (1u32 << 22) as f32;

/// A cast's motions in the pair frame (see the module docs), and how to
/// map its answer back.
#[derive(Clone, Copy, Debug)]
pub(super) struct CastFrame {
    /// The motions of A and B in the frame, in inner time.
    pub motions: [RigidMotion; 2],
    /// The cast's options in the frame (inner `max_time_of_impact`, the
    /// tolerance raised to `2⁻²⁰` of the pair's size).
    pub options: ShapeCastOptions,
    /// The window's start.
    start: Time,
    /// Inner time per unit of time (a power of two).
    k: f64,
    /// A's start translation moved to the window's start (world; the
    /// frame's origin), and A's velocity.
    origin: DVec3,
    velocity_a: DVec3,
    /// The pair's size (the balls' reach) and its fastest closing speed,
    /// in inner time.
    size: f32,
    speed: f32,
}

/// One side's motion in `f64`: start translation, start center minus it,
/// velocity as an `f32` value `v` plus a residual `v_lo` (products of an
/// `f32` time with `v` are exact), ball radius about the center, angular
/// speed.
#[derive(Clone, Copy)]
struct Path {
    p: DVec3,
    l: DVec3,
    v: DVec3,
    v_lo: DVec3,
    radius: f64,
    spin: f64,
}

impl Path {
    /// The path of `m` with its residual `r` (its `f64` endpoints).
    fn of(m: &RigidMotion, local_box: &Aabb, r: &MotionResidual) -> Path {
        let radius = local_box.max_distance_from(m.local_center) as f64;
        Path {
            p: m.start.translation.as_dvec3() + r.start,
            l: dquat(m.start.rotation) * m.local_center.as_dvec3(),
            v: m.linvel.as_dvec3(),
            v_lo: r.velocity,
            radius: if radius.is_finite() { radius } else { 0.0 },
            spin: m.angvel.as_dvec3().length(),
        }
    }

    /// The whole velocity.
    fn velocity(&self) -> DVec3 {
        self.v + self.v_lo
    }

    /// The last time its center is within the coordinate limit (infinite
    /// when it stays), or an error if it starts beyond it.
    fn clip(&self) -> Result<f64, QueryError> {
        let c = self.p + self.l;
        let limit = MAX_CAST_COORDINATE as f64;
        if c.abs().max_element() > limit {
            return Err(QueryError::InvalidCast(
                "the cast starts beyond MAX_CAST_COORDINATE (f32::MAX / 2)",
            ));
        }
        let (mut t, v) = (f64::INFINITY, self.velocity());
        for i in 0..3 {
            if v[i] != 0.0 {
                t = t.min((limit.copysign(v[i]) - c[i]) / v[i]);
            }
        }
        Ok(t)
    }

    /// Its center at `t` (an `f32`) as a sum `hi + lo`, without the
    /// center's offset `l`: exact but for the residual's product, whose
    /// rounding is `2⁻⁵³` of a residual already below `f32`'s resolution.
    fn split_at(&self, t: f32) -> (DVec3, DVec3) {
        let (mut hi, mut lo) = (DVec3::ZERO, DVec3::ZERO);
        for i in 0..3 {
            (hi[i], lo[i]) = two_sum(self.p[i], t as f64 * self.v[i]);
            lo[i] += t as f64 * self.v_lo[i];
        }
        (hi, lo)
    }
}

/// `a + b` as `s + e` exactly (Knuth's two-sum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn dquat(q: Quat) -> DQuat {
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64)
}

/// The times `τ` at which `|x + τ w| ≤ r`, or `None` if never.
fn ball_window(x: DVec3, w: DVec3, r: f64) -> Option<(f64, f64)> {
    let (a, c) = (w.length_squared(), x.length_squared() - r * r);
    if a == 0.0 {
        return (c <= 0.0).then_some((f64::NEG_INFINITY, f64::INFINITY));
    }
    // b² − a c = a r² − |x × w|² (Lagrange's identity): no cancellation
    // when the path passes far from where it starts.
    let b = x.dot(w);
    let disc = a * r * r - x.cross(w).length_squared();
    if disc < 0.0 {
        return None;
    }
    // Roots q / a and c / q, without cancellation.
    let q = -(b + disc.sqrt().copysign(b));
    if q == 0.0 {
        return Some((0.0, 0.0));
    }
    let (u, v) = (q / a, c / q);
    Some((u.min(v), u.max(v)))
}

/// The largest `f32` time `t ≤ t_hi + rest` and how far before it is:
/// `rest − (t − t_hi)` (exact: `t − t_hi` is, for two nearby `f32`).
fn floor_time(t_hi: f32, rest: f64) -> (f32, f64) {
    Time {
        parts: [t_hi, 0.0, 0.0],
        rest: 0.0,
    }
    .floor(rest)
}

/// A time as `f32` parts plus an `f64` rest, their sum exact (see the
/// module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Time {
    parts: [f32; 3],
    rest: f64,
}

impl Time {
    fn approx(&self) -> f64 {
        self.parts.iter().map(|&p| p as f64).sum::<f64>() + self.rest
    }

    /// How far the `f32` time `c` is before this time plus `extra`: the
    /// differences of nearby numbers of few bits first (exact), so that
    /// a result far below `c`'s resolution keeps its precision.
    fn before(&self, c: f32, extra: f64) -> f64 {
        let [p0, p1, p2] = self.parts.map(|p| p as f64);
        let c_from_p1 = (c as f64 - p0) - p1;
        (p2 - c_from_p1) + (self.rest + extra)
    }

    /// The largest `f32` not after this time plus `extra`, and how much
    /// before it it is.
    fn floor(&self, extra: f64) -> (f32, f64) {
        let mut c = (self.approx() + extra) as f32;
        for _ in 0..4 {
            if self.before(c, extra) >= 0.0 {
                break;
            }
            c = c.next_down();
        }
        let c = c.max(0.0);
        (c, self.before(c, extra))
    }
}

/// The smallest `f32` not below `x`.
fn ceil_f32(x: f64) -> f32 {
    let y = x as f32;
    if (y as f64) < x { y.next_up() } else { y }
}

/// The last time both centers stay within the coordinate limit, after
/// checking the limits: `Err` beyond them.
pub(crate) fn clipped_max_time(
    sides: &[(&RigidMotion, &Aabb)],
    max_time: f32,
) -> Result<f64, QueryError> {
    let mut paths = sides
        .iter()
        .map(|(m, b)| Path::of(m, b, &MotionResidual::ZERO));
    match (paths.next(), paths.next()) {
        (Some(a), Some(b)) => clip_paths(&[a, b], max_time),
        (Some(a), None) => clip_paths(&[a], max_time),
        _ => Ok(max_time as f64),
    }
}

/// [`clipped_max_time`] of paths.
fn clip_paths(paths: &[Path], max_time: f32) -> Result<f64, QueryError> {
    let mut end = max_time as f64;
    for p in paths {
        end = end.min(p.clip()?);
    }
    if paths.iter().any(|p| p.spin * end > MAX_CAST_TURN as f64) {
        return Err(QueryError::InvalidCast(
            "the cast turns a shape by more than MAX_CAST_TURN (4096 rad)",
        ));
    }
    Ok(end.max(0.0))
}

/// A power of two near `x` (positive, finite), clamped to `2^±120`: from
/// its exponent bits, exact.
fn power_of_two_near(x: f64) -> f64 {
    let e = ((x.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    f64::from_bits(((e.clamp(-120, 120) + 1023) as u64) << 52)
}

/// A vector as an unevaluated sum `hi + lo` of two `f64` vectors, to which
/// `f64` vectors are added exactly (double-double, with [`two_sum`]).
#[derive(Clone, Copy, Default)]
struct Exact {
    hi: DVec3,
    lo: DVec3,
}

impl Exact {
    fn add(&mut self, d: DVec3) {
        for i in 0..3 {
            let (s, e) = two_sum(self.hi[i], d[i]);
            (self.hi[i], self.lo[i]) = two_sum(s, self.lo[i] + e);
        }
    }

    fn value(&self) -> DVec3 {
        self.hi + self.lo
    }
}

/// Where the window starts: the offset of B's center from A's there
/// (exact: the centers' large parts only cancel once the time is close),
/// and A's start translation moved there (world).
struct Entry {
    x: Exact,
    origin: DVec3,
}

impl Entry {
    /// At `t` (an `f32`): exact (see the module docs).
    fn at(a: &Path, b: &Path, t: f32, reach: f64) -> Option<Entry> {
        let ((hi_a, lo_a), (hi_b, lo_b)) = (a.split_at(t), b.split_at(t));
        let mut x = Exact::default();
        for d in [hi_b, lo_b, -hi_a, -lo_a, b.l - a.l] {
            x.add(d);
        }
        ball_window(x.value(), b.velocity() - a.velocity(), reach)?;
        Some(Entry {
            x,
            origin: hi_a + lo_a,
        })
    }

    /// Moves on by `dt` (an `f32`: its products with `f32` velocities are
    /// exact `f64`, added exactly).
    fn advance(&mut self, a: &Path, b: &Path, dt: f32) {
        let dt = dt as f64;
        self.x.add(dt * b.v);
        self.x.add(-(dt * a.v));
        self.x.add(dt * b.v_lo - dt * a.v_lo);
        self.origin += dt * a.velocity();
    }

    /// Moves from time `t` to the window's start (not before time 0):
    /// twice by the `f32` part of the time left, then by the rest. That
    /// time and the window's end from there; `None` if the balls never
    /// meet.
    fn refine(&mut self, a: &Path, b: &Path, reach: f64, t: f32) -> Option<(Time, f64)> {
        let w = b.velocity() - a.velocity();
        let mut time = Time {
            parts: [t, 0.0, 0.0],
            rest: 0.0,
        };
        for i in 1..3 {
            let (enter, _) = ball_window(self.x.value(), w, reach)?;
            let dt = enter.max(-time.approx()) as f32;
            self.advance(a, b, dt);
            time.parts[i] = dt;
        }
        let (enter, leave) = ball_window(self.x.value(), w, reach)?;
        time.rest = enter.max(-time.approx());
        self.x.add(time.rest * w);
        self.origin += time.rest * a.velocity();
        Some((time, leave - time.rest))
    }
}

impl CastFrame {
    /// The frame of a cast of two shapes (their boxes in their own frames)
    /// under `motions` with their `residuals` (the `f64` endpoints' parts
    /// the `f32` motions leave out); `None` when their balls never come
    /// within reach in `[0, max_time]`. Errors: beyond the cast limits.
    pub fn new(
        motions: [&RigidMotion; 2],
        residuals: [&MotionResidual; 2],
        boxes: [&Aabb; 2],
        options: &ShapeCastOptions,
    ) -> Result<Option<CastFrame>, QueryError> {
        let (a, b) = (
            Path::of(motions[0], boxes[0], residuals[0]),
            Path::of(motions[1], boxes[1], residuals[1]),
        );
        let end = clip_paths(&[a, b], options.max_time_of_impact)?;
        let slack = (options.target_distance + options.tolerance) as f64;
        let reach = (a.radius + b.radius) * (1.0 + PAD) + slack;
        let w = b.velocity() - a.velocity();
        // First pass, in plain f64: where to split the time.
        let d = (b.p - a.p) + (b.l - a.l);
        let rough = reach + PAD * PAD * (a.p.length() + b.p.length() + d.length());
        let Some((enter, leave)) = ball_window(d, w, rough) else {
            return Ok(None);
        };
        if leave < 0.0 || enter > end {
            return Ok(None);
        }
        let t_hi = floor_time(0.0, enter.max(0.0)).0;
        let Some(mut at) = Entry::at(&a, &b, t_hi, reach) else {
            return Ok(None);
        };
        let Some((start, leave)) = at.refine(&a, &b, reach, t_hi) else {
            return Ok(None);
        };
        let span = leave.min(end - start.approx());
        if span < 0.0 {
            return Ok(None);
        }
        let speed = w.length() + a.spin * a.radius + b.spin * b.radius;
        let k = if speed > 0.0 {
            power_of_two_near(speed / reach)
        } else {
            1.0
        };
        let t_in = start.approx();
        let inner = |m: &RigidMotion, center: DVec3, v: DVec3| {
            inner_motion(m, t_in, center.as_vec3(), ((v / k).as_vec3(), k))
        };
        let tolerance = options.tolerance.max((PAD * reach) as f32);
        Ok(Some(CastFrame {
            motions: [
                inner(motions[0], a.l, DVec3::ZERO),
                inner(motions[1], a.l + at.x.value(), w),
            ],
            options: ShapeCastOptions {
                max_time_of_impact: ceil_f32(span * k),
                tolerance,
                ..*options
            },
            start,
            k,
            origin: at.origin,
            velocity_a: a.velocity(),
            size: reach as f32,
            speed: (speed / k) as f32,
        }))
    }

    /// The hit of the cast in the frame, back in the world (see the module
    /// docs).
    pub fn hit_to_world(&self, h: ShapeCastHit) -> ShapeCastHit {
        let u = h.time_of_impact;
        let (time, back) = self.start.floor(u as f64 / self.k);
        let du = (back * self.k) as f32;
        let (mut pa, mut pb, mut distance) = (h.point_a, h.point_b, h.distance);
        if du * self.speed > RESOLUTION * self.size {
            let [ma, mb] = &self.motions;
            pa = follow(ma, u, u - du, pa);
            pb = follow(mb, u, u - du, pb);
            distance = (pb.as_dvec3() - pa.as_dvec3()).length() as f32;
        }
        let since = -self.start.before(time, 0.0);
        let origin = self.origin + since * self.velocity_a;
        let world = |p: Vec3| (origin + p.as_dvec3()).as_vec3();
        let at_start = self.start.approx() == 0.0;
        ShapeCastHit {
            time_of_impact: time,
            distance,
            point_a: world(pa),
            point_b: world(pb),
            started_touching: h.started_touching && at_start,
            ..h
        }
    }
}

/// Where the point `p` of a body moving by `m` at time `from` is at `to`.
fn follow(m: &RigidMotion, from: f32, to: f32, p: Vec3) -> Vec3 {
    let local = m.pose_at(from).inverse().transform_point(p);
    m.pose_at(to).transform_point(local)
}

/// A motion restarted at time `t` with its center at `center` (frame
/// coordinates), velocity `v` and angular velocity divided by `k`.
fn inner_motion(m: &RigidMotion, t: f64, center: Vec3, (v, k): (Vec3, f64)) -> RigidMotion {
    let rotation = if m.is_linear() || t == 0.0 {
        m.start.rotation
    } else {
        let turn = DQuat::from_scaled_axis(m.angvel.as_dvec3() * t);
        let q = (turn * dquat(m.start.rotation)).normalize();
        Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32).normalize()
    };
    RigidMotion {
        start: Pose::new(rotation, center - rotation * m.local_center),
        local_center: m.local_center,
        linvel: v,
        angvel: (m.angvel.as_dvec3() / k).as_vec3(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sum_is_exact_and_the_floor_is_below() {
        let (s, e) = two_sum(1e38, 1.0);
        assert_eq!((s, e), (1e38, 1.0));
        let (t, back) = floor_time(0.5, 1e-9);
        assert!(t == 0.5 && (back - 1e-9).abs() < 1e-24);
        let (t, back) = floor_time(1.0, -1e-12);
        assert!(t < 1.0 && (0.0..1.2e-7).contains(&back), "{t} {back}");
    }

    #[test]
    fn powers_of_two_near() {
        assert_eq!(power_of_two_near(3.0), 2.0);
        assert_eq!(power_of_two_near(1e-300), (-120.0f64).exp2());
        assert_eq!(power_of_two_near(0.75), 0.5);
    }

    #[test]
    fn the_window_is_where_the_balls_meet() {
        let (i, o) = ball_window(DVec3::X * 10.0, -DVec3::X, 1.0).expect("meets");
        assert!((i - 9.0).abs() < 1e-12 && (o - 11.0).abs() < 1e-12);
        assert!(ball_window(DVec3::X * 10.0, DVec3::Y, 1.0).is_none());
        let (i, o) = ball_window(DVec3::ZERO, DVec3::ZERO, 1.0).expect("overlap");
        assert!(i < 0.0 && o > 0.0);
    }
}
