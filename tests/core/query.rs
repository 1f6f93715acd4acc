//! The one-shot query API: known answers, errors for bad input and
//! unsupported kinds, and agreement with brute force on random pairs.

use crate::common;

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Pose, PoseError};
use bevy_icollide::query::{self, QueryError};
use bevy_icollide::testkit::{Rng, sphere_hull};
use glam::{Quat, Vec3};

fn cube() -> SharedShape {
    SharedShape::cuboid(Vec3::splat(0.5)).expect("cube")
}

#[test]
fn cubes_have_known_answers() {
    let at = |x: f32| Pose::from_translation(Vec3::new(x, 0.0, 0.0));
    let c = cube();
    assert!((query::distance(&c, &at(0.0), &c, &at(1.5)).unwrap() - 0.5).abs() < 1e-5);
    let cp = query::closest_points(&c, &at(0.0), &c, &at(1.5)).unwrap();
    assert!(
        (cp.point_a.x - 0.5).abs() < 1e-5 && (cp.point_b.x - 1.0).abs() < 1e-5,
        "{cp:?}"
    );
    assert!(!cp.intersecting);
    assert!(
        query::intersects(&c, &at(0.0), &c, &at(1.0)).unwrap(),
        "touching counts"
    );
    assert!(!query::intersects(&c, &at(0.0), &c, &at(1.001)).unwrap());
    let p = query::penetration(&c, &at(0.0), &c, &at(0.8))
        .unwrap()
        .expect("overlap");
    assert!((p.depth - 0.2).abs() < 1e-4, "{p:?}");
    assert!(
        (p.normal - Vec3::X).length() < 1e-4,
        "normal from a to b: {p:?}"
    );
    assert!(
        query::penetration(&c, &at(0.0), &c, &at(2.0))
            .unwrap()
            .is_none()
    );
    // Rotated 45° about z, the cube reaches sqrt(2)/2.
    let r = Pose::new(
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
        Vec3::ZERO,
    );
    let d = query::distance(&c, &r, &c, &at(1.5)).unwrap();
    assert!(
        (d - (1.0 - std::f32::consts::FRAC_1_SQRT_2)).abs() < 1e-5,
        "{d}"
    );
}

#[test]
fn bad_input_is_an_error() {
    let c = cube();
    let nan = Pose::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
    assert_eq!(
        query::distance(&c, &nan, &c, &Pose::IDENTITY),
        Err(QueryError::InvalidPose(PoseError::NonFinite))
    );
    let mesh = SharedShape::trimesh(
        vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
        vec![[0, 1, 2], [0, 1, 3]],
    )
    .expect("valid mesh");
    assert!(query::intersects(&mesh, &Pose::IDENTITY, &c, &Pose::IDENTITY).unwrap());
    let far = Pose::from_translation(Vec3::splat(5.0));
    assert!(!query::intersects(&mesh, &Pose::IDENTITY, &c, &far).unwrap());
    // Mesh distances are supported; the penetration depth of a mesh is not.
    assert_eq!(
        query::distance(&mesh, &Pose::IDENTITY, &c, &Pose::IDENTITY),
        Ok(0.0)
    );
    let err = query::penetration(&mesh, &Pose::IDENTITY, &c, &Pose::IDENTITY).unwrap_err();
    assert!(matches!(err, QueryError::Unsupported { .. }), "{err:?}");
    assert!(err.to_string().contains("triangle mesh"));
}

#[test]
fn random_pairs_match_brute_force() {
    let mut rng = Rng::new(77);
    for i in 0..300 {
        let (sa, sb) = (
            sphere_hull(&mut rng, 30, 1.0),
            sphere_hull(&mut rng, 12, 0.7),
        );
        let pa = Pose::new(rng.rotation(), rng.in_cube(2.0));
        let pb = Pose::new(
            rng.rotation(),
            pa.translation + rng.unit_vector() * rng.range(0.5, 3.0),
        );
        let a = common::Body {
            shape: sa.clone(),
            pose: pa,
        };
        let b = common::Body {
            shape: sb.clone(),
            pose: pb,
        };
        let want = common::brute_distance(&a, &b);
        let got = query::distance(&sa, &pa, &sb, &pb).unwrap();
        assert!(
            (f64::from(got) - want).abs() < 1e-4,
            "pair {i}: {got} vs {want}"
        );
        let sep = common::sat_separation(&a, &b);
        if sep < -1e-4 {
            let p = query::penetration(&sa, &pa, &sb, &pb)
                .unwrap()
                .expect("overlap");
            assert!(
                (f64::from(p.depth) + sep).abs() < 1e-3,
                "pair {i}: depth {} vs {}",
                p.depth,
                -sep
            );
        }
    }
}

/// One rule for meshes, every kind (issue 14, item 7): a triangle mesh is a
/// surface. A shape wholly inside a closed mesh, crossing no triangle, does
/// not touch it — sphere, capsule, cuboid, hull, compound or mesh, in
/// either order — in `intersects`, in the world's events and in the world's
/// shape query; its distance is to the surface (positive). Moved to cross
/// the shell, each touches.
#[test]
fn inside_a_closed_mesh_is_apart_for_every_kind() {
    use bevy_icollide::collider::CompoundPiece;
    use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, QueryFilter, WorldConfig};
    let (v, t) = bevy_icollide::testkit::cube_sphere(1.0, 6);
    let shell = SharedShape::trimesh(v, t).expect("closed sphere mesh");
    let mut rng = Rng::new(4);
    let kinds = [
        SharedShape::sphere(0.1).expect("sphere"),
        SharedShape::capsule(0.1, 0.2).expect("capsule"),
        SharedShape::cuboid(Vec3::splat(0.1)).expect("cuboid"),
        sphere_hull(&mut rng, 12, 0.15),
        SharedShape::compound(vec![
            CompoundPiece {
                pose: Pose::from_translation(Vec3::X * 0.1),
                shape: SharedShape::sphere(0.1).expect("sphere"),
            },
            CompoundPiece {
                pose: Pose::IDENTITY,
                shape: SharedShape::cuboid(Vec3::splat(0.1)).expect("cuboid"),
            },
        ])
        .expect("compound"),
        SharedShape::trimesh(
            vec![Vec3::ZERO, Vec3::X * 0.2, Vec3::Y * 0.2],
            vec![[0, 1, 2]],
        )
        .expect("triangle"),
    ];
    let at = Pose::IDENTITY;
    for (i, k) in kinds.iter().enumerate() {
        for inside in [
            Pose::from_translation(Vec3::new(0.1, -0.2, 0.3)),
            Pose::new(rng.rotation(), Vec3::ZERO),
        ] {
            assert!(
                !query::intersects(&shell, &at, k, &inside).expect("valid"),
                "kind {i}"
            );
            assert!(
                !query::intersects(k, &inside, &shell, &at).expect("valid"),
                "kind {i}"
            );
            let d = query::distance(&shell, &at, k, &inside).expect("valid");
            assert!(d > 0.3, "kind {i}: distance {d} to the shell");
        }
        // Crossing the shell, it touches.
        let crossing = Pose::from_translation(Vec3::new(0.99, 0.0, 0.0));
        assert!(
            query::intersects(&shell, &at, k, &crossing).expect("valid"),
            "kind {i}"
        );
        // The world agrees: no event inside, one when it crosses.
        let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
        let s = world.add_body(BodyDesc::new(shell.clone()));
        let b = world.add_body(BodyDesc::new(k.clone()));
        world.set_pose(s, at).expect("pose");
        world
            .set_pose(b, Pose::from_translation(Vec3::new(0.1, -0.2, 0.3)))
            .expect("pose");
        assert_eq!(world.step().count(), 0, "kind {i}: inside");
        let mut hits = Vec::new();
        world
            .intersect_shape(
                k,
                Pose::IDENTITY,
                QueryFilter::ALL.with_exclude(&[b]),
                &mut hits,
            )
            .expect("valid");
        assert!(hits.is_empty(), "kind {i}: shape query inside");
        world.set_pose(b, crossing).expect("pose");
        assert_eq!(world.step().count(), 1, "kind {i}: crossing");
    }
}

/// Two cubes corner to corner along a diagonal, where the farthest points
/// of both (their reaches) meet: the one-shot boolean query's reach
/// early-out must keep the corners that touch (or overlap by `2⁻²⁰`),
/// which the closest-points query also calls intersecting; a positive gap
/// is a separating plane for the boolean test. Fails if the early-out drops
/// its rounding slack (the reaches, `√0.75` rounded down, sum below `√3`).
#[test]
fn intersects_keeps_touching_corners_at_the_reach() {
    let c = cube();
    for signs in [[1.0, 1.0, 1.0], [-1.0, 1.0, -1.0], [1.0, -1.0, -1.0]] {
        let s = Vec3::from_array(signs);
        // 1 + e is exact in f32 for these e; the gap along the diagonal
        // is √3 e.
        for e in [
            -2f32.powi(-20),
            0.0,
            2f32.powi(-21),
            2f32.powi(-12),
            2f32.powi(-6),
        ] {
            let pb = Pose::from_translation(s * (1.0 + e));
            let got = query::intersects(&c, &Pose::IDENTITY, &c, &pb).unwrap();
            assert_eq!(got, e <= 0.0, "signs {signs:?}, e {e:e}");
            let cp = query::closest_points(&c, &Pose::IDENTITY, &c, &pb).unwrap();
            assert!(!got || cp.intersecting, "signs {signs:?}, e {e:e}: {cp:?}");
        }
    }
}

/// The distance tolerance is checked by the shared limits: NaN, infinite,
/// below `2·10⁻⁶` or above `0.1` is an error naming the value, never a
/// panic; the bounds are accepted; the smallest is the default exactly.
#[test]
fn distance_tolerance_is_validated() {
    let (c, far) = (cube(), Pose::from_translation(Vec3::new(3.0, 0.2, 0.1)));
    for t in [f32::NAN, f32::INFINITY, -1e-3, 0.0, 1e-6, 0.11, 1.0] {
        let got = query::distance_with_tolerance(&c, &Pose::IDENTITY, &c, &far, t);
        assert!(
            matches!(got, Err(QueryError::InvalidTolerance(x)) if x.to_bits() == t.to_bits()),
            "{t}: {got:?}"
        );
        let text = got.unwrap_err().to_string();
        assert!(text.contains("tolerance"), "{text}");
    }
    let cyl = SharedShape::cylinder(0.5, 1.0).expect("cylinder");
    let pb = Pose::new(Quat::from_rotation_x(0.7), Vec3::new(0.9, 0.6, 0.2));
    let exact = query::distance(&cyl, &Pose::IDENTITY, &cyl, &pb).unwrap();
    let same = query::distance_with_tolerance(&cyl, &Pose::IDENTITY, &cyl, &pb, 2e-6).unwrap();
    assert_eq!(exact.to_bits(), same.to_bits());
    assert!(query::distance_with_tolerance(&cyl, &Pose::IDENTITY, &cyl, &pb, 0.1).is_ok());
}

/// The documented certificate of `distance_with_tolerance`: on random
/// cylinder, cone (some rounded) and hull pairs, the distance is never
/// below the `f64` reference separation and at most `tol · (r_A + r_B +
/// |t_B − t_A|)` above it (plus `2·10⁻⁶` of that size for `f32` rounding
/// and the reference's own search). Fails when GJK stops later than the
/// bound allows (e.g. at ten times the tolerance).
#[test]
fn distance_with_tolerance_stays_within_its_bound() {
    use crate::implicit_reference::{Placed, separation};
    let mut rng = Rng::new(4402);
    let mut worst = [0.0f64; 5];
    let tols = [2e-6f32, 1e-4, 1e-3, 1e-2, 0.1];
    let n = 150 * bevy_icollide::testkit::long_factor();
    for _ in 0..n {
        let a = crate::exact_implicit::implicit(&mut rng, 1.0);
        let b = match rng.below(3) {
            0 => crate::exact_implicit::implicit(&mut rng, 1.0),
            1 => {
                let r = rng.range(0.15, 0.4);
                sphere_hull(&mut rng, 12, r)
            }
            _ => crate::exact_implicit::any_convex(&mut rng),
        };
        let pa = Pose::new(rng.rotation(), rng.unit_vector() * rng.range(0.0, 0.5));
        let pb = Pose::new(
            rng.rotation(),
            pa.translation + rng.unit_vector() * rng.range(0.5, 2.5),
        );
        let c = query::closest_points(&a, &pa, &b, &pb).unwrap();
        let (sv, _) = separation(
            &Placed::new(&a, &pa),
            &Placed::new(&b, &pb),
            &[c.point_b - c.point_a],
        );
        if sv <= 1e-3 {
            continue; // apart pairs only: the certificate is about distances
        }
        let s = f64::from(a.reach() + b.reach() + (pb.translation - pa.translation).length());
        for (i, &t) in tols.iter().enumerate() {
            let d = f64::from(query::distance_with_tolerance(&a, &pa, &b, &pb, t).unwrap());
            let (over, slack) = ((d - sv) / s, 2e-6);
            assert!(over >= -slack, "tol {t}: {d} below the separation {sv}");
            assert!(
                over <= f64::from(t) + slack,
                "tol {t}: {d} vs {sv}, {over:e} of {s}"
            );
            worst[i] = worst[i].max(over);
        }
    }
    eprintln!("worst error / size at {tols:?}: {worst:?}");
    assert!(
        worst[4] > worst[0],
        "a loose tolerance must stop earlier somewhere"
    );
}
