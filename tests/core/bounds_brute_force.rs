//! Bounds and the whole world pipeline against brute force on seeded
//! coherent motion: every dynamic box equals the box of the transformed hull
//! vertices (the world's boxes grown by its pad for rounding), every fixed
//! cube contains them, the broad phase's pairs equal
//! the O(n²) overlapping box pairs, and the narrow phase's touching pairs
//! (from the events) equal the brute-force separating-axis test — with
//! bodies added and removed mid-run.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use bevy_icollide::bounds::{BoundsMode, CLIMB_MIN_VERTICES, DynamicBox};
use bevy_icollide::broad_phase::{BroadPhase, Enlarged, GridSweepAndPrune};
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::testkit::{self, MultiBodyParams, MultiBodyScene, Rng};

fn brute_box(shape: &SharedShape, pose: &Pose) -> Aabb {
    let hull = shape.hull().expect("hull shape");
    Aabb::from_points(hull.vertices().iter().map(|v| pose.transform_point(*v)))
}

/// Dynamic boxes are exact up to the rounding of one dot product.
fn assert_box_eq(got: Aabb, want: Aabb, what: &str) {
    let tol = 1e-5 * (1.0 + want.max.abs().max(want.min.abs()).max_element());
    assert!(
        (got.min - want.min).abs().max_element() <= tol
            && (got.max - want.max).abs().max_element() <= tol,
        "{what}: {got:?} != {want:?}"
    );
}

#[test]
fn dynamic_box_hill_climbing_equals_brute_force() {
    let mut rng = Rng::new(7);
    for points in [8, 40, 200, 1500] {
        let shape = bevy_icollide::testkit::sphere_hull(&mut rng, points, 1.0);
        let hull = shape.hull().expect("hull");
        let mut dbox = DynamicBox::new();
        let spin = glam::Quat::from_axis_angle(rng.unit_vector(), 0.17);
        let mut pose = Pose::new(rng.rotation(), rng.in_cube(10.0));
        let mut visits = 0u64;
        for step in 0..2000 {
            // Mostly coherent, sometimes a jump to a random orientation.
            pose.rotation = if step % 500 == 499 {
                rng.rotation()
            } else {
                (spin * pose.rotation).normalize()
            };
            pose.translation += rng.in_cube(0.05);
            let (got, v) = dbox.update(hull, &pose);
            visits += u64::from(v);
            assert_box_eq(
                got,
                brute_box(&shape, &pose),
                &format!("{points} points, step {step}"),
            );
        }
        let per_update = visits as f64 / 2000.0;
        let n = hull.vertices().len();
        if n < CLIMB_MIN_VERTICES {
            // Small hulls are transformed whole.
            assert_eq!(per_update, n as f64, "{points}");
        } else {
            // Coherence: far fewer visits than vertices per update.
            assert!(
                per_update < 6.0 * 12.0 + n as f64 * 0.2,
                "{points}: {per_update} visits per update"
            );
        }
    }
}

struct Run<B: BroadPhase> {
    world: CollisionWorld<B>,
    scene: MultiBodyScene,
    /// scene index → body
    bodies: BTreeMap<usize, BodyHandle>,
    modes: Vec<BoundsMode>,
    statics: Vec<bool>,
}

impl<B: BroadPhase> Run<B> {
    fn add(&mut self, i: usize) {
        let mut desc = BodyDesc::new(self.scene.shape_of(i).clone());
        desc.bounds = self.modes[i];
        desc.is_static = self.statics[i];
        desc.user_data = i as u64;
        let id = self.world.add_body(desc);
        self.world
            .set_pose(id, self.scene.bodies[i].pose)
            .expect("valid pose");
        self.bodies.insert(i, id);
    }

    fn check(&self, frame: usize, touching: &BTreeSet<(u64, u64)>) {
        let body = |i: usize| common::Body {
            shape: self.scene.shape_of(i).clone(),
            pose: self.scene.bodies[i].pose,
        };
        let mut boxes = Vec::new();
        for (&i, &id) in &self.bodies {
            let pose = self.scene.bodies[i].pose;
            let tight = self.world.tight_aabb(id).expect("body has a box");
            let want = brute_box(self.scene.shape_of(i), &pose);
            match self.modes[i] {
                // The hull's box, grown by the world's pad for rounding.
                BoundsMode::DynamicBox => {
                    let reach = self.scene.shape_of(i).reach();
                    let padded = want.rounded_out(reach, pose.translation);
                    assert_box_eq(tight, padded, &format!("frame {frame}, body {i}"));
                    assert!(tight.contains(&want), "frame {frame}: body {i}'s box");
                }
                BoundsMode::FixedCube => assert!(
                    tight.contains_point(want.min) && tight.contains_point(want.max),
                    "frame {frame}: cube of body {i} misses its hull"
                ),
            }
            boxes.push((i, id, tight, self.world.aabb(id).expect("box")));
        }
        let mut broad = BTreeSet::new();
        for (x, &(i, _, ti, pi)) in boxes.iter().enumerate() {
            for &(j, _, tj, pj) in &boxes[x + 1..] {
                if self.statics[i] && self.statics[j] {
                    continue;
                }
                let key = (i.min(j) as u64, i.max(j) as u64);
                if pi.overlaps(&pj) {
                    broad.insert(key);
                }
                // Convex pairs are exact: compare with the brute-force SAT,
                // skipping pairs within rounding of touching.
                if ti.overlaps(&tj) && frame.is_multiple_of(10) {
                    let sep = common::sat_separation(&body(i), &body(j));
                    if sep.abs() > 1e-5 {
                        assert_eq!(
                            touching.contains(&key),
                            sep < 0.0,
                            "frame {frame}: pair {key:?}, SAT separation {sep}"
                        );
                    }
                }
                if touching.contains(&key) {
                    assert!(
                        ti.overlaps(&tj),
                        "frame {frame}: touching pair {key:?} without overlapping boxes"
                    );
                }
            }
        }
        let got: BTreeSet<(u64, u64)> = self
            .world
            .pairs()
            .map(|([a, b], _)| {
                let (ua, ub) = (
                    self.world.user_data(a).unwrap_or(u64::MAX),
                    self.world.user_data(b).unwrap_or(u64::MAX),
                );
                (ua.min(ub), ua.max(ub))
            })
            .collect();
        assert_eq!(
            got, broad,
            "frame {frame}: narrow-phase pairs != overlapping padded boxes"
        );
    }
}

#[test]
fn world_pipeline_equals_brute_force_with_spawns_and_despawns() {
    world_against_brute_force(true, 700 * testkit::long_factor(), |cell| {
        GridSweepAndPrune::new(Some(cell))
    });
}

/// The world over enlarged boxes (`Enlarged`): the same pairs and events,
/// with the grid told of a move only when a box leaves its fat box.
#[test]
fn world_over_enlarged_boxes_equals_brute_force() {
    world_against_brute_force(true, 400 * testkit::long_factor(), |cell| {
        Enlarged::new(GridSweepAndPrune::new(Some(cell)), 0.25)
    });
}

/// Without penetration depth (I-COLLIDE's semantics) convex pairs take the
/// boolean test (GJK from the cached separating axis): the same answers.
#[test]
fn boolean_world_pipeline_equals_brute_force() {
    world_against_brute_force(false, 500 * testkit::long_factor(), |cell| {
        GridSweepAndPrune::new(Some(cell))
    });
}

fn world_against_brute_force<B: BroadPhase>(
    penetration: bool,
    frames: usize,
    broad_phase: impl Fn(f32) -> B,
) {
    let params = MultiBodyParams {
        count: 200,
        hull_points: 24,
        density: 0.2,
        rotation_deg: 8.0,
        translation: 0.05,
        distinct_shapes: 8,
        seed: 3,
        separated: false,
    };
    let scene = MultiBodyScene::new(&params);
    let mut rng = Rng::new(11);
    let modes = (0..params.count)
        .map(|_| {
            if rng.below(2) == 0 {
                BoundsMode::DynamicBox
            } else {
                BoundsMode::FixedCube
            }
        })
        .collect();
    let statics: Vec<bool> = (0..params.count).map(|_| rng.below(5) == 0).collect();
    let mut scene = scene;
    for (b, &s) in scene.bodies.iter_mut().zip(&statics) {
        if s {
            b.velocity = glam::Vec3::ZERO;
            b.spin = glam::Quat::IDENTITY;
        }
    }
    let mut run = Run {
        world: CollisionWorld::with_broad_phase(
            WorldConfig {
                margin: 0.05,
                penetration,
                ..Default::default()
            },
            broad_phase(3.0),
        )
        .expect("valid config"),
        scene,
        bodies: BTreeMap::new(),
        modes,
        statics,
    };
    for i in 0..params.count {
        if i % 10 != 0 {
            run.add(i);
        }
    }
    let mut touching: BTreeSet<(u64, u64)> = BTreeSet::new();
    let mut events_seen = 0;
    for frame in 0..frames {
        run.scene.step();
        for (&i, &id) in &run.bodies {
            if !run.statics[i] {
                run.world
                    .set_pose(id, run.scene.bodies[i].pose)
                    .expect("valid pose");
            }
        }
        if frame % 13 == 0 {
            // Despawn one body, spawn one that was out.
            let i = rng.below(params.count);
            if let Some(id) = run.bodies.remove(&i) {
                run.world.remove_body(id).expect("live body");
            } else {
                run.add(i);
            }
        }
        let events: Vec<_> = run.world.step().collect();
        for ev in &events {
            let key = (ev.user_data[0], ev.user_data[1]);
            assert!(key.0 < key.1, "events list the smaller user data first");
            events_seen += 1;
            if ev.started {
                assert!(
                    touching.insert(key),
                    "frame {frame}: start of a pair already touching {key:?}"
                );
            } else {
                assert!(
                    touching.remove(&key),
                    "frame {frame}: end of a pair not touching {key:?}"
                );
            }
        }
        assert!(
            events
                .windows(2)
                .all(|w| (w[0].user_data, w[0].started) <= (w[1].user_data, w[1].started)),
            "events sorted"
        );
        run.check(frame, &touching);
    }
    assert!(
        events_seen > 100,
        "the scene must produce contacts ({events_seen} events)"
    );
}
