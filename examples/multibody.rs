//! I-COLLIDE's multi-body simulation, headless, through the Bevy plugin.
//!
//! N convex polytopes (hulls of random points on a sphere) move and spin in a
//! box at a given density, bouncing off the walls. Gameplay systems only
//! listen to `CollisionStart` / `CollisionEnd`. At the end it prints the
//! per-stage timings (mean and worst ms per frame) and the counters.
//!
//! ```text
//! cargo run --release --example multibody -- [N] [frames] [cube|box] [threads] [depth]
//! ```
//!
//! `threads` sizes Bevy's compute task pool (default: all cores), which the
//! narrow phase spreads its pair tests over; `depth` turns on penetration
//! depth (EPA) for overlapping pairs, off by default as in I-COLLIDE.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_icollide::scenes::{MultiBodyParams, MultiBodyScene};
use bevy_transform::prelude::*;

#[derive(Resource)]
struct Scene(MultiBodyScene);

#[derive(Component)]
struct Index(usize);

#[derive(Resource, Default)]
struct Counts {
    starts: u64,
    ends: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = args.first().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let frames: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(300);
    let mode = match args.get(2).map(String::as_str) {
        Some("cube") => BoundsMode::FixedCube,
        _ => BoundsMode::DynamicBox,
    };
    if let Some(threads) = args.get(3).and_then(|s| s.parse::<usize>().ok()) {
        bevy_tasks::ComputeTaskPool::get_or_init(|| {
            bevy_tasks::TaskPoolBuilder::new()
                .num_threads(threads)
                .build()
        });
    }
    let depth = args.get(4).is_some_and(|s| s == "depth");
    let params = MultiBodyParams {
        count,
        ..Default::default()
    };
    let scene = MultiBodyScene::new(&params);
    let mut app = App::new();
    // I-COLLIDE reports collisions, not depths: the bodies pass through each
    // other here, so EPA would dominate the frame.
    let plugin = CollisionPlugin::default().with_penetration(depth);
    app.add_plugins((bevy_transform::TransformPlugin, plugin))
        .init_resource::<Counts>()
        .add_systems(Update, (move_bodies, count_events));
    for (i, body) in scene.bodies.iter().enumerate() {
        let collider = Collider::new(scene.shape_of(i).clone()).with_bounds(mode);
        let t =
            Transform::from_translation(body.pose.translation).with_rotation(body.pose.rotation);
        app.world_mut().spawn((collider, t, Index(i)));
    }
    app.insert_resource(Scene(scene));
    for _ in 0..frames {
        app.update();
    }
    report(&app, count, frames, mode);
    let threads =
        bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default).thread_num();
    println!("compute task pool: {threads} threads; penetration depth: {depth}");
}

fn move_bodies(mut scene: ResMut<Scene>, mut q: Query<(&Index, &mut Transform)>) {
    scene.0.step();
    for (i, mut t) in &mut q {
        let pose = scene.0.bodies[i.0].pose;
        t.translation = pose.translation;
        t.rotation = pose.rotation;
    }
}

fn count_events(
    mut counts: ResMut<Counts>,
    mut starts: MessageReader<CollisionStart>,
    mut ends: MessageReader<CollisionEnd>,
) {
    counts.starts += starts.read().count() as u64;
    counts.ends += ends.read().count() as u64;
}

fn report(app: &App, count: usize, frames: u32, mode: BoundsMode) {
    let d = app.world().resource::<CollisionDiagnostics>();
    let c = app.world().resource::<Counts>();
    let (mean, worst) = (d.mean(), d.worst);
    let ms = |x: std::time::Duration| x.as_secs_f64() * 1e3;
    println!("multibody: {count} objects, {frames} frames, bounds {mode:?}");
    println!("stage         mean ms   worst ms");
    for (name, m, w) in [
        ("sync", mean.sync, worst.sync),
        ("bounds", mean.bounds, worst.bounds),
        ("broad", mean.broad, worst.broad),
        ("narrow", mean.narrow, worst.narrow),
        ("report", mean.report, worst.report),
        ("total", mean.total(), worst.total()),
    ] {
        println!("{name:<12} {:>8.3} {:>10.3}", ms(m), ms(w));
    }
    let s = d.stats;
    println!(
        "last frame: swaps {} | box pairs {} | active pairs {} | touching {}",
        s.swaps.iter().sum::<u64>(),
        s.box_pairs,
        s.active_pairs,
        s.touching
    );
    println!(
        "events: {} CollisionStart, {} CollisionEnd",
        c.starts, c.ends
    );
}
