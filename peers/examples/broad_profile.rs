//! Our side of the `broad_phase` bench alone, for a profiler: the
//! multi-body scene in continuous motion, every body's world box and the
//! grid over enlarged boxes, `ICOLLIDE_BENCH_FRAMES` frames (default 300)
//! at `ICOLLIDE_BENCH_N` bodies (default 50 000); prints this thread's CPU
//! time and the wall clock per frame and the grid's counters. Knobs:
//! `ICOLLIDE_BENCH_MARGIN`, `ICOLLIDE_BENCH_CELL` (cell size; automatic by
//! default), `ICOLLIDE_BENCH_SPARSE` (every k-th body moves),
//! `ICOLLIDE_BENCH_TRANSLATION`, `ICOLLIDE_BENCH_MORTON=1` (the bodies, and
//! so the keys, numbered along a Z curve of their first positions: the
//! spatial order the world's keys do not have). Prints the CPU time of
//! `update` + `drain_changes` apart.
//!
//! `cargo run --release -p icollide-peers --example broad_profile`, under
//! `perf record -e cpu-clock`.

use std::time::Instant;

use bevy_icollide::bounds::DynamicBox;
use bevy_icollide::broad_phase::enlarged::DEFAULT_MARGIN;
use bevy_icollide::broad_phase::{AllowAll, BroadPhase, Enlarged, PairChanges, ProxyKey};
use bevy_icollide::math::Pose;
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};
use glam::Vec3;
use icollide_peers::env_or;

fn main() {
    let n: usize = env_or("ICOLLIDE_BENCH_N", 50_000);
    let frames: usize = env_or("ICOLLIDE_BENCH_FRAMES", 300);
    // Every `every`-th body moves (1: all of them).
    let every: usize = env_or::<usize>("ICOLLIDE_BENCH_SPARSE", 1).max(1);
    let mut scene = MultiBodyScene::new(&MultiBodyParams {
        count: n,
        translation: env_or("ICOLLIDE_BENCH_TRANSLATION", 0.015),
        ..Default::default()
    });
    if env_or::<usize>("ICOLLIDE_BENCH_MORTON", 0) == 1 {
        let h = scene.half_size;
        scene.bodies.sort_by_key(|b| morton(b.pose.translation, h));
    }
    let shapes = scene.shapes.clone();
    let hulls: Vec<_> = scene
        .bodies
        .iter()
        .map(|b| shapes[b.shape].hull().expect("hull"))
        .collect();
    let reach: Vec<f32> = scene
        .bodies
        .iter()
        .map(|b| shapes[b.shape].reach())
        .collect();
    let mut dynamic = vec![DynamicBox::new(); n];
    let cell: f32 = env_or("ICOLLIDE_BENCH_CELL", 0.0);
    let cell = (cell > 0.0).then_some(cell);
    let mut bp = Enlarged::over_grid(cell, env_or("ICOLLIDE_BENCH_MARGIN", DEFAULT_MARGIN));
    let world_box = |d: &mut DynamicBox, i: usize, pose: &Pose| {
        d.update(hulls[i], &Pose::new(pose.rotation, Vec3::ZERO))
            .0
            .rounded_out(reach[i], Vec3::ZERO)
            .placed_at(pose.translation.as_dvec3())
    };
    for (i, b) in scene.bodies.iter().enumerate() {
        let aabb = world_box(&mut dynamic[i], i, &b.pose);
        bp.insert(i as ProxyKey, aabb, false).expect("valid");
    }
    bp.update(&AllowAll);
    let mut changes = PairChanges::default();
    bp.drain_changes(&mut changes);
    let cpu0 = cpu_ns();
    let (mut boxes_s, mut update_s, mut swaps, mut escaped) = (0.0, 0.0, 0u64, 0u64);
    let (mut rebuilt, mut sweep_tests, mut update_cpu) = (0u64, 0u64, 0u64);
    for _ in 0..frames {
        scene.step();
        let t = Instant::now();
        for (i, b) in scene.bodies.iter().enumerate().step_by(every) {
            let aabb = world_box(&mut dynamic[i], i, &b.pose);
            bp.set_aabb(i as ProxyKey, aabb).expect("live");
        }
        let t2 = Instant::now();
        let c2 = cpu_ns();
        bp.update(&AllowAll);
        bp.drain_changes(&mut changes);
        update_cpu += cpu_ns() - c2;
        update_s += t2.elapsed().as_secs_f64();
        boxes_s += (t2 - t).as_secs_f64();
        let s = bp.stats();
        swaps += s.swaps.iter().sum::<u64>();
        escaped += u64::from(s.escaped);
        rebuilt += u64::from(s.rebuilt);
        sweep_tests += s.sweep_tests;
    }
    let cpu = (cpu_ns() - cpu0) as f64 * 1e-9;
    let per = |x: f64| x / frames as f64;
    println!(
        "{rebuilt} of {frames} frames sorted a cell from scratch; {:.0} sweep tests per frame",
        per(sweep_tests as f64)
    );
    println!(
        "CPU time (this thread, scene steps included) {:.3} ms per frame",
        per(cpu * 1e3)
    );
    println!(
        "CPU time of update + drain {:.3} ms per frame",
        per(update_cpu as f64 * 1e-6)
    );
    println!(
        "N={n}, cells of {:.2}: boxes + set_aabb {:.3} ms, update + drain {:.3} ms per frame; {:.0} escaped, \
         {:.0} swaps, {} candidates, {} pairs",
        bp.inner().cell_size(),
        per(boxes_s * 1e3),
        per(update_s * 1e3),
        per(escaped as f64),
        per(swaps as f64),
        bp.candidates(),
        bp.box_pairs()
    );
}

/// This thread's CPU time so far, ns (`/proc/thread-self/schedstat`: not
/// the time it waited for a core on a loaded machine); 0 where unknown.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|t| t.parse().ok()))
        .unwrap_or(0)
}

/// The Morton (Z-curve) code of `p` on a 1024³ lattice over the cube of
/// half side `h`: bodies sorted by it are numbered in spatial order.
fn morton(p: Vec3, h: f32) -> u64 {
    let q = ((p + Vec3::splat(h)) / (2.0 * h) * 1024.0).clamp(Vec3::ZERO, Vec3::splat(1023.0));
    // The 10 bits of `x`, 3 places apart.
    let spread = |x: u32| (0..10).fold(0u64, |out, i| out | (u64::from((x >> i) & 1) << (3 * i)));
    spread(q.x as u32) | (spread(q.y as u32) << 1) | (spread(q.z as u32) << 2)
}
