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
//! supporting planes orthogonal to `n` has width `d` and separates them.
//! Along the fixed direction `n`, A's support moves at most at
//! `n · v_A + |ω_A| r_A` (the center's velocity plus the fastest a point at
//! distance at most `r_A` from the center turns), and B's opposite support
//! at most at `−n · v_B + |ω_B| r_B`. So the slab (a lower bound on the
//! distance, since a gap along any unit direction is) cannot close faster
//! than
//!
//! ```text
//! rate = n · (v_A − v_B) + |ω_A| r_A + |ω_B| r_B
//! ```
//!
//! and the shapes stay at least `target` apart until `t + (d − target) / rate`.
//! The next step starts there. When `rate ≤ 0` the slab never closes: no
//! contact, ever. The loop stops when the distance is within `target +
//! tolerance` (a hit) or the time passes `max_time` (none).
//!
//! ## The guarantee
//!
//! Every step is a time before which the shapes cannot get closer than
//! `target`: the reported time is never after the first time the distance
//! reaches `target` (up to GJK's rounding), and at the reported time the
//! distance is at most `target + tolerance`. A pure translation converges
//! in a few steps (the rate is exact along `n`); a fast spin close to a
//! near miss can take many small steps: after [`MAX_STEPS`] the current,
//! early, time is reported with its distance (`distance` above the target
//! tells the caller).

use glam::Vec3;

use super::gjk::raycast::{self, ray_cast_cso};
use super::gjk::{Cso, GjkCache, GjkResult, Simplex, gjk_distance};
use super::support::NO_HINT;
use super::support::SupportMap;
use crate::math::RigidMotion;

/// Advancement steps before the loop gives up and reports its current
/// (early, conservative) time.
pub const MAX_STEPS: u32 = 1024;

/// A convex shape on its way: its support map (local frame), its motion,
/// and the largest distance of its points from the motion's center (only
/// used when it rotates).
#[derive(Clone, Copy)]
pub struct Mover<'a, S: ?Sized> {
    /// The shape.
    pub shape: &'a S,
    /// Its motion.
    pub motion: &'a RigidMotion,
    /// An upper bound on `|p − local_center|` over the shape's points `p`.
    pub radius: f32,
}

impl<S: ?Sized> Mover<'_, S> {
    /// The fastest any of its points can turn about the center.
    fn spin(&self) -> f32 {
        if self.motion.is_linear() {
            0.0
        } else {
            self.motion.angvel.length() * self.radius
        }
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

/// The first time two moving shapes come within the target distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastResult {
    /// The time of impact.
    pub time: f32,
    /// The distance at that time (at most `target + tolerance`, unless the
    /// step limit was reached).
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
    // The direction of nearly touching points is rounding noise: the last
    // advancing normal then.
    let len = v.length();
    let dir = if len > ma + mb + 0.5 * params.tolerance || n == Vec3::ZERO {
        v.normalize_or_zero()
    } else {
        n.normalize_or_zero()
    };
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
    })
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
    let closing = a.motion.linvel - b.motion.linvel;
    let spin = a.spin() + b.spin();
    let (mut t, mut normal) = (0.0f32, Vec3::ZERO);
    for step in 1..=MAX_STEPS {
        let r = gjk_distance(
            a.shape,
            &a.motion.pose_at(t),
            b.shape,
            &b.motion.pose_at(t),
            cache,
        );
        // The direction of nearly touching points is rounding noise: below
        // half the tolerance the last step's normal is kept.
        let gap = r.point_b - r.point_a;
        let clear = normal == Vec3::ZERO || r.distance > 0.5 * params.tolerance;
        if !r.intersecting && clear && gap.length_squared() > 0.0 {
            normal = gap.normalize();
        }
        let reached = r.intersecting || r.distance <= params.target + params.tolerance;
        if reached || step == MAX_STEPS {
            return Some(result(t, &r, normal, (step, [cache.hint_a, cache.hint_b])));
        }
        let rate = normal.dot(closing) + spin;
        if rate <= 0.0 {
            return None;
        }
        t += (r.distance - params.target) / rate;
        if t > params.max_time || t.is_nan() {
            return None;
        }
    }
    None
}

fn result(time: f32, r: &GjkResult, normal: Vec3, (steps, hints): (u32, [u32; 2])) -> CastResult {
    CastResult {
        time,
        distance: r.distance,
        point_a: r.point_a,
        point_b: r.point_b,
        normal,
        steps,
        hints,
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
    use crate::math::Pose;

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
            radius: 2.0,
        };
        // Head on from x = 5 at speed 2: the faces meet at t = (5 - 1.5) / 2.
        let m = RigidMotion::linear(Pose::from_translation(Vec3::X * 5.0), -2.0 * Vec3::X);
        let ball = Mover {
            shape: &s,
            motion: &m,
            radius: 0.5,
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
                radius: 1.0,
            };
            let b = Mover {
                shape: &sb,
                motion: &mb,
                radius: 1.0,
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
            radius: Vec3::new(2.0, 0.1, 0.1).length(),
        };
        let ball_motion = RigidMotion::stationary(Pose::from_translation(Vec3::new(1.5, 1.5, 0.0)));
        let s = Sphere::new(Vec3::ZERO, 0.2);
        let ball = Mover {
            shape: &s,
            motion: &ball_motion,
            radius: 0.2,
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
