//! Move and slide (`character::Slider`) against references that do not
//! use its code.
//!
//! The references are the one-shot exact queries `query::distance` and
//! `query::intersects` on each body in turn (Lin–Canny for polytopes,
//! closed forms for spheres and capsules, the OBB trees' exact triangle
//! tests and branch and bound for meshes; each checked against `f64`
//! brute force in its own suite). The slide uses none of them: its touches
//! are GJK distances and EPA depths per convex part (mesh triangles one
//! by one), its motion the world's conservative-advancement shape cast,
//! its candidates the broad phase.
//!
//! - Random scenes of every kind (cuboids, hulls, spheres, capsules, a
//!   bumpy mesh and a torus mesh, compounds of convex pieces or with a
//!   mesh piece, rounded boxes) on a tilted half-space ground (height
//!   fields are not: the shape cast refuses them), the sliding shape of
//!   every kind too, random motions from a hundredth to a thousand times
//!   the scene's size per step: after each step the shape is more than an
//!   eighth of the skin from everything (deeper than the skin is far from
//!   it), its straight path
//!   segments touch nothing at steps of a quarter of its smallest extent
//!   (no tunnelling), and when it stopped short of the motion something is
//!   within two skins of it.
//! - The first stop of a straight motion (the callback stops at the first
//!   touch) is where the exact distance, sphere-traced along the motion,
//!   first comes within the cast's target, backed up by at most the skin.
//! - Behaviour: sliding along a wall keeps the tangential motion (also
//!   grazing it, and far from the origin); a crease (two boxes, or one
//!   mesh) stops the motion into both planes; a corner stops everything; a
//!   start overlapping two boxes is pushed out of both and stays put (no
//!   jitter); a ball resting on a slope does not drift; a capsule walking a
//!   bumpy 4608-triangle mesh floor stays on it without entering it; a
//!   cube slides over the seams of a row of boxes (identity poses, tops
//!   2⁻²⁴ apart) without being lifted; scaled and deformed mesh floors are slid on as they are
//!   (= a mesh built at that size); a ball wedged between two walls is
//!   stuck and stays.
//! - Bad input (pose, motion, skin) is refused; the filter is kept.

use bevy_icollide::character::{SlideOptions, Slider, Touch};
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, QueryFilter};
use bevy_icollide::query::{distance, intersects};
use bevy_icollide::testkit::{Rng, grid, long_factor, sphere_hull, torus};
use glam::{Quat, Vec3};

/// A world of static bodies, and the bodies for the references.
struct Scene {
    world: CollisionWorld,
    bodies: Vec<(SharedShape, Pose)>,
    handles: Vec<BodyHandle>,
}

impl Scene {
    /// Static cubes: `(half side, center)` each.
    fn cubes(cubes: &[(f32, [f32; 3])]) -> Scene {
        let bodies = cubes.iter().map(|&(h, c)| {
            let pose = Pose::from_translation(Vec3::from_array(c));
            (cuboid(Vec3::splat(h)), pose)
        });
        Scene::new(bodies.collect())
    }

    fn new(bodies: Vec<(SharedShape, Pose)>) -> Scene {
        let mut world = CollisionWorld::default();
        let mut handles = Vec::new();
        for (shape, pose) in &bodies {
            let mut desc = BodyDesc::new(shape.clone());
            desc.is_static = true;
            let h = world.add_body(desc);
            world.set_pose(h, *pose).expect("pose");
            handles.push(h);
        }
        let _ = world.step();
        Scene {
            world,
            bodies,
            handles,
        }
    }

    /// The exact distance from `shape` at `pose` to the nearest body.
    fn gap(&self, shape: &SharedShape, pose: &Pose) -> f32 {
        self.bodies
            .iter()
            .map(|(s, p)| distance(shape, pose, s, p).expect("distance"))
            .fold(f32::INFINITY, f32::min)
    }

    /// Whether `shape` at `pose` touches a body, exactly (the bodies whose
    /// boxes its box overlaps).
    fn touches(&self, shape: &SharedShape, pose: &Pose) -> bool {
        let b = shape.local_aabb().transformed(pose);
        self.bodies.iter().any(|(s, p)| {
            s.local_aabb().transformed(p).overlaps(&b)
                && intersects(shape, pose, s, p).expect("intersects")
        })
    }
}

fn cuboid(h: Vec3) -> SharedShape {
    SharedShape::cuboid(h).expect("cuboid")
}

fn mesh((v, t): (Vec<Vec3>, Vec<[u32; 3]>)) -> SharedShape {
    SharedShape::trimesh(v, t).expect("mesh")
}

/// A random shape of kind `k` (0..8) about `size` across.
fn shape_of_kind(k: usize, size: f32, rng: &mut Rng) -> SharedShape {
    let piece = |shape, x: f32, rng: &mut Rng| CompoundPiece {
        pose: Pose::new(rng.rotation(), Vec3::new(x, 0.0, 0.0)),
        shape,
    };
    match k {
        0 => cuboid(rng.vec(0.2, 0.5) * size),
        1 => sphere_hull(rng, 16, 0.5 * size),
        2 => SharedShape::sphere(rng.range(0.2, 0.5) * size).expect("sphere"),
        3 => SharedShape::capsule(0.2 * size, rng.range(0.2, 0.6) * size).expect("capsule"),
        4 => mesh(torus(0.35 * size, 0.12 * size, 10, 6)),
        5 => {
            let (v, t) = grid(4, |x, z| 0.3 * (3.0 * x).sin() * z);
            mesh((v.into_iter().map(|p| p * 0.5 * size).collect(), t))
        }
        6 => {
            // Convex pieces, or a convex piece and a mesh piece.
            let second = if rng.bool() {
                SharedShape::capsule(0.1 * size, 0.3 * size).expect("capsule")
            } else {
                mesh(torus(0.15 * size, 0.06 * size, 8, 5))
            };
            SharedShape::compound(vec![
                piece(sphere_hull(rng, 10, 0.25 * size), -0.25 * size, rng),
                piece(second, 0.25 * size, rng),
            ])
            .expect("compound")
        }
        _ => SharedShape::round_cuboid(rng.vec(0.1, 0.4) * size, rng.range(0.05, 0.15) * size)
            .expect("round cuboid"),
    }
}

/// Twelve bodies of every kind in a cube of half side 3, on a tilted
/// half-space ground through the cube's lower part (the thirteenth).
fn random_scene(rng: &mut Rng) -> Scene {
    let mut bodies: Vec<_> = (0..12)
        .map(|i| {
            let s = shape_of_kind(i % 8, rng.range(0.8, 2.0), rng);
            (s, Pose::new(rng.rotation(), rng.in_cube(3.0)))
        })
        .collect();
    let tilt = Quat::from_axis_angle(rng.unit_vector(), rng.range(0.0, 0.3));
    let ground = SharedShape::half_space(Vec3::Y).expect("half-space");
    bodies.push((ground, Pose::new(tilt, Vec3::new(0.0, -2.5, 0.0))));
    Scene::new(bodies)
}

/// A pose of `shape` at least `clear` from every body, in the scene's cube.
fn free_pose(scene: &Scene, shape: &SharedShape, clear: f32, rng: &mut Rng) -> Pose {
    loop {
        let pose = Pose::new(rng.rotation(), rng.in_cube(3.5));
        if scene.gap(shape, &pose) >= clear {
            return pose;
        }
    }
}

/// Checks that no straight segment of the path touches a body, sampled at
/// steps of `step` inside the scene's box (outside it nothing is met).
fn assert_path_clear(scene: &Scene, shape: &SharedShape, rot: Quat, path: &[Vec3], step: f32) {
    let inside = |p: Vec3| p.abs().max_element() < 7.0;
    for w in path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let n = (((b - a).length() / step).ceil() as usize).clamp(1, 1 << 20);
        for i in 0..=n {
            let p = a.lerp(b, i as f32 / n as f32);
            if inside(p) {
                let pose = Pose::new(rot, p);
                assert!(
                    !scene.touches(shape, &pose),
                    "the path touches at {p} ({a} -> {b})"
                );
            }
        }
    }
}

#[test]
fn random_scenes_never_enter_never_tunnel_never_stop_short() {
    let skin = 0.02;
    let mut min_gap = f32::INFINITY;
    let (mut stops, mut steps, mut touches, mut slid) = (0, 0, 0, 0);
    // Touches of the ground and of the rounded box (body 7).
    let (mut grounded, mut rounded) = (0, 0);
    for seed in 0..(10 * long_factor()) as u64 {
        let mut rng = Rng::new(0x51de + seed);
        let scene = random_scene(&mut rng);
        let (ground, round) = (scene.handles[12], scene.handles[7]);
        for kind in 0..8 {
            let shape = shape_of_kind(kind, 0.5, &mut rng);
            let mut pose = free_pose(&scene, &shape, skin, &mut rng);
            let thin = shape.local_aabb().half_extents().min_element().max(0.02);
            let mut slider = Slider::new(SlideOptions {
                skin,
                max_iterations: 6,
                ..Default::default()
            });
            for i in 0..10 {
                if pose.translation.abs().max_element() > 4.0 {
                    pose = free_pose(&scene, &shape, skin, &mut rng);
                }
                // Aimed at a body, at speeds from a hundredth of the scene
                // to a thousand scenes per step.
                let speed = [0.05, 1.0, 30.0, 3000.0][(i + kind) % 4];
                let toward = scene.bodies[rng.below(12)].1.translation + rng.in_cube(1.0);
                let motion = (toward - pose.translation).normalize() * speed * rng.range(0.5, 1.0);
                let mut touched = 0;
                let out = slider
                    .move_and_slide(
                        &scene.world,
                        (&shape, pose),
                        motion,
                        QueryFilter::ALL,
                        |t| {
                            touched += 1;
                            grounded += (t.body == ground) as usize;
                            rounded += (t.body == round) as usize;
                            true
                        },
                    )
                    .expect("slide");
                assert!(!out.stuck, "seed {seed} kind {kind} step {i}");
                assert_path_clear(&scene, &shape, pose.rotation, slider.path(), 0.5 * thin);
                let gap = scene.gap(&shape, &out.pose);
                // Each cast keeps half the smallest gap it starts with, a
                // start closer than half a skin is pushed out first: an
                // eighth of the skin leaves room for three casts in a row
                // that each halve it (the smallest seen is 3/4 of it).
                assert!(
                    gap > skin / 8.0,
                    "seed {seed} kind {kind} step {i}: gap {gap}"
                );
                min_gap = min_gap.min(gap);
                steps += 1;
                touches += (touched > 0) as usize;
                // The motion not taken (after projections onto the planes
                // touched): only where something is within two skins.
                let short = out.remaining.length();
                if short > 1e-4 * speed {
                    stops += 1;
                    assert!(
                        gap <= 2.0 * skin + 1e-4,
                        "stopped {short} short with a gap {gap}"
                    );
                }
                slid += ((out.translation - out.depenetration - motion).length() > 1e-4 * speed)
                    as usize;
                pose = out.pose;
            }
        }
    }
    assert!(
        slid > steps / 4 && touches > steps / 3 && grounded > 0 && rounded > 0,
        "{slid} slid, {touches} touched, {grounded} ground and {rounded} rounded box touches"
    );
    eprintln!(
        "slide: {steps} steps, {touches} with touches ({grounded} ground and {rounded} rounded \
         box touches), {slid} slid, {stops} stopped short, smallest gap {min_gap} (skin {skin})"
    );
}

#[test]
fn the_first_stop_is_where_the_exact_distance_reaches_the_target() {
    let skin = 0.02;
    let target = 0.5 * skin;
    let mut checked = 0;
    for seed in 0..(6 * long_factor()) as u64 {
        let mut rng = Rng::new(0xf1257 + seed);
        let scene = random_scene(&mut rng);
        for kind in 0..7 {
            let shape = shape_of_kind(kind, 0.5, &mut rng);
            let pose = free_pose(&scene, &shape, 3.0 * skin, &mut rng);
            let toward = scene.bodies[rng.below(12)].1.translation + rng.in_cube(0.5);
            let motion = (toward - pose.translation) * rng.range(1.0, 3.0);
            let mut slider = Slider::new(SlideOptions {
                skin,
                ..Default::default()
            });
            let out = slider
                .move_and_slide(
                    &scene.world,
                    (&shape, pose),
                    motion,
                    QueryFilter::ALL,
                    |_| false,
                )
                .expect("slide");
            let travelled = (out.pose.translation - pose.translation).length();
            let (len, dir) = (motion.length(), motion.normalize());
            // Sphere tracing: the distance changes at most as fast as the
            // shape moves, so a step of (gap - level) never passes it.
            let first_within = |level: f32| {
                let mut l = 0.0f32;
                loop {
                    let at = Pose::new(pose.rotation, pose.translation + dir * l);
                    let d = scene.gap(&shape, &at) - level;
                    if d <= 1e-6 || l > len {
                        return l.min(len);
                    }
                    l += d;
                }
            };
            let (late, early) = (first_within(target), first_within(1.25 * target));
            if !out.stopped {
                assert!(
                    early >= len - 1e-4,
                    "no touch reported, yet the path meets a body at {early}"
                );
                continue;
            }
            checked += 1;
            let tol = 2e-4 * (1.0 + pose.translation.length());
            assert!(
                travelled <= late + tol,
                "seed {seed} kind {kind}: {travelled} past {late}"
            );
            assert!(
                travelled >= early - skin - tol,
                "seed {seed} kind {kind}: {travelled} short of {early}"
            );
        }
    }
    assert!(checked > 20, "only {checked} stops checked");
}

/// A sphere of radius 0.25 and a slider of skin 0.01.
fn ball() -> (SharedShape, Slider) {
    let opts = SlideOptions {
        skin: 0.01,
        ..Default::default()
    };
    (
        SharedShape::sphere(0.25).expect("sphere"),
        Slider::new(opts),
    )
}

fn slide(
    scene: &Scene,
    (shape, slider): (&SharedShape, &mut Slider),
    from: Vec3,
    motion: Vec3,
) -> Vec3 {
    let pose = Pose::from_translation(from);
    let out = slider
        .move_and_slide(
            &scene.world,
            (shape, pose),
            motion,
            QueryFilter::ALL,
            |_| true,
        )
        .expect("slide");
    out.pose.translation
}

#[test]
fn sliding_along_a_wall_keeps_the_tangential_motion() {
    let wall = Scene::new(vec![(
        cuboid(Vec3::new(0.5, 5.0, 5.0)),
        Pose::from_translation(Vec3::X * 1.5),
    )]);
    let (shape, mut slider) = ball();
    let end = slide(
        &wall,
        (&shape, &mut slider),
        Vec3::ZERO,
        Vec3::new(2.0, 0.0, 1.0),
    );
    // Stopped inside the skin from the wall (x = 1 - 0.25 - gap), by at
    // most the casts' tolerance (gap in [0.84, 0.97] skins), z all the way.
    let gap = 0.75 - end.x;
    assert!((0.0084..0.01).contains(&gap), "{end}");
    assert!((end.z - 1.0).abs() < 1e-4 && end.y.abs() < 1e-5, "{end}");
    // At a thousand times the speed: the same wall, no tunnelling.
    let end = slide(
        &wall,
        (&shape, &mut slider),
        Vec3::ZERO,
        Vec3::new(2000.0, 0.0, 1.0),
    );
    assert!(end.x < 0.75 && end.x > 0.73, "{end}");
    assert!((end.z - 1.0).abs() < 1e-3, "{end}");
}

fn crease_scenes() -> [Scene; 2] {
    let boxes = vec![
        (
            cuboid(Vec3::new(5.0, 0.5, 5.0)),
            Pose::from_translation(Vec3::new(0.0, -0.5, 0.0)),
        ),
        (
            cuboid(Vec3::new(0.5, 5.0, 5.0)),
            Pose::from_translation(Vec3::new(1.5, 0.0, 0.0)),
        ),
    ];
    // The same floor (y = 0) and wall (x = 1) as one mesh of four triangles.
    let v = vec![
        Vec3::new(-5.0, 0.0, -5.0),
        Vec3::new(1.0, 0.0, -5.0),
        Vec3::new(1.0, 0.0, 5.0),
        Vec3::new(-5.0, 0.0, 5.0),
        Vec3::new(1.0, 5.0, -5.0),
        Vec3::new(1.0, 5.0, 5.0),
    ];
    let t = vec![[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 2]];
    [
        Scene::new(boxes),
        Scene::new(vec![(mesh((v, t)), Pose::IDENTITY)]),
    ]
}

#[test]
fn a_crease_stops_the_motion_into_both_planes() {
    for scene in crease_scenes() {
        let (shape, mut slider) = ball();
        let end = slide(
            &scene,
            (&shape, &mut slider),
            Vec3::new(0.0, 0.3, 0.0),
            Vec3::new(3.0, -3.0, 0.5),
        );
        assert!(
            (end.x - 0.74).abs() < 2e-3 && (end.y - 0.26).abs() < 2e-3,
            "{end}"
        );
        assert!((end.z - 0.5).abs() < 1e-4, "{end}");
        assert!(scene.gap(&shape, &Pose::from_translation(end)) > 0.005);
    }
}

#[test]
fn a_corner_of_three_planes_stops_everything() {
    let scene = Scene::cubes(&[
        (5.0, [0.0, -5.0, 0.0]),
        (5.0, [6.0, 0.0, 0.0]),
        (5.0, [0.0, 0.0, 6.0]),
    ]);
    let (shape, mut slider) = ball();
    let end = slide(
        &scene,
        (&shape, &mut slider),
        Vec3::new(0.0, 0.5, 0.0),
        Vec3::new(2.0, -2.0, 2.0),
    );
    let want = Vec3::new(0.74, 0.26, 0.74);
    assert!((end - want).abs().max_element() < 2e-3, "{end}");
}

#[test]
fn a_start_overlapping_two_boxes_is_pushed_out_of_both_and_stays() {
    // A floor (y <= 0) and a wall (x >= 0.5); the ball (radius 0.25)
    // overlaps both by 0.05.
    let scene = Scene::cubes(&[(1.0, [0.0, -1.0, 0.0]), (1.0, [1.5, 0.0, 0.0])]);
    let (shape, mut slider) = ball();
    let start = Pose::from_translation(Vec3::new(0.3, 0.2, 0.0));
    assert!(scene.touches(&shape, &start));
    let mut touched = Vec::new();
    let out = slider
        .move_and_slide(
            &scene.world,
            (&shape, start),
            Vec3::ZERO,
            QueryFilter::ALL,
            |t: &Touch| {
                touched.push(t.body);
                true
            },
        )
        .expect("slide");
    assert!(!out.stuck);
    for (s, p) in &scene.bodies {
        let d = distance(&shape, &out.pose, s, p).expect("distance");
        assert!((0.008..=0.012).contains(&d), "{d}: {:?}", out);
    }
    assert_eq!(touched.len(), 2);
    // Again from there: nothing moves (no jitter).
    let again = slider
        .move_and_slide(
            &scene.world,
            (&shape, out.pose),
            Vec3::ZERO,
            QueryFilter::ALL,
            |_| true,
        )
        .expect("slide");
    assert_eq!(again.translation, Vec3::ZERO);
    // One deep in the wall (0.2) comes out of it.
    let deep = Pose::from_translation(Vec3::new(0.55, 0.3, 0.0));
    let out = slider
        .move_and_slide(
            &scene.world,
            (&shape, deep),
            Vec3::ZERO,
            QueryFilter::ALL,
            |_| true,
        )
        .expect("slide");
    assert!(!scene.touches(&shape, &out.pose), "{:?}", out);
}

#[test]
fn far_from_the_origin_and_grazing_a_wall() {
    for far in [Vec3::ZERO, Vec3::new(1e4, -1e4, 1e4)] {
        let wall = Scene::new(vec![(
            cuboid(Vec3::new(0.5, 5.0, 50.0)),
            Pose::from_translation(far + Vec3::X * 1.5),
        )]);
        let (shape, mut slider) = ball();
        // Start exactly a skin from the wall, then slide along it, grazing
        // (a hundredth of the motion into it) for 40 steps.
        let mut p = far + Vec3::new(0.74, 0.0, -20.0);
        for _ in 0..40 {
            let next = slide(&wall, (&shape, &mut slider), p, Vec3::new(0.01, 0.0, 1.0));
            assert!((next.z - p.z - 1.0).abs() < 2e-3, "{p} -> {next}");
            p = next;
            let gap = wall.gap(&shape, &Pose::from_translation(p));
            assert!((0.0045..=0.0105).contains(&gap), "{gap} at {p}");
        }
    }
}

#[test]
fn resting_on_a_slope_does_not_drift() {
    let tilt = Quat::from_rotation_z(0.5);
    let slope = Scene::new(vec![(
        cuboid(Vec3::new(5.0, 0.5, 5.0)),
        Pose::new(tilt, Vec3::ZERO),
    )]);
    let (shape, mut slider) = ball();
    let up = tilt * Vec3::Y;
    // At rest a skin above the slope, and pushed straight into it.
    let rest = up * (0.5 + 0.25 + 0.01);
    for motion in [Vec3::ZERO, -up * 0.3] {
        let mut p = rest;
        for _ in 0..50 {
            p = slide(&slope, (&shape, &mut slider), p, motion);
        }
        assert!((p - rest).length() < 1e-5, "{p} from {rest}");
    }
    // Gravity slides it down the slope, along it, and it stays a skin off.
    let p = slide(
        &slope,
        (&shape, &mut slider),
        rest,
        Vec3::new(0.0, -0.3, 0.0),
    );
    let along = tilt * Vec3::X;
    assert!((p - rest).dot(up).abs() < 1e-4, "{p}");
    assert!(
        ((p - rest).dot(along) - (-0.3 * along.y)).abs() < 1e-4,
        "{p}"
    );
}

#[test]
fn bad_input_is_refused_and_the_filter_is_kept() {
    let wall = Scene::new(vec![(
        cuboid(Vec3::new(0.5, 5.0, 5.0)),
        Pose::from_translation(Vec3::X * 1.5),
    )]);
    let (shape, mut slider) = ball();
    let run = |slider: &mut Slider, pose: Pose, motion: Vec3, filter: QueryFilter<'_>| {
        slider.move_and_slide(&wall.world, (&shape, pose), motion, filter, |_| true)
    };
    let bad_pose = Pose::new(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0), Vec3::ZERO);
    for (pose, motion) in [
        (bad_pose, Vec3::X),
        (Pose::IDENTITY, Vec3::NAN),
        (Pose::IDENTITY, Vec3::INFINITY),
    ] {
        assert!(run(&mut slider, pose, motion, QueryFilter::ALL).is_err());
    }
    for skin in [0.0, -0.01, f32::NAN, f32::INFINITY, 1e-9] {
        slider.options.skin = skin;
        let err = run(&mut slider, Pose::IDENTITY, Vec3::X, QueryFilter::ALL).unwrap_err();
        assert!(err.to_string().contains("skin"), "{err}");
    }
    slider.options.skin = 0.01;
    // The wall excluded, or out of the mask: passed through.
    let h = wall.handles[0];
    for filter in [
        QueryFilter::ALL.with_exclude(&[h]),
        QueryFilter::from_mask(0b10),
    ] {
        let out = run(&mut slider, Pose::IDENTITY, Vec3::X * 4.0, filter).expect("slide");
        assert_eq!(out.pose.translation, Vec3::X * 4.0);
    }
}

#[test]
fn a_capsule_walks_a_bumpy_mesh_floor_pressed_to_it() {
    let h = |x: f32, z: f32| 0.3 * (2.0 * x).sin() * (2.0 * z).cos();
    let (v, t) = grid(48, |x, z| h(10.0 * x, 10.0 * z) / 10.0);
    let floor = mesh((v.into_iter().map(|p| p * 10.0).collect(), t));
    let scene = Scene::new(vec![(floor, Pose::IDENTITY)]);
    let capsule = SharedShape::capsule(0.3, 0.6).expect("capsule");
    let skin = 0.01;
    let mut slider = Slider::new(SlideOptions {
        skin,
        ..Default::default()
    });
    let mut pose = Pose::from_translation(Vec3::new(-8.0, 1.0, -8.0));
    let mut triangles = std::collections::BTreeSet::new();
    let mut on_floor = 0;
    let (steps, mut spent) = (400, std::time::Duration::ZERO);
    for i in 0..steps {
        // Walking diagonally, pulled down by gravity.
        let motion = Vec3::new(0.04, -0.02, 0.03);
        let start = std::time::Instant::now();
        let out = slider
            .move_and_slide(
                &scene.world,
                (&capsule, pose),
                motion,
                QueryFilter::ALL,
                |t| {
                    triangles.extend(t.triangle);
                    true
                },
            )
            .expect("slide");
        spent += start.elapsed();
        let gap = scene.gap(&capsule, &out.pose);
        assert!(gap > skin / 8.0, "step {i}: gap {gap}");
        // Either it stands on the floor, or it took all its motion (along
        // the planes touched; where the floor falls away faster than the
        // motion: snapping down is for a character controller).
        let free = out.remaining == Vec3::ZERO;
        assert!(
            gap <= 2.0 * skin || free,
            "step {i}: gap {gap} at {}",
            out.pose.translation
        );
        on_floor += (gap <= 2.0 * skin) as u32;
        assert_path_clear(&scene, &capsule, pose.rotation, slider.path(), 0.1);
        pose = out.pose;
    }
    let per_step = spent / steps;
    let p = pose.translation;
    // It walked (more than half the way: slopes of up to 0.6 take a part
    // of a motion along them), and triangles were reported.
    assert!(p.x > -8.0 + 0.5 * 0.04 * steps as f32, "{p}");
    assert!(triangles.len() > 20, "{} triangles", triangles.len());
    assert!(
        on_floor > steps / 2,
        "on the floor {on_floor} steps of {steps}"
    );
    eprintln!(
        "capsule on a 4608-triangle floor: {per_step:?} per slide, \
         on the floor {on_floor} of {steps} steps, at {p}"
    );
}

#[test]
fn a_cube_slides_over_the_seams_of_a_row_of_boxes() {
    // Ten unit boxes side by side at identity rotations, sharing faces;
    // every other one raised by 2^-24 (a seam the cube must not snag on).
    let bodies = (0..10)
        .map(|i| {
            let y = if i % 2 == 1 {
                -0.5 + 2f32.powi(-24)
            } else {
                -0.5
            };
            (
                cuboid(Vec3::splat(0.5)),
                Pose::from_translation(Vec3::new(i as f32, y, 0.0)),
            )
        })
        .collect();
    let scene = Scene::new(bodies);
    let cube = cuboid(Vec3::splat(0.2));
    let mut slider = Slider::new(SlideOptions {
        skin: 0.01,
        ..Default::default()
    });
    let mut p = Vec3::new(0.0, 0.21, 0.0);
    let mut highest = 0.0f32;
    for _ in 0..80 {
        let out = slider
            .move_and_slide(
                &scene.world,
                (&cube, Pose::from_translation(p)),
                Vec3::new(0.1, -0.05, 0.0),
                QueryFilter::ALL,
                |_| true,
            )
            .expect("slide");
        p = out.pose.translation;
        let gap = scene.gap(&cube, &out.pose);
        // Inside the skin by at most the casts' tolerance, along a motion
        // slanted into the floor (the back-up is along the motion: 0.81
        // skins here), never at the cast's target (half a skin), and not
        // lifted over the seams: the next box's edge, flush with the box
        // under the cube, is not a slanted plane (was lifted up to 2.4
        // skins by it).
        assert!((0.0075..=0.0101).contains(&gap), "gap {gap} at {p}");
        highest = highest.max(gap);
    }
    eprintln!("seams: largest gap {highest} (skin 0.01)");
    // The horizontal motion kept.
    assert!((p.x - 8.0).abs() < 1e-3, "{p}");
}

#[test]
fn scaled_and_deformed_meshes_are_slid_on_as_they_are_now() {
    // A bumpy floor, scaled (2, 1, 3) in one world and deformed to the same
    // vertices in another; the reference is a mesh built at that size.
    let (v, t) = grid(16, |x, z| 0.1 * (4.0 * x).sin() * (3.0 * z).cos());
    let scale = Vec3::new(2.0, 1.0, 3.0);
    let sized: Vec<Vec3> = v.iter().map(|p| *p * scale).collect();
    let reference = Scene::new(vec![(mesh((sized.clone(), t.clone())), Pose::IDENTITY)]);
    let mut scaled = CollisionWorld::default();
    let h = scaled.add_body(BodyDesc::new(mesh((v.clone(), t.clone()))));
    scaled.set_pose(h, Pose::IDENTITY).expect("pose");
    scaled.set_scale(h, scale).expect("scale");
    let mut deformed = CollisionWorld::default();
    let g = deformed.add_body(BodyDesc::new(mesh((v, t))));
    deformed.set_pose(g, Pose::IDENTITY).expect("pose");
    deformed.set_vertices(g, &sized).expect("vertices");
    let ball = SharedShape::sphere(0.2).expect("sphere");
    for world in [&scaled, &deformed] {
        let mut slider = Slider::new(SlideOptions {
            skin: 0.01,
            ..Default::default()
        });
        let mut pose = Pose::from_translation(Vec3::new(-1.5, 0.5, -2.5));
        for i in 0..60 {
            let out = slider
                .move_and_slide(
                    world,
                    (&ball, pose),
                    Vec3::new(0.05, -0.05, 0.08),
                    QueryFilter::ALL,
                    |_| true,
                )
                .expect("slide");
            pose = out.pose;
            let gap = reference.gap(&ball, &pose);
            assert!(gap > 0.004, "step {i}: gap {gap} at {}", pose.translation);
            assert!(
                i < 15 || gap < 0.05,
                "step {i}: gap {gap}, not on the floor"
            );
        }
    }
}

#[test]
fn a_ball_wedged_between_two_walls_is_stuck_and_stays() {
    // Two walls 0.4 apart; the ball is 0.5 across.
    let scene = Scene::cubes(&[(1.0, [-1.2, 0.0, 0.0]), (1.0, [1.2, 0.0, 0.0])]);
    let (shape, mut slider) = ball();
    let start = Pose::from_translation(Vec3::new(0.0, 0.3, 0.0));
    let out = slider
        .move_and_slide(
            &scene.world,
            (&shape, start),
            Vec3::X,
            QueryFilter::ALL,
            |_| true,
        )
        .expect("slide");
    assert!(out.stuck, "{out:?}");
    // Depenetration moved it at most a few skins, and it went no further.
    assert!(out.translation.length() < 0.1, "{out:?}");
    assert_eq!(out.iterations, 0);
}
