//! Boolean convex tests ("do they touch?") with coherence, side by side with
//! parry3d's `intersection_test`: what a sensor pair, or any pair that does
//! not want contact data, costs the narrow phase every frame.
//!
//! Scene ([`SeparatedPairs`] with centers 1.7 to 2.3 apart, 1.2 to 1.8 for
//! hulls of under 20 points): 1 000 pairs of
//! convex hulls of random points on the unit sphere (every body its own
//! hull), each body turning 1° about its own axis and moving 0.01 per frame;
//! with radius at most 1 the pairs overlap on some frames and not on others
//! (the check prints the mix). Per hull size (40, 100 and 1 000 points: 40
//! is the multi-body benchmark's hulls), one
//! criterion iteration is one frame of all 1 000 pairs:
//!
//! - `gjk_warm`: `gjk::gjk_intersect`, one `GjkCache` per pair kept across
//!   frames: last frame's separating axis is tried first (one support query
//!   on each shape, hill-climbing from last frame's vertices), then GJK from
//!   last frame's simplex (van den Bergen, *A fast and robust GJK
//!   implementation for collision detection of convex objects*, JGT 4(2),
//!   1999, §5: "separating axis caching");
//! - `gjk_cold`: the same with a fresh cache every query;
//! - `lin_canny_warm`: `lin_canny::closest_features` with a `ConvexCache`
//!   per pair, reading only `intersecting` (the cost of asking the contact
//!   path a yes/no question);
//! - `parry`: `parry3d::query::intersection_test` on `ConvexPolyhedron`s of
//!   the same hulls at the same poses (no state between frames).
//!
//! K = 64 consecutive frames are precomputed and replayed there and back, so
//! every timed frame is one frame of coherent motion.
//!
//! Check (before the timing, one full period of 126 frames, every pair):
//! the four answers must agree. Where they do not, the pair must be within
//! 1e-4 of touching (Lin–Canny's distance, or EPA's depth when they
//! overlap; 1e-3 when parry alone differs: its GJK stops at a relative gap
//! of about 1e-3), else the bench panics; such near-touching disagreements are
//! counted and printed.
//!
//! Run: `cargo bench -p icollide-peers --bench convex_boolean`
//! (`ICOLLIDE_BENCH_POINTS=100` runs one hull size).

use std::sync::Arc;

use bevy_icollide::geometry::epa;
use bevy_icollide::geometry::gjk::{GjkCache, gjk_intersect};
use bevy_icollide::math::Pose;
use bevy_icollide::query::lin_canny::{ConvexCache, closest_features};
use bevy_icollide::shape::ConvexPolytope;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use icollide_peers::timing::{Log, configure, loadavg, median_us, timed};
use icollide_peers::{PairParams, PingPong, SeparatedPairs};
use parry3d::math::Pose as ParryPose;
use parry3d::shape::ConvexPolyhedron;

/// Consecutive frames precomputed per hull size.
const RING: usize = 64;
/// Pairs (queries per frame).
const PAIRS: usize = 1_000;
/// Points per hull.
const SIZES: [usize; 3] = [40, 100, 1_000];
/// How close to touching a pair must be for a disagreement to be excused.
const NEAR: f32 = 1e-4;
/// How close to touching a pair must be for parry's answer alone to differ.
const PARRY_NEAR: f32 = 1e-3;
/// The methods, in timing and summary order.
const METHODS: [&str; 4] = ["gjk_warm", "gjk_cold", "lin_canny_warm", "parry"];

/// The pairs' centre distances: 1.7 to 2.3, or 1.2 to 1.8 for hulls of
/// under 20 points (a 12-point hull reaches less far from its centre: at
/// 1.7 to 2.3 only 3 % of its pairs overlap).
fn centers(points: usize) -> [f32; 2] {
    if points < 20 { [1.2, 1.8] } else { [1.7, 2.3] }
}

/// One hull size's scene for both crates, and the warm caches.
struct Config {
    points: usize,
    scene: SeparatedPairs,
    parry_shapes: Vec<Arc<ConvexPolyhedron>>,
    parry_frames: Vec<Vec<ParryPose>>,
    gjk: Vec<GjkCache>,
    lin_canny: Vec<ConvexCache>,
    ring: PingPong,
}

impl Config {
    fn new(points: usize) -> Self {
        let scene = SeparatedPairs::new(
            PairParams {
                pairs: PAIRS,
                hull_points: points,
                center_distance: centers(points),
                ..Default::default()
            },
            RING,
        );
        Self {
            points,
            parry_shapes: scene.parry_shapes(),
            parry_frames: scene.parry_frames(),
            scene,
            gjk: vec![GjkCache::default(); PAIRS],
            lin_canny: vec![ConvexCache::default(); PAIRS],
            ring: PingPong::new(RING),
        }
    }

    /// The four answers for pair `i` at frame `f` (the warm methods advance
    /// their caches).
    fn answers(&mut self, polys: &[&ConvexPolytope], f: usize, i: usize) -> [bool; 4] {
        let (a, b) = (2 * i, 2 * i + 1);
        let x = &self.scene.frames[f];
        let px = &self.parry_frames[f];
        [
            gjk_intersect(polys[a], &x[a], polys[b], &x[b], &mut self.gjk[i]),
            gjk_intersect(polys[a], &x[a], polys[b], &x[b], &mut GjkCache::default()),
            closest_features(polys[a], &x[a], polys[b], &x[b], &mut self.lin_canny[i]).intersecting,
            parry_test(&px[a], &self.parry_shapes[a], &px[b], &self.parry_shapes[b]),
        ]
    }
}

#[inline]
fn parry_test(pa: &ParryPose, a: &ConvexPolyhedron, pb: &ParryPose, b: &ConvexPolyhedron) -> bool {
    parry3d::query::intersection_test(pa, a, pb, b).is_ok_and(|r| r.intersecting)
}

/// How far pair `i` is from touching at frame `f`: Lin–Canny's distance
/// when apart, EPA's depth when they overlap.
fn margin_to_touching(polys: &[&ConvexPolytope], x: &[Pose], i: usize) -> f32 {
    let (a, b) = (2 * i, 2 * i + 1);
    let c = closest_features(
        polys[a],
        &x[a],
        polys[b],
        &x[b],
        &mut ConvexCache::default(),
    );
    if !c.intersecting {
        return c.distance;
    }
    epa::penetration(polys[a], &x[a], polys[b], &x[b], &mut GjkCache::default())
        .map_or(0.0, |p| p.depth)
}

/// What the check saw.
#[derive(Default)]
struct CheckFigures {
    queries: u64,
    intersecting: u64,
    /// Near-touching disagreements, per method (against the majority).
    near: [u64; 4],
}

/// One full period of every pair: all methods agree, or the pair is within
/// [`NEAR`] of touching. Leaves the caches warm at frame 0.
fn check(cfg: &mut Config) -> CheckFigures {
    let shapes = cfg.scene.shapes.clone();
    let polys: Vec<&ConvexPolytope> = shapes.iter().map(|s| s.polytope().expect("hull")).collect();
    let mut fig = CheckFigures::default();
    let mut ring = PingPong::new(RING);
    for _ in 0..ring.period() {
        let f = ring.next();
        for i in 0..PAIRS {
            let r = cfg.answers(&polys, f, i);
            fig.queries += 1;
            let yes = r.iter().filter(|&&v| v).count();
            let majority = yes >= 2;
            fig.intersecting += u64::from(majority);
            if yes == 0 || yes == 4 {
                continue;
            }
            let m = margin_to_touching(&polys, &cfg.scene.frames[f], i);
            // parry's GJK stops at a relative gap of about 1e-3: its answer
            // alone may differ farther from touching than ours may.
            let only_parry = r[..3].iter().all(|&v| v == r[0]) && r[3] != r[0];
            assert!(
                m <= NEAR || (only_parry && m <= PARRY_NEAR),
                "{} points, frame {f}, pair {i}: answers {r:?} (gjk warm, gjk cold, \
                 lin_canny, parry) disagree {m} from touching",
                cfg.points
            );
            for (k, &v) in r.iter().enumerate() {
                fig.near[k] += u64::from(v != majority);
            }
        }
    }
    assert_eq!(ring.current(), 0);
    let share = fig.intersecting as f64 / fig.queries as f64;
    assert!(
        (0.1..0.9).contains(&share),
        "the scene should mix overlapping and apart pairs: {:.1}% overlap",
        100.0 * share
    );
    fig
}

fn report_check(cfg: &Config, fig: &CheckFigures) {
    println!(
        "[check] points={}: {} queries, {:.1}% overlapping; the four methods agree on all but \
         near-touching pairs (within {NEAR:e}); near-touching answers against the majority: \
         {}",
        cfg.points,
        fig.queries,
        100.0 * fig.intersecting as f64 / fig.queries as f64,
        METHODS
            .iter()
            .zip(fig.near)
            .map(|(m, n)| format!("{m} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// One frame of every pair with method `k`; the number of overlapping
/// pairs.
fn frame(cfg: &mut Config, polys: &[&ConvexPolytope], k: usize) -> usize {
    let f = cfg.ring.next();
    let x = &cfg.scene.frames[f];
    let mut hits = 0;
    for i in 0..PAIRS {
        let (a, b) = (2 * i, 2 * i + 1);
        hits += usize::from(match k {
            0 => gjk_intersect(polys[a], &x[a], polys[b], &x[b], &mut cfg.gjk[i]),
            1 => gjk_intersect(polys[a], &x[a], polys[b], &x[b], &mut GjkCache::default()),
            2 => {
                let c = &mut cfg.lin_canny[i];
                closest_features(polys[a], &x[a], polys[b], &x[b], c).intersecting
            }
            _ => {
                let px = &cfg.parry_frames[f];
                parry_test(&px[a], &cfg.parry_shapes[a], &px[b], &cfg.parry_shapes[b])
            }
        });
    }
    hits
}

/// Times the four methods on one hull size; ns per query, by method.
fn bench_size(c: &mut Criterion, cfg: &mut Config) -> [f64; 4] {
    let shapes = cfg.scene.shapes.clone();
    let polys: Vec<&ConvexPolytope> = shapes.iter().map(|s| s.polytope().expect("hull")).collect();
    let mut logs: [Log; 4] = Default::default();
    let mut group = c.benchmark_group(format!("convex_boolean/points={}", cfg.points));
    configure(&mut group);
    group.throughput(Throughput::Elements(PAIRS as u64));
    for (k, name) in METHODS.iter().enumerate() {
        group.bench_function(*name, |b| timed(b, &mut logs[k], || frame(cfg, &polys, k)));
    }
    group.finish();
    logs.map(|l| median_us(&l) * 1e3 / PAIRS as f64)
}

fn benches(c: &mut Criterion) {
    println!("[env] load average before: {}", loadavg());
    let mut lines = Vec::new();
    for points in icollide_peers::env_sizes("ICOLLIDE_BENCH_POINTS", &SIZES) {
        let mut cfg = Config::new(points);
        let fig = check(&mut cfg);
        report_check(&cfg, &fig);
        let ns = bench_size(c, &mut cfg);
        lines.push(format!(
            "points={points}: ns/query (median of 10 samples) gjk_warm {:.1}, gjk_cold {:.1}, \
             lin_canny_warm {:.1}, parry {:.1}; parry/gjk_warm {:.2}x, lin_canny_warm/gjk_warm \
             {:.2}x, gjk_cold/gjk_warm {:.2}x",
            ns[0],
            ns[1],
            ns[2],
            ns[3],
            ns[3] / ns[0],
            ns[2] / ns[0],
            ns[1] / ns[0],
        ));
    }
    for l in lines {
        println!("[summary] {l}");
    }
    println!("[env] load average after: {}", loadavg());
}

criterion_group!(convex_boolean, benches);
criterion_main!(convex_boolean);
