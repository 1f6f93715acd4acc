//! The world's narrow phase alone on I-COLLIDE's multi-body scene (the
//! `plugin_frame` bench's: hulls of 40 points, 32 distinct, 5 % density,
//! 10°/frame, 1.5 % of the radius per frame, every body moving on), boolean
//! pairs (`penetration: false`), for instruction counts under callgrind:
//! `valgrind --tool=callgrind --toggle-collect='*narrow_frames*'
//! target/release/examples/count_world_narrow <bodies> <frames>`.
//! Prints the pair tests and touching pairs per frame and the wall time of
//! the narrow phase per pair test (noisy on a loaded machine).

use std::time::{Duration, Instant};

use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let (n, frames) = (arg(1, 10_000), arg(2, 20));
    let params = MultiBodyParams {
        count: n,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let config = WorldConfig {
        penetration: false,
        ..Default::default()
    };
    let mut world = CollisionWorld::new(config).expect("config");
    let ids: Vec<BodyHandle> = (0..n)
        .map(|i| world.add_body(BodyDesc::new(scene.shape_of(i).clone())))
        .collect();
    // Warm-up: pairs and caches settle.
    for _ in 0..10 {
        step(&mut world, &mut scene, &ids);
        world.update_narrow_phase();
        let _ = world.drain_events();
    }
    let (mut tests, mut touching, mut time) = (0u64, 0u64, Duration::ZERO);
    for _ in 0..frames {
        step(&mut world, &mut scene, &ids);
        time += narrow_frames(&mut world);
        let _ = world.drain_events();
        let s = world.stats();
        tests += u64::from(s.pair_tests);
        touching += u64::from(s.touching);
    }
    let f = frames as u64;
    println!(
        "{n} bodies, {frames} frames: {} pair tests/frame, {} touching/frame, {:.1} ns per pair \
         test (narrow phase wall time)",
        tests / f,
        touching / f,
        time.as_secs_f64() * 1e9 / tests as f64
    );
}

/// Moves every body on (the scene's own step, not timed) and updates the
/// boxes and the broad phase.
fn step(world: &mut CollisionWorld, scene: &mut MultiBodyScene, ids: &[BodyHandle]) {
    scene.step();
    for (id, b) in ids.iter().zip(&scene.bodies) {
        world.set_pose(*id, b.pose).expect("pose");
    }
    world.update_bounds();
    world.update_broad_phase();
}

/// The narrow phase alone (callgrind: `--toggle-collect='*narrow_frames*'`).
#[inline(never)]
fn narrow_frames(world: &mut CollisionWorld) -> Duration {
    let t = Instant::now();
    world.update_narrow_phase();
    t.elapsed()
}
