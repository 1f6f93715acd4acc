//! Mesh–mesh collision with OBB trees (RAPID), side by side with parry3d.
//!
//! Four scenes, all in one run:
//!
//! 1. **Random placement** (the experiment of Gottschalk et al. and of van
//!    den Bergen): two models, each at a uniform random rotation (Shoemake)
//!    and a uniform random position in the cube `[-h, h]³`, over 2 000
//!    placements. `h` is tuned once per model pair (bisection on 500 other
//!    placements) so that about half the placements collide; the run prints
//!    the collision fraction of the 2 000. Per pair: µs per query of our
//!    `collide` with `First` and with `All`, and the mean box tests and
//!    triangle tests per query. Pairs:
//!    - (a) `torus32k`: a torus of 32 768 triangles (`torus(1, 0.2, 128,
//!      128)`) against itself;
//!    - (b) `wingnut_teapot`: `odedstein_wingnut.obj` (6 090 triangles)
//!      against `o3dv_utah_teapot.stl.obj` (9 438), each centered on its
//!      bounding box and scaled to a bounding radius of 1;
//!    - (c) `rapid_tori`: RAPID's two 5 000-triangle tori (`torus(1, 0.2, 50,
//!      50)`), one shifted 0.5 along x, one fixed query with `All` (target
//!      < 500 µs), parry3d's contacts beside it;
//!    - (d) `scaled_tori`: the same tori scaled non-uniformly, the scale
//!      applied in the query against copies with scaled vertices and their
//!      own trees (the same triangle pairs, asserted): what scaling in the
//!      query costs.
//! 2. **Parallel close proximity**: two concentric cube spheres of 32 448
//!    triangles ([`cube_sphere`], `n = 52`), radii 1 and `1 + ε` for ε in
//!    {1, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001}, each at 8 random rotations
//!    (both spheres turned, independently). They never touch (the run proves
//!    it: the outer sphere's triangle planes are all farther from the center
//!    than the inner sphere's farthest vertex, and `First` finds nothing), so
//!    `First` never exits early: the box tests per query measure the cost of
//!    proximity. A table, the least-squares slope of ln(box tests) against
//!    ln(ε) (about −1 expected for OBB trees), and the same table as CSV in
//!    `/work/notes/close_proximity.csv` (`ICOLLIDE_BENCH_CSV` to change the
//!    path, empty to skip). One parry3d `intersection_test` per ε (first
//!    rotation) for reference.
//! 3. **Build**: an OBB tree over 100 352 triangles (`torus(1, 0.2, 256,
//!    196)`, mean split, leaves of 1 triangle), ms per build (target
//!    < 150 ms), parry3d's `TriMesh::new` (which builds its AABB tree)
//!    beside it; bytes per triangle of tree + mesh: nodes × 48 +
//!    `order` × 4 + positions × 12 + triangles × 12, over the triangle
//!    count (RAPID: 412).
//! 4. **parry3d side by side** on the placements of 1 (a) and (b):
//!    `parry3d::query::intersection_test` on two `TriMesh`es (against our
//!    `First`) and all contacts with the contact-manifolds API
//!    ([`ParryMeshContacts`]: `DefaultQueryDispatcher::contact_manifolds`,
//!    prediction 0, fresh workspace every query; against our `All`). Before
//!    the timing, one pass over every placement compares the booleans (ours
//!    is exact; parry's triangle tests are GJK in f32, so near-touching
//!    placements may disagree: they are counted and listed, not asserted)
//!    and the number of triangle pairs in contact. It also checks our `All`
//!    against an independent candidate set: parry's manifold candidates
//!    (triangle pairs with overlapping AABBs, a superset of the intersecting
//!    pairs) run through our exact triangle test in our query's coordinates;
//!    an intersecting candidate missing from our `All` fails the run.
//!
//! Timing: every criterion iteration is one query, cycling through the
//! placements (the position in the cycle persists across samples, so a run
//! covers many placements); 10 samples, 1 s warm-up, 2.5 s measurement, flat
//! sampling. The µs per query reported in the summary is the total time over
//! the 10 samples divided by their queries (a mean over placements, which
//! differ greatly in cost); the check pass also times one query per
//! placement for each method over all 2 000 placements ("full pass"). The
//! summary gives the ratios parry/ours for `First` and `All`.
//!
//! Run: `cargo bench -p icollide-peers --bench mesh_collide`.
//! `ICOLLIDE_BENCH_SCENES=random,rapid,proximity,build` runs only some
//! scenes (default all).

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use bevy_icollide::bvh::{
    AabbTree, AabbTreeOptions, CollideScratch, CollideStats, ContactMode, MeshSide, ObbNode,
    ObbTree, ObbTreeOptions, SplitRule, collide, mapped_triangle,
};
use bevy_icollide::geometry::tritri::triangles_intersect;
use bevy_icollide::io::load_obj;
use bevy_icollide::math::Pose;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{Rng, torus};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use icollide_peers::timing::{
    Log, SAMPLES, configure, enabled, loadavg, mean_us, median_us, timed,
};
use icollide_peers::{
    ParryMeshContacts, cube_sphere, fit_to_ball, log_log_slope, min_plane_distance, to_parry_pose,
    to_parry_trimesh,
};
use parry3d::math::Pose as ParryPose;
use parry3d::shape::TriMesh as ParryTriMesh;

/// Random placements per model pair.
const PLACEMENTS: usize = 2_000;
/// Placements used to tune the cube (a different seed).
const TUNE_PLACEMENTS: usize = 500;
/// Cube-sphere grid: 12 n² = 32 448 triangles.
const SPHERE_N: usize = 52;
/// Gaps of the close-proximity scene.
const EPSILONS: [f32; 7] = [1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001];
/// Random rotations per gap.
const SPHERE_ROTATIONS: usize = 8;
/// Disagreements listed in full per pair.
const LIST: usize = 10;

/// A model for both crates.
struct Model {
    name: String,
    mesh: TriMesh,
    tree: ObbTree,
    parry: ParryTriMesh,
    /// Farthest vertex from the model's origin.
    radius: f32,
}

impl Model {
    fn new(name: &str, positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Self {
        let tree = ObbTree::build(&positions, &triangles, SplitRule::Mean, 1);
        let radius = positions.iter().map(|p| p.length()).fold(0.0, f32::max);
        let mesh = TriMesh::new(positions, triangles).expect("valid mesh");
        let parry = to_parry_trimesh(&mesh);
        Self {
            name: name.into(),
            mesh,
            tree,
            parry,
            radius,
        }
    }

    fn from_obj(file: &str, radius: f32) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../assets/meshes")
            .join(file);
        let obj = load_obj(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = file.split('.').next().unwrap_or(file);
        Self::new(name, fit_to_ball(&obj.positions, radius), obj.triangles)
    }

    fn triangles(&self) -> usize {
        self.mesh.triangles().len()
    }

    fn side(&self, pose: Pose) -> MeshSide<'_> {
        MeshSide::new(&self.mesh, &self.tree, pose)
    }
}

/// Both models' poses, for both crates.
#[derive(Clone, Copy)]
struct Placement {
    a: Pose,
    b: Pose,
    pa: ParryPose,
    pb: ParryPose,
}

impl Placement {
    fn new(a: Pose, b: Pose) -> Self {
        Self {
            a,
            b,
            pa: to_parry_pose(&a),
            pb: to_parry_pose(&b),
        }
    }
}

/// Two uniform rotations and two points of the unit cube per placement;
/// placements for a cube of half-side `h` scale the points by `h` (common
/// random numbers across `h`).
struct UnitSamples(Vec<[(Quat, Vec3); 2]>);

impl UnitSamples {
    fn new(seed: u64, n: usize) -> Self {
        let mut rng = Rng::new(seed);
        Self(
            (0..n)
                .map(|_| {
                    [
                        (rng.rotation(), rng.in_cube(1.0)),
                        (rng.rotation(), rng.in_cube(1.0)),
                    ]
                })
                .collect(),
        )
    }

    fn placements(&self, h: f32) -> Vec<Placement> {
        self.0
            .iter()
            .map(|[(ra, ta), (rb, tb)]| {
                Placement::new(Pose::new(*ra, *ta * h), Pose::new(*rb, *tb * h))
            })
            .collect()
    }
}

/// Our query on one placement.
#[inline]
fn ours(
    a: &Model,
    b: &Model,
    p: &Placement,
    mode: ContactMode,
    scratch: &mut CollideScratch,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    collide(&a.side(p.a), &b.side(p.b), mode, scratch, out)
}

/// parry3d's boolean on one placement.
#[inline]
fn parry_intersects(a: &Model, b: &Model, p: &Placement) -> bool {
    parry3d::query::intersection_test(&p.pa, &a.parry, &p.pb, &b.parry)
        .expect("parry3d supports trimesh-trimesh intersection tests")
        .intersecting
}

/// Fraction of `placements` where `First` finds a contact.
fn collision_fraction(a: &Model, b: &Model, placements: &[Placement]) -> f64 {
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
    let hits = placements
        .iter()
        .filter(|p| {
            ours(a, b, p, ContactMode::First, &mut scratch, &mut out);
            !out.is_empty()
        })
        .count();
    hits as f64 / placements.len() as f64
}

/// Half-side of the cube that gives about half collisions (bisection on
/// [`TUNE_PLACEMENTS`] placements, seed `seed`).
fn tune_half_side(a: &Model, b: &Model, seed: u64) -> f32 {
    let samples = UnitSamples::new(seed, TUNE_PLACEMENTS);
    let (mut lo, mut hi) = (0.0f32, a.radius + b.radius);
    while collision_fraction(a, b, &samples.placements(hi)) > 0.5 {
        hi *= 2.0;
    }
    for _ in 0..16 {
        let mid = 0.5 * (lo + hi);
        if collision_fraction(a, b, &samples.placements(mid)) > 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A model pair at its random placements.
struct RandomPair {
    label: &'static str,
    a: Model,
    /// `None`: the pair is `a` against itself.
    b: Option<Model>,
    half_side: f32,
    placements: Vec<Placement>,
}

impl RandomPair {
    fn new(label: &'static str, a: Model, b: Option<Model>, seed: u64) -> Self {
        let t = Instant::now();
        let half_side = tune_half_side(&a, b.as_ref().unwrap_or(&a), seed ^ 0x7u64 << 32);
        let placements = UnitSamples::new(seed, PLACEMENTS).placements(half_side);
        let pair = Self {
            label,
            a,
            b,
            half_side,
            placements,
        };
        println!(
            "[setup] {label}: {} ({} triangles, {} nodes, depth {}) vs {} ({} triangles, {} \
             nodes, depth {}); cube [-h, h]^3 with h = {:.4} (tuned for half collisions in \
             {:.2} s)",
            pair.a.name,
            pair.a.triangles(),
            pair.a.tree.nodes.len(),
            pair.a.tree.depth(),
            pair.b().name,
            pair.b().triangles(),
            pair.b().tree.nodes.len(),
            pair.b().tree.depth(),
            half_side,
            t.elapsed().as_secs_f64(),
        );
        pair
    }

    fn b(&self) -> &Model {
        self.b.as_ref().unwrap_or(&self.a)
    }
}

/// Per-query means of one method over all placements (one pass).
#[derive(Clone, Copy, Debug, Default)]
struct PassStats {
    us: f64,
    box_tests: f64,
    triangle_tests: f64,
    pairs: f64,
}

/// What the check pass measured on one random pair.
#[derive(Clone, Copy, Debug, Default)]
struct CheckFigures {
    fraction: f64,
    first: PassStats,
    all: PassStats,
    parry_first_us: f64,
    parry_all: PassStats,
    disagreements: usize,
}

/// One pass per method over every placement (timed per pass), then the
/// comparison of ours and parry3d's results placement by placement.
fn check(pair: &RandomPair) -> CheckFigures {
    let (a, b, ps) = (&pair.a, pair.b(), &pair.placements);
    let n = ps.len() as f64;
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());

    let mut pass = |mode: ContactMode| {
        let mut hits = Vec::with_capacity(ps.len());
        let mut counts = Vec::with_capacity(ps.len());
        let mut s = PassStats::default();
        let t = Instant::now();
        for p in ps {
            let st = ours(a, b, p, mode, &mut scratch, &mut out);
            s.box_tests += f64::from(st.box_tests);
            s.triangle_tests += f64::from(st.triangle_tests);
            hits.push(!out.is_empty());
            counts.push(out.len());
        }
        s.us = t.elapsed().as_secs_f64() * 1e6 / n;
        s.box_tests /= n;
        s.triangle_tests /= n;
        s.pairs = counts.iter().sum::<usize>() as f64 / n;
        (s, hits, counts)
    };
    let (first, first_hits, _) = pass(ContactMode::First);
    let (all, all_hits, all_counts) = pass(ContactMode::All);
    assert_eq!(
        first_hits, all_hits,
        "{}: First and All disagree",
        pair.label
    );

    let t = Instant::now();
    let parry_hits: Vec<bool> = ps.iter().map(|p| parry_intersects(a, b, p)).collect();
    let parry_first_us = t.elapsed().as_secs_f64() * 1e6 / n;

    let mut contacts = ParryMeshContacts::default();
    let mut parry_all = PassStats::default();
    let t = Instant::now();
    let parry_counts: Vec<_> = ps
        .iter()
        .map(|p| contacts.compute(&p.pa, &a.parry, &p.pb, &b.parry, 0.0))
        .collect();
    parry_all.us = t.elapsed().as_secs_f64() * 1e6 / n;
    parry_all.pairs = parry_counts.iter().map(|c| c.pairs).sum::<usize>() as f64 / n;
    parry_all.triangle_tests = parry_counts.iter().map(|c| c.candidates).sum::<usize>() as f64 / n;
    let parry_points = parry_counts.iter().map(|c| c.points).sum::<usize>() as f64 / n;

    let fraction = first_hits.iter().filter(|&&h| h).count() as f64 / n;
    let label = pair.label;
    println!(
        "[random] {label}: {} placements in [-h, h]^3, h = {:.4}: collision fraction {:.1}% \
         (ours, exact)",
        ps.len(),
        pair.half_side,
        100.0 * fraction
    );
    for (name, s) in [("First", &first), ("All", &all)] {
        println!(
            "[random] {label}: ours {name:5}: {:.2} µs/query (full pass), {:.1} box tests/query, \
             {:.1} triangle tests/query, {:.2} intersecting triangle pairs/query",
            s.us, s.box_tests, s.triangle_tests, s.pairs
        );
    }
    println!(
        "[random] {label}: parry intersection_test: {parry_first_us:.2} µs/query (full pass); \
         parry contacts: {:.2} µs/query (full pass), {:.1} triangle pairs with overlapping AABBs \
         (manifolds computed)/query, {:.2} pairs in contact/query, {parry_points:.2} contact \
         points/query",
        parry_all.us, parry_all.triangle_tests, parry_all.pairs
    );

    // Booleans: ours (exact) against parry's intersection_test and against
    // "parry's contacts found something".
    let mut disagreements = Vec::new();
    let mut contact_bool_disagreements = 0usize;
    let mut count_differs = 0usize;
    for i in 0..ps.len() {
        let ours_hit = first_hits[i];
        if ours_hit != parry_hits[i] {
            disagreements.push(i);
        }
        contact_bool_disagreements += usize::from(ours_hit != (parry_counts[i].pairs > 0));
        count_differs += usize::from(all_counts[i] != parry_counts[i].pairs);
    }
    println!(
        "[check] {label}: ours First vs parry intersection_test: {} disagreements of {} \
         placements; ours vs (parry contacts non-empty): {contact_bool_disagreements} \
         disagreements; the number of triangle pairs in contact differs on {count_differs} \
         placements (ours: exact crossing pairs; parry: pairs whose manifold has a point at \
         distance <= 0)",
        disagreements.len(),
        ps.len(),
    );
    let cross = cross_check(pair);
    println!(
        "[check] {label}: our All against parry's candidates (triangle pairs with overlapping \
         AABBs, a superset of the intersecting pairs) run through our exact triangle test: \
         {} intersecting candidates our traversal missed (must be 0), {} of our pairs outside \
         parry's candidates; parry's pairs in contact vs ours: {} only parry's, {} only ours \
         (totals over all placements; ours total {})",
        cross.missed_by_ours,
        cross.outside_candidates,
        cross.parry_only,
        cross.ours_only,
        cross.ours_total,
    );
    assert_eq!(
        cross.missed_by_ours, 0,
        "{label}: our traversal missed intersecting triangle pairs"
    );
    for &i in disagreements.iter().take(LIST) {
        let p = &ps[i];
        let mut scratch = CollideScratch::default();
        let mut pairs = Vec::new();
        ours(a, b, p, ContactMode::All, &mut scratch, &mut pairs);
        let c = parry3d::query::contact(&p.pa, &a.parry, &p.pb, &b.parry, 0.0)
            .ok()
            .flatten();
        println!(
            "[check] {label}: placement {i}: ours {} ({} crossing triangle pairs; exact test on \
             parry's {} candidates: {} intersect), parry intersection_test {}, parry contact \
             pairs {}, parry contact() dist {}",
            first_hits[i],
            pairs.len(),
            cross.candidates[i],
            cross.exact_hits[i],
            parry_hits[i],
            parry_counts[i].pairs,
            c.map_or_else(|| "none".into(), |c| format!("{:.3e}", c.dist)),
        );
    }
    if disagreements.len() > LIST {
        println!("[check] {label}: ... {} more", disagreements.len() - LIST);
    }
    CheckFigures {
        fraction,
        first,
        all,
        parry_first_us,
        parry_all,
        disagreements: disagreements.len(),
    }
}

/// Our `All` answers against an independent candidate set.
#[derive(Default)]
struct CrossCheck {
    /// Per placement: parry's candidate pairs, and those our exact triangle
    /// test finds intersecting.
    candidates: Vec<usize>,
    exact_hits: Vec<usize>,
    /// Intersecting candidates missing from our `All` (a traversal that
    /// pruned a box pair it should not have).
    missed_by_ours: usize,
    /// Our pairs that parry's AABB stage did not consider.
    outside_candidates: usize,
    /// Pairs parry reports in contact that we do not, and the reverse.
    parry_only: usize,
    ours_only: usize,
    ours_total: usize,
}

/// For every placement: parry's contact-manifold candidates (the triangle
/// pairs whose AABBs overlap) through our exact triangle test, in the very
/// coordinates our query uses (B's triangles mapped by `A⁻¹ B`), compared
/// with our `All` set; and parry's pairs in contact compared with ours.
fn cross_check(pair: &RandomPair) -> CrossCheck {
    let (a, b) = (&pair.a, pair.b());
    let (mut scratch, mut ours_pairs) = (CollideScratch::default(), Vec::new());
    let mut contacts = ParryMeshContacts::default();
    let mut x = CrossCheck::default();
    for p in &pair.placements {
        ours(a, b, p, ContactMode::All, &mut scratch, &mut ours_pairs);
        ours_pairs.sort_unstable();
        x.ours_total += ours_pairs.len();
        contacts.compute(&p.pa, &a.parry, &p.pb, &b.parry, 0.0);
        let rel = p.a.inverse().mul(&p.b);
        let mut candidates: Vec<[u32; 2]> = Vec::new();
        let mut in_contact: Vec<[u32; 2]> = Vec::new();
        let mut exact: Vec<[u32; 2]> = Vec::new();
        for m in contacts.manifolds() {
            let key = [m.subshape1, m.subshape2];
            candidates.push(key);
            if !m.points.is_empty() {
                in_contact.push(key);
            }
            let ta = a.mesh.triangle(m.subshape1 as usize);
            if triangles_intersect(ta, mapped_triangle(&b.mesh, m.subshape2, &rel)) {
                exact.push(key);
            }
        }
        candidates.sort_unstable();
        in_contact.sort_unstable();
        exact.sort_unstable();
        let missing = |set: &[[u32; 2]], from: &[[u32; 2]]| {
            from.iter()
                .filter(|k| set.binary_search(k).is_err())
                .count()
        };
        x.candidates.push(candidates.len());
        x.exact_hits.push(exact.len());
        x.missed_by_ours += missing(&ours_pairs, &exact);
        x.outside_candidates += missing(&candidates, &ours_pairs);
        x.parry_only += missing(&ours_pairs, &in_contact);
        x.ours_only += missing(&in_contact, &ours_pairs);
    }
    x
}

/// Timed figures of one random pair, µs per query.
#[derive(Clone, Copy, Debug, Default)]
struct Timed {
    first: f64,
    all: f64,
    parry_first: f64,
    parry_all: f64,
}

fn bench_random(c: &mut Criterion, pair: &RandomPair) -> (CheckFigures, Timed) {
    let figures = check(pair);
    let (a, b, ps) = (&pair.a, pair.b(), &pair.placements);
    let mut group = c.benchmark_group(format!("mesh_collide/{}", pair.label));
    configure(&mut group);
    let mut logs: [Log; 4] = Default::default();
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());

    for (k, mode, name) in [
        (0, ContactMode::First, "ours_first"),
        (1, ContactMode::All, "ours_all"),
    ] {
        let mut i = 0;
        group.bench_function(name, |bch| {
            timed(bch, &mut logs[k], || {
                i = (i + 1) % ps.len();
                ours(a, b, &ps[i], mode, &mut scratch, &mut out);
                out.len()
            })
        });
    }
    let mut i = 0;
    group.bench_function("parry_intersection_test", |bch| {
        timed(bch, &mut logs[2], || {
            i = (i + 1) % ps.len();
            usize::from(parry_intersects(a, b, &ps[i]))
        })
    });
    let mut i = 0;
    let mut contacts = ParryMeshContacts::default();
    group.bench_function("parry_contacts", |bch| {
        timed(bch, &mut logs[3], || {
            i = (i + 1) % ps.len();
            let p = &ps[i];
            contacts
                .compute(&p.pa, &a.parry, &p.pb, &b.parry, 0.0)
                .pairs
        })
    });
    group.finish();

    let t = Timed {
        first: mean_us(&logs[0]),
        all: mean_us(&logs[1]),
        parry_first: mean_us(&logs[2]),
        parry_all: mean_us(&logs[3]),
    };
    let queries = |l: &Log| {
        l[l.len().saturating_sub(SAMPLES)..]
            .iter()
            .map(|x| x.1)
            .sum::<u64>()
    };
    println!(
        "[timed] {}: µs/query (total over the {SAMPLES} samples / their queries; median of the \
         sample means in brackets; queries timed): ours First {:.2} [{:.2}] ({}), ours All {:.2} \
         [{:.2}] ({}), parry intersection_test {:.2} [{:.2}] ({}), parry contacts {:.2} [{:.2}] \
         ({})",
        pair.label,
        t.first,
        median_us(&logs[0]),
        queries(&logs[0]),
        t.all,
        median_us(&logs[1]),
        queries(&logs[1]),
        t.parry_first,
        median_us(&logs[2]),
        queries(&logs[2]),
        t.parry_all,
        median_us(&logs[3]),
        queries(&logs[3]),
    );
    (figures, t)
}

/// Scene 1 (d): the RAPID tori scaled non-uniformly: the scale applied in
/// the query (the unit-size tree) against copies whose vertices were
/// scaled and trees built for them; the same triangle pairs (asserted).
fn bench_scaled_tori(c: &mut Criterion) {
    let (p, t) = torus(1.0, 0.2, 50, 50);
    let (sa, sb) = (Vec3::new(1.3, 0.7, 1.1), Vec3::new(0.8, 1.25, 1.0));
    let copy = |s: Vec3| {
        let v = p.iter().map(|&x| x * s).collect();
        Model::new("scaled_copy", v, t.clone())
    };
    let (ca, cb) = (copy(sa), copy(sb));
    let m = Model::new("rapid_torus5k", p.clone(), t.clone());
    let pl = Placement::new(
        Pose::IDENTITY,
        Pose::from_translation(Vec3::new(0.5, 0.0, 0.0)),
    );
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
    let scaled = |scratch: &mut CollideScratch, out: &mut Vec<[u32; 2]>| {
        let (a, b) = (m.side(pl.a).with_scale(sa), m.side(pl.b).with_scale(sb));
        collide(&a, &b, ContactMode::All, scratch, out)
    };
    let st = scaled(&mut scratch, &mut out);
    let mut want = Vec::new();
    let sc = ours(&ca, &cb, &pl, ContactMode::All, &mut scratch, &mut want);
    let sorted = |v: &[[u32; 2]]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    assert_eq!(
        sorted(&out),
        sorted(&want),
        "scaled in the query = scaled copies"
    );
    println!(
        "[scaled] RAPID tori scaled by {sa} and {sb}, All: {} intersecting triangle pairs \
         (the same both ways); box / triangle tests: scale in the query {} / {}, scaled \
         copies {} / {}",
        out.len(),
        st.box_tests,
        st.triangle_tests,
        sc.box_tests,
        sc.triangle_tests,
    );
    // The same with AABB trees (SOLID), whose boxes scale exactly.
    let aabb = |m: &Model| AabbTree::build_mesh(&m.mesh, &AabbTreeOptions::default());
    let (ta, tca, tcb) = (aabb(&m), aabb(&ca), aabb(&cb));
    let aabb_scaled = |scratch: &mut CollideScratch, out: &mut Vec<[u32; 2]>| {
        let a = MeshSide::new(&m.mesh, &ta, pl.a).with_scale(sa);
        let b = MeshSide::new(&m.mesh, &ta, pl.b).with_scale(sb);
        collide(&a, &b, ContactMode::All, scratch, out)
    };
    let aabb_copies = |scratch: &mut CollideScratch, out: &mut Vec<[u32; 2]>| {
        let a = MeshSide::new(&ca.mesh, &tca, pl.a);
        let b = MeshSide::new(&cb.mesh, &tcb, pl.b);
        collide(&a, &b, ContactMode::All, scratch, out)
    };
    let (x, y) = (
        aabb_scaled(&mut scratch, &mut out),
        aabb_copies(&mut scratch, &mut want),
    );
    assert_eq!(sorted(&out), sorted(&want), "AABB trees: the same pairs");
    println!(
        "[scaled] AABB trees: box / triangle tests: scale in the query {} / {}, scaled copies \
         {} / {}",
        x.box_tests, x.triangle_tests, y.box_tests, y.triangle_tests,
    );
    let mut group = c.benchmark_group("mesh_collide/scaled_tori");
    configure(&mut group);
    let mut logs: [Log; 4] = Default::default();
    group.bench_function("ours_scale_in_query", |b| {
        timed(b, &mut logs[0], || {
            scaled(&mut scratch, &mut out);
            out.len()
        })
    });
    group.bench_function("ours_scaled_copies", |b| {
        timed(b, &mut logs[1], || {
            ours(&ca, &cb, &pl, ContactMode::All, &mut scratch, &mut out);
            out.len()
        })
    });
    group.bench_function("aabb_scale_in_query", |b| {
        timed(b, &mut logs[2], || {
            aabb_scaled(&mut scratch, &mut out);
            out.len()
        })
    });
    group.bench_function("aabb_scaled_copies", |b| {
        timed(b, &mut logs[3], || {
            aabb_copies(&mut scratch, &mut out);
            out.len()
        })
    });
    group.finish();
    let us = logs.each_ref().map(median_us);
    println!(
        "[scaled] µs/query, scale in the query / scaled copies with their own trees: OBB trees \
         {:.1} / {:.1} ({:.2}x), AABB trees {:.1} / {:.1} ({:.2}x)",
        us[0],
        us[1],
        us[0] / us[1],
        us[2],
        us[3],
        us[2] / us[3],
    );
}

/// Scene 1 (c): RAPID's overlapping tori, one query with `All`.
fn bench_rapid_tori(c: &mut Criterion) -> (f64, f64) {
    let (p, t) = torus(1.0, 0.2, 50, 50);
    let m = Model::new("rapid_torus5k", p, t);
    let pl = Placement::new(
        Pose::IDENTITY,
        Pose::from_translation(Vec3::new(0.5, 0.0, 0.0)),
    );
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
    let st = ours(&m, &m, &pl, ContactMode::All, &mut scratch, &mut out);
    let pairs = out.len();
    let mut contacts = ParryMeshContacts::default();
    let pc = contacts.compute(&pl.pa, &m.parry, &pl.pb, &m.parry, 0.0);
    println!(
        "[rapid] two {}-triangle tori, one shifted 0.5 along x, All: {pairs} intersecting \
         triangle pairs, {} box tests, {} triangle tests; parry contacts: {} pairs in contact, \
         {} points, {} manifolds computed",
        m.triangles(),
        st.box_tests,
        st.triangle_tests,
        pc.pairs,
        pc.points,
        pc.candidates,
    );
    let mut group = c.benchmark_group("mesh_collide/rapid_tori");
    configure(&mut group);
    let mut logs: [Log; 2] = Default::default();
    group.bench_function("ours_all", |b| {
        timed(b, &mut logs[0], || {
            ours(&m, &m, &pl, ContactMode::All, &mut scratch, &mut out);
            out.len()
        })
    });
    group.bench_function("parry_contacts", |b| {
        timed(b, &mut logs[1], || {
            contacts
                .compute(&pl.pa, &m.parry, &pl.pb, &m.parry, 0.0)
                .pairs
        })
    });
    group.finish();
    let (ours_us, parry_us) = (median_us(&logs[0]), median_us(&logs[1]));
    println!(
        "[rapid] ours All {ours_us:.1} µs/query (median of {SAMPLES} samples; target < 500 µs: \
         {}), parry contacts {parry_us:.1} µs/query, parry/ours {:.2}x",
        if ours_us < 500.0 { "met" } else { "MISSED" },
        parry_us / ours_us,
    );
    (ours_us, parry_us)
}

/// One row of the close-proximity table.
#[derive(Clone, Copy, Debug)]
struct ProximityRow {
    eps: f32,
    box_tests: f64,
    triangle_tests: f64,
    us: f64,
    /// Outer sphere's nearest triangle plane minus the inner sphere's
    /// farthest vertex (both from the center): > 0 proves no contact.
    margin: f64,
    parry_us: f64,
    parry_hit: bool,
}

/// Scene 2: concentric spheres, `First` (never exits early).
fn proximity() -> Vec<ProximityRow> {
    let t0 = Instant::now();
    let (p, t) = cube_sphere(1.0, SPHERE_N);
    let inner = Model::new("sphere1", p, t);
    let inner_far = f64::from(
        inner
            .mesh
            .vertices()
            .iter()
            .map(|v| v.length())
            .fold(0.0, f32::max),
    );
    let mut rng = Rng::new(0x5eed_0002);
    let rotations: Vec<(Quat, Quat)> = (0..SPHERE_ROTATIONS)
        .map(|_| (rng.rotation(), rng.rotation()))
        .collect();
    println!(
        "[proximity] cube spheres: {} triangles each ({} nodes), {SPHERE_ROTATIONS} random \
         rotation pairs per gap; setup {:.2} s",
        inner.triangles(),
        inner.tree.nodes.len(),
        t0.elapsed().as_secs_f64()
    );
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
    let mut rows = Vec::new();
    for &eps in &EPSILONS {
        let (p, t) = cube_sphere(1.0 + eps, SPHERE_N);
        let outer = Model::new("sphere1+eps", p, t);
        let margin = min_plane_distance(outer.mesh.vertices(), outer.mesh.triangles()) - inner_far;
        assert!(
            margin > 0.0,
            "eps {eps}: the spheres may touch (margin {margin:e})"
        );
        let (mut boxes, mut tris) = (0u64, 0u64);
        // Warm the caches with one query, then time every rotation.
        let pose = |(ra, rb): (Quat, Quat)| (Pose::new(ra, Vec3::ZERO), Pose::new(rb, Vec3::ZERO));
        let (a0, b0) = pose(rotations[0]);
        collide(
            &inner.side(a0),
            &outer.side(b0),
            ContactMode::First,
            &mut scratch,
            &mut out,
        );
        let t = Instant::now();
        for &r in &rotations {
            let (pa, pb) = pose(r);
            let st = collide(
                &inner.side(pa),
                &outer.side(pb),
                ContactMode::First,
                &mut scratch,
                &mut out,
            );
            assert!(
                out.is_empty(),
                "eps {eps}: nested spheres reported touching"
            );
            boxes += u64::from(st.box_tests);
            tris += u64::from(st.triangle_tests);
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / SPHERE_ROTATIONS as f64;
        let (pa0, pb0) = (to_parry_pose(&a0), to_parry_pose(&b0));
        let t = Instant::now();
        let hit = parry3d::query::intersection_test(&pa0, &inner.parry, &pb0, &outer.parry)
            .expect("trimesh-trimesh");
        let parry_us = t.elapsed().as_secs_f64() * 1e6;
        let parry_hit = hit.intersecting;
        if parry_hit {
            // Which triangle pair parry reports, and what parry itself and
            // our exact test say about those two triangles alone.
            let (s1, s2) = (hit.subshape1, hit.subshape2);
            let (t1, t2) = (inner.parry.triangle(s1), outer.parry.triangle(s2));
            let d = parry3d::query::distance(&pa0, &t1, &pb0, &t2).map_or(f32::NAN, |d| d.distance);
            let alone = parry3d::query::intersection_test(&pa0, &t1, &pb0, &t2)
                .is_ok_and(|r| r.intersecting);
            let rel = a0.inverse().mul(&b0);
            let exact = triangles_intersect(
                inner.mesh.triangle(s1 as usize),
                mapped_triangle(&outer.mesh, s2, &rel),
            );
            println!(
                "[proximity] eps {eps}: parry intersection_test reports the nested spheres \
                 touching, at triangles ({s1}, {s2}); parry's distance between those two \
                 triangles {d:.3e}, parry intersection_test on them alone {alone}, our exact \
                 test {exact}"
            );
        }
        rows.push(ProximityRow {
            eps,
            box_tests: boxes as f64 / SPHERE_ROTATIONS as f64,
            triangle_tests: tris as f64 / SPHERE_ROTATIONS as f64,
            us,
            margin,
            parry_us,
            parry_hit,
        });
    }
    println!(
        "[proximity] {:>6} | {:>12} | {:>14} | {:>11} | {:>10} | {:>15} | parry says",
        "eps", "box tests", "triangle tests", "µs/query", "margin", "parry µs (1 q)"
    );
    for r in &rows {
        println!(
            "[proximity] {:>6} | {:>12.0} | {:>14.1} | {:>11.1} | {:>10.2e} | {:>15.0} | {}",
            r.eps,
            r.box_tests,
            r.triangle_tests,
            r.us,
            r.margin,
            r.parry_us,
            if r.parry_hit {
                "touching (wrong)"
            } else {
                "apart"
            },
        );
    }
    let slope = log_log_slope(
        &rows
            .iter()
            .map(|r| (f64::from(r.eps), r.box_tests))
            .collect::<Vec<_>>(),
    );
    let slope_small = log_log_slope(
        &rows
            .iter()
            .filter(|r| r.eps <= 0.1)
            .map(|r| (f64::from(r.eps), r.box_tests))
            .collect::<Vec<_>>(),
    );
    println!(
        "[proximity] least-squares slope of ln(box tests) vs ln(eps): {slope:.3} over all gaps, \
         {slope_small:.3} over eps <= 0.1 (about -1 expected for OBB trees)"
    );
    write_csv(&rows);
    rows
}

fn write_csv(rows: &[ProximityRow]) {
    let path = std::env::var("ICOLLIDE_BENCH_CSV")
        .unwrap_or_else(|_| "/work/notes/close_proximity.csv".into());
    if path.is_empty() {
        return;
    }
    let mut s = String::from(
        "eps,box_tests_per_query,triangle_tests_per_query,us_per_query,separation_margin,parry_intersection_test_us\n",
    );
    for r in rows {
        s += &format!(
            "{},{:.1},{:.2},{:.2},{:.4e},{:.1}\n",
            r.eps, r.box_tests, r.triangle_tests, r.us, r.margin, r.parry_us
        );
    }
    match std::fs::write(&path, s) {
        Ok(()) => println!("[proximity] wrote {path}"),
        Err(e) => println!("[proximity] could not write {path}: {e}"),
    }
}

/// Scene 3: build time and memory of a 100k-triangle tree.
fn bench_build(c: &mut Criterion) -> (f64, f64, f64) {
    let (positions, triangles) = torus(1.0, 0.2, 256, 196);
    let n = triangles.len();
    let tree = ObbTree::build(&positions, &triangles, SplitRule::Mean, 1);
    let bytes = tree.nodes.len() * size_of::<ObbNode>()
        + tree.order.len() * size_of::<u32>()
        + positions.len() * size_of::<Vec3>()
        + triangles.len() * size_of::<[u32; 3]>();
    let per_tri = bytes as f64 / n as f64;
    println!(
        "[build] torus(1, 0.2, 256, 196): {n} triangles, {} vertices; tree: {} nodes x {} B, \
         depth {}, {} order entries; tree + mesh {bytes} B = {per_tri:.1} B/triangle \
         (nodes {:.1}, order {:.1}, positions {:.1}, triangles {:.1}; RAPID: 412)",
        positions.len(),
        tree.nodes.len(),
        size_of::<ObbNode>(),
        tree.depth(),
        tree.order.len(),
        (tree.nodes.len() * size_of::<ObbNode>()) as f64 / n as f64,
        (tree.order.len() * 4) as f64 / n as f64,
        (positions.len() * 12) as f64 / n as f64,
        (triangles.len() * 12) as f64 / n as f64,
    );
    let mut group = c.benchmark_group("mesh_collide/build");
    configure(&mut group);
    let mut logs: [Log; 2] = Default::default();
    group.bench_function("obb_tree_100k", |b| {
        timed(b, &mut logs[0], || {
            ObbTree::build(&positions, &triangles, SplitRule::Mean, 1)
                .nodes
                .len()
        })
    });
    group.bench_function("parry_trimesh_new_100k", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (p, t) = (positions.clone(), triangles.clone());
                let start = Instant::now();
                black_box(ParryTriMesh::new(p, t).expect("valid"));
                total += start.elapsed();
            }
            logs[1].push((total.as_secs_f64(), iters));
            total
        })
    });
    group.finish();
    let (ours_ms, parry_ms) = (median_us(&logs[0]) / 1e3, median_us(&logs[1]) / 1e3);
    // Where the build time goes: the same build with every group fitted on
    // its triangles (no convex hulls), best of 5.
    let no_hull = ObbTreeOptions {
        hull_min_triangles: usize::MAX,
        ..ObbTreeOptions::default()
    };
    let no_hull_ms = (0..5)
        .map(|_| {
            let t = Instant::now();
            black_box(ObbTree::build_with(&positions, &triangles, &no_hull));
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min);
    println!(
        "[build] for reference, the same build without convex-hull fits (hull_min_triangles = \
         MAX; default {}): {no_hull_ms:.1} ms (best of 5)",
        ObbTreeOptions::default().hull_min_triangles
    );
    println!(
        "[build] OBB tree over {n} triangles: {ours_ms:.1} ms (median of {SAMPLES}; target < \
         150 ms: {}); parry3d TriMesh::new (AABB tree): {parry_ms:.1} ms",
        if ours_ms < 150.0 { "met" } else { "MISSED" },
    );
    (ours_ms, parry_ms, per_tri)
}

fn benches(c: &mut Criterion) {
    let start = Instant::now();
    println!("[env] load average before: {}", loadavg());
    let mut random = Vec::new();
    if enabled("random") {
        let (p, t) = torus(1.0, 0.2, 128, 128);
        let pair = RandomPair::new("torus32k", Model::new("torus32k", p, t), None, 0x5eed_0001);
        random.push((pair.label, bench_random(c, &pair)));
        drop(pair);
        let pair = RandomPair::new(
            "wingnut_teapot",
            Model::from_obj("odedstein_wingnut.obj", 1.0),
            Some(Model::from_obj("o3dv_utah_teapot.stl.obj", 1.0)),
            0x5eed_0003,
        );
        random.push((pair.label, bench_random(c, &pair)));
    }
    let rapid = enabled("rapid").then(|| bench_rapid_tori(c));
    if enabled("scaled") {
        bench_scaled_tori(c);
    }
    let prox = if enabled("proximity") {
        proximity()
    } else {
        Vec::new()
    };
    let build = enabled("build").then(|| bench_build(c));

    println!(
        "[table] µs/query as criterion (total over {SAMPLES} samples / queries) / full pass \
         (one query per placement, all {PLACEMENTS}); box and triangle tests per query, full pass"
    );
    println!(
        "[table] {:<15} | {:>5} | {:>17} | {:>17} | {:>19} | {:>19} | {:>9} | {:>9} | {:>8} | \
         {:>7} | {:>8}",
        "pair",
        "hit %",
        "ours First",
        "ours All",
        "parry intersection",
        "parry contacts",
        "First box",
        "First tri",
        "All box",
        "All tri",
        "disagree"
    );
    for (label, (f, t)) in &random {
        println!(
            "[table] {:<15} | {:>5.1} | {:>8.2} / {:>6.2} | {:>8.2} / {:>6.2} | {:>9.2} / \
             {:>7.2} | {:>9.2} / {:>7.2} | {:>9.1} | {:>9.2} | {:>8.1} | {:>7.1} | {:>8}",
            label,
            100.0 * f.fraction,
            t.first,
            f.first.us,
            t.all,
            f.all.us,
            t.parry_first,
            f.parry_first_us,
            t.parry_all,
            f.parry_all.us,
            f.first.box_tests,
            f.first.triangle_tests,
            f.all.box_tests,
            f.all.triangle_tests,
            f.disagreements,
        );
    }
    let mut summary = Vec::new();
    for (label, (f, t)) in &random {
        summary.push(format!(
            "{label}: parry/ours First {:.2}x (full pass {:.2}x), All {:.2}x (full pass {:.2}x), \
             {} boolean disagreements",
            t.parry_first / t.first,
            f.parry_first_us / f.first.us,
            t.parry_all / t.all,
            f.parry_all.us / f.all.us,
            f.disagreements
        ));
    }
    if let Some((o, p)) = rapid {
        summary.push(format!(
            "rapid_tori All: ours {o:.1} µs, parry {p:.1} µs ({:.2}x)",
            p / o
        ));
    }
    if !prox.is_empty() {
        let slope = log_log_slope(
            &prox
                .iter()
                .map(|r| (f64::from(r.eps), r.box_tests))
                .collect::<Vec<_>>(),
        );
        summary.push(format!("close proximity slope {slope:.3}"));
    }
    if let Some((ms, pms, bpt)) = build {
        summary.push(format!(
            "build 100k: {ms:.1} ms (parry {pms:.1} ms), {bpt:.1} B/triangle"
        ));
    }
    println!("[summary] {}", summary.join("; "));
    println!(
        "[env] load average after: {}; whole run {:.0} s",
        loadavg(),
        start.elapsed().as_secs_f64()
    );
}

criterion_group!(mesh_collide, benches);
criterion_main!(mesh_collide);
