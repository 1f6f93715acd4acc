//! Time-to-collision scheduling: a world that skips the pairs that cannot
//! touch yet reports exactly the events of one that tests every moved pair,
//! step for step, on crowded scenes of hulls, cuboids, spheres and capsules
//! (plus a compound and a mesh, which are never scheduled) moving within
//! their declared speed bounds, with some bodies now and then jumping far
//! past their bound (those pairs must wake); and it runs fewer pair tests.
//! A bad bound is refused. From an app, `MaxFrameMotion` with
//! `with_time_to_collision` gives the same events with fewer tests.

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{
    BodyDesc, BodyHandle, CollisionWorld, SpeedBound, WorldConfig, WorldError,
};
use bevy_icollide::testkit::{Rng, sphere_hull, torus};
use glam::{Quat, Vec3};

const HALF: f32 = 4.0;

fn shapes(rng: &mut Rng) -> Vec<SharedShape> {
    let (v, t) = torus(0.4, 0.1, 10, 6);
    let pieces = vec![
        CompoundPiece {
            pose: Pose::from_translation(Vec3::X * -0.25),
            shape: sphere_hull(rng, 10, 0.25),
        },
        CompoundPiece {
            pose: Pose::from_translation(Vec3::X * 0.25),
            shape: SharedShape::sphere(0.2).expect("sphere"),
        },
    ];
    vec![
        sphere_hull(rng, 30, 0.4),
        SharedShape::cuboid(Vec3::new(0.4, 0.2, 0.3)).expect("cuboid"),
        SharedShape::sphere(0.3).expect("sphere"),
        SharedShape::capsule(0.15, 0.5).expect("capsule"),
        sphere_hull(rng, 12, 0.25),
        SharedShape::compound(pieces).expect("compound"),
        SharedShape::trimesh(v, t).expect("torus"),
    ]
}

struct Mover {
    id: [BodyHandle; 2],
    pose: Pose,
    velocity: Vec3,
    spin: Quat,
}

#[test]
fn scheduled_world_reports_exactly_the_events_of_the_plain_one() {
    let mut rng = Rng::new(31);
    let kinds = shapes(&mut rng);
    let config = |ttc| WorldConfig {
        time_to_collision: ttc,
        ..Default::default()
    };
    let mut worlds = [config(false), config(true)].map(|c| CollisionWorld::new(c).expect("config"));
    let bound = SpeedBound {
        linear: 0.01,
        angular: 0.02,
    };
    let mut movers: Vec<Mover> = (0..120)
        .map(|i| {
            let shape = kinds[i % kinds.len()].clone();
            let pose = Pose::new(rng.rotation(), rng.in_cube(HALF));
            let id = [0, 1].map(|w| {
                let mut desc = BodyDesc::new(shape.clone());
                if i % 2 == 0 {
                    desc.bounds = BoundsMode::FixedCube;
                }
                let id = worlds[w].add_body(desc);
                worlds[w]
                    .set_speed_bound(id, Some(bound))
                    .expect("valid bound");
                worlds[w].set_pose(id, pose).expect("pose");
                id
            });
            Mover {
                id,
                pose,
                velocity: rng.unit_vector() * rng.range(0.0, bound.linear),
                spin: Quat::from_axis_angle(rng.unit_vector(), rng.range(0.0, bound.angular)),
            }
        })
        .collect();
    let mut tests = [0u64; 2];
    let (mut events, mut jumps) = (0, 0);
    for step in 0..400 {
        for m in movers.iter_mut() {
            if rng.below(4) == 0 {
                continue; // resting this step
            }
            let mut t = m.pose.translation + m.velocity;
            if rng.below(400) == 0 {
                t = rng.in_cube(HALF); // a jump far past the bound
                jumps += 1;
            }
            for k in 0..3 {
                if t[k].abs() > HALF {
                    m.velocity[k] = -m.velocity[k];
                    t[k] = t[k].clamp(-HALF, HALF);
                }
            }
            m.pose = Pose::new((m.spin * m.pose.rotation).normalize(), t);
            for (world, &id) in worlds.iter_mut().zip(&m.id) {
                world.set_pose(id, m.pose).expect("pose");
            }
        }
        let got = [0, 1].map(|w| {
            let e: Vec<_> = worlds[w].step().map(|e| (e.bodies, e.started)).collect();
            tests[w] += u64::from(worlds[w].stats().pair_tests);
            e
        });
        assert_eq!(got[1], got[0], "step {step}");
        events += got[0].len();
    }
    assert!(
        events >= 100 && jumps >= 20,
        "{events} events, {jumps} jumps"
    );
    assert!(
        tests[1] * 10 <= tests[0] * 9,
        "pair tests: plain {}, scheduled {}",
        tests[0],
        tests[1]
    );
}

#[test]
fn bad_speed_bounds_are_refused() {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let id = world.add_body(BodyDesc::new(SharedShape::sphere(1.0).expect("sphere")));
    for bad in [
        SpeedBound {
            linear: f32::NAN,
            angular: 0.0,
        },
        SpeedBound {
            linear: 1.0,
            angular: -0.1,
        },
        SpeedBound {
            linear: f32::INFINITY,
            angular: 0.0,
        },
    ] {
        let e = world.set_speed_bound(id, Some(bad));
        assert!(matches!(e, Err(WorldError::InvalidSpeedBound(_))), "{e:?}");
    }
    assert_eq!(
        world.set_speed_bound(
            id,
            Some(SpeedBound {
                linear: 0.0,
                angular: 0.0
            })
        ),
        Ok(())
    );
    assert_eq!(world.set_speed_bound(id, None), Ok(()));
}

#[test]
fn max_frame_motion_from_an_app_schedules_without_changing_events() {
    use bevy_app::prelude::*;
    use bevy_ecs::prelude::*;
    use bevy_icollide::prelude::*;
    use bevy_transform::prelude::*;

    #[derive(Resource, Default)]
    struct Seen(Vec<(u32, bool)>, u64);

    #[derive(Component)]
    struct Slider;

    let run = |ttc: bool| {
        let mut app = App::new();
        app.add_plugins((
            bevy_transform::TransformPlugin,
            CollisionPlugin::default()
                .with_messages_for_all_pairs()
                .with_margin(1.0)
                .expect("margin")
                .with_time_to_collision(ttc),
        ))
        .init_resource::<Seen>()
        .add_systems(
            Update,
            |mut starts: MessageReader<CollisionStart>,
             mut ends: MessageReader<CollisionEnd>,
             diagnostics: Res<CollisionDiagnostics>,
             mut seen: ResMut<Seen>,
             mut q: Query<&mut Transform, With<Slider>>| {
                let frame = seen.1 as u32;
                let mut events: Vec<(u32, bool)> = starts.read().map(|_| (frame, true)).collect();
                events.extend(ends.read().map(|_| (frame, false)));
                seen.0.extend(events);
                seen.1 += 1;
                let _ = diagnostics.stats.pair_tests;
                for mut t in &mut q {
                    // There and back along x at 0.02 per frame.
                    let phase = (seen.1 % 200) as f32;
                    t.translation.x =
                        -2.0 + 0.02 * if phase < 100.0 { phase } else { 200.0 - phase };
                }
            },
        );
        let motion = MaxFrameMotion {
            linear: 0.021,
            angular: 0.0,
        };
        app.world_mut()
            .spawn((Collider::sphere(0.5), Transform::default(), motion));
        app.world_mut().spawn((
            Collider::cuboid(0.8, 0.8, 0.8),
            Transform::from_xyz(-2.0, 0.0, 0.0),
            motion,
            Slider,
        ));
        let mut tests = 0u64;
        for _ in 0..400 {
            app.update();
            tests += u64::from(
                app.world()
                    .resource::<CollisionDiagnostics>()
                    .stats
                    .pair_tests,
            );
        }
        (
            std::mem::take(&mut app.world_mut().resource_mut::<Seen>().0),
            tests,
        )
    };
    let (plain, plain_tests) = run(false);
    let (scheduled, scheduled_tests) = run(true);
    assert_eq!(scheduled, plain);
    assert!(plain.len() >= 4, "{plain:?}");
    assert!(
        scheduled_tests < plain_tests,
        "tests: plain {plain_tests}, scheduled {scheduled_tests}"
    );
}
