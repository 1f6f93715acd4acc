//! Crowds: bodies that can never pair, side by side with parry3d's BVH
//! (issues 12 and 14).
//!
//! - `static_stack`: 100 000 static unit cubes stacked in one spot and
//!   1 000 movers random-walking around it (a cube of half-size 50). Per
//!   frame: the movers' `set_aabb`, `update`, drain. Ours: the grid over
//!   enlarged boxes (what the world uses), the grid alone and one sweep and
//!   prune, statics flagged static.
//!   parry: its `Bvh` driven like rapier's `BroadPhaseBvh` with change
//!   detection (margin 1e-2), fixed–fixed pairs never stored, built without
//!   the first full traversal (which would visit the stack's 5 · 10^9
//!   pairs); only the movers' leaves are updated.
//! - `filtered_crowd`: 10 000 bodies in one spot, every pair refused by
//!   their layers (one layer that does not collide with itself), every body
//!   jittering every frame. Ours: the grid, alone and over enlarged boxes,
//!   with the layers as the filter's group. parry: the same tree driver, every pair refused before it is
//!   stored (its traversal still visits each overlapping pair).
//!
//! Before the timing, the first update of each of ours is timed once and
//! printed with the pairs it stores, and one period of frames checks the
//! static stack's pairs against brute force.
//!
//! Run: `cargo bench -p icollide-peers --bench crowd`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bevy_icollide::broad_phase::enlarged::DEFAULT_MARGIN;
use bevy_icollide::broad_phase::{
    AllowAll, BroadPhase, Enlarged, GridSweepAndPrune, PairChanges, PairFilter, ProxyKey,
    SweepAndPrune, pair_key,
};
use bevy_icollide::math::Aabb;
use bevy_icollide::testkit::Rng;
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main,
};
use glam::Vec3;
use icollide_peers::{ParryBvhBroadPhase, PingPong};

/// Statics in the stack.
const STACK: usize = 100_000;
/// Movers around it.
const MOVERS: usize = 1_000;
/// Bodies in the filtered crowd.
const CROWD: usize = 10_000;
/// Consecutive frames precomputed.
const RING: usize = 32;
/// rapier's change-detection margin.
const RAPIER_MARGIN: f32 = 1.0e-2;

fn unit_box(c: Vec3) -> Aabb {
    Aabb::from_center_half_extents(c, Vec3::splat(0.5))
}

/// `frames[f]`: every box at frame `f` (statics first, then movers).
fn stack_frames() -> Vec<Vec<Aabb>> {
    let mut rng = Rng::new(12);
    let stack: Vec<Aabb> = (0..STACK)
        .map(|_| unit_box(Vec3::new(rng.range(-0.01, 0.01), 0.0, 0.0)))
        .collect();
    // Movers start at least 3 from the stack and from each other's lane.
    let mut pos: Vec<Vec3> = (0..MOVERS)
        .map(|_| {
            loop {
                let p = rng.in_cube(50.0);
                if p.length() > 3.0 {
                    break p;
                }
            }
        })
        .collect();
    let vel: Vec<Vec3> = (0..MOVERS).map(|_| rng.unit_vector() * 0.05).collect();
    (0..RING)
        .map(|_| {
            for (p, v) in pos.iter_mut().zip(&vel) {
                *p = (*p + *v).clamp(Vec3::splat(-50.0), Vec3::splat(50.0));
            }
            stack
                .iter()
                .copied()
                .chain(pos.iter().map(|p| unit_box(*p)))
                .collect()
        })
        .collect()
}

/// The mover pairs of one frame by brute force (movers against movers, and
/// against the stack when a mover reaches its bounds).
fn stack_pairs(boxes: &[Aabb]) -> Vec<u64> {
    let stack_bounds = boxes[..STACK]
        .iter()
        .fold(Aabb::EMPTY, |acc, b| acc.union(*b));
    let mut out = Vec::new();
    for i in STACK..boxes.len() {
        for j in 0..i {
            if (j >= STACK || boxes[i].overlaps(&stack_bounds)) && boxes[i].overlaps(&boxes[j]) {
                out.push(pair_key(i as u32, j as u32));
            }
        }
    }
    out.sort_unstable();
    out
}

fn sorted_active(bp: &dyn BroadPhase) -> Vec<u64> {
    let mut v = Vec::new();
    bp.for_each_active(&mut |k| v.push(k));
    v.sort_unstable();
    v
}

/// Inserts every box (the first `statics` static), times the first update.
fn first_update<B: BroadPhase>(
    mut bp: B,
    boxes: &[Aabb],
    statics: usize,
    filter: &dyn PairFilter,
    name: &str,
) -> B {
    for (i, b) in boxes.iter().enumerate() {
        bp.insert(i as ProxyKey, *b, i < statics)
            .expect("valid box");
    }
    let t = Instant::now();
    bp.update(filter);
    println!(
        "[first] {name}: {} bodies inserted, first update {:.1} ms, {} pairs stored",
        boxes.len(),
        t.elapsed().as_secs_f64() * 1e3,
        bp.box_pairs()
    );
    bp.drain_changes(&mut PairChanges::default());
    bp
}

/// What the frames of one scene share: the ring of boxes, which proxies
/// move, and the pair filter.
struct Scene<'a> {
    frames: &'a [Vec<Aabb>],
    moved: std::ops::Range<usize>,
    filter: &'a dyn PairFilter,
}

impl Scene<'_> {
    /// One frame on ring frame `f`: the movers' boxes set, update, drain.
    fn frame<B: BroadPhase>(&self, bp: &mut B, f: usize, changes: &mut PairChanges) {
        let boxes = &self.frames[f];
        for i in self.moved.clone() {
            bp.set_aabb(i as ProxyKey, boxes[i]).expect("live proxy");
        }
        bp.update(self.filter);
        bp.drain_changes(changes);
    }

    /// Times [`frame`](Self::frame) as `name`/`n` on consecutive frames of
    /// the ring (there and back), each timed frame following the last.
    fn bench<B: BroadPhase>(
        &self,
        group: &mut BenchmarkGroup<'_, WallTime>,
        name: &str,
        n: usize,
        bp: &mut B,
    ) {
        let mut ring = PingPong::new(RING);
        let mut changes = PairChanges::default();
        group.bench_function(BenchmarkId::new(name, n), |b| {
            b.iter(|| {
                self.frame(bp, ring.next(), &mut changes);
                black_box(bp.box_pairs())
            })
        });
    }
}

fn static_stack(c: &mut Criterion) {
    let frames = stack_frames();
    let movers = STACK..STACK + MOVERS;
    let mut grid = first_update(
        GridSweepAndPrune::new(None),
        &frames[0],
        STACK,
        &AllowAll,
        "static_stack grid_sap",
    );
    let mut sap = first_update(
        SweepAndPrune::new(),
        &frames[0],
        STACK,
        &AllowAll,
        "static_stack sap",
    );
    let mut enlarged = first_update(
        Enlarged::over_grid(None, DEFAULT_MARGIN),
        &frames[0],
        STACK,
        &AllowAll,
        "static_stack grid_sap_enlarged",
    );
    let t = Instant::now();
    let mut parry =
        ParryBvhBroadPhase::crowd(&frames[0], RAPIER_MARGIN, |a, b| a.max(b) as usize >= STACK);
    println!(
        "[first] static_stack parry bvh_rapier_cd: tree built in {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let scene = Scene {
        frames: &frames,
        moved: movers.clone(),
        filter: &AllowAll,
    };
    let mut changes = PairChanges::default();
    let mut ring = PingPong::new(RING);
    let mut total = 0;
    for s in 0..ring.period() {
        let f = ring.next();
        scene.frame(&mut grid, f, &mut changes);
        scene.frame(&mut sap, f, &mut changes);
        scene.frame(&mut enlarged, f, &mut changes);
        let moved: Vec<u32> = movers.clone().map(|i| i as u32).collect();
        parry.update_subset(&frames[f], &moved);
        let want = stack_pairs(&frames[f]);
        assert_eq!(sorted_active(&grid), want, "grid, step {s}");
        assert_eq!(sorted_active(&sap), want, "sap, step {s}");
        assert_eq!(sorted_active(&enlarged), want, "enlarged, step {s}");
        total += want.len();
    }
    println!(
        "[check] static_stack: grid, sap and enlarged grid equal brute force on {} frames ({total} pairs in all); parry holds {} (margin: a superset)",
        ring.period(),
        parry.pair_count()
    );
    let mut group = c.benchmark_group("static_stack");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    scene.bench(&mut group, "grid_sap", STACK, &mut grid);
    scene.bench(&mut group, "grid_sap_enlarged", STACK, &mut enlarged);
    scene.bench(&mut group, "sap", STACK, &mut sap);
    let moved: Vec<u32> = movers.clone().map(|i| i as u32).collect();
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("bvh_rapier_cd", STACK), |b| {
        b.iter(|| black_box(parry.update_subset(&frames[ring.next()], &moved)))
    });
    group.finish();
}

/// One layer that does not collide with itself, as a filter with groups.
struct OneSelfExcludingLayer;

impl PairFilter for OneSelfExcludingLayer {
    fn allows(&self, _: ProxyKey, _: ProxyKey) -> bool {
        false
    }
    fn group(&self, _: ProxyKey) -> u64 {
        1
    }
    fn groups_pair(&self, _: u64, _: u64) -> bool {
        false
    }
}

fn filtered_crowd(c: &mut Criterion) {
    let mut rng = Rng::new(13);
    let frames: Vec<Vec<Aabb>> = (0..RING)
        .map(|_| (0..CROWD).map(|_| unit_box(rng.in_cube(0.05))).collect())
        .collect();
    let filter = OneSelfExcludingLayer;
    let mut grid = first_update(
        GridSweepAndPrune::new(None),
        &frames[0],
        0,
        &filter,
        "filtered_crowd grid_sap",
    );
    let mut enlarged = first_update(
        Enlarged::over_grid(None, DEFAULT_MARGIN),
        &frames[0],
        0,
        &filter,
        "filtered_crowd grid_sap_enlarged",
    );
    let mut parry = ParryBvhBroadPhase::crowd(&frames[0], RAPIER_MARGIN, |_, _| false);
    let mut group = c.benchmark_group("filtered_crowd");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let scene = Scene {
        frames: &frames,
        moved: 0..CROWD,
        filter: &filter,
    };
    scene.bench(&mut group, "grid_sap", CROWD, &mut grid);
    scene.bench(&mut group, "grid_sap_enlarged", CROWD, &mut enlarged);
    let mut ring = PingPong::new(RING);
    group.bench_function(BenchmarkId::new("bvh_rapier_cd", CROWD), |b| {
        b.iter(|| black_box(parry.update(&frames[ring.next()])))
    });
    group.finish();
    println!(
        "[memory] filtered_crowd: {} pairs stored by the grid, {} candidates by the enlarged grid, {} by parry",
        grid.box_pairs(),
        enlarged.candidates(),
        parry.pair_count()
    );
}

criterion_group!(crowd, static_stack, filtered_crowd);
criterion_main!(crowd);
