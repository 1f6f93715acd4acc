//! Runs one method of the convex_boolean bench (`gjk_cold`, `gjk_warm`,
//! `lin_canny_warm`, `parry`) over `frames` frames of its scene, for
//! instruction counts under callgrind (wall-clock on a shared machine
//! drifts): `valgrind --tool=callgrind --toggle-collect='*run_queries*'
//! target/release/examples/count_convex_boolean <method> <points> <frames>`.

use bevy_icollide::geometry::gjk::{GjkCache, gjk_intersect};
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
