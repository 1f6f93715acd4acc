//! Mesh–mesh distance by branch and bound against brute force: on real
//! models at random placements (overlapping, touching, near and far), the
//! distance equals the minimum over all triangle pairs of the same exact
//! triangle distance (bit for bit: the search drops no pair it should
//! keep), agrees with an f64 reference, and the closest points lie on the
//! reported triangles that far apart; a tolerance query says yes exactly
//! when the distance is within the tolerance. Every tree kind.

use crate::common::model;
use bevy_icollide::bvh::{
    AabbTree, AabbTreeOptions, Bvh, DistanceLimit, MeshSide, ObbTree, SplitRule, surface_distance,
};
use bevy_icollide::geometry::closest::triangle_triangle;
use bevy_icollide::math::Pose;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{Rng, mesh_distance, point_triangle_distance, triangle_distance};

#[test]
fn triangle_distance_matches_the_f64_reference() {
    let mut rng = Rng::new(2);
    for i in 0..20000 {
        let tri = |rng: &mut Rng, c| [0; 3].map(|_| c + rng.in_cube(1.0));
        let offset = rng.in_cube(1.5);
        let (a, b) = (tri(&mut rng, glam::Vec3::ZERO), tri(&mut rng, offset));
        let (d, p, q) = triangle_triangle(a, b);
        let want = triangle_distance(a, b);
        assert!(
            (f64::from(d) - want).abs() <= 1e-5,
            "pair {i}: {d} vs {want}"
        );
        // The points are on their triangles and `d` apart.
        // (f32 closest points on skinny triangles are off by ~1e-5.)
        let on = |x, t| bevy_icollide::geometry::closest::point_triangle(x, t).distance(x) <= 1e-4;
        assert!(on(p, a) && on(q, b), "pair {i}");
        assert!((p.distance(q) - d).abs() <= 1e-5 || d == 0.0, "pair {i}");
    }
}

fn side<'a, N>(mesh: &'a TriMesh, tree: &'a Bvh<N>, pose: Pose) -> MeshSide<'a, N> {
    MeshSide::new(mesh, tree, pose)
}

fn check(a: &TriMesh, b: &TriMesh, placements: usize, spread: f32, seed: u64) -> [usize; 2] {
    let (oa, ob) = (
        ObbTree::build(a.vertices(), a.triangles(), SplitRule::Mean, 1),
        ObbTree::build(b.vertices(), b.triangles(), SplitRule::Mean, 1),
    );
    let opts = AabbTreeOptions::default();
    let (xa, xb) = (
        AabbTree::build_mesh(a, &opts),
        AabbTree::build_mesh(b, &opts),
    );
    let mut rng = Rng::new(seed);
    let mut stack = Vec::new();
    // f32 rounding, relative to the coordinates' size.
    let size = |m: &TriMesh| m.vertices().iter().fold(0.0f32, |s, v| s.max(v.length()));
    let tol = 1e-5 * (size(a) + size(b) + spread);
    let (mut overlapping, mut apart) = (0, 0);
    for i in 0..placements {
        let (pa, pb) = (
            Pose::new(rng.rotation(), rng.in_cube(spread)),
            Pose::new(rng.rotation(), rng.in_cube(spread)),
        );
        let (want, want64, _) = mesh_distance(a, &pa, b, &pb);
        let results = [
            surface_distance(
                &side(a, &oa, pa),
                &side(b, &ob, pb),
                DistanceLimit::EXACT,
                &mut stack,
            ),
            surface_distance(
                &side(a, &xa, pa),
                &side(b, &xb, pb),
                DistanceLimit::EXACT,
                &mut stack,
            ),
            surface_distance(
                &side(a, &oa, pa),
                &side(b, &xb, pb),
                DistanceLimit::EXACT,
                &mut stack,
            ),
        ];
        for (k, (got, _)) in results.iter().enumerate() {
            let got = got.expect("a distance");
            assert_eq!(got.distance, want, "placement {i}, tree kinds {k}");
            assert!((f64::from(got.distance) - want64).abs() <= f64::from(tol));
            // The points are on the reported triangles.
            let [ta, tb] = got.triangles;
            let on = |x: glam::Vec3, m: &TriMesh, t: u32, p: &Pose| {
                let tri = m
                    .triangle(t as usize)
                    .map(|v| p.transform_point(v).as_dvec3());
                point_triangle_distance(x.as_dvec3(), tri) <= f64::from(tol)
            };
            assert!(
                on(got.point_a, a, ta, &pa) && on(got.point_b, b, tb, &pb),
                "placement {i}: {got:?} tol {tol} {:?} {:?}",
                a.triangle(ta as usize).map(|v| pa.transform_point(v)),
                b.triangle(tb as usize).map(|v| pb.transform_point(v))
            );
        }
        // Tolerance queries around the distance.
        for d in [want * 0.5, want, want * 1.5 + 1e-6] {
            let (hit, _) = surface_distance(
                &side(a, &oa, pa),
                &side(b, &xb, pb),
                DistanceLimit::within(d),
                &mut stack,
            );
            assert_eq!(hit.is_some(), want <= d, "placement {i}: within {d}");
            assert!(hit.is_none_or(|h| h.distance <= d));
        }
        if want == 0.0 {
            overlapping += 1;
        } else {
            apart += 1;
        }
    }
    [overlapping, apart]
}

#[test]
fn mesh_distance_equals_brute_force_on_real_models() {
    // FCL's robot (216 triangles, ~1000 units) against itself; a sphere
    // (1 280) against a cube (48), both about 2 across.
    let rob = model("fcl_rob.obj");
    let [o, a] = check(&rob, &rob, 150, 700.0, 1);
    assert!(o > 10 && a > 50, "rob: {o} overlapping, {a} apart");
    let (sphere, cube) = (model("odedstein_sphere.obj"), model("odedstein_cube.obj"));
    let [o, a] = check(&sphere, &cube, 100, 2.5, 2);
    assert!(o > 10 && a > 30, "sphere/cube: {o} overlapping, {a} apart");
}

#[test]
fn one_shot_distance_with_meshes_equals_brute_force() {
    use bevy_icollide::collider::{CompoundPiece, SharedShape};
    use bevy_icollide::query;
    use bevy_icollide::testkit::{segment_triangle_distance, sphere_hull, torus};
    let (tv, tt) = torus(1.0, 0.3, 24, 12);
    let mesh = SharedShape::trimesh(tv, tt).expect("torus");
    let surface = |s: &SharedShape| s.surface().expect("surface").mesh.clone();
    let mut rng = Rng::new(6);
    let hull = sphere_hull(&mut rng, 16, 0.4);
    let capsule = SharedShape::capsule(0.2, 0.5).expect("capsule");
    let compound = SharedShape::compound(vec![
        CompoundPiece {
            pose: Pose::from_translation(glam::Vec3::X * 0.5),
            shape: hull.clone(),
        },
        CompoundPiece {
            pose: Pose::from_translation(-glam::Vec3::X * 0.5),
            shape: mesh.clone(),
        },
    ])
    .expect("compound");
    let (mut hits, mut apart) = (0, 0);
    for i in 0..150 {
        let (pm, po) = (
            Pose::new(rng.rotation(), rng.in_cube(0.3)),
            Pose::new(rng.rotation(), rng.in_cube(1.8)),
        );
        let m = surface(&mesh);
        // A convex hull: its surface, the same triangle distances.
        let got = query::distance(&mesh, &pm, &hull, &po).expect("supported");
        let (want, ..) = mesh_distance(&m, &pm, &surface(&hull), &po);
        assert_eq!(got, want, "placement {i}: mesh-hull");
        assert_eq!(
            got == 0.0,
            query::intersects(&mesh, &pm, &hull, &po).expect("valid"),
            "placement {i}: distance 0 exactly when they intersect"
        );
        // A capsule: the core segment to the nearest triangle, less the radius.
        let c = query::closest_points(&capsule, &po, &mesh, &pm).expect("supported");
        let core = [-0.25f32, 0.25].map(|y| po.transform_point(glam::Vec3::Y * y).as_dvec3());
        let want = (0..m.triangles().len())
            .map(|t| {
                let tri = m.triangle(t).map(|v| pm.transform_point(v).as_dvec3());
                segment_triangle_distance(core[0], core[1], tri)
            })
            .fold(f64::INFINITY, f64::min);
        let want = (want - 0.2).max(0.0);
        assert!(
            (f64::from(c.distance) - want).abs() < 1e-4,
            "placement {i}: capsule"
        );
        assert!((c.point_a.distance(c.point_b) - c.distance).abs() < 1e-4);
        // A compound with a mesh piece: the nearer piece.
        let got = query::distance(&compound, &po, &mesh, &pm).expect("supported");
        let piece = |k: usize| {
            let p = &compound.compound().expect("compound").pieces()[k];
            query::distance(&p.shape, &po.mul(&p.pose), &mesh, &pm).expect("supported")
        };
        assert_eq!(got, piece(0).min(piece(1)), "placement {i}: compound");
        hits += usize::from(c.distance == 0.0);
        apart += usize::from(c.distance > 0.0);
    }
    assert!(hits > 10 && apart > 30, "{hits} touching, {apart} apart");
    let pose = Pose::IDENTITY;
    assert!(matches!(
        query::penetration(&mesh, &pose, &hull, &pose),
        Err(query::QueryError::Unsupported { .. })
    ));
}
