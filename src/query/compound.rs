//! Compound pairs: recurse through the piece trees to the piece pairs whose
//! boxes overlap, and test each with `test_pair` from its
//! own cache (Cohen et al., I-COLLIDE, 1995, §5: a non-convex object as a
//! hierarchy of convex pieces, each piece pair with its own closest
//! features).
//!
//! Candidate piece pairs are found in two steps: the pieces of A whose boxes
//! overlap B's box (A's tree, queried with B's box in A's frame), then for
//! each of them the pieces of B overlapping that piece's box (B's tree). A
//! shape that is not a compound is its own single piece, number 0. Piece
//! boxes only cull: they are made a few ulps larger than the rotated box
//! ([`Aabb::transformed`]), so a cull never drops a touching pair.
//!
//! The pair's cache is the sorted list of candidate piece pairs with their
//! caches; a piece pair that stays a candidate keeps its Lin–Canny features
//! from frame to frame, and dropped caches are kept for reuse (no
//! allocation in steady state).

use super::cache::{CachePool, PairCache, QueryScratch};
use super::dispatch::test_pair;
use super::pair::{ContactData, PairResult, PairSide};
use crate::math::{Aabb, Pose};
use glam::Vec3;

/// One tested piece pair of a compound pair.
#[derive(Clone, Debug, Default)]
pub struct PiecePair {
    /// `[piece of A, piece of B]` (0 for a shape that is not a compound).
    pub pieces: [u32; 2],
    /// The pieces' last result.
    pub result: PairResult,
    /// The pieces' warm-start data (Lin–Canny features, triangle pairs).
    pub cache: PairCache,
}

/// The cache of a pair involving a compound.
#[derive(Clone, Debug, Default)]
pub struct CompoundCache {
    /// Candidate piece pairs of the last test, sorted by `pieces`.
    pairs: Vec<PiecePair>,
    /// Caches of dropped piece pairs, for reuse.
    spare: CachePool,
    /// The next frame's list, built here and swapped in.
    next: Vec<PiecePair>,
}

impl CompoundCache {
    /// The piece pairs tested last time (those whose boxes overlapped),
    /// sorted by piece indices.
    pub fn piece_pairs(&self) -> &[PiecePair] {
        &self.pairs
    }

    pub(super) fn recycle(&mut self) {
        for p in self.pairs.drain(..) {
            self.spare.put(p.cache);
        }
    }
}

/// A piece of one side, in world space.
#[derive(Clone, Copy, Debug)]
pub(super) struct PieceAt {
    index: u32,
    pose: Pose,
    tight: Aabb,
}

/// The pieces of `side` whose boxes overlap `query` (world space), in
/// ascending piece order, into `out`.
fn pieces_overlapping(side: &PairSide<'_>, query: &Aabb, out: &mut Vec<PieceAt>) {
    out.clear();
    let Some(c) = side.shape.compound() else {
        out.push(PieceAt {
            index: 0,
            pose: side.pose,
            tight: side.tight,
        });
        return;
    };
    let local_query = query.transformed(&side.pose.inverse());
    c.for_each_overlap(&local_query, |i| {
        let piece = &c.pieces()[i as usize];
        let pose = side.pose.mul(&piece.pose);
        let tight = piece.shape.local_aabb().transformed(&pose);
        if tight.overlaps(query) {
            out.push(PieceAt {
                index: i,
                pose,
                tight,
            });
        }
        true
    });
    out.sort_unstable_by_key(|p| p.index);
}

/// The piece as a pair side: its shape, world pose and box. The side of a
/// shape that is not a compound is itself (its deformed surface and scale
/// kept).
fn side_of<'a>(side: &PairSide<'a>, piece: &PieceAt, boolean_only: bool) -> PairSide<'a> {
    let Some(c) = side.shape.compound() else {
        return PairSide {
            boolean_only,
            ..*side
        };
    };
    PairSide {
        shape: &c.pieces()[piece.index as usize].shape,
        pose: piece.pose,
        tight: piece.tight,
        boolean_only,
        deformed: None,
        scale: Vec3::ONE,
    }
}

/// Tests a pair where at least one side is a compound.
pub(super) fn compound_pair(
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    cache: &mut CompoundCache,
    scratch: &mut QueryScratch,
) -> PairResult {
    let boolean_only = a.boolean_only || b.boolean_only;
    let [mut pieces_a, mut pieces_b] = std::mem::take(&mut scratch.pieces);
    pieces_overlapping(a, &b.tight, &mut pieces_a);
    let mut best: Option<ContactData> = None;
    let mut touching = false;
    let mut old = std::mem::take(&mut cache.pairs);
    let mut old_at = 0;
    cache.next.clear();
    'outer: for pa in &pieces_a {
        pieces_overlapping(b, &pa.tight, &mut pieces_b);
        for pb in &pieces_b {
            let key = [pa.index, pb.index];
            let sides = (side_of(a, pa, boolean_only), side_of(b, pb, boolean_only));
            let mut entry = take_cached(&mut old, &mut old_at, key, &sides, &mut cache.spare);
            entry.result = test_pair(&sides.0, &sides.1, &mut entry.cache, scratch);
            touching |= entry.result.touching;
            best = better(best, entry.result.contact, key);
            cache.next.push(entry);
            if touching && boolean_only {
                break 'outer;
            }
        }
    }
    for p in old.drain(old_at..) {
        cache.spare.put(p.cache);
    }
    old.clear();
    scratch.pieces = [pieces_a, pieces_b];
    cache.pairs = std::mem::replace(&mut cache.next, old);
    PairResult::exact_with_contact(touching, boolean_only, || best)
}

/// The cached entry for `key` from the sorted `old` list (skipping and
/// recycling the entries before it), or a fresh one with a spare cache of
/// the kind the pieces need.
fn take_cached(
    old: &mut [PiecePair],
    at: &mut usize,
    key: [u32; 2],
    (a, b): &(PairSide<'_>, PairSide<'_>),
    spare: &mut CachePool,
) -> PiecePair {
    while *at < old.len() && old[*at].pieces < key {
        spare.put(std::mem::take(&mut old[*at].cache));
        *at += 1;
    }
    if *at < old.len() && old[*at].pieces == key {
        *at += 1;
        return std::mem::take(&mut old[*at - 1]);
    }
    PiecePair {
        pieces: key,
        result: PairResult::default(),
        cache: spare.take(a.shape, b.shape),
    }
}

/// Keeps the more telling contact: the deepest penetration, else the
/// smallest distance; ties keep the earlier piece pair.
fn better(
    best: Option<ContactData>,
    new: Option<ContactData>,
    pieces: [u32; 2],
) -> Option<ContactData> {
    let Some(mut new) = new else { return best };
    new.pieces = pieces;
    let Some(best) = best else { return Some(new) };
    let key = |c: &ContactData| (c.distance, -c.depth);
    if key(&new) < key(&best) {
        Some(new)
    } else {
        Some(best)
    }
}
