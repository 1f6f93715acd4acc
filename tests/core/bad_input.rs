//! Bad input gets a clear error at build time, never a panic.

use crate::common::cube_mesh;
use bevy_icollide::collider::{CompoundPiece, ShapeError, SharedShape};
use bevy_icollide::math::{Pose, PoseError};
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig, WorldError};
use bevy_icollide::query;
use bevy_icollide::shape::{HullError, MeshError};
use glam::{Quat, Vec3};

#[test]
fn hull_errors_name_the_problem() {
    let err = |pts: &[Vec3]| SharedShape::convex_hull(pts).err();
    assert_eq!(err(&[]), Some(ShapeError::Hull(HullError::Empty)));
    assert_eq!(
        err(&[
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::Y,
            Vec3::Z
        ]),
        Some(ShapeError::Hull(HullError::NonFinite { index: 2 }))
    );
    assert_eq!(
        err(&[
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::new(0.0, 0.0, f32::INFINITY)
        ]),
        Some(ShapeError::Hull(HullError::NonFinite { index: 3 }))
    );
    assert_eq!(
        err(&[Vec3::ONE; 10]),
        Some(ShapeError::Hull(HullError::Coincident))
    );
    let line: Vec<Vec3> = (0..10).map(|i| Vec3::splat(i as f32)).collect();
    assert_eq!(err(&line), Some(ShapeError::Hull(HullError::Collinear)));
    let plane: Vec<Vec3> = (0..30)
        .map(|i| Vec3::new((i % 7) as f32, (i / 7) as f32, 2.0))
        .collect();
    assert_eq!(err(&plane), Some(ShapeError::Hull(HullError::Coplanar)));
    // Three points are always coplanar.
    assert_eq!(
        err(&[Vec3::ZERO, Vec3::X, Vec3::Y]),
        Some(ShapeError::Hull(HullError::Coplanar))
    );
    // The messages say what is wrong.
    let msg = err(&plane).map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains("coplanar") || msg.contains("plane"), "{msg}");
}

#[test]
fn degenerate_but_valid_point_sets_build() {
    // Duplicates and points on faces of a tetrahedron.
    let mut pts = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    pts.extend_from_slice(&[Vec3::ZERO; 20]);
    pts.push(Vec3::new(0.25, 0.25, 0.0));
    pts.push(Vec3::new(0.1, 0.1, 0.1));
    let shape = SharedShape::convex_hull(&pts).expect("valid hull");
    assert_eq!(shape.hull().expect("hull").vertices().len(), 4);
}

#[test]
fn cuboid_and_scale_parameters_are_checked() {
    assert!(matches!(
        SharedShape::cuboid(Vec3::new(1.0, 0.0, 1.0)),
        Err(ShapeError::InvalidParameter(_))
    ));
    assert!(matches!(
        SharedShape::cuboid(Vec3::new(1.0, -1.0, 1.0)),
        Err(ShapeError::InvalidParameter(_))
    ));
    assert!(matches!(
        SharedShape::cuboid(Vec3::NAN),
        Err(ShapeError::InvalidParameter(_))
    ));
    let cube = SharedShape::cuboid(Vec3::ONE).expect("valid");
    assert!(cube.scaled(0.0).is_err());
    assert!(cube.scaled(-2.0).is_err());
    assert!(cube.scaled(f32::NAN).is_err());
    let big = cube.scaled(2.0).expect("valid");
    assert_eq!(big.local_aabb().max, Vec3::splat(2.0));
}

#[test]
fn mesh_errors_name_the_problem() {
    let tri = vec![[0, 1, 2]];
    let verts = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    assert_eq!(
        SharedShape::trimesh(vec![], tri.clone()).err(),
        Some(ShapeError::Mesh(MeshError::NoVertices))
    );
    assert_eq!(
        SharedShape::trimesh(verts.clone(), vec![]).err(),
        Some(ShapeError::Mesh(MeshError::NoTriangles))
    );
    assert_eq!(
        SharedShape::trimesh(verts.clone(), vec![[0, 1, 3]]).err(),
        Some(ShapeError::Mesh(MeshError::IndexOutOfRange {
            triangle: 0,
            index: 3
        }))
    );
    assert_eq!(
        SharedShape::trimesh(
            vec![Vec3::ZERO, Vec3::X, Vec3::splat(f32::NAN)],
            tri.clone()
        )
        .err(),
        Some(ShapeError::Mesh(MeshError::NonFinite { index: 2 }))
    );
    // A flat mesh (a floor) has no 3D hull but is valid: its boxes come from its vertices.
    let floor = SharedShape::trimesh(verts, tri).expect("flat mesh is valid");
    assert!(floor.hull().is_none());
    // Degenerate and duplicate triangles are valid.
    let soup = SharedShape::trimesh(
        vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::X * 2.0],
        vec![[0, 1, 2], [0, 1, 2], [0, 0, 0], [0, 1, 4], [1, 2, 3]],
    )
    .expect("valid soup");
    assert!(soup.hull().is_some());
}

#[test]
fn world_refuses_bad_poses_and_unknown_bodies() {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let id = world.add_body(BodyDesc::new(
        SharedShape::cuboid(Vec3::ONE).expect("valid"),
    ));
    let bad = Pose::new(Quat::IDENTITY, Vec3::new(f32::NAN, 0.0, 0.0));
    assert_eq!(
        world.set_pose(id, bad),
        Err(WorldError::InvalidPose(PoseError::NonFinite))
    );
    let unnormalized = Pose::new(Quat::from_xyzw(0.0, 0.0, 0.0, 3.0), Vec3::ZERO);
    assert_eq!(
        world.set_pose(id, unnormalized),
        Err(WorldError::InvalidPose(PoseError::NotNormalized))
    );
    let _ = world.step();
    assert!(
        world.aabb(id).is_none(),
        "a body without a valid pose stays out of the broad phase"
    );
    world.set_pose(id, Pose::IDENTITY).expect("valid");
    let _ = world.step();
    assert!(world.aabb(id).is_some());
    world.remove_body(id).expect("live");
    assert!(world.remove_body(id).is_err());
    assert!(world.set_pose(id, Pose::IDENTITY).is_err());
}

#[test]
fn obj_models_load_and_bad_files_are_errors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/meshes");
    let torus = SharedShape::trimesh_from_obj(dir.join("odedstein_torus.obj")).expect("torus");
    match torus.kind() {
        bevy_icollide::collider::ShapeKind::TriMesh(m) => assert_eq!(m.triangles().len(), 4608),
        other => panic!("expected a mesh, got {other:?}"),
    }
    // The FCL environment starts with a count line: skipped with a warning.
    assert!(SharedShape::trimesh_from_obj(dir.join("fcl_env.obj")).is_ok());
    let ico =
        SharedShape::convex_hull_from_obj(dir.join("o3dv_solids_icosahedron.obj")).expect("hull");
    let p = ico.polytope().expect("convex");
    assert_eq!((p.vertices().len(), p.faces().len()), (12, 20));
    let missing = SharedShape::trimesh_from_obj(dir.join("no_such_file.obj")).unwrap_err();
    assert!(matches!(missing, ShapeError::Obj(_)), "{missing}");
    let bad = bevy_icollide::io::parse_obj("v 0 0 0\nv 1 0 0\nf 1 2 7\n").unwrap_err();
    assert!(bad.to_string().contains("line 3"), "{bad}");
}

#[test]
fn bad_primitives_and_compounds_are_errors() {
    use bevy_icollide::collider::CompoundPiece;
    for r in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(
            SharedShape::sphere(r),
            Err(ShapeError::InvalidParameter(_))
        ));
        assert!(SharedShape::capsule(r, 1.0).is_err());
    }
    assert!(SharedShape::capsule(0.5, -1.0).is_err());
    assert!(SharedShape::capsule(0.5, f32::NAN).is_err());
    assert!(SharedShape::capsule(0.5, 0.0).is_ok());
    let empty = SharedShape::compound(Vec::new()).unwrap_err();
    assert!(empty.to_string().contains("at least one piece"), "{empty}");
    let ball = SharedShape::sphere(1.0).expect("sphere");
    let nested = SharedShape::compound(vec![CompoundPiece {
        pose: Pose::IDENTITY,
        shape: ball.clone(),
    }])
    .expect("compound");
    let err = SharedShape::compound(vec![CompoundPiece {
        pose: Pose::IDENTITY,
        shape: nested,
    }])
    .unwrap_err();
    assert!(err.to_string().contains("cannot be a compound"), "{err}");
    let mut bad_pose = Pose::IDENTITY;
    bad_pose.rotation.x = f32::NAN;
    assert!(
        SharedShape::compound(vec![CompoundPiece {
            pose: bad_pose,
            shape: ball,
        }])
        .is_err()
    );
}

/// A ray with a NaN or infinite origin or direction, or a NaN or negative
/// `max_toi`, is refused with an error naming the fault, on every shape
/// kind; the boundary values around them (huge but finite, an unbounded
/// `max_toi`, a zero `max_toi` from inside) still answer.
#[test]
fn bad_rays_are_refused_on_every_shape_kind() {
    use bevy_icollide::collider::CompoundPiece;
    use bevy_icollide::query::{QueryError, Ray, ray_cast};
    let ball = SharedShape::sphere(1.0).expect("sphere");
    let shapes = [
        ("sphere", ball.clone()),
        ("capsule", SharedShape::capsule(0.5, 1.0).expect("capsule")),
        ("cuboid", SharedShape::cuboid(Vec3::ONE).expect("cuboid")),
        (
            "mesh",
            SharedShape::trimesh(
                vec![
                    Vec3::new(-2.0, -2.0, 0.0),
                    Vec3::new(2.0, -2.0, 0.0),
                    Vec3::new(0.0, 2.0, 0.0),
                ],
                vec![[0, 1, 2]],
            )
            .expect("mesh"),
        ),
        (
            "compound",
            SharedShape::compound(vec![CompoundPiece {
                pose: Pose::IDENTITY,
                shape: ball,
            }])
            .expect("compound"),
        ),
    ];
    let good = Ray::new(Vec3::new(0.0, 0.0, -10.0), Vec3::Z);
    let bad = [
        (
            Ray::new(Vec3::new(f32::NAN, 0.0, -10.0), Vec3::Z),
            100.0,
            "origin",
        ),
        (
            Ray::new(Vec3::new(0.0, 0.0, f32::NEG_INFINITY), Vec3::Z),
            100.0,
            "origin",
        ),
        (
            Ray::new(good.origin, Vec3::new(0.0, f32::NAN, 1.0)),
            100.0,
            "direction",
        ),
        (
            Ray::new(good.origin, Vec3::new(0.0, 0.0, f32::INFINITY)),
            100.0,
            "direction",
        ),
        (good, f32::NAN, "max_toi"),
        (good, -1.0, "max_toi"),
    ];
    for (name, shape) in &shapes {
        for (ray, max_toi, fault) in &bad {
            match ray_cast(shape, &Pose::IDENTITY, ray, *max_toi) {
                Err(QueryError::InvalidRay(why)) => assert!(why.contains(fault), "{name}: {why}"),
                other => panic!("{name}: {ray:?} max_toi {max_toi}: {other:?}"),
            }
        }
        let hit = ray_cast(shape, &Pose::IDENTITY, &good, f32::INFINITY).expect("valid ray");
        assert!(
            hit.is_some_and(|h| h.toi > 8.0 && h.toi < 10.5),
            "{name}: {hit:?}"
        );
        let far = Ray::new(Vec3::new(0.0, 0.0, -1e30), Vec3::Z);
        assert!(
            ray_cast(shape, &Pose::IDENTITY, &far, f32::MAX).is_ok(),
            "{name}"
        );
        let short = ray_cast(shape, &Pose::IDENTITY, &good, 0.0).expect("max_toi 0");
        assert!(
            short.is_none(),
            "{name}: max_toi 0 from outside hits nothing"
        );
    }
}

/// Distance, closest points and `intersects` agree at every scale `f32`
/// holds (issue 14, item 2): every kind (convex, mesh, compound) of size
/// `s` from `1e-30` to the coordinate limit at gaps of `s / 2` and `2 s`, overlapping by
/// `s / 2`, and unit shapes `1e20` to `1e35` apart (squares of such
/// lengths overflow).
#[test]
fn distance_and_intersects_agree_at_every_scale() {
    let kinds = |s: f32| -> Vec<(&'static str, SharedShape)> {
        let mut out = vec![];
        if let Ok(c) = SharedShape::cuboid(Vec3::splat(s)) {
            out.push(("cuboid", c));
        }
        if let Ok(c) = SharedShape::sphere(s) {
            out.push(("sphere", c));
        }
        if let Ok(c) = SharedShape::capsule(s, s) {
            out.push(("capsule", c));
        }
        if let Ok(m) = cube_mesh(s) {
            out.push(("mesh", m));
        }
        if let Ok(c) = SharedShape::cuboid(Vec3::splat(s)).and_then(|piece| {
            SharedShape::compound(vec![CompoundPiece {
                pose: Pose::IDENTITY,
                shape: piece,
            }])
        }) {
            out.push(("compound", c));
        }
        if let Ok(c) = cube_mesh(s).and_then(|piece| {
            SharedShape::compound(vec![CompoundPiece {
                pose: Pose::IDENTITY,
                shape: piece,
            }])
        }) {
            out.push(("mesh compound", c));
        }
        out
    };
    let mut checked = 0;
    for exp in (-30..=30).step_by(5) {
        let s = 10f32.powi(exp);
        let shapes = kinds(s);
        for (na, a) in &shapes {
            for (nb, b) in &shapes {
                // Half-widths along x: cuboid and sphere s, capsule s (lying
                // along y).
                for (gap, want) in [
                    (0.5 * s, Some(0.5 * s)),
                    (2.0 * s, Some(2.0 * s)),
                    (-0.5 * s, None),
                ] {
                    let pose_b = Pose::from_translation(Vec3::new(2.0 * s + gap, 0.0, 0.0));
                    let c = query::closest_points(a, &Pose::IDENTITY, b, &pose_b).expect("valid");
                    let touch = query::intersects(a, &Pose::IDENTITY, b, &pose_b).expect("valid");
                    let what =
                        format!("{na}/{nb} size {s:e} gap {gap:e}: {c:?}, intersects {touch}");
                    match want {
                        Some(d) => {
                            assert!(!touch && !c.intersecting, "{what}");
                            assert!((c.distance - d).abs() <= 1e-4 * d, "{what}");
                            assert!(
                                (((c.point_b - c.point_a) / s).length() * s - d).abs() <= 1e-3 * d,
                                "{what}"
                            );
                        }
                        None => assert!(touch && c.intersecting && c.distance == 0.0, "{what}"),
                    }
                    checked += 1;
                }
            }
        }
    }
    // Every kind builds from 1e-30 to 1e5, none beyond the 2^28 coordinate
    // limit (1e10 and up are refused: the world's kernels would overflow).
    assert_eq!(checked, 8 * 36 * 3, "cases built");
    let unit = SharedShape::cuboid(Vec3::ONE).expect("cuboid");
    let ball = SharedShape::sphere(1.0).expect("sphere");
    let mesh = cube_mesh(1.0).expect("mesh");
    for far in [1e20f32, 1e25, 1e30, 1e35] {
        for b in [&unit, &ball, &mesh] {
            let pose_b = Pose::from_translation(Vec3::new(far, 0.0, 0.0));
            let d = query::distance(&unit, &Pose::IDENTITY, b, &pose_b).expect("valid");
            let touch = query::intersects(&unit, &Pose::IDENTITY, b, &pose_b).expect("valid");
            assert!(
                !touch && (d - far).abs() <= 1e-5 * far,
                "{far:e}: distance {d:e}, intersects {touch}"
            );
        }
    }
}

/// Sizes beyond what f32 can answer for are refused at build time with the
/// limit named (issue 14, item 4); the extremes that are accepted work.
#[test]
fn shape_size_limits_are_named_and_what_is_accepted_works() {
    use bevy_icollide::collider::limits::{MAX_ASPECT, MAX_COORDINATE};
    let named = |r: Result<SharedShape, ShapeError>, limit: &str| match r {
        Err(ShapeError::InvalidParameter(m)) => assert!(m.contains(limit), "{m}"),
        other => panic!("expected a refusal naming {limit}: {other:?}"),
    };
    named(SharedShape::cuboid(Vec3::splat(f32::MAX)), "MAX_COORDINATE");
    named(SharedShape::cuboid(Vec3::new(1e6, 0.1, 1e6)), "MAX_ASPECT");
    named(SharedShape::capsule(1.0, 1e8), "MAX_ASPECT");
    named(SharedShape::sphere(1e20), "MAX_COORDINATE");
    let capsule = SharedShape::capsule(1.0, 2.0).expect("capsule");
    named(capsule.scaled(1e38), "MAX_COORDINATE");
    named(
        SharedShape::sphere(1.0).expect("ball").scaled(1e20),
        "MAX_COORDINATE",
    );
    let far = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.0, 0.0, 1e20)];
    named(SharedShape::convex_hull(&far), "MAX_COORDINATE");
    named(
        SharedShape::trimesh(far.to_vec(), vec![[0, 1, 3]]),
        "MAX_COORDINATE",
    );
    // The extremes accepted: answers within rounding of their size.
    let flat =
        SharedShape::cuboid(Vec3::new(MAX_ASPECT, 1.0, MAX_ASPECT)).expect("at the aspect limit");
    let long = SharedShape::capsule(1.0, MAX_ASPECT).expect("at the aspect limit");
    let huge = SharedShape::cuboid(Vec3::splat(MAX_COORDINATE)).expect("at the size limit");
    for (shape, half_y) in [(&flat, 1.0f32), (&long, 1.0), (&huge, MAX_COORDINATE)] {
        for gap in [0.5 * half_y, 3.0 * half_y] {
            let up = Pose::from_translation(Vec3::new(0.0, 2.0 * half_y + gap, 0.0));
            let apart = if shape.ptr_eq(&long) {
                // The capsule lies along y: put the second one beside it.
                Pose::from_translation(Vec3::new(2.0 * half_y + gap, 0.0, 0.0))
            } else {
                up
            };
            let d = query::distance(shape, &Pose::IDENTITY, shape, &apart).expect("valid");
            let touch = query::intersects(shape, &Pose::IDENTITY, shape, &apart).expect("valid");
            assert!(
                (d - gap).abs() <= 1e-2 * gap && !touch,
                "gap {gap:e}: distance {d:e}"
            );
        }
    }
}

/// A NaN, infinite or negative margin (the boxes' padding or the broad
/// phase's enlargement) is refused, in the world and the plugin (issue 14,
/// item 5); 0 and large finite margins are fine.
#[test]
fn bad_margins_are_refused() {
    for m in [f32::NAN, f32::INFINITY, -1.0, -f32::MIN_POSITIVE] {
        let world = CollisionWorld::new(WorldConfig {
            margin: m,
            ..Default::default()
        });
        assert!(matches!(world, Err(WorldError::InvalidMargin(_))), "{m}");
        let plugin = bevy_icollide::plugin::CollisionPlugin::default().with_margin(m);
        assert!(matches!(plugin, Err(WorldError::InvalidMargin(_))), "{m}");
        let world = CollisionWorld::new(WorldConfig {
            broad_phase_margin: m,
            ..Default::default()
        });
        assert!(
            matches!(world, Err(WorldError::InvalidBroadPhaseMargin(_))),
            "{m}"
        );
        let plugin = bevy_icollide::plugin::CollisionPlugin::default().with_broad_phase_margin(m);
        assert!(
            matches!(plugin, Err(WorldError::InvalidBroadPhaseMargin(_))),
            "{m}"
        );
    }
    for m in [0.0, 1e-30, 1e6] {
        assert!(
            CollisionWorld::new(WorldConfig {
                margin: m,
                broad_phase_margin: m,
                ..Default::default()
            })
            .is_ok()
        );
    }
}
