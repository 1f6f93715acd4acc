//! Polylines against convex kinds, meshes and in a world, against an
//! independent `f64` brute force (rays, casts, compounds, height fields
//! and half-spaces: `exact_polyline_casts.rs`):
//! each segment as its own reference shape. The distance from a segment
//! `P(s)` to a convex solid is convex in `s` (the distance to a convex set
//! is convex, `P` affine), so its minimum is found by ternary search on
//! the exact point distances of `implicit_reference.rs` (a polytope as a
//! solid: 0 inside its planes, else the nearest boundary triangle); a
//! mesh by each of its triangles alike; the depth of an overlap by the
//! separation maximised over directions. The polyline's answer must be
//! the nearest (deepest) segment's, and name it. Seeded random scenes and
//! rounding-breaking placements (identity poses, shared vertices, offsets
//! of `2⁻²⁴`, grazing, far from the origin). Tolerances as in
//! `exact_implicit.rs`.

use bevy_icollide::collider::{CompoundPiece, ShapeError, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::query;
use bevy_icollide::testkit::{Rng, long_factor};
use glam::{DVec3, Quat, Vec3};

use crate::exact_implicit::{BAND, TOL, any_convex};
use crate::exact_round_kinds::round_kind;
use crate::implicit_reference::{Placed, RefShape, point_segment, point_triangle, separation};

/// A chain of 2 to 6 segments in a cube of `scale`, sometimes closed,
/// sometimes a star (segments sharing one point, given by indices).
pub(crate) fn polyline(rng: &mut Rng, scale: f32) -> SharedShape {
    loop {
        let n = 3 + rng.below(5);
        let points: Vec<Vec3> = (0..n).map(|_| rng.in_cube(0.5) * scale).collect();
        let indices = match rng.below(3) {
            0 => None,
            1 => Some((0..n as u32).map(|i| [i, (i + 1) % n as u32]).collect()),
            _ => Some((1..n as u32).map(|i| [0, i]).collect()),
        };
        if let Ok(s) = SharedShape::polyline(points, indices) {
            return s;
        }
    }
}

/// The segments of a polyline at `pose`, `f64`.
pub(crate) fn segments(line: &SharedShape, pose: &Pose) -> Vec<[DVec3; 2]> {
    let l = line.polyline().expect("a polyline");
    let p = Placed::of(RefShape::Segment(DVec3::ZERO, DVec3::X), pose);
    (0..l.segments().len() as u32)
        .map(|i| l.segment(i).map(|v| p.rot * v.as_dvec3() + p.pos))
        .collect()
}

/// A convex shape as a solid with its exact distance.
pub(crate) fn solid(shape: &SharedShape, pose: &Pose) -> Placed {
    match (shape.polytope(), shape.hull()) {
        (Some(_), Some(h)) => Placed::of(RefShape::solid(h.vertices(), h.triangles()), pose),
        _ => Placed::new(shape, pose),
    }
}

/// `min_{s ∈ [0, 1]} f(s)` for a convex `f` (ternary search).
pub(crate) fn convex_min(f: impl Fn(f64) -> f64) -> f64 {
    f(convex_argmin(&f))
}

/// Where on `[0, 1]` a convex `f` is least (ternary search, the ends
/// checked too).
pub(crate) fn convex_argmin(f: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..120 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let mid = 0.5 * (lo + hi);
    [0.0, 1.0]
        .into_iter()
        .fold(mid, |b, u| if f(u) < f(b) { u } else { b })
}

/// Distance from the segment to the solid.
pub(crate) fn segment_distance([a, b]: [DVec3; 2], other: &Placed) -> f64 {
    convex_min(|s| other.distance(a + (b - a) * s))
}

/// Each segment's reference: its distance to the solid, and its signed
/// separation (negative depth) when it overlaps.
pub(crate) fn per_segment(segs: &[[DVec3; 2]], other: &Placed, seeds: &[Vec3]) -> Vec<f64> {
    segs.iter()
        .map(|&[a, b]| {
            // The search stops at the edge of an overlap, where the
            // distance is 0 to within rounding.
            let d = segment_distance([a, b], other);
            if d > 1e-12 {
                return d;
            }
            let seg = Placed::of(RefShape::Segment(a, b), &Pose::IDENTITY);
            separation(&seg, other, seeds).0.min(0.0)
        })
        .collect()
}

/// Checks the queries on a polyline (A) and a convex shape (B) against the
/// per-segment reference, in both orders; `Some(apart)` when clear of the
/// band.
fn check_convex(
    (line, pl): (&SharedShape, &Pose),
    (other, po): (&SharedShape, &Pose),
) -> Option<bool> {
    let s = f64::from(line.fixed_cube().radius.max(other.fixed_cube().radius));
    let segs = segments(line, pl);
    // The crate's directions as candidates: they can only raise the
    // reference's lower bound on the separation, never decide it.
    let seeds = [
        query::penetration(line, pl, other, po)
            .expect("penetration")
            .map_or(Vec3::X, |p| p.normal),
        {
            let c = query::closest_points(line, pl, other, po).expect("closest");
            c.point_b - c.point_a
        },
    ];
    let refs = per_segment(&segs, &solid(other, po), &seeds);
    let best = refs.iter().copied().fold(f64::MAX, f64::min);
    let what = format!(
        "polyline at {pl:?} / {} at {po:?}: {refs:?}",
        other.kind_name()
    );
    for flip in [false, true] {
        let (hit, c, pen) = if flip {
            let c = query::closest_points(other, po, line, pl).expect("closest");
            let c = query::ClosestPoints {
                point_a: c.point_b,
                point_b: c.point_a,
                pieces: [c.pieces[1], c.pieces[0]],
                ..c
            };
            let pen = query::penetration(other, po, line, pl).expect("penetration");
            (query::intersects(other, po, line, pl).expect("q"), c, pen)
        } else {
            let c = query::closest_points(line, pl, other, po).expect("closest");
            let pen = query::penetration(line, pl, other, po).expect("penetration");
            (query::intersects(line, pl, other, po).expect("q"), c, pen)
        };
        if best.abs() > BAND * s {
            assert_eq!(hit, best < 0.0, "intersects (flip {flip}): {what}");
            assert_eq!(c.intersecting, best < 0.0, "intersecting: {what}");
        }
        let d = f64::from(c.distance);
        assert!((d - best.max(0.0)).abs() <= TOL * s, "distance {d}: {what}");
        // The segment named is one of the nearest, and holds the witness.
        let k = c.pieces[0] as usize;
        assert!(
            refs[k].max(0.0) <= best.max(0.0) + TOL * s,
            "piece {k}: {what}"
        );
        let [a, b] = segs[k];
        let on = point_segment(c.point_a.as_dvec3(), a, b);
        assert!(on <= TOL * s, "witness {on} off segment {k}: {what}");
        if best < -BAND * s {
            let p = pen.unwrap_or_else(|| panic!("no penetration: {what}"));
            let depth = f64::from(p.depth);
            assert!((depth + best).abs() <= TOL * s, "depth {depth}: {what}");
        }
    }
    (best.abs() > BAND * s).then_some(best > 0.0)
}

pub(crate) fn other_kind(rng: &mut Rng) -> SharedShape {
    if rng.bool() {
        round_kind(rng, 1.0)
    } else {
        any_convex(rng)
    }
}

#[test]
fn polylines_against_every_convex_kind_match_the_nearest_segment() {
    let mut rng = Rng::new(4301);
    let (mut apart, mut overlapping) = (0, 0);
    for _ in 0..300 * long_factor() {
        let line = polyline(&mut rng, 1.2);
        let other = other_kind(&mut rng);
        let pl = Pose::new(rng.rotation(), rng.in_cube(0.3));
        let po = Pose::new(rng.rotation(), rng.in_cube(0.4));
        match check_convex((&line, &pl), (&other, &po)) {
            Some(true) => apart += 1,
            Some(false) => overlapping += 1,
            None => {}
        }
    }
    assert!(
        apart > 40 && overlapping > 40,
        "{apart} apart, {overlapping} overlapping"
    );
}

/// Identity poses, a polyline lying on a box's top face (and on a rounded
/// box's, a sphere's top) at gaps `0, ±2⁻²⁴, 4·2⁻²⁴, ±10⁻³`, grazing along
/// the face; a vertex shared with the box's corner; two polylines sharing
/// a point; the same polyline at the same pose.
#[test]
fn polylines_touching_grazing_and_tiny_offsets() {
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cuboid");
    let rbox = SharedShape::round_cuboid(Vec3::splat(0.4), 0.1).expect("round cuboid");
    let ball = SharedShape::sphere(0.5).expect("sphere");
    let tiny = 2f32.powi(-24);
    for gap in [0.0, tiny, -tiny, 4.0 * tiny, 1e-3, -1e-3, 0.2, -0.2] {
        let y = 0.5 + gap;
        // Along the face (grazing), and a zigzag touching it at its corners.
        let flat = SharedShape::polyline(
            vec![
                Vec3::new(-0.4, y, -0.2),
                Vec3::new(0.4, y, -0.2),
                Vec3::new(0.4, y, 0.3),
            ],
            None,
        )
        .expect("flat");
        let zigzag = SharedShape::polyline(
            vec![
                Vec3::new(-0.5, y, -0.5),
                Vec3::new(0.0, y + 0.4, 0.0),
                Vec3::new(0.5, y, 0.5),
            ],
            None,
        )
        .expect("zigzag");
        for line in [&flat, &zigzag] {
            for other in [&cube, &rbox, &ball] {
                let p = Pose::IDENTITY;
                check_convex((line, &p), (other, &p));
                let d = query::distance(line, &p, other, &p).expect("distance");
                if other.ptr_eq(&cube) || line.ptr_eq(&flat) && !other.ptr_eq(&ball) {
                    let want = f64::from(gap).max(0.0);
                    assert!((f64::from(d) - want).abs() <= TOL, "gap {gap}: {d}");
                }
            }
        }
    }
    // A vertex on the cube's corner: touching at one point, both orders.
    let corner = Vec3::splat(0.5);
    let line = SharedShape::polyline(vec![corner, corner + Vec3::ONE, corner + Vec3::X], None)
        .expect("corner");
    let p = Pose::IDENTITY;
    assert!(query::intersects(&line, &p, &cube, &p).expect("q"));
    assert!(query::intersects(&cube, &p, &line, &p).expect("q"));
    assert!(query::distance(&line, &p, &cube, &p).expect("d") <= 1e-6);
    // Two polylines sharing a point, and one a hair away.
    let other =
        SharedShape::polyline(vec![corner, corner - Vec3::Y, Vec3::ZERO], None).expect("other");
    assert!(query::intersects(&line, &p, &other, &p).expect("q"));
    let c = query::closest_points(&line, &p, &other, &p).expect("closest");
    assert!(c.distance <= 1e-6 && c.pieces == [0, 0], "{c:?}");
    let away = Pose::from_translation(Vec3::new(-1e-3, -1e-3, 0.0));
    assert!(!query::intersects(&line, &p, &other, &away).expect("q"));
    let d = query::distance(&line, &p, &other, &away).expect("d");
    assert!((f64::from(d) - 2f64.sqrt() * 1e-3).abs() <= TOL, "{d}");
    assert!(query::intersects(&line, &p, &line, &p).expect("q"));
}

/// Scenes scaled by `2^k` placed `2^(k+6)` from the origin.
#[test]
fn polylines_scaled_far_from_the_origin() {
    let mut rng = Rng::new(4302);
    for k in [-20, -10, 0, 10, 20] {
        let scale = 2f32.powi(k);
        let far = Vec3::new(1.0, -1.0, 1.0) * 2f32.powi(k + 6);
        for _ in 0..12 {
            let line = polyline(&mut rng, scale);
            let other = SharedShape::scaled(&other_kind(&mut rng), scale).expect("scaled");
            let pl = Pose::new(rng.rotation(), far + rng.in_cube(0.3) * scale);
            let po = Pose::new(rng.rotation(), far + rng.in_cube(0.9) * scale);
            check_convex((&line, &pl), (&other, &po));
        }
    }
}

/// Each polyline segment against each triangle of a mesh (both trees):
/// touching iff some segment meets some triangle, the distance the least
/// segment–triangle distance, the named segment and triangle nearest.
#[test]
fn polylines_against_meshes_match_the_nearest_segment_triangle() {
    let mut rng = Rng::new(4303);
    let (mut touching, mut apart) = (0, 0);
    for i in 0..60 * long_factor() {
        let pts: Vec<Vec3> = (0..8).map(|_| rng.in_cube(0.6)).collect();
        let tris: Vec<[u32; 3]> = (0..8u32).map(|t| [t, (t + 3) % 8, (t + 5) % 8]).collect();
        let tree = if i % 2 == 0 {
            bevy_icollide::bvh::TreeKind::Obb
        } else {
            bevy_icollide::bvh::TreeKind::Aabb
        };
        let Ok(mesh) = SharedShape::trimesh_with_tree(pts.clone(), tris.clone(), tree) else {
            continue;
        };
        let line = polyline(&mut rng, 1.0);
        let (pl, pm) = (
            Pose::new(rng.rotation(), rng.in_cube(0.5)),
            Pose::new(rng.rotation(), rng.in_cube(0.5)),
        );
        let m = Placed::of(RefShape::Segment(DVec3::ZERO, DVec3::X), &pm);
        let world_tris: Vec<[DVec3; 3]> = tris
            .iter()
            .map(|t| t.map(|k| m.rot * pts[k as usize].as_dvec3() + m.pos))
            .collect();
        let segs = segments(&line, &pl);
        let dist =
            |[a, b]: [DVec3; 2], t: [DVec3; 3]| convex_min(|s| point_triangle(a + (b - a) * s, t));
        let best = segs
            .iter()
            .flat_map(|&sg| world_tris.iter().map(move |&t| dist(sg, t)))
            .fold(f64::MAX, f64::min);
        let hit = query::intersects(&line, &pl, &mesh, &pm).expect("q");
        let c = query::closest_points(&line, &pl, &mesh, &pm).expect("closest");
        if best > 1e-5 {
            assert!(!hit, "{best}");
            apart += 1;
        } else if best <= 1e-12 {
            touching += 1;
        }
        if best == 0.0
            && segs.iter().any(|&sg| {
                world_tris
                    .iter()
                    .any(|&t| dist(sg, t) == 0.0 && crossing(sg, t))
            })
        {
            assert!(hit, "a segment crosses a triangle");
        }
        assert!(
            (f64::from(c.distance) - best).abs() <= TOL,
            "{} vs {best}",
            c.distance
        );
        let k = c.pieces[0] as usize;
        let nearest = world_tris
            .iter()
            .map(|&t| dist(segs[k], t))
            .fold(f64::MAX, f64::min);
        assert!(nearest <= best + TOL, "segment {k}: {nearest} vs {best}");
        // No penetration depth for a mesh: a clear error.
        assert!(query::penetration(&line, &pl, &mesh, &pm).is_err());
    }
    assert!(
        touching > 5 && apart > 5,
        "{touching} touching, {apart} apart"
    );
}

/// The segment crosses the triangle's plane strictly inside it (not a
/// grazing touch).
fn crossing([a, b]: [DVec3; 2], [p, q, r]: [DVec3; 3]) -> bool {
    let n = (q - p).cross(r - p).normalize();
    let (da, db) = (n.dot(a - p), n.dot(b - p));
    if da * db >= 0.0 || (da - db).abs() < 1e-3 {
        return false;
    }
    let x = a + (b - a) * (da / (da - db));
    [(p, q), (q, r), (r, p)]
        .iter()
        .all(|&(u, v)| (v - u).cross(x - u).dot(n) > 1e-3)
}

/// A world of convex bodies moving about a static polyline and a
/// polyline body: touching pairs and the touching segments are the
/// reference's; the polyline's dynamic box holds its points and is tight.
#[test]
fn polylines_in_the_world_report_the_touching_segments() {
    let mut rng = Rng::new(4306);
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("world");
    let line = SharedShape::polyline(
        (0..9)
            .map(|i| Vec3::new(i as f32 * 0.4 - 1.6, (i as f32).sin() * 0.3, 0.0))
            .collect(),
        None,
    )
    .expect("polyline");
    let pl = Pose::new(Quat::from_rotation_y(0.3), Vec3::new(0.1, 0.0, 0.0));
    let lh = world.add_body(BodyDesc::new(line.clone()));
    world.set_pose(lh, pl).expect("pose");
    let mut bodies: Vec<_> = (0..10)
        .map(|_| {
            let s = other_kind(&mut rng);
            let h = world.add_body(BodyDesc::new(s.clone()));
            let pose = Pose::new(
                rng.rotation(),
                rng.in_cube(1.2) * Vec3::new(1.5, 0.35, 0.25),
            );
            (h, s, pose, rng.in_cube(0.02))
        })
        .collect();
    let segs = segments(&line, &pl);
    let (mut checked, mut touching, mut lowest) = (0, 0, f64::MAX);
    for _ in 0..30 * long_factor() {
        for (h, _, pose, v) in &mut bodies {
            pose.translation += *v;
            if pose.translation.abs().max_element() > 1.6 {
                *v = -*v;
            }
            world.set_pose(*h, *pose).expect("pose");
        }
        let _ = world.step();
        let b = world.tight_aabb(lh).expect("box");
        for s in &segs {
            for p in s {
                let (lo, hi) = (b.min.as_dvec3(), b.max.as_dvec3());
                assert!(p.cmpge(lo).all() && p.cmple(hi).all(), "{p} outside {b:?}");
            }
        }
        for (h, s, pose, _) in &bodies {
            let refs = per_segment(&segs, &solid(s, pose), &[]);
            let size = f64::from(s.fixed_cube().radius.max(line.fixed_cube().radius));
            if refs.iter().any(|r| r.abs() <= BAND * size) {
                continue;
            }
            lowest = lowest.min(refs.iter().copied().fold(f64::MAX, f64::min));
            let want: Vec<u32> = (0..)
                .zip(&refs)
                .filter(|r| *r.1 < 0.0)
                .map(|r| r.0)
                .collect();
            let state = world.pair(lh, *h);
            let got_touching = state.is_some_and(|p| p.result.touching);
            assert_eq!(got_touching, !want.is_empty(), "{} {refs:?}", s.kind_name());
            if let Some(pieces) = state.and_then(|p| p.touching_pieces()) {
                let flip = usize::from(lh.index() > h.index());
                let mut got: Vec<u32> = pieces.map(|t| t.pieces[flip]).collect();
                got.sort_unstable();
                got.dedup();
                assert_eq!(got, want, "touching segments with a {}", s.kind_name());
            }
            checked += 1;
            touching += usize::from(!want.is_empty());
        }
    }
    assert!(
        checked > 100 && touching > 10,
        "{checked} checked, {touching} touching, {lowest}"
    );
}

#[test]
fn bad_polylines_are_refused() {
    let p = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    let err = |r: Result<SharedShape, ShapeError>| r.expect_err("refused").to_string();
    let nan = vec![Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)];
    assert!(err(SharedShape::polyline(nan, None)).contains("finite"));
    assert!(err(SharedShape::polyline(vec![Vec3::ZERO], None)).contains("at least one segment"));
    assert!(err(SharedShape::polyline(p.clone(), Some(vec![]))).contains("at least one segment"));
    assert!(err(SharedShape::polyline(p.clone(), Some(vec![[0, 3]]))).contains("out of range"));
    assert!(err(SharedShape::polyline(p.clone(), Some(vec![[1, 1]]))).contains("non-zero length"));
    let twice = vec![Vec3::ZERO, Vec3::ZERO, Vec3::X];
    assert!(err(SharedShape::polyline(twice, None)).contains("non-zero length"));
    let huge = vec![Vec3::ZERO, Vec3::X * 1e9];
    assert!(err(SharedShape::polyline(huge, None)).contains("MAX_COORDINATE"));
    // Composites do not nest.
    let line = SharedShape::polyline(p, None).expect("polyline");
    let piece = CompoundPiece {
        pose: Pose::IDENTITY,
        shape: line.clone(),
    };
    assert!(err(SharedShape::compound(vec![piece])).contains("polyline"));
    // Scaling keeps the segments.
    let big = line.scaled(2.0).expect("scaled");
    assert_eq!(
        big.polyline().expect("polyline").segment(1),
        [Vec3::X * 2.0, Vec3::Y * 2.0]
    );
    assert_eq!(big.kind_name(), "polyline");
}
