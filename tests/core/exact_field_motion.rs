//! Casts against height fields that stand still, move or turn, of convex
//! shapes, meshes and compounds, and continuous detection onto fields in
//! the world, against the independent `f64` reference of
//! `field_reference.rs` (every terrain triangle its own shape, both
//! motions in `f64`, Lipschitz stepping). A hit at `t` must have the
//! shapes within the tolerance (plus what they move in one `f32` step of
//! time and a band of `10⁻⁵` of the scene's size) at `t`, also of the
//! reported field triangle, and no earlier than the reference's first
//! contact deeper than the band; a miss must never come within minus the
//! band (with a target distance: the same about the target). Both
//! orders of every pair are cast.
//!
//! Placements: seeded random terrains with holes and random motions; the
//! rounding-breaking ones: identity poses, shapes exactly on a field
//! vertex, on an edge shared by two cells, on a flat plateau (shared
//! planes), offsets of `±2⁻²⁴`, grazing passes over a spike at `0`,
//! `±2⁻²⁴`, `2·10⁻⁴` (beyond the tolerance: a miss), `10³` and `10⁵` per
//! unit time, fields `10³ … 10⁶` from the origin (and the world's `f64`
//! API, `cast_shape_f64`).

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion, WorldPose};
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, QueryFilter};
use bevy_icollide::query::{self, ShapeCastHit, ShapeCastOptions};
use bevy_icollide::shape::Feature;
use bevy_icollide::testkit::{Rng, first_within, long_factor, motion_pose, sphere_hull, torus};
use glam::{DVec3, Quat, Vec3};

use crate::exact_heightfield::Terrain;
use crate::field_reference::{Body, Scene, dpose};

/// Checks a cast against the reference (`field_index`: where the field's
/// feature is); whether it hit.
fn check(scene: &Scene<'_>, hit: Option<ShapeCastHit>, field_index: usize, what: &str) -> bool {
    check_with(
        scene,
        hit,
        (field_index, &ShapeCastOptions::default()),
        what,
    )
}

/// [`check`] with options (a target distance).
pub fn check_with(
    scene: &Scene<'_>,
    hit: Option<ShapeCastHit>,
    (field_index, options): (usize, &ShapeCastOptions),
    what: &str,
) -> bool {
    let t_max = options.max_time_of_impact as f64;
    let extent = scene.terrain.scale.length() as f64;
    let far = scene.field.start.translation.as_dvec3().length() * 1e-7;
    let band = 1e-5 * (scene.body.radius() + extent) + far;
    let target = options.target_distance as f64;
    let Some(h) = hit else {
        let first = scene.first_at(t_max, target - band);
        assert!(first.is_none(), "{what}: missed a contact at {first:?}");
        return false;
    };
    let t = h.time_of_impact;
    let step = (t.next_up() - t) as f64;
    // Contact before the hit, if any (the search ends at the hit).
    let first = (t > 0.0)
        .then(|| scene.first_at(t as f64 - step, target - band))
        .flatten();
    let allowed = target + options.tolerance as f64 + 2.0 * scene.lipschitz(t_max) * step + band;
    let (gap, near) = scene.gap(t as f64);
    assert!(
        gap <= allowed,
        "{what}: {gap} apart (triangle {near}) at {h:?}"
    );
    assert!(first.is_none(), "{what}: hit at {t}, contact at {first:?}");
    let Feature::Face(id) = h.features[field_index] else {
        panic!("{what}: field feature {:?}", h.features);
    };
    let on = scene.gap_to(t as f64, id);
    assert!(
        on <= allowed,
        "{what}: triangle {id} {on} away (nearest {near})"
    );
    true
}

/// Casts `shape` and the terrain's field both ways and checks both.
fn cast_both(
    body: &Body,
    (shape, sm): (&SharedShape, &RigidMotion),
    t: &Terrain,
    fm: &RigidMotion,
) -> bool {
    cast_both_with(body, (shape, sm), t, fm, &ShapeCastOptions::default())
}

/// [`cast_both`] with options.
fn cast_both_with(
    body: &Body,
    (shape, sm): (&SharedShape, &RigidMotion),
    t: &Terrain,
    fm: &RigidMotion,
    options: &ShapeCastOptions,
) -> bool {
    let field = t.shape();
    let scene = Scene::new(body, sm, t, fm);
    let ab = query::cast_shapes_nonlinear((shape, sm), (&field, fm), options).expect("cast");
    let ba = query::cast_shapes_nonlinear((&field, fm), (shape, sm), options).expect("cast");
    let hit = check_with(&scene, ab, (1, options), "shape first");
    check_with(&scene, ba, (0, options), "field first");
    hit
}

/// The lowest point of a shape under the identity rotation.
fn bottom(s: &SharedShape) -> f32 {
    s.local_aabb().min.y
}

fn shapes(rng: &mut Rng) -> Vec<SharedShape> {
    vec![
        SharedShape::sphere(0.3).expect("sphere"),
        SharedShape::capsule(0.2, 0.4).expect("capsule"),
        SharedShape::cuboid(Vec3::new(0.3, 0.2, 0.25)).expect("cuboid"),
        sphere_hull(rng, 16, 0.3),
    ]
}

/// A terrain with a flat plateau (rows and columns 2–4) and a spike at
/// sample (6, 6).
fn plateau_terrain() -> Terrain {
    let mut t = Terrain::random(&mut Rng::new(4201), (9, 9), Vec3::new(8.0, 2.0, 8.0), 0.0);
    for i in 2..5 {
        for j in 2..5 {
            t.heights[i * 9 + j] = 0.25;
        }
    }
    t.heights[6 * 9 + 6] = 0.9;
    t
}

#[test]
fn stationary_fields_on_vertices_edges_and_tiny_offsets() {
    let mut rng = Rng::new(4202);
    let t = plateau_terrain();
    let still = RigidMotion::stationary(Pose::IDENTITY);
    let eps = 2f32.powi(-24);
    let (mut hits, mut runs) = (0, 0);
    for s in shapes(&mut rng) {
        let body = Body::of(&s);
        let spots = [
            t.vertex(3, 3),
            t.vertex(6, 6),
            t.vertex(1, 5),
            (t.vertex(3, 3) + t.vertex(3, 4)) * 0.5,
            (t.vertex(5, 2) + t.vertex(6, 2)) * 0.5,
            (t.vertex(6, 6) + t.vertex(7, 7)) * 0.5,
        ];
        for spot in spots {
            for gap in [0.0, eps, -eps, 1e-3, 0.25] {
                let y = spot.y - bottom(&s) + gap;
                let start = Pose::from_translation(Vec3::new(spot.x, y, spot.z));
                let m = RigidMotion::linear(start, Vec3::new(0.0, -1.0, 0.0));
                hits += usize::from(cast_both(&body, (&s, &m), &t, &still));
                runs += 1;
            }
        }
    }
    assert!(
        hits == runs,
        "{hits} hits of {runs}: every shape starts above the surface"
    );
}

#[test]
fn stationary_fields_grazing_and_fast() {
    let mut rng = Rng::new(4203);
    let t = plateau_terrain();
    let still = RigidMotion::stationary(Pose::IDENTITY);
    let spike = t.vertex(6, 6);
    let mut hits = Vec::new();
    for s in shapes(&mut rng) {
        let body = Body::of(&s);
        // Over the spike, level, clear of everything else.
        for gap in [0.0, 2f32.powi(-24), -2f32.powi(-24), 2e-4, -1e-3] {
            let y = spike.y - bottom(&s) + gap;
            let start = Pose::from_translation(Vec3::new(spike.x - 1.5, y, spike.z));
            let m = RigidMotion::linear(start, Vec3::new(3.0, 0.0, 0.0));
            hits.push(cast_both(&body, (&s, &m), &t, &still));
            // The same pass with a target distance: it touches earlier.
            let target = ShapeCastOptions {
                target_distance: 0.25,
                ..Default::default()
            };
            hits.push(cast_both_with(&body, (&s, &m), &t, &still, &target));
        }
        // From far above at high speed, onto a vertex and an edge.
        for (h, spot) in [
            (1e3, t.vertex(3, 3)),
            (1e5, (t.vertex(2, 6) + t.vertex(3, 6)) * 0.5),
        ] {
            let start = Pose::from_translation(Vec3::new(spot.x, h, spot.z));
            let m = RigidMotion::linear(start, Vec3::new(0.0, -(h + 3.0), 0.0));
            hits.push(cast_both(&body, (&s, &m), &t, &still));
        }
    }
    let n = hits.iter().filter(|h| **h).count();
    assert!(
        n > hits.len() / 2 && n < hits.len(),
        "{n} hits of {}",
        hits.len()
    );
}

#[test]
fn stationary_fields_far_from_the_origin() {
    let mut rng = Rng::new(4204);
    let t = Terrain::random(&mut rng, (9, 9), Vec3::new(8.0, 2.0, 8.0), 0.1);
    let mut hits = 0;
    for k in [1e3f32, 1e4, 1e5, 1e6] {
        let pf = Pose::new(
            Quat::from_rotation_y(rng.range(0.0, 6.3)),
            Vec3::new(k, -0.5 * k, 0.25 * k),
        );
        let still = RigidMotion::stationary(pf);
        for s in shapes(&mut rng) {
            let local = Vec3::new(rng.range(-3.0, 3.0), 2.5, rng.range(-3.0, 3.0));
            let start = Pose::new(rng.rotation(), pf.transform_point(local));
            let m = RigidMotion::linear(start, pf.rotation * Vec3::new(0.5, -4.0, -0.3));
            hits += usize::from(cast_both(&Body::of(&s), (&s, &m), &t, &still));
        }
    }
    assert!(hits > 8, "{hits} hits of 16");
}

/// The world's `f64` cast onto a field parked `10⁶` from the origin, in a
/// frame near it: the reference sees the field at its offset in the frame.
#[test]
fn the_worlds_f64_cast_onto_a_field_far_away() {
    let mut rng = Rng::new(4205);
    let t = Terrain::random(&mut rng, (9, 9), Vec3::new(8.0, 2.0, 8.0), 0.0);
    let rot = Quat::from_rotation_y(0.7);
    let at = DVec3::new(1e6 + 0.5, -3e5, 2e6 + 0.25);
    let mut world = CollisionWorld::default();
    let mut desc = BodyDesc::new(t.shape());
    desc.is_static = true;
    let h = world.add_body(desc);
    world
        .set_pose_f64(h, WorldPose::new(rot, at))
        .expect("pose");
    let _ = world.step();
    let origin = at + DVec3::new(0.25, 0.0, -0.5);
    let field = RigidMotion::stationary(Pose::new(rot, (at - origin).as_vec3()));
    let mut hits = 0;
    for s in shapes(&mut rng) {
        for _ in 0..3 {
            let local = Vec3::new(rng.range(-3.0, 3.0), 2.5, rng.range(-3.0, 3.0));
            let start = Pose::new(rng.rotation(), field.start.transform_point(local));
            let m = RigidMotion::linear(start, Vec3::new(rng.range(-1.0, 1.0), -4.0, 0.3));
            let hit = world
                .cast_shape_f64(
                    &s,
                    (origin, &m),
                    &ShapeCastOptions::default(),
                    QueryFilter::ALL,
                )
                .expect("cast")
                .map(|w| w.hit);
            let body = Body::of(&s);
            hits += usize::from(check(
                &Scene::new(&body, &m, &t, &field),
                hit,
                1,
                "world f64",
            ));
        }
    }
    assert!(hits > 6, "{hits} hits of 12");
}

/// A random motion: a start above the terrain coming down at an angle,
/// shared between the two bodies (the field rises to meet a still shape,
/// or both move), each turning or not.
fn motions(rng: &mut Rng, pf: &Pose, mode: usize) -> (RigidMotion, RigidMotion) {
    let local = Vec3::new(rng.range(-3.0, 3.0), 2.2, rng.range(-3.0, 3.0));
    let start = Pose::new(rng.rotation(), pf.transform_point(local));
    let dir = Vec3::new(rng.range(-0.8, 0.8), -1.0, rng.range(-0.8, 0.8)) * rng.range(2.0, 5.0);
    let share = [0.0, 0.5, 1.0][mode % 3];
    let mut shape = RigidMotion::linear(start, dir * (1.0 - share));
    let mut field = RigidMotion::linear(*pf, -dir * share);
    if mode >= 3 {
        field.angvel = rng.vec(-0.3, 0.3) + Vec3::Y * rng.range(-1.5, 1.5);
        field.local_center = rng.vec(-2.0, 2.0);
    }
    if mode >= 5 {
        shape.angvel = rng.vec(-3.0, 3.0);
    }
    (shape, field)
}

#[test]
fn moving_and_turning_fields_match_the_reference() {
    let mut rng = Rng::new(4206);
    let mut hits = 0;
    let runs = 36 * long_factor();
    for i in 0..runs {
        let t = Terrain::random(&mut rng, (10, 10), Vec3::new(8.0, 2.0, 8.0), 0.1);
        let pf = Pose::new(
            Quat::from_rotation_y(rng.range(0.0, 6.3)),
            rng.vec(-2.0, 2.0),
        );
        let s = shapes(&mut rng).swap_remove(rng.below(4));
        let (sm, fm) = motions(&mut rng, &pf, i % 6);
        hits += usize::from(cast_both(&Body::of(&s), (&s, &sm), &t, &fm));
    }
    assert!(hits > runs / 2 && hits < runs, "{hits} hits of {runs}");
}

/// A mesh and a compound (a ball, a box and a mesh piece) cast onto
/// fields that stand still, move or turn, themselves turning or not.
#[test]
fn meshes_and_compounds_onto_fields() {
    let mut rng = Rng::new(4207);
    let (tv, tt) = torus(0.5, 0.15, 8, 5);
    let mesh = SharedShape::trimesh(tv.clone(), tt.clone()).expect("torus");
    let ball = SharedShape::sphere(0.2).expect("ball");
    let cube = SharedShape::cuboid(Vec3::splat(0.15)).expect("cube");
    let poses = [
        Vec3::new(0.4, 0.0, 0.0),
        Vec3::new(-0.4, 0.1, 0.0),
        Vec3::new(0.0, 0.0, 0.6),
    ]
    .map(|p| Pose::new(Quat::from_rotation_z(0.4), p));
    let pieces = [
        (ball.clone(), poses[0]),
        (cube.clone(), poses[1]),
        (mesh.clone(), poses[2]),
    ];
    let compound = SharedShape::compound(
        pieces
            .iter()
            .map(|(shape, pose)| CompoundPiece {
                pose: *pose,
                shape: shape.clone(),
            })
            .collect(),
    )
    .expect("compound");
    let refs = || {
        let bodies = [Body::of(&ball), Body::of(&cube), Body::mesh(&tv, &tt)];
        Body::Compound(poses.iter().map(dpose).zip(bodies).collect())
    };
    let mut hits = 0;
    let runs = 12 * long_factor();
    for i in 0..runs {
        let t = Terrain::random(&mut rng, (10, 10), Vec3::new(8.0, 2.0, 8.0), 0.1);
        let pf = Pose::new(
            Quat::from_rotation_y(rng.range(0.0, 6.3)),
            rng.vec(-2.0, 2.0),
        );
        let (mut sm, mut fm) = motions(&mut rng, &pf, i % 6);
        if i % 4 == 3 {
            // Level over a still field, clear of it: a miss.
            (sm.linvel, fm) = (
                pf.rotation * Vec3::new(3.0, 0.0, 1.0),
                RigidMotion::stationary(pf),
            );
        }
        let (shape, body) = if i % 2 == 0 {
            (&mesh, Body::mesh(&tv, &tt))
        } else {
            (&compound, refs())
        };
        hits += usize::from(cast_both(&body, (shape, &sm), &t, &fm));
    }
    assert!(hits > runs / 2 && hits < runs, "{hits} hits of {runs}");
}

/// Fast bodies with continuous detection jump through a static posed
/// field in one step (and a fast field rises through a still ball): each
/// touch the reference finds along the swept motion (`RigidMotion::between`
/// over the step, the world's sweep) starts, none other does.
#[test]
fn fast_bodies_do_not_tunnel_through_a_field() {
    let mut rng = Rng::new(4208);
    let t = Terrain::random(&mut rng, (12, 12), Vec3::new(10.0, 2.0, 10.0), 0.0);
    let pf = Pose::new(Quat::from_rotation_y(0.3), Vec3::new(1.0, -0.5, 2.0));
    let kinds = [
        SharedShape::sphere(0.1).expect("sphere"),
        SharedShape::capsule(0.08, 0.2).expect("capsule"),
        SharedShape::cuboid(Vec3::splat(0.1)).expect("box"),
    ];
    let (mut touches, runs) = (0, 24);
    for i in 0..runs {
        let mut world = CollisionWorld::default();
        let mut desc = BodyDesc::new(t.shape());
        desc.is_static = true;
        let field = world.add_body(desc);
        world.set_pose(field, pf).expect("pose");
        let s = kinds[i % 3].clone();
        let mut desc = BodyDesc::new(s.clone());
        desc.ccd = true;
        let b = world.add_body(desc);
        let xz = |rng: &mut Rng, y: f32| {
            pf.transform_point(Vec3::new(rng.range(-4.0, 4.0), y, rng.range(-4.0, 4.0)))
        };
        // Half the runs dive through the field, half pass above it.
        let (y0, y1) = if i % 2 == 0 { (3.0, -6.0) } else { (2.3, 2.3) };
        let from = Pose::new(rng.rotation(), xz(&mut rng, y0));
        let to = Pose::new(rng.rotation() * from.rotation, xz(&mut rng, y1));
        world.set_pose(b, from).expect("pose");
        assert_eq!(world.step().count(), 0, "apart at first");
        world.set_pose(b, to).expect("pose");
        let started = world.step().filter(|e| e.started).count();
        let motion = RigidMotion::between(&from, &to, s.local_aabb().center());
        let body = Body::of(&s);
        let still = RigidMotion::stationary(pf);
        let scene = Scene::new(&body, &motion, &t, &still);
        let (near, far) = (scene.first_at(1.0, -1e-5), scene.first_at(1.0, 2e-4));
        assert_eq!(
            near.is_some(),
            far.is_some(),
            "run {i}: a grazing pass: pick another seed"
        );
        assert_eq!(
            started,
            usize::from(near.is_some()),
            "run {i}: reference contact at {near:?}"
        );
        touches += started;
    }
    assert!(touches == runs / 2, "{touches} touches");
    // A field with continuous detection rising fast through a ball.
    let mut world = CollisionWorld::default();
    let mut desc = BodyDesc::new(t.shape());
    desc.ccd = true;
    let field = world.add_body(desc);
    world
        .set_pose(field, Pose::from_translation(Vec3::new(0.0, -8.0, 0.0)))
        .expect("pose");
    let ball = world.add_body(BodyDesc::new(kinds[0].clone()));
    world
        .set_pose(ball, Pose::from_translation(Vec3::new(0.3, 0.0, -0.7)))
        .expect("pose");
    assert_eq!(world.step().count(), 0, "apart at first");
    world
        .set_pose(field, Pose::from_translation(Vec3::new(0.0, 8.0, 0.0)))
        .expect("pose");
    assert_eq!(
        world.step().filter(|e| e.started).count(),
        1,
        "the rising field touches the ball"
    );
}

/// A height field cast onto a half-space, either order (a ground under a
/// falling terrain with holes, turning or not): the field's distance is
/// its lowest vertex's along the plane's normal (`f64`, the vertices of
/// the terrain's own triangles: hole-only samples left out).
#[test]
fn fields_onto_half_spaces() {
    let mut rng = Rng::new(4209);
    let mut hits = 0;
    let runs = 12;
    for i in 0..runs {
        let t = Terrain::random(&mut rng, (8, 8), Vec3::new(6.0, 2.0, 6.0), 0.2);
        let field = t.shape();
        let n = (Vec3::Y + rng.vec(-0.3, 0.3)).normalize();
        let ground = SharedShape::half_space(n).expect("half-space");
        let pg = Pose::from_translation(Vec3::new(0.0, -3.0, 0.0));
        let start = Pose::new(
            Quat::from_rotation_y(rng.range(0.0, 6.3)),
            rng.vec(-1.0, 1.0),
        );
        let down = Vec3::new(rng.range(-1.0, 1.0), -rng.range(0.5, 4.0), 0.0);
        let mut fm = RigidMotion::linear(start, down);
        if i % 2 == 1 {
            fm.angvel = rng.vec(-1.0, 1.0);
        }
        let still = RigidMotion::stationary(pg);
        let verts: Vec<DVec3> = t
            .triangles()
            .iter()
            .flat_map(|(_, v)| v.map(|x| x.as_dvec3()))
            .collect();
        let (nd, c) = (
            n.as_dvec3().normalize(),
            n.as_dvec3().normalize().dot(pg.translation.as_dvec3()),
        );
        let gap = |s: f64| {
            let (q, p) = motion_pose(&fm, s, (DVec3::ZERO, DVec3::ZERO));
            verts
                .iter()
                .map(|v| nd.dot(q * *v + p) - c)
                .fold(f64::INFINITY, f64::min)
        };
        let reach = verts.iter().map(|v| v.length()).fold(0.0, f64::max);
        let l = (down.as_dvec3().length() + fm.angvel.as_dvec3().length() * reach) * 1.01;
        let band = 1e-5 * reach;
        let first = first_within(gap, l, 1.0, (-band, 1e-9));
        let options = ShapeCastOptions::default();
        let ab = query::cast_shapes_nonlinear((&field, &fm), (&ground, &still), &options);
        let ba = query::cast_shapes_nonlinear((&ground, &still), (&field, &fm), &options);
        for hit in [ab.expect("cast"), ba.expect("cast")] {
            let Some(h) = hit else {
                assert!(first.is_none(), "run {i}: missed the contact at {first:?}");
                continue;
            };
            let t = h.time_of_impact;
            let step = (t.next_up() - t) as f64;
            let d = gap(t as f64);
            let allowed = options.tolerance as f64 + 2.0 * l * step + band;
            assert!(d <= allowed, "run {i}: {d} apart at {h:?}");
            assert!(
                first.is_none_or(|t0| t as f64 <= t0 + step),
                "run {i}: {h:?} after {first:?}"
            );
            hits += 1;
        }
    }
    assert!(
        hits > runs && hits < 2 * runs,
        "{hits} hits of {}",
        2 * runs
    );
}

/// A half-space against a height field at rest, both orders: touching
/// exactly when a terrain vertex (holes left out) is on or below the
/// plane (`f64`), outside a band of `10⁻⁵` of the terrain's size; the
/// distance is the lowest vertex's (0 below the plane).
#[test]
fn half_spaces_touch_fields_by_their_vertices() {
    let mut rng = Rng::new(4210);
    let (mut touching, runs) = (0, 40);
    for _ in 0..runs {
        let t = Terrain::random(&mut rng, (8, 8), Vec3::new(6.0, 2.0, 6.0), 0.2);
        let field = t.shape();
        let n = (Vec3::Y + rng.vec(-0.4, 0.4)).normalize();
        let ground = SharedShape::half_space(n).expect("half-space");
        let pg = Pose::from_translation(Vec3::new(0.0, rng.range(-2.5, 0.5), 0.0));
        let pf = Pose::new(
            Quat::from_rotation_y(rng.range(0.0, 6.3)),
            rng.vec(-0.5, 0.5),
        );
        let (qg, tg) = dpose(&pg);
        let nd = qg * n.as_dvec3().normalize();
        let c = nd.dot(tg);
        let (qf, tf) = dpose(&pf);
        let below = |v: &Vec3| nd.dot(qf * v.as_dvec3() + tf) - c;
        let tris = t.triangles();
        let lowest = tris
            .iter()
            .flat_map(|x| x.1.iter())
            .map(below)
            .fold(f64::INFINITY, f64::min);
        if lowest.abs() < 1e-5 * 9.0 {
            continue;
        }
        let want = lowest <= 0.0;
        assert_eq!(
            query::intersects(&field, &pf, &ground, &pg).expect("pair"),
            want
        );
        assert_eq!(
            query::intersects(&ground, &pg, &field, &pf).expect("pair"),
            want
        );
        for d in [
            query::distance(&field, &pf, &ground, &pg).expect("distance"),
            query::distance(&ground, &pg, &field, &pf).expect("distance"),
        ] {
            assert!(
                (d as f64 - lowest.max(0.0)).abs() <= 1e-5 * 9.0,
                "{d} against {lowest}"
            );
        }
        touching += usize::from(want);
    }
    assert!(touching > 5 && touching < runs - 5, "{touching} of {runs}");
}

/// The distance of a mesh (a torus) and a height field, both orders,
/// against the exact `f64` triangle–triangle distances to every terrain
/// triangle (`field_reference::triangle_gap`): within `10⁻⁵` of the scene
/// plus `f32` rounding; zero exactly when triangles meet (outside that
/// band). Posed terrains with holes, tori above, grazing and through.
#[test]
fn mesh_to_field_distances() {
    let mut rng = Rng::new(4211);
    let (tv, tt) = torus(0.5, 0.15, 8, 5);
    let mesh = SharedShape::trimesh(tv.clone(), tt.clone()).expect("torus");
    let (mut meets, runs) = (0, 30);
    for _ in 0..runs {
        let t = Terrain::random(&mut rng, (8, 8), Vec3::new(6.0, 2.0, 6.0), 0.2);
        let field = t.shape();
        let pf = Pose::new(
            Quat::from_rotation_y(rng.range(0.0, 6.3)),
            rng.vec(-0.5, 0.5),
        );
        let local = Vec3::new(
            rng.range(-2.5, 2.5),
            rng.range(-0.5, 2.0),
            rng.range(-2.5, 2.5),
        );
        let pm = Pose::new(rng.rotation(), pf.transform_point(local));
        let (qm, tm) = dpose(&pm);
        let (qf, tf) = dpose(&pf);
        let world = |q: glam::DQuat, p: DVec3, v: &Vec3| q * v.as_dvec3() + p;
        let mut want = f64::INFINITY;
        for m in &tt {
            let a = m.map(|i| world(qm, tm, &tv[i as usize]));
            for (_, f) in t.triangles() {
                let b = f.map(|v| world(qf, tf, &v));
                want = want.min(crate::field_reference::triangle_gap(a, b).max(0.0));
            }
        }
        let band = 1e-5 * 10.0;
        for d in [
            query::distance(&mesh, &pm, &field, &pf).expect("distance"),
            query::distance(&field, &pf, &mesh, &pm).expect("distance"),
        ] {
            assert!((d as f64 - want).abs() <= band, "{d} against {want}");
        }
        meets += usize::from(want == 0.0);
    }
    assert!(meets > 3 && meets < runs - 3, "{meets} of {runs} meet");
}
