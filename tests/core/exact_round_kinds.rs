//! Rounded boxes and hulls, segments and triangles (`RoundConvex`) in
//! every query, against the independent `f64` reference of
//! `implicit_reference.rs` (a rounded shape as its core's support plus the
//! radius and its core's exact distance minus the radius; a segment or a
//! triangle by its corners and exact point distances): seeded random
//! placements against every convex kind, meshes under both trees,
//! compounds and a world of every kind, and rounding-breaking ones
//! (identity poses, shared vertices, touching, offsets of `2⁻²⁴`, scenes
//! scaled from `2⁻²⁰` to `2²⁰` far from the origin). Tolerances as in
//! `exact_implicit.rs`.

use bevy_icollide::collider::{CompoundPiece, ShapeError, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::query::{self, Ray};
use bevy_icollide::testkit::{Rng, long_factor};
use glam::{Quat, Vec3};

use crate::exact_implicit::{BAND, TOL, any_convex, check_pair};
use crate::support_checks::{
    NormalCheck, against_meshes, check_ray, compounds, random_pairs, scaled_far, shape_casts,
    world_of_kinds,
};

/// The normal of a hit faces the ray and points out of the solid.
const NORMAL: NormalCheck = NormalCheck {
    facing: true,
    out: 0.5,
};

/// A rounded box or hull, a segment or a triangle, at `scale`.
pub(crate) fn round_kind(rng: &mut Rng, scale: f32) -> SharedShape {
    let radius = rng.range(0.02, 0.15) * scale;
    loop {
        let s = match rng.below(4) {
            0 => SharedShape::round_cuboid(rng.vec(0.05, 0.3) * scale, radius),
            1 => {
                let pts: Vec<Vec3> = (0..10)
                    .map(|_| rng.unit_vector() * rng.range(0.15, 0.3) * scale)
                    .collect();
                SharedShape::round_convex_hull(&pts, radius)
            }
            2 => SharedShape::segment(rng.in_cube(0.4) * scale, rng.in_cube(0.4) * scale),
            _ => SharedShape::triangle(
                rng.in_cube(0.45) * scale,
                rng.in_cube(0.45) * scale,
                rng.in_cube(0.45) * scale,
            ),
        };
        if let Ok(s) = s {
            return s;
        }
    }
}

fn any_kind(rng: &mut Rng) -> SharedShape {
    if rng.bool() {
        round_kind(rng, 1.0)
    } else {
        any_convex(rng)
    }
}

#[test]
fn round_kinds_against_every_convex_kind_match_the_f64_separation() {
    let (apart, overlapping) = random_pairs(4401, round_kind, any_kind);
    assert!(
        apart > 60 && overlapping > 40,
        "{apart} apart, {overlapping} overlapping"
    );
}

/// Touching, grazing and `2⁻²⁴` offsets with identity poses: a rounded
/// box on a rounded box, on a box, a triangle on a rounded box sharing
/// its corner with a box's, a segment along a rounded box's face; the
/// same shape at the same pose.
#[test]
fn round_kinds_touching_grazing_and_tiny_offsets() {
    let h = Vec3::splat(0.4);
    let rbox = SharedShape::round_cuboid(h, 0.1).expect("round cuboid");
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cuboid");
    // Flat shapes lying in the plane y = 0, to be put on top.
    let tri = SharedShape::triangle(Vec3::ZERO, Vec3::X, Vec3::Z).expect("triangle");
    let seg = SharedShape::segment(-Vec3::X * 0.3, Vec3::X * 0.3).expect("segment");
    let tiny = 2f32.powi(-24);
    for gap in [0.0, tiny, -tiny, 4.0 * tiny, 1e-3, -1e-3, 0.2, -0.2] {
        let up = |y: f32| Pose::new(Quat::IDENTITY, Vec3::Y * y);
        let cases = [
            (&rbox, &rbox, up(1.0 + gap), 1.0),
            (&rbox, &cube, up(1.0 + gap), 1.0),
            (&rbox, &tri, up(0.5 + gap), 1.0),
            (
                &cube,
                &tri,
                Pose::new(Quat::IDENTITY, Vec3::splat(0.5) + Vec3::Y * gap),
                1.0,
            ),
            (&rbox, &seg, up(0.5 + gap), 1.0),
        ];
        for (a, b, pb, _) in cases {
            let pa = Pose::IDENTITY;
            check_pair((a, &pa), (b, &pb), BAND, TOL);
            let d = query::distance(a, &pa, b, &pb).expect("distance");
            assert!(
                (f64::from(d) - f64::from(gap).max(0.0)).abs() <= TOL,
                "{} / {} gap {gap}: {d}",
                a.kind_name(),
                b.kind_name()
            );
        }
    }
    for s in [&rbox, &tri, &seg] {
        let p = Pose::IDENTITY;
        assert!(query::intersects(s, &p, s, &p).expect("query"));
    }
    check_pair(
        (&rbox, &Pose::IDENTITY),
        (&rbox, &Pose::IDENTITY),
        BAND,
        TOL,
    );
}

/// Scenes scaled by `2^k` placed `2^(k+10)` from the origin.
#[test]
fn round_kinds_scaled_far_from_the_origin() {
    scaled_far(4402, &[-20, -10, 0, 10, 20], round_kind, 0.6);
}

/// Rays from around, from far away, from inside: the hit on the surface
/// where sphere tracing on the exact distance first meets it, the normal
/// outward; a miss never meets it (or grazes within the tolerance).
#[test]
fn round_kind_ray_casts_match_sphere_tracing() {
    let mut rng = Rng::new(4403);
    let (mut hits, mut misses) = (0, 0);
    for i in 0..1000 * long_factor() {
        let s = round_kind(&mut rng, 1.0);
        let pose = Pose::new(rng.rotation(), rng.in_cube(2.0));
        let (o_local, target) = match i % 3 {
            0 => (rng.in_cube(3.0), rng.in_cube(0.4)),
            1 => (rng.unit_vector() * 1e4, rng.in_cube(0.4)),
            _ => (rng.in_cube(0.05), rng.in_cube(2.0)),
        };
        let origin = pose.transform_point(o_local);
        let dir = pose.transform_vector(target - o_local) * rng.range(0.5, 2.0);
        let ray = Ray::new(origin, dir);
        let got = query::ray_cast(&s, &pose, &ray, f32::INFINITY).expect("ray");
        let (hit, miss) = check_ray((&s, &pose), (&ray, f32::INFINITY), got, &NORMAL);
        (hits, misses) = (hits + hit, misses + miss);
    }
    assert!(hits > 200 && misses > 100, "{hits} hits, {misses} misses");
}

/// Against torus meshes under both trees: the world's touched triangles
/// are those the `f64` separation puts below 0, the distance the least.
#[test]
fn round_kinds_against_meshes_under_both_trees() {
    against_meshes(4404, round_kind, 0.8, false);
}

/// Linear casts (the first root of the `f64` separation, convex in time)
/// and turning casts (touching at the reported time, apart before).
#[test]
fn round_kind_shape_casts_match_the_f64_first_contact() {
    let (hits, checked) = shape_casts(4405, 60, round_kind, any_kind, 0.3);
    assert!(hits > 10 && checked > 8, "{hits} hits, {checked} checked");
}

/// A world of the new kinds with every other kind (a mesh, a compound
/// with rounded and flat pieces), 40 frames in motion: the touching pairs
/// the reference's; the dynamic boxes of the rounded kinds tight.
#[test]
fn a_world_of_round_kinds_and_every_other_kind() {
    let piece = |shape: SharedShape, at: Vec3| CompoundPiece {
        pose: Pose::new(Quat::IDENTITY, at),
        shape,
    };
    let compound = SharedShape::compound(vec![
        piece(
            SharedShape::round_cuboid(Vec3::splat(0.1), 0.05).expect("rbox"),
            Vec3::X * 0.3,
        ),
        piece(
            SharedShape::triangle(Vec3::ZERO, Vec3::X * 0.2, Vec3::Y * 0.2).expect("tri"),
            -Vec3::X * 0.3,
        ),
    ])
    .expect("compound");
    let tested = |s: &SharedShape| s.round_convex().map(|_| s.fixed_cube().radius);
    world_of_kinds(4406, round_kind, compound, 1.2, tested);
}

/// Compounds of rounded and flat pieces: intersects, distance and ray
/// casts are the nearest piece's (per the reference).
#[test]
fn compounds_of_round_kinds() {
    compounds(4407, 60, round_kind, any_kind, false);
}

/// Bad sizes and points are refused with a reason, never a panic; names
/// and scaling.
#[test]
fn bad_round_kinds_are_refused() {
    use bevy_icollide::collider::limits::{MAX_ASPECT, MAX_COORDINATE};
    let refused = |s: Result<SharedShape, ShapeError>, what: &str| {
        assert!(
            matches!(
                s,
                Err(ShapeError::InvalidParameter(_)) | Err(ShapeError::Hull(_))
            ),
            "{what}: {s:?}"
        );
    };
    for r in [0.0, -0.1, f32::NAN, f32::INFINITY, 2.0 * MAX_COORDINATE] {
        refused(
            SharedShape::round_cuboid(Vec3::ONE, r),
            "round cuboid radius",
        );
        refused(
            SharedShape::round_convex_hull(&Aabb::corners_of(Vec3::ONE), r),
            "round hull radius",
        );
    }
    for h in [
        Vec3::ZERO,
        Vec3::NAN,
        Vec3::new(1.0, 1.0, -1.0),
        Vec3::new(1.0, 1.0, 1.0 / (2.0 * MAX_ASPECT)),
    ] {
        refused(SharedShape::round_cuboid(h, 0.1), "round cuboid extents");
    }
    refused(
        SharedShape::round_convex_hull(&[Vec3::ZERO, Vec3::X, Vec3::Y], 0.1),
        "flat hull",
    );
    let (a, b) = (Vec3::ZERO, Vec3::X);
    refused(SharedShape::segment(a, a), "zero segment");
    refused(SharedShape::segment(a, Vec3::NAN), "NaN segment");
    refused(
        SharedShape::segment(a, Vec3::X * 2.0 * MAX_COORDINATE),
        "far segment",
    );
    refused(SharedShape::triangle(a, b, b * 2.0), "collinear triangle");
    refused(
        SharedShape::triangle(a, b, Vec3::new(0.5, 0.5 / (2.0 * MAX_ASPECT), 0.0)),
        "thin triangle",
    );
    refused(
        SharedShape::triangle(a, b, Vec3::INFINITY),
        "infinite triangle",
    );
    let tri = SharedShape::triangle(a, b, Vec3::Y).expect("triangle");
    assert_eq!(tri.kind_name(), "triangle");
    assert_eq!(
        SharedShape::segment(a, b).expect("segment").kind_name(),
        "segment"
    );
    let rbox = SharedShape::round_cuboid(Vec3::ONE, 0.25).expect("rbox");
    assert_eq!(rbox.kind_name(), "rounded convex");
    let twice = rbox.scaled(2.0).expect("scaled");
    assert_eq!(twice.round_convex().map(|s| s.radius()), Some(0.5));
    assert_eq!(twice.local_aabb().max, Vec3::splat(2.5));
    assert!(tri.scaled(2.0).is_ok() && rbox.scaled(MAX_COORDINATE).is_err());
}

struct Aabb;
impl Aabb {
    fn corners_of(h: Vec3) -> Vec<Vec3> {
        (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            })
            .collect()
    }
}

/// A rounded box's core support (a corner picked by the direction's signs,
/// without a search) is a corner of largest dot product, by brute force
/// over the core's points, and its hint names that very point; on random
/// directions, the axes, directions with zero and negative-zero
/// components, and a box not centred on the origin (a general hull then).
#[test]
fn rounded_box_core_support_is_a_brute_force_corner() {
    use bevy_icollide::geometry::support::SupportMap;
    let mut rng = Rng::new(0x0b0c);
    let mut dirs: Vec<Vec3> = (0..2000).map(|_| rng.unit_vector()).collect();
    for x in [-1.0f32, -0.0, 0.0, 1.0] {
        for y in [-1.0f32, -0.0, 0.0, 1.0] {
            for z in [-1.0f32, -0.0, 0.0, 1.0] {
                dirs.push(Vec3::new(x, y, z));
            }
        }
    }
    let shifted: Vec<Vec3> = bevy_icollide::math::Aabb::new(Vec3::splat(0.1), Vec3::splat(0.4))
        .corners()
        .to_vec();
    let shapes = [
        SharedShape::round_cuboid(Vec3::new(0.4, 0.3, 0.2), 0.1),
        SharedShape::round_cuboid(Vec3::new(1e-3, 7.0, 2e-3), 0.5),
        SharedShape::round_convex_hull(&shifted, 0.05),
    ];
    for s in shapes {
        let s = s.expect("round shape");
        let r = s.round_convex().expect("round convex");
        let pts = r.core_points();
        for &d in &dirs {
            let mut hint = u32::MAX;
            let p = r.core_support(d, &mut hint);
            let best = pts
                .iter()
                .map(|q| q.dot(d))
                .fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(p.dot(d), best, "{d:?}: {p:?} is not a support corner");
            assert_eq!(pts.get(hint as usize), Some(&p), "{d:?}: hint {hint}");
        }
    }
}
