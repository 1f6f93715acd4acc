//! Test support, not public API: seeded generators and scenes, and the
//! brute-force references every query is checked against. Compiled for the
//! crate's own unit tests and, with the feature `testkit` (which the test,
//! example and bench builds turn on), for the integration tests, the
//! examples and the benches, so that all of them use one copy.

mod cast;
mod exact;
mod reference;
mod rng;
mod scenes;

pub use cast::*;
pub use exact::*;
pub use reference::*;
pub use rng::Rng;
pub use scenes::*;

/// How many times longer the seeded suites run: `ICOLLIDE_LONG=N` (N ≥ 1)
/// runs N times more cases; unset, 1 (the quick default of `cargo test`).
pub fn long_factor() -> usize {
    std::env::var("ICOLLIDE_LONG")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// Whether a long run was asked for (`ICOLLIDE_LONG` set): the suites then
/// add their slow models and placements.
pub fn long_run() -> bool {
    std::env::var("ICOLLIDE_LONG").is_ok()
}
