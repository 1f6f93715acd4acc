//! Adapters that run peer crates on bevy_icollide's scenes, for the
//! side-by-side benchmarks in `../benches/`.
