//! The pair table: box-overlapping proxy pairs, whether each may reach the
//! narrow phase, and the net per-update changes.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use super::{InvariantError, PairChanges, PairFilter, ProxyKey};
use crate::math::Aabb;

/// A pair of proxies as one `u64`: the smaller id in the high half. Sorting
/// keys sorts pairs lexicographically.
pub type PairKey = u64;

/// The key of the unordered pair `{a, b}`.
#[inline]
pub fn pair_key(a: ProxyKey, b: ProxyKey) -> PairKey {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (u64::from(lo) << 32) | u64::from(hi)
}

/// The two proxies of a key, smaller first.
#[inline]
pub fn pair_ids(key: PairKey) -> (ProxyKey, ProxyKey) {
    ((key >> 32) as u32, key as u32)
}

/// A fixed (not randomly seeded) hasher for pair keys: runs are reproducible.
#[derive(Default, Clone, Copy)]
pub struct PairHasher(u64);

impl Hasher for PairHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    #[inline]
    fn write_u64(&mut self, k: u64) {
        // splitmix64 finalizer: cheap and well mixed.
        let mut z = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.0 = z ^ (z >> 31);
    }
    #[inline]
    fn write_u128(&mut self, k: u128) {
        self.write_u64((k >> 64) as u64);
        let high = self.0;
        self.write_u64(k as u64 ^ high);
    }
}

/// `BuildHasher` for the fixed pair hasher.
pub type PairBuildHasher = BuildHasherDefault<PairHasher>;
/// A map keyed by pair.
pub type PairMap<V> = HashMap<PairKey, V, PairBuildHasher>;
/// A set of pairs.
pub type PairSet = HashSet<PairKey, PairBuildHasher>;

/// The stored pairs (box-overlapping, not static–static, allowed by the
/// caller's [`PairFilter`](super::PairFilter)) and the log of changes
/// since the last [`drain`](PairTable::drain).
#[derive(Default)]
pub(crate) struct PairTable {
    /// Stored pairs.
    pairs: PairSet,
    /// Every change since the last drain: the pair, its sequence number and
    /// whether it was stored before the change. Its memory is reused.
    log: Vec<(PairKey, u32, bool)>,
    /// Pairs per proxy, to skip hash lookups for proxies without pairs.
    per_proxy: Vec<u32>,
}

impl PairTable {
    /// Room for `n` pairs and `n` proxies before allocating.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.pairs.reserve(n);
        self.log.reserve(2 * n);
        self.per_proxy.reserve(n);
    }

    /// Whether proxy `p` is in any pair.
    #[inline]
    pub(crate) fn has_pairs(&self, p: ProxyKey) -> bool {
        self.per_proxy.get(p as usize).is_some_and(|&n| n > 0)
    }

    #[inline]
    fn count_proxies(&mut self, key: PairKey, delta: i32) {
        let (a, b) = pair_ids(key);
        let need = a.max(b) as usize + 1;
        if self.per_proxy.len() < need {
            self.per_proxy.resize(need, 0);
        }
        for p in [a, b] {
            let n = &mut self.per_proxy[p as usize];
            *n = n.wrapping_add_signed(delta);
        }
    }

    #[inline]
    fn push_log(&mut self, key: PairKey, was_stored: bool) {
        let seq = self.log.len() as u32;
        self.log.push((key, seq, was_stored));
    }

    /// Adds a pair (no-op when present).
    #[inline]
    pub(crate) fn add(&mut self, key: PairKey) {
        if self.pairs.insert(key) {
            self.push_log(key, false);
            self.count_proxies(key, 1);
        }
    }

    /// Removes a pair (no-op when absent).
    #[inline]
    pub(crate) fn remove(&mut self, key: PairKey) {
        if self.pairs.remove(&key) {
            self.push_log(key, true);
            self.count_proxies(key, -1);
        }
    }

    /// Removes every pair for which `dead(key)` holds.
    pub(crate) fn remove_where(&mut self, mut dead: impl FnMut(PairKey) -> bool) {
        let log = &mut self.log;
        let per_proxy = &mut self.per_proxy;
        self.pairs.retain(|&k| {
            let d = dead(k);
            if d {
                log.push((k, log.len() as u32, true));
                let (a, b) = pair_ids(k);
                per_proxy[a as usize] -= 1;
                per_proxy[b as usize] -= 1;
            }
            !d
        });
    }

    /// Number of stored pairs.
    pub(crate) fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The stored pairs (reproducible order).
    pub(crate) fn active(&self) -> impl Iterator<Item = PairKey> + '_ {
        self.pairs.iter().copied()
    }

    /// Whether the pair of `a` and `b` is stored.
    pub(crate) fn is_active(&self, a: ProxyKey, b: ProxyKey) -> bool {
        self.contains(pair_key(a, b))
    }

    /// Whether the pair is stored.
    #[inline]
    pub(crate) fn contains(&self, key: PairKey) -> bool {
        self.pairs.contains(&key)
    }

    /// Turns the change log into the net changes since the last drain,
    /// sorted, in `out` (cleared first): a pair that flickered in between is
    /// in neither list. Clears the log.
    pub(crate) fn drain(&mut self, out: &mut PairChanges) {
        out.clear();
        // By key, then sequence: a key's first entry holds its state before
        // the first change. (Unstable sort: no scratch allocation.)
        self.log.sort_unstable_by_key(|&(k, seq, _)| (k, seq));
        let mut prev = None;
        for i in 0..self.log.len() {
            let (key, _, was_live) = self.log[i];
            if prev == Some(key) {
                continue;
            }
            prev = Some(key);
            match (was_live, self.contains(key)) {
                (false, true) => out.started.push(key),
                (true, false) => out.ended.push(key),
                _ => {}
            }
        }
        self.log.clear();
    }

    /// Whether changes wait to be drained.
    pub(crate) fn has_changes(&self) -> bool {
        !self.log.is_empty()
    }

    /// The O(n²) reference check of a broad phase's output: the table
    /// (valid itself) holds exactly the pairs of `live` proxies (key, box,
    /// static) whose boxes overlap, that are not both static, and that
    /// `filter` allows.
    pub(crate) fn check_exact<F: PairFilter + ?Sized>(
        &self,
        live: &[(ProxyKey, Aabb, bool)],
        filter: &F,
    ) -> Result<(), InvariantError> {
        self.validate().map_err(InvariantError)?;
        let mut want = 0;
        for (i, &(a, box_a, static_a)) in live.iter().enumerate() {
            for &(b, box_b, static_b) in &live[i + 1..] {
                let pair = !(static_a && static_b) && box_a.overlaps(&box_b) && filter.allows(a, b);
                if pair != self.contains(pair_key(a, b)) {
                    return Err(InvariantError(format!(
                        "pair ({a}, {b}) wrong in the table"
                    )));
                }
                want += usize::from(pair);
            }
        }
        if want != self.len() {
            return Err(InvariantError("the pair table holds dead pairs".into()));
        }
        Ok(())
    }

    /// Checks the per-proxy counts against the pairs.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let mut counts = vec![0u32; self.per_proxy.len()];
        for &k in &self.pairs {
            let (a, b) = pair_ids(k);
            if a >= b {
                return Err(format!("pair key {k:#x} is not ordered"));
            }
            for p in [a, b] {
                let c = counts
                    .get_mut(p as usize)
                    .ok_or_else(|| format!("proxy {p} has pairs but no count"))?;
                *c += 1;
            }
        }
        if counts != self.per_proxy {
            return Err("per-proxy pair counts differ from the pairs".into());
        }
        Ok(())
    }
}
