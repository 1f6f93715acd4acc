//! The checks `exact_implicit.rs` (cylinders, cones) and
//! `exact_round_kinds.rs` (rounded boxes and hulls, segments, triangles)
//! both run, each with its own shape generator, seed and counts, against
//! the `f64` reference of `implicit_reference.rs` (tolerances of
//! `exact_implicit.rs`).

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::bvh::TreeKind;
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion, rounding_pad};
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::query::{
    self, Ray, RayHit, ShapeCastOptions, cast_shapes, cast_shapes_nonlinear,
};
use bevy_icollide::testkit::{Rng, long_factor, torus};
use glam::{DVec3, Quat, Vec3};

use crate::exact_implicit::{
    BAND, TOL, any_convex, check_pair, separation_at, size, triangle_ref, world_reference,
};
use crate::implicit_reference::{Placed, sep, separation, trace};

/// A generator of the kind under test at a scale.
pub(crate) type Kind = fn(&mut Rng, f32) -> SharedShape;

/// 300 seeded pairs of a `kind` shape and an `other`, in either order,
/// through `check_pair`: how many were apart and how many overlapping.
pub(crate) fn random_pairs(
    seed: u64,
    kind: Kind,
    other: fn(&mut Rng) -> SharedShape,
) -> (u32, u32) {
    let mut rng = Rng::new(seed);
    let (mut apart, mut overlapping) = (0, 0);
    for _ in 0..300 * long_factor() {
        let a = kind(&mut rng, 1.0);
        let b = other(&mut rng);
        let pa = Pose::new(rng.rotation(), rng.in_cube(0.3));
        let pb = Pose::new(rng.rotation(), rng.in_cube(0.7));
        let (first, second) = if rng.bool() {
            ((&a, &pa), (&b, &pb))
        } else {
            ((&b, &pb), (&a, &pa))
        };
        match check_pair(first, second, BAND, TOL) {
            Some(true) => apart += 1,
            Some(false) => overlapping += 1,
            None => {}
        }
    }
    (apart, overlapping)
}

/// Scenes scaled by `2^k` placed `2^(k+10)` from the origin, the second
/// shape within `spread · 2^k` of the first: `check_pair` with the band and
/// tolerance `2·10⁻³` that `f32` poses there resolve.
pub(crate) fn scaled_far(seed: u64, ks: &[i32], kind: Kind, spread: f32) {
    let mut rng = Rng::new(seed);
    for &k in ks {
        let scale = 2f32.powi(k);
        let far = Vec3::new(1.0, -1.0, 0.5) * 2f32.powi(k + 10);
        for _ in 0..40 {
            let a = kind(&mut rng, scale);
            let b = if rng.bool() {
                kind(&mut rng, scale)
            } else {
                SharedShape::cuboid(rng.vec(0.1, 0.4) * scale).expect("cuboid")
            };
            let pa = Pose::new(rng.rotation(), far);
            let pb = Pose::new(rng.rotation(), far + rng.in_cube(spread) * scale);
            check_pair((&a, &pa), (&b, &pb), 2e-3, 2e-3);
        }
    }
}

/// A `kind` shape at `scale` against torus meshes under an OBB and an AABB
/// tree: the world's touched triangles are those whose `f64` separation
/// is negative (outside the band), the distance the least separation,
/// intersects whether any is touched. With `prefilter`, triangles a
/// separating direction towards their centroid already puts beyond the
/// least found are skipped.
pub(crate) fn against_meshes(seed: u64, kind: Kind, scale: f32, prefilter: bool) {
    let mut rng = Rng::new(seed);
    let (v, t) = torus(0.6, 0.2, 16, 8);
    let tris: Vec<[Vec3; 3]> = t.iter().map(|x| x.map(|i| v[i as usize])).collect();
    let mut touched = 0;
    for tree in [TreeKind::Obb, TreeKind::Aabb] {
        let mesh = SharedShape::trimesh_with_tree(v.clone(), t.clone(), tree).expect("mesh");
        for _ in 0..30 * long_factor() {
            let s = kind(&mut rng, scale);
            let (ps, pm) = (
                Pose::new(rng.rotation(), rng.in_cube(0.9)),
                Pose::new(rng.rotation(), rng.in_cube(0.1)),
            );
            let extent = size(&s, &mesh);
            let (want, least) = mesh_reference((&s, &ps), (&mesh, &pm), &tris, prefilter);
            let got = world_triangles((&s, &ps), (&mesh, &pm));
            for (i, sv) in &want {
                if sv.abs() > BAND * extent {
                    assert_eq!(
                        got.contains(i),
                        *sv < 0.0,
                        "triangle {i}, separation {sv}, {tree:?}"
                    );
                }
            }
            touched += usize::from(!got.is_empty());
            let d = query::distance(&s, &ps, &mesh, &pm).expect("distance");
            assert!(
                (f64::from(d) - least).abs() <= TOL * extent,
                "distance {d} vs {least}, {tree:?}"
            );
            let hit = query::intersects(&s, &ps, &mesh, &pm).expect("intersects");
            assert_eq!(hit, !got.is_empty(), "intersects, {tree:?}");
        }
    }
    assert!(touched > 10, "{touched} touching");
}

/// The `f64` separation of each triangle checked from the shape, and the
/// least (clamped at 0).
fn mesh_reference(
    (s, ps): (&SharedShape, &Pose),
    (mesh, pm): (&SharedShape, &Pose),
    tris: &[[Vec3; 3]],
    prefilter: bool,
) -> (Vec<(u32, f64)>, f64) {
    let placed = Placed::new(s, ps);
    let scale = size(s, mesh);
    let c = query::closest_points(s, ps, mesh, pm).expect("closest");
    let seed = [c.point_b - c.point_a];
    let mut least = f64::MAX;
    let mut want = Vec::new();
    for (i, tri) in tris.iter().enumerate() {
        let rt = Placed::of(triangle_ref(*tri), pm);
        if prefilter {
            let centroid = pm
                .transform_point((tri[0] + tri[1] + tri[2]) / 3.0)
                .as_dvec3();
            let quick = sep(&placed, &rt, (centroid - placed.pos).normalize_or(DVec3::X));
            if quick > least.max(BAND * scale) {
                continue;
            }
        }
        let (sv, _) = separation(&placed, &rt, &seed);
        least = least.min(sv.max(0.0));
        want.push((i as u32, sv));
    }
    (want, least)
}

/// The mesh's triangles a one-pair world reports touched by the shape.
fn world_triangles((s, ps): (&SharedShape, &Pose), (mesh, pm): (&SharedShape, &Pose)) -> Vec<u32> {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("world");
    let hs = world.add_body(BodyDesc::new(s.clone()));
    let hm = world.add_body(BodyDesc::new(mesh.clone()));
    world.set_pose(hs, *ps).expect("pose");
    world.set_pose(hm, *pm).expect("pose");
    let _ = world.step();
    world
        .pair(hs, hm)
        .and_then(|p| p.triangle_pairs())
        .map_or(Vec::new(), |pairs| {
            pairs
                .iter()
                .map(|p| if hs < hm { p[1] } else { p[0] })
                .collect()
        })
}

/// Seeded casts of a `kind` shape against another kind (`count` of them,
/// the mover aimed within `aim` of the other): linear ones at the first
/// root of the `f64` separation (convex in time, so bisection from the
/// minimum found by ternary search), turning ones touching at the reported
/// time and apart at sampled times before. How many hit, and how many
/// linear first contacts were checked.
pub(crate) fn shape_casts(
    seed: u64,
    count: usize,
    kind: Kind,
    other: fn(&mut Rng) -> SharedShape,
    aim: f32,
) -> (u32, u32) {
    let mut rng = Rng::new(seed);
    let options = ShapeCastOptions::default();
    let (mut hits, mut checked) = (0, 0);
    for i in 0..count * long_factor() {
        let a = kind(&mut rng, 1.0);
        let b = other(&mut rng);
        let pa = Pose::new(rng.rotation(), Vec3::ZERO);
        let pb = Pose::new(rng.rotation(), rng.unit_vector() * 1.6);
        let vel = (rng.in_cube(aim) - pb.translation) * rng.range(0.5, 1.5);
        if i % 3 == 0 {
            let mb = RigidMotion {
                angvel: rng.unit_vector() * rng.range(0.5, 4.0),
                ..RigidMotion::linear(pb, vel)
            };
            hits += turning_cast((&a, &pa), (&b, &mb), &options);
            continue;
        }
        let first = u32::from(linear_cast((&a, &pa), (&b, &pb, vel), &options));
        hits += first;
        checked += first;
    }
    (hits, checked)
}

/// A turning cast: touching at the reported time, apart at 20 times
/// before. Whether it hit.
fn turning_cast(
    (a, pa): (&SharedShape, &Pose),
    (b, mb): (&SharedShape, &RigidMotion),
    options: &ShapeCastOptions,
) -> u32 {
    let s = size(a, b);
    let hit =
        cast_shapes_nonlinear((a, &RigidMotion::stationary(*pa)), (b, mb), options).expect("cast");
    let end = hit.map_or(1.0, |h| h.time_of_impact);
    if let Some(h) = hit {
        let at = mb.pose_at(h.time_of_impact);
        let sv = separation_at(a, pa, b, &at, &[h.normal]);
        assert!(
            sv <= f64::from(options.tolerance) + TOL * s,
            "turning cast not touching: {sv}"
        );
    }
    for k in 0..20 {
        let t = end * k as f32 / 20.0;
        let sv = separation_at(a, pa, b, &mb.pose_at(t), &[]);
        assert!(
            sv > -BAND * s || hit.is_some_and(|h| h.started_touching),
            "turning cast missed a contact at {t}: {sv}"
        );
    }
    u32::from(hit.is_some())
}

/// A linear cast against the first root of the `f64` separation: none
/// when apart throughout, never after the first contact and touching then.
/// Whether a first contact was checked (then it hit).
fn linear_cast(
    (a, pa): (&SharedShape, &Pose),
    (b, pb, vel): (&SharedShape, &Pose, Vec3),
    options: &ShapeCastOptions,
) -> bool {
    let s = size(a, b);
    let hit = cast_shapes((a, pa, Vec3::ZERO), (b, pb, vel), options).expect("cast");
    let at = |t: f64| Pose::new(pb.rotation, pb.translation + vel * t as f32);
    let seeds: Vec<Vec3> = hit.iter().map(|h| h.normal).collect();
    let f = |t: f64| separation_at(a, pa, b, &at(t), &seeds);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..22 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) < f(m2) { hi = m2 } else { lo = m1 }
    }
    let (tmin, smin) = (lo, f(lo).min(f(0.0)).min(f(1.0)));
    if smin > BAND * s {
        assert!(hit.is_none(), "hit {hit:?}, but apart by {smin}");
        return false;
    }
    if !(smin < -BAND * s && f(0.0) > BAND * s) {
        return false;
    }
    let (mut x, mut y) = (0.0, tmin);
    for _ in 0..28 {
        let m = 0.5 * (x + y);
        if f(m) > 0.0 { x = m } else { y = m }
    }
    let h = hit.unwrap_or_else(|| panic!("no hit, separation down to {smin}"));
    let (speed, toi) = (f64::from(vel.length()), f64::from(h.time_of_impact));
    assert!(toi <= y + TOL * s / speed, "time {toi} after {y}");
    let sv = separation_at(a, pa, b, &at(toi), &[h.normal]);
    assert!(
        sv <= f64::from(options.tolerance) + TOL * s && sv >= -TOL * s,
        "separation {sv} at {toi} ({y})"
    );
    true
}

/// A world of 14 seeded shapes (a third any convex kind, the rest `kind`
/// at 0.8), a torus mesh and `compound`, bouncing in a cube of half-side
/// `room` for 40 frames: each frame the touching pairs are the
/// reference's (per pieces; a mesh by triangles), and the boxes of the
/// shapes `tested` gives a radius for hold them (tight to `10⁻⁵` of that
/// radius plus 2 beyond the world's rounding pad, for a dynamic box).
pub(crate) fn world_of_kinds(
    seed: u64,
    kind: Kind,
    compound: SharedShape,
    room: f32,
    tested: fn(&SharedShape) -> Option<f32>,
) {
    let mut rng = Rng::new(seed);
    let (v, t) = torus(0.5, 0.15, 12, 6);
    let tris: Vec<[Vec3; 3]> = t.iter().map(|x| x.map(|i| v[i as usize])).collect();
    let mesh = SharedShape::trimesh(v, t).expect("mesh");
    let mut shapes: Vec<SharedShape> = (0..14)
        .map(|_| {
            if rng.below(3) == 0 {
                any_convex(&mut rng)
            } else {
                kind(&mut rng, 0.8)
            }
        })
        .collect();
    shapes.push(mesh.clone());
    shapes.push(compound);
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("world");
    let mut bodies = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        let bounds = if i % 2 == 0 {
            BoundsMode::DynamicBox
        } else {
            BoundsMode::FixedCube
        };
        let h = world.add_body(BodyDesc {
            bounds,
            ..BodyDesc::new(s.clone())
        });
        let pose = Pose::new(rng.rotation(), rng.in_cube(room));
        let motion = (rng.in_cube(0.01), Quat::from_scaled_axis(rng.in_cube(0.03)));
        bodies.push((h, s.clone(), pose, motion, bounds));
    }
    let mut touching = 0;
    for _frame in 0..40 * long_factor() {
        for (h, _, pose, (v, w), _) in &mut bodies {
            pose.translation += *v;
            if pose.translation.abs().max_element() > room {
                *v = -*v;
            }
            pose.rotation = (*w * pose.rotation).normalize();
            world.set_pose(*h, *pose).expect("pose");
        }
        let _ = world.step();
        for (i, (ha, sa, pa, _, bounds)) in bodies.iter().enumerate() {
            if let Some(radius) = tested(sa) {
                let b = world.tight_aabb(*ha).expect("box");
                let pad = f64::from(rounding_pad(sa.reach(), pa.translation));
                let slack = pad + 1e-5 * f64::from(radius + 2.0);
                let tight = *bounds == BoundsMode::DynamicBox;
                check_box(&Placed::new(sa, pa), (b.min, b.max), tight.then_some(slack));
            }
            for (hb, sb, pb, _, _) in &bodies[i + 1..] {
                let want = world_reference((sa, pa), (sb, pb), (&mesh, &tris));
                let got = world.pair(*ha, *hb).is_some_and(|p| p.result.touching);
                if let Some(w) = want {
                    assert_eq!(got, w, "{} / {}", sa.kind_name(), sb.kind_name());
                    touching += usize::from(w);
                }
            }
        }
    }
    assert!(touching > 30, "{touching} touching pair-frames");
}

/// The box holds the shape, and (given a slack) no more than that beyond
/// it on each side.
fn check_box(placed: &Placed, (min, max): (Vec3, Vec3), slack: Option<f64>) {
    for k in 0..3 {
        let e = DVec3::AXES[k];
        let (hi, lo) = (placed.support(e), -placed.support(-e));
        assert!(
            f64::from(max[k]) >= hi && f64::from(min[k]) <= lo,
            "box {min} {max}"
        );
        if let Some(slack) = slack {
            let (over, under) = (f64::from(max[k]) - hi, lo - f64::from(min[k]));
            assert!(over <= slack && under <= slack, "loose box {min} {max}");
        }
    }
}

/// Compounds of two `kind` pieces at 0.6 against an `other` (`count`
/// seeded scenes): intersects and distance are the nearest piece's (per
/// the reference); with `rays`, a ray cast's first hit is the first of the
/// pieces'.
pub(crate) fn compounds(
    seed: u64,
    count: usize,
    kind: Kind,
    other: fn(&mut Rng) -> SharedShape,
    rays: bool,
) {
    let mut rng = Rng::new(seed);
    for _ in 0..count * long_factor() {
        let (ca, cb) = (kind(&mut rng, 0.6), kind(&mut rng, 0.6));
        let (qa, qb) = (
            Pose::new(rng.rotation(), Vec3::X * 0.4),
            Pose::new(rng.rotation(), -Vec3::X * 0.4),
        );
        let piece = |pose: Pose, shape: &SharedShape| CompoundPiece {
            pose,
            shape: shape.clone(),
        };
        let compound =
            SharedShape::compound(vec![piece(qa, &ca), piece(qb, &cb)]).expect("compound");
        let other = other(&mut rng);
        let (pc, po) = (
            Pose::new(rng.rotation(), Vec3::ZERO),
            Pose::new(rng.rotation(), rng.in_cube(1.2)),
        );
        let c = query::closest_points(&compound, &pc, &other, &po).expect("closest");
        let seed = [c.point_b - c.point_a];
        let pieces = [(&ca, pc.mul(&qa)), (&cb, pc.mul(&qb))];
        let per_piece = pieces.map(|(s, p)| separation_at(s, &p, &other, &po, &seed));
        let least = per_piece[0].min(per_piece[1]);
        let s = size(&compound, &other);
        if least.abs() > BAND * s {
            let hit = query::intersects(&compound, &pc, &other, &po).expect("intersects");
            assert_eq!(hit, least < 0.0);
        }
        let d = query::distance(&compound, &pc, &other, &po).expect("distance");
        assert!(
            (f64::from(d) - least.max(0.0)).abs() <= TOL * s,
            "distance {d} vs {least}"
        );
        if rays {
            let ray = Ray::new(po.translation, pc.translation - po.translation);
            let hit = query::ray_cast(&compound, &pc, &ray, 2.0).expect("ray");
            let first = pieces
                .map(|(s, p)| query::ray_cast(s, &p, &ray, 2.0).expect("ray"))
                .iter()
                .flatten()
                .map(|h| h.toi)
                .fold(f32::INFINITY, f32::min);
            assert_eq!(hit.map_or(f32::INFINITY, |h| h.toi), first);
        }
    }
}

/// How a ray's normal is held: facing the ray (for flat shapes, outside on
/// both sides), and a step of 1% of the size along it leaving the solid by
/// at least `out` of the step.
pub(crate) struct NormalCheck {
    pub facing: bool,
    pub out: f64,
}

/// A ray cast's answer `got` for `ray` up to `max_toi` against sphere
/// tracing on the exact distance: a hit on the surface (within `10 TOL`
/// of the size plus the `f32` rounding of the origin's distance), where
/// tracing first meets the solid, its normal outward (zero from inside);
/// a miss never meets it, or grazes it by a chord no longer than a ball
/// of the shape's size cut that tolerance deep would have. `(hits,
/// misses)` counted.
pub(crate) fn check_ray(
    (s, pose): (&SharedShape, &Pose),
    (ray, max_toi): (&Ray, f32),
    got: Option<RayHit>,
    normal: &NormalCheck,
) -> (usize, usize) {
    let placed = Placed::new(s, pose);
    let size = f64::from(s.fixed_cube().radius);
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let far = f64::from(max_toi.min(1e9));
    let (want, _) = trace(&placed, o, d, far, 1e-9 * size);
    let what = format!(
        "{} at {pose:?}, ray {ray:?} max {max_toi}: got {got:?}, want {want:?}",
        s.kind_name()
    );
    // The ray's origin in the shape's frame carries `f32` rounding of its
    // distance from the shape.
    let tol = 10.0 * TOL * size + 8.0 * f64::from(f32::EPSILON) * o.distance(placed.pos);
    match (got, want) {
        (Some(g), _) => {
            let p = o + d * f64::from(g.toi);
            assert!(placed.distance(p) <= tol, "hit off the surface: {what}");
            if let Some(t) = want {
                assert!(
                    (f64::from(g.toi) - t).abs() * d.length() <= tol,
                    "toi: {what}"
                );
            }
            if g.toi > 0.0 {
                let facing = g.normal.dot(ray.dir) <= 0.0;
                assert!(facing || !normal.facing, "normal along the ray: {what}");
                let step = 0.01 * size;
                let out = placed.distance(p + g.normal.as_dvec3() * step);
                assert!(out >= step * normal.out - tol, "normal: {what}");
            } else {
                assert_eq!(g.normal, Vec3::ZERO, "{what}");
            }
            (1, 0)
        }
        (None, Some(t)) => {
            let beyond = t + 4.0 * size / d.length();
            let (back, _) = trace(&placed, o + d * beyond, -d, beyond, 1e-9 * size);
            let chord = (beyond - back.unwrap_or(beyond) - t) * d.length();
            let graze = 2.0 * (2.0 * size * tol).sqrt();
            assert!(
                chord <= graze || t > far,
                "missed a chord of {chord}: {what}"
            );
            (0, 0)
        }
        (None, None) => (0, 1),
    }
}
