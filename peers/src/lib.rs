//! Adapters that run peer crates on bevy_icollide's scenes, for the
//! side-by-side benchmarks in `../benches/`.
//!
//! - [`ParryBvhBroadPhase`]: parry3d's `Bvh` driven the way rapier's
//!   `BroadPhaseBvh` drives it, with the pair bookkeeping a broad phase owes
//!   its narrow phase (which pairs started, which ended).
//! - [`brute_force_aabb`]: the world box of a hull by transforming every
//!   vertex, the baseline of the dynamic-box (hill-climbing) update.
//! - [`PingPong`]: frame order over a ring of precomputed frames that never
//!   jumps (0, 1, …, K-1, K-2, …, 1, 0, 1, …), so coherence holds across the
//!   wrap.
//! - [`SeparatedPairs`]: pairs of random sphere hulls that spin and drift
//!   without ever touching, for the convex distance benchmark;
//!   [`to_parry_pose`] converts its poses for parry3d.
//! - Mesh–mesh: [`cube_sphere`] (nested spheres for the close-proximity
//!   scene, with [`min_plane_distance`] to prove they never touch),
//!   [`fit_to_ball`] (real models scaled to a common size),
//!   [`to_parry_trimesh`] and [`ParryMeshContacts`] (parry3d's contact
//!   manifolds between two triangle meshes), [`log_log_slope`].
//! - [`timing`]: criterion settings, sample logs and medians, scene
//!   selection, shared by the benches.

mod motion;
pub mod timing;

pub use motion::{PairMotion, WRAP};

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::shape::ConvexPolytope;
pub use bevy_icollide::testkit::cube_sphere;
use bevy_icollide::testkit::{Rng, sphere_hull};
use glam::{Mat3, Vec3};
use std::sync::Arc;

use parry3d::bounding_volume::Aabb as ParryAabb;
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry3d::shape::ConvexPolyhedron;
use parry3d::utils::hashmap::{Entry, HashMap};

/// bevy_icollide's box as parry3d's (both are glam `Vec3` corners).
#[inline]
pub fn to_parry(aabb: &Aabb) -> ParryAabb {
    ParryAabb::new(aabb.min, aabb.max)
}

/// The world box of `vertices` under `pose`, by transforming every vertex:
/// `O(vertices)` per object and frame, with no coherence to exploit.
///
/// World coordinate `k` of a vertex is computed as row `k` of the rotation
/// dotted with the local vertex, plus the translation: the same arithmetic
/// as [`bevy_icollide::bounds::DynamicBox::update`], so both give the same
/// box bit for bit.
#[inline]
pub fn brute_force_aabb(vertices: &[Vec3], pose: &Pose) -> Aabb {
    let rows = Mat3::from_quat(pose.rotation).transpose();
    let (r0, r1, r2) = (rows.col(0), rows.col(1), rows.col(2));
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for &v in vertices {
        let w = Vec3::new(r0.dot(v), r1.dot(v), r2.dot(v));
        lo = lo.min(w);
        hi = hi.max(w);
    }
    Aabb::new(lo + pose.translation, hi + pose.translation)
}

/// Frame order over a ring of `len` precomputed consecutive frames that
/// bounces at both ends instead of jumping from the last frame back to the
/// first: every step is one frame of motion, forwards or backwards.
#[derive(Clone, Copy, Debug)]
pub struct PingPong {
    len: usize,
    /// Position in the period `0..2 * (len - 1)`.
    t: usize,
}

impl PingPong {
    /// Starts at frame 0 of a ring of `len` frames (`len >= 2`).
    pub fn new(len: usize) -> Self {
        assert!(len >= 2, "a ring needs two frames");
        Self { len, t: 0 }
    }

    /// Frames in one full period (there and back).
    pub fn period(&self) -> usize {
        2 * (self.len - 1)
    }

    /// The current frame.
    pub fn current(&self) -> usize {
        if self.t < self.len {
            self.t
        } else {
            self.period() - self.t
        }
    }

    /// Advances one frame and returns it.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> usize {
        self.t = (self.t + 1) % self.period();
        self.current()
    }
}

/// bevy_icollide's pose as parry3d's (both are a glam `Quat` and `Vec3`).
#[inline]
pub fn to_parry_pose(pose: &Pose) -> parry3d::math::Pose {
    parry3d::math::Pose::from_parts(pose.translation, pose.rotation)
}

/// Parameters of [`SeparatedPairs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairParams {
    /// Number of pairs (bodies `2i` and `2i + 1` form pair `i`).
    pub pairs: usize,
    /// Random points on the unit sphere per hull.
    pub hull_points: usize,
    /// Spin of every body, degrees per frame (each about its own axis).
    pub rotation_deg: f32,
    /// Translation of every body per frame (its own direction).
    pub step: f32,
    /// The center distance of a pair is kept in `[min, max]`: when a frame's
    /// motion would take it out, the components of both velocities along
    /// the pair's axis are mirrored (speeds unchanged).
    pub center_distance: [f32; 2],
    /// Distance between the centers of neighboring pairs on a cubic grid.
    /// Pairs never interact (only the two bodies of a pair are queried), so
    /// the default 0 puts every pair about the origin: f32 world
    /// coordinates stay small and world-space results keep full precision.
    pub spacing: f32,
    /// Distinct hulls, shared round-robin by the bodies; 0: every body its
    /// own hull (the default).
    pub distinct_shapes: usize,
    /// PRNG seed.
    pub seed: u64,
}

impl Default for PairParams {
    /// 1000 pairs of hulls of 100 points (radius 1), 1°/frame, 0.01 (0.5 %
    /// of the diameter) per frame, centers 2.5 to 3.5 apart, all pairs
    /// about the origin.
    fn default() -> Self {
        Self {
            pairs: 1000,
            hull_points: 100,
            rotation_deg: 1.0,
            step: 0.01,
            center_distance: [2.5, 3.5],
            spacing: 0.0,
            distinct_shapes: 0,
            seed: 7,
        }
    }
}

/// Pairs of convex hulls of random points on the unit sphere, every body
/// with its own shape (by default), spin axis and drift direction, over
/// `frames` consecutive frames of coherent motion. With radius 1 and
/// centers at least 2 apart the two hulls of a pair never touch.
pub struct SeparatedPairs {
    /// The parameters.
    pub params: PairParams,
    /// `shapes[b]`: body `b`'s hull (pair `i` is bodies `2i`, `2i + 1`).
    pub shapes: Vec<SharedShape>,
    /// `frames[f][b]`: body `b` at frame `f`.
    pub frames: Vec<Vec<Pose>>,
    /// The motion at the last of `frames`, to step on from there.
    pub motion: PairMotion,
}

impl SeparatedPairs {
    /// A seeded scene and its first `frames` frames.
    pub fn new(params: PairParams, frames: usize) -> Self {
        let mut rng = Rng::new(params.seed);
        let n = 2 * params.pairs;
        let distinct = match params.distinct_shapes {
            0 => n,
            k => k.min(n),
        };
        let pool: Vec<SharedShape> = (0..distinct)
            .map(|_| sphere_hull(&mut rng, params.hull_points, 1.0))
            .collect();
        let shapes: Vec<SharedShape> = (0..n).map(|b| pool[b % distinct].clone()).collect();
        let mut motion = PairMotion::new(&params, &mut rng);
        let mut all = Vec::with_capacity(frames);
        for f in 0..frames {
            if f > 0 {
                motion.step();
            }
            all.push(motion.poses.clone());
        }
        Self {
            params,
            shapes,
            frames: all,
            motion,
        }
    }

    /// Number of pairs.
    pub fn pairs(&self) -> usize {
        self.params.pairs
    }

    /// Body `b`'s polytope.
    pub fn polytope(&self, b: usize) -> &ConvexPolytope {
        self.shapes[b]
            .polytope()
            .expect("sphere hulls are convex polytopes")
    }

    /// Every body's polytope, by body index.
    pub fn polytopes(&self) -> Vec<&ConvexPolytope> {
        (0..self.shapes.len()).map(|b| self.polytope(b)).collect()
    }

    /// Every body's hull as parry3d's `ConvexPolyhedron`, built once per
    /// distinct hull (bodies sharing a hull share the `Arc`).
    pub fn parry_shapes(&self) -> Vec<Arc<ConvexPolyhedron>> {
        let mut out: Vec<Arc<ConvexPolyhedron>> = Vec::with_capacity(self.shapes.len());
        for (b, shape) in self.shapes.iter().enumerate() {
            let same = (0..b).find(|&k| self.shapes[k].ptr_eq(shape));
            out.push(match same {
                Some(k) => out[k].clone(),
                None => Arc::new(
                    ConvexPolyhedron::from_convex_hull(self.polytope(b).vertices())
                        .expect("parry3d hull"),
                ),
            });
        }
        out
    }

    /// `frames[f][b]` as parry3d's poses.
    pub fn parry_frames(&self) -> Vec<Vec<parry3d::math::Pose>> {
        self.frames
            .iter()
            .map(|f| f.iter().map(to_parry_pose).collect())
            .collect()
    }

    /// Center distance of pair `i` at frame `f`.
    pub fn center_distance(&self, f: usize, i: usize) -> f32 {
        let p = &self.frames[f];
        p[2 * i].translation.distance(p[2 * i + 1].translation)
    }
}

/// Pair counts of one broad-phase update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairChanges {
    /// Pairs that started overlapping.
    pub started: usize,
    /// Pairs that stopped overlapping.
    pub ended: usize,
}

/// parry3d's BVH used as a broad phase, as rapier 0.3x uses it
/// (`rapier::geometry::BroadPhaseBvh`).
///
/// Leaf `i` is object `i`. Each [`update`](Self::update):
///
/// 1. `insert_or_update_partially(aabb, i, margin)` for every object;
/// 2. `optimize_incremental`, then `refit`;
/// 3. `traverse_bvtt_single_tree` (self-overlap of the tree) into a pair map
///    `(i, j) -> frame last seen`: a pair not in the map has *started*;
/// 4. a pass over the map drops the pairs not seen this frame whose leaves no
///    longer overlap: they have *ended* (rapier's `pairs.retain`).
///
/// Two modes:
///
/// - [`exact`](Self::exact): margin 0 and a full traversal
///   (`CHANGE_DETECTION = false`). The pairs are exactly the overlapping
///   pairs of the given boxes, the same set sweep and prune keeps.
/// - [`with_change_detection`](Self::with_change_detection): rapier's
///   default, a margin > 0 (rapier passes `1e-2`) and
///   `CHANGE_DETECTION = true`. A leaf is fattened by the margin and left
///   alone while its box stays inside; the traversal only visits pairs with
///   a changed leaf. The pairs are those of the (stale, fat) leaf boxes: a
///   superset of the exact pairs. With margin 0 parry never flags a leaf as
///   changed, so change detection would find nothing after the first frame;
///   this constructor rejects it.
pub struct ParryBvhBroadPhase {
    bvh: Bvh,
    workspace: BvhWorkspace,
    /// `(smaller, larger)` leaf index to the last frame the pair was seen.
    pairs: HashMap<(u32, u32), u32>,
    frame: u32,
    margin: f32,
    change_detection: bool,
    /// Pairs the caller's rules refuse (rapier's fixed–fixed and collision
    /// groups) are not stored; the traversal still visits them.
    keep: fn(u32, u32) -> bool,
}

impl ParryBvhBroadPhase {
    /// The exact broad phase: margin 0, full traversal every frame.
    pub fn exact(aabbs: &[Aabb]) -> Self {
        Self::build(aabbs, 0.0, false)
    }

    /// rapier's configuration: leaves fattened by `margin` (> 0) and
    /// change-detecting traversal.
    pub fn with_change_detection(aabbs: &[Aabb], margin: f32) -> Self {
        assert!(
            margin > 0.0,
            "parry flags a leaf as changed only when it is fattened by a margin > 0"
        );
        Self::build(aabbs, margin, true)
    }

    /// rapier's configuration over a scene of crowds: pairs `keep` refuses
    /// are never stored, and the tree is built without the first full
    /// traversal (which would visit every pair of a stack of statics). Pairs
    /// present at build time are found once one of their leaves changes;
    /// the crowd benchmark places its movers apart at the start.
    pub fn crowd(aabbs: &[Aabb], margin: f32, keep: fn(u32, u32) -> bool) -> Self {
        assert!(margin > 0.0, "change detection needs a margin > 0");
        let mut this = Self::tree(aabbs, margin, true);
        this.keep = keep;
        this
    }

    fn tree(aabbs: &[Aabb], margin: f32, change_detection: bool) -> Self {
        let leaves: Vec<ParryAabb> = aabbs.iter().map(to_parry).collect();
        Self {
            bvh: Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves),
            workspace: BvhWorkspace::default(),
            pairs: HashMap::default(),
            frame: 0,
            margin,
            change_detection,
            keep: |_, _| true,
        }
    }

    /// Builds the tree over `aabbs` (binned SAH, leaf `i` = `aabbs[i]`) and
    /// fills the pair map with a full traversal.
    fn build(aabbs: &[Aabb], margin: f32, change_detection: bool) -> Self {
        let mut this = Self::tree(aabbs, margin, change_detection);
        let Self {
            bvh,
            workspace,
            pairs,
            frame,
            ..
        } = &mut this;
        bvh.traverse_bvtt_single_tree::<false>(workspace, &mut |a, b| {
            pairs.insert(ordered(a, b), *frame);
        });
        this
    }

    /// Moves leaf `i` to `aabbs[i]` for every `i` and brings the pair map up
    /// to date; returns how many pairs started and ended.
    pub fn update(&mut self, aabbs: &[Aabb]) -> PairChanges {
        self.frame = self.frame.wrapping_add(1);
        for (i, aabb) in aabbs.iter().enumerate() {
            self.bvh
                .insert_or_update_partially(to_parry(aabb), i as u32, self.margin);
        }
        self.rebalance_and_collect()
    }

    /// Rebalances and refits the tree as rapier does, then collects the
    /// pairs.
    fn rebalance_and_collect(&mut self) -> PairChanges {
        self.bvh.optimize_incremental(&mut self.workspace);
        self.bvh.refit(&mut self.workspace);
        if self.change_detection {
            self.collect::<true>()
        } else {
            self.collect::<false>()
        }
    }

    /// Updates only the leaves in `moved` (the others keep their boxes), as
    /// rapier does when few colliders move, then collects the pairs.
    pub fn update_subset(&mut self, aabbs: &[Aabb], moved: &[u32]) -> PairChanges {
        self.frame = self.frame.wrapping_add(1);
        for &i in moved {
            self.bvh
                .insert_or_update_partially(to_parry(&aabbs[i as usize]), i, self.margin);
        }
        self.rebalance_and_collect()
    }

    fn collect<const CHANGE_DETECTION: bool>(&mut self) -> PairChanges {
        let Self {
            bvh,
            workspace,
            pairs,
            frame,
            keep,
            ..
        } = self;
        let (frame, keep) = (*frame, *keep);
        let mut changes = PairChanges::default();
        bvh.traverse_bvtt_single_tree::<CHANGE_DETECTION>(workspace, &mut |a, b| {
            if !keep(a, b) {
                return;
            }
            match pairs.entry(ordered(a, b)) {
                Entry::Occupied(e) => *e.into_mut() = frame,
                Entry::Vacant(e) => {
                    e.insert(frame);
                    changes.started += 1;
                }
            }
        });
        pairs.retain(|&(a, b), seen| {
            if *seen == frame {
                return true;
            }
            let (Some(na), Some(nb)) = (bvh.leaf_node(a), bvh.leaf_node(b)) else {
                changes.ended += 1;
                return false;
            };
            if (!CHANGE_DETECTION || na.is_changed() || nb.is_changed()) && !na.intersects(nb) {
                changes.ended += 1;
                false
            } else {
                true
            }
        });
        changes
    }

    /// Number of pairs in the map (the broad phase's current output).
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// The current pairs, `(smaller, larger)`, sorted.
    pub fn sorted_pairs(&self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self.pairs.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// The underlying tree.
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }
}

#[inline]
fn ordered(a: u32, b: u32) -> (u32, u32) {
    if a < b { (a, b) } else { (b, a) }
}

// ---------------------------------------------------------------------------
// Mesh–mesh helpers (benches/mesh_collide.rs).
// ---------------------------------------------------------------------------

/// The smallest distance from the origin to the plane of a triangle of the
/// soup (degenerate triangles skipped), in f64: for a soup around the origin
/// whose triangles all face away from it, a lower bound on the distance from
/// the origin to the surface.
pub fn min_plane_distance(positions: &[Vec3], triangles: &[[u32; 3]]) -> f64 {
    triangles
        .iter()
        .filter_map(|t| {
            let [a, b, c] = t.map(|i| positions[i as usize].as_dvec3());
            let n = (b - a).cross(c - a);
            let len = n.length();
            (len > 0.0).then(|| (n.dot(a) / len).abs())
        })
        .fold(f64::INFINITY, f64::min)
}

/// `positions` moved so that their bounding box is centered on the origin
/// and scaled so that the farthest one is `radius` from it.
pub fn fit_to_ball(positions: &[Vec3], radius: f32) -> Vec<Vec3> {
    let (lo, hi) = positions.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let center = 0.5 * (lo + hi);
    let far = positions
        .iter()
        .map(|p| p.distance(center))
        .fold(0.0f32, f32::max);
    let s = if far > 0.0 { radius / far } else { 1.0 };
    positions.iter().map(|&p| (p - center) * s).collect()
}

/// bevy_icollide's triangle mesh as parry3d's (same vertices, same
/// triangles, no flags: parry builds its AABB tree here).
pub fn to_parry_trimesh(mesh: &bevy_icollide::shape::TriMesh) -> parry3d::shape::TriMesh {
    parry3d::shape::TriMesh::new(mesh.vertices().to_vec(), mesh.triangles().to_vec())
        .expect("parry3d accepts every mesh bevy_icollide accepts")
}

/// What one [`ParryMeshContacts::compute`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParryContactCount {
    /// Triangle pairs whose manifold holds at least one contact point (the
    /// pairs parry reports in contact).
    pub pairs: usize,
    /// Contact points over all manifolds.
    pub points: usize,
    /// Manifolds computed: the triangle pairs whose (loosened) AABBs
    /// overlap, each one convex–convex contact query (parry's analogue of
    /// our triangle tests).
    pub candidates: usize,
}

/// All contacts between two parry3d triangle meshes: the contact-manifolds
/// API (`PersistentQueryDispatcher::contact_manifolds` of the
/// `DefaultQueryDispatcher`), which for two meshes runs
/// `contact_manifolds_composite_shape_composite_shape`: every triangle of
/// the mesh with the larger root box that overlaps the other's root box is
/// looked up in the other's AABB tree, and each pair of triangles with
/// overlapping boxes gets a manifold from a convex–convex (polygonal
/// feature map) contact query.
///
/// Every call starts from a fresh workspace: a one-shot query, with no
/// coherence from the previous call (parry would otherwise reuse a pair's
/// manifold when the same triangle pair comes back at nearly the same
/// relative pose, e.g. when one placement is queried repeatedly).
#[derive(Default)]
pub struct ParryMeshContacts {
    manifolds: Vec<parry3d::query::ContactManifold<(), ()>>,
}

impl ParryMeshContacts {
    /// Contacts between `m1` at `pos1` and `m2` at `pos2` with prediction
    /// distance `prediction` (0: touching or penetrating only).
    pub fn compute(
        &mut self,
        pos1: &parry3d::math::Pose,
        m1: &parry3d::shape::TriMesh,
        pos2: &parry3d::math::Pose,
        m2: &parry3d::shape::TriMesh,
        prediction: f32,
    ) -> ParryContactCount {
        use parry3d::query::{DefaultQueryDispatcher, PersistentQueryDispatcher};
        let pos12 = pos1.inv_mul(pos2);
        let mut workspace = None;
        self.manifolds.clear();
        DefaultQueryDispatcher
            .contact_manifolds(
                &pos12,
                m1,
                m2,
                prediction,
                &mut self.manifolds,
                &mut workspace,
            )
            .expect("parry3d supports trimesh-trimesh contact manifolds");
        let mut count = ParryContactCount {
            candidates: self.manifolds.len(),
            ..Default::default()
        };
        for m in &self.manifolds {
            count.pairs += usize::from(!m.points.is_empty());
            count.points += m.points.len();
        }
        count
    }

    /// The manifolds of the last [`compute`](Self::compute).
    pub fn manifolds(&self) -> &[parry3d::query::ContactManifold<(), ()>] {
        &self.manifolds
    }
}

/// Least-squares slope of `ln y` against `ln x` over the points with both
/// coordinates positive (NaN with fewer than two).
pub fn log_log_slope(points: &[(f64, f64)]) -> f64 {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|&(x, y)| (x.ln(), y.ln()))
        .collect();
    let n = logs.len() as f64;
    if logs.len() < 2 {
        return f64::NAN;
    }
    let (mx, my) = logs
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x / n, b + y / n));
    let (sxy, sxx) = logs.iter().fold((0.0, 0.0), |(a, b), &(x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    sxy / sxx
}

/// The value of the environment variable `var`, or `default` when it is
/// unset or does not parse.
pub fn env_or<T: std::str::FromStr>(var: &str, default: T) -> T {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A comma-separated list of sizes from the environment variable `var`
/// (underscores allowed: `10_000`), or `default` when it is unset.
pub fn env_sizes(var: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(var) {
        Ok(s) => s
            .split(',')
            .map(|t| {
                t.trim()
                    .replace('_', "")
                    .parse()
                    .unwrap_or_else(|_| panic!("{var}: comma-separated integers"))
            })
            .collect(),
        Err(_) => default.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ping_pong_never_jumps() {
        let mut p = PingPong::new(4);
        let seq: Vec<usize> = (0..8).map(|_| p.next()).collect();
        assert_eq!(seq, [1, 2, 3, 2, 1, 0, 1, 2]);
    }

    #[test]
    fn separated_pairs_stay_apart_and_move_coherently() {
        let params = PairParams {
            pairs: 20,
            hull_points: 20,
            ..Default::default()
        };
        let frames = 200;
        let scene = SeparatedPairs::new(params, frames);
        assert_eq!(scene.frames.len(), frames);
        let max_turn = 1.0f32.to_radians() * 1.001;
        for f in 0..frames {
            for i in 0..params.pairs {
                let d = scene.center_distance(f, i);
                assert!((2.45..3.55).contains(&d), "pair {i}, frame {f}: {d}");
            }
            if f > 0 {
                for (p, q) in scene.frames[f - 1].iter().zip(&scene.frames[f]) {
                    let moved = p.translation.distance(q.translation);
                    assert!((moved - params.step).abs() < 1e-5, "moved {moved}");
                    assert!(p.rotation.angle_between(q.rotation) <= max_turn);
                }
            }
        }
        // Centers at least 2 apart and every vertex within the unit sphere:
        // the hulls of a pair never touch.
        let r = scene
            .polytopes()
            .iter()
            .flat_map(|p| p.vertices())
            .map(|v| v.length())
            .fold(0.0, f32::max);
        assert!(r <= 1.0 + 1e-5, "hull radius {r}");
    }

    #[test]
    fn exact_bvh_matches_brute_force() {
        let boxes: Vec<Aabb> = (0..50)
            .map(|i| {
                let c = Vec3::new((i % 7) as f32, (i % 5) as f32 * 0.9, (i / 7) as f32 * 0.8);
                Aabb::from_center_half_extents(c, Vec3::splat(0.6))
            })
            .collect();
        let mut bp = ParryBvhBroadPhase::exact(&boxes);
        let moved: Vec<Aabb> = boxes
            .iter()
            .map(|b| Aabb::new(b.min + Vec3::X * 0.3, b.max + Vec3::X * 0.1))
            .collect();
        bp.update(&moved);
        let boxes: Vec<Option<Aabb>> = moved.into_iter().map(Some).collect();
        let brute: Vec<(u32, u32)> = bevy_icollide::testkit::box_pairs(&boxes, |_| false)
            .into_iter()
            .map(bevy_icollide::broad_phase::pair_ids)
            .collect();
        assert_eq!(bp.sorted_pairs(), brute);
    }

    #[test]
    fn cube_sphere_counts_radius_and_nesting() {
        let (p, t) = cube_sphere(1.0, 52);
        assert_eq!(t.len(), 32_448);
        assert!(p.iter().all(|v| (v.length() - 1.0).abs() < 1e-6));
        // Outward: every triangle's normal points away from the origin.
        for tri in &t {
            let [a, b, c] = tri.map(|i| p[i as usize]);
            assert!((b - a).cross(c - a).dot(a) > 0.0);
        }
        // The sphere of radius 1.001 lies outside the unit ball.
        let (q, u) = cube_sphere(1.001, 52);
        assert!(min_plane_distance(&q, &u) > 1.0);
    }

    #[test]
    fn fit_to_ball_and_slope() {
        let p = fit_to_ball(&[Vec3::new(2.0, 2.0, 2.0), Vec3::new(4.0, 2.0, 2.0)], 3.0);
        assert_eq!(p, vec![Vec3::new(-3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0)]);
        let pts: Vec<(f64, f64)> = [1.0, 0.1, 0.01].iter().map(|&e| (e, 5.0 / e)).collect();
        assert!((log_log_slope(&pts) + 1.0).abs() < 1e-12);
    }
}
