//! Mesh–mesh distance, side by side with parry3d: branch and bound over two
//! bounding-volume trees with exact triangle–triangle distances
//! (`bvh::distance`; Larsen, Gottschalk, Lin, Manocha, *Fast proximity
//! queries with swept sphere volumes*, 1999, §4: the nearer node pair first,
//! pruning by the best distance so far) against `parry3d::query::distance`
//! on two `TriMesh`es (its BVH best-first search with GJK on triangles).
//!
//! Models, each against itself, scaled to a bounding radius of 1: a coarse
//! torus (`torus(1, 0.2, 24, 24)`, 1 152 triangles, small enough for the
//! brute-force check), the torus of 8 192 triangles (`torus(1, 0.2, 64,
//! 64)`), `odedstein_wingnut.obj` (6 090) and `o3dv_utah_teapot.stl.obj`
//! (9 438). Per model and gap (0.1 and 0.01, i.e. 5 % and 0.5 % of the
//! diameter, and 2.0, the models' whole size apart, where a search that
//! does not prune by the best distance found so far visits most triangle
//! pairs), 100 placements: both copies turned by uniform random
//! rotations, B's center at `t u` for a random unit `u`, `t` found by
//! bisection so that the distance is the gap (to within 1e-4 of it).
//!
//! One criterion iteration is one pass over the 100 placements:
//!
//! - `ours_obb`: the exact distance (`DistanceLimit::EXACT`) between the
//!   models' OBB trees;
//! - `ours_aabb`: the same over AABB trees (SOLID's, what a deformable model
//!   has);
//! - `ours_within`: "are they within twice the gap?"
//!   (`DistanceLimit::within(2 gap)`, OBB trees): the search stops at the
//!   first triangle pair that close, the tolerance query of the papers;
//! - `parry`: `parry3d::query::distance` between the models as parry
//!   `TriMesh`es (same vertices and triangles, same poses).
//!
//! Check, before the timing, every placement: the OBB and AABB answers are
//! equal (the same triangle kernel, so to 1e-6); `ours_within` found a pair
//! at most 2 gap apart; parry's distance is compared with ours (its GJK
//! stops at a relative gap of ~1e-3, so it may be a little above: counted).
//! Where parry is below ours by over 1e-5 or above by over 1 %, brute force
//! over every triangle pair (`testkit::mesh_distance`, in f64) decides: ours
//! must agree with it to 1e-5 (asserted), and the placement is printed and
//! counted as parry wrong. On the coarse torus, the first 10 placements of
//! each gap are checked against brute force too. Printed: box and
//! triangle tests per query for each of our searches.
//!
//! Run: `cargo bench -p icollide-peers --bench mesh_distance`
//! (`ICOLLIDE_BENCH_SCENES=torus1k,torus8k,wingnut,teapot` runs some models).

use std::path::Path;

use bevy_icollide::bvh::distance::PendingPair;
use bevy_icollide::bvh::{
    DistanceLimit, DistanceStats, Surface, SurfaceTree, TreeKind, distance_surfaces,
};
use bevy_icollide::io::load_obj;
use bevy_icollide::math::Pose;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{Rng, mesh_distance, torus};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use icollide_peers::timing::{Log, configure, enabled, loadavg, median_us, timed};
use icollide_peers::{fit_to_ball, to_parry_pose, to_parry_trimesh};
use parry3d::math::Pose as ParryPose;
use parry3d::shape::TriMesh as ParryTriMesh;

/// Placements per model and gap.
const PLACEMENTS: usize = 100;
/// The gaps (bounding radius 1).
const GAPS: [f32; 3] = [0.1, 0.01, 2.0];
/// Placements checked against brute force on the coarse torus, per gap.
const BRUTE: usize = 10;
/// Largest triangle count checked against brute force.
const BRUTE_MAX_TRIANGLES: usize = 2_000;
/// The methods, in timing and summary order.
const METHODS: [&str; 4] = ["ours_obb", "ours_aabb", "ours_within", "parry"];

/// A model with both of our trees and parry's mesh.
struct Model {
    name: &'static str,
    mesh: TriMesh,
    obb: SurfaceTree,
    aabb: SurfaceTree,
    parry: ParryTriMesh,
}

impl Model {
    fn new(name: &'static str, positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Self {
        let mesh = TriMesh::new(fit_to_ball(&positions, 1.0), triangles).expect("valid mesh");
        Self {
            name,
            obb: SurfaceTree::build(&mesh, TreeKind::Obb),
            aabb: SurfaceTree::build(&mesh, TreeKind::Aabb),
            parry: to_parry_trimesh(&mesh),
            mesh,
        }
    }

    fn from_obj(name: &'static str, file: &str) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../assets/meshes")
            .join(file);
        let obj = load_obj(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Self::new(name, obj.positions, obj.triangles)
    }

    fn surface(&self, kind: TreeKind) -> Surface<'_> {
        let tree = match kind {
            TreeKind::Obb => &self.obb,
            TreeKind::Aabb => &self.aabb,
        };
        Surface::new(&self.mesh, tree.as_ref())
    }

    /// Our search between the model at `a` and at `b`: the distance found
    /// (`INFINITY` when none within the limit) and the work.
    fn ours(
        &self,
        kind: TreeKind,
        (a, b): (Pose, Pose),
        limit: DistanceLimit,
        stack: &mut Vec<PendingPair>,
    ) -> (f32, DistanceStats) {
        let s = self.surface(kind);
        let (d, stats) = distance_surfaces((s, a), (s, b), limit, stack);
        (d.map_or(f32::INFINITY, |d| d.distance), stats)
    }

    fn parry_distance(&self, a: &ParryPose, b: &ParryPose) -> f32 {
        parry3d::query::distance(a, &self.parry, b, &self.parry).map_or(f32::NAN, |d| d.distance)
    }
}

/// The placements of one model at one gap, for both crates.
struct Placements {
    gap: f32,
    ours: Vec<(Pose, Pose)>,
    parry: Vec<(ParryPose, ParryPose)>,
}

impl Placements {
    /// Seeded placements: random rotations, B along a random direction at
    /// the distance `gap` from A (bisection on the offset).
    fn new(m: &Model, gap: f32, seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let mut stack = Vec::new();
        let exact = |p: (Pose, Pose), stack: &mut Vec<PendingPair>| {
            m.ours(TreeKind::Obb, p, DistanceLimit::EXACT, stack).0
        };
        let ours: Vec<(Pose, Pose)> = (0..PLACEMENTS)
            .map(|_| {
                let a = Pose::new(rng.rotation(), Vec3::ZERO);
                let (rb, u) = (rng.rotation(), rng.unit_vector());
                let (mut lo, mut hi) = (0.0f32, 2.0 + 2.0 * gap);
                while hi - lo > 1e-5 {
                    let mid = 0.5 * (lo + hi);
                    if exact((a, Pose::new(rb, u * mid)), &mut stack) < gap {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                (a, Pose::new(rb, u * hi))
            })
            .collect();
        let parry = ours
            .iter()
            .map(|(a, b)| (to_parry_pose(a), to_parry_pose(b)))
            .collect();
        Self { gap, ours, parry }
    }
}

/// What the check saw for one model and gap.
#[derive(Default)]
struct CheckFigures {
    /// Mean box and triangle tests per query: OBB, AABB, within.
    tests: [[f64; 2]; 3],
    /// Largest distance seen and its smallest.
    range: [f32; 2],
    /// Parry's largest excess over ours and how often it is over 1e-4.
    parry_excess: f32,
    parry_over: usize,
    /// Placements where parry is more than 1 % off (brute force agrees
    /// with ours on each, asserted).
    parry_wrong: usize,
    brute_checked: usize,
}

/// Every placement: OBB = AABB, parry within 1 % above, `within` finds a
/// pair; brute force on small models.
fn check(m: &Model, ps: &Placements) -> CheckFigures {
    let mut stack = Vec::new();
    let mut fig = CheckFigures {
        range: [f32::INFINITY, 0.0],
        ..Default::default()
    };
    let n = ps.ours.len() as f64;
    for (k, (&p, (pa, pb))) in ps.ours.iter().zip(&ps.parry).enumerate() {
        let at = || format!("{} gap {}, placement {k}", m.name, ps.gap);
        let (d_obb, s_obb) = m.ours(TreeKind::Obb, p, DistanceLimit::EXACT, &mut stack);
        let (d_aabb, s_aabb) = m.ours(TreeKind::Aabb, p, DistanceLimit::EXACT, &mut stack);
        let within = DistanceLimit::within(2.0 * ps.gap);
        let (d_within, s_within) = m.ours(TreeKind::Obb, p, within, &mut stack);
        assert!(
            (d_obb - d_aabb).abs() <= 1e-6 * d_obb.max(1.0),
            "{}: OBB {d_obb} AABB {d_aabb}",
            at()
        );
        assert!(
            d_within <= 2.0 * ps.gap,
            "{}: within found {d_within}",
            at()
        );
        let d_parry = m.parry_distance(pa, pb);
        let excess = d_parry - d_obb;
        let parry_off = !(excess >= -1e-5 && excess <= 1e-2 * d_obb.max(1e-3));
        let small = m.mesh.triangles().len() <= BRUTE_MAX_TRIANGLES && k < BRUTE;
        if parry_off || small {
            // Brute force decides (seconds on the large models, so only
            // where the crates disagree).
            let (_, exact, _) = mesh_distance(&m.mesh, &p.0, &m.mesh, &p.1);
            assert!(
                (f64::from(d_obb) - exact).abs() <= 1e-5,
                "{}: ours {d_obb} brute force {exact} (parry {d_parry})",
                at()
            );
            fig.brute_checked += 1;
            if parry_off {
                println!(
                    "[check] {}: parry3d {d_parry}, ours {d_obb} = brute force {exact:.7}",
                    at()
                );
                fig.parry_wrong += 1;
            }
        }
        if !parry_off {
            fig.parry_excess = fig.parry_excess.max(excess);
            fig.parry_over += usize::from(excess > 1e-4);
        }
        for (t, s) in [s_obb, s_aabb, s_within].iter().enumerate() {
            fig.tests[t][0] += f64::from(s.box_tests) / n;
            fig.tests[t][1] += f64::from(s.triangle_tests) / n;
        }
        fig.range = [fig.range[0].min(d_obb), fig.range[1].max(d_obb)];
    }
    fig
}

fn report_check(m: &Model, ps: &Placements, fig: &CheckFigures) {
    let t = &fig.tests;
    println!(
        "[check] {} ({} triangles) gap {}: {} placements, distances {:.5}..{:.5}; OBB = AABB on \
         all; brute force agrees on {}; parry above ours by at most {:.1e}, over 1e-4 in {}, wrong by \
         over 1 % in {}; box / triangle tests per query: OBB {:.0} / {:.0}, AABB {:.0} / {:.0}, within(2 gap) {:.0} / \
         {:.0}",
        m.name,
        m.mesh.triangles().len(),
        ps.gap,
        ps.ours.len(),
        fig.range[0],
        fig.range[1],
        fig.brute_checked,
        fig.parry_excess,
        fig.parry_over,
        fig.parry_wrong,
        t[0][0],
        t[0][1],
        t[1][0],
        t[1][1],
        t[2][0],
        t[2][1],
    );
}

/// One pass over the placements with method `k`.
fn pass(m: &Model, ps: &Placements, k: usize, stack: &mut Vec<PendingPair>) -> usize {
    let mut found = 0;
    for (&p, (pa, pb)) in ps.ours.iter().zip(&ps.parry) {
        let d = match k {
            0 => m.ours(TreeKind::Obb, p, DistanceLimit::EXACT, stack).0,
            1 => m.ours(TreeKind::Aabb, p, DistanceLimit::EXACT, stack).0,
            2 => {
                let within = DistanceLimit::within(2.0 * ps.gap);
                m.ours(TreeKind::Obb, p, within, stack).0
            }
            _ => m.parry_distance(pa, pb),
        };
        found += usize::from(d.is_finite());
    }
    found
}

/// µs per query of each method on one model and gap.
fn bench_placements(c: &mut Criterion, m: &Model, ps: &Placements) -> [f64; 4] {
    let mut logs: [Log; 4] = Default::default();
    let mut stack = Vec::new();
    let mut group = c.benchmark_group(format!("mesh_distance/{}/gap={}", m.name, ps.gap));
    configure(&mut group);
    group.throughput(Throughput::Elements(ps.ours.len() as u64));
    for (k, name) in METHODS.iter().enumerate() {
        group.bench_function(*name, |b| {
            timed(b, &mut logs[k], || pass(m, ps, k, &mut stack))
        });
    }
    group.finish();
    logs.map(|l| median_us(&l) / ps.ours.len() as f64)
}

/// The enabled models, each with its placement seed.
fn models() -> Vec<(Model, u64)> {
    let mut out = Vec::new();
    for (name, u, seed) in [("torus1k", 24, 1), ("torus8k", 64, 2)] {
        if enabled(name) {
            let (p, t) = torus(1.0, 0.2, u, u);
            out.push((Model::new(name, p, t), seed));
        }
    }
    for (name, file, seed) in [
        ("wingnut", "odedstein_wingnut.obj", 3),
        ("teapot", "o3dv_utah_teapot.stl.obj", 4),
    ] {
        if enabled(name) {
            out.push((Model::from_obj(name, file), seed));
        }
    }
    out
}

fn benches(c: &mut Criterion) {
    println!("[env] load average before: {}", loadavg());
    let mut lines = Vec::new();
    for (m, seed) in &models() {
        for (j, &gap) in GAPS.iter().enumerate() {
            let ps = Placements::new(m, gap, 0x0d15_7a4c + 10 * seed + j as u64);
            report_check(m, &ps, &check(m, &ps));
            let us = bench_placements(c, m, &ps);
            lines.push(format!(
                "{} gap {gap}: µs/query (median of 10 samples) ours_obb {:.1}, ours_aabb {:.1}, \
                 ours_within {:.1}, parry {:.1}; parry/ours_obb {:.2}x, parry/ours_aabb {:.2}x, \
                 ours_obb/ours_within {:.2}x",
                m.name,
                us[0],
                us[1],
                us[2],
                us[3],
                us[3] / us[0],
                us[3] / us[1],
                us[0] / us[2],
            ));
        }
    }
    for l in lines {
        println!("[summary] {l}");
    }
    println!("[env] load average after: {}", loadavg());
}

criterion_group!(mesh_distance_bench, benches);
criterion_main!(mesh_distance_bench);
