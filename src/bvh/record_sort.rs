//! Sorting the small groups of the AABB build ([`super::aabb_build`]) along
//! one axis, ties in their order (so a build is deterministic).
//!
//! Per record, the standard selection costs several times more in groups
//! of 4–16 (it ends in an insertion sort, whose branches mispredict) than
//! in groups of thousands, and a median tree over `n` primitives has as
//! many records in groups of 16, 8 and 4 as in each level above. So those
//! groups are sorted outright, without a data-dependent branch:
//!
//! - **By a sorting network** (Batcher's odd–even merge sort for 4, 8
//!   and 16 inputs, [`network_sort`]): keys stay in registers and every
//!   record is read once, at its sorted place. In a `perf` profile of the
//!   build, the rank sort used before (a record's place counted as the
//!   number of keys below its own, for all lanes at once) stalled most in
//!   its scatter at 4 records: the ranks go through memory before they
//!   become addresses. With networks for 4 and 8, `--bench solid`
//!   (`ICOLLIDE_BENCH_SCENES=build`, the worker-thread loop, best of 100
//!   AABB builds, two binaries alternated three times) went from 3.05 /
//!   2.93 / 2.95 ms to 2.68 / 2.69 / 2.60 ms.
//! - **A comparator is one integer `min` and one `max`**
//!   ([`packed_keys`]): a key and its record's position packed into one
//!   `u64` that orders like the pair, so ties go by position without a
//!   second comparison. The comparator that compared keys, then
//!   positions on a tie, and moved both took about three times the
//!   instructions, and a network for 16 built of it ran slower than the
//!   rank sort (3.10 / 3.19 / 3.14 ms against 2.52 / 2.58 / 2.52). Packed
//!   keys in the networks for 4 and 8: 2.49 / 2.49 / 2.50 ms before,
//!   2.16 / 2.20 / 2.41 after; then the network for 16 instead of the rank
//!   sort: 2.13 / 2.17 / 2.27 / 2.31 against 2.29 / 2.20 / 2.33 / 2.29
//!   (same loop, alternated). A network for 32 (191 comparators) in place
//!   of the selection for 17–32 records did not pay (2.31 / 2.73 / 2.28
//!   against 2.23 / 2.26 / 2.25).

use glam::{Vec3, Vec4};

use crate::math::ordered_bits;

/// A primitive's center with its index: what the build partitions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(16))]
pub(super) struct Record {
    pub(super) center: Vec3,
    pub(super) index: u32,
}

impl Record {
    /// The record as one 16-byte vector (one load): the center, then the
    /// index's bits in the last lane, which a caller ignores.
    #[inline(always)]
    pub(super) fn lanes(&self) -> Vec4 {
        let c = self.center;
        Vec4::new(c.x, c.y, c.z, f32::from_bits(self.index))
    }
}

/// Sorts a group of at most [`SMALL_SORT_MAX`] records along axis `k`,
/// ties in their order, by the smallest network that holds it.
pub(super) fn sort_small(group: &mut [Record], k: usize) {
    match group.len() {
        0..=4 => network_sort::<4>(group, k, &NETWORK_4),
        5..=8 => network_sort::<8>(group, k, &NETWORK_8),
        _ => network_sort::<16>(group, k, &NETWORK_16),
    }
}

/// Batcher's odd–even merge sorting networks for 4, 8 and 16 inputs
/// (comparator pairs, lower index first).
const NETWORK_4: [(u8, u8); 5] = [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)];
#[rustfmt::skip]
const NETWORK_8: [(u8, u8); 19] = [
    (0, 1), (2, 3), (0, 2), (1, 3), (1, 2), (4, 5), (6, 7), (4, 6), (5, 7), (5, 6),
    (0, 4), (2, 6), (2, 4), (1, 5), (3, 7), (3, 5), (1, 2), (3, 4), (5, 6),
];
#[rustfmt::skip]
const NETWORK_16: [(u8, u8); 63] = [
    (0, 1), (2, 3), (0, 2), (1, 3), (1, 2), (4, 5), (6, 7), (4, 6), (5, 7), (5, 6),
    (0, 4), (2, 6), (2, 4), (1, 5), (3, 7), (3, 5), (1, 2), (3, 4), (5, 6),
    (8, 9), (10, 11), (8, 10), (9, 11), (9, 10), (12, 13), (14, 15), (12, 14), (13, 15), (13, 14),
    (8, 12), (10, 14), (10, 12), (9, 13), (11, 15), (11, 13), (9, 10), (11, 12), (13, 14),
    (0, 8), (4, 12), (4, 8), (2, 10), (6, 14), (6, 10), (2, 4), (6, 8), (10, 12),
    (1, 9), (5, 13), (5, 9), (3, 11), (7, 15), (7, 11), (3, 5), (7, 9), (11, 13),
    (1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14),
];

/// Sorts a group of at most `N` records along axis `k` by a sorting
/// network: each comparator orders two lanes by (key, position) without
/// a branch ([`packed_keys`]; lanes past the group end last). Every
/// record is then read once, at its sorted place, from the position in
/// its key's low half (a gather: no address goes through memory, as a
/// rank sort's scatter does).
#[inline(always)]
fn network_sort<const N: usize>(group: &mut [Record], k: usize, network: &[(u8, u8)]) {
    let n = group.len();
    let mut key = packed_keys::<N>(group, k);
    for &(a, b) in network {
        let (a, b) = (a as usize, b as usize);
        let (x, y) = (key[a], key[b]);
        key[a] = x.min(y);
        key[b] = x.max(y);
    }
    let mut sorted = [Record::default(); N];
    for (s, &p) in sorted.iter_mut().zip(&key).take(n) {
        *s = group[p as u32 as usize];
    }
    copy_back(group, &sorted);
}

/// The keys of a group of at most `N` records along axis `k` as integers
/// that order like (key, position): the key's [`ordered_bits`] in the
/// high half, the record's position in the low half. Lanes past the group hold
/// `u64::MAX`, above every record's. A comparator is then one integer
/// `min` and one `max`.
#[inline(always)]
fn packed_keys<const N: usize>(group: &[Record], k: usize) -> [u64; N] {
    debug_assert!(group.len() <= N);
    let mut keys = [u64::MAX; N];
    for (i, (key, r)) in keys.iter_mut().zip(group).enumerate() {
        *key = (u64::from(ordered_bits(r.center.as_ref()[k])) << 32) | i as u64;
    }
    keys
}

/// Groups of at most this many records are sorted, not selected.
pub(super) const SMALL_SORT_MAX: usize = 16;

/// Copies the first `group.len()` records of `sorted` into `group`, four
/// records (64 bytes) at a time: a copy of variable length becomes a call
/// to `memcpy`, whose fixed cost is a few percent of the build at these
/// sizes.
#[inline(always)]
fn copy_back(group: &mut [Record], sorted: &[Record]) {
    let n = group.len();
    let mut out = group.chunks_exact_mut(4);
    for (o, s) in (&mut out).zip(sorted.chunks_exact(4)) {
        o.copy_from_slice(s);
    }
    let rest = out.into_remainder();
    let done = n - rest.len();
    rest.copy_from_slice(&sorted[done..n]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    #[test]
    fn small_sorts_sort_by_key_then_position() {
        let mut rng = Rng::new(12);
        for n in 0..=SMALL_SORT_MAX {
            for k in 0..3 {
                // Keys on a coarse grid: many ties, -0.0 beside 0.0, and
                // infinities.
                let group: Vec<Record> = (0..n as u32)
                    .map(|index| Record {
                        center: far_out(index, (rng.in_cube(2.0)).round() * -1.0),
                        index,
                    })
                    .collect();
                let mut want = group.clone();
                want.sort_by(|a, b| a.center[k].partial_cmp(&b.center[k]).expect("no NaN"));
                let mut got = group;
                sort_small(&mut got, k);
                let ids = |g: &[Record]| g.iter().map(|r| r.index).collect::<Vec<_>>();
                assert_eq!(ids(&got), ids(&want), "n = {n}, axis {k}");
            }
        }
    }

    /// Two records in seven moved to ±∞ on some axes (never NaN: the
    /// build's records hold none).
    fn far_out(index: u32, c: Vec3) -> Vec3 {
        match index % 7 {
            3 => Vec3::new(f32::INFINITY, c.y, c.z),
            5 => Vec3::new(c.x, f32::NEG_INFINITY, f32::INFINITY),
            _ => c,
        }
    }

    #[test]
    fn networks_sort_every_zero_one_input() {
        // The 0–1 principle: a comparator network that sorts every input
        // of 0s and 1s sorts every input. Positions break ties, so the
        // check is against a stable sort.
        for n in 0..=SMALL_SORT_MAX {
            for bits in 0u32..1 << n {
                let group: Vec<Record> = (0..n as u32)
                    .map(|index| Record {
                        center: Vec3::splat(((bits >> index) & 1) as f32),
                        index,
                    })
                    .collect();
                let mut want: Vec<u32> = group.iter().map(|r| r.index).collect();
                want.sort_by_key(|&i| (bits >> i) & 1);
                let mut got = group;
                sort_small(&mut got, 1);
                let got: Vec<u32> = got.iter().map(|r| r.index).collect();
                assert_eq!(got, want, "n = {n}, bits {bits:b}");
            }
        }
    }
}
