//! SOLID-style AABB trees for deformable meshes (van den Bergen, *Efficient
//! collision detection of complex deformable models using AABB trees*, JGT
//! 2(4), 1997), side by side with our OBB trees and parry3d.
//!
//! Four scenes, all in one run:
//!
//! 1. **`cloth`**: a 128 × 128 grid of quads (32 768 triangles, 129²
//!    vertices) in the xz plane over `[-1, 1]²`, under a moving wave
//!    `y = 0.1 sin(6x + t) cos(4z - t)`; 100 precomputed frames
//!    (`t = 0.05 k`), played back and forth ([`PingPong`]) so that every
//!    step is one frame of motion. Before timing, the tree refit to a few
//!    frames must have the root box of a tree built afresh on them
//!    (asserted). Time per frame (one criterion iteration = one frame):
//!    - `ours_refit`: `TriMesh::set_vertices` + `DeformingTree::refit` on
//!      our mesh and its tree, as a deformable body does it (the whole
//!      iteration is timed);
//!    - `ours_rebuild_aabb`: `AabbTree::build_mesh` (median split, one
//!      triangle per leaf) on the frame's mesh (the vertex copy into the
//!      mesh is done before the clock starts; dropping the tree after it
//!      stops);
//!    - `ours_rebuild_in_place`: `DeformingTree::rebuild` (what a
//!      deformable body's `rebuild_tree` does: the same tree in the last
//!      build's buffers, no allocation, then the leaves' refit records) on
//!      the frame's mesh (the vertex copy is done before the clock starts);
//!    - `ours_rebuild_obb`: `ObbTree::build` (mean split, one triangle per
//!      leaf) on the frame's positions;
//!    - `parry_set_vertices`: parry3d's `TriMesh::set_vertices` (copy and
//!      BVH refit) on a mesh built with `TriMeshFlags::DEFORMABLE`.
//!
//!    Printed: the node size, the boxes updated per refit (`N_u`), where a
//!    refit frame goes (vertex copy and tree refit timed apart over two
//!    ping-pong periods, outside criterion), refit µs, rebuild ms, parry µs,
//!    and the targets: rebuild/refit ≥ 10× (AABB rebuild), parry/ours refit
//!    ≥ 2×, refit ≤ 0.15 ms, AABB build ≤ 2.5 ms, OBB build ≤ 10 ms.
//! 2. **`cloth_query`**: each frame, a rigid sphere ([`cube_sphere`]`(0.3,
//!    12)`, 1 728 triangles, with an OBB tree and an AABB tree) at a fixed
//!    point over the cloth: center `(0.2, y, -0.1)`, `y` tuned once
//!    (bisection over the 100 frames) so that the sphere cuts the cloth on
//!    about half of the frames. One criterion iteration = one frame: the
//!    cloth is first brought to the next frame (set_vertices + refit for
//!    ours, `set_vertices` for parry), *not* timed, then one query is timed:
//!    ours `All` and `First` (cloth AABB tree against the sphere's AABB
//!    tree: SOLID's traversal), ours `All` against the sphere's OBB tree
//!    (the mixed, RAPID-style path), parry3d's `intersection_test` (deformed
//!    parry cloth against a parry sphere mesh). A check pass over the 100
//!    frames asserts that our three queries agree (same pairs, same
//!    boolean), gives their mean box and triangle tests per frame, and
//!    counts the frames where parry's boolean differs from ours (ours is
//!    exact; listed with parry's `contact` distance, not asserted).
//! 3. **`table`**: van den Bergen's random-placement table. Models, each
//!    against itself: the 32 768-triangle torus (`torus(1, 0.2, 128, 128)`,
//!    outer radius 1.2, as in `mesh_collide`), `odedstein_wingnut.obj` and
//!    `o3dv_utah_teapot.stl.obj` (centered on their bounding box and scaled
//!    to a bounding radius of 1). 1 000 placements per model (uniform random
//!    rotations, Shoemake, and uniform positions in `[-h, h]³`, `h` tuned by
//!    bisection on 200 other placements for about half collisions). Per
//!    tree type (`OBB`: mean split; `AABB+SAT`: median split, 15-axis test;
//!    `AABB+lite`: same tree, 6 face axes) with `All`: the mean box tests
//!    `N_v` and triangle tests `N_p` per query and `T`, the µs per query of
//!    a full pass over the 1 000 placements (best of 3 passes, the tree
//!    types interleaved). `C_p` is measured apart: our exact triangle test
//!    (B's triangle mapped into A's frame, as the query does) over the
//!    triangle pairs of the same placements whose axis-aligned boxes in A's
//!    frame overlap (a strided sample of at most 100 000 pairs), timed on
//!    its intersecting pairs and on the others apart (best of 3 passes
//!    each). The exact test costs more on intersecting pairs, and the
//!    trees test very different mixes (every tree finds the same
//!    intersecting pairs `P`, but OBB leaves are much tighter), so each row
//!    gets `C_p = (P C_hit + (N_p - P) C_miss) / N_p`; then
//!    `C_v = (T - N_p C_p) / N_v` (everything a query does besides its
//!    triangle tests, per box test). The three tree types must find the
//!    same number of intersecting triangle pairs on every placement
//!    (asserted).
//! 4. **`build`**: our AABB and OBB trees over the 32k torus and parry3d's
//!    `TriMesh::new` (which builds its BVH), criterion median of 10 samples,
//!    targets AABB ≤ 2.5 ms and OBB ≤ 10 ms (one core: the builds are
//!    single-threaded). Each build is timed alone, its tree (and parry's
//!    mesh) dropped after the clock stops. The allocator's state weighs on
//!    these figures: on the main thread glibc may trim the heap when a
//!    tree and its build's scratch come free at its top (about 7 MB for
//!    the OBB tree), and the next build then faults every page in again.
//!    On the 2-core machine (2026-11-27) the OBB build run alone (`-- obb`)
//!    took about 1 700 page faults a build, a fifth of its time in the
//!    kernel; after the AABB build (the whole scene), 9 000 faults in all;
//!    in a loop on another thread, none. Since the OBB build keeps its
//!    per-triangle moments in `f32` (`bvh/obb_build.rs`, *Memory*) its
//!    scratch and tree stay under the trim threshold: `strace` counts 13
//!    calls to `brk` in such a run instead of 1 363.
//!
//! Criterion: 10 samples, 1 s warm-up, 2.5 s measurement, flat sampling.
//! The "median" printed is the median of the 10 samples' per-iteration
//! means. Seeds are fixed.
//!
//! Run: `cargo bench -p icollide-peers --bench solid`.
//! `ICOLLIDE_BENCH_SCENES=cloth,cloth_query,table,build` runs only some
//! scenes (default all).

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use bevy_icollide::bvh::{
    AabbNode, AabbTree, AabbTreeOptions, CollideOptions, CollideScratch, CollideStats, ContactMode,
    DeformingTree, MeshSide, ObbTree, SatTest, SplitRule, collide, collide_with, mapped_triangle,
};
use bevy_icollide::geometry::tritri::triangles_intersect;
use bevy_icollide::io::load_obj;
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{Rng, grid, torus};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use icollide_peers::timing::{
    Log, SAMPLES, configure, enabled, loadavg, mean_us, median_us, timed, timed_each, verdict,
};
use icollide_peers::{PingPong, cube_sphere, fit_to_ball, to_parry_pose, to_parry_trimesh};
use parry3d::math::Pose as ParryPose;
use parry3d::shape::{TriMesh as ParryTriMesh, TriMeshFlags};

/// Quads per side of the cloth.
const CLOTH_N: usize = 128;
/// Precomputed cloth frames.
const FRAMES: usize = 100;
/// Time step between frames.
const DT: f32 = 0.05;
/// Frames whose refit root box is compared with a fresh build's.
const CHECK_FRAMES: [usize; 4] = [0, 1, 42, 99];
/// The sphere of the cloth query: radius, cube-sphere grid, center in xz.
const SPHERE_RADIUS: f32 = 0.3;
const SPHERE_N: usize = 12;
const SPHERE_XZ: [f32; 2] = [0.2, -0.1];
/// Random placements per model of the table, and for tuning the cube.
const PLACEMENTS: usize = 1_000;
const TUNE_PLACEMENTS: usize = 200;
/// Timed passes over the placements (best kept).
const PASSES: usize = 3;
/// Largest sample of triangle pairs timed for `C_p`.
const CP_SAMPLE: usize = 100_000;
/// Disagreements listed in full.
const LIST: usize = 10;

// ---------------------------------------------------------------------------
// Scene 1: the cloth, refit against rebuild against parry.
// ---------------------------------------------------------------------------

/// The cloth's triangles and its precomputed frames.
struct Cloth {
    triangles: Vec<[u32; 3]>,
    frames: Vec<Vec<Vec3>>,
}

impl Cloth {
    fn new() -> Self {
        let triangles = grid(CLOTH_N, |_, _| 0.0).1;
        let frames = (0..FRAMES).map(|k| wave(DT * k as f32)).collect();
        Self { triangles, frames }
    }

    fn mesh(&self, f: usize) -> TriMesh {
        TriMesh::new(self.frames[f].clone(), self.triangles.clone()).expect("valid cloth")
    }

    fn parry(&self) -> ParryTriMesh {
        ParryTriMesh::with_flags(
            self.frames[0].clone(),
            self.triangles.clone(),
            TriMeshFlags::DEFORMABLE,
        )
        .expect("parry3d accepts the cloth")
    }
}

/// The cloth's vertices at time `t`.
fn wave(t: f32) -> Vec<Vec3> {
    grid(CLOTH_N, |x, z| {
        0.1 * (6.0 * x + t).sin() * (4.0 * z - t).cos()
    })
    .0
}

/// Our deforming cloth: the mesh, its AABB tree (as a deformable body
/// keeps it: [`DeformingTree`]) and where it is in the frame cycle.
struct Live {
    mesh: TriMesh,
    tree: DeformingTree,
    at: PingPong,
}

impl Live {
    fn new(cloth: &Cloth) -> Self {
        let mesh = cloth.mesh(0);
        let tree = DeformingTree::build(&mesh, &AabbTreeOptions::default());
        Self {
            mesh,
            tree,
            at: PingPong::new(FRAMES),
        }
    }

    /// Copies frame `f` into the mesh and refits the tree; returns `N_u`.
    #[inline]
    fn set_frame(&mut self, cloth: &Cloth, f: usize) -> u32 {
        self.mesh.set_vertices(&cloth.frames[f]).expect("finite");
        self.tree.refit(self.mesh.vertices()).expect("same count")
    }

    #[inline]
    fn next_frame(&mut self, cloth: &Cloth) -> u32 {
        let f = self.at.next();
        self.set_frame(cloth, f)
    }

    fn side(&self) -> MeshSide<'_, AabbNode> {
        MeshSide::new(&self.mesh, self.tree.tree(), Pose::IDENTITY)
    }
}

/// Refit against fresh builds on [`CHECK_FRAMES`]: same root box, valid
/// tree. Returns `N_u`.
fn check_refit(cloth: &Cloth) -> u32 {
    let mut live = Live::new(cloth);
    let mut updated = 0;
    for f in CHECK_FRAMES {
        updated = live.set_frame(cloth, f);
        let fresh = AabbTree::build_mesh(&live.mesh, &AabbTreeOptions::default());
        assert_eq!(
            live.tree.tree().nodes[0].aabb,
            fresh.nodes[0].aabb,
            "frame {f}: refit root box differs from a fresh build's"
        );
        live.tree
            .tree()
            .validate_mesh(&live.mesh)
            .expect("valid after refit");
    }
    updated
}

/// Medians of scene 1, µs.
#[derive(Clone, Copy, Debug)]
struct ClothFigures {
    refit: f64,
    aabb: f64,
    in_place: f64,
    obb: f64,
    parry: f64,
}

/// Where a refit frame goes: mean µs per frame of the vertex copy alone and
/// of the tree refit alone, over two ping-pong periods (not criterion).
fn refit_breakdown(cloth: &Cloth) -> (f64, f64) {
    let mut live = Live::new(cloth);
    let (mut copy, mut refit) = (Duration::ZERO, Duration::ZERO);
    let frames = 2 * PingPong::new(FRAMES).period();
    for _ in 0..frames {
        let f = live.at.next();
        let t = Instant::now();
        live.mesh.set_vertices(&cloth.frames[f]).expect("finite");
        let t1 = Instant::now();
        black_box(live.tree.refit(live.mesh.vertices()).expect("same count"));
        refit += t1.elapsed();
        copy += t1 - t;
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / frames as f64;
    (per(copy), per(refit))
}

/// The refit checks and the printed setup of scene 1; returns a fresh
/// deforming cloth.
fn cloth_setup(cloth: &Cloth) -> Live {
    let t0 = Instant::now();
    let n_u = check_refit(cloth);
    let live = Live::new(cloth);
    println!(
        "[cloth] {} triangles, {} vertices, {FRAMES} frames; AABB tree {} nodes x {} B \
         (size_of::<AabbNode>()), depth {}; refit updates N_u = {n_u} boxes per frame; refit \
         root box = fresh build's on frames {CHECK_FRAMES:?} (checked in {:.2} s)",
        cloth.triangles.len(),
        cloth.frames[0].len(),
        live.tree.tree().nodes.len(),
        size_of::<AabbNode>(),
        live.tree.tree().depth(),
        t0.elapsed().as_secs_f64(),
    );
    let (copy, refit) = refit_breakdown(cloth);
    println!(
        "[cloth] breakdown of ours_refit (mean over {} frames, outside criterion): \
         TriMesh::set_vertices {copy:.1} µs, DeformingTree::refit {refit:.1} µs",
        2 * PingPong::new(FRAMES).period()
    );
    live
}

fn bench_cloth(c: &mut Criterion, cloth: &Cloth) -> ClothFigures {
    let mut live = cloth_setup(cloth);
    let mut group = c.benchmark_group("solid/cloth");
    configure(&mut group);
    let mut logs: [Log; 5] = Default::default();
    group.bench_function("ours_refit", |b| {
        timed(b, &mut logs[0], || live.next_frame(cloth) as usize)
    });
    let mut at = PingPong::new(FRAMES);
    group.bench_function("ours_rebuild_aabb", |b| {
        timed_each(b, &mut logs[1], || {
            live.mesh
                .set_vertices(&cloth.frames[at.next()])
                .expect("ok");
            let t = Instant::now();
            let tree = AabbTree::build_mesh(&live.mesh, &AabbTreeOptions::default());
            let e = t.elapsed();
            black_box(tree);
            e
        })
    });
    let mut in_place = DeformingTree::build(&live.mesh, &AabbTreeOptions::default());
    group.bench_function("ours_rebuild_in_place", |b| {
        timed_each(b, &mut logs[4], || {
            live.mesh
                .set_vertices(&cloth.frames[at.next()])
                .expect("ok");
            let t = Instant::now();
            in_place.rebuild(&live.mesh);
            let e = t.elapsed();
            black_box(&in_place);
            e
        })
    });
    group.bench_function("ours_rebuild_obb", |b| {
        timed_each(b, &mut logs[2], || {
            let f = at.next();
            let t = Instant::now();
            let tree = ObbTree::build(&cloth.frames[f], &cloth.triangles, SplitRule::Mean, 1);
            let e = t.elapsed();
            black_box(tree);
            e
        })
    });
    let mut parry = cloth.parry();
    group.bench_function("parry_set_vertices", |b| {
        timed(b, &mut logs[3], || {
            parry.set_vertices(&cloth.frames[at.next()]);
            parry.indices().len()
        })
    });
    group.finish();
    let [refit, aabb, obb, parry, in_place] = logs.each_ref().map(median_us);
    ClothFigures {
        refit,
        aabb,
        in_place,
        obb,
        parry,
    }
}

fn report_cloth(f: &ClothFigures) {
    println!(
        "[cloth] per frame (median of {SAMPLES} samples): ours refit {:.1} µs, rebuild AABB \
         {:.3} ms (in place: {:.3} ms), rebuild OBB {:.3} ms, parry set_vertices {:.1} µs",
        f.refit,
        f.aabb / 1e3,
        f.in_place / 1e3,
        f.obb / 1e3,
        f.parry,
    );
    let targets = [
        (
            format!(
                "rebuild AABB / refit {:.1}x (OBB: {:.1}x)",
                f.aabb / f.refit,
                f.obb / f.refit
            ),
            "target >= 10x",
            f.aabb / f.refit >= 10.0,
        ),
        (
            format!("parry / ours refit {:.2}x", f.parry / f.refit),
            "target >= 2x",
            f.parry / f.refit >= 2.0,
        ),
        (
            format!("refit {:.3} ms", f.refit / 1e3),
            "target <= 0.15 ms",
            f.refit <= 150.0,
        ),
        (
            format!(
                "AABB build {:.3} ms (in place {:.3} ms)",
                f.aabb / 1e3,
                f.in_place / 1e3
            ),
            "target <= 2.5 ms",
            f.aabb <= 2_500.0,
        ),
        (
            format!("OBB build {:.3} ms", f.obb / 1e3),
            "target <= 10 ms",
            f.obb <= 10_000.0,
        ),
    ];
    for (what, target, met) in targets {
        println!("[cloth] {what} ({target}: {})", verdict(met));
    }
}

// ---------------------------------------------------------------------------
// Scene 2: a rigid sphere against the deforming cloth.
// ---------------------------------------------------------------------------

/// The rigid sphere, both trees, both crates.
struct Sphere {
    mesh: TriMesh,
    obb: ObbTree,
    aabb: AabbTree,
    parry: ParryTriMesh,
    pose: Pose,
    parry_pose: ParryPose,
}

impl Sphere {
    fn new() -> Self {
        let (p, t) = cube_sphere(SPHERE_RADIUS, SPHERE_N);
        let obb = ObbTree::build(&p, &t, SplitRule::Mean, 1);
        let mesh = TriMesh::new(p, t).expect("valid sphere");
        let aabb = AabbTree::build_mesh(&mesh, &AabbTreeOptions::default());
        let parry = to_parry_trimesh(&mesh);
        let mut s = Self {
            mesh,
            obb,
            aabb,
            parry,
            pose: Pose::IDENTITY,
            parry_pose: to_parry_pose(&Pose::IDENTITY),
        };
        s.place(0.0);
        s
    }

    /// Center at `(SPHERE_XZ[0], y, SPHERE_XZ[1])`.
    fn place(&mut self, y: f32) {
        let [x, z] = SPHERE_XZ;
        self.pose = Pose::from_translation(Vec3::new(x, y, z));
        self.parry_pose = to_parry_pose(&self.pose);
    }
}

/// Everything the cloth query needs: the cloth (ours and parry's), the
/// sphere, reusable buffers.
struct QueryScene<'c> {
    cloth: &'c Cloth,
    live: Live,
    parry: ParryTriMesh,
    parry_at: PingPong,
    sphere: Sphere,
    scratch: CollideScratch,
    out: Vec<[u32; 2]>,
}

/// Which of our queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SphereQuery {
    /// Cloth AABB tree against the sphere's AABB tree (SOLID).
    Aabb(ContactMode),
    /// Cloth AABB tree against the sphere's OBB tree, `All`.
    ObbAll,
}

impl<'c> QueryScene<'c> {
    fn new(cloth: &'c Cloth) -> Self {
        Self {
            cloth,
            live: Live::new(cloth),
            parry: cloth.parry(),
            parry_at: PingPong::new(FRAMES),
            sphere: Sphere::new(),
            scratch: CollideScratch::default(),
            out: Vec::new(),
        }
    }

    /// Our query on the current frame; the pairs are left in `out`.
    #[inline]
    fn ours(&mut self, q: SphereQuery) -> CollideStats {
        let s = &self.sphere;
        let (scratch, out) = (&mut self.scratch, &mut self.out);
        let cloth = self.live.side();
        match q {
            SphereQuery::Aabb(mode) => {
                let b = MeshSide::new(&s.mesh, &s.aabb, s.pose);
                collide(&cloth, &b, mode, scratch, out)
            }
            SphereQuery::ObbAll => {
                let b = MeshSide::new(&s.mesh, &s.obb, s.pose);
                collide(&cloth, &b, ContactMode::All, scratch, out)
            }
        }
    }

    /// parry3d's boolean on parry's current frame.
    #[inline]
    fn parry_hit(&self) -> bool {
        let cloth_pose = to_parry_pose(&Pose::IDENTITY);
        parry3d::query::intersection_test(
            &cloth_pose,
            &self.parry,
            &self.sphere.parry_pose,
            &self.sphere.parry,
        )
        .expect("parry3d supports trimesh-trimesh intersection tests")
        .intersecting
    }

    /// parry3d's `contact` distance on parry's current frame (negative:
    /// penetration; NaN: none within 0).
    fn parry_distance(&self) -> f32 {
        let cloth_pose = to_parry_pose(&Pose::IDENTITY);
        parry3d::query::contact(
            &cloth_pose,
            &self.parry,
            &self.sphere.parry_pose,
            &self.sphere.parry,
            0.0,
        )
        .ok()
        .flatten()
        .map_or(f32::NAN, |c| c.dist)
    }

    /// Brings both cloths to frame `f`.
    fn set_frame(&mut self, f: usize) {
        self.live.set_frame(self.cloth, f);
        self.parry.set_vertices(&self.cloth.frames[f]);
    }

    /// Fraction of the frames where the sphere at height `y` cuts the cloth.
    fn hit_fraction(&mut self, y: f32) -> f64 {
        self.sphere.place(y);
        let hits = (0..FRAMES)
            .filter(|&f| {
                self.live.set_frame(self.cloth, f);
                self.ours(SphereQuery::Aabb(ContactMode::First));
                !self.out.is_empty()
            })
            .count();
        hits as f64 / FRAMES as f64
    }

    /// Places the sphere at the height where it cuts the cloth on about
    /// half of the frames (bisection); returns the height.
    fn tune_height(&mut self) -> f32 {
        let (mut lo, mut hi) = (0.0f32, 0.1 + SPHERE_RADIUS);
        for _ in 0..20 {
            let mid = 0.5 * (lo + hi);
            if self.hit_fraction(mid) > 0.5 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let y = 0.5 * (lo + hi);
        self.sphere.place(y);
        y
    }
}

/// What the check pass of scene 2 found.
#[derive(Clone, Debug, Default)]
struct QueryCheck {
    hits: usize,
    pairs: usize,
    /// Box and triangle tests summed over the frames, per query of
    /// [`CHECKED`].
    tests: [(u64, u64); 3],
    /// `(frame, ours, our pairs, parry's contact distance)` where parry's
    /// boolean differs from ours.
    disagreements: Vec<(usize, bool, usize, f32)>,
}

/// Our queries in the order of [`QUERY_NAMES`].
const CHECKED: [SphereQuery; 3] = [
    SphereQuery::Aabb(ContactMode::All),
    SphereQuery::Aabb(ContactMode::First),
    SphereQuery::ObbAll,
];

/// One pass over the frames: our three queries agree (asserted); parry's
/// boolean against ours (counted).
fn check_queries(s: &mut QueryScene<'_>) -> QueryCheck {
    let mut check = QueryCheck::default();
    for f in 0..FRAMES {
        s.set_frame(f);
        let mut found: [Vec<[u32; 2]>; 3] = Default::default();
        for (k, q) in CHECKED.into_iter().enumerate() {
            let st = s.ours(q);
            check.tests[k].0 += u64::from(st.box_tests);
            check.tests[k].1 += u64::from(st.triangle_tests);
            found[k] = s.out.clone();
            found[k].sort_unstable();
        }
        assert_eq!(
            found[0], found[2],
            "frame {f}: SOLID and mixed paths differ"
        );
        let (n, first) = (found[0].len(), !found[1].is_empty());
        assert_eq!(first, n > 0, "frame {f}: First and All disagree");
        check.hits += usize::from(first);
        check.pairs += n;
        if s.parry_hit() != first {
            check.disagreements.push((f, first, n, s.parry_distance()));
        }
    }
    check
}

/// Per-query medians and means of scene 2, µs.
#[derive(Clone, Copy, Debug)]
struct QueryFigures {
    median: [f64; 4],
    mean: [f64; 4],
    disagreements: usize,
}

const QUERY_NAMES: [&str; 4] = [
    "ours_all",
    "ours_first",
    "ours_all_obb_sphere",
    "parry_intersection_test",
];

fn bench_cloth_query(c: &mut Criterion, cloth: &Cloth) -> QueryFigures {
    let t0 = Instant::now();
    let mut s = QueryScene::new(cloth);
    let y = s.tune_height();
    let check = check_queries(&mut s);
    report_query_check(&s, y, &check, t0);
    let mut group = c.benchmark_group("solid/cloth_query");
    configure(&mut group);
    let mut logs: [Log; 4] = Default::default();
    for (k, q) in CHECKED.into_iter().enumerate() {
        group.bench_function(QUERY_NAMES[k], |b| {
            timed_each(b, &mut logs[k], || {
                s.live.next_frame(cloth);
                let t = Instant::now();
                black_box(s.ours(q));
                t.elapsed()
            })
        });
    }
    group.bench_function(QUERY_NAMES[3], |b| {
        timed_each(b, &mut logs[3], || {
            let f = s.parry_at.next();
            s.parry.set_vertices(&cloth.frames[f]);
            let t = Instant::now();
            black_box(s.parry_hit());
            t.elapsed()
        })
    });
    group.finish();
    QueryFigures {
        median: logs.each_ref().map(median_us),
        mean: logs.each_ref().map(mean_us),
        disagreements: check.disagreements.len(),
    }
}

fn report_query_check(s: &QueryScene<'_>, y: f32, check: &QueryCheck, t0: Instant) {
    println!(
        "[cloth_query] sphere: {} triangles (OBB tree {} nodes, AABB tree {} nodes), center \
         ({}, {y:.4}, {}) (height tuned for half of the frames); cuts the cloth on {} of \
         {FRAMES} frames, {:.1} intersecting triangle pairs per frame; setup and checks {:.2} s",
        s.sphere.mesh.triangles().len(),
        s.sphere.obb.nodes.len(),
        s.sphere.aabb.nodes.len(),
        SPHERE_XZ[0],
        SPHERE_XZ[1],
        check.hits,
        check.pairs as f64 / FRAMES as f64,
        t0.elapsed().as_secs_f64(),
    );
    println!(
        "[cloth_query] check: ours All (SOLID) = ours All (sphere OBB tree, mixed path) and \
         First = All on all {FRAMES} frames; parry intersection_test differs from ours (exact) \
         on {} frames",
        check.disagreements.len()
    );
    for &(f, ours, pairs, dist) in check.disagreements.iter().take(LIST) {
        println!(
            "[cloth_query] frame {f}: ours {ours} ({pairs} intersecting triangle pairs), parry \
             intersection_test {}, parry contact() dist {dist:.3e}",
            !ours
        );
    }
    if check.disagreements.len() > LIST {
        println!(
            "[cloth_query] ... {} more",
            check.disagreements.len() - LIST
        );
    }
    for (k, (boxes, tris)) in check.tests.iter().enumerate() {
        println!(
            "[cloth_query] {:<20} {:>9.1} box tests, {:>8.1} triangle tests per frame (mean \
             over the {FRAMES} frames)",
            QUERY_NAMES[k],
            *boxes as f64 / FRAMES as f64,
            *tris as f64 / FRAMES as f64,
        );
    }
}

fn report_query(f: &QueryFigures) {
    println!(
        "[cloth_query] µs/query, one query per frame after the (untimed) refit, median of \
         {SAMPLES} samples [mean over the samples' queries]:"
    );
    for (k, name) in QUERY_NAMES.iter().enumerate() {
        println!(
            "[cloth_query]   {name:<24} {:>8.2} [{:>8.2}]",
            f.median[k], f.mean[k]
        );
    }
    println!(
        "[cloth_query] parry intersection_test / ours All {:.2}x, / ours First {:.2}x; {} \
         boolean disagreements with parry",
        f.median[3] / f.median[0],
        f.median[3] / f.median[1],
        f.disagreements,
    );
}

// ---------------------------------------------------------------------------
// Scene 3: van den Bergen's random-placement table.
// ---------------------------------------------------------------------------

/// A model with both kinds of tree.
struct Model {
    name: String,
    mesh: TriMesh,
    obb: ObbTree,
    aabb: AabbTree,
}

impl Model {
    fn new(name: &str, positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Self {
        let obb = ObbTree::build(&positions, &triangles, SplitRule::Mean, 1);
        let mesh = TriMesh::new(positions, triangles).expect("valid mesh");
        let aabb = AabbTree::build_mesh(&mesh, &AabbTreeOptions::default());
        Self {
            name: name.into(),
            mesh,
            obb,
            aabb,
        }
    }

    fn from_obj(file: &str) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../assets/meshes")
            .join(file);
        let obj = load_obj(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = file.split('.').next().unwrap_or(file);
        Self::new(name, fit_to_ball(&obj.positions, 1.0), obj.triangles)
    }

    /// Farthest vertex from the model's origin.
    fn radius(&self) -> f32 {
        self.mesh
            .vertices()
            .iter()
            .map(|p| p.length())
            .fold(0.0, f32::max)
    }
}

/// The tree types of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TreeKind {
    Obb,
    AabbSat,
    AabbLite,
}

impl TreeKind {
    const ALL: [TreeKind; 3] = [TreeKind::Obb, TreeKind::AabbSat, TreeKind::AabbLite];

    fn label(self) -> &'static str {
        match self {
            TreeKind::Obb => "OBB",
            TreeKind::AabbSat => "AABB+SAT",
            TreeKind::AabbLite => "AABB+lite",
        }
    }
}

/// Both copies of a model at one placement.
#[derive(Clone, Copy)]
struct Placement {
    a: Pose,
    b: Pose,
}

/// The model against itself at `p` with the tree type `kind`.
#[inline]
fn query(
    m: &Model,
    kind: TreeKind,
    p: &Placement,
    mode: ContactMode,
    scratch: &mut CollideScratch,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    let obb = |pose| MeshSide::new(&m.mesh, &m.obb, pose);
    let aabb = |pose| MeshSide::new(&m.mesh, &m.aabb, pose);
    let sat = match kind {
        TreeKind::Obb => return collide(&obb(p.a), &obb(p.b), mode, scratch, out),
        TreeKind::AabbSat => SatTest::Full,
        TreeKind::AabbLite => SatTest::Lite,
    };
    let options = CollideOptions {
        mode,
        sat,
        ..Default::default()
    };
    collide_with(&aabb(p.a), &aabb(p.b), &options, scratch, out)
}

/// Two uniform rotations and two points of `[-1, 1]³` per placement; the
/// placements for half-side `h` scale the points (common random numbers).
struct UnitSamples(Vec<[(Quat, Vec3); 2]>);

impl UnitSamples {
    fn new(seed: u64, n: usize) -> Self {
        let mut rng = Rng::new(seed);
        let mut one = || (rng.rotation(), rng.in_cube(1.0));
        Self((0..n).map(|_| [one(), one()]).collect())
    }

    fn placements(&self, h: f32) -> Vec<Placement> {
        self.0
            .iter()
            .map(|[(ra, ta), (rb, tb)]| Placement {
                a: Pose::new(*ra, *ta * h),
                b: Pose::new(*rb, *tb * h),
            })
            .collect()
    }
}

/// Half-side of the cube that gives about half collisions (bisection with
/// the OBB tree and `First` on [`TUNE_PLACEMENTS`] placements).
fn tune_half_side(m: &Model, seed: u64) -> f32 {
    let samples = UnitSamples::new(seed, TUNE_PLACEMENTS);
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
    let mut fraction = |h: f32| {
        let ps = samples.placements(h);
        let hits = ps
            .iter()
            .filter(|p| {
                query(
                    m,
                    TreeKind::Obb,
                    p,
                    ContactMode::First,
                    &mut scratch,
                    &mut out,
                );
                !out.is_empty()
            })
            .count();
        hits as f64 / ps.len() as f64
    };
    let (mut lo, mut hi) = (0.0f32, 2.0 * m.radius());
    for _ in 0..14 {
        let mid = 0.5 * (lo + hi);
        if fraction(mid) > 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// One tree type over all placements.
#[derive(Clone, Debug, Default)]
struct KindPass {
    box_tests: f64,
    triangle_tests: f64,
    /// Best pass, µs per query.
    us: f64,
    /// Intersecting triangle pairs per placement.
    pairs: Vec<usize>,
}

/// One timed pass of `kind` over `ps`; keeps the counts of the first.
fn run_pass(m: &Model, kind: TreeKind, ps: &[Placement], pass: &mut KindPass) {
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
    let mut pairs = Vec::with_capacity(ps.len());
    let (mut boxes, mut tris) = (0u64, 0u64);
    let t = Instant::now();
    for p in ps {
        let st = query(m, kind, p, ContactMode::All, &mut scratch, &mut out);
        boxes += u64::from(st.box_tests);
        tris += u64::from(st.triangle_tests);
        pairs.push(out.len());
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / ps.len() as f64;
    let n = ps.len() as f64;
    if pass.pairs.is_empty() {
        *pass = KindPass {
            box_tests: boxes as f64 / n,
            triangle_tests: tris as f64 / n,
            us,
            pairs,
        };
    } else {
        pass.us = pass.us.min(us);
    }
}

/// The triangle pairs of the placements whose axis-aligned boxes overlap in
/// A's frame (B's triangles mapped by `A⁻¹ B`), as `(placement, a, b)`: a
/// strided sample of at most [`CP_SAMPLE`].
fn near_pairs(m: &Model, ps: &[Placement]) -> Vec<(u32, u32, u32)> {
    let root = m.aabb.nodes[0].aabb;
    let mut all = Vec::new();
    for (k, p) in ps.iter().enumerate() {
        let rel = p.a.inverse().mul(&p.b);
        for tb in 0..m.mesh.triangles().len() as u32 {
            let bx = Aabb::from_points(mapped_triangle(&m.mesh, tb, &rel));
            if root.overlaps(&bx) {
                m.aabb.for_each_overlap(&bx, |ta| {
                    all.push((k as u32, ta, tb));
                    true
                });
            }
        }
    }
    let stride = all.len().div_ceil(CP_SAMPLE).max(1);
    all.into_iter().step_by(stride).collect()
}

/// Cost of our exact triangle test on a sample of near triangle pairs.
#[derive(Clone, Copy, Debug, Default)]
struct PairCost {
    /// Pairs timed.
    sample: usize,
    /// Fraction of them that intersect.
    hit_fraction: f64,
    /// ns per test on the intersecting pairs, on the others, on all.
    hit: f64,
    miss: f64,
    all: f64,
}

impl PairCost {
    /// `C_p` of a query that tests `tests` pairs of which `hits` intersect:
    /// the intersecting ones at [`hit`](Self::hit), the rest at
    /// [`miss`](Self::miss).
    fn mixed(&self, tests: f64, hits: f64) -> f64 {
        (hits * self.hit + (tests - hits) * self.miss) / tests
    }
}

/// ns per exact triangle test (B's triangle mapped into A's frame
/// included, as in the query) over `pairs`, best of [`PASSES`].
fn time_tests(m: &Model, rels: &[Pose], pairs: &[(u32, u32, u32)]) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..PASSES {
        let t = Instant::now();
        for &(k, ta, tb) in pairs {
            let b = mapped_triangle(&m.mesh, tb, &rels[k as usize]);
            black_box(triangles_intersect(m.mesh.triangle(ta as usize), b));
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / pairs.len().max(1) as f64);
    }
    best
}

/// `C_p` over the sample: all of it, and its intersecting and
/// non-intersecting pairs apart.
fn triangle_cost(m: &Model, ps: &[Placement], sample: &[(u32, u32, u32)]) -> PairCost {
    let rels: Vec<Pose> = ps.iter().map(|p| p.a.inverse().mul(&p.b)).collect();
    let (hits, misses): (Vec<_>, Vec<_>) = sample.iter().partition(|&&(k, ta, tb)| {
        let b = mapped_triangle(&m.mesh, tb, &rels[k as usize]);
        triangles_intersect(m.mesh.triangle(ta as usize), b)
    });
    PairCost {
        sample: sample.len(),
        hit_fraction: hits.len() as f64 / sample.len().max(1) as f64,
        hit: time_tests(m, &rels, &hits),
        miss: time_tests(m, &rels, &misses),
        all: time_tests(m, &rels, sample),
    }
}

/// The table of one model.
#[derive(Clone, Debug)]
struct Table {
    name: String,
    half_side: f32,
    hit_fraction: f64,
    /// Intersecting triangle pairs per query (the same for every tree).
    pairs: f64,
    cost: PairCost,
    rows: Vec<(TreeKind, KindPass)>,
}

/// Runs [`PASSES`] interleaved passes of every tree type; asserts they find
/// the same number of pairs on every placement.
fn passes(m: &Model, ps: &[Placement]) -> Vec<(TreeKind, KindPass)> {
    let mut rows: Vec<(TreeKind, KindPass)> =
        TreeKind::ALL.map(|k| (k, KindPass::default())).to_vec();
    for _ in 0..PASSES {
        for (kind, pass) in &mut rows {
            run_pass(m, *kind, ps, pass);
        }
    }
    for (kind, pass) in &rows[1..] {
        for (i, (x, y)) in rows[0].1.pairs.iter().zip(&pass.pairs).enumerate() {
            assert_eq!(x, y, "{}: placement {i}: OBB and {kind:?} differ", m.name);
        }
    }
    rows
}

fn table(m: &Model, seed: u64) -> Table {
    let t0 = Instant::now();
    let half_side = tune_half_side(m, seed ^ 0x7u64 << 32);
    let ps = UnitSamples::new(seed, PLACEMENTS).placements(half_side);
    let rows = passes(m, &ps);
    let sample = near_pairs(m, &ps);
    let cost = triangle_cost(m, &ps, &sample);
    let found = &rows[0].1.pairs;
    let n = ps.len() as f64;
    let t = Table {
        name: m.name.clone(),
        half_side,
        hit_fraction: found.iter().filter(|&&k| k > 0).count() as f64 / n,
        pairs: found.iter().sum::<usize>() as f64 / n,
        cost,
        rows,
    };
    println!(
        "[table] {}: {} triangles; {PLACEMENTS} placements in [-h, h]^3, h = {half_side:.4}, \
         collisions {:.1}%, {:.1} intersecting triangle pairs per query (every tree type); \
         C_p sample: {} triangle pairs with overlapping boxes in A's frame, {:.1}% intersect; \
         C_p {:.1} ns on the intersecting ones, {:.1} ns on the others, {:.1} ns over the \
         sample; {:.1} s",
        m.name,
        m.mesh.triangles().len(),
        100.0 * t.hit_fraction,
        t.pairs,
        cost.sample,
        100.0 * cost.hit_fraction,
        cost.hit,
        cost.miss,
        cost.all,
        t0.elapsed().as_secs_f64(),
    );
    t
}

fn print_table(t: &Table) {
    let name = &t.name;
    println!(
        "[table] {name:<17} | {:<9} | {:>10} | {:>9} | {:>6} | {:>8} | {:>8} | {:>9}",
        "tree", "N_v", "N_p", "hit %", "C_v (ns)", "C_p (ns)", "T (µs)"
    );
    for (kind, r) in &t.rows {
        let c_p = t.cost.mixed(r.triangle_tests, t.pairs);
        let c_v = (r.us * 1e3 - r.triangle_tests * c_p) / r.box_tests;
        println!(
            "[table] {name:<17} | {:<9} | {:>10.1} | {:>9.1} | {:>6.1} | {:>8.2} | {:>8.2} | \
             {:>9.2}",
            kind.label(),
            r.box_tests,
            r.triangle_tests,
            100.0 * t.pairs / r.triangle_tests,
            c_v,
            c_p,
            r.us,
        );
    }
}

fn run_tables() -> Vec<Table> {
    let models: [fn() -> Model; 3] = [
        || {
            let (p, t) = torus(1.0, 0.2, 128, 128);
            Model::new("torus32k", p, t)
        },
        || Model::from_obj("odedstein_wingnut.obj"),
        || Model::from_obj("o3dv_utah_teapot.stl.obj"),
    ];
    let mut tables = Vec::new();
    for (k, make) in models.into_iter().enumerate() {
        let m = make();
        let t = table(&m, 0x5eed_0100 + k as u64);
        print_table(&t);
        tables.push(t);
    }
    tables
}

// ---------------------------------------------------------------------------
// Scene 4: build times.
// ---------------------------------------------------------------------------

/// Medians of scene 4, µs: ours AABB, ours OBB, parry.
fn bench_build(c: &mut Criterion) -> [f64; 3] {
    let (positions, triangles) = torus(1.0, 0.2, 128, 128);
    let mesh = TriMesh::new(positions.clone(), triangles.clone()).expect("valid");
    let mut group = c.benchmark_group("solid/build");
    configure(&mut group);
    let mut logs: [Log; 3] = Default::default();
    // Every build is timed alone and its tree dropped after the clock
    // stops, as parry's below and the cloth's rebuilds.
    group.bench_function("aabb_torus32k", |b| {
        timed_each(b, &mut logs[0], || {
            let start = Instant::now();
            let tree = AabbTree::build_mesh(&mesh, &AabbTreeOptions::default());
            let e = start.elapsed();
            black_box(tree);
            e
        })
    });
    group.bench_function("obb_torus32k", |b| {
        timed_each(b, &mut logs[1], || {
            let start = Instant::now();
            let tree = ObbTree::build(&positions, &triangles, SplitRule::Mean, 1);
            let e = start.elapsed();
            black_box(tree);
            e
        })
    });
    group.bench_function("parry_trimesh_new_torus32k", |b| {
        timed_each(b, &mut logs[2], || {
            let (p, t) = (positions.clone(), triangles.clone());
            let start = Instant::now();
            let m = ParryTriMesh::new(p, t).expect("valid");
            let e = start.elapsed();
            black_box(m);
            e
        })
    });
    group.finish();
    let ms = logs.each_ref().map(median_us);
    println!(
        "[build] torus32k ({} triangles), median of {SAMPLES}: AABB tree {:.3} ms (target <= \
         2.5 ms: {}), OBB tree {:.3} ms (target <= 10 ms: {}), parry3d TriMesh::new {:.3} ms",
        triangles.len(),
        ms[0] / 1e3,
        verdict(ms[0] <= 2_500.0),
        ms[1] / 1e3,
        verdict(ms[1] <= 10_000.0),
        ms[2] / 1e3,
    );
    build_loop(&mesh, &Cloth::new());
    ms
}

/// Builds per kind in [`build_loop`].
const LOOP_BUILDS: usize = 100;

/// The three builds of scene 4 and the cloth's OBB build (its first
/// frame), [`LOOP_BUILDS`] each in a plain loop
/// on a worker thread (whose allocator arena, unlike the main thread's, is
/// not trimmed between builds: no page faults), kinds interleaved; prints
/// the best and the median per kind. What the builds cost without the
/// allocator's share (see the module docs).
fn build_loop(mesh: &TriMesh, cloth: &Cloth) {
    let (positions, triangles) = (mesh.vertices(), mesh.triangles());
    let times = std::thread::scope(|s| {
        s.spawn(|| {
            let mut times: [Vec<f64>; 4] = Default::default();
            let since = |start: Instant| start.elapsed().as_secs_f64() * 1e3;
            for _ in 0..LOOP_BUILDS {
                let start = Instant::now();
                let tree = AabbTree::build_mesh(mesh, &AabbTreeOptions::default());
                times[0].push(since(start));
                black_box(tree);
                let start = Instant::now();
                let tree = ObbTree::build(positions, triangles, SplitRule::Mean, 1);
                times[1].push(since(start));
                black_box(tree);
                let (p, t) = (positions.to_vec(), triangles.to_vec());
                let start = Instant::now();
                let parry = ParryTriMesh::new(p, t).expect("valid");
                times[2].push(since(start));
                black_box(parry);
                let start = Instant::now();
                let tree = ObbTree::build(&cloth.frames[0], &cloth.triangles, SplitRule::Mean, 1);
                times[3].push(since(start));
                black_box(tree);
            }
            times
        })
        .join()
        .expect("the build loop")
    });
    let [aabb, obb, parry, cloth_obb] = times.map(|mut t| {
        t.sort_by(f64::total_cmp);
        (t[0], t[t.len() / 2])
    });
    println!(
        "[build] torus32k, {LOOP_BUILDS} builds each in a loop on a worker thread, best / median: \
         AABB tree {:.3} / {:.3} ms, OBB tree {:.3} / {:.3} ms, parry3d TriMesh::new {:.3} / {:.3} \
         ms; the cloth's OBB tree (frame 0) {:.3} / {:.3} ms",
        aabb.0, aabb.1, obb.0, obb.1, parry.0, parry.1, cloth_obb.0, cloth_obb.1
    );
}

// ---------------------------------------------------------------------------
// Driver.
// ---------------------------------------------------------------------------

/// What every scene measured, for the summary.
#[derive(Default)]
struct Results {
    cloth: Option<ClothFigures>,
    query: Option<QueryFigures>,
    tables: Vec<Table>,
    build: Option<[f64; 3]>,
}

impl Results {
    fn summary(&self) -> String {
        let mut s = Vec::new();
        if let Some(f) = &self.cloth {
            s.push(format!(
                "cloth: refit {:.1} µs, rebuild/refit AABB {:.1}x OBB {:.1}x, parry/ours refit \
                 {:.2}x",
                f.refit,
                f.aabb / f.refit,
                f.obb / f.refit,
                f.parry / f.refit
            ));
        }
        if let Some(q) = &self.query {
            s.push(format!(
                "cloth_query: parry/ours All {:.2}x, parry/ours First {:.2}x, {} disagreements",
                q.median[3] / q.median[0],
                q.median[3] / q.median[1],
                q.disagreements
            ));
        }
        for t in &self.tables {
            let us: Vec<f64> = t.rows.iter().map(|r| r.1.us).collect();
            s.push(format!(
                "{} (h {:.3}, {:.0}% hits): T OBB {:.1} / AABB+SAT {:.1} / AABB+lite {:.1} µs \
                 (AABB+SAT/OBB {:.2}x, lite/SAT {:.2}x)",
                t.name,
                t.half_side,
                100.0 * t.hit_fraction,
                us[0],
                us[1],
                us[2],
                us[1] / us[0],
                us[2] / us[1]
            ));
        }
        if let Some([a, o, p]) = self.build {
            s.push(format!(
                "build 32k: AABB {:.2} ms, OBB {:.2} ms, parry {:.2} ms",
                a / 1e3,
                o / 1e3,
                p / 1e3
            ));
        }
        s.join("; ")
    }
}

fn benches(c: &mut Criterion) {
    let start = Instant::now();
    println!("[env] load average before: {}", loadavg());
    let mut r = Results::default();
    if enabled("cloth") || enabled("cloth_query") {
        let cloth = Cloth::new();
        if enabled("cloth") {
            let f = bench_cloth(c, &cloth);
            report_cloth(&f);
            r.cloth = Some(f);
        }
        if enabled("cloth_query") {
            let q = bench_cloth_query(c, &cloth);
            report_query(&q);
            r.query = Some(q);
        }
    }
    if enabled("table") {
        r.tables = run_tables();
    }
    if enabled("build") {
        r.build = Some(bench_build(c));
    }
    println!("[summary] {}", r.summary());
    println!(
        "[env] load average after: {}; whole run {:.0} s",
        loadavg(),
        start.elapsed().as_secs_f64()
    );
}

criterion_group!(solid, benches);
criterion_main!(solid);
