//! The collision world's whole frame (the core without Bevy) on
//! I-COLLIDE's multi-body scene: 2 000 convex hulls of 40 points, every
//! body moved every frame; one criterion iteration is one frame: every
//! pose set (`set_pose`), then `update_bounds`, `update_broad_phase`,
//! `update_narrow_phase`, `drain_events`. Two configurations: `boolean`
//! (touching or not) and `contact` (distances and penetration depths).
//!
//! The scene is stepped K = 64 times beforehand and the frames replayed
//! there and back (0, 1, …, 63, 62, …), so every timed frame is one frame
//! of coherent motion and the scene's own step is not timed (as in
//! `broad_phase.rs`). `tests/core/frame_cost.rs` times the stages apart.
//!
//! Run: `cargo bench -p icollide-peers --bench world_frame`.

use std::time::Duration;

use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const N: usize = 2000;
const K: usize = 64;

/// The world with the scene's bodies and the K frames' poses.
fn setup(config: WorldConfig) -> (CollisionWorld, Vec<BodyHandle>, Vec<Vec<Pose>>) {
    let params = MultiBodyParams {
        count: N,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let mut world = CollisionWorld::new(config).expect("config");
    let ids: Vec<_> = (0..N)
        .map(|i| world.add_body(BodyDesc::new(scene.shape_of(i).clone())))
        .collect();
    let frames = (0..K)
        .map(|_| {
            scene.step();
            scene.bodies.iter().map(|b| b.pose).collect()
        })
        .collect();
    (world, ids, frames)
}

/// Frame `i` of the there-and-back replay.
fn replay(i: usize) -> usize {
    let p = i % (2 * K - 2);
    if p < K { p } else { 2 * K - 2 - p }
}

fn frame(world: &mut CollisionWorld, ids: &[BodyHandle], poses: &[Pose]) {
    for (id, pose) in ids.iter().zip(poses) {
        world.set_pose(*id, *pose).expect("pose");
    }
    world.update_bounds();
    world.update_broad_phase();
    world.update_narrow_phase();
    let _ = world.drain_events();
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("world_frame");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, penetration) in [("boolean", false), ("contact", true)] {
        let config = WorldConfig {
            penetration,
            ..Default::default()
        };
        let (mut world, ids, frames) = setup(config);
        // Settle: the first frames find every pair.
        for i in 0..K {
            frame(&mut world, &ids, &frames[replay(i)]);
        }
        let mut i = 0;
        group.bench_function(BenchmarkId::new(name, N), |b| {
            b.iter(|| {
                i += 1;
                frame(&mut world, &ids, &frames[replay(i)]);
            })
        });
    }
    group.finish();
}

criterion_group!(world_frame, benches);
criterion_main!(world_frame);
