//! I-COLLIDE's multi-body benchmark, headless, through the Bevy plugin.
//!
//! N convex polytopes (hulls of random points on a sphere) move and spin in a
//! box at a given density, bouncing off the walls; colliding pairs exchange
//! velocities, in a gameplay system that reads `CollisionStart`. Prints the
//! time of each stage per frame and the counters per frame.
//!
//! ```text
//! cargo run --release --example multibody -- [--n 1000] [--faces 76] [--rot 10]
//!     [--trans 1.5] [--density 0.05] [--bounds box|cube] [--frames 300]
//!     [--seed 1] [--shapes 32] [--bp-margin 0.25] [--threads K] [--depth] [--ttc] [--overlap]
//!     [--sweep DIR] [--sweep-ttc DIR]
//! ```
//!
//! `--faces` asks for hulls of `faces / 2 + 2` points (`2p - 4` faces);
//! `--rot` is in degrees per frame, `--trans` in percent of the radius per
//! frame, `--density` the fraction of the box the bounding spheres fill,
//! `--shapes` how many distinct hulls the bodies share (`--shapes N`: every
//! body its own, a working set that leaves the cache); `--bp-margin` how far
//! a box may move, relative to its size, before the grid hears of it (0:
//! every move, as before enlarged boxes).
//! Objects start with their bounding spheres apart (as far as random draws
//! find room); `--overlap` places them uniformly, overlaps included.
//! `--threads` sizes Bevy's compute task pool (default: all cores), which the
//! narrow phase spreads its pair tests over; `--depth` turns on penetration
//! depth (EPA), off as in I-COLLIDE; `--ttc` schedules pairs by time to
//! collision (I-COLLIDE §3.4: every body declares the scene's speed and
//! spin per frame, and a pair found apart sleeps until it could touch;
//! turns contact data on, which gives the distance). `--sweep DIR` runs the paper's five
//! graphs (time per frame against N, faces, density, rotation, translation;
//! fixed cubes and dynamic boxes) from the given base parameters and writes
//! `DIR/vs_*.csv` and `DIR/vs_*.svg` (1000 frames per point unless
//! `--frames` says otherwise). `--sweep-ttc DIR` draws the rotation and
//! translation graphs with and without time-to-collision scheduling
//! (`DIR/vs_*_ttc.*`).
//!
//! The collision side is a plain user program on the public API (the
//! prelude: `CollisionPlugin`, `Collider`, `CollisionStart`). The scene
//! generator, `MultiBodyScene`, comes from the crate's test support
//! (`testkit`) so that this example, the tests and the criterion benches
//! all run the same seeded scene.

mod sim;
mod svg;
mod sweep;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use bevy_icollide::prelude::BoundsMode;
use bevy_icollide::testkit::MultiBodyParams;

use sim::{RunParams, Summary, ms};

const USAGE: &str = "usage: multibody [OPTIONS]  (--help lists them)";

const HELP: &str = "\
multibody: I-COLLIDE's multi-body benchmark through the Bevy plugin. N convex
hulls in a cube, each turning and drifting every frame; prints the time per
collision stage (mean and worst ms per frame) and the counters.

usage: multibody [OPTIONS]

scene:
  --n N              objects                                   [default: 1000]
  --faces F          faces per hull (about; 2 points per face) [default: 76]
  --rot DEG          rotation per frame, degrees               [default: 10]
  --trans PERCENT    translation per frame, % of the radius    [default: 1.5]
  --density FRACTION objects' volume over the cube's           [default: 0.05]
  --shapes K         distinct hull shapes (shared by Arc)      [default: 32]
  --seed S           scene seed                                [default: 1]
  --overlap          allow objects to start overlapping        [default: off]
pipeline:
  --bounds box|cube  dynamic boxes or fixed cubes              [default: box]
  --bp-margin M      broad-phase box growth, x largest extent  [default: 0.25]
  --depth            contact data (distance / depth) on        [default: off]
  --ttc              time-to-collision scheduling (implies --depth) [default: off]
  --threads T        compute task pool threads                 [default: all cores]
run:
  --frames K         frames measured (after 5 warm-up frames)  [default: 300; 1000 with --sweep]
  --sweep DIR        the paper's graphs: CSV and SVG per parameter into DIR
  --sweep-ttc DIR    the same with and without time-to-collision
  -h, --help         this text

example: cargo run --release --example multibody -- --n 10000 --bounds cube --rot 2";

/// The command line.
#[derive(Default)]
struct Cli {
    run: RunParams,
    frames: Option<u32>,
    threads: Option<usize>,
    sweep: Option<PathBuf>,
    sweep_ttc: bool,
}

fn main() {
    let cli = match parse(std::env::args().skip(1)) {
        Ok(cli) => cli,
        Err(msg) if msg.is_empty() => {
            println!("{HELP}");
            return;
        }
        Err(msg) => {
            eprintln!("{msg}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let threads = init_pool(cli.threads);
    println!(
        "compute task pool: {threads} threads; penetration depth: {}",
        cli.run.depth
    );
    match &cli.sweep {
        Some(dir) => {
            let frames = cli.frames.unwrap_or(1000);
            run_sweep(dir, &RunParams { frames, ..cli.run }, cli.sweep_ttc);
        }
        None => {
            let frames = cli.frames.unwrap_or(300);
            let p = RunParams { frames, ..cli.run };
            report(&p, &sim::run(&p));
        }
    }
}

/// Sizes Bevy's compute task pool (default: all cores); returns its size.
fn init_pool(threads: Option<usize>) -> usize {
    let pool = bevy_tasks::ComputeTaskPool::get_or_init(|| {
        let mut builder = bevy_tasks::TaskPoolBuilder::new();
        if let Some(t) = threads {
            builder = builder.num_threads(t);
        }
        builder.build()
    });
    pool.thread_num()
}

fn run_sweep(dir: &Path, base: &RunParams, ttc: bool) {
    let result = if ttc {
        // Rotation and translation set the speed bounds that scheduling
        // relies on; contact data on in both series.
        let axes: Vec<sweep::Axis> = sweep::axes()
            .into_iter()
            .filter(|a| a.name == "rotation" || a.name == "translation")
            .collect();
        let base = RunParams {
            depth: true,
            ..*base
        };
        sweep::sweep(dir, &base, &axes, (&sweep::TTC, "_ttc"))
    } else {
        sweep::sweep(dir, base, &sweep::axes(), (&sweep::BOUNDS, ""))
    };
    match result {
        Ok(files) => files.iter().for_each(|f| println!("wrote {}", f.display())),
        Err(e) => {
            eprintln!("sweep: cannot write to {}: {e}", dir.display());
            std::process::exit(1);
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Cli, String> {
    let mut cli = Cli::default();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--depth" => cli.run.depth = true,
            "--ttc" => cli.run.ttc = true,
            "--overlap" => cli.run.scene.separated = false,
            "--help" | "-h" => return Err(String::new()),
            _ if !HELP.contains(&format!("  {flag} ")) => {
                return Err(format!("unknown option {flag}"));
            }
            _ => {
                let value = args.next().ok_or(format!("{flag} needs a value"))?;
                set(&mut cli, &flag, &value)?;
            }
        }
    }
    Ok(cli)
}

fn set(cli: &mut Cli, flag: &str, value: &str) -> Result<(), String> {
    let p = &mut cli.run.scene;
    match flag {
        "--n" => p.count = num(flag, value)?,
        "--faces" => p.hull_points = MultiBodyParams::hull_points_for_faces(num(flag, value)?),
        "--rot" => p.rotation_deg = num(flag, value)?,
        "--trans" => p.translation = num::<f32>(flag, value)? / 100.0,
        "--density" => p.density = num(flag, value)?,
        "--seed" => p.seed = num(flag, value)?,
        "--shapes" => p.distinct_shapes = num(flag, value)?,
        "--bp-margin" => {
            let m: f32 = num(flag, value)?;
            if !(m.is_finite() && m >= 0.0) {
                return Err(format!(
                    "--bp-margin takes a finite value >= 0, not {value}"
                ));
            }
            cli.run.broad_phase_margin = m;
        }
        "--frames" => cli.frames = Some(num(flag, value)?),
        "--threads" => cli.threads = Some(num(flag, value)?),
        "--sweep" => cli.sweep = Some(value.into()),
        "--sweep-ttc" => {
            cli.sweep = Some(value.into());
            cli.sweep_ttc = true;
        }
        "--bounds" => {
            cli.run.bounds = match value {
                "box" => BoundsMode::DynamicBox,
                "cube" => BoundsMode::FixedCube,
                _ => return Err(format!("--bounds takes box or cube, not {value}")),
            }
        }
        _ => return Err(format!("unknown option {flag}")),
    }
    Ok(())
}

fn num<T: FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{flag}: cannot read {value:?} as a number"))
}

fn report(p: &RunParams, s: &Summary) {
    let sc = &p.scene;
    println!(
        "multibody: {} objects, {:.1} faces ({} hull points), density {:.1} %, {}°/frame, \
         {:.2} % of radius/frame, {:?}, {} frames after {} warm-up, seed {}{}",
        sc.count,
        s.mean_faces,
        sc.hull_points,
        sc.density * 100.0,
        sc.rotation_deg,
        sc.translation * 100.0,
        p.bounds,
        s.frames,
        p.warmup,
        sc.seed,
        if sc.separated {
            ""
        } else {
            ", overlaps allowed"
        }
    );
    println!("stage         mean ms   worst ms");
    let (m, w) = (s.mean, s.worst);
    for (name, a, b) in [
        ("sync", m.sync, w.sync),
        ("bounds", m.bounds, w.bounds),
        ("broad", m.broad, w.broad),
        ("narrow", m.narrow, w.narrow),
        ("report", m.report, w.report),
        ("total", m.total(), w.total()),
    ] {
        println!("{name:<12} {:>8.3} {:>10.3}", ms(a), ms(b));
    }
    println!(
        "per frame: {:.1} swaps | {:.1} box pairs | {:.1} active pairs | {:.1} pairs tested | {:.1} touching | {:.2} new collisions",
        s.swaps, s.box_pairs, s.active_pairs, s.pair_tests, s.touching, s.starts
    );
}
