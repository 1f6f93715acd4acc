//! The radius of a ball around a hull's centroid that lies inside the
//! hull, certified: what lets the boolean pair test answer "touching" for
//! two hulls whose inner balls overlap without running GJK
//! (`query::balls`).
//!
//! The hull's triangles form a closed surface with every vertex a hull
//! vertex. A point whose winding number about that surface is not zero
//! lies in the convex hull of its vertices (a point outside the hull has a
//! plane between it and every triangle, so a ray from it crosses none).
//! If the centroid `c` lies strictly on the inner side of every
//! triangle's plane, each triangle's solid angle seen from `c` is
//! positive, so `c`'s winding number is positive; every point nearer to
//! `c` than all the planes is reached from `c` without crossing the
//! surface, so it has the same winding number and lies in the hull. The
//! radius is therefore the smallest distance from `c` to a triangle's
//! plane, computed in `f64` from the exact `f32` vertices and rounded
//! down; 0 (no ball) when a triangle is degenerate or not facing away
//! from `c`.

use glam::Vec3;

/// Relative amount taken off the `f64` radius: far above its rounding
/// (a few `f64` ulps of the coordinates' scale).
const SHRINK: f64 = 1e-9;

/// The certified inner radius of the closed surface `triangles` over
/// `vertices` (counter-clockwise seen from outside) about `centroid`; 0
/// when none is certified.
pub(super) fn inner_radius(vertices: &[Vec3], triangles: &[[u32; 3]], centroid: Vec3) -> f32 {
    let c = centroid.as_dvec3();
    let scale = vertices
        .iter()
        .map(|v| (v.as_dvec3() - c).abs().max_element())
        .fold(0.0, f64::max);
    let mut least = f64::INFINITY;
    for t in triangles {
        let [Some(p0), Some(p1), Some(p2)] = t.map(|i| vertices.get(i as usize)) else {
            return 0.0;
        };
        let [p0, p1, p2] = [p0, p1, p2].map(|v| v.as_dvec3());
        let n = (p1 - p0).cross(p2 - p0);
        let len = n.length();
        // Outward normal: the centroid is behind the plane by `depth`.
        let depth = n.dot(p0 - c) / len;
        if !(len > 0.0 && depth.is_finite() && depth > 0.0) {
            return 0.0;
        }
        least = least.min(depth);
    }
    shrunk(least, scale)
}

/// `r` less its rounding allowance, as the largest `f32` not above it
/// (0 when nothing is left).
fn shrunk(r: f64, scale: f64) -> f32 {
    let r = r - SHRINK * (scale + r);
    if !(r > 0.0 && r.is_finite()) {
        return 0.0;
    }
    let f = r as f32;
    if f64::from(f) > r { f.next_down() } else { f }
}
