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
//!
//! [`ray_cast`] works on both kinds: Cyrus–Beck clipping against a convex
//! polytope's faces, or the OBB tree with Möller–Trumbore at the leaves.

use glam::Vec3;

use crate::bvh::{CollideScratch, ContactMode, MeshSide, collide};
use crate::math::{Pose, PoseError};
use crate::narrow_phase::epa;
use crate::narrow_phase::gjk::GjkCache;
use crate::narrow_phase::lin_canny::{self, ConvexCache};
use crate::shape::{ConvexPolytope, Feature, ShapeKind, SharedShape};

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
}

fn kind_name(s: &SharedShape) -> &'static str {
    match s.kind() {
        ShapeKind::Convex(_) => "convex",
        ShapeKind::TriMesh(_) => "triangle mesh",
    }
}

/// Both shapes as convex polytopes with validated poses.
fn convex_pair<'a>(
    a: &'a SharedShape,
    pose_a: &Pose,
    b: &'a SharedShape,
    pose_b: &Pose,
) -> Result<(&'a ConvexPolytope, &'a ConvexPolytope), QueryError> {
    pose_a.validate().map_err(QueryError::InvalidPose)?;
    pose_b.validate().map_err(QueryError::InvalidPose)?;
    match (a.polytope(), b.polytope()) {
        (Some(pa), Some(pb)) => Ok((pa, pb)),
        _ => Err(QueryError::Unsupported {
            a: kind_name(a),
            b: kind_name(b),
        }),
    }
}

/// Closest points and features of `a` at `pose_a` and `b` at `pose_b`.
pub fn closest_points(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<ClosestPoints, QueryError> {
    let (pa, pb) = convex_pair(a, pose_a, b, pose_b)?;
    let r = lin_canny::closest_features(pa, pose_a, pb, pose_b, &mut ConvexCache::default());
    Ok(ClosestPoints {
        distance: r.distance,
        point_a: r.point_a,
        point_b: r.point_b,
        features: r.features,
        intersecting: r.intersecting,
    })
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
    if a.polytope().is_some() && b.polytope().is_some() {
        return closest_points(a, pose_a, b, pose_b).map(|c| c.intersecting);
    }
    let first = intersecting_triangles(a, pose_a, b, pose_b, ContactMode::First)?;
    Ok(!first.is_empty())
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
        a: kind_name(a),
        b: kind_name(b),
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
/// of (about) 0.
pub fn penetration(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<Option<Penetration>, QueryError> {
    let (pa, pb) = convex_pair(a, pose_a, b, pose_b)?;
    Ok(epa::penetration(
        pa,
        pose_a,
        pb,
        pose_b,
        &mut GjkCache::default(),
    ))
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
    let inv = pose.inverse();
    let local = Ray::new(
        inv.transform_point(ray.origin),
        inv.transform_vector(ray.dir),
    );
    let hit = match shape.kind() {
        ShapeKind::Convex(p) => crate::narrow_phase::ray::ray_polytope(p, &local, max_toi),
        ShapeKind::TriMesh(_) => shape.surface().and_then(|(mesh, tree)| {
            crate::bvh::ray::ray_cast_tree(mesh, tree, &local, max_toi, &mut Vec::new())
        }),
    };
    Ok(hit.map(|h| RayHit {
        normal: pose.transform_vector(h.normal),
        ..h
    }))
}
