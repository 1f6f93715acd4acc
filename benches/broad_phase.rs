//! Broad phase of I-COLLIDE's multi-body scene in continuous motion, side
//! by side with parry3d, box updates included.
//!
//! **Motion.** N = 1 000, 10 000, 50 000 convex hulls (40 random points on
//! a sphere of radius 1, 32 distinct hulls shared round-robin, 5 % density)
//! move as in I-COLLIDE's multi-body benchmark: each turns 10° per frame
//! about its own random axis and translates 1.5 % of its radius per frame
//! along its own random direction, bouncing off the walls of the cube
//! (`MultiBodyScene::step`, once per frame), so the density stays steady
//! and no frame repeats: nothing is precomputed or replayed. Stepping the
//! scene is not timed (`iter_custom`: each frame steps the scene, then
//! times what a broad phase pays for that frame, in this thread's CPU
//! time: the machine is shared, and its wall clock counts waits for a
//! core).
//!
//! **Timed per frame** (group `broad_phase`), each side computing the boxes
//! it needs from the bodies' poses:
//!
//! - `ours_enlarged_grid`: what the collision world does: every body's box
//!   (`DynamicBox::update` at the pose's rotation, hull prefetched
//!   `READ_AHEAD` bodies early, `rounded_out` by its reach, `placed_at` its
//!   translation: `Body::compute_tight_box`), `set_aabb` into the grid over
//!   enlarged boxes (`Enlarged::over_grid`, default margin), `update`,
//!   `drain_changes`;
//! - `ours_grid`: the same boxes into the grid alone (no enlarged boxes);
//! - `bvh_exact`: parry's box of every hull (`ConvexPolyhedron::aabb`, what
//!   `Shape::compute_aabb` calls: every vertex moved by the pose) and its
//!   `Bvh` driven like rapier's `BroadPhaseBvh` (`insert_or_update_partially`,
//!   `optimize_incremental`, `refit`, `traverse_bvtt_single_tree`, a pair
//!   map with started/ended pairs), margin 0 and full traversal: the exact
//!   pairs of its boxes;
//! - `bvh_rapier_cd`: the same with rapier's change-detection margin 1e-2
//!   (a superset of the pairs);
//! - `boxes_ours`, `boxes_parry`: the box updates alone.
//!
//! Group `broad_phase_sparse`: only 1 body in 10 moves (the others rest at
//! their first pose); each side computes and passes the movers' boxes only.
//! Group `bounds_update`: box updates per object (fixed cube, dynamic box,
//! the world's box, brute force, parry's).
//!
//! **Checked.** Before timing, `ICOLLIDE_BENCH_CHECK_FRAMES` (default 64)
//! frames run every broad phase in lockstep: each one's pairs must equal an
//! independent sort-and-sweep over its own boxes every frame (the exact
//! BVH's; a superset for rapier's margin), and its started/ended pairs the
//! difference of consecutive pair sets; a mismatch panics. Those frames
//! are also timed interleaved, in this thread's CPU time (`[lockstep]`
//! line: ratios robust to a loaded machine, with the box updates alone
//! timed beside them). After each timed run, the broad phase's pairs are
//! checked again.
//!
//! Run: `cargo bench -p icollide-peers --bench broad_phase`. Knobs:
//! `ICOLLIDE_BENCH_N=1000,10000`, `ICOLLIDE_BENCH_HULL_POINTS` (40),
//! `ICOLLIDE_BENCH_ROTATION_DEG` (10), `ICOLLIDE_BENCH_TRANSLATION` (0.015),
//! `ICOLLIDE_BENCH_SHAPES` (32), `ICOLLIDE_BENCH_MARGIN` (the enlarged
//! boxes' margin), `ICOLLIDE_BENCH_SPARSE` (10).

use std::collections::HashSet;
use std::hint::black_box;
use std::time::Duration;

use bevy_icollide::bounds::{DynamicBox, FixedCube, READ_AHEAD};
use bevy_icollide::broad_phase::enlarged::DEFAULT_MARGIN;
use bevy_icollide::broad_phase::{
    AllowAll, BroadPhase, Enlarged, GridSweepAndPrune, PairChanges, ProxyKey, pair_ids,
};
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::shape::ConvexHull;
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};
use cpu_time::ThreadTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use criterion::{Throughput, measurement::WallTime};
use glam::Vec3;
use icollide_peers::timing::{Log, configure, loadavg, median_us, timed_each, verdict};
use icollide_peers::{ParryBvhBroadPhase, brute_force_aabb, env_or, to_parry_pose};
use parry3d::shape::ConvexPolyhedron;
use std::sync::Arc;

/// rapier's change-detection margin (`BroadPhaseBvh`).
const RAPIER_MARGIN: f32 = 1.0e-2;
const SIZES: [usize; 3] = [1_000, 10_000, 50_000];

type Pairs = Vec<(u32, u32)>;

/// The scene in continuous motion: stepped once per frame, never replayed.
#[derive(Clone)]
struct Motion {
    scene: MultiBodyScene,
    /// Every body's pose at the current frame.
    poses: Vec<Pose>,
}

impl Motion {
    fn new(n: usize) -> Self {
        let params = MultiBodyParams {
            count: n,
            hull_points: env_or("ICOLLIDE_BENCH_HULL_POINTS", 40),
            density: 0.05,
            rotation_deg: env_or("ICOLLIDE_BENCH_ROTATION_DEG", 10.0),
            translation: env_or("ICOLLIDE_BENCH_TRANSLATION", 0.015),
            distinct_shapes: env_or("ICOLLIDE_BENCH_SHAPES", 32),
            ..Default::default()
        };
        println!(
            "[scene] N={n}: {} hull points, {}°/frame, {} of the radius per frame, {} distinct hulls, \
             continuous motion (bouncing off the walls)",
            params.hull_points, params.rotation_deg, params.translation, params.distinct_shapes
        );
        let scene = MultiBodyScene::new(&params);
        let poses = scene.bodies.iter().map(|b| b.pose).collect();
        Self { scene, poses }
    }

    /// One frame of motion (rotation and translation, bounces).
    fn step(&mut self) {
        self.scene.step();
        for (p, b) in self.poses.iter_mut().zip(&self.scene.bodies) {
            *p = b.pose;
        }
    }
}

/// Body `i`'s box as the collision world computes it
/// (`Body::compute_tight_box`): the dynamic box at the pose's rotation,
/// rounded out by the hull's reach, placed at its translation.
#[inline]
fn world_box(d: &mut DynamicBox, hull: &ConvexHull, reach: f32, pose: &Pose) -> Aabb {
    let turned = d.update(hull, &Pose::new(pose.rotation, Vec3::ZERO)).0;
    turned
        .rounded_out(reach, Vec3::ZERO)
        .placed_at(pose.translation.as_dvec3())
}

/// Our side's per-body box state: the world's dynamic boxes.
#[derive(Clone)]
struct OurBoxes<'a> {
    hulls: Vec<&'a ConvexHull>,
    reach: Vec<f32>,
    dynamic: Vec<DynamicBox>,
}

impl<'a> OurBoxes<'a> {
    fn new(shapes: &'a [SharedShape], scene: &MultiBodyScene) -> Self {
        let of = |i: usize| &shapes[scene.bodies[i].shape];
        let n = scene.bodies.len();
        Self {
            hulls: (0..n).map(|i| of(i).hull().expect("hull")).collect(),
            reach: (0..n).map(|i| of(i).reach()).collect(),
            dynamic: vec![DynamicBox::new(); n],
        }
    }

    /// Body `i`'s world box, the hulls `READ_AHEAD` bodies on prefetched
    /// as the world does.
    #[inline]
    fn update(&mut self, i: usize, pose: &Pose) -> Aabb {
        if let Some(ahead) = self.hulls.get(i + 2 * READ_AHEAD) {
            DynamicBox::prefetch_fields(ahead);
        }
        if let Some(ahead) = self.hulls.get(i + READ_AHEAD) {
            DynamicBox::prefetch(ahead);
        }
        world_box(&mut self.dynamic[i], self.hulls[i], self.reach[i], pose)
    }
}

/// One frame of ours: the moved bodies' boxes, `set_aabb`, `update`, drain.
#[inline]
fn ours_frame<B: BroadPhase>(
    bp: &mut B,
    boxes: &mut OurBoxes<'_>,
    poses: &[Pose],
    moved: Option<&[u32]>,
    changes: &mut PairChanges,
) {
    match moved {
        None => {
            for (i, pose) in poses.iter().enumerate() {
                let b = boxes.update(i, pose);
                bp.set_aabb(i as ProxyKey, b)
                    .expect("live proxy, valid box");
            }
        }
        Some(moved) => {
            for &i in moved {
                let b = boxes.update(i as usize, &poses[i as usize]);
                bp.set_aabb(i, b).expect("live proxy, valid box");
            }
        }
    }
    bp.update(&AllowAll);
    bp.drain_changes(changes);
}

/// Parry's side: one shape per body (shared `Arc`s, as rapier's colliders
/// share a `SharedShape`) and the boxes of the last frame.
#[derive(Clone)]
struct ParryBoxes {
    shapes: Vec<Arc<ConvexPolyhedron>>,
    out: Vec<Aabb>,
}

impl ParryBoxes {
    fn new(shapes: &[SharedShape], scene: &MultiBodyScene) -> Self {
        let distinct: Vec<Arc<ConvexPolyhedron>> = shapes
            .iter()
            .map(|s| {
                let v = s.hull().expect("hull").vertices();
                Arc::new(ConvexPolyhedron::from_convex_hull(v).expect("parry3d hull"))
            })
            .collect();
        let shapes: Vec<_> = scene
            .bodies
            .iter()
            .map(|b| distinct[b.shape].clone())
            .collect();
        let out = vec![Aabb::EMPTY; shapes.len()];
        Self { shapes, out }
    }

    /// Body `i`'s box as rapier computes it (`compute_aabb`).
    #[inline]
    fn update(&mut self, i: usize, pose: &Pose) {
        let a = self.shapes[i].aabb(&to_parry_pose(pose));
        self.out[i] = Aabb::new(a.mins, a.maxs);
    }
}

/// One frame of parry: the moved bodies' boxes and the BVH's update.
#[inline]
fn parry_frame(
    bvh: &mut ParryBvhBroadPhase,
    boxes: &mut ParryBoxes,
    poses: &[Pose],
    moved: Option<&[u32]>,
) -> icollide_peers::PairChanges {
    match moved {
        None => {
            for (i, pose) in poses.iter().enumerate() {
                boxes.update(i, pose);
            }
            bvh.update(&boxes.out)
        }
        Some(moved) => {
            for &i in moved {
                boxes.update(i as usize, &poses[i as usize]);
            }
            bvh.update_subset(&boxes.out, moved)
        }
    }
}

/// The overlapping pairs of `boxes` (closed boxes), sorted: sort by
/// `min.x`, then each box against the following ones while they start
/// before it ends. Independent of the crate's broad phases.
fn reference_pairs(boxes: &[Aabb]) -> Pairs {
    let mut order: Vec<u32> = (0..boxes.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| boxes[a as usize].min.x.total_cmp(&boxes[b as usize].min.x));
    let mut out = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let p = &boxes[i as usize];
        for &j in &order[k + 1..] {
            let q = &boxes[j as usize];
            if q.min.x > p.max.x {
                break;
            }
            let yz = p.min.y <= q.max.y
                && q.min.y <= p.max.y
                && p.min.z <= q.max.z
                && q.min.z <= p.max.z;
            if yz {
                out.push((i.min(j), i.max(j)));
            }
        }
    }
    out.sort_unstable();
    out
}

fn active_pairs<B: BroadPhase>(bp: &B) -> Pairs {
    let mut v = Vec::new();
    bp.for_each_active(&mut |k| v.push(pair_ids(k)));
    v.sort_unstable();
    v
}

/// The boxes a broad phase of ours holds (its tight boxes), by key.
fn held_boxes<B: BroadPhase>(bp: &B, n: usize) -> Vec<Aabb> {
    (0..n as ProxyKey)
        .map(|k| bp.aabb(k).expect("live proxy"))
        .collect()
}

/// `now \ before` (both sorted).
fn minus(now: &Pairs, before: &Pairs) -> Pairs {
    let old: HashSet<_> = before.iter().copied().collect();
    now.iter().copied().filter(|p| !old.contains(p)).collect()
}

fn sorted_ids(keys: &[u64]) -> Pairs {
    let mut v: Pairs = keys.iter().map(|&k| pair_ids(k)).collect();
    v.sort_unstable();
    v
}

/// Every contender, in step.
struct Contenders<'a> {
    ours: Enlarged<GridSweepAndPrune>,
    ours_boxes: OurBoxes<'a>,
    grid: GridSweepAndPrune,
    grid_boxes: OurBoxes<'a>,
    exact: ParryBvhBroadPhase,
    rapier: ParryBvhBroadPhase,
    parry_boxes: ParryBoxes,
    rapier_boxes: ParryBoxes,
}

/// The margin of the enlarged boxes: `ICOLLIDE_BENCH_MARGIN` or the default.
fn margin() -> f32 {
    env_or("ICOLLIDE_BENCH_MARGIN", DEFAULT_MARGIN)
}

impl<'a> Contenders<'a> {
    /// Every broad phase over the current frame's boxes (movers and the
    /// rest alike); the first changes are drained and dropped.
    fn new(shapes: &'a [SharedShape], motion: &Motion) -> Self {
        let scene = &motion.scene;
        let mut ours_boxes = OurBoxes::new(shapes, scene);
        let mut parry_boxes = ParryBoxes::new(shapes, scene);
        let mut ours = Enlarged::over_grid(None, margin());
        let mut grid = GridSweepAndPrune::new(None);
        for (i, pose) in motion.poses.iter().enumerate() {
            let b = ours_boxes.update(i, pose);
            ours.insert(i as ProxyKey, b, false).expect("valid box");
            grid.insert(i as ProxyKey, b, false).expect("valid box");
            parry_boxes.update(i, pose);
        }
        let mut drop = PairChanges::default();
        ours.update(&AllowAll);
        ours.drain_changes(&mut drop);
        grid.update(&AllowAll);
        grid.drain_changes(&mut drop);
        Self {
            exact: ParryBvhBroadPhase::exact(&parry_boxes.out),
            rapier: ParryBvhBroadPhase::with_change_detection(&parry_boxes.out, RAPIER_MARGIN),
            grid_boxes: ours_boxes.clone(),
            rapier_boxes: parry_boxes.clone(),
            ours,
            ours_boxes,
            grid,
            parry_boxes,
        }
    }
}

/// Per-contender sums over the lockstep frames.
#[derive(Default)]
struct Lockstep {
    /// This thread's CPU time per contender, then the box updates alone
    /// (ours, parry's).
    time: [Duration; 6],
    pairs: usize,
    escaped: u64,
    candidates: usize,
    differing: usize,
    rapier_extra: usize,
}

const NAMES: [&str; 4] = [
    "ours_enlarged_grid",
    "ours_grid",
    "bvh_exact",
    "bvh_rapier_cd",
];

/// Runs `frames` frames of every contender in lockstep (the order rotated
/// each frame), checking each against the reference every frame (panics
/// on a mismatch), and prints the interleaved timings.
fn lockstep(c: &mut Contenders<'_>, motion: &mut Motion, moved: Option<&[u32]>, frames: usize) {
    let n = motion.poses.len();
    let mut sum = Lockstep::default();
    let mut before_ours = active_pairs(&c.ours);
    let mut before_parry = c.exact.sorted_pairs();
    let (mut ch_ours, mut ch_grid) = (PairChanges::default(), PairChanges::default());
    let mut ch_exact = icollide_peers::PairChanges::default();
    let (mut boxes_ours, mut boxes_parry) = (c.ours_boxes.clone(), c.parry_boxes.clone());
    for f in 0..frames {
        step(motion, moved);
        for k in 0..6 {
            let which = (k + f) % 6;
            let t = ThreadTime::now();
            match which {
                4 => boxes_only(&motion.poses, moved, |i, p| {
                    black_box(boxes_ours.update(i, p));
                }),
                5 => boxes_only(&motion.poses, moved, |i, p| boxes_parry.update(i, p)),
                0 => ours_frame(
                    &mut c.ours,
                    &mut c.ours_boxes,
                    &motion.poses,
                    moved,
                    &mut ch_ours,
                ),
                1 => ours_frame(
                    &mut c.grid,
                    &mut c.grid_boxes,
                    &motion.poses,
                    moved,
                    &mut ch_grid,
                ),
                2 => ch_exact = parry_frame(&mut c.exact, &mut c.parry_boxes, &motion.poses, moved),
                _ => {
                    parry_frame(&mut c.rapier, &mut c.rapier_boxes, &motion.poses, moved);
                }
            }
            sum.time[which] += t.elapsed();
        }
        let ours_boxes = held_boxes(&c.ours, n);
        assert_eq!(
            held_boxes(&c.grid, n),
            ours_boxes,
            "frame {f}: box updates differ"
        );
        let want = reference_pairs(&ours_boxes);
        let got = active_pairs(&c.ours);
        assert!(
            got == want,
            "frame {f}: enlarged grid pairs differ from the reference"
        );
        assert!(
            active_pairs(&c.grid) == want,
            "frame {f}: grid pairs differ"
        );
        let started = minus(&want, &before_ours);
        let ended = minus(&before_ours, &want);
        assert_eq!(
            sorted_ids(&ch_ours.started),
            started,
            "frame {f}: ours started"
        );
        assert_eq!(sorted_ids(&ch_ours.ended), ended, "frame {f}: ours ended");
        assert_eq!(
            sorted_ids(&ch_grid.started),
            started,
            "frame {f}: grid started"
        );
        assert_eq!(sorted_ids(&ch_grid.ended), ended, "frame {f}: grid ended");
        let parry_want = reference_pairs(&c.parry_boxes.out);
        assert!(
            c.exact.sorted_pairs() == parry_want,
            "frame {f}: exact BVH pairs differ"
        );
        let (ps, pe) = (
            minus(&parry_want, &before_parry),
            minus(&before_parry, &parry_want),
        );
        assert_eq!(
            (ch_exact.started, ch_exact.ended),
            (ps.len(), pe.len()),
            "frame {f}: BVH changes"
        );
        let rapier = c.rapier.sorted_pairs();
        assert!(
            parry_want.iter().all(|p| rapier.binary_search(p).is_ok()),
            "frame {f}: rapier's change detection lost pairs"
        );
        sum.rapier_extra += rapier.len() - parry_want.len();
        sum.differing += minus(&want, &parry_want).len() + minus(&parry_want, &want).len();
        sum.pairs += want.len();
        sum.escaped += u64::from(c.ours.stats().escaped);
        sum.candidates += c.ours.candidates();
        before_ours = want;
        before_parry = parry_want;
    }
    let per = |x: f64| x / frames as f64;
    let ms: Vec<f64> = sum
        .time
        .iter()
        .map(|t| per(t.as_secs_f64() * 1e3))
        .collect();
    let movers = moved.map_or(n, <[u32]>::len);
    println!(
        "[check] N={n} ({movers} moving): {frames} frames in lockstep, every broad phase's pairs and \
         changes equal the reference sweep over its own boxes every frame; pairs/frame {:.1}, \
         ours vs parry's boxes differ by {:.2} pairs/frame (rounding pads), rapier's margin +{:.1}",
        per(sum.pairs as f64),
        per(sum.differing as f64),
        per(sum.rapier_extra as f64),
    );
    println!(
        "[stats] N={n}: enlarged grid (margin {}, cells of {:.2}): {:.1} boxes left their fat box \
         per frame, {:.1} candidates",
        c.ours.margin(),
        c.ours.inner().cell_size(),
        per(sum.escaped as f64),
        per(sum.candidates as f64),
    );
    let line: Vec<String> = NAMES
        .iter()
        .zip(&ms)
        .map(|(k, t)| format!("{k} {t:.4}"))
        .collect();
    println!(
        "[lockstep] N={n} ({movers} moving), CPU ms/frame interleaved: {}; box updates alone: \
         ours {:.4}, parry {:.4}; ours ÷ exact BVH {:.2}×, ÷ rapier-CD BVH {:.2}×; without the \
         box updates {:.2}× and {:.2}× (load {})",
        line.join(", "),
        ms[4],
        ms[5],
        ms[0] / ms[2],
        ms[0] / ms[3],
        (ms[0] - ms[4]) / (ms[2] - ms[5]),
        (ms[0] - ms[4]) / (ms[3] - ms[5]),
        loadavg()
    );
}

/// `update(i, pose)` for every moving body.
fn boxes_only(poses: &[Pose], moved: Option<&[u32]>, mut update: impl FnMut(usize, &Pose)) {
    match moved {
        None => poses.iter().enumerate().for_each(|(i, p)| update(i, p)),
        Some(moved) => moved
            .iter()
            .for_each(|&i| update(i as usize, &poses[i as usize])),
    }
}

/// One frame of motion: every body, or only the movers (the others keep
/// the pose they had).
fn step(motion: &mut Motion, moved: Option<&[u32]>) {
    match moved {
        None => motion.step(),
        Some(moved) => {
            let keep = motion.poses.clone();
            motion.step();
            let mut next = keep;
            for &i in moved {
                next[i as usize] = motion.poses[i as usize];
            }
            motion.poses = next;
        }
    }
}

/// Times `frame` per frame of continuous motion: each iteration steps
/// `motion` (not timed), then times `frame` in this thread's CPU time (on
/// a loaded machine the wall clock also counts the time spent waiting for
/// a core).
fn bench_moving(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    motion: &mut Motion,
    moved: Option<&[u32]>,
    log: &mut Log,
    mut frame: impl FnMut(&[Pose]),
) {
    group.bench_function(id, |b| {
        timed_each(b, log, || {
            step(motion, moved);
            let t = ThreadTime::now();
            frame(&motion.poses);
            t.elapsed()
        })
    });
}

fn bench_broad_phase(
    c: &mut Criterion,
    shapes: &[SharedShape],
    start: &Motion,
    moved: Option<&[u32]>,
) {
    let n = start.poses.len();
    let mut motion = start.clone();
    let mut cont = Contenders::new(shapes, &motion);
    lockstep(
        &mut cont,
        &mut motion,
        moved,
        env_or("ICOLLIDE_BENCH_CHECK_FRAMES", 64),
    );
    let name = if moved.is_some() {
        "broad_phase_sparse"
    } else {
        "broad_phase"
    };
    let mut group = c.benchmark_group(name);
    configure(&mut group);
    group.throughput(Throughput::Elements(n as u64));
    let mut logs: [Log; 6] = Default::default();
    let mut changes = PairChanges::default();
    let Contenders {
        mut ours,
        mut ours_boxes,
        mut grid,
        mut grid_boxes,
        mut exact,
        mut rapier,
        mut parry_boxes,
        mut rapier_boxes,
    } = cont;
    let id = |k: &str| BenchmarkId::new(k, n);
    let mut m = motion.clone();
    bench_moving(&mut group, id(NAMES[0]), &mut m, moved, &mut logs[0], |p| {
        ours_frame(&mut ours, &mut ours_boxes, p, moved, &mut changes)
    });
    check_after(&held_boxes(&ours, n), &active_pairs(&ours), NAMES[0]);
    let mut m = motion.clone();
    bench_moving(&mut group, id(NAMES[1]), &mut m, moved, &mut logs[1], |p| {
        ours_frame(&mut grid, &mut grid_boxes, p, moved, &mut changes)
    });
    check_after(&held_boxes(&grid, n), &active_pairs(&grid), NAMES[1]);
    let mut m = motion.clone();
    bench_moving(&mut group, id(NAMES[2]), &mut m, moved, &mut logs[2], |p| {
        black_box(parry_frame(&mut exact, &mut parry_boxes, p, moved));
    });
    check_after(&parry_boxes.out, &exact.sorted_pairs(), NAMES[2]);
    let mut m = motion.clone();
    bench_moving(&mut group, id(NAMES[3]), &mut m, moved, &mut logs[3], |p| {
        black_box(parry_frame(&mut rapier, &mut rapier_boxes, p, moved));
    });
    if moved.is_none() {
        let mut b = OurBoxes::new(shapes, &motion.scene);
        let mut m = motion.clone();
        bench_moving(
            &mut group,
            id("boxes_ours"),
            &mut m,
            None,
            &mut logs[4],
            |p| {
                for (i, pose) in p.iter().enumerate() {
                    black_box(b.update(i, pose));
                }
            },
        );
        let mut b = ParryBoxes::new(shapes, &motion.scene);
        let mut m = motion.clone();
        bench_moving(
            &mut group,
            id("boxes_parry"),
            &mut m,
            None,
            &mut logs[5],
            |p| {
                for (i, pose) in p.iter().enumerate() {
                    b.update(i, pose);
                }
                black_box(&b.out);
            },
        );
    }
    group.finish();
    summary(name, n, &logs);
}

/// Panics unless `pairs` are the reference pairs of `boxes`.
fn check_after(boxes: &[Aabb], pairs: &Pairs, what: &str) {
    assert!(
        *pairs == reference_pairs(boxes),
        "{what}: pairs differ from the reference after timing"
    );
}

fn summary(name: &str, n: usize, logs: &[Log; 6]) {
    let ms: Vec<f64> = logs.iter().map(|l| median_us(l) / 1e3).collect();
    let faster = ms[2].min(ms[3]);
    let ratio = ms[0] / faster;
    println!(
        "[summary] {name} N={n}, CPU ms/frame (medians): ours_enlarged_grid {:.4}, ours_grid {:.4}, \
         bvh_exact {:.4}, bvh_rapier_cd {:.4}; boxes ours {:.4}, parry {:.4}; ours ÷ faster BVH \
         {ratio:.2}× (target ≤ 0.5: {}); load {}",
        ms[0],
        ms[1],
        ms[2],
        ms[3],
        ms[4],
        ms[5],
        verdict(ratio <= 0.5),
        loadavg()
    );
}

/// Box updates alone, per object; the dynamic box checked against brute
/// force on the check frames first.
fn bench_bounds(c: &mut Criterion, shapes: &[SharedShape], start: &Motion) {
    let n = start.poses.len();
    let mut motion = start.clone();
    let ours = OurBoxes::new(shapes, &motion.scene);
    let cubes: Vec<FixedCube> = (0..n)
        .map(|i| *shapes[motion.scene.bodies[i].shape].fixed_cube())
        .collect();
    let mut dynamic = vec![DynamicBox::new(); n];
    for f in 0..env_or("ICOLLIDE_BENCH_CHECK_FRAMES", 64usize) {
        motion.step();
        for (i, pose) in motion.poses.iter().enumerate() {
            let tight = dynamic[i].update(ours.hulls[i], pose).0;
            let brute = brute_force_aabb(ours.hulls[i].vertices(), pose);
            assert_eq!(
                tight, brute,
                "dynamic box {i} differs from brute force at frame {f}"
            );
            let cube = cubes[i].aabb(pose);
            assert!(
                cube.contains(&brute),
                "cube {i} does not contain the hull at frame {f}"
            );
        }
    }
    println!(
        "[check] N={n}: dynamic box == brute force on every check frame; cubes contain the hulls"
    );
    let mut group = c.benchmark_group("bounds_update");
    configure(&mut group);
    group.throughput(Throughput::Elements(n as u64));
    let mut log = Log::new();
    let mut out = vec![Aabb::EMPTY; n];
    let id = |k: &str| BenchmarkId::new(k, n);
    let mut m = motion.clone();
    bench_moving(&mut group, id("fixed_cube"), &mut m, None, &mut log, |p| {
        for ((o, cube), pose) in out.iter_mut().zip(&cubes).zip(p) {
            *o = cube.aabb(pose);
        }
        black_box(&out);
    });
    let mut m = motion.clone();
    bench_moving(&mut group, id("dynamic_box"), &mut m, None, &mut log, |p| {
        for (i, pose) in p.iter().enumerate() {
            out[i] = dynamic[i].update(ours.hulls[i], pose).0;
        }
        black_box(&out);
    });
    let mut world = ours.clone();
    let mut m = motion.clone();
    bench_moving(&mut group, id("world_box"), &mut m, None, &mut log, |p| {
        for (i, pose) in p.iter().enumerate() {
            out[i] = world.update(i, pose);
        }
        black_box(&out);
    });
    let mut m = motion.clone();
    bench_moving(&mut group, id("brute_force"), &mut m, None, &mut log, |p| {
        for (i, pose) in p.iter().enumerate() {
            out[i] = brute_force_aabb(ours.hulls[i].vertices(), pose);
        }
        black_box(&out);
    });
    let mut parry = ParryBoxes::new(shapes, &motion.scene);
    let mut m = motion.clone();
    bench_moving(&mut group, id("parry_aabb"), &mut m, None, &mut log, |p| {
        for (i, pose) in p.iter().enumerate() {
            parry.update(i, pose);
        }
        black_box(&parry.out);
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    for n in icollide_peers::env_sizes("ICOLLIDE_BENCH_N", &SIZES) {
        let motion = Motion::new(n);
        let shapes = motion.scene.shapes.clone();
        println!(
            "[setup] N={n}: half-size {:.1}, load {}",
            motion.scene.half_size,
            loadavg()
        );
        bench_broad_phase(c, &shapes, &motion, None);
        let every = env_or("ICOLLIDE_BENCH_SPARSE", 10usize).max(1);
        let moved: Vec<u32> = (0..n as u32)
            .filter(|i| (*i as usize).is_multiple_of(every))
            .collect();
        bench_broad_phase(c, &shapes, &motion, Some(&moved));
        bench_bounds(c, &shapes, &motion);
    }
}

criterion_group!(broad_phase, benches);
criterion_main!(broad_phase);
