//! Time of impact between two moving trees of convex parts (a surface's
//! triangles, or one convex shape as a tree of one leaf) by branch and
//! bound over time (`search.rs`).
//!
//! ## The bound on a node pair
//!
//! At time 0 the two boxes are apart by `gap_k ≥ 0` along each of their six
//! face axes `L_k` (with B's center on side `s_k = ±1` of A's). Along the
//! fixed direction `s_k L_k`, what is inside A can advance at most at
//! `s_k L_k · v_A + |ω_A| R_A` and what is inside B can come back at most at
//! `−s_k L_k · v_B + |ω_B| R_B`, where `v` is the velocity of a body's
//! rotation center and `R` bounds the distance of the box's points from it
//! (the box center's distance plus its half diagonal). So the gap along
//! `L_k` lasts at least `gap_k / rate_k`, forever when `rate_k ≤ 0`, and
//! nothing under the pair can touch before the largest of these six times:
//! that is the pair's bound. For a pure translation (`ω = 0`) it is the
//! time at which the translated boxes stop being separated by a face axis.
//!
//! A pair's bound starts from its parent's (nothing under the parent can
//! touch before it) and is advanced like conservative advancement at the
//! level of boxes: the boxes are moved to their bound, and bounded again
//! from there, a few times. The boxes are cheap to move; the time bound
//! from time 0 alone lets far too many pairs of a spinning body through
//! (`--bench shape_cast`, spinning tori: it did not finish in 25 minutes
//! before, 1.15 ms per cast with it).
//!
//! The search keeps the earliest time found; a pair whose bound is later
//! is dropped, and the leaves run [`time_of_impact`] (a GJK ray cast, or
//! conservative advancement when a body turns) on every pair of their parts, with the
//! earliest time so far as the limit. The answer is the minimum over all
//! part pairs of that same function: the tests compare it with the brute
//! force over all triangle pairs.

use glam::{Mat3, Vec3};

use super::aabb_tree::AabbNode;
use super::collide::BoxNode;
use super::distance::{FaceAxes, FrameBox};
use super::search::{PairSearch, PendingPair, branch_and_bound};
use super::tree::Bvh;
use crate::geometry::cast::{CastParams, CastResult, Mover, Reach, time_of_impact};
use crate::geometry::gjk::GjkCache;
use crate::geometry::support::{PointSetSupport, SupportMap};
use crate::math::{Aabb, RigidMotion};
use crate::shape::TriMesh;

/// The parts under a tree's leaves.
#[derive(Clone, Copy)]
pub enum Parts<'a> {
    /// A surface, scaled along its own axes by the vector (`Vec3::ONE`:
    /// unscaled; see [`MeshSide`](super::MeshSide)): the leaves hold
    /// triangle indices.
    Mesh(&'a TriMesh, Vec3),
    /// One convex shape (the tree is [`single_leaf`]) and the bounds on
    /// its points about the motion's center.
    Convex {
        /// The shape.
        shape: &'a dyn SupportMap,
        /// Bounds on its points about `local_center`.
        reach: Reach,
    },
}

/// One moving side of a cast: a tree, its parts, its motion.
#[derive(Clone, Copy)]
pub struct CastSide<'a, N> {
    /// The tree over the parts.
    pub tree: &'a Bvh<N>,
    /// What its leaves index.
    pub parts: Parts<'a>,
    /// Its motion.
    pub motion: &'a RigidMotion,
}

/// The earliest contact of two sides: the result of the part pair and
/// which parts (triangles; 0 for a convex shape).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeCast {
    /// The contact of the part pair.
    pub hit: CastResult,
    /// The parts, `[of A, of B]`.
    pub parts: [u32; 2],
}

/// A tree of one leaf over a box: a convex shape as a [`CastSide`].
pub fn single_leaf(aabb: Aabb) -> Bvh<AabbNode> {
    let mut tree = Bvh::default();
    set_single_leaf(&mut tree, aabb);
    tree
}

/// Makes `tree` one leaf over `aabb`, reusing its memory.
pub fn set_single_leaf(tree: &mut Bvh<AabbNode>, aabb: Aabb) {
    tree.nodes.clear();
    tree.nodes.push(AabbNode {
        aabb,
        first: 0,
        count: 1,
    });
    tree.order.clear();
    tree.order.push(0);
}

/// How two boxes move: `closing = v_A − v_B`, `spin = |ω_A| R_A + |ω_B|
/// R_B` (see the module docs), and the distance `within` that counts as
/// contact (the cast's target plus tolerance).
#[derive(Clone, Copy, Debug)]
pub struct Approach {
    /// Velocity of A's center minus B's.
    pub closing: Vec3,
    /// How fast the boxes' points can turn, summed.
    pub spin: f32,
    /// The distance that counts as contact.
    pub within: f32,
}

/// A lower bound on the time two boxes (world frame at time 0) can come
/// within `approach.within` of each other: `INFINITY` when a face axis
/// never closes.
pub fn time_bound(a: &FrameBox, b: &FrameBox, approach: &Approach) -> f32 {
    let f = FaceAxes::of(a, b);
    let (closing, spin) = (approach.closing, approach.spin);
    let mut bound = 0.0f32;
    for k in 0..6 {
        let gap = f.offset[k].abs() - f.reach[k] - f.slack - approach.within;
        if gap <= 0.0 {
            continue;
        }
        let axis = if k < 3 {
            a.axes.col(k)
        } else {
            b.axes.col(k - 3)
        };
        let rate = f.offset[k].signum() * axis.dot(closing) + spin;
        if rate <= 0.0 {
            return f32::INFINITY;
        }
        bound = bound.max(gap / rate);
    }
    bound
}

/// The earliest time in `[0, params.max_time]` at which a part of `a` and
/// a part of `b` come within the target distance, or `None`.
pub fn tree_cast<NA: BoxNode, NB: BoxNode>(
    a: &CastSide<'_, NA>,
    b: &CastSide<'_, NB>,
    params: &CastParams,
    stack: &mut Vec<PendingPair>,
) -> Option<TreeCast> {
    let mut search = Search {
        a,
        b,
        closing: a.motion.linvel - b.motion.linvel,
        params: *params,
        found: None,
        cache: GjkCache::new(),
    };
    branch_and_bound(a.tree, b.tree, &mut search, stack);
    search.found
}

/// The state of one search.
struct Search<'q, 'a, NA, NB> {
    a: &'q CastSide<'a, NA>,
    b: &'q CastSide<'a, NB>,
    closing: Vec3,
    /// `max_time` is the earliest time found so far.
    params: CastParams,
    found: Option<TreeCast>,
    cache: GjkCache,
}

/// Node-level advancement steps per node pair before it is split.
const NODE_STEPS: u32 = 8;

/// A node's box at time `t` of its side's motion, and how fast its points
/// can turn.
fn moving_box<N: BoxNode>(side: &CastSide<'_, N>, node: u32, t: f32) -> (FrameBox, f32) {
    let n = &side.tree.nodes[node as usize];
    let (rotation, center, half) = match side.parts {
        Parts::Mesh(_, scale) if scale != Vec3::ONE => n.scaled_box(scale),
        _ => (n.rotation(), n.center(), n.half_extents()),
    };
    let m = side.motion;
    let spin = if m.is_linear() {
        0.0
    } else {
        let reach = (center - m.local_center).length() + half.length();
        m.angvel.length() * reach
    };
    let pose = m.pose_at(t);
    let frame = FrameBox {
        axes: Mat3::from_quat(pose.rotation * rotation),
        center: pose.transform_point(center),
        half,
    };
    (frame, spin)
}

/// Calls `f` with part `i` of a side as a support map and its reach.
fn with_part<R>(
    parts: Parts<'_>,
    motion: &RigidMotion,
    i: u32,
    f: impl FnOnce(&dyn SupportMap, Reach) -> R,
) -> R {
    match parts {
        Parts::Mesh(mesh, scale) => {
            let tri = mesh.triangle(i as usize).map(|p| p * scale);
            // Only a turning side needs where its points are.
            let reach = if motion.is_linear() {
                Reach::ball(0.0)
            } else {
                Reach::of_points(tri, motion)
            };
            f(&PointSetSupport(&tri[..]), reach)
        }
        Parts::Convex { shape, reach } => f(shape, reach),
    }
}

impl<NA: BoxNode, NB: BoxNode> PairSearch for Search<'_, '_, NA, NB> {
    /// Conservative advancement of the two boxes from the parent pair's
    /// bound: moved to the time before which they cannot come within
    /// reach, a few times over (see the module docs).
    fn bound(&mut self, na: u32, nb: u32, parent: f32) -> f32 {
        let mut t = parent;
        for _ in 0..NODE_STEPS {
            let (ba, sa) = moving_box(self.a, na, t);
            let (bb, sb) = moving_box(self.b, nb, t);
            let approach = Approach {
                closing: self.closing,
                spin: sa + sb,
                within: self.params.target + self.params.tolerance,
            };
            let step = time_bound(&ba, &bb, &approach);
            if step <= 0.0 {
                break;
            }
            t += step;
            if t.is_nan() || t > self.params.max_time {
                break;
            }
        }
        t
    }

    fn leaves(&mut self, na: u32, nb: u32, _bound: f32) {
        let (a, b) = (self.a, self.b);
        for &pa in a.tree.leaf_primitives(na as usize) {
            for &pb in b.tree.leaf_primitives(nb as usize) {
                self.part_pair(pa, pb);
            }
        }
    }

    fn best(&self) -> f32 {
        self.params.max_time
    }

    fn done(&self) -> bool {
        self.found.is_some_and(|f| f.hit.time <= 0.0)
    }
}

impl<NA, NB> Search<'_, '_, NA, NB> {
    /// Conservative advancement on one part pair, limited to the earliest
    /// time so far.
    fn part_pair(&mut self, pa: u32, pb: u32) {
        let (a, b) = (self.a, self.b);
        let (params, cache) = (&self.params, &mut self.cache);
        let hit = with_part(a.parts, a.motion, pa, |sa, ra| {
            with_part(b.parts, b.motion, pb, |sb, rb| {
                cache.reset();
                let ma = Mover {
                    shape: sa,
                    motion: a.motion,
                    reach: ra,
                };
                let mb = Mover {
                    shape: sb,
                    motion: b.motion,
                    reach: rb,
                };
                time_of_impact(&ma, &mb, params, cache)
            })
        });
        let Some(hit) = hit else { return };
        if self.found.is_none() || hit.time < self.params.max_time {
            self.params.max_time = hit.time;
            self.found = Some(TreeCast {
                hit,
                parts: [pa, pb],
            });
        }
    }
}
