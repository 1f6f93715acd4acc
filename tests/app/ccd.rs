//! Continuous detection against brute force.
//!
//! - A small sphere shot at a one-triangle wall (and at a thin box) at 1 to
//!   1000 sizes per step: with continuous detection every crossing starts a
//!   touch (and ends it the step after); without it, the fast ones tunnel.
//! - Random scenes of every kind of shape, some bodies with continuous
//!   detection, all jumping and turning far each step: every step the
//!   world's touching pairs (from its events) equal the reference: pairs
//!   that intersect at their current poses, or (with a body with
//!   continuous detection that moved) whose cast over the step hits after
//!   time 0, or at time 0 overlapping when they did not intersect at the
//!   step's start, by the one-shot queries on every pair (static pairs
//!   skipped).
//! - `SweptCcd` from an app: a fast ball through a wall gets a
//!   `CollisionStart`.

use std::collections::BTreeSet;

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::query::{ShapeCastOptions, cast_shapes_nonlinear, intersects};
use bevy_icollide::testkit::{Rng, sphere_hull, torus};
use glam::{Quat, Vec3};

fn wall() -> SharedShape {
    SharedShape::trimesh(
        vec![
            Vec3::new(0.0, -5.0, -5.0),
            Vec3::new(0.0, 5.0, -5.0),
            Vec3::new(0.0, 0.0, 5.0),
        ],
        vec![[0, 1, 2]],
    )
    .expect("one triangle")
}

/// Shoots a sphere of diameter 0.1 along +x through `target` at `sizes`
/// diameters per step; the steps at which a touch starts and ends.
fn shoot(target: SharedShape, sizes: f32, ccd: bool) -> (Vec<usize>, Vec<usize>) {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let mut w = BodyDesc::new(target);
    w.is_static = true;
    let w = world.add_body(w);
    world.set_pose(w, Pose::IDENTITY).expect("pose");
    let mut ball = BodyDesc::new(SharedShape::sphere(0.05).expect("sphere"));
    ball.ccd = ccd;
    let ball = world.add_body(ball);
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    // Two steps before the wall, 0.37 steps short of it.
    let start = -2.37 * sizes * 0.1;
    for step in 0..8 {
        let x = start + step as f32 * sizes * 0.1;
        world
            .set_pose(ball, Pose::from_translation(Vec3::new(x, 0.3, -0.2)))
            .expect("pose");
        for e in world.step() {
            if e.started {
                starts.push(step)
            } else {
                ends.push(step)
            }
        }
    }
    (starts, ends)
}

#[test]
fn a_fast_sphere_never_tunnels_through_a_thin_wall_with_continuous_detection() {
    let slab = SharedShape::cuboid(Vec3::new(0.005, 5.0, 5.0)).expect("slab");
    for target in [wall(), slab] {
        let mut tunnelled = 0;
        for sizes in [1.0f32, 3.0, 10.0, 100.0, 1000.0] {
            let (starts, ends) = shoot(target.clone(), sizes, true);
            assert_eq!(starts.len(), 1, "{sizes} sizes per step: starts {starts:?}");
            assert_eq!(ends.len(), 1, "{sizes}: ends {ends:?}");
            assert!(ends[0] > starts[0]);
            let (starts, _) = shoot(target.clone(), sizes, false);
            tunnelled += usize::from(starts.is_empty());
        }
        assert!(
            tunnelled >= 3,
            "without continuous detection the fast shots tunnel"
        );
    }
}

fn kinds(rng: &mut Rng) -> Vec<SharedShape> {
    let (v, t) = torus(0.5, 0.15, 10, 6);
    let pieces = vec![
        CompoundPiece {
            pose: Pose::from_translation(Vec3::X * -0.3),
            shape: sphere_hull(rng, 10, 0.3),
        },
        CompoundPiece {
            pose: Pose::new(rng.rotation(), Vec3::X * 0.3),
            shape: SharedShape::capsule(0.1, 0.4).expect("capsule"),
        },
    ];
    vec![
        sphere_hull(rng, 16, 0.4),
        SharedShape::sphere(0.15).expect("sphere"),
        SharedShape::capsule(0.08, 0.6).expect("capsule"),
        SharedShape::trimesh(v, t).expect("torus"),
        SharedShape::cuboid(Vec3::new(0.02, 0.8, 0.8)).expect("thin slab"),
        SharedShape::compound(pieces).expect("compound"),
    ]
}

struct Body {
    id: BodyHandle,
    shape: SharedShape,
    ccd: bool,
    is_static: bool,
    pose: Pose,
    before: Pose,
}

/// The reference touching set of a step (see the module docs).
fn reference(bodies: &[Body]) -> BTreeSet<[BodyHandle; 2]> {
    let mut out = BTreeSet::new();
    let motion = |b: &Body| {
        if b.ccd && b.before != b.pose {
            RigidMotion::between(&b.before, &b.pose, b.shape.local_aabb().center())
        } else {
            RigidMotion::stationary(b.pose)
        }
    };
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            if a.is_static && b.is_static {
                continue;
            }
            let mut touch = intersects(&a.shape, &a.pose, &b.shape, &b.pose).expect("valid");
            let swept = (a.ccd && a.before != a.pose) || (b.ccd && b.before != b.pose);
            if !touch && swept {
                let hit = cast_shapes_nonlinear(
                    (&a.shape, &motion(a)),
                    (&b.shape, &motion(b)),
                    &ShapeCastOptions::default(),
                )
                .expect("valid");
                // A touch at time 0 is new when the shapes overlap there
                // and did not at the step's start.
                let was = || intersects(&a.shape, &a.before, &b.shape, &b.before).expect("valid");
                touch = hit.is_some_and(|h| !h.started_touching || (h.distance <= 0.0 && !was()));
            }
            if touch {
                out.insert([a.id.min(b.id), a.id.max(b.id)]);
            }
        }
    }
    out
}

#[test]
fn continuous_detection_equals_casting_every_pair_over_every_step() {
    let mut rng = Rng::new(21);
    let shapes = kinds(&mut rng);
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let mut bodies: Vec<Body> = (0..36)
        .map(|i| {
            let shape = shapes[i % shapes.len()].clone();
            let mut desc = BodyDesc::new(shape.clone());
            desc.ccd = rng.below(2) == 0;
            desc.is_static = rng.below(6) == 0;
            let pose = Pose::new(rng.rotation(), rng.in_cube(3.0));
            let id = world.add_body(desc.clone());
            world.set_pose(id, pose).expect("pose");
            Body {
                id,
                shape,
                ccd: desc.ccd,
                is_static: desc.is_static,
                pose,
                before: pose,
            }
        })
        .collect();
    let mut touching: BTreeSet<[BodyHandle; 2]> = world
        .step()
        .map(|e| [e.bodies[0].min(e.bodies[1]), e.bodies[0].max(e.bodies[1])])
        .collect();
    assert_eq!(touching, reference(&bodies), "first step");
    let (mut swept_only, mut total) = (0, 0);
    for step in 0..60 {
        for b in bodies.iter_mut() {
            b.before = b.pose;
            if !b.is_static && rng.below(3) != 0 {
                let jump = rng.in_cube(1.5);
                let turn = Quat::from_axis_angle(rng.unit_vector(), rng.range(0.0, 2.5));
                let mut to = b.pose.translation + jump;
                to = to.clamp(Vec3::splat(-3.0), Vec3::splat(3.0));
                b.pose = Pose::new((turn * b.pose.rotation).normalize(), to);
                world.set_pose(b.id, b.pose).expect("pose");
            }
        }
        for e in world.step() {
            let key = [e.bodies[0].min(e.bodies[1]), e.bodies[0].max(e.bodies[1])];
            if e.started {
                assert!(touching.insert(key), "step {step}: {key:?} started twice");
            } else {
                assert!(
                    touching.remove(&key),
                    "step {step}: {key:?} ended untouched"
                );
            }
        }
        let want = reference(&bodies);
        assert_eq!(touching, want, "step {step}");
        let discrete = bodies
            .iter()
            .enumerate()
            .flat_map(|(i, a)| bodies[i + 1..].iter().map(move |b| (a, b)))
            .filter(|(a, b)| intersects(&a.shape, &a.pose, &b.shape, &b.pose).expect("valid"))
            .count();
        swept_only += want.len().saturating_sub(discrete);
        total += want.len();
    }
    assert!(
        swept_only >= 20 && total >= 100,
        "{swept_only} swept-only touches of {total}"
    );
}

#[test]
fn swept_ccd_from_an_app_catches_a_ball_through_a_wall() {
    use bevy_app::prelude::*;
    use bevy_ecs::prelude::*;
    use bevy_icollide::prelude::*;
    use bevy_transform::prelude::*;

    #[derive(Resource, Default)]
    struct Starts(Vec<(Entity, Entity)>);

    for ccd in [true, false] {
        let mut app = App::new();
        app.add_plugins((
            bevy_transform::TransformPlugin,
            CollisionPlugin::default().with_messages_for_all_pairs(),
        ))
        .init_resource::<Starts>()
        .add_systems(
            Update,
            |mut starts: MessageReader<CollisionStart>, mut seen: ResMut<Starts>| {
                seen.0
                    .extend(starts.read().map(|e| (e.collider1, e.collider2)));
            },
        );
        app.world_mut().spawn((
            Collider::cuboid(0.02, 6.0, 6.0),
            Transform::default(),
            StaticCollider,
        ));
        let ball = app
            .world_mut()
            .spawn((Collider::sphere(0.1), Transform::from_xyz(-2.0, 0.0, 0.0)))
            .id();
        if ccd {
            app.world_mut().entity_mut(ball).insert(SweptCcd);
        }
        for x in [-2.0, 3.0, 8.0, 13.0] {
            app.world_mut()
                .get_mut::<Transform>(ball)
                .expect("ball")
                .translation
                .x = x;
            app.update();
        }
        let starts = &app.world().resource::<Starts>().0;
        assert_eq!(starts.len(), usize::from(ccd), "ccd {ccd}: {starts:?}");
    }
}
