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

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::bvh::TreeKind;
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, rounding_pad};
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::query::{self, Ray};
use bevy_icollide::testkit::{Rng, long_factor, sphere_hull, torus};
use glam::{DVec3, Quat, Vec3};

use crate::implicit_reference::{Placed, RefShape, sep, separation, trace};

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
    let mut rng = Rng::new(4301);
    let (mut apart, mut overlapping) = (0, 0);
    for _ in 0..300 * long_factor() {
        let a = implicit(&mut rng, 1.0);
        let b = any_convex(&mut rng);
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
    let mut rng = Rng::new(4302);
    for k in [-20, -10, 0, 10, 20, 27] {
        let scale = 2f32.powi(k);
        let far = Vec3::new(1.0, -1.0, 0.5) * 2f32.powi(k + 10);
        for _ in 0..40 {
            let a = implicit(&mut rng, scale);
            let b = if rng.bool() {
                implicit(&mut rng, scale)
            } else {
                SharedShape::cuboid(rng.vec(0.1, 0.4) * scale).expect("cuboid")
            };
            let pa = Pose::new(rng.rotation(), far);
            let pb = Pose::new(rng.rotation(), far + rng.in_cube(0.8) * scale);
            check_pair((&a, &pa), (&b, &pb), 2e-3, 2e-3);
        }
    }
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
        let placed = Placed::new(&s, &pose);
        let size = f64::from(s.fixed_cube().radius);
        let (o, d) = (origin.as_dvec3(), dir.as_dvec3());
        let far = f64::from(max_toi.min(1e9));
        let (want, _) = trace(&placed, o, d, far, 1e-9 * size);
        let what = format!(
            "{:?} at {pose:?}, ray {ray:?} max {max_toi}: got {got:?}, want {want:?}",
            s.implicit()
        );
        // The ray's origin in the shape's frame carries `f32` rounding of its
        // distance from the shape.
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
                    let step = 0.01 * size;
                    let out = placed.distance(p + g.normal.as_dvec3() * step);
                    assert!(out >= step * 0.99 - tol, "normal {:?}: {what}", g.normal);
                } else {
                    assert_eq!(g.normal, Vec3::ZERO, "{what}");
                }
            }
            (None, Some(t)) => {
                // Only a graze: the chord is no longer than a ball of the
                // shape's size cut `tol` deep (the ray's rounding) would
                // have, measured by tracing back from beyond the shape.
                let beyond = t + 4.0 * size / d.length();
                let (back, _) = trace(&placed, o + d * beyond, -d, beyond, 1e-9 * size);
                let chord = (beyond - back.unwrap_or(beyond) - t) * d.length();
                let graze = 2.0 * (2.0 * size * tol).sqrt();
                assert!(
                    chord <= graze || t > far,
                    "missed a chord of {chord}: {what}"
                );
            }
            (None, None) => misses += 1,
        }
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
    let mut rng = Rng::new(4304);
    let (v, t) = torus(0.6, 0.2, 16, 8);
    let tris: Vec<[Vec3; 3]> = t.iter().map(|x| x.map(|i| v[i as usize])).collect();
    let mut touched = 0;
    for tree in [TreeKind::Obb, TreeKind::Aabb] {
        let mesh = SharedShape::trimesh_with_tree(v.clone(), t.clone(), tree).expect("mesh");
        for _ in 0..30 * long_factor() {
            let s = implicit(&mut rng, 0.6);
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
                let centroid = pm
                    .transform_point((tri[0] + tri[1] + tri[2]) / 3.0)
                    .as_dvec3();
                let quick = sep(&placed, &rt, (centroid - placed.pos).normalize_or(DVec3::X));
                if quick > least.max(BAND * scale) {
                    continue;
                }
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
    use bevy_icollide::math::RigidMotion;
    use bevy_icollide::query::{ShapeCastOptions, cast_shapes, cast_shapes_nonlinear};
    let mut rng = Rng::new(4305);
    let options = ShapeCastOptions::default();
    let (mut hits, mut checked) = (0, 0);
    for i in 0..70 * long_factor() {
        let a = implicit(&mut rng, 1.0);
        let b = any_convex(&mut rng);
        let pa = Pose::new(rng.rotation(), Vec3::ZERO);
        let pb = Pose::new(rng.rotation(), rng.unit_vector() * 1.6);
        let vel = (rng.in_cube(0.5) - pb.translation) * rng.range(0.5, 1.5);
        let s = size(&a, &b);
        if i % 3 == 0 {
            let spin = rng.unit_vector() * rng.range(0.5, 4.0);
            let mb = RigidMotion {
                angvel: spin,
                ..RigidMotion::linear(pb, vel)
            };
            let hit =
                cast_shapes_nonlinear((&a, &RigidMotion::stationary(pa)), (&b, &mb), &options)
                    .expect("cast");
            let end = hit.map_or(1.0, |h| h.time_of_impact);
            if let Some(h) = hit {
                let at = mb.pose_at(h.time_of_impact);
                let sv = separation_at(&a, &pa, &b, &at, &[h.normal]);
                assert!(
                    sv <= f64::from(options.tolerance) + TOL * s,
                    "turning cast not touching: {sv}"
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
        let (tmin, smin) = (lo, f(lo).min(f(0.0)).min(f(1.0)));
        if smin > BAND * s {
            assert!(hit.is_none(), "hit {hit:?}, but apart by {smin}");
            continue;
        }
        if smin < -BAND * s && f(0.0) > BAND * s {
            let (mut x, mut y) = (0.0, tmin);
            for _ in 0..28 {
                let m = 0.5 * (x + y);
                if f(m) > 0.0 { x = m } else { y = m }
            }
            // Never after the first contact; within the tolerance then.
            let h = hit.unwrap_or_else(|| panic!("no hit, separation down to {smin}"));
            let speed = f64::from(vel.length());
            let toi = f64::from(h.time_of_impact);
            assert!(
                toi <= y + TOL * s / speed,
                "time {toi} after the contact at {y}"
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
    assert!(hits > 15 && checked > 10, "{hits} hits, {checked} checked");
}

/// A world of cylinders, cones and every other kind (a compound with a
/// cylinder piece, a mesh) moving for 40 frames: each frame the
/// touching pairs are the reference's (per pieces; a mesh by triangles),
/// and the implicit bodies' boxes hold the shape tightly (dynamic) or
/// whatever its rotation (fixed cube).
#[test]
fn a_world_of_every_kind_with_cylinders_and_cones() {
    let mut rng = Rng::new(4306);
    let (v, t) = torus(0.5, 0.15, 12, 6);
    let tris: Vec<[Vec3; 3]> = t.iter().map(|x| x.map(|i| v[i as usize])).collect();
    let mesh = SharedShape::trimesh(v.clone(), t.clone()).expect("mesh");
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
    let mut shapes: Vec<SharedShape> = (0..14)
        .map(|_| {
            if rng.below(3) == 0 {
                any_convex(&mut rng)
            } else {
                implicit(&mut rng, 0.8)
            }
        })
        .collect();
    shapes.push(mesh.clone());
    shapes.push(compound.clone());
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
        let pose = Pose::new(rng.rotation(), rng.in_cube(1.3));
        let motion = (rng.in_cube(0.01), Quat::from_scaled_axis(rng.in_cube(0.03)));
        bodies.push((h, s.clone(), pose, motion));
    }
    let mut touching = 0;
    for _frame in 0..40 * long_factor() {
        for (h, _, pose, (v, w)) in &mut bodies {
            pose.translation += *v;
            if pose.translation.abs().max_element() > 1.3 {
                *v = -*v;
            }
            pose.rotation = (*w * pose.rotation).normalize();
            world.set_pose(*h, *pose).expect("pose");
        }
        let _ = world.step();
        for (i, (ha, sa, pa, _)) in bodies.iter().enumerate() {
            if let Some(s) = sa.implicit() {
                let b = world.tight_aabb(*ha).expect("box");
                let placed = Placed::new(sa, pa);
                for k in 0..3 {
                    let axis = DVec3::AXES[k];
                    let (hi, lo) = (placed.support(axis), -placed.support(-axis));
                    assert!(
                        f64::from(b.max[k]) >= hi && f64::from(b.min[k]) <= lo,
                        "box {b:?} of {s:?}"
                    );
                    if i % 2 == 0 {
                        // Tight to 10⁻⁵ beyond the world's pad for rounding.
                        let pad = rounding_pad(sa.reach(), pa.translation);
                        let slack = f64::from(pad) + 1e-5 * f64::from(s.bounding_radius() + 2.0);
                        assert!(
                            f64::from(b.max[k]) - hi <= slack && lo - f64::from(b.min[k]) <= slack,
                            "loose box"
                        );
                    }
                }
            }
            for (hb, sb, pb, _) in &bodies[i + 1..] {
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
    let mut rng = Rng::new(4307);
    for _ in 0..80 * long_factor() {
        let (ca, cb) = (implicit(&mut rng, 0.6), implicit(&mut rng, 0.6));
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
        let other = any_convex(&mut rng);
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
            assert_eq!(
                query::intersects(&compound, &pc, &other, &po).expect("intersects"),
                least < 0.0
            );
        }
        let d = query::distance(&compound, &pc, &other, &po).expect("distance");
        assert!(
            (f64::from(d) - least.max(0.0)).abs() <= TOL * s,
            "distance {d} vs {least}"
        );
        let ray = Ray::new(po.translation, pc.translation - po.translation);
        let hit = query::ray_cast(&compound, &pc, &ray, 2.0).expect("ray");
        let pieces = [(&ca, pc.mul(&qa)), (&cb, pc.mul(&qb))]
            .map(|(s, p)| query::ray_cast(s, &p, &ray, 2.0).expect("ray"));
        let first = pieces
            .iter()
            .flatten()
            .map(|h| h.toi)
            .fold(f32::INFINITY, f32::min);
        assert_eq!(hit.map_or(f32::INFINITY, |h| h.toi), first);
    }
}
