//! The one tree layout every hierarchy here uses, whatever its volume: a
//! binary tree in one array, the root at 0, the two children of an inner
//! node side by side after their parent, the leaves pointing at a range of
//! one primitive-index array. A bottom-up refit is one reverse pass, a
//! traversal is a loop over a small stack, and every tree can be checked
//! ([`Bvh::validate`]).
//!
//! The node type carries the volume: [`ObbNode`](super::ObbNode) (an
//! oriented box, 48 bytes) or [`AabbNode`] (an axis-aligned box, 32 bytes).

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::math::Aabb;

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
}

/// A binary tree of bounding volumes in one array (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bvh<N> {
    /// The nodes; the root is at 0 and children come after their parent.
    /// Empty only when the tree was built over no primitives.
    pub nodes: Vec<N>,
    /// Primitive indices (triangles, compound pieces), grouped by leaf.
    pub order: Vec<u32>,
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

/// A node of an AABB tree: 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AabbNode {
    /// The box.
    pub aabb: Aabb,
    /// See [`BvNode::first`].
    pub first: u32,
    /// See [`BvNode::count`].
    pub count: u32,
}

impl BvNode for AabbNode {
    #[inline]
    fn first(&self) -> u32 {
        self.first
    }
    #[inline]
    fn count(&self) -> u32 {
        self.count
    }
}

/// A tree of axis-aligned boxes.
pub type AabbTree = Bvh<AabbNode>;

impl AabbTree {
    /// A tree over primitives given by their boxes, one primitive per leaf,
    /// built top-down by a median split of the box centers along the
    /// longest axis of their bounds (van den Bergen 1997; ties broken by
    /// index, so the tree does not depend on the sort). Compound shapes
    /// build their piece trees with it.
    pub fn from_boxes(boxes: &[Aabb]) -> AabbTree {
        let mut order: Vec<u32> = (0..boxes.len() as u32).collect();
        let mut nodes = Vec::with_capacity(2 * boxes.len());
        if boxes.is_empty() {
            return AabbTree { nodes, order };
        }
        nodes.push(AabbNode {
            aabb: Aabb::EMPTY,
            first: 0,
            count: 0,
        });
        // (node, start, end) of the groups still to place.
        let mut stack = vec![(0usize, 0usize, boxes.len())];
        while let Some((at, start, end)) = stack.pop() {
            let group = &mut order[start..end];
            let aabb = group
                .iter()
                .fold(Aabb::EMPTY, |b, &i| b.union(boxes[i as usize]));
            if group.len() == 1 {
                nodes[at] = leaf(aabb, start as u32, 1);
                continue;
            }
            median_split(boxes, group);
            let first = nodes.len();
            nodes.push(leaf(Aabb::EMPTY, 0, 0));
            nodes.push(leaf(Aabb::EMPTY, 0, 0));
            nodes[at] = AabbNode {
                aabb,
                first: first as u32,
                count: 0,
            };
            let mid = start + (end - start) / 2;
            stack.push((first + 1, mid, end));
            stack.push((first, start, mid));
        }
        AabbTree { nodes, order }
    }

    /// Calls `visit(primitive)` for every leaf primitive whose node box
    /// overlaps `query` (the tree's frame), in tree order; `visit` returns
    /// `false` to stop.
    pub fn for_each_overlap(&self, query: &Aabb, mut visit: impl FnMut(u32) -> bool) {
        let mut stack: SmallVec<[u32; 32]> = SmallVec::new();
        if !self.nodes.is_empty() {
            stack.push(0);
        }
        while let Some(i) = stack.pop() {
            let node = &self.nodes[i as usize];
            if !node.aabb.overlaps(query) {
                continue;
            }
            if node.is_leaf() {
                for &p in self.leaf_primitives(i as usize) {
                    if !visit(p) {
                        return;
                    }
                }
            } else {
                stack.push(node.first + 1);
                stack.push(node.first);
            }
        }
    }

    /// [`validate_layout`](Bvh::validate_layout), and every node's box
    /// holds its children's boxes, every leaf's box its primitives' boxes.
    pub fn validate(&self, boxes: &[Aabb]) -> Result<(), BvhError> {
        self.validate_layout(boxes.len())?;
        for (i, node) in self.nodes.iter().enumerate() {
            let inside = |b: &Aabb| node.aabb.contains(b);
            let ok = if node.is_leaf() {
                self.leaf_primitives(i)
                    .iter()
                    .all(|&p| inside(&boxes[p as usize]))
            } else {
                let f = node.first as usize;
                inside(&self.nodes[f].aabb) && inside(&self.nodes[f + 1].aabb)
            };
            if !ok {
                return Err(BvhError::NotContained { node: i });
            }
        }
        Ok(())
    }
}

fn leaf(aabb: Aabb, first: u32, count: u32) -> AabbNode {
    AabbNode { aabb, first, count }
}

/// Sorts `group` by box center along the longest axis of the centers'
/// bounds (ties by index): its halves are the median split.
fn median_split(boxes: &[Aabb], group: &mut [u32]) {
    let centers = Aabb::from_points(group.iter().map(|&i| boxes[i as usize].center()));
    let axis = centers.half_extents().max_position();
    group.sort_by(|&a, &b| {
        let (ca, cb) = (boxes[a as usize].center(), boxes[b as usize].center());
        ca[axis].total_cmp(&cb[axis]).then(a.cmp(&b))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    fn random_boxes(rng: &mut Rng, n: usize) -> Vec<Aabb> {
        (0..n)
            .map(|_| Aabb::from_center_half_extents(rng.in_cube(10.0), rng.vec(0.1, 2.0)))
            .collect()
    }

    #[test]
    fn overlap_queries_equal_brute_force() {
        let mut rng = Rng::new(4);
        for n in [1, 2, 3, 7, 64, 300] {
            let boxes = random_boxes(&mut rng, n);
            let tree = AabbTree::from_boxes(&boxes);
            tree.validate(&boxes).expect("valid tree");
            assert_eq!(tree.nodes.len(), 2 * n - 1);
            for q in random_boxes(&mut rng, 50) {
                let mut got = Vec::new();
                tree.for_each_overlap(&q, |p| {
                    got.push(p);
                    true
                });
                got.sort_unstable();
                let want: Vec<u32> = (0..n as u32)
                    .filter(|&i| boxes[i as usize].overlaps(&q))
                    .collect();
                assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn corrupt_trees_are_refused() {
        let mut rng = Rng::new(5);
        let boxes = random_boxes(&mut rng, 9);
        let tree = AabbTree::from_boxes(&boxes);
        let mut cycle = tree.clone();
        cycle.nodes[1].first = 0;
        cycle.nodes[1].count = 0;
        assert!(cycle.validate(&boxes).is_err(), "child before parent");
        let mut out = tree.clone();
        let leaf = out.nodes.iter().position(|n| n.is_leaf()).unwrap();
        out.nodes[leaf].first = 1000;
        assert!(out.validate(&boxes).is_err(), "leaf range");
        let mut twice = tree.clone();
        twice.order[0] = twice.order[1];
        assert!(twice.validate(&boxes).is_err(), "primitive twice");
        let mut loose = tree;
        loose.nodes[0].aabb = Aabb::EMPTY;
        assert_eq!(
            loose.validate(&boxes),
            Err(BvhError::NotContained { node: 0 })
        );
    }
}
