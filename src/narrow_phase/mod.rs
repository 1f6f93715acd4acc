//! The narrow phase: an exact test for each active pair, from its cached state.
//!
//! Pairs arrive from the broad phase as `started` / `ended` changes; a pair's
//! state ([`PairState`]) lives from the frame its boxes start overlapping to
//! the frame they stop. Each frame only pairs with a moved body are retested
//! (coherence: work grows with what moved).
//!
//! **Dispatch** ([`test_pair`]) on the two shape kinds:
//!
//! | pair | test | contact data |
//! |------|------|--------------|
//! | convex – convex | Lin–Canny from the cached feature pair ([`lin_canny`]), GJK fallback; EPA for the depth ([`epa`]) | closest features, distance or depth, normal, points |
//! | a triangle mesh with a mesh or a convex shape | simultaneous OBB-tree traversal, exact triangle–triangle tests (the convex shape's hull triangles) | the intersecting triangle pairs ([`PairCache::Mesh`]) |
//! | a sphere or capsule with anything but a compound | core distance against the radius: closed form with another rounded shape, GJK with margin (EPA for the depth) with a convex polytope, OBB-tree descent and segment–triangle distances with a mesh ([`rounded`]) | distance or depth, normal, points (features are `Vertex(0)`); with a mesh, the triangles within reach (`[0, triangle]`) |
//! | a compound with anything | the piece trees descended to the piece pairs whose boxes overlap, each tested by the rows above from its own cache ([`compound`]) | per piece pair, what its row gives ([`PairCache::Compound`]); the pair's contact is the deepest (or closest) convex piece pair's, with its piece indices |
//!
//! The match has one arm per kind pair; a pair with a compound on either
//! side goes to one arm, which recurses to non-compound piece pairs. Every
//! pair of kinds is handled: the match is exhaustive, so a new kind that is
//! not dispatched does not compile.
//!
//! A mesh pair is a *surface* query: a shape entirely inside a mesh, with
//! no triangles crossing, does not touch it.
//!
//! A pair with a sensor, or in a world configured without penetration depth,
//! runs the boolean part only (no EPA) when the objects overlap.

pub mod closest;
pub mod compound;
pub mod epa;
pub mod gjk;
#[cfg(test)]
mod gjk_tests;
pub mod lin_canny;
pub mod ray;
pub mod rounded;
pub mod support;
pub mod tritri;

use glam::Vec3;

use crate::bvh::{CollideScratch, ContactMode, MeshSide, collide};
use crate::math::{Aabb, Pose};
use crate::shape::{ConvexPolytope, Feature, ShapeData, ShapeKind};
use compound::CompoundCache;
use lin_canny::ConvexCache;

/// One side of a pair, as the narrow phase sees it.
pub struct PairSide<'a> {
    /// The shape.
    pub shape: &'a ShapeData,
    /// Its pose.
    pub pose: Pose,
    /// Its world box without margin.
    pub tight: Aabb,
    /// Skip the penetration depth (sensors, or a world without depth).
    pub boolean_only: bool,
}

/// Contact data of a pair whose test computes it (convex – convex).
/// "A" is the pair's first body, "B" the second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactData {
    /// Separation distance; 0 when touching or penetrating.
    pub distance: f32,
    /// Penetration depth; 0 unless penetrating.
    pub depth: f32,
    /// Unit normal, world space, from A to B: B moves away from A along it
    /// (the direction of the closest points when separated, the EPA normal
    /// when penetrating).
    pub normal: Vec3,
    /// Closest (or deepest) point on A, world space.
    pub point_a: Vec3,
    /// Closest (or deepest) point on B, world space.
    pub point_b: Vec3,
    /// The closest (or penetrating) features: `[on A, on B]`, of the
    /// pieces below.
    pub features: [Feature; 2],
    /// For compounds, the pieces these data are about: `[of A, of B]` (0
    /// for a shape that is not a compound).
    pub pieces: [u32; 2],
}

impl ContactData {
    /// The same contact seen from B.
    pub fn flipped(&self) -> Self {
        Self {
            normal: -self.normal,
            point_a: self.point_b,
            point_b: self.point_a,
            features: [self.features[1], self.features[0]],
            pieces: [self.pieces[1], self.pieces[0]],
            ..*self
        }
    }
}

/// The result of one pair test.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairResult {
    /// The objects touch (or, when `exact` is false, their tight boxes do).
    pub touching: bool,
    /// Whether the answer is an exact shape test (`false`: box overlap).
    pub exact: bool,
    /// Contact data, for pair kinds that compute it (overlapping
    /// boolean-only pairs skip it: they only report start and end).
    pub contact: Option<ContactData>,
}

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
    /// (`None`: the pair keeps nothing, two spheres or capsules).
    fn slot_for(a: &ShapeData, b: &ShapeData) -> Option<usize> {
        use ShapeKind::*;
        match (a.kind(), b.kind()) {
            (Compound(_), _) | (_, Compound(_)) => Some(2),
            (Rounded(_), Rounded(_)) => None,
            (Convex(_) | Rounded(_), Convex(_) | Rounded(_)) => Some(0),
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

/// Cached state of an active pair.
#[derive(Clone, Debug, Default)]
pub struct PairState {
    /// Last result.
    pub result: PairResult,
    /// User data of the two bodies, smaller body id first.
    pub user_data: [u64; 2],
    /// Warm-start data.
    pub cache: PairCache,
}

/// Scratch memory shared by all pair tests of a narrow phase (so that a new
/// pair does not allocate its own).
#[derive(Default)]
pub struct NarrowScratch {
    epa: epa::EpaScratch,
    collide: CollideScratch,
    /// The candidate pieces of both sides of a compound pair.
    pieces: [Vec<compound::PieceAt>; 2],
}

/// Tests one pair, A = `a`, B = `b`. Dispatches on the two shape kinds (see
/// the module docs); `cache` carries the pair's state between frames.
pub fn test_pair(
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    cache: &mut PairCache,
    scratch: &mut NarrowScratch,
) -> PairResult {
    match (a.shape.kind(), b.shape.kind()) {
        (ShapeKind::Compound(_), _) | (_, ShapeKind::Compound(_)) => {
            if !matches!(cache, PairCache::Compound(_)) {
                *cache = PairCache::Compound(Box::default());
            }
            match cache {
                PairCache::Compound(c) => compound::compound_pair(a, b, c, scratch),
                _ => PairResult::default(),
            }
        }
        (ShapeKind::Rounded(_), _) => rounded_pair(a, b, cache, scratch),
        // The one place a pair is flipped: the rounded shape goes first.
        (_, ShapeKind::Rounded(_)) => {
            let r = rounded_pair(b, a, cache, scratch);
            if let PairCache::Mesh(pairs) = cache {
                pairs.iter_mut().for_each(|p| p.swap(0, 1));
            }
            PairResult {
                contact: r.contact.map(|c| c.flipped()),
                ..r
            }
        }
        (ShapeKind::Convex(pa), ShapeKind::Convex(pb)) => {
            if !matches!(cache, PairCache::Convex(_)) {
                // Only for pairs that did not get a recycled cache.
                *cache = PairCache::Convex(Box::default());
            }
            match cache {
                PairCache::Convex(c) => {
                    // EPA works in the shared buffers, not the pair's own.
                    std::mem::swap(&mut c.gjk.epa, &mut scratch.epa);
                    let r = convex_pair(pa, a, pb, b, c);
                    std::mem::swap(&mut c.gjk.epa, &mut scratch.epa);
                    r
                }
                _ => PairResult::default(),
            }
        }
        (ShapeKind::Convex(_) | ShapeKind::TriMesh(_), ShapeKind::TriMesh(_))
        | (ShapeKind::TriMesh(_), ShapeKind::Convex(_)) => {
            if !matches!(cache, PairCache::Mesh(_)) {
                *cache = PairCache::Mesh(Vec::new());
            }
            match cache {
                PairCache::Mesh(pairs) => mesh_pair(a, b, pairs, &mut scratch.collide),
                _ => PairResult::default(),
            }
        }
    }
}

/// A rounded shape (`a`) against any shape (see [`rounded`]).
fn rounded_pair(
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    cache: &mut PairCache,
    scratch: &mut NarrowScratch,
) -> PairResult {
    let Some(r) = a.shape.rounded() else {
        return PairResult::default();
    };
    match b.shape.kind() {
        ShapeKind::Rounded(rb) => rounded::rounded_rounded(r, a, rb, b),
        ShapeKind::Convex(p) => {
            if !matches!(cache, PairCache::Convex(_)) {
                *cache = PairCache::Convex(Box::default());
            }
            match cache {
                PairCache::Convex(c) => {
                    // EPA works in the shared buffers, not the pair's own.
                    std::mem::swap(&mut c.gjk.epa, &mut scratch.epa);
                    let out = rounded::rounded_convex(r, a, p, b, &mut c.gjk);
                    std::mem::swap(&mut c.gjk.epa, &mut scratch.epa);
                    out
                }
                _ => PairResult::default(),
            }
        }
        ShapeKind::TriMesh(_) => {
            if !matches!(cache, PairCache::Mesh(_)) {
                *cache = PairCache::Mesh(Vec::new());
            }
            match (cache, b.shape.surface()) {
                (PairCache::Mesh(pairs), Some(surface)) => {
                    rounded::rounded_mesh(r, a, surface, b, pairs)
                }
                _ => PairResult::default(),
            }
        }
        // `test_pair` sends compound pairs to the compound arm before this
        // one; kept so that the match is exhaustive and the answer right.
        ShapeKind::Compound(_) => test_pair(a, b, cache, scratch),
    }
}

/// Surface against surface: the OBB trees traversed together.
fn mesh_pair(
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    pairs: &mut Vec<[u32; 2]>,
    scratch: &mut CollideScratch,
) -> PairResult {
    let (Some((ma, ta)), Some((mb, tb))) = (a.shape.surface(), b.shape.surface()) else {
        return PairResult::default();
    };
    let side_a = MeshSide {
        mesh: ma,
        tree: ta,
        pose: a.pose,
    };
    let side_b = MeshSide {
        mesh: mb,
        tree: tb,
        pose: b.pose,
    };
    let mode = if a.boolean_only || b.boolean_only {
        ContactMode::First
    } else {
        ContactMode::All
    };
    collide(&side_a, &side_b, mode, scratch, pairs);
    PairResult {
        touching: !pairs.is_empty(),
        exact: true,
        contact: None,
    }
}

/// Convex – convex: Lin–Canny (GJK fallback), then EPA when penetrating.
fn convex_pair(
    pa: &ConvexPolytope,
    a: &PairSide<'_>,
    pb: &ConvexPolytope,
    b: &PairSide<'_>,
    cache: &mut ConvexCache,
) -> PairResult {
    let r = lin_canny::closest_features(pa, &a.pose, pb, &b.pose, cache);
    let contact = if !r.intersecting {
        Some(ContactData {
            distance: r.distance,
            depth: 0.0,
            normal: (r.point_b - r.point_a).normalize_or(Vec3::X),
            point_a: r.point_a,
            point_b: r.point_b,
            features: r.features,
            pieces: [0, 0],
        })
    } else if a.boolean_only || b.boolean_only {
        None
    } else {
        let pen = epa::penetration(pa, &a.pose, pb, &b.pose, &mut cache.gjk);
        // `None`: touching within tolerance, GJK sees no overlap: depth 0.
        let (depth, normal, point_a, point_b) = match pen {
            Some(p) => (p.depth, p.normal, p.point_a, p.point_b),
            None => (
                0.0,
                (b.pose.translation - a.pose.translation).normalize_or(Vec3::X),
                r.point_a,
                r.point_b,
            ),
        };
        Some(ContactData {
            distance: 0.0,
            depth,
            normal,
            point_a,
            point_b,
            features: r.features,
            pieces: [0, 0],
        })
    };
    PairResult {
        touching: r.intersecting,
        exact: true,
        contact,
    }
}
