//! Rounded convex shapes, segments and triangles: a convex core swept by
//! a ball of `radius` (the Minkowski sum `core ⊕ ball(radius)`; parry's
//! `RoundShape`, avian3d's `round_cuboid` / `round_convex_hull`). The core
//! is a convex polytope (a rounded box, a rounded hull) or a flat point
//! set (a segment, a triangle: degenerate polytopes, sharp when `radius`
//! is 0).
//!
//! No tessellation: GJK and EPA take the ball as the support map's margin
//! (van den Bergen, "Proximity queries and penetration depth computation
//! on 3D game objects", GDC 2001), so distances are the cores' minus the
//! radius and the round part is exact. What the kind knows is here: its
//! support map (the core's, hill-climbing on a polytope, plus the radius
//! along the direction), its box (the core's, grown by the radius) and its
//! ray cast (Möller–Trumbore on a sharp triangle, the GJK ray cast
//! otherwise).

use glam::Vec3;

use super::ConvexPolytope;
use super::support_ray::{box_span, hit, ray_cast_support};
use crate::geometry::closest::segment_segment;
use crate::geometry::ray::{Ray, RayHit, ray_triangle};
use crate::geometry::support::SupportMap;
use crate::math::Aabb;

/// The core a [`RoundConvex`] is swept from.
#[derive(Debug)]
pub enum RoundCore {
    /// A convex polytope (boxed: shapes of this kind stay small).
    Polytope(Box<ConvexPolytope>),
    /// A segment (2 points) or a triangle (3 points).
    Points(Box<[Vec3]>),
}

/// A convex core swept by a ball (see the module docs).
#[derive(Debug)]
pub struct RoundConvex {
    core: RoundCore,
    radius: f32,
    core_box: Aabb,
    core_reach: f32,
    /// When the core is a box centred on the origin (a rounded cuboid):
    /// its half extents and the polytope's vertex at each corner (index
    /// `x ≥ 0 | (y ≥ 0) << 1 | (z ≥ 0) << 2`), for a support without a
    /// search.
    box_core: Option<(Vec3, [u32; 8])>,
}

impl RoundConvex {
    /// The core swept by a ball of `radius` (>= 0; validated by the
    /// builders in [`crate::collider`]).
    pub fn new(core: RoundCore, radius: f32) -> Self {
        let pts = match &core {
            RoundCore::Polytope(p) => p.vertices(),
            RoundCore::Points(p) => p,
        };
        let core_box = Aabb::from_points(pts.iter().copied());
        let core_reach = pts.iter().map(|p| p.length()).fold(0.0, f32::max);
        let box_core = match &core {
            RoundCore::Polytope(_) => centred_box(pts, core_box),
            RoundCore::Points(_) => None,
        };
        Self {
            core,
            radius,
            core_box,
            core_reach: core_reach * (1.0 + 4.0 * f32::EPSILON),
            box_core,
        }
    }

    /// The core.
    pub fn core(&self) -> &RoundCore {
        &self.core
    }

    /// The core's points: a polytope's vertices, a segment's or a
    /// triangle's corners.
    pub fn core_points(&self) -> &[Vec3] {
        match &self.core {
            RoundCore::Polytope(p) => p.vertices(),
            RoundCore::Points(p) => p,
        }
    }

    /// The radius of the ball the core is swept by (0: sharp).
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The kind's name, for messages.
    pub fn name(&self) -> &'static str {
        match (&self.core, self.core_points().len(), self.radius > 0.0) {
            (RoundCore::Polytope(_), _, _) => "rounded convex",
            (_, 2, false) => "segment",
            (_, 2, true) => "rounded segment",
            (_, _, false) => "triangle",
            (_, _, true) => "rounded triangle",
        }
    }

    /// The box in the local frame: the core's, grown by the radius (exact).
    pub fn local_aabb(&self) -> Aabb {
        self.core_box.padded(self.radius)
    }

    /// The box of the core alone.
    pub fn core_aabb(&self) -> Aabb {
        self.core_box
    }

    /// A bound on the distance of the shape's points from its origin.
    pub fn bounding_radius(&self) -> f32 {
        self.core_reach + self.radius
    }

    /// The first hit of `ray` (local frame) within `max_toi`: exact on a
    /// sharp triangle (Möller–Trumbore, the normal facing the ray), the GJK
    /// ray cast otherwise (`support_ray.rs`). A ray starting inside hits at
    /// `toi = 0` with a zero normal.
    pub fn ray_cast(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        if let (RoundCore::Points(p), 0.0) = (&self.core, self.radius) {
            if let [a, b, c] = **p {
                let t = ray_triangle(ray, [a, b, c], max_toi)?;
                let n = (b - a).cross(c - a).normalize_or_zero();
                return Some(hit(t, if n.dot(ray.dir) > 0.0 { -n } else { n }));
            }
            if let [a, b] = **p {
                return ray_segment(ray, [a, b], max_toi, self.bounding_radius());
            }
        }
        let at = (self.local_aabb(), self.bounding_radius());
        ray_cast_support(self, at, ray, max_toi)
    }
}

/// The corner of the box of half extents `h` that `dir` selects, and its
/// index (`x ≥ 0 | (y ≥ 0) << 1 | (z ≥ 0) << 2`).
#[inline]
fn box_corner(h: Vec3, dir: Vec3) -> (Vec3, usize) {
    let (px, py, pz) = (dir.x >= 0.0, dir.y >= 0.0, dir.z >= 0.0);
    let c = Vec3::new(
        if px { h.x } else { -h.x },
        if py { h.y } else { -h.y },
        if pz { h.z } else { -h.z },
    );
    (
        c,
        usize::from(px) | usize::from(py) << 1 | usize::from(pz) << 2,
    )
}

/// When `pts` are exactly the 8 corners of `bx`, a box centred on the
/// origin: its half extents and the index of each corner in `pts`.
fn centred_box(pts: &[Vec3], bx: Aabb) -> Option<(Vec3, [u32; 8])> {
    let h = bx.max;
    if pts.len() != 8 || bx.min != -h {
        return None;
    }
    let mut index = [u32::MAX; 8];
    for (i, &p) in pts.iter().enumerate() {
        let (c, k) = box_corner(h, p);
        if c != p || index[k] != u32::MAX {
            return None;
        }
        index[k] = i as u32;
    }
    Some((h, index))
}

/// A ray against a sharp segment: the closest points of the ray (clipped
/// to the segment's box) and the segment, a hit when within `2⁻²⁰` of the
/// size (a segment has no inside), the normal the ray's reverse direction
/// made perpendicular to the segment.
fn ray_segment(ray: &Ray, [a, b]: [Vec3; 2], max_toi: f32, size: f32) -> Option<RayHit> {
    let tol = size * 2f32.powi(-20);
    let (t0, t1) = box_span(Aabb::from_points([a, b]).padded(tol), ray)?;
    let (lo, hi) = (t0.max(0.0), t1.min(max_toi));
    if lo > hi {
        return None;
    }
    let (p, q) = segment_segment(ray.at(lo), ray.at(hi), a, b);
    if p.distance(q) > tol {
        return None;
    }
    let toi = lo + (p - ray.at(lo)).length() / ray.dir.length();
    let axis = (b - a).normalize_or_zero();
    let back = -ray.dir;
    let normal = (back - axis * axis.dot(back))
        .try_normalize()
        .unwrap_or(back.normalize_or_zero());
    Some(hit(toi.min(hi), normal))
}

impl SupportMap for RoundConvex {
    #[inline]
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        let core = self.core_support(dir, hint);
        if self.radius > 0.0 {
            core + self.radius * dir.try_normalize().unwrap_or(Vec3::Y)
        } else {
            core
        }
    }

    #[inline]
    fn margin(&self) -> f32 {
        self.radius
    }

    #[inline]
    fn core_support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        if let Some((h, index)) = &self.box_core {
            // A box: the corner on the direction's side, branch-free (parry's
            // `Cuboid` support); on a tie any corner supports.
            let (c, k) = box_corner(*h, dir);
            *hint = index[k];
            return c;
        }
        match &self.core {
            RoundCore::Polytope(p) => p.support(dir, hint),
            RoundCore::Points(pts) => {
                let mut best = pts[0];
                for &p in &pts[1..] {
                    if p.dot(dir) > best.dot(dir) {
                        best = p;
                    }
                }
                best
            }
        }
    }
}
