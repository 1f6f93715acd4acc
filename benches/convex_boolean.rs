//! Boolean convex tests ("do they touch?") with coherence, side by side with
//! parry3d's `intersection_test`: what a sensor pair, or any pair that does
//! not want contact data, costs the narrow phase every frame.
//!
//! Scene ([`SeparatedPairs`], centres 1.7 to 2.3 apart, 1.2 to 1.8 for
//! hulls of under 20 points): 1 000 pairs of convex hulls of random points
//! on the unit sphere (every body its own hull), each pair in its own cell
//! of a grid 8 apart (no two pairs meet). **Continuous motion**
//! ([`PairMotion`]): every frame each body turns 1° about its own axis and
//! drifts 0.01; a pair's centre distance is kept in its band by mirroring
//! the velocities along the pair's axis, so the share of overlapping pairs
//! stays steady; a pair whose midpoint drifts more than 1 from its cell's
//! centre along an axis is moved back by 2 along it (both bodies). Nothing
//! is replayed: the poses of the timed frames never repeat. The motion
//! steps before each timed frame, outside the timing. Per hull size (12, 40
//! and 100 points by default: 40 is the multi-body benchmark's hulls), one
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
//!   the same hulls at the same poses (no state between frames);
//! - `world`: the crate's `CollisionWorld` (boolean pairs, `penetration:
//!   false`) holding the 2 000 bodies: poses set, boxes and broad phase
//!   updated outside the timing, then its narrow phase timed
//!   (`update_narrow_phase`: the pairs whose boxes overlap, each through
//!   the pair dispatch, its cached state and the hull balls before GJK).
//!   Its figure is per pair tested (pairs whose boxes overlap; the other
//!   rows test all 1 000 pairs every frame).
//!
//! Checks (they panic, failing the bench): before the timing, 128 frames
//! of every pair by all five methods must agree, or the pair must be within
//! 1e-4 of touching (Lin–Canny's distance, or EPA's depth when they
//! overlap; 1e-3 when parry alone differs: its GJK stops at a relative gap
//! of about 1e-3); such near-touching disagreements are counted and
//! printed. During the timing, every 64th timed frame of every method is
//! checked the same way against cold GJK and Lin–Canny (untimed).
//!
//! Run: `cargo bench -p icollide-peers --bench convex_boolean`
//! (`ICOLLIDE_BENCH_POINTS=100` runs one hull size; `…=12,40,100,1000`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy_icollide::geometry::epa;
use bevy_icollide::geometry::gjk::{GjkCache, gjk_intersect};
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::query::lin_canny::{ConvexCache, closest_features};
use bevy_icollide::shape::ConvexPolytope;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use icollide_peers::timing::{Log, configure, loadavg, median_us, timed_each};
use icollide_peers::{PairMotion, PairParams, SeparatedPairs, to_parry_pose};
use parry3d::math::Pose as ParryPose;
use parry3d::shape::ConvexPolyhedron;

/// Pairs (queries per frame).
const PAIRS: usize = 1_000;
/// Points per hull.
const SIZES: [usize; 3] = [12, 40, 100];
/// Frames checked before the timing.
const CHECK_FRAMES: usize = 128;
/// During the timing, every this many frames of a method are checked.
const CHECK_EVERY: u64 = 64;
/// How close to touching a pair must be for a disagreement to be excused.
const NEAR: f32 = 1e-4;
/// How close to touching a pair must be for parry's answer alone to differ.
const PARRY_NEAR: f32 = 1e-3;
/// The methods, in timing and summary order.
const METHODS: [&str; 5] = ["gjk_warm", "gjk_cold", "lin_canny_warm", "parry", "world"];

/// The pairs' centre distances: 1.7 to 2.3, or 1.2 to 1.8 for hulls of
/// under 20 points (a 12-point hull reaches less far from its centre: at
/// 1.7 to 2.3 only 3 % of its pairs overlap).
fn centers(points: usize) -> [f32; 2] {
    if points < 20 { [1.2, 1.8] } else { [1.7, 2.3] }
}

/// One hull size's scene for both crates, the motion, the warm caches
/// and the world.
struct Config {
    points: usize,
    scene: SeparatedPairs,
    motion: PairMotion,
    parry_shapes: Vec<Arc<ConvexPolyhedron>>,
    parry_poses: Vec<ParryPose>,
    gjk: Vec<GjkCache>,
    lin_canny: Vec<ConvexCache>,
    world: CollisionWorld,
    handles: Vec<BodyHandle>,
    /// The last timed frame's answers, by pair.
    answers: Vec<bool>,
    /// Timed frames per method.
    timed: [u64; 5],
    /// Pairs the world tested, over its timed frames.
    world_tests: u64,
}

impl Config {
    fn new(points: usize) -> Self {
        let params = PairParams {
            pairs: PAIRS,
            hull_points: points,
            center_distance: centers(points),
            spacing: 8.0,
            ..Default::default()
        };
        let scene = SeparatedPairs::new(params, 1);
        let config = WorldConfig {
            penetration: false,
            ..Default::default()
        };
        let mut world = CollisionWorld::new(config).expect("config");
        let handles = (scene.shapes.iter())
            .map(|s| world.add_body(BodyDesc::new(s.clone())))
            .collect();
        Self {
            points,
            motion: scene.motion.clone(),
            parry_shapes: scene.parry_shapes(),
            parry_poses: Vec::new(),
            scene,
            gjk: vec![GjkCache::default(); PAIRS],
            lin_canny: vec![ConvexCache::default(); PAIRS],
            world,
            handles,
            answers: vec![false; PAIRS],
            timed: [0; 5],
            world_tests: 0,
        }
    }

    /// Steps the motion and hands the new poses to parry's list and the
    /// world (boxes and broad phase updated; the narrow phase is the
    /// world's timed part).
    fn step(&mut self) {
        self.motion.step();
        let x = &self.motion.poses;
        self.parry_poses.clear();
        self.parry_poses.extend(x.iter().map(to_parry_pose));
        for (h, p) in self.handles.iter().zip(x) {
            self.world.set_pose(*h, *p).expect("pose");
        }
        self.world.update_bounds();
        self.world.update_broad_phase();
    }

    /// The world's answer for pair `i` after its narrow phase.
    fn world_touching(&self, i: usize) -> bool {
        let (a, b) = (self.handles[2 * i], self.handles[2 * i + 1]);
        self.world.pair(a, b).is_some_and(|p| p.result.touching)
    }

    /// Method `k`'s answer for pair `i` at the current poses (the warm
    /// methods advance their caches; the world's is read, see
    /// [`world_touching`](Self::world_touching)).
    fn answer(&mut self, polys: &[&ConvexPolytope], k: usize, i: usize) -> bool {
        let (a, b) = (2 * i, 2 * i + 1);
        let x = &self.motion.poses;
        match k {
            0 => gjk_intersect(polys[a], &x[a], polys[b], &x[b], &mut self.gjk[i]),
            1 => gjk_intersect(polys[a], &x[a], polys[b], &x[b], &mut GjkCache::default()),
            2 => {
                let c = &mut self.lin_canny[i];
                closest_features(polys[a], &x[a], polys[b], &x[b], c).intersecting
            }
            3 => {
                let px = &self.parry_poses;
                parry_test(&px[a], &self.parry_shapes[a], &px[b], &self.parry_shapes[b])
            }
            _ => self.world_touching(i),
        }
    }
}

#[inline]
fn parry_test(pa: &ParryPose, a: &ConvexPolyhedron, pb: &ParryPose, b: &ConvexPolyhedron) -> bool {
    parry3d::query::intersection_test(pa, a, pb, b).is_ok_and(|r| r.intersecting)
}

/// How far pair `i` is from touching: Lin–Canny's distance when apart,
/// EPA's depth when they overlap.
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

/// What the checks saw.
#[derive(Default)]
struct CheckFigures {
    queries: u64,
    intersecting: u64,
    /// Near-touching disagreements, per method (against the majority).
    near: [u64; 5],
}

/// The five answers for pair `i` must agree, or the pair be near touching
/// (panics otherwise); counts what it saw.
fn judge(cfg: &Config, polys: &[&ConvexPolytope], i: usize, r: [bool; 5], fig: &mut CheckFigures) {
    fig.queries += 1;
    let yes = r.iter().filter(|&&v| v).count();
    let majority = yes >= 3;
    fig.intersecting += u64::from(majority);
    if yes == 0 || yes == 5 {
        return;
    }
    let m = margin_to_touching(polys, &cfg.motion.poses, i);
    // parry's GJK stops at a relative gap of about 1e-3: its answer
    // alone may differ farther from touching than ours may.
    let others = [r[0], r[1], r[2], r[4]];
    let only_parry = others.iter().all(|&v| v == r[0]) && r[3] != r[0];
    assert!(
        m <= NEAR || (only_parry && m <= PARRY_NEAR),
        "{} points, frame {}, pair {i}: answers {r:?} (gjk warm, gjk cold, lin_canny, parry, \
         world) disagree {m} from touching",
        cfg.points,
        cfg.motion.frame
    );
    for (k, &v) in r.iter().enumerate() {
        fig.near[k] += u64::from(v != majority);
    }
}

/// [`CHECK_FRAMES`] frames of every pair by every method. Leaves the
/// caches warm.
fn check(cfg: &mut Config, polys: &[&ConvexPolytope]) -> CheckFigures {
    let mut fig = CheckFigures::default();
    for _ in 0..CHECK_FRAMES {
        cfg.step();
        cfg.world.update_narrow_phase();
        let _ = cfg.world.drain_events();
        for i in 0..PAIRS {
            let r = std::array::from_fn(|k| cfg.answer(polys, k, i));
            judge(cfg, polys, i, r, &mut fig);
        }
    }
    let share = fig.intersecting as f64 / fig.queries as f64;
    assert!(
        (0.1..0.9).contains(&share),
        "the scene should mix overlapping and apart pairs: {:.1}% overlap",
        100.0 * share
    );
    fig
}

/// The answers of a timed frame of method `k` against cold GJK and
/// Lin–Canny at the same poses (panics where they differ away from
/// touching).
fn check_timed(cfg: &mut Config, polys: &[&ConvexPolytope], k: usize) {
    let mut fig = CheckFigures::default();
    for i in 0..PAIRS {
        let (g, l) = (cfg.answer(polys, 1, i), cfg.answer(polys, 2, i));
        let a = cfg.answers[i];
        // Parry's answer goes in parry's slot (its looser excuse).
        let r = if k == 3 {
            [g, g, l, a, l]
        } else {
            [a, g, l, g, l]
        };
        judge(cfg, polys, i, r, &mut fig);
    }
}

fn report_check(cfg: &Config, fig: &CheckFigures) {
    println!(
        "[check] points={}: {} queries over {CHECK_FRAMES} frames, {:.1}% overlapping; the five \
         methods agree on all but near-touching pairs (within {NEAR:e}); near-touching answers \
         against the majority: {}",
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

/// One frame of every pair with method `k`, the motion stepped first
/// (untimed); the time of the pair tests.
fn frame(cfg: &mut Config, polys: &[&ConvexPolytope], k: usize) -> Duration {
    cfg.step();
    let t = Instant::now();
    if k == 4 {
        cfg.world.update_narrow_phase();
    } else {
        for i in 0..PAIRS {
            cfg.answers[i] = cfg.answer(polys, k, i);
        }
    }
    let e = t.elapsed();
    if k == 4 {
        let _ = cfg.world.drain_events();
        cfg.world_tests += u64::from(cfg.world.stats().pair_tests);
        for i in 0..PAIRS {
            cfg.answers[i] = cfg.world_touching(i);
        }
    }
    cfg.timed[k] += 1;
    if cfg.timed[k].is_multiple_of(CHECK_EVERY) {
        check_timed(cfg, polys, k);
    }
    e
}

/// Times the five methods on one hull size; ns per query (the world's:
/// per pair it tested), by method.
fn bench_size(c: &mut Criterion, cfg: &mut Config, polys: &[&ConvexPolytope]) -> [f64; 5] {
    let mut logs: [Log; 5] = Default::default();
    let mut group = c.benchmark_group(format!("convex_boolean/points={}", cfg.points));
    configure(&mut group);
    group.throughput(Throughput::Elements(PAIRS as u64));
    for (k, name) in METHODS.iter().enumerate() {
        group.bench_function(*name, |b| {
            timed_each(b, &mut logs[k], || frame(cfg, polys, k))
        });
    }
    group.finish();
    let mut ns = logs.map(|l| median_us(&l) * 1e3 / PAIRS as f64);
    let tests_per_frame = cfg.world_tests as f64 / cfg.timed[4] as f64;
    ns[4] *= PAIRS as f64 / tests_per_frame;
    println!(
        "[world] points={}: {tests_per_frame:.0} pairs tested per frame (boxes overlapping) of \
         {PAIRS}; {} timed frames checked every {CHECK_EVERY}",
        cfg.points, cfg.timed[4]
    );
    ns
}

fn benches(c: &mut Criterion) {
    println!("[env] load average before: {}", loadavg());
    let mut lines = Vec::new();
    for points in icollide_peers::env_sizes("ICOLLIDE_BENCH_POINTS", &SIZES) {
        let mut cfg = Config::new(points);
        let shapes = cfg.scene.shapes.clone();
        let polys: Vec<&ConvexPolytope> =
            shapes.iter().map(|s| s.polytope().expect("hull")).collect();
        let fig = check(&mut cfg, &polys);
        report_check(&cfg, &fig);
        let ns = bench_size(c, &mut cfg, &polys);
        lines.push(format!(
            "points={points}: ns/query (median of 10 samples) gjk_warm {:.1}, gjk_cold {:.1}, \
             lin_canny_warm {:.1}, parry {:.1}, world {:.1} per pair tested; parry/gjk_warm \
             {:.2}x, parry/world {:.2}x, lin_canny_warm/gjk_warm {:.2}x, gjk_cold/gjk_warm {:.2}x",
            ns[0],
            ns[1],
            ns[2],
            ns[3],
            ns[4],
            ns[3] / ns[0],
            ns[3] / ns[4],
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
