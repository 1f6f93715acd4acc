//! How each engine's bodies are spawned (at the start, and again every
//! frame in the churn scenario), in the configuration the bench's docs
//! describe: moving bodies kinematic, the others static with
//! `ICOLLIDE_BENCH_STATIC=1` (same body type as the movers otherwise).

use avian3d::prelude as av;
use bevy::prelude::*;
use bevy_icollide::plugin as ic;
use bevy_icollide::testkit::MultiBodyScene;
use bevy_rapier3d::prelude as ra;

use crate::engines::Engine;

/// A moving body's index in the movers' scene.
#[derive(Component, Clone, Copy)]
pub struct Mover(pub u32);

/// Everything needed to spawn body `i` of the scene for one engine.
pub struct Spawner {
    engine: Engine,
    /// Each body's distinct-shape index.
    shape_of: Vec<usize>,
    /// Each body's mover index (`None`: it never moves).
    mover_of: Vec<Option<u32>>,
    /// Non-movers are static bodies.
    static_rest: bool,
    icollide: Vec<ic::Collider>,
    rapier: Vec<ra::Collider>,
    avian: Vec<av::Collider>,
}

impl Spawner {
    pub fn new(engine: Engine, scene: &MultiBodyScene, moving: &[u32], static_rest: bool) -> Self {
        let mut mover_of = vec![None; scene.bodies.len()];
        for (k, &i) in moving.iter().enumerate() {
            mover_of[i as usize] = Some(k as u32);
        }
        let hulls = || hull_points(scene);
        Self {
            engine,
            shape_of: scene.bodies.iter().map(|b| b.shape).collect(),
            mover_of,
            static_rest,
            icollide: match engine {
                Engine::Icollide => scene
                    .shapes
                    .iter()
                    .cloned()
                    .map(ic::Collider::new)
                    .collect(),
                _ => Vec::new(),
            },
            rapier: match engine {
                Engine::Rapier => hulls()
                    .map(|p| ra::Collider::convex_hull(&p).expect("a hull"))
                    .collect(),
                _ => Vec::new(),
            },
            avian: match engine {
                Engine::Avian => hulls()
                    .map(|p| av::Collider::convex_hull(&p).expect("a hull"))
                    .collect(),
                _ => Vec::new(),
            },
        }
    }

    /// Spawns body `i` at `t` (with its `Mover` if it moves).
    pub fn spawn(&self, commands: &mut Commands, i: usize, t: Transform) -> Entity {
        let mut e = commands.spawn(t);
        if let Some(k) = self.mover_of[i] {
            e.insert(Mover(k));
        }
        let still = self.static_rest && self.mover_of[i].is_none();
        let shape = self.shape_of[i];
        match self.engine {
            Engine::Bare => {}
            Engine::Icollide => {
                e.insert(self.icollide[shape].clone());
                if still {
                    e.insert(ic::StaticCollider);
                }
            }
            Engine::Rapier => {
                e.insert(rapier_body(&self.rapier[shape], still));
            }
            Engine::Avian => {
                e.insert(avian_body(&self.avian[shape], still));
            }
        }
        e.id()
    }
}

/// The churn scenario: every frame, `percent` % of the bodies (every
/// `100 / percent`-th, the start rotating) are despawned and spawned
/// again at their current transform, in `Update` after the movers moved.
#[derive(Resource)]
pub struct Churn {
    pub spawner: Spawner,
    /// Each body's current entity.
    pub entities: Vec<Entity>,
    /// Bodies churned per frame: one in `every`.
    every: usize,
    frame: usize,
    /// Entities spawned since the harness last read them, with their
    /// scene indices.
    pub spawned: Vec<(Entity, u32)>,
}

impl Churn {
    pub fn new(spawner: Spawner, entities: Vec<Entity>, percent: usize) -> Self {
        Self {
            spawner,
            entities,
            every: (100 / percent.clamp(1, 100)).max(1),
            frame: 0,
            spawned: Vec::new(),
        }
    }
}

/// Despawns and respawns this frame's share of the bodies.
pub fn churn_bodies(mut commands: Commands, mut churn: ResMut<Churn>, q: Query<&Transform>) {
    let churn = &mut *churn;
    let start = churn.frame % churn.every;
    churn.frame += 1;
    for i in (start..churn.entities.len()).step_by(churn.every) {
        let old = churn.entities[i];
        let t = *q.get(old).expect("a body's transform");
        commands.entity(old).despawn();
        let new = churn.spawner.spawn(&mut commands, i, t);
        churn.entities[i] = new;
        churn.spawned.push((new, i as u32));
    }
}

/// The scene's distinct hulls' vertices.
fn hull_points(scene: &MultiBodyScene) -> impl Iterator<Item = Vec<Vec3>> + '_ {
    scene.shapes.iter().map(|s| {
        s.polytope()
            .expect("the scene's shapes are convex polytopes")
            .vertices()
            .to_vec()
    })
}

/// A kinematic (or fixed) sensor reporting collision events with kinematic
/// and fixed bodies.
fn rapier_body(hull: &ra::Collider, still: bool) -> impl Bundle {
    let body = if still {
        ra::RigidBody::Fixed
    } else {
        ra::RigidBody::KinematicPositionBased
    };
    (
        body,
        hull.clone(),
        ra::Sensor,
        ra::ActiveEvents::COLLISION_EVENTS,
        ra::ActiveCollisionTypes::KINEMATIC_KINEMATIC | ra::ActiveCollisionTypes::KINEMATIC_STATIC,
    )
}

fn avian_body(hull: &av::Collider, still: bool) -> impl Bundle {
    let body = if still {
        av::RigidBody::Static
    } else {
        av::RigidBody::Kinematic
    };
    (body, hull.clone(), av::CollisionEventsEnabled)
}
