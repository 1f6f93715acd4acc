//! The world's frame cost, stage by stage, on I-COLLIDE's multi-body scene
//! (the core without Bevy): ignored by default, a measurement. Run:
//! `cargo test --test core frame_cost -- --ignored --nocapture`
//! (`ICOLLIDE_FRAME_COST=N` bodies, default 2000).

use std::time::Instant;

use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};

/// Median and mean milliseconds per frame of bounds, broad and narrow
/// phase over `frames` frames (after 10 warm-up frames).
fn stage_times(config: WorldConfig, n: usize, frames: usize) -> [(f64, f64); 3] {
    let params = MultiBodyParams {
        count: n,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let mut world = CollisionWorld::new(config).expect("config");
    let ids: Vec<_> = (0..n)
        .map(|i| world.add_body(BodyDesc::new(scene.shape_of(i).clone())))
        .collect();
    let mut times: [Vec<f64>; 3] = Default::default();
    for frame in 0..frames + 10 {
        scene.step();
        for (id, b) in ids.iter().zip(&scene.bodies) {
            world.set_pose(*id, b.pose).expect("pose");
        }
        let t0 = Instant::now();
        world.update_bounds();
        let t1 = Instant::now();
        world.update_broad_phase();
        let t2 = Instant::now();
        world.update_narrow_phase();
        let t3 = Instant::now();
        let _ = world.drain_events();
        if frame >= 10 {
            for (k, d) in [t1 - t0, t2 - t1, t3 - t2].into_iter().enumerate() {
                times[k].push(d.as_secs_f64() * 1e3);
            }
        }
    }
    times.map(|mut t| {
        let mean = t.iter().sum::<f64>() / t.len() as f64;
        t.sort_by(f64::total_cmp);
        (t[t.len() / 2], mean)
    })
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn frame_cost() {
    let n = std::env::var("ICOLLIDE_FRAME_COST")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    for (name, penetration) in [("boolean", false), ("contact data", true)] {
        let config = WorldConfig {
            penetration,
            ..Default::default()
        };
        let [b, p, q] = stage_times(config, n, 300);
        eprintln!(
            "{n} bodies, {name}: ms/frame median (mean): bounds {:.3} ({:.3}), broad {:.3} ({:.3}), narrow {:.3} ({:.3})",
            b.0, b.1, p.0, p.1, q.0, q.1
        );
    }
}
