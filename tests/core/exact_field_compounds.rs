//! Compounds against height fields (intersects, distance, closest points
//! and the triangle they name), against the independent `f64` reference of
//! `field_reference.rs`: the terrain's triangles written out by the test
//! (holes skipped), the compound by its pieces (a ball by its center's
//! exact triangle distance, a capsule by its segment's, a polytope by SAT
//! or the distance over all feature pairs, a mesh piece by the exact
//! triangle–triangle predicate), the least signed gap over all piece ×
//! triangle pairs. Seeded random terrains with holes, posed at random;
//! identity poses over a flat field with lifts of `0, ±2⁻²⁴, 4·2⁻²⁴,
//! ±10⁻³`, and the same `2²⁰` from the origin.

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query;
use bevy_icollide::testkit::{Rng, long_factor, torus};
use glam::{Quat, Vec3};

use crate::exact_heightfield::Terrain;
use crate::field_reference::{Body, Scene, dpose};

/// Band around contact in which either answer goes, and the distance
/// tolerance (both absolute; the shapes are of size about 1).
const BAND: f64 = 1e-5;
const TOL: f64 = 1e-5;

/// Two or three pieces (ball, capsule, box, hull; one in three scenes a
/// small torus mesh) at random poses, and their reference body.
fn compound(rng: &mut Rng) -> (SharedShape, Body) {
    let mut pieces = Vec::new();
    let mut bodies = Vec::new();
    for k in 0..2 + rng.below(2) {
        let pose = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let (shape, body) = match rng.below(5) {
            0 => (
                SharedShape::sphere(rng.range(0.1, 0.3)).expect("ball"),
                None,
            ),
            1 => (
                SharedShape::capsule(rng.range(0.08, 0.2), rng.range(0.1, 0.5)).expect("capsule"),
                None,
            ),
            2 => (SharedShape::cuboid(rng.vec(0.08, 0.3)).expect("box"), None),
            3 if k == 0 => {
                let (v, t) = torus(0.3, 0.1, 8, 5);
                let body = Body::mesh(&v, &t);
                (SharedShape::trimesh(v, t).expect("torus"), Some(body))
            }
            _ => (bevy_icollide::testkit::sphere_hull(rng, 10, 0.25), None),
        };
        let body = body.unwrap_or_else(|| Body::of(&shape));
        bodies.push((dpose(&pose), body));
        pieces.push(CompoundPiece { pose, shape });
    }
    (
        SharedShape::compound(pieces).expect("compound"),
        Body::Compound(bodies),
    )
}

/// `x` against `field` (a field or a compound of fields) in both orders:
/// `intersects` is `least < 0` outside the band, the distance is
/// `max(least, 0)` and, apart, the witnesses are `least` apart; `apart`
/// checks more of an apart pair's answer (`flip`: the field first).
pub(crate) fn agrees_in_both_orders(
    (x, px): (&SharedShape, &Pose),
    (field, pf): (&SharedShape, &Pose),
    least: f64,
    what: &str,
    mut apart: impl FnMut(&query::ClosestPoints, bool),
) {
    for flip in [false, true] {
        let ((a, pa), (b, pb)) = if flip {
            ((field, pf), (x, px))
        } else {
            ((x, px), (field, pf))
        };
        let hit = query::intersects(a, pa, b, pb).expect("intersects");
        if least.abs() > BAND {
            assert_eq!(hit, least < 0.0, "intersects, flipped {flip}: {what}");
        }
        let cp = query::closest_points(a, pa, b, pb).expect("closest");
        let d = f64::from(cp.distance);
        assert!(
            (d - least.max(0.0)).abs() <= TOL,
            "distance {d}, flipped {flip}: {what}"
        );
        if least > BAND {
            let w = f64::from(cp.point_a.distance(cp.point_b));
            assert!((w - least).abs() <= TOL, "witnesses {w} apart: {what}");
            apart(&cp, flip);
        }
    }
}

/// The least gap per the reference and the crate's answers, both orders.
fn check(
    (c, pc, body): (&SharedShape, &Pose, &Body),
    (field, pf, terrain): (&SharedShape, &Pose, &Terrain),
    case: &str,
) -> Option<bool> {
    let (sm, fm) = (RigidMotion::stationary(*pc), RigidMotion::stationary(*pf));
    let scene = Scene::new(body, &sm, terrain, &fm);
    let (least, tri) = scene.gap(0.0);
    let what = format!("{case}: least gap {least} (triangle {tri})");
    agrees_in_both_orders((c, pc), (field, pf), least, &what, |cp, flip| {
        // The triangle named is at the least gap.
        let named = cp.features[if flip { 0 } else { 1 }];
        if let bevy_icollide::shape::Feature::Face(id) = named {
            let g = scene.gap_to(0.0, id);
            assert!(g - least <= TOL, "triangle {id} at {g}: {what}");
        }
    });
    (least.abs() > BAND).then_some(least > 0.0)
}

/// Seeded compounds over seeded terrains (with holes), posed at random,
/// near the surface: the reference's least piece × triangle gap.
#[test]
fn compounds_against_height_fields_match_the_nearest_piece_triangle() {
    let mut rng = Rng::new(4951);
    let (mut apart, mut touching) = (0, 0);
    for i in 0..200 * long_factor() {
        let terrain = Terrain::random(&mut rng, (8, 8), Vec3::new(4.0, 1.0, 4.0), 0.1);
        let field = terrain.shape();
        let pf = Pose::new(rng.rotation(), rng.in_cube(1.0));
        let (c, body) = compound(&mut rng);
        // Over a sample point, at about its height.
        let v = terrain.vertex(1 + rng.below(6), 1 + rng.below(6));
        let local = v + Vec3::Y * rng.range(-0.3, 0.8);
        let pc = Pose::new(rng.rotation(), pf.transform_point(local));
        match check(
            (&c, &pc, &body),
            (&field, &pf, &terrain),
            &format!("scene {i}"),
        ) {
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

/// Identity poses: a compound of two boxes (half-extents `0.25`, side by
/// side, bottoms at `y = 0` of the compound) lifted `0, ±2⁻²⁴, 4·2⁻²⁴,
/// ±10⁻³` over a flat field at `y = 0`, a box corner over a sample
/// point: intersecting exactly when the lift is at most 0, the distance
/// the lift (within the distance's tolerance); the same `2²⁰` from the
/// origin (against the reference).
#[test]
fn compounds_over_flat_fields_at_tiny_lifts() {
    let terrain = Terrain {
        rows: 5,
        cols: 5,
        heights: vec![0.0; 25],
        holes: vec![false; 16],
        scale: Vec3::new(4.0, 1.0, 4.0),
    };
    let field = terrain.shape();
    let cube = SharedShape::cuboid(Vec3::splat(0.25)).expect("cube");
    let piece = |x: f32| CompoundPiece {
        pose: Pose::from_translation(Vec3::new(x, 0.25, 0.0)),
        shape: cube.clone(),
    };
    let c = SharedShape::compound(vec![piece(-0.25), piece(0.25)]).expect("compound");
    let body = Body::Compound(
        [-0.25f32, 0.25]
            .map(|x| {
                (
                    dpose(&Pose::from_translation(Vec3::new(x, 0.25, 0.0))),
                    Body::of(&cube),
                )
            })
            .into(),
    );
    let tiny = 2f32.powi(-24);
    for far in [0.0, 2f32.powi(20)] {
        let pf = Pose::from_translation(Vec3::new(far, -far, far));
        for lift in [0.0, tiny, -tiny, 4.0 * tiny, 1e-3, -1e-3] {
            // The right box spans `x ∈ [0.5, 1]`, `z ∈ [1, 1.5]`: its
            // corner over the sample point `(1, 0, 1)`.
            let pc = Pose::new(Quat::IDENTITY, pf.translation + Vec3::new(0.5, lift, 1.25));
            let lift = f64::from(pc.translation.y - pf.translation.y);
            let got = check(
                (&c, &pc, &body),
                (&field, &pf, &terrain),
                &format!("lift {lift}, {far}"),
            );
            if far == 0.0 {
                assert_eq!(got, (lift.abs() > BAND).then_some(lift > 0.0));
                let d = query::distance(&c, &pc, &field, &pf).expect("distance");
                // Within the distance's contract (GJK stops at `2·10⁻⁶` of
                // the pair's size: a box `10⁻⁶` over a field reads 0).
                let d = f64::from(d);
                assert!(
                    (d - lift.max(0.0)).abs() <= TOL,
                    "lift {lift}: distance {d}"
                );
                let hit = query::intersects(&c, &pc, &field, &pf).expect("intersects");
                assert_eq!(hit, lift <= 0.0, "lift {lift}: intersects");
            }
        }
    }
}
