//! The stages split over threads (the bounds update's boxes, the narrow
//! phase's pair tests) give exactly the events of the serial stages, in the
//! same order, whatever the number of tasks or threads.

use crate::common;

use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, ContactEvent, WorldConfig};
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};

/// How a run splits its stages: `None` serial, `Some(n)` `n` tasks on
/// scoped threads; `drop_bounds`: the closure runs only the first bounds
/// task (the others must be refreshed after it returns).
#[derive(Clone, Copy)]
struct Split {
    bounds: Option<usize>,
    narrow: Option<usize>,
    drop_bounds: bool,
}

const SERIAL: Split = Split {
    bounds: None,
    narrow: None,
    drop_bounds: false,
};

fn bounds(world: &mut CollisionWorld, split: Split) {
    let Some(n) = split.bounds else {
        return world.update_bounds();
    };
    world.update_bounds_with(n, |list| {
        let keep = if split.drop_bounds { 1 } else { list.len() };
        std::thread::scope(|s| {
            for task in list.into_iter().take(keep) {
                s.spawn(move || task.run());
            }
        });
    });
}

type Corners = ([f32; 3], [f32; 3]);

fn add(world: &mut CollisionWorld, scene: &MultiBodyScene, i: usize) -> BodyHandle {
    let mut desc = BodyDesc::new(scene.shape_of(i).clone());
    desc.user_data = i as u64;
    world.add_body(desc)
}

/// What a run saw: each frame's events, and each frame's boxes and
/// counters (bounds updated, hill-climbing visits, pair tests).
#[derive(Debug, PartialEq)]
struct Trace {
    events: Vec<Vec<ContactEvent>>,
    boxes: Vec<Vec<Option<Corners>>>,
    counters: Vec<[u64; 3]>,
}

/// 400 hulls moving (all of them on each 4th frame, one in nine on the
/// others); poses set in a rotating order (the dirty list is not in slot
/// order), and every 7th frame a body removed and another added (freed
/// slots reused).
fn run(split: Split) -> Trace {
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
    let mut ids: Vec<BodyHandle> = (0..params.count)
        .map(|i| add(&mut world, &scene, i))
        .collect();
    let mut trace = Trace {
        events: Vec::new(),
        boxes: Vec::new(),
        counters: Vec::new(),
    };
    for frame in 0..200 {
        if frame % 7 == 3 {
            let i = (frame * 37) % params.count;
            world.remove_body(ids[i]).expect("live body");
            ids[i] = add(&mut world, &scene, i);
        }
        for k in 0..ids.len() {
            let i = (k + frame * 13) % ids.len();
            // Every body on each 4th frame, else one in nine (the narrow
            // phase then walks the moved bodies' pairs).
            if !frame.is_multiple_of(4) && !(i + frame).is_multiple_of(9) {
                continue;
            }
            world
                .set_pose(ids[i], scene.bodies[i].pose)
                .expect("valid pose");
        }
        bounds(&mut world, split);
        world.update_broad_phase();
        common::narrow_phase(&mut world, split.narrow);
        let s = world.stats();
        trace.counters.push([
            u64::from(s.bounds_updated),
            s.hill_climb_visits,
            u64::from(s.pair_tests),
        ]);
        trace.boxes.push(
            ids.iter()
                .map(|&h| world.aabb(h).map(|b| (b.min.to_array(), b.max.to_array())))
                .collect(),
        );
        trace.events.push(world.drain_events().collect());
        scene.step();
    }
    trace
}

#[test]
fn events_do_not_depend_on_the_thread_count() {
    let serial = run(SERIAL);
    let events: usize = serial.events.iter().map(Vec::len).sum();
    let tests: u64 = serial.counters.iter().map(|c| c[2]).sum();
    assert!(
        events > 150 && tests > 7_000,
        "{events} events, {tests} tests"
    );
    let mut splits = vec![(Some(3), None), (None, Some(3))];
    splits.extend([1, 2, 4, 8].map(|n| (Some(n), Some(n))));
    for (bounds, narrow) in splits {
        let split = Split {
            bounds,
            narrow,
            drop_bounds: false,
        };
        assert!(
            run(split) == serial,
            "bounds tasks {bounds:?}, narrow tasks {narrow:?}: same events in the same order, same boxes and counters"
        );
    }
}

#[test]
fn dropped_bounds_tasks_are_refreshed_after() {
    let serial = run(SERIAL);
    let split = Split {
        bounds: Some(4),
        narrow: None,
        drop_bounds: true,
    };
    assert!(run(split) == serial, "same events, boxes and counters");
}
