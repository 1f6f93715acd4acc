//! The half-space `{x : n · x <= 0}` in its own frame (`n` its unit
//! outward normal): an infinite ground, parry's `HalfSpace`.
//!
//! Every query against it is closed form on the other shape's support
//! mapping: a convex shape's deepest point along `-n` is its support point
//! in `-n`, so its signed distance to the half-space is `-h(-n)` in the
//! half-space's frame, `h` the shape's support function (the same as the
//! separating-axis test on the one axis that matters); a mesh's, the
//! least `n · v` over its vertices. Ray casts meet the plane.
//!
//! **Bounds.** A half-space is unbounded, boxes are not: its box is its
//! part within the cube `|x_k| <= HALF_SPACE_EXTENT = 2⁵¹` (twice
//! [`MAX_POSITION`](crate::collider::limits::MAX_POSITION)), which holds
//! every point of every body the world accepts (a translation within
//! `2⁵⁰`, a shape within `2²⁸` of it). In the broad phases it is one huge
//! box: the grid files it as *oversized* (tested against every box
//! directly), sweep and prune as one long interval, the fixed cube is the
//! cube of that reach; the box's rounding pad (`2⁻²⁰` of its reach) lets it
//! overlap boxes up to about `2³²` above its plane, which the exact pair
//! test then refuses.

use glam::Vec3;

use crate::geometry::ray::{Ray, RayHit};
use crate::geometry::support::{NO_HINT, SupportMap};
use crate::math::{Aabb, Pose};

/// The half cube side a half-space's box is clipped to (`2⁵¹`).
pub const HALF_SPACE_EXTENT: f32 = 2_251_799_813_685_248.0; // 2^51

/// Everything below the plane through the origin with unit outward
/// `normal` (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfSpace {
    /// The unit outward normal.
    pub normal: Vec3,
}

impl HalfSpace {
    /// The box of its part within the cube `|x_k| <= HALF_SPACE_EXTENT` of
    /// its own frame.
    pub fn local_aabb(&self) -> Aabb {
        clipped_box(self.normal, 0.0)
    }

    /// The box of its part within the cube `|x_k| <= HALF_SPACE_EXTENT` of
    /// the world, at `pose`.
    pub fn world_box(&self, pose: &Pose) -> Aabb {
        let n = pose.rotation * self.normal;
        clipped_box(n, n.dot(pose.translation))
    }

    /// The deepest point of a convex shape `s` at `pose` against this
    /// half-space at `pose_h`: its support point along `-n`, in the
    /// half-space's frame (the relative pose) then in the world.
    pub fn lowest<S: SupportMap + ?Sized>(&self, pose_h: &Pose, (s, pose): (&S, &Pose)) -> Lowest {
        let rel = pose_h.inverse().mul(pose);
        let n = self.normal;
        let p = rel.transform_point(s.support(rel.rotation.conjugate() * -n, &mut { NO_HINT }));
        let d = n.dot(p);
        Lowest {
            d,
            on_plane: pose_h.transform_point(p - d * n),
            point: pose_h.transform_point(p),
            normal: pose_h.rotation * n,
        }
    }

    /// The first hit of `ray` (local frame) within `max_toi`: where it
    /// crosses the plane going down; a ray starting inside (on or below the
    /// plane) hits at `toi = 0` with a zero normal, as for every solid.
    pub fn ray_cast(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        let (o, d) = (self.normal.dot(ray.origin), self.normal.dot(ray.dir));
        let hit = |toi, normal| RayHit {
            toi,
            normal,
            feature: 0,
            piece: 0,
        };
        if o <= 0.0 {
            return Some(hit(0.0, Vec3::ZERO));
        }
        let t = -o / d;
        (d < 0.0 && t <= max_toi).then(|| hit(t, self.normal))
    }
}

/// A convex shape's deepest point against a half-space
/// ([`HalfSpace::lowest`]), world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lowest {
    /// Its signed distance to the plane (`< 0`: below, the depth).
    pub d: f32,
    /// Its projection on the plane.
    pub on_plane: Vec3,
    /// The point.
    pub point: Vec3,
    /// The half-space's outward unit normal.
    pub normal: Vec3,
}

/// The box of `{x : n · x <= c} ∩ [-E, E]³` (`E` = [`HALF_SPACE_EXTENT`]):
/// along axis `k`, the plane bounds `x_k` on the side `n_k` points to, at
/// `(c + E Σ_{j≠k} |n_j|) / n_k` (the other coordinates at their most
/// helpful corner); grown by `2⁻²⁰` of `E` against rounding.
fn clipped_box(n: Vec3, c: f32) -> Aabb {
    let e = HALF_SPACE_EXTENT;
    let sum = n.abs().element_sum();
    let (mut lo, mut hi) = (Vec3::splat(-e), Vec3::splat(e));
    for k in 0..3 {
        let rest = sum - n[k].abs();
        let bound = (c + e * rest) / n[k] + (e * 2f32.powi(-20)).copysign(n[k]);
        if n[k] > 0.0 {
            hi[k] = bound.min(e);
        } else if n[k] < 0.0 {
            lo[k] = bound.max(-e);
        }
    }
    Aabb::new(lo, hi)
}
