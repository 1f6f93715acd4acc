//! Convex–convex queries against brute force (f64): distance = the minimum
//! over all vertex–triangle and edge–edge pairs; intersection = the separating
//! axis test over all face normals and edge-direction cross products.

use bevy_icollide::math::Pose;
use bevy_icollide::narrow_phase::lin_canny::{self, ClosestFeatures};
use bevy_icollide::scenes::Rng;
use bevy_icollide::shape::{ConvexPolytope, SharedShape};
use glam::{DVec3, Quat, Vec3};

struct Body {
    shape: SharedShape,
    pose: Pose,
}

impl Body {
    fn poly(&self) -> &ConvexPolytope {
        self.shape.polytope().expect("convex")
    }
    fn world_vertices(&self) -> Vec<DVec3> {
        self.poly()
            .vertices()
            .iter()
            .map(|v| self.pose.transform_point(*v).as_dvec3())
            .collect()
    }
    fn world_triangles(&self) -> Vec<[DVec3; 3]> {
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
    fn world_edges(&self) -> Vec<(DVec3, DVec3)> {
        let p = self.poly();
        p.edges()
            .iter()
            .map(|e| {
                let f = |i: u32| self.pose.transform_point(p.vertex(i)).as_dvec3();
                (f(e.v[0]), f(e.v[1]))
            })
            .collect()
    }
    fn world_normals(&self) -> Vec<DVec3> {
        self.poly()
            .faces()
            .iter()
            .map(|f| (self.pose.rotation * f.normal).as_dvec3())
            .collect()
    }
    /// Largest signed distance of a world point to the face planes.
    fn outside_by(&self, p: Vec3) -> f32 {
        let local = self.pose.inverse().transform_point(p);
        let poly = self.poly();
        (0..poly.faces().len() as u32)
            .map(|f| poly.face_distance(f, local))
            .fold(f32::MIN, f32::max)
    }
}

fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let d = b - a;
    let t = if d.length_squared() > 0.0 {
        ((p - a).dot(d) / d.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    a + d * t
}

fn segment_distance(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> f64 {
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

fn point_triangle_distance(p: DVec3, [a, b, c]: [DVec3; 3]) -> f64 {
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
fn sat_separation(a: &Body, b: &Body) -> f64 {
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

fn brute_distance(a: &Body, b: &Body) -> f64 {
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

fn random_body(rng: &mut Rng, size: f32) -> Body {
    let n = 4 + rng.below(40);
    let on_sphere = rng.below(2) == 0;
    loop {
        let pts: Vec<Vec3> = (0..n)
            .map(|_| {
                if on_sphere {
                    rng.unit_vector() * size
                } else {
                    rng.in_cube(size)
                }
            })
            .collect();
        if let Ok(shape) = SharedShape::convex_hull(&pts) {
            return Body {
                shape,
                pose: Pose::new(rng.rotation(), Vec3::ZERO),
            };
        }
    }
}

fn query(a: &Body, b: &Body, start: Option<[bevy_icollide::shape::Feature; 2]>) -> ClosestFeatures {
    lin_canny::walk(a.poly(), &a.pose, b.poly(), &b.pose, start).expect("walk converged")
}

fn check(a: &Body, b: &Body, r: &ClosestFeatures, size: f32, what: &str) {
    let want = brute_distance(a, b);
    let sep = sat_separation(a, b);
    let tol = 1e-4 * size as f64;
    assert!(
        (r.distance as f64 - want).abs() <= tol,
        "{what}: distance {} vs brute force {want}",
        r.distance
    );
    if sep.abs() > 1e-5 * size as f64 {
        assert_eq!(
            r.intersecting,
            sep < 0.0,
            "{what}: intersecting {} but SAT separation {sep}",
            r.intersecting
        );
    }
    if !r.intersecting {
        let t = 1e-4 * size;
        assert!(
            a.outside_by(r.point_a).abs() <= t,
            "{what}: point_a not on A ({})",
            a.outside_by(r.point_a)
        );
        assert!(
            b.outside_by(r.point_b).abs() <= t,
            "{what}: point_b not on B ({})",
            b.outside_by(r.point_b)
        );
        assert!(
            (r.point_a.distance(r.point_b) - r.distance).abs() <= t,
            "{what}: points not `distance` apart"
        );
    }
}

#[test]
fn random_pairs_match_brute_force() {
    let mut rng = Rng::new(42);
    let (mut intersecting, mut steps) = (0, 0);
    let n = 3000;
    for i in 0..n {
        let mut a = random_body(&mut rng, 1.0);
        let mut b = random_body(&mut rng, 1.0);
        a.pose.translation = rng.in_cube(0.3);
        b.pose.translation = a.pose.translation + rng.unit_vector() * rng.range(0.0, 2.5);
        let r = query(&a, &b, None);
        check(&a, &b, &r, 1.0, &format!("pair {i}"));
        intersecting += usize::from(r.intersecting);
        steps += r.iterations;
    }
    assert!(
        intersecting > n / 5 && intersecting < n * 4 / 5,
        "{intersecting} of {n} intersect"
    );
    eprintln!("cold walks: {:.2} steps per query", steps as f64 / n as f64);
}

#[test]
fn coherent_motion_through_contact_stays_exact() {
    let mut rng = Rng::new(7);
    for seq in 0..6 {
        let a = random_body(&mut rng, 1.0);
        let mut b = random_body(&mut rng, 1.0);
        let dir = rng.unit_vector();
        let spin = Quat::from_axis_angle(rng.unit_vector(), 1f32.to_radians());
        let mut cache = None;
        let (mut steps, mut states) = (0, [0usize; 2]);
        for step in 0..2000 {
            // From 3 apart, through each other, and out the other side.
            let s = 3.0 - 6.0 * step as f32 / 2000.0;
            b.pose = Pose::new((spin * b.pose.rotation).normalize(), dir * s);
            let r = query(&a, &b, cache);
            if step % 4 == 0 {
                check(&a, &b, &r, 1.0, &format!("sequence {seq}, step {step}"));
            }
            cache = Some(r.features);
            steps += r.iterations;
            states[usize::from(r.intersecting)] += 1;
        }
        assert!(
            states[0] > 100 && states[1] > 100,
            "the path must pass through contact: {states:?}"
        );
        let mean = steps as f64 / 2000.0;
        assert!(
            mean < 4.0,
            "coherent walks should take a few steps, took {mean}"
        );
    }
}

fn cube(half: f32) -> SharedShape {
    SharedShape::cuboid(Vec3::splat(half)).expect("cube")
}

#[test]
fn degenerate_configurations() {
    let c = |t: Vec3, q: Quat| Body {
        shape: cube(0.5),
        pose: Pose::new(q, t),
    };
    let id = Quat::IDENTITY;
    let cases = [
        (
            "parallel faces",
            c(Vec3::ZERO, id),
            c(Vec3::new(0.0, 1.25, 0.0), id),
            0.25,
        ),
        (
            "exactly touching faces",
            c(Vec3::ZERO, id),
            c(Vec3::new(0.0, 1.0, 0.0), id),
            0.0,
        ),
        ("identical", c(Vec3::ZERO, id), c(Vec3::ZERO, id), 0.0),
        (
            "offset parallel faces",
            c(Vec3::ZERO, id),
            c(Vec3::new(0.7, 1.5, 0.3), id),
            0.5,
        ),
        (
            "edge on edge crossing",
            c(
                Vec3::ZERO,
                Quat::from_rotation_x(std::f32::consts::FRAC_PI_4),
            ),
            c(
                Vec3::new(0.0, 2.0f32.sqrt() + 0.1, 0.0),
                Quat::from_rotation_z(std::f32::consts::FRAC_PI_4) * Quat::from_rotation_x(0.0),
            ),
            -1.0,
        ),
        (
            "vertex on face",
            c(Vec3::ZERO, id),
            c(
                Vec3::new(0.0, 0.5 + 3.0f32.sqrt() / 2.0, 0.0),
                Quat::from_rotation_arc(Vec3::ONE.normalize(), Vec3::Y),
            ),
            0.0,
        ),
    ];
    for (what, a, b, want) in cases {
        let r = query(&a, &b, None);
        if want >= 0.0 {
            assert!(
                (r.distance - want).abs() < 1e-4,
                "{what}: {} != {want}",
                r.distance
            );
        }
        check(&a, &b, &r, 1.0, what);
    }
}

#[test]
fn huge_and_tiny_scales() {
    for scale in [1e-3f32, 1e3] {
        let mut rng = Rng::new(9);
        for i in 0..300 {
            let mut a = random_body(&mut rng, scale);
            let mut b = random_body(&mut rng, scale);
            a.pose.translation = rng.in_cube(0.3 * scale) + Vec3::splat(10.0 * scale);
            b.pose.translation =
                a.pose.translation + rng.unit_vector() * rng.range(0.0, 2.5) * scale;
            let r = query(&a, &b, None);
            check(&a, &b, &r, scale, &format!("scale {scale}, pair {i}"));
        }
    }
}
