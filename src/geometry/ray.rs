//! Rays and their primitive tests: a triangle (Möller–Trumbore, JGT 1997,
//! closed triangles, f32), a box (slab test), the roots of a quadratic (for
//! balls and cylinders). Ray casts on whole shapes are in `query`.
//!
//! A ray is `origin + t · dir` for `0 <= t <= max_toi`; `dir` need not be
//! unit length (`toi` is in units of `dir`).

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// A ray: `origin + t · dir`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ray {
    /// Start point.
    pub origin: Vec3,
    /// Direction (any non-zero length).
    pub dir: Vec3,
}

impl Ray {
    /// A ray from `origin` along `dir`.
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, dir }
    }

    /// The point at parameter `t`.
    #[inline]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }

    /// Whether this ray with limit `max_toi` can be cast: the fault, named,
    /// for a NaN or infinite origin or direction or a NaN or negative
    /// `max_toi` (`f32::INFINITY` is an unbounded ray).
    pub fn check(&self, max_toi: f32) -> Result<(), &'static str> {
        if !self.origin.is_finite() {
            return Err("the origin is NaN or infinite");
        }
        if !self.dir.is_finite() {
            return Err("the direction is NaN or infinite");
        }
        if max_toi.is_nan() || max_toi < 0.0 {
            return Err("max_toi is NaN or negative");
        }
        Ok(())
    }
}

/// Where a ray first meets a shape.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RayHit {
    /// Ray parameter of the hit.
    pub toi: f32,
    /// Unit normal of the surface at the hit, facing the ray's origin side
    /// for meshes; outward for convex shapes (zero when the origin is
    /// inside a convex shape: `toi` is then 0).
    pub normal: Vec3,
    /// The face (convex) or triangle (mesh) hit.
    pub feature: u32,
    /// The compound piece hit (0 for a shape that is not a compound).
    pub piece: u32,
}

/// Möller–Trumbore: the parameter at which `ray` meets the closed triangle,
/// if within `[0, max_toi]`. Degenerate triangles are never hit.
#[inline]
pub fn ray_triangle(ray: &Ray, [a, b, c]: [Vec3; 3], max_toi: f32) -> Option<f32> {
    let (e1, e2) = (b - a, c - a);
    let p = ray.dir.cross(e2);
    let det = e1.dot(p);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;
    let s = ray.origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = ray.dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    (0.0..=max_toi).contains(&t).then_some(t)
}

/// Slab test of a ray (in the box's frame) against a box centered at the
/// origin with half-extents `h`, grown by `pad`: whether it reaches the box
/// within `[0, max_toi]`.
#[inline]
pub fn ray_hits_box(origin: Vec3, dir: Vec3, h: Vec3, pad: f32, max_toi: f32) -> bool {
    let h = h + Vec3::splat(pad);
    let (mut lo, mut hi) = (0.0f32, max_toi);
    for k in 0..3 {
        if dir[k] == 0.0 {
            if origin[k].abs() > h[k] {
                return false;
            }
            continue;
        }
        let inv = 1.0 / dir[k];
        let (t0, t1) = ((-h[k] - origin[k]) * inv, (h[k] - origin[k]) * inv);
        lo = lo.max(t0.min(t1));
        hi = hi.min(t0.max(t1));
        if lo > hi {
            return false;
        }
    }
    true
}

/// The smallest root `t >= 0` of `a t² + b t + c` (`None` if none, or if
/// `a` is 0).
pub fn smallest_root(a: f32, b: f32, c: f32) -> Option<f32> {
    let disc = b * b - 4.0 * a * c;
    if a <= 0.0 || disc < 0.0 {
        return None;
    }
    let s = disc.sqrt();
    // Numerically stable pair of roots.
    let k = -0.5 * (b + s.copysign(b));
    let (t0, t1) = (k / a, if k != 0.0 { c / k } else { k / a });
    let (lo, hi) = (t0.min(t1), t0.max(t1));
    [lo, hi].into_iter().find(|&t| t >= 0.0)
}
