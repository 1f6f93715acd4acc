//! Brute-force references (f64) shared by the integration tests.
#![allow(dead_code)]

use bevy_icollide::math::Pose;
use bevy_icollide::shape::{ConvexPolytope, SharedShape};
use glam::{DVec3, Vec3};

/// A shape at a pose.
pub struct Body {
    pub shape: SharedShape,
    pub pose: Pose,
}

impl Body {
    pub fn poly(&self) -> &ConvexPolytope {
        self.shape.polytope().expect("convex")
    }
    pub fn world_vertices(&self) -> Vec<DVec3> {
        self.poly()
            .vertices()
            .iter()
            .map(|v| self.pose.transform_point(*v).as_dvec3())
            .collect()
    }
    pub fn world_triangles(&self) -> Vec<[DVec3; 3]> {
        let hull = self.shape.hull().expect("hull");
        hull.triangles()
            .iter()
            .map(|t| {
                t.map(|i| {
                    self.pose
                        .transform_point(hull.vertices()[i as usize])
                        .as_dvec3()
                })
            })
            .collect()
    }
    pub fn world_edges(&self) -> Vec<(DVec3, DVec3)> {
        let p = self.poly();
        p.edges()
            .iter()
            .map(|e| {
                let f = |i: u32| self.pose.transform_point(p.vertex(i)).as_dvec3();
                (f(e.v[0]), f(e.v[1]))
            })
            .collect()
    }
    pub fn world_normals(&self) -> Vec<DVec3> {
        self.poly()
            .faces()
            .iter()
            .map(|f| (self.pose.rotation * f.normal).as_dvec3())
            .collect()
    }
    /// Largest signed distance of a world point to the face planes.
    pub fn outside_by(&self, p: Vec3) -> f32 {
        let local = self.pose.inverse().transform_point(p);
        let poly = self.poly();
        (0..poly.faces().len() as u32)
            .map(|f| poly.face_distance(f, local))
            .fold(f32::MIN, f32::max)
    }
}

pub fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let d = b - a;
    let t = if d.length_squared() > 0.0 {
        ((p - a).dot(d) / d.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + d * t
}

pub fn segment_distance(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
    // A point for a segment (a sphere's core): point to segment.
    if p2 == q2 {
        return p2.distance(closest_on_segment(p2, p1, q1));
    }
    if p1 == q1 {
        return p1.distance(closest_on_segment(p1, p2, q2));
    }
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let c = d1.dot(r);
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    let mut s = if denom > 1e-18 {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (p1 + d1 * s).distance(p2 + d2 * t)
}

pub fn point_triangle_distance(p: DVec3, [a, b, c]: [DVec3; 3]) -> f64 {
    let n = (b - a).cross(c - a);
    if n.length_squared() > 0.0 {
        let n = n.normalize();
        let q = p - n * n.dot(p - a);
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| (v - u).cross(q - u).dot(n) >= 0.0);
        if inside {
            return p.distance(q);
        }
    }
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(u, v)| p.distance(closest_on_segment(p, u, v)))
        .fold(f64::MAX, f64::min)
}

/// Largest separation over all SAT axes (> 0: separated, < 0: overlap).
pub fn sat_separation(a: &Body, b: &Body) -> f64 {
    let (va, vb) = (a.world_vertices(), b.world_vertices());
    let mut axes = a.world_normals();
    axes.extend(b.world_normals());
    for (p, q) in a.world_edges() {
        for (r, s) in b.world_edges() {
            let c = (q - p).cross(s - r);
            if c.length_squared() > 1e-18 {
                axes.push(c.normalize());
            }
        }
    }
    axes.iter()
        .map(|ax| {
            let (amin, amax) = va
                .iter()
                .map(|v| v.dot(*ax))
                .fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(x), h.max(x)));
            let (bmin, bmax) = vb
                .iter()
                .map(|v| v.dot(*ax))
                .fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(x), h.max(x)));
            (bmin - amax).max(amin - bmax)
        })
        .fold(f64::MIN, f64::max)
}

pub fn brute_distance(a: &Body, b: &Body) -> f64 {
    if sat_separation(a, b) <= 0.0 {
        return 0.0;
    }
    let mut best = f64::MAX;
    for (x, y) in [(a, b), (b, a)] {
        let tris = y.world_triangles();
        for v in x.world_vertices() {
            for t in &tris {
                best = best.min(point_triangle_distance(v, *t));
            }
        }
    }
    for (p, q) in a.world_edges() {
        for (r, s) in b.world_edges() {
            best = best.min(segment_distance(p, q, r, s));
        }
    }
    best
}

/// Distance between segment `[p, q]` and a triangle, f64 (0 when the
/// segment crosses it).
pub fn segment_triangle_distance(p: DVec3, q: DVec3, t: [DVec3; 3]) -> f64 {
    let [a, b, c] = t;
    let n = (b - a).cross(c - a);
    let (dp, dq) = (n.dot(p - a), n.dot(q - a));
    if n.length_squared() > 0.0 && dp * dq < 0.0 {
        let x = p + (q - p) * (dp / (dp - dq));
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| (v - u).cross(x - u).dot(n) >= 0.0);
        if inside {
            return 0.0;
        }
    }
    let ends = point_triangle_distance(p, t).min(point_triangle_distance(q, t));
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(u, v)| segment_distance(p, q, u, v))
        .fold(ends, f64::min)
}

/// Distance between segment `[p, q]` and a convex body's solid, f64.
pub fn segment_body_distance(p: DVec3, q: DVec3, body: &Body) -> f64 {
    let tris = body.world_triangles();
    let inside = |x: DVec3| {
        tris.iter()
            .all(|&[a, b, c]| (b - a).cross(c - a).dot(x - a) <= 0.0)
    };
    if inside(p) || inside(q) {
        return 0.0;
    }
    tris.iter()
        .map(|&t| segment_triangle_distance(p, q, t))
        .fold(f64::MAX, f64::min)
}

/// The world's narrow phase, serial (`None`) or split over `n` scoped
/// threads.
pub fn narrow_phase(world: &mut bevy_icollide::world::CollisionWorld, tasks: Option<usize>) {
    match tasks {
        None => world.update_narrow_phase(),
        Some(n) => world.update_narrow_phase_with(n, |list| {
            std::thread::scope(|s| {
                for task in list {
                    s.spawn(move || task.run());
                }
            });
        }),
    }
}
