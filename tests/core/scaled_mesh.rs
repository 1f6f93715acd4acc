//! Non-uniform scale of a mesh in the queries (SOLID's scaled models):
//! every query on a mesh side with `scale`, its tree built once at the
//! mesh's own size, answers exactly what brute force answers on a copy of
//! the mesh whose vertices were multiplied by `scale` (the same `p * scale`
//! coordinates, bit for bit): the intersecting triangle pairs for OBB and
//! AABB trees (full and lite SAT, and mixed), the distance, and ray hits.
//! Scales are anisotropic (up to 12:1 between axes), some negative
//! (mirrored).

use crate::common;

use std::collections::BTreeSet;

use bevy_icollide::bvh::ray::ray_cast_surface;
use bevy_icollide::bvh::{
    AabbTree, AabbTreeOptions, CollideOptions, CollideScratch, ContactMode, DistanceLimit,
    MeshSide, ObbTree, SatTest, SplitRule, Surface, TreeRef, collide, collide_with,
    distance_surfaces, surface_distance,
};
use bevy_icollide::geometry::closest::triangle_triangle;
use bevy_icollide::geometry::ray::Ray;
use bevy_icollide::geometry::tritri::triangles_intersect;
use bevy_icollide::math::Pose;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{Rng, ray_mesh, torus};
use glam::Vec3;

/// A mesh, its copy scaled by `scale`, and the unscaled mesh's two trees.
struct Model {
    mesh: TriMesh,
    obb: ObbTree,
    aabb: AabbTree,
}

impl Model {
    fn new(mesh: TriMesh) -> Self {
        let obb = ObbTree::build(mesh.vertices(), mesh.triangles(), SplitRule::Mean, 1);
        let aabb = AabbTree::build_mesh(&mesh, &AabbTreeOptions::default());
        Model { mesh, obb, aabb }
    }

    /// The copy whose vertices are `p * scale`.
    fn scaled_copy(&self, scale: Vec3) -> TriMesh {
        let v = self.mesh.vertices().iter().map(|&p| p * scale).collect();
        TriMesh::new(v, self.mesh.triangles().to_vec()).expect("scaled copy")
    }
}

/// A random scale: each axis in [0.25, 3], sometimes mirrored.
fn random_scale(rng: &mut Rng) -> Vec3 {
    let axis = |rng: &mut Rng| {
        let s = rng.range(0.25, 3.0);
        if rng.below(5) == 0 { -s } else { s }
    };
    Vec3::new(axis(rng), axis(rng), axis(rng))
}

/// All triangle pairs of two unscaled meshes, B's triangles mapped into
/// A's frame as the queries map them.
fn brute_force(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose) -> BTreeSet<[u32; 2]> {
    let rel = pa.inverse().mul(pb);
    let mut out = BTreeSet::new();
    for tb in 0..b.triangles().len() {
        let y = b.triangle(tb).map(|p| rel.transform_point(p));
        for ta in 0..a.triangles().len() {
            if triangles_intersect(a.triangle(ta), y) {
                out.insert([ta as u32, tb as u32]);
            }
        }
    }
    out
}

/// The smallest distance over all triangle pairs (the `f32` closest points
/// of each, B mapped into A's frame as the queries map it).
fn mesh_distance(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose) -> f32 {
    let rel = pa.inverse().mul(pb);
    let mut best = f32::INFINITY;
    for tb in 0..b.triangles().len() {
        let y = b.triangle(tb).map(|p| rel.transform_point(p));
        for ta in 0..a.triangles().len() {
            best = best.min(triangle_triangle(a.triangle(ta), y).0);
        }
    }
    best
}

fn set(pairs: &[[u32; 2]]) -> BTreeSet<[u32; 2]> {
    pairs.iter().copied().collect()
}

fn models() -> (Model, Model) {
    let (v, t) = torus(1.0, 0.35, 24, 12);
    let hand = common::model("odedstein_hand_lowres.obj");
    // The hand is ~0.2 across: bring it to the torus's size.
    let v_hand = hand.vertices().iter().map(|&p| p * 8.0).collect();
    let hand = TriMesh::new(v_hand, hand.triangles().to_vec()).expect("hand");
    (
        Model::new(TriMesh::new(v, t).expect("torus")),
        Model::new(hand),
    )
}

#[test]
fn scaled_meshes_collide_as_their_scaled_copies() {
    let (a, b) = models();
    let mut rng = Rng::new(41);
    let mut scratch = CollideScratch::default();
    let (mut out, mut hits, mut sizes) = (Vec::new(), 0, BTreeSet::new());
    for i in 0..80 {
        let (sa, sb) = (random_scale(&mut rng), random_scale(&mut rng));
        let pa = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let pb = Pose::new(rng.rotation(), rng.in_cube(2.0));
        let (ca, cb) = (a.scaled_copy(sa), b.scaled_copy(sb));
        let want = brute_force(&ca, &pa, &cb, &pb);
        sizes.insert(want.len());
        let obb_a = MeshSide::new(&a.mesh, &a.obb, pa).with_scale(sa);
        let obb_b = MeshSide::new(&b.mesh, &b.obb, pb).with_scale(sb);
        let aabb_a = MeshSide::new(&a.mesh, &a.aabb, pa).with_scale(sa);
        let aabb_b = MeshSide::new(&b.mesh, &b.aabb, pb).with_scale(sb);
        collide(&obb_a, &obb_b, ContactMode::All, &mut scratch, &mut out);
        assert_eq!(set(&out), want, "placement {i}: OBB trees, {sa} {sb}");
        collide(&obb_a, &obb_b, ContactMode::First, &mut scratch, &mut out);
        assert_eq!(out.is_empty(), want.is_empty(), "placement {i}: First");
        for sat in [SatTest::Full, SatTest::Lite] {
            let options = CollideOptions {
                sat,
                ..CollideOptions::default()
            };
            collide_with(&aabb_a, &aabb_b, &options, &mut scratch, &mut out);
            assert_eq!(set(&out), want, "placement {i}: AABB trees, {sat:?}");
        }
        collide(&obb_a, &aabb_b, ContactMode::All, &mut scratch, &mut out);
        assert_eq!(set(&out), want, "placement {i}: OBB against AABB");
        collide(&aabb_a, &obb_b, ContactMode::All, &mut scratch, &mut out);
        assert_eq!(set(&out), want, "placement {i}: AABB against OBB");
        hits += usize::from(!want.is_empty());
    }
    // Not vacuous: many placements touch, in many ways.
    assert!((25..=75).contains(&hits), "{hits} of 80 placements touch");
    assert!(sizes.len() >= 15, "{} distinct pair counts", sizes.len());
}

#[test]
fn scaled_mesh_distance_is_the_scaled_copies_minimum() {
    let (a, b) = models();
    let mut rng = Rng::new(42);
    let mut stack = Vec::new();
    let (mut apart, mut touching) = (0, 0);
    for i in 0..30 {
        let (sa, sb) = (random_scale(&mut rng), random_scale(&mut rng));
        let pa = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let pb = Pose::new(rng.rotation(), rng.in_cube(4.0));
        let (ca, cb) = (a.scaled_copy(sa), b.scaled_copy(sb));
        let want = mesh_distance(&ca, &pa, &cb, &pb);
        for (ta, tb) in [
            (TreeRef::Obb(&a.obb), TreeRef::Obb(&b.obb)),
            (TreeRef::Aabb(&a.aabb), TreeRef::Obb(&b.obb)),
            (TreeRef::Aabb(&a.aabb), TreeRef::Aabb(&b.aabb)),
        ] {
            let sfa = Surface::new(&a.mesh, ta).with_scale(sa);
            let sfb = Surface::new(&b.mesh, tb).with_scale(sb);
            let (got, _) =
                distance_surfaces((sfa, pa), (sfb, pb), DistanceLimit::EXACT, &mut stack);
            let got = got.expect("a distance");
            assert_eq!(got.distance, want, "placement {i}: {sa} {sb}");
            // The closest points are on the scaled, posed triangles.
            let [x, y] = got.triangles;
            let on = |m: &TriMesh, t: u32, p: &Pose, q: Vec3| {
                let [u, v, w] = m.triangle(t as usize).map(|c| p.transform_point(c));
                let n = (v - u).cross(w - u).normalize();
                (q - u).dot(n).abs() < 1e-4 * (1.0 + q.length())
            };
            assert!(on(&ca, x, &pa, got.point_a) && on(&cb, y, &pb, got.point_b));
        }
        if want > 0.0 {
            apart += 1;
        } else {
            touching += 1;
        }
    }
    assert!(
        apart >= 8 && touching >= 5,
        "{apart} apart, {touching} touching"
    );
}

#[test]
fn scaled_tolerance_query_stops_within_the_limit() {
    let (a, b) = models();
    let mut rng = Rng::new(43);
    let mut stack = Vec::new();
    for i in 0..24 {
        let (sa, sb) = (random_scale(&mut rng), random_scale(&mut rng));
        let pa = Pose::new(rng.rotation(), Vec3::ZERO);
        let pb = Pose::new(rng.rotation(), rng.in_cube(5.0));
        let (ca, cb) = (a.scaled_copy(sa), b.scaled_copy(sb));
        let want = mesh_distance(&ca, &pa, &cb, &pb);
        let d = 0.5;
        let side_a = MeshSide::new(&a.mesh, &a.aabb, pa).with_scale(sa);
        let side_b = MeshSide::new(&b.mesh, &b.obb, pb).with_scale(sb);
        let (got, _) = surface_distance(&side_a, &side_b, DistanceLimit::within(d), &mut stack);
        assert_eq!(got.is_some(), want <= d, "placement {i}: {want}");
        if let Some(g) = got {
            assert!(g.distance <= d);
        }
    }
}

#[test]
fn rays_hit_scaled_meshes_as_their_scaled_copies() {
    let (a, _) = models();
    let mut rng = Rng::new(44);
    let mut stack = Vec::new();
    let mut hits = 0;
    for i in 0..1500 {
        let scale = random_scale(&mut rng);
        let copy = a.scaled_copy(scale);
        let origin = rng.unit_vector() * rng.range(0.0, 6.0);
        let ray = Ray::new(origin, rng.in_cube(1.5) - origin);
        let want = ray_mesh(&copy, &ray, 10.0);
        for tree in [TreeRef::Obb(&a.obb), TreeRef::Aabb(&a.aabb)] {
            let surface = Surface::new(&a.mesh, tree).with_scale(scale);
            let got = ray_cast_surface(surface, &ray, 10.0, &mut stack);
            assert_eq!(got.map(|h| (h.toi, h.feature)), want, "ray {i}, {scale}");
            if let Some(h) = got {
                // The normal is the scaled triangle's, facing the ray.
                let [p, q, r] = copy.triangle(h.feature as usize);
                let n = (q - p).cross(r - p).normalize();
                assert!(h.normal.dot(n).abs() > 0.9999 && h.normal.dot(ray.dir) <= 0.0);
            }
        }
        hits += usize::from(want.is_some());
    }
    assert!(hits > 300 && hits < 1400, "{hits} of 1500 rays hit");
}
