//! The one tree layout every hierarchy here uses, whatever its volume: a
//! binary tree in one array, the root at 0, the two children of an inner
//! node side by side after their parent, the leaves pointing at a range of
//! one primitive-index array. A bottom-up refit is one reverse pass, a
//! traversal is a loop over a small stack, and every tree can be checked
//! ([`Bvh::validate`]).
//!
//! The node type carries the volume: [`ObbNode`](super::ObbNode) (an
//! oriented box, 48 bytes) or [`AabbNode`](super::AabbNode) (an
//! axis-aligned box, 32 bytes).

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// A node of a [`Bvh`]: where its children or primitives are.
pub trait BvNode: Copy {
    /// Inner node: index of the first child (the second is `first + 1`).
    /// Leaf: index of its first primitive in [`Bvh::order`].
    fn first(&self) -> u32;
    /// Leaf: number of primitives (at least 1). Inner node: 0.
    fn count(&self) -> u32;
    /// Whether the node is a leaf.
    #[inline]
    fn is_leaf(&self) -> bool {
        self.count() > 0
    }
    /// Whether its volume has no NaN or infinite value.
    fn is_finite(&self) -> bool {
        true
    }
}

/// A binary tree of bounding volumes in one array (see the module docs).
///
/// Deserializing checks the layout ([`Bvh::validate_layout`] over its own
/// primitive count) and that every volume is finite: a corrupt file is an
/// error, never a tree that loops or indexes out of range. Whether the
/// volumes hold a given mesh is the tree's `validate(mesh)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    try_from = "BvhData<N>",
    bound(deserialize = "N: BvNode + Deserialize<'de>")
)]
pub struct Bvh<N> {
    /// The nodes; the root is at 0 and children come after their parent.
    /// Empty only when the tree was built over no primitives.
    pub nodes: Vec<N>,
    /// Primitive indices (triangles, compound pieces), grouped by leaf.
    pub order: Vec<u32>,
}

/// A [`Bvh`] as read, before its checks.
#[derive(Deserialize)]
struct BvhData<N> {
    nodes: Vec<N>,
    order: Vec<u32>,
}

impl<N: BvNode> TryFrom<BvhData<N>> for Bvh<N> {
    type Error = BvhError;

    fn try_from(data: BvhData<N>) -> Result<Self, BvhError> {
        let tree = Bvh {
            nodes: data.nodes,
            order: data.order,
        };
        tree.validate_layout(tree.order.len())?;
        if let Some(node) = tree.nodes.iter().position(|n| !n.is_finite()) {
            return Err(BvhError::NonFinite { node });
        }
        Ok(tree)
    }
}

impl<N> Default for Bvh<N> {
    /// The empty tree.
    fn default() -> Self {
        Self {
            nodes: Vec::new(),
            order: Vec::new(),
        }
    }
}

/// Why a tree is not valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BvhError {
    /// A child index is not after its parent or out of range.
    BadChild {
        /// The node.
        node: usize,
    },
    /// A leaf's primitive range is out of [`Bvh::order`].
    BadLeaf {
        /// The node.
        node: usize,
    },
    /// A primitive index is out of range, or in no leaf or in two.
    BadPrimitive {
        /// The primitive index (or the order slot, if out of range).
        index: u32,
    },
    /// A node's volume does not contain its primitives or children.
    NotContained {
        /// The node.
        node: usize,
    },
    /// A node is not reached from the root, or reached twice.
    Unreachable {
        /// The node.
        node: usize,
    },
    /// A node's volume has a NaN or infinite value.
    NonFinite {
        /// The node.
        node: usize,
    },
}

impl std::fmt::Display for BvhError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BvhError::BadChild { node } => write!(f, "node {node}: bad child index"),
            BvhError::BadLeaf { node } => write!(f, "node {node}: primitive range out of bounds"),
            BvhError::BadPrimitive { index } => {
                write!(f, "primitive {index}: out of range, or in no leaf or two")
            }
            BvhError::NotContained { node } => {
                write!(f, "node {node}: its volume does not hold what is below it")
            }
            BvhError::Unreachable { node } => write!(f, "node {node}: not reached exactly once"),
            BvhError::NonFinite { node } => write!(f, "node {node}: NaN or infinite volume"),
        }
    }
}

impl std::error::Error for BvhError {}

impl<N: BvNode> Bvh<N> {
    /// Number of levels: 0 for an empty tree, 1 for a single leaf.
    pub fn depth(&self) -> usize {
        if self.nodes.is_empty() {
            return 0;
        }
        let mut max = 0;
        let mut stack = vec![(0usize, 1usize)];
        while let Some((i, d)) = stack.pop() {
            max = max.max(d);
            let node = &self.nodes[i];
            if !node.is_leaf() {
                stack.push((node.first() as usize, d + 1));
                stack.push((node.first() as usize + 1, d + 1));
            }
        }
        max
    }

    /// The primitive indices of leaf `i` (empty for an inner node).
    #[inline]
    pub fn leaf_primitives(&self, i: usize) -> &[u32] {
        let node = &self.nodes[i];
        let first = node.first() as usize;
        &self.order[first..first + node.count() as usize]
    }

    /// Checks the layout for a tree over `primitives` primitives: children
    /// after their parent and in range, every node reached once from the
    /// root, leaf ranges inside [`order`](Self::order), every primitive in
    /// exactly one leaf. (Volumes are checked by each tree's own
    /// `validate`.) Never loops or panics, whatever the data.
    pub fn validate_layout(&self, primitives: usize) -> Result<(), BvhError> {
        let mut seen_node = vec![false; self.nodes.len()];
        let mut seen_prim = vec![false; primitives];
        let mut stack: SmallVec<[usize; 64]> = SmallVec::new();
        if !self.nodes.is_empty() {
            stack.push(0);
        }
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen_node[i], true) {
                return Err(BvhError::Unreachable { node: i });
            }
            let node = &self.nodes[i];
            if node.is_leaf() {
                let (first, count) = (node.first() as usize, node.count() as usize);
                let range = self
                    .order
                    .get(first..first.saturating_add(count))
                    .ok_or(BvhError::BadLeaf { node: i })?;
                for &p in range {
                    let slot = seen_prim
                        .get_mut(p as usize)
                        .ok_or(BvhError::BadPrimitive { index: p })?;
                    if std::mem::replace(slot, true) {
                        return Err(BvhError::BadPrimitive { index: p });
                    }
                }
            } else {
                let first = node.first() as usize;
                if first <= i || first + 1 >= self.nodes.len() {
                    return Err(BvhError::BadChild { node: i });
                }
                stack.push(first);
                stack.push(first + 1);
            }
        }
        if let Some(node) = seen_node.iter().position(|s| !s) {
            return Err(BvhError::Unreachable { node });
        }
        if let Some(p) = seen_prim.iter().position(|s| !s) {
            return Err(BvhError::BadPrimitive { index: p as u32 });
        }
        if self.order.len() != primitives {
            return Err(BvhError::BadPrimitive {
                index: self.order.len() as u32,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::AabbNode;
    use crate::math::Aabb;
    use glam::Vec3;

    fn leaf(min: Vec3, first: u32) -> AabbNode {
        AabbNode {
            aabb: Aabb::new(min, min + Vec3::ONE),
            first,
            count: 1,
        }
    }

    /// What deserialization checks, on the data as read.
    #[test]
    fn read_trees_are_checked() {
        let root = AabbNode {
            aabb: Aabb::new(Vec3::ZERO, Vec3::splat(2.0)),
            first: 1,
            count: 0,
        };
        let data = |nodes: Vec<AabbNode>, order: Vec<u32>| Bvh::try_from(BvhData { nodes, order });
        let good = vec![root, leaf(Vec3::ZERO, 0), leaf(Vec3::ONE, 1)];
        assert!(data(good.clone(), vec![1, 0]).is_ok());
        assert!(data(Vec::new(), Vec::new()).is_ok(), "the empty tree");
        let mut nan = good.clone();
        nan[2].aabb.min.z = f32::NAN;
        assert_eq!(data(nan, vec![1, 0]), Err(BvhError::NonFinite { node: 2 }));
        let mut back = good.clone();
        back[0].first = 0;
        assert_eq!(data(back, vec![1, 0]), Err(BvhError::BadChild { node: 0 }));
        assert!(matches!(
            data(good.clone(), vec![0, 0]),
            Err(BvhError::BadPrimitive { .. })
        ));
        let mut far = good;
        far[1].first = 7;
        assert_eq!(data(far, vec![1, 0]), Err(BvhError::BadLeaf { node: 1 }));
    }
}
