//! `character_frame`: what a Bevy game pays per frame to move kinematic
//! characters through a level, with this crate's `MoveAndSlide` and
//! `KinematicCharacter`, avian3d 0.8's `MoveAndSlide` and bevy_rapier3d
//! 0.37's `KinematicCharacterController` in the same headless app
//! (issue 47), and how deep each leaves them in the level.
//!
//! # Run
//!
//! ```sh
//! cargo bench -p icollide-peers-bevy --ignore-rust-version --bench character_frame
//! ```
//!
//! Knobs: `ICOLLIDE_BENCH_N` (characters, default `1,1000`),
//! `ICOLLIDE_BENCH_FRAMES` (measured frames, default 100),
//! `ICOLLIDE_BENCH_WARMUP` (frames before them, default 20),
//! `ICOLLIDE_BENCH_ENGINES` (any of `slide,controller,avian,rapier`).
//!
//! # Scene
//!
//! The character example's level (`examples/character/level.rs`: a mesh
//! floor with four 0.2 m stairs, a walkable 25° slope and a 60° one),
//! widened along z to hold the characters, plus 0.6 m static cubes at
//! x = −1 every 2 m along z. N capsules (radius 0.3, 1.4 m tall) start on
//! the floor in 10 columns (x = −11 … −2) and rows 1 m apart, and each
//! frame (from the second: the colliders enter each engine's world in the
//! first) every one asks to move 5 cm along +x and 5 cm down (3 m/s
//! forward, a constant 3 m/s fall): those in the box lanes are stopped or slide
//! around a cube, the front columns reach the stairs.
//!
//! # Apps
//!
//! `MinimalPlugins`, `TransformPlugin`, time advanced by exactly 1/60 s per
//! update, one compute thread, no renderer. The characters belong to a
//! layer of their own that collides with nothing (in every engine): no
//! engine's collision pipeline pairs them with the level or each other,
//! so a frame is the characters' moves plus each engine's upkeep of its
//! world (pose sync, boxes, broad-phase tree). Every engine keeps a skin
//! of 0.01 m.
//!
//! - `icollide MoveAndSlide`: a system in `Update` calls the
//!   `MoveAndSlide` system parameter for every character and writes its
//!   `Transform`; `CollisionPlugin::default()`.
//! - `icollide KinematicCharacter`: `CharacterPlugin` (the core's
//!   `CharacterController`: steps up to 0.25 m, at least 0.3 m wide,
//!   snapping 0.2 m, 45° slopes); a system sets each `desired_motion`.
//! - `avian3d MoveAndSlide`: a system in `Update` calls avian's
//!   `MoveAndSlide::move_and_slide` (4 iterations, skin 0.01, its default
//!   depenetration), velocity = motion / dt; `PhysicsPlugins` without the
//!   solver, integrator, CCD, islands, joints, forces and interpolation
//!   (as in `plugin_frame`), its spatial queries kept. Avian's move and
//!   slide has no steps or snapping: compare it with the first row.
//! - `rapier3d KinematicCharacterController`: the component with the same
//!   numbers as ours (offset 0.01, autostep 0.25 / 0.3 without dynamic
//!   bodies, snap 0.2, 45°, no impulses, the level's group only);
//!   `SimulationMode::CollisionOnly`, one fixed step per update. Compare it
//!   with the second row.
//!
//! One process builds the apps and updates them in lockstep, one frame
//! each in turn (the order rotated every frame).
//!
//! # Measured
//!
//! Per engine: the process's CPU time during `app.update()` (median over
//! the measured frames), the characters moved per millisecond of it, the
//! mean distance moved along x, and the penetration after each update —
//! max and mean over characters and frames — by one measure independent
//! of all three (`depth.rs`: `f64`, from the level's definition).

#[path = "../../../examples/character/level.rs"]
#[allow(dead_code)]
mod level;

#[path = "../common/avian_detection.rs"]
mod avian_detection;
mod depth;
mod engines;

use std::time::Instant;

use cpu_time::ProcessTime;
use glam::Vec3;

use depth::{Capsule, Level};
use engines::{Engine, Harness};

struct Settings {
    sizes: Vec<usize>,
    frames: usize,
    warmup: usize,
    engines: Vec<Engine>,
}

fn env_list<T>(name: &str, parse: impl Fn(&str) -> Option<T>) -> Option<Vec<T>> {
    let v = std::env::var(name).ok()?;
    Some(v.split(',').filter_map(|s| parse(s.trim())).collect())
}

impl Settings {
    fn from_env() -> Self {
        let one = |name: &str, default: usize| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        Settings {
            sizes: env_list("ICOLLIDE_BENCH_N", |s| s.parse().ok()).unwrap_or(vec![1, 1000]),
            frames: one("ICOLLIDE_BENCH_FRAMES", 100),
            warmup: one("ICOLLIDE_BENCH_WARMUP", 20),
            engines: env_list("ICOLLIDE_BENCH_ENGINES", Engine::parse)
                .unwrap_or(Engine::ALL.to_vec()),
        }
    }
}

/// One engine's figures.
#[derive(Default)]
struct Stats {
    cpu_ms: Vec<f64>,
    wall_ms: Vec<f64>,
    max_depth: f64,
    depth_sum: f64,
    depth_count: usize,
    advanced: f64,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn level_of(half_width: f32) -> Level {
    let h = f64::from(engines::BOX_HALF);
    Level {
        profile: level::profile()
            .into_iter()
            .map(|(x, y)| (f64::from(x), f64::from(y)))
            .collect(),
        boxes: engines::boxes(half_width)
            .into_iter()
            .map(|c| (c.to_array().map(f64::from), [h; 3]))
            .collect(),
    }
}

/// The penetration of every character after an update.
fn measure(level: &Level, positions: &[Vec3], stats: &mut Stats) {
    for p in positions {
        let d = level.depth(&Capsule {
            center: p.to_array().map(f64::from),
            half: 0.5 * f64::from(engines::SEGMENT),
            radius: f64::from(engines::RADIUS),
        });
        stats.max_depth = stats.max_depth.max(d);
        stats.depth_sum += d;
        stats.depth_count += 1;
    }
}

fn run_size(settings: &Settings, n: usize) {
    let (starts, half_width) = engines::layout(n);
    let level = level_of(half_width);
    let mut apps: Vec<Harness> = settings
        .engines
        .iter()
        .map(|&e| Harness::new(e, n))
        .collect();
    let mut stats: Vec<Stats> = apps.iter().map(|_| Stats::default()).collect();
    let mut positions = Vec::with_capacity(n);
    for frame in 0..settings.warmup + settings.frames {
        let k = apps.len();
        for i in (0..k).map(|i| (i + frame) % k) {
            let (c0, t0) = (ProcessTime::now(), Instant::now());
            apps[i].app.update();
            let (cpu, wall) = (c0.elapsed(), t0.elapsed());
            apps[i].positions(&mut positions);
            let s = &mut stats[i];
            measure(&level, &positions, s);
            if frame >= settings.warmup {
                s.cpu_ms.push(cpu.as_secs_f64() * 1e3);
                s.wall_ms.push(wall.as_secs_f64() * 1e3);
            }
        }
    }
    for (h, s) in apps.iter().zip(&mut stats) {
        h.positions(&mut positions);
        let moved: f32 = positions.iter().zip(&starts).map(|(p, q)| p.x - q.x).sum();
        s.advanced = f64::from(moved) / n as f64;
    }
    report(n, &apps, &stats);
}

fn report(n: usize, apps: &[Harness], stats: &[Stats]) {
    println!("\n{n} characters, median of the measured frames");
    println!(
        "{:<40} {:>9} {:>9} {:>11} {:>9} {:>12} {:>12}",
        "engine", "cpu ms", "wall ms", "chars/ms", "moved x", "max depth", "mean depth"
    );
    for (h, s) in apps.iter().zip(stats) {
        let cpu = median(&s.cpu_ms);
        println!(
            "{:<40} {:>9.3} {:>9.3} {:>11.1} {:>9.3} {:>12.3e} {:>12.3e}",
            h.engine.name(),
            cpu,
            median(&s.wall_ms),
            n as f64 / cpu,
            s.advanced,
            s.max_depth,
            s.depth_sum / s.depth_count.max(1) as f64,
        );
    }
}

fn main() {
    let settings = Settings::from_env();
    println!(
        "character_frame: {} measured frames after {} warm-up, engines {:?}",
        settings.frames, settings.warmup, settings.engines
    );
    for &n in &settings.sizes {
        run_size(&settings, n);
    }
}
