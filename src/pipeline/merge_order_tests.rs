//! The parallel narrow phase's merge, seen before the world sorts its
//! events: the raw pair events of `NarrowPhase::update_with` (any split, on
//! threads) must be those of the serial `update`, in the same order. The
//! world's own events are sorted by a total key afterwards, so a merge in
//! the wrong order would not show there; it shows here.

use super::CollisionWorld;
use super::driver::Bodies;
use crate::broad_phase::BroadPhase;
use crate::narrow_phase::PairEvent;
use crate::pipeline::{BodyDesc, BodyHandle};
use crate::testkit::{MultiBodyParams, MultiBodyScene};

/// The narrow phase of one frame, serial (`None`) or in `n` tasks on
/// scoped threads; returns its pair events as it appended them.
fn raw_events<B: BroadPhase>(
    world: &mut CollisionWorld<B>,
    tasks: Option<usize>,
) -> Vec<PairEvent> {
    world.update_broad_phase();
    world.broad.drain_changes(&mut world.changes);
    let bodies = Bodies::new(&world.bodies, &world.moved, &world.config);
    let (narrow, changes, out) = (&mut world.narrow, &world.changes, &mut world.pair_events);
    match tasks {
        None => narrow.update(changes, &bodies, out),
        Some(n) => narrow.update_with(
            changes,
            &bodies,
            n,
            |list| {
                std::thread::scope(|s| {
                    for task in list {
                        s.spawn(move || task.run());
                    }
                });
            },
            out,
        ),
    }
    let raw = out.clone();
    world.finish_narrow_phase();
    raw
}

/// 600 seeded hulls moving fast (many starts and ends per frame; all of
/// them on each 3rd frame, one in seven on the others), each frame's raw
/// pair events.
fn run(tasks: Option<usize>) -> Vec<Vec<PairEvent>> {
    let params = MultiBodyParams {
        count: 600,
        density: 0.2,
        rotation_deg: 8.0,
        translation: 0.08,
        seed: 45,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let mut world = CollisionWorld::default();
    let ids: Vec<BodyHandle> = (0..params.count)
        .map(|i| world.add_body(BodyDesc::new(scene.shape_of(i).clone())))
        .collect();
    let mut frames = Vec::new();
    for frame in 0..60 {
        for (i, &h) in ids.iter().enumerate() {
            // Every body on each 3rd frame, else one in seven (the narrow
            // phase then tests the pairs it finds through their lists).
            if frame % 3 == 0 || i % 7 == frame % 7 {
                world.set_pose(h, scene.bodies[i].pose).expect("valid pose");
            }
        }
        frames.push(raw_events(&mut world, tasks));
        scene.step();
    }
    frames
}

#[test]
fn split_narrow_phase_appends_the_serial_events_in_the_serial_order() {
    let serial = run(None);
    let busy = serial.iter().filter(|f| f.len() >= 4).count();
    assert!(busy > 30, "{busy} frames with 4 or more events");
    for n in [2, 3, 8] {
        assert!(
            run(Some(n)) == serial,
            "{n} tasks: same pair events, same order"
        );
    }
}
