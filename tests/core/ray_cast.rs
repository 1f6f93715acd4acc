//! Ray casts against brute force: on meshes the OBB and AABB trees find
//! exactly the triangle (and parameter) that testing every triangle finds; on convex
//! shapes Cyrus–Beck agrees with the nearest hull triangle.

use bevy_icollide::bvh::TreeKind;
use bevy_icollide::bvh::ray::ray_cast_surface;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::geometry::ray::ray_triangle;
use bevy_icollide::math::Pose;
use bevy_icollide::query::{self, Ray};
use bevy_icollide::testkit::ray_mesh as ray_cast_brute_force;
use bevy_icollide::testkit::{Rng, sphere_hull};
use glam::Vec3;

fn hand() -> SharedShape {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/meshes/odedstein_hand_lowres.obj");
    SharedShape::trimesh_from_obj(path).expect("hand")
}

#[test]
fn mesh_rays_equal_brute_force() {
    // The same rays through the hand's OBB tree and its AABB tree.
    let obb = hand();
    let mesh = obb.surface().expect("surface").mesh;
    let aabb = SharedShape::trimesh_with_tree(
        mesh.vertices().to_vec(),
        mesh.triangles().to_vec(),
        TreeKind::Aabb,
    )
    .expect("hand");
    let center = bevy_icollide::math::Aabb::from_points(mesh.vertices().iter().copied()).center();
    for shape in [&obb, &aabb] {
        let surface = shape.surface().expect("surface");
        let mut rng = Rng::new(3);
        let (mut stack, mut hits) = (Vec::new(), 0);
        for i in 0..3000 {
            // Rays from around the model towards points near it.
            let origin = center + rng.unit_vector() * rng.range(0.0, 0.3);
            let target = center + rng.in_cube(0.1);
            let ray = Ray::new(origin, target - origin);
            let got = ray_cast_surface(surface, &ray, 10.0, &mut stack).map(|h| (h.toi, h.feature));
            assert_eq!(got, ray_cast_brute_force(mesh, &ray, 10.0), "ray {i}");
            hits += usize::from(got.is_some());
        }
        assert!(hits > 600 && hits < 2900, "{hits} of 3000 rays hit");
    }
}

#[test]
fn convex_rays_match_the_nearest_hull_triangle() {
    let mut rng = Rng::new(4);
    let mut hits = 0;
    for i in 0..2000 {
        let shape = sphere_hull(&mut rng, 30, 1.0);
        let pose = Pose::new(rng.rotation(), rng.in_cube(1.0));
        let origin = pose.translation + rng.unit_vector() * rng.range(1.1, 3.0);
        let ray = Ray::new(origin, pose.translation + rng.in_cube(1.2) - origin);
        let got = query::ray_cast(&shape, &pose, &ray, 1.0).expect("valid pose");
        let hull = shape.hull().expect("hull");
        let want = hull
            .triangles()
            .iter()
            .filter_map(|t| {
                ray_triangle(
                    &ray,
                    t.map(|v| pose.transform_point(hull.vertices()[v as usize])),
                    1.0,
                )
            })
            .fold(None, |m: Option<f32>, t| Some(m.map_or(t, |m| m.min(t))));
        match (got, want) {
            (Some(h), Some(w)) => {
                assert!((h.toi - w).abs() < 1e-4, "ray {i}: {} vs {w}", h.toi);
                assert!(
                    (h.normal.length() - 1.0).abs() < 1e-4 && h.normal.dot(ray.dir) < 0.0,
                    "ray {i}: normal"
                );
                hits += 1;
            }
            (None, None) => {}
            // Grazing rays may differ within rounding between the methods.
            (g, w) => {
                let toi = g.map(|h| h.toi).or(w).unwrap_or(0.0);
                let p = ray.at(toi);
                let local = pose.inverse().transform_point(p);
                let poly = shape.polytope().expect("convex");
                let out = (0..poly.faces().len() as u32)
                    .map(|f| poly.face_distance(f, local))
                    .fold(f32::MIN, f32::max);
                assert!(
                    out.abs() < 1e-4,
                    "ray {i}: {g:?} vs {w:?}, not a grazing ray ({out})"
                );
            }
        }
    }
    assert!(hits > 400, "{hits} of 2000 rays hit");
    // From inside: a hit at 0.
    let cube = SharedShape::cuboid(Vec3::ONE).expect("cube");
    let h = query::ray_cast(&cube, &Pose::IDENTITY, &Ray::new(Vec3::ZERO, Vec3::X), 10.0)
        .unwrap()
        .expect("hit");
    assert_eq!(h.toi, 0.0);
    let h = query::ray_cast(
        &cube,
        &Pose::IDENTITY,
        &Ray::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::X),
        10.0,
    )
    .unwrap()
    .expect("hit");
    assert!((h.toi - 2.0).abs() < 1e-6 && (h.normal + Vec3::X).length() < 1e-6);
    assert!(
        query::ray_cast(
            &cube,
            &Pose::IDENTITY,
            &Ray::new(Vec3::new(-3.0, 2.0, 0.0), Vec3::X),
            10.0
        )
        .unwrap()
        .is_none()
    );
}

/// Spheres and capsules: the first `t` where the ray point comes within the
/// radius of the core, found by marching in f64 and bisecting the first
/// crossing, equals the closed-form hit.
#[test]
fn rounded_ray_casts_equal_a_marched_reference() {
    use glam::DVec3;
    let mut rng = Rng::new(77);
    let mut hits = 0;
    for k in 0..3000 {
        let (radius, length) = (
            rng.range(0.05, 0.5),
            if k % 3 == 0 { 0.0 } else { rng.range(0.0, 1.0) },
        );
        let shape = SharedShape::capsule(radius, length).expect("capsule");
        let pose = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let origin = rng.in_cube(2.0);
        let ray = Ray::new(origin, pose.translation + rng.in_cube(0.6) - origin);
        let hit = query::ray_cast(&shape, &pose, &ray, 1.0).expect("valid pose");
        let (p, q) = (
            pose.transform_point(Vec3::new(0.0, -length / 2.0, 0.0))
                .as_dvec3(),
            pose.transform_point(Vec3::new(0.0, length / 2.0, 0.0))
                .as_dvec3(),
        );
        let f = |t: f64| {
            let x = ray.origin.as_dvec3() + ray.dir.as_dvec3() * t;
            let d = q - p;
            let s = if d.length_squared() > 0.0 {
                ((x - p).dot(d) / d.length_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            x.distance(p + d * s) - f64::from(radius)
        };
        let steps = 4000;
        let first = (0..=steps)
            .map(|i| f64::from(i) / f64::from(steps))
            .find(|&t| f(t) <= 0.0);
        let want = first.map(|t1| {
            if t1 == 0.0 {
                return 0.0;
            }
            let (mut lo, mut hi) = (t1 - 1.0 / f64::from(steps), t1);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if f(mid) <= 0.0 { hi = mid } else { lo = mid }
            }
            hi
        });
        match (hit, want) {
            (Some(h), Some(w)) => {
                assert!((f64::from(h.toi) - w).abs() < 1e-4, "{} vs {w}", h.toi);
                if h.toi > 0.0 {
                    let x: DVec3 = ray.at(h.toi).as_dvec3();
                    assert!(f(f64::from(h.toi)).abs() < 1e-4 && x.is_finite());
                    assert!((h.normal.length() - 1.0).abs() < 1e-4);
                }
                hits += 1;
            }
            (None, None) => {}
            // A graze the march steps over, or a hit at the very limit.
            (h, w) => assert!(
                h.is_some_and(|h| h.toi > 0.999) || w.is_some_and(|w| w > 0.999) || grazes(&f),
                "closed form {h:?}, reference {w:?}"
            ),
        }
    }
    assert!(hits > 600, "{hits} hits");
}

/// The ray's closest approach to the core is within 1e-4 of the radius.
fn grazes(f: &dyn Fn(f64) -> f64) -> bool {
    (0..=4000)
        .map(|i| f(f64::from(i) / 4000.0))
        .fold(f64::MAX, f64::min)
        .abs()
        < 1e-4
}
