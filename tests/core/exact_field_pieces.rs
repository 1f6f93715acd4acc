//! Compounds holding height-field pieces (a compound may hold any kind but
//! a composite or a half-space) against balls, capsules, boxes, hulls, a
//! torus mesh and another height field: intersects, distance and linear
//! casts, both orders, against the independent `f64` reference of
//! `field_reference.rs` (each piece's terrain triangles written out by the
//! test, at the compound pose times the piece pose; the other shape by its
//! exact point, segment, polytope or triangle distances). Seeded random
//! terrains with holes at random piece poses; identity poses over a flat
//! field piece with lifts `0, ±2⁻²⁴, 4·2⁻²⁴, ±10⁻³`, grazing slides, and
//! the same `2²⁰` from the origin.

use bevy_icollide::bvh::ContactMode;
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{self, ShapeCastOptions};
use bevy_icollide::testkit::{Rng, long_factor, sphere_hull, torus};
use glam::Vec3;

use crate::exact_field_compounds::agrees_in_both_orders;
use crate::exact_field_motion::check_with;
use crate::exact_heightfield::Terrain;
use crate::field_reference::{Body, Scene};

/// Band around contact in which either answer goes (absolute; the shapes
/// are of size about 1); the distance tolerance is
/// [`agrees_in_both_orders`]'s.
const BAND: f64 = 1e-5;

/// A compound of height-field pieces at their poses.
fn field_compound(pieces: &[(Terrain, Pose)]) -> SharedShape {
    SharedShape::compound(
        pieces
            .iter()
            .map(|(t, pose)| CompoundPiece {
                pose: *pose,
                shape: t.shape(),
            })
            .collect(),
    )
    .expect("compound of fields")
}

/// A ball, capsule, box, hull, torus mesh or height field, and its body.
fn other(rng: &mut Rng) -> (SharedShape, Body) {
    let s = match rng.below(6) {
        0 => SharedShape::sphere(rng.range(0.1, 0.3)).expect("ball"),
        1 => SharedShape::capsule(rng.range(0.08, 0.2), rng.range(0.1, 0.5)).expect("capsule"),
        2 => SharedShape::cuboid(rng.vec(0.08, 0.3)).expect("box"),
        3 => sphere_hull(rng, 10, 0.25),
        4 => {
            let (v, t) = torus(0.3, 0.1, 8, 5);
            return (
                SharedShape::trimesh(v.clone(), t.clone()).expect("torus"),
                Body::mesh(&v, &t),
            );
        }
        _ => {
            let t = Terrain::random(rng, (4, 4), Vec3::new(0.8, 0.3, 0.8), 0.1);
            return (t.shape(), Body::terrain(&t));
        }
    };
    let body = Body::of(&s);
    (s, body)
}

/// The least gap of `body` at `px` to the pieces of the compound at `pc`.
fn least(body: &Body, px: &Pose, pieces: &[(Terrain, Pose)], pc: &Pose) -> f64 {
    let sm = RigidMotion::stationary(*px);
    pieces
        .iter()
        .map(|(t, pose)| {
            let fm = RigidMotion::stationary(pc.mul(pose));
            Scene::new(body, &sm, t, &fm).gap(0.0).0
        })
        .fold(f64::INFINITY, f64::min)
}

/// Intersects and distance both orders against the reference; `Some(apart)`
/// outside the band.
fn check(
    (x, px, body): (&SharedShape, &Pose, &Body),
    (c, pc, pieces): (&SharedShape, &Pose, &[(Terrain, Pose)]),
    what: &str,
) -> Option<bool> {
    let least = least(body, px, pieces, pc);
    let what = format!("{what}: least gap {least}");
    agrees_in_both_orders((x, px), (c, pc), least, &what, |_, _| {});
    (least.abs() > BAND).then_some(least > 0.0)
}

/// One or two seeded terrains (with holes) as pieces at random poses; the
/// other shape posed at random near a sample point of the first.
#[test]
fn compounds_of_height_fields_match_the_nearest_triangle() {
    let mut rng = Rng::new(4973);
    let (mut apart, mut touching) = (0, 0);
    for i in 0..120 * long_factor() {
        let pieces: Vec<(Terrain, Pose)> = (0..1 + rng.below(2))
            .map(|_| {
                let t = Terrain::random(&mut rng, (6, 6), Vec3::new(3.0, 1.0, 3.0), 0.1);
                (t, Pose::new(rng.rotation(), rng.in_cube(0.5)))
            })
            .collect();
        let c = field_compound(&pieces);
        let pc = Pose::new(rng.rotation(), rng.in_cube(1.0));
        let (x, body) = other(&mut rng);
        // Triangle pairs are for surfaces: a compound is refused.
        let err = query::intersecting_triangles(&c, &pc, &x, &pc, ContactMode::All)
            .expect_err("a compound has no triangle pairs");
        assert!(err.to_string().contains("compound"), "{err}");
        let (t0, p0) = &pieces[0];
        let v = t0.vertex(1 + rng.below(4), 1 + rng.below(4));
        let at = pc
            .mul(p0)
            .transform_point(v + Vec3::Y * rng.range(-0.3, 0.6));
        let px = Pose::new(rng.rotation(), at);
        match check((&x, &px, &body), (&c, &pc, &pieces), &format!("scene {i}")) {
            Some(true) => apart += 1,
            Some(false) => touching += 1,
            None => {}
        }
    }
    assert!(
        apart > 8 && touching > 8,
        "{apart} apart, {touching} touching"
    );
}

/// Linear casts of every other kind at a compound holding one height
/// field piece, the compound still or moving to meet it, both orders:
/// never after the reference's first contact, within the tolerance then,
/// the field triangle named that close (`exact_field_motion::check_with`,
/// with the piece's motion: the compound's, started at its pose).
#[test]
fn casts_at_compounds_of_height_fields_match_the_reference() {
    let mut rng = Rng::new(4974);
    let options = ShapeCastOptions::default();
    let (mut hits, runs) = (0, 36 * long_factor());
    for i in 0..runs {
        let t = Terrain::random(&mut rng, (8, 8), Vec3::new(6.0, 1.5, 6.0), 0.1);
        let piece = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let c = field_compound(&[(t.clone(), piece)]);
        let pc = Pose::new(rng.rotation(), rng.in_cube(1.0));
        let frame = pc.mul(&piece);
        let (x, body) = other(&mut rng);
        let local = Vec3::new(rng.range(-2.0, 2.0), 2.0, rng.range(-2.0, 2.0));
        let start = Pose::new(rng.rotation(), frame.transform_point(local));
        let mut dir = frame.rotation
            * Vec3::new(rng.range(-0.8, 0.8), -1.0, rng.range(-0.8, 0.8))
            * rng.range(2.0, 5.0);
        if i % 4 == 3 {
            // Level with the field, clear of it: a miss.
            dir = frame.rotation * Vec3::new(3.0, 0.0, 1.0);
        }
        let share = [0.0, 0.5][i % 2];
        let sm = RigidMotion::linear(start, dir * (1.0 - share));
        let km = RigidMotion::linear(pc, -dir * share);
        let fm = RigidMotion::linear(frame, km.linvel);
        let scene = Scene::new(&body, &sm, &t, &fm);
        let ab = query::cast_shapes_nonlinear((&x, &sm), (&c, &km), &options).expect("cast");
        let ba = query::cast_shapes_nonlinear((&c, &km), (&x, &sm), &options).expect("cast");
        let hit = check_with(&scene, ab, (1, &options), &format!("run {i}, shape first"));
        check_with(
            &scene,
            ba,
            (0, &options),
            &format!("run {i}, compound first"),
        );
        hits += usize::from(hit);
    }
    assert!(hits > runs / 2 && hits < runs, "{hits} hits of {runs}");
}

/// Identity poses: a flat field piece (top at `y = −0.25` of the
/// compound), a cube (half-extent `0.25`) with a corner over a sample
/// point lifted `0, ±2⁻²⁴, 4·2⁻²⁴, ±10⁻³`: intersecting exactly when the
/// lift is at most 0, the distance the lift; falling at unit speed, the
/// cast time is the lift; sliding level at `10⁻³` (grazing): no hit; at
/// `0`: a hit at 0. The same `2²⁰` out against the reference.
#[test]
fn compounds_of_flat_fields_at_tiny_lifts() {
    let terrain = Terrain {
        rows: 5,
        cols: 5,
        heights: vec![0.0; 25],
        holes: vec![false; 16],
        scale: Vec3::new(4.0, 1.0, 4.0),
    };
    let piece = Pose::from_translation(Vec3::new(0.5, -0.25, 0.0));
    let pieces = [(terrain.clone(), piece)];
    let c = field_compound(&pieces);
    let cube = SharedShape::cuboid(Vec3::splat(0.25)).expect("cube");
    let body = Body::of(&cube);
    let options = ShapeCastOptions::default();
    let tiny = 2f32.powi(-24);
    for far in [0.0, 2f32.powi(20)] {
        let pc = Pose::from_translation(Vec3::new(far, -far, far));
        let frame = pc.mul(&piece);
        for lift in [0.0, tiny, -tiny, 4.0 * tiny, 1e-3, -1e-3] {
            // Corner at the sample `(0.5, ·, 1)` of the piece's frame.
            let px = Pose::from_translation(pc.translation + Vec3::new(0.75, lift, 1.25));
            let lift = f64::from(px.translation.y - pc.translation.y);
            let what = format!("lift {lift}, {far} out");
            let got = check((&cube, &px, &body), (&c, &pc, &pieces), &what);
            let fm = RigidMotion::stationary(frame);
            let km = RigidMotion::stationary(pc);
            for v in [Vec3::NEG_Y, Vec3::X] {
                let sm = RigidMotion::linear(px, v);
                let scene = Scene::new(&body, &sm, &terrain, &fm);
                let ab =
                    query::cast_shapes_nonlinear((&cube, &sm), (&c, &km), &options).expect("cast");
                let ba =
                    query::cast_shapes_nonlinear((&c, &km), (&cube, &sm), &options).expect("cast");
                check_with(&scene, ab, (1, &options), &what);
                check_with(&scene, ba, (0, &options), &what);
                if far == 0.0 && lift >= 0.0 {
                    let toi = ab.map(|h| f64::from(h.time_of_impact));
                    let want = if v.y < 0.0 || lift <= 1e-4 {
                        Some(lift)
                    } else {
                        None
                    };
                    let ok = match (toi, want) {
                        (Some(t), Some(w)) => t <= w + 1e-9 && t >= w - 1e-4,
                        (a, b) => a.is_none() && b.is_none(),
                    };
                    assert!(ok, "{what}, velocity {v}: {toi:?}, want {want:?}");
                }
            }
            if far == 0.0 {
                assert_eq!(got, (lift.abs() > BAND).then_some(lift > 0.0), "{what}");
                let hit = query::intersects(&cube, &px, &c, &pc).expect("intersects");
                assert_eq!(hit, lift <= 0.0, "{what}: intersects");
            }
        }
    }
}
