//! Height fields side by side with parry3d's `HeightField`, on the same
//! 1 024 × 1 024 terrain (fixed seed: sums of sines and cosines plus
//! ±5 cm of noise, cells of 1 × 1, heights within ±25; parry's vertex formula and
//! triangle split, so both crates have the very same triangles).
//!
//! - `build`: the field from a copy of a heights array in each crate's
//!   layout (ours: `SharedShape::heightfield`, row-major, validation,
//!   min/max tiles and bounds included; parry: `HeightField::new`,
//!   column-major), and the bytes each holds (ours: heights, hole
//!   bits and tiles; parry: heights and one status byte per cell).
//! - `capsule`, `hull`: a capsule (radius 0.5, length 1) and a hull of 40
//!   random points on a sphere of radius 1, resting on the terrain and
//!   moving over it: 1 000 poses along a straight path (turning), each
//!   lowered onto the terrain until it first touches it, then 0–5 cm
//!   further. Ours: every touching triangle
//!   (`query::intersecting_triangles`, exact). Parry: the contact
//!   manifolds (`DefaultQueryDispatcher::contact_manifolds`, prediction 0),
//!   one-shot (a fresh workspace per query) and coherent (one workspace
//!   along the path, as a physics step keeps it). Checked: the poses where
//!   one crate reports a contact and the other none, and the triangle
//!   counts (ours: touching triangles; parry: manifolds with points).
//! - `ray`: 10 000 rays from 60 above the terrain at elevations from 5° to
//!   90° (uniform), random azimuths, unbounded. Ours `query::ray_cast`,
//!   parry `cast_ray_and_get_normal` (solid). Checked: hit or miss and
//!   parameters agree to 1e-3.
//!
//! Run: `cargo bench -p icollide-peers --bench heightfield`.

use bevy_icollide::bvh::ContactMode;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::query::{self, Ray};
use bevy_icollide::testkit::{Rng, sphere_hull};
use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use icollide_peers::timing::{Log, configure, loadavg, median_us, timed};
use icollide_peers::to_parry_pose;
use parry3d::query::{DefaultQueryDispatcher, PersistentQueryDispatcher, RayCast};
use parry3d::shape::{Capsule, ConvexPolyhedron, HeightField, Shape};
use parry3d::utils::Array2;

/// Samples per side.
const N: usize = 1024;
/// Poses per moving shape.
const POSES: usize = 1000;
/// Rays.
const RAYS: usize = 10_000;

fn heights(rng: &mut Rng) -> Vec<f32> {
    (0..N * N)
        .map(|k| {
            let (i, j) = ((k / N) as f32, (k % N) as f32);
            let s = 12.0 * (i * 0.013).sin() * (j * 0.011).cos()
                + 8.0 * (i * 0.041 + j * 0.027).sin()
                + 3.0 * (j * 0.09).cos();
            s + 0.05 * rng.range(-1.0, 1.0)
        })
        .collect()
}

fn scale() -> Vec3 {
    Vec3::new((N - 1) as f32, 1.0, (N - 1) as f32)
}

/// Parry's bytes: heights, one status byte per cell, the struct.
fn parry_bytes(hf: &HeightField) -> usize {
    let (r, c) = hf.num_cells_ij();
    hf.heights().data().len() * 4 + r * c + std::mem::size_of::<HeightField>()
}

/// A moving shape for both crates and its poses.
struct Mover {
    name: &'static str,
    ours: SharedShape,
    parry: Box<dyn Shape>,
    poses: Vec<Pose>,
}

/// Poses along a straight path, each lowered onto the terrain: down in
/// steps of 2 cm from above until it first touches (`query::intersects`),
/// that contact height refined by bisection, then lowered by 0–5 cm.
fn path(rng: &mut Rng, field: &SharedShape, shape: &SharedShape) -> Vec<Pose> {
    let start = Vec3::new(rng.range(-300.0, 0.0), 0.0, rng.range(-300.0, 300.0));
    let step = Vec3::new(0.05, 0.0, 0.02);
    let touches = |p: &Pose| query::intersects(shape, p, field, &Pose::IDENTITY).expect("query");
    (0..POSES)
        .map(|k| {
            let rotation = Quat::from_rotation_y(0.01 * k as f32) * Quat::from_rotation_x(0.3);
            let xz = start + step * k as f32;
            let at = |y: f32| Pose::new(rotation, xz + Vec3::Y * y);
            let (mut free, mut hit) = (40.0f32, 40.0f32);
            while !touches(&at(hit)) {
                free = hit;
                hit -= 0.02;
            }
            for _ in 0..20 {
                let mid = 0.5 * (free + hit);
                if touches(&at(mid)) {
                    hit = mid;
                } else {
                    free = mid;
                }
            }
            at(hit - rng.range(0.0, 0.05))
        })
        .collect()
}

/// Our touching field triangles (distinct: a hull's pairs name a hull
/// triangle too) and touching poses.
fn ours_contacts(field: &SharedShape, m: &Mover) -> (usize, usize) {
    let (mut triangles, mut touching) = (0, 0);
    for p in &m.poses {
        let t = query::intersecting_triangles(&m.ours, p, field, &Pose::IDENTITY, ContactMode::All)
            .expect("query");
        let mut ids: Vec<u32> = t.iter().map(|p| p[1]).collect();
        ids.sort_unstable();
        ids.dedup();
        triangles += ids.len();
        touching += usize::from(!t.is_empty());
    }
    (triangles, touching)
}

/// Parry's manifolds with points and touching poses; `coherent`: one
/// workspace along the path.
fn parry_contacts(hf: &HeightField, m: &Mover, coherent: bool) -> (usize, usize) {
    let (mut pairs, mut touching) = (0, 0);
    let mut manifolds: Vec<parry3d::query::ContactManifold<(), ()>> = Vec::new();
    let mut workspace = None;
    for p in &m.poses {
        if !coherent {
            workspace = None;
            manifolds.clear();
        }
        let pos12 = to_parry_pose(p);
        DefaultQueryDispatcher
            .contact_manifolds(&pos12, hf, &*m.parry, 0.0, &mut manifolds, &mut workspace)
            .expect("parry supports height fields");
        let with_points = manifolds.iter().filter(|m| !m.points.is_empty()).count();
        pairs += with_points;
        touching += usize::from(with_points > 0);
    }
    (pairs, touching)
}

fn rays(rng: &mut Rng) -> Vec<Ray> {
    (0..RAYS)
        .map(|_| {
            let o = Vec3::new(rng.range(-480.0, 480.0), 60.0, rng.range(-480.0, 480.0));
            let elevation = rng.range(5f32.to_radians(), 90f32.to_radians());
            let azimuth = rng.range(0.0, std::f32::consts::TAU);
            let d = Vec3::new(
                azimuth.cos() * elevation.cos(),
                -elevation.sin(),
                azimuth.sin() * elevation.cos(),
            );
            Ray::new(o, d)
        })
        .collect()
}

fn check_rays(field: &SharedShape, hf: &HeightField, rays: &[Ray]) -> (usize, usize) {
    let (mut hits, mut differ) = (0, 0);
    for r in rays {
        let ours = query::ray_cast(field, &Pose::IDENTITY, r, f32::INFINITY).expect("ray");
        let pr = parry3d::query::Ray::new(r.origin, r.dir);
        let theirs = hf.cast_local_ray(&pr, f32::MAX, true);
        hits += usize::from(ours.is_some());
        let same = match (ours, theirs) {
            (Some(a), Some(b)) => (a.toi - b).abs() <= 1e-3 * (1.0 + b),
            (None, None) => true,
            _ => false,
        };
        differ += usize::from(!same);
    }
    (hits, differ)
}

/// Parry's column-major array of our row-major heights.
fn parry_heights(h: &[f32]) -> Array2<f32> {
    let data = (0..N * N).map(|k| h[(k % N) * N + k / N]).collect();
    Array2::new(N, N, data)
}

fn movers(rng: &mut Rng, field: &SharedShape) -> Vec<Mover> {
    let capsule = SharedShape::capsule(0.5, 1.0).expect("capsule");
    let hull = sphere_hull(rng, 40, 1.0);
    let parry_hull = ConvexPolyhedron::from_convex_hull(hull.polytope().expect("hull").vertices())
        .expect("parry hull");
    let capsule_poses = path(rng, field, &capsule);
    let hull_poses = path(rng, field, &hull);
    vec![
        Mover {
            name: "capsule",
            ours: capsule,
            parry: Box::new(Capsule::new_y(0.5, 0.5)),
            poses: capsule_poses,
        },
        Mover {
            name: "hull",
            ours: hull,
            parry: Box::new(parry_hull),
            poses: hull_poses,
        },
    ]
}

fn benches(c: &mut Criterion) {
    println!("[env] load average before: {}", loadavg());
    let mut rng = Rng::new(0x4e1d_f1e1d);
    let h = heights(&mut rng);
    let field = SharedShape::heightfield(h.clone(), N, N, scale()).expect("field");
    let hf = HeightField::new(parry_heights(&h), scale());
    let ours_bytes = field.heightfield().expect("field").heap_bytes()
        + std::mem::size_of::<bevy_icollide::shape::HeightField>();
    let mut lines = vec![format!(
        "bytes: ours {ours_bytes} ({:.3} per sample), parry {} ({:.3} per sample)",
        ours_bytes as f64 / (N * N) as f64,
        parry_bytes(&hf),
        parry_bytes(&hf) as f64 / (N * N) as f64
    )];
    let mut group = c.benchmark_group("heightfield");
    configure(&mut group);
    let mut logs: Vec<Log> = vec![Log::default(); 14];
    group.bench_function("build/ours", |b| {
        timed(b, &mut logs[0], || {
            SharedShape::heightfield(h.clone(), N, N, scale()).map_or(0, |s| s.reach() as usize)
        })
    });
    group.bench_function("build/ours_field_only", |b| {
        timed(b, &mut logs[10], || {
            bevy_icollide::shape::HeightField::new(h.clone(), N, N, scale())
                .map_or(0, |f| f.nrows())
        })
    });
    group.bench_function("build/clone_only", |b| {
        timed(b, &mut logs[11], || h.clone().len())
    });
    let parry_array = parry_heights(&h);
    group.bench_function("build/parry", |b| {
        timed(b, &mut logs[1], || {
            HeightField::new(parry_array.clone(), scale()).nrows()
        })
    });
    lines.push(format!(
        "build (each from a copy of its own heights array): ms ours {:.2}, parry {:.2} \
         (ours: HeightField::new alone {:.2}, the copy alone {:.2})",
        median_us(&logs[0]) / 1e3,
        median_us(&logs[1]) / 1e3,
        median_us(&logs[10]) / 1e3,
        median_us(&logs[11]) / 1e3,
    ));
    for (k, m) in movers(&mut rng, &field).iter().enumerate() {
        let ours = ours_contacts(&field, m);
        let one = parry_contacts(&hf, m, false);
        let coh = parry_contacts(&hf, m, true);
        let at = 2 + 3 * k;
        group.bench_function(format!("{}/ours", m.name), |b| {
            timed(b, &mut logs[at], || ours_contacts(&field, m).0)
        });
        group.bench_function(format!("{}/parry_one_shot", m.name), |b| {
            timed(b, &mut logs[at + 1], || parry_contacts(&hf, m, false).0)
        });
        group.bench_function(format!("{}/parry_coherent", m.name), |b| {
            timed(b, &mut logs[at + 2], || parry_contacts(&hf, m, true).0)
        });
        let ns = |l: &Log| median_us(l) * 1e3 / POSES as f64;
        lines.push(format!(
            "{}: ns/query ours {:.0}, parry one-shot {:.0}, parry coherent {:.0}; \
             touching poses ours {} / parry {} of {POSES}; triangles ours {} (touching), \
             parry manifolds with points {} (one-shot) {} (coherent)",
            m.name,
            ns(&logs[at]),
            ns(&logs[at + 1]),
            ns(&logs[at + 2]),
            ours.1,
            one.1,
            ours.0,
            one.0,
            coh.0
        ));
    }
    let rays = rays(&mut rng);
    let (hits, differ) = check_rays(&field, &hf, &rays);
    group.bench_function("ray/ours", |b| {
        timed(b, &mut logs[8], || {
            rays.iter()
                .filter(|r| {
                    query::ray_cast(&field, &Pose::IDENTITY, r, f32::INFINITY)
                        .is_ok_and(|h| h.is_some())
                })
                .count()
        })
    });
    group.bench_function("ray/parry", |b| {
        timed(b, &mut logs[9], || {
            rays.iter()
                .filter(|r| {
                    let pr = parry3d::query::Ray::new(r.origin, r.dir);
                    hf.cast_local_ray_and_get_normal(&pr, f32::MAX, true)
                        .is_some()
                })
                .count()
        })
    });
    group.finish();
    lines.push(format!(
        "ray: ns/ray ours {:.0}, parry {:.0}; {hits} of {RAYS} hit, {differ} differ (hit/miss or toi beyond 1e-3)",
        median_us(&logs[8]) * 1e3 / RAYS as f64,
        median_us(&logs[9]) * 1e3 / RAYS as f64,
    ));
    for l in lines {
        println!("[summary] {l}");
    }
    println!("[env] load average after: {}", loadavg());
}

criterion_group!(heightfield_bench, benches);
criterion_main!(heightfield_bench);
