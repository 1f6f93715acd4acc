//! The plugin's parallel stages (pose conversion, bounds update and narrow
//! phase on Bevy's compute pool) give the events, poses and boxes of the serial plugin, in
//! the same order, whatever the split: 1, 2, 4 and 8 tasks per stage on a
//! pool of (at most) 4 threads, with colliders despawned and spawned while
//! the scene moves.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::plugin::TaskShare;
use bevy_icollide::prelude::*;
use bevy_icollide::testkit::MultiBodyScene;

use crate::hull_scene::{self, transform};
use bevy_tasks::{ComputeTaskPool, TaskPoolBuilder};
use bevy_transform::prelude::*;

/// A message: start (`true`) or end, and its two entities.
type Message = (bool, Entity, Entity);

/// What a frame's messages said, in the order written.
#[derive(Resource, Default)]
struct Log(Vec<Message>);

fn record(
    mut log: ResMut<Log>,
    mut s: MessageReader<CollisionStart>,
    mut e: MessageReader<CollisionEnd>,
) {
    log.0
        .extend(s.read().map(|m| (true, m.collider1, m.collider2)));
    log.0
        .extend(e.read().map(|m| (false, m.collider1, m.collider2)));
}

/// Each frame's messages of 1 200 moving hulls (enough for every stage to
/// split), one body in 50 despawned and spawned again every 5th frame;
/// with `tasks` tasks per parallel stage. Also each frame's
/// `CollidingEntities`, `ColliderPose` and `ColliderAabb` of a few bodies.
fn run(tasks: usize) -> (Vec<Vec<Message>>, Vec<Vec<Entity>>, Vec<String>) {
    let params = hull_scene::params(1200, 5);
    let mut scene = MultiBodyScene::new(&params);
    let mut app = hull_scene::app(tasks);
    app.init_resource::<Log>().add_systems(Last, record);
    let spawn = |app: &mut App, scene: &MultiBodyScene, i: usize| {
        let collider = Collider::new(scene.shape_of(i).clone());
        let bundle = (collider, transform(scene, i), CollidingEntities::default());
        app.world_mut().spawn(bundle).id()
    };
    let mut ids: Vec<Entity> = (0..params.count)
        .map(|i| spawn(&mut app, &scene, i))
        .collect();
    let (mut frames, mut colliding, mut placed) = (Vec::new(), Vec::new(), Vec::new());
    for frame in 0..40 {
        if frame % 5 == 2 {
            for i in (frame..params.count).step_by(50) {
                app.world_mut().despawn(ids[i]);
                ids[i] = spawn(&mut app, &scene, i);
            }
        }
        for (i, &e) in ids.iter().enumerate() {
            *app.world_mut().get_mut::<Transform>(e).expect("a body") = transform(&scene, i);
        }
        app.update();
        frames.push(std::mem::take(&mut app.world_mut().resource_mut::<Log>().0));
        colliding.push(
            ids.iter()
                .step_by(97)
                .flat_map(|&e| {
                    app.world()
                        .get::<CollidingEntities>(e)
                        .expect("a body")
                        .iter()
                        .collect::<Vec<_>>()
                })
                .collect(),
        );
        for &e in ids.iter().step_by(41) {
            let pose = app.world().get::<ColliderPose>(e).expect("a pose");
            let aabb = app.world().get::<ColliderAabb>(e).expect("a box");
            placed.push(format!("{:?} {:?}", pose.0, aabb.0));
        }
        scene.step();
    }
    (frames, colliding, placed)
}

#[test]
fn events_do_not_depend_on_the_task_split() {
    ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(4).build());
    let serial = run(1);
    let events: usize = serial.0.iter().map(Vec::len).sum();
    assert!(events > 500, "{events} events");
    for tasks in [2, 4, 8] {
        let parallel = run(tasks);
        assert!(
            parallel.0 == serial.0,
            "{tasks} tasks: the same messages in the same order"
        );
        assert_eq!(parallel.1, serial.1, "{tasks} tasks: CollidingEntities");
        assert!(parallel.2 == serial.2, "{tasks} tasks: poses and boxes");
    }
}

/// Each parallel stage's diagnostics count its tasks: none with one task
/// configured, else more than one and at most the configured number; the
/// tasks run elsewhere are among them and have a hand-over time.
#[test]
fn diagnostics_count_each_parallel_stage_s_tasks() {
    ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(4).build());
    let params = hull_scene::params(1200, 5);
    for tasks in [1, 3, 8] {
        let mut scene = MultiBodyScene::new(&params);
        let mut app = hull_scene::app(tasks);
        let ids: Vec<Entity> = (0..params.count)
            .map(|i| {
                let collider = Collider::new(scene.shape_of(i).clone());
                app.world_mut().spawn((collider, transform(&scene, i))).id()
            })
            .collect();
        for _ in 0..3 {
            for (i, &e) in ids.iter().enumerate() {
                *app.world_mut().get_mut::<Transform>(e).expect("a body") = transform(&scene, i);
            }
            app.update();
            scene.step();
        }
        let d = app.world().resource::<CollisionDiagnostics>();
        assert!(d.stats.box_pairs > 256, "{} pairs", d.stats.box_pairs);
        let p = d.parallel;
        let stages = [
            ("sync", p.sync),
            ("poses", p.poses),
            ("bounds", p.bounds),
            ("narrow", p.narrow),
        ];
        for (stage, share) in stages {
            let what = format!("{tasks} tasks, {stage}: {share:?}");
            if tasks == 1 {
                assert_eq!(share, TaskShare::default(), "{what}");
                continue;
            }
            assert!(share.tasks > 1 && share.tasks <= tasks as u32, "{what}");
            assert!(share.elsewhere <= share.tasks, "{what}");
            assert_eq!(
                share.first_elsewhere.is_some(),
                share.elsewhere > 0,
                "{what}"
            );
        }
    }
}
