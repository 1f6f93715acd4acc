//! The candidate pairs of [`Enlarged`](super::Enlarged): one dense array,
//! and each proxy's list of its places in it.
//!
//! A frame where every body moved tests the array in one pass, with the
//! two moved flags of each candidate read in order (predictable branches,
//! sequential loads). A frame where few moved walks the moved proxies'
//! lists instead, so it costs time in what moved, not in all the
//! candidates. Each candidate records its position in both lists, so adding
//! or removing one takes constant time besides finding it (a search of the
//! shorter of its two lists): a removal swap-removes from both lists and
//! from the array and tells the entries moved into the holes where they
//! now are.
//!
//! Walking per proxy when every body moved was slower than the one pass
//! (about 1.4× in a scratch run at 10 000 bodies): a pair of moved proxies
//! sits in two lists and is skipped in one of them on a data-dependent
//! branch, and each list ends at a different length.

use smallvec::SmallVec;

use super::ProxyKey;
use super::pairs::{PairKey, pair_key};

/// A candidate: a pair of proxies, its positions in their lists, and
/// whether the tight boxes overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Candidate {
    /// The smaller proxy.
    pub(super) a: ProxyKey,
    /// The larger proxy.
    pub(super) b: ProxyKey,
    /// Where this candidate is in `a`'s list and in `b`'s.
    at: [u32; 2],
    /// Whether the tight boxes overlap, as of the last update.
    pub(super) on: bool,
}

impl Candidate {
    /// The pair's key.
    #[inline]
    pub(super) fn key(&self) -> PairKey {
        pair_key(self.a, self.b)
    }

    /// The proxy other than `p` (one of the two).
    #[inline]
    pub(super) fn other(&self, p: ProxyKey) -> ProxyKey {
        self.a ^ self.b ^ p
    }

    /// Which list (0 for `a`'s, 1 for `b`'s) `p`'s is.
    #[inline]
    fn side(&self, p: ProxyKey) -> usize {
        usize::from(p == self.b)
    }
}

/// Places kept in a proxy's slot before its list spills to the heap: in
/// the broad-phase bench a proxy has about two candidates.
const INLINE: usize = 4;

type List = SmallVec<[u32; INLINE]>;

/// The candidates and the per-proxy lists. See the module docs.
#[derive(Default)]
pub(super) struct CandidateIndex {
    all: Vec<Candidate>,
    lists: Vec<List>,
}

impl CandidateIndex {
    /// Number of candidates.
    pub(super) fn len(&self) -> usize {
        self.all.len()
    }

    /// Number of proxies that have had a list.
    pub(super) fn proxies(&self) -> usize {
        self.lists.len()
    }

    /// Every candidate, in no particular order.
    #[inline]
    pub(super) fn all(&self) -> &[Candidate] {
        &self.all
    }

    /// Where proxy `p`'s candidates are in [`all`](Self::all).
    #[inline]
    pub(super) fn list(&self, p: ProxyKey) -> &[u32] {
        self.lists.get(p as usize).map_or(&[], |l| l.as_slice())
    }

    /// Adds the candidate `{a, b}`, `a < b`, which must not be one yet.
    pub(super) fn insert(&mut self, a: ProxyKey, b: ProxyKey, on: bool) {
        debug_assert!(a < b);
        if self.lists.len() <= b as usize {
            self.lists.resize_with(b as usize + 1, List::new);
        }
        let at = [a, b].map(|p| self.lists[p as usize].len() as u32);
        let s = self.all.len() as u32;
        self.lists[a as usize].push(s);
        self.lists[b as usize].push(s);
        self.all.push(Candidate { a, b, at, on });
    }

    /// Removes the candidate `{a, b}`, `a < b`; its `on` flag, or `None`
    /// if it was not one.
    pub(super) fn remove(&mut self, a: ProxyKey, b: ProxyKey) -> Option<bool> {
        let p = if self.list(a).len() <= self.list(b).len() {
            a
        } else {
            b
        };
        let s = *self
            .list(p)
            .iter()
            .find(|&&s| self.all[s as usize].other(p) == a ^ b ^ p)?;
        let c = self.all[s as usize];
        self.unlink(c.a, c.at[0]);
        self.unlink(c.b, c.at[1]);
        self.all.swap_remove(s as usize);
        if let Some(&moved) = self.all.get(s as usize) {
            for (side, p) in [moved.a, moved.b].into_iter().enumerate() {
                self.lists[p as usize][moved.at[side] as usize] = s;
            }
        }
        Some(c.on)
    }

    /// Swap-removes place `i` of `p`'s list and tells the candidate whose
    /// place moved into the hole.
    fn unlink(&mut self, p: ProxyKey, i: u32) {
        let list = &mut self.lists[p as usize];
        list.swap_remove(i as usize);
        if let Some(&t) = list.get(i as usize) {
            let c = &mut self.all[t as usize];
            c.at[c.side(p)] = i;
        }
    }

    /// Sets the `on` flag of the candidate at `s`.
    #[inline]
    pub(super) fn set_on(&mut self, s: u32, on: bool) {
        self.all[s as usize].on = on;
    }

    /// Checks that each candidate is where its proxies' lists say, and
    /// each list entry points at a candidate of that proxy.
    pub(super) fn validate(&self) -> Result<(), String> {
        for (s, c) in self.all.iter().enumerate() {
            for (side, p) in [c.a, c.b].into_iter().enumerate() {
                if self.list(p).get(c.at[side] as usize) != Some(&(s as u32)) || c.a >= c.b {
                    return Err(format!("candidate ({}, {}) is not in its lists", c.a, c.b));
                }
            }
        }
        let places: usize = self.lists.iter().map(|l| l.len()).sum();
        if places != 2 * self.all.len() {
            return Err(format!(
                "{places} list places for {} candidates",
                self.all.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserts and removes pairs in a fixed pseudo-random order, checking
    /// the lists and the flags against a plain set after every step.
    #[test]
    fn the_lists_match_a_set_of_pairs_under_churn() {
        let mut index = CandidateIndex::default();
        let mut set = std::collections::BTreeMap::new();
        let mut s = 12345u64;
        for step in 0..4000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (x, y) = (((s >> 33) % 12) as ProxyKey, ((s >> 45) % 12) as ProxyKey);
            if x == y {
                continue;
            }
            let (a, b) = (x.min(y), x.max(y));
            match set.remove(&(a, b)) {
                Some(on) => assert_eq!(index.remove(a, b), Some(on), "step {step}"),
                None => {
                    assert_eq!(index.remove(a, b), None, "step {step}");
                    let on = s & 1 == 1;
                    index.insert(a, b, on);
                    set.insert((a, b), on);
                }
            }
            index.validate().unwrap();
            assert_eq!(index.len(), set.len());
            for (&(a, b), &on) in &set {
                for p in [a, b] {
                    let found = index.list(p).iter().map(|&s| index.all()[s as usize]);
                    let c = found
                        .filter(|c| c.other(p) == a ^ b ^ p)
                        .collect::<Vec<_>>();
                    assert_eq!(c.len(), 1, "step {step}: ({a}, {b}) listed under {p}");
                    assert_eq!((c[0].key(), c[0].on), (pair_key(a, b), on));
                }
            }
        }
        for s in 0..index.len() as u32 {
            index.set_on(s, true);
        }
        assert!(index.all().iter().all(|c| c.on));
        index.validate().unwrap();
    }
}
