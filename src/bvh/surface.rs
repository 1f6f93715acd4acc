//! A triangle surface with the tree over it, whichever kind of tree: what
//! the pair tests and queries take, so that OBB trees (rigid models) and
//! AABB trees (deformable ones) mix freely.

use serde::{Deserialize, Serialize};

use super::aabb_tree::{AabbTree, AabbTreeOptions};
use super::collide::{CollideOptions, CollideScratch, CollideStats, MeshSide, collide_with};
use super::distance::{
    DistanceLimit, DistanceStats, PendingPair, SurfaceDistance, surface_distance,
};
use super::obb_tree::{ObbTree, SplitRule};
use super::tree::BvhError;
use crate::math::Pose;
use crate::shape::TriMesh;

/// Which bounding volume a mesh's tree is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TreeKind {
    /// Oriented boxes (RAPID): the tightest, for rigid models.
    #[default]
    Obb,
    /// Axis-aligned boxes (SOLID): cheap to build and to refit, for models
    /// that deform; the box test between two of them is cheaper per pair.
    Aabb,
}

/// A tree of either kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SurfaceTree {
    /// An OBB tree.
    Obb(ObbTree),
    /// An AABB tree.
    Aabb(AabbTree),
}

impl Default for SurfaceTree {
    fn default() -> Self {
        SurfaceTree::Obb(ObbTree::default())
    }
}

impl SurfaceTree {
    /// The tree of `kind` over `mesh`, with each kind's default settings
    /// (OBB: the paper's mean split; AABB: the median).
    pub fn build(mesh: &TriMesh, kind: TreeKind) -> Self {
        match kind {
            TreeKind::Obb => SurfaceTree::Obb(ObbTree::build(
                mesh.vertices(),
                mesh.triangles(),
                SplitRule::Mean,
                1,
            )),
            TreeKind::Aabb => {
                SurfaceTree::Aabb(AabbTree::build_mesh(mesh, &AabbTreeOptions::default()))
            }
        }
    }

    /// A borrowed view.
    pub fn as_ref(&self) -> TreeRef<'_> {
        match self {
            SurfaceTree::Obb(t) => TreeRef::Obb(t),
            SurfaceTree::Aabb(t) => TreeRef::Aabb(t),
        }
    }

    /// Checks the tree against `mesh` (layout and boxes).
    pub fn validate(&self, mesh: &TriMesh) -> Result<(), BvhError> {
        match self {
            SurfaceTree::Obb(t) => t.validate(mesh),
            SurfaceTree::Aabb(t) => t.validate_mesh(mesh),
        }
    }
}

/// A borrowed tree of either kind.
#[derive(Clone, Copy, Debug)]
pub enum TreeRef<'a> {
    /// An OBB tree.
    Obb(&'a ObbTree),
    /// An AABB tree.
    Aabb(&'a AabbTree),
}

/// A mesh and the tree over its triangles.
#[derive(Clone, Copy, Debug)]
pub struct Surface<'a> {
    /// The triangles.
    pub mesh: &'a TriMesh,
    /// The tree.
    pub tree: TreeRef<'a>,
}

/// Calls the macro `$run!(ta, tb)` with the two concrete trees of a pair of
/// [`TreeRef`]s: one monomorphized arm per pair of node types.
macro_rules! with_trees {
    (($a:expr, $b:expr), $run:ident) => {
        match ($a, $b) {
            ($crate::bvh::TreeRef::Obb(ta), $crate::bvh::TreeRef::Obb(tb)) => $run!(ta, tb),
            ($crate::bvh::TreeRef::Obb(ta), $crate::bvh::TreeRef::Aabb(tb)) => $run!(ta, tb),
            ($crate::bvh::TreeRef::Aabb(ta), $crate::bvh::TreeRef::Obb(tb)) => $run!(ta, tb),
            ($crate::bvh::TreeRef::Aabb(ta), $crate::bvh::TreeRef::Aabb(tb)) => $run!(ta, tb),
        }
    };
}
pub(crate) use with_trees;

/// Intersecting triangle pairs `[of a, of b]` of two surfaces at poses,
/// into `out` (cleared first), by the traversal their trees call for
/// ([`collide_with`]).
pub fn collide_surfaces(
    (a, pose_a): (Surface<'_>, Pose),
    (b, pose_b): (Surface<'_>, Pose),
    options: &CollideOptions,
    scratch: &mut CollideScratch,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    macro_rules! run {
        ($ta:expr, $tb:expr) => {
            collide_with(
                &MeshSide {
                    mesh: a.mesh,
                    tree: $ta,
                    pose: pose_a,
                },
                &MeshSide {
                    mesh: b.mesh,
                    tree: $tb,
                    pose: pose_b,
                },
                options,
                scratch,
                out,
            )
        };
    }
    with_trees!((a.tree, b.tree), run)
}

/// [`surface_distance`] on two surfaces, whichever their trees.
pub fn distance_surfaces(
    (a, pose_a): (Surface<'_>, Pose),
    (b, pose_b): (Surface<'_>, Pose),
    limit: DistanceLimit,
    stack: &mut Vec<PendingPair>,
) -> (Option<SurfaceDistance>, DistanceStats) {
    macro_rules! run {
        ($ta:expr, $tb:expr) => {
            surface_distance(
                &MeshSide {
                    mesh: a.mesh,
                    tree: $ta,
                    pose: pose_a,
                },
                &MeshSide {
                    mesh: b.mesh,
                    tree: $tb,
                    pose: pose_b,
                },
                limit,
                stack,
            )
        };
    }
    with_trees!((a.tree, b.tree), run)
}
