//! Runs one method of the `new_kinds` bench's distance or boolean queries
//! over its 1 000 pairs of one scene, `reps` times, for instruction counts
//! under callgrind (wall-clock on a shared machine drifts):
//! `valgrind --tool=callgrind --toggle-collect='*run_queries*'
//! target/release/examples/count_new_kinds <scene> <method> [reps]`, scene
//! `cylinder`, `cone` or `rbox`, method `gjk`, `query`, `parry`,
//! `query_bool`, `gjk_bool`, `parry_bool`, or `tol`
//! (`query::distance_with_tolerance` at `TOL`, default `10⁻³`). The time
//! printed is the median (and 10th percentile) over the `reps` passes,
//! which a shared machine's preemptions move less than a mean. Prints the mean GJK iterations; with a fourth
//! argument, writes every answer and the pair's GJK iterations to that
//! file (one pair a line); with `FEAT=1`, the closest features of every
//! separated pair ([`print_features`]).

use bevy_icollide::collider::SharedShape;
use bevy_icollide::geometry::gjk::{GjkCache, GjkResult, gjk_distance, gjk_intersect};
use bevy_icollide::geometry::support::SupportMap;
use bevy_icollide::math::Pose;
use bevy_icollide::query;
use bevy_icollide::testkit::Rng;
use glam::Vec3;
use icollide_peers::to_parry_pose;
use parry3d::shape::{Cone, ConvexPolyhedron, Cuboid, Cylinder, RoundShape, Shape};

/// Our shapes, parry's and the poses of one scene.
type Scene = ([SharedShape; 2], [Box<dyn Shape>; 2], Vec<[Pose; 2]>);

/// The bench's scene `which` (same seed and order of draws).
fn scene(which: &str) -> Scene {
    let mut rng = Rng::new(43);
    let pts: Vec<Vec3> = (0..40).map(|_| rng.unit_vector() * 0.5).collect();
    let mut poses = || -> Vec<[Pose; 2]> {
        (0..1000)
            .map(|_| {
                let d = rng.unit_vector() * rng.range(0.3, 2.5);
                [
                    Pose::new(rng.rotation(), Vec3::ZERO),
                    Pose::new(rng.rotation(), d),
                ]
            })
            .collect()
    };
    let (cyl_poses, cone_poses, rbox_poses) = (poses(), poses(), poses());
    let h = Vec3::new(0.4, 0.3, 0.2);
    let rbox = || -> Box<dyn Shape> {
        Box::new(RoundShape {
            inner_shape: Cuboid::new(h),
            border_radius: 0.1,
        })
    };
    match which {
        "cylinder" => {
            let c = SharedShape::cylinder(0.5, 1.0).expect("cylinder");
            let p = || -> Box<dyn Shape> { Box::new(Cylinder::new(0.5, 0.5)) };
            ([c.clone(), c], [p(), p()], cyl_poses)
        }
        "cone" => (
            [
                SharedShape::cone(0.5, 1.0).expect("cone"),
                SharedShape::convex_hull(&pts).expect("hull"),
            ],
            [
                Box::new(Cone::new(0.5, 0.5)),
                Box::new(ConvexPolyhedron::from_convex_hull(&pts).expect("hull")),
            ],
            cone_poses,
        ),
        _ => {
            let r = SharedShape::round_cuboid(h, 0.1).expect("round box");
            ([r.clone(), r], [rbox(), rbox()], rbox_poses)
        }
    }
}

fn map(x: &SharedShape) -> &dyn SupportMap {
    match (x.implicit(), x.round_convex(), x.polytope()) {
        (Some(i), _, _) => i,
        (_, Some(r), _) => r,
        (_, _, Some(p)) => p,
        _ => unreachable!("a support-mapped kind"),
    }
}

fn tol() -> f32 {
    std::env::var("TOL")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1e-3)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("cylinder", String::as_str);
    let method = args.get(2).map_or("gjk", String::as_str);
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let (ours, parry, mut poses) = scene(which);
    if let Some(only) = std::env::var_os("ONLY") {
        // `ONLY=apart` / `ONLY=touching`: the pairs of that kind alone.
        let (ma, mb) = (map(&ours[0]), map(&ours[1]));
        let apart = only == "apart";
        poses.retain(|[pa, pb]| {
            let g = gjk_distance(ma, pa, mb, pb, &mut GjkCache::default());
            (g.distance > 0.0) == apart
        });
    }
    let mut out = Vec::new();
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            out.clear();
            let t = std::time::Instant::now();
            run_queries(method, &ours, &parry, &poses, &mut out);
            t.elapsed().as_secs_f64() * 1e9 / poses.len() as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let ns = times[reps / 2];
    let lo = times[reps / 10];
    let (ma, mb) = (map(&ours[0]), map(&ours[1]));
    let gjk: Vec<_> = poses
        .iter()
        .map(|[pa, pb]| gjk_distance(ma, pa, mb, pb, &mut GjkCache::default()))
        .collect();
    let it = gjk.iter().map(|g| g.iterations).sum::<u32>() as f64 / poses.len() as f64;
    println!("{which} {method}: {ns:.1} ns/query (10th pct {lo:.1}), GJK {it:.2} iterations");
    if std::env::var_os("FEAT").is_some() {
        print_features(which, &poses, &gjk);
    }
    if let Some(path) = args.get(4) {
        let text: Vec<String> = out
            .iter()
            .zip(&gjk)
            .map(|(d, g)| format!("{d:e} {}", g.iterations))
            .collect();
        std::fs::write(path, text.join("\n")).expect("write");
    }
}

/// For every separated pair (`FEAT=1`): `F <iterations> <feature of A>
/// <feature of B>`, the features holding the closest points of the bench's
/// cylinders (radius 0.5, half-height 0.5) and cone (base radius 0.5 at
/// `y = -0.5`, apex at `y = 0.5`): `rim`, `cap`, `side`, `apex`, `hull`.
fn print_features(which: &str, poses: &[[Pose; 2]], gjk: &[GjkResult]) {
    let cone = which == "cone";
    let class = |p: Vec3, cone: bool| {
        let (rad, y) = (Vec3::new(p.x, 0.0, p.z).length(), p.y);
        let r = if cone { 0.5 * (0.5 - y) } else { 0.5 };
        let (bottom, top) = ((y + 0.5).abs() < 1e-4, (y - 0.5).abs() < 1e-4);
        let side = (rad - r).abs() < 1e-4;
        match (cone && top, bottom || (top && !cone), side) {
            (true, _, _) => "apex",
            (_, true, true) => "rim",
            (_, true, false) => "cap",
            (_, false, true) => "side",
            _ => "inside",
        }
    };
    for (i, ([pa, pb], g)) in poses.iter().zip(gjk).enumerate() {
        if g.distance == 0.0 {
            continue;
        }
        let fa = class(pa.inverse().transform_point(g.point_a), cone);
        let fb = if cone {
            "hull"
        } else {
            class(pb.inverse().transform_point(g.point_b), false)
        };
        println!("F {i} {} {fa} {fb}", g.iterations);
    }
}

/// The queries alone (callgrind: `--toggle-collect='*run_queries*'`).
#[inline(never)]
fn run_queries(
    method: &str,
    ours: &[SharedShape; 2],
    parry: &[Box<dyn Shape>; 2],
    poses: &[[Pose; 2]],
    out: &mut Vec<f32>,
) {
    let (ma, mb) = (map(&ours[0]), map(&ours[1]));
    for [pa, pb] in poses {
        let (qa, qb) = (to_parry_pose(pa), to_parry_pose(pb));
        let d = match method {
            "gjk" => gjk_distance(ma, pa, mb, pb, &mut GjkCache::default()).distance,
            "query" => query::distance(&ours[0], pa, &ours[1], pb).unwrap_or(0.0),
            "tol" => {
                query::distance_with_tolerance(&ours[0], pa, &ours[1], pb, tol()).unwrap_or(0.0)
            }
            "parry" => parry3d::query::distance(&qa, &*parry[0], &qb, &*parry[1])
                .map_or(0.0, |d| d.distance),
            "query_bool" => f32::from(u8::from(
                query::intersects(&ours[0], pa, &ours[1], pb).unwrap_or(false),
            )),
            "gjk_bool" => f32::from(u8::from(gjk_intersect(
                ma,
                pa,
                mb,
                pb,
                &mut GjkCache::default(),
            ))),
            _ => f32::from(u8::from(
                parry3d::query::intersection_test(&qa, &*parry[0], &qb, &*parry[1])
                    .is_ok_and(|r| r.intersecting),
            )),
        };
        out.push(d);
    }
}
