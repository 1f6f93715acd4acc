//! The stages split over threads (the pose writes, the bounds update's
//! boxes, the narrow phase's pair tests) give exactly the events of the
//! serial stages, in the same order, whatever the number of tasks or
//! threads.

use crate::common;

use bevy_icollide::pipeline::{
    BodyDesc, BodyHandle, CollisionWorld, ContactEvent, PoseWrite, WorldConfig,
};
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};
use glam::Vec3;

/// How a run splits its stages: `None` serial (the pose writes one
/// `set_scale` / `set_pose` call after the other), `Some(n)` `n` tasks on
/// scoped threads; `drop_bounds` / `drop_poses`: the closure runs only the
/// first task (the others' work must be done after it returns).
#[derive(Clone, Copy)]
struct Split {
    poses: Option<usize>,
    bounds: Option<usize>,
    narrow: Option<usize>,
    drop_bounds: bool,
    drop_poses: bool,
}

const SERIAL: Split = Split {
    poses: None,
    bounds: None,
    narrow: None,
    drop_bounds: false,
    drop_poses: false,
};

/// The writes' outcomes, as text.
fn poses(world: &mut CollisionWorld, writes: &[PoseWrite], split: Split) -> Vec<String> {
    let Some(n) = split.poses else {
        let mut one = |w: &PoseWrite| {
            let scaled = w.scale.map_or(Ok(()), |s| world.set_scale(w.body, s));
            scaled.and_then(|()| world.set_pose(w.body, w.pose))
        };
        return writes.iter().map(|w| format!("{:?}", one(w))).collect();
    };
    let mut outcomes = Vec::new();
    let keep = |len: usize| if split.drop_poses { 1 } else { len };
    world.set_poses_with(
        writes,
        n,
        |list| {
            let keep = keep(list.len());
            std::thread::scope(|s| {
                for task in list.take(keep) {
                    s.spawn(move || task.run());
                }
            });
        },
        &mut outcomes,
    );
    outcomes.iter().map(|r| format!("{r:?}")).collect()
}

/// Frame `frame`'s writes, in a rotating order (the dirty list is not in
/// slot order): every body on each 4th frame, else one in nine (the narrow
/// phase then walks the moved bodies' pairs); a unit scale on every third,
/// a refused scale (a hull is not scalable: its pose is not set) on one,
/// a NaN pose on one in some frames, and `stale`'s (a removed body's old
/// handle) in the middle.
fn writes_of(
    frame: usize,
    ids: &[BodyHandle],
    scene: &MultiBodyScene,
    stale: Option<BodyHandle>,
) -> Vec<PoseWrite> {
    let mut writes = Vec::new();
    for k in 0..ids.len() {
        let i = (k + frame * 13) % ids.len();
        if !frame.is_multiple_of(4) && !(i + frame).is_multiple_of(9) {
            continue;
        }
        let mut w = PoseWrite {
            body: ids[i],
            pose: scene.bodies[i].pose,
            scale: i.is_multiple_of(3).then_some(Vec3::ONE),
        };
        if i == (frame * 7) % ids.len() {
            w.scale = Some(Vec3::splat(2.0));
        }
        if frame % 5 == 1 && i == (frame * 11) % ids.len() {
            w.pose.translation.x = f32::NAN;
        }
        writes.push(w);
        if k == ids.len() / 2
            && let Some(body) = stale
        {
            writes.push(PoseWrite { body, ..w });
        }
    }
    writes
}

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
/// counters (bounds updated, hill-climbing visits, pair tests), the pose
/// writes' outcomes and the moved bodies in the world's order.
#[derive(Debug, PartialEq)]
struct Trace {
    events: Vec<Vec<ContactEvent>>,
    boxes: Vec<Vec<Option<Corners>>>,
    counters: Vec<[u64; 3]>,
    outcomes: Vec<Vec<String>>,
    moved: Vec<Vec<BodyHandle>>,
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
        outcomes: Vec::new(),
        moved: Vec::new(),
    };
    for frame in 0..200 {
        let mut stale = None;
        if frame % 7 == 3 {
            let i = (frame * 37) % params.count;
            world.remove_body(ids[i]).expect("live body");
            stale = Some(ids[i]);
            ids[i] = add(&mut world, &scene, i);
        }
        let writes = writes_of(frame, &ids, &scene, stale);
        trace.outcomes.push(poses(&mut world, &writes, split));
        bounds(&mut world, split);
        trace.moved.push(world.moved_bodies().collect());
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
    let errors = serial
        .outcomes
        .iter()
        .flatten()
        .filter(|r| *r != "Ok(())")
        .count();
    assert!(errors > 60, "{errors} refused writes");
    let mut splits = vec![
        (Some(3), None, None),
        (None, Some(3), None),
        (None, None, Some(3)),
    ];
    splits.extend([1, 2, 4, 8].map(|n| (Some(n), Some(n), Some(n))));
    for (poses, bounds, narrow) in splits {
        let split = Split {
            poses,
            bounds,
            narrow,
            ..SERIAL
        };
        assert!(
            run(split) == serial,
            "pose tasks {poses:?}, bounds tasks {bounds:?}, narrow tasks {narrow:?}: same events in the same order, same boxes, counters, write outcomes and moved order"
        );
    }
}

#[test]
fn dropped_pose_tasks_are_written_after() {
    let serial = run(SERIAL);
    let split = Split {
        poses: Some(4),
        drop_poses: true,
        ..SERIAL
    };
    assert!(
        run(split) == serial,
        "same events, boxes, outcomes and order"
    );
}

#[test]
fn dropped_bounds_tasks_are_refreshed_after() {
    let serial = run(SERIAL);
    let split = Split {
        bounds: Some(4),
        drop_bounds: true,
        ..SERIAL
    };
    assert!(run(split) == serial, "same events, boxes and counters");
}
