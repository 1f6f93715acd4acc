//! Implicit convex primitives along local Y: a cylinder and a cone, each
//! given by its support mapping only (GJK and EPA need nothing else), in
//! avian3d's and parry3d's conventions: a cylinder spans `y ∈ [-h, h]`
//! with radius `r`; a cone has its base of radius `r` at `y = -h` and its
//! apex at `y = +h`. No tessellation: the round parts are exact.
//!
//! A rounded cylinder or cone is the same core swept by a ball of radius
//! `rounding` (the Minkowski sum, parry's `RoundCylinder` / `RoundCone`):
//! GJK and EPA take the ball as the support map's margin, so the round
//! part is exact too.
//!
//! What the kind knows is here: its support map, its local box and
//! bounding radius, and its ray cast (closed form for a sharp core, the
//! GJK ray cast for a rounded one, `support_ray.rs`; clipped to its box first so that a ray
//! from far away is solved near the shape).

use glam::{Vec2, Vec3};

use super::support_ray::{box_span, hit, ray_cast_support};
use crate::geometry::ray::{Ray, RayHit};
use crate::geometry::support::SupportMap;
use crate::math::Aabb;

/// Which implicit primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImplicitKind {
    /// A solid cylinder along local Y.
    Cylinder,
    /// A solid cone along local Y, apex up.
    Cone,
}

/// A cylinder or a cone along local Y (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Implicit {
    /// Cylinder or cone.
    pub kind: ImplicitKind,
    /// Half the height along Y.
    pub half_height: f32,
    /// Radius (of the base, for a cone).
    pub radius: f32,
    /// Radius of the ball the core is swept by (0: sharp).
    pub rounding: f32,
}

impl Implicit {
    /// The kind's name, for messages.
    pub fn name(&self) -> &'static str {
        match (self.kind, self.rounding > 0.0) {
            (ImplicitKind::Cylinder, false) => "cylinder",
            (ImplicitKind::Cone, false) => "cone",
            (ImplicitKind::Cylinder, true) => "rounded cylinder",
            (ImplicitKind::Cone, true) => "rounded cone",
        }
    }

    /// The box in the local frame (exact for both kinds).
    pub fn local_aabb(&self) -> Aabb {
        let (h, r) = (self.half_height, self.radius);
        Aabb::new(Vec3::new(-r, -h, -r), Vec3::new(r, h, r)).padded(self.rounding)
    }

    /// The largest distance of a point of the shape from its origin (a
    /// rim point, for both kinds; the cone's apex is `h` away).
    pub fn bounding_radius(&self) -> f32 {
        Vec2::new(self.half_height, self.radius).length() + self.rounding
    }

    /// The first hit of `ray` (local frame) within `max_toi`, closed form: the
    /// ray clipped to the local box, then to the slab `|y| <= h` and the
    /// quadric of the side (a cylinder `x² + z² <= r²`, a cone `x² + z² <=
    /// (k (h - y))²` with `k = r / 2h`). A ray starting inside hits at
    /// `toi = 0` with a zero normal, as for every solid.
    pub fn ray_cast(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        if self.rounding > 0.0 {
            let at = (self.local_aabb(), self.bounding_radius());
            return ray_cast_support(self, at, ray, max_toi);
        }
        let pad = 4.0 * f32::EPSILON * self.bounding_radius();
        let (t0, t1) = box_span(self.local_aabb().padded(pad), ray)?;
        // Solve from the box's entry: coordinates of the shape's size.
        let start = t0.max(0.0);
        if start > max_toi.min(t1) {
            return None;
        }
        let local = Ray::new(ray.at(start), ray.dir);
        let span = match self.kind {
            ImplicitKind::Cylinder => self.cylinder_span(&local),
            ImplicitKind::Cone => self.cone_span(&local),
        }?;
        let (lo, hi) = (span.lo + start, span.hi + start);
        if hi < lo || hi < 0.0 || lo > max_toi {
            return None;
        }
        if lo <= 0.0 {
            return Some(hit(0.0, Vec3::ZERO));
        }
        let normal = self.normal_at(ray.at(lo), span.by);
        Some(hit(lo, normal))
    }

    fn cylinder_span(&self, ray: &Ray) -> Option<Span> {
        let (o, d) = (ray.origin, ray.dir);
        let mut span = Span::slab(o.y, d.y, self.half_height)?;
        let a = d.x * d.x + d.z * d.z;
        let b = o.x * d.x + o.z * d.z;
        let c = o.x * o.x + o.z * o.z - self.radius * self.radius;
        if a == 0.0 {
            return (c <= 0.0).then_some(span);
        }
        let (r0, r1) = roots(a, b, c)?;
        span.clip(r0, r1, Entered::Side);
        Some(span)
    }

    fn cone_span(&self, ray: &Ray) -> Option<Span> {
        let (o, d, h) = (ray.origin, ray.dir, self.half_height);
        let k = self.radius / (2.0 * h);
        let mut span = Span::slab(o.y, d.y, h)?;
        // q(t) = k² w² − ρ² ≥ 0 (w = h − y) inside the double cone; within
        // the slab only the lower nappe is met.
        let (w0, dw) = (h - o.y, -d.y);
        let a = k * k * dw * dw - (d.x * d.x + d.z * d.z);
        let b = k * k * w0 * dw - (o.x * d.x + o.z * d.z);
        let c = k * k * w0 * w0 - (o.x * o.x + o.z * o.z);
        if a < 0.0 {
            let (r0, r1) = roots(-a, -b, -c)?;
            span.clip(r0, r1, Entered::Side);
        } else if a > 0.0 {
            // Outside the roots: the lower nappe is the half-line on the
            // side where w grows (none of the other is in the slab).
            match roots(a, b, c) {
                Some((r0, _)) if dw < 0.0 => span.clip(f32::NEG_INFINITY, r0, Entered::Side),
                Some((_, r1)) => span.clip(r1, f32::INFINITY, Entered::Side),
                None => {}
            }
        } else if b != 0.0 {
            let r = -c / (2.0 * b);
            if b > 0.0 {
                span.clip(r, f32::INFINITY, Entered::Side);
            } else {
                span.clip(f32::NEG_INFINITY, r, Entered::Side);
            }
        } else if c < 0.0 {
            return None;
        }
        Some(span)
    }

    /// The outward unit normal at a boundary point `p` entered through `by`.
    fn normal_at(&self, p: Vec3, by: Entered) -> Vec3 {
        let radial = Vec2::new(p.x, p.z).normalize_or_zero();
        match (by, self.kind) {
            (Entered::Bottom, _) => Vec3::NEG_Y,
            (Entered::Top, _) => Vec3::Y,
            (Entered::Side, ImplicitKind::Cylinder) => Vec3::new(radial.x, 0.0, radial.y),
            (Entered::Side, ImplicitKind::Cone) => {
                let k = self.radius / (2.0 * self.half_height);
                if radial == Vec2::ZERO {
                    Vec3::Y
                } else {
                    Vec3::new(radial.x, k, radial.y).normalize()
                }
            }
        }
    }
}

/// Where a ray enters an interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entered {
    Bottom,
    Top,
    Side,
}

/// The ray parameters `[lo, hi]` inside, and what bounds `lo`.
#[derive(Clone, Copy, Debug)]
struct Span {
    lo: f32,
    hi: f32,
    by: Entered,
}

impl Span {
    /// The slab `|o.y + t d.y| <= h`; `None` when a parallel ray is outside.
    fn slab(oy: f32, dy: f32, h: f32) -> Option<Span> {
        if dy == 0.0 {
            return (oy.abs() <= h).then_some(Span {
                lo: f32::NEG_INFINITY,
                hi: f32::INFINITY,
                by: Entered::Side,
            });
        }
        let (tb, tt) = ((-h - oy) / dy, (h - oy) / dy);
        Some(if dy > 0.0 {
            Span {
                lo: tb,
                hi: tt,
                by: Entered::Bottom,
            }
        } else {
            Span {
                lo: tt,
                hi: tb,
                by: Entered::Top,
            }
        })
    }

    fn clip(&mut self, lo: f32, hi: f32, by: Entered) {
        if lo > self.lo {
            self.lo = lo;
            self.by = by;
        }
        self.hi = self.hi.min(hi);
    }
}

/// The roots `r0 <= r1` of `a t² + 2 b t + c` (`a > 0`), stable form;
/// `None` without real roots.
fn roots(a: f32, b: f32, c: f32) -> Option<(f32, f32)> {
    let disc = b * b - a * c;
    if disc < 0.0 || !disc.is_finite() {
        return None;
    }
    let q = -(b + disc.sqrt().copysign(b));
    if q == 0.0 {
        return Some((0.0, 0.0));
    }
    let (x, y) = (q / a, c / q);
    Some((x.min(y), x.max(y)))
}

impl SupportMap for Implicit {
    #[inline]
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        let core = self.core_support(dir, hint);
        if self.rounding > 0.0 {
            core + self.rounding * dir.try_normalize().unwrap_or(Vec3::Y)
        } else {
            core
        }
    }

    #[inline]
    fn margin(&self) -> f32 {
        self.rounding
    }

    #[inline]
    fn core_support(&self, dir: Vec3, _hint: &mut u32) -> Vec3 {
        let (h, r) = (self.half_height, self.radius);
        let radial = || {
            Vec2::new(dir.x, dir.z)
                .try_normalize()
                .unwrap_or(Vec2::ZERO)
                * r
        };
        match self.kind {
            ImplicitKind::Cylinder => {
                let radial = radial();
                Vec3::new(radial.x, h.copysign(dir.y), radial.y)
            }
            ImplicitKind::Cone => {
                // The apex when its support value `h d_y` is at least the
                // rim's, `r |d_xz| − h d_y`: `2h d_y ≥ r |d_xz|`, i.e.
                // `h d_y ≥ 0` and the two sides squared (no square root or
                // division before the branch, so that a mispredicted choice
                // is known early; at a tie both are supports). The sign
                // test is on `h d_y`, not `d_y`, so that the choice stays
                // right for any `h` (a NaN takes the rim).
                let (dy, dxz2) = (dir.y, dir.x * dir.x + dir.z * dir.z);
                if h * dy >= 0.0 && 4.0 * h * h * (dy * dy) >= r * r * dxz2 {
                    Vec3::new(0.0, h, 0.0)
                } else {
                    let radial = radial();
                    Vec3::new(radial.x, -h, radial.y)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::support::NO_HINT;

    /// The cone's support against the larger of its two candidates'
    /// support values (the apex `(0, h, 0)` and the rim point along
    /// `d_xz`), for either sign of `h`: upside down (`h < 0`) the apex is
    /// below the rim, and a direction up and a little sideways has the
    /// rim as its support.
    #[test]
    fn cone_support_is_the_better_of_apex_and_rim_for_either_sign_of_h() {
        for h in [1.0f32, -1.0, 0.25, -0.25] {
            let cone = Implicit {
                kind: ImplicitKind::Cone,
                half_height: h,
                radius: 0.5,
                rounding: 0.0,
            };
            for dir in [
                Vec3::new(0.1, 1.0, 0.0),
                Vec3::new(0.1, -1.0, 0.2),
                Vec3::new(3.0, 1.0, -1.0),
                Vec3::new(-0.3, 0.2, 0.1),
            ] {
                let apex = Vec3::new(0.0, h, 0.0);
                let flat = Vec2::new(dir.x, dir.z).normalize() * 0.5;
                let rim = Vec3::new(flat.x, -h, flat.y);
                let best = dir.dot(apex).max(dir.dot(rim));
                let got = dir.dot(cone.core_support(dir, &mut { NO_HINT }));
                assert!(
                    (got - best).abs() <= 1e-6,
                    "h {h}, dir {dir}: {got} vs {best}"
                );
            }
        }
    }
}
