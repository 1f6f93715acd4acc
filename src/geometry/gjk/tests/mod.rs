use crate::shape::ConvexHull;
use crate::testkit as reference;
use glam::{DVec3, Quat, Vec3};

use crate::geometry::epa::penetration;
use crate::geometry::gjk::{GjkCache, GjkResult, gjk_distance, gjk_intersect};
use crate::geometry::support::{Cuboid, HullSupport, Sphere, SupportMap, VertexAdjacency};
use crate::math::Pose;
use crate::testkit::Rng;
use reference::{Poly, dpose};

impl VertexAdjacency for ConvexHull {
    fn neighbors(&self, v: u32) -> &[u32] {
        ConvexHull::neighbors(self, v)
    }
}

/// A test shape: hull, sphere or box (with its hull for the reference).
enum Shape {
    Hull(ConvexHull),
    Ball(Sphere),
    Box(Cuboid, ConvexHull),
}

impl SupportMap for Shape {
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        match self {
            Shape::Hull(h) => HullSupport::new(h.vertices(), h).support(dir, hint),
            Shape::Ball(s) => s.support(dir, hint),
            Shape::Box(c, _) => c.support(dir, hint),
        }
    }
    fn margin(&self) -> f32 {
        match self {
            Shape::Ball(s) => s.margin(),
            _ => 0.0,
        }
    }
    fn core_support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        match self {
            Shape::Ball(s) => s.core_support(dir, hint),
            _ => self.support(dir, hint),
        }
    }
}

impl Shape {
    fn cuboid(he: Vec3) -> Shape {
        let pts = crate::math::Aabb::new(-he, he).corners();
        Shape::Box(Cuboid::new(he), ConvexHull::new(&pts).unwrap())
    }

    fn hull(&self) -> Option<&ConvexHull> {
        match self {
            Shape::Hull(h) | Shape::Box(_, h) => Some(h),
            Shape::Ball(_) => None,
        }
    }

    /// Bounding radius about the local origin.
    fn radius(&self) -> f32 {
        match self {
            Shape::Ball(s) => s.center.length() + s.radius,
            _ => self
                .hull()
                .unwrap()
                .vertices()
                .iter()
                .fold(0.0f32, |m, v| m.max(v.length())),
        }
    }

    fn poly(&self, pose: &Pose) -> Option<Poly> {
        self.hull()
            .map(|h| Poly::new(h.vertices(), h.triangles(), pose))
    }

    /// World center and radius of a ball.
    fn ball(&self, pose: &Pose) -> Option<(DVec3, f64)> {
        match self {
            Shape::Ball(s) => {
                let (q, t) = dpose(pose);
                Some((q * s.center.as_dvec3() + t, s.radius as f64))
            }
            _ => None,
        }
    }

    /// How far `p` (world) lies outside the shape (<= 0 inside; face-plane
    /// distance for polytopes).
    fn outside(&self, pose: &Pose, p: Vec3) -> f64 {
        let p = p.as_dvec3();
        match self.ball(pose) {
            Some((c, r)) => (p - c).length() - r,
            None => self.poly(pose).unwrap().plane_dist(p),
        }
    }
}

fn random_hull(rng: &mut Rng, scale: f32) -> Shape {
    random_hull_n(rng, scale, 60)
}

/// Hull of 8..=max_points random points in a stretched cube or on a stretched sphere.
fn random_hull_n(rng: &mut Rng, scale: f32, max_points: usize) -> Shape {
    let n = rng.usize(8, max_points + 1);
    let on_sphere = rng.bool();
    let stretch = Vec3::new(
        rng.range(0.4, 1.0),
        rng.range(0.4, 1.0),
        rng.range(0.4, 1.0),
    );
    let pts: Vec<Vec3> = (0..n)
        .map(|_| {
            let p = if on_sphere {
                rng.unit_vector()
            } else {
                rng.in_cube(1.0)
            };
            p * stretch * scale
        })
        .collect();
    Shape::Hull(ConvexHull::new(&pts).unwrap())
}

fn random_shape(rng: &mut Rng, scale: f32, analytic: bool) -> Shape {
    if !analytic {
        return random_hull(rng, scale);
    }
    match rng.usize(0, 3) {
        0 => random_hull(rng, scale),
        1 => Shape::Ball(Sphere::new(Vec3::ZERO, rng.range(0.3, 1.0) * scale)),
        _ => Shape::cuboid(
            Vec3::new(
                rng.range(0.2, 1.0),
                rng.range(0.2, 1.0),
                rng.range(0.2, 1.0),
            ) * scale,
        ),
    }
}

/// Reference signed overlap: the penetration depth when positive, negative
/// when separated (for polytope pairs only the sign is meaningful then).
fn signed_overlap(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> f64 {
    match (a.ball(pa), b.ball(pb)) {
        (Some((c1, r1)), Some((c2, r2))) => r1 + r2 - (c1 - c2).length(),
        (Some((c, r)), None) => ball_poly_overlap(c, r, &b.poly(pb).unwrap()),
        (None, Some((c, r))) => ball_poly_overlap(c, r, &a.poly(pa).unwrap()),
        (None, None) => reference::sat(&a.poly(pa).unwrap(), &b.poly(pb).unwrap()).0,
    }
}

fn ball_poly_overlap(c: DVec3, r: f64, poly: &Poly) -> f64 {
    let inside = poly.plane_dist(c);
    if inside <= 0.0 {
        r - inside
    } else {
        r - poly.point_dist(c)
    }
}

/// Reference distance (0 when intersecting).
fn ref_distance(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> f64 {
    match (a.ball(pa), b.ball(pb)) {
        (Some((c1, r1)), Some((c2, r2))) => ((c1 - c2).length() - r1 - r2).max(0.0),
        (Some((c, r)), None) => (b.poly(pb).unwrap().point_dist(c) - r).max(0.0),
        (None, Some((c, r))) => (a.poly(pa).unwrap().point_dist(c) - r).max(0.0),
        (None, None) => {
            let (p, q) = (a.poly(pa).unwrap(), b.poly(pb).unwrap());
            if reference::sat(&p, &q).0 > 0.0 {
                0.0
            } else {
                reference::distance(&p, &q)
            }
        }
    }
}

fn translated(p: &Pose, d: Vec3) -> Pose {
    Pose::new(p.rotation, p.translation + d)
}

#[derive(Default, Debug)]
struct Stats {
    pairs: usize,
    intersecting: usize,
    touching: usize,
    epa: usize,
    max_dist_err: f64,
    max_depth_err: f64,
    last_sig: f64,
}

/// Runs distance, intersect and penetration on one configuration and checks
/// them against the reference. `depth_tol` is relative to `size`.
#[allow(clippy::too_many_arguments)]
fn check_pair(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    cache: &mut GjkCache,
    depth_tol: f64,
    stats: &mut Stats,
    ctx: &str,
) -> GjkResult {
    let size = a.radius().max(b.radius()) as f64;
    let tol = 1e-4 * size;
    stats.pairs += 1;
    let res = gjk_distance(a, pa, b, pb, cache);
    assert!(
        res.distance.is_finite() && res.point_a.is_finite() && res.point_b.is_finite(),
        "{ctx}: non-finite {res:?}"
    );
    let sig = signed_overlap(a, pa, b, pb);
    stats.last_sig = sig;
    let touching = sig.abs() <= 1e-5 * size;
    stats.touching += touching as usize;
    stats.intersecting += (sig > 0.0) as usize;
    if !touching {
        assert_eq!(
            res.intersecting,
            sig > 0.0,
            "{ctx}: gjk_distance intersect flag, sig {sig} {res:?}"
        );
        let hit = gjk_intersect(a, pa, b, pb, &mut GjkCache::new());
        assert_eq!(hit, sig > 0.0, "{ctx}: gjk_intersect, sig {sig}");
    }
    // Witness points lie on their shapes and are `distance` apart.
    let oa = a.outside(pa, res.point_a);
    let ob = b.outside(pb, res.point_b);
    assert!(
        oa <= tol && ob <= tol,
        "{ctx}: witnesses off shapes {oa} {ob} {res:?}"
    );
    let gap = (res.point_a - res.point_b).length() as f64;
    assert!(
        (gap - res.distance as f64).abs() <= tol,
        "{ctx}: witness gap {gap} vs {res:?}"
    );
    if !res.intersecting {
        let exact = ref_distance(a, pa, b, pb);
        let err = (exact - res.distance as f64).abs();
        stats.max_dist_err = stats.max_dist_err.max(err / size);
        assert!(
            err <= tol,
            "{ctx}: distance {} vs exact {exact}",
            res.distance
        );
    }
    let pen = penetration(a, pa, b, pb, cache);
    assert_eq!(pen.is_some(), res.intersecting, "{ctx}: penetration vs gjk");
    if let Some(p) = pen {
        stats.epa += 1;
        assert!(p.depth.is_finite() && p.normal.is_finite(), "{ctx}: {p:?}");
        assert!(
            (p.normal.length() - 1.0).abs() < 1e-4,
            "{ctx}: normal {p:?}"
        );
        assert!(p.depth >= 0.0);
        let dt = depth_tol * size;
        if sig > 0.0 {
            let err = (p.depth as f64 - sig).abs();
            stats.max_depth_err = stats.max_depth_err.max(err / size);
            assert!(err <= dt, "{ctx}: depth {} vs reference {sig}", p.depth);
        }
        if !touching {
            assert!(p.depth > 0.0, "{ctx}: {p:?}");
            let step = (p.depth as f64 + dt) as f32 * p.normal;
            let s = signed_overlap(a, pa, b, &translated(pb, step));
            assert!(
                s < 0.0,
                "{ctx}: still overlapping by {s} after depth+tol {p:?}"
            );
            if p.depth as f64 > 2.0 * dt {
                let step = (p.depth as f64 - dt) as f32 * p.normal;
                let s = signed_overlap(a, pa, b, &translated(pb, step));
                assert!(s > 0.0, "{ctx}: separated ({s}) before depth-tol {p:?}");
            }
        }
        let (oa, ob) = (a.outside(pa, p.point_a), b.outside(pb, p.point_b));
        assert!(
            oa <= tol && ob <= tol,
            "{ctx}: contact points off shapes {oa} {ob} {p:?}"
        );
        let d = p.point_a - p.point_b - p.depth * p.normal;
        assert!(
            (d.length() as f64) <= 10.0 * tol,
            "{ctx}: contact points vs depth {p:?}"
        );
    }
    res
}

fn random_pairs(seed: u64, count: usize, scale: f32, analytic: bool) -> Stats {
    let mut rng = Rng::new(seed);
    let mut stats = Stats::default();
    let origin_spread = 5.0 * scale;
    for i in 0..count {
        let a = random_shape(&mut rng, scale, analytic);
        let b = random_shape(&mut rng, scale, analytic);
        let pa = Pose::new(rng.rotation(), rng.in_cube(1.0) * origin_spread);
        let reach = a.radius() + b.radius();
        let pb = Pose::new(
            rng.rotation(),
            pa.translation + rng.unit_vector() * reach * rng.range(0.0, 1.4),
        );
        let ctx = format!("seed {seed} pair {i}");
        check_pair(
            &a,
            &pa,
            &b,
            &pb,
            &mut GjkCache::new(),
            1e-3,
            &mut stats,
            &ctx,
        );
    }
    eprintln!("seed {seed} scale {scale} analytic {analytic}: {stats:?}");
    assert!(stats.intersecting * 5 > count && stats.intersecting * 5 < 4 * count);
    stats
}

#[test]
fn random_hull_pairs_vs_brute_force() {
    random_pairs(1, 2000, 1.0, false);
}

#[test]
fn random_analytic_pairs_vs_reference() {
    random_pairs(2, 1500, 1.0, true);
}

#[test]
fn huge_scale() {
    random_pairs(3, 300, 1e4, true);
}

#[test]
fn tiny_scale() {
    random_pairs(4, 300, 1e-3, true);
}

#[test]
fn sphere_sphere_exact() {
    let mut rng = Rng::new(5);
    for i in 0..2000 {
        let (r1, r2) = (rng.range(0.1, 2.0), rng.range(0.1, 2.0));
        let a = Sphere::new(rng.in_cube(1.0) * 0.2, r1);
        let b = Sphere::new(rng.in_cube(1.0) * 0.2, r2);
        let pa = Pose::new(rng.rotation(), rng.in_cube(1.0) * 10.0);
        let pb = Pose::new(
            rng.rotation(),
            pa.translation + rng.unit_vector() * rng.range(0.0, 1.2) * (r1 + r2 + 0.7),
        );
        let (ca, cb) = (pa.transform_point(a.center), pb.transform_point(b.center));
        let d = (cb - ca).length();
        let exact = d - r1 - r2;
        let size = r1.max(r2);
        let res = gjk_distance(&a, &pa, &b, &pb, &mut GjkCache::new());
        if exact > 1e-4 * size {
            assert!(!res.intersecting, "{i}");
            assert!(
                (res.distance - exact).abs() <= 1e-4 * size,
                "{i}: {} vs {exact}",
                res.distance
            );
            let dir = (cb - ca) / d;
            assert!(
                (res.point_a - (ca + dir * r1)).length() <= 1e-2 * size,
                "{i}: {res:?}"
            );
        } else if exact < -1e-4 * size {
            assert!(res.intersecting, "{i}");
            let p = penetration(&a, &pa, &b, &pb, &mut GjkCache::new()).unwrap();
            assert!(
                (p.depth + exact).abs() <= 2e-3 * size,
                "{i}: depth {} vs {}",
                p.depth,
                -exact
            );
            if d > 1e-2 * size {
                let dir = (cb - ca) / d;
                assert!(p.normal.dot(dir) > 0.99, "{i}: normal {p:?} vs {dir}");
            }
        }
    }
}

#[test]
fn concentric_spheres() {
    let a = Sphere::new(Vec3::ZERO, 1.0);
    let b = Sphere::new(Vec3::ZERO, 0.5);
    let p = Pose::new(Quat::from_rotation_y(0.3), Vec3::new(3.0, -2.0, 1.0));
    let res = gjk_distance(&a, &p, &b, &p, &mut GjkCache::new());
    assert!(res.intersecting && res.distance == 0.0);
    let pen = penetration(&a, &p, &b, &p, &mut GjkCache::new()).unwrap();
    // EPA on a sphere converges slowly when all directions are equally deep.
    assert!(pen.depth <= 1.5 + 1e-4 && pen.depth > 1.5 * 0.97, "{pen:?}");
}

/// Coherent motion through contact and penetration and out again.
fn coherent(seed: u64, kind: usize) -> (f64, f64, f64, f64) {
    let mut rng = Rng::new(seed);
    let a = random_hull_n(&mut rng, 1.0, 24);
    let b = match kind {
        0 => random_hull_n(&mut rng, 0.8, 24),
        1 => Shape::cuboid(Vec3::new(0.7, 0.4, 0.3)),
        _ => Shape::Ball(Sphere::new(Vec3::ZERO, 0.5)),
    };
    let pa = Pose::new(rng.rotation(), Vec3::new(1.0, 2.0, 3.0));
    let dir = rng.unit_vector();
    let side = dir.any_orthonormal_vector() * rng.range(0.0, 0.5);
    let reach = 1.2 * (a.radius() + b.radius());
    let axis = rng.unit_vector();
    let q0 = rng.rotation();
    let steps = 2000;
    let mut warm = GjkCache::new();
    let mut warm_hit = GjkCache::new();
    let mut stats = Stats::default();
    let (mut wi, mut ci, mut ws, mut cs) = (0u64, 0u64, 0u64, 0u64);
    for k in 0..steps {
        let t = k as f32 / (steps - 1) as f32;
        let pb = Pose::new(
            Quat::from_axis_angle(axis, 2.0 * t) * q0,
            pa.translation + side + dir * reach * (2.0 * t - 1.0),
        );
        let ctx = format!("coherent seed {seed} step {k}");
        let cold = gjk_distance(&a, &pa, &b, &pb, &mut GjkCache::new());
        let w = check_pair(&a, &pa, &b, &pb, &mut warm, 2e-3, &mut stats, &ctx);
        assert!(
            (w.distance - cold.distance).abs() <= 1e-4 * reach,
            "{ctx}: warm {w:?} cold {cold:?}"
        );
        let hit = gjk_intersect(&a, &pa, &b, &pb, &mut warm_hit);
        let sig = stats.last_sig;
        if sig.abs() > 1e-5 {
            assert_eq!(hit, sig > 0.0, "{ctx}");
        }
        // check_pair ran penetration after the distance query on the warm cache;
        // measure the warm distance query cost on a fresh step-to-step basis.
        wi += w.iterations as u64;
        ws += w.support_calls as u64;
        ci += cold.iterations as u64;
        cs += cold.support_calls as u64;
    }
    assert!(
        stats.intersecting > 100 && stats.intersecting < steps - 100,
        "{stats:?}"
    );
    let n = steps as f64;
    let r = (wi as f64 / n, ci as f64 / n, ws as f64 / n, cs as f64 / n);
    eprintln!(
        "coherent seed {seed} kind {kind}: iterations warm {:.2} cold {:.2}; support calls warm {:.2} cold {:.2}; {stats:?}",
        r.0, r.1, r.2, r.3
    );
    r
}

#[test]
fn coherent_sequences_warm_start() {
    let mut tot = [0.0; 4];
    for (seed, kind) in [(10, 0), (11, 1), (12, 2), (13, 0)] {
        let r = coherent(seed, kind);
        assert!(r.0 <= r.1, "warm iterations {} > cold {}", r.0, r.1);
        tot[0] += r.0;
        tot[1] += r.1;
        tot[2] += r.2;
        tot[3] += r.3;
    }
    eprintln!(
        "coherent overall mean: iterations warm {:.2} cold {:.2}; support calls warm {:.2} cold {:.2}",
        tot[0] / 4.0,
        tot[1] / 4.0,
        tot[2] / 4.0,
        tot[3] / 4.0
    );
    assert!(tot[0] < tot[1]);
}

#[test]
fn warm_start_small_perturbation() {
    let mut rng = Rng::new(20);
    let (mut warm, mut cold) = (0u64, 0u64);
    let n = 1000;
    for _ in 0..n {
        let a = random_hull(&mut rng, 1.0);
        let b = random_hull(&mut rng, 1.0);
        let pa = Pose::new(rng.rotation(), rng.in_cube(1.0));
        let pb = Pose::new(
            rng.rotation(),
            pa.translation + rng.unit_vector() * rng.range(0.0, 2.5),
        );
        let mut cache = GjkCache::new();
        gjk_distance(&a, &pa, &b, &pb, &mut cache);
        let pb2 = Pose::new(
            Quat::from_axis_angle(rng.unit_vector(), 0.01) * pb.rotation,
            pb.translation + rng.in_cube(1.0) * 0.01,
        );
        let w = gjk_distance(&a, &pa, &b, &pb2, &mut cache);
        let c = gjk_distance(&a, &pa, &b, &pb2, &mut GjkCache::new());
        assert!((w.distance - c.distance).abs() < 1e-4);
        warm += w.iterations as u64;
        cold += c.iterations as u64;
    }
    eprintln!(
        "perturbed second call: iterations warm {:.2} cold {:.2}",
        warm as f64 / n as f64,
        cold as f64 / n as f64
    );
    assert!(warm < cold);
}

#[test]
fn identical_shapes_identical_poses() {
    let mut rng = Rng::new(30);
    let mut stats = Stats::default();
    for i in 0..50 {
        let a = random_shape(&mut rng, 1.0, true);
        let p = Pose::new(rng.rotation(), rng.in_cube(1.0) * 3.0);
        check_pair(
            &a,
            &p,
            &a,
            &p,
            &mut GjkCache::new(),
            1e-3,
            &mut stats,
            &format!("identical {i}"),
        );
    }
    let he = Vec3::new(0.3, 0.7, 1.1);
    let a = Shape::cuboid(he);
    let p = Pose::new(Quat::from_rotation_x(0.4), Vec3::new(1.0, 2.0, 3.0));
    let pen = penetration(&a, &p, &a, &p, &mut GjkCache::new()).unwrap();
    assert!((pen.depth - 0.6).abs() < 1e-4, "{pen:?}");
    assert!(
        pen.normal.dot(p.rotation * Vec3::X).abs() > 0.9999,
        "{pen:?}"
    );
}

fn boxes_case(pa: Pose, pb: Pose, he_a: Vec3, he_b: Vec3, ctx: &str) -> GjkResult {
    let (a, b) = (Shape::cuboid(he_a), Shape::cuboid(he_b));
    let mut stats = Stats::default();
    check_pair(
        &a,
        &pa,
        &b,
        &pb,
        &mut GjkCache::new(),
        1e-3,
        &mut stats,
        ctx,
    )
}

#[test]
fn face_to_face_parallel() {
    for gap in [0.1f32, 1e-3, 1e-7, 0.0, -1e-7, -1e-3, -0.1] {
        for twist in [0.0f32, 0.3, std::f32::consts::FRAC_PI_4] {
            let pa = Pose::IDENTITY;
            let pb = Pose::new(
                Quat::from_rotation_z(twist),
                Vec3::new(0.2, -0.1, 1.5 + gap),
            );
            let (ha, hb) = (Vec3::ONE, Vec3::splat(0.5));
            let r = boxes_case(pa, pb, ha, hb, &format!("face gap {gap} twist {twist}"));
            assert!((r.distance - gap.max(0.0)).abs() < 1e-5, "{gap}: {r:?}");
            let pen = penetration(
                &Cuboid::new(ha),
                &pa,
                &Cuboid::new(hb),
                &pb,
                &mut GjkCache::new(),
            );
            if gap < -1e-6 {
                let p = pen.unwrap();
                assert!(
                    (p.depth + gap).abs() < 1e-5 && p.normal.z > 0.9999,
                    "{gap}: {p:?}"
                );
            }
            if let Some(p) = pen {
                assert!(
                    p.depth.is_finite() && p.depth <= (-gap).max(0.0) + 1e-5,
                    "{p:?}"
                );
            }
        }
    }
}

#[test]
fn edge_on_edge_crossing() {
    let s2 = std::f32::consts::SQRT_2;
    for gap in [0.1f32, 1e-4, 0.0, -1e-4, -0.1] {
        let pa = Pose::new(
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_4),
            Vec3::ZERO,
        );
        let pb = Pose::new(
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_4),
            Vec3::new(0.0, 0.0, 2.0 * s2 + gap),
        );
        let r = boxes_case(pa, pb, Vec3::ONE, Vec3::ONE, &format!("edge gap {gap}"));
        assert!((r.distance - gap.max(0.0)).abs() < 1e-5, "{gap}: {r:?}");
        if gap < 0.0 {
            let p = penetration(
                &Cuboid::new(Vec3::ONE),
                &pa,
                &Cuboid::new(Vec3::ONE),
                &pb,
                &mut GjkCache::new(),
            )
            .unwrap();
            assert!(
                (p.depth + gap).abs() < 1e-5 && p.normal.z > 0.9999,
                "{gap}: {p:?}"
            );
        }
    }
}

#[test]
fn vertex_on_face() {
    let tet = ConvexHull::new(&[
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, 0.5),
        Vec3::new(-0.5, 0.8, 0.5),
        Vec3::new(-0.5, -0.8, 0.5),
    ])
    .unwrap();
    let b = Shape::Hull(tet);
    let a = Shape::cuboid(Vec3::ONE);
    for gap in [1e-2f32, 1e-5, 0.0, -1e-5, -1e-2] {
        let pa = Pose::IDENTITY;
        let pb = Pose::from_translation(Vec3::new(0.1, 0.2, 2.0 + gap));
        let mut stats = Stats::default();
        let r = check_pair(
            &a,
            &pa,
            &b,
            &pb,
            &mut GjkCache::new(),
            1e-3,
            &mut stats,
            &format!("vertex gap {gap}"),
        );
        assert!((r.distance - gap.max(0.0)).abs() < 1e-5, "{gap}: {r:?}");
        if gap > 0.0 {
            assert!(
                (r.point_b - Vec3::new(0.1, 0.2, 1.0 + gap)).length() < 1e-4,
                "{r:?}"
            );
        }
    }
}

#[test]
fn exactly_touching_no_nan() {
    let mut rng = Rng::new(40);
    let a = Cuboid::new(Vec3::new(1.0, 2.0, 3.0));
    for i in 0..500 {
        // A sphere touching the box at a random point of its surface.
        let n = rng.unit_vector();
        let p_box = a.support(n, &mut 0);
        let r = rng.range(0.01, 2.0);
        let b = Sphere::new(Vec3::ZERO, r);
        let pa = Pose::new(rng.rotation(), rng.in_cube(1.0) * 100.0);
        // p_box is a corner (n is in its normal cone): the ball centred at
        // p_box + r n touches the box exactly there.
        let pb = Pose::from_translation(pa.transform_point(p_box) + pa.transform_vector(n) * r);
        let mut cache = GjkCache::new();
        let res = gjk_distance(&a, &pa, &b, &pb, &mut cache);
        assert!(
            res.distance.is_finite() && res.point_a.is_finite() && res.point_b.is_finite(),
            "{i}"
        );
        assert!(res.distance <= 1e-4 * 4.0, "{i}: {res:?}");
        if let Some(p) = penetration(&a, &pa, &b, &pb, &mut cache) {
            assert!(p.depth.is_finite() && p.normal.is_finite() && p.point_a.is_finite());
            assert!(p.depth <= 1e-3, "{i}: {p:?}");
        }
        // Touching hulls: identical boxes stacked exactly.
        let c = Cuboid::new(Vec3::splat(r));
        let pc = Pose::new(
            pa.rotation,
            pa.transform_point(Vec3::new(0.0, 0.0, 3.0 + r)),
        );
        let res = gjk_distance(&a, &pa, &c, &pc, &mut cache);
        assert!(
            res.distance.is_finite() && res.distance <= 1e-4,
            "{i}: {res:?}"
        );
        if let Some(p) = penetration(&a, &pa, &c, &pc, &mut cache) {
            assert!(p.depth.is_finite() && p.depth <= 1e-3, "{i}: {p:?}");
        }
    }
}

#[test]
fn dyn_dispatch_and_point_set() {
    let pts = [
        Vec3::new(-1.0, -1.0, -1.0),
        Vec3::new(1.0, -1.0, -1.0),
        Vec3::new(0.0, 1.0, -1.0),
        Vec3::new(0.0, 0.0, 1.0),
    ];
    let a: &dyn SupportMap = &crate::geometry::support::PointSetSupport(&pts);
    let b: &dyn SupportMap = &Sphere::new(Vec3::ZERO, 0.5);
    let pb = Pose::from_translation(Vec3::new(0.0, 0.0, 2.0));
    let r = gjk_distance(a, &Pose::IDENTITY, b, &pb, &mut GjkCache::new());
    assert!((r.distance - 0.5).abs() < 1e-5, "{r:?}");
    let pb = Pose::from_translation(Vec3::new(0.0, 0.0, 1.25));
    let p = penetration(a, &Pose::IDENTITY, b, &pb, &mut GjkCache::new()).unwrap();
    assert!(
        (p.depth - 0.25).abs() < 1e-5 && p.normal.z > 0.9999,
        "{p:?}"
    );
    assert!(gjk_intersect(
        a,
        &Pose::IDENTITY,
        b,
        &pb,
        &mut GjkCache::new()
    ));
}
