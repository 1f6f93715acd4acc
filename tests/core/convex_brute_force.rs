//! Convex–convex queries against brute force (f64): distance = the minimum
//! over all vertex–triangle and edge–edge pairs; intersection = the separating
//! axis test over all face normals and edge-direction cross products.

use crate::common::{Body, brute_distance, sat_separation};
use bevy_icollide::collider::SharedShape;
use bevy_icollide::geometry::epa::penetration;
use bevy_icollide::geometry::gjk::{GjkCache, gjk_distance};
use bevy_icollide::geometry::support::NO_HINT;
use bevy_icollide::math::Pose;
use bevy_icollide::query::lin_canny::{self, ClosestFeatures, ConvexCache};
use bevy_icollide::testkit::Rng;
use glam::{Quat, Vec3};

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

/// Lin–Canny with its fallbacks (cold restart, GJK), as the narrow phase runs it.
fn query(a: &Body, b: &Body, cache: &mut ConvexCache) -> ClosestFeatures {
    lin_canny::closest_features(a.poly(), &a.pose, b.poly(), &b.pose, cache)
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
    let (mut intersecting, mut steps, mut fallbacks) = (0, 0, 0);
    let n = 3000;
    for i in 0..n {
        let mut a = random_body(&mut rng, 1.0);
        let mut b = random_body(&mut rng, 1.0);
        a.pose.translation = rng.in_cube(0.3);
        b.pose.translation = a.pose.translation + rng.unit_vector() * rng.range(0.0, 2.5);
        let r = query(&a, &b, &mut ConvexCache::default());
        fallbacks += usize::from(r.fell_back);
        check(&a, &b, &r, 1.0, &format!("pair {i}"));
        // GJK, an independent method, agrees; EPA's depth is the smallest
        // overlap over all SAT axes (the minimum translation distance).
        let mut cache = GjkCache::default();
        let g = gjk_distance(a.poly(), &a.pose, b.poly(), &b.pose, &mut cache);
        assert!(
            (g.distance - r.distance).abs() <= 1e-4,
            "pair {i}: GJK {} vs Lin-Canny {}",
            g.distance,
            r.distance
        );
        let sep = sat_separation(&a, &b);
        if sep < -1e-4 {
            let p =
                penetration(a.poly(), &a.pose, b.poly(), &b.pose, &mut cache).expect("penetrating");
            assert!(
                (f64::from(p.depth) + sep).abs() <= 1e-3,
                "pair {i}: EPA depth {} vs SAT {}",
                p.depth,
                -sep
            );
            assert!(
                (p.point_a - p.point_b - p.normal * p.depth).length() <= 1e-3,
                "pair {i}: EPA points"
            );
        }
        intersecting += usize::from(r.intersecting);
        steps += r.iterations;
    }
    assert!(
        intersecting > n / 5 && intersecting < n * 4 / 5,
        "{intersecting} of {n} intersect"
    );
    eprintln!(
        "cold walks: {:.2} steps per query, {fallbacks} GJK fallbacks",
        steps as f64 / n as f64
    );
    assert!(
        fallbacks * 100 <= n,
        "{fallbacks} of {n} queries fell back to GJK"
    );
}

#[test]
fn coherent_motion_through_contact_stays_exact() {
    let mut rng = Rng::new(7);
    for seq in 0..6 {
        let a = random_body(&mut rng, 1.0);
        let mut b = random_body(&mut rng, 1.0);
        let dir = rng.unit_vector();
        let spin = Quat::from_axis_angle(rng.unit_vector(), 1f32.to_radians());
        let mut cache = ConvexCache::default();
        let (mut steps, mut states) = (0, [0usize; 2]);
        for step in 0..2000 {
            // From 3 apart, through each other, and out the other side.
            let s = 3.0 - 6.0 * step as f32 / 2000.0;
            b.pose = Pose::new((spin * b.pose.rotation).normalize(), dir * s);
            let r = query(&a, &b, &mut cache);
            if step % 4 == 0 {
                check(&a, &b, &r, 1.0, &format!("sequence {seq}, step {step}"));
            }
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
        let r = query(&a, &b, &mut ConvexCache::default());
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
            let r = query(&a, &b, &mut ConvexCache::default());
            check(&a, &b, &r, scale, &format!("scale {scale}, pair {i}"));
        }
    }
}

/// The first vertex maximizing `d · v` (the scan's tie rule), by brute force.
fn first_argmax(vertices: &[Vec3], d: Vec3) -> u32 {
    let best = vertices
        .iter()
        .map(|v| d.dot(*v))
        .fold(f32::NEG_INFINITY, f32::max);
    vertices
        .iter()
        .position(|v| d.dot(*v) == best)
        .expect("a vertex") as u32
}

/// A hull's support search against a brute-force argmax over its
/// vertices: without a start (the whole-hull scan, `VertexLanes::argmax`)
/// the first maximizing vertex exactly; from every start (the walk) a
/// vertex of the same, largest dot product. Seeded hulls of every size
/// modulo the scan's chunk of eight, coarse coordinates and directions
/// (many exact ties) and duplicated input points, a cube (four- and
/// two-way ties between its corners) and an octagonal prism (eight tied
/// vertices across chunks); axis, diagonal and signed-zero directions.
#[test]
fn hull_support_is_the_brute_force_argmax_ties_included() {
    let mut rng = Rng::new(4343);
    let mut hulls: Vec<Vec<Vec3>> = Vec::new();
    for n in 4..60 {
        let coarse = n % 2 == 0;
        let mut pts: Vec<Vec3> = (0..n)
            .map(|_| {
                let p = rng.in_cube(1.0);
                if coarse { (p * 2.0).round() } else { p }
            })
            .collect();
        pts.push(pts[0]); // a shared (duplicated) point
        hulls.push(pts);
    }
    hulls.push(
        (0..8)
            .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32))
            .collect(),
    );
    hulls.push(
        (0..16)
            .map(|i| {
                let a = (i % 8) as f32 * std::f32::consts::FRAC_PI_4;
                Vec3::new(a.cos(), if i < 8 { -1.0 } else { 1.0 }, a.sin())
            })
            .collect(),
    );
    let fixed = [
        Vec3::X,
        Vec3::NEG_Y,
        Vec3::Z,
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(-1.0, 0.0, -1.0),
        Vec3::new(-0.0, 1.0, 0.0),
        Vec3::ONE,
    ];
    let mut hull_sizes = std::collections::BTreeSet::new();
    for pts in &hulls {
        let Ok(shape) = SharedShape::convex_hull(pts) else {
            continue;
        };
        let poly = shape.polytope().expect("a hull");
        let vertices = poly.vertices();
        hull_sizes.insert(vertices.len() % 8);
        let random = (0..40).map(|_| {
            let d = rng.vec(-2.0, 2.0);
            if rng.bool() { d.round() } else { d }
        });
        for d in fixed.into_iter().chain(random) {
            let best = first_argmax(vertices, d);
            let scanned = poly.support_vertex(d, NO_HINT);
            assert_eq!(scanned, best, "{} vertices, direction {d}", vertices.len());
            let top = d.dot(vertices[best as usize]);
            for start in 0..vertices.len() as u32 {
                let walked = poly.support_vertex(d, start);
                assert_eq!(d.dot(vertices[walked as usize]), top, "from {start}, {d}");
            }
        }
    }
    assert_eq!(
        hull_sizes.len(),
        8,
        "every hull size modulo 8: {hull_sizes:?}"
    );
}
