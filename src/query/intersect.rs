//! Boolean queries: whether two shapes intersect (the narrow phase's own
//! pair test from a fresh cache), and which triangles of two surfaces do.

use super::QueryError;
use super::cache::{PairCache, QueryScratch};
use super::dispatch::test_pair;
use super::pair::PairSide;
use crate::bvh::{CollideScratch, ContactMode, MeshSide, collide};
use crate::collider::{ShapeData, SharedShape};
use crate::math::Pose;

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
    let mut scratch = QueryScratch::default();
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
