//! Work that follows the movers: when few bodies move, the narrow phase
//! looks only at the moved bodies' pairs (a pair of two resting bodies is
//! neither tested nor visited), and the events stay exact while bodies
//! start and stop moving, leave resting and static bodies, and the frames
//! switch between few movers, every body moving and none, and pairs at
//! rest are disabled and enabled again.

use std::collections::BTreeSet;

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::query::intersects;
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene, SceneBody, long_factor};
use glam::Vec3;

type Pair = [BodyHandle; 2];

fn key(a: BodyHandle, b: BodyHandle) -> Pair {
    if a < b { [a, b] } else { [b, a] }
}

/// Whether body `i` moves at frame `f`: one group of ten in turn (each
/// moves for 12 frames, then rests), every body on each 40th frame, none
/// on three frames in each 40. Static bodies never move.
fn moves(i: usize, f: usize) -> bool {
    match f % 40 {
        39 => true,
        20..=22 => false,
        _ => i % 10 == (f / 12) % 10,
    }
}

/// The touching pairs by brute force: every pair of bodies, not both
/// static, whose centres are within the two radii (the hulls' points lie
/// on unit spheres) and that `query::intersects` says touch.
fn reference(
    shapes: &[SharedShape],
    bodies: &[SceneBody],
    ids: &[BodyHandle],
    is_static: impl Fn(usize) -> bool,
) -> BTreeSet<Pair> {
    let mut out = BTreeSet::new();
    for (i, a) in bodies.iter().enumerate() {
        for (j, b) in bodies.iter().enumerate().skip(i + 1) {
            let near = a.pose.translation.distance(b.pose.translation) <= 2.0 + 1e-3;
            if !near || (is_static(i) && is_static(j)) {
                continue;
            }
            let (sa, sb) = (&shapes[a.shape], &shapes[b.shape]);
            if intersects(sa, &a.pose, sb, &b.pose).expect("valid") {
                out.insert(key(ids[i], ids[j]));
            }
        }
    }
    out
}

/// Pairs of the world's narrow phase with at least one moved body.
fn pairs_with_a_mover(world: &CollisionWorld, moved: &BTreeSet<BodyHandle>) -> usize {
    world
        .pairs()
        .filter(|(p, _)| moved.contains(&p[0]) || moved.contains(&p[1]))
        .count()
}

#[test]
fn few_movers_visit_only_their_pairs_and_events_stay_exact() {
    let params = MultiBodyParams {
        count: 400,
        density: 0.2,
        seed: 45,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let limit = scene.half_size - 1.0;
    let is_static = |i: usize| i % 7 == 3;
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let ids: Vec<BodyHandle> = (0..params.count)
        .map(|i| {
            let mut desc = BodyDesc::new(scene.shape_of(i).clone());
            desc.is_static = is_static(i);
            let h = world.add_body(desc);
            world.set_pose(h, scene.bodies[i].pose).expect("pose");
            h
        })
        .collect();
    let (mut touching, mut disabled) = (BTreeSet::<Pair>::new(), BTreeSet::new());
    let (mut events, mut walked, mut ends_by_movers) = (0, 0, 0);
    for f in 0..240 * long_factor() {
        let mut moved = BTreeSet::new();
        for (i, b) in scene.bodies.iter_mut().enumerate() {
            if f > 0 && moves(i, f) && !is_static(i) {
                b.advance(limit);
                world.set_pose(ids[i], b.pose).expect("pose");
                moved.insert(ids[i]);
            }
        }
        // At rest, a touching pair is disabled, then enabled again: it
        // ends, then starts as a new pair with no moved body.
        if f % 40 == 21 {
            let k = *touching.iter().nth(f % 17).expect("touching pairs");
            world.set_pair_enabled(k[0], k[1], false).expect("live");
            disabled.insert(k);
        } else if f % 40 == 22 {
            for k in std::mem::take(&mut disabled) {
                world.set_pair_enabled(k[0], k[1], true).expect("live");
            }
        }
        for e in world.step() {
            let k = key(e.bodies[0], e.bodies[1]);
            events += 1;
            if e.started {
                assert!(touching.insert(k), "frame {f}: {k:?} started twice");
            } else {
                assert!(touching.remove(&k), "frame {f}: {k:?} ended untouched");
                ends_by_movers += usize::from(moved.contains(&k[0]) != moved.contains(&k[1]));
            }
        }
        let mut want = reference(&scene.shapes, &scene.bodies, &ids, is_static);
        want.retain(|k| !disabled.contains(k));
        assert_eq!(touching, want, "frame {f}");
        let s = world.stats();
        let near_movers = pairs_with_a_mover(&world, &moved);
        // The pair enabled again is new, with no moved body.
        let fresh = u32::from(f % 40 == 22);
        assert!(
            f == 0 || s.pair_tests as usize <= near_movers + fresh as usize,
            "frame {f}: {} tests, only {near_movers} pairs have a moved body",
            s.pair_tests
        );
        if f > 0 && moved.len() * 10 <= params.count {
            // A walk visits each moved body's pairs (the new ones, all
            // with a moved body, once more), never the pairs at rest.
            assert!(
                s.pairs_checked <= 3 * near_movers as u32 + fresh
                    && s.pairs_checked * 2 < s.active_pairs,
                "frame {f}: {} pairs checked, {near_movers} with a moved body, {} in all",
                s.pairs_checked,
                s.active_pairs
            );
            walked += 1;
        }
        if moved.is_empty() && f > 0 {
            assert_eq!((s.pair_tests, s.pairs_checked), (fresh, fresh), "frame {f}");
        }
    }
    assert!(
        events > 300 && walked > 150 && ends_by_movers > 50 && touching.len() > 50,
        "{events} events, {walked} frames with few movers, {ends_by_movers} ends between a moved and a resting body, {} touching",
        touching.len()
    );
}

/// A pair that touched only during a sweep, whose boxes still overlap
/// once the sweep is over, is tested again at the next step and ends
/// there; after that, at rest, nothing is tested.
#[test]
fn a_swept_touch_ends_at_the_next_step() {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let cube = world.add_body(BodyDesc::new(
        SharedShape::cuboid(Vec3::splat(0.5)).expect("cube"),
    ));
    world.set_pose(cube, Pose::IDENTITY).expect("pose");
    let mut desc = BodyDesc::new(SharedShape::sphere(0.1).expect("ball"));
    desc.ccd = true;
    let ball = world.add_body(desc);
    let at = |x: f32| Pose::from_translation(Vec3::new(x, x, 0.0));
    world.set_pose(ball, at(-3.0)).expect("pose");
    assert_eq!(world.step().count(), 0);
    // Through the cube, to rest beside its edge: the boxes overlap, the
    // ball is 0.113 from the edge (radius 0.1).
    world.set_pose(ball, at(0.58)).expect("through the cube");
    let first: Vec<bool> = world.step().map(|e| e.started).collect();
    assert_eq!(first, [true], "the sweep touches");
    let next: Vec<bool> = world.step().map(|e| e.started).collect();
    assert_eq!(next, [false], "apart at rest: the touch ends");
    assert_eq!(world.stats().pair_tests, 1);
    assert_eq!(world.step().count(), 0);
    assert_eq!(world.stats().pair_tests, 0);
    assert!(world.pair(cube, ball).is_some_and(|s| !s.result.touching));
}
