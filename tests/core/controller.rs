//! The character controller (`character::CharacterController`): a capsule
//! (radius 0.3, segment 0.6: 1.2 tall) walks at 2 m/s at 60 frames a
//! second, pulled down by gravity (9.81 m/s², the vertical speed reset
//! while it stands on ground), over levels of boxes, cuboids and then the
//! same boxes as triangle meshes (12 triangles each); the numbers asserted
//! are where it ends, from the geometry. After every frame it is more than
//! an eighth of the skin from every body (the exact `query::distance`).
//!
//! - Slopes (limit 45°): it walks up a 30° ramp (its height follows the
//!   ramp: `0.3 + (r + s) / cos 30° + x tan 30°`) and is stopped at the
//!   foot of a 60° ramp (height unchanged, `x` where the ball of the
//!   capsule is a skin from the ramp).
//! - Steps (max 0.35): it climbs a 0.3 step (ends 0.3 higher, past its
//!   edge) and is stopped by a 0.4 one (a skin from its face).
//! - Snapping (0.2): walking down stairs of 0.1 it is on the ground every
//!   frame; walking off a 1.0 ledge it leaves the ground and falls.
//! - Platforms: standing on a box moving at 1 m/s and turning at 30°/s,
//!   carried by `platform_motion`, it is after a second where it stood on
//!   the box (within two skins); on an elevator going up at 1 m/s and down
//!   at 15 m/s (0.25 a frame, more than the snap) it stays a skin above
//!   the deck every frame.
//! - Bad options (up not unit, a slope limit outside `[0, 90°)`, negative
//!   or non-finite lengths) and bad input are refused; a probe finds the
//!   floor 0.15 below within 0.2 and not within 0.1.

use bevy_icollide::character::{
    CharacterController, CharacterOutput, ControllerOptions, platform_motion,
};
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, QueryFilter};
use bevy_icollide::query::distance;
use glam::{Quat, Vec3};

const SKIN: f32 = 0.01;
const R: f32 = 0.3;
/// The capsule's centre above the ground it rests on.
const REST: f32 = 0.3 + R + SKIN;

/// Static boxes, and the bodies for the reference distances.
struct Level {
    world: CollisionWorld,
    bodies: Vec<(SharedShape, Pose)>,
}

impl Level {
    fn new(bodies: Vec<(SharedShape, Pose)>) -> Level {
        let mut world = CollisionWorld::default();
        for (shape, pose) in &bodies {
            let mut desc = BodyDesc::new(shape.clone());
            desc.is_static = true;
            let h = world.add_body(desc);
            world.set_pose(h, *pose).expect("pose");
        }
        let _ = world.step();
        Level { world, bodies }
    }

    fn gap(&self, shape: &SharedShape, pose: &Pose) -> f32 {
        self.bodies
            .iter()
            .map(|(s, p)| distance(shape, pose, s, p).expect("distance"))
            .fold(f32::INFINITY, f32::min)
    }
}

/// A box's half extents and pose.
type Block = (Vec3, Pose);

/// The level of these boxes: cuboids, or triangle meshes (12 triangles
/// each).
fn level(blocks: &[Block], meshes: bool) -> Level {
    let shape = |h: Vec3| {
        if !meshes {
            return SharedShape::cuboid(h).expect("cuboid");
        }
        let v = (0..8)
            .map(|i| h * Vec3::new(sign(i & 1), sign(i & 2), sign(i & 4)))
            .collect();
        let t = vec![
            [0, 2, 3],
            [0, 3, 1],
            [4, 5, 7],
            [4, 7, 6],
            [0, 1, 5],
            [0, 5, 4],
            [2, 6, 7],
            [2, 7, 3],
            [0, 4, 6],
            [0, 6, 2],
            [1, 3, 7],
            [1, 7, 5],
        ];
        SharedShape::trimesh(v, t).expect("mesh")
    };
    Level::new(blocks.iter().map(|(h, p)| (shape(*h), *p)).collect())
}

fn sign(bit: usize) -> f32 {
    if bit == 0 { -1.0 } else { 1.0 }
}

/// A box from `x0` to `x1` with its top at `top`, 1 thick, 6 wide.
fn block(x0: f32, x1: f32, top: f32) -> Block {
    let half = Vec3::new(0.5 * (x1 - x0), 0.5, 3.0);
    let centre = Vec3::new(0.5 * (x0 + x1), top - 0.5, 0.0);
    (half, Pose::from_translation(centre))
}

/// A ramp rising at `deg` along +x from the floor at x = 0, 8 long.
fn ramp(deg: f32) -> Block {
    let a = deg.to_radians();
    let (along, normal) = (
        Vec3::new(a.cos(), a.sin(), 0.0),
        Vec3::new(-a.sin(), a.cos(), 0.0),
    );
    let centre = along * 4.0 - normal * 0.5;
    (
        Vec3::new(4.0, 0.5, 3.0),
        Pose::new(Quat::from_rotation_z(a), centre),
    )
}

fn controller(max_step_height: f32, snap_distance: f32) -> CharacterController {
    let mut o = ControllerOptions {
        max_slope: 45f32.to_radians(),
        max_step_height,
        snap_distance,
        ..Default::default()
    };
    o.slide.skin = SKIN;
    CharacterController::new(o)
}

/// Walks the capsule from `x` (resting on ground at height `y`) along +x
/// for `frames` frames; every frame's output.
fn walk(
    level: &Level,
    c: &mut CharacterController,
    (x, y): (f32, f32),
    frames: usize,
) -> Vec<CharacterOutput> {
    let capsule = SharedShape::capsule(R, 0.6).expect("capsule");
    let (dt, speed, g) = (1.0 / 60.0, 2.0, 9.81);
    let mut pose = Pose::from_translation(Vec3::new(x, y + REST, 0.0));
    let mut vy = 0.0f32;
    let mut outs = Vec::new();
    for i in 0..frames {
        let motion = Vec3::new(speed * dt, vy * dt, 0.0);
        let out = c
            .move_character(
                &level.world,
                (&capsule, pose),
                motion,
                QueryFilter::ALL,
                |_| true,
            )
            .expect("move");
        let gap = level.gap(&capsule, &out.pose);
        assert!(
            gap > SKIN / 8.0,
            "frame {i}: gap {gap} at {}",
            out.pose.translation
        );
        vy = if out.ground.is_some() {
            0.0
        } else {
            vy - g * dt
        };
        pose = out.pose;
        outs.push(out);
    }
    outs
}

fn end(outs: &[CharacterOutput]) -> Vec3 {
    outs.last().expect("frames").pose.translation
}

#[test]
fn walks_up_a_30_degree_ramp_and_is_stopped_by_a_60_degree_one() {
    for meshes in [false, true] {
        walks_up_a_30_degree_ramp_and_is_stopped_by_a_60_degree_one_on(meshes);
    }
}

fn walks_up_a_30_degree_ramp_and_is_stopped_by_a_60_degree_one_on(meshes: bool) {
    let mut c = controller(0.0, 0.0);
    let up = level(&[block(-5.0, 0.0, 0.0), ramp(30.0)], meshes);
    let outs = walk(&up, &mut c, (-1.0, 0.0), 120);
    let p = end(&outs);
    let t = 30f32.to_radians().tan();
    let on_ramp = 0.3 + (R + SKIN) / 30f32.to_radians().cos() + p.x * t;
    assert!(p.x > 1.5, "it walked up the ramp: {p}");
    assert!(
        (p.y - on_ramp).abs() < 2.0 * SKIN,
        "{p}: {on_ramp} expected on the ramp"
    );
    assert!(outs.last().unwrap().ground.is_some(), "grounded on 30°");
    let on_30 = p;

    let steep = level(&[block(-5.0, 0.0, 0.0), ramp(60.0)], meshes);
    let outs = walk(&steep, &mut c, (-1.0, 0.0), 120);
    let p = end(&outs);
    let a = 60f32.to_radians();
    // The ball (centre R + s high) a skin from the ramp's plane.
    let foot = (R + SKIN) * (a.cos() - 1.0) / a.sin();
    let climbed = outs
        .iter()
        .map(|o| o.pose.translation.y - REST)
        .fold(0.0, f32::max);
    assert!(climbed < SKIN, "climbed the 60° ramp by {climbed}");
    assert!(
        p.x < foot + 2.0 * SKIN / a.sin() && p.x > foot - 0.05,
        "{p}: foot {foot}"
    );
    eprintln!(
        "30°: ended at {on_30:?}; 60°: climbed {climbed}, stopped at x = {} (foot {foot})",
        p.x
    );
}

#[test]
fn climbs_a_0_3_step_and_is_stopped_by_a_0_4_one() {
    for meshes in [false, true] {
        climbs_a_0_3_step_and_is_stopped_by_a_0_4_one_on(meshes);
    }
}

fn climbs_a_0_3_step_and_is_stopped_by_a_0_4_one_on(meshes: bool) {
    let mut c = controller(0.35, 0.2);
    let low = level(&[block(-5.0, 5.0, 0.0), block(0.0, 3.0, 0.3)], meshes);
    let outs = walk(&low, &mut c, (-1.0, 0.0), 90);
    let p = end(&outs);
    let stepped = outs.iter().map(|o| o.stepped).fold(0.0, f32::max);
    assert!(p.x > 1.0, "it went on: {p}");
    assert!((p.y - (0.3 + REST)).abs() < SKIN, "on the step: {p}");
    assert!((stepped - 0.3).abs() < 2.0 * SKIN, "stepped {stepped}");
    let on_step = p;

    let high = level(&[block(-5.0, 5.0, 0.0), block(0.0, 3.0, 0.4)], meshes);
    let outs = walk(&high, &mut c, (-1.0, 0.0), 90);
    let p = end(&outs);
    assert!((p.y - REST).abs() < SKIN, "on the floor: {p}");
    assert!(
        p.x < -R - SKIN / 2.0 && p.x > -R - 2.0 * SKIN,
        "at the face: {p}"
    );
    assert!(outs.iter().all(|o| o.stepped == 0.0));
    eprintln!("0.3 step: ended at {on_step:?}, stepped {stepped}; 0.4 step: stopped at {p:?}");
}

#[test]
fn stays_grounded_down_0_1_stairs_and_leaves_the_ground_off_a_1_0_ledge() {
    for meshes in [false, true] {
        stays_grounded_down_0_1_stairs_and_leaves_the_ground_off_a_1_0_ledge_on(meshes);
    }
}

fn stays_grounded_down_0_1_stairs_and_leaves_the_ground_off_a_1_0_ledge_on(meshes: bool) {
    let mut c = controller(0.0, 0.2);
    let mut stairs = vec![block(-5.0, 0.0, 0.0)];
    for i in 0..4 {
        let x = 0.5 * i as f32;
        stairs.push(block(x, x + 0.5, -0.1 * (i + 1) as f32));
    }
    stairs.push(block(2.0, 6.0, -0.5));
    let down = level(&stairs, meshes);
    let outs = walk(&down, &mut c, (-1.0, 0.0), 120);
    let p = end(&outs);
    let airborne = outs.iter().filter(|o| o.ground.is_none()).count();
    let snaps = outs.iter().filter(|o| o.snapped > 0.0).count();
    let max_snap = outs.iter().map(|o| o.snapped).fold(0.0, f32::max);
    assert_eq!(airborne, 0, "frames off the ground on the stairs");
    assert!(
        snaps >= 5 && max_snap <= 0.2 + SKIN,
        "{snaps} snaps, at most {max_snap}"
    );
    assert!(
        p.x > 2.5 && (p.y - (-0.5 + REST)).abs() < SKIN,
        "at the bottom: {p}"
    );
    let bottom = p;

    let ledge = level(&[block(-5.0, 0.0, 0.0), block(0.0, 6.0, -1.0)], meshes);
    let outs = walk(&ledge, &mut c, (-1.0, 0.0), 120);
    let first_air = outs
        .iter()
        .position(|o| o.ground.is_none())
        .expect("it left the ground");
    let air = outs.iter().filter(|o| o.ground.is_none()).count();
    let y_air = outs[first_air].pose.translation.y;
    assert!(
        y_air > -0.2 + REST,
        "it did not snap down the ledge: {y_air}"
    );
    // A fall of about 1.0 under gravity takes about 0.45 s (27 frames).
    assert!(air > 15, "{air} frames in the air");
    let p = end(&outs);
    assert!(
        outs.last().unwrap().ground.is_some() && (p.y - (-1.0 + REST)).abs() < SKIN,
        "landed: {p}"
    );
    eprintln!(
        "stairs: {snaps} snaps (at most {max_snap}), ended at {bottom:?}; ledge: {air} frames in the air, landed at {p:?}"
    );
}

#[test]
fn bad_options_and_input_are_refused() {
    let flat = level(&[block(-5.0, 5.0, 0.0)], false);
    let capsule = SharedShape::capsule(R, 0.6).expect("capsule");
    let pose = Pose::from_translation(Vec3::new(0.0, REST, 0.0));
    let bad = [
        ControllerOptions {
            up: Vec3::new(0.0, 2.0, 0.0),
            ..Default::default()
        },
        ControllerOptions {
            up: Vec3::NAN,
            ..Default::default()
        },
        ControllerOptions {
            max_slope: 90f32.to_radians(),
            ..Default::default()
        },
        ControllerOptions {
            max_slope: -0.1,
            ..Default::default()
        },
        ControllerOptions {
            max_step_height: -0.1,
            ..Default::default()
        },
        ControllerOptions {
            min_step_width: f32::INFINITY,
            ..Default::default()
        },
        ControllerOptions {
            snap_distance: f32::NAN,
            ..Default::default()
        },
    ];
    for o in bad {
        let mut c = CharacterController::new(o);
        let moved = c.move_character(
            &flat.world,
            (&capsule, pose),
            Vec3::X,
            QueryFilter::ALL,
            |_| true,
        );
        assert!(moved.is_err(), "{o:?} accepted");
        assert!(
            c.ground(&flat.world, (&capsule, &pose), QueryFilter::ALL)
                .is_err()
        );
    }
    let mut c = controller(0.35, 0.2);
    let motion = Vec3::new(f32::NAN, 0.0, 0.0);
    assert!(
        c.move_character(
            &flat.world,
            (&capsule, pose),
            motion,
            QueryFilter::ALL,
            |_| true
        )
        .is_err()
    );
    let probe = c.probe_ground(&flat.world, (&capsule, pose), -1.0, QueryFilter::ALL);
    assert!(probe.is_err());
    // Standing on the floor: ground at once, a probe that does not move.
    let g = c
        .ground(&flat.world, (&capsule, &pose), QueryFilter::ALL)
        .expect("ground");
    let g = g.expect("on the floor");
    assert!(
        (g.normal - Vec3::Y).length() < 1e-4 && (g.gap - SKIN).abs() < 1e-4,
        "{g:?}"
    );
    let high = Pose::from_translation(Vec3::new(0.0, REST + 0.15, 0.0));
    let (at, g) = c
        .probe_ground(&flat.world, (&capsule, high), 0.2, QueryFilter::ALL)
        .expect("probe")
        .expect("ground within 0.2");
    assert!(
        (g.distance - 0.15).abs() < SKIN && (at.translation.y - REST).abs() < SKIN,
        "{g:?} {at:?}"
    );
    let none = c
        .probe_ground(&flat.world, (&capsule, high), 0.1, QueryFilter::ALL)
        .expect("probe");
    assert!(none.is_none());
}

/// A character standing still on a kinematic box (top at 0, 3 across)
/// whose pose at frame `i` is `at(i)`: carried (the start pose moved by
/// `platform_motion` once the box has moved) and then moved by gravity
/// alone. Asserts it stays on the box, out of it, and returns its poses.
fn ride(at: impl Fn(usize) -> Pose, frames: usize, carry: bool) -> Vec<Pose> {
    let mut world = CollisionWorld::default();
    let (half, _) = block(-1.5, 1.5, 0.0);
    let deck = SharedShape::cuboid(half).expect("cuboid");
    let platform = world.add_body(BodyDesc::new(deck.clone()));
    world.set_pose(platform, at(0)).expect("pose");
    let _ = world.step();
    let capsule = SharedShape::capsule(R, 0.6).expect("capsule");
    let mut c = controller(0.0, 0.2);
    let mut pose = Pose::from_translation(Vec3::new(0.5, REST, 0.0));
    let mut poses = vec![pose];
    for i in 1..=frames {
        world.set_pose(platform, at(i)).expect("pose");
        let _ = world.step();
        if carry {
            pose.translation += platform_motion(&at(i - 1), &at(i), pose.translation);
        }
        let out = c
            .move_character(
                &world,
                (&capsule, pose),
                Vec3::ZERO,
                QueryFilter::ALL,
                |_| true,
            )
            .expect("move");
        let ground = out.ground.expect("on the platform");
        assert_eq!(ground.body, platform);
        let gap = distance(&capsule, &out.pose, &deck, &at(i)).expect("distance");
        assert!(gap > SKIN / 8.0, "frame {i}: gap {gap}");
        pose = out.pose;
        poses.push(pose);
    }
    poses
}

#[test]
fn a_moving_turning_platform_carries_the_character() {
    // 1 m/s along x and 30°/s about y, the top at 0.
    let at = |i: usize| {
        let t = i as f32 / 60.0;
        Pose::new(
            Quat::from_rotation_y(t * 30f32.to_radians()),
            Vec3::new(t, -0.5, 0.0),
        )
    };
    let poses = ride(at, 60, true);
    let (first, last) = (poses[0].translation, poses[60].translation);
    let (was, now) = (
        at(0).inverse().transform_point(first),
        at(60).inverse().transform_point(last),
    );
    assert!(
        (now - was).length() < 2.0 * SKIN,
        "{now} on the platform, was {was}"
    );
    eprintln!("platform: carried to {last}, on it at {now} (was {was})");
}

#[test]
fn an_elevator_carries_the_character_up_and_down() {
    // Up at 1 m/s for a second (pushed up, it would be lifted anyway),
    // then down at 15 m/s, 0.25 a frame: further than the snap distance,
    // only the carry keeps it on the deck.
    let top = |i: usize| {
        if i <= 60 {
            i as f32 / 60.0
        } else {
            1.0 - 0.25 * (i - 60) as f32
        }
    };
    let elevator = |i| Pose::from_translation(Vec3::new(0.0, top(i) - 0.5, 0.0));
    let poses = ride(elevator, 64, true);
    for (i, p) in poses.iter().enumerate() {
        let above = p.translation.y - top(i);
        assert!(
            (above - REST).abs() < SKIN,
            "frame {i}: {above} above the deck"
        );
        assert!((p.translation.x - 0.5).abs() < 1e-4, "frame {i}: {p:?}");
    }
}
