//! Continuous detection against fine stepping (issue 42, item 6).
//!
//! A world whose fast bodies have continuous detection, stepped once per
//! frame, against a world without it stepped `K` times per frame along the
//! same motions (each swept body at `RigidMotion::between(start, end,
//! box center).pose_at(j / K)`, the motion the first world casts; the
//! others at their end pose, where the first world holds them). "The same
//! starts", precisely, frame by frame:
//!
//! - **no miss**: every start the fine world finds in a frame is a pair
//!   the continuous world has touching after that frame, by a start in
//!   that frame or a touch it kept from the frame before. One exception,
//!   counted (`retouches`, about 0.5 % of the fine starts here; with
//!   convex shapes it takes a turn): a pair touching as the frame starts,
//!   apart, then touching again within the frame: one cast per frame finds
//!   the first contact only, so the continuous world reports the pair
//!   ending (see `pipeline/ccd.rs`);
//! - **extras are real**: a start of the continuous world that the fine
//!   world never sees touching in that frame must be a contact between
//!   two sub-steps: an independent f64 brute force (polytope distance,
//!   segment distance) sampled along the motions, with the points' speed
//!   bounding the gap between samples, must find the pair within the
//!   casts' tolerance (`1e-4`) of touching somewhere in the frame;
//! - **same end state**: the continuous world's pairs that touch at their
//!   current poses (not only by sweep) are the fine world's touching pairs
//!   after its last sub-step.
//!
//! Scripts: fast bodies jump up to several sizes and turn up to 0.5 rad
//! per frame (a teleport of a body with continuous detection sweeps from
//! where it was: any turn), others creep, some are static; bodies teleport
//! (before or after turning continuous detection on or off), teleport onto
//! another body and leave, swap shapes, and toggle `set_ccd` mid-run.
//! Speeds and turns stay below those of issue 42's cast items (2, 4).
//! `ICOLLIDE_LONG=N` runs N times more scripts.

use std::collections::BTreeSet;

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::testkit::{
    self, Poly, Rng, distance, dpose, sat, segment_poly_distance, segment_segment, sphere_hull,
};
use glam::{DVec3, Quat, Vec3};

fn sphere(r: f32) -> SharedShape {
    SharedShape::sphere(r).expect("sphere")
}

fn at_x(x: f32) -> Pose {
    Pose::from_translation(Vec3::X * x)
}

/// A cube of half side 0.5 at the origin and a ball of radius 0.1 with
/// continuous detection off, stepped once at `x = 10`.
fn cube_and_ball() -> (CollisionWorld, BodyHandle, BodyHandle) {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let cube = world.add_body(BodyDesc::new(
        SharedShape::cuboid(Vec3::splat(0.5)).expect("cube"),
    ));
    world.set_pose(cube, Pose::IDENTITY).expect("pose");
    let ball = world.add_body(BodyDesc::new(sphere(0.1)));
    world.set_pose(ball, at_x(10.0)).expect("pose");
    assert_eq!(world.step().count(), 0);
    (world, cube, ball)
}

fn starts(world: &mut CollisionWorld) -> usize {
    world.step().filter(|e| e.started).count()
}

#[test]
fn ccd_switched_on_after_a_teleport_sweeps_from_the_teleport() {
    let (mut world, _, ball) = cube_and_ball();
    world.set_pose(ball, at_x(-3.0)).expect("teleport");
    world.set_ccd(ball, true).expect("ccd");
    world.set_pose(ball, at_x(3.0)).expect("through the cube");
    assert_eq!(starts(&mut world), 1);
}

#[test]
fn ccd_switched_on_inside_a_body_then_leaving_starts_a_touch() {
    let (mut world, _, ball) = cube_and_ball();
    world
        .set_pose(ball, at_x(0.3))
        .expect("teleport into the cube");
    world.set_ccd(ball, true).expect("ccd");
    world.set_pose(ball, at_x(3.0)).expect("out");
    assert_eq!(starts(&mut world), 1);
}

#[test]
fn a_body_jumping_onto_where_a_swept_body_starts_touches_it() {
    let (mut world, cube, ball) = cube_and_ball();
    world.set_ccd(ball, true).expect("ccd");
    // The ball leaves x = 10 fast; the cube (no continuous detection)
    // jumps onto x = 10.2 in the same step: they touch as the step starts.
    world.set_pose(ball, at_x(20.0)).expect("away");
    world.set_pose(cube, at_x(10.2)).expect("jump");
    assert_eq!(starts(&mut world), 1);
}

#[test]
fn a_shape_swapped_mid_step_is_swept_from_where_the_step_starts() {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let cube = world.add_body(BodyDesc::new(
        SharedShape::cuboid(Vec3::splat(0.25)).expect("cube"),
    ));
    world.set_pose(cube, at_x(-1.0)).expect("pose");
    let mut desc = BodyDesc::new(sphere(0.1));
    desc.ccd = true;
    let ball = world.add_body(desc);
    world.set_pose(ball, Pose::IDENTITY).expect("pose");
    assert_eq!(world.step().count(), 0);
    // Grown to radius 1 where the step starts, it overlaps the cube (and
    // does until x = 0.25) as it leaves.
    world
        .set_shape(ball, sphere(1.0), BoundsMode::DynamicBox)
        .expect("shape");
    world.set_pose(ball, at_x(1.6)).expect("pose");
    assert_eq!(starts(&mut world), 1);
}

/// A ball starting 5·10⁻⁵ from a cube (within the casts' tolerance, apart)
/// and sweeping through it touches it.
#[test]
fn a_sweep_from_within_the_tolerance_still_finds_the_contact() {
    let (mut world, _, ball) = cube_and_ball();
    world
        .set_pose(ball, at_x(-0.6 - 5e-5))
        .expect("near the face");
    world.set_ccd(ball, true).expect("ccd");
    assert_eq!(world.step().count(), 0, "apart at first");
    world.set_pose(ball, at_x(3.0)).expect("through the cube");
    assert_eq!(starts(&mut world), 1);
}

/// A shape as the brute force sees it, in world space (f64): a polytope,
/// or a sphere or capsule as its core segment and radius.
enum Geo {
    Poly(Poly),
    Round(DVec3, DVec3, f64),
}

fn geo(shape: &SharedShape, pose: &Pose) -> Geo {
    match shape.rounded() {
        Some(r) => {
            let (q, t) = dpose(pose);
            let [p, e] = r.core().map(|c| q * c.as_dvec3() + t);
            Geo::Round(p, e, f64::from(r.radius))
        }
        None => Geo::Poly(Poly::of(shape, pose)),
    }
}

/// The gap between two shapes (f64 brute force): their distance, or
/// at most 0 when they intersect.
fn gap(a: &Geo, b: &Geo) -> f64 {
    match (a, b) {
        (Geo::Poly(x), Geo::Poly(y)) => {
            let (overlap, _) = sat(x, y);
            if overlap >= 0.0 {
                -overlap
            } else {
                distance(x, y)
            }
        }
        (Geo::Round(p, q, r), Geo::Poly(y)) | (Geo::Poly(y), Geo::Round(p, q, r)) => {
            segment_poly_distance(*p, *q, y) - r
        }
        (Geo::Round(p1, q1, r1), Geo::Round(p2, q2, r2)) => {
            segment_segment(*p1, *q1, *p2, *q2) - r1 - r2
        }
    }
}

struct Body {
    id: BodyHandle,
    shape: SharedShape,
    ccd: bool,
    is_static: bool,
    fast: bool,
    pose: Pose,
}

/// A body's motion over one frame as the continuous world sees it.
#[derive(Clone, Copy)]
struct Motion {
    sweep: Option<RigidMotion>,
    end: Pose,
}

impl Motion {
    fn at(&self, t: f32) -> Pose {
        match self.sweep {
            Some(m) if t < 1.0 => m.pose_at(t),
            _ => self.end,
        }
    }

    /// How fast its points move (per frame), `radius` from the center.
    fn speed(&self, radius: f32) -> f64 {
        self.sweep.map_or(0.0, |m| {
            f64::from(m.linvel.length()) + f64::from(m.angvel.length() * radius)
        })
    }
}

const HALF: f32 = 3.0;
/// Fine sub-steps per frame.
const K: usize = 16;

fn shapes(rng: &mut Rng) -> Vec<SharedShape> {
    vec![
        sphere(0.2),
        SharedShape::capsule(0.1, 0.6).expect("capsule"),
        SharedShape::cuboid(Vec3::new(0.3, 0.2, 0.25)).expect("cuboid"),
        sphere_hull(rng, 16, 0.35),
        SharedShape::cuboid(Vec3::new(0.03, 0.8, 0.8)).expect("slab"),
    ]
}

/// A jump from `p` (several sizes for a fast body, a creep otherwise).
fn jump(rng: &mut Rng, p: Pose, fast: bool) -> Pose {
    let (reach, turn) = if fast { (2.0, 0.5) } else { (0.1, 0.1) };
    let spin = Quat::from_axis_angle(rng.unit_vector(), rng.range(0.0, turn));
    let t = (p.translation + rng.in_cube(reach)).clamp(Vec3::splat(-HALF), Vec3::splat(HALF));
    Pose::new((spin * p.rotation).normalize(), t)
}

/// Runs one body's script for a frame on the continuous world and
/// returns its motion. `others`: poses of the bodies at the frame's start.
fn script(
    w: &mut CollisionWorld,
    b: &mut Body,
    (others, kinds): (&[Pose], &[SharedShape]),
    rng: &mut Rng,
) -> Motion {
    let before = b.pose;
    let mut start = b.ccd.then_some(before);
    let set = |w: &mut CollisionWorld, b: &mut Body, p: Pose| {
        w.set_pose(b.id, p).expect("pose");
        b.pose = p;
    };
    let toggle = |w: &mut CollisionWorld, b: &mut Body, start: &mut Option<Pose>| {
        b.ccd = !b.ccd;
        w.set_ccd(b.id, b.ccd).expect("ccd");
        *start = b.ccd.then_some(b.pose);
    };
    if !b.is_static {
        match rng.below(100) {
            0..25 => {}
            25..78 => {
                let to = jump(rng, before, b.fast);
                set(w, b, to);
            }
            78..86 => {
                let away = Pose::new(rng.rotation(), rng.in_cube(HALF));
                set(w, b, away);
                let to = jump(rng, away, b.fast);
                set(w, b, to);
            }
            86..94 => {
                if rng.bool() {
                    let away = Pose::new(rng.rotation(), rng.in_cube(HALF));
                    set(w, b, away);
                }
                toggle(w, b, &mut start);
                if rng.bool() {
                    let to = jump(rng, b.pose, true);
                    set(w, b, to);
                }
            }
            94..97 => {
                // Another shape, swept from the start on.
                b.shape = kinds[rng.below(kinds.len())].clone();
                w.set_shape(b.id, b.shape.clone(), BoundsMode::DynamicBox)
                    .expect("shape");
                let to = jump(rng, before, b.fast);
                set(w, b, to);
            }
            _ => {
                // Onto another body (as it stands at the frame's start),
                // then perhaps on with continuous detection and away.
                let other = others[rng.below(others.len())];
                let onto = Pose::new(rng.rotation(), other.translation + rng.in_cube(0.2));
                set(w, b, onto);
                if rng.bool() {
                    if !b.ccd {
                        toggle(w, b, &mut start);
                    }
                    let to = jump(rng, onto, true);
                    set(w, b, to);
                }
            }
        }
    }
    let center = b.shape.local_aabb().center();
    Motion {
        sweep: start
            .filter(|s| *s != b.pose)
            .map(|s| RigidMotion::between(&s, &b.pose, center)),
        end: b.pose,
    }
}

type Pair = [BodyHandle; 2];

fn key(e: [BodyHandle; 2]) -> Pair {
    [e[0].min(e[1]), e[0].max(e[1])]
}

/// Applies a step's events to a touching set (checking that they are
/// consistent); returns the pairs that started.
fn apply(touching: &mut BTreeSet<Pair>, events: Vec<(Pair, bool)>) -> Vec<Pair> {
    let mut started = Vec::new();
    for (p, s) in events {
        if s {
            assert!(touching.insert(p), "{p:?} started twice");
            started.push(p);
        } else {
            assert!(touching.remove(&p), "{p:?} ended untouched");
        }
    }
    started
}

fn step(w: &mut CollisionWorld) -> Vec<(Pair, bool)> {
    w.step().map(|e| (key(e.bodies), e.started)).collect()
}

/// Whether the brute force finds bodies `i` and `j` within the casts'
/// tolerance of touching somewhere along their motions of the frame:
/// bisection of `[0, 1]`, an interval dropped when its ends' gaps, less the
/// distance the points can close over half of it, stay above the
/// tolerance; a sample within it is the answer (an interval of 2⁻²⁰ still
/// undecided too: within `2⁻²⁰` of the closing speed).
fn touch_in_frame(bodies: &[Body], motions: &[Motion], i: usize, j: usize) -> bool {
    const TOL: f64 = 1e-4 + 1e-5;
    let radius = |k: usize| {
        let b = bodies[k].shape.local_aabb();
        b.max_distance_from(b.center())
    };
    let closing = motions[i].speed(radius(i)) + motions[j].speed(radius(j));
    let at = |t: f64| {
        let (a, b) = (&bodies[i], &bodies[j]);
        let t = t as f32; // dyadic: exact
        gap(
            &geo(&a.shape, &motions[i].at(t)),
            &geo(&b.shape, &motions[j].at(t)),
        )
    };
    let mut stack = vec![(0.0, 1.0, at(0.0), at(1.0))];
    while let Some((t0, t1, g0, g1)) = stack.pop() {
        if g0.min(g1) <= TOL || t1 - t0 < 1e-6 {
            return true;
        }
        if 0.5 * (g0 + g1 - closing * (t1 - t0)) > TOL {
            continue;
        }
        let tm = 0.5 * (t0 + t1);
        let gm = at(tm);
        stack.push((t0, tm, g0, gm));
        stack.push((tm, t1, gm, g1));
    }
    false
}

/// A pair's story over the frame, for failure messages: the motions and
/// the brute-force gap at each sub-step.
fn describe(bodies: &[Body], motions: &[Motion], i: usize, j: usize) -> String {
    let gaps: Vec<String> = (0..=K)
        .map(|k| {
            let t = k as f32 / K as f32;
            let g = gap(
                &geo(&bodies[i].shape, &motions[i].at(t)),
                &geo(&bodies[j].shape, &motions[j].at(t)),
            );
            format!("{g:.2e}")
        })
        .collect();
    let m = |k: usize| (motions[k].sweep, motions[k].end);
    format!("gaps {gaps:?}\nmotions {:?}\n{:?}", m(i), m(j))
}

/// Counts of one scene: fine starts, continuous starts, extras between
/// sub-steps.
#[derive(Default, Debug)]
struct Counts {
    fine_starts: usize,
    starts: usize,
    between: usize,
    retouches: usize,
    swept_bodies: usize,
}

fn scene(seed: u64, frames: usize, counts: &mut Counts) {
    let mut rng = Rng::new(seed);
    let kinds = shapes(&mut rng);
    let mut worlds = [0, 1].map(|_| CollisionWorld::new(WorldConfig::default()).expect("config"));
    let [cw, fw] = &mut worlds;
    let mut bodies: Vec<Body> = (0..16)
        .map(|i| {
            let shape = kinds[i % kinds.len()].clone();
            let mut desc = BodyDesc::new(shape.clone());
            let (is_static, ccd) = (i % 8 == 4, i % 2 == 0 && i % 8 != 4);
            desc.is_static = is_static;
            desc.ccd = ccd;
            let pose = Pose::new(rng.rotation(), rng.in_cube(HALF));
            let id = cw.add_body(desc.clone());
            cw.set_pose(id, pose).expect("pose");
            desc.ccd = false;
            assert_eq!(fw.add_body(desc), id);
            fw.set_pose(id, pose).expect("pose");
            Body {
                id,
                shape,
                ccd,
                is_static,
                fast: i % 3 != 2,
                pose,
            }
        })
        .collect();
    let (mut ct, mut ft) = (BTreeSet::new(), BTreeSet::new());
    apply(&mut ct, step(cw));
    apply(&mut ft, step(fw));
    assert_eq!(ct, ft, "seed {seed}: first frame");
    for frame in 0..frames {
        let at_start: Vec<Pose> = bodies.iter().map(|b| b.pose).collect();
        let motions: Vec<Motion> = bodies
            .iter_mut()
            .map(|b| script(cw, b, (&at_start, &kinds), &mut rng))
            .collect();
        for b in &bodies {
            if !fw.shape(b.id).is_some_and(|s| s.ptr_eq(&b.shape)) {
                fw.set_shape(b.id, b.shape.clone(), BoundsMode::DynamicBox)
                    .expect("shape");
            }
        }
        counts.swept_bodies += motions.iter().filter(|m| m.sweep.is_some()).count();
        let (before, fine_before) = (ct.clone(), ft.clone());
        let starts = apply(&mut ct, step(cw));
        let (mut fine_starts, mut seen) = (Vec::new(), BTreeSet::new());
        let mut fine_pose = at_start.clone();
        for j in 1..=K {
            for (k, m) in motions.iter().enumerate() {
                let p = m.at(j as f32 / K as f32);
                if p != fine_pose[k] {
                    fw.set_pose(bodies[k].id, p).expect("pose");
                    fine_pose[k] = p;
                }
            }
            fine_starts.extend(apply(&mut ft, step(fw)));
            seen.extend(ft.iter().copied());
        }
        let ctx = format!("seed {seed}, frame {frame}");
        let index = |h: BodyHandle| bodies.iter().position(|b| b.id == h).expect("body");
        for p in &fine_starts {
            if fine_before.contains(p) {
                // Touching as the frame starts, apart, touching again: one
                // cast per frame finds the first contact only.
                counts.retouches += 1;
                continue;
            }
            assert!(
                ct.contains(p) && (starts.contains(p) || before.contains(p)),
                "{ctx}: the fine world starts {p:?}, the continuous one misses it: {}",
                describe(&bodies, &motions, index(p[0]), index(p[1]))
            );
        }
        for p in starts.iter().filter(|&p| !seen.contains(p)) {
            assert!(
                touch_in_frame(&bodies, &motions, index(p[0]), index(p[1])),
                "{ctx}: {p:?} starts but never comes within the tolerance"
            );
            counts.between += 1;
        }
        let discrete: BTreeSet<Pair> = ct
            .iter()
            .filter(|p| cw.pair(p[0], p[1]).is_some_and(|s| !s.result.swept))
            .copied()
            .collect();
        assert_eq!(discrete, ft, "{ctx}: touching at the end poses");
        counts.fine_starts += fine_starts.len();
        counts.starts += starts.len();
    }
}

#[test]
fn ccd_world_catches_every_contact_of_fine_stepping() {
    let mut counts = Counts::default();
    for seed in 0..3 * testkit::long_factor() as u64 {
        scene(seed, 60, &mut counts);
    }
    let c = &counts;
    eprintln!("{c:?}");
    assert!(
        c.fine_starts >= 150 && c.between >= 3 && c.swept_bodies >= 800,
        "{c:?}"
    );
}
