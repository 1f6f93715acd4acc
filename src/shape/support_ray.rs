//! The ray cast of any support-mapped shape with a margin (a rounded
//! cylinder, cone, box or hull; a segment or triangle, sharp or rounded):
//! the ray clipped to the shape's local box first (so a ray from far away
//! is solved near the shape), then the GJK ray cast (van den Bergen, "Ray
//! casting against general convex objects with application to continuous
//! collision detection", 2004) of the core against the ray's point within
//! the margin, with conservative advancement for the rare ray it does not
//! settle.

use glam::{Quat, Vec3};

use crate::geometry::gjk::raycast::{RayCast, ray_cast_cso};
use crate::geometry::gjk::{Cso, GjkCache, gjk_distance};
use crate::geometry::ray::{Ray, RayHit};
use crate::geometry::support::{Sphere, SupportMap};
use crate::math::{Aabb, Pose};

/// The first hit of `ray` (shape frame) on `s` within `max_toi`; `local`
/// is the shape's box, `size` a bound on the distance of its points from
/// its origin. A ray starting inside hits at `toi = 0` with a zero normal.
pub(crate) fn ray_cast_support<S: SupportMap + ?Sized>(
    s: &S,
    (local, size): (Aabb, f32),
    ray: &Ray,
    max_toi: f32,
) -> Option<RayHit> {
    let pad = 4.0 * f32::EPSILON * size;
    let (t0, t1) = box_span(local.padded(pad), ray)?;
    let start = t0.max(0.0);
    if start > max_toi.min(t1) {
        return None;
    }
    // From a little before the box (a round part lies on its face): GJK
    // then starts outside, with a normal to advance by.
    let back = (0.01 * size / ray.dir.length()).min(start);
    let from = Ray::new(ray.at(start - back), ray.dir);
    let h = gjk_ray_cast(s, size, &from, max_toi - (start - back))?;
    Some(hit(h.toi + (start - back), h.normal))
}

/// The GJK ray cast of the core against the ray's point: the first time
/// the point comes within the margin (plus `2⁻²⁰` of the size) of the core.
fn gjk_ray_cast<S: SupportMap + ?Sized>(
    s: &S,
    size: f32,
    ray: &Ray,
    max_toi: f32,
) -> Option<RayHit> {
    let point = Sphere::new(Vec3::ZERO, 0.0);
    let at = Pose::new(Quat::IDENTITY, ray.origin);
    let cso = Cso::new(s, &Pose::IDENTITY, &point, &at);
    let tol = size * 2f32.powi(-20);
    // Time in a unit that makes the ray's speed the shape's size (as the
    // shape casts do): the loop's tolerances are relative to it.
    let unit = size / ray.dir.length();
    let max_t = (max_toi.max(0.0) / unit).min(f32::MAX);
    match ray_cast_cso(&cso, ray.dir * unit, (s.margin(), tol), max_t) {
        RayCast::Hit { t, v, n, .. } if t > 0.0 => {
            let normal = v
                .try_normalize()
                .or(n.try_normalize())
                .unwrap_or(Vec3::ZERO);
            Some(hit(t * unit, normal))
        }
        RayCast::Hit { .. } => Some(hit(0.0, Vec3::ZERO)),
        RayCast::Miss => None,
        RayCast::Unsettled => advance_ray(s, ray, max_toi, tol),
    }
}

/// Conservative advancement of the ray's point by GJK distances (never
/// past the surface: each step is a distance the point can go without
/// reaching it), for the rare ray the GJK ray cast does not settle.
fn advance_ray<S: SupportMap + ?Sized>(s: &S, ray: &Ray, max_toi: f32, tol: f32) -> Option<RayHit> {
    let point = Sphere::new(Vec3::ZERO, 0.0);
    let speed = ray.dir.length();
    let mut t = 0.0f32;
    for _ in 0..256 {
        let at = Pose::new(Quat::IDENTITY, ray.at(t));
        let g = gjk_distance(s, &Pose::IDENTITY, &point, &at, &mut GjkCache::default());
        if g.intersecting || g.distance <= tol {
            let normal = (g.point_b - g.point_a).normalize_or_zero();
            return Some(if t > 0.0 {
                hit(t, normal)
            } else {
                hit(0.0, Vec3::ZERO)
            });
        }
        t += g.distance / speed;
        if t > max_toi || !t.is_finite() {
            return None;
        }
    }
    None
}

pub(crate) fn hit(toi: f32, normal: Vec3) -> RayHit {
    RayHit {
        toi,
        normal,
        feature: 0,
        piece: 0,
    }
}

/// The parameters `[t0, t1]` over which `ray` is inside the box.
pub(crate) fn box_span(b: Aabb, ray: &Ray) -> Option<(f32, f32)> {
    let (mut lo, mut hi) = (f32::NEG_INFINITY, f32::INFINITY);
    for k in 0..3 {
        let (o, d) = (ray.origin[k], ray.dir[k]);
        if d == 0.0 {
            if o < b.min[k] || o > b.max[k] {
                return None;
            }
            continue;
        }
        let (u, v) = ((b.min[k] - o) / d, (b.max[k] - o) / d);
        lo = lo.max(u.min(v));
        hi = hi.min(u.max(v));
    }
    (lo <= hi).then_some((lo, hi))
}
