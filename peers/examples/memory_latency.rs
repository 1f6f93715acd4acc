//! The machine's cost of a load that misses, by working-set size: loads in
//! a random order through the cache lines of a buffer, or through one line
//! of each 4 KiB page (the same pages, 1/64 of the data: what the TLB's
//! reach costs apart from the cache's), each load's address the previous
//! load's value (the latency: what a query pays per miss it cannot hide)
//! or read from a list (independent loads: how many misses the machine
//! overlaps). To read the per-body figures of `convex_distance` against: a
//! warm Lin–Canny query without read-ahead waits on at least two dependent
//! loads per hull when its hulls have left the cache (the polytope's own
//! fields, then the cached features' records; see `query::lin_canny`).
//!
//! Run: `cargo run --release -p icollide-peers --example memory_latency`
//! (`ICOLLIDE_BENCH_MB=1,16,64,256` sets the working sets, in MiB).

use std::time::Instant;

use bevy_icollide::testkit::Rng;

/// `u64`s per 64-byte cache line: at most one slot of the cycle per line.
const STRIDE: usize = 8;
/// Loads timed per working set.
const LOADS: usize = 4_000_000;

/// `u64`s per 4 KiB page.
const PAGE: usize = 512;

/// Where the loads go: through every cache line of the working set, or
/// through one line of each 4 KiB page, at a random place in its page (so
/// that the lines do not all fall in the same cache sets): the same pages
/// with 1/64 of the data, to tell the TLB's reach from the cache's.
#[derive(Clone, Copy)]
enum Spread {
    EveryLine,
    LinePerPage,
}

/// Mean ns per load over `mib` MiB, the loads in a random order: each
/// load's address the previous load's value (`dependent`: nothing
/// overlaps, the latency), or read from a list (the loads independent: as
/// many in flight as the machine takes, the throughput).
fn chase(mib: usize, spread: Spread, dependent: bool, rng: &mut Rng) -> f64 {
    let words = (mib << 20) / 8;
    let mut order: Vec<usize> = match spread {
        Spread::LinePerPage => (0..words / PAGE)
            .map(|p| p * PAGE + rng.below(PAGE / STRIDE) * STRIDE)
            .collect(),
        Spread::EveryLine => (0..words / STRIDE).map(|l| l * STRIDE).collect(),
    };
    // A random order of the slots (Fisher–Yates), linked into one cycle.
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let mut next = vec![0u64; words];
    for (k, &slot) in order.iter().enumerate() {
        next[slot] = order[(k + 1) % order.len()] as u64;
    }
    let start = Instant::now();
    let mut at = order[0];
    if dependent {
        for _ in 0..LOADS {
            at = next[at] as usize;
        }
    } else {
        for &slot in order.iter().cycle().take(LOADS) {
            at ^= next[slot] as usize;
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / LOADS as f64;
    std::hint::black_box(at);
    ns
}

fn main() {
    let sizes = icollide_peers::env_sizes("ICOLLIDE_BENCH_MB", &[1, 16, 64, 256]);
    let mut rng = Rng::new(1);
    for mib in sizes.into_iter().map(|m| m.max(1)) {
        let mut run = |spread, dependent| chase(mib, spread, dependent, &mut rng);
        let (line, page) = (run(Spread::EveryLine, true), run(Spread::LinePerPage, true));
        let (line_t, page_t) = (
            run(Spread::EveryLine, false),
            run(Spread::LinePerPage, false),
        );
        println!(
            "{mib} MiB: ns per dependent load {line:.1} through every line, {page:.1} through \
             one line per 4 KiB page; ns per independent load {line_t:.1} and {page_t:.1}"
        );
    }
}
