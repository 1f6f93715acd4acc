//! The narrow phase: an exact test for each active pair, from its cached state.
//!
//! Pairs arrive from the broad phase as `started` / `ended` changes; a pair's
//! state ([`PairState`]) lives from the frame its boxes start overlapping to
//! the frame they stop. Each frame only pairs with a moved body are retested
//! (coherence: work grows with what moved).
//!
//! **What "touching" means today.** Exact tests per pair of shape kinds
//! (Lin–Canny for convex polytopes, OBB trees for meshes) are the next
//! milestones. Until a pair of kinds has one, [`test_pair`] reports the overlap
//! of the two objects' *tight* boxes (the dynamic box of the hull, or the fixed
//! cube, without the broad-phase margin): conservative, never a missed
//! contact, but a box-level answer. [`PairState::exact`] says which it is.

pub mod closest;
pub mod lin_canny;

use crate::math::Aabb;
use crate::shape::{ShapeData, ShapeKind};

/// One side of a pair, as the narrow phase sees it.
pub struct PairSide<'a> {
    /// The shape.
    pub shape: &'a ShapeData,
    /// Its world box without margin.
    pub tight: Aabb,
}

/// The result of one pair test.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairResult {
    /// The objects touch (or, when `exact` is false, their tight boxes do).
    pub touching: bool,
    /// Whether the answer is an exact shape test (`false`: box overlap).
    pub exact: bool,
}

/// Cached state of an active pair.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairState {
    /// Last result.
    pub result: PairResult,
    /// User data of the two bodies, smaller body id first.
    pub user_data: [u64; 2],
}

/// Tests one pair. Dispatches on the two shape kinds; every kind pair is
/// currently answered by tight-box overlap (see the module docs).
pub fn test_pair(a: &PairSide<'_>, b: &PairSide<'_>) -> PairResult {
    match (a.shape.kind(), b.shape.kind()) {
        (
            ShapeKind::Convex(_) | ShapeKind::TriMesh(_),
            ShapeKind::Convex(_) | ShapeKind::TriMesh(_),
        ) => PairResult {
            touching: a.tight.overlaps(&b.tight),
            exact: false,
        },
    }
}
