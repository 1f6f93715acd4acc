//! Runs one method of the convex_boolean bench (`gjk_cold`, `gjk_warm`,
//! `lin_canny_warm`, `parry`, or `world`: the world's boolean narrow phase
//! over the same pairs, toggled with `--toggle-collect='*world_narrow*'`) over `frames` frames of its scene, for
//! instruction counts under callgrind (wall-clock on a shared machine
//! drifts): `valgrind --tool=callgrind --toggle-collect='*run_queries*'
//! target/release/examples/count_convex_boolean <method> <points> <frames>`.

use bevy_icollide::geometry::gjk::{GjkCache, gjk_intersect};
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::query::lin_canny::{ConvexCache, closest_features};
use bevy_icollide::shape::ConvexPolytope;
use icollide_peers::{PairParams, SeparatedPairs};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let method = args.get(1).map_or("gjk_cold", String::as_str);
    let points: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let pairs = 1000;
    let scene = SeparatedPairs::new(
        PairParams {
            pairs,
            hull_points: points,
            // As the bench: closer centres for small hulls.
            center_distance: if points < 20 { [1.2, 1.8] } else { [1.7, 2.3] },
            ..Default::default()
        },
        args.get(3).and_then(|s| s.parse().ok()).unwrap_or(8),
    );
    let polys: Vec<&ConvexPolytope> = scene
        .shapes
        .iter()
        .map(|s| s.polytope().expect("hull"))
        .collect();
    if method == "world" {
        return world(&scene);
    }
    let (shapes, frames) = (scene.parry_shapes(), scene.parry_frames());
    let t = std::time::Instant::now();
    let hits = run_queries(method, &scene, &polys, &shapes, &frames);
    let n = pairs * scene.frames.len();
    let ns = t.elapsed().as_secs_f64() * 1e9 / n as f64;
    println!("{method} {points}: {hits} intersecting of {n}, {ns:.1} ns/query");
}

/// The queries alone (callgrind: `--toggle-collect='*run_queries*'`).
#[inline(never)]
fn run_queries(
    method: &str,
    scene: &SeparatedPairs,
    polys: &[&ConvexPolytope],
    shapes: &[std::sync::Arc<parry3d::shape::ConvexPolyhedron>],
    frames: &[Vec<parry3d::math::Pose>],
) -> usize {
    let pairs = scene.params.pairs;
    let mut gjk = vec![GjkCache::default(); pairs];
    let mut lc = vec![ConvexCache::default(); pairs];
    let mut hits = 0usize;
    for (f, x) in scene.frames.iter().enumerate() {
        for i in 0..pairs {
            let (a, b) = (2 * i, 2 * i + 1);
            hits += match method {
                "gjk_cold" => {
                    gjk_intersect(polys[a], &x[a], polys[b], &x[b], &mut GjkCache::default())
                }
                "gjk_warm" => gjk_intersect(polys[a], &x[a], polys[b], &x[b], &mut gjk[i]),
                "lin_canny_warm" => {
                    closest_features(polys[a], &x[a], polys[b], &x[b], &mut lc[i]).intersecting
                }
                _ => parry3d::query::intersection_test(
                    &frames[f][a],
                    &*shapes[a],
                    &frames[f][b],
                    &*shapes[b],
                )
                .is_ok_and(|r| r.intersecting),
            } as usize;
        }
    }
    hits
}

/// The world's narrow phase over the scene's frames (each pair in its own
/// cell 8 apart, as the bench places them: the same relative poses).
fn world(scene: &SeparatedPairs) {
    let config = WorldConfig {
        penetration: false,
        ..Default::default()
    };
    let mut world = CollisionWorld::new(config).expect("config");
    let handles: Vec<BodyHandle> = (scene.shapes.iter())
        .map(|s| world.add_body(BodyDesc::new(s.clone())))
        .collect();
    let side = (scene.params.pairs as f64).cbrt().ceil() as usize;
    let (mut tests, mut touching) = (0u64, 0u64);
    for x in &scene.frames {
        for (b, (h, p)) in handles.iter().zip(x).enumerate() {
            let i = b / 2;
            let cell = glam::Vec3::new(
                (i % side) as f32,
                (i / side % side) as f32,
                (i / (side * side)) as f32,
            );
            let pose = Pose::new(p.rotation, p.translation + 8.0 * cell);
            world.set_pose(*h, pose).expect("pose");
        }
        world.update_bounds();
        world.update_broad_phase();
        world_narrow(&mut world);
        let _ = world.drain_events();
        tests += u64::from(world.stats().pair_tests);
        touching += u64::from(world.stats().touching);
    }
    println!("world: {tests} pair tests, {touching} touching");
}

/// The world's narrow phase alone (callgrind: `--toggle-collect='*world_narrow*'`).
#[inline(never)]
fn world_narrow(world: &mut CollisionWorld) {
    world.update_narrow_phase();
}
