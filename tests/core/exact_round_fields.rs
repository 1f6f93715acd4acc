//! Rounded boxes and hulls, segments and triangles (RC, F) against height
//! fields: one-shot queries and casts against the reference of
//! `exact_round_casts.rs` (every shape a polytope core swept by a ball,
//! the cores' exact `f64` separation less the radius), the field as its
//! triangles written out by the test (`Terrain::triangles`: the
//! documented vertex formula and split, holes skipped).

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{self, ShapeCastOptions};
use bevy_icollide::testkit::{Rng, long_factor};
use glam::{DVec3, Vec3};

use crate::exact_heightfield::Terrain;
use crate::exact_implicit::{BAND, TOL};
use crate::exact_round_casts::{
    Core, cast_either, check_linear, check_turning, identity_falls_onto, least,
};
use crate::exact_round_kinds::round_kind;

/// Seeded rounded and flat kinds over seeded terrains with holes, posed
/// at random: intersects and distance (both orders) are the least
/// separation over the terrain's triangles; linear casts from above
/// (both orders) never after the first triangle contact and touching
/// then, turning casts (the field turning) touching at the reported time
/// and apart before. Identity poses: a rounded box falling `0, 2⁻²⁴,
/// 4·2⁻²⁴, 10⁻³` onto a flat field (time = the gap), sliding `10⁻³`
/// above it (no hit), the same `2²⁰` out.
#[test]
fn round_kinds_against_height_fields_match_the_nearest_triangle() {
    let mut rng = Rng::new(4804);
    let (mut apart, mut touching, mut hits, mut turning) = (0, 0, 0, 0);
    for i in 0..60 * long_factor() {
        let terrain = Terrain::random(&mut rng, (5, 5), Vec3::new(3.0, 1.0, 3.0), 0.1);
        let field = terrain.shape();
        let pf = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let tris: Vec<[Vec3; 3]> = terrain.triangles().into_iter().map(|(_, t)| t).collect();
        let pieces = |p: &Pose| -> Vec<(Core, Pose)> {
            tris.iter().map(|t| (Core::triangle(*t), *p)).collect()
        };
        let a = round_kind(&mut rng, 1.0);
        let ca = Core::of(&a);
        let v = terrain.vertex(1 + rng.below(3), 1 + rng.below(3));
        let pa = Pose::new(
            rng.rotation(),
            pf.transform_point(v + Vec3::Y * rng.range(-0.2, 0.5)),
        );
        let g = least(&ca, &pa, DVec3::ZERO, &pieces(&pf));
        let case = format!("{i}: {} at {g}", a.kind_name());
        for flip in [false, true] {
            let ((x, px), (y, py)) = if flip {
                ((&field, &pf), (&a, &pa))
            } else {
                ((&a, &pa), (&field, &pf))
            };
            let hit = query::intersects(x, px, y, py).expect("intersects");
            if g.abs() > BAND {
                assert_eq!(hit, g < 0.0, "{case}: intersects, flipped {flip}");
            }
            let d = f64::from(query::distance(x, px, y, py).expect("distance"));
            assert!(
                (d - g.max(0.0)).abs() <= TOL,
                "{case}: distance {d}, flipped {flip}"
            );
        }
        if g.abs() > BAND {
            (apart, touching) = (
                apart + usize::from(g > 0.0),
                touching + usize::from(g < 0.0),
            );
        }
        // Casts from above.
        let start = Pose::new(
            rng.rotation(),
            pf.transform_point(v + Vec3::Y * rng.range(0.6, 1.0)),
        );
        let vel = pf.rotation * (-Vec3::Y * rng.range(0.5, 1.5) + rng.in_cube(0.5));
        if i % 3 == 2 {
            let mf = RigidMotion {
                angvel: rng.unit_vector() * rng.range(0.3, 1.0),
                ..RigidMotion::linear(pf, -vel)
            };
            let got = query::cast_shapes_nonlinear(
                (&a, &RigidMotion::stationary(start)),
                (&field, &mf),
                &ShapeCastOptions::default(),
            )
            .expect("cast");
            let turned = check_turning((&ca, &start), (&mf, &pieces), got, (1.0, &case));
            turning += usize::from(turned);
            continue;
        }
        let got = cast_either((&a, &start, vel), (&field, &pf), i);
        let hit = check_linear((&ca, &start, vel), &pieces(&pf), got, (1.0, &case));
        hits += usize::from(hit == Some(true));
    }
    assert!(
        apart > 10 && touching > 10 && hits > 10 && turning > 4,
        "{apart} apart, {touching} touching, {hits} linear hits, {turning} turning"
    );
    let flat = Terrain {
        rows: 5,
        cols: 5,
        heights: vec![0.0; 25],
        holes: vec![false; 16],
        scale: Vec3::new(4.0, 1.0, 4.0),
    };
    let field: SharedShape = flat.shape();
    identity_falls_onto(|_| field.clone());
}
