//! Brute-force references in `f64`, the answers every query is checked
//! against: polytope SAT and distance over all feature pairs, point,
//! segment and triangle distances, all box pairs, all triangle pairs, rays
//! against every triangle.

use std::collections::BTreeSet;

use glam::{DQuat, DVec3, Vec3};

use crate::broad_phase::{PairKey, pair_key};
use crate::collider::SharedShape;
use crate::geometry::ray::Ray;
use crate::geometry::tritri::triangles_intersect;
use crate::math::{Aabb, Pose};
use crate::shape::TriMesh;

/// A convex polytope in world space (f64): vertices, triangles, edges and
/// triangle normals.
pub struct Poly {
    pub v: Vec<DVec3>,
    pub tris: Vec<[u32; 3]>,
    pub edges: Vec<[u32; 2]>,
    pub normals: Vec<DVec3>,
}

pub fn dpose(p: &Pose) -> (DQuat, DVec3) {
    let q = p.rotation;
    let q = DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize();
    (q, p.translation.as_dvec3())
}

impl Poly {
    /// The hull of a shape (convex, or a mesh's or compound's hull) at a
    /// pose.
    pub fn of(shape: &SharedShape, pose: &Pose) -> Poly {
        let hull = shape.hull().expect("a shape with a 3D hull");
        Poly::new(hull.vertices(), hull.triangles(), pose)
    }

    pub fn new(verts: &[Vec3], tris: &[[u32; 3]], pose: &Pose) -> Poly {
        Poly::at(verts, tris, dpose(pose))
    }

    /// The polytope at an `f64` pose (rotation, translation).
    pub fn at(verts: &[Vec3], tris: &[[u32; 3]], (q, t): (DQuat, DVec3)) -> Poly {
        let v: Vec<DVec3> = verts.iter().map(|p| q * p.as_dvec3() + t).collect();
        let mut edges = Vec::new();
        let mut normals = Vec::new();
        for &[a, b, c] in tris {
            for (p, r) in [(a, b), (b, c), (c, a)] {
                if p < r {
                    edges.push([p, r]);
                }
            }
            let n = (v[b as usize] - v[a as usize]).cross(v[c as usize] - v[a as usize]);
            normals.push(n.normalize_or_zero());
        }
        Poly {
            v,
            tris: tris.to_vec(),
            edges,
            normals,
        }
    }

    fn project(&self, u: DVec3) -> (f64, f64) {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for p in &self.v {
            let d = p.dot(u);
            lo = lo.min(d);
            hi = hi.max(d);
        }
        (lo, hi)
    }

    /// Max signed distance of `p` to the face planes (> 0 outside).
    pub fn plane_dist(&self, p: DVec3) -> f64 {
        self.tris
            .iter()
            .zip(&self.normals)
            .map(|(t, n)| n.dot(p - self.v[t[0] as usize]))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Distance from a point to the polytope (0 inside).
    pub fn point_dist(&self, p: DVec3) -> f64 {
        if self.plane_dist(p) <= 0.0 {
            return 0.0;
        }
        self.tris
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.v[i as usize]);
                (closest_on_triangle(p, a, b, c) - p).length()
            })
            .fold(f64::INFINITY, f64::min)
    }
}

/// SAT: minimum overlap over all face normals and edge-pair cross products
/// (negative: separated; positive: intersecting, and then equal to the
/// penetration depth) together with the axis (unit, pointing from A to B).
pub fn sat(a: &Poly, b: &Poly) -> (f64, DVec3) {
    let mut best = f64::INFINITY;
    let mut axis = DVec3::X;
    let mut test = |u: DVec3| {
        let (alo, ahi) = a.project(u);
        let (blo, bhi) = b.project(u);
        let o1 = ahi - blo; // move B along +u by o1 to separate
        let o2 = bhi - alo; // move B along -u by o2
        if o1 < best {
            best = o1;
            axis = u;
        }
        if o2 < best {
            best = o2;
            axis = -u;
        }
    };
    for &n in a.normals.iter().chain(&b.normals) {
        if n != DVec3::ZERO {
            test(n);
        }
    }
    for ea in &a.edges {
        let da = a.v[ea[1] as usize] - a.v[ea[0] as usize];
        for eb in &b.edges {
            let db = b.v[eb[1] as usize] - b.v[eb[0] as usize];
            let c = da.cross(db);
            let l2 = c.length_squared();
            if l2 > 1e-20 * da.length_squared() * db.length_squared() {
                test(c / l2.sqrt());
            }
        }
    }
    (best, axis)
}

/// Distance between separated polytopes: min over vertex–triangle and
/// edge–edge pairs.
pub fn distance(a: &Poly, b: &Poly) -> f64 {
    let mut best = f64::INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        for &x in &p.v {
            for t in &q.tris {
                let [t0, t1, t2] = t.map(|i| q.v[i as usize]);
                best = best.min((closest_on_triangle(x, t0, t1, t2) - x).length());
            }
        }
    }
    for ea in &a.edges {
        let (p1, q1) = (a.v[ea[0] as usize], a.v[ea[1] as usize]);
        for eb in &b.edges {
            let (p2, q2) = (b.v[eb[0] as usize], b.v[eb[1] as usize]);
            best = best.min(segment_segment(p1, q1, p2, q2));
        }
    }
    best
}

/// Closest point to `p` on the closed triangle `abc` (which may be
/// degenerate). Deliberately not Ericson's Voronoi-region walk (§5.1.5),
/// which `geometry::closest` uses: the projection onto the plane when it
/// falls inside (three edge-side signs), else the nearest of the three
/// edges' closest points; a reference shares no code path with what it
/// checks.
pub fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let n = (b - a).cross(c - a);
    if n.length_squared() > 0.0 {
        let x = p - n * ((p - a).dot(n) / n.length_squared());
        if in_triangle(x, [a, b, c], n) {
            return x;
        }
    }
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(u, v)| closest_on_segment(p, u, v))
        .min_by(|x, y| p.distance_squared(*x).total_cmp(&p.distance_squared(*y)))
        .unwrap_or(a)
}

/// Ericson §5.1.9: distance between segments p1q1 and p2q2.
pub fn segment_segment(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    let f = d2.dot(r);
    let eps = 1e-300;
    let (s, t);
    if a <= eps && e <= eps {
        return r.length();
    }
    if a <= eps {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= eps {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            s = s0;
            t = t0;
        }
    }
    ((p1 + d1 * s) - (p2 + d2 * t)).length()
}

/// Closest point to `p` on segment `[a, b]`.
pub fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let d = b - a;
    let t = if d.length_squared() > 0.0 {
        ((p - a).dot(d) / d.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + d * t
}

/// Distance from `p` to a closed triangle (which may be degenerate).
pub fn point_triangle_distance(p: DVec3, [a, b, c]: [DVec3; 3]) -> f64 {
    p.distance(closest_on_triangle(p, a, b, c))
}

/// Whether `x`, a point of the plane of `abc` (normal `n = (b−a)×(c−a)`),
/// lies in the closed triangle: on the inner side of all three edges.
fn in_triangle(x: DVec3, [a, b, c]: [DVec3; 3], n: DVec3) -> bool {
    [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(u, v)| (v - u).cross(x - u).dot(n) >= 0.0)
}

/// Distance between segment `[p, q]` and a triangle (0 when the segment
/// crosses it).
pub fn segment_triangle_distance(p: DVec3, q: DVec3, t: [DVec3; 3]) -> f64 {
    let [a, b, c] = t;
    let n = (b - a).cross(c - a);
    let (dp, dq) = (n.dot(p - a), n.dot(q - a));
    if n.length_squared() > 0.0 && dp * dq < 0.0 {
        let x = p + (q - p) * (dp / (dp - dq));
        if in_triangle(x, t, n) {
            return 0.0;
        }
    }
    let ends = point_triangle_distance(p, t).min(point_triangle_distance(q, t));
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(u, v)| segment_segment(p, q, u, v))
        .fold(ends, f64::min)
}

/// Distance between segment `[p, q]` and a convex polytope's solid.
pub fn segment_poly_distance(p: DVec3, q: DVec3, poly: &Poly) -> f64 {
    if poly.plane_dist(p) <= 0.0 || poly.plane_dist(q) <= 0.0 {
        return 0.0;
    }
    poly.tris
        .iter()
        .map(|t| segment_triangle_distance(p, q, t.map(|i| poly.v[i as usize])))
        .fold(f64::MAX, f64::min)
}

/// The triangles of `mesh` at `pose` that lie inside the convex solid
/// `poly` (world space) without crossing its surface: a vertex strictly
/// inside every face plane, in `f64` (the crate's inside rule: solids
/// contain, a mesh is a surface). Call it for a pair whose surfaces do not
/// cross (then one vertex decides for its triangle).
pub fn triangles_inside(poly: &Poly, mesh: &TriMesh, pose: &Pose) -> Vec<u32> {
    let (q, t) = dpose(pose);
    (0..mesh.triangles().len())
        .filter(|&i| {
            let v = mesh.triangle(i)[0].as_dvec3();
            poly.plane_dist(q * v + t) < 0.0
        })
        .map(|i| i as u32)
        .collect()
}

/// Every overlapping pair of boxes (`None`: no box), static pairs
/// excluded when `is_static` says both are static: O(n²).
pub fn box_pairs(boxes: &[Option<Aabb>], is_static: impl Fn(usize) -> bool) -> BTreeSet<PairKey> {
    let mut out = BTreeSet::new();
    for (i, a) in boxes.iter().enumerate() {
        for (j, b) in boxes.iter().enumerate().skip(i + 1) {
            if let (Some(a), Some(b)) = (a, b)
                && a.overlaps(b)
                && !(is_static(i) && is_static(j))
            {
                out.insert(pair_key(i as u32, j as u32));
            }
        }
    }
    out
}

/// Every intersecting triangle pair `[of a, of b]` of two meshes at poses,
/// by the exact triangle test: O(n m).
pub fn triangle_pairs(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose) -> BTreeSet<[u32; 2]> {
    let world = |m: &TriMesh, p: &Pose| -> Vec<[Vec3; 3]> {
        (0..m.triangles().len())
            .map(|t| m.triangle(t).map(|v| p.transform_point(v)))
            .collect()
    };
    let (ta, tb) = (world(a, pa), world(b, pb));
    let mut out = BTreeSet::new();
    for (i, x) in ta.iter().enumerate() {
        for (j, y) in tb.iter().enumerate() {
            if triangles_intersect(*x, *y) {
                out.insert([i as u32, j as u32]);
            }
        }
    }
    out
}

/// The first hit `(toi, triangle)` of a ray (mesh frame) on any triangle
/// within `max_toi` (ties: the smallest triangle index): every triangle
/// tested.
pub fn ray_mesh(mesh: &TriMesh, ray: &Ray, max_toi: f32) -> Option<(f32, u32)> {
    let mut best: Option<(f32, u32)> = None;
    for t in 0..mesh.triangles().len() {
        let hit = crate::geometry::ray::ray_triangle(ray, mesh.triangle(t), max_toi);
        if let Some(toi) = hit
            && best.is_none_or(|(b, _)| toi < b)
        {
            best = Some((toi, t as u32));
        }
    }
    best
}

/// The distance between two triangles (f32 corners), in f64: 0 when they
/// intersect (the exact test), else the smallest vertex–triangle or
/// edge–edge distance.
pub fn triangle_distance(a: [Vec3; 3], b: [Vec3; 3]) -> f64 {
    if triangles_intersect(a, b) {
        return 0.0;
    }
    let (da, db) = (a.map(|p| p.as_dvec3()), b.map(|p| p.as_dvec3()));
    let mut best = f64::INFINITY;
    for i in 0..3 {
        best = best.min(point_triangle_distance(da[i], db));
        best = best.min(point_triangle_distance(db[i], da));
        for j in 0..3 {
            let (p, q) = (da[i], da[(i + 1) % 3]);
            best = best.min(segment_segment(p, q, db[j], db[(j + 1) % 3]));
        }
    }
    best
}

/// The distance between two meshes at poses over every triangle pair (B's
/// triangles mapped into A's frame, as the queries do), with the pair:
/// `(distance by `f32` closest points, distance in f64, [ta, tb])`.
pub fn mesh_distance(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose) -> (f32, f64, [u32; 2]) {
    let rel = pa.inverse().mul(pb);
    let mapped: Vec<[Vec3; 3]> = (0..b.triangles().len())
        .map(|t| b.triangle(t).map(|p| rel.transform_point(p)))
        .collect();
    let mut best = (f32::INFINITY, f64::INFINITY, [0, 0]);
    for ta in 0..a.triangles().len() {
        let tri_a = a.triangle(ta);
        for (tb, tri_b) in mapped.iter().enumerate() {
            let (d, _, _) = crate::geometry::closest::triangle_triangle(tri_a, *tri_b);
            if d < best.0 {
                best.0 = d;
                best.2 = [ta as u32, tb as u32];
            }
            best.1 = best.1.min(triangle_distance(tri_a, *tri_b));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    /// The reference against sampling: a barycentric grid of 61 steps per
    /// side on random triangles (and ones collapsed to a segment or a
    /// point) never comes closer than the reference's point, and its
    /// closest sample is within the grid's spacing of it.
    #[test]
    fn closest_on_triangle_is_the_sampled_minimum() {
        let mut rng = Rng::new(11);
        for case in 0..300 {
            let mut t = [0; 3].map(|_| rng.vec(-1.0, 1.0).as_dvec3());
            match case % 10 {
                0 => t[2] = t[0] + (t[1] - t[0]) * 0.25,
                1 => t = [t[0]; 3],
                _ => {}
            }
            let p = rng.vec(-1.5, 1.5).as_dvec3();
            let got = closest_on_triangle(p, t[0], t[1], t[2]);
            let d = p.distance(got);
            let (mut best, steps) = (f64::MAX, 60);
            for i in 0..=steps {
                for j in 0..=steps - i {
                    let (u, v) = (i as f64 / steps as f64, j as f64 / steps as f64);
                    let x = t[0] + (t[1] - t[0]) * u + (t[2] - t[0]) * v;
                    best = best.min(p.distance(x));
                }
            }
            let spacing = (t[1] - t[0]).length().max((t[2] - t[0]).length()) / steps as f64;
            assert!(d <= best + 1e-12, "case {case}: {d} above a sample {best}");
            assert!(best <= d + 2.0 * spacing, "case {case}: {d} vs {best}");
        }
    }
}
