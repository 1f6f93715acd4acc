//! Lifecycle soak: bodies are added, removed, re-added (slots reused),
//! given new shapes, layers, static and active flags, and pairs are
//! deactivated and reactivated, interleaved at random with motion, for
//! thousands of frames. Every frame the world's touching set (kept from its
//! start / end events, which must never start a touching pair or end an
//! untouching one) equals a brute-force world: every pair of live, posed
//! bodies that the rules allow (layers, not both static, both active, pair
//! enabled) and that `query::intersects` says touch.

use std::collections::{BTreeMap, BTreeSet};

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, Layers, WorldConfig};
use bevy_icollide::query::intersects;
use bevy_icollide::testkit::{Rng, sphere_hull, torus};
use glam::{Quat, Vec3};

const HALF: f32 = 3.0;

/// What the reference knows of a body.
#[derive(Clone)]
struct Mirror {
    shape: SharedShape,
    pose: Pose,
    layers: Layers,
    is_static: bool,
    active: bool,
}

struct Soak {
    world: CollisionWorld,
    bodies: BTreeMap<BodyHandle, Mirror>,
    disabled: BTreeSet<[BodyHandle; 2]>,
    shapes: Vec<SharedShape>,
    rng: Rng,
}

fn key(a: BodyHandle, b: BodyHandle) -> [BodyHandle; 2] {
    [a.min(b), a.max(b)]
}

impl Soak {
    fn any(&mut self) -> Option<BodyHandle> {
        let n = self.bodies.len();
        (n > 0).then(|| *self.bodies.keys().nth(self.rng.below(n)).expect("in range"))
    }

    fn add(&mut self) {
        let shape = self.shapes[self.rng.below(self.shapes.len())].clone();
        let mut desc = BodyDesc::new(shape.clone());
        desc.bounds = [BoundsMode::DynamicBox, BoundsMode::FixedCube][self.rng.below(2)];
        desc.layers = self.layers();
        desc.is_static = self.rng.below(5) == 0;
        let h = self.world.add_body(desc.clone());
        let pose = Pose::new(self.rng.rotation(), self.rng.in_cube(HALF));
        self.world.set_pose(h, pose).expect("pose");
        let m = Mirror {
            shape,
            pose,
            layers: desc.layers,
            is_static: desc.is_static,
            active: true,
        };
        self.bodies.insert(h, m);
    }

    fn layers(&mut self) -> Layers {
        Layers {
            memberships: 1 << self.rng.below(3),
            filters: [u32::MAX, 0b011, 0b101][self.rng.below(3)],
        }
    }

    /// One random change of the configuration.
    fn change(&mut self) {
        let Some(h) = self.any() else {
            return self.add();
        };
        match self.rng.below(8) {
            0 => self.add(),
            1 => {
                self.world.remove_body(h).expect("live");
                self.bodies.remove(&h);
                self.disabled.retain(|k| !k.contains(&h));
            }
            2 => {
                let shape = self.shapes[self.rng.below(self.shapes.len())].clone();
                self.world
                    .set_shape(h, shape.clone(), BoundsMode::DynamicBox)
                    .expect("live");
                self.bodies.get_mut(&h).expect("live").shape = shape;
            }
            3 => {
                let layers = self.layers();
                self.world.set_layers(h, layers).expect("live");
                self.bodies.get_mut(&h).expect("live").layers = layers;
            }
            4 => {
                let m = self.bodies.get_mut(&h).expect("live");
                m.is_static = !m.is_static;
                self.world.set_static(h, m.is_static).expect("live");
            }
            5 => {
                let m = self.bodies.get_mut(&h).expect("live");
                m.active = !m.active;
                self.world.set_active(h, m.active).expect("live");
            }
            _ => {
                let Some(g) = self.any().filter(|&g| g != h) else {
                    return;
                };
                let k = key(h, g);
                let enable = self.disabled.contains(&k);
                self.world.set_pair_enabled(h, g, enable).expect("live");
                if enable {
                    self.disabled.remove(&k);
                } else {
                    self.disabled.insert(k);
                }
            }
        }
    }

    fn move_some(&mut self) {
        let ids: Vec<BodyHandle> = self.bodies.keys().copied().collect();
        for h in ids {
            if self.rng.below(3) != 0 {
                continue;
            }
            let m = self.bodies.get_mut(&h).expect("live");
            let turn = Quat::from_axis_angle(self.rng.unit_vector(), self.rng.range(0.0, 0.3));
            let t = (m.pose.translation + self.rng.in_cube(0.3))
                .clamp(Vec3::splat(-HALF), Vec3::splat(HALF));
            m.pose = Pose::new((turn * m.pose.rotation).normalize(), t);
            self.world.set_pose(h, m.pose).expect("pose");
        }
    }

    /// The brute-force touching set.
    fn reference(&self) -> BTreeSet<[BodyHandle; 2]> {
        let all: Vec<(&BodyHandle, &Mirror)> = self.bodies.iter().collect();
        let mut out = BTreeSet::new();
        for (i, (ha, a)) in all.iter().enumerate() {
            for (hb, b) in &all[i + 1..] {
                let allowed = a.layers.allows(&b.layers)
                    && !(a.is_static && b.is_static)
                    && a.active
                    && b.active
                    && !self.disabled.contains(&key(**ha, **hb));
                if allowed && intersects(&a.shape, &a.pose, &b.shape, &b.pose).expect("valid") {
                    out.insert(key(**ha, **hb));
                }
            }
        }
        out
    }
}

#[test]
fn lifecycle_soak_against_a_brute_force_world() {
    let mut rng = Rng::new(17);
    let (v, t) = torus(0.4, 0.12, 10, 6);
    let shapes = vec![
        sphere_hull(&mut rng, 14, 0.4),
        SharedShape::cuboid(Vec3::new(0.4, 0.2, 0.3)).expect("cuboid"),
        SharedShape::sphere(0.3).expect("sphere"),
        SharedShape::capsule(0.15, 0.5).expect("capsule"),
        SharedShape::trimesh(v, t).expect("torus"),
    ];
    let mut s = Soak {
        world: CollisionWorld::new(WorldConfig {
            margin: 0.02,
            ..Default::default()
        })
        .expect("config"),
        bodies: BTreeMap::new(),
        disabled: BTreeSet::new(),
        shapes,
        rng,
    };
    for _ in 0..40 {
        s.add();
    }
    let mut touching = BTreeSet::new();
    let (mut events, mut max_touching) = (0, 0);
    for frame in 0..2000 {
        for _ in 0..s.rng.below(4) {
            s.change();
        }
        s.move_some();
        for e in s.world.step() {
            let k = key(e.bodies[0], e.bodies[1]);
            events += 1;
            if e.started {
                assert!(touching.insert(k), "frame {frame}: {k:?} started twice");
            } else {
                assert!(touching.remove(&k), "frame {frame}: {k:?} ended untouched");
            }
        }
        let want = s.reference();
        assert_eq!(touching, want, "frame {frame}");
        max_touching = max_touching.max(want.len());
    }
    assert!(
        events >= 500 && max_touching >= 5,
        "{events} events, at most {max_touching} touching"
    );
}
