//! GJK: distance, closest points and intersection of two convex shapes.
//!
//! # Method
//!
//! Gilbert, Johnson & Keerthi (1988) compute the distance between convex sets
//! `A` and `B` as the distance from the origin to their Minkowski difference
//! (CSO) `A - B`, using only its support mapping `s(d) = s_A(d) - s_B(-d)`.
//! Each iteration keeps a simplex `W` (at most 4 CSO points) and its point `v`
//! closest to the origin; the next vertex is `w = s(-v)`. Since every CSO point
//! `x` satisfies `v·x ≥ v·w`, `v·w / |v|` is a lower bound and `|v|` an upper
//! bound on the distance. We follow van den Bergen ("A fast and robust GJK
//! implementation for collision detection of convex objects", JGT 4(2), 1999;
//! "Collision Detection in Interactive 3D Environments", 2003, §4.3):
//!
//! * **termination**: stop when the gap `|v| - μ ≤ ε·scale`, `μ` the best
//!   lower bound `v·w/|v|` seen so far (§4.3.4; the distance is then known
//!   to a relative accuracy `ε` of the CSO scale), when `w` is
//!   already in `W`, when `|v|` stops decreasing (numerical stall), when `W`
//!   encloses the origin (a non-degenerate tetrahedron: intersection), when
//!   `|v| ≤ ε₀·scale` (touching, reported as intersecting) or after
//!   [`GJK_MAX_ITERATIONS`]; the best simplex so far is always returned;
//! * **separating-axis early exit** (`gjk_intersect`): as soon as `v·w > 0`
//!   the plane normal to `v` separates the shapes;
//! * **warm start** (temporal coherence, §4.3.6): the cache keeps the final
//!   simplex as the *search directions* that produced its vertices (in `A`'s
//!   frame) plus the hill-climbing vertex hints of both shapes. The next query
//!   re-evaluates those supports under the new relative pose (a handful of dot
//!   products each, since the hints are already at the answer), which gives CSO
//!   points of the *new* configuration — so the warm simplex is always valid —
//!   that are usually already (nearly) optimal.
//!
//! # Closest point of a simplex: signed volumes
//!
//! Instead of Johnson's distance sub-algorithm (Cramer's rule on the Gram
//! matrix of edge vectors, which loses precision for thin simplices and needs
//! backup procedures) we use the *signed volumes* method of Montanari, Petrinic
//! & Barbieri ("Improving the GJK algorithm for faster and more reliable distance
//! queries between convex objects", ACM TOG 36(3), 2017). The origin's
//! barycentric coordinates in a tetrahedron are ratios of signed volumes
//! (determinants, computed relative to one vertex); for a triangle the origin is
//! first projected onto its plane and signed areas are taken in the coordinate
//! plane where the triangle's projection is largest; for a segment the
//! projection parameter is used. If all sub-volumes share the sign of the whole,
//! the origin's projection is inside; otherwise only the faces opposite a vertex
//! with a wrong sign can hold the closest point, and we recurse into those and
//! keep the closest. Near-degenerate simplices (relative volume/area below a
//! threshold) are handled by recursing into all their faces, which keeps the
//! iteration well-defined with duplicated or coplanar support points.
//!
//! The `f32` result need not be exact for the answer to be: `v` is a convex
//! combination of CSO points (an upper bound on the distance) and the
//! termination uses the support's lower bound. Only where rounding would stop
//! the iteration early — the new support is already in the simplex while `v`
//! is inconsistent with it, or `|v|` does not decrease — is the simplex solved
//! again in `f64` by exhaustive search over its sub-simplices, and that
//! answer is kept when `|v|` stays level within rounding while the bounds
//! are still apart: near a grazing contact `|v|` is far shorter than the
//! points, `Σ λᵢ wᵢ` in `f32` rounds by `ε·|w|` across it and turns the
//! next search the wrong way (the pushed point then shows no progress),
//! and along a flat CSO edge met at a grazing angle the progress is below
//! rounding; the `f64` point turns the search right (within the cap).
//!
//! Shapes with a [`SupportMap::margin`] (spheres, rounded shapes) are handled
//! as `core ⊕ ball(margin)`: GJK runs on the cores and the margins are
//! subtracted from the core distance (van den Bergen 2003, §4.3.7), which is
//! exact and converges in a few iterations where GJK on a curved surface would
//! only converge asymptotically.
//!
//! All computations happen in `A`'s local frame (`B` is mapped through the
//! relative pose), which keeps coordinates small when the shapes are far from
//! the world origin. No allocation happens on this path.

// Negated comparisons (`!(x > y)`) are deliberate: they send NaN to the
// conservative branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod iterate;
pub(crate) mod raycast;
mod simplex;
#[cfg(test)]
mod tests;

use glam::{Mat3, Vec3};

use super::epa::EpaScratch;
use super::support::{NO_HINT, SupportMap};
use crate::math::Pose;
pub(crate) use iterate::{GjkOutcome, Mode, Replace, run, run_seeded};
pub(crate) use simplex::Simplex;

/// Maximum number of GJK iterations (support evaluations of the main loop).
pub const GJK_MAX_ITERATIONS: u32 = 64;
/// Convergence: distance gap relative to the CSO scale.
pub(crate) const REL_GAP: f32 = 2e-6;
/// `|v|` below this fraction of the CSO scale counts as touching (distance 0).
pub(crate) const REL_ZERO: f32 = 1e-6;
/// Relative gap `(|v| - μ) / |v|` below which a cold distance query walks
/// from its last support vertices instead of scanning.
const WALK_GAP: f32 = 0.5;
/// Squared relative length below which two CSO points are considered equal.
const REL_DUP2: f32 = 1e-12;

/// A CSO vertex together with the shape points and search data producing it.
/// All vectors are in `A`'s local frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SupportPoint {
    /// `a - b`, a point of the CSO.
    pub w: Vec3,
    /// Support point of `A`.
    pub a: Vec3,
    /// Support point of `B` (mapped into `A`'s frame).
    pub b: Vec3,
    /// The direction `d` with `a = s_A(d)`, `b = s_B(-d)`.
    pub dir: Vec3,
    /// Vertex hint of `A` after the search.
    pub hint_a: u32,
    /// Vertex hint of `B` after the search.
    pub hint_b: u32,
}

/// Warm-start and hint data carried between queries on the same pair.
#[derive(Clone, Debug)]
pub struct GjkCache {
    dirs: [Vec3; 4],
    hints: [[u32; 2]; 4],
    len: usize,
    /// Hill-climbing hint of shape `A`.
    pub hint_a: u32,
    /// Hill-climbing hint of shape `B`.
    pub hint_b: u32,
    /// Reusable EPA buffers.
    pub epa: EpaScratch,
    /// The last separating axis (A's frame) [`gjk_intersect`] found: tried
    /// first next time.
    axis: Option<Vec3>,
}

impl Default for GjkCache {
    fn default() -> Self {
        Self {
            dirs: [Vec3::ZERO; 4],
            hints: [[NO_HINT; 2]; 4],
            len: 0,
            hint_a: NO_HINT,
            hint_b: NO_HINT,
            epa: EpaScratch::default(),
            axis: None,
        }
    }
}

impl GjkCache {
    /// A cold cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the warm-start simplex (keeps the EPA buffers' capacity).
    pub fn reset(&mut self) {
        self.len = 0;
        self.hint_a = NO_HINT;
        self.hint_b = NO_HINT;
        self.axis = None;
    }

    /// Number of cached simplex vertices (0 = cold).
    pub fn simplex_len(&self) -> usize {
        self.len
    }

    /// The last separating axis [`gjk_intersect`] found (A's frame), if
    /// any: a caller may test it its own way (`query::hull_axis`).
    #[inline]
    pub(crate) fn separating_axis(&self) -> Option<Vec3> {
        self.axis
    }

    /// The vertex indices of `A` and `B` behind each point of the cached
    /// simplex when it is a tetrahedron (the last query ended enclosing
    /// the origin), else `None`.
    #[inline]
    pub(crate) fn warm_tetra(&self) -> Option<[[u32; 2]; 4]> {
        (self.len == 4).then_some(self.hints)
    }

    /// Replaces the cached tetrahedron's vertex pairs (a tetrahedron
    /// certified from them, see `query::warm_tetra`); the search
    /// directions stay as they were (any directions give CSO points).
    pub(crate) fn set_warm_tetra(&mut self, hints: [[u32; 2]; 4]) {
        if self.len == 4 {
            self.hints = hints;
        }
    }

    /// A cache holding a tetrahedron of the given vertex pairs (tests).
    #[cfg(test)]
    pub(crate) fn with_tetra(hints: [[u32; 2]; 4]) -> Self {
        Self {
            hints,
            len: 4,
            ..Self::default()
        }
    }

    /// A cache holding only a separating axis and vertex hints (tests).
    #[cfg(test)]
    pub(crate) fn with_axis(axis: Vec3, [hint_a, hint_b]: [u32; 2]) -> Self {
        Self {
            axis: Some(axis),
            hint_a,
            hint_b,
            ..Self::default()
        }
    }

    fn store(&mut self, s: &Simplex) {
        self.len = s.len;
        for i in 0..s.len {
            self.dirs[i] = s.pts[i].dir;
            self.hints[i] = [s.pts[i].hint_a, s.pts[i].hint_b];
        }
    }
}

/// Outcome of a distance query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkResult {
    /// Euclidean distance (0 when intersecting or touching).
    pub distance: f32,
    /// Closest point on `A`, world space (a common point when intersecting).
    pub point_a: Vec3,
    /// Closest point on `B`, world space.
    pub point_b: Vec3,
    /// The shapes overlap or touch (distance below `1e-6` of the CSO scale).
    pub intersecting: bool,
    /// Main-loop iterations (new support points); 0 when the warm simplex
    /// already answered.
    pub iterations: u32,
    /// Total CSO support evaluations, including the warm-start re-evaluations.
    pub support_calls: u32,
}

/// The CSO `core(A) - core(B)` in `A`'s local frame.
pub(crate) struct Cso<'s, A: ?Sized, B: ?Sized> {
    a: &'s A,
    b: &'s B,
    /// Rotation of B's frame into A's frame.
    rot: Mat3,
    /// Inverse (transpose) of `rot`.
    rot_t: Mat3,
    /// B's origin in A's frame.
    trans: Vec3,
}

impl<'s, A: SupportMap + ?Sized, B: SupportMap + ?Sized> Cso<'s, A, B> {
    pub fn new(a: &'s A, pose_a: &Pose, b: &'s B, pose_b: &Pose) -> Self {
        // `pose_a⁻¹ · pose_b`, its translation as one rotation of the
        // difference of the origins (exact for nearby origins, however far
        // out) instead of two rotations of the origins themselves. The
        // rotation is normalised; the translation is not: rotating by a
        // quaternion of norm² `1 + δ` scales by `1 + δ`. The world keeps
        // its rotations unit to `4ε` (`pipeline::large_world::place`);
        // `Pose::validate` lets `|δ| ≤ 2·10⁻³` through.
        let inv = pose_a.rotation.inverse();
        let rot = Mat3::from_quat((inv * pose_b.rotation).normalize());
        Self {
            a,
            b,
            rot,
            rot_t: rot.transpose(),
            trans: inv * (pose_b.translation - pose_a.translation),
        }
    }

    /// `s_A(dir) - s_B(-dir)` with vertex hints.
    #[inline]
    pub fn support(&self, dir: Vec3, mut hint_a: u32, mut hint_b: u32) -> SupportPoint {
        let a = self.a.core_support(dir, &mut hint_a);
        let b = self.rot * self.b.core_support(self.rot_t * -dir, &mut hint_b) + self.trans;
        SupportPoint {
            w: a - b,
            a,
            b,
            dir,
            hint_a,
            hint_b,
        }
    }

    /// Margins of A and B (clamped to `>= 0`).
    pub fn margins(&self) -> (f32, f32) {
        (self.a.margin().max(0.0), self.b.margin().max(0.0))
    }

    /// B's origin in A's frame.
    pub fn b_origin(&self) -> Vec3 {
        self.trans
    }

    /// B's frame in A's: the rotation and B's origin (a point `p` of B
    /// is `rot * p + origin` in A's frame), and the inverse rotation.
    pub fn b_frame(&self) -> (Mat3, Mat3, Vec3) {
        (self.rot, self.rot_t, self.trans)
    }
}

/// Distance and closest points between convex shapes `a` and `b` at the given
/// world poses, warm-started from and updating `cache`.
///
/// When the shapes overlap (or touch within `1e-6` of their size),
/// `intersecting` is true, `distance` is 0 and both points are the same point
/// common to both shapes (as far as rounding allows).
pub fn gjk_distance<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    cache: &mut GjkCache,
) -> GjkResult {
    gjk_distance_within((a, pose_a), (b, pose_b), cache, REL_GAP)
}

/// [`gjk_distance`] converged to `gap` instead of `2·10⁻⁶` of the CSO scale
/// `s` (the largest `|a - b|` over its support points): it stops once the
/// upper bound `|v|` and the lower bound `μ` differ by `gap·s`, so that the
/// distance it reports is at most `gap·s` above the true one.
pub fn gjk_distance_within<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    (a, pose_a): (&A, &Pose),
    (b, pose_b): (&B, &Pose),
    cache: &mut GjkCache,
    gap: f32,
) -> GjkResult {
    let cso = Cso::new(a, pose_a, b, pose_b);
    let (ma, mb) = cso.margins();
    let out = run(&cso, cache, (Mode::Distance, ma + mb, gap));
    let (mut pa, mut pb) = out.simplex.witnesses();
    let mut intersecting = out.intersecting;
    let mut distance = 0.0;
    if !intersecting {
        let c = out.v.length();
        let m = ma + mb;
        if m > 0.0 {
            // Inflate the core witnesses by the margins along the axis A→B.
            let n = -out.v / c;
            if c > m {
                distance = c - m;
                pa += ma * n;
                pb -= mb * n;
            } else {
                intersecting = true;
                pa += n * (c * ma / m);
                pb = pa;
            }
        } else {
            distance = c;
        }
    }
    GjkResult {
        distance,
        point_a: pose_a.transform_point(pa),
        point_b: pose_a.transform_point(pb),
        intersecting,
        iterations: out.iterations,
        support_calls: out.support_calls,
    }
}

/// Boolean overlap test with early exit on the first separating axis; cheaper
/// than [`gjk_distance`]. Touching within `1e-6` of the size counts as overlap.
///
/// Coherence, as in SOLID: the separating axis found last time is tried
/// first (one support query of each shape, from their cached vertices);
/// while the shapes stay apart along it, that is the whole test. Otherwise
/// GJK runs from the cached simplex.
pub fn gjk_intersect<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    cache: &mut GjkCache,
) -> bool {
    let cso = Cso::new(a, pose_a, b, pose_b);
    let axis_holds = cache.axis.is_some_and(|v| axis_separates(&cso, cache, v));
    !axis_holds && intersect_warm(&cso, cache, None)
}

/// Whether the plane normal to `v` separates the shapes (with their
/// margins): `v·w > 0` for the support `w = s(-v)`, exact for any `v`.
#[inline]
fn axis_separates<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    cache: &mut GjkCache,
    v: Vec3,
) -> bool {
    let (ma, mb) = cso.margins();
    let margin = ma + mb;
    let sp = cso.support(-v, cache.hint_a, cache.hint_b);
    cache.hint_a = sp.hint_a;
    cache.hint_b = sp.hint_b;
    let vw = v.dot(sp.w);
    vw > 0.0 && vw * vw > margin * margin * v.length_squared()
}

/// [`gjk_intersect`] after the cached axis: GJK from the cached simplex
/// (re-placed by `seed` where given, see [`run_seeded`]).
#[inline]
pub(crate) fn intersect_warm<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    cache: &mut GjkCache,
    seed: Option<Replace<'_>>,
) -> bool {
    let (ma, mb) = cso.margins();
    let margin = ma + mb;
    let out = run_seeded(cso, cache, (Mode::Intersect, margin, REL_GAP), seed);
    let touching = out.intersecting || out.v.length_squared() <= margin * margin;
    cache.axis = (!touching && out.v.is_finite()).then_some(out.v);
    touching
}
