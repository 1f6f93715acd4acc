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
