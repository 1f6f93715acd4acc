//! Shape casts and time of impact: when do two moving shapes first touch?
//!
//! Every shape is made of convex parts (a polytope, a sphere or capsule, a
//! cylinder or cone, a
//! mesh's triangles, a compound's pieces), and the first contact of two
//! shapes is the earliest first contact of two of their parts. So:
//!
//! - two convex pieces: [`time_of_impact`]: a GJK ray cast on the
//!   Minkowski difference when both only translate, conservative
//!   advancement on GJK distances when one turns;
//! - a mesh with anything: its tree searched by time ([`tree_cast`]: a box
//!   pair is dropped when it cannot touch before the earliest contact
//!   found), [`time_of_impact`] on triangle pairs at the leaves; a
//!   convex piece on the other side is a tree of one leaf;
//! - a compound: its pieces, each piece pair dropped by the same box bound;
//! - a height field with a convex piece or a mesh: the field triangles
//!   under the box the piece sweeps, each cast as a convex piece
//!   (`heightfield_cast.rs`); a field with a field: each triangle of one
//!   under the box the other sweeps, cast against the other field.
//!
//! A mesh is a surface here as everywhere in [`query`](super), the other
//! kinds solids: a shape that moves inside a closed mesh without crossing a
//! triangle never hits it, a mesh that starts inside a solid hits it at
//! time 0.
//!
//! Every cast is solved in the pair's own frame, from the time the shapes'
//! bounding balls first come within reach, in a unit of time fitted to the
//! pair (`cast_frame.rs`): its answer does not depend on where the pair is
//! or how fast it moves, within the cast limits
//! ([`crate::collider::limits`]: start positions up to
//! `MAX_CAST_COORDINATE`, turns up to `MAX_CAST_TURN`; beyond,
//! [`QueryError::InvalidCast`]).
//!
//! The guarantee (see [`crate::geometry::cast`]): the reported time is never
//! later than the first time the shapes come within `target_distance`, and
//! at the reported time they are within `target_distance + tolerance`
//! ([`CastStatus::Converged`]), up to what `f32` resolves: the time is the
//! last `f32` not after the contact, and the shapes may move by up to
//! `2⁻²³` of the distance they travel in one such step of time
//! (`distance` is then theirs at the reported time); a tolerance below
//! `2⁻²⁰` of the shapes' size is raised to it. A near miss that the
//! advancement cannot pass in [`MAX_STEPS`](crate::geometry::cast::MAX_STEPS)
//! steps per turn ends as [`CastStatus::OutOfIterations`]: no contact
//! before the time, none reached. A shape cast with velocities is [`cast_shapes`]; with
//! rotation, [`cast_shapes_nonlinear`] (parry's names).

use glam::Vec3;
use smallvec::SmallVec;

use super::QueryError;
use super::cache::QueryScratch;
use super::cast_frame::CastFrame;
use super::distance::support_map;
use super::half_space_cast::half_space_cast;
use super::heightfield_cast::{FieldCastSide, field_pair_cast};
use super::pair::PairSide;
use super::pair::{ContactData, PairResult};
use crate::bvh::cast::{
    Approach, CastSide, Parts, TreeCast, set_single_leaf, time_bound, tree_cast,
};
use crate::bvh::distance::FrameBox;
use crate::bvh::distance::PendingPair;
use crate::bvh::surface::with_trees;
use crate::bvh::{AabbTree, Surface, TreeRef};
use crate::collider::{ShapeData, ShapeKind, SharedShape};
pub use crate::geometry::cast::CastStatus;
use crate::geometry::cast::{CastParams, CastResult, Mover, Reach, time_of_impact};
use crate::geometry::epa;
use crate::geometry::gjk::GjkCache;
use crate::geometry::support::SupportMap;
use crate::math::{Aabb, MotionResidual, Pose, RigidMotion};
use crate::shape::Feature;

/// How far and how precisely to cast.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastOptions {
    /// Look for contacts in `[0, max_time_of_impact]`, in the velocities'
    /// time unit (default 1: velocities per step), and while both shapes'
    /// centers stay within `MAX_CAST_COORDINATE` (see the module docs).
    pub max_time_of_impact: f32,
    /// The distance that counts as contact (default 0).
    pub target_distance: f32,
    /// How close to `target_distance` the shapes are at the reported time
    /// (absolute length, default `1e-4`; below `2⁻²⁰` of the shapes' size,
    /// raised to it).
    pub tolerance: f32,
}

impl Default for ShapeCastOptions {
    fn default() -> Self {
        ShapeCastOptions {
            max_time_of_impact: 1.0,
            target_distance: 0.0,
            tolerance: 1e-4,
        }
    }
}

impl ShapeCastOptions {
    /// Why the options cannot be used, if they cannot.
    pub fn check(&self) -> Result<(), &'static str> {
        if !(self.max_time_of_impact.is_finite() && self.max_time_of_impact >= 0.0) {
            return Err("max_time_of_impact must be finite and not negative");
        }
        if !(self.target_distance.is_finite() && self.target_distance >= 0.0) {
            return Err("target_distance must be finite and not negative");
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err("tolerance must be finite and positive");
        }
        Ok(())
    }

    fn params(&self) -> CastParams {
        CastParams {
            max_time: self.max_time_of_impact,
            target: self.target_distance,
            tolerance: self.tolerance,
        }
    }
}

/// The first contact of a cast.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit {
    /// When the shapes come within the target distance.
    pub time_of_impact: f32,
    /// Their distance then: within `target_distance + tolerance` plus what
    /// they move in one `f32` step of time (see the module docs), unless
    /// [`CastStatus::OutOfIterations`].
    pub distance: f32,
    /// Closest point on the first shape then, world space.
    pub point_a: Vec3,
    /// Closest point on the second shape then, world space.
    pub point_b: Vec3,
    /// Unit contact normal from the first shape towards the second, world
    /// space: the closest points' direction; for shapes that overlap at
    /// time 0, the penetration normal of two convex pieces, or the
    /// direction of the second shape's relative motion reversed otherwise
    /// (zero when they do not move relative to each other).
    pub normal: Vec3,
    /// The features in contact: triangles of a mesh (`Face(t)`), closest
    /// features of a convex polytope, `Vertex(0)` for a sphere or capsule.
    pub features: [Feature; 2],
    /// The compound pieces in contact (0 for a shape that is not a compound).
    pub pieces: [u32; 2],
    /// Whether the shapes were already within the target distance at time 0.
    pub started_touching: bool,
    /// A contact ([`CastStatus::Converged`]), or the advancement's step
    /// limit ([`CastStatus::OutOfIterations`]: no contact before the time,
    /// but the shapes are `distance` apart then).
    pub status: CastStatus,
}

/// The first time `b`, moving at `vel_b`, and `a`, moving at `vel_a`,
/// touch within `options.max_time_of_impact` (a linear shape cast, parry's
/// `cast_shapes`), or `None`. Errors: a bad pose
/// ([`QueryError::InvalidPose`]), a NaN or infinite velocity, bad options or
/// a start beyond the cast limits ([`QueryError::InvalidCast`]; see the
/// module docs). Contacts are looked for while both shapes' centers stay
/// within `MAX_CAST_COORDINATE`.
pub fn cast_shapes(
    (a, pose_a, vel_a): (&SharedShape, &Pose, Vec3),
    (b, pose_b, vel_b): (&SharedShape, &Pose, Vec3),
    options: &ShapeCastOptions,
) -> Result<Option<ShapeCastHit>, QueryError> {
    let (ma, mb) = (
        RigidMotion::linear(*pose_a, vel_a),
        RigidMotion::linear(*pose_b, vel_b),
    );
    cast_shapes_nonlinear((a, &ma), (b, &mb), options)
}

/// The first time two shapes under rigid motions (translation and
/// rotation) touch within `options.max_time_of_impact`, or `None`: parry's
/// `cast_shapes_nonlinear`. Same errors as [`cast_shapes`].
pub fn cast_shapes_nonlinear(
    (a, motion_a): (&SharedShape, &RigidMotion),
    (b, motion_b): (&SharedShape, &RigidMotion),
    options: &ShapeCastOptions,
) -> Result<Option<ShapeCastHit>, QueryError> {
    let unit = |m: &RigidMotion| m.with_unit_start().map_err(QueryError::InvalidPose);
    let (motion_a, motion_b) = (&unit(motion_a)?, &unit(motion_b)?);
    let (sa, sb) = (
        PairSide::of(a, &motion_a.start),
        PairSide::of(b, &motion_b.start),
    );
    cast_sides((&sa, motion_a), (&sb, motion_b), options)
}

/// [`cast_shapes_nonlinear`] on pair sides (a deformable body's side casts
/// against its current surface); the sides' poses are ignored for the
/// motions' start poses.
pub(crate) fn cast_sides(
    a: (&PairSide<'_>, &RigidMotion),
    b: (&PairSide<'_>, &RigidMotion),
    options: &ShapeCastOptions,
) -> Result<Option<ShapeCastHit>, QueryError> {
    let none = [MotionResidual::ZERO; 2];
    cast_sides_with(a, b, &none, options, &mut CastScratch::default())
}

/// Reusable memory of casts (the tree search's stack, the one-leaf trees of
/// convex pieces against meshes, EPA's buffers for a start in contact): a
/// cast in the narrow phase allocates nothing once they have grown.
#[derive(Debug, Default)]
pub struct CastScratch {
    stack: Vec<PendingPair>,
    leaves: [AabbTree; 2],
    gjk: GjkCache,
}

/// [`cast_sides`] with the caller's scratch memory and the motions'
/// residuals (their `f64` endpoints' parts the `f32` motions leave out;
/// a half-space side's is ignored: it stands still).
pub(crate) fn cast_sides_with(
    (a, motion_a): (&PairSide<'_>, &RigidMotion),
    (b, motion_b): (&PairSide<'_>, &RigidMotion),
    [ra, rb]: &[MotionResidual; 2],
    options: &ShapeCastOptions,
    scratch: &mut CastScratch,
) -> Result<Option<ShapeCastHit>, QueryError> {
    for m in [motion_a, motion_b] {
        m.start.validate().map_err(QueryError::InvalidPose)?;
        m.check().map_err(QueryError::InvalidCast)?;
    }
    options.check().map_err(QueryError::InvalidCast)?;
    if let Some(hit) = half_space_cast((a, motion_a), (b, motion_b), options) {
        return Ok(hit);
    }
    let boxes = [side_box(a), side_box(b)];
    let frame = CastFrame::new(
        [motion_a, motion_b],
        [ra, rb],
        [&boxes[0], &boxes[1]],
        options,
    )?;
    let Some(frame) = frame else {
        return Ok(None);
    };
    let [ma, mb] = &frame.motions;
    let hit = cast_in_frame((a, ma), (b, mb), &frame.options, scratch);
    Ok(hit.map(|h| frame.hit_to_world(h)))
}

/// The cast of two sides in their pair frame (see `cast_frame.rs`).
fn cast_in_frame(
    (a, motion_a): (&PairSide<'_>, &RigidMotion),
    (b, motion_b): (&PairSide<'_>, &RigidMotion),
    options: &ShapeCastOptions,
    scratch: &mut CastScratch,
) -> Option<ShapeCastHit> {
    let mut params = options.params();
    let mut best: Option<ShapeCastHit> = None;
    let within = params.target + params.tolerance;
    for (bound, pa, pb) in piece_pairs((a, motion_a), (b, motion_b), within) {
        if bound > params.max_time || best.is_some_and(|h| h.time_of_impact <= 0.0) {
            continue;
        }
        if let Some(hit) = piece_cast(pa, pb, &params, scratch) {
            params.max_time = hit.time_of_impact;
            best = Some(hit);
        }
    }
    best
}

/// A non-compound piece on its way: index, shape, motion, and the deformed
/// surface that replaces the shape's.
#[derive(Clone, Copy)]
struct Piece<'a> {
    index: u32,
    shape: &'a ShapeData,
    deformed: Option<Surface<'a>>,
    /// A mesh's scale (`Vec3::ONE` otherwise).
    scale: Vec3,
    motion: RigidMotion,
}

impl<'a> Piece<'a> {
    /// The piece as a side of a cast with a height field.
    fn field_side(&self) -> FieldCastSide<'_> {
        let mesh = self.deformed.or_else(|| self.shape.surface());
        FieldCastSide {
            shape: self.shape,
            motion: &self.motion,
            local_box: local_box(self),
            mesh: mesh.map(|s| (s, self.scale)),
        }
    }
}

/// Every pair of pieces with a lower bound on their time of impact, the
/// earliest first.
fn piece_pairs<'a>(
    (a, ma): (&PairSide<'a>, &RigidMotion),
    (b, mb): (&PairSide<'a>, &RigidMotion),
    within: f32,
) -> SmallVec<[(f32, Piece<'a>, Piece<'a>); 8]> {
    let (pa, pb) = (pieces(a, ma), pieces(b, mb));
    let mut pairs: SmallVec<[_; 8]> = SmallVec::with_capacity(pa.len() * pb.len());
    for x in &pa {
        for y in &pb {
            pairs.push((piece_bound(x, y, within), *x, *y));
        }
    }
    pairs.sort_unstable_by(|p, q| {
        let key = |x: &(f32, Piece<'_>, Piece<'_>)| (x.1.index, x.2.index);
        p.0.total_cmp(&q.0).then(key(p).cmp(&key(q)))
    });
    pairs
}

fn pieces<'a>(side: &PairSide<'a>, motion: &RigidMotion) -> SmallVec<[Piece<'a>; 4]> {
    match side.shape.compound() {
        Some(c) => (0..)
            .zip(c.pieces())
            .map(|(index, p)| Piece {
                index,
                shape: &p.shape,
                deformed: None,
                scale: Vec3::ONE,
                motion: motion.of_part(&p.pose),
            })
            .collect(),
        None => smallvec::smallvec![Piece {
            index: 0,
            shape: side.shape,
            deformed: side.deformed,
            scale: side.scale,
            motion: *motion,
        }],
    }
}

/// The pieces' boxes' [`time_bound`].
fn piece_bound(a: &Piece<'_>, b: &Piece<'_>, within: f32) -> f32 {
    let frame = |p: &Piece<'_>| {
        let bx = local_box(p);
        let spin = if p.motion.is_linear() {
            0.0
        } else {
            p.motion.angvel.length() * bx.max_distance_from(p.motion.local_center)
        };
        (FrameBox::of_box(&bx, &p.motion.start), spin)
    };
    let ((fa, sa), (fb, sb)) = (frame(a), frame(b));
    let approach = Approach {
        closing: a.motion.linvel - b.motion.linvel,
        spin: sa + sb,
        within,
    };
    time_bound(&fa, &fb, &approach)
}

/// The piece's box in its frame: a deformed surface's current box (its
/// AABB tree's root), else the shape's.
fn local_box(p: &Piece<'_>) -> Aabb {
    shape_box(p.shape, p.deformed, p.scale)
}

/// A side's box in its frame, as [`local_box`].
fn side_box(s: &PairSide<'_>) -> Aabb {
    shape_box(s.shape, s.deformed, s.scale)
}

fn shape_box(shape: &ShapeData, deformed: Option<Surface<'_>>, scale: Vec3) -> Aabb {
    let b = match deformed.map(|s| s.tree) {
        Some(TreeRef::Aabb(t)) => t.nodes.first().map_or(Aabb::EMPTY, |n| n.aabb),
        Some(TreeRef::Obb(t)) => t.nodes.first().map_or(Aabb::EMPTY, |n| {
            Aabb::from_center_half_extents(Vec3::ZERO, n.half_extents)
                .transformed(&Pose::new(n.rotation, n.center))
        }),
        None => shape.local_aabb(),
    };
    if scale == Vec3::ONE {
        b
    } else {
        b.scaled(scale)
    }
}

/// The bounds on a convex piece's points about its motion's center (from
/// its box's corners; only a turning piece needs them).
fn convex_reach(p: &Piece<'_>) -> Reach {
    if p.motion.is_linear() {
        Reach::ball(0.0)
    } else {
        Reach::of_points(p.shape.local_aabb().corners(), &p.motion)
    }
}

/// One side of a piece pair for the tree search: its tree and parts.
pub(super) struct TreeSide<'a> {
    pub tree: TreeRef<'a>,
    pub parts: Parts<'a>,
}

/// The first contact of two non-compound pieces, limited by `params`.
fn piece_cast(
    a: Piece<'_>,
    b: Piece<'_>,
    params: &CastParams,
    scratch: &mut CastScratch,
) -> Option<ShapeCastHit> {
    let (ca, cb) = (support_map(a.shape), support_map(b.shape));
    let (cast, features) =
        if let Some(found) = field_pair_cast(a.field_side(), b.field_side(), params) {
            found?
        } else if let (Some(sa), Some(sb)) = (ca, cb) {
            let ma = Mover {
                shape: sa,
                motion: &a.motion,
                reach: convex_reach(&a),
            };
            let mb = Mover {
                shape: sb,
                motion: &b.motion,
                reach: convex_reach(&b),
            };
            let hit = time_of_impact(&ma, &mb, params, &mut GjkCache::new())?;
            (hit, convex_features((&a, &b), &hit))
        } else {
            let CastScratch { stack, leaves, .. } = scratch;
            let [leaf_a, leaf_b] = leaves;
            convex_leaf(&a, leaf_a);
            convex_leaf(&b, leaf_b);
            let side_a = tree_side(&a, ca, leaf_a)?;
            let side_b = tree_side(&b, cb, leaf_b)?;
            let found = run_tree_cast((side_a, &a.motion), (side_b, &b.motion), params, stack)?;
            let feature = |p: &Piece<'_>, part| match p.shape.kind() {
                ShapeKind::TriMesh(_) => Feature::Face(part),
                _ => Feature::Vertex(0),
            };
            (
                found.hit,
                [feature(&a, found.parts[0]), feature(&b, found.parts[1])],
            )
        };
    Some(hit_of((&a, &b), cast, features, &mut scratch.gjk))
}

/// A convex piece's one-leaf tree, in `tree` (left as is for a mesh).
fn convex_leaf(p: &Piece<'_>, tree: &mut AabbTree) {
    if support_map(p.shape).is_some() {
        set_single_leaf(tree, p.shape.local_aabb());
    }
}

/// A piece as a tree side: a mesh's surface tree and triangles, or a
/// convex piece's one-leaf tree.
fn tree_side<'a>(
    p: &Piece<'a>,
    convex: Option<&'a dyn SupportMap>,
    single: &'a AabbTree,
) -> Option<TreeSide<'a>> {
    if let Some(shape) = convex {
        return Some(TreeSide {
            tree: TreeRef::Aabb(single),
            parts: Parts::Convex {
                shape,
                reach: convex_reach(p),
            },
        });
    }
    let s = p.deformed.or_else(|| p.shape.surface())?;
    Some(TreeSide {
        tree: s.tree,
        parts: Parts::Mesh(s.mesh, p.scale),
    })
}

/// [`tree_cast`] on two sides, whichever their trees.
pub(super) fn run_tree_cast(
    (a, ma): (TreeSide<'_>, &RigidMotion),
    (b, mb): (TreeSide<'_>, &RigidMotion),
    params: &CastParams,
    stack: &mut Vec<PendingPair>,
) -> Option<TreeCast> {
    macro_rules! run {
        ($ta:expr, $tb:expr) => {
            tree_cast(
                &CastSide {
                    tree: $ta,
                    parts: a.parts,
                    motion: ma,
                },
                &CastSide {
                    tree: $tb,
                    parts: b.parts,
                    motion: mb,
                },
                params,
                stack,
            )
        };
    }
    with_trees!((a.tree, b.tree), run)
}

/// The features of two polytopes in contact at the hit: each one's
/// supporting feature along the contact normal
/// ([`crate::shape::ConvexPolytope::supporting_feature`]);
/// `Vertex(0)` for a sphere or capsule, or without a normal.
fn convex_features((a, b): (&Piece<'_>, &Piece<'_>), hit: &CastResult) -> [Feature; 2] {
    let (Some(pa), Some(pb)) = (a.shape.polytope(), b.shape.polytope()) else {
        return [Feature::Vertex(0); 2];
    };
    if hit.normal == Vec3::ZERO {
        return [Feature::Vertex(0); 2];
    }
    let (xa, xb) = (a.motion.pose_at(hit.time), b.motion.pose_at(hit.time));
    [
        pa.supporting_feature(xa.rotation.inverse() * hit.normal, hit.hints[0]),
        pb.supporting_feature(xb.rotation.inverse() * -hit.normal, hit.hints[1]),
    ]
}

/// The hit of a piece pair, with a normal for shapes that started inside
/// each other.
fn hit_of(
    (a, b): (&Piece<'_>, &Piece<'_>),
    c: CastResult,
    features: [Feature; 2],
    gjk: &mut GjkCache,
) -> ShapeCastHit {
    let started = c.time <= 0.0;
    let mut normal = c.normal;
    if normal == Vec3::ZERO {
        normal = start_normal(a, b, gjk);
    }
    ShapeCastHit {
        time_of_impact: c.time,
        distance: c.distance,
        point_a: c.point_a,
        point_b: c.point_b,
        normal,
        features,
        pieces: [a.index, b.index],
        started_touching: started,
        status: c.status,
    }
}

/// The normal of two pieces overlapping at time 0: EPA's for two convex
/// pieces, else the reversed relative motion of B.
fn start_normal(a: &Piece<'_>, b: &Piece<'_>, gjk: &mut GjkCache) -> Vec3 {
    if let (Some(sa), Some(sb)) = (support_map(a.shape), support_map(b.shape)) {
        gjk.reset();
        let p = epa::penetration(sa, &a.motion.start, sb, &b.motion.start, gjk);
        if let Some(p) = p.filter(|p| p.normal.is_finite() && p.normal != Vec3::ZERO) {
            return p.normal;
        }
    }
    (a.motion.linvel - b.motion.linvel).normalize_or_zero()
}

/// Continuous detection of a pair apart at its current poses: when a body
/// has a sweep, the cast of the two over the step (a body without one
/// stands at its current pose); a hit is a touch during the step. A hit at
/// time 0 is one only if the shapes overlap there and the pair was not
/// `touched` (touching where the step starts, as last tested: that is last
/// step's touch). Shapes apart but within the tolerance at time 0 are cast
/// again with a tolerance under their gap, so that a contact later in the
/// step is not hidden by the near miss at its start. A cast that runs out
/// of steps ([`CastStatus::OutOfIterations`]) counts as a touch: a contact
/// it cannot rule out is never let through. A pair beyond the cast limits
/// ([`crate::collider::limits`]) is not swept. Each sweep comes with its
/// residual (see [`MotionResidual`]).
pub(crate) fn swept_test(
    (a, ma): (&PairSide<'_>, Option<(RigidMotion, MotionResidual)>),
    (b, mb): (&PairSide<'_>, Option<(RigidMotion, MotionResidual)>),
    touched: bool,
    scratch: &mut QueryScratch,
) -> Option<PairResult> {
    if ma.is_none() && mb.is_none() {
        return None;
    }
    let still = |pose| (RigidMotion::stationary(pose), MotionResidual::ZERO);
    let (ma, ra) = ma.unwrap_or_else(|| still(a.pose));
    let (mb, rb) = mb.unwrap_or_else(|| still(b.pose));
    let residuals = [ra, rb];
    let mut options = ShapeCastOptions::default();
    let hit = loop {
        let cast = cast_sides_with(
            (a, &ma),
            (b, &mb),
            &residuals,
            &options,
            scratch.cast.get_or_insert_with(Box::default),
        );
        let hit = cast.ok()??;
        if !hit.started_touching || (hit.distance <= 0.0 && !touched) {
            break hit;
        }
        if touched || options.tolerance < 1e-3 * ShapeCastOptions::default().tolerance {
            return None;
        }
        // Within the tolerance where the step starts, not touching: look
        // past it with a tolerance under that gap (at most half the last
        // one: ten rounds at most).
        options.tolerance = 0.5 * hit.distance.min(options.tolerance);
    };
    let contact = (!a.boolean_only && !b.boolean_only).then_some(ContactData {
        distance: hit.distance,
        depth: 0.0,
        normal: hit.normal,
        point_a: hit.point_a,
        point_b: hit.point_b,
        features: hit.features,
        pieces: hit.pieces,
    });
    Some(PairResult {
        touching: true,
        exact: true,
        contact,
        swept: true,
    })
}
