//! Shape casts (time of impact) side by side with parry3d's `cast_shapes`
//! and `cast_shapes_nonlinear`, on the same shapes and motions.
//!
//! Scenes (each 400 casts over one unit of time, B started apart from A and
//! aimed at it with an offset, so that some casts hit and some miss):
//!
//! - `hull_linear`, `hull_spin`: convex hulls of 100 random points on the
//!   unit sphere (parry: `ConvexPolyhedron`), translating, or translating
//!   and turning up to 4 rad per unit time;
//! - `torus_sphere`: a sphere of radius 0.2 cast at a 2 000-triangle torus
//!   (parry: `TriMesh` and `Ball`);
//! - `torus_torus`, `torus_torus_spin`: two 2 000-triangle tori (40 casts
//!   when they spin: parry takes about half a second per cast).
//!
//! Ours: `query::cast_shapes` / `cast_shapes_nonlinear` (conservative
//! advancement, tolerance 1e-4; the trees searched by time for meshes).
//! Parry: the same calls with `max_time_of_impact = 1`, stopping at
//! penetration.
//!
//! Check (before the timing, every cast): where the two disagree (one hits,
//! the other not, or times more than 1e-3 apart), brute force decides: the
//! first of 4 000 time samples at which the shapes touch (our `distance`,
//! which equals the minimum over all triangle pairs). Each crate's wrong
//! answers are counted and printed; a wrong answer of ours fails the bench.
//!
//! Run: `cargo bench -p icollide-peers --bench shape_cast`
//! (`ICOLLIDE_BENCH_SCENES=hull_linear,...` runs some scenes).

use std::sync::Arc;

use bevy_icollide::collider::{ShapeKind, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{ShapeCastOptions, cast_shapes_nonlinear, distance};
use bevy_icollide::testkit::{Rng, sphere_hull, torus};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use icollide_peers::timing::{Log, configure, enabled, loadavg, median_us, timed};
use icollide_peers::to_parry_pose;
use parry3d::query::{NonlinearRigidMotion, ShapeCastOptions as ParryOptions};
use parry3d::shape::{Ball, ConvexPolyhedron, Shape};

/// Casts per scene.
const CASTS: usize = 400;
/// Time samples of the brute-force decision.
const SAMPLES: usize = 4_000;

/// A shape for both crates.
type Both = (SharedShape, Arc<dyn Shape>);

/// One scene: the two shapes for both crates and the casts.
struct Scene {
    name: &'static str,
    a: Both,
    b: Both,
    casts: Vec<[RigidMotion; 2]>,
}

fn parry_hull(s: &SharedShape) -> Arc<dyn Shape> {
    let p = s.polytope().expect("hull");
    Arc::new(ConvexPolyhedron::from_convex_hull(p.vertices()).expect("hull"))
}

fn parry_mesh(s: &SharedShape) -> Arc<dyn Shape> {
    let m = s.surface().expect("mesh").mesh;
    Arc::new(icollide_peers::to_parry_trimesh(m))
}

fn reach(s: &SharedShape) -> f32 {
    let b = s.local_aabb();
    b.min.abs().max(b.max.abs()).length()
}

/// `CASTS` motions: B starts apart from A and is aimed at it.
fn casts(
    rng: &mut Rng,
    (a, b): (&SharedShape, &SharedShape),
    spin: bool,
    n: usize,
) -> Vec<[RigidMotion; 2]> {
    (0..n)
        .map(|_| {
            let u = rng.unit_vector();
            let gap = reach(a) + reach(b) + rng.range(0.05, 0.5);
            let aim = -u * gap * rng.range(0.8, 2.0) + rng.in_cube(1.2 * reach(a));
            let mut ma =
                RigidMotion::linear(Pose::new(rng.rotation(), Vec3::ZERO), rng.in_cube(0.1));
            let mut mb = RigidMotion::linear(Pose::new(rng.rotation(), u * gap), aim);
            if spin {
                ma.angvel = rng.unit_vector() * rng.range(0.5, 4.0);
                mb.angvel = rng.unit_vector() * rng.range(0.5, 4.0);
            }
            [ma, mb]
        })
        .collect()
}

fn scenes() -> Vec<Scene> {
    let mut rng = Rng::new(2026);
    let h1 = sphere_hull(&mut rng, 100, 1.0);
    let h2 = sphere_hull(&mut rng, 100, 1.0);
    let (v, t) = torus(1.0, 0.3, 50, 20);
    let ring = SharedShape::trimesh(v, t).expect("torus");
    let ball = SharedShape::sphere(0.2).expect("sphere");
    let hulls = || ((h1.clone(), parry_hull(&h1)), (h2.clone(), parry_hull(&h2)));
    let tori = || {
        (
            (ring.clone(), parry_mesh(&ring)),
            (ring.clone(), parry_mesh(&ring)),
        )
    };
    let mut out = Vec::new();
    let mut add = |name, (a, b): (Both, Both), spin: bool, rng: &mut Rng| {
        if enabled(name) {
            // parry takes about half a second per cast of spinning tori.
            let slow = spin && matches!(a.0.kind(), ShapeKind::TriMesh(_));
            let casts = casts(
                rng,
                (&a.0, &b.0),
                spin,
                if slow { CASTS / 10 } else { CASTS },
            );
            out.push(Scene { name, a, b, casts });
        }
    };
    add("hull_linear", hulls(), false, &mut rng);
    add("hull_spin", hulls(), true, &mut rng);
    let sphere: Arc<dyn Shape> = Arc::new(Ball::new(0.2));
    add(
        "torus_sphere",
        ((ring.clone(), parry_mesh(&ring)), (ball, sphere)),
        false,
        &mut rng,
    );
    add("torus_torus", tori(), false, &mut rng);
    add("torus_torus_spin", tori(), true, &mut rng);
    out
}

fn ours(s: &Scene, [ma, mb]: &[RigidMotion; 2]) -> Option<f32> {
    let options = ShapeCastOptions::default();
    cast_shapes_nonlinear((&s.a.0, ma), (&s.b.0, mb), &options)
        .expect("valid")
        .map(|h| h.time_of_impact)
}

fn parry(s: &Scene, [ma, mb]: &[RigidMotion; 2]) -> Option<f32> {
    let (pa, pb) = (to_parry_pose(&ma.start), to_parry_pose(&mb.start));
    let hit = if ma.is_linear() && mb.is_linear() {
        let options = ParryOptions::with_max_time_of_impact(1.0);
        parry3d::query::cast_shapes(&pa, ma.linvel, &*s.a.1, &pb, mb.linvel, &*s.b.1, options)
    } else {
        let m =
            |m: &RigidMotion, p| NonlinearRigidMotion::new(p, m.local_center, m.linvel, m.angvel);
        parry3d::query::cast_shapes_nonlinear(
            &m(ma, pa),
            &*s.a.1,
            &m(mb, pb),
            &*s.b.1,
            0.0,
            1.0,
            true,
        )
    };
    hit.expect("parry supports these shapes")
        .map(|h| h.time_of_impact)
}

/// The first of [`SAMPLES`] times at which the shapes touch.
fn brute_force(s: &Scene, [ma, mb]: &[RigidMotion; 2]) -> Option<f32> {
    (0..=SAMPLES)
        .map(|i| i as f32 / SAMPLES as f32)
        .find(|&t| distance(&s.a.0, &ma.pose_at(t), &s.b.0, &mb.pose_at(t)).expect("valid") <= 0.0)
}

/// Whether an answer is right by brute force: same hit or miss, and a
/// time no later than the first touching sample and no more than two
/// samples before it (or, when sampling saw no touch, a time at which the
/// shapes are within the tolerance).
fn right(s: &Scene, m: &[RigidMotion; 2], answer: Option<f32>, truth: Option<f32>) -> bool {
    let step = 1.0 / SAMPLES as f32;
    match (answer, truth) {
        (None, None) => true,
        (Some(t), Some(r)) => t <= r + 1e-5 && t >= r - 2.0 * step,
        (Some(t), None) => {
            distance(&s.a.0, &m[0].pose_at(t), &s.b.0, &m[1].pose_at(t)).expect("valid") <= 2e-4
        }
        (None, Some(_)) => false,
    }
}

/// Counts each crate's wrong answers among the disagreements; the hits.
fn check(s: &Scene) -> ([usize; 2], usize, usize) {
    let (mut wrong, mut disagreements, mut hits) = ([0; 2], 0, 0);
    for (i, m) in s.casts.iter().enumerate() {
        let (x, y) = (ours(s, m), parry(s, m));
        hits += usize::from(x.is_some());
        let agree = match (x, y) {
            (Some(p), Some(q)) => (p - q).abs() <= 1e-3,
            (p, q) => p.is_none() && q.is_none(),
        };
        if agree {
            continue;
        }
        disagreements += 1;
        let truth = brute_force(s, m);
        let [ok_ours, ok_parry] = [right(s, m, x, truth), right(s, m, y, truth)];
        assert!(
            ok_ours,
            "{} cast {i}: ours {x:?}, parry {y:?}, brute force {truth:?}",
            s.name
        );
        wrong[1] += usize::from(!ok_parry);
        wrong[0] += usize::from(!ok_ours);
    }
    (wrong, disagreements, hits)
}

fn benches(c: &mut Criterion) {
    println!("[env] load average before: {}", loadavg());
    let mut lines = Vec::new();
    for s in scenes() {
        let (wrong, disagreements, hits) = check(&s);
        let mut logs: [Log; 2] = Default::default();
        let mut group = c.benchmark_group(format!("shape_cast/{}", s.name));
        configure(&mut group);
        group.bench_function("ours", |b| {
            timed(b, &mut logs[0], || {
                s.casts.iter().filter_map(|m| ours(&s, m)).count()
            })
        });
        group.bench_function("parry", |b| {
            timed(b, &mut logs[1], || {
                s.casts.iter().filter_map(|m| parry(&s, m)).count()
            })
        });
        group.finish();
        let n = s.casts.len();
        let us = logs.map(|l| median_us(&l) / n as f64);
        lines.push(format!(
            "{}: µs/cast ours {:.2}, parry {:.2} (parry/ours {:.2}x); {hits}/{n} hit; \
             {disagreements} disagreements, wrong by brute force: ours {}, parry {}",
            s.name,
            us[0],
            us[1],
            us[1] / us[0],
            wrong[0],
            wrong[1]
        ));
    }
    println!("[env] load average after: {}", loadavg());
    for l in lines {
        println!("[summary] {l}");
    }
}

criterion_group!(group, benches);
criterion_main!(group);
