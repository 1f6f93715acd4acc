//! Large worlds: the same scene (convex bodies, compounds, meshes, a
//! deforming mesh, rays, shape casts, shape queries) run at the origin and
//! translated by 10³, 10⁶, 10⁹ and 10¹² m through the world's `f64` poses
//! gives the same events, touching pairs, distances, normals and points
//! (relative to the translation) as at the origin; the same scene through
//! `f32` poses at 10⁹ m does not (which is why the `f64` path exists).
//!
//! Positions are multiples of `2⁻¹²` within a few metres, so every
//! translated position is an exact `f64` value: the scenes are the same
//! scene, and a difference is the world's. Reference: the origin run, and
//! for convex pairs an independent `f64` distance (all vertex–triangle and
//! edge–edge pairs of the two hulls, placed in `f64`).

use std::collections::BTreeMap;

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion, WorldPose};
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, QueryFilter, WorldConfig};
use bevy_icollide::query::{Ray, ShapeCastOptions};
use bevy_icollide::testkit::{Poly, Rng, distance, sphere_hull, to_dquat, torus};
use glam::{DVec3, Quat, Vec3};

/// How the scene's poses reach the world.
#[derive(Clone, Copy, PartialEq)]
enum Api {
    /// `set_pose_f64`, `ray_cast_f64`, `cast_shape_f64`, ...
    F64,
    /// Today's `f32` poses (`set_pose`, `ray_cast`, `cast_shape`).
    F32,
}

/// The touching pairs of a frame, by user data, with `(distance, normal,
/// point on A)` when the pair has contact data.
type Touching = BTreeMap<(u64, u64), Option<(f32, Vec3, DVec3)>>;

/// What one run saw, frame by frame, positions relative to the offset.
#[derive(Default, Debug)]
struct Record {
    /// `(user data, user data, started)` per frame.
    events: Vec<Vec<(u64, u64, bool)>>,
    /// Touching pairs per frame, with `(distance, normal, point on A)`.
    touching: Vec<Touching>,
    /// Ray and shape-cast hits and shape-query results per frame.
    queries: Vec<Vec<(u64, f32, DVec3)>>,
}

/// A multiple of `2⁻¹²`: exact in `f64` once translated by up to `2⁴⁰`.
fn snap(v: Vec3) -> Vec3 {
    (v * 4096.0).round() / 4096.0
}

/// The scene's shapes: hulls, compounds, tori, and last a flat grid that
/// deforms.
fn shapes(rng: &mut Rng) -> Vec<SharedShape> {
    let mut out: Vec<SharedShape> = (0..10).map(|_| sphere_hull(rng, 16, 0.45)).collect();
    for _ in 0..3 {
        let piece = |pose: Pose, shape: SharedShape| CompoundPiece { pose, shape };
        let bar = SharedShape::cuboid(Vec3::new(0.5, 0.1, 0.1)).expect("bar");
        let knob = sphere_hull(rng, 12, 0.2);
        let pieces = vec![
            piece(Pose::IDENTITY, bar),
            piece(Pose::from_translation(Vec3::X * 0.5), knob),
        ];
        out.push(SharedShape::compound(pieces).expect("compound"));
    }
    let (p, t) = torus(0.5, 0.15, 12, 8);
    let ring = SharedShape::trimesh(p, t).expect("torus");
    out.extend([ring.clone(), ring.clone(), ring]);
    let (p, t) = grid(6, 0.5);
    out.push(SharedShape::trimesh(p, t).expect("grid"));
    out
}

/// A flat `n × n` grid of squares of side `step`, centred on the origin.
fn grid(n: u32, step: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let half = n as f32 * step / 2.0;
    let at = |i: u32, j: u32| Vec3::new(i as f32 * step - half, j as f32 * step - half, 0.0);
    let p = (0..=n)
        .flat_map(|i| (0..=n).map(move |j| at(i, j)))
        .collect();
    let k = |i: u32, j: u32| i * (n + 1) + j;
    let t = (0..n)
        .flat_map(|i| {
            (0..n).flat_map(move |j| {
                [
                    [k(i, j), k(i + 1, j), k(i + 1, j + 1)],
                    [k(i, j), k(i + 1, j + 1), k(i, j + 1)],
                ]
            })
        })
        .collect();
    (p, t)
}

/// The deforming grid's vertices at `frame`: a wave across it.
fn wave(rest: &[Vec3], frame: u32) -> Vec<Vec3> {
    let phase = frame as f32 * 0.3;
    rest.iter()
        .map(|p| Vec3::new(p.x, p.y, 0.3 * (1.7 * p.x + phase).sin()))
        .collect()
}

/// Runs the scene translated by `offset` through `api` for `frames`.
fn run(offset: DVec3, api: Api, frames: u32) -> Record {
    let mut rng = Rng::new(46);
    let shapes = shapes(&mut rng);
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let ids: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut desc = BodyDesc::new(s.clone());
            desc.user_data = i as u64;
            world.add_body(desc)
        })
        .collect();
    let motion: Vec<(Vec3, Vec3, Quat, (Vec3, f32))> = ids
        .iter()
        .map(|_| {
            let (p, v) = (snap(rng.in_cube(1.6)), snap(rng.in_cube(0.06)));
            let turn = (rng.unit_vector(), rng.range(0.0, 0.1));
            (p, v, rng.rotation(), turn)
        })
        .collect();
    let rest = shapes
        .last()
        .and_then(|s| s.surface())
        .map(|s| s.mesh.vertices().to_vec());
    let caster = sphere_hull(&mut rng, 12, 0.3);
    let mut record = Record::default();
    for frame in 0..frames {
        for (k, &(p, v, q, turn)) in motion.iter().enumerate() {
            let mut at = snap(p + v * frame as f32);
            // Bounce inside the cube, so that pairs start and end.
            at = at.clamp(Vec3::splat(-1.75), Vec3::splat(1.75));
            let q = (Quat::from_axis_angle(turn.0, turn.1 * frame as f32) * q).normalize();
            let t = offset + at.as_dvec3();
            match api {
                Api::F64 => world.set_pose_f64(ids[k], WorldPose::new(q, t)),
                Api::F32 => world.set_pose(ids[k], Pose::new(q, t.as_vec3())),
            }
            .expect("pose");
        }
        if let Some(rest) = &rest {
            let last = *ids.last().expect("bodies");
            world
                .set_vertices(last, &wave(rest, frame))
                .expect("vertices");
        }
        let events = world
            .step()
            .map(|e| (e.user_data[0], e.user_data[1], e.started))
            .collect();
        record.events.push(events);
        record.touching.push(touching(&world, offset));
        record
            .queries
            .push(queries(&world, (offset, api), (&caster, &mut rng)));
    }
    record
}

/// The touching pairs, by user data, with their contact data (point on A
/// relative to `offset`).
fn touching(world: &CollisionWorld, offset: DVec3) -> Touching {
    let data = |h| world.user_data(h).expect("live");
    world
        .pairs()
        .filter(|(_, s)| s.result.touching)
        .map(|([a, b], s)| {
            let contact = s.result.contact.zip(s.contact_points_f64());
            let c = contact.map(|(c, p)| (c.distance, c.normal, p[0] - offset));
            ((data(a), data(b)), c)
        })
        .collect()
}

/// Three rays, a shape cast and a shape query through the scene, their
/// hits as `(user data, parameter, point relative to offset)`.
fn queries(
    world: &CollisionWorld,
    (offset, api): (DVec3, Api),
    (caster, rng): (&SharedShape, &mut Rng),
) -> Vec<(u64, f32, DVec3)> {
    let data = |h| world.user_data(h).expect("live");
    let mut out = Vec::new();
    for _ in 0..3 {
        let from = snap(rng.in_cube(0.5) - Vec3::X * 3.0);
        let dir = (Vec3::X + rng.in_cube(0.3)).normalize();
        let hit = match api {
            Api::F64 => world.ray_cast_f64((offset + from.as_dvec3(), dir), 8.0, QueryFilter::ALL),
            Api::F32 => world.ray_cast(
                &Ray::new((offset + from.as_dvec3()).as_vec3(), dir),
                8.0,
                QueryFilter::ALL,
            ),
        };
        out.extend(hit.map(|h| (data(h.body), h.toi, h.point_f64 - offset)));
    }
    let start = snap(rng.in_cube(0.5) + Vec3::Y * 3.0);
    let options = ShapeCastOptions::default();
    let (origin, pose) = match api {
        Api::F64 => (offset + start.as_dvec3(), Pose::IDENTITY),
        Api::F32 => (
            DVec3::ZERO,
            Pose::from_translation((offset + start.as_dvec3()).as_vec3()),
        ),
    };
    let motion = RigidMotion::linear(pose, Vec3::new(0.1, -6.0, 0.05));
    let cast = world
        .cast_shape_f64(caster, (origin, &motion), &options, QueryFilter::ALL)
        .expect("cast");
    out.extend(cast.map(|h| (data(h.body), h.hit.time_of_impact, DVec3::ZERO)));
    let mut inside = Vec::new();
    let at = WorldPose::new(Quat::IDENTITY, offset + snap(rng.in_cube(1.0)).as_dvec3());
    match api {
        Api::F64 => world.intersect_shape_f64(caster, at, QueryFilter::ALL, &mut inside),
        Api::F32 => world.intersect_shape(caster, at.to_pose(), QueryFilter::ALL, &mut inside),
    }
    .expect("query");
    out.extend(inside.into_iter().map(|h| (data(h), 0.0, DVec3::ZERO)));
    out
}

/// Whether two runs agree: same events, touching pairs and query hits;
/// distances, normals and parameters within `f32` precision of the shapes'
/// size (`1e-5` m, the shapes being about a metre), points too, up to the
/// `f64` rounding of a world point `far` from the origin (`2⁻⁵³` of it:
/// 10⁻⁴ m at 10¹² m, the precision of an `f64` coordinate there).
fn agree(a: &Record, b: &Record, far: f64) -> Result<(), String> {
    const TOL: f64 = 1e-5;
    let at = TOL + 2.0 * f64::EPSILON * far;
    if a.events != b.events {
        return Err("events differ".into());
    }
    for (frame, (ta, tb)) in a.touching.iter().zip(&b.touching).enumerate() {
        if ta.keys().ne(tb.keys()) {
            return Err(format!("frame {frame}: touching pairs differ"));
        }
        for (pair, (ca, cb)) in ta.iter().zip(tb.values()).map(|((k, x), y)| (k, (x, y))) {
            let close = match (ca, cb) {
                (None, None) => true,
                (Some(x), Some(y)) => {
                    f64::from((x.0 - y.0).abs()) <= TOL
                        && f64::from((x.1 - y.1).length()) <= TOL
                        && (x.2 - y.2).length() <= at
                }
                _ => false,
            };
            if !close {
                return Err(format!("frame {frame}, pair {pair:?}: {ca:?} vs {cb:?}"));
            }
        }
    }
    for (frame, (qa, qb)) in a.queries.iter().zip(&b.queries).enumerate() {
        let same = qa.len() == qb.len()
            && qa.iter().zip(qb).all(|(x, y)| {
                x.0 == y.0 && f64::from((x.1 - y.1).abs()) <= TOL && (x.2 - y.2).length() <= at
            });
        if !same {
            return Err(format!("frame {frame}: queries {qa:?} vs {qb:?}"));
        }
    }
    Ok(())
}

/// The translations the issue asks for, along a diagonal.
fn offsets() -> [DVec3; 4] {
    [1e3, 1e6, 1e9, 1e12].map(|d| DVec3::new(d, -d, 0.5 * d))
}

#[test]
fn translated_scenes_give_the_origin_answers() {
    let frames = 24 * bevy_icollide::testkit::long_factor() as u32;
    let origin = run(DVec3::ZERO, Api::F64, frames);
    let touches: usize = origin.touching.iter().map(|t| t.len()).sum();
    let events: usize = origin.events.iter().map(|e| e.len()).sum();
    let hits: usize = origin.queries.iter().map(|q| q.len()).sum();
    assert!(
        touches > 50 && events > 10 && hits > 20,
        "a scene with contacts: {touches}, {events}, {hits}"
    );
    for offset in offsets() {
        let far = run(offset, Api::F64, frames);
        if let Err(e) = agree(&origin, &far, offset.abs().max_element()) {
            panic!("translated by {offset}: {e}");
        }
    }
}

#[test]
fn the_same_scene_through_f32_poses_disagrees_far_out() {
    let frames = 24;
    let origin = run(DVec3::ZERO, Api::F64, frames);
    // At the origin the f32 path is the same scene...
    agree(&origin, &run(DVec3::ZERO, Api::F32, frames), 0.0).expect("f32 at the origin");
    // ...a thousand kilometres out it is not: f32 places a body to within
    // 64 m at 10⁹ m, where the f64 path gives the origin's answers.
    let offset = offsets()[2];
    assert!(
        agree(
            &origin,
            &run(offset, Api::F32, frames),
            offset.abs().max_element()
        )
        .is_err(),
        "the scene no longer tells f32 poses apart at 1e9 m"
    );
}

/// Independent check far out: every convex pair (two hulls) the world
/// reports apart with contact data is as far apart as the `f64` distance
/// between the two hulls placed in `f64`; every one it calls touching is
/// within the tests' tolerance of touching.
#[test]
fn far_convex_distances_match_an_f64_reference() {
    let offset = offsets()[3];
    let mut rng = Rng::new(7);
    let hulls: Vec<SharedShape> = (0..12).map(|_| sphere_hull(&mut rng, 12, 0.4)).collect();
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let mut placed = Vec::new();
    for s in &hulls {
        let id = world.add_body(BodyDesc::new(s.clone()));
        let at = WorldPose::new(
            rng.rotation(),
            offset + snap(rng.in_cube(1.2)).as_dvec3() + DVec3::splat(1.0 / 3.0),
        );
        world.set_pose_f64(id, at).expect("pose");
        placed.push((id, s, at));
    }
    let _ = world.step();
    let poly = |s: &SharedShape, at: &WorldPose| {
        let hull = s.hull().expect("hull");
        Poly::at(
            hull.vertices(),
            hull.triangles(),
            (to_dquat(at.rotation).normalize(), at.translation - offset),
        )
    };
    let mut checked = 0;
    for (i, (a, sa, pa)) in placed.iter().enumerate() {
        for (b, sb, pb) in &placed[i + 1..] {
            let Some(state) = world.pair(*a, *b) else {
                continue;
            };
            let d = distance(&poly(sa, pa), &poly(sb, pb));
            match state.result.contact {
                Some(c) if !state.result.touching => {
                    assert!(
                        (f64::from(c.distance) - d).abs() <= 1e-5,
                        "{} vs {d}",
                        c.distance
                    );
                    checked += 1;
                }
                _ if state.result.touching => {
                    assert!(d <= 1e-5 || crate::large_world::overlap(&poly(sa, pa), &poly(sb, pb)))
                }
                _ => {}
            }
        }
    }
    assert!(checked >= 5, "{checked} pairs checked");
}

/// Whether two convex polytopes overlap, to `1e-6` (no separating axis
/// among face normals and edge cross products).
pub(crate) fn overlap(a: &Poly, b: &Poly) -> bool {
    bevy_icollide::testkit::sat(a, b).0 >= -1e-6
}

/// What far-out boxes cost the broad phase: a crowd of `n` cubes at the
/// origin and translated by 10⁶ and 10⁹ m, the box-overlapping pairs it
/// hands the narrow phase and the touching pairs (the same everywhere).
/// Boxes are rounded outward to `f32`, whose step is `2⁻²³` of the
/// coordinate: 0.06 m at 10⁶ m (a few more candidates), 64 m at 10⁹ m
/// (every pair of a crowd 16 m across). Run with `--nocapture` for the
/// figures (docs/notes/LARGE_WORLDS.md).
#[test]
fn far_boxes_cost_candidates_never_pairs() {
    let crowd = |offset: DVec3| {
        let mut rng = Rng::new(11);
        let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
        let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
        for _ in 0..400 {
            let id = world.add_body(BodyDesc::new(cube.clone()));
            let at = offset + snap(rng.in_cube(8.0)).as_dvec3();
            world
                .set_pose_f64(id, WorldPose::new(rng.rotation(), at))
                .expect("pose");
        }
        let _ = world.step();
        let s = world.stats();
        (s.box_pairs, s.touching)
    };
    let (near, touching) = crowd(DVec3::ZERO);
    assert!(touching > 20, "{touching} touching");
    let mut last = near;
    for d in [1e6, 1e9] {
        let (pairs, t) = crowd(DVec3::new(d, -d, 0.5 * d));
        eprintln!("400 cubes in 16 m at {d:e} m: {pairs} box pairs (origin: {near}), {t} touching");
        assert_eq!(t, touching, "touching pairs at {d:e} m");
        assert!(pairs >= last, "coarser boxes, more candidates");
        last = pairs;
    }
}

/// Bad `f64` input is refused with the error `f32` input gets: past
/// `MAX_POSITION` (`2⁵⁰`) `TooFar`, NaN `NonFinite`; the body keeps its
/// last pose; a shape query or cast from there is refused; a bad ray finds
/// nothing.
#[test]
fn f64_poses_past_the_limit_are_refused() {
    use bevy_icollide::collider::limits::MAX_POSITION;
    use bevy_icollide::math::PoseError;
    use bevy_icollide::pipeline::WorldError;
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    let id = world.add_body(BodyDesc::new(cube.clone()));
    let edge = f64::from(MAX_POSITION);
    let at = WorldPose::new(Quat::IDENTITY, DVec3::new(edge, -edge, 0.25));
    world.set_pose_f64(id, at).expect("at the limit");
    let beyond = WorldPose::new(
        Quat::IDENTITY,
        DVec3::new(edge * (1.0 + f64::EPSILON), 0.0, 0.0),
    );
    let too_far = Err(WorldError::InvalidPose(PoseError::TooFar));
    assert_eq!(world.set_pose_f64(id, beyond), too_far);
    let nan = WorldPose::new(Quat::IDENTITY, DVec3::new(f64::NAN, 0.0, 0.0));
    let non_finite = Err(WorldError::InvalidPose(PoseError::NonFinite));
    assert_eq!(world.set_pose_f64(id, nan), non_finite);
    assert_eq!(world.pose_f64(id), Some(at), "the last valid pose is kept");
    let mut out = Vec::new();
    assert_eq!(
        world.intersect_shape_f64(&cube, beyond, QueryFilter::ALL, &mut out),
        too_far
    );
    let cast = |origin| {
        let motion = RigidMotion::linear(Pose::IDENTITY, Vec3::X);
        let options = ShapeCastOptions::default();
        world.cast_shape_f64(&cube, (origin, &motion), &options, QueryFilter::ALL)
    };
    use bevy_icollide::query::QueryError;
    assert_eq!(
        cast(beyond.translation),
        Err(QueryError::InvalidPose(PoseError::TooFar))
    );
    assert_eq!(
        cast(nan.translation),
        Err(QueryError::InvalidPose(PoseError::NonFinite))
    );
    let _ = world.step();
    let ray = |origin| world.ray_cast_f64((origin, Vec3::X), 10.0, QueryFilter::ALL);
    assert!(ray(beyond.translation).is_none() && ray(nan.translation).is_none());
    // The body at the limit is found by a ray from just before it.
    let hit = ray(at.translation - DVec3::X * 2.0).expect("a hit at the limit");
    assert!((hit.point_f64 - (at.translation - DVec3::X * 0.5)).length() <= 0.25);
}

/// Continuous detection far out: `exact_casts`' ball jumping along a row
/// of 400 balls, the scene translated by 10⁶ and 10⁹ m, starts each touch
/// in the step the exact reference says, as at the origin (jumps of 10 m
/// to 10¹⁰ m per step; the pairs' sweeps are cast from their `f64`
/// endpoints).
#[test]
fn far_sweeps_start_every_touch_in_its_step() {
    let mut failures = Vec::new();
    for offset in [1e6, 1e9].map(|d| DVec3::new(d, -d, 0.5 * d)) {
        let mut rng = Rng::new(49);
        for jump in [1e1f32, 1e4, 1e6, 1e10] {
            let (row, xs, mut starts) = super::exact_casts::row_starts(&mut rng, jump, offset);
            let mut want: Vec<_> = row
                .iter()
                .map(|&(id, touch)| {
                    (
                        id,
                        xs.iter().position(|&x| x as f64 >= touch).expect("passed"),
                    )
                })
                .collect();
            starts.sort();
            want.sort();
            assert!(want.len() > 100, "{} touched", want.len());
            if starts != want {
                let missed = want.iter().filter(|w| !starts.contains(w)).count();
                let extra = starts.iter().filter(|s| !want.contains(s)).count();
                failures.push(format!(
                    "offset {offset}, jump {jump}: {missed} missed, {extra} extra"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
