//! Every pair of collider kinds — convex, mesh, sphere, capsule, compound of
//! convex pieces (with a capsule), compound with a mesh piece — in one world
//! moving for 1500 frames. Every
//! frame, the touching pairs, the start / end events (and their order) and
//! the touching piece pairs of compounds equal a brute-force reference:
//! compounds expanded into all their pieces, the separating-axis test (f64)
//! for two convex pieces, all triangle pairs for a piece pair with a mesh
//! (and a mesh vertex inside a convex piece: solids contain),
//! and for a sphere or capsule the f64 distance from its core segment to the
//! other piece (its core, its solid, or its triangles) against the radius.
//! The same run split over 3 tasks gives the same events.
//!
//! A convex pair whose SAT separation is within 1e-5 of zero is too close
//! to call in f64 against the f32 narrow phase: the reference takes the
//! world's answer for it (such pairs are counted, and rare).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use bevy_icollide::bvh::mapped_triangle;
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::geometry::tritri::triangles_intersect;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, ContactEvent, WorldConfig};
use bevy_icollide::testkit::{Poly, Rng, sphere_hull, torus, triangles_inside};
use glam::{DVec3, Quat, Vec3};

const N: usize = 48;
const FRAMES: u32 = 1500;

/// A non-compound piece at its world pose.
struct Leaf {
    index: u32,
    shape: SharedShape,
    pose: Pose,
    radius: f32,
}

fn leaves(shape: &SharedShape, pose: &Pose) -> Vec<Leaf> {
    let leaf = |index, shape: &SharedShape, pose: Pose| Leaf {
        index,
        radius: shape.fixed_cube().radius + shape.fixed_cube().center.length(),
        shape: shape.clone(),
        pose,
    };
    match shape.compound() {
        // The same pose product as the narrow phase: bit-identical floats.
        Some(c) => (0..)
            .zip(c.pieces())
            .map(|(i, p)| leaf(i, &p.shape, pose.mul(&p.pose)))
            .collect(),
        None => vec![leaf(0, shape, *pose)],
    }
}

/// The core segment of a sphere or capsule, world space, f64.
fn core(l: &Leaf) -> Option<(DVec3, DVec3, f64)> {
    let r = l.shape.rounded()?;
    let [p, q] = r.core().map(|x| l.pose.transform_point(x).as_dvec3());
    Some((p, q, f64::from(r.radius)))
}

/// A sphere or capsule `a` against any piece `b`: distance from its core
/// compared with the radius.
fn rounded_touch(a: &Leaf, b: &Leaf) -> Option<bool> {
    let (d, reach) = core_distance(a, b)?;
    ((d - reach).abs() > 1e-5).then_some(d < reach)
}

/// Distance between two convex pieces (spheres and capsules included), f64.
fn leaf_distance(a: &Leaf, b: &Leaf) -> f64 {
    let pair = core_distance(a, b).or_else(|| core_distance(b, a));
    if let Some((d, reach)) = pair {
        return (d - reach).max(0.0);
    }
    let body = |l: &Leaf| common::Body {
        shape: l.shape.clone(),
        pose: l.pose,
    };
    common::brute_distance(&body(a), &body(b))
}

/// For a sphere or capsule `a`: the distance from its core to `b` and the
/// reach (sum of the radii).
fn core_distance(a: &Leaf, b: &Leaf) -> Option<(f64, f64)> {
    let (p, q, r) = core(a)?;
    Some(if let Some((p2, q2, r2)) = core(b) {
        (common::segment_distance(p, q, p2, q2), r + r2)
    } else if b.shape.polytope().is_some() {
        let body = common::Body {
            shape: b.shape.clone(),
            pose: b.pose,
        };
        (common::segment_body_distance(p, q, &body), r)
    } else {
        let m = b.shape.surface().expect("surface").mesh;
        let d = (0..m.triangles().len())
            .map(|t| {
                let tri = m.triangle(t).map(|x| b.pose.transform_point(x).as_dvec3());
                common::segment_triangle_distance(p, q, tri)
            })
            .fold(f64::MAX, f64::min);
        (d, r)
    })
}

/// Brute force for two pieces: `Some(touching)`, or `None` when too close
/// to call.
fn leaves_touch(a: &Leaf, b: &Leaf) -> Option<bool> {
    let gap = a.pose.translation.distance(b.pose.translation) - a.radius - b.radius;
    if gap > 1e-3 {
        return Some(false);
    }
    if a.shape.rounded().is_some() {
        return rounded_touch(a, b);
    }
    if b.shape.rounded().is_some() {
        return rounded_touch(b, a);
    }
    if a.shape.polytope().is_some() && b.shape.polytope().is_some() {
        let body = |l: &Leaf| common::Body {
            shape: l.shape.clone(),
            pose: l.pose,
        };
        let sep = common::sat_separation(&body(a), &body(b));
        return (sep.abs() > 1e-5).then_some(sep < 0.0);
    }
    let (ma, mb) = (
        a.shape.surface().expect("surface").mesh,
        b.shape.surface().expect("surface").mesh,
    );
    let rel = a.pose.inverse().mul(&b.pose);
    let tb: Vec<[Vec3; 3]> = (0..mb.triangles().len() as u32)
        .map(|t| mapped_triangle(mb, t, &rel))
        .collect();
    let cross = (0..ma.triangles().len())
        .any(|t| tb.iter().any(|u| triangles_intersect(ma.triangle(t), *u)));
    // Solids contain: a mesh wholly inside a convex piece touches it.
    let inside = |c: &Leaf, m: &Leaf| {
        c.shape.polytope().is_some()
            && m.shape.polytope().is_none()
            && !triangles_inside(
                &Poly::of(&c.shape, &c.pose),
                m.shape.surface().expect("surface").mesh,
                &m.pose,
            )
            .is_empty()
    };
    Some(cross || inside(a, b) || inside(b, a))
}

fn shapes(rng: &mut Rng) -> Vec<SharedShape> {
    let (p, t) = torus(0.35, 0.1, 10, 6);
    let ring = SharedShape::trimesh(p, t).expect("torus");
    let (p, t) = torus(0.15, 0.05, 8, 5);
    let small_ring = SharedShape::trimesh(p, t).expect("torus");
    let piece = |shape, x: f32, rng: &mut Rng| CompoundPiece {
        pose: Pose::new(rng.rotation(), Vec3::new(x, 0.0, 0.0)),
        shape,
    };
    let ball = SharedShape::sphere(0.2).expect("sphere");
    let capsule = SharedShape::capsule(0.12, 0.4).expect("capsule");
    (0..N)
        .map(|i| match i % 6 {
            0 => sphere_hull(rng, 12, 0.3),
            1 => ring.clone(),
            2 => {
                let mut pieces: Vec<CompoundPiece> = (0..2)
                    .map(|k| piece(sphere_hull(rng, 10, 0.18), 0.3 * (k as f32 - 1.0), rng))
                    .collect();
                pieces.push(piece(
                    SharedShape::capsule(0.08, 0.2).expect("capsule"),
                    0.3,
                    rng,
                ));
                SharedShape::compound(pieces).expect("compound")
            }
            3 => ball.clone(),
            4 => capsule.clone(),
            _ => {
                let pieces = vec![
                    piece(small_ring.clone(), -0.2, rng),
                    piece(sphere_hull(rng, 10, 0.18), 0.2, rng),
                ];
                SharedShape::compound(pieces).expect("compound")
            }
        })
        .collect()
}

/// What one run produced, frame by frame.
#[derive(Default, PartialEq, Debug)]
struct Run {
    events: Vec<Vec<ContactEvent>>,
    too_close: usize,
    touching_pairs: usize,
    piece_checks: usize,
}

struct Scene {
    shapes: Vec<SharedShape>,
    poses: Vec<Pose>,
    vel: Vec<(Vec3, Quat)>,
}

impl Scene {
    fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let shapes = shapes(&mut rng);
        let poses = (0..N)
            .map(|_| Pose::new(rng.rotation(), rng.in_cube(1.6)))
            .collect();
        let vel = (0..N)
            .map(|_| {
                let w = Quat::from_axis_angle(rng.unit_vector(), 0.04);
                (rng.unit_vector() * 0.012, w)
            })
            .collect();
        Self { shapes, poses, vel }
    }

    fn step(&mut self) {
        for i in 0..N {
            let (v, w) = &mut self.vel[i];
            let mut t = self.poses[i].translation + *v;
            for k in 0..3 {
                if t[k].abs() > 1.6 {
                    v[k] = -v[k];
                    t[k] = t[k].clamp(-1.6, 1.6);
                }
            }
            self.poses[i] = Pose::new((*w * self.poses[i].rotation).normalize(), t);
        }
    }
}

/// The touching piece pairs the world reports for `(i, j)`, `i < j`.
fn world_pieces(
    world: &CollisionWorld,
    ids: &[BodyHandle],
    i: usize,
    j: usize,
) -> BTreeSet<[u32; 2]> {
    world
        .pair(ids[i], ids[j])
        .and_then(|s| s.touching_pieces())
        .map_or_else(BTreeSet::new, |t| t.map(|p| p.pieces).collect())
}

/// Checks one frame against brute force; returns the expected touching
/// set (too-close pairs take the world's answer).
fn check_frame(
    scene: &Scene,
    world: &CollisionWorld,
    ids: &[BodyHandle],
    run: &mut Run,
) -> BTreeMap<(usize, usize), bool> {
    let leaves: Vec<Vec<Leaf>> = (0..N)
        .map(|i| leaves(&scene.shapes[i], &scene.poses[i]))
        .collect();
    let mut expected = BTreeMap::new();
    for i in 0..N {
        for j in i + 1..N {
            let world_says = world
                .pair(ids[i], ids[j])
                .is_some_and(|s| s.result.touching);
            let mut touching = false;
            let mut unsure = false;
            let mut pieces = BTreeSet::new();
            for la in &leaves[i] {
                for lb in &leaves[j] {
                    match leaves_touch(la, lb) {
                        Some(t) => {
                            touching |= t;
                            if t {
                                pieces.insert([la.index, lb.index]);
                            }
                        }
                        None => unsure = true,
                    }
                }
            }
            let is_compound =
                scene.shapes[i].compound().is_some() || scene.shapes[j].compound().is_some();
            if unsure && !touching {
                run.too_close += 1;
                touching = world_says;
            } else if is_compound && !unsure {
                assert_eq!(
                    world_pieces(world, ids, i, j),
                    pieces,
                    "pieces of ({i}, {j})"
                );
                run.piece_checks += 1;
            }
            run.touching_pairs += usize::from(touching);
            expected.insert((i, j), touching);
        }
    }
    expected
}

fn run(tasks: Option<usize>, check: bool) -> Run {
    let mut scene = Scene::new(7);
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let ids: Vec<BodyHandle> = (0..N)
        .map(|i| {
            let mut desc = BodyDesc::new(scene.shapes[i].clone());
            desc.user_data = i as u64;
            world.add_body(desc)
        })
        .collect();
    let mut out = Run::default();
    let mut before: BTreeSet<(usize, usize)> = BTreeSet::new();
    for _ in 0..FRAMES {
        for (&id, pose) in ids.iter().zip(&scene.poses) {
            world.set_pose(id, *pose).expect("valid pose");
        }
        world.update_bounds();
        world.update_broad_phase();
        common::narrow_phase(&mut world, tasks);
        let events: Vec<ContactEvent> = world.drain_events().collect();
        if check {
            let expected = check_frame(&scene, &world, &ids, &mut out);
            let now: BTreeSet<(usize, usize)> =
                expected.into_iter().filter(|e| e.1).map(|e| e.0).collect();
            let mut want: Vec<ContactEvent> = now
                .symmetric_difference(&before)
                .map(|&(i, j)| ContactEvent {
                    bodies: [ids[i], ids[j]],
                    user_data: [i as u64, j as u64],
                    started: now.contains(&(i, j)),
                })
                .collect();
            want.sort_unstable_by_key(|e| (e.user_data, e.bodies[0], e.bodies[1], e.started));
            assert_eq!(events, want);
            before = now;
        }
        out.events.push(events);
        scene.step();
    }
    out
}

#[test]
fn every_kind_pair_matches_brute_force_and_thread_count_does_not_matter() {
    let serial = run(None, true);
    let events: usize = serial.events.iter().map(Vec::len).sum();
    assert!(
        events > 300 && serial.piece_checks > 2000,
        "{events} events, {} piece checks",
        serial.piece_checks
    );
    assert!(
        serial.too_close * 1000 < serial.touching_pairs.max(1),
        "{} too-close pairs for {} touching",
        serial.too_close,
        serial.touching_pairs
    );
    eprintln!(
        "{events} events, {} touching pair-frames, {} compound pair checks, {} too close",
        serial.touching_pairs, serial.piece_checks, serial.too_close
    );
    let parallel = run(Some(3), false);
    assert_eq!(parallel.events, serial.events, "3 tasks: same events");
}

#[test]
fn one_shot_queries_on_compounds_match_brute_force() {
    let mut rng = Rng::new(11);
    let all = shapes(&mut rng);
    let (mut hits, mut touching) = (0, 0);
    for k in 0..600 {
        let (a, b) = (&all[2 + 6 * (k % 5)], &all[k % N]);
        let (pa, pb) = (
            Pose::new(rng.rotation(), rng.in_cube(0.5)),
            Pose::new(rng.rotation(), rng.in_cube(0.5)),
        );
        let (la, lb) = (leaves(a, &pa), leaves(b, &pb));
        let brute: Vec<Option<bool>> = la
            .iter()
            .flat_map(|x| lb.iter().map(move |y| leaves_touch(x, y)))
            .collect();
        if brute.contains(&None) {
            continue;
        }
        let want = brute.contains(&Some(true));
        touching += usize::from(want);
        assert_eq!(bevy_icollide::query::intersects(a, &pa, b, &pb), Ok(want));
        if b.polytope().is_some() || matches!(k % 6, 2..=4) {
            let d = bevy_icollide::query::distance(a, &pa, b, &pb).expect("convex pieces");
            let brute_d = la
                .iter()
                .flat_map(|x| lb.iter().map(move |y| leaf_distance(x, y)))
                .fold(f64::MAX, f64::min);
            assert!(
                (f64::from(d) - brute_d).abs() < 1e-4,
                "{d} vs {brute_d}: {:?} / {:?}",
                la.iter().map(|l| l.shape.kind_name()).collect::<Vec<_>>(),
                lb.iter().map(|l| l.shape.kind_name()).collect::<Vec<_>>()
            );
        }
        let origin = rng.in_cube(2.0);
        let aim = pa.translation + rng.in_cube(0.4);
        let ray = bevy_icollide::query::Ray::new(origin, aim - origin);
        let hit = bevy_icollide::query::ray_cast(a, &pa, &ray, 10.0).expect("valid");
        let nearest = la
            .iter()
            .filter_map(|l| bevy_icollide::query::ray_cast(&l.shape, &l.pose, &ray, 10.0).ok()?)
            .map(|h| h.toi)
            .fold(f32::MAX, f32::min);
        assert_eq!(hit.map_or(f32::MAX, |h| h.toi), nearest);
        hits += usize::from(hit.is_some());
    }
    assert!(
        touching > 100 && hits > 100,
        "{touching} touching, {hits} hits"
    );
}
