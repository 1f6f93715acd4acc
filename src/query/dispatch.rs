//! The pair dispatch: one exhaustive `match` on the two shape kinds (see
//! the [table in the module docs](super)).

use glam::Vec3;

use super::balls::ball_answer;
use super::cache::{PairCache, QueryScratch};
use super::hull_axis::hull_axis_separates;
use super::inside::{self, INSIDE_SOLID};
use super::lin_canny::{self, ConvexCache};
use super::pair::{ContactData, PairResult, PairSide};
use super::warm_tetra::{certified_touching, replaced_point};
use super::{compound, half_space, heightfield, implicit, rounded};
use crate::bvh::{CollideOptions, CollideScratch, ContactMode, collide_surfaces};
use crate::collider::ShapeKind;
use crate::geometry::epa;
use crate::geometry::gjk::{Cso, GjkCache, gjk_intersect, intersect_warm};
use crate::math::Pose;
use crate::shape::{ConvexPolytope, HalfSpace, SupportShape};

/// Tests one pair, A = `a`, B = `b`. Dispatches on the two shape kinds (see
/// the module docs); `cache` carries the pair's state between frames.
pub fn test_pair(
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    cache: &mut PairCache,
    scratch: &mut QueryScratch,
) -> PairResult {
    match (a.shape.kind(), b.shape.kind()) {
        // First: the commonest pair, decided in two comparisons (the arms
        // are disjoint, so their order changes no answer).
        (ShapeKind::Convex(pa), ShapeKind::Convex(pb)) => {
            if a.boolean_only || b.boolean_only {
                let t = boolean_convex((pa, &a.pose), (pb, &b.pose), cache, scratch);
                return PairResult::exact_without_contact(t);
            }
            with_convex(cache, scratch, true, |c| convex_pair(pa, a, pb, b, c))
        }
        // Composites (a compound's pieces, a polyline's segments) recurse
        // to their parts.
        (ShapeKind::Compound(_) | ShapeKind::Polyline(_), _)
        | (_, ShapeKind::Compound(_) | ShapeKind::Polyline(_)) => {
            if !matches!(cache, PairCache::Compound(_)) {
                *cache = PairCache::Compound(Box::default());
            }
            match cache {
                PairCache::Compound(c) => compound::compound_pair(a, b, c, scratch),
                _ => PairResult::default(),
            }
        }
        // A height field goes second (before the half-space: a half-space
        // against a field is the field's arm).
        (_, ShapeKind::HeightField(h)) => heightfield::pair(a, (h, b), cache, scratch),
        (ShapeKind::HeightField(h), _) => {
            flipped(heightfield::pair(b, (h, a), cache, scratch), cache)
        }
        (ShapeKind::HalfSpace(h), _) => half_space_pair(h, a, b, cache, scratch),
        // A half-space goes first.
        (_, ShapeKind::HalfSpace(h)) => flipped(half_space_pair(h, b, a, cache, scratch), cache),
        (ShapeKind::Rounded(_), _) => rounded_pair(a, b, cache, scratch),
        // A rounded shape goes first.
        (_, ShapeKind::Rounded(_)) => flipped(rounded_pair(b, a, cache, scratch), cache),
        (ShapeKind::Implicit(s), _) => support_pair(s, a, b, cache, scratch),
        // A support-mapped shape goes first.
        (_, ShapeKind::Implicit(s)) => flipped(support_pair(s, b, a, cache, scratch), cache),
        (ShapeKind::RoundConvex(s), _) => support_pair(s, a, b, cache, scratch),
        (_, ShapeKind::RoundConvex(s)) => flipped(support_pair(s, b, a, cache, scratch), cache),
        (ShapeKind::Convex(_) | ShapeKind::TriMesh(_), ShapeKind::TriMesh(_))
        | (ShapeKind::TriMesh(_), ShapeKind::Convex(_)) => match cache.mesh_pairs() {
            Some(pairs) => mesh_pair(a, b, pairs, &mut scratch.collide),
            None => PairResult::default(),
        },
    }
}

/// Whether two hulls at poses in one frame touch, for a boolean pair: the
/// hull balls when they decide it (far apart or deep in contact, without
/// the cache), then the cached tetrahedron when it certifies contact
/// (`warm_tetra`), then the last separating axis (by support values,
/// `hull_axis`), else GJK from the pair's cached simplex, its points
/// re-placed from their cached vertex pairs rather than searched again. A
/// boolean test runs no EPA: its buffers stay where they are. The world's
/// boolean hull pairs come here directly (see `narrow_phase`), others
/// through [`test_pair`].
#[inline]
pub(crate) fn boolean_convex(
    (pa, a): (&ConvexPolytope, &Pose),
    (pb, b): (&ConvexPolytope, &Pose),
    cache: &mut PairCache,
    scratch: &mut QueryScratch,
) -> bool {
    if let Some(t) = ball_answer(pa, a, pb, b) {
        return t;
    }
    if let PairCache::Convex(c) = cache {
        let (cso, gjk) = (Cso::new(pa, a, pb, b), &mut c.gjk);
        if certified_touching((pa, a), (pb, b), &cso, gjk) {
            return true;
        }
        if hull_axis_separates(pa, pb, &cso, gjk) {
            return false;
        }
        return intersect_warm(&cso, gjk, Some(&replaced_point(pa, pb, &cso)));
    }
    // A new pair, or a one-shot query's.
    with_convex(cache, scratch, false, |c| {
        PairResult::exact_without_contact(gjk_intersect(pa, a, pb, b, &mut c.gjk))
    })
    .touching
}

/// The one place a pair is flipped: the result of the pair tested as
/// (B, A), seen as (A, B).
fn flipped(r: PairResult, cache: &mut PairCache) -> PairResult {
    if let PairCache::Mesh(pairs) = cache {
        pairs.iter_mut().for_each(|p| p.swap(0, 1));
    }
    PairResult {
        contact: r.contact.map(|c| c.flipped()),
        ..r
    }
}

/// The pair's GJK cache (made a convex cache if it was not one), with
/// EPA's buffers swapped in from the shared scratch while `f` runs.
fn with_gjk(
    cache: &mut PairCache,
    scratch: &mut QueryScratch,
    f: impl FnOnce(&mut GjkCache) -> PairResult,
) -> PairResult {
    with_convex(cache, scratch, true, |c| f(&mut c.gjk))
}

/// The pair's convex cache (made one if it was not; a cold one on the
/// stack for a one-shot query that keeps no cache, which then allocates
/// nothing), with EPA's buffers swapped in from the shared scratch while
/// `f` runs if `epa`.
fn with_convex(
    cache: &mut PairCache,
    scratch: &mut QueryScratch,
    epa: bool,
    f: impl FnOnce(&mut ConvexCache) -> PairResult,
) -> PairResult {
    if scratch.one_shot && matches!(cache, PairCache::None) {
        return in_scratch(&mut ConvexCache::default(), scratch, epa, f);
    }
    if !matches!(cache, PairCache::Convex(_)) {
        // Only for pairs that did not get a recycled cache.
        *cache = PairCache::Convex(Box::default());
    }
    match cache {
        PairCache::Convex(c) => in_scratch(c, scratch, epa, f),
        _ => PairResult::default(),
    }
}

/// `f` on the convex cache `c`, EPA (if `epa`) working in the shared
/// buffers (not the pair's own) meanwhile.
fn in_scratch(
    c: &mut ConvexCache,
    scratch: &mut QueryScratch,
    epa: bool,
    f: impl FnOnce(&mut ConvexCache) -> PairResult,
) -> PairResult {
    if !epa {
        return f(c);
    }
    std::mem::swap(&mut c.gjk.epa, &mut scratch.epa);
    let out = f(c);
    std::mem::swap(&mut c.gjk.epa, &mut scratch.epa);
    out
}

/// A support-mapped shape (`a`: cylinder, cone, rounded box or hull,
/// segment, triangle) against any shape (see [`implicit`]).
fn support_pair<S: SupportShape>(
    s: &S,
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    cache: &mut PairCache,
    scratch: &mut QueryScratch,
) -> PairResult {
    match b.shape.kind() {
        ShapeKind::Convex(p) => with_gjk(cache, scratch, |g| {
            implicit::support_pair((s, a), (p, b), g)
        }),
        ShapeKind::Rounded(r) => with_gjk(cache, scratch, |g| {
            implicit::support_pair((s, a), (r, b), g)
        }),
        ShapeKind::Implicit(t) => with_gjk(cache, scratch, |g| {
            implicit::support_pair((s, a), (t, b), g)
        }),
        ShapeKind::RoundConvex(t) => with_gjk(cache, scratch, |g| {
            implicit::support_pair((s, a), (t, b), g)
        }),
        ShapeKind::TriMesh(_) => match (cache.mesh_pairs(), b.surface()) {
            (Some(pairs), Some(surface)) => implicit::implicit_mesh(s, a, surface, b, pairs),
            _ => PairResult::default(),
        },
        // `test_pair` sends composite, half-space and height-field pairs to
        // their arms first.
        ShapeKind::Compound(_)
        | ShapeKind::Polyline(_)
        | ShapeKind::HalfSpace(_)
        | ShapeKind::HeightField(_) => test_pair(a, b, cache, scratch),
    }
}

/// A rounded shape (`a`) against any shape (see [`rounded`]).
fn rounded_pair(
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    cache: &mut PairCache,
    scratch: &mut QueryScratch,
) -> PairResult {
    let Some(r) = a.shape.rounded() else {
        return PairResult::default();
    };
    match b.shape.kind() {
        ShapeKind::Rounded(rb) => rounded::rounded_rounded(r, a, rb, b),
        ShapeKind::Convex(p) => with_gjk(cache, scratch, |g| {
            implicit::support_pair((r, a), (p, b), g)
        }),
        ShapeKind::Implicit(t) => with_gjk(cache, scratch, |g| {
            implicit::support_pair((r, a), (t, b), g)
        }),
        ShapeKind::RoundConvex(t) => with_gjk(cache, scratch, |g| {
            implicit::support_pair((r, a), (t, b), g)
        }),
        ShapeKind::TriMesh(_) => match (cache.mesh_pairs(), b.surface()) {
            (Some(pairs), Some(surface)) => rounded::rounded_mesh(r, a, surface, b, pairs),
            _ => PairResult::default(),
        },
        // `test_pair` sends composite, half-space and height-field pairs to
        // their arms before this one; kept so that the match is exhaustive and the
        // answer right.
        ShapeKind::Compound(_)
        | ShapeKind::Polyline(_)
        | ShapeKind::HalfSpace(_)
        | ShapeKind::HeightField(_) => test_pair(a, b, cache, scratch),
    }
}

/// A half-space (`a`) against any shape (see [`half_space`]).
fn half_space_pair(
    h: &HalfSpace,
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    cache: &mut PairCache,
    scratch: &mut QueryScratch,
) -> PairResult {
    match b.shape.kind() {
        ShapeKind::Convex(p) => half_space::half_space_convex(h, a, p, b),
        ShapeKind::Rounded(r) => half_space::half_space_convex(h, a, r, b),
        ShapeKind::Implicit(s) => half_space::half_space_convex(h, a, s, b),
        ShapeKind::RoundConvex(s) => half_space::half_space_convex(h, a, s, b),
        ShapeKind::HalfSpace(g) => half_space::half_space_pair(h, a, g, b),
        ShapeKind::TriMesh(_) => match (cache.mesh_pairs(), b.surface()) {
            (Some(pairs), Some(surface)) => half_space::half_space_mesh(h, a, surface, b, pairs),
            _ => PairResult::default(),
        },
        // `test_pair` sends composite and height-field pairs to their arms
        // first.
        ShapeKind::Compound(_) | ShapeKind::Polyline(_) | ShapeKind::HeightField(_) => {
            test_pair(a, b, cache, scratch)
        }
    }
}

/// Surface against surface: the trees traversed together.
fn mesh_pair(
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    pairs: &mut Vec<[u32; 2]>,
    scratch: &mut CollideScratch,
) -> PairResult {
    let (Some(sa), Some(sb)) = (a.surface(), b.surface()) else {
        return PairResult::default();
    };
    let mode = if a.boolean_only || b.boolean_only {
        ContactMode::First
    } else {
        ContactMode::All
    };
    let options = CollideOptions {
        mode,
        ..CollideOptions::default()
    };
    collide_surfaces((sa, a.pose), (sb, b.pose), &options, scratch, pairs);
    if pairs.is_empty() {
        mesh_inside_polytope(a, b, mode == ContactMode::First, pairs);
    }
    PairResult::exact_without_contact(!pairs.is_empty())
}

/// A polytope and a mesh whose surfaces do not cross: the mesh triangles
/// inside the polytope (a solid; see [`inside`]), as pairs
/// `[INSIDE_SOLID, triangle]` (flipped when the mesh is side A).
fn mesh_inside_polytope(
    a: &PairSide<'_>,
    b: &PairSide<'_>,
    first_only: bool,
    pairs: &mut Vec<[u32; 2]>,
) {
    let (poly, mesh, flip) = match (a.shape.polytope(), b.shape.polytope()) {
        (Some(p), None) => ((p, a), b, false),
        (None, Some(p)) => ((p, b), a, true),
        _ => return,
    };
    let Some(surface) = mesh.surface() else {
        return;
    };
    let (p, side) = poly;
    let at = (p, side.shape.local_aabb(), &side.pose);
    inside::triangles_inside(at, (surface, &mesh.pose), first_only, |t, _| {
        pairs.push(if flip {
            [t, INSIDE_SOLID]
        } else {
            [INSIDE_SOLID, t]
        });
    });
    pairs.sort_unstable();
}

/// Convex – convex with contact data (a boolean pair goes to
/// [`boolean_convex`]: GJK from the pair's cached simplex, which stops at
/// the first separating direction, usually last frame's, or the first
/// simplex that encloses the origin, SOLID's coherent boolean test):
/// Lin–Canny (GJK fallback) for the closest features and distance, then EPA
/// when penetrating.
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
        swept: false,
    }
}
