//! One-shot proximity queries on shapes at poses: no world, no Bevy.
//!
//! Each call answers from scratch (a cold Lin–Canny walk). For the same pair
//! over many frames, keep a [`lin_canny::ConvexCache`]
//! and call [`lin_canny::closest_features`] directly: the warm walk is
//! nearly constant time.
//!
//! | shapes | intersects | distance / closest points | penetration |
//! |--------|------------|---------------------------|-------------|
//! | convex – convex | Lin–Canny | Lin–Canny (features) | EPA |
//! | with a triangle mesh | OBB trees, exact triangle tests (surface query) | [`QueryError::Unsupported`] | [`QueryError::Unsupported`] |
//! | with a sphere or capsule (not a mesh) | the narrow phase's test | GJK with margins | EPA on the cores plus the radii |
//! | with a compound | the narrow phase's piece recursion | over all piece pairs (all pieces convex) | deepest piece pair (all pieces convex) |
//!
//! [`intersects`] is the narrow phase's own pair test ([`test_pair`]) from a
//! fresh cache, boolean only, so it answers exactly what the world would.
//! [`ray_cast`] works on every kind: Cyrus–Beck clipping against a convex
//! polytope's faces, the OBB tree with Möller–Trumbore at the leaves for a
//! mesh, the nearest piece's hit for a compound.

use glam::Vec3;

use crate::bvh::{CollideScratch, ContactMode, MeshSide, collide};
use crate::math::{Pose, PoseError};
use crate::narrow_phase::gjk::{GjkCache, gjk_distance};
use crate::narrow_phase::lin_canny::{self, ConvexCache};
use crate::narrow_phase::support::SupportMap;
use crate::narrow_phase::{NarrowScratch, PairCache, PairSide, epa, test_pair};
use crate::shape::{Feature, ShapeData, ShapeKind, SharedShape};

pub use crate::narrow_phase::epa::Penetration;
pub use crate::narrow_phase::ray::{Ray, RayHit};

/// Why a query could not be answered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueryError {
    /// A pose is NaN, infinite or not a unit rotation.
    InvalidPose(PoseError),
    /// This query is not implemented for these shape kinds yet.
    Unsupported {
        /// Kind of the first shape.
        a: &'static str,
        /// Kind of the second shape.
        b: &'static str,
    },
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::InvalidPose(e) => write!(f, "invalid pose: {e}"),
            QueryError::Unsupported { a, b } => {
                write!(
                    f,
                    "this query is not supported between {a} and {b} shapes yet"
                )
            }
        }
    }
}

impl std::error::Error for QueryError {}

/// Closest points of two shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoints {
    /// Distance (0 when they intersect or touch).
    pub distance: f32,
    /// Closest point on the first shape, world space.
    pub point_a: Vec3,
    /// Closest point on the second shape, world space.
    pub point_b: Vec3,
    /// The closest features `[on a, on b]` (penetrating features when they
    /// intersect).
    pub features: [Feature; 2],
    /// Whether the shapes intersect (touching counts).
    pub intersecting: bool,
    /// The compound pieces the points are on, `[of a, of b]` (0 for a
    /// shape that is not a compound).
    pub pieces: [u32; 2],
}

/// A shape's non-compound pieces at their world poses: `(piece, shape,
/// pose)`; a shape that is not a compound is its own piece 0.
fn pieces<'a>(s: &'a ShapeData, pose: &Pose) -> Vec<(u32, &'a ShapeData, Pose)> {
    match s.compound() {
        Some(c) => (0..)
            .zip(c.pieces())
            .map(|(i, p)| (i, &*p.shape, pose.mul(&p.pose)))
            .collect(),
        None => vec![(0, s, *pose)],
    }
}

/// A convex piece as GJK / EPA see it: a polytope or a sphere / capsule.
fn support_map(s: &ShapeData) -> Option<&dyn SupportMap> {
    match s.kind() {
        ShapeKind::Convex(p) => Some(p),
        ShapeKind::Rounded(r) => Some(r),
        ShapeKind::TriMesh(_) | ShapeKind::Compound(_) => None,
    }
}

/// Calls `f` on every pair of convex pieces (polytopes, spheres, capsules)
/// of the two shapes at their world poses, after validating the poses;
/// refuses non-convex pieces.
fn for_each_convex_pair<'a>(
    a: &'a ShapeData,
    pose_a: &Pose,
    b: &'a ShapeData,
    pose_b: &Pose,
    mut f: impl FnMut([u32; 2], (&'a ShapeData, Pose), (&'a ShapeData, Pose)),
) -> Result<(), QueryError> {
    pose_a.validate().map_err(QueryError::InvalidPose)?;
    pose_b.validate().map_err(QueryError::InvalidPose)?;
    let unsupported = QueryError::Unsupported {
        a: a.kind_name(),
        b: b.kind_name(),
    };
    let (pieces_a, pieces_b) = (pieces(a, pose_a), pieces(b, pose_b));
    for &(ia, sa, pa) in &pieces_a {
        for &(ib, sb, pb) in &pieces_b {
            if support_map(sa).is_none() || support_map(sb).is_none() {
                return Err(unsupported);
            }
            f([ia, ib], (sa, pa), (sb, pb));
        }
    }
    Ok(())
}

/// Closest points and features of `a` at `pose_a` and `b` at `pose_b`.
/// For compounds, the closest pair of pieces (all pieces must be convex).
pub fn closest_points(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<ClosestPoints, QueryError> {
    let mut best: Option<ClosestPoints> = None;
    for_each_convex_pair(a, pose_a, b, pose_b, |pieces, (sa, pa), (sb, pb)| {
        let c = piece_closest_points((sa, &pa), (sb, &pb), pieces);
        if best.is_none_or(|b| c.distance < b.distance) {
            best = Some(c);
        }
    })?;
    // Every shape has at least one piece.
    best.ok_or(QueryError::Unsupported {
        a: a.kind_name(),
        b: b.kind_name(),
    })
}

/// Closest points of two convex pieces: Lin–Canny for two polytopes (with
/// features), GJK with margins when a sphere or capsule is involved.
fn piece_closest_points(
    (a, pose_a): (&ShapeData, &Pose),
    (b, pose_b): (&ShapeData, &Pose),
    pieces: [u32; 2],
) -> ClosestPoints {
    if let (Some(ca), Some(cb)) = (a.polytope(), b.polytope()) {
        let r = lin_canny::closest_features(ca, pose_a, cb, pose_b, &mut ConvexCache::default());
        return ClosestPoints {
            distance: r.distance,
            point_a: r.point_a,
            point_b: r.point_b,
            features: r.features,
            intersecting: r.intersecting,
            pieces,
        };
    }
    let (Some(sa), Some(sb)) = (support_map(a), support_map(b)) else {
        unreachable!("for_each_convex_pair checked both pieces");
    };
    let r = gjk_distance(sa, pose_a, sb, pose_b, &mut GjkCache::default());
    ClosestPoints {
        distance: r.distance,
        point_a: r.point_a,
        point_b: r.point_b,
        features: [Feature::Vertex(0); 2],
        intersecting: r.intersecting,
        pieces,
    }
}

/// Distance between the shapes (0 when they intersect or touch).
pub fn distance(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<f32, QueryError> {
    closest_points(a, pose_a, b, pose_b).map(|c| c.distance)
}

/// Whether the shapes intersect (touching counts). With a triangle mesh
/// this is a surface query (OBB trees, exact triangle tests, first contact):
/// a shape entirely inside a mesh does not intersect it.
pub fn intersects(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<bool, QueryError> {
    pose_a.validate().map_err(QueryError::InvalidPose)?;
    pose_b.validate().map_err(QueryError::InvalidPose)?;
    let (sa, sb) = (pair_side(a, pose_a), pair_side(b, pose_b));
    if !sa.tight.overlaps(&sb.tight) {
        return Ok(false);
    }
    let mut scratch = NarrowScratch::default();
    Ok(test_pair(&sa, &sb, &mut PairCache::None, &mut scratch).touching)
}

/// A shape at a pose as a boolean-only narrow-phase side.
fn pair_side<'a>(s: &'a ShapeData, pose: &Pose) -> PairSide<'a> {
    PairSide {
        tight: s.local_aabb().transformed(pose),
        shape: s,
        pose: *pose,
        boolean_only: true,
    }
}

/// The intersecting triangle pairs `[of a, of b]` of two surfaces (a mesh's
/// triangles, or a convex shape's hull triangles), by OBB-tree traversal.
pub fn intersecting_triangles(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
    mode: ContactMode,
) -> Result<Vec<[u32; 2]>, QueryError> {
    pose_a.validate().map_err(QueryError::InvalidPose)?;
    pose_b.validate().map_err(QueryError::InvalidPose)?;
    let unsupported = || QueryError::Unsupported {
        a: a.kind_name(),
        b: b.kind_name(),
    };
    let (ma, ta) = a.surface().ok_or_else(unsupported)?;
    let (mb, tb) = b.surface().ok_or_else(unsupported)?;
    let side_a = MeshSide {
        mesh: ma,
        tree: ta,
        pose: *pose_a,
    };
    let side_b = MeshSide {
        mesh: mb,
        tree: tb,
        pose: *pose_b,
    };
    let mut out = Vec::new();
    collide(
        &side_a,
        &side_b,
        mode,
        &mut CollideScratch::default(),
        &mut out,
    );
    Ok(out)
}

/// Penetration depth, normal (from `a` to `b`) and deepest points when the
/// shapes overlap; `None` when they are apart. Touching shapes give a depth
/// of (about) 0. For compounds, the deepest pair of pieces (all pieces must
/// be convex).
pub fn penetration(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<Option<Penetration>, QueryError> {
    let mut best: Option<Penetration> = None;
    for_each_convex_pair(a, pose_a, b, pose_b, |_, (sa, pa), (sb, pb)| {
        let (Some(ca), Some(cb)) = (support_map(sa), support_map(sb)) else {
            return;
        };
        let p = epa::penetration(ca, &pa, cb, &pb, &mut GjkCache::default());
        if let Some(p) = p.filter(|p| best.is_none_or(|b| p.depth > b.depth)) {
            best = Some(p);
        }
    })?;
    Ok(best)
}

/// The first point where `ray` (world space) meets `shape` at `pose`,
/// within `max_toi` (in units of `ray.dir`). The hit's normal is in world
/// space; `feature` is the face (convex) or triangle (mesh). A ray starting
/// inside a convex shape hits at `toi = 0`; a mesh is a surface, hit where
/// the ray crosses a triangle.
pub fn ray_cast(
    shape: &SharedShape,
    pose: &Pose,
    ray: &Ray,
    max_toi: f32,
) -> Result<Option<RayHit>, QueryError> {
    pose.validate().map_err(QueryError::InvalidPose)?;
    if let Some(c) = shape.compound() {
        let mut best: Option<RayHit> = None;
        for (i, p) in (0..).zip(c.pieces()) {
            let hit = ray_cast(&p.shape, &pose.mul(&p.pose), ray, max_toi)?;
            if let Some(h) = hit.filter(|h| best.is_none_or(|b| h.toi < b.toi)) {
                best = Some(RayHit { piece: i, ..h });
            }
        }
        return Ok(best);
    }
    let inv = pose.inverse();
    let local = Ray::new(
        inv.transform_point(ray.origin),
        inv.transform_vector(ray.dir),
    );
    let hit = match shape.kind() {
        ShapeKind::Convex(p) => crate::narrow_phase::ray::ray_polytope(p, &local, max_toi),
        ShapeKind::Rounded(r) => crate::narrow_phase::ray::ray_rounded(r, &local, max_toi),
        ShapeKind::TriMesh(_) | ShapeKind::Compound(_) => {
            shape.surface().and_then(|(mesh, tree)| {
                crate::bvh::ray::ray_cast_tree(mesh, tree, &local, max_toi, &mut Vec::new())
            })
        }
    };
    Ok(hit.map(|h| RayHit {
        normal: pose.transform_vector(h.normal),
        ..h
    }))
}
