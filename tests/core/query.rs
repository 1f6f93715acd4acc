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
