//! Spheres and capsules (R) against boxes, hulls, spheres, capsules,
//! cylinders and cones, and against meshes under both trees: intersects,
//! distance with witnesses, penetration depth and normal, linear and
//! turning casts, through the shared checks of `support_checks.rs` on the
//! independent `f64` reference of `implicit_reference.rs` (analytic
//! supports, exact point distances, the separation maximised over
//! directions). Seeded random pairs (either order), `2⁻²⁰ … 2²⁰` scales
//! `2^(k+10)` from the origin, and identity poses: a ball and a lying
//! capsule on a cube at gaps `0, ±2⁻²⁴, 4·2⁻²⁴, ±10⁻³`, `2²⁰` out.

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::query;
use bevy_icollide::testkit::Rng;
use glam::{Quat, Vec3};

use crate::exact_implicit::{BAND, TOL, any_convex, check_pair};
use crate::support_checks::{against_meshes, random_pairs, scaled_far, shape_casts};

/// A sphere or a capsule at `scale`.
fn rounded(rng: &mut Rng, scale: f32) -> SharedShape {
    if rng.bool() {
        SharedShape::sphere(rng.range(0.1, 0.4) * scale).expect("sphere")
    } else {
        let (r, h) = (rng.range(0.1, 0.3), rng.range(0.05, 0.6));
        SharedShape::capsule(r * scale, h * scale).expect("capsule")
    }
}

#[test]
fn rounded_kinds_against_every_convex_kind_match_the_f64_separation() {
    let (apart, overlapping) = random_pairs(4991, rounded, any_convex);
    assert!(
        apart > 60 && overlapping > 60,
        "{apart} apart, {overlapping} overlapping"
    );
    scaled_far(4992, &[-20, -10, 0, 10, 20], rounded, 0.6);
}

#[test]
fn rounded_kinds_against_meshes_under_both_trees() {
    against_meshes(4993, rounded, 0.8, true);
}

#[test]
fn rounded_kind_shape_casts_match_the_f64_first_contact() {
    let (hits, checked) = shape_casts(4994, 60, rounded, any_convex, 0.3);
    assert!(hits > 10 && checked > 8, "{hits} hits, {checked} checked");
}

/// A ball (radius `0.25`) and a capsule lying along `x` (radius `0.25`)
/// over a unit cube at the identity, gaps `0, ±2⁻²⁴, 4·2⁻²⁴, ±10⁻³`: the
/// distance the gap, intersecting iff the gap is at most 0 outside the
/// band; the same `2²⁰` from the origin (against the reference).
#[test]
fn rounded_kinds_on_a_cube_at_tiny_gaps() {
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    let ball = SharedShape::sphere(0.25).expect("ball");
    let capsule = SharedShape::capsule(0.25, 0.6).expect("capsule");
    let lying = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let tiny = 2f32.powi(-24);
    for far in [0.0, 2f32.powi(20)] {
        let pc = Pose::from_translation(Vec3::new(far, -far, far));
        for gap in [0.0, tiny, -tiny, 4.0 * tiny, 1e-3, -1e-3] {
            for (s, rot) in [(&ball, Quat::IDENTITY), (&capsule, lying)] {
                let at = pc.translation + Vec3::new(0.1, 0.75 + gap, -0.2);
                let ps = Pose::new(rot, at);
                let gap = f64::from(at.y - pc.translation.y) - 0.75;
                let got = check_pair((s, &ps), (&cube, &pc), BAND, TOL);
                check_pair((&cube, &pc), (s, &ps), BAND, TOL);
                if far == 0.0 {
                    let d = f64::from(query::distance(s, &ps, &cube, &pc).expect("distance"));
                    assert!((d - gap.max(0.0)).abs() <= 1e-6, "gap {gap}: {d}");
                    let want = (gap.abs() > BAND).then_some(gap > 0.0);
                    assert_eq!(got, want, "gap {gap}");
                }
            }
        }
    }
}
