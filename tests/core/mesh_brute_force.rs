//! Tree mesh queries against brute force: on real models at seeded random
//! placements, the intersecting triangle pairs equal the all-pairs set
//! (each pair tested with the same exact predicate on the same mapped
//! coordinates) for OBB trees, AABB trees (full and lite SAT) and the two
//! mixed, and `First` agrees on whether any exists. Both split rules are
//! exercised.

use crate::common::model;
use std::collections::BTreeSet;

use bevy_icollide::bvh::{
    AabbTree, AabbTreeOptions, CollideOptions, CollideScratch, ContactMode, MeshSide, ObbTree,
    SatTest, SplitRule, collide, collide_with, mapped_triangle,
};
use bevy_icollide::geometry::tritri::triangles_intersect;
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::Rng;
use glam::Vec3;

/// All triangle pairs; a pair whose triangles' boxes are disjoint cannot
/// intersect (the boxes are the exact min / max of the same coordinates).
fn brute_force(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose) -> BTreeSet<[u32; 2]> {
    let rel = pa.inverse().mul(pb);
    let tb: Vec<([bevy_icollide::math::Aabb; 1], [Vec3; 3])> = (0..b.triangles().len() as u32)
        .map(|t| {
            let tri = mapped_triangle(b, t, &rel);
            ([Aabb::from_points(tri)], tri)
        })
        .collect();
    let mut out = BTreeSet::new();
    for ta in 0..a.triangles().len() {
        let tri_a = a.triangle(ta);
        let box_a = Aabb::from_points(tri_a);
        for (j, (bb, tri_b)) in tb.iter().enumerate() {
            if box_a.overlaps(&bb[0]) && triangles_intersect(tri_a, *tri_b) {
                out.insert([ta as u32, j as u32]);
            }
        }
    }
    out
}

fn check_placements(a: &TriMesh, b: &TriMesh, placements: usize, seed: u64, spread: f32) -> usize {
    // Alternate the split rules: both must give the exact answer.
    let rule = if seed.is_multiple_of(2) {
        SplitRule::Median
    } else {
        SplitRule::Mean
    };
    let (ta, tb) = (
        ObbTree::build(a.vertices(), a.triangles(), rule, 1),
        ObbTree::build(b.vertices(), b.triangles(), rule, 1),
    );
    let options = AabbTreeOptions { rule, leaf_size: 1 };
    let (aa, ab) = (
        AabbTree::build_mesh(a, &options),
        AabbTree::build_mesh(b, &options),
    );
    let mut rng = Rng::new(seed);
    let mut scratch = CollideScratch::default();
    let (mut out, mut hits) = (Vec::new(), 0);
    for i in 0..placements {
        let pa = Pose::new(rng.rotation(), rng.in_cube(spread));
        let pb = Pose::new(rng.rotation(), rng.in_cube(spread));
        let (sa, sb) = (MeshSide::new(a, &ta, pa), MeshSide::new(b, &tb, pb));
        collide(&sa, &sb, ContactMode::All, &mut scratch, &mut out);
        let got: BTreeSet<[u32; 2]> = out.iter().copied().collect();
        assert_eq!(got.len(), out.len(), "placement {i}: no pair twice");
        let want = brute_force(a, &pa, b, &pb);
        assert_eq!(got, want, "placement {i}: intersecting triangle pairs");
        collide(&sa, &sb, ContactMode::First, &mut scratch, &mut out);
        assert_eq!(out.is_empty(), want.is_empty(), "placement {i}: First");
        // AABB trees (SOLID), alone and mixed with the OBB trees: the same
        // triangle pairs.
        let (xa, xb) = (MeshSide::new(a, &aa, pa), MeshSide::new(b, &ab, pb));
        for sat in [SatTest::Full, SatTest::Lite] {
            let options = CollideOptions {
                sat,
                ..CollideOptions::default()
            };
            collide_with(&xa, &xb, &options, &mut scratch, &mut out);
            assert_eq!(set(&out), want, "placement {i}: AABB trees, {sat:?}");
        }
        collide(&sa, &xb, ContactMode::All, &mut scratch, &mut out);
        assert_eq!(set(&out), want, "placement {i}: OBB against AABB");
        collide(&xa, &sb, ContactMode::All, &mut scratch, &mut out);
        assert_eq!(set(&out), want, "placement {i}: AABB against OBB");
        hits += usize::from(!want.is_empty());
    }
    hits
}

fn set(pairs: &[[u32; 2]]) -> BTreeSet<[u32; 2]> {
    let s: BTreeSet<[u32; 2]> = pairs.iter().copied().collect();
    assert_eq!(s.len(), pairs.len(), "no pair twice");
    s
}

#[test]
fn real_models_match_all_pairs_brute_force() {
    let (hand, rob, env, torus) = (
        model("odedstein_hand_lowres.obj"),
        model("fcl_rob.obj"),
        model("fcl_env.obj"),
        model("odedstein_torus.obj"),
    );
    // Sizes: hand ~0.2, FCL models ~hundreds of units, torus ~2.
    let hits = check_placements(&hand, &hand, 1500, 1, 0.05);
    assert!(
        hits > 300 && hits < 1400,
        "hand/hand: {hits} of 1500 collide"
    );
    let hits = check_placements(&rob, &env, 600, 2, 150.0);
    assert!(hits > 20, "rob/env: {hits} of 600 collide");
    let hits = check_placements(&torus, &hand, 150, 3, 0.5);
    assert!(hits > 10, "torus/hand: {hits} of 150 collide");
}

#[test]
fn teapot_against_wingnut() {
    // Scaled to about the same size.
    let teapot = model("o3dv_utah_teapot.stl.obj");
    let wingnut = model("odedstein_wingnut.obj");
    let size = |m: &TriMesh| {
        let b = Aabb::from_points(m.vertices().iter().copied());
        (b.max - b.min).max_element()
    };
    let k = size(&wingnut) / size(&teapot);
    let scaled = teapot.vertices().iter().map(|v| *v * k).collect();
    let teapot = TriMesh::new(scaled, teapot.triangles().to_vec()).expect("scaled teapot");
    let hits = check_placements(&teapot, &wingnut, 40, 5, 0.4 * size(&wingnut));
    assert!(
        hits > 5 && hits < 40,
        "teapot/wingnut: {hits} of 40 collide"
    );
}

fn tree_of(m: &TriMesh) -> ObbTree {
    ObbTree::build(m.vertices(), m.triangles(), SplitRule::Mean, 1)
}

#[test]
fn a_mesh_against_itself_and_a_mesh_inside_another() {
    let hand = model("odedstein_hand_lowres.obj");
    let tree = tree_of(&hand);
    let mut scratch = CollideScratch::default();
    let mut out = Vec::new();
    // Touching itself at the same pose: every triangle meets itself (and
    // its neighbors, which share vertices).
    let s = MeshSide::new(&hand, &tree, Pose::IDENTITY);
    collide(&s, &s, ContactMode::All, &mut scratch, &mut out);
    let got: BTreeSet<[u32; 2]> = out.iter().copied().collect();
    for t in 0..hand.triangles().len() as u32 {
        assert!(got.contains(&[t, t]), "triangle {t} meets itself");
    }
    assert_eq!(
        got,
        brute_force(&hand, &Pose::IDENTITY, &hand, &Pose::IDENTITY)
    );
    // A thin torus inside a thick one's tube: a surface query reports no
    // contact for a mesh fully inside another with no triangles crossing.
    let (p, t) = bevy_icollide::testkit::torus(1.0, 0.3, 24, 12);
    let big = TriMesh::new(p, t).expect("big");
    let (p, t) = bevy_icollide::testkit::torus(1.0, 0.05, 24, 12);
    let small = TriMesh::new(p, t).expect("small");
    let (tb, ts) = (tree_of(&big), tree_of(&small));
    let sb = MeshSide::new(&big, &tb, Pose::IDENTITY);
    let ss = MeshSide::new(&small, &ts, Pose::IDENTITY);
    collide(&sb, &ss, ContactMode::All, &mut scratch, &mut out);
    assert!(
        out.is_empty(),
        "contained, no crossing triangles: {}",
        out.len()
    );
}

#[test]
fn soups_with_cracks_duplicates_and_degenerate_triangles() {
    // A torus with holes punched, duplicated triangles, zero-area triangles
    // (repeated vertices, collinear vertices) and a dangling segment.
    let (mut pos, mut tris) = bevy_icollide::testkit::torus(1.0, 0.3, 16, 12);
    tris.retain(|t| t[0] % 7 != 3);
    let dups: Vec<[u32; 3]> = tris.iter().step_by(5).copied().collect();
    tris.extend(dups);
    let n = pos.len() as u32;
    pos.push(Vec3::new(1.0, 0.0, 0.0));
    pos.push(Vec3::new(1.3, 0.0, 0.0));
    tris.push([n, n, n]);
    tris.push([n, n + 1, n + 1]);
    tris.push([0, 1, 1]);
    let soup = TriMesh::new(pos, tris).expect("valid soup");
    let hits = check_placements(&soup, &soup, 300, 4, 1.0);
    assert!(hits > 30, "{hits} of 300 collide");
}

#[test]
fn rapid_tori() {
    let (pos, tris) = bevy_icollide::testkit::torus(1.0, 0.2, 50, 50);
    assert_eq!(tris.len(), 5000);
    let t = TriMesh::new(pos, tris).expect("torus");
    let tree = ObbTree::build(t.vertices(), t.triangles(), SplitRule::Mean, 1);
    let mut scratch = CollideScratch::default();
    let mut out = Vec::new();
    let side = |pose| MeshSide::new(&t, &tree, pose);
    // Overlapping: the second torus shifted by 0.5 along x.
    let a = side(Pose::IDENTITY);
    let shifted = side(Pose::from_translation(Vec3::new(0.5, 0.0, 0.0)));
    collide(&a, &shifted, ContactMode::All, &mut scratch, &mut out);
    let want = brute_force(&t, &Pose::IDENTITY, &t, &shifted.pose);
    assert!(!want.is_empty());
    assert_eq!(out.iter().copied().collect::<BTreeSet<_>>(), want);
    // Interlocked (like chain links): the second turned 90° about x and
    // moved by the major radius: the tubes pass through each other's hole
    // without touching.
    let link = Pose::new(
        glam::Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        Vec3::new(1.0, 0.0, 0.0),
    );
    let stats = collide(&a, &side(link), ContactMode::All, &mut scratch, &mut out);
    assert!(
        out.is_empty(),
        "interlocked tori do not touch: {} pairs",
        out.len()
    );
    assert!(brute_force(&t, &Pose::IDENTITY, &t, &link).is_empty());
    assert!(stats.box_tests > 0);
    // Stacked on the same axis, 1e-4 apart: no contact; 1e-4 into each
    // other: contact. (The tessellated tube's top is a flat band at the
    // largest z of the mesh.)
    let top = t.vertices().iter().map(|v| v.z).fold(f32::MIN, f32::max);
    for (gap, touching) in [(1e-4f32, false), (-1e-4, true)] {
        let pose = Pose::from_translation(Vec3::new(0.0, 0.0, 2.0 * top + gap));
        collide(&a, &side(pose), ContactMode::All, &mut scratch, &mut out);
        let want = brute_force(&t, &Pose::IDENTITY, &t, &pose);
        assert_eq!(!want.is_empty(), touching, "gap {gap}: brute force");
        assert_eq!(
            out.iter().copied().collect::<BTreeSet<_>>(),
            want,
            "gap {gap}"
        );
    }
}

#[test]
fn prebuilt_trees_round_trip_through_serde() {
    let hand = model("odedstein_hand_lowres.obj");
    let tree = tree_of(&hand);
    let json = serde_json::to_string(&tree).expect("serialize");
    let back: ObbTree = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, tree);
    back.validate(&hand).expect("a built tree is valid");
    // Corrupt trees read from a file are refused, never used: a child
    // pointing back at its root, a leaf out of range, a box too small.
    let mut cycle = back.clone();
    let inner = cycle
        .nodes
        .iter()
        .position(|n| !n.is_leaf())
        .expect("inner");
    cycle.nodes[inner + 1].count = 0;
    cycle.nodes[inner + 1].first = 0;
    assert!(cycle.validate(&hand).is_err());
    let mut far = back.clone();
    let leaf = far.nodes.iter().position(|n| n.is_leaf()).expect("leaf");
    far.nodes[leaf].first = u32::MAX - 1;
    assert!(far.validate(&hand).is_err());
    let mut small = back.clone();
    small.nodes[0].half_extents *= 0.5;
    assert!(small.validate(&hand).is_err());
    let other = model("odedstein_torus.obj");
    assert!(back.validate(&other).is_err(), "a tree of another mesh");
    // A corrupt file does not even deserialize: the layout (no cycle, no
    // index out of range, every triangle in one leaf) and finite boxes are
    // checked on the way in, with the fault named.
    let mut nan = back.clone();
    nan.nodes[1].center.x = f32::NAN;
    let mut twice = back.clone();
    let n = twice.order.len();
    twice.order[n - 1] = twice.order[0];
    for (what, bad) in [
        ("cycle", &cycle),
        ("leaf out of range", &far),
        ("NaN box", &nan),
        ("triangle twice", &twice),
    ] {
        let json = serde_json::to_string(bad).expect("serialize");
        let err = serde_json::from_str::<ObbTree>(&json).expect_err(what);
        // (JSON writes NaN as null, refused by the reader itself; binary
        // formats reach the finite-box check.)
        let named = ["node", "primitive", "null"]
            .iter()
            .any(|w| err.to_string().contains(w));
        assert!(named, "{what}: {err}");
    }
    let aabb = AabbTree::build_mesh(&hand, &AabbTreeOptions::default());
    let json = serde_json::to_string(&aabb).expect("serialize");
    assert_eq!(
        serde_json::from_str::<AabbTree>(&json).expect("deserialize"),
        aabb
    );
    let mut nan = aabb.clone();
    nan.nodes[0].aabb.max.y = f32::INFINITY;
    let json = serde_json::to_string(&nan).expect("serialize");
    assert!(
        serde_json::from_str::<AabbTree>(&json).is_err(),
        "an infinite box"
    );
    // The shipped tree answers like the built one.
    let mut scratch = CollideScratch::default();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let pose = Pose::from_translation(Vec3::new(0.02, 0.01, 0.0));
    let s = |t| MeshSide::new(&hand, t, Pose::IDENTITY);
    let moved = MeshSide::new(&hand, &tree, pose);
    collide(&s(&tree), &moved, ContactMode::All, &mut scratch, &mut a);
    collide(&s(&back), &moved, ContactMode::All, &mut scratch, &mut b);
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn a_larger_box_epsilon_only_costs_box_tests() {
    use bevy_icollide::bvh::collide_with_eps;
    let hand = model("odedstein_hand_lowres.obj");
    let tree = tree_of(&hand);
    let mut scratch = CollideScratch::default();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut rng = Rng::new(8);
    for _ in 0..50 {
        let pa = Pose::new(rng.rotation(), rng.in_cube(0.05));
        let pb = Pose::new(rng.rotation(), rng.in_cube(0.05));
        let (sa, sb) = (
            MeshSide::new(&hand, &tree, pa),
            MeshSide::new(&hand, &tree, pb),
        );
        let tight = collide_with_eps(&sa, &sb, ContactMode::All, 1e-6, &mut scratch, &mut a);
        let loose = collide_with_eps(&sa, &sb, ContactMode::All, 1e-2, &mut scratch, &mut b);
        let (sa_set, sb_set): (BTreeSet<_>, BTreeSet<_>) = (a.iter().collect(), b.iter().collect());
        assert_eq!(sa_set, sb_set);
        assert!(loose.box_tests >= tight.box_tests);
    }
}
