//! The two walks over a mesh's tree that the pair code of spheres,
//! capsules and support-mapped kinds shares; each caller brings its own
//! box test and triangle measure.

use glam::{Quat, Vec3};

use crate::bvh::distance::{FrameBox, box_gap};
use crate::bvh::{BoxNode, MeshSide};
use crate::math::Pose;

/// The triangles of `side` that a probe touches, as pairs `[0, triangle]`
/// sorted (the first one found only when `first_only`): depth first over
/// the tree, a node entered when `near(node box)` (rotation, center, half
/// extents in the mesh frame, conservative), a triangle kept when
/// `touches(triangle)`. Whether any was found.
pub(super) fn touched_triangles_by<N: BoxNode>(
    side: &MeshSide<'_, N>,
    first_only: bool,
    pairs: &mut Vec<[u32; 2]>,
    mut near: impl FnMut((Quat, Vec3, Vec3)) -> bool,
    mut touches: impl FnMut([Vec3; 3]) -> bool,
) -> bool {
    let tree = side.tree;
    let mut stack: smallvec::SmallVec<[u32; 64]> = smallvec::SmallVec::new();
    if !tree.nodes.is_empty() {
        stack.push(0);
    }
    while let Some(n) = stack.pop() {
        let node = &tree.nodes[n as usize];
        if !near(side.node_box(n)) {
            continue;
        }
        if !node.is_leaf() {
            stack.push(node.first() + 1);
            stack.push(node.first());
            continue;
        }
        for &t in tree.leaf_primitives(n as usize) {
            if touches(side.triangle(t)) {
                pairs.push([0, t]);
                if first_only {
                    return true;
                }
            }
        }
    }
    pairs.sort_unstable();
    !pairs.is_empty()
}

/// The triangle of `side` nearest to a probe whose box (mesh frame) is
/// `probe`, by branch and bound over the tree: a node's bound is the gap
/// between its box and the probe's, children visited nearer first, a node
/// skipped once its bound exceeds the best distance found (or that is 0).
/// `leaf` measures the probe against one triangle: distance and the
/// closest points (probe, triangle). Returns them with the triangle.
pub(super) fn nearest_triangle_by<N: BoxNode>(
    side: &MeshSide<'_, N>,
    probe: &FrameBox,
    mut leaf: impl FnMut([Vec3; 3]) -> (f32, Vec3, Vec3),
) -> Option<(f32, Vec3, Vec3, u32)> {
    let tree = side.tree;
    let mut best: Option<(f32, Vec3, Vec3, u32)> = None;
    // Depth-first, nearer child on top: at most two entries per level.
    let mut stack: smallvec::SmallVec<[(u32, f32); 64]> = smallvec::SmallVec::new();
    if !tree.nodes.is_empty() {
        stack.push((0, 0.0));
    }
    while let Some((n, bound)) = stack.pop() {
        if best.is_some_and(|b| bound > b.0 || b.0 == 0.0) {
            continue;
        }
        let node = &tree.nodes[n as usize];
        if node.is_leaf() {
            for &t in tree.leaf_primitives(n as usize) {
                let (d, x, y) = leaf(side.triangle(t));
                if best.is_none_or(|b| d < b.0) {
                    best = Some((d, x, y, t));
                }
            }
            continue;
        }
        let bound_of = |c: u32| box_gap(&FrameBox::of_side(side, c, &Pose::IDENTITY), probe);
        let (f, s) = (node.first(), node.first() + 1);
        let (bf, bs) = (bound_of(f), bound_of(s));
        let (near, far) = if bf <= bs {
            ((f, bf), (s, bs))
        } else {
            ((s, bs), (f, bf))
        };
        stack.push(far);
        stack.push(near);
    }
    best
}
