//! One run of the multi-body benchmark through the Bevy plugin: an `App`
//! with `CollisionPlugin`, no window. Gameplay is event-driven: a system
//! reading `CollisionStart` makes the two bodies exchange velocities.

use std::time::Duration;

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::broad_phase::enlarged::DEFAULT_MARGIN;
use bevy_icollide::plugin::StageTimes;
use bevy_icollide::prelude::*;
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};
use bevy_transform::prelude::*;

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct RunParams {
    /// The scene: count, hull points, density, speeds, seed, placement
    /// (default: bounding spheres apart at the start).
    pub scene: MultiBodyParams,
    /// Fixed cubes or dynamic boxes.
    pub bounds: BoundsMode,
    /// Frames measured.
    pub frames: u32,
    /// Frames run before measuring (the first one sorts everything).
    pub warmup: u32,
    /// Penetration depth (EPA) for overlapping pairs; off in I-COLLIDE.
    pub depth: bool,
    /// Time-to-collision scheduling (I-COLLIDE §3.4): every body declares
    /// the scene's largest speed and spin per frame (`MaxFrameMotion`).
    pub ttc: bool,
    /// The broad phase's margin (`CollisionPlugin::with_broad_phase_margin`).
    pub broad_phase_margin: f32,
}

impl Default for RunParams {
    fn default() -> Self {
        Self {
            scene: MultiBodyParams {
                separated: true,
                ..Default::default()
            },
            bounds: BoundsMode::DynamicBox,
            frames: 300,
            warmup: 5,
            depth: false,
            ttc: false,
            broad_phase_margin: DEFAULT_MARGIN,
        }
    }
}

/// What a run measured: stage times and counters, per frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    /// Frames measured.
    pub frames: u64,
    /// Mean face count of the polytopes.
    pub mean_faces: f32,
    /// Mean time of each stage.
    pub mean: StageTimes,
    /// Worst time of each stage.
    pub worst: StageTimes,
    /// Endpoint swaps (all three axes).
    pub swaps: f64,
    /// Pairs whose boxes overlap.
    pub box_pairs: f64,
    /// Pairs in the narrow phase.
    pub active_pairs: f64,
    /// Pairs the narrow phase tested.
    pub pair_tests: f64,
    /// Pairs touching (exact).
    pub touching: f64,
    /// `CollisionStart` messages (new collisions).
    pub starts: f64,
}

impl Summary {
    /// What I-COLLIDE times: bounds, sweep and prune, exact tests (ms).
    pub fn collision_ms(&self) -> f64 {
        ms(self.mean.bounds + self.mean.broad + self.mean.narrow)
    }
}

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[derive(Resource)]
struct Scene(MultiBodyScene);

/// The body's index in the scene.
#[derive(Component)]
struct Index(usize);

/// Counters summed over the measured frames.
#[derive(Resource, Default)]
struct Totals {
    swaps: u64,
    box_pairs: u64,
    active_pairs: u64,
    pair_tests: u64,
    touching: u64,
    starts: u64,
}

/// Runs the scene and returns what it measured.
pub fn run(p: &RunParams) -> Summary {
    let scene = MultiBodyScene::new(&p.scene);
    let mean_faces = scene.mean_faces();
    let mut app = App::new();
    // Every pair's messages (I-COLLIDE reports all collisions): no body
    // needs `CollisionEventsEnabled`.
    let plugin = CollisionPlugin::default()
        .with_messages_for_all_pairs()
        .with_penetration(p.depth)
        .with_time_to_collision(p.ttc)
        .with_broad_phase_margin(p.broad_phase_margin)
        .expect("the command line checks the margin");
    let bound = MaxFrameMotion {
        linear: scene
            .bodies
            .iter()
            .fold(0.0, |m, b| m.max(b.velocity.length())),
        angular: p.scene.rotation_deg.to_radians(),
    };
    app.add_plugins((bevy_transform::TransformPlugin, plugin))
        .init_resource::<Totals>()
        .add_systems(Update, (exchange_velocities, move_bodies).chain())
        .add_systems(PostUpdate, accumulate.after(CollisionSystems::Report));
    for (i, body) in scene.bodies.iter().enumerate() {
        let collider = Collider::new(scene.shape_of(i).clone()).with_bounds(p.bounds);
        let t =
            Transform::from_translation(body.pose.translation).with_rotation(body.pose.rotation);
        let mut body = app.world_mut().spawn((collider, t, Index(i)));
        if p.ttc {
            body.insert(bound);
        }
    }
    app.insert_resource(Scene(scene));
    for _ in 0..p.warmup {
        app.update();
    }
    app.insert_resource(CollisionDiagnostics::default());
    app.insert_resource(Totals::default());
    for _ in 0..p.frames {
        app.update();
    }
    summarize(app.world(), mean_faces)
}

/// The response: colliding bodies exchange velocities.
fn exchange_velocities(
    mut scene: ResMut<Scene>,
    mut starts: MessageReader<CollisionStart>,
    index: Query<&Index>,
) {
    for ev in starts.read() {
        if let Ok([a, b]) = index.get_many([ev.collider1, ev.collider2]) {
            scene.0.exchange_velocities(a.0, b.0);
        }
    }
}

fn move_bodies(mut scene: ResMut<Scene>, mut q: Query<(&Index, &mut Transform)>) {
    scene.0.step();
    for (i, mut t) in &mut q {
        let pose = scene.0.bodies[i.0].pose;
        t.translation = pose.translation;
        t.rotation = pose.rotation;
    }
}

fn accumulate(
    diagnostics: Res<CollisionDiagnostics>,
    mut totals: ResMut<Totals>,
    mut starts: MessageReader<CollisionStart>,
) {
    let s = diagnostics.stats;
    totals.swaps += s.swaps.iter().sum::<u64>();
    totals.box_pairs += u64::from(s.box_pairs);
    totals.active_pairs += u64::from(s.active_pairs);
    totals.pair_tests += u64::from(s.pair_tests);
    totals.touching += u64::from(s.touching);
    totals.starts += starts.read().count() as u64;
}

fn summarize(world: &World, mean_faces: f32) -> Summary {
    let d = world.resource::<CollisionDiagnostics>();
    let t = world.resource::<Totals>();
    let per_frame = |x: u64| x as f64 / d.frames.max(1) as f64;
    Summary {
        frames: d.frames,
        mean_faces,
        mean: d.mean(),
        worst: d.worst,
        swaps: per_frame(t.swaps),
        box_pairs: per_frame(t.box_pairs),
        active_pairs: per_frame(t.active_pairs),
        pair_tests: per_frame(t.pair_tests),
        touching: per_frame(t.touching),
        starts: per_frame(t.starts),
    }
}
