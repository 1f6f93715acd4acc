//! Turning polylines cast at compounds and at height fields, both orders,
//! against the independent `f64` reference of `exact_polyline_pairs.rs`:
//! each segment moved along its `f64` arc (`exact_polyline_motion::
//! turned`), its gap to a compound the least over the pieces (a box by
//! the exact segment–polytope distance, a capsule by segment–segment less
//! the radius), to a field the least exact segment–triangle distance over
//! the terrain's triangles written out by the test (holes skipped); 400
//! samples, every local minimum refined, the first zero bisected. The
//! crate's time is never after that first contact and the gap then within
//! the tolerance. Closed form at identity poses: a segment `[0, 1]·x`
//! turning a quarter about `z` meets a compound's box corner at 45° (time
//! ½) and a flat field at `y = ½` at 30° (time ⅓).

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::testkit::{Poly, Rng, dpose, long_factor};
use glam::{DVec3, Vec3};

use crate::exact_heightfield::Terrain;
use crate::exact_polyline_pairs::{Other, QUARTER_TURN_MEETS, check_quarter_turns, turning_case};

/// A compound of a box and a capsule at random piece poses, posed at
/// `pose`, and its reference pieces in the world.
fn compound(rng: &mut Rng, pose: Pose) -> (SharedShape, Other) {
    let cube = SharedShape::cuboid(rng.vec(0.1, 0.3)).expect("box");
    let (r, half) = (rng.range(0.05, 0.2), rng.range(0.1, 0.3));
    let capsule = SharedShape::capsule(r, 2.0 * half).expect("capsule");
    let (pb, pc) = (
        Pose::new(rng.rotation(), rng.in_cube(0.3)),
        Pose::new(rng.rotation(), rng.in_cube(0.3)),
    );
    let h = cube.hull().expect("hull");
    let (q, t) = dpose(&pose);
    let (qc, tc) = dpose(&pc);
    let axis = q * qc * DVec3::Y * f64::from(half);
    let centre = q * tc + t;
    let reference = Other::Pieces(vec![
        Other::Box(Poly::new(h.vertices(), h.triangles(), &pose.mul(&pb))),
        Other::Capsule([centre - axis, centre + axis], f64::from(r)),
    ]);
    let pieces = [(cube, pb), (capsule, pc)]
        .map(|(shape, pose)| CompoundPiece { pose, shape })
        .to_vec();
    (SharedShape::compound(pieces).expect("compound"), reference)
}

/// A terrain's field posed at `pose` and its triangles in the world.
fn field(t: &Terrain, pose: &Pose) -> (SharedShape, Other) {
    let (q, p) = dpose(pose);
    let tris = t
        .triangles()
        .into_iter()
        .map(|(_, v)| v.map(|x| q * x.as_dvec3() + p))
        .collect();
    (t.shape(), Other::Mesh(tris))
}

/// Turning (and moving) polylines at compounds (even cases) and seeded
/// terrains with holes (odd), posed at random, still, both orders.
#[test]
fn turning_polylines_cast_at_compounds_and_height_fields() {
    let mut rng = Rng::new(4981);
    let (mut hits, mut misses) = (0, 0);
    for i in 0..80 * long_factor() {
        let po = Pose::new(rng.rotation(), rng.in_cube(0.4));
        let (shape, reference) = if i % 4 < 2 {
            compound(&mut rng, po)
        } else {
            let t = Terrain::random(&mut rng, (5, 5), Vec3::new(1.6, 0.4, 1.6), 0.1);
            field(&t, &po)
        };
        match turning_case(&mut rng, i, (&shape, &po, &reference), &format!("case {i}")) {
            Some(true) => hits += 1,
            Some(false) => misses += 1,
            None => {}
        }
    }
    eprintln!("turning at composites: {hits} hits, {misses} misses");
    assert!(hits > 15 && misses > 10, "{hits} hits, {misses} misses");
    quarter_turns();
}

/// The closed-form quarter turns (see the module docs), both orders.
fn quarter_turns() {
    let at = QUARTER_TURN_MEETS;
    let cube = SharedShape::cuboid(Vec3::splat(0.2)).expect("box");
    // Two boxes; the first's corner at `at`, where the angle is ≥ 45°.
    let pieces = [Vec3::new(-0.2, 0.2, 0.0), Vec3::new(-0.2, 0.6, 0.0)]
        .map(|p| CompoundPiece {
            pose: Pose::from_translation(p),
            shape: cube.clone(),
        })
        .to_vec();
    let boxes = SharedShape::compound(pieces).expect("compound");
    let flat = Terrain {
        rows: 5,
        cols: 5,
        heights: vec![0.0; 25],
        holes: vec![false; 16],
        scale: Vec3::new(4.0, 1.0, 4.0),
    }
    .shape();
    let cases = [
        (&boxes, Pose::from_translation(at), 0.5f64),
        (&flat, Pose::from_translation(Vec3::Y * 0.5), 1.0 / 3.0),
    ];
    check_quarter_turns(&cases);
}
