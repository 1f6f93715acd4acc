//! Generational body handles.

use serde::{Deserialize, Serialize};

/// A body of a [`CollisionWorld`](super::CollisionWorld): its slot and the
/// slot's generation. A slot is reused after its body is removed (once the
/// narrow phase has reported its ends), with the next generation, so a stale
/// handle never names the new body: every call with one is
/// [`WorldError::StaleHandle`](super::WorldError::StaleHandle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BodyHandle {
    index: u32,
    generation: u32,
}

impl BodyHandle {
    pub(super) fn new(index: u32, generation: u32) -> Self {
        Self { index, generation }
    }

    /// The slot: a small dense integer, also the body's key in the broad
    /// phase (see [`crate::broad_phase::ProxyKey`]).
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many bodies used the slot before this one.
    pub fn generation(self) -> u32 {
        self.generation
    }

    /// Both numbers in one `u64` (generation in the high half).
    pub fn to_bits(self) -> u64 {
        (u64::from(self.generation) << 32) | u64::from(self.index)
    }

    /// The handle of [`to_bits`](Self::to_bits).
    pub fn from_bits(bits: u64) -> Self {
        Self::new(bits as u32, (bits >> 32) as u32)
    }
}

impl std::fmt::Display for BodyHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}
