//! Half-spaces in every query, against an independent `f64` reference: the
//! plane `n · x = c` in the world (`n` the `f64` normal turned by the `f64`
//! rotation, `c = n · t`); a convex shape's signed distance to it is
//! `-h(-n) - c` (its analytic support function, `implicit_reference.rs`), a
//! mesh's its lowest vertex's, a ray meets it at `(c - n · o) / (n · d)`.
//! Seeded random placements of every kind, a mesh under both trees, a
//! compound; identity poses, a triangle with a vertex on the plane, gaps of
//! `2⁻²⁴`, scenes far from the origin; casts; and the world under every
//! broad phase and bounds mode (the half-space's huge box).

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::broad_phase::{BroadPhase, BruteForce, SweepAndPrune};
use bevy_icollide::bvh::TreeKind;
use bevy_icollide::collider::{CompoundPiece, ShapeError, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::query::{self, Ray, ShapeCastOptions, cast_shapes, cast_shapes_nonlinear};
use bevy_icollide::testkit::{Rng, long_factor, torus};
use glam::{DQuat, DVec3, Quat, Vec3};

use crate::exact_implicit::any_convex;
use crate::exact_round_kinds::round_kind;
use crate::implicit_reference::Placed;

/// The plane of a half-space at a pose, `f64`: unit normal and offset.
pub(crate) fn plane(h: &SharedShape, pose: &Pose) -> (DVec3, f64) {
    let n = h
        .half_space()
        .expect("half-space")
        .normal
        .as_dvec3()
        .normalize();
    let q = pose.rotation;
    let rot = DQuat::from_xyzw(q.x.into(), q.y.into(), q.z.into(), q.w.into()).normalize();
    let n = rot * n;
    (n, n.dot(pose.translation.as_dvec3()))
}

/// The signed distance of a convex shape to the plane.
pub(crate) fn signed(s: &SharedShape, pose: &Pose, (n, c): (DVec3, f64)) -> f64 {
    -Placed::new(s, pose).support(-n) - c
}

pub(crate) fn any_kind(rng: &mut Rng) -> SharedShape {
    if rng.bool() {
        round_kind(rng, 1.0)
    } else {
        any_convex(rng)
    }
}

fn ground(rng: &mut Rng) -> (SharedShape, Pose) {
    let n = rng.unit_vector() * rng.range(0.5, 3.0);
    let h = SharedShape::half_space(n).expect("half-space");
    (h, Pose::new(rng.rotation(), rng.in_cube(0.5)))
}

/// One pair, the half-space first or second: intersects, distance, the
/// witnesses (on the plane, on the shape), the depth and normal, and the
/// world's answer. `band`: no boolean check within it; `tol` for lengths.
fn check(
    (h, ph): (&SharedShape, &Pose),
    (s, ps): (&SharedShape, &Pose),
    (band, tol): (f64, f64),
) -> Option<bool> {
    let p = plane(h, ph);
    let want = signed(s, ps, p);
    let what = format!("{} at {ps:?}, plane {p:?}: {want}", s.kind_name());
    let hit = query::intersects(h, ph, s, ps).expect("intersects");
    let flip = query::intersects(s, ps, h, ph).expect("intersects");
    assert_eq!(hit, flip, "symmetric: {what}");
    if want.abs() > band {
        assert_eq!(hit, want < 0.0, "intersects: {what}");
    }
    let c = query::closest_points(h, ph, s, ps).expect("closest");
    assert!(
        (f64::from(c.distance) - want.max(0.0)).abs() <= tol,
        "distance {c:?}: {what}"
    );
    let on_plane = p.0.dot(c.point_a.as_dvec3()) - p.1;
    assert!(
        on_plane.abs() <= tol,
        "point on the plane {on_plane}: {what}"
    );
    let on_shape = Placed::new(s, ps).distance(c.point_b.as_dvec3());
    assert!(on_shape <= tol, "point on the shape {on_shape}: {what}");
    let back = query::closest_points(s, ps, h, ph).expect("closest");
    assert_eq!(
        (back.point_a, back.point_b),
        (c.point_b, c.point_a),
        "{what}"
    );
    let pen = query::penetration(h, ph, s, ps).expect("penetration");
    if want < -band {
        let pen = pen.unwrap_or_else(|| panic!("no penetration: {what}"));
        assert!(
            (f64::from(pen.depth) + want).abs() <= tol,
            "depth {pen:?}: {what}"
        );
        assert!(
            pen.normal.as_dvec3().distance(p.0) <= 1e-6,
            "normal: {what}"
        );
        let other = query::penetration(s, ps, h, ph)
            .expect("penetration")
            .expect("some");
        assert_eq!(other.normal, -pen.normal, "{what}");
    } else if want > band {
        assert!(pen.is_none(), "penetration apart: {what}");
    }
    (want.abs() > band).then_some(want > 0.0)
}

#[test]
fn half_space_against_every_kind_matches_the_f64_plane() {
    let mut rng = Rng::new(4501);
    let (mut apart, mut overlapping) = (0, 0);
    for _ in 0..400 * long_factor() {
        let (h, ph) = ground(&mut rng);
        let s = any_kind(&mut rng);
        let ps = Pose::new(rng.rotation(), ph.translation + rng.in_cube(0.8));
        match check((&h, &ph), (&s, &ps), (1e-6, 1e-5)) {
            Some(true) => apart += 1,
            Some(false) => overlapping += 1,
            None => {}
        }
    }
    assert!(apart > 100 && overlapping > 100, "{apart} / {overlapping}");
}

/// Identity poses, a cube resting on the ground `gap` above it (`±2⁻²⁴`
/// too), a triangle with a vertex on the plane, a segment in it; the same
/// scenes `2²⁰` and `2⁴⁰` from the origin.
#[test]
fn half_space_touching_grazing_and_far_from_the_origin() {
    let h = SharedShape::half_space(Vec3::Y).expect("ground");
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    let rbox = SharedShape::round_cuboid(Vec3::splat(0.375), 0.125).expect("rbox");
    let tri = SharedShape::triangle(
        Vec3::ZERO,
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0, 1.0),
    )
    .expect("tri");
    let seg = SharedShape::segment(-Vec3::X, Vec3::X).expect("seg");
    let tiny = 2f32.powi(-24);
    for far in [0.0, 2f32.powi(20), 2f32.powi(40)] {
        let at = Vec3::new(far, -far, far * 0.5);
        // What `f32` resolves there.
        let slack = 4.0 * f64::from(f32::EPSILON) * f64::from(far) + 1e-6;
        for gap in [0.0, tiny, -tiny, 1e-3, -1e-3, 0.25, -0.25] {
            let ph = Pose::new(Quat::IDENTITY, at);
            for (s, y) in [(&cube, 0.5), (&rbox, 0.5), (&tri, 0.0), (&seg, 0.0)] {
                let ps = Pose::new(Quat::IDENTITY, at + Vec3::Y * (y + gap));
                let want = signed(s, &ps, plane(&h, &ph));
                check((&h, &ph), (s, &ps), (slack.max(1e-9), slack.max(1e-6)));
                if far == 0.0 {
                    // The gap as placed (`y + gap` rounded), exactly.
                    let placed = ps.translation.y - y;
                    assert_eq!(want, f64::from(placed), "exact gap");
                    let d = query::distance(&h, &ph, s, &ps).expect("distance");
                    assert_eq!(d, placed.max(0.0), "{} gap {gap}", s.kind_name());
                    let hit = query::intersects(&h, &ph, s, &ps).expect("intersects");
                    assert_eq!(hit, placed <= 0.0, "{} gap {gap}", s.kind_name());
                }
            }
        }
    }
}

/// A torus mesh under both trees (and scaled in a world): the touched
/// triangles are those with a vertex on or below the plane, the distance
/// the lowest vertex's height.
#[test]
fn half_space_against_meshes_under_both_trees() {
    let mut rng = Rng::new(4502);
    let (v, t) = torus(0.6, 0.2, 16, 8);
    let mut touched = 0;
    for tree in [TreeKind::Obb, TreeKind::Aabb] {
        let mesh = SharedShape::trimesh_with_tree(v.clone(), t.clone(), tree).expect("mesh");
        for _ in 0..40 * long_factor() {
            let (h, ph) = ground(&mut rng);
            let pm = Pose::new(rng.rotation(), ph.translation + rng.in_cube(0.9));
            let (n, c) = plane(&h, &ph);
            let q = pm.rotation;
            let rot = DQuat::from_xyzw(q.x.into(), q.y.into(), q.z.into(), q.w.into());
            let height =
                |i: u32| n.dot(rot * v[i as usize].as_dvec3() + pm.translation.as_dvec3()) - c;
            let lowest = (0..v.len() as u32).map(height).fold(f64::MAX, f64::min);
            let d = query::distance(&h, &ph, &mesh, &pm).expect("distance");
            assert!(
                (f64::from(d) - lowest.max(0.0)).abs() <= 1e-5,
                "distance {d} vs {lowest}"
            );
            let mut world = CollisionWorld::new(WorldConfig::default()).expect("world");
            let hh = world.add_body(BodyDesc::new(h.clone()));
            let hm = world.add_body(BodyDesc::new(mesh.clone()));
            world.set_pose(hh, ph).expect("pose");
            world.set_pose(hm, pm).expect("pose");
            let _ = world.step();
            let got: Vec<u32> = world
                .pair(hh, hm)
                .and_then(|p| p.triangle_pairs())
                .map_or(Vec::new(), |pairs| pairs.iter().map(|p| p[1]).collect());
            for (i, tri) in t.iter().enumerate() {
                let low = tri.iter().map(|&k| height(k)).fold(f64::MAX, f64::min);
                if low.abs() > 1e-6 {
                    assert_eq!(got.contains(&(i as u32)), low < 0.0, "triangle {i}: {low}");
                }
            }
            if lowest.abs() > 1e-6 {
                let hit = query::intersects(&mesh, &pm, &h, &ph).expect("intersects");
                assert_eq!(hit, lowest < 0.0);
            }
            touched += usize::from(!got.is_empty());
        }
    }
    assert!(touched > 10, "{touched}");
}

/// Rays from above and below, parallel, with a limit: the `f64` crossing.
#[test]
fn half_space_ray_casts_match_the_f64_crossing() {
    let mut rng = Rng::new(4503);
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..2000 * long_factor() {
        let (h, ph) = ground(&mut rng);
        let (n, c) = plane(&h, &ph);
        let origin = ph.translation + rng.in_cube(3.0);
        let dir = rng.unit_vector() * rng.range(0.5, 2.0);
        let max_toi = if rng.bool() {
            rng.range(0.0, 4.0)
        } else {
            f32::INFINITY
        };
        let got = query::ray_cast(&h, &ph, &Ray::new(origin, dir), max_toi).expect("ray");
        let (o, d) = (origin.as_dvec3(), dir.as_dvec3());
        let above = n.dot(o) - c;
        let what = format!("{origin:?} {dir:?} {max_toi}: {got:?}, height {above}");
        if above.abs() < 1e-5 {
            continue;
        }
        if above < 0.0 {
            let g = got.unwrap_or_else(|| panic!("inside: {what}"));
            assert_eq!((g.toi, g.normal), (0.0, Vec3::ZERO), "{what}");
            continue;
        }
        let t = -above / n.dot(d);
        let hit = n.dot(d) < 0.0 && t <= f64::from(max_toi);
        if (t - f64::from(max_toi)).abs() < 1e-4 {
            continue;
        }
        // The ray's `f32` rounding in the half-space's frame, over the
        // angle it meets the plane at.
        let tol =
            8.0 * f64::from(f32::EPSILON) * (o.length() + t * d.length() + 1.0) / n.dot(d).abs();
        match got {
            Some(g) => {
                assert!(hit, "{what}");
                assert!((f64::from(g.toi) - t).abs() <= tol, "toi {t}: {what}");
                assert!(g.normal.as_dvec3().distance(n) <= 1e-6, "{what}");
                hits += 1;
            }
            None => {
                assert!(!hit, "missed at {t}: {what}");
                misses += 1;
            }
        }
    }
    assert!(hits > 300 && misses > 300, "{hits} / {misses}");
}

/// Linear casts: the `f64` time the signed distance (linear in time)
/// reaches 0; turning casts: touching at the reported time, apart at
/// sampled times before.
#[test]
fn half_space_shape_casts_match_the_f64_first_contact() {
    let mut rng = Rng::new(4504);
    let options = ShapeCastOptions::default();
    let (mut linear, mut turning) = (0, 0);
    for i in 0..200 * long_factor() {
        let (h, ph) = ground(&mut rng);
        let s = any_kind(&mut rng);
        let p = plane(&h, &ph);
        let ps = Pose::new(
            rng.rotation(),
            ph.translation + p.0.as_vec3() * 1.5 + rng.in_cube(0.5),
        );
        let vel = rng.in_cube(3.0);
        let d0 = signed(&s, &ps, p);
        if i % 4 == 0 {
            let m = RigidMotion {
                angvel: rng.unit_vector() * rng.range(0.5, 4.0),
                ..RigidMotion::linear(ps, vel)
            };
            let hit = cast_shapes_nonlinear((&h, &RigidMotion::stationary(ph)), (&s, &m), &options)
                .expect("cast");
            let end = hit.map_or(1.0, |x| x.time_of_impact);
            if let Some(x) = hit {
                let at = signed(&s, &m.pose_at(x.time_of_impact), p);
                assert!(at <= f64::from(options.tolerance) + 1e-5, "turning: {at}");
                turning += 1;
            }
            for k in 0..40 {
                let t = end * k as f32 / 40.0;
                let sd = signed(&s, &m.pose_at(t), p);
                assert!(
                    sd > -1e-5 || hit.is_some_and(|x| x.started_touching),
                    "missed at {t}: {sd}"
                );
            }
            continue;
        }
        // Both orders: the half-space moving the other way.
        let hit = if i % 2 == 0 {
            cast_shapes((&h, &ph, Vec3::ZERO), (&s, &ps, vel), &options)
        } else {
            cast_shapes((&s, &ps, Vec3::ZERO), (&h, &ph, -vel), &options)
        }
        .expect("cast");
        let rate = p.0.dot(vel.as_dvec3());
        let t = d0 / -rate;
        let want = d0 <= 0.0 || (rate < 0.0 && t <= 1.0);
        if d0 > 0.0 && (t - 1.0).abs() < 1e-4 {
            continue;
        }
        assert_eq!(hit.is_some(), want, "{hit:?}: d0 {d0}, rate {rate}");
        if let Some(x) = hit.filter(|_| d0 > 0.0) {
            let toi = f64::from(x.time_of_impact);
            assert!(toi <= t && t - toi <= 1e-5 / -rate, "time {toi} vs {t}");
            let at = signed(
                &s,
                &Pose::new(ps.rotation, ps.translation + vel * x.time_of_impact),
                p,
            );
            assert!(at.abs() <= 1e-5, "apart by {at} at the hit");
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            assert!(x.normal.as_dvec3().distance(p.0 * sign) <= 1e-6, "normal");
            linear += 1;
        }
    }
    assert!(
        linear > 30 && turning > 10,
        "{linear} linear, {turning} turning"
    );
}

/// A ground under bodies of every kind (a mesh, a compound) in motion,
/// under the grid, sweep and prune and brute force, dynamic box and fixed
/// cube: each pair touches when the `f64` reference says so; a body far
/// above (`2⁴⁰`) pairs with it in the broad phase at most, never touches.
#[test]
fn half_space_in_the_world_under_every_broad_phase() {
    fn run<B: BroadPhase>(mut world: CollisionWorld<B>, mode: BoundsMode, seed: u64) -> usize {
        let mut rng = Rng::new(seed);
        let h = SharedShape::half_space(Vec3::new(0.1, 1.0, -0.05)).expect("ground");
        let ph = Pose::new(Quat::from_rotation_x(0.1), Vec3::new(0.0, -0.5, 0.0));
        let g = world.add_body(BodyDesc {
            bounds: mode,
            is_static: true,
            ..BodyDesc::new(h.clone())
        });
        world.set_pose(g, ph).expect("pose");
        let (v, t) = torus(0.4, 0.1, 12, 6);
        let mesh = SharedShape::trimesh(v.clone(), t).expect("mesh");
        let compound = SharedShape::compound(vec![CompoundPiece {
            pose: Pose::new(Quat::IDENTITY, Vec3::X * 0.2),
            shape: round_kind(&mut rng, 0.5),
        }])
        .expect("compound");
        let mut shapes: Vec<SharedShape> = (0..10).map(|_| any_kind(&mut rng)).collect();
        shapes.push(mesh.clone());
        shapes.push(compound.clone());
        let mut bodies = Vec::new();
        for s in shapes {
            let b = world.add_body(BodyDesc {
                bounds: mode,
                ..BodyDesc::new(s.clone())
            });
            bodies.push((
                b,
                s,
                Pose::new(rng.rotation(), rng.in_cube(1.0)),
                rng.in_cube(0.02),
            ));
        }
        let far = world.add_body(BodyDesc::new(SharedShape::sphere(1.0).expect("sphere")));
        world
            .set_pose(far, Pose::new(Quat::IDENTITY, Vec3::Y * 2f32.powi(40)))
            .expect("pose");
        let (n, c) = plane(&h, &ph);
        let mut touching = 0;
        for _ in 0..30 * long_factor() {
            for (b, _, pose, v) in &mut bodies {
                pose.translation += *v;
                if pose.translation.abs().max_element() > 1.0 {
                    *v = -*v;
                }
                world.set_pose(*b, *pose).expect("pose");
            }
            let _ = world.step();
            for (b, s, pose, _) in &bodies {
                let want = if s.ptr_eq(&mesh) {
                    let q = pose.rotation;
                    let rot = DQuat::from_xyzw(q.x.into(), q.y.into(), q.z.into(), q.w.into());
                    v.iter()
                        .map(|p| n.dot(rot * p.as_dvec3() + pose.translation.as_dvec3()) - c)
                        .fold(f64::MAX, f64::min)
                } else if let Some(cp) = s.compound() {
                    let p = pose.mul(&cp.pieces()[0].pose);
                    signed(&cp.pieces()[0].shape, &p, (n, c))
                } else {
                    signed(s, pose, (n, c))
                };
                let got = world.pair(g, *b).is_some_and(|p| p.result.touching);
                if want.abs() > 1e-6 {
                    assert_eq!(got, want < 0.0, "{} at {pose:?}: {want}", s.kind_name());
                }
                touching += usize::from(got);
            }
            assert!(
                !world.pair(g, far).is_some_and(|p| p.result.touching),
                "far body"
            );
        }
        touching
    }
    for (i, mode) in [BoundsMode::DynamicBox, BoundsMode::FixedCube]
        .into_iter()
        .enumerate()
    {
        let seed = 4505 + i as u64;
        let config = WorldConfig::default();
        let a = run(CollisionWorld::new(config).expect("world"), mode, seed);
        let b = run(
            CollisionWorld::with_broad_phase(config, SweepAndPrune::new()).expect("w"),
            mode,
            seed,
        );
        let c = run(
            CollisionWorld::with_broad_phase(config, BruteForce::new()).expect("w"),
            mode,
            seed,
        );
        assert!(a > 20 && a == b && b == c, "{a} {b} {c}");
    }
}

/// Bad normals are refused; a half-space is no compound piece; scaling
/// keeps it.
#[test]
fn bad_half_spaces_are_refused() {
    for n in [
        Vec3::ZERO,
        Vec3::NAN,
        Vec3::new(1.0, f32::INFINITY, 0.0),
        Vec3::new(f32::NAN, 1.0, 0.0),
    ] {
        let s = SharedShape::half_space(n);
        assert!(
            matches!(s, Err(ShapeError::InvalidParameter(_))),
            "{n}: {s:?}"
        );
    }
    for n in [Vec3::Y * 1e-40, Vec3::new(3e38, 3e38, 0.0)] {
        let s = SharedShape::half_space(n).expect("tiny or huge normals are fine");
        let got = s.half_space().expect("half-space").normal;
        assert!((got.length() - 1.0).abs() < 1e-6, "{got}");
    }
    let h = SharedShape::half_space(Vec3::Y).expect("ground");
    assert_eq!(h.kind_name(), "half-space");
    let piece = CompoundPiece {
        pose: Pose::IDENTITY,
        shape: h.clone(),
    };
    assert!(matches!(
        SharedShape::compound(vec![piece]),
        Err(ShapeError::InvalidParameter(_))
    ));
    assert_eq!(
        h.scaled(2.0)
            .expect("scaled")
            .half_space()
            .map(|x| x.normal),
        Some(Vec3::Y)
    );
}

/// A mesh (both trees) and a compound cast at a ground, linear: the hit at
/// the `f64` time the lowest vertex (piece) reaches the plane.
#[test]
fn half_space_casts_of_meshes_and_compounds() {
    let mut rng = Rng::new(4506);
    let (v, t) = torus(0.6, 0.2, 16, 8);
    let compound = SharedShape::compound(vec![
        CompoundPiece {
            pose: Pose::new(Quat::IDENTITY, Vec3::X * 0.5),
            shape: round_kind(&mut rng, 0.5),
        },
        CompoundPiece {
            pose: Pose::new(Quat::IDENTITY, -Vec3::X * 0.5),
            shape: any_convex(&mut rng),
        },
    ])
    .expect("compound");
    let mut hits = 0;
    for tree in [TreeKind::Obb, TreeKind::Aabb] {
        let mesh = SharedShape::trimesh_with_tree(v.clone(), t.clone(), tree).expect("mesh");
        for _ in 0..40 * long_factor() {
            let (h, ph) = ground(&mut rng);
            let (n, c) = plane(&h, &ph);
            let ps = Pose::new(rng.rotation(), ph.translation + n.as_vec3() * 1.5);
            let vel = -n.as_vec3() * rng.range(0.5, 2.0) + rng.in_cube(0.5);
            let lowest = |s: &SharedShape, pose: &Pose| -> f64 {
                if s.ptr_eq(&mesh) {
                    let q = pose.rotation;
                    let rot = DQuat::from_xyzw(q.x.into(), q.y.into(), q.z.into(), q.w.into());
                    v.iter()
                        .map(|p| n.dot(rot * p.as_dvec3() + pose.translation.as_dvec3()) - c)
                        .fold(f64::MAX, f64::min)
                } else {
                    let cp = s.compound().expect("compound");
                    cp.pieces()
                        .iter()
                        .map(|x| signed(&x.shape, &pose.mul(&x.pose), (n, c)))
                        .fold(f64::MAX, f64::min)
                }
            };
            for s in [&mesh, &compound] {
                let d0 = lowest(s, &ps);
                let rate = n.dot(vel.as_dvec3());
                let want = d0 / -rate;
                let options = ShapeCastOptions::default();
                let hit =
                    cast_shapes((&h, &ph, Vec3::ZERO), (s, &ps, vel), &options).expect("cast");
                if d0 <= 0.0 || (want - 1.0).abs() < 1e-4 {
                    continue;
                }
                assert_eq!(
                    hit.is_some(),
                    rate < 0.0 && want <= 1.0,
                    "{hit:?} vs {want}"
                );
                if let Some(x) = hit {
                    let toi = f64::from(x.time_of_impact);
                    assert!(
                        toi <= want && want - toi <= 1e-5 / -rate,
                        "time {toi} vs {want}"
                    );
                    hits += 1;
                }
            }
        }
    }
    assert!(hits > 40, "{hits}");
}
