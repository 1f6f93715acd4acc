//! AABB trees (van den Bergen, *Efficient collision detection of complex
//! deformable models using AABB trees*, JGT 2(4), 1997; the SOLID library).
//!
//! Axis-aligned boxes in the model's own frame: looser than OBBs, but cheap
//! to build and, above all, to *refit* when the model deforms. The tree
//! keeps the crate's one layout ([`Bvh`]): a node is 32 bytes (the box, the
//! first child or primitive, the primitive count).
//!
//! **Build** (top-down, [`AabbTree::build`]): a group's primitives are
//! split across the longest axis of their centers' bounds, at the median
//! (the paper's rule; [`SplitRule::Mean`] splits at the mean), by a linear
//! selection, so a level costs `O(n)` and the build `O(n log n)`. When all
//! centers coincide on every axis (duplicate triangles) the group is a
//! leaf; with the mean rule, so is a group whose mean leaves one side empty
//! on every axis (it rounds to the least key, or is not finite). Boxes are
//! then filled by one refit pass. The loop is in `aabb_build.rs`.
//!
//! **Refit** ([`AabbTree::refit`]): leaf boxes from the primitives' current
//! vertices, then every inner box as the union of its children's, in one
//! reverse pass over the array (children come after their parent): no
//! recursion, no allocation, `O(n)`. A mesh that deforms every frame is
//! better served by [`DeformingTree`](super::DeformingTree), the same
//! tree with its leaves' triangles laid out for this pass (faster by
//! about a quarter). The topology stays that of the rest
//! pose, so a strongly deformed model ends up with overlapping siblings and
//! queries slow down (they stay exact); a rebuild ([`AabbTree::build`]) is
//! then one call.

use glam::{Vec3, Vec3A, Vec4};
use smallvec::SmallVec;

use serde::{Deserialize, Serialize};

use super::aabb_build::{topology, topology_into};
use super::obb_tree::SplitRule;
use super::record_sort::Record;
use super::tree::{BvNode, Bvh, BvhError};
use crate::math::Aabb;
use crate::shape::TriMesh;

/// A node of an AABB tree: 32 bytes, aligned to 32 so that no node
/// straddles two cache lines (glibc aligns an array to 16 bytes only, and
/// a large one starts 16 bytes into a page, which put every other node
/// across a line boundary).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[repr(C, align(32))]
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
    fn is_finite(&self) -> bool {
        self.aabb.min.is_finite() && self.aabb.max.is_finite()
    }
}

/// A node's box as the refit moves it: its first six floats in two
/// four-lane vectors, `head = [min.x, min.y, min.z, max.x]` and
/// `tail = [max.y, max.z, -, -]`, read and written as one 16-byte and one
/// 8-byte access. A parent reads its children back the way they were
/// written, so the loads take their data straight from the pending stores;
/// boxes read and written as two `Vec3`s cost a shuffle per corner, and a
/// `Vec3` read straddles the two stores that wrote it, which the processor
/// cannot forward.
#[derive(Clone, Copy)]
pub(super) struct BoxLanes {
    head: Vec4,
    tail: Vec4,
}

impl BoxLanes {
    #[inline(always)]
    pub(super) fn read(node: &AabbNode) -> Self {
        let (min, max) = (node.aabb.min, node.aabb.max);
        Self {
            head: Vec4::new(min.x, min.y, min.z, max.x),
            tail: Vec4::new(max.y, max.z, 0.0, 0.0),
        }
    }

    /// The union of the boxes of the children at `first` and `first + 1`
    /// (an inner node's box).
    #[inline(always)]
    pub(super) fn of_children(nodes: &[AabbNode], first: usize) -> Self {
        Self::read(&nodes[first]).union(Self::read(&nodes[first + 1]))
    }

    #[inline(always)]
    pub(super) fn from_corners((lo, hi): (Vec3A, Vec3A)) -> Self {
        Self {
            head: lo.extend(hi.x),
            tail: Vec4::new(hi.y, hi.z, 0.0, 0.0),
        }
    }

    /// The union: `min` on the smallest corner's lanes, `max` on the
    /// largest's.
    #[inline(always)]
    pub(super) fn union(self, other: Self) -> Self {
        let lo = self.head.min(other.head);
        let hi = self.head.max(other.head);
        Self {
            head: lo.with_w(hi.w),
            tail: self.tail.max(other.tail),
        }
    }

    #[inline(always)]
    pub(super) fn write(self, node: &mut AabbNode) {
        let (h, t) = (self.head, self.tail);
        node.aabb.min = Vec3::new(h.x, h.y, h.z);
        node.aabb.max = Vec3::new(h.w, t.x, t.y);
    }
}

/// The smallest and largest corners of triangle `[a, b, c]`'s box.
#[inline(always)]
pub(super) fn triangle_corners(vertices: &[Vec3], [a, b, c]: [u32; 3]) -> (Vec3A, Vec3A) {
    let a = Vec3A::from(vertices[a as usize]);
    let b = Vec3A::from(vertices[b as usize]);
    let c = Vec3A::from(vertices[c as usize]);
    (a.min(b).min(c), a.max(b).max(c))
}

/// A tree of axis-aligned boxes.
pub type AabbTree = Bvh<AabbNode>;

/// Build settings of an AABB tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AabbTreeOptions {
    /// Where groups are split (the paper: the median).
    pub rule: SplitRule,
    /// Groups of at most this many primitives become leaves (0 counts as 1).
    pub leaf_size: usize,
}

impl Default for AabbTreeOptions {
    fn default() -> Self {
        Self {
            rule: SplitRule::Median,
            leaf_size: 1,
        }
    }
}

impl AabbTree {
    /// A tree over primitives given by their boxes (one per leaf with the
    /// default options), split by their centers (see the module docs).
    /// Node boxes are the unions of the primitives' boxes.
    pub fn build(boxes: &[Aabb], options: &AabbTreeOptions) -> AabbTree {
        let centers = boxes.iter().map(|b| b.center());
        let mut tree = topology(centers, options.rule, options.leaf_size);
        tree.refit_with(|p| {
            let b = boxes[p as usize];
            (b.min.into(), b.max.into())
        });
        tree
    }

    /// [`build`](Self::build) with the default options: median split, one
    /// primitive per leaf. Compound shapes build their piece trees with it.
    pub fn from_boxes(boxes: &[Aabb]) -> AabbTree {
        Self::build(boxes, &AabbTreeOptions::default())
    }

    /// A tree over the triangles of `mesh` (split by triangle centroids).
    pub fn build_mesh(mesh: &TriMesh, options: &AabbTreeOptions) -> AabbTree {
        let mut tree = AabbTree {
            nodes: Vec::new(),
            order: Vec::new(),
        };
        tree.rebuild_mesh(mesh, options, &mut Vec::new());
        tree
    }

    /// [`build_mesh`](Self::build_mesh) in place: the tree's buffers and
    /// `records` (the build's, left filled) are reused, so that a rebuild
    /// of a mesh no larger than the last allocates nothing.
    pub(super) fn rebuild_mesh(
        &mut self,
        mesh: &TriMesh,
        options: &AabbTreeOptions,
        records: &mut Vec<Record>,
    ) {
        let v = mesh.vertices();
        let centroids = mesh
            .triangles()
            .iter()
            .map(|t| (v[t[0] as usize] + v[t[1] as usize] + v[t[2] as usize]) / 3.0);
        topology_into(centroids, options.rule, options.leaf_size, records, self);
        self.refit(mesh.vertices(), mesh.triangles());
    }

    /// Refits the boxes to moved vertices (same triangles, same order as at
    /// the build): leaf boxes from their triangles' vertices, then every
    /// inner box from its children, in one reverse pass. Returns the number
    /// of boxes updated (`N_u` of the cost model). Allocates nothing.
    pub fn refit(&mut self, vertices: &[Vec3], triangles: &[[u32; 3]]) -> u32 {
        self.refit_with(|t| triangle_corners(vertices, triangles[t as usize]))
    }

    /// The refit pass with the primitives' boxes (smallest and largest
    /// corners) given by `primitive_box`. See [`BoxLanes`] for how boxes
    /// are read and written.
    fn refit_with(&mut self, primitive_box: impl Fn(u32) -> (Vec3A, Vec3A)) -> u32 {
        let (nodes, order) = (&mut self.nodes, &self.order);
        for i in (0..nodes.len()).rev() {
            let (first, count) = (nodes[i].first as usize, nodes[i].count as usize);
            let lanes = match count {
                1 => BoxLanes::from_corners(primitive_box(order[first])),
                0 => BoxLanes::of_children(nodes, first),
                _ => BoxLanes::from_corners(order[first..first + count].iter().fold(
                    (Vec3A::INFINITY, Vec3A::NEG_INFINITY),
                    |(lo, hi), &p| {
                        let (l, h) = primitive_box(p);
                        (lo.min(l), hi.max(h))
                    },
                )),
            };
            lanes.write(&mut nodes[i]);
        }
        nodes.len() as u32
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

    /// [`validate_layout`](super::Bvh::validate_layout), and every node's
    /// box holds its children's boxes, every leaf's box its primitives'
    /// boxes. Never loops or panics, whatever the data.
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

    /// [`validate`](Self::validate) for a tree over the triangles of `mesh`.
    pub fn validate_mesh(&self, mesh: &TriMesh) -> Result<(), BvhError> {
        let boxes: Vec<Aabb> = (0..mesh.triangles().len())
            .map(|t| Aabb::from_points(mesh.triangle(t)))
            .collect();
        self.validate(&boxes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{Rng, torus};

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
    fn nan_boxes_do_not_panic_and_fail_validation() {
        // A NaN center is read as 0 when the build's records are made, so
        // that `<` orders the keys totally: without it the selection's
        // comparator is no order, which may panic or lose a record (which
        // `validate_layout` would catch). The tree holds every primitive,
        // and `validate` refuses it (a NaN box contains nothing).
        let mut rng = Rng::new(6);
        let mut boxes = random_boxes(&mut rng, 200);
        for i in (0..200).step_by(7) {
            boxes[i].min.x = f32::NAN;
            boxes[i].max.y = f32::NAN;
        }
        let tree = AabbTree::from_boxes(&boxes);
        tree.validate_layout(boxes.len())
            .expect("every primitive once");
        assert!(tree.validate(&boxes).is_err());
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

    #[test]
    fn mesh_trees_are_balanced_and_refit_exactly() {
        let (v, t) = torus(1.0, 0.3, 40, 20);
        let mut mesh = TriMesh::new(v, t).expect("mesh");
        for rule in [SplitRule::Median, SplitRule::Mean] {
            let opts = AabbTreeOptions { rule, leaf_size: 1 };
            let mut tree = AabbTree::build_mesh(&mesh, &opts);
            tree.validate_mesh(&mesh).expect("valid");
            assert_eq!(tree.nodes.len(), 2 * mesh.triangles().len() - 1);
            if rule == SplitRule::Median {
                // 1600 triangles: a median split gives depth ceil(log2) + 1.
                assert_eq!(tree.depth(), 12);
            }
            let mut rng = Rng::new(9);
            for step in 0..20 {
                // Deform: waves, then a collapse of some triangles to points.
                let verts: Vec<Vec3> = mesh
                    .vertices()
                    .iter()
                    .map(|p| *p + rng.in_cube(0.05) + Vec3::Y * (p.x * step as f32).sin() * 0.1)
                    .collect();
                mesh = TriMesh::new(verts, mesh.triangles().to_vec()).expect("mesh");
                let updated = tree.refit(mesh.vertices(), mesh.triangles());
                assert_eq!(updated as usize, tree.nodes.len());
                tree.validate_mesh(&mesh).expect("valid after refit");
                let fresh = AabbTree::build_mesh(&mesh, &opts);
                assert_eq!(tree.nodes[0].aabb, fresh.nodes[0].aabb, "same root box");
            }
        }
    }

    #[test]
    fn refit_boxes_are_the_tight_unions_of_their_triangles() {
        // Every node's box, bit for bit, against a plain fold over the
        // triangles under it (`Vec3` min/max), for several leaf sizes.
        let (v, t) = torus(1.0, 0.3, 24, 12);
        let mut rng = Rng::new(31);
        for leaf_size in [1, 2, 5] {
            let opts = AabbTreeOptions {
                rule: SplitRule::Median,
                leaf_size,
            };
            let mesh = TriMesh::new(v.clone(), t.clone()).expect("mesh");
            let mut tree = AabbTree::build_mesh(&mesh, &opts);
            let verts: Vec<Vec3> = v.iter().map(|p| *p + rng.in_cube(0.2)).collect();
            tree.refit(&verts, &t);
            for (i, node) in tree.nodes.iter().enumerate() {
                let want = under(&tree, i)
                    .iter()
                    .flat_map(|&p| t[p as usize].map(|k| verts[k as usize]))
                    .fold(Aabb::EMPTY, Aabb::include);
                assert_eq!(node.aabb, want, "node {i}, leaf size {leaf_size}");
            }
        }
    }

    /// The primitives under node `i`.
    fn under(tree: &AabbTree, i: usize) -> Vec<u32> {
        let node = tree.nodes[i];
        if node.count > 0 {
            return tree.leaf_primitives(i).to_vec();
        }
        let f = node.first as usize;
        [under(tree, f), under(tree, f + 1)].concat()
    }

    #[test]
    fn duplicate_triangles_share_a_leaf() {
        let v = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        let mesh = TriMesh::new(v, vec![[0, 1, 2]; 5]).expect("mesh");
        let tree = AabbTree::build_mesh(&mesh, &AabbTreeOptions::default());
        assert_eq!(tree.nodes.len(), 1);
        assert_eq!(tree.leaf_primitives(0).len(), 5);
        tree.validate_mesh(&mesh).expect("valid");
    }
}
