//! What a pair keeps between tests: its warm-start cache by pair kind
//! ([`PairCache`]), pooled by kind for reuse ([`CachePool`]), and the
//! scratch memory all tests share ([`QueryScratch`]).

use crate::bvh::CollideScratch;
use crate::collider::{ShapeData, ShapeKind};
use crate::geometry::epa::EpaScratch;

use super::cast::CastScratch;
use super::compound::{CompoundCache, PieceAt};
use super::lin_canny::{self, ConvexCache};
use crate::math::prefetch::{LINE, prefetch_value};

/// What a pair keeps between frames, by pair kind.
#[derive(Clone, Debug, Default)]
pub enum PairCache {
    /// Nothing yet: the pair has not been tested since it started.
    #[default]
    None,
    /// Lin–Canny features and the GJK simplex.
    Convex(Box<ConvexCache>),
    /// Intersecting triangle pairs `[of the first body, of the second]`
    /// (all of them, or the first one for boolean-only pairs).
    Mesh(Vec<[u32; 2]>),
    /// The piece pairs of a pair involving a compound, each with its cache.
    Compound(Box<CompoundCache>),
}

impl PairCache {
    /// Clears the warm-start data but keeps the allocations, for reuse by
    /// another pair (no allocation per new pair in steady state).
    pub fn recycle(&mut self) {
        match self {
            PairCache::Convex(c) => {
                c.features = None;
                c.gjk.reset();
            }
            PairCache::Mesh(pairs) => pairs.clear(),
            PairCache::Compound(c) => c.recycle(),
            PairCache::None => {}
        }
    }

    /// The triangle pairs of a mesh cache, the cache made one (dropping
    /// any other kind's data) first; always `Some`.
    pub(crate) fn mesh_pairs(&mut self) -> Option<&mut Vec<[u32; 2]>> {
        if !matches!(self, PairCache::Mesh(_)) {
            *self = PairCache::Mesh(Vec::new());
        }
        match self {
            PairCache::Mesh(pairs) => Some(pairs),
            _ => None,
        }
    }
}

/// Read-ahead for the narrow phase (see `math::prefetch`): hints for what
/// [`test_pair`] of a pair will read, in the order its loads depend on one
/// another. Hints only: no result changes.
impl PairCache {
    /// Six pairs ahead: the cache's own allocation (a convex pair's
    /// features and GJK hints).
    #[inline]
    pub fn prefetch(&self) {
        if let PairCache::Convex(c) = self {
            prefetch_value(&**c, 4 * LINE);
        }
    }

    /// Two pairs ahead, once the shapes and the cache are loaded: the
    /// records the warm start points at (Lin–Canny's features, GJK's
    /// hill-climbing hints) of a convex pair.
    #[inline]
    pub fn prefetch_records(&self, a: &ShapeData, b: &ShapeData) {
        if let (PairCache::Convex(c), ShapeKind::Convex(pa), ShapeKind::Convex(pb)) =
            (self, a.kind(), b.kind())
        {
            lin_canny::prefetch_pair(pa, pb, c);
            pa.prefetch_vertex(c.gjk.hint_a);
            pb.prefetch_vertex(c.gjk.hint_b);
        }
    }
}

impl PairCache {
    /// The pool slot of this cache's kind (`None` for [`PairCache::None`]).
    fn slot(&self) -> Option<usize> {
        match self {
            PairCache::None => None,
            PairCache::Convex(_) => Some(0),
            PairCache::Mesh(_) => Some(1),
            PairCache::Compound(_) => Some(2),
        }
    }

    /// The pool slot of the cache [`test_pair`] keeps for shapes `a`, `b`
    /// (`None`: the pair keeps nothing, two spheres or capsules, a
    /// half-space and a convex shape).
    fn slot_for(a: &ShapeData, b: &ShapeData) -> Option<usize> {
        use ShapeKind::*;
        match (a.kind(), b.kind()) {
            // A composite (a compound, a polyline): its parts' pairs.
            _ if a.compound().is_some() || b.compound().is_some() => Some(2),
            (HalfSpace(_), TriMesh(_)) | (TriMesh(_), HalfSpace(_)) => Some(1),
            (HalfSpace(_), _) | (_, HalfSpace(_)) => None,
            (Rounded(_), Rounded(_)) => None,
            (
                Convex(_) | Rounded(_) | Implicit(_) | RoundConvex(_),
                Convex(_) | Rounded(_) | Implicit(_) | RoundConvex(_),
            ) => Some(0),
            _ => Some(1),
        }
    }
}

/// Recycled pair caches by kind, so that a new pair gets a cache of the kind
/// it needs (its allocations reused: no allocation per new pair in steady
/// state, even when kinds mix).
#[derive(Clone, Debug, Default)]
pub struct CachePool {
    slots: [Vec<PairCache>; 3],
}

impl CachePool {
    /// Recycles `cache` into the pool.
    pub fn put(&mut self, mut cache: PairCache) {
        if let Some(slot) = cache.slot() {
            cache.recycle();
            self.slots[slot].push(cache);
        }
    }

    /// A cache for a new pair of shapes `a`, `b`: a recycled one of the
    /// right kind, or an empty one.
    pub fn take(&mut self, a: &ShapeData, b: &ShapeData) -> PairCache {
        PairCache::slot_for(a, b)
            .and_then(|s| self.slots[s].pop())
            .unwrap_or_default()
    }
}

/// Scratch memory shared by the pair tests of a narrow phase or a query (so
/// that a new pair does not allocate its own).
#[derive(Default)]
pub struct QueryScratch {
    pub(super) epa: EpaScratch,
    pub(super) collide: CollideScratch,
    /// The candidate pieces of both sides of a compound pair.
    pub(super) pieces: [Vec<PieceAt>; 2],
    /// Continuous detection's casts, made on the first cast (boxed: a
    /// one-shot query's scratch that never casts stays small to make).
    pub(super) cast: Option<Box<CastScratch>>,
    /// One height-field triangle's touched surface triangles.
    pub(super) triangles: Vec<[u32; 2]>,
    /// A one-shot query's scratch ([`QueryScratch::one_shot`]): the pair
    /// keeps nothing after the test, so a convex pair's GJK cache lives
    /// on the stack instead of in a new boxed [`PairCache`].
    pub(super) one_shot: bool,
}

impl QueryScratch {
    /// Scratch for a one-shot query (no pair cache kept): a convex pair's
    /// warm-start cache is a cold one on the stack, freed with the call,
    /// so the query allocates nothing. The answer is the one a fresh
    /// [`PairCache::None`] gives (the same cold cache, boxed).
    pub(crate) fn one_shot() -> Self {
        Self {
            one_shot: true,
            ..Self::default()
        }
    }

    /// Grows each buffer to at least `other`'s capacity (the casts' own
    /// scratch aside): the parallel narrow phase's per-task scratches
    /// share one high-water mark, so that a pair whose slot moved to
    /// another task's share finds the room it needed in the first one.
    pub(crate) fn reserve_like(&mut self, other: &Self) {
        use crate::math::reserve_to;
        self.epa.reserve_like(&other.epa);
        self.collide.reserve_like(&other.collide);
        for (mine, theirs) in self.pieces.iter_mut().zip(&other.pieces) {
            reserve_to(mine, theirs.capacity());
        }
        reserve_to(&mut self.triangles, other.triangles.capacity());
    }
}
