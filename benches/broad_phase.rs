//! Broad phase of I-COLLIDE's multi-body scene, side by side with parry3d.
//!
//! For N = 1 000, 10 000, 100 000 convex hulls (40 points, 5 % density,
//! 10°/frame, 1.5 % of the radius per frame) this measures, per frame:
//!
//! - `bounds_update`: the world box of every body by a fixed cube
//!   (`FixedCube::aabb`), a dynamic box (`DynamicBox::update`, hill-climbing
//!   from last frame's extremal vertices; below `CLIMB_MIN_VERTICES` every
//!   vertex, eight at a time), the same with each hull prefetched
//!   `READ_AHEAD` bodies early (`dynamic_box_read_ahead`, what the collision
//!   world does) and brute force (every hull vertex transformed).
//!   Throughput is in objects: ns per object = 1 / throughput.
//! - `broad_phase`: sweep and prune (`set_aabb` for every proxy, `update`):
//!   `sap`, one set of three endpoint lists (I-COLLIDE as published), and
//!   `grid_sap`, one per grid cell (`GridSweepAndPrune`, what the collision
//!   world uses), against parry3d's BVH driven like rapier's `BroadPhaseBvh`
//!   (`insert_or_update_partially`, `optimize_incremental`, `refit`,
//!   `traverse_bvtt_single_tree`, pair map with started/ended pairs):
//!   `bvh_exact` (margin 0, full traversal: the same pairs as sweep and
//!   prune) and `bvh_rapier_cd` (rapier's margin 1e-2 with change
//!   detection: fewer leaf updates, a superset of the pairs).
//!
//! The scene is stepped K = 64 times beforehand; the benchmarks replay those
//! consecutive frames there and back (0, 1, …, 63, 62, …, 0, …) so every
//! timed frame is one frame of coherent motion and `scene.step()` is not
//! timed. Both broad phases get the same dynamic boxes (margin 0). Before the
//! timing, one full period checks that sweep and prune and the exact BVH
//! hold the same pairs every frame and prints swaps and pairs per frame.
//!
//! - `broad_phase_sparse`: the same scene where only 1 body in 10 moves
//!   (a game-like frame): each broad phase is told only about the movers.
//!   `ICOLLIDE_BENCH_SPARSE=100` makes it 1 in 100 (time against movers).
//!
//! Run: `cargo bench -p icollide-peers --bench broad_phase`.
//! `ICOLLIDE_BENCH_HULL_POINTS` and `ICOLLIDE_BENCH_ROTATION_DEG` change the
//! scene (defaults 40 and 10), e.g. to see where hill-climbing pays;
//! `ICOLLIDE_BENCH_SHAPES` the number of distinct hulls the bodies share
//! (default 32, a working set that stays in the cache; with
//! `ICOLLIDE_BENCH_N=10000 ICOLLIDE_BENCH_SHAPES=10000`, every body its own
//! hull, it shows what `dynamic_box_read_ahead` is for). Set
//! `ICOLLIDE_BENCH_N=1000,10000` to run only some sizes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bevy_icollide::bounds::{DynamicBox, FixedCube, READ_AHEAD};
use bevy_icollide::broad_phase::enlarged::DEFAULT_MARGIN;
use bevy_icollide::broad_phase::{
    AllowAll, BroadPhase, Enlarged, GridSweepAndPrune, PairChanges, ProxyKey, SweepAndPrune,
    pair_ids,
};
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::shape::ConvexHull;
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main, measurement::WallTime,
};
use icollide_peers::{ParryBvhBroadPhase, PingPong, brute_force_aabb, env_or};

/// Consecutive frames precomputed per N.
const RING: usize = 64;
/// rapier's change-detection margin (`BroadPhaseBvh`).
const RAPIER_MARGIN: f32 = 1.0e-2;
const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// The scene of N bodies and K consecutive frames of its poses and boxes.
struct Frames {
    n: usize,
    scene: MultiBodyScene,
    cubes: Vec<FixedCube>,
    /// `poses[f][i]`: body `i` at frame `f`.
    poses: Vec<Vec<Pose>>,
    /// `boxes[f][i]`: the dynamic (tight) box of body `i` at frame `f`.
    boxes: Vec<Vec<Aabb>>,
}

impl Frames {
    fn new(n: usize) -> Self {
        let params = MultiBodyParams {
            count: n,
            hull_points: env_or("ICOLLIDE_BENCH_HULL_POINTS", 40),
            density: 0.05,
            rotation_deg: env_or("ICOLLIDE_BENCH_ROTATION_DEG", 10.0),
            translation: 0.015,
            distinct_shapes: env_or("ICOLLIDE_BENCH_SHAPES", 32),
            ..Default::default()
        };
        println!(
            "[scene] N={n}: {} hull points, {}°/frame, {} of the radius per frame, {} distinct hulls",
            params.hull_points, params.rotation_deg, params.translation, params.distinct_shapes
        );
        let mut scene = MultiBodyScene::new(&params);
        let cubes = (0..n).map(|i| *scene.shape_of(i).fixed_cube()).collect();
        let mut poses = Vec::with_capacity(RING);
        for f in 0..RING {
            if f > 0 {
                scene.step();
            }
            poses.push(scene.bodies.iter().map(|b| b.pose).collect::<Vec<_>>());
        }
        let mut this = Self {
            n,
            scene,
            cubes,
            poses,
            boxes: Vec::new(),
        };
        let mut dyn_boxes = vec![DynamicBox::new(); n];
        this.boxes = (0..RING)
            .map(|f| {
                (0..n)
                    .map(|i| dyn_boxes[i].update(this.hull(i), &this.poses[f][i]).0)
                    .collect()
            })
            .collect();
        this
    }

    fn hull(&self, i: usize) -> &ConvexHull {
        self.scene
            .shape_of(i)
            .hull()
            .expect("scene shapes are hulls")
    }

    fn hulls(&self) -> Vec<&ConvexHull> {
        (0..self.n).map(|i| self.hull(i)).collect()
    }
}

/// Sizes to run: `ICOLLIDE_BENCH_N` (comma-separated) or [`SIZES`].
fn sizes() -> Vec<usize> {
    icollide_peers::env_sizes("ICOLLIDE_BENCH_N", &SIZES)
}

/// Short runs: 2 cores, three sizes, a few minutes in all. The largest size
/// takes flat sampling (10 samples of equal iteration counts).
fn configure(group: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(if n >= 100_000 { 3 } else { 2 }))
        .throughput(Throughput::Elements(n as u64));
    if n >= 100_000 {
        group.sampling_mode(SamplingMode::Flat);
    }
}

/// Checks the three bounds against each other once on every frame of the ring.
fn check_bounds(frames: &Frames) {
    let hulls = frames.hulls();
    let mut dyn_boxes = vec![DynamicBox::new(); frames.n];
    let mut visits = 0u64;
    for f in 0..RING {
        for i in 0..frames.n {
            let pose = &frames.poses[f][i];
            let (tight, v) = dyn_boxes[i].update(hulls[i], pose);
            visits += u64::from(v);
            let brute = brute_force_aabb(hulls[i].vertices(), pose);
            assert_eq!(
                tight, brute,
                "dynamic box {i} differs from brute force at frame {f}"
            );
            let cube = frames.cubes[i].aabb(pose);
            assert!(
                cube.min.cmple(brute.min).all() && cube.max.cmpge(brute.max).all(),
                "cube {i} does not contain the hull at frame {f}"
            );
        }
    }
    let verts = hulls.iter().map(|h| h.vertices().len()).sum::<usize>() as f64 / frames.n as f64;
    println!(
        "[check] N={}: dynamic box == brute force on {RING} frames; cube contains the hull; \
         {verts:.1} hull vertices/object; dynamic box: {:.1} vertex visits/object/frame \
         (first frame from vertex 0 included)",
        frames.n,
        visits as f64 / (RING * frames.n) as f64,
    );
}

fn bench_bounds(c: &mut Criterion, frames: &Frames) {
    let n = frames.n;
    let hulls = frames.hulls();
    let mut out = vec![Aabb::new(glam::Vec3::ZERO, glam::Vec3::ZERO); n];
    let mut group = c.benchmark_group("bounds_update");
    configure(&mut group, n);

    // Criterion calls each routine once per sample: the frame order and the
    // dynamic boxes live outside so that every timed frame follows the last.
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("fixed_cube", n), |b| {
        b.iter(|| {
            let poses = &frames.poses[ring.next()];
            for ((o, cube), pose) in out.iter_mut().zip(&frames.cubes).zip(poses) {
                *o = cube.aabb(pose);
            }
            black_box(&out);
        })
    });

    let mut ring = PingPong::new(RING);
    let mut boxes = vec![DynamicBox::new(); n];
    for (d, (h, p)) in boxes.iter_mut().zip(hulls.iter().zip(&frames.poses[0])) {
        d.update(h, p);
    }
    group.bench_function(BenchmarkId::new("dynamic_box", n), |b| {
        b.iter(|| {
            let poses = &frames.poses[ring.next()];
            for (((o, d), h), pose) in out.iter_mut().zip(&mut boxes).zip(&hulls).zip(poses) {
                *o = d.update(h, pose).0;
            }
            black_box(&out);
        })
    });

    // The same with the world's pad for rounding (`Aabb::rounded_out`, the
    // hull's reach and the pose's translation), as a body's box gets it.
    for (d, (h, p)) in boxes.iter_mut().zip(hulls.iter().zip(&frames.poses[0])) {
        d.update(h, p);
    }
    let reach: Vec<f32> = hulls
        .iter()
        .map(|h| Aabb::from_points(h.vertices().iter().copied()).reach())
        .collect();
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("dynamic_box_rounded_out", n), |b| {
        b.iter(|| {
            let poses = &frames.poses[ring.next()];
            for ((((o, d), h), pose), r) in out
                .iter_mut()
                .zip(&mut boxes)
                .zip(&hulls)
                .zip(poses)
                .zip(&reach)
            {
                *o = d.update(h, pose).0.rounded_out(*r, pose.translation);
            }
            black_box(&out);
        })
    });

    // What the collision world does: the same updates, each body's hull
    // fields hinted `2 READ_AHEAD` bodies before its turn and its lanes
    // `READ_AHEAD` before (from frame 0 again).
    for (d, (h, p)) in boxes.iter_mut().zip(hulls.iter().zip(&frames.poses[0])) {
        d.update(h, p);
    }
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("dynamic_box_read_ahead", n), |b| {
        b.iter(|| {
            let poses = &frames.poses[ring.next()];
            for i in 0..n {
                if let Some(ahead) = hulls.get(i + 2 * READ_AHEAD) {
                    DynamicBox::prefetch_fields(ahead);
                }
                if let Some(ahead) = hulls.get(i + READ_AHEAD) {
                    DynamicBox::prefetch(ahead);
                }
                out[i] = boxes[i].update(hulls[i], &poses[i]).0;
            }
            black_box(&out);
        })
    });

    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("brute_force", n), |b| {
        b.iter(|| {
            let poses = &frames.poses[ring.next()];
            for ((o, h), pose) in out.iter_mut().zip(&hulls).zip(poses) {
                *o = brute_force_aabb(h.vertices(), pose);
            }
            black_box(&out);
        })
    });
    group.finish();
}

/// Sweep and prune over frame 0's boxes, one proxy per body (`key == i`).
/// The first update's changes (every pair started) are drained and dropped.
fn new_sap(boxes: &[Aabb]) -> SweepAndPrune {
    let mut sap = SweepAndPrune::new();
    for (i, b) in boxes.iter().enumerate() {
        sap.insert(i as ProxyKey, *b, false).expect("valid box");
    }
    sap.update(&AllowAll);
    sap.drain_changes(&mut PairChanges::default());
    sap
}

/// One frame: every box moved, the update, and its pair changes drained
/// into `changes`.
#[inline]
fn sap_frame(sap: &mut SweepAndPrune, boxes: &[Aabb], changes: &mut PairChanges) {
    for (i, b) in boxes.iter().enumerate() {
        sap.set_aabb(i as ProxyKey, *b)
            .expect("live proxy, valid box");
    }
    sap.update(&AllowAll);
    sap.drain_changes(changes);
}

/// Grid sweep and prune over frame 0's boxes (`key == i`), automatic cells.
/// The first update's changes are drained and dropped.
fn new_grid(boxes: &[Aabb]) -> GridSweepAndPrune {
    let mut grid = GridSweepAndPrune::new(None);
    for (i, b) in boxes.iter().enumerate() {
        grid.insert(i as ProxyKey, *b, false).expect("valid box");
    }
    grid.update(&AllowAll);
    grid.drain_changes(&mut PairChanges::default());
    grid
}

/// One frame of the grid, as [`sap_frame`].
#[inline]
fn grid_frame(grid: &mut GridSweepAndPrune, boxes: &[Aabb], changes: &mut PairChanges) {
    for (i, b) in boxes.iter().enumerate() {
        grid.set_aabb(i as ProxyKey, *b)
            .expect("live proxy, valid box");
    }
    grid.update(&AllowAll);
    grid.drain_changes(changes);
}

/// The margin of the enlarged-box grid: `ICOLLIDE_BENCH_MARGIN` or
/// [`DEFAULT_MARGIN`].
fn margin() -> f32 {
    env_or("ICOLLIDE_BENCH_MARGIN", DEFAULT_MARGIN)
}

/// The grid behind enlarged boxes (`Enlarged`, margin [`margin`]) over
/// frame 0's boxes (`key == i`); the first update's changes are dropped.
fn new_enlarged(boxes: &[Aabb]) -> Enlarged<GridSweepAndPrune> {
    let mut bp = Enlarged::over_grid(None, margin());
    for (i, b) in boxes.iter().enumerate() {
        bp.insert(i as ProxyKey, *b, false).expect("valid box");
    }
    bp.update(&AllowAll);
    bp.drain_changes(&mut PairChanges::default());
    bp
}

/// One frame of the enlarged-box grid, as [`sap_frame`].
#[inline]
fn enlarged_frame(bp: &mut Enlarged<GridSweepAndPrune>, boxes: &[Aabb], changes: &mut PairChanges) {
    for (i, b) in boxes.iter().enumerate() {
        bp.set_aabb(i as ProxyKey, *b)
            .expect("live proxy, valid box");
    }
    bp.update(&AllowAll);
    bp.drain_changes(changes);
}

fn enlarged_pairs(bp: &Enlarged<GridSweepAndPrune>) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    bp.for_each_active(&mut |k| v.push(pair_ids(k)));
    v.sort_unstable();
    v
}

fn grid_pairs(grid: &GridSweepAndPrune) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = grid.active_pairs().map(pair_ids).collect();
    v.sort_unstable();
    v
}

fn sap_pairs(sap: &SweepAndPrune) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = sap.active_pairs().map(pair_ids).collect();
    v.sort_unstable();
    v
}

/// The three broad phases, in step at frame 0 after one checked period.
struct BroadPhases {
    sap: SweepAndPrune,
    grid: GridSweepAndPrune,
    enlarged: Enlarged<GridSweepAndPrune>,
    exact: ParryBvhBroadPhase,
    rapier: ParryBvhBroadPhase,
}

/// Runs one full period (there and back) of the ring through sweep and
/// prune and both BVH variants, checks that sweep and prune and the exact
/// BVH agree every frame (and the change-detecting BVH holds a superset),
/// prints per-frame statistics, and returns the three back at frame 0.
fn check_broad_phases(frames: &Frames) -> BroadPhases {
    let boxes = &frames.boxes;
    let t = Instant::now();
    let mut sap = new_sap(&boxes[0]);
    let sap_build = t.elapsed();
    let t = Instant::now();
    let mut grid = new_grid(&boxes[0]);
    let grid_build = t.elapsed();
    assert_eq!(grid_pairs(&grid), sap_pairs(&sap), "grid, frame 0");
    let mut enlarged = new_enlarged(&boxes[0]);
    assert_eq!(
        enlarged_pairs(&enlarged),
        sap_pairs(&sap),
        "enlarged, frame 0"
    );
    let (mut escaped, mut candidates, mut enlarged_time) = (0u64, 0usize, Duration::ZERO);
    let mut enlarged_swaps = 0u64;
    let mut enlarged_changes = PairChanges::default();
    let (mut grid_swaps, mut grid_time) = (0u64, Duration::ZERO);
    let t = Instant::now();
    let mut exact = ParryBvhBroadPhase::exact(&boxes[0]);
    let bvh_build = t.elapsed();
    let mut rapier = ParryBvhBroadPhase::with_change_detection(&boxes[0], RAPIER_MARGIN);
    assert_eq!(sap_pairs(&sap), exact.sorted_pairs(), "frame 0");

    let mut ring = PingPong::new(RING);
    let frames_run = ring.period();
    let (mut swaps, mut moved, mut sap_started, mut sap_ended) = (0u64, 0u64, 0usize, 0usize);
    let (mut bvh_started, mut bvh_ended) = (0usize, 0usize);
    let (mut pairs_sum, mut pairs_min, mut pairs_max) = (0usize, usize::MAX, 0usize);
    let mut rapier_pairs_sum = 0usize;
    let (mut sap_time, mut bvh_time) = (Duration::ZERO, Duration::ZERO);
    let (mut sap_changes, mut grid_changes) = (PairChanges::default(), PairChanges::default());
    for step in 0..frames_run {
        let f = ring.next();
        let t = Instant::now();
        sap_frame(&mut sap, &boxes[f], &mut sap_changes);
        sap_time += t.elapsed();
        let s = sap.stats();
        swaps += s.swaps.iter().sum::<u64>();
        moved += u64::from(s.moved);
        sap_started += sap_changes.started.len();
        sap_ended += sap_changes.ended.len();

        let t = Instant::now();
        grid_frame(&mut grid, &boxes[f], &mut grid_changes);
        grid_time += t.elapsed();
        grid_swaps += grid.stats().swaps.iter().sum::<u64>();
        assert_eq!(
            grid.box_pairs(),
            sap.box_pairs(),
            "grid pair count, step {step}"
        );
        assert_eq!(
            grid_changes.started, sap_changes.started,
            "grid started, step {step}"
        );
        assert_eq!(
            grid_changes.ended, sap_changes.ended,
            "grid ended, step {step}"
        );

        let t = Instant::now();
        enlarged_frame(&mut enlarged, &boxes[f], &mut enlarged_changes);
        enlarged_time += t.elapsed();
        escaped += u64::from(enlarged.stats().escaped);
        enlarged_swaps += enlarged.stats().swaps.iter().sum::<u64>();
        candidates += enlarged.candidates();
        assert_eq!(
            (&enlarged_changes.started, &enlarged_changes.ended),
            (&sap_changes.started, &sap_changes.ended),
            "enlarged changes, step {step}"
        );

        let t = Instant::now();
        let ch = exact.update(&boxes[f]);
        bvh_time += t.elapsed();
        bvh_started += ch.started;
        bvh_ended += ch.ended;
        rapier.update(&boxes[f]);

        let pairs = sap.box_pairs();
        assert_eq!(
            pairs,
            exact.pair_count(),
            "pair count, step {step} (frame {f})"
        );
        assert_eq!(
            ch.started,
            sap_changes.started.len(),
            "started, step {step}"
        );
        assert_eq!(ch.ended, sap_changes.ended.len(), "ended, step {step}");
        assert!(
            rapier.pair_count() >= pairs,
            "change detection lost pairs, step {step}"
        );
        pairs_sum += pairs;
        pairs_min = pairs_min.min(pairs);
        pairs_max = pairs_max.max(pairs);
        rapier_pairs_sum += rapier.pair_count();
    }
    assert_eq!(ring.current(), 0);
    let exact_pairs = sap_pairs(&sap);
    assert_eq!(
        exact_pairs,
        exact.sorted_pairs(),
        "pair sets after one period"
    );
    let rapier_pairs = rapier.sorted_pairs();
    assert!(
        exact_pairs
            .iter()
            .all(|p| rapier_pairs.binary_search(p).is_ok()),
        "change detection lost pairs"
    );

    let per = |x: f64| x / frames_run as f64;
    println!(
        "[check] N={}: {frames_run} frames, SAP and exact BVH agree on every frame \
         (pair count, started, ended; full pair set at frames 0 and {frames_run})",
        frames.n
    );
    println!(
        "[stats] N={}: SAP swaps/frame {:.0} ({:.2}/object), moved/frame {:.0}; \
         pairs/frame mean {:.1} (min {pairs_min}, max {pairs_max}); \
         started/frame {:.2}, ended/frame {:.2}",
        frames.n,
        per(swaps as f64),
        per(swaps as f64) / frames.n as f64,
        per(moved as f64),
        per(pairs_sum as f64),
        per(sap_started as f64),
        per(sap_ended as f64),
    );
    println!(
        "[stats] N={}: exact BVH started/frame {:.2}, ended/frame {:.2}; \
         rapier-CD BVH (margin {RAPIER_MARGIN}) pairs/frame mean {:.1} (+{:.1}% over exact)",
        frames.n,
        per(bvh_started as f64),
        per(bvh_ended as f64),
        per(rapier_pairs_sum as f64),
        100.0 * (rapier_pairs_sum as f64 / pairs_sum.max(1) as f64 - 1.0),
    );
    assert_eq!(
        grid_pairs(&grid),
        exact_pairs,
        "grid pair set after one period"
    );
    println!(
        "[stats] N={}: grid SAP ({} cells of {:.2}) swaps/frame {:.0} ({:.2}/object), \
         build {:.2} ms, check loop mean {:.3} ms/frame",
        frames.n,
        grid.cell_count(),
        grid.cell_size(),
        per(grid_swaps as f64),
        per(grid_swaps as f64) / frames.n as f64,
        grid_build.as_secs_f64() * 1e3,
        per(grid_time.as_secs_f64() * 1e3),
    );
    assert_eq!(
        enlarged_pairs(&enlarged),
        exact_pairs,
        "enlarged pair set after one period"
    );
    println!(
        "[stats] N={}: enlarged grid (margin {}, cells of {:.2}): {:.0} of {} boxes left their fat \
         box per frame, swaps/frame {:.0}, {:.1} candidates per frame ({:.1} pairs), \
         check loop mean {:.3} ms/frame",
        frames.n,
        enlarged.margin(),
        enlarged.inner().cell_size(),
        per(escaped as f64),
        frames.n,
        per(enlarged_swaps as f64),
        per(candidates as f64),
        per(pairs_sum as f64),
        per(enlarged_time.as_secs_f64() * 1e3),
    );
    println!(
        "[stats] N={}: build SAP {:.2} ms, BVH {:.2} ms; check loop mean SAP {:.3} ms/frame, \
         exact BVH {:.3} ms/frame",
        frames.n,
        sap_build.as_secs_f64() * 1e3,
        bvh_build.as_secs_f64() * 1e3,
        per(sap_time.as_secs_f64() * 1e3),
        per(bvh_time.as_secs_f64() * 1e3),
    );

    // The pitfall of change detection without a margin: parry flags a leaf
    // as changed only when it fattens it, so after the first frame nothing is
    // traversed. Shown with a hand-driven tree, a few frames.
    let stale = stale_change_detection_pairs(&boxes[..8.min(RING)]);
    println!(
        "[note]  N={}: parry traverse::<true> with margin 0 after 7 frames holds {} pairs, \
         exact {} (change detection needs margin > 0)",
        frames.n, stale.0, stale.1
    );

    BroadPhases {
        sap,
        grid,
        enlarged,
        exact,
        rapier,
    }
}

/// (pairs found by margin-0 change detection, exact pairs) after the frames.
fn stale_change_detection_pairs(frames: &[Vec<Aabb>]) -> (usize, usize) {
    use parry3d::partitioning::{Bvh, BvhWorkspace};
    use std::collections::HashSet;
    let mut bvh = Bvh::new();
    let mut ws = BvhWorkspace::default();
    let mut pairs = HashSet::new();
    for boxes in frames {
        for (i, b) in boxes.iter().enumerate() {
            bvh.insert_or_update_partially(icollide_peers::to_parry(b), i as u32, 0.0);
        }
        bvh.optimize_incremental(&mut ws);
        bvh.refit(&mut ws);
        pairs.clear();
        bvh.traverse_bvtt_single_tree::<true>(&mut ws, &mut |a, b| {
            pairs.insert((a.min(b), a.max(b)));
        });
    }
    let exact = ParryBvhBroadPhase::exact(frames.last().expect("frames")).pair_count();
    (pairs.len(), exact)
}

fn bench_broad_phase(c: &mut Criterion, frames: &Frames) {
    let n = frames.n;
    let BroadPhases {
        mut sap,
        mut grid,
        mut enlarged,
        mut exact,
        mut rapier,
    } = check_broad_phases(frames);
    let mut group = c.benchmark_group("broad_phase");
    configure(&mut group, n);

    // State lives outside the routines (called once per sample): each timed
    // frame follows the previous one. All three start at frame 0.
    // One `PairChanges` per broad phase, reused: draining allocates nothing
    // once its lists have grown.
    let mut ring = PingPong::new(RING);
    let mut changes = PairChanges::default();
    group.bench_function(BenchmarkId::new("sap", n), |b| {
        b.iter(|| {
            sap_frame(&mut sap, &frames.boxes[ring.next()], &mut changes);
            black_box(changes.started.len() + changes.ended.len())
        })
    });

    let mut ring = PingPong::new(RING);
    let mut changes = PairChanges::default();
    group.bench_function(BenchmarkId::new("grid_sap", n), |b| {
        b.iter(|| {
            grid_frame(&mut grid, &frames.boxes[ring.next()], &mut changes);
            black_box(changes.started.len() + changes.ended.len())
        })
    });

    let mut ring = PingPong::new(RING);
    let mut changes = PairChanges::default();
    group.bench_function(BenchmarkId::new("grid_sap_enlarged", n), |b| {
        b.iter(|| {
            enlarged_frame(&mut enlarged, &frames.boxes[ring.next()], &mut changes);
            black_box(changes.started.len() + changes.ended.len())
        })
    });

    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("bvh_exact", n), |b| {
        b.iter(|| black_box(exact.update(&frames.boxes[ring.next()])))
    });

    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("bvh_rapier_cd", n), |b| {
        b.iter(|| black_box(rapier.update(&frames.boxes[ring.next()])))
    });
    group.finish();
}

/// Every `sparse()`-th body moves; the others rest where frame 0 put them.
/// `ICOLLIDE_BENCH_SPARSE` or 10.
fn sparse() -> usize {
    env_or("ICOLLIDE_BENCH_SPARSE", 10usize).max(1)
}

/// The sparse scene: a game-like frame where 1 body in `sparse()` moves.
/// Sweep and prune and the grid get `set_aabb` for the moving bodies only;
/// the BVH updates only their leaves (`update_subset`).
fn bench_sparse(c: &mut Criterion, frames: &Frames) {
    let n = frames.n;
    let every = sparse();
    let moved: Vec<u32> = (0..n as u32)
        .filter(|i| (*i as usize).is_multiple_of(every))
        .collect();
    let boxes: Vec<Vec<Aabb>> = frames
        .boxes
        .iter()
        .map(|f| {
            (0..n)
                .map(|i| {
                    if i.is_multiple_of(every) {
                        f[i]
                    } else {
                        frames.boxes[0][i]
                    }
                })
                .collect()
        })
        .collect();
    let mut grid = new_grid(&boxes[0]);
    let mut exact = ParryBvhBroadPhase::exact(&boxes[0]);
    let mut rapier = ParryBvhBroadPhase::with_change_detection(&boxes[0], RAPIER_MARGIN);
    let step = |grid: &mut GridSweepAndPrune, b: &[Aabb], changes: &mut PairChanges| {
        for &i in &moved {
            grid.set_aabb(i, b[i as usize])
                .expect("live proxy, valid box");
        }
        grid.update(&AllowAll);
        grid.drain_changes(changes);
    };
    let mut enlarged = new_enlarged(&boxes[0]);
    let enlarged_step =
        |bp: &mut Enlarged<GridSweepAndPrune>, b: &[Aabb], changes: &mut PairChanges| {
            for &i in &moved {
                bp.set_aabb(i, b[i as usize])
                    .expect("live proxy, valid box");
            }
            bp.update(&AllowAll);
            bp.drain_changes(changes);
        };
    let mut changes = PairChanges::default();
    let mut enlarged_changes = PairChanges::default();
    // One checked period: the grids and the exact BVH agree on every frame.
    let mut ring = PingPong::new(RING);
    for s in 0..ring.period() {
        let f = ring.next();
        step(&mut grid, &boxes[f], &mut changes);
        enlarged_step(&mut enlarged, &boxes[f], &mut enlarged_changes);
        assert_eq!(
            enlarged_changes, changes,
            "sparse enlarged changes, step {s}"
        );
        let ch = exact.update_subset(&boxes[f], &moved);
        rapier.update_subset(&boxes[f], &moved);
        assert_eq!(
            grid.box_pairs(),
            exact.pair_count(),
            "sparse pair count, step {s}"
        );
        assert_eq!(
            changes.started.len(),
            ch.started,
            "sparse started, step {s}"
        );
    }
    assert_eq!(grid_pairs(&grid), exact.sorted_pairs(), "sparse pair sets");
    println!(
        "[check] N={n}: sparse scene ({} of {n} bodies move), grid SAP and exact BVH agree on every frame; {} pairs",
        moved.len(),
        grid.box_pairs()
    );
    let mut group = c.benchmark_group("broad_phase_sparse");
    configure(&mut group, n);
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("grid_sap", n), |b| {
        b.iter(|| {
            step(&mut grid, &boxes[ring.next()], &mut changes);
            black_box(changes.started.len())
        })
    });
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("grid_sap_enlarged", n), |b| {
        b.iter(|| {
            enlarged_step(&mut enlarged, &boxes[ring.next()], &mut changes);
            black_box(changes.started.len())
        })
    });
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("bvh_exact", n), |b| {
        b.iter(|| black_box(exact.update_subset(&boxes[ring.next()], &moved)))
    });
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("bvh_rapier_cd", n), |b| {
        b.iter(|| black_box(rapier.update_subset(&boxes[ring.next()], &moved)))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    for n in sizes() {
        let t = Instant::now();
        let frames = Frames::new(n);
        println!(
            "[setup] N={n}: scene (half-size {:.1}) and {RING} frames in {:.2} s",
            frames.scene.half_size,
            t.elapsed().as_secs_f64()
        );
        check_bounds(&frames);
        bench_bounds(c, &frames);
        bench_broad_phase(c, &frames);
        bench_sparse(c, &frames);
    }
}

criterion_group!(broad_phase, benches);
criterion_main!(broad_phase);
