//! Distances of sharp cylinders and cones to cylinders, cones and hulls at
//! the crate's accuracy (the closest-feature path of `query/curved.rs`),
//! against the independent `f64` reference of `implicit_reference.rs`
//! and, for the placements built to hit one pair of features, the closed
//! form: side by side with parallel axes, axes crossing, a rim on a side,
//! a rim over a cap, a side lying on a cap, at gaps down to `2⁻²⁴` and
//! touching, at the origin and `2¹⁰`, `2¹⁶` sizes out.
//!
//! The tolerance is the crate's: `TIGHT` of the size (GJK stops within
//! `2·10⁻⁶` of the CSO's scale), plus the rounding of `f32` positions
//! far out; witnesses must lie on their shapes within it.

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::query;
use bevy_icollide::testkit::{Rng, long_factor, sphere_hull};
use glam::{Quat, Vec3};

use crate::implicit_reference::{Placed, separation};

/// Distances agree within this fraction of the pair's size.
const TIGHT: f64 = 2e-5;

fn size(a: &SharedShape, b: &SharedShape) -> f64 {
    f64::from(a.fixed_cube().radius.max(b.fixed_cube().radius))
}

/// The pair's distance and witnesses against the reference separation
/// (and `expect`, a closed form, when given), within `TIGHT` of the size
/// plus `slack`.
fn check(
    (a, pa): (&SharedShape, &Pose),
    (b, pb): (&SharedShape, &Pose),
    expect: Option<f64>,
    slack: f64,
) {
    let tol = TIGHT * size(a, b) + slack;
    let c = query::closest_points(a, pa, b, pb).expect("closest points");
    let d = f64::from(c.distance);
    let (ra, rb) = (Placed::new(a, pa), Placed::new(b, pb));
    let (sv, _) = separation(&ra, &rb, &[c.point_b - c.point_a]);
    let what = format!(
        "{} at {pa:?} / {} at {pb:?}: distance {d}, reference {sv}, expected {expect:?}",
        a.kind_name(),
        b.kind_name()
    );
    assert!((d - sv.max(0.0)).abs() <= tol, "reference: {what}");
    if let Some(e) = expect {
        assert!((d - e.max(0.0)).abs() <= tol, "closed form: {what}");
    }
    if !c.intersecting {
        let (xa, xb) = (c.point_a.as_dvec3(), c.point_b.as_dvec3());
        assert!(
            ra.distance(xa) <= tol && rb.distance(xb) <= tol,
            "witnesses off the shapes ({}, {}): {what}",
            ra.distance(xa),
            rb.distance(xb)
        );
        assert!((xa.distance(xb) - d).abs() <= tol, "witness gap: {what}");
    }
}

/// The bench's scenes and more: sharp cylinders and cones against each
/// other and against hulls of 40 points, centres `0.3 … 2.5` apart, both
/// orders.
#[test]
fn curved_pairs_match_the_f64_separation_at_the_crates_accuracy() {
    let mut rng = Rng::new(4331);
    let hull = sphere_hull(&mut rng, 40, 0.5);
    let cyl = SharedShape::cylinder(0.5, 1.0).expect("cylinder");
    let cone = SharedShape::cone(0.5, 1.0).expect("cone");
    let thin = SharedShape::cylinder(0.2, 1.4).expect("cylinder");
    let pairs = [
        (&cyl, &cyl),
        (&cone, &hull),
        (&cone, &cyl),
        (&cone, &cone),
        (&thin, &cyl),
        (&cyl, &hull),
    ];
    for _ in 0..50 * long_factor() {
        for (a, b) in pairs {
            let pa = Pose::new(rng.rotation(), Vec3::ZERO);
            let pb = Pose::new(rng.rotation(), rng.unit_vector() * rng.range(0.3, 2.5));
            let (first, second) = if rng.bool() {
                ((a, &pa), (b, &pb))
            } else {
                ((b, &pb), (a, &pa))
            };
            check(first, second, None, 0.0);
        }
    }
}

/// Placements for one pair of features each, with their closed-form
/// distance at `gap`: sides with parallel axes, axes crossing at right
/// angles, a rim on a lying cylinder's side, a tilted cylinder's rim over
/// a cap, a lying cylinder on a cap, a cone's side on a cube's edge.
fn featured(gap: f32) -> Vec<(SharedShape, Pose, SharedShape, Pose, f64)> {
    let cyl = SharedShape::cylinder(0.5, 1.0).expect("cylinder");
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cuboid");
    let cone = SharedShape::cone(0.5, 1.0).expect("cone");
    let lying = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2); // axis along Z
    let tilt = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
    let s2 = std::f32::consts::FRAC_1_SQRT_2;
    let g = f64::from(gap);
    let at = |r: Quat, p: Vec3| Pose::new(r, p);
    let id = Pose::IDENTITY;
    // The cone's side leans at `atan(r / 2h)`; its outward normal at
    // azimuth +X is (2h, r)/|(2h, r)| in (x, y).
    let n = Vec3::new(1.0, 0.5, 0.0).normalize();
    // A cube turned so that an edge (along Z) points at the cone, along
    // -n: the cube's corner direction (1, 1)/√2 in its own XY onto -n.
    let turn = Quat::from_rotation_z((-n.y).atan2(-n.x) - std::f32::consts::FRAC_PI_4);
    // The side point at mid-height: (r/2, 0) lies on the side.
    let touch = Vec3::new(0.25, 0.0, 0.0);
    let edge_centre = touch + n * (gap + 0.5 * std::f32::consts::SQRT_2);
    vec![
        (
            cyl.clone(),
            id,
            cyl.clone(),
            at(Quat::IDENTITY, Vec3::new(1.0 + gap, 0.1, 0.0)),
            g,
        ),
        (
            cyl.clone(),
            id,
            cyl.clone(),
            at(lying, Vec3::new(1.0 + gap, 0.0, 0.0)),
            g,
        ),
        (
            cyl.clone(),
            id,
            cyl.clone(),
            at(
                lying,
                Vec3::new(0.5 + s2 * (0.5 + gap), 0.5 + s2 * (0.5 + gap), 0.0),
            ),
            g,
        ),
        (
            cyl.clone(),
            id,
            cyl.clone(),
            at(tilt, Vec3::new(0.0, 0.5 + s2 + gap, 0.0)),
            g,
        ),
        (
            cyl.clone(),
            id,
            cyl.clone(),
            at(lying, Vec3::new(0.2, 1.0 + gap, 0.0)),
            g,
        ),
        (cone, id, cube, at(turn, edge_centre), g),
    ]
}

/// [`featured`] placements at gaps from `0.25` down to `2⁻²⁴`, touching and
/// overlapping by `2⁻²⁴`, at the origin and moved `2¹⁰`, `2¹⁶` out (where
/// the tolerance adds the rounding of the positions).
#[test]
fn featured_placements_at_grazing_gaps_and_far_out() {
    let tiny = 2f32.powi(-24);
    for gap in [0.25, 1e-3, 4.0 * tiny, tiny, 0.0, -tiny] {
        for (a, pa, b, pb, expect) in featured(gap) {
            for k in [0, 10, 16] {
                let far = if k == 0 {
                    Vec3::ZERO
                } else {
                    Vec3::new(1.0, -1.0, 0.5) * 2f32.powi(k)
                };
                let slack =
                    8.0 * f64::from(f32::EPSILON) * f64::from(far.abs().max_element() + 2.0);
                let (pa, pb) = (
                    Pose::new(pa.rotation, pa.translation + far),
                    Pose::new(pb.rotation, pb.translation + far),
                );
                check((&a, &pa), (&b, &pb), Some(expect), slack);
                check((&b, &pb), (&a, &pa), Some(expect), slack);
            }
        }
    }
}
