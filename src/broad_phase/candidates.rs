//! The candidate pairs of [`Enlarged`](super::Enlarged): one dense array,
//! and each proxy's list of its candidates threaded through it. Generic
//! over what each pair carries: the narrow phase keeps its active pairs'
//! states in one (`narrow_phase`), so that a frame where few bodies moved
//! finds the pairs to test through the moved bodies' lists.
//!
//! A frame where every body moved tests the array in one pass, reading
//! the candidates in order and the two moved flags of each (branches that
//! predict well when nearly every flag is set). A frame where few moved walks the moved proxies'
//! lists instead, so it costs time in what moved, not in all the
//! candidates.
//!
//! The lists are intrusive and doubly linked: each candidate keeps, for
//! each of its two proxies, the next and the previous candidate of that
//! proxy (`Links`, an array beside the candidates, which the one pass does
//! not read). So the index allocates nothing but its two arrays' growth,
//! however the candidates come and go (per-proxy `SmallVec`s spilled to
//! the heap as proxies gained candidates: allocations in steady-state
//! frames), and a candidate is unlinked in constant time once found;
//! finding one walks its two proxies' lists in turn, so costs at most
//! twice the shorter.
//! A removal moves the last candidate into the hole and relinks its
//! neighbours.
//!
//! Walking per proxy when every body moved was slower than one pass: in
//! `--bench broad_phase` at 10 000 bodies, 0.51 ms per frame against 0.33
//! ms for the sorted vector before it (separate runs of the same day). A
//! pair of moved proxies sits in two lists and is skipped in one of them
//! on a data-dependent branch, and each list ends at a different length.

use super::ProxyKey;
use super::pairs::{PairKey, pair_key};
use crate::math::prefetch::prefetch_value;

/// The end of a list.
pub(crate) const NIL: u32 = u32::MAX;

/// A candidate: a pair of proxies and what it carries (for
/// [`Enlarged`](super::Enlarged): whether their tight boxes overlap, as of
/// the last update).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Candidate<T = bool> {
    /// The smaller proxy.
    pub(crate) a: ProxyKey,
    /// The larger proxy.
    pub(crate) b: ProxyKey,
    /// What the pair carries.
    pub(crate) value: T,
}

impl<T> Candidate<T> {
    /// The pair's key.
    #[inline]
    pub(crate) fn key(&self) -> PairKey {
        pair_key(self.a, self.b)
    }

    /// The proxy other than `p`, which must be one of the two (`a ^ b ^ p`
    /// is `b` for `a` and `a` for `b`).
    #[inline]
    pub(crate) fn other(&self, p: ProxyKey) -> ProxyKey {
        self.a ^ self.b ^ p
    }

    /// Which of the two lists (0 for `a`'s, 1 for `b`'s) is `p`'s; `p` must
    /// be one of the two.
    #[inline]
    fn side(&self, p: ProxyKey) -> usize {
        usize::from(p == self.b)
    }
}

/// A candidate's neighbours in its two proxies' lists (by side, as
/// [`Candidate::side`]).
#[derive(Clone, Copy, Debug)]
struct Links {
    next: [u32; 2],
    prev: [u32; 2],
}

/// The candidates and the per-proxy lists. See the module docs.
pub(crate) struct CandidateIndex<T = bool> {
    all: Vec<Candidate<T>>,
    links: Vec<Links>,
    /// Each proxy's first candidate, or [`NIL`].
    heads: Vec<u32>,
    /// Each proxy's number of candidates.
    degree: Vec<u32>,
}

impl<T> Default for CandidateIndex<T> {
    fn default() -> Self {
        Self {
            all: Vec::new(),
            links: Vec::new(),
            heads: Vec::new(),
            degree: Vec::new(),
        }
    }
}

impl<T> CandidateIndex<T> {
    /// Number of candidates.
    pub(crate) fn len(&self) -> usize {
        self.all.len()
    }

    /// Every candidate, in no particular order.
    #[inline]
    pub(crate) fn all(&self) -> &[Candidate<T>] {
        &self.all
    }

    /// Every candidate, to write their values (not their proxies).
    #[inline]
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = (PairKey, &mut T)> + '_ {
        self.all
            .iter_mut()
            .map(|c| (pair_key(c.a, c.b), &mut c.value))
    }

    /// The candidates at the slots `sorted` (ascending, distinct), with
    /// their values to write; stops at a slot out of order or range.
    pub(crate) fn values_at<'a>(
        &'a mut self,
        sorted: &'a [u32],
    ) -> impl Iterator<Item = (PairKey, &'a mut T)> + 'a {
        let (mut rest, mut base) = (self.all.as_mut_slice(), 0usize);
        sorted.iter().map_while(move |&s| {
            let tail = std::mem::take(&mut rest).get_mut((s as usize).checked_sub(base)?..)?;
            let (c, after) = tail.split_first_mut()?;
            (rest, base) = (after, s as usize + 1);
            Some((pair_key(c.a, c.b), &mut c.value))
        })
    }

    /// Proxy `p`'s number of candidates.
    #[inline]
    pub(crate) fn degree(&self, p: ProxyKey) -> u32 {
        self.degree.get(p as usize).copied().unwrap_or(0)
    }

    /// Where proxy `p`'s first candidate is in [`all`](Self::all), or
    /// [`NIL`].
    #[inline]
    pub(crate) fn head(&self, p: ProxyKey) -> u32 {
        self.heads.get(p as usize).copied().unwrap_or(NIL)
    }

    /// Starts loading where `p`'s list starts (a hint; any `p`).
    #[inline]
    pub(crate) fn prefetch_head(&self, p: ProxyKey) {
        if let Some(h) = self.heads.get(p as usize) {
            prefetch_value(h, 4);
        }
    }

    /// Starts loading `p`'s first candidate and its links (a hint; any
    /// `p`). Reads `p`'s head: call [`prefetch_head`](Self::prefetch_head)
    /// a few proxies earlier.
    #[inline]
    pub(crate) fn prefetch_first(&self, p: ProxyKey) {
        let s = self.head(p) as usize;
        if let (Some(c), Some(l)) = (self.all.get(s), self.links.get(s)) {
            prefetch_value(c, 4);
            prefetch_value(l, 4);
        }
    }

    /// The candidate after the one at `s` in `p`'s list, or [`NIL`].
    #[inline]
    pub(crate) fn next(&self, s: u32, p: ProxyKey) -> u32 {
        self.links[s as usize].next[self.all[s as usize].side(p)]
    }

    /// Where `p`'s candidates are, in list order.
    #[cfg(test)]
    pub(super) fn list(&self, p: ProxyKey) -> impl Iterator<Item = u32> + '_ {
        let mut s = self.head(p);
        std::iter::from_fn(move || {
            let here = s;
            (here != NIL).then(|| {
                s = self.next(here, p);
                here
            })
        })
    }

    /// Adds the candidate `{a, b}`, `a < b`, which must not be one yet, at
    /// the front of both lists, at the end of [`all`](Self::all).
    pub(crate) fn insert(&mut self, a: ProxyKey, b: ProxyKey, value: T) {
        debug_assert!(
            a < b && self.find(a, b).is_none(),
            "({a}, {b}) is a candidate"
        );
        debug_assert!(self.all.len() < NIL as usize);
        if self.heads.len() <= b as usize {
            self.heads.resize(b as usize + 1, NIL);
            self.degree.resize(b as usize + 1, 0);
        }
        self.degree[a as usize] += 1;
        self.degree[b as usize] += 1;
        let s = self.all.len() as u32;
        let c = Candidate { a, b, value };
        let next = [a, b].map(|p| self.heads[p as usize]);
        for (side, p) in [a, b].into_iter().enumerate() {
            if next[side] != NIL {
                self.set_prev(next[side], p, s);
            }
            self.heads[p as usize] = s;
        }
        self.all.push(c);
        self.links.push(Links {
            next,
            prev: [NIL; 2],
        });
    }

    fn set_prev(&mut self, s: u32, p: ProxyKey, to: u32) {
        let side = self.all[s as usize].side(p);
        self.links[s as usize].prev[side] = to;
    }

    fn set_next(&mut self, s: u32, p: ProxyKey, to: u32) {
        let side = self.all[s as usize].side(p);
        self.links[s as usize].next[side] = to;
    }

    /// Where the candidate `{a, b}` is: `a`'s and `b`'s lists walked in
    /// turn, so the shorter decides the cost (a candidate is in both: once
    /// one list ends without it, it is not one).
    pub(crate) fn find(&self, a: ProxyKey, b: ProxyKey) -> Option<u32> {
        let (mut x, mut y) = (self.head(a), self.head(b));
        while x != NIL && y != NIL {
            for (s, p) in [(&mut x, a), (&mut y, b)] {
                if *s != NIL {
                    // The candidate at `s` is `p`'s; is its other proxy
                    // the other of `a` and `b`?
                    if self.all[*s as usize].other(p) == a ^ b ^ p {
                        return Some(*s);
                    }
                    *s = self.next(*s, p);
                }
            }
        }
        None
    }

    /// Removes the candidate `{a, b}`; its value, or `None` if it was not
    /// one. The last candidate moves into its slot.
    pub(crate) fn remove(&mut self, a: ProxyKey, b: ProxyKey) -> Option<T> {
        let s = self.find(a, b)?;
        self.relink(s, true);
        self.degree[a as usize] -= 1;
        self.degree[b as usize] -= 1;
        let c = self.all.swap_remove(s as usize);
        self.links.swap_remove(s as usize);
        if (s as usize) < self.all.len() {
            // The last candidate moved to `s`: its neighbours learn where.
            self.relink(s, false);
        }
        Some(c.value)
    }

    /// Points the neighbours of the candidate at `s`, in both its lists,
    /// past it (`unlink`) or at `s` (after a move).
    fn relink(&mut self, s: u32, unlink: bool) {
        let (a, b) = (self.all[s as usize].a, self.all[s as usize].b);
        let l = self.links[s as usize];
        for (side, p) in [a, b].into_iter().enumerate() {
            let (next, prev) = (l.next[side], l.prev[side]);
            let (to_next, to_prev) = if unlink { (next, prev) } else { (s, s) };
            if prev == NIL {
                self.heads[p as usize] = to_next;
            } else {
                self.set_next(prev, p, to_next);
            }
            if next != NIL {
                self.set_prev(next, p, to_prev);
            }
        }
    }

    /// Sets the value of the candidate at `s`.
    #[inline]
    pub(crate) fn set_value(&mut self, s: u32, value: T) {
        self.all[s as usize].value = value;
    }

    /// Checks that each proxy's list holds only its candidates, linked
    /// both ways, that every candidate is in both its lists once, and the
    /// proxies' counts.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let mut seen = vec![[false; 2]; self.all.len()];
        for p in 0..self.heads.len() as ProxyKey {
            let (mut prev, mut s) = (NIL, self.head(p));
            while s != NIL {
                let c = self
                    .all
                    .get(s as usize)
                    .ok_or("a list points past the candidates")?;
                let side = c.side(p);
                if (c.a != p && c.b != p) || c.a >= c.b || seen[s as usize][side] {
                    return Err(format!("proxy {p}'s list is broken at ({}, {})", c.a, c.b));
                }
                if self.links[s as usize].prev[side] != prev {
                    return Err(format!("({}, {}) has a wrong back link", c.a, c.b));
                }
                seen[s as usize][side] = true;
                (prev, s) = (s, self.next(s, p));
            }
        }
        if seen.iter().any(|both| !both[0] || !both[1]) {
            return Err("a candidate is missing from a list".into());
        }
        let mut degree = vec![0; self.heads.len()];
        for c in &self.all {
            degree[c.a as usize] += 1;
            degree[c.b as usize] += 1;
        }
        if degree != self.degree {
            return Err("a proxy's count of candidates is wrong".into());
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
                    let found = index.list(p).map(|s| index.all()[s as usize]);
                    let c = found
                        .filter(|c| c.other(p) == a ^ b ^ p)
                        .collect::<Vec<_>>();
                    assert_eq!(c.len(), 1, "step {step}: ({a}, {b}) listed under {p}");
                    assert_eq!((c[0].key(), c[0].value), (pair_key(a, b), on));
                }
            }
        }
        for s in 0..index.len() as u32 {
            index.set_value(s, true);
        }
        assert!(index.all().iter().all(|c| c.value));
        index.validate().unwrap();
        let slots = [1, 4, 5, (index.len() - 1) as u32];
        let picked: Vec<_> = index.values_at(&slots).map(|(k, _)| k).collect();
        let expected: Vec<_> = slots
            .iter()
            .map(|&s| index.all()[s as usize].key())
            .collect();
        assert_eq!(picked, expected);
        for (a, b) in set.keys().copied().collect::<Vec<_>>() {
            index.remove(a, b);
        }
        index.validate().unwrap();
        assert!((0..12).all(|p| index.degree(p) == 0 && index.head(p) == NIL));
    }
}
