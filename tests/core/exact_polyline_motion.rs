//! Polylines in linear casts against half-spaces, compounds and meshes,
//! and in turning casts, against independent `f64` references: each
//! segment its own reference shape, the gaps from exact point, segment,
//! triangle and box distances (none of the crate's queries), first
//! contacts scanned then bisected in time, or in closed form.

use std::f64::consts::FRAC_PI_2;

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{self, ShapeCastHit, ShapeCastOptions};
use bevy_icollide::testkit::{Rng, long_factor};
use glam::{DQuat, DVec3, Quat, Vec3};

use crate::exact_polyline::{convex_min, polyline, segment_distance, segments, solid};
use crate::implicit_reference::{Placed, RefShape, point_segment, point_triangle};

/// The first `t ∈ [0, 1]` where `gap(t) ≤ 0`: `steps` samples, then 50
/// bisections of the first step that reaches 0.
pub(crate) fn first_contact(gap: impl Fn(f64) -> f64, steps: u32) -> Option<f64> {
    let k = (0..=steps).find(|&k| gap(f64::from(k) / f64::from(steps)) <= 1e-12)?;
    let (mut lo, mut hi) = (
        f64::from(k.max(1) - 1) / f64::from(steps),
        f64::from(k) / f64::from(steps),
    );
    if k == 0 {
        return Some(0.0);
    }
    for _ in 0..50 {
        let m = 0.5 * (lo + hi);
        if gap(m) > 1e-12 {
            lo = m;
        } else {
            hi = m;
        }
    }
    Some(hi)
}

/// A polyline whose lowest point is at `y = 0` exactly (its points shifted
/// in `f32`: the lowest one's `y` becomes `0.0`, the others stay above).
fn polyline_on_zero(rng: &mut Rng) -> SharedShape {
    let line = polyline(rng, 1.0);
    let l = line.polyline().expect("line");
    let low = l.points().iter().map(|p| p.y).fold(f32::MAX, f32::min);
    let pts = l
        .points()
        .iter()
        .map(|p| Vec3::new(p.x, p.y - low, p.z))
        .collect();
    let idx = l.segments().to_vec();
    SharedShape::polyline(pts, Some(idx)).expect("shifted line")
}

/// Linear casts of polylines onto a ground (`y ≤ 0` in its frame), both
/// orders (the ground moving the other way): the first contact is when the
/// lowest vertex reaches the plane, `h_min / −(n·v)` in `f64`; the reported
/// time is never after it and within the tolerance over the speed of it.
/// Placements: random poses; identity poses with the lowest vertex exactly
/// `0, 2⁻²⁴, 4·2⁻²⁴, 10⁻³` above, falling at speed 1 (closed-form time), or
/// passing level at height 0 (grazing: touching from the start) and at
/// `10⁻³` (never touching).
#[test]
fn polylines_cast_onto_half_spaces_at_the_lowest_vertex_time() {
    let mut rng = Rng::new(4310);
    let options = ShapeCastOptions::default();
    let ground = SharedShape::half_space(Vec3::Y).expect("ground");
    let tiny = 2f32.powi(-24);
    let (mut hits, mut misses) = (0, 0);
    for i in 0..300 * long_factor() {
        let line = polyline_on_zero(&mut rng);
        let (pl, pg, vel) = match i {
            0..4 => {
                let gap = [0.0, tiny, 4.0 * tiny, 1e-3][i];
                (
                    Pose::from_translation(Vec3::Y * gap),
                    Pose::IDENTITY,
                    -Vec3::Y,
                )
            }
            4..6 => {
                let gap = [0.0, 1e-3][i - 4];
                let v = Vec3::new(2.0, 0.0, -1.0);
                (Pose::from_translation(Vec3::Y * gap), Pose::IDENTITY, v)
            }
            _ => (
                Pose::new(rng.rotation(), rng.in_cube(0.5) + Vec3::Y),
                Pose::new(rng.rotation(), rng.in_cube(0.5)),
                rng.in_cube(3.0),
            ),
        };
        let g = Placed::of(RefShape::Segment(DVec3::ZERO, DVec3::X), &pg);
        let n = g.rot * DVec3::Y;
        let h0 = segments(&line, &pl)
            .iter()
            .flatten()
            .map(|&p| n.dot(p - g.pos))
            .fold(f64::MAX, f64::min);
        let rate = n.dot(vel.as_dvec3());
        let want = if h0 <= 0.0 {
            Some(0.0)
        } else if rate < 0.0 && h0 / -rate <= 1.0 {
            Some(h0 / -rate)
        } else {
            None
        };
        if h0 > 0.0 && rate < 0.0 && (h0 / -rate - 1.0).abs() < 1e-4 {
            continue;
        }
        let hit = if i % 2 == 0 {
            query::cast_shapes((&line, &pl, vel), (&ground, &pg, Vec3::ZERO), &options)
        } else {
            query::cast_shapes((&ground, &pg, -vel), (&line, &pl, Vec3::ZERO), &options)
        }
        .expect("cast");
        let case = format!("case {i}: h0 {h0}, rate {rate}, want {want:?}, got {hit:?}");
        match (hit, want) {
            (Some(h), Some(t)) => {
                let toi = f64::from(h.time_of_impact);
                let slack = f64::from(options.tolerance) / -rate.min(-1e-9);
                assert!(toi <= t + 1e-7 && t - toi <= slack + 1e-7, "{case}");
                hits += 1;
            }
            (None, None) => misses += 1,
            _ => panic!("{case}"),
        }
    }
    assert!(hits > 60 && misses > 30, "{hits} hits, {misses} misses");
}

/// The least gap over all segment × piece pairs when the polyline has
/// moved by `vel · t` (the others still).
fn moved_gap(segs: &[[DVec3; 2]], vel: DVec3, t: f64, pair: &dyn Fn([DVec3; 2]) -> f64) -> f64 {
    segs.iter()
        .map(|&[a, b]| pair([a + vel * t, b + vel * t]))
        .fold(f64::MAX, f64::min)
}

/// Checks a linear cast against the reference first contact (each
/// segment – piece gap convex in time, so their least is scanned then
/// bisected): never after it, within the tolerance then, a miss only if
/// no contact.
fn check_cast(got: Option<ShapeCastHit>, gap: &dyn Fn(f64) -> f64, tol: f64, case: &str) -> bool {
    let first = first_contact(gap, 64);
    match (got, first) {
        (Some(h), Some(t1)) => {
            let t = f64::from(h.time_of_impact);
            assert!(
                t <= t1 + 1e-5,
                "{case}: toi {t} after the first contact {t1}"
            );
            assert!(gap(t) <= tol + 1e-4, "{case}: gap {} at toi {t}", gap(t));
            true
        }
        (None, Some(t1)) => panic!("{case}: missed the contact at {t1}"),
        (Some(h), None) => {
            let t = f64::from(h.time_of_impact);
            assert!(gap(t) <= tol + 1e-4, "{case}: hit at {t}, gap {}", gap(t));
            true
        }
        (None, None) => false,
    }
}

/// Linear casts of polylines at a compound of two posed boxes and at a
/// small mesh (a tetrahedron's four triangles, a surface) and a flat
/// height field, both orders:
/// against each segment's `f64` gap to each box (exact box distance) and
/// to each triangle (exact point–triangle distance, ternary over the
/// segment), and at a flat height field (exact segment – rectangle
/// distance). Placements: random; identity poses with a segment `2⁻²⁴`
/// above a box's top falling, and one level with the top sliding onto it
/// (grazing).
#[test]
fn polylines_cast_at_compounds_and_meshes_stop_at_the_first_contact() {
    let mut rng = Rng::new(4311);
    let options = ShapeCastOptions::default();
    let tol = f64::from(options.tolerance);
    let tet: Vec<Vec3> = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]
        .into_iter()
        .map(|p| p * 0.8 - 0.2)
        .collect();
    let tris = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let mesh = SharedShape::trimesh(tet.clone(), tris.clone()).expect("mesh");
    let half = Vec3::new(0.3, 0.2, 0.25);
    let field =
        SharedShape::heightfield(vec![0.0; 16], 4, 4, Vec3::new(2.0, 1.0, 2.0)).expect("field");
    let (mut hits, mut cases) = (0, 0);
    for i in 0..24 * long_factor() {
        let special = i < 4;
        let (line, pl, vel) = if special {
            let top = half.y + if i % 2 == 0 { 2f32.powi(-24) } else { 0.0 };
            let pts = vec![Vec3::new(-0.1, top, 0.0), Vec3::new(0.2, top, 0.1)];
            let line = SharedShape::polyline(pts, None).expect("segment");
            let (start, vel) = if i % 2 == 0 {
                (Vec3::ZERO, -Vec3::Y)
            } else {
                (Vec3::X * -1.0, Vec3::X * 2.0)
            };
            (line, Pose::from_translation(start), vel)
        } else {
            let start = rng.unit_vector() * rng.range(1.6, 2.2);
            (
                polyline(&mut rng, 1.0),
                Pose::new(rng.rotation(), start),
                -start + rng.in_cube(0.4),
            )
        };
        let segs = segments(&line, &pl);
        let v = vel.as_dvec3();
        // The compound: box 0 at the identity in special cases.
        let pieces: Vec<CompoundPiece> = (0..2)
            .map(|k| CompoundPiece {
                pose: if special && k == 0 {
                    Pose::IDENTITY
                } else {
                    Pose::new(rng.rotation(), rng.in_cube(0.4) + Vec3::X * 0.6)
                },
                shape: SharedShape::cuboid(if k == 0 { half } else { rng.vec(0.1, 0.3) })
                    .expect("cuboid"),
            })
            .collect();
        let compound = SharedShape::compound(pieces.clone()).expect("compound");
        let pc = if special {
            Pose::IDENTITY
        } else {
            Pose::new(rng.rotation(), rng.in_cube(0.2))
        };
        let boxes: Vec<Placed> = pieces
            .iter()
            .map(|p| solid(&p.shape, &pc.mul(&p.pose)))
            .collect();
        let to_boxes = |sg: [DVec3; 2]| {
            boxes
                .iter()
                .map(|b| segment_distance(sg, b))
                .fold(f64::MAX, f64::min)
        };
        let gap = |t: f64| moved_gap(&segs, v, t, &to_boxes);
        let got = cast(&line, &pl, vel, &compound, &pc, i, &options);
        hits += usize::from(check_cast(got, &gap, tol, &format!("compound {i}")));
        // The mesh (special cases: the tetrahedron at the identity, the
        // segment `2⁻²⁴` above / level with its top vertex's height).
        let pm = if special {
            Pose::from_translation(Vec3::Y * (half.y - 0.6))
        } else {
            Pose::new(rng.rotation(), rng.in_cube(0.3))
        };
        let m = Placed::of(RefShape::Segment(DVec3::ZERO, DVec3::X), &pm);
        let wt: Vec<[DVec3; 3]> = tris
            .iter()
            .map(|t: &[u32; 3]| t.map(|k| m.rot * tet[k as usize].as_dvec3() + m.pos))
            .collect();
        let to_tris = |[a, b]: [DVec3; 2]| {
            wt.iter()
                .map(|&tr| convex_min(|s| point_triangle(a + (b - a) * s, tr)))
                .fold(f64::MAX, f64::min)
        };
        let gap = |t: f64| moved_gap(&segs, v, t, &to_tris);
        let got = cast(&line, &pl, vel, &mesh, &pm, i, &options);
        hits += usize::from(check_cast(got, &gap, tol, &format!("mesh {i}")));
        // A flat field (`y = 0` over `|x|, |z| ≤ 1` in its frame, a
        // surface; special cases: at the identity, level with the segment
        // or `2⁻²⁴` below it): the exact segment – rectangle distance.
        let pf = if special {
            Pose::from_translation(Vec3::Y * half.y)
        } else {
            Pose::new(rng.rotation(), rng.in_cube(0.3))
        };
        let f = Placed::of(RefShape::Segment(DVec3::ZERO, DVec3::X), &pf);
        let rect = |x: DVec3| {
            let p = f.rot.inverse() * (x - f.pos);
            let (dx, dz) = ((p.x.abs() - 1.0).max(0.0), (p.z.abs() - 1.0).max(0.0));
            (dx * dx + p.y * p.y + dz * dz).sqrt()
        };
        let to_field = |[a, b]: [DVec3; 2]| convex_min(|s| rect(a + (b - a) * s));
        let gap = |t: f64| moved_gap(&segs, v, t, &to_field);
        let got = cast(&line, &pl, vel, &field, &pf, i, &options);
        hits += usize::from(check_cast(got, &gap, tol, &format!("field {i}")));
        cases += 3;
    }
    assert!(hits > cases / 3, "{hits} hits of {cases}");
}

/// The polyline moving at `vel` (even `i`), or the other shape at `-vel`.
fn cast(
    line: &SharedShape,
    pl: &Pose,
    vel: Vec3,
    other: &SharedShape,
    po: &Pose,
    i: usize,
    options: &ShapeCastOptions,
) -> Option<ShapeCastHit> {
    if i.is_multiple_of(2) {
        query::cast_shapes((line, pl, vel), (other, po, Vec3::ZERO), options)
    } else {
        query::cast_shapes((other, po, -vel), (line, pl, Vec3::ZERO), options)
    }
    .expect("cast")
}

/// A segment's endpoints under a turning motion, in `f64`: each local
/// point turns about the motion's center along an arc.
pub(crate) fn turned(line: &SharedShape, m: &RigidMotion, t: f64) -> Vec<[DVec3; 2]> {
    let rot0 = m.start.rotation.as_dquat();
    let c0 = rot0 * m.local_center.as_dvec3() + m.start.translation.as_dvec3();
    let rot = DQuat::from_scaled_axis(m.angvel.as_dvec3() * t) * rot0;
    let c = c0 + m.linvel.as_dvec3() * t;
    let l = line.polyline().expect("line");
    (0..l.segments().len() as u32)
        .map(|k| {
            l.segment(k)
                .map(|p| c + rot * (p.as_dvec3() - m.local_center.as_dvec3()))
        })
        .collect()
}

/// Turning casts: a polyline turning (and moving) about a random center,
/// a ball still, both orders. The ball's gap to each segment along the
/// arcs (exact point–segment distance; not convex in time): touching at
/// the reported time, never below `−10⁻⁵` at 200 samples before it (all
/// of `[0, 1]` for a miss). Closed form: a segment `[0, 1]·x` at the
/// identity turning a quarter about `z` sweeps a ball of radius `r` at
/// `0.6` along 45°: contact at angle `45° − asin(r / 0.6)`.
#[test]
fn turning_polylines_cast_at_a_ball_touch_at_the_reported_time() {
    let mut rng = Rng::new(4312);
    let options = ShapeCastOptions::default();
    let tol = f64::from(options.tolerance);
    let (mut hits, mut misses) = (0, 0);
    for i in 0..60 * long_factor() {
        let r = if i == 0 { 0.1 } else { rng.range(0.05, 0.3) };
        let ball = SharedShape::sphere(r).expect("ball");
        let (line, m, pb) = if i == 0 {
            let line = SharedShape::polyline(vec![Vec3::ZERO, Vec3::X], None).expect("seg");
            let m = RigidMotion {
                angvel: Vec3::Z * std::f32::consts::FRAC_PI_2,
                ..RigidMotion::stationary(Pose::IDENTITY)
            };
            let at = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4) * Vec3::X * 0.6;
            (line, m, Pose::from_translation(at))
        } else {
            let line = polyline(&mut rng, 1.0);
            let m = RigidMotion {
                start: Pose::new(rng.rotation(), rng.in_cube(0.5)),
                local_center: rng.in_cube(0.3),
                linvel: rng.in_cube(0.5),
                angvel: rng.unit_vector() * rng.range(0.5, 3.0),
            };
            // Mostly on the path: a point of a segment at `t = 0.5`.
            let at = if i % 3 == 0 {
                rng.unit_vector() * rng.range(0.6, 1.2)
            } else {
                let segs = turned(&line, &m, 0.5);
                let [a, b] = segs[rng.below(segs.len())];
                (a + (b - a) * f64::from(rng.range(0.1, 0.9))).as_vec3() + rng.in_cube(0.1)
            };
            (line, m, Pose::from_translation(at))
        };
        let c = pb.translation.as_dvec3();
        let gap = |t: f64| {
            turned(&line, &m, t)
                .iter()
                .map(|&[a, b]| point_segment(c, a, b))
                .fold(f64::MAX, f64::min)
                - f64::from(r)
        };
        if gap(0.0) <= 1e-5 {
            continue;
        }
        let still = RigidMotion::stationary(pb);
        let got = if i % 2 == 0 {
            query::cast_shapes_nonlinear((&line, &m), (&ball, &still), &options)
        } else {
            query::cast_shapes_nonlinear((&ball, &still), (&line, &m), &options)
        }
        .expect("cast");
        let end = got.map_or(1.0, |h| f64::from(h.time_of_impact));
        for k in 0..200 {
            let t = end * f64::from(k) / 200.0;
            assert!(
                gap(t) > -1e-5,
                "case {i}: missed at {t} ({}), got {got:?}",
                gap(t)
            );
        }
        if let Some(h) = got {
            let t = f64::from(h.time_of_impact);
            assert!(gap(t) <= tol + 1e-5, "case {i}: gap {} at {t}", gap(t));
            if i == 0 {
                let want = (FRAC_PI_2 / 2.0 - (0.1f64 / 0.6).asin()) / FRAC_PI_2;
                assert!((t - want).abs() <= 1e-4, "quarter turn: {t} vs {want}");
            }
            hits += 1;
        } else {
            assert!(i != 0, "the quarter turn missed");
            misses += 1;
        }
    }
    assert!(hits > 15 && misses > 3, "{hits} hits, {misses} misses");
}
