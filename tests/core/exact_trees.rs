//! Every tree combination against an independent exact brute force, at the
//! placements that break rounding: a model against its own copy at the
//! identity, at offsets of 2⁻²⁴, 2⁻¹² and 10⁻³ along each axis, two
//! one-triangle meshes sharing a vertex or an edge, seeded random poses at
//! grazing contact, both bodies far from the origin, scaled meshes.
//!
//! **What "exact" means here.** A query maps B's triangles into A's frame
//! by the relative pose `pose_a⁻¹ · pose_b` computed in `f32`, each vertex
//! by that pose in `f32` (`MeshSide::mapped_triangle`), and decides each
//! triangle pair exactly on those coordinates. The reference takes the
//! same `f32` coordinates (A's vertices scaled, B's scaled and mapped by
//! the same `f32` relative pose), converts them to `f64` (exactly), and
//! decides every pair with its own closed segment–triangle tests on exact
//! orientation predicates (Shewchuk's, the `robust` crate, exact for `f64`
//! inputs), touching counting as intersecting (`testkit::touching_pairs`).
//! It shares no code with the trees or with `tritri`. A pair the trees miss is then a box test that
//! rejected a touching pair.
//!
//! Sizes: the low-resolution hand (1602 triangles) by default; with
//! `ICOLLIDE_LONG` set, the torus and the teapot too and more random poses.

use std::collections::BTreeSet;

use crate::common::model;
use bevy_icollide::bvh::{
    AabbTree, AabbTreeOptions, CollideOptions, CollideScratch, ContactMode, DeformingTree,
    MeshSide, ObbTree, SatTest, SplitRule, TreeKind, TreePair, collide_with,
};
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::query::intersecting_triangles;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{self, Rng, touching_pairs};
use glam::{DVec3, Vec3};

/// A's triangles scaled, B's scaled and mapped by the `f32` relative pose:
/// the coordinates the queries decide on, in `f64`.
fn query_triangles(a: &Side, b: &Side) -> (Vec<[DVec3; 3]>, Vec<[DVec3; 3]>) {
    let rel = a.pose.inverse().mul(&b.pose);
    let tris = |s: &Side, map: &dyn Fn(Vec3) -> Vec3| -> Vec<[DVec3; 3]> {
        (0..s.mesh.triangles().len())
            .map(|t| s.mesh.triangle(t).map(|p| map(p * s.scale).as_dvec3()))
            .collect()
    };
    (tris(a, &|p| p), tris(b, &|p| rel.transform_point(p)))
}

/// Every touching triangle pair (see the module docs).
fn reference_pairs(a: &Side, b: &Side) -> BTreeSet<[u32; 2]> {
    let (ta, tb) = query_triangles(a, b);
    touching_pairs(&ta, &tb)
}

// --------------------------------------------------------------- sides

/// One body: a mesh, its pose, its scale.
struct Side<'a> {
    mesh: &'a TriMesh,
    pose: Pose,
    scale: Vec3,
}

/// Every tree of a mesh: OBB, AABB, an AABB tree refit from another shape,
/// and a deforming tree refit likewise (their topology is not the one a
/// fresh build of these vertices gives).
struct Trees {
    obb: ObbTree,
    aabb: AabbTree,
    refit: AabbTree,
    deforming: DeformingTree,
}

impl Trees {
    fn new(mesh: &TriMesh) -> Self {
        let mut rng = Rng::new(mesh.triangles().len() as u64);
        let size = mesh
            .vertices()
            .iter()
            .fold(0.0f32, |s, p| s.max(p.abs().max_element()));
        let moved: Vec<Vec3> = mesh
            .vertices()
            .iter()
            .map(|p| *p + rng.in_cube(0.2 * size))
            .collect();
        let other = TriMesh::new(moved, mesh.triangles().to_vec()).expect("mesh");
        let options = AabbTreeOptions::default();
        let mut refit = AabbTree::build_mesh(&other, &options);
        refit.refit(mesh.vertices(), mesh.triangles());
        let mut deforming = DeformingTree::build(&other, &options);
        deforming.refit(mesh.vertices()).expect("same vertex count");
        let obb = ObbTree::build(mesh.vertices(), mesh.triangles(), SplitRule::Mean, 1);
        obb.validate(mesh).expect("a valid OBB tree");
        Trees {
            obb,
            aabb: AabbTree::build_mesh(mesh, &options),
            refit,
            deforming,
        }
    }
}

fn side<'a, N>(s: &Side<'a>, tree: &'a bevy_icollide::bvh::Bvh<N>) -> MeshSide<'a, N> {
    MeshSide::new(s.mesh, tree, s.pose).with_scale(s.scale)
}

/// The pairs one tree combination reports (every pair once), and that
/// `First` finds one exactly when there are any.
fn pairs_of<NA: TreePair<NB>, NB: bevy_icollide::bvh::BoxNode>(
    a: &MeshSide<'_, NA>,
    b: &MeshSide<'_, NB>,
    sat: SatTest,
    what: &str,
) -> BTreeSet<[u32; 2]> {
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
    let options = |mode| CollideOptions {
        mode,
        sat,
        ..CollideOptions::default()
    };
    collide_with(a, b, &options(ContactMode::All), &mut scratch, &mut out);
    let all: BTreeSet<[u32; 2]> = out.iter().copied().collect();
    assert_eq!(all.len(), out.len(), "{what}: a pair twice");
    collide_with(a, b, &options(ContactMode::First), &mut scratch, &mut out);
    assert_eq!(out.is_empty(), all.is_empty(), "{what}: First");
    all
}

/// Every tree combination (and the query API on unscaled sides) against
/// the reference; returns the number of touching pairs.
fn check<'a>(a: &Side<'a>, ta: &'a Trees, b: &Side<'a>, tb: &'a Trees, what: &str) -> usize {
    let want = reference_pairs(a, b);
    let (oa, ob) = (side(a, &ta.obb), side(b, &tb.obb));
    let (xa, xb) = (side(a, &ta.aabb), side(b, &tb.aabb));
    let (ra, rb) = (side(a, &ta.refit), side(b, &tb.refit));
    let (da, db) = (side(a, ta.deforming.tree()), side(b, tb.deforming.tree()));
    let missed = |got: BTreeSet<[u32; 2]>, name: &str| {
        let miss = want.difference(&got).count();
        let extra = got.difference(&want).count();
        assert!(
            miss == 0 && extra == 0,
            "{what}, {name}: {miss} of {} touching pairs missed, {extra} extra (first missed: {:?})",
            want.len(),
            want.difference(&got).next()
        );
    };
    let full = SatTest::Full;
    missed(pairs_of(&oa, &ob, full, what), "OBB × OBB");
    missed(pairs_of(&oa, &xb, full, what), "OBB × AABB");
    missed(pairs_of(&xa, &ob, full, what), "AABB × OBB");
    for sat in [SatTest::Full, SatTest::Lite] {
        let name = |n: &str| format!("{n}, {sat:?}");
        missed(pairs_of(&xa, &xb, sat, what), &name("AABB × AABB"));
        missed(pairs_of(&ra, &rb, sat, what), &name("refit × refit"));
        missed(pairs_of(&da, &xb, sat, what), &name("deforming × AABB"));
        missed(pairs_of(&xa, &db, sat, what), &name("AABB × deforming"));
    }
    missed(pairs_of(&da, &ob, full, what), "deforming × OBB");
    missed(pairs_of(&oa, &rb, full, what), "OBB × refit");
    if a.scale == Vec3::ONE && b.scale == Vec3::ONE {
        for kind in [TreeKind::Obb, TreeKind::Aabb] {
            let shape = |m: &TriMesh| {
                SharedShape::trimesh_with_tree(m.vertices().to_vec(), m.triangles().to_vec(), kind)
                    .expect("shape")
            };
            let (sa, sb) = (shape(a.mesh), shape(b.mesh));
            let got = intersecting_triangles(&sa, &a.pose, &sb, &b.pose, ContactMode::All)
                .expect("query");
            missed(
                got.into_iter().collect(),
                &format!("intersecting_triangles, {kind:?}"),
            );
        }
    }
    want.len()
}

// --------------------------------------------------------------- scenes

/// The models of a run: the hand; under `ICOLLIDE_LONG` the torus and the
/// teapot too.
fn models() -> Vec<(&'static str, TriMesh)> {
    let mut names = vec!["odedstein_hand_lowres.obj"];
    if testkit::long_run() {
        names.extend(["odedstein_torus.obj", "o3dv_utah_teapot.stl.obj"]);
    }
    names.into_iter().map(|n| (n, model(n))).collect()
}

fn at(mesh: &TriMesh, pose: Pose) -> Side<'_> {
    Side {
        mesh,
        pose,
        scale: Vec3::ONE,
    }
}

/// A model against its own copy at the identity and at exact offsets
/// along each axis (both ways under `ICOLLIDE_LONG`).
#[test]
fn a_model_against_its_copy_at_exact_offsets() {
    for (name, mesh) in models() {
        let trees = Trees::new(&mesh);
        let id = at(&mesh, Pose::IDENTITY);
        let n = check(&id, &trees, &id, &trees, &format!("{name} at the identity"));
        assert!(n > mesh.triangles().len(), "{name}: {n} touching pairs");
        // Both signs of each axis under `ICOLLIDE_LONG`, one each by default.
        let axes = [Vec3::X, -Vec3::Y, Vec3::Z, -Vec3::X, Vec3::Y, -Vec3::Z];
        let axes = if testkit::long_run() {
            &axes[..]
        } else {
            &axes[..3]
        };
        for d in [2f32.powi(-24), 2f32.powi(-12), 1e-3] {
            for &axis in axes {
                let moved = at(&mesh, Pose::from_translation(axis * d));
                check(
                    &id,
                    &trees,
                    &moved,
                    &trees,
                    &format!("{name} offset {d} along {axis}"),
                );
            }
        }
    }
}

/// Pairs of triangles of `mesh` sharing an edge (up to `edges`), or only a
/// vertex with boxes that only touch (one's largest coordinate on an axis
/// is the other's smallest; up to `vertices`), as one-triangle meshes.
fn sharing_pairs(mesh: &TriMesh, vertices: usize, edges: usize) -> Vec<(TriMesh, TriMesh, usize)> {
    let (v, tris) = (mesh.vertices(), mesh.triangles());
    let single = |t: &[u32; 3]| {
        TriMesh::new(t.iter().map(|&i| v[i as usize]).collect(), vec![[0, 1, 2]]).expect("mesh")
    };
    let bounds = |t: &[u32; 3]| Aabb::from_points(t.map(|i| v[i as usize]));
    let (mut out, mut found) = (Vec::new(), [0usize; 2]);
    for (i, ti) in tris.iter().enumerate() {
        for tj in &tris[i + 1..] {
            let shared = ti.iter().filter(|k| tj.contains(k)).count();
            let (bi, bj) = (bounds(ti), bounds(tj));
            let touch = (0..3).any(|k| bi.max[k] == bj.min[k] || bj.max[k] == bi.min[k]);
            let wanted = match shared {
                1 if touch => vertices,
                2 => edges,
                _ => 0,
            };
            if found[shared.clamp(1, 2) - 1] < wanted {
                found[shared - 1] += 1;
                out.push((single(ti), single(tj), shared));
            }
        }
    }
    assert_eq!(found, [vertices, edges], "vertex- and edge-sharing pairs");
    out
}

/// Triangles of the hand sharing a vertex or an edge (see
/// [`sharing_pairs`]), as two one-triangle meshes: at the identity, at a
/// common random pose (near and far from the origin), scaled alike.
#[test]
fn one_triangle_meshes_sharing_a_vertex_or_an_edge() {
    let hand = model("odedstein_hand_lowres.obj");
    let mut rng = Rng::new(7);
    for (ma, mb, shared) in sharing_pairs(
        &hand,
        400 * testkit::long_factor(),
        100 * testkit::long_factor(),
    ) {
        let (ta, tb) = (Trees::new(&ma), Trees::new(&mb));
        let what = format!("triangles {:?} and {:?}", ma.vertices(), mb.vertices());
        let n = check(
            &at(&ma, Pose::IDENTITY),
            &ta,
            &at(&mb, Pose::IDENTITY),
            &tb,
            &what,
        );
        assert_eq!(n, 1, "{what}: they share {shared} vertices");
        for far in [1.0, 1e4, 1e6] {
            let pose = Pose::new(rng.rotation(), rng.unit_vector() * far);
            check(
                &at(&ma, pose),
                &ta,
                &at(&mb, pose),
                &tb,
                &format!("{what} at {pose:?}"),
            );
        }
        let s = rng.vec(0.5, 3.0);
        let scaled = |m| Side {
            mesh: m,
            pose: Pose::IDENTITY,
            scale: s,
        };
        check(
            &scaled(&ma),
            &ta,
            &scaled(&mb),
            &tb,
            &format!("{what} scaled by {s}"),
        );
    }
}

/// Seeded random poses at grazing contact: B moved along a random
/// direction to the last touching step of a bisection, then both bodies
/// moved far from the origin (both poses translated alike), and scaled.
#[test]
fn random_poses_at_grazing_contact() {
    for (name, mesh) in models() {
        let trees = Trees::new(&mesh);
        let size = mesh
            .vertices()
            .iter()
            .fold(0.0f32, |s, p| s.max(p.abs().max_element()));
        let mut rng = Rng::new(11);
        for k in 0..4 * testkit::long_factor() {
            let (ra, rb) = (rng.rotation(), rng.rotation());
            let dir = rng.unit_vector();
            let touches = |d: f32| {
                let a = MeshSide::new(&mesh, &trees.obb, Pose::new(ra, Vec3::ZERO));
                let b = MeshSide::new(&mesh, &trees.obb, Pose::new(rb, dir * d));
                let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
                let options = CollideOptions {
                    mode: ContactMode::First,
                    ..CollideOptions::default()
                };
                collide_with(&a, &b, &options, &mut scratch, &mut out);
                !out.is_empty()
            };
            let (mut lo, mut hi) = (0.0f32, 4.0 * size);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if touches(mid) { lo = mid } else { hi = mid }
            }
            for far in [0.0, 1e4, 1e6] {
                let shift = Vec3::new(1.0, -0.7, 0.4) * far;
                let (pa, pb) = (Pose::new(ra, shift), Pose::new(rb, shift + dir * lo));
                let what = format!("{name}, pose {k}, at {far}");
                check(&at(&mesh, pa), &trees, &at(&mesh, pb), &trees, &what);
            }
            let s = rng.vec(0.5, 2.0);
            let scaled = |pose| Side {
                mesh: &mesh,
                pose,
                scale: s,
            };
            let (pa, pb) = (
                Pose::new(ra, Vec3::ZERO),
                Pose::new(rb, dir * lo * s.max_element()),
            );
            check(
                &scaled(pa),
                &trees,
                &scaled(pb),
                &trees,
                &format!("{name}, pose {k} scaled"),
            );
        }
    }
}

/// Two one-triangle bodies sharing a vertex (see [`sharing_pairs`]) start
/// touching in the world exactly when the reference says their triangles
/// touch (in the first body's frame, as the world tests the pair), whatever
/// their trees: rigid (OBB or AABB) or deformable; at the identity (where
/// they do) and at a common random pose near or far from the origin.
#[test]
fn bodies_sharing_a_vertex_start_touching_in_the_world() {
    let hand = model("odedstein_hand_lowres.obj");
    let mut rng = Rng::new(13);
    for (ma, mb, _) in sharing_pairs(&hand, 400 * testkit::long_factor(), 0) {
        let far = [1.0, 1e4, 1e6][rng.below(3)];
        for pose in [
            Pose::IDENTITY,
            Pose::new(rng.rotation(), rng.unit_vector() * far),
        ] {
            let want = !reference_pairs(&at(&ma, pose), &at(&mb, pose)).is_empty();
            assert!(want || pose != Pose::IDENTITY, "they share a vertex");
            for kind in [TreeKind::Obb, TreeKind::Aabb] {
                for deformable in [false, true] {
                    let what = format!("{:?} and {:?} at {pose:?}", ma.vertices(), mb.vertices());
                    let what = format!("{what}, {kind:?}, deformable {deformable}");
                    world_pair(&ma, &mb, pose, (kind, deformable), want, &what);
                }
            }
        }
    }
}

/// Two one-triangle bodies at `pose`, one step: one start event and a
/// touching pair exactly when `want`.
fn world_pair(
    ma: &TriMesh,
    mb: &TriMesh,
    pose: Pose,
    (kind, deformable): (TreeKind, bool),
    want: bool,
    what: &str,
) {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("world");
    let bodies = [ma, mb].map(|m| {
        let (v, t) = (m.vertices().to_vec(), m.triangles().to_vec());
        let shape = SharedShape::trimesh_with_tree(v, t, kind).expect("triangle");
        let h = world.add_body(BodyDesc::new(shape));
        world.set_pose(h, pose).expect("pose");
        if deformable {
            world.set_vertices(h, m.vertices()).expect("vertices");
        }
        h
    });
    let starts = world.step().filter(|e| e.started).count();
    assert_eq!(starts, usize::from(want), "{what}: start events");
    let pair = world.pair(bodies[0], bodies[1]);
    assert_eq!(
        pair.is_some_and(|p| p.result.touching),
        want,
        "{what}: touching"
    );
}
