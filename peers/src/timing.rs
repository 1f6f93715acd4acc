//! Timing helpers shared by the benches: criterion settings, per-sample
//! logs read back for the summaries, scene selection, the load average.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Bencher, BenchmarkGroup, SamplingMode, measurement::WallTime};

/// Criterion samples per benchmark.
pub const SAMPLES: usize = 10;

/// 10 samples, 1 s warm-up, 2.5 s measurement, flat sampling.
pub fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(SAMPLES)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_millis(2500))
        .sampling_mode(SamplingMode::Flat);
}

/// `(seconds, iterations)` of every `iter_custom` call.
pub type Log = Vec<(f64, u64)>;

/// Times `work` with `iter_custom`, one call per iteration (all of it
/// timed), recording every call in `log` (the last [`SAMPLES`] are the
/// samples).
pub fn timed(b: &mut Bencher<'_>, log: &mut Log, mut work: impl FnMut() -> usize) {
    b.iter_custom(|iters| {
        let t = Instant::now();
        for _ in 0..iters {
            black_box(work());
        }
        let e = t.elapsed();
        log.push((e.as_secs_f64(), iters));
        e
    });
}

/// Like [`timed`], but each call does its untimed setup itself and returns
/// the time of the part it measured.
pub fn timed_each(b: &mut Bencher<'_>, log: &mut Log, mut one: impl FnMut() -> Duration) {
    b.iter_custom(|iters| {
        let total: Duration = (0..iters).map(|_| one()).sum();
        log.push((total.as_secs_f64(), iters));
        total
    });
}

/// The last [`SAMPLES`] entries of `log`.
fn samples(log: &Log) -> &[(f64, u64)] {
    &log[log.len().saturating_sub(SAMPLES)..]
}

/// Median of the samples' per-iteration means, in µs.
pub fn median_us(log: &Log) -> f64 {
    let mut s: Vec<f64> = samples(log).iter().map(|&(t, k)| t / k as f64).collect();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2] * 1e6,
        n => 0.5 * (s[n / 2 - 1] + s[n / 2]) * 1e6,
    }
}

/// µs per iteration over the samples: their total time over their
/// iterations.
pub fn mean_us(log: &Log) -> f64 {
    let (t, n) = samples(log)
        .iter()
        .fold((0.0, 0u64), |(t, n), &(dt, k)| (t + dt, n + k));
    t * 1e6 / n as f64
}

/// "met" or "NOT met".
pub fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

/// Scenes to run: `ICOLLIDE_BENCH_SCENES` (comma-separated) or all.
pub fn enabled(scene: &str) -> bool {
    std::env::var("ICOLLIDE_BENCH_SCENES").map_or(true, |s| s.split(',').any(|t| t.trim() == scene))
}

/// The load average, when the system tells it (timings on a shared machine).
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".into(),
        |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}
