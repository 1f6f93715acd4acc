//! Polylines in rays and casts, and against compounds, height fields and
//! half-spaces, against the independent `f64` references of
//! `exact_polyline.rs` (each segment as its own reference shape).

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::query::{self, Ray, ShapeCastOptions};
use bevy_icollide::testkit::{Rng, long_factor};
use glam::{DVec3, Vec3};

use crate::exact_implicit::{BAND, TOL};
use crate::exact_polyline::{
    convex_argmin, convex_min, other_kind, per_segment, polyline, segment_distance, segments, solid,
};
use crate::implicit_reference::{Placed, RefShape, point_segment};

/// The least distance from the ray `o + t d`, `t ∈ [0, max_t]`, to the
/// segment, and the ray parameter there (ternary search on the segment:
/// the distance from a point to the ray is convex in the point).
fn ray_segment_ref(o: DVec3, d: DVec3, max_t: f64, [p, q]: [DVec3; 2]) -> (f64, f64) {
    let t_of = |x: DVec3| ((x - o).dot(d) / d.length_squared()).clamp(0.0, max_t);
    let near = |u: f64| {
        let x = p + (q - p) * u;
        (o + d * t_of(x)).distance(x)
    };
    let u = convex_argmin(near);
    (near(u), t_of(p + (q - p) * u))
}

/// Rays at polylines, against each segment's `f64` closest approach: a
/// hit lies on the segment it names, and no segment is met clearly before
/// it; a ray that passes `10⁻⁴` or more from every segment misses. Rays
/// along an axis aimed at a point of a segment of a polyline at the
/// identity pose (exact local frame; the point off the segment by its own
/// rounding only) must hit it; rays at posed polylines, and a hair beside
/// the point, are checked for consistency.
#[test]
fn polyline_ray_casts_hit_the_first_segment() {
    let mut rng = Rng::new(4304);
    let (mut hits, mut misses, mut aimed) = (0, 0, 0);
    for i in 0..400 * long_factor() {
        let line = polyline(&mut rng, 1.0);
        let identity = i % 2 == 0;
        let pose = if identity {
            Pose::IDENTITY
        } else {
            Pose::new(rng.rotation(), rng.in_cube(1.0))
        };
        let segs = segments(&line, &pose);
        let k = rng.below(segs.len());
        let [a, b] = segs[k];
        let target = (a + (b - a) * f64::from(rng.range(0.05, 0.95))).as_vec3();
        let (origin, dir) = if identity {
            let axis = Vec3::AXES[rng.below(3)] * if rng.bool() { 2.0 } else { -2.0 };
            (target - axis, axis)
        } else {
            let o = target + rng.unit_vector() * rng.range(0.5, 3.0);
            (o, target - o)
        };
        let side = (b - a).as_vec3().cross(dir).normalize() * 1e-3;
        for (aim, must_hit) in [(target, identity), (target + side, false)] {
            let ray = Ray::new(origin, aim - origin);
            let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
            let refs: Vec<(f64, f64)> = segs
                .iter()
                .map(|&s| ray_segment_ref(o, d, 2.0, s))
                .collect();
            let hit = query::ray_cast(&line, &pose, &ray, 2.0).expect("ray");
            match hit {
                Some(h) => {
                    let [p, q] = segs[h.piece as usize];
                    let on = point_segment(o + d * f64::from(h.toi), p, q);
                    assert!(on <= 1e-4, "hit {on} off its segment {}", h.piece);
                    let early = refs
                        .iter()
                        .any(|r| r.0 <= 1e-6 && r.1 < f64::from(h.toi) - 1e-4);
                    assert!(!early, "a segment before the hit at {}: {refs:?}", h.toi);
                    hits += 1;
                }
                None => {
                    let near = refs.iter().any(|r| r.0 < 1e-4);
                    assert!(!must_hit, "missed the aimed segment: {refs:?}");
                    assert!(!near || !must_hit, "missed: {refs:?}");
                    if !near {
                        misses += 1;
                    }
                }
            }
            aimed += usize::from(must_hit);
        }
    }
    assert!(
        hits > 300 && misses > 100 && aimed > 150,
        "{hits} hits, {misses} misses"
    );
}

/// A ball cast at a polyline, against the `f64` first time its centre
/// comes within its radius of each segment (the root of a function convex
/// in time, by bisection): the reported time is never after the first
/// contact, and the ball is then within the cast tolerance of the
/// polyline, nearest the segment named.
#[test]
fn polyline_shape_casts_match_the_first_segment_contact() {
    let mut rng = Rng::new(4305);
    let mut hits = 0;
    let options = ShapeCastOptions::default();
    for _ in 0..80 * long_factor() {
        let line = polyline(&mut rng, 1.0);
        let r = rng.range(0.05, 0.3);
        let ball = SharedShape::sphere(r).expect("sphere");
        let pl = Pose::new(rng.rotation(), Vec3::ZERO);
        let start = rng.unit_vector() * rng.range(1.5, 2.5);
        let vel = -start + rng.in_cube(0.4);
        let pb = Pose::from_translation(start);
        let got = query::cast_shapes((&ball, &pb, vel), (&line, &pl, Vec3::ZERO), &options)
            .expect("cast");
        let (c0, v) = (start.as_dvec3(), vel.as_dvec3());
        let segs = segments(&line, &pl);
        let gap =
            |k: usize, t: f64| point_segment(c0 + v * t, segs[k][0], segs[k][1]) - f64::from(r);
        let first = |k: usize| {
            let f = |t: f64| gap(k, t);
            let tmin = convex_argmin(f);
            if f(tmin) > 0.0 {
                return (None, f(tmin));
            }
            let (mut lo, mut hi) = (0.0, tmin);
            for _ in 0..100 {
                let m = 0.5 * (lo + hi);
                if f(m) > 0.0 {
                    lo = m;
                } else {
                    hi = m;
                }
            }
            (Some(hi), f(tmin))
        };
        let refs: Vec<(Option<f64>, f64)> = (0..segs.len()).map(first).collect();
        let want = refs.iter().filter_map(|x| x.0).fold(f64::MAX, f64::min);
        let least = refs.iter().map(|x| x.1).fold(f64::MAX, f64::min);
        let tol = f64::from(options.tolerance);
        match got {
            Some(h) => {
                let t = f64::from(h.time_of_impact);
                assert!(t <= want + 1e-6, "toi {t} after the first contact {want}");
                let at = (0..segs.len()).map(|k| gap(k, t)).fold(f64::MAX, f64::min);
                assert!((-1e-5..=tol + 1e-5).contains(&at), "gap {at} at toi {t}");
                let k = h.pieces[1] as usize;
                assert!(gap(k, t) <= at + tol, "segment {k} not the nearest");
                hits += 1;
            }
            // A miss: no segment comes within the radius (or only grazes).
            None => assert!(least > -tol, "missed the contact at {want}: {least}"),
        }
    }
    assert!(hits > 30, "{hits} hits");
}

/// A polyline against a compound of two boxes and against a flat height
/// field (`y = 0` over `|x|, |z| ≤ 1`, a surface), posed at random:
/// touching and distance are the nearest segment – piece (segment –
/// rectangle) pair's, the pieces named are nearest.
#[test]
fn polylines_against_compounds_and_height_fields() {
    let mut rng = Rng::new(4307);
    let field =
        SharedShape::heightfield(vec![0.0; 16], 4, 4, Vec3::new(2.0, 1.0, 2.0)).expect("field");
    let (mut touching, mut apart) = (0, 0);
    for _ in 0..150 * long_factor() {
        let line = polyline(&mut rng, 1.0);
        let pl = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let segs = segments(&line, &pl);
        // A compound of two boxes.
        let pieces: Vec<CompoundPiece> = (0..2)
            .map(|_| CompoundPiece {
                pose: Pose::new(rng.rotation(), rng.in_cube(0.4)),
                shape: SharedShape::cuboid(rng.vec(0.1, 0.3)).expect("cuboid"),
            })
            .collect();
        let compound = SharedShape::compound(pieces.clone()).expect("compound");
        let pc = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let refs: Vec<Vec<f64>> = pieces
            .iter()
            .map(|p| per_segment(&segs, &solid(&p.shape, &pc.mul(&p.pose)), &[]))
            .collect();
        let best = refs.iter().flatten().copied().fold(f64::MAX, f64::min);
        let hit = query::intersects(&line, &pl, &compound, &pc).expect("q");
        let c = query::closest_points(&line, &pl, &compound, &pc).expect("closest");
        if best.abs() > BAND {
            assert_eq!(hit, best < 0.0, "compound: {refs:?}");
        }
        assert!(
            (f64::from(c.distance) - best.max(0.0)).abs() <= TOL,
            "{c:?} {refs:?}"
        );
        let named = refs[c.pieces[1] as usize][c.pieces[0] as usize];
        assert!(
            named.max(0.0) <= best.max(0.0) + TOL,
            "pieces {:?}: {refs:?}",
            c.pieces
        );
        // The flat field: a segment's distance to the rectangle, in the
        // field's frame (convex in the segment's parameter).
        let pf = Pose::new(rng.rotation(), rng.in_cube(0.5));
        let f = Placed::of(RefShape::Segment(DVec3::ZERO, DVec3::X), &pf);
        let to_field = |x: DVec3| f.rot.inverse() * (x - f.pos);
        let rect = |p: DVec3| {
            let (dx, dz) = ((p.x.abs() - 1.0).max(0.0), (p.z.abs() - 1.0).max(0.0));
            (dx * dx + p.y * p.y + dz * dz).sqrt()
        };
        let dists: Vec<f64> = segs
            .iter()
            .map(|&[a, b]| {
                let (a, b) = (to_field(a), to_field(b));
                convex_min(|s| rect(a + (b - a) * s))
            })
            .collect();
        let best = dists.iter().copied().fold(f64::MAX, f64::min);
        let hit = query::intersects(&line, &pl, &field, &pf).expect("q");
        let c = query::closest_points(&line, &pl, &field, &pf).expect("closest");
        if best > 1e-5 {
            assert!(!hit, "field: {dists:?}");
            apart += 1;
        } else if segs.iter().any(|&[a, b]| {
            let (a, b) = (to_field(a), to_field(b));
            let x = a + (b - a) * (a.y / (a.y - b.y));
            a.y * b.y < -1e-6 && x.x.abs() < 0.99 && x.z.abs() < 0.99
        }) {
            assert!(hit, "a segment crosses the field: {dists:?}");
            touching += 1;
        }
        assert!(
            (f64::from(c.distance) - best).abs() <= TOL,
            "{c:?} {dists:?}"
        );
        assert!(
            dists[c.pieces[0] as usize] <= best + TOL,
            "segment {}",
            c.pieces[0]
        );
    }
    assert!(
        touching > 10 && apart > 10,
        "{touching} touching, {apart} apart"
    );
}

/// A polyline over a ground (`y ≤ 0` in the ground's frame), posed at
/// random, and at identity poses with its lowest vertex at `0, ±2⁻²⁴,
/// ±10⁻³`: the signed distance is the lowest vertex's height (in `f64`),
/// the segment named holds it, the depth its depth.
#[test]
fn polylines_over_half_spaces_match_the_lowest_vertex() {
    let mut rng = Rng::new(4308);
    let ground = SharedShape::half_space(Vec3::Y).expect("ground");
    let tiny = 2f32.powi(-24);
    for i in 0..200 * long_factor() {
        let line = polyline(&mut rng, 1.0);
        let (pl, pg) = if i < 5 {
            let lowest = line
                .polyline()
                .expect("line")
                .points()
                .iter()
                .map(|p| p.y)
                .fold(f32::MAX, f32::min);
            let gap = [0.0, tiny, -tiny, 1e-3, -1e-3][i];
            (
                Pose::from_translation(Vec3::Y * (gap - lowest)),
                Pose::IDENTITY,
            )
        } else {
            (
                Pose::new(rng.rotation(), rng.in_cube(0.5)),
                Pose::new(rng.rotation(), rng.in_cube(0.5)),
            )
        };
        let g = Placed::of(RefShape::Segment(DVec3::ZERO, DVec3::X), &pg);
        let n = g.rot * DVec3::Y;
        let heights: Vec<f64> = segments(&line, &pl)
            .iter()
            .map(|&[a, b]| n.dot(a - g.pos).min(n.dot(b - g.pos)))
            .collect();
        let best = heights.iter().copied().fold(f64::MAX, f64::min);
        let hit = query::intersects(&line, &pl, &ground, &pg).expect("q");
        let c = query::closest_points(&line, &pl, &ground, &pg).expect("closest");
        if best.abs() > 1e-6 {
            assert_eq!(hit, best < 0.0, "{heights:?}");
        }
        assert!(
            (f64::from(c.distance) - best.max(0.0)).abs() <= 1e-6,
            "{c:?} {heights:?}"
        );
        assert!(
            heights[c.pieces[0] as usize].max(0.0) <= best.max(0.0) + 1e-6,
            "segment {}",
            c.pieces[0]
        );
        if best < -1e-6 {
            let p = query::penetration(&line, &pl, &ground, &pg)
                .expect("p")
                .expect("depth");
            assert!(
                (f64::from(p.depth) + best).abs() <= 1e-6,
                "depth {} vs {best}",
                p.depth
            );
        }
    }
}

/// Every convex kind cast (linear) at a polyline: the distance from a
/// segment to a translating solid is convex in time (the distance from
/// the offset to a Minkowski difference), so each segment's first contact
/// is the root found by bisection before the ternary minimum; the
/// reported time is never after the first, the shapes then within the
/// cast tolerance.
#[test]
fn convex_kinds_cast_at_polylines_stop_at_the_first_segment_contact() {
    let mut rng = Rng::new(4309);
    let options = ShapeCastOptions::default();
    let tol = f64::from(options.tolerance);
    let mut hits = 0;
    for _ in 0..40 * long_factor() {
        let line = polyline(&mut rng, 1.0);
        let other = other_kind(&mut rng);
        let pl = Pose::new(rng.rotation(), Vec3::ZERO);
        let start = rng.unit_vector() * rng.range(1.6, 2.4);
        let po = Pose::new(rng.rotation(), start);
        let vel = -start + rng.in_cube(0.3);
        let got = query::cast_shapes((&other, &po, vel), (&line, &pl, Vec3::ZERO), &options)
            .expect("cast");
        let segs = segments(&line, &pl);
        let at = |t: f64| {
            let moved = Pose::new(
                po.rotation,
                (start.as_dvec3() + vel.as_dvec3() * t).as_vec3(),
            );
            let s = solid(&other, &moved);
            segs.iter()
                .map(|&sg| segment_distance(sg, &s))
                .fold(f64::MAX, f64::min)
        };
        // The first time the least distance reaches 0, scanning 64 steps
        // then bisecting (each segment's distance is convex in time; the
        // least of them may not be, so the scan finds the first dip).
        let steps = 64;
        let first = (0..=steps)
            .map(|k| f64::from(k) / f64::from(steps))
            .find(|&t| at(t) <= 1e-12);
        match (got, first) {
            (Some(h), Some(t1)) => {
                let (mut lo, mut hi) = ((t1 - 1.0 / f64::from(steps)).max(0.0), t1);
                for _ in 0..40 {
                    let m = 0.5 * (lo + hi);
                    if at(m) > 1e-12 {
                        lo = m;
                    } else {
                        hi = m;
                    }
                }
                let t = f64::from(h.time_of_impact);
                assert!(t <= hi + 1e-5, "toi {t} after the first contact {hi}");
                assert!(at(t) <= tol + 1e-4, "gap {} at toi {t}", at(t));
                hits += 1;
            }
            (None, Some(t1)) => panic!("missed the contact at {t1} ({})", other.kind_name()),
            _ => {}
        }
    }
    assert!(hits > 15, "{hits} hits");
}
