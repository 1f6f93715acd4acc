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

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::bvh::TreeKind;
use bevy_icollide::collider::{CompoundPiece, ShapeError, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion, rounding_pad};
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::query::{self, Ray, ShapeCastOptions, cast_shapes, cast_shapes_nonlinear};
use bevy_icollide::testkit::{Rng, long_factor, torus};
use glam::{DVec3, Quat, Vec3};

use crate::exact_implicit::{
    BAND, TOL, any_convex, check_pair, separation_at, size, triangle_ref, world_reference,
};
use crate::implicit_reference::{Placed, separation, trace};

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
    let mut rng = Rng::new(4401);
    let (mut apart, mut overlapping) = (0, 0);
    for _ in 0..300 * long_factor() {
        let a = round_kind(&mut rng, 1.0);
        let b = any_kind(&mut rng);
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
    let mut rng = Rng::new(4402);
    for k in [-20, -10, 0, 10, 20] {
        let scale = 2f32.powi(k);
        let far = Vec3::new(1.0, -1.0, 0.5) * 2f32.powi(k + 10);
        for _ in 0..40 {
            let a = round_kind(&mut rng, scale);
            let b = if rng.bool() {
                round_kind(&mut rng, scale)
            } else {
                SharedShape::cuboid(rng.vec(0.1, 0.4) * scale).expect("cuboid")
            };
            let pa = Pose::new(rng.rotation(), far);
            let pb = Pose::new(rng.rotation(), far + rng.in_cube(0.6) * scale);
            check_pair((&a, &pa), (&b, &pb), 2e-3, 2e-3);
        }
    }
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
        let placed = Placed::new(&s, &pose);
        let size = f64::from(s.fixed_cube().radius);
        let (o, d) = (origin.as_dvec3(), dir.as_dvec3());
        let (want, _) = trace(&placed, o, d, 1e9, 1e-9 * size);
        let what = format!(
            "{} at {pose:?}, ray {ray:?}: {got:?} / {want:?}",
            s.kind_name()
        );
        let tol = 10.0 * TOL * size + 8.0 * f64::from(f32::EPSILON) * o.distance(placed.pos);
        match (got, want) {
            (Some(g), _) => {
                hits += 1;
                let p = o + d * f64::from(g.toi);
                assert!(placed.distance(p) <= tol, "hit off the surface: {what}");
                if let Some(t) = want {
                    assert!(
                        (f64::from(g.toi) - t).abs() * d.length() <= tol,
                        "toi: {what}"
                    );
                }
                if g.toi > 0.0 {
                    // Facing the ray (a flat triangle is outside on both
                    // sides), and outward: a step along it leaves the solid.
                    assert!(g.normal.dot(dir) <= 0.0, "normal along the ray: {what}");
                    let step = 0.01 * size;
                    let out = placed.distance(p + g.normal.as_dvec3() * step);
                    assert!(out >= step * 0.5 - tol, "normal {:?}: {what}", g.normal);
                } else {
                    assert_eq!(g.normal, Vec3::ZERO, "{what}");
                }
            }
            (None, Some(t)) => {
                // Only a graze: the chord is no longer than a ball of the
                // shape's size cut `tol` deep would have (traced back from
                // beyond the shape).
                let beyond = t + 4.0 * size / d.length();
                let (back, _) = trace(&placed, o + d * beyond, -d, beyond, 1e-9 * size);
                let chord = (beyond - back.unwrap_or(beyond) - t) * d.length();
                let graze = 2.0 * (2.0 * size * tol).sqrt();
                assert!(chord <= graze, "missed a chord of {chord}: {what}");
            }
            (None, None) => misses += 1,
        }
    }
    assert!(hits > 200 && misses > 100, "{hits} hits, {misses} misses");
}

/// Against torus meshes under both trees: the world's touched triangles
/// are those the `f64` separation puts below 0, the distance the least.
#[test]
fn round_kinds_against_meshes_under_both_trees() {
    let mut rng = Rng::new(4404);
    let (v, t) = torus(0.6, 0.2, 16, 8);
    let tris: Vec<[Vec3; 3]> = t.iter().map(|x| x.map(|i| v[i as usize])).collect();
    let mut touched = 0;
    for tree in [TreeKind::Obb, TreeKind::Aabb] {
        let mesh = SharedShape::trimesh_with_tree(v.clone(), t.clone(), tree).expect("mesh");
        for _ in 0..30 * long_factor() {
            let s = round_kind(&mut rng, 0.8);
            let (ps, pm) = (
                Pose::new(rng.rotation(), rng.in_cube(0.9)),
                Pose::new(rng.rotation(), rng.in_cube(0.1)),
            );
            let placed = Placed::new(&s, &ps);
            let scale = size(&s, &mesh);
            let c = query::closest_points(&s, &ps, &mesh, &pm).expect("closest");
            let seed = [c.point_b - c.point_a];
            let mut least = f64::MAX;
            let mut want = Vec::new();
            for (i, tri) in tris.iter().enumerate() {
                let rt = Placed::of(triangle_ref(*tri), &pm);
                let (sv, _) = separation(&placed, &rt, &seed);
                least = least.min(sv.max(0.0));
                want.push((i as u32, sv));
            }
            let mut world = CollisionWorld::new(WorldConfig::default()).expect("world");
            let hs = world.add_body(BodyDesc::new(s.clone()));
            let hm = world.add_body(BodyDesc::new(mesh.clone()));
            world.set_pose(hs, ps).expect("pose");
            world.set_pose(hm, pm).expect("pose");
            let _ = world.step();
            let got: Vec<u32> =
                world
                    .pair(hs, hm)
                    .and_then(|p| p.triangle_pairs())
                    .map_or(Vec::new(), |pairs| {
                        pairs
                            .iter()
                            .map(|p| if hs < hm { p[1] } else { p[0] })
                            .collect()
                    });
            for (i, sv) in &want {
                if sv.abs() > BAND * scale {
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
                (f64::from(d) - least).abs() <= TOL * scale,
                "distance {d} vs {least}, {tree:?}"
            );
            let hit = query::intersects(&s, &ps, &mesh, &pm).expect("intersects");
            assert_eq!(hit, !got.is_empty(), "intersects, {tree:?}");
        }
    }
    assert!(touched > 10, "{touched} touching");
}

/// Linear casts (the first root of the `f64` separation, convex in time)
/// and turning casts (touching at the reported time, apart before).
#[test]
fn round_kind_shape_casts_match_the_f64_first_contact() {
    let mut rng = Rng::new(4405);
    let options = ShapeCastOptions::default();
    let (mut hits, mut checked) = (0, 0);
    for i in 0..60 * long_factor() {
        let a = round_kind(&mut rng, 1.0);
        let b = any_kind(&mut rng);
        let pa = Pose::new(rng.rotation(), Vec3::ZERO);
        let pb = Pose::new(rng.rotation(), rng.unit_vector() * 1.6);
        let vel = (rng.in_cube(0.3) - pb.translation) * rng.range(0.5, 1.5);
        let s = size(&a, &b);
        if i % 3 == 0 {
            let mb = RigidMotion {
                angvel: rng.unit_vector() * rng.range(0.5, 4.0),
                ..RigidMotion::linear(pb, vel)
            };
            let hit =
                cast_shapes_nonlinear((&a, &RigidMotion::stationary(pa)), (&b, &mb), &options)
                    .expect("cast");
            let end = hit.map_or(1.0, |h| h.time_of_impact);
            if let Some(h) = hit {
                let sv = separation_at(&a, &pa, &b, &mb.pose_at(h.time_of_impact), &[h.normal]);
                assert!(
                    sv <= f64::from(options.tolerance) + TOL * s,
                    "turning: {sv}"
                );
                hits += 1;
            }
            for k in 0..20 {
                let t = end * k as f32 / 20.0;
                let sv = separation_at(&a, &pa, &b, &mb.pose_at(t), &[]);
                assert!(
                    sv > -BAND * s || hit.is_some_and(|h| h.started_touching),
                    "turning cast missed a contact at {t}: {sv}"
                );
            }
            continue;
        }
        let hit = cast_shapes((&a, &pa, Vec3::ZERO), (&b, &pb, vel), &options).expect("cast");
        let at = |t: f64| Pose::new(pb.rotation, pb.translation + vel * t as f32);
        let seeds: Vec<Vec3> = hit.iter().map(|h| h.normal).collect();
        let f = |t: f64| separation_at(&a, &pa, &b, &at(t), &seeds);
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..22 {
            let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
            if f(m1) < f(m2) { hi = m2 } else { lo = m1 }
        }
        let smin = f(lo).min(f(0.0)).min(f(1.0));
        if smin > BAND * s {
            assert!(hit.is_none(), "hit {hit:?}, but apart by {smin}");
            continue;
        }
        if smin < -BAND * s && f(0.0) > BAND * s {
            let (mut x, mut y) = (0.0, lo);
            for _ in 0..28 {
                let m = 0.5 * (x + y);
                if f(m) > 0.0 { x = m } else { y = m }
            }
            let h = hit.unwrap_or_else(|| panic!("no hit, separation down to {smin}"));
            let toi = f64::from(h.time_of_impact);
            assert!(
                toi <= y + TOL * s / f64::from(vel.length()),
                "time {toi} after {y}"
            );
            let sv = separation_at(&a, &pa, &b, &at(toi), &[h.normal]);
            assert!(
                sv <= f64::from(options.tolerance) + TOL * s && sv >= -TOL * s,
                "separation {sv} at {toi} ({y})"
            );
            hits += 1;
            checked += 1;
        }
    }
    assert!(hits > 10 && checked > 8, "{hits} hits, {checked} checked");
}

/// A world of the new kinds with every other kind (a mesh, a compound
/// with rounded and flat pieces), 40 frames in motion: the touching pairs
/// the reference's; the dynamic boxes of the rounded kinds tight.
#[test]
fn a_world_of_round_kinds_and_every_other_kind() {
    let mut rng = Rng::new(4406);
    let (v, t) = torus(0.5, 0.15, 12, 6);
    let tris: Vec<[Vec3; 3]> = t.iter().map(|x| x.map(|i| v[i as usize])).collect();
    let mesh = SharedShape::trimesh(v, t).expect("mesh");
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
    let mut shapes: Vec<SharedShape> = (0..14)
        .map(|_| {
            if rng.below(3) == 0 {
                any_convex(&mut rng)
            } else {
                round_kind(&mut rng, 0.8)
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
        let pose = Pose::new(rng.rotation(), rng.in_cube(1.2));
        let motion = (rng.in_cube(0.01), Quat::from_scaled_axis(rng.in_cube(0.03)));
        bodies.push((h, s.clone(), pose, motion, bounds));
    }
    let mut touching = 0;
    for _frame in 0..40 * long_factor() {
        for (h, _, pose, (v, w), _) in &mut bodies {
            pose.translation += *v;
            if pose.translation.abs().max_element() > 1.2 {
                *v = -*v;
            }
            pose.rotation = (*w * pose.rotation).normalize();
            world.set_pose(*h, *pose).expect("pose");
        }
        let _ = world.step();
        for (i, (ha, sa, pa, _, bounds)) in bodies.iter().enumerate() {
            if sa.round_convex().is_some() {
                let b = world.tight_aabb(*ha).expect("box");
                let placed = Placed::new(sa, pa);
                for k in 0..3 {
                    let e = DVec3::AXES[k];
                    let (hi, lo) = (placed.support(e), -placed.support(-e));
                    // Contains the shape; tight (dynamic box) to 10⁻⁵ beyond
                    // the world's pad for rounding.
                    assert!(
                        f64::from(b.max[k]) >= hi && f64::from(b.min[k]) <= lo,
                        "box {b:?}"
                    );
                    let pad = f64::from(rounding_pad(sa.reach(), pa.translation));
                    let slack = pad + 1e-5 * f64::from(sa.fixed_cube().radius + 2.0);
                    if *bounds == BoundsMode::DynamicBox {
                        let (over, under) = (f64::from(b.max[k]) - hi, lo - f64::from(b.min[k]));
                        assert!(over <= slack && under <= slack, "loose box {b:?}");
                    }
                }
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

/// Compounds of rounded and flat pieces: intersects, distance and ray
/// casts are the nearest piece's (per the reference).
#[test]
fn compounds_of_round_kinds() {
    let mut rng = Rng::new(4407);
    for _ in 0..60 * long_factor() {
        let (ca, cb) = (round_kind(&mut rng, 0.6), round_kind(&mut rng, 0.6));
        let (qa, qb) = (
            Pose::new(rng.rotation(), Vec3::X * 0.4),
            Pose::new(rng.rotation(), -Vec3::X * 0.4),
        );
        let compound = SharedShape::compound(vec![
            CompoundPiece {
                pose: qa,
                shape: ca.clone(),
            },
            CompoundPiece {
                pose: qb,
                shape: cb.clone(),
            },
        ])
        .expect("compound");
        let other = any_kind(&mut rng);
        let (pc, po) = (
            Pose::new(rng.rotation(), Vec3::ZERO),
            Pose::new(rng.rotation(), rng.in_cube(1.2)),
        );
        let c = query::closest_points(&compound, &pc, &other, &po).expect("closest");
        let seed = [c.point_b - c.point_a];
        let per_piece = [(&ca, pc.mul(&qa)), (&cb, pc.mul(&qb))]
            .map(|(s, p)| separation_at(s, &p, &other, &po, &seed));
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
    }
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
