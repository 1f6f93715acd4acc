//! Cylinders and cones (support-mapped kinds) in every query, against the
//! independent `f64` reference of `implicit_reference.rs` (analytic support
//! functions and distances, the separation maximised over directions):
//! seeded random placements against every convex kind, triangle meshes
//! under both tree kinds and compounds, and rounding-breaking ones
//! (identity poses, touching, offsets of `2⁻²⁴`, scenes scaled from `2⁻²⁰`
//! to `2²⁷` placed `2¹⁰` sizes from the origin).
//!
//! Tolerances, relative to the pair's size `s`: distances and depths agree
//! within `TOL · s` (GJK and EPA stop within `2·10⁻⁶` and `10⁻⁵` of the
//! size on curved shapes); booleans agree exactly outside a grazing band
//! of `BAND · s` (scaled scenes: `10⁻³ s`, what `f32` poses `2¹⁰ s` from
//! the origin resolve).

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::query::{self, Ray};
use bevy_icollide::testkit::{Rng, long_factor, sphere_hull};
use glam::{DVec3, Quat, Vec3};

use crate::implicit_reference::{Placed, RefShape, sep, separation};
use crate::support_checks::{
    NormalCheck, against_meshes, check_ray, compounds, random_pairs, scaled_far, shape_casts,
    world_of_kinds,
};

pub(crate) const TOL: f64 = 2e-4;
pub(crate) const BAND: f64 = 5e-4;

/// A cylinder or a cone, a third of them rounded.
pub(crate) fn implicit(rng: &mut Rng, scale: f32) -> SharedShape {
    let (r, hgt) = (rng.range(0.15, 0.5) * scale, rng.range(0.15, 0.9) * scale);
    let border = if rng.below(3) == 0 {
        rng.range(0.0, 0.15) * scale
    } else {
        0.0
    };
    if rng.bool() {
        SharedShape::round_cylinder(r, hgt, border).expect("cylinder")
    } else {
        SharedShape::round_cone(r, hgt, border).expect("cone")
    }
}

pub(crate) fn any_convex(rng: &mut Rng) -> SharedShape {
    match rng.below(5) {
        0 | 1 => implicit(rng, 1.0),
        2 => SharedShape::cuboid(rng.vec(0.1, 0.4)).expect("cuboid"),
        3 => {
            let radius = rng.range(0.15, 0.4);
            sphere_hull(rng, 12, radius)
        }
        _ if rng.bool() => SharedShape::sphere(rng.range(0.1, 0.4)).expect("sphere"),
        _ => SharedShape::capsule(rng.range(0.1, 0.3), rng.range(0.0, 0.5)).expect("capsule"),
    }
}

pub(crate) fn size(a: &SharedShape, b: &SharedShape) -> f64 {
    f64::from(a.fixed_cube().radius.max(b.fixed_cube().radius))
}

/// One convex pair against the reference (`band`, `tol` relative to the
/// size); returns whether it is apart (per the reference), or `None` in
/// the band.
pub(crate) fn check_pair(
    (a, pa): (&SharedShape, &Pose),
    (b, pb): (&SharedShape, &Pose),
    band: f64,
    tol: f64,
) -> Option<bool> {
    let s = size(a, b);
    let (ra, rb) = (Placed::new(a, pa), Placed::new(b, pb));
    let hit = query::intersects(a, pa, b, pb).expect("intersects");
    let c = query::closest_points(a, pa, b, pb).expect("closest points");
    let pen = query::penetration(a, pa, b, pb).expect("penetration");
    let seeds = [c.point_b - c.point_a, pen.map_or(Vec3::X, |p| p.normal)];
    let (sv, _) = separation(&ra, &rb, &seeds);
    let what = format!(
        "{} at {pa:?} / {} at {pb:?}: separation {sv}",
        a.kind_name(),
        b.kind_name()
    );
    if sv.abs() > band * s {
        assert_eq!(hit, sv < 0.0, "intersects: {what}");
        assert_eq!(
            c.intersecting,
            sv < 0.0,
            "closest_points.intersecting: {what}"
        );
    }
    let d = f64::from(c.distance);
    assert!((d - sv.max(0.0)).abs() <= tol * s, "distance {d}: {what}");
    if !c.intersecting {
        // Witnesses on the shapes, as far apart as reported; the plane
        // along them separates by as much.
        let (xa, xb) = (c.point_a.as_dvec3(), c.point_b.as_dvec3());
        assert!(
            ra.distance(xa) <= tol * s && rb.distance(xb) <= tol * s,
            "witnesses: {what}"
        );
        assert!(
            (xa.distance(xb) - d).abs() <= tol * s,
            "witness gap: {what}"
        );
        // The direction is resolved when the gap is large against the
        // rounding of the witnesses' world coordinates.
        let rounding = 8.0 * f64::from(f32::EPSILON) * xa.abs().max_element();
        if let Some(n) = (xb - xa).try_normalize().filter(|_| d > 1e3 * rounding) {
            assert!(sep(&ra, &rb, n) >= d - tol * s, "normal: {what}");
        }
    }
    if sv < -band * s {
        let p = pen.unwrap_or_else(|| panic!("no penetration: {what}"));
        let depth = f64::from(p.depth);
        assert!((depth + sv).abs() <= tol * s, "depth {depth}: {what}");
        let along = -sep(&ra, &rb, p.normal.as_dvec3().normalize());
        assert!(
            (along - depth).abs() <= tol * s,
            "depth {depth} along the normal {along}: {what}"
        );
    }
    (sv.abs() > band * s).then_some(sv > 0.0)
}

#[test]
fn cylinders_and_cones_against_every_convex_kind_match_the_f64_separation() {
    let (apart, overlapping) = random_pairs(4301, implicit, any_convex);
    assert!(
        apart > 60 && overlapping > 60,
        "{apart} apart, {overlapping} overlapping"
    );
}

/// Touching, grazing and `2⁻²⁴` offsets with identity and quarter-turn
/// poses: stacked and side by side, flat cap on flat cap, apex on a face,
/// rim on rim.
#[test]
fn touching_grazing_and_tiny_offsets() {
    let cyl = SharedShape::cylinder(0.5, 1.0).expect("cylinder");
    let cone = SharedShape::cone(0.5, 1.0).expect("cone");
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cuboid");
    let tiny = 2f32.powi(-24);
    let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    for gap in [0.0, tiny, -tiny, 4.0 * tiny, 1e-3, -1e-3, 0.25, -0.25] {
        let cases = [
            (&cyl, &cyl, Quat::IDENTITY, Vec3::new(0.0, 1.0 + gap, 0.0)),
            (&cyl, &cyl, Quat::IDENTITY, Vec3::new(1.0 + gap, 0.0, 0.0)),
            (&cyl, &cube, Quat::IDENTITY, Vec3::new(0.0, 1.0 + gap, 0.0)),
            (&cone, &cube, Quat::IDENTITY, Vec3::new(0.0, 1.0 + gap, 0.0)),
            (
                &cone,
                &cube,
                Quat::IDENTITY,
                Vec3::new(0.0, -1.0 - gap, 0.0),
            ),
            (&cone, &cyl, quarter, Vec3::new(1.0 + gap, 0.0, 0.0)),
            (&cyl, &cone, Quat::IDENTITY, Vec3::new(0.0, 1.0 + gap, 0.0)),
        ];
        for (a, b, rot, at) in cases {
            let (pa, pb) = (Pose::IDENTITY, Pose::new(rot, at));
            check_pair((a, &pa), (b, &pb), BAND, TOL);
            let d = query::distance(a, &pa, b, &pb).expect("distance");
            assert!(
                (f64::from(d) - f64::from(gap).max(0.0)).abs() <= TOL,
                "gap {gap}: {d}"
            );
        }
    }
    // The same shape at the same pose: overlapping, depth its thinnest
    // way. Here the least depth is reached along a whole circle of
    // directions (and the axis), which EPA's polytope must approximate all
    // round: its depth is a lower bound, within 4·10⁻³ of the size (its normal as close).
    for s in [&cyl, &cone] {
        let p = Pose::IDENTITY;
        assert!(query::intersects(s, &p, s, &p).expect("query"));
        check_pair((s, &p), (s, &p), BAND, 4e-3);
    }
}

/// Scenes scaled by `2^k` (shape sizes up to the `MAX_COORDINATE` limit),
/// placed `2^(k+10)` from the origin: the answers of the unscaled scene,
/// within what `f32` poses there resolve.
#[test]
fn scaled_scenes_far_from_the_origin() {
    scaled_far(4302, &[-20, -10, 0, 10, 20, 27], implicit, 0.8);
}

/// Rays at cylinders and cones: from around them, from far away (`10⁴`
/// sizes), from inside, along the axis through the rim and in the cap's
/// plane. A hit is on the surface (exact distance within `TOL`), where
/// sphere tracing on the exact distance first meets the solid, with the
/// outward normal there; a miss is a ray that never meets it (or grazes
/// it within the band).
#[test]
fn ray_casts_match_sphere_tracing() {
    let mut rng = Rng::new(4303);
    let (mut hits, mut misses) = (0, 0);
    for i in 0..1500 * long_factor() {
        let s = implicit(&mut rng, 1.0);
        let pose = Pose::new(rng.rotation(), rng.in_cube(2.0));
        let local = s.implicit().expect("implicit");
        let (h, r) = (local.half_height, local.radius);
        let (o_local, target) = match i % 5 {
            0 => (rng.in_cube(3.0), rng.in_cube(0.6)),
            1 => (rng.unit_vector() * 1e4, rng.in_cube(0.6)),
            2 => (rng.in_cube(0.05), rng.in_cube(2.0)),
            // Along the axis through the rim, in the cap's plane.
            3 => {
                let x = Vec3::new(r * (1.0 + rng.range(-1e-3, 1e-3)), 0.0, 0.0);
                (x + Vec3::Y * 3.0, x)
            }
            _ => {
                let y = Vec3::new(0.0, h * (1.0 + rng.range(-1e-3, 1e-3)), 0.0);
                (y + Vec3::X * 3.0, y)
            }
        };
        let origin = pose.transform_point(o_local);
        let dir = pose.transform_vector(target - o_local) * rng.range(0.5, 2.0);
        let max_toi = if rng.below(4) == 0 {
            rng.range(0.0, 1.0)
        } else {
            f32::INFINITY
        };
        let ray = Ray::new(origin, dir);
        let got = query::ray_cast(&s, &pose, &ray, max_toi).expect("ray");
        let normal = NormalCheck {
            facing: false,
            out: 0.99,
        };
        let (hit, miss) = check_ray((&s, &pose), (&ray, max_toi), got, &normal);
        (hits, misses) = (hits + hit, misses + miss);
    }
    assert!(
        hits > 300 * long_factor() && misses > 100 * long_factor(),
        "{hits} hits, {misses} misses"
    );
}

/// A triangle's reference shape.
pub(crate) fn triangle_ref(t: [Vec3; 3]) -> RefShape {
    RefShape::hull(&t, &[[0, 1, 2], [0, 2, 1]])
}

/// A cylinder or cone against torus meshes under an OBB and an AABB tree
/// (in a world, whose pair lists the touched triangles, and one-shot):
/// the touched triangles are those whose `f64` separation from the shape
/// is negative (outside the band), the distance the least separation.
#[test]
fn against_meshes_under_both_trees() {
    against_meshes(4304, implicit, 0.6, true);
}

/// The signed separation of two shapes at poses, `f64`.
pub(crate) fn separation_at(
    a: &SharedShape,
    pa: &Pose,
    b: &SharedShape,
    pb: &Pose,
    seeds: &[Vec3],
) -> f64 {
    separation(&Placed::new(a, pa), &Placed::new(b, pb), seeds).0
}

/// Linear casts: the separation is convex in time for a translation, so
/// its first root (bisection on the `f64` reference from the minimum found
/// by ternary search) is the time of impact; turning casts: touching at
/// the reported time and apart at sampled times before.
#[test]
fn shape_casts_match_the_f64_first_contact() {
    let (hits, checked) = shape_casts(4305, 70, implicit, any_convex, 0.5);
    assert!(hits > 15 && checked > 10, "{hits} hits, {checked} checked");
}

/// A world of cylinders, cones and every other kind (a compound with a
/// cylinder piece, a mesh) moving for 40 frames: each frame the
/// touching pairs are the reference's (per pieces; a mesh by triangles),
/// and the implicit bodies' boxes hold the shape tightly (dynamic) or
/// whatever its rotation (fixed cube).
#[test]
fn a_world_of_every_kind_with_cylinders_and_cones() {
    let piece = |shape: SharedShape, at: Vec3| CompoundPiece {
        pose: Pose::new(Quat::IDENTITY, at),
        shape,
    };
    let compound = SharedShape::compound(vec![
        piece(
            SharedShape::cylinder(0.15, 0.4).expect("cylinder"),
            Vec3::X * 0.3,
        ),
        piece(
            SharedShape::cuboid(Vec3::splat(0.12)).expect("cuboid"),
            -Vec3::X * 0.3,
        ),
    ])
    .expect("compound");
    let tested = |s: &SharedShape| s.implicit().map(|s| s.bounding_radius());
    world_of_kinds(4306, implicit, compound, 1.3, tested);
}

/// Whether two bodies touch per the reference (`None` within the band):
/// any pair of their pieces; a mesh piece by its triangles.
pub(crate) fn world_reference(
    a: (&SharedShape, &Pose),
    b: (&SharedShape, &Pose),
    mesh: (&SharedShape, &[[Vec3; 3]]),
) -> Option<bool> {
    let pieces = |(s, p): (&SharedShape, &Pose)| -> Vec<(SharedShape, Pose)> {
        match s.compound() {
            Some(c) => c
                .pieces()
                .iter()
                .map(|x| (x.shape.clone(), p.mul(&x.pose)))
                .collect(),
            None => vec![(s.clone(), *p)],
        }
    };
    let (mut any, mut unsure) = (false, false);
    for (sa, pa) in pieces(a) {
        for (sb, pb) in pieces(b) {
            let refs = |s: &SharedShape, p: &Pose| -> Vec<Placed> {
                if s.ptr_eq(mesh.0) {
                    mesh.1
                        .iter()
                        .map(|t| Placed::of(triangle_ref(*t), p))
                        .collect()
                } else {
                    vec![Placed::new(s, p)]
                }
            };
            if sa.ptr_eq(mesh.0) && sb.ptr_eq(mesh.0) {
                return None;
            }
            let reach = f64::from(sa.fixed_cube().radius + sb.fixed_cube().radius);
            if pa.translation.distance(pb.translation) as f64 > reach + 0.01 {
                continue;
            }
            for x in refs(&sa, &pa) {
                for y in refs(&sb, &pb) {
                    if sep(&x, &y, (y.pos - x.pos).normalize_or(DVec3::X)) > BAND {
                        continue;
                    }
                    let (sv, _) = separation(&x, &y, &[]);
                    any |= sv < -BAND;
                    unsure |= sv.abs() <= BAND;
                }
            }
        }
    }
    if any {
        Some(true)
    } else if unsure {
        None
    } else {
        Some(false)
    }
}

/// Bad dimensions: NaN, infinite, zero, negative, beyond `MAX_COORDINATE`
/// or `MAX_ASPECT` are refused with a reason; a scale that would take a
/// cylinder beyond the limits too.
#[test]
fn bad_dimensions_are_refused() {
    use bevy_icollide::collider::ShapeError;
    use bevy_icollide::collider::limits::{MAX_ASPECT, MAX_COORDINATE};
    let bad = [
        (f32::NAN, 1.0),
        (1.0, f32::NAN),
        (f32::INFINITY, 1.0),
        (1.0, f32::INFINITY),
        (0.0, 1.0),
        (1.0, 0.0),
        (-1.0, 1.0),
        (1.0, -1.0),
        (MAX_COORDINATE, 2.0 * MAX_COORDINATE),
        (2.0 * MAX_COORDINATE, 1.0e5),
        (1.0, 2.0 * MAX_ASPECT * 1.01),
        (MAX_ASPECT * 1.01, 1.0),
    ];
    for (r, h) in bad {
        let round = [
            SharedShape::round_cylinder(r, h, 0.1),
            SharedShape::round_cone(r, h, 0.1),
        ];
        for s in [SharedShape::cylinder(r, h), SharedShape::cone(r, h)]
            .into_iter()
            .chain(round)
        {
            assert!(
                matches!(s, Err(ShapeError::InvalidParameter(_))),
                "({r}, {h}): {s:?}"
            );
        }
    }
    for b in [f32::NAN, -0.1, f32::INFINITY, 2.0 * MAX_COORDINATE] {
        let s = SharedShape::round_cylinder(1.0, 1.0, b);
        assert!(
            matches!(s, Err(ShapeError::InvalidParameter(_))),
            "border {b}: {s:?}"
        );
    }
    let round = SharedShape::round_cone(1.0, 2.0, 0.25).expect("round cone");
    assert_eq!(round.kind_name(), "rounded cone");
    let twice = round.scaled(2.0).expect("scaled");
    assert_eq!(twice.implicit().map(|s| s.rounding), Some(0.5));
    let good = SharedShape::cylinder(1.0, 2.0).expect("cylinder");
    assert!(good.scaled(MAX_COORDINATE).is_err());
    assert!(good.scaled(f32::NAN).is_err());
    let half = good.scaled(0.5).expect("scaled");
    let s = half.implicit().expect("implicit");
    assert_eq!((s.radius, s.half_height), (0.5, 0.5));
    assert_eq!(
        SharedShape::cone(1.0, 2.0).expect("cone").kind_name(),
        "cone"
    );
    assert_eq!(good.kind_name(), "cylinder");
}

/// A compound with cylinder and cone pieces: intersects, distance and ray
/// casts are its nearest piece's.
#[test]
fn compounds_of_cylinders_and_cones() {
    compounds(4307, 80, implicit, any_convex, true);
}
