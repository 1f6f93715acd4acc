//! The bodies whose box changed since the last narrow phase: their slots
//! in the order they first moved, and one bit per slot.
//!
//! The narrow phase asks "did this body move?" for both bodies of every
//! pair it checks. Asked of the body's record, that is one cache line of a
//! 448-byte record per body, and when most bodies are static and few move
//! the static side's record is far from the cache: the question then cost
//! a miss per pair before the pair's read-ahead could hint anything
//! (docs/notes/EXPERIMENTS.md#static2). One bit per slot keeps the
//! answer for 100 000 bodies in 12.5 KB.

use std::ops::Deref;

/// Bits per word of [`MovedBodies`]' set.
const WORD: usize = u64::BITS as usize;

/// The moved bodies' slots, listed and as a bit set (see the module docs).
#[derive(Debug, Default)]
pub(super) struct MovedBodies {
    /// The slots, each once, in the order they first moved.
    list: Vec<u32>,
    /// Bit `i % 64` of word `i / 64` is set when slot `i` is listed. Grows
    /// with the highest slot that ever moved (never shrinks), so steady
    /// frames allocate nothing.
    bits: Vec<u64>,
}

impl MovedBodies {
    /// Marks slot `i` moved; `true` if it was not already.
    #[inline]
    pub(super) fn insert(&mut self, i: u32) -> bool {
        let (w, bit) = (i as usize / WORD, 1u64 << (i as usize % WORD));
        if w >= self.bits.len() {
            self.bits.resize(w + 1, 0);
        }
        let word = &mut self.bits[w];
        if *word & bit != 0 {
            return false;
        }
        *word |= bit;
        self.list.push(i);
        true
    }

    /// Whether slot `i` moved.
    #[inline]
    pub(super) fn contains(&self, i: u32) -> bool {
        let (w, bit) = (i as usize / WORD, i as usize % WORD);
        self.bits.get(w).is_some_and(|word| (word >> bit) & 1 != 0)
    }

    /// Forgets every moved slot (per listed slot, not per word).
    pub(super) fn clear(&mut self) {
        for &i in &self.list {
            self.bits[i as usize / WORD] = 0;
        }
        self.list.clear();
    }
}

impl Deref for MovedBodies {
    type Target = [u32];

    /// The listed slots, in the order they first moved.
    fn deref(&self) -> &[u32] {
        &self.list
    }
}

#[cfg(test)]
mod tests {
    use super::MovedBodies;

    /// Against a plain list: slots on both sides of the word boundaries,
    /// repeated, cleared and marked again.
    #[test]
    fn the_bits_agree_with_the_list() {
        let mut m = MovedBodies::default();
        let slots = [0u32, 63, 64, 1, 63, 127, 128, 5000, 0, 64];
        let mut listed: Vec<u32> = Vec::new();
        for round in 0..3 {
            for &i in &slots[round..] {
                let new = !listed.contains(&i);
                assert_eq!(m.insert(i), new, "slot {i}");
                if new {
                    listed.push(i);
                }
                assert_eq!(&*m, &listed[..]);
            }
            for i in 0..5100 {
                assert_eq!(m.contains(i), listed.contains(&i), "slot {i}");
            }
            m.clear();
            listed.clear();
            assert!((0..5100).all(|i| !m.contains(i)));
        }
    }
}
