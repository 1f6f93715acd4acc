//! The machine's cost of one dependent load, by working-set size: a
//! pointer chase over one random cycle through the cache lines of a buffer
//! (each load's address is the previous load's value, so nothing overlaps).
//! What a query pays per miss it cannot hide, to read the per-body
//! figures of `convex_distance` against: a warm Lin–Canny query without
//! read-ahead waits on at least two such loads per hull when its hulls have
//! left the cache (the polytope's own fields, then the cached features'
//! records; see `query::lin_canny`).
//!
//! Run: `cargo run --release -p icollide-peers --example memory_latency`
//! (`ICOLLIDE_BENCH_MB=1,16,64,256` sets the working sets, in MiB).

use std::time::Instant;

use bevy_icollide::testkit::Rng;

/// `u64`s per 64-byte cache line: one link per line.
const STRIDE: usize = 8;
/// Loads timed per working set.
const LOADS: usize = 4_000_000;

/// Mean ns per dependent load over a random cycle through `mib` MiB.
fn chase(mib: usize, rng: &mut Rng) -> f64 {
    let lines = (mib << 20) / 64;
    // A random order of the lines (Fisher–Yates), linked into one cycle.
    let mut order: Vec<usize> = (0..lines).collect();
    for i in (1..lines).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let mut next = vec![0u64; lines * STRIDE];
    for (k, &line) in order.iter().enumerate() {
        next[line * STRIDE] = (order[(k + 1) % lines] * STRIDE) as u64;
    }
    let mut at = 0usize;
    let start = Instant::now();
    for _ in 0..LOADS {
        at = next[at] as usize;
    }
    let ns = start.elapsed().as_nanos() as f64 / LOADS as f64;
    std::hint::black_box(at);
    ns
}

fn main() {
    let sizes = icollide_peers::env_sizes("ICOLLIDE_BENCH_MB", &[1, 16, 64, 256]);
    let mut rng = Rng::new(1);
    for mib in sizes.into_iter().map(|m| m.max(1)) {
        println!(
            "{mib} MiB: {:.1} ns per dependent load",
            chase(mib, &mut rng)
        );
    }
}
