//! Sorting the small groups of the AABB build ([`super::aabb_build`]) along
//! one axis, ties in their order (so a build is deterministic).
//!
//! Per record, the standard selection costs several times more in groups
//! of 4–16 (it ends in an insertion sort, whose branches mispredict) than
//! in groups of thousands, and a median tree over `n` primitives has as
//! many records in groups of 16, 8 and 4 as in each level above. So those
//! groups are sorted outright, without a data-dependent branch:
//!
//! - **4 and 8 records by a sorting network** (Batcher's odd–even merge
//!   sort, [`network_sort`]): keys and positions stay in registers and
//!   every record is read once, at its sorted place. In a `perf` profile
//!   of the build, the rank sort's scatter stalled most at 4 records (the
//!   ranks go through memory before they become addresses); with the
//!   networks, `--bench solid` (`ICOLLIDE_BENCH_SCENES=build`, the
//!   worker-thread loop, best of 100 AABB builds, two binaries alternated
//!   three times) went from 3.05 / 2.93 / 2.95 ms to 2.68 / 2.69 /
//!   2.60 ms.
//! - **9–16 records by rank** ([`rank_sort`]): a network for 16 (63
//!   comparators) ran slower, with branch-free comparators too (3.10 /
//!   3.19 / 3.14 ms against 2.52 / 2.58 / 2.52 for the rank sort, same
//!   loop).

use glam::{Vec3, Vec4};

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

/// Sorts a group of at most [`RANK_SORT_MAX`] records along axis `k`,
/// ties in their order: by a sorting network up to 8 records, by rank
/// above.
pub(super) fn rank_sort_any(group: &mut [Record], k: usize) {
    match group.len() {
        0..=4 => network_sort::<4>(group, k, &NETWORK_4),
        5..=8 => network_sort::<8>(group, k, &NETWORK_8),
        _ => rank_sort::<RANK_SORT_MAX>(group, k),
    }
}

/// Batcher's odd–even merge sorting networks for 4 and 8 inputs
/// (comparator pairs, lower index first).
const NETWORK_4: [(u8, u8); 5] = [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)];
#[rustfmt::skip]
const NETWORK_8: [(u8, u8); 19] = [
    (0, 1), (2, 3), (0, 2), (1, 3), (1, 2), (4, 5), (6, 7), (4, 6), (5, 7), (5, 6),
    (0, 4), (2, 6), (2, 4), (1, 5), (3, 7), (3, 5), (1, 2), (3, 4), (5, 6),
];

/// Sorts a group of at most `N` records along axis `k` by a sorting
/// network: each comparator orders two lanes by (key, position) without
/// a branch, keys and positions in registers; lanes past the group hold
/// an infinite key and a position past the group's, so they end last.
/// Every record is then read once, at its sorted place (a gather: no
/// address goes through memory, as the ranks of [`rank_sort`] do).
#[inline(always)]
fn network_sort<const N: usize>(group: &mut [Record], k: usize, network: &[(u8, u8)]) {
    let n = group.len();
    let mut key = keys::<N>(group, k);
    let mut pos: [u32; N] = std::array::from_fn(|i| i as u32);
    for &(a, b) in network {
        let (a, b) = (a as usize, b as usize);
        let (ka, kb, pa, pb) = (key[a], key[b], pos[a], pos[b]);
        let swap = (kb < ka) | ((kb == ka) & (pb < pa));
        key[a] = if swap { kb } else { ka };
        key[b] = if swap { ka } else { kb };
        pos[a] = if swap { pb } else { pa };
        pos[b] = if swap { pa } else { pb };
    }
    let mut sorted = [Record::default(); N];
    for (s, &p) in sorted.iter_mut().zip(&pos).take(n) {
        *s = group[p as usize];
    }
    copy_back(group, &sorted);
}

/// Groups of at most this many records are sorted by rank, not selected.
pub(super) const RANK_SORT_MAX: usize = 16;

/// Sorts a group of at most `N` records along axis `k` by rank: a record's
/// place is the number of keys below its own (ties by position), counted
/// for all `N` lanes at once without a branch, and every record is then
/// written to its place. `O(N²)` comparisons, but vectorised and free of
/// the mispredicted branches that make a small selection (insertion sort)
/// cost several times more per record than a large one.
fn rank_sort<const N: usize>(group: &mut [Record], k: usize) {
    let n = group.len();
    let keys = keys::<N>(group, k);
    let lane: [u32; N] = std::array::from_fn(|i| i as u32);
    let mut rank = [0u32; N];
    for (j, &kj) in keys[..n].iter().enumerate() {
        for i in 0..N {
            let below = kj < keys[i];
            let tie_before = (kj == keys[i]) & ((j as u32) < lane[i]);
            rank[i] += u32::from(below | tie_before);
        }
    }
    let mut sorted = [Record::default(); N];
    for (r, &place) in group.iter().zip(&rank) {
        sorted[place as usize % N] = *r;
    }
    copy_back(group, &sorted);
}

/// The keys of a group of at most `N` records along axis `k`, padded
/// with `+∞` (read through the coordinate array: one load per record,
/// where glam's `Index` is a match).
#[inline(always)]
fn keys<const N: usize>(group: &[Record], k: usize) -> [f32; N] {
    debug_assert!(group.len() <= N);
    let mut keys = [f32::INFINITY; N];
    for (key, r) in keys.iter_mut().zip(group) {
        *key = r.center.as_ref()[k];
    }
    keys
}

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
        for n in 0..=RANK_SORT_MAX {
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
                rank_sort_any(&mut got, k);
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
        for n in 0..=8 {
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
                rank_sort_any(&mut got, 1);
                let got: Vec<u32> = got.iter().map(|r| r.index).collect();
                assert_eq!(got, want, "n = {n}, bits {bits:b}");
            }
        }
    }
}
