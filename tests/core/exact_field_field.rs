//! Height field against height field (issue 43: HF – HF) in every query,
//! against an independent `f64` reference: both terrains written out by
//! the test as triangle lists (`Terrain::triangles`, the documented vertex
//! formula and split), every pair of their triangles decided.
//!
//! **What "exact" means here** (as for a mesh against a field,
//! `exact_heightfield.rs`): the pair is decided on `f32` coordinates, the
//! triangles of one field mapped into the other's frame. The documented
//! rule (`query/field_field.rs`): the field whose pose has the lesser bit
//! pattern keeps its coordinates; the other's are mapped by `q⁻¹ q'` and
//! `q⁻¹ (t' − t)` in `f32`; bitwise equal poses are not mapped. The
//! reference takes those coordinates in `f64` and decides every triangle
//! pair with Shewchuk's predicates (`testkit::touching_pairs`), so the
//! pairs must be equal, in both orders. Distances: the exact `f64`
//! triangle–triangle distances between the two terrains placed in the
//! world in `f64` (`field_reference::triangle_gap`), within `10⁻⁵` of the
//! scene (plus `10⁻⁷` of the distance from the origin); the named
//! triangles must be that near. Casts: `field_reference::Scene` with one
//! terrain as the moving body (a mesh of its triangles) and the other as
//! the field, both ways (each scene checks its field's triangle).
//!
//! Placements: seeded random terrains with holes at random poses (turned
//! about every axis, crossing at steep angles); the rounding-breaking
//! ones: identity poses, two fields sharing an edge or a single vertex
//! exactly (touching), moved off by one `f32` step (`2⁻²¹` at 4) or by
//! `2⁻²⁴` up, a flat field resting exactly on a spike (grazing), the same
//! field at the same pose (every triangle meets itself), fields `10³ …
//! 10⁶` from the origin.

use std::collections::BTreeSet;

use bevy_icollide::bvh::ContactMode;
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{self, ShapeCastOptions};
use bevy_icollide::shape::Feature;
use bevy_icollide::testkit::{Rng, long_factor, touching_pairs};
use glam::{DVec3, Quat, Vec3};

use crate::exact_field_motion::check_with;
use crate::exact_heightfield::Terrain;
use crate::field_reference::{Body, Scene, dpose, triangle_gap};

/// Whether the field at `a` is the frame the pair is decided in (the
/// documented rule: the lesser pose bits).
fn a_is_base(a: &Pose, b: &Pose) -> bool {
    let bits = |p: &Pose| {
        let (q, t) = (p.rotation.to_array(), p.translation.to_array());
        [q[0], q[1], q[2], q[3], t[0], t[1], t[2]].map(f32::to_bits)
    };
    bits(a) <= bits(b)
}

/// The exact touching `[triangle of a, triangle of b]` pairs.
fn pair_reference(ta: &Terrain, pa: &Pose, tb: &Terrain, pb: &Pose) -> BTreeSet<[u32; 2]> {
    let base_a = a_is_base(pa, pb);
    let ((base, p), (moved, q)) = if base_a {
        ((ta, pa), (tb, pb))
    } else {
        ((tb, pb), (ta, pa))
    };
    let inv = p.rotation.inverse();
    let rel = Pose::new(inv * q.rotation, inv * (q.translation - p.translation));
    let map = |v: Vec3| if p == q { v } else { rel.transform_point(v) };
    let (bt, mt) = (base.triangles(), moved.triangles());
    let bd: Vec<[DVec3; 3]> = bt.iter().map(|(_, t)| t.map(|v| v.as_dvec3())).collect();
    let md: Vec<[DVec3; 3]> = mt
        .iter()
        .map(|(_, t)| t.map(|v| map(v).as_dvec3()))
        .collect();
    touching_pairs(&bd, &md)
        .into_iter()
        .map(|[i, j]| {
            let (k, m) = (bt[i as usize].0, mt[j as usize].0);
            if base_a { [k, m] } else { [m, k] }
        })
        .collect()
}

/// A terrain's triangles in the world (`f64`), with their ids.
fn placed(t: &Terrain, p: &Pose) -> Vec<(u32, [DVec3; 3])> {
    let (q, x) = dpose(p);
    t.triangles()
        .into_iter()
        .map(|(id, v)| (id, v.map(|v| q * v.as_dvec3() + x)))
        .collect()
}

/// The least exact distance of the two placed terrains (0 when they meet).
fn distance_reference(a: &[(u32, [DVec3; 3])], b: &[(u32, [DVec3; 3])]) -> f64 {
    let ball = |t: &[DVec3; 3]| {
        let c = (t[0] + t[1] + t[2]) / 3.0;
        (c, t.iter().map(|v| v.distance(c)).fold(0.0, f64::max))
    };
    let mut best = f64::INFINITY;
    for (_, x) in a {
        let (cx, rx) = ball(x);
        for (_, y) in b {
            let (cy, ry) = ball(y);
            if cx.distance(cy) - rx - ry <= best {
                best = best.min(triangle_gap(*x, *y).max(0.0));
            }
        }
    }
    best
}

fn pairs_of(a: &Terrain, pa: &Pose, b: &Terrain, pb: &Pose, mode: ContactMode) -> Vec<[u32; 2]> {
    query::intersecting_triangles(&a.shape(), pa, &b.shape(), pb, mode).expect("pairs")
}

/// Checks two fields against the reference in both orders: pairs,
/// `intersects`, the first pair, distance and closest points. Returns
/// the number of touching pairs.
fn check_pair(ta: &Terrain, pa: &Pose, tb: &Terrain, pb: &Pose, what: &str) -> usize {
    let want = pair_reference(ta, pa, tb, pb);
    let got = pairs_of(ta, pa, tb, pb, ContactMode::All);
    let set: BTreeSet<[u32; 2]> = got.iter().copied().collect();
    assert_eq!(set.len(), got.len(), "{what}: duplicate pairs");
    assert_eq!(set, want, "{what}: pairs");
    let flipped: BTreeSet<[u32; 2]> = pairs_of(tb, pb, ta, pa, ContactMode::All)
        .iter()
        .map(|p| [p[1], p[0]])
        .collect();
    assert_eq!(flipped, want, "{what}: flipped pairs");
    let first = pairs_of(ta, pa, tb, pb, ContactMode::First);
    assert!(first.len() <= 1 && first.iter().all(|p| want.contains(p)));
    assert_eq!(first.is_empty(), want.is_empty(), "{what}: first pair");
    let (fa, fb) = (ta.shape(), tb.shape());
    for hit in [
        query::intersects(&fa, pa, &fb, pb).expect("intersects"),
        query::intersects(&fb, pb, &fa, pa).expect("intersects"),
    ] {
        assert_eq!(hit, !want.is_empty(), "{what}: intersects");
    }
    check_distance((ta, pa), (tb, pb), !want.is_empty(), what);
    want.len()
}

/// Distance and closest points both ways against the `f64` reference.
fn check_distance(
    (ta, pa): (&Terrain, &Pose),
    (tb, pb): (&Terrain, &Pose),
    meet: bool,
    what: &str,
) {
    let (wa, wb) = (placed(ta, pa), placed(tb, pb));
    let want = distance_reference(&wa, &wb);
    let far = pa.translation.length().max(pb.translation.length()) as f64;
    let band = 1e-5 * (ta.scale.length() + tb.scale.length()) as f64 + 1e-7 * far;
    assert!(!meet || want <= band, "{what}: meeting pairs {want} apart");
    let (fa, fb) = (ta.shape(), tb.shape());
    let ab = query::closest_points(&fa, pa, &fb, pb).expect("closest");
    let mut ba = query::closest_points(&fb, pb, &fa, pa).expect("closest");
    ba.features.swap(0, 1);
    std::mem::swap(&mut ba.point_a, &mut ba.point_b);
    for c in [ab, ba] {
        let d = f64::from(c.distance);
        assert!(
            (d - want).abs() <= band,
            "{what}: distance {d}, want {want}"
        );
        let [Feature::Face(i), Feature::Face(j)] = c.features else {
            panic!("{what}: features {:?}", c.features);
        };
        let tri = |w: &[(u32, [DVec3; 3])], id| w.iter().find(|t| t.0 == id).expect("id").1;
        let (x, y) = (tri(&wa, i), tri(&wb, j));
        let named = triangle_gap(x, y).max(0.0);
        assert!(named <= want + band, "{what}: [{i}, {j}] {named} apart");
        let gap = (c.point_a.as_dvec3() - c.point_b.as_dvec3()).length();
        assert!(
            (gap - d).abs() <= band + 1e-7 * far,
            "{what}: points {gap} apart"
        );
    }
}

/// A random terrain and a pose near `pa` (turned about `y`, or about any
/// axis: steep crossings).
fn near(rng: &mut Rng, pa: &Pose, steep: bool) -> (Terrain, Pose) {
    let dims = (rng.usize(2, 11), rng.usize(2, 11));
    let scale = rng.vec(3.0, 8.0);
    let t = Terrain::random(rng, dims, scale, 0.15);
    let turn = if steep {
        rng.rotation()
    } else {
        Quat::from_rotation_y(rng.range(0.0, 6.3))
    };
    let local = Vec3::new(
        rng.range(-2.0, 2.0),
        rng.range(-0.8, 0.8),
        rng.range(-2.0, 2.0),
    );
    (t, Pose::new(pa.rotation * turn, pa.transform_point(local)))
}

#[test]
fn fields_meet_fields_at_random_poses() {
    let mut rng = Rng::new(4401);
    let (mut touching, runs) = (0, 40 * long_factor());
    for round in 0..runs {
        let dims = (rng.usize(2, 9), rng.usize(2, 9));
        let scale = rng.vec(2.0, 6.0);
        let ta = Terrain::random(&mut rng, dims, scale, 0.15);
        let pa = if round % 3 == 0 {
            Pose::IDENTITY
        } else {
            Pose::new(rng.rotation(), rng.in_cube(3.0))
        };
        let (tb, pb) = near(&mut rng, &pa, round % 2 == 1);
        let what = format!("round {round}");
        touching += usize::from(check_pair(&ta, &pa, &tb, &pb, &what) > 0);
    }
    assert!(
        touching > runs / 4 && touching < runs,
        "{touching} of {runs} touch"
    );
}

/// A 5 × 5 terrain on integer coordinates (`x`, `z` in `-2 … 2`).
fn grid(rng: &mut Rng) -> Terrain {
    Terrain::random(rng, (5, 5), Vec3::new(4.0, 1.0, 4.0), 0.0)
}

#[test]
fn fields_sharing_edges_and_vertices_and_tiny_offsets() {
    let mut rng = Rng::new(4402);
    let a = grid(&mut rng);
    // `b` beside `a` along `x`: its first column is `a`'s last (the same
    // heights), an edge chain shared exactly.
    let mut b = grid(&mut rng);
    for i in 0..5 {
        b.heights[i * 5] = a.heights[i * 5 + 4];
    }
    // `c` beyond `a`'s far corner: one vertex shared.
    let mut c = grid(&mut rng);
    c.heights[0] = a.heights[24];
    let id = Pose::IDENTITY;
    for (t, shift) in [
        (&b, Vec3::new(4.0, 0.0, 0.0)),
        (&c, Vec3::new(4.0, 0.0, 4.0)),
    ] {
        let at = |s: Vec3| Pose::from_translation(s);
        let n = check_pair(&a, &id, t, &at(shift), "shared");
        assert!(n > 0, "fields sharing {shift} do not touch");
        let off = Vec3::new(4.0f32.next_up(), 0.0, shift.z);
        assert_eq!(check_pair(&a, &id, t, &at(off), "one step off"), 0);
        let into = Vec3::new(4.0f32.next_down(), 0.0, shift.z);
        check_pair(&a, &id, t, &at(into), "one step in");
        for dy in [2f32.powi(-24), -(2f32.powi(-24)), 1e-3] {
            check_pair(&a, &id, t, &at(shift + Vec3::Y * dy), "lifted");
        }
    }
    // The same field at the same pose: every triangle meets itself.
    let p = Pose::new(rng.rotation(), Vec3::new(3.0, -1.0, 2.0));
    let n = check_pair(&a, &p, &a, &p, "itself");
    assert!(n >= a.triangles().len(), "{n} pairs");
    // Lifted by 2⁻²⁴ (rounding keeps some heights), by 10⁻³ (apart).
    let up = |dy: f32| Pose::from_translation(Vec3::Y * dy);
    check_pair(&a, &id, &a, &up(2f32.powi(-24)), "2^-24 above");
    assert_eq!(check_pair(&a, &id, &a, &up(1e-3), "above"), 0);
    // A flat field resting exactly on `a`'s highest vertex, then a step
    // above it.
    let flat = flat_field();
    let (top, (i, j)) = (0..25)
        .map(|k| (a.vertex(k / 5, k % 5), (k / 5, k % 5)))
        .max_by(|x, y| x.0.y.total_cmp(&y.0.y))
        .expect("a vertex");
    let on = Pose::from_translation(top);
    assert!(check_pair(&a, &id, &flat, &on, "on the top") > 0, "{i} {j}");
    let above = Pose::from_translation(Vec3::new(top.x, top.y.next_up(), top.z));
    assert_eq!(check_pair(&a, &id, &flat, &above, "over the top"), 0);
}

#[test]
fn fields_far_from_the_origin() {
    let mut rng = Rng::new(4403);
    for far in [1.0e3f32, 1.0e4, 1.0e5, 1.0e6] {
        for k in 0..4 {
            let scale = rng.vec(3.0, 6.0);
            let ta = Terrain::random(&mut rng, (6, 7), scale, 0.1);
            let pa = Pose::new(rng.rotation(), rng.unit_vector() * far);
            let (tb, pb) = near(&mut rng, &pa, k % 2 == 1);
            check_pair(&ta, &pa, &tb, &pb, &format!("{far} out"));
        }
    }
}

/// Casts field `a` (under `ma`) and field `b` (under `mb`) both ways; each
/// hit checked by both scenes (one field the body, the other the field:
/// each names its field's triangle). Whether they hit.
fn cast_fields(
    (ta, ma): (&Terrain, &RigidMotion),
    (tb, mb): (&Terrain, &RigidMotion),
    what: &str,
) -> bool {
    let options = ShapeCastOptions::default();
    let (fa, fb) = (ta.shape(), tb.shape());
    let (body_a, body_b) = (Body::terrain(ta), Body::terrain(tb));
    let on_b = Scene::new(&body_a, ma, tb, mb);
    let on_a = Scene::new(&body_b, mb, ta, ma);
    let ab = query::cast_shapes_nonlinear((&fa, ma), (&fb, mb), &options).expect("cast");
    let ba = query::cast_shapes_nonlinear((&fb, mb), (&fa, ma), &options).expect("cast");
    let hit = check_with(&on_b, ab, (1, &options), &format!("{what}: a onto b"));
    check_with(&on_a, ab, (0, &options), &format!("{what}: a onto b, a's"));
    check_with(&on_b, ba, (0, &options), &format!("{what}: b onto a"));
    check_with(&on_a, ba, (1, &options), &format!("{what}: b onto a, a's"));
    assert_eq!(hit, ba.is_some(), "{what}: the orders disagree");
    hit
}

/// A small field falling, sliding or turning onto a larger one that
/// stands still, moves or turns (seeded), some far from the origin.
#[test]
fn fields_cast_at_fields_match_the_reference() {
    let mut rng = Rng::new(4404);
    let (mut hits, runs) = (0, 18 * long_factor());
    for i in 0..runs {
        let tb = Terrain::random(&mut rng, (7, 8), Vec3::new(8.0, 2.0, 8.0), 0.1);
        let ta = Terrain::random(&mut rng, (4, 5), Vec3::new(2.5, 1.0, 2.0), 0.1);
        let far = [0.0, 1.0e3, 1.0e5][i % 3] * rng.unit_vector();
        let pb = Pose::new(Quat::from_rotation_y(rng.range(0.0, 6.3)), far);
        let tilt = Quat::from_rotation_x(rng.range(-0.3, 0.3));
        let turn = Quat::from_rotation_y(rng.range(0.0, 6.3)) * tilt;
        let local = Vec3::new(rng.range(-2.5, 2.5), 2.6, rng.range(-2.5, 2.5));
        let start = Pose::new(turn, pb.transform_point(local));
        let dir = Vec3::new(rng.range(-0.8, 0.8), -1.0, rng.range(-0.8, 0.8)) * rng.range(2.0, 5.0);
        let share = [0.0, 0.5, 1.0][i % 3];
        let mut ma = RigidMotion::linear(start, dir * (1.0 - share));
        let mut mb = RigidMotion::linear(pb, -dir * share);
        match i % 6 {
            3 | 4 => {
                mb.angvel = rng.vec(-0.3, 0.3) + Vec3::Y * rng.range(-1.5, 1.5);
                mb.local_center = rng.vec(-2.0, 2.0);
            }
            5 => ma.angvel = rng.vec(-2.0, 2.0),
            _ => {}
        }
        if i % 4 == 3 {
            // Level over a still field, clear of it: a miss.
            (ma.linvel, ma.angvel, mb) = (
                Vec3::new(3.0, 0.0, 1.0),
                Vec3::ZERO,
                RigidMotion::stationary(pb),
            );
        }
        hits += usize::from(cast_fields((&ta, &ma), (&tb, &mb), &format!("run {i}")));
    }
    assert!(hits > runs / 2 && hits < runs, "{hits} hits of {runs}");
}

/// A flat field at identity rotations over a terrain's highest vertex:
/// falling onto it from gaps `0, 2⁻²⁴, 10⁻³, 0.25`, sliding level over
/// it at those gaps, and sharing an edge chain with a field that slides
/// along it.
#[test]
fn fields_cast_on_vertices_edges_and_tiny_offsets() {
    let mut rng = Rng::new(4405);
    let a = grid(&mut rng);
    let flat = flat_field();
    let top = (0..25)
        .map(|k| a.vertex(k / 5, k % 5))
        .max_by(|x, y| x.y.total_cmp(&y.y))
        .expect("a vertex");
    let still = RigidMotion::stationary(Pose::IDENTITY);
    let mut hits = 0;
    for gap in [0.0, 2f32.powi(-24), 1e-3, 0.25] {
        let at = Pose::from_translation(top + Vec3::Y * gap);
        for v in [-Vec3::Y, Vec3::X, Vec3::new(0.3, 0.0, -1.0)] {
            let m = RigidMotion::linear(at, v);
            hits += usize::from(cast_fields(
                (&flat, &m),
                (&a, &still),
                &format!("{gap} {v}"),
            ));
        }
    }
    assert!(hits >= 4, "{hits} hits");
    // A field sharing `a`'s last column, sliding along `z` and away.
    let mut b = grid(&mut rng);
    for i in 0..5 {
        b.heights[i * 5] = a.heights[i * 5 + 4];
    }
    let beside = Pose::from_translation(Vec3::new(4.0, 0.0, 0.0));
    for v in [Vec3::Z, Vec3::X, -Vec3::X] {
        let m = RigidMotion::linear(beside, v);
        assert!(cast_fields((&b, &m), (&a, &still), &format!("beside {v}")));
    }
}

/// A field body moving over a static field in the world: each frame the
/// pair's triangle pairs are the reference's (the world tests the pair in
/// the frame at a body, `f64` differences rounded once: the same `f32`
/// relative pose). Then continuous detection: a fast field jumping
/// through the static one in a step touches it exactly when the
/// reference along the sweep finds a contact.
#[test]
fn a_field_body_meets_a_static_field_in_the_world() {
    use bevy_icollide::pipeline::{BodyDesc, CollisionWorld};
    let mut rng = Rng::new(4406);
    let tb = Terrain::random(&mut rng, (9, 9), Vec3::new(8.0, 2.0, 8.0), 0.1);
    let ta = Terrain::random(&mut rng, (4, 4), Vec3::new(2.0, 1.0, 2.0), 0.1);
    let pb = Pose::new(Quat::from_rotation_y(0.3), Vec3::new(100.0, -5.0, 40.0));
    let mut world = CollisionWorld::default();
    let hb = world.add_body(BodyDesc {
        is_static: true,
        ..BodyDesc::new(tb.shape())
    });
    world.set_pose(hb, pb).expect("pose");
    let ha = world.add_body(BodyDesc::new(ta.shape()));
    let mut pa = Pose::new(
        Quat::from_rotation_y(1.0),
        pb.transform_point(Vec3::Y * 2.0),
    );
    let mut touching = 0;
    for frame in 0..40 {
        pa.translation += rng.in_cube(0.05) - pb.rotation * Vec3::Y * 0.06;
        world.set_pose(ha, pa).expect("pose");
        let _ = world.step();
        let want = pair_reference(&ta, &pa, &tb, &pb);
        let state = world.pair(ha, hb);
        let got: BTreeSet<[u32; 2]> = state
            .and_then(|p| p.triangle_pairs())
            .unwrap_or_default()
            .iter()
            .copied()
            .collect();
        let swapped: BTreeSet<[u32; 2]> = got.iter().map(|p| [p[1], p[0]]).collect();
        assert!(
            got == want || swapped == want,
            "frame {frame}: {got:?} {want:?}"
        );
        let hit = state.is_some_and(|p| p.result.touching);
        assert_eq!(hit, !want.is_empty(), "frame {frame}");
        touching += usize::from(hit);
    }
    assert!(touching > 10 && touching < 40, "{touching} frames touching");
    let (mut touches, runs) = (0, 8);
    for i in 0..runs {
        let mut world = CollisionWorld::default();
        let hb = world.add_body(BodyDesc {
            is_static: true,
            ..BodyDesc::new(tb.shape())
        });
        world.set_pose(hb, pb).expect("pose");
        let mut desc = BodyDesc::new(ta.shape());
        desc.ccd = true;
        let ha = world.add_body(desc);
        let xz = |rng: &mut Rng, y: f32| {
            pb.transform_point(Vec3::new(rng.range(-2.0, 2.0), y, rng.range(-2.0, 2.0)))
        };
        let (y0, y1) = if i % 2 == 0 { (3.0, -6.0) } else { (2.6, 2.6) };
        let from = Pose::new(Quat::from_rotation_y(rng.range(0.0, 6.3)), xz(&mut rng, y0));
        let to = Pose::new(Quat::from_rotation_y(0.5) * from.rotation, xz(&mut rng, y1));
        world.set_pose(ha, from).expect("pose");
        assert_eq!(world.step().count(), 0, "apart at first");
        world.set_pose(ha, to).expect("pose");
        let started = world.step().filter(|e| e.started).count();
        let motion = RigidMotion::between(&from, &to, ta.shape().local_aabb().center());
        let body = Body::terrain(&ta);
        let still = RigidMotion::stationary(pb);
        let scene = Scene::new(&body, &motion, &tb, &still);
        let near = scene.first_at(1.0, -1e-5);
        assert_eq!(started, usize::from(near.is_some()), "run {i}: {near:?}");
        touches += started;
    }
    assert_eq!(touches, runs / 2, "{touches} touches");
}

/// A flat 3×3 field, 2 m cells, at `y = 0`.
fn flat_field() -> Terrain {
    Terrain {
        heights: vec![0.0; 9],
        holes: vec![false; 4],
        rows: 3,
        cols: 3,
        scale: Vec3::new(2.0, 1.0, 2.0),
    }
}
