//! The other traversals of a tree, against brute force: the distance
//! between two meshes far apart (exact against an `f64` reference over
//! every triangle pair, and cheap: a few hundred triangle pairs measured,
//! not a good share of all of them), and rays grazing a mesh far from its
//! own origin (against every triangle tested with the same ray–triangle
//! test, so that only the boxes' culling is checked).
//!
//! The distance reference takes B's triangles mapped into A's frame by the
//! `f32` relative pose, as the query does, converted to `f64` exactly, and
//! the smallest vertex–triangle or edge–edge distance in `f64` over every
//! pair (the meshes are apart, so no pair intersects); the query's `f32`
//! answer must be within `f32` rounding of it.

use crate::common::model;
use bevy_icollide::bvh::ray::ray_cast_side;
use bevy_icollide::bvh::{
    AabbTree, AabbTreeOptions, BoxNode, Bvh, DistanceLimit, MeshSide, ObbTree, SplitRule,
    surface_distance,
};
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::query::Ray;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{
    self, Rng, point_triangle_distance, ray_mesh, segment_segment, torus,
};
use glam::{DVec3, Vec3};

fn size(mesh: &TriMesh) -> f32 {
    let b = Aabb::from_points(mesh.vertices().iter().copied());
    (b.max - b.min).max_element()
}

/// The distance between two apart triangles in `f64`: the smallest
/// vertex–triangle or edge–edge distance.
fn triangle_distance(a: [DVec3; 3], b: [DVec3; 3]) -> f64 {
    let mut best = f64::INFINITY;
    for i in 0..3 {
        best = best.min(point_triangle_distance(a[i], b));
        best = best.min(point_triangle_distance(b[i], a));
        for j in 0..3 {
            let d = segment_segment(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]);
            best = best.min(d);
        }
    }
    best
}

/// The smallest distance over every triangle pair (B mapped by the `f32`
/// relative pose), a pair measured only when the distance between the two
/// triangles' boxes is below the best so far.
fn reference_distance(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose) -> f64 {
    let rel = pa.inverse().mul(pb);
    let tris = |m: &TriMesh, map: &dyn Fn(Vec3) -> Vec3| -> Vec<[DVec3; 3]> {
        (0..m.triangles().len())
            .map(|t| m.triangle(t).map(|p| map(p).as_dvec3()))
            .collect()
    };
    let (ta, tb) = (tris(a, &|p| p), tris(b, &|p| rel.transform_point(p)));
    let boxes = |ts: &[[DVec3; 3]]| -> Vec<(DVec3, DVec3)> {
        ts.iter()
            .map(|t| (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2])))
            .collect()
    };
    let (ba, bb) = (boxes(&ta), boxes(&tb));
    let mut best = f64::INFINITY;
    for (x, (lo, hi)) in ta.iter().zip(&ba) {
        for (y, (l, h)) in tb.iter().zip(&bb) {
            let gap = (*l - *hi).max(*lo - *h).max(DVec3::ZERO).length();
            if gap < best {
                best = best.min(triangle_distance(*x, *y));
            }
        }
    }
    best
}

/// Far-apart placements: B turned at random and moved `gap` model sizes
/// away along an axis, a diagonal of the frame or a random direction.
fn far_placements(rng: &mut Rng, size: f32, n: usize) -> Vec<(Pose, Pose)> {
    (0..n)
        .map(|k| {
            let dir = match k % 3 {
                0 => Vec3::X,
                1 => Vec3::new(1.0, -1.0, 1.0).normalize(),
                _ => rng.unit_vector(),
            };
            let gap = [1.2, 2.5, 10.0][k % 3];
            let pa = Pose::new(rng.rotation(), Vec3::ZERO);
            (pa, Pose::new(rng.rotation(), dir * gap * size))
        })
        .collect()
}

/// One tree combination: the distance within `f32` rounding of the
/// reference, at most `max_pairs` triangle pairs measured and 40 box
/// pairs bounded per triangle of A.
fn check_distance<NA: BoxNode, NB: BoxNode>(
    (a, ta): (&TriMesh, &Bvh<NA>),
    (b, tb): (&TriMesh, &Bvh<NB>),
    (pa, pb): (Pose, Pose),
    (want, max_pairs): (f64, u32),
    what: &str,
) -> u32 {
    let (found, stats) = surface_distance(
        &MeshSide::new(a, ta, pa),
        &MeshSide::new(b, tb, pb),
        DistanceLimit::EXACT,
        &mut Vec::new(),
    );
    let got = found.expect("a distance").distance as f64;
    let tolerance = 1e-5 * (want + size(a).max(size(b)) as f64);
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: {got} against {want}"
    );
    assert!(
        stats.triangle_tests <= max_pairs && stats.box_tests <= 40 * a.triangles().len() as u32,
        "{what}: {} triangle pairs measured, {} box pairs",
        stats.triangle_tests,
        stats.box_tests
    );
    stats.triangle_tests
}

#[test]
fn meshes_far_apart_are_measured_exactly_and_cheaply() {
    let (tv, tt) = torus(1.0, 0.3, 40, 20);
    let mut meshes = vec![
        ("hand", model("odedstein_hand_lowres.obj")),
        ("torus", TriMesh::new(tv, tt).expect("torus")),
    ];
    if testkit::long_run() {
        meshes.push(("teapot", model("o3dv_utah_teapot.stl.obj")));
    }
    let mut rng = Rng::new(17);
    for (name, mesh) in &meshes {
        let obb = ObbTree::build(mesh.vertices(), mesh.triangles(), SplitRule::Mean, 1);
        let aabb = AabbTree::build_mesh(mesh, &AabbTreeOptions::default());
        let (mut total, mut queries) = (0u64, 0u64);
        for (k, poses) in far_placements(&mut rng, size(mesh), 6 * testkit::long_factor())
            .into_iter()
            .enumerate()
        {
            let want = reference_distance(mesh, &poses.0, mesh, &poses.1);
            let what = |trees: &str| format!("{name}, placement {k}, {trees}");
            // Of 2.6 million triangle pairs for the hand: at most a
            // thousand measured and 64 000 box pairs bounded (with the
            // largest single-axis gap as the bound: about 300 000 and
            // 670 000); for the teapot, a quarter of its triangles.
            let limit = (want, 1000.max(mesh.triangles().len() as u32 / 4));
            let m = (mesh, &obb);
            let x = (mesh, &aabb);
            total += check_distance(m, m, poses, limit, &what("OBB × OBB")) as u64;
            total += check_distance(x, x, poses, limit, &what("AABB × AABB")) as u64;
            total += check_distance(m, x, poses, limit, &what("OBB × AABB")) as u64;
            total += check_distance(x, m, poses, limit, &what("AABB × OBB")) as u64;
            queries += 4;
        }
        println!(
            "{name}: {} triangle pairs per query on average",
            total / queries
        );
    }
}

/// Rays from just off a mesh far from its own origin (its vertices at
/// 10⁴), aimed at its vertices: the box tests must not cull a triangle the
/// ray–triangle test hits. Both tree kinds, unscaled and scaled.
#[test]
fn rays_grazing_a_mesh_far_from_its_origin() {
    let hand = model("odedstein_hand_lowres.obj");
    let far = Vec3::new(1.0e4, -0.7e4, 0.3e4);
    let shifted: Vec<Vec3> = hand.vertices().iter().map(|p| *p + far).collect();
    let mesh = TriMesh::new(shifted, hand.triangles().to_vec()).expect("mesh");
    let obb = ObbTree::build(mesh.vertices(), mesh.triangles(), SplitRule::Mean, 1);
    let aabb = AabbTree::build_mesh(&mesh, &AabbTreeOptions::default());
    let mut rng = Rng::new(19);
    let mut stack = Vec::new();
    let (mut hits, n) = (0, 2000 * testkit::long_factor());
    for k in 0..n {
        let v = mesh.vertices()[rng.below(mesh.vertices().len())];
        let origin = v + rng.unit_vector() * rng.range(1e-3, 2e-2);
        let ray = Ray::new(origin, v - origin);
        let s = if k % 4 == 3 {
            Vec3::splat(1.0)
        } else {
            rng.vec(0.5, 2.0)
        };
        let scaled_mesh = TriMesh::new(
            mesh.vertices().iter().map(|p| *p * s).collect(),
            mesh.triangles().to_vec(),
        )
        .expect("mesh");
        let ray = Ray::new(ray.origin * s, ray.dir * s);
        let want = ray_mesh(&scaled_mesh, &ray, 2.0);
        hits += usize::from(want.is_some());
        let side = |tree| MeshSide::new(&mesh, tree, Pose::IDENTITY).with_scale(s);
        let got = ray_cast_side(&side(&obb), &ray, 2.0, &mut stack).map(|h| (h.toi, h.feature));
        assert_eq!(got, want, "ray {k} (scale {s}), OBB tree");
        let side = |tree| MeshSide::new(&mesh, tree, Pose::IDENTITY).with_scale(s);
        let got = ray_cast_side(&side(&aabb), &ray, 2.0, &mut stack).map(|h| (h.toi, h.feature));
        assert_eq!(got, want, "ray {k} (scale {s}), AABB tree");
    }
    assert!(hits > n / 2, "{hits} of {n} rays hit");
}
