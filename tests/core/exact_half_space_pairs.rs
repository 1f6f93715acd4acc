//! Half-spaces against half-spaces and against compounds (distance,
//! closest points, depth), against closed-form `f64` references.
//!
//! Two half-spaces `{n_a · (x − t_a) ≤ 0}` and `{n_b · (x − t_b) ≤ 0}`
//! meet unless their normals are opposite and B's plane lies beyond A's:
//! then they are apart by the gap `g = n_a · (t_b − t_a)` (`f64` normals
//! turned by the `f64` rotations), and overlap by `−g` along `n_a` when
//! `g ≤ 0`; with any other normals the overlap is unbounded (no depth).
//! `f32` rotations cannot make two normals exactly opposite, so "opposite"
//! is the crate's documented resolution: the `f64` normals' cross product
//! at most `2⁻²⁰` (cases within a factor 4 of it are skipped). A compound's
//! signed distance to a plane is its lowest piece's, `−h(−n) − c` from the
//! analytic support functions of `implicit_reference.rs`.

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{self, ShapeCastOptions, cast_shapes, cast_shapes_nonlinear};
use bevy_icollide::testkit::{Rng, long_factor};
use glam::{DVec3, Quat, Vec3};

use crate::exact_half_space::{any_kind, plane, signed};
use crate::implicit_reference::Placed;

/// The closed-form reference of two half-spaces: `None` when the normals
/// are neither clearly opposite nor clearly not; else whether opposite, and
/// the gap along A's normal.
fn two_planes(a: (DVec3, DVec3), b: (DVec3, DVec3)) -> Option<(bool, f64)> {
    let ((na, ta), (nb, tb)) = (a, b);
    let cross = na.cross(nb).length();
    let limit = 2f64.powi(-20);
    if cross > limit / 4.0 && cross < limit * 4.0 {
        return None;
    }
    let opposite = na.dot(nb) < 0.0 && cross <= limit;
    Some((opposite, na.dot(tb - ta)))
}

/// A half-space at a pose, and its `f64` plane normal and point.
fn placed(normal: Vec3, pose: Pose) -> (SharedShape, Pose, (DVec3, DVec3)) {
    let h = SharedShape::half_space(normal).expect("half-space");
    let (n, _) = plane(&h, &pose);
    (h, pose, (n, pose.translation.as_dvec3()))
}

/// Checks every one-shot query of two half-spaces (both orders) and their
/// linear casts against the closed form; `Some(apart)` when decided.
fn check_two(a: (&SharedShape, &Pose), b: (&SharedShape, &Pose), tol: f64) -> Option<bool> {
    let (pa, pb) = (*a.1, *b.1);
    let (na, _) = plane(a.0, &pa);
    let (nb, _) = plane(b.0, &pb);
    let (ta, tb) = (pa.translation.as_dvec3(), pb.translation.as_dvec3());
    let (opposite, gap) = two_planes((na, ta), (nb, tb))?;
    let what = format!("normals {na} {nb}, gap {gap}, opposite {opposite}");
    let decided = !opposite || gap.abs() > tol;
    let apart = opposite && gap > 0.0;
    for (x, y) in [(a, b), (b, a)] {
        let hit = query::intersects(x.0, x.1, y.0, y.1).expect("intersects");
        if decided {
            assert_eq!(hit, !apart, "intersects: {what}");
        }
        let c = query::closest_points(x.0, x.1, y.0, y.1).expect("closest");
        let want = if apart { gap } else { 0.0 };
        assert!(
            (f64::from(c.distance) - want).abs() <= tol,
            "distance {c:?}: {what}"
        );
        // Apart: each witness on its plane; meeting: each in both (a
        // point on both planes moves by `1/|n_a × n_b|` times the
        // normals' `f32` rounding per unit of its distance).
        let reach = f64::from((c.point_a - x.1.translation).length());
        let wtol = tol + 1e-6 * reach / na.cross(nb).length().max(1e-3);
        let height = |p: Vec3, (s, ps): (&SharedShape, &Pose)| {
            let (n, off) = plane(s, ps);
            n.dot(p.as_dvec3()) - off
        };
        for (p, own) in [(c.point_a, x), (c.point_b, y)] {
            let h = [height(p, own), height(p, x), height(p, y)];
            let ok = if apart {
                h[0].abs() <= wtol
            } else {
                h[1] <= wtol && h[2] <= wtol
            };
            assert!(ok, "witness {p} at {h:?} from the planes: {what}");
        }
        let pen = query::penetration(x.0, x.1, y.0, y.1);
        match (opposite, pen) {
            (true, Ok(Some(p))) if gap <= tol => {
                assert!(
                    (f64::from(p.depth) + gap).abs() <= tol,
                    "depth {p:?}: {what}"
                );
                let (nx, _) = plane(x.0, x.1);
                assert!(p.normal.as_dvec3().distance(nx) <= 1e-6, "normal: {what}");
            }
            (true, Ok(None)) if gap >= -tol => {}
            // Unbounded overlap: a clear error, never a made-up depth.
            (false, Err(_)) => {}
            (_, pen) => panic!("penetration {pen:?}: {what}"),
        }
    }
    decided.then_some(apart)
}

/// Seeded pairs (random normals and poses: overlapping, unbounded; B the
/// negated normal at A's rotation: exactly opposite in `f32`; B's normal
/// turned half a turn by B's own rotation: opposite to within rounding)
/// and rounding-breaking ones: identity poses with gaps `0, ±2⁻²⁴,
/// 4·2⁻²⁴, ±10⁻³`, B slid along the plane, the same `2²⁰` and `2⁴⁰` from
/// the origin, and normals of any length.
#[test]
fn half_spaces_against_half_spaces_match_the_closed_form() {
    let mut rng = Rng::new(4701);
    let (mut apart, mut meeting) = (0, 0);
    let tiny = 2f32.powi(-24);
    for far in [0.0, 2f32.powi(20), 2f32.powi(40)] {
        for gap in [0.0, tiny, -tiny, 4.0 * tiny, 1e-3, -1e-3] {
            let base = Vec3::new(far, -far, far);
            let slide = Vec3::new(3.0, 0.0, -2.0);
            let a = placed(Vec3::Y * 2.0, Pose::from_translation(base));
            let b = placed(
                -Vec3::Y,
                Pose::from_translation(base + Vec3::Y * gap + slide),
            );
            let diff = b.1.translation.as_dvec3() - a.1.translation.as_dvec3();
            let tol = if far == 0.0 {
                0.0
            } else {
                1e-6 * diff.length()
            };
            let got = check_two((&a.0, &a.1), (&b.0, &b.1), tol);
            if far == 0.0 {
                assert_eq!(got, (gap != 0.0).then_some(gap > 0.0), "gap {gap}");
            }
        }
    }
    for i in 0..300 * long_factor() {
        let na = rng.unit_vector() * rng.range(0.5, 3.0);
        let pa = Pose::new(rng.rotation(), rng.in_cube(2.0));
        let (nb, rb) = match i % 3 {
            0 => (rng.unit_vector(), rng.rotation()),
            1 => (-na * rng.range(0.5, 3.0), pa.rotation),
            _ => {
                let side = na.any_orthonormal_vector();
                let turn = Quat::from_axis_angle(pa.rotation * side, std::f32::consts::PI);
                (na, (turn * pa.rotation).normalize())
            }
        };
        let (ha, pa, _) = placed(na, pa);
        let offset = rng.in_cube(1.0);
        let (hb, pb, _) = placed(nb, Pose::new(rb, pa.translation + offset));
        let diff = pb.translation.as_dvec3() - pa.translation.as_dvec3();
        let tol = 1e-6 * diff.length();
        match check_two((&ha, &pa), (&hb, &pb), tol) {
            Some(true) => apart += 1,
            Some(false) => meeting += 1,
            None => {}
        }
        half_space_casts((&ha, &pa), (&hb, &pb), rng.in_cube(2.0));
    }
    assert!(
        apart > 25 && meeting > 150,
        "{apart} apart, {meeting} meeting"
    );
}

/// Linear casts of two half-spaces (B moving at `vel`): touching at 0 when
/// they meet; opposite and apart, the closed-form time `g / −(n_a · v)`
/// when that is within `[0, 1]`, never after it and within the tolerance
/// over the speed. Turning casts about B's normal (the plane slides in
/// itself; the gap stays linear in time): the same time.
fn half_space_casts(a: (&SharedShape, &Pose), b: (&SharedShape, &Pose), vel: Vec3) {
    let (na, _) = plane(a.0, a.1);
    let (nb, _) = plane(b.0, b.1);
    let (ta, tb) = (a.1.translation.as_dvec3(), b.1.translation.as_dvec3());
    let Some((opposite, gap)) = two_planes((na, ta), (nb, tb)) else {
        return;
    };
    let options = ShapeCastOptions::default();
    let rate = na.dot(vel.as_dvec3());
    let want = match (opposite, gap) {
        (false, _) => Some(0.0),
        (true, g) if g <= 0.0 => Some(0.0),
        (true, g) if rate < 0.0 && g / -rate < 1.0 => Some(g / -rate),
        _ => None,
    };
    if opposite && gap.abs() < 1e-6 || (want.is_some_and(|t| (t - 1.0).abs() < 1e-4)) {
        return;
    }
    let spin = RigidMotion {
        angvel: nb.as_vec3() * 2.0,
        ..RigidMotion::linear(*b.1, vel)
    };
    let still = RigidMotion::stationary(*a.1);
    let casts = [
        cast_shapes((a.0, a.1, Vec3::ZERO), (b.0, b.1, vel), &options),
        cast_shapes_nonlinear((a.0, &still), (b.0, &spin), &options),
    ];
    for (k, hit) in casts.into_iter().enumerate() {
        let hit = hit.expect("cast");
        let case = format!("cast {k}: want {want:?}, got {hit:?}, gap {gap}, rate {rate}");
        match (hit, want) {
            (None, None) => {}
            (Some(h), Some(t)) => {
                let toi = f64::from(h.time_of_impact);
                let slack = 2.0 * f64::from(options.tolerance) / -rate.min(-1e-9);
                assert!(toi <= t + 1e-7 && t - toi <= slack + 1e-7, "{case}");
            }
            _ => panic!("{case}"),
        }
    }
}

/// A compound of two or three convex pieces of every kind, posed at
/// random, over a half-space posed at random (both orders): distance, the
/// witnesses (on the plane, on the lowest piece), the depth and normal,
/// `intersects`, all the lowest piece's `f64` signed distance. Identity
/// poses: a compound of two unit cubes lifted `0, ±2⁻²⁴, 4·2⁻²⁴, ±10⁻³`
/// (the distance exactly the lift), the same `2²⁰` and `2⁴⁰` out.
#[test]
fn half_spaces_against_compounds_match_the_lowest_piece() {
    let mut rng = Rng::new(4702);
    let (mut apart, mut overlapping) = (0, 0);
    for i in 0..200 * long_factor() {
        let n = rng.unit_vector() * rng.range(0.5, 3.0);
        let ph = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let h = SharedShape::half_space(n).expect("half-space");
        let pieces: Vec<CompoundPiece> = (0..2 + i % 2)
            .map(|_| CompoundPiece {
                pose: Pose::new(rng.rotation(), rng.in_cube(0.8)),
                shape: any_kind(&mut rng),
            })
            .collect();
        let compound = SharedShape::compound(pieces).expect("compound");
        let pc = Pose::new(rng.rotation(), ph.translation + rng.in_cube(1.5));
        match check_compound((&h, &ph), (&compound, &pc), (1e-6, 1e-5)) {
            Some(true) => apart += 1,
            Some(false) => overlapping += 1,
            None => {}
        }
    }
    assert!(apart > 50 && overlapping > 50, "{apart} / {overlapping}");
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    let piece = |x: f32| CompoundPiece {
        pose: Pose::from_translation(Vec3::X * x),
        shape: cube.clone(),
    };
    let pair = SharedShape::compound(vec![piece(-0.5), piece(0.5)]).expect("compound");
    let h = SharedShape::half_space(Vec3::Y).expect("ground");
    let tiny = 2f32.powi(-24);
    for far in [0.0, 2f32.powi(20), 2f32.powi(40)] {
        for lift in [0.0, tiny, -tiny, 4.0 * tiny, 1e-3, -1e-3] {
            let ph = Pose::from_translation(Vec3::new(far, 0.0, -far));
            let pc = Pose::from_translation(Vec3::new(far + 3.0, 0.5 + lift, -far));
            let got = check_compound((&h, &ph), (&pair, &pc), (0.0, 0.0));
            assert_eq!(got, (lift != 0.0).then_some(lift > 0.0), "lift {lift}");
        }
    }
}

/// One half-space – compound scene, both orders; `Some(apart)` when clear
/// of the band.
fn check_compound(
    (h, ph): (&SharedShape, &Pose),
    (c, pc): (&SharedShape, &Pose),
    (band, tol): (f64, f64),
) -> Option<bool> {
    let p = plane(h, ph);
    let pieces = c.compound().expect("compound").pieces();
    let per: Vec<f64> = pieces
        .iter()
        .map(|x| signed(&x.shape, &pc.mul(&x.pose), p))
        .collect();
    let want = per.iter().copied().fold(f64::MAX, f64::min);
    let what = format!("plane {p:?}, pieces {per:?}");
    for flip in [false, true] {
        let ((s1, p1), (s2, p2)) = if flip {
            ((c, pc), (h, ph))
        } else {
            ((h, ph), (c, pc))
        };
        let hit = query::intersects(s1, p1, s2, p2).expect("intersects");
        if want.abs() > band {
            assert_eq!(hit, want < 0.0, "intersects: {what}");
        }
        let cp = query::closest_points(s1, p1, s2, p2).expect("closest");
        let d = f64::from(cp.distance);
        assert!((d - want.max(0.0)).abs() <= tol, "distance {d}: {what}");
        let (on_plane, on_shape) = if flip {
            (cp.point_b, (cp.point_a, cp.pieces[0]))
        } else {
            (cp.point_a, (cp.point_b, cp.pieces[1]))
        };
        // Far out, the witnesses' `f32` coordinates round.
        let wtol = tol + 1e-6 * (1.0 + f64::from(pc.translation.length()));
        let off = p.0.dot(on_plane.as_dvec3()) - p.1;
        assert!(off.abs() <= wtol, "plane witness off by {off}: {what}");
        let named = &pieces[on_shape.1 as usize];
        let placed = Placed::new(&named.shape, &pc.mul(&named.pose));
        let out = placed.distance(on_shape.0.as_dvec3());
        assert!(out <= wtol, "piece witness off by {out}: {what}");
        if want > 0.0 {
            let gap = per[on_shape.1 as usize];
            assert!(gap - want <= wtol, "not the lowest piece: {what}");
        }
        let pen = query::penetration(s1, p1, s2, p2).expect("penetration");
        match pen {
            Some(x) if want <= band => {
                let depth = f64::from(x.depth);
                assert!((depth + want).abs() <= tol, "depth {depth}: {what}");
                let sign = if flip { -1.0 } else { 1.0 };
                assert!(x.normal.as_dvec3().distance(p.0 * sign) <= 1e-6);
            }
            None if want >= -band => {}
            other => panic!("penetration {other:?}: {what}"),
        }
    }
    (want.abs() > band).then_some(want > 0.0)
}
