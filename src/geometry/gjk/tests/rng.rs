//! The crate's seeded PRNG, with the two samplers these tests also need.

pub use crate::testkit::Rng;

/// Integer and boolean sampling on top of [`Rng`].
pub trait RngExt {
    /// Uniform in `[lo, hi)`.
    fn usize(&mut self, lo: usize, hi: usize) -> usize;
    /// A fair coin.
    fn bool(&mut self) -> bool;
}

impl RngExt for Rng {
    fn usize(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo)
    }

    fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
}
