//! Shape casts and time of impact against brute force.
//!
//! - Every ordered pair of kinds (cuboid, hull, sphere, capsule, mesh,
//!   compound of convex pieces, compound with a mesh piece), translating
//!   and spinning on random paths aimed at each other (some starting in
//!   contact, some grazing): the reported time is
//!   never after the first of 400 time samples at which the shapes touch
//!   (the crate's `distance`, a surface distance for meshes), no sample
//!   before it touches, and at the reported time the distance is within the
//!   target plus the tolerance. Also with a target distance.
//! - The tree search by time equals the minimum over all triangle pairs
//!   (bit for bit) of the same conservative advancement, for mesh–mesh and
//!   mesh–convex pairs, OBB and AABB trees, linear and spinning motions.
//! - A small fast sphere shot at a one-triangle wall at up to 1000 sizes
//!   per step is hit at the analytic time.
//! - Bad input is refused with the fault named.

use bevy_icollide::bvh::cast::{CastSide, Parts, single_leaf, tree_cast};
use bevy_icollide::bvh::{AabbTree, AabbTreeOptions, ObbTree, SplitRule};
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::geometry::cast::{CastParams, Mover, Reach, time_of_impact};
use bevy_icollide::geometry::closest::point_segment;
use bevy_icollide::geometry::gjk::GjkCache;
use bevy_icollide::geometry::support::{PointSetSupport, Sphere, SupportMap};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::ShapeCastHit;
use bevy_icollide::query::{
    QueryError, ShapeCastOptions, cast_shapes, cast_shapes_nonlinear, distance,
};
use bevy_icollide::shape::{ConvexPolytope, Feature, TriMesh};
use bevy_icollide::testkit::{Rng, cube_sphere, sphere_hull, torus};
use glam::{Quat, Vec3};

fn kinds(rng: &mut Rng) -> Vec<(&'static str, SharedShape)> {
    let (p, t) = torus(0.35, 0.1, 12, 8);
    let ring = SharedShape::trimesh(p, t).expect("torus");
    let (p, t) = torus(0.15, 0.05, 8, 5);
    let small_ring = SharedShape::trimesh(p, t).expect("torus");
    let piece = |shape, x: f32, rng: &mut Rng| CompoundPiece {
        pose: Pose::new(rng.rotation(), Vec3::new(x, 0.0, 0.0)),
        shape,
    };
    let convex_pieces = vec![
        piece(sphere_hull(rng, 10, 0.18), -0.2, rng),
        piece(SharedShape::capsule(0.08, 0.2).expect("capsule"), 0.2, rng),
    ];
    let mesh_pieces = vec![
        piece(small_ring, -0.2, rng),
        piece(
            SharedShape::cuboid(Vec3::splat(0.12)).expect("cuboid"),
            0.2,
            rng,
        ),
    ];
    vec![
        (
            "cuboid",
            SharedShape::cuboid(Vec3::new(0.3, 0.2, 0.1)).expect("cuboid"),
        ),
        ("hull", sphere_hull(rng, 30, 0.3)),
        ("sphere", SharedShape::sphere(0.2).expect("sphere")),
        ("capsule", SharedShape::capsule(0.1, 0.4).expect("capsule")),
        ("mesh", ring),
        (
            "compound",
            SharedShape::compound(convex_pieces).expect("compound"),
        ),
        (
            "mesh compound",
            SharedShape::compound(mesh_pieces).expect("compound"),
        ),
    ]
}

/// Radius of a ball about the shape's origin holding it.
fn reach(s: &SharedShape) -> f32 {
    let b = s.local_aabb();
    b.min.abs().max(b.max.abs()).length()
}

/// Two motions, b aimed at a (with an offset, so some miss), mostly
/// starting apart.
fn motions(rng: &mut Rng, a: &SharedShape, b: &SharedShape, spin: bool) -> [RigidMotion; 2] {
    let u = rng.unit_vector();
    // One path in six starts with the bounding balls overlapping (the
    // shapes may touch at time 0), the others apart.
    let gap = if rng.below(6) == 0 {
        rng.range(0.0, reach(a) + reach(b))
    } else {
        reach(a) + reach(b) + rng.range(0.02, 0.5)
    };
    let start_b = Pose::new(rng.rotation(), u * gap);
    let aim = -u * gap * rng.range(0.6, 2.5) + rng.in_cube(0.6);
    let mut ma = RigidMotion::linear(Pose::new(rng.rotation(), Vec3::ZERO), rng.in_cube(0.2));
    let mut mb = RigidMotion::linear(start_b, aim);
    if spin {
        for (m, s) in [(&mut ma, a), (&mut mb, b)] {
            m.angvel = rng.unit_vector() * rng.range(0.5, 4.0);
            m.local_center = rng.in_cube(0.5 * reach(s));
        }
    }
    [ma, mb]
}

struct Tally {
    hits: usize,
    misses: usize,
    started: usize,
}

/// One cast against 400 samples of the distance (see the module docs).
fn check_one(
    (a, b): (&SharedShape, &SharedShape),
    [ma, mb]: [RigidMotion; 2],
    options: &ShapeCastOptions,
    what: &str,
    tally: &mut Tally,
) {
    const SAMPLES: usize = 400;
    let hit = cast_shapes_nonlinear((a, &ma), (b, &mb), options).expect("valid input");
    let dist = |t: f32| distance(a, &ma.pose_at(t), b, &mb.pose_at(t)).expect("valid poses");
    let max = options.max_time_of_impact;
    let first = (0..=SAMPLES)
        .map(|i| max * i as f32 / SAMPLES as f32)
        .find(|&t| dist(t) <= options.target_distance);
    let slack = 1e-4 * max;
    match (hit, first) {
        (None, None) => tally.misses += 1,
        (None, Some(t)) => panic!("{what}: missed the contact at {t}"),
        (Some(h), first) => {
            tally.hits += 1;
            tally.started += usize::from(h.started_touching);
            // Never after the first touching sample, and no touching
            // sample before it (the advancement never steps past contact).
            if let Some(t) = first {
                assert!(h.time_of_impact <= t + slack, "{what}: {h:?} after {t}");
                let before = (0..=SAMPLES)
                    .map(|i| max * i as f32 / SAMPLES as f32)
                    .take_while(|&s| s < h.time_of_impact - slack)
                    .find(|&s| dist(s) <= options.target_distance);
                assert_eq!(before, None, "{what}: touching before {h:?}");
            }
            let d = dist(h.time_of_impact);
            let bound = options.target_distance + options.tolerance + 1e-4;
            assert!(d <= bound, "{what}: distance {d} at {h:?}");
            assert!(
                (h.normal.length() - 1.0).abs() < 1e-3,
                "{what}: normal {h:?}"
            );
            if !h.started_touching {
                check_features((a, &ma), (b, &mb), &h, what);
            }
        }
    }
}

/// Distance from `p` (local frame) to a feature of a polytope.
fn feature_distance(poly: &ConvexPolytope, f: Feature, p: Vec3) -> f32 {
    match f {
        Feature::Vertex(v) => p.distance(poly.vertex(v)),
        Feature::Edge(e) => {
            let [u, w] = poly.edge(e).v.map(|i| poly.vertex(i));
            p.distance(point_segment(p, u, w))
        }
        Feature::Face(f) => {
            let face = poly.face(f);
            let outside = poly
                .face_loop(f)
                .map(|(_, v, side)| -side.dot(p - poly.vertex(v)))
                .fold(0.0f32, f32::max);
            (face.normal.dot(p) - face.offset).abs().max(outside)
        }
    }
}

/// For two polytopes, the reported features hold the contact points.
fn check_features(
    a: (&SharedShape, &RigidMotion),
    b: (&SharedShape, &RigidMotion),
    h: &ShapeCastHit,
    what: &str,
) {
    let (Some(pa), Some(pb)) = (a.0.polytope(), b.0.polytope()) else {
        return;
    };
    let (xa, xb) = (a.1.pose_at(h.time_of_impact), b.1.pose_at(h.time_of_impact));
    let da = feature_distance(pa, h.features[0], xa.inverse().transform_point(h.point_a));
    let db = feature_distance(pb, h.features[1], xb.inverse().transform_point(h.point_b));
    assert!(
        da.max(db) <= 2e-3,
        "{what}: features {:?} {da} / {db} from the points",
        h.features
    );
}

fn check_kinds(spin: bool, options: &ShapeCastOptions, trials: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let shapes = kinds(&mut rng);
    let mut tally = Tally {
        hits: 0,
        misses: 0,
        started: 0,
    };
    for (na, a) in &shapes {
        for (nb, b) in &shapes {
            for i in 0..trials {
                let m = motions(&mut rng, a, b, spin);
                let what = format!("{na} / {nb} #{i}");
                check_one((a, b), m, options, &what, &mut tally);
            }
        }
    }
    let total = tally.hits + tally.misses;
    assert!(
        tally.hits * 3 >= total && tally.misses * 10 >= total && tally.started * 50 >= total,
        "{} hits ({} started touching), {} misses",
        tally.hits,
        tally.started,
        tally.misses
    );
}

#[test]
fn linear_casts_of_every_kind_pair_match_fine_time_stepping() {
    check_kinds(false, &ShapeCastOptions::default(), 8, 1);
}

#[test]
fn spinning_casts_of_every_kind_pair_match_fine_time_stepping() {
    check_kinds(true, &ShapeCastOptions::default(), 5, 2);
}

#[test]
fn casts_to_a_target_distance_match_fine_time_stepping() {
    let options = ShapeCastOptions {
        target_distance: 0.05,
        tolerance: 1e-3,
        ..ShapeCastOptions::default()
    };
    check_kinds(false, &options, 3, 3);
    check_kinds(true, &options, 2, 4);
}

fn keep_min<B: SupportMap + ?Sized>(
    best: &mut Option<f32>,
    ma: &Mover<'_, PointSetSupport<'_>>,
    mb: &Mover<'_, B>,
    params: &CastParams,
) {
    if let Some(h) = time_of_impact(ma, mb, params, &mut GjkCache::new()) {
        *best = Some(best.map_or(h.time, |b| b.min(h.time)));
    }
}

/// The minimum over all part pairs of conservative advancement.
fn brute_force(
    a: (&TriMesh, &RigidMotion),
    b: (Option<&TriMesh>, &dyn SupportMap, f32, &RigidMotion),
    params: &CastParams,
) -> Option<f32> {
    let reach = |tri: &[Vec3; 3], m: &RigidMotion| Reach::of_points(*tri, m);
    let mut best: Option<f32> = None;
    for ta in 0..a.0.triangles().len() {
        let tri_a = a.0.triangle(ta);
        let sa = PointSetSupport(&tri_a[..]);
        let ma = Mover {
            shape: &sa,
            motion: a.1,
            reach: reach(&tri_a, a.1),
        };
        match b.0 {
            Some(mesh) => {
                for tb in 0..mesh.triangles().len() {
                    let tri_b = mesh.triangle(tb);
                    let sb = PointSetSupport(&tri_b[..]);
                    keep_min(
                        &mut best,
                        &ma,
                        &Mover {
                            shape: &sb,
                            motion: b.3,
                            reach: reach(&tri_b, b.3),
                        },
                        params,
                    );
                }
            }
            None => keep_min(
                &mut best,
                &ma,
                &Mover {
                    shape: b.1,
                    motion: b.3,
                    reach: Reach::ball(b.2),
                },
                params,
            ),
        }
    }
    best
}

#[test]
fn tree_search_by_time_equals_all_triangle_pairs() {
    let (p, t) = torus(0.35, 0.1, 12, 8);
    let ring = TriMesh::new(p, t).expect("torus");
    let (p, t) = cube_sphere(0.3, 3);
    let ball = TriMesh::new(p, t).expect("cube sphere");
    let obb = |m: &TriMesh| ObbTree::build(m.vertices(), m.triangles(), SplitRule::Mean, 1);
    let aabb = |m: &TriMesh| AabbTree::build_mesh(m, &AabbTreeOptions::default());
    let (ring_obb, ball_aabb) = (obb(&ring), aabb(&ball));
    let blob = Sphere::new(Vec3::new(0.05, 0.0, 0.0), 0.25);
    let blob_tree = single_leaf(bevy_icollide::math::Aabb::from_center_half_extents(
        Vec3::new(0.05, 0.0, 0.0),
        Vec3::splat(0.25),
    ));
    let params = CastParams {
        max_time: 1.0,
        target: 0.0,
        tolerance: 1e-4,
    };
    let mut rng = Rng::new(5);
    let (mut hits, mut stack) = (0, Vec::new());
    let ring_shape =
        SharedShape::trimesh(ring.vertices().to_vec(), ring.triangles().to_vec()).expect("ring");
    for i in 0..40 {
        let [ma, mb] = motions(&mut rng, &ring_shape, &ring_shape, i % 2 == 1);
        let side_a = CastSide {
            tree: &ring_obb,
            parts: Parts::Mesh(&ring, Vec3::ONE),
            motion: &ma,
        };
        // Mesh against mesh.
        let side_b = CastSide {
            tree: &ball_aabb,
            parts: Parts::Mesh(&ball, Vec3::ONE),
            motion: &mb,
        };
        let got = tree_cast(&side_a, &side_b, &params, &mut stack).map(|c| c.hit.time);
        let want = brute_force((&ring, &ma), (Some(&ball), &blob, 0.0, &mb), &params);
        assert_eq!(got, want, "mesh pair #{i}");
        hits += usize::from(got.is_some());
        // Mesh against a convex shape (a tree of one leaf).
        let r = 0.3 + mb.local_center.length();
        let side_b = CastSide {
            tree: &blob_tree,
            parts: Parts::Convex {
                shape: &blob,
                reach: Reach::ball(r),
            },
            motion: &mb,
        };
        let got = tree_cast(&side_a, &side_b, &params, &mut stack).map(|c| c.hit.time);
        let want = brute_force((&ring, &ma), (None, &blob, r, &mb), &params);
        assert_eq!(got, want, "mesh-convex pair #{i}");
        hits += usize::from(got.is_some());
    }
    assert!((20..=75).contains(&hits), "{hits} hits of 80");
}

#[test]
fn a_fast_small_sphere_does_not_tunnel_through_a_thin_wall() {
    let wall = SharedShape::trimesh(
        vec![
            Vec3::new(0.0, -5.0, -5.0),
            Vec3::new(0.0, 5.0, -5.0),
            Vec3::new(0.0, 0.0, 5.0),
        ],
        vec![[0, 1, 2]],
    )
    .expect("one triangle");
    let ball = SharedShape::sphere(0.05).expect("sphere");
    for sizes in [1.0f32, 10.0, 100.0, 1000.0] {
        let speed = sizes * 0.1;
        let start = Pose::from_translation(Vec3::new(-1.0, 0.3, -0.2));
        let hit = cast_shapes(
            (&wall, &Pose::IDENTITY, Vec3::ZERO),
            (&ball, &start, Vec3::X * speed),
            &ShapeCastOptions {
                max_time_of_impact: 2.0 / speed,
                ..ShapeCastOptions::default()
            },
        )
        .expect("valid")
        .expect("the sphere reaches the wall");
        let want = 0.95 / speed;
        assert!(
            (hit.time_of_impact - want).abs() <= 1e-4 / speed + 1e-6 * want,
            "{sizes}: {hit:?}"
        );
        assert!(
            hit.normal.distance(-Vec3::X) < 1e-3
                && hit.features[0] == bevy_icollide::shape::Feature::Face(0),
            "{hit:?}"
        );
    }
}

#[test]
fn bad_casts_are_refused_with_the_fault_named() {
    let s = SharedShape::sphere(1.0).expect("sphere");
    let p = Pose::IDENTITY;
    let far = Pose::from_translation(Vec3::X * 5.0);
    let opts = ShapeCastOptions::default();
    let cast =
        |va: Vec3, o: &ShapeCastOptions| cast_shapes((&s, &p, va), (&s, &far, Vec3::ZERO), o);
    for v in [Vec3::NAN, Vec3::new(f32::INFINITY, 0.0, 0.0)] {
        assert!(matches!(cast(v, &opts), Err(QueryError::InvalidCast(_))));
    }
    for bad in [
        ShapeCastOptions {
            max_time_of_impact: f32::NAN,
            ..opts
        },
        ShapeCastOptions {
            max_time_of_impact: -1.0,
            ..opts
        },
        ShapeCastOptions {
            max_time_of_impact: f32::INFINITY,
            ..opts
        },
        ShapeCastOptions {
            target_distance: -0.1,
            ..opts
        },
        ShapeCastOptions {
            tolerance: 0.0,
            ..opts
        },
        ShapeCastOptions {
            tolerance: f32::NAN,
            ..opts
        },
    ] {
        let e = cast(Vec3::X, &bad).expect_err("refused");
        assert!(matches!(e, QueryError::InvalidCast(_)), "{e}");
    }
    let nan_pose = Pose::new(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), Vec3::ZERO);
    let e =
        cast_shapes((&s, &nan_pose, Vec3::X), (&s, &far, Vec3::ZERO), &opts).expect_err("refused");
    assert!(matches!(e, QueryError::InvalidPose(_)));
    let spin = RigidMotion {
        local_center: Vec3::NAN,
        angvel: Vec3::Y,
        ..RigidMotion::stationary(p)
    };
    let e = cast_shapes_nonlinear((&s, &spin), (&s, &RigidMotion::stationary(far)), &opts)
        .expect_err("refused");
    assert!(matches!(e, QueryError::InvalidCast(m) if m.contains("center")));
    // Boundary values that are fine: zero velocity, zero max time.
    assert_eq!(cast(Vec3::ZERO, &opts), Ok(None));
    let zero = ShapeCastOptions {
        max_time_of_impact: 0.0,
        ..opts
    };
    assert_eq!(cast(Vec3::X * 100.0, &zero), Ok(None));
    // Started touching: time 0, flagged.
    let touching = cast_shapes(
        (&s, &p, Vec3::ZERO),
        (&s, &Pose::from_translation(Vec3::X), Vec3::X),
        &opts,
    )
    .expect("valid")
    .expect("touching");
    assert!(touching.started_touching && touching.time_of_impact == 0.0);
    assert!(touching.normal.distance(Vec3::X) < 1e-3, "{touching:?}");
}

/// A world cast with a target distance sees a body the shape comes within
/// the target of, though its swept box never overlaps the body's box (the
/// swept box was not grown by the target: a ball grazing a wall to within
/// 10⁻⁴ of it went unreported at a target of 0.005).
#[test]
fn world_cast_with_a_target_distance_sees_bodies_the_sweep_only_nears() {
    use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, QueryFilter};
    let mut world = CollisionWorld::default();
    let wall = SharedShape::cuboid(Vec3::new(0.5, 5.0, 50.0)).expect("cuboid");
    let h = world.add_body(BodyDesc::new(wall.clone()));
    let wall_pose = Pose::from_translation(Vec3::X * 1.5);
    world.set_pose(h, wall_pose).expect("pose");
    let _ = world.step();
    let ball = SharedShape::sphere(0.25).expect("sphere");
    let start = Pose::from_translation(Vec3::new(0.7399, 0.0, 0.0));
    for vel in [Vec3::new(0.01, 0.0, 1.0), Vec3::new(0.01, 0.0, 0.0)] {
        let options = ShapeCastOptions {
            target_distance: 0.005,
            tolerance: 0.00125,
            ..Default::default()
        };
        let one = cast_shapes(
            (&ball, &start, vel),
            (&wall, &wall_pose, Vec3::ZERO),
            &options,
        )
        .expect("cast")
        .expect("the ball comes within 0.005 of the wall");
        let motion = RigidMotion::linear(start, vel);
        let hit = world
            .cast_shape(&ball, &motion, &options, QueryFilter::ALL)
            .expect("cast")
            .expect("the world sees the wall");
        assert_eq!((hit.body, hit.hit.time_of_impact), (h, one.time_of_impact));
    }
}
