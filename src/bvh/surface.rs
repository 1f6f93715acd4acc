//! A triangle surface with the tree over it, whichever kind of tree: what
//! the pair tests and queries take, so that OBB trees (rigid models) and
//! AABB trees (deformable ones) mix freely.

use serde::{Deserialize, Serialize};

use super::aabb_tree::{AabbTree, AabbTreeOptions};
use super::collide::{
    BoxNode, CollideOptions, CollideScratch, CollideStats, MeshSide, collide_with,
};
use super::distance::{
    DistanceLimit, DistanceStats, PendingPair, SurfaceDistance, surface_distance,
};
use super::obb_tree::{ObbTree, SplitRule};
use super::tree::{Bvh, BvhError};
use crate::math::Pose;
use crate::shape::TriMesh;
use glam::{Quat, Vec3};
use smallvec::SmallVec;

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

impl TreeRef<'_> {
    /// Calls `visit(rotation, center, half_extents)` (in the mesh's frame)
    /// for every node at `depth` below the root (0 = the root) and every
    /// leaf above that depth: together they cover every triangle once, the
    /// "level" of the tree a debug view draws. Returns how many it visited.
    pub fn for_each_box_at_depth(
        &self,
        depth: usize,
        visit: impl FnMut(Quat, Vec3, Vec3),
    ) -> usize {
        self.for_each_scaled_box_at_depth(depth, Vec3::ONE, visit)
    }

    /// [`for_each_box_at_depth`](Self::for_each_box_at_depth) of the mesh
    /// scaled by `scale` along its axes: each box as the queries scale it
    /// ([`BoxNode::scaled_box`]).
    pub fn for_each_scaled_box_at_depth(
        &self,
        depth: usize,
        scale: Vec3,
        visit: impl FnMut(Quat, Vec3, Vec3),
    ) -> usize {
        match self {
            TreeRef::Obb(t) => boxes_at_depth(t, depth, scale, visit),
            TreeRef::Aabb(t) => boxes_at_depth(t, depth, scale, visit),
        }
    }
}

/// See [`TreeRef::for_each_box_at_depth`].
fn boxes_at_depth<N: BoxNode>(
    tree: &Bvh<N>,
    depth: usize,
    scale: Vec3,
    mut visit: impl FnMut(Quat, Vec3, Vec3),
) -> usize {
    let mut count = 0;
    let mut stack: SmallVec<[(usize, usize); 64]> = SmallVec::new();
    if !tree.nodes.is_empty() {
        stack.push((0, 0));
    }
    while let Some((i, d)) = stack.pop() {
        let node = &tree.nodes[i];
        if d == depth || node.is_leaf() {
            let (rotation, center, half) = if scale == Vec3::ONE {
                (node.rotation(), node.center(), node.half_extents())
            } else {
                node.scaled_box(scale)
            };
            visit(rotation, center, half);
            count += 1;
        } else {
            let first = node.first() as usize;
            stack.push((first + 1, d + 1));
            stack.push((first, d + 1));
        }
    }
    count
}

/// A mesh and the tree over its triangles, scaled along the mesh's axes
/// (as [`MeshSide`]: applied in the queries, no copy, no rebuild).
#[derive(Clone, Copy, Debug)]
pub struct Surface<'a> {
    /// The triangles.
    pub mesh: &'a TriMesh,
    /// The tree.
    pub tree: TreeRef<'a>,
    /// Scale along the mesh's own axes (`Vec3::ONE`: none): finite and
    /// nonzero. A vertex `p` is at `p * scale` in the surface's frame.
    pub scale: Vec3,
}

impl<'a> Surface<'a> {
    /// A surface at the mesh's own size.
    pub fn new(mesh: &'a TriMesh, tree: TreeRef<'a>) -> Self {
        Surface {
            mesh,
            tree,
            scale: Vec3::ONE,
        }
    }

    /// The same surface scaled by `scale` along the mesh's axes.
    pub fn with_scale(self, scale: Vec3) -> Self {
        Surface { scale, ..self }
    }

    /// Whether the surface is at the mesh's own size.
    #[inline]
    pub fn is_unscaled(&self) -> bool {
        self.scale == Vec3::ONE
    }

    /// The surface as a query side with `tree` (one of [`TreeRef`]'s) at
    /// `pose`.
    #[inline]
    pub fn side<N>(&self, tree: &'a Bvh<N>, pose: Pose) -> MeshSide<'a, N> {
        MeshSide::new(self.mesh, tree, pose).with_scale(self.scale)
    }
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
                &a.side($ta, pose_a),
                &b.side($tb, pose_b),
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
            surface_distance(&a.side($ta, pose_a), &b.side($tb, pose_b), limit, stack)
        };
    }
    with_trees!((a.tree, b.tree), run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::BvNode;

    /// A strip of `n` triangles along x, each lifted and turned a little.
    fn strip(n: u32) -> TriMesh {
        let mut vertices = Vec::new();
        for i in 0..=n {
            let x = i as f32;
            let y = (i as f32 * 0.7).sin();
            vertices.push(Vec3::new(x, y, 0.0));
            vertices.push(Vec3::new(x + 0.3, y, 1.0 + 0.1 * (i % 3) as f32));
        }
        let triangles = (0..n).map(|i| [2 * i, 2 * i + 1, 2 * i + 2]).collect();
        TriMesh::new(vertices, triangles).unwrap()
    }

    /// Every level of both tree kinds: one box at depth 0, one per leaf at
    /// the last level, more boxes as the level goes down, and every triangle
    /// inside a box of every level.
    #[test]
    fn tree_levels_cover_every_triangle() {
        let mesh = strip(37);
        for kind in [TreeKind::Obb, TreeKind::Aabb] {
            let tree = SurfaceTree::build(&mesh, kind);
            let (depth, leaves) = match &tree {
                SurfaceTree::Obb(t) => (t.depth(), t.nodes.iter().filter(|n| n.is_leaf()).count()),
                SurfaceTree::Aabb(t) => (t.depth(), t.nodes.iter().filter(|n| n.is_leaf()).count()),
            };
            assert!(depth > 3, "{kind:?}: depth {depth}");
            let mut last = 0;
            for level in 0..depth + 2 {
                let mut boxes = Vec::new();
                let n = tree
                    .as_ref()
                    .for_each_box_at_depth(level, |r, c, h| boxes.push((r, c, h)));
                assert_eq!(n, boxes.len());
                assert!(
                    n > last || level >= depth,
                    "{kind:?} level {level}: {n} boxes"
                );
                if level == 0 {
                    assert_eq!(n, 1);
                }
                if level + 1 >= depth {
                    assert_eq!(n, leaves, "{kind:?} level {level}");
                }
                last = n;
                for t in 0..mesh.triangles().len() {
                    let inside = |(r, c, h): &(Quat, Vec3, Vec3)| {
                        mesh.triangle(t).iter().all(|&p| {
                            let q = r.inverse() * (p - *c);
                            q.abs().cmple(*h + 1e-4).all()
                        })
                    };
                    assert!(
                        boxes.iter().any(inside),
                        "{kind:?} level {level}: triangle {t}"
                    );
                }
            }
        }
    }
}
