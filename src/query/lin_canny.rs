//! Lin–Canny closest features between convex polytopes, with coherence.
//!
//! Lin and Canny, *A fast algorithm for incremental distance calculation*,
//! ICRA 1991; Cohen, Lin, Manocha, Ponamgi, *I-COLLIDE*, I3D 1995, section 4;
//! the local-minimum rule of Mirtich's V-Clip (ACM TOG 1998).
//!
//! A *feature pair* `(fa, fb)` (vertex, edge or face of each polytope) with
//! closest points `pa ∈ fa`, `pb ∈ fb` is the pair of closest features of
//! the two polytopes iff `pb` lies in the Voronoi region of `fa` and `pa` in
//! that of `fb` (Lin–Canny's theorem). The walk starts from a feature pair —
//! last frame's, kept in the pair cache, which with small motions is already
//! right or one step away — and repeats:
//!
//! 1. compute `pa`, `pb` (closest points of the two features, see
//!    `features.rs`);
//! 2. if `pb` violates a plane of the region of `fa` by more than the
//!    tolerance, replace `fa` by the neighbor feature across the most
//!    violated plane (vertex → edge, edge → vertex or face, face → edge);
//!    the distance between the features never increases;
//! 3. the same for `pa` against the region of `fb`;
//! 4. otherwise the pair is closest: the distance is `|pa - pb|`.
//!
//! **Penetration.** Vertex and edge regions lie outside their polytope; a
//! face region is a prism that continues inside. When `pb` is inside the
//! prism of face `fa` but *below* the face, either another face of A is
//! closer to `pb` (a local minimum of the walk) or `pb` is inside A. As in
//! I-COLLIDE's pseudo-internal Voronoi regions (the interior split into
//! cones from the centroid through each face), we find the face `pb` is
//! "most outside of": if `pb` is outside no face, it is inside A and the
//! polytopes intersect; otherwise the walk moves to that face. Features
//! that touch (distance under the tolerance) also mean intersection.
//!
//! **Near contact.** When the features are closer than `1000 τ`, the
//! direction between them is too uncertain for the region tests to certify
//! the pair; the plane normal to `pb - pa` is then checked with one support
//! query on each polytope, and if it does not separate them GJK answers.
//!
//! **Termination.** Moves only happen for violations larger than the
//! tolerance `τ = 2·10⁻⁶ × scale`, so rounding cannot make the walk flip
//! between two features of equal distance; and the walk is bounded by
//! `32 + 2 (V_A + V_B)` steps, after which it falls back to GJK (a correct,
//! slower method) and reports that it did ([`ClosestFeatures::fell_back`]).
//!
//! **Cost.** A warm query on a coherent pair usually ends at its first
//! step, on last frame's features, so its time is mostly the loads of the
//! two polytopes' records; when every body has its own hull these leave
//! the cache between frames, and the collision world hides part of the
//! wait by hinting each pair's records a few pairs ahead ([`prefetch_pair`]).
//! Why the walk reads the hulls' own records (no feature copies in the pair
//! cache, no parked or certified walks): see `docs/notes/EXPERIMENTS.md#lin-canny`.

use glam::{Affine3A, Vec3};

use super::features::{FeatureView, Moved, Own, closest_points};
use crate::geometry::gjk::{GjkCache, gjk_distance};
use crate::geometry::support::NO_HINT;
use crate::math::Pose;
use crate::shape::{ConvexPolytope, Feature};

/// Result of a closest-feature query. Points are in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestFeatures {
    /// Distance (0 when the polytopes intersect or touch).
    pub distance: f32,
    /// Closest point on A (on the feature, when intersecting).
    pub point_a: Vec3,
    /// Closest point on B.
    pub point_b: Vec3,
    /// The closest features (the penetrating features when intersecting).
    pub features: [Feature; 2],
    /// Whether the polytopes intersect (touching counts).
    pub intersecting: bool,
    /// Walk steps taken.
    pub iterations: u32,
    /// Whether the walk hit its bound and GJK answered instead.
    pub fell_back: bool,
}

/// Outcome of testing a point against a feature's Voronoi region.
enum Region {
    Inside,
    Move(Feature),
    /// Inside the face's prism but below the face.
    BelowFace,
}

/// Tests `p` (polytope's local frame) against the Voronoi region of `f`.
fn test_region(poly: &ConvexPolytope, f: Feature, p: Vec3, tol: f32) -> Region {
    let mut worst = (tol, None);
    let mut consider = |violation: f32, to: Feature| {
        if violation > worst.0 {
            worst = (violation, Some(to));
        }
    };
    match f {
        Feature::Vertex(v) => {
            let pv = poly.vertex(v);
            for link in poly.vertex_region(v) {
                consider(-(p - pv).dot(link.away), Feature::Edge(link.edge));
            }
        }
        Feature::Edge(e) => {
            let ed = poly.edge(e);
            let [v0, v1] = ed.ends;
            consider(-(p - v0).dot(ed.dir), Feature::Vertex(ed.v[0]));
            consider((p - v1).dot(ed.dir), Feature::Vertex(ed.v[1]));
            for k in 0..2 {
                consider((p - v0).dot(ed.sides[k]), Feature::Face(ed.faces[k]));
            }
        }
        Feature::Face(face) => {
            for slot in poly.face_slots(face) {
                consider(-(p - slot.pos).dot(slot.side), Feature::Edge(slot.edge));
            }
            if worst.1.is_none() && poly.face_distance(face, p) < -tol {
                return Region::BelowFace;
            }
        }
    }
    match worst.1 {
        Some(to) => Region::Move(to),
        None => Region::Inside,
    }
}

/// The face of `poly` that `p` is farthest outside of, or `None` if `p` is
/// inside every face plane (within `tol`): then `p` is inside the polytope.
fn escape_face(poly: &ConvexPolytope, p: Vec3, tol: f32) -> Option<u32> {
    let (mut best, mut best_d) = (None, tol);
    for f in 0..poly.faces().len() as u32 {
        let d = poly.face_distance(f, p);
        if d > best_d {
            (best, best_d) = (Some(f), d);
        }
    }
    best
}

/// What one side's region test decided.
enum Step {
    Stay,
    Moved(Feature),
    Inside,
}

fn step_side(poly: &ConvexPolytope, f: Feature, p: Vec3, tol: f32) -> Step {
    match test_region(poly, f, p, tol) {
        Region::Inside => Step::Stay,
        Region::Move(to) => Step::Moved(to),
        Region::BelowFace => match escape_face(poly, p, tol) {
            Some(face) => Step::Moved(Feature::Face(face)),
            None => Step::Inside,
        },
    }
}

/// A cheap starting pair: each polytope's vertex extreme toward the other.
pub fn initial_features(a: &ConvexPolytope, b: &ConvexPolytope, rel: &Pose) -> [Feature; 2] {
    let toward_b = rel.transform_point(b.centroid()) - a.centroid();
    let va = a.support_vertex(toward_b, NO_HINT);
    let toward_a = rel.rotation.inverse() * -toward_b;
    let vb = b.support_vertex(toward_a, NO_HINT);
    [Feature::Vertex(va), Feature::Vertex(vb)]
}

/// Closest features of `a` at `pose_a` and `b` at `pose_b`, starting from
/// `start` (last frame's pair) or from [`initial_features`]. Returns `None`
/// when the walk hit its bound (the caller falls back to GJK).
pub fn walk(
    a: &ConvexPolytope,
    pose_a: &Pose,
    b: &ConvexPolytope,
    pose_b: &Pose,
    start: Option<[Feature; 2]>,
) -> Option<ClosestFeatures> {
    let rel = pose_a.inverse().mul(pose_b); // B local → A local
    // Matrix forms for the walk's many point transforms (a quaternion
    // rotation costs about twice a matrix product); the inverse of a
    // rotation matrix is its transpose.
    let rel_m = rel.to_affine();
    let rel_inv_m = rigid_inverse(&rel_m);
    let scale = a.radius() + b.radius() + rel.translation.length() + a.centroid().length();
    let tol = 2e-6 * scale;
    let [mut fa, mut fb] = start
        .filter(|s| valid_feature(a, s[0]) && valid_feature(b, s[1]))
        .unwrap_or_else(|| initial_features(a, b, &rel));
    let bound = 32 + 2 * (a.vertex_count() + b.vertex_count()) as u32;
    for it in 0..bound {
        // A's frame is the common one: its features need no transform.
        let view_a = FeatureView {
            poly: a,
            frame: Own,
            feature: fa,
        };
        let view_b = FeatureView {
            poly: b,
            frame: Moved {
                to: &rel_m,
                from: &rel_inv_m,
            },
            feature: fb,
        };
        let (pa, pb) = closest_points(view_a, view_b);
        let distance = pa.distance(pb);
        let done = |intersecting: bool| ClosestFeatures {
            distance: if intersecting { 0.0 } else { distance },
            point_a: pose_a.transform_point(pa),
            point_b: pose_a.transform_point(pb),
            features: [fa, fb],
            intersecting,
            iterations: it + 1,
            fell_back: false,
        };
        if distance <= tol {
            return Some(done(true));
        }
        match step_side(a, fa, pb, tol) {
            Step::Moved(to) => {
                fa = to;
                continue;
            }
            Step::Inside => return Some(done(true)),
            Step::Stay => {}
        }
        match step_side(b, fb, rel_inv_m.transform_point3(pa), tol) {
            Step::Moved(to) => fb = to,
            Step::Inside => return Some(done(true)),
            Step::Stay if distance < NEAR * tol => {
                let sides = Sides { a, b, rel: &rel };
                return sides.separated(pa, pb, [fa, fb], tol).then(|| done(false));
            }
            Step::Stay => return Some(done(false)),
        }
    }
    None
}

/// The inverse of a rigid transform (rotation and translation).
#[inline]
fn rigid_inverse(m: &Affine3A) -> Affine3A {
    let r = m.matrix3.transpose();
    Affine3A {
        matrix3: r,
        translation: -(r * m.translation),
    }
}

/// Below `NEAR × τ` the direction `pb - pa` is only known to within
/// `τ / distance` radians, so the region tests no longer certify the pair:
/// the separating plane is then checked with two support queries.
const NEAR: f32 = 1000.0;

/// The two polytopes, B seen in A's frame.
struct Sides<'a> {
    a: &'a ConvexPolytope,
    b: &'a ConvexPolytope,
    rel: &'a Pose,
}

impl Sides<'_> {
    /// Whether the plane through `pa`, `pb` normal to `pb - pa` separates
    /// A from B (within `tol`): A's support along the normal must not pass
    /// `pa`, B's support against it must not pass `pb`.
    fn separated(&self, pa: Vec3, pb: Vec3, f: [Feature; 2], tol: f32) -> bool {
        let n = (pb - pa).normalize_or_zero();
        let va = self.a.support_vertex(n, start_vertex(self.a, f[0]));
        let n_b = self.rel.rotation.inverse() * -n;
        let vb = self.b.support_vertex(n_b, start_vertex(self.b, f[1]));
        let max_a = n.dot(self.a.vertex(va));
        let min_b = n.dot(self.rel.transform_point(self.b.vertex(vb)));
        max_a <= n.dot(pa) + tol && min_b >= n.dot(pb) - tol
    }
}

/// A vertex of a feature, to start hill-climbing from.
fn start_vertex(p: &ConvexPolytope, f: Feature) -> u32 {
    match f {
        Feature::Vertex(v) => v,
        Feature::Edge(e) => p.edge(e).v[0],
        Feature::Face(face) => p.face_loop(face).next().map_or(0, |(_, v, _)| v),
    }
}

fn valid_feature(p: &ConvexPolytope, f: Feature) -> bool {
    match f {
        Feature::Vertex(i) => (i as usize) < p.vertex_count(),
        Feature::Edge(i) => (i as usize) < p.edges().len(),
        Feature::Face(i) => (i as usize) < p.faces().len(),
    }
}

/// What a convex pair keeps between frames: the last closest features
/// (Lin–Canny's warm start) and the last GJK simplex (for the fallback and
/// for EPA).
#[derive(Clone, Debug, Default)]
pub struct ConvexCache {
    /// Last closest (or penetrating) feature pair.
    pub features: Option<[Feature; 2]>,
    /// GJK / EPA warm start.
    pub gjk: GjkCache,
    /// Walks that hit their bound (answered by GJK).
    pub fallbacks: u32,
    /// Where the regions of the cached features start
    /// ([`ConvexPolytope::region_start`]): what [`prefetch_pair`] hints
    /// without a load. A hint only.
    pub region_starts: [u32; 2],
}

/// Starts loading what [`closest_features`] of the pair reads first (its
/// cached features' records and their regions' planes): a batch of pairs
/// calls it a pair or two ahead, so that pairs of shapes that have left
/// the cache overlap their waits, and `ConvexPolytope::prefetch_fields` a
/// few pairs earlier still. A hint: no result changes.
#[inline]
pub fn prefetch_pair(a: &ConvexPolytope, b: &ConvexPolytope, cache: &ConvexCache) {
    let [fa, fb] = cache.features.map_or([None; 2], |f| f.map(Some));
    a.prefetch(fa, cache.region_starts[0]);
    b.prefetch(fb, cache.region_starts[1]);
}

/// Closest features with coherence: Lin–Canny from the cached pair, GJK if
/// the walk hits its bound. Updates the cache.
pub fn closest_features(
    a: &ConvexPolytope,
    pose_a: &Pose,
    b: &ConvexPolytope,
    pose_b: &Pose,
    cache: &mut ConvexCache,
) -> ClosestFeatures {
    // Warm walk, then a cold one (a stale start can end near contact
    // without a certificate), then GJK.
    let warm = cache.features;
    let walked = walk(a, pose_a, b, pose_b, warm)
        .or_else(|| warm.and_then(|_| walk(a, pose_a, b, pose_b, None)));
    if let Some(r) = walked {
        cache.features = Some(r.features);
        let [fa, fb] = r.features;
        cache.region_starts = [a.region_start(fa), b.region_start(fb)];
        return r;
    }
    cache.fallbacks += 1;
    let g = gjk_distance(a, pose_a, b, pose_b, &mut cache.gjk);
    let rel = pose_a.inverse().mul(pose_b);
    let features = cache
        .features
        .unwrap_or_else(|| initial_features(a, b, &rel));
    cache.features = None;
    ClosestFeatures {
        distance: g.distance,
        point_a: g.point_a,
        point_b: g.point_b,
        features,
        intersecting: g.intersecting,
        iterations: g.iterations,
        fell_back: true,
    }
}
