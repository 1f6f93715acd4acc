//! The narrow phase split over threads gives exactly the events of the
//! serial narrow phase, in the same order, whatever the number of tasks.

use crate::common;

use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, ContactEvent, WorldConfig};
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};

fn run(tasks: Option<usize>) -> (Vec<Vec<ContactEvent>>, u64) {
    let params = MultiBodyParams {
        count: 400,
        density: 0.15,
        rotation_deg: 5.0,
        translation: 0.05,
        seed: 21,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let ids: Vec<_> = (0..params.count)
        .map(|i| world.add_body(BodyDesc::new(scene.shape_of(i).clone())))
        .collect();
    let mut frames = Vec::new();
    let mut tests = 0;
    for _ in 0..300 {
        for (i, &id) in ids.iter().enumerate() {
            world
                .set_pose(id, scene.bodies[i].pose)
                .expect("valid pose");
        }
        world.update_bounds();
        world.update_broad_phase();
        common::narrow_phase(&mut world, tasks);
        tests += u64::from(world.stats().pair_tests);
        frames.push(world.drain_events().collect::<Vec<_>>());
        scene.step();
    }
    (frames, tests)
}

#[test]
fn events_do_not_depend_on_the_thread_count() {
    let (serial, tests) = run(None);
    let events: usize = serial.iter().map(Vec::len).sum();
    assert!(
        events > 200 && tests > 10_000,
        "{events} events, {tests} tests"
    );
    for tasks in [1, 2, 3, 8] {
        let (parallel, t) = run(Some(tasks));
        assert_eq!(t, tests, "{tasks} tasks: same number of pair tests");
        assert_eq!(
            parallel, serial,
            "{tasks} tasks: same events in the same order"
        );
    }
}
