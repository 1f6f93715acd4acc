//! The core API driven in every wrong order gives the event stream of the
//! right one: stages skipped, run twice, run out of order, bodies removed
//! between two stages, events drained late, stale handles used. The
//! reference world runs `step()` once per frame; each test world runs the
//! same scene with a seeded random choice of call order per frame. Events
//! are compared by the bodies' user data (unique over the run).

use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig, WorldError};
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene, Rng};
use glam::Vec3;

/// An event as both worlds name it: the user data pair and start / end.
type Ev = ([u64; 2], bool);

/// One world driving the scene, with the handle of each scene body that is
/// in it now.
struct Driven {
    world: CollisionWorld,
    handles: Vec<Option<BodyHandle>>,
    /// Handles of removed bodies, to check that they stay stale.
    stale: Vec<BodyHandle>,
    /// Every event drained so far, by frame of draining.
    stream: Vec<Ev>,
    /// User data of the next body added.
    next_user: u64,
    users: Vec<u64>,
}

impl Driven {
    fn new(scene: &MultiBodyScene) -> Self {
        let mut d = Driven {
            world: CollisionWorld::new(WorldConfig::default()).expect("valid config"),
            handles: vec![None; scene.bodies.len()],
            stale: Vec::new(),
            stream: Vec::new(),
            next_user: 0,
            users: vec![0; scene.bodies.len()],
        };
        for i in 0..scene.bodies.len() {
            d.add(scene, i);
        }
        d
    }

    fn add(&mut self, scene: &MultiBodyScene, i: usize) {
        let mut desc = BodyDesc::new(scene.shape_of(i).clone());
        desc.user_data = self.next_user;
        self.users[i] = self.next_user;
        self.next_user += 1;
        let h = self.world.add_body(desc);
        self.world
            .set_pose(h, scene.bodies[i].pose)
            .expect("valid pose");
        self.handles[i] = Some(h);
    }

    fn remove(&mut self, i: usize) {
        let h = self.handles[i].take().expect("present");
        self.world.remove_body(h).expect("live body");
        self.stale.push(h);
    }

    fn set_poses(&mut self, scene: &MultiBodyScene) {
        for (i, h) in self.handles.iter().enumerate() {
            if let Some(h) = *h {
                self.world
                    .set_pose(h, scene.bodies[i].pose)
                    .expect("valid pose");
            }
        }
    }

    fn drain(&mut self) {
        self.stream
            .extend(self.world.drain_events().map(|e| (e.user_data, e.started)));
    }

    /// Every handle of a removed body is refused, whatever reused its slot.
    fn check_stale(&mut self) {
        for &h in &self.stale {
            assert_eq!(
                self.world.set_pose(h, bevy_icollide::math::Pose::IDENTITY),
                Err(WorldError::StaleHandle(h))
            );
            assert!(self.world.remove_body(h).is_err());
            assert!(self.world.pose(h).is_none() && self.world.aabb(h).is_none());
        }
    }
}

/// What happens to the scene's bodies in a frame: removals and re-adds.
fn churn(rng: &mut Rng, frame: usize, n: usize) -> Option<usize> {
    (frame % 9 == 4).then(|| rng.below(n))
}

/// The narrow phase on two scoped threads.
fn narrow_on_threads(world: &mut CollisionWorld) {
    world.update_narrow_phase_with(3, |tasks| {
        std::thread::scope(|s| {
            for t in tasks {
                s.spawn(move || t.run());
            }
        });
    });
}

/// Runs the frame's stages in a random wrong (but complete) order. The
/// body removal or re-add of the frame (`churn`) happens at a random point
/// before the first narrow phase (a narrow phase between two changes
/// reports the state in between, which the reference never sees).
fn wrong_order_frame(d: &mut Driven, scene: &MultiBodyScene, rng: &mut Rng, churn: Option<usize>) {
    let do_churn = |d: &mut Driven| {
        if let Some(i) = churn {
            if d.handles[i].is_some() {
                d.remove(i);
            } else {
                d.add(scene, i);
            }
        }
    };
    d.set_poses(scene);
    match rng.below(8) {
        // Broad phase twice.
        0 => {
            d.world.update_bounds();
            d.world.update_broad_phase();
            do_churn(d);
            d.world.update_broad_phase();
            d.world.update_narrow_phase();
        }
        // Narrow phase twice.
        1 => {
            do_churn(d);
            d.world.update_narrow_phase();
            d.world.update_narrow_phase();
        }
        // Narrow phase without bounds or broad phase.
        2 => {
            do_churn(d);
            d.world.update_narrow_phase();
        }
        // Removal between the broad and the narrow phase.
        3 => {
            d.world.update_bounds();
            d.world.update_broad_phase();
            do_churn(d);
            d.world.update_narrow_phase();
        }
        // Bounds twice, broad skipped, parallel narrow phase.
        4 => {
            d.world.update_bounds();
            do_churn(d);
            d.world.update_bounds();
            narrow_on_threads(&mut d.world);
        }
        // Everything twice, out of order.
        5 => {
            d.world.update_broad_phase();
            do_churn(d);
            d.world.update_bounds();
            d.world.update_narrow_phase();
            d.world.update_bounds();
            d.world.update_broad_phase();
            d.world.update_narrow_phase();
        }
        // The right order, events drained only now and then (below).
        _ => {
            do_churn(d);
            d.world.update_bounds();
            d.world.update_broad_phase();
            d.world.update_narrow_phase();
        }
    }
}

#[test]
fn every_wrong_order_gives_the_right_events() {
    let params = MultiBodyParams {
        count: 160,
        hull_points: 16,
        density: 0.15,
        rotation_deg: 6.0,
        translation: 0.04,
        distinct_shapes: 6,
        seed: 5,
        separated: false,
    };
    let mut scene = MultiBodyScene::new(&params);
    let mut right = Driven::new(&scene);
    let mut wrong = Driven::new(&scene);
    let (mut churn_rng, mut order_rng) = (Rng::new(1), Rng::new(2));
    for frame in 0..600 {
        scene.step();
        let churn = churn(&mut churn_rng, frame, params.count);
        // The reference: churn, poses, one step.
        if let Some(i) = churn {
            if right.handles[i].is_some() {
                right.remove(i);
            } else {
                right.add(&scene, i);
            }
        }
        right.set_poses(&scene);
        let events: Vec<Ev> = right
            .world
            .step()
            .map(|e| (e.user_data, e.started))
            .collect();
        right.stream.extend(events);
        wrong_order_frame(&mut wrong, &scene, &mut order_rng, churn);
        if order_rng.below(3) != 0 {
            wrong.drain();
        }
        wrong.check_stale();
        assert_eq!(right.users, wrong.users);
        let n = wrong.stream.len();
        assert_eq!(
            wrong.stream,
            right.stream[..n],
            "frame {frame}: the event streams differ"
        );
    }
    wrong.drain();
    assert_eq!(wrong.stream, right.stream);
    let starts = right.stream.iter().filter(|e| e.1).count();
    assert!(
        starts > 200 && right.stream.len() > starts,
        "the scene must start and end many contacts ({starts} starts)"
    );
}

#[test]
fn a_stale_handle_never_names_the_new_body() {
    let shape = bevy_icollide::collider::SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let old = world.add_body(BodyDesc::new(shape.clone()));
    world.remove_body(old).expect("live");
    // The slot is freed by the narrow phase, then reused.
    world.update_narrow_phase();
    let new = world.add_body(BodyDesc::new(shape));
    assert_eq!(new.index(), old.index(), "the slot is reused");
    assert_ne!(new, old);
    assert_eq!(
        world.set_pose(old, bevy_icollide::math::Pose::IDENTITY),
        Err(WorldError::StaleHandle(old))
    );
    assert!(
        world
            .set_pose(new, bevy_icollide::math::Pose::IDENTITY)
            .is_ok()
    );
    assert_eq!(world.remove_body(old), Err(WorldError::StaleHandle(old)));
    assert!(world.contains(new) && !world.contains(old));
}
