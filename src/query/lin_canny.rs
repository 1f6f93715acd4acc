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
//! **Where a warm query's time goes** (`--bench convex_distance`, 100-point
//! hulls turning 1° per step, 2026-11-27). About 78 % of warm queries end
//! at the first step, on last frame's features; the rest take 2.4 steps on
//! average (1.30 over all). With the hulls in cache (16 shared) a query
//! costs about 122–130 ns; with a hull per body (2 000 hulls, 122 MB, far
//! past the cache and the TLB's reach) each access to a hull is a TLB
//! miss, and a cache miss too when its line has left the L3 (see the
//! machine's floor below), and a walk that moves waits on one or two
//! dependent misses per move (a feature's record, then its region's run). Counted in
//! a throwaway program timing the same scene: without motion (every query
//! ends at the first step) 183 ns with a hull per body against 88–101 ns
//! with shared hulls; with the read-ahead, queries that end at the first
//! step cost about 130 ns, so those that move cost about 570 ns (derived
//! from the moving scene's 226 ns). Tried and not kept:
//! - a copy of the two features' records and planes in the pair cache
//!   (keyed by a per-build polytope id, read instead of the hulls while
//!   the walk stays on them): 5–10 % faster without read-ahead, but slower
//!   with it (the kept bench on that code: read-ahead 234–289 ns against
//!   198–221 for this code, alternated), because the hints of the cached
//!   features' records also bring in most of the records a move reads
//!   (neighbouring features have neighbouring indices);
//! - hinting every neighbour's record one pair ahead: slower (about 10 %;
//!   more lines in flight than the line fill buffers take);
//! - small regions inline at a fixed stride, so that a move reads one
//!   record instead of a record and then its run (a vertex's position and
//!   up to 7 links in 128 bytes, a triangle's plane and 3 slots in 128
//!   bytes, beside the existing arrays): six alternated runs of the kept
//!   bench, medians 285.1 → 275.7 ns warm and 227.6 → 212.9 ns with
//!   read-ahead, 38 KB more per 100-vertex hull: too little for the memory;
//! - parking a walk at its first move (its target's record hinted, the walk
//!   resumed 4, 8 or 16 pairs later, the way interleaved lookups hide
//!   misses), with and without the inline regions: slower, 230–276 ns
//!   against 217–249 ns with read-ahead (the kept bench, alternated): a
//!   resumed walk pays its setup again and still misses on its later moves;
//! - skipping the walk when a motion bound proves last frame's features
//!   still closest (2026-11-27, code on the repository's branch
//!   `exp/lin-canny-certificate`, not on `main`): the
//!   last walk's closest points and how deep inside each region they were
//!   (distance to the nearest plane), copies of the two features' geometry
//!   in the pair cache, keyed by per-build polytope ids; a query whose new
//!   points stay within that depth (less `τ`) of the old ones returns them,
//!   bit for bit the walk's answer, reading no records or planes. It
//!   certified only about 28 % of the queries (the bench's check: 77.5 %
//!   kept their features, 49.4 % still took a walk step): a frame's turn
//!   moves a point by about as much as its depth in a region. Slower: in
//!   cache 124.0–129.8 → 181.5–183.4 ns, per body with read-ahead 211.0 →
//!   376.5 ns (alternated). Taken apart in cache (two alternated runs):
//!   this code 135.3–141.2 ns; the walk returning its last step's depths
//!   152.6–156.9; also filling the copies after each walk 169.0–186.5; also
//!   checking them 185.2–211.1: every part cost more than the skipped
//!   walks saved.
//!
//! With glibc's huge pages for the heap (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`,
//! an application's choice), three alternated runs of the bench without its
//! check (`ICOLLIDE_BENCH_CHECK=0`): warm 270.7–285.7 → 212.9–220.2 ns, with
//! read-ahead 194.3–220.8 → 178.1–187.7 ns: the TLB's share of the per-body
//! cost.
//!
//! **The machine's floor** (`cargo run --release -p icollide-peers
//! --example memory_latency`, three runs, 2026-11-27). A dependent load
//! through every line of a random working set costs 9.1–16.5 ns in 1 MiB,
//! 110–160 ns in 16 MiB, 159–178 ns in 64 MiB and 187–233 ns in 256 MiB;
//! through one line per 4 KiB page (the same pages with 1/64 of the data,
//! so that the lines stay cached and the cost is the TLB miss's page walk)
//! 3.2–5.1, 17–26, 46–60 and 184–229 ns; independent loads overlap, to
//! 5–10 ns each in 64–256 MiB. The per-body scene spreads 122 MB of hulls
//! over some 30 000 pages and a frame touches a few of each hull's: each first touch
//! is a page walk of 50 ns or more, and a cache miss besides when the line
//! has left the L3. A query that starts cold waits on at least two such
//! loads in a chain (the polytope's own fields, then the cached features'
//! records) before its compute (124–141 ns with the hulls in cache): one
//! query at a time, with its hulls out of cache, cannot reach 150 ns on
//! this machine. Only a batch that overlaps its pairs' misses can; the
//! read-ahead leaves 70–115 ns per query unhidden (per body 202.8–241.9 ns
//! over today's runs below, against 126.6–129.6 in cache), and what was
//! tried to hide the rest did not:
//! - walks interleaved (2026-11-27, code on the repository's branch
//!   `exp/lin-canny-batch`): every query's first step in one pass with the
//!   read-ahead, a walk that moves parked whole (its frames, tolerance,
//!   features and step count: the same steps, answers equal bit for bit,
//!   tested) with its new feature's record hinted, and resumed in a later
//!   pass with its run hinted two walks ahead. Per body 212.1–221.9 ns
//!   against the read-ahead's 219.0–235.9 (four runs of both), but 146.4–
//!   149.0 against 126.6–127.4 in cache (the parking's copies and the
//!   passes' bookkeeping): a gain too small for a second API. Timed by
//!   pass (two runs, throwaway counters): the first pass 156.6–159.5 ns
//!   per query per body against 110.3–110.8 in cache, the resumed steps
//!   74.3–76.2 against 43.2–43.5 (22.5 % of the queries parked): the first
//!   step leaves about 47 ns unhidden although the records and runs it
//!   reads were hinted, and the cause was not found;
//! - the same with the first pass's hints issued in bursts for groups of
//!   4–32 queries (so that their page walks overlap): 217.3–240.6 ns (the
//!   read-ahead in the same runs 202.8–228.5), no better;
//! - hinting every line a record or run overlaps (the vertex records of
//!   `v` and `v + 1`, the tails of runs that cross a line): read-ahead
//!   212.8–241.9 against 211.4–236.0 ns, three alternated runs;
//! - a hint to one line in each 4 KiB page of both hulls' arrays (to fill
//!   the TLB before a move): 351.5–369.4 against 193.8–208.3 ns;
//! - hint distances from 4 and 2 queries ahead (fields, records) to 12 and
//!   6: 211.1–233.8 ns for all, within the noise;
//! - loading what the first step reads (the polytopes' fields, the cached
//!   features' records and runs) for the next 4, 8 or 16 pairs in a tight
//!   loop of loads, where the misses overlap, before walking the current
//!   ones (a throwaway program, two runs each): 245.9–308.0 ns against the
//!   read-ahead's 221.2–242.3. That loop alone took 42.7–44.0 ns per pair
//!   per body without hints and 32.1–36.5 with them (9.5–12.1 in cache):
//!   the first step's reads cost 20–25 ns more per body even where their
//!   misses overlap freely.
//!
//! A profile of the read-ahead (`perf`, per body) puts about one in seven
//! of the frame's samples on the hint instructions themselves and on the
//! load of the polytope's fields that the second hint needs. One reading: a hint
//! that misses the TLB holds the pipeline for its page walk, and a query's
//! thousand-odd instructions are too many for the reorder window to cover
//! it; but the bursts above, meant to overlap those walks, did not help,
//! so the cause is not settled. (In a throwaway loop of one load per
//! iteration, hints eight loads ahead cut a load through one line per page
//! of 128 MiB from 53.7 to 5.9 ns: there the hints work.)
//!
//! Where the hulls sit matters as much (throwaway variants of the bench,
//! 2026-11-27, three alternated runs each, warm / read-ahead ns): the
//! scene's hulls as built, each polytope inside its shape's allocation,
//! 313.7–319.3 / 230.4–252.3 (one run at 572.6 / 296.3); deep copies of the
//! 2 000 polytopes made after the scene, the structs side by side in one
//! `Vec` and their arrays one polytope after another, 240.5–257.7 /
//! 203.8–228.4; the same copies with each struct boxed after its own arrays
//! 293.6–349.2 / 216.1–224.4. On a build whose arrays were `Arc`s (so that
//! a copy of the struct shares them), its hulls as built 318.0–337.7 /
//! 238.9–265.9: the structs side by side with the arrays where they were
//! built 327.2–372.2 / 246.6–266.1; the shapes built without their hull
//! mesh and its tree (less interleaved with the polytopes) 300.5–447.2 /
//! 243.9–250.1 against 336.1–381.3 / 248.6–256.4 with them. Only dense
//! structs *and* freshly packed arrays together gained, by a quarter
//! without read-ahead; why the two are needed together is not understood.
//! The crate does not control where an application's shapes are allocated,
//! so nothing of this was kept. The kernel's access monitor (`kdamond`) ran
//! on this machine throughout, which may add to both the page walks and
//! the noise.

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
