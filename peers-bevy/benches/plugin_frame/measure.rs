//! Timing (wall and process CPU time), each engine's figures over the
//! measured frames, and the report.

use std::time::{Duration, Instant};

use bevy_icollide::plugin::{ParallelShares, StageTimes, TaskShare};
use cpu_time::ProcessTime;

use crate::Settings;
use crate::engines::Engine;
use crate::reference::Check;

/// The process's CPU time (every thread), from `CLOCK_PROCESS_CPUTIME_ID`
/// through the `cpu-time` crate's `ProcessTime`: it includes the running
/// threads' current slices, so a frame's figure is its own.
pub struct CpuClock {
    /// CPU time one empty `time` call reads (the clock's own cost), ns.
    overhead: u64,
}

impl CpuClock {
    pub fn new() -> Self {
        let mut clock = Self { overhead: 0 };
        let mut samples: Vec<u64> = (0..101).map(|_| clock.time(|| {}).1).collect();
        samples.sort_unstable();
        clock.overhead = samples[samples.len() / 2];
        clock
    }

    /// Runs `f`: its wall time and the process's CPU time meanwhile (ns,
    /// less the clock's own cost).
    pub fn time(&mut self, f: impl FnOnce()) -> (Duration, u64) {
        let c0 = ProcessTime::try_now().expect("the process CPU clock");
        let t0 = Instant::now();
        f();
        let wall = t0.elapsed();
        let cpu = c0.try_elapsed().expect("the process CPU clock");
        (wall, (cpu.as_nanos() as u64).saturating_sub(self.overhead))
    }

    pub fn overhead_us(&self) -> f64 {
        self.overhead as f64 * 1e-3
    }
}

/// One engine's figures over the measured frames.
#[derive(Default)]
pub struct EngineStats {
    wall_ms: Vec<f64>,
    cpu_ms: Vec<f64>,
    /// Pairs reported touching, per measured frame.
    reported: Vec<usize>,
    /// Checked frames, and the sums of their counts.
    checked: usize,
    not_touching: usize,
    missed: usize,
    max_gap: f64,
    band_differs: usize,
    /// This crate's stage times per measured frame, ms: sync, bounds,
    /// broad, narrow, report.
    stages: [Vec<f64>; 5],
    /// This crate's world step, process CPU ms per measured frame.
    world_ms: Vec<f64>,
    /// This crate's parallel stages (pose conversion, pose writes, boxes,
    /// pair tests):
    /// tasks run, of them run off the system's thread, and the hand-over
    /// time (µs) of the frames where one was.
    tasks: [u32; 4],
    elsewhere: [u32; 4],
    hand_over_us: [Vec<f64>; 4],
}

impl EngineStats {
    pub fn add_time(&mut self, wall: Duration, cpu_ns: u64) {
        self.wall_ms.push(wall.as_secs_f64() * 1e3);
        self.cpu_ms.push(cpu_ns as f64 * 1e-6);
    }

    pub fn add_pairs(&mut self, n: usize) {
        self.reported.push(n);
    }

    pub fn add_check(&mut self, c: &Check) {
        self.checked += 1;
        self.not_touching += c.not_touching;
        self.missed += c.missed;
        self.max_gap = self.max_gap.max(c.max_gap);
        self.band_differs += c.band_differs;
    }

    pub fn add_stages(&mut self, t: &StageTimes, world: Duration) {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        self.world_ms.push(ms(world));
        let all = [t.sync, t.bounds, t.broad, t.narrow, t.report];
        for (v, d) in self.stages.iter_mut().zip(all) {
            v.push(ms(d));
        }
    }

    pub fn add_shares(&mut self, p: &ParallelShares) {
        for (k, share) in [p.sync, p.poses, p.bounds, p.narrow].iter().enumerate() {
            let TaskShare {
                tasks,
                elsewhere,
                first_elsewhere,
            } = *share;
            self.tasks[k] += tasks;
            self.elsewhere[k] += elsewhere;
            if let Some(d) = first_elsewhere {
                self.hand_over_us[k].push(d.as_secs_f64() * 1e6);
            }
        }
    }

    /// This crate's parallel stages: the share of their tasks that ran off
    /// the system's thread, and the median hand-over.
    fn shares_line(&self) -> Option<String> {
        if self.tasks.iter().all(|&t| t == 0) {
            return None;
        }
        let names = ["pose conversion", "pose writes", "boxes", "pair tests"];
        let part = |k: usize| {
            format!(
                "{} {}/{} ({:.0} µs)",
                names[k],
                self.elsewhere[k],
                self.tasks[k],
                median(&self.hand_over_us[k])
            )
        };
        Some(format!(
            "  bevy_icollide tasks run off the system's thread (all measured frames; median hand-over): {}, {}, {}, {}",
            part(0),
            part(1),
            part(2),
            part(3)
        ))
    }

    pub fn cpu(&self) -> f64 {
        median(&self.cpu_ms)
    }
}

pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// What one size and scenario measured.
pub struct Run<'a> {
    pub n: usize,
    pub moving: usize,
    pub mean_faces: f32,
    pub engines: &'a [Engine],
    pub stats: &'a [EngineStats],
    pub build_s: f64,
    pub cpu_overhead_us: f64,
    /// Checked frames' exact touching and grazing pair counts (means).
    pub exact_pairs: f64,
    pub grazing: f64,
    pub checked: usize,
}

impl Run<'_> {
    fn stats_of(&self, e: Engine) -> Option<&EngineStats> {
        self.engines
            .iter()
            .position(|&x| x == e)
            .map(|i| &self.stats[i])
    }

    /// The faster peer's median CPU ms per frame.
    fn faster_peer(&self) -> Option<f64> {
        [Engine::Rapier, Engine::Avian]
            .iter()
            .filter_map(|&e| self.stats_of(e).map(EngineStats::cpu))
            .min_by(f64::total_cmp)
    }

    /// The markdown row for docs/BENCHMARKS.md.
    pub fn row(&self) -> String {
        let cell = |e: Engine| {
            self.stats_of(e)
                .map_or("-".into(), |s| format!("{:.2}", s.cpu()))
        };
        let ratio = match (self.stats_of(Engine::Icollide), self.faster_peer()) {
            (Some(s), Some(p)) => format!("{:.2}", s.cpu() / p),
            _ => "-".into(),
        };
        let (world, share) = self.split().map_or(("-".into(), "-".into()), |(w, p, f)| {
            (
                format!("{w:.2}"),
                format!("{p:.2} ({:.0} %)", 100.0 * p / f),
            )
        });
        format!(
            "| {} | {} | {} | {} | {} | {} | {ratio} | {world} | {share} |",
            self.n,
            self.moving,
            cell(Engine::Icollide),
            cell(Engine::Rapier),
            cell(Engine::Avian),
            cell(Engine::Bare),
        )
    }

    /// This crate's world step (process CPU time from the end of its
    /// SyncPoses stage to the end of its NarrowPhase stage, median), plugin
    /// share (its frame less the bare app's, less the world step) and its
    /// frame less the bare app's, ms.
    fn split(&self) -> Option<(f64, f64, f64)> {
        let ours = self.stats_of(Engine::Icollide)?;
        let bare = self.stats_of(Engine::Bare)?;
        let world = median(&ours.world_ms);
        let frame = ours.cpu() - bare.cpu();
        Some((world, frame - world, frame))
    }

    pub fn print(&self, s: &Settings) {
        println!(
            "\nplugin_frame: N = {}, {} moving, {}-point hulls ({:.0} faces), 5 % density, 10°/frame, 1.5 % of the radius/frame",
            self.n,
            self.moving,
            bevy_icollide::testkit::MultiBodyParams::default().hull_points,
            self.mean_faces,
        );
        println!(
            "  {} compute thread(s){}, {} warm-up + {} measured frames, apps built in {:.1} s, load average {}, CPU clock cost {:.1} µs subtracted",
            s.threads,
            if cfg!(feature = "parallel") {
                " (feature parallel)"
            } else {
                ""
            },
            s.warmup,
            s.frames,
            self.build_s,
            load_average(),
            self.cpu_overhead_us,
        );
        println!(
            "  exact check (f64) on {} measured frames: {:.0} touching pairs per frame, {:.1} within the band (undecided)",
            self.checked, self.exact_pairs, self.grazing
        );
        println!(
            "  {:<14} {:>8} {:>8} {:>7} {:>17} {:>13} {:>9} {:>7}",
            "engine",
            "CPU ms",
            "wall ms",
            "÷ peer",
            "pairs/frame",
            "not touching",
            "max gap",
            "missed"
        );
        let peer = self.faster_peer();
        for (&e, st) in self.engines.iter().zip(self.stats) {
            self.print_engine(e, st, peer);
        }
        if let Some(ours) = self.stats_of(Engine::Icollide) {
            println!(
                "  bevy_icollide within the band: {} of the undecided pairs reported otherwise than the f64 overlap's sign (measured checked frames)",
                ours.band_differs
            );
        }
        if let Some((world, share, frame)) = self.split() {
            let ours = self.stats_of(Engine::Icollide).expect("split");
            let m: Vec<f64> = ours.stages.iter().map(|v| median(v)).collect();
            println!(
                "  bevy_icollide stages (wall clock, CollisionDiagnostics, median ms): sync {:.3}, bounds {:.3}, broad {:.3}, narrow {:.3}, report {:.3}",
                m[0], m[1], m[2], m[3], m[4]
            );
            println!(
                "  bevy_icollide CPU: frame − bare app {frame:.3} ms = world step (bounds + broad + narrow) {world:.3} + plugin share {share:.3} ({:.0} %)",
                100.0 * share / frame
            );
        }
        if let Some(line) = self
            .stats_of(Engine::Icollide)
            .and_then(EngineStats::shares_line)
        {
            println!("{line}");
        }
        println!("  row: {}", self.row());
    }

    fn print_engine(&self, e: Engine, st: &EngineStats, peer: Option<f64>) {
        let ratio = peer.map_or("-".into(), |p| format!("{:.2}", st.cpu() / p));
        let (pairs, not_touching, gap, missed) = if e == Engine::Bare {
            ("-".into(), "-".into(), "-".into(), "-".into())
        } else {
            let mean = st.reported.iter().sum::<usize>() as f64 / st.reported.len().max(1) as f64;
            let lo = st.reported.iter().min().copied().unwrap_or(0);
            let hi = st.reported.iter().max().copied().unwrap_or(0);
            let per = |x: usize| format!("{:.1}", x as f64 / st.checked.max(1) as f64);
            (
                format!("{mean:.0} ({lo}–{hi})"),
                per(st.not_touching),
                format!("{:.4}", st.max_gap),
                per(st.missed),
            )
        };
        println!(
            "  {:<14} {:>8.3} {:>8.3} {:>7} {:>17} {:>13} {:>9} {:>7}",
            e.name(),
            st.cpu(),
            median(&st.wall_ms),
            ratio,
            pairs,
            not_touching,
            gap,
            missed,
        );
    }
}
