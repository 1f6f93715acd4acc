//! The four apps: the bare app and one per collision plugin, each in the
//! configuration the file's docs describe, and how each one's start/end
//! messages become its set of touching pairs.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use avian3d::prelude as av;
use bevy::app::{TaskPoolOptions, TaskPoolThreadAssignmentPolicy};
use bevy::ecs::message::{MessageCursor, Messages};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_icollide::plugin as ic;
use bevy_icollide::testkit::MultiBodyScene;
use bevy_rapier3d::prelude as ra;
use cpu_time::ProcessTime;

use crate::avian_detection::add_avian_detection;
use crate::spawn::{Churn, Mover, Spawner, churn_bodies};

/// What the scene does besides moving (knobs `ICOLLIDE_BENCH_STATIC`,
/// `ICOLLIDE_BENCH_CHURN`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Scenario {
    /// The bodies that do not move are static bodies (else the movers'
    /// body type, never moved).
    pub static_rest: bool,
    /// Percent of the bodies despawned and respawned every frame.
    pub churn: usize,
}

/// The engines compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The app without a collision plugin.
    Bare,
    /// This crate's `CollisionPlugin`.
    Icollide,
    /// bevy_rapier3d, collision only.
    Rapier,
    /// avian3d, collision only.
    Avian,
}

impl Engine {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "bare" => Self::Bare,
            "icollide" => Self::Icollide,
            "rapier" => Self::Rapier,
            "avian" => Self::Avian,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Bare => "no collision",
            Self::Icollide => "bevy_icollide",
            Self::Rapier => "bevy_rapier3d",
            Self::Avian => "avian3d",
        }
    }
}

/// Creates Bevy's task pools before any app does (they are global):
/// `threads` compute threads, one IO and one async-compute thread; with
/// feature `parallel`, rayon's global pool (parry's and rapier's parallel
/// code) gets `threads` threads too.
pub fn init_threads(threads: usize) {
    let one = |n: usize| TaskPoolThreadAssignmentPolicy {
        min_threads: n,
        max_threads: n,
        percent: 1.0,
        on_thread_spawn: None,
        on_thread_destroy: None,
    };
    TaskPoolOptions {
        min_total_threads: threads + 2,
        max_total_threads: threads + 2,
        io: one(1),
        async_compute: one(1),
        compute: one(threads),
    }
    .create_default_pools();
    #[cfg(feature = "parallel")]
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .expect("rayon's global pool, built once");
}

/// The moving bodies, as a scene of their own, which a system steps each
/// frame.
#[derive(Resource)]
struct Movers(MultiBodyScene);

/// Steps the movers and writes their transforms (only theirs: the other
/// bodies' transforms are not touched, so change detection sees them
/// still).
fn move_bodies(mut movers: ResMut<Movers>, mut q: Query<(&Mover, &mut Transform)>) {
    movers.0.step();
    for (i, mut t) in &mut q {
        let pose = movers.0.bodies[i.0 as usize].pose;
        t.translation = pose.translation;
        t.rotation = pose.rotation;
    }
}

/// The scene split into its moving bodies (every `every`-th, as a scene of
/// their own, stepped like the whole one) and the indices they have in the
/// whole scene.
pub fn movers(scene: &MultiBodyScene, every: usize) -> (MultiBodyScene, Vec<u32>) {
    let index: Vec<u32> = (0..scene.bodies.len() as u32)
        .step_by(every.max(1))
        .collect();
    let moving = MultiBodyScene {
        shapes: scene.shapes.clone(),
        bodies: index
            .iter()
            .map(|&i| scene.bodies[i as usize].clone())
            .collect(),
        half_size: scene.half_size,
    };
    (moving, index)
}

/// The key of a pair of scene indices, smaller first.
pub fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

/// Cursors over an engine's start and end messages.
enum Reader {
    None,
    Icollide(
        MessageCursor<ic::CollisionStart>,
        MessageCursor<ic::CollisionEnd>,
    ),
    Rapier(MessageCursor<ra::CollisionEvent>),
    Avian(
        MessageCursor<av::CollisionStart>,
        MessageCursor<av::CollisionEnd>,
    ),
}

/// One app and what its messages say.
pub struct Harness {
    pub engine: Engine,
    pub app: App,
    /// Scene index of each body's entity.
    index: HashMap<Entity, u32>,
    reader: Reader,
    /// The pairs touching as of the last update, by [`pair_key`].
    pub touching: HashSet<u64>,
}

impl Harness {
    /// The app of `engine` with the bodies of `scene` at their poses, the
    /// bodies of `moving` (indices `moving_index` in `scene`) moving; the
    /// others static bodies if `scenario.static_rest`; `scenario.churn` %
    /// of the bodies despawned and respawned every frame.
    pub fn new(
        engine: Engine,
        scene: &MultiBodyScene,
        (moving, moving_index): (&MultiBodyScene, &[u32]),
        threads: usize,
        scenario: Scenario,
    ) -> Self {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, TransformPlugin))
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
                1.0 / 60.0,
            )))
            .insert_resource(Movers(moving.clone()))
            .add_systems(Update, move_bodies);
        let reader = match engine {
            Engine::Bare => Reader::None,
            Engine::Icollide => add_icollide(&mut app),
            Engine::Rapier => add_rapier(&mut app, threads),
            Engine::Avian => add_avian(&mut app),
        };
        // `App::run` would do this; plugins register resources in `finish`.
        app.finish();
        app.cleanup();
        let spawner = Spawner::new(engine, scene, moving_index, scenario.static_rest);
        let world = app.world_mut();
        let mut commands = world.commands();
        let entities: Vec<Entity> = scene
            .bodies
            .iter()
            .enumerate()
            .map(|(i, body)| {
                let t = Transform::from_translation(body.pose.translation)
                    .with_rotation(body.pose.rotation);
                spawner.spawn(&mut commands, i, t)
            })
            .collect();
        world.flush();
        let index = entities
            .iter()
            .enumerate()
            .map(|(i, &e)| (e, i as u32))
            .collect();
        if scenario.churn > 0 {
            app.insert_resource(Churn::new(spawner, entities, scenario.churn))
                .add_systems(Update, churn_bodies.after(move_bodies));
        }
        Self {
            engine,
            app,
            index,
            reader,
            touching: HashSet::new(),
        }
    }

    /// This crate's stage times of the last update (wall clock, from its
    /// `CollisionDiagnostics`), how its parallel stages' tasks were shared
    /// out, and the process's CPU time over its world step (bounds, broad
    /// and narrow phase).
    pub fn stage_times(&self) -> Option<(ic::StageTimes, ic::ParallelShares, Duration)> {
        (self.engine == Engine::Icollide).then(|| {
            let w = self.app.world();
            let d = w.resource::<ic::CollisionDiagnostics>();
            (d.last, d.parallel, w.resource::<WorldStepProbe>().last)
        })
    }

    /// Applies the start and end messages written since the last call
    /// (and notes the entities the churn spawned).
    pub fn read_events(&mut self) {
        if let Some(mut churn) = self.app.world_mut().get_resource_mut::<Churn>() {
            self.index.extend(churn.spawned.drain(..));
        }
        let world = self.app.world();
        let index = &self.index;
        let key = |a: Entity, b: Entity| pair_key(index[&a], index[&b]);
        let touching = &mut self.touching;
        match &mut self.reader {
            Reader::None => {}
            Reader::Icollide(start, end) => {
                for e in end.read(world.resource::<Messages<ic::CollisionEnd>>()) {
                    touching.remove(&key(e.collider1, e.collider2));
                }
                for e in start.read(world.resource::<Messages<ic::CollisionStart>>()) {
                    touching.insert(key(e.collider1, e.collider2));
                }
            }
            Reader::Rapier(events) => {
                for e in events.read(world.resource::<Messages<ra::CollisionEvent>>()) {
                    match *e {
                        ra::CollisionEvent::Started(a, b, _) => touching.insert(key(a, b)),
                        ra::CollisionEvent::Stopped(a, b, _) => touching.remove(&key(a, b)),
                    };
                }
            }
            Reader::Avian(start, end) => {
                for e in end.read(world.resource::<Messages<av::CollisionEnd>>()) {
                    touching.remove(&key(e.collider1, e.collider2));
                }
                for e in start.read(world.resource::<Messages<av::CollisionStart>>()) {
                    touching.insert(key(e.collider1, e.collider2));
                }
            }
        }
    }
}

/// The process's CPU time over this crate's world step (stages bounds,
/// broad and narrow phase) in the last update: two probe systems around
/// them, outside the plugin.
#[derive(Resource, Default)]
struct WorldStepProbe {
    start: Option<ProcessTime>,
    last: Duration,
}

fn probe_start(mut p: ResMut<WorldStepProbe>) {
    p.start = Some(ProcessTime::now());
}

fn probe_end(mut p: ResMut<WorldStepProbe>) {
    if let Some(start) = p.start.take() {
        p.last = start.elapsed();
    }
}

fn add_icollide(app: &mut App) -> Reader {
    use ic::CollisionSystems as Set;
    app.add_plugins(
        ic::CollisionPlugin::default()
            .with_messages_for_all_pairs()
            .with_penetration(false),
    )
    .init_resource::<WorldStepProbe>()
    .add_systems(
        PostUpdate,
        (
            probe_start.after(Set::SyncPoses).before(Set::UpdateBounds),
            probe_end.after(Set::NarrowPhase).before(Set::Report),
        ),
    );
    let w = app.world();
    Reader::Icollide(
        w.resource::<Messages<ic::CollisionStart>>().get_cursor(),
        w.resource::<Messages<ic::CollisionEnd>>().get_cursor(),
    )
}

fn add_rapier(app: &mut App, threads: usize) -> Reader {
    let config = ra::RapierConfiguration {
        gravity: Vec3::ZERO,
        simulation_mode: ra::SimulationMode::CollisionOnly,
        num_threads: Some(threads),
        ..ra::RapierConfiguration::new(1.0)
    };
    let init = ra::RapierContextInitialization::InitializeDefaultRapierContext {
        integration_parameters: ra::IntegrationParameters::default(),
        rapier_configuration: config,
        broad_phase_optimization_strategy: ra::BroadPhaseOptimizationStrategy::default(),
    };
    app.add_plugins(
        ra::RapierPhysicsPlugin::<ra::NoUserData>::default().with_custom_initialization(init),
    )
    .insert_resource(ra::TimestepMode::Fixed {
        dt: 1.0 / 60.0,
        substeps: 1,
    });
    Reader::Rapier(
        app.world()
            .resource::<Messages<ra::CollisionEvent>>()
            .get_cursor(),
    )
}

fn add_avian(app: &mut App) -> Reader {
    // Spatial queries off: nothing here casts.
    add_avian_detection(app, false);
    let w = app.world();
    Reader::Avian(
        w.resource::<Messages<av::CollisionStart>>().get_cursor(),
        w.resource::<Messages<av::CollisionEnd>>().get_cursor(),
    )
}
