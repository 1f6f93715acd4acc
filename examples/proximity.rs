//! Parallel close proximity (Gottschalk et al. 1996, van den Bergen 1997):
//! two concentric spheres of ~32 000 triangles each, radii 1 and `1 + ε`,
//! never touching. A `First` query never exits early, so the box tests it
//! makes measure what proximity costs each kind of tree. The papers find
//! the box tests grow as about `ε^-1` for OBB trees and `ε^-2` for AABB
//! trees; this writes the measured curves (log–log) and their slopes.
//!
//! ```text
//! cargo run --release --example proximity -- [--n 52] [--rotations 8] [--out FILE.svg]
//! ```
//!
//! The picture goes to `target/close_proximity.svg` unless `--out` says
//! otherwise (`--out docs/close_proximity.svg` renews the tracked one).
//!
//! `--n` is the grid of each cube face (12 n² triangles per sphere);
//! `--rotations` the random rotations per ε (both spheres turned, each its
//! own way). Prints a table (box tests per query for OBB trees, AABB trees
//! with the full SAT and with SAT lite) and the least-squares slopes.

#[path = "multibody/svg.rs"]
mod svg;

use bevy_icollide::bvh::{
    AabbTree, AabbTreeOptions, Bvh, CollideOptions, CollideScratch, ContactMode, MeshSide, ObbTree,
    SatTest, SplitRule, TreePair, collide_with,
};
use bevy_icollide::math::Pose;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{Rng, cube_sphere};

const EPSILONS: [f32; 7] = [1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001];

/// Command-line settings.
struct Args {
    n: usize,
    rotations: usize,
    out: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        n: 52,
        rotations: 8,
        out: Some("target/close_proximity.svg".into()),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--n" => a.n = value()?.parse().map_err(|e| format!("--n: {e}"))?,
            "--rotations" => {
                a.rotations = value()?.parse().map_err(|e| format!("--rotations: {e}"))?
            }
            "--out" => a.out = Some(value()?).filter(|s| !s.is_empty()),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(a)
}

/// A sphere mesh with both trees.
struct Sphere {
    mesh: TriMesh,
    obb: ObbTree,
    aabb: AabbTree,
}

impl Sphere {
    fn new(radius: f32, n: usize) -> Self {
        let (v, t) = cube_sphere(radius, n);
        let mesh = TriMesh::new(v, t).expect("a valid sphere");
        let obb = ObbTree::build(mesh.vertices(), mesh.triangles(), SplitRule::Mean, 1);
        let aabb = AabbTree::build_mesh(&mesh, &AabbTreeOptions::default());
        Sphere { mesh, obb, aabb }
    }
}

/// Mean box tests of `First` queries over the rotations.
fn box_tests<N: TreePair<N>>(
    (a, b): (&Sphere, &Sphere),
    tree: impl Fn(&Sphere) -> &Bvh<N>,
    sat: SatTest,
    poses: &[(Pose, Pose)],
) -> f64 {
    let (mut scratch, mut out) = (CollideScratch::default(), Vec::new());
    let options = CollideOptions {
        mode: ContactMode::First,
        sat,
        ..CollideOptions::default()
    };
    let mut total = 0u64;
    for &(pa, pb) in poses {
        let (sa, sb) = (
            MeshSide::new(&a.mesh, tree(a), pa),
            MeshSide::new(&b.mesh, tree(b), pb),
        );
        let stats = collide_with(&sa, &sb, &options, &mut scratch, &mut out);
        assert!(out.is_empty(), "the spheres never touch");
        total += u64::from(stats.box_tests);
    }
    total as f64 / poses.len() as f64
}

/// Whether the spheres surely never touch: every triangle plane of the
/// outer sphere is farther from the center than the inner sphere's
/// farthest vertex.
fn apart(inner: &Sphere, outer: &Sphere) -> bool {
    let reach = inner
        .mesh
        .vertices()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.as_dvec3().length()));
    (0..outer.mesh.triangles().len()).all(|t| {
        let [a, b, c] = outer.mesh.triangle(t).map(|v| v.as_dvec3());
        let n = (b - a).cross(c - a);
        n.length() == 0.0 || (n.dot(a) / n.length()).abs() > reach
    })
}

/// Least-squares slope of ln y against ln x.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (xs, ys): (Vec<f64>, Vec<f64>) = points.iter().map(|&(x, y)| (x.ln(), y.ln())).unzip();
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    sxy / sxx
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\nusage: proximity [--n N] [--rotations K] [--out FILE.svg]");
            std::process::exit(2);
        }
    };
    let inner = Sphere::new(1.0, a.n);
    println!(
        "spheres of {} triangles, {} rotations per epsilon",
        inner.mesh.triangles().len(),
        a.rotations
    );
    println!(
        "{:>8} {:>12} {:>12} {:>12}",
        "epsilon", "OBB", "AABB+SAT", "AABB+lite"
    );
    let mut rng = Rng::new(1);
    let mut curves: [Vec<(f64, f64)>; 3] = Default::default();
    for eps in EPSILONS {
        let outer = Sphere::new(1.0 + eps, a.n);
        if !apart(&inner, &outer) {
            println!(
                "{eps:>8} (the flat triangles of the outer sphere reach the inner one: skipped)"
            );
            continue;
        }
        let poses: Vec<(Pose, Pose)> = (0..a.rotations)
            .map(|_| {
                let p = |r: &mut Rng| Pose::new(r.rotation(), glam::Vec3::ZERO);
                (p(&mut rng), p(&mut rng))
            })
            .collect();
        let pair = (&inner, &outer);
        let row = [
            box_tests(pair, |s| &s.obb, SatTest::Full, &poses),
            box_tests(pair, |s| &s.aabb, SatTest::Full, &poses),
            box_tests(pair, |s| &s.aabb, SatTest::Lite, &poses),
        ];
        println!(
            "{eps:>8} {:>12.0} {:>12.0} {:>12.0}",
            row[0], row[1], row[2]
        );
        for (c, v) in curves.iter_mut().zip(row) {
            c.push((f64::from(eps), v));
        }
    }
    // The AABB curves saturate once ε is below the triangles' size (every
    // nearby leaf pair is tested): the slope is fitted above it, as in the
    // papers.
    let size = std::f64::consts::FRAC_PI_2 / a.n as f64;
    let above: [Vec<(f64, f64)>; 3] = curves
        .each_ref()
        .map(|c| c.iter().copied().filter(|p| p.0 >= size).collect());
    let slopes = above.each_ref().map(|c| slope(c));
    println!(
        "slope of ln(box tests) against ln(epsilon) for epsilon >= {size:.3} (the triangles' \
         size): OBB {:.2}, AABB+SAT {:.2}, AABB+lite {:.2}; over every epsilon: {:.2}, {:.2}, {:.2}",
        slopes[0],
        slopes[1],
        slopes[2],
        slope(&curves[0]),
        slope(&curves[1]),
        slope(&curves[2])
    );
    if let Some(path) = &a.out {
        write_plot(path, &curves, &slopes, inner.mesh.triangles().len());
    }
}

fn write_plot(path: &str, curves: &[Vec<(f64, f64)>; 3], slopes: &[f64; 3], tris: usize) {
    let names = ["OBB trees", "AABB trees, SAT", "AABB trees, SAT lite"];
    let colors = ["#1f77b4", "#d62728", "#ff7f0e"];
    let series = (0..3)
        .map(|k| svg::Series {
            name: format!(
                "{} (slope {:.2} above the triangle size)",
                names[k], slopes[k]
            ),
            points: curves[k].clone(),
            color: colors[k],
            dashed: k == 2,
        })
        .collect();
    let plot = svg::Plot {
        title: "Parallel close proximity: box tests per query".into(),
        subtitle: format!("two concentric spheres of {tris} triangles, radii 1 and 1 + ε"),
        x_label: "ε (gap between the spheres)".into(),
        y_label: "box tests per query".into(),
        log_x: true,
        log_y: true,
        legend_below: true,
        series,
    };
    match std::fs::write(path, svg::render(&plot)) {
        Ok(()) => println!("wrote {path}"),
        Err(e) => eprintln!("could not write {path}: {e}"),
    }
}
