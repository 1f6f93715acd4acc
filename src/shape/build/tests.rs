//! Tests of the convex hull: random and degenerate inputs, checked for
//! manifoldness, adjacency, containment and extremality.

use super::*;

/// The crate's seeded generator, with the sampling these tests need.
struct Rng(crate::testkit::Rng);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(crate::testkit::Rng::new(seed))
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        self.0.f32()
    }

    /// Uniform in [-1, 1).
    fn signed(&mut self) -> f32 {
        self.0.range(-1.0, 1.0)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.below(n)
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }

    /// Log-uniform size in `lo..=hi`.
    fn size(&mut self, lo: usize, hi: usize) -> usize {
        let t = f64::from(self.unit());
        let s = (lo as f64) * (hi as f64 / lo as f64).powf(t);
        (s.round() as usize).clamp(lo, hi)
    }
}

fn random_cube(rng: &mut Rng, n: usize, scale: f32) -> Vec<Vec3> {
    (0..n)
        .map(|_| Vec3::new(rng.signed(), rng.signed(), rng.signed()) * scale)
        .collect()
}

fn random_sphere(rng: &mut Rng, n: usize, scale: f32) -> Vec<Vec3> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let v = Vec3::new(rng.signed(), rng.signed(), rng.signed());
        let l = v.length();
        if l > 0.1 && l <= 1.0 {
            out.push(v / l * scale);
        }
    }
    out
}

fn scale_of(points: &[Vec3]) -> f64 {
    let m = points
        .iter()
        .fold(Vec3::ZERO, |m, p| m.max(p.abs()))
        .as_dvec3();
    m.x + m.y + m.z
}

/// Test tolerance: about 11 times the hull's `eps`.
fn test_tol(points: &[Vec3]) -> f64 {
    4e-6 * scale_of(points)
}

fn directed_edges(hull: &ConvexHull) -> Vec<(u32, u32)> {
    let mut e: Vec<(u32, u32)> = hull
        .triangles()
        .iter()
        .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
        .collect();
    e.sort_unstable();
    e
}

fn check_manifold(hull: &ConvexHull) {
    let v = hull.vertices().len();
    let f = hull.triangles().len();
    assert!(v >= 4 && f >= 4);
    let mut used = vec![false; v];
    for t in hull.triangles() {
        assert!(t.iter().all(|&i| (i as usize) < v), "index out of range");
        assert!(t[0] != t[1] && t[1] != t[2] && t[2] != t[0]);
        t.iter().for_each(|&i| used[i as usize] = true);
        let [a, b, c] = t.map(|i| hull.vertices()[i as usize].as_dvec3());
        assert!((b - a).cross(c - a).length() > 0.0, "degenerate triangle");
    }
    assert!(used.iter().all(|&u| u), "unused vertex");
    let edges = directed_edges(hull);
    assert!(
        edges.windows(2).all(|w| w[0] != w[1]),
        "edge used twice in one direction"
    );
    for &(a, b) in &edges {
        assert!(edges.binary_search(&(b, a)).is_ok(), "edge without twin");
    }
    let e = edges.len() / 2;
    assert_eq!(e, hull.edge_count());
    assert_eq!(v as i64 - e as i64 + f as i64, 2, "Euler characteristic");
    let mut sorted: Vec<[u32; 3]> = hull
        .vertices()
        .iter()
        .map(|p| p.to_array().map(f32::to_bits))
        .collect();
    sorted.sort_unstable();
    assert!(sorted.windows(2).all(|w| w[0] != w[1]), "duplicate vertex");
}

fn check_adjacency(hull: &ConvexHull) {
    let edges = directed_edges(hull);
    for v in 0..hull.vertices().len() as u32 {
        let nb = hull.neighbors(v);
        assert!(
            nb.windows(2).all(|w| w[0] < w[1]),
            "neighbours not sorted/unique"
        );
        let expected: Vec<u32> = edges.iter().filter(|e| e.0 == v).map(|e| e.1).collect();
        let mut expected = expected;
        expected.sort_unstable();
        assert_eq!(nb, expected.as_slice());
        for &u in nb {
            assert!(
                hull.neighbors(u).binary_search(&v).is_ok(),
                "asymmetric adjacency"
            );
        }
    }
    assert!(hull.neighbors(u32::MAX).is_empty());
}

fn check_containment(points: &[Vec3], hull: &ConvexHull, tol: f64) {
    for t in hull.triangles() {
        let [a, b, c] = t.map(|i| hull.vertices()[i as usize].as_dvec3());
        let n = (b - a).cross(c - a).normalize();
        for p in points {
            let d = n.dot(p.as_dvec3() - a);
            assert!(d <= tol, "point {p} is {d} outside a face (tol {tol})");
        }
    }
}

fn check_extremes(points: &[Vec3], hull: &ConvexHull, tol: f64) {
    let mut dirs = vec![];
    for k in 0..3 {
        let mut d = DVec3::ZERO;
        d[k] = 1.0;
        dirs.extend([d, -d]);
    }
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                dirs.push(DVec3::new(sx, sy, sz).normalize());
            }
        }
    }
    let max_dot = |set: &[Vec3], d: DVec3| {
        set.iter()
            .map(|p| p.as_dvec3().dot(d))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    for d in dirs {
        let diff = max_dot(points, d) - max_dot(hull.vertices(), d);
        assert!(
            diff <= tol,
            "extreme point in direction {d} missing: {diff}"
        );
    }
}

fn check_from_input(points: &[Vec3], hull: &ConvexHull) {
    let mut input: Vec<[u32; 3]> = points
        .iter()
        .map(|p| p.to_array().map(f32::to_bits))
        .collect();
    input.sort_unstable();
    for v in hull.vertices() {
        assert!(input.binary_search(&v.to_array().map(f32::to_bits)).is_ok());
    }
}

fn check_hull(points: &[Vec3], hull: &ConvexHull) {
    let tol = test_tol(points);
    check_manifold(hull);
    check_adjacency(hull);
    check_containment(points, hull, tol);
    check_extremes(points, hull, tol);
    check_from_input(points, hull);
}

fn build_and_check(points: &[Vec3]) -> ConvexHull {
    let hull = ConvexHull::new(points).expect("hull");
    check_hull(points, &hull);
    hull
}

fn seeded_sizes(seed: u64, rng: &mut Rng) -> usize {
    match seed {
        0 => 4,
        1 => 2000,
        _ => rng.size(4, 2000),
    }
}

#[test]
fn random_cube_points() {
    for seed in 0..200 {
        let mut rng = Rng::new(seed);
        let n = seeded_sizes(seed, &mut rng);
        build_and_check(&random_cube(&mut rng, n, 1.0));
    }
}

#[test]
fn random_sphere_points() {
    for seed in 0..200 {
        let mut rng = Rng::new(1000 + seed);
        let n = seeded_sizes(seed, &mut rng);
        let points = random_sphere(&mut rng, n, 1.0);
        let hull = build_and_check(&points);
        // All points are strictly convex and far apart compared with eps.
        if n <= 200 {
            assert_eq!(hull.vertices().len(), n, "seed {seed}");
        }
    }
}

#[test]
fn huge_and_tiny_scales() {
    for seed in 0..20 {
        for scale in [1e6f32, 1e-6] {
            let mut rng = Rng::new(5000 + seed);
            let n = rng.size(4, 500);
            build_and_check(&random_sphere(&mut rng, n, scale));
            let mut pts = random_cube(&mut rng, n, scale);
            pts.iter_mut().for_each(|p| *p += Vec3::splat(3.0 * scale));
            build_and_check(&pts);
        }
    }
}

fn cube_corners() -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            let s = |b: i32| if i & b != 0 { 1.0 } else { -1.0 };
            Vec3::new(s(1), s(2), s(4))
        })
        .collect()
}

fn assert_cube(points: &[Vec3]) {
    let hull = build_and_check(points);
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.triangles().len(), 12);
    assert_eq!(hull.edge_count(), 18);
    for c in cube_corners() {
        assert!(hull.vertices().contains(&c));
    }
}

#[test]
fn cube_with_duplicates_and_face_points() {
    for seed in 0..30 {
        let mut rng = Rng::new(seed);
        let mut pts = Vec::new();
        for _ in 0..5 {
            pts.extend(cube_corners());
        }
        for _ in 0..300 {
            // a point on a face (k fixed to ±1) or on an edge (two fixed)
            let mut p = Vec3::new(rng.signed(), rng.signed(), rng.signed());
            let k = rng.below(3);
            p[k] = if rng.below(2) == 0 { -1.0 } else { 1.0 };
            if rng.below(3) == 0 {
                let j = (k + 1 + rng.below(2)) % 3;
                p[j] = if rng.below(2) == 0 { -1.0 } else { 1.0 };
            }
            pts.push(p);
        }
        pts.extend(random_cube(&mut rng, 100, 0.999));
        rng.shuffle(&mut pts);
        assert_cube(&pts);
    }
}

#[test]
fn grid_on_cube_faces_and_lattice() {
    // a 9x9 grid on each face of the cube
    let mut faces = Vec::new();
    for k in 0..3 {
        for s in [-1.0, 1.0] {
            for i in 0..9 {
                for j in 0..9 {
                    let mut p = Vec3::ZERO;
                    p[k] = s;
                    p[(k + 1) % 3] = i as f32 / 4.0 - 1.0;
                    p[(k + 2) % 3] = j as f32 / 4.0 - 1.0;
                    faces.push(p);
                }
            }
        }
    }
    assert_cube(&faces);
    // a full 7x7x7 lattice, in several orders
    let mut lattice = Vec::new();
    for i in 0..7 {
        for j in 0..7 {
            for k in 0..7 {
                lattice.push(Vec3::new(i as f32, j as f32, k as f32) / 3.0 - 1.0);
            }
        }
    }
    assert_cube(&lattice);
    for seed in 0..10 {
        Rng::new(seed).shuffle(&mut lattice);
        assert_cube(&lattice);
        Rng::new(seed).shuffle(&mut faces);
        assert_cube(&faces);
    }
}

#[test]
fn latitude_longitude_grid_on_sphere() {
    let (rings, segs) = (12, 24);
    let mut pts = Vec::new();
    for r in 1..rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..segs {
            let phi = std::f32::consts::TAU * s as f32 / segs as f32;
            pts.push(Vec3::new(
                theta.sin() * phi.cos(),
                theta.sin() * phi.sin(),
                theta.cos(),
            ));
        }
        // every ring also repeats the poles
        pts.extend([Vec3::Z, -Vec3::Z]);
    }
    for seed in 0..5 {
        Rng::new(seed).shuffle(&mut pts);
        let hull = build_and_check(&pts);
        assert_eq!(hull.vertices().len(), (rings - 1) * segs + 2);
    }
}

/// A 1 x 1 x 1e-6 box: when its points are more than eps (about 7e-7
/// here) from the plane of the initial triangle, a valid, closed, very
/// thin hull that passes every check, in-plane extremes included (small
/// sets may instead be `Coplanar`, which is the only error allowed). A
/// 1e-8 thick box is always `Coplanar`.
#[test]
fn thin_box_builds_a_thin_hull() {
    for seed in 0..100 {
        let mut rng = Rng::new(seed);
        let n = rng.size(4, 500);
        let pts: Vec<Vec3> = (0..n)
            .map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit() * 1e-6))
            .collect();
        let hull = match ConvexHull::new(&pts) {
            Ok(hull) => hull,
            Err(e) => {
                assert_eq!(e, HullError::Coplanar);
                assert!(n < 200, "a large thin box should give a hull");
                continue;
            }
        };
        check_hull(&pts, &hull);
    }
    let mut rng = Rng::new(7);
    let pts: Vec<Vec3> = (0..100)
        .map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit() * 1e-8))
        .collect();
    assert_eq!(ConvexHull::new(&pts).err(), Some(HullError::Coplanar));
}

#[test]
fn degenerate_inputs_are_errors() {
    assert_eq!(ConvexHull::new(&[]).err(), Some(HullError::Empty));
    let mut pts = cube_corners();
    pts[3].y = f32::NAN;
    pts[5].x = f32::INFINITY;
    assert_eq!(
        ConvexHull::new(&pts).err(),
        Some(HullError::NonFinite { index: 3 })
    );
    pts[3].y = 0.0;
    assert_eq!(
        ConvexHull::new(&pts).err(),
        Some(HullError::NonFinite { index: 5 })
    );
    pts[5].x = f32::NEG_INFINITY;
    assert_eq!(
        ConvexHull::new(&pts).err(),
        Some(HullError::NonFinite { index: 5 })
    );

    let p = Vec3::new(1.5, -2.0, 3.25);
    assert_eq!(ConvexHull::new(&[p]).err(), Some(HullError::Coincident));
    assert_eq!(ConvexHull::new(&[p; 50]).err(), Some(HullError::Coincident));
    assert_eq!(
        ConvexHull::new(&[Vec3::ZERO; 3]).err(),
        Some(HullError::Coincident)
    );

    let line: Vec<Vec3> = (0..40)
        .map(|i| Vec3::new(1.0, 2.0, -1.0) * (i % 13) as f32)
        .collect();
    assert_eq!(ConvexHull::new(&line).err(), Some(HullError::Collinear));
    assert_eq!(
        ConvexHull::new(&[Vec3::X, Vec3::Y]).err(),
        Some(HullError::Collinear)
    );

    let mut rng = Rng::new(3);
    let plane: Vec<Vec3> = (0..200)
        .map(|_| {
            let (x, y) = ((rng.below(64) as f32) / 8.0, (rng.below(64) as f32) / 8.0);
            Vec3::new(x, y, x - 2.0 * y)
        })
        .collect();
    assert_eq!(ConvexHull::new(&plane).err(), Some(HullError::Coplanar));
    assert_eq!(
        ConvexHull::new(&[Vec3::X, Vec3::Y, Vec3::Z]).err(),
        Some(HullError::Coplanar)
    );

    for e in [
        HullError::Empty,
        HullError::NonFinite { index: 2 },
        HullError::Coincident,
        HullError::Collinear,
        HullError::Coplanar,
    ] {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn tetrahedron_with_duplicates() {
    let corners = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(0.0, 3.0, 0.0),
        Vec3::new(0.5, 0.5, 4.0),
    ];
    for seed in 0..20 {
        let mut rng = Rng::new(seed);
        let mut pts: Vec<Vec3> = (0..90).map(|i| corners[i % 4]).collect();
        for _ in 0..10 {
            let w = [rng.unit(), rng.unit(), rng.unit(), rng.unit()];
            let s: f32 = w.iter().sum::<f32>() + 0.1;
            pts.push(corners.iter().zip(w).map(|(c, w)| *c * (w / s)).sum());
        }
        rng.shuffle(&mut pts);
        let hull = build_and_check(&pts);
        assert_eq!(hull.vertices().len(), 4);
        assert_eq!(hull.triangles().len(), 4);
        assert_eq!(hull.edge_count(), 6);
    }
}

#[test]
fn cylinder_with_flat_caps() {
    let mut pts = Vec::new();
    for i in 0..64 {
        let a = std::f32::consts::TAU * i as f32 / 64.0;
        for z in [-1.0, 1.0] {
            pts.push(Vec3::new(a.cos(), a.sin(), z));
        }
    }
    pts.extend([Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 1.0)]);
    for seed in 0..10 {
        Rng::new(seed).shuffle(&mut pts);
        let hull = build_and_check(&pts);
        assert_eq!(hull.vertices().len(), 128);
    }
}

#[test]
fn nearly_coplanar_noise_on_cube_faces() {
    for seed in 0..20 {
        let mut rng = Rng::new(seed);
        let mut pts = cube_corners();
        for _ in 0..500 {
            let mut p = Vec3::new(rng.signed(), rng.signed(), rng.signed());
            let k = rng.below(3);
            p[k] = p[k].signum() * (1.0 - rng.unit() * 1e-7);
            pts.push(p);
        }
        rng.shuffle(&mut pts);
        build_and_check(&pts);
    }
}

#[test]
fn tolerance_helper() {
    let pts = [Vec3::new(1.0, -2.0, 0.5), Vec3::new(f32::NAN, 0.0, 0.0)];
    let eps = ConvexHull::tolerance(&pts);
    assert!((eps - 3.0 * f64::from(f32::EPSILON) * 3.5).abs() < 1e-15);
}
