//! An AABB tree over a deforming triangle mesh, with its refit laid out
//! for speed (van den Bergen, *Efficient collision detection of complex
//! deformable models using AABB trees*, JGT 2(4), 1997).
//!
//! [`AabbTree::refit`] walks the node array once in reverse and, at each
//! leaf, goes from the node to the `order` array, then to the triangle,
//! then to its three vertices: a chain of dependent loads and bounds
//! checks, about 46 instructions for a leaf of one triangle (counted in
//! the disassembly). A [`DeformingTree`] keeps, beside the tree, every
//! leaf's triangles as `(node, three vertex indices)` records, made once
//! at the build. Its refit runs in two passes: the leaf boxes straight
//! from the records (read in sequence; only the vertices are looked up;
//! single-triangle leaves in one list, the rare leaves of several
//! triangles in another, so the common loop has no branch), then the
//! inner boxes from their children in one reverse pass over the nodes up
//! to the last inner one (in a breadth-first tree the last level's leaves
//! come after it). The result is the same tree, bit for bit, as
//! [`AabbTree::refit`]'s. The records cost 16 bytes a triangle.
//!
//! On the 32k-triangle cloth of `cargo bench -p icollide-peers --bench
//! solid` (`ICOLLIDE_BENCH_SCENES=cloth`, 2026-11-26, two runs each,
//! alternated): `AabbTree::refit` 183.3 and 182.7 µs against 148.4 and
//! 155.5 µs for the first form of this refit (one list, every node visited
//! by the inner pass); then that form 151.2 and 153.0 µs against 142.1 and
//! 135.6 µs for the present one. See docs/notes/EXPERIMENTS.md#refit for a full
//! run beside parry3d.
//!
//! When refits have let the boxes grow loose, [`DeformingTree::rebuild`]
//! builds the tree afresh in the buffers of the last build (nodes, order,
//! leaf records, and the build's own records, kept empty in between): a
//! mesh rebuilt every frame allocates nothing after its first rebuild
//! (tested: the buffers keep their addresses). It is not faster than a
//! fresh [`AabbTree::build_mesh`] when the allocator has the pages at hand
//! (it also writes the leaf records): on the cloth of `--bench solid`, one
//! two runs, 2.29 and 2.43 ms in place against 1.90 and 2.36 ms for
//! `build_mesh` alone.
//!
//! The tree is read through [`tree`](DeformingTree::tree) and cannot be
//! changed from outside, so the records always describe it.

use glam::Vec3;

use super::aabb_tree::{AabbTree, AabbTreeOptions, BoxLanes, triangle_corners};
use super::record_sort::Record;
use crate::shape::{MeshError, TriMesh};

/// A triangle of a leaf: the leaf's node and the triangle's vertices.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LeafTriangle {
    node: u32,
    corners: [u32; 3],
}

/// An [`AabbTree`] over a mesh whose vertices move (same triangles), with
/// a faster refit and a rebuild in place. See the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct DeformingTree {
    tree: AabbTree,
    /// The triangles of the single-triangle leaves, in node order.
    singles: Vec<LeafTriangle>,
    /// The triangles of the other leaves (groups of coinciding centers,
    /// or a leaf size above one), leaves in node order.
    shared: Vec<LeafTriangle>,
    /// One past the last inner node: the inner pass starts there (in a
    /// breadth-first tree the leaves of the last level come after it).
    inner_end: usize,
    /// The mesh's vertex count: what [`refit`](Self::refit) accepts.
    vertex_count: usize,
    /// The build's settings, for [`rebuild`](Self::rebuild).
    options: AabbTreeOptions,
    /// The build's records, kept (empty) from one
    /// [`rebuild`](Self::rebuild) to the next for their capacity; empty
    /// and unallocated until the first.
    records: Vec<Record>,
}

impl DeformingTree {
    /// The tree over `mesh` ([`AabbTree::build_mesh`]) and its leaves'
    /// triangles.
    pub fn build(mesh: &TriMesh, options: &AabbTreeOptions) -> Self {
        let mut tree = Self {
            tree: AabbTree {
                nodes: Vec::new(),
                order: Vec::new(),
            },
            singles: Vec::new(),
            shared: Vec::new(),
            inner_end: 0,
            vertex_count: 0,
            options: *options,
            records: Vec::new(),
        };
        tree.fill(mesh, &mut Vec::new());
        tree
    }

    /// Builds the tree afresh over `mesh` (its current vertices; it may
    /// be another mesh), with the options of [`build`](Self::build), in
    /// the buffers of the last build: for a mesh no larger than the last
    /// rebuilt one, nothing is allocated. The result equals
    /// [`build`](Self::build)'s. When refits have let the boxes grow loose
    /// (large deformation, see the module docs), this is the one call.
    pub fn rebuild(&mut self, mesh: &TriMesh) {
        let mut records = std::mem::take(&mut self.records);
        self.fill(mesh, &mut records);
        records.clear();
        self.records = records;
    }

    /// Builds the tree over `mesh` in place, `records` as the build's
    /// buffer, then its leaves' records.
    fn fill(&mut self, mesh: &TriMesh, records: &mut Vec<Record>) {
        self.tree.rebuild_mesh(mesh, &self.options, records);
        let (tree, triangles) = (&self.tree, mesh.triangles());
        let leaves = |single: bool| {
            tree.nodes
                .iter()
                .enumerate()
                .filter(move |(_, n)| n.count > 0 && (n.count == 1) == single)
                .flat_map(move |(i, n)| {
                    let range = n.first as usize..(n.first + n.count) as usize;
                    tree.order[range].iter().map(move |&t| LeafTriangle {
                        node: i as u32,
                        corners: triangles[t as usize],
                    })
                })
        };
        self.singles.clear();
        self.singles.extend(leaves(true));
        self.shared.clear();
        self.shared.extend(leaves(false));
        self.inner_end = tree
            .nodes
            .iter()
            .rposition(|n| n.count == 0)
            .map_or(0, |i| i + 1);
        self.vertex_count = mesh.vertices().len();
    }

    /// The tree.
    pub fn tree(&self) -> &AabbTree {
        &self.tree
    }

    /// The tree, without the refit's records.
    pub fn into_tree(self) -> AabbTree {
        self.tree
    }

    /// Refits the boxes to moved vertices (as many as the mesh had): the
    /// leaves from the records, then the inner boxes in one reverse pass.
    /// Returns the number of boxes updated (`N_u`); allocates nothing.
    /// Non-finite positions give non-finite boxes (callers check them
    /// first, as [`TriMesh::set_vertices`] does). Error: another vertex
    /// count (nothing changes then).
    pub fn refit(&mut self, vertices: &[Vec3]) -> Result<u32, MeshError> {
        if vertices.len() != self.vertex_count {
            return Err(MeshError::VertexCount {
                expected: self.vertex_count,
                got: vertices.len(),
            });
        }
        let nodes = &mut self.tree.nodes;
        let triangle_box = |t| BoxLanes::from_corners(triangle_corners(vertices, t));
        for leaf in &self.singles {
            triangle_box(leaf.corners).write(&mut nodes[leaf.node as usize]);
        }
        let mut previous = u32::MAX;
        for leaf in &self.shared {
            let lanes = triangle_box(leaf.corners);
            let node = &mut nodes[leaf.node as usize];
            // A leaf's later triangles widen the box its first one wrote.
            let lanes = if leaf.node == previous {
                lanes.union(BoxLanes::read(node))
            } else {
                lanes
            };
            lanes.write(node);
            previous = leaf.node;
        }
        for i in (0..self.inner_end).rev() {
            if nodes[i].count == 0 {
                BoxLanes::of_children(nodes, nodes[i].first as usize).write(&mut nodes[i]);
            }
        }
        Ok(nodes.len() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::SplitRule;
    use crate::testkit::Rng;

    /// A jittered grid with duplicated and collapsed triangles, so that
    /// some leaves hold several triangles (equal centers) even with one
    /// triangle per leaf.
    fn soup(rng: &mut Rng) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let n = 12;
        let id = |i: usize, j: usize| (i * (n + 1) + j) as u32;
        let vertices = (0..=n)
            .flat_map(|i| (0..=n).map(move |j| Vec3::new(i as f32, 0.0, j as f32)))
            .map(|p| p + rng.in_cube(0.3))
            .collect();
        let mut triangles = Vec::new();
        for i in 0..n {
            for j in 0..n {
                triangles.push([id(i, j), id(i + 1, j), id(i, j + 1)]);
                triangles.push([id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        triangles.extend_from_within(0..7);
        triangles.push([id(3, 3), id(3, 3), id(3, 3)]);
        (vertices, triangles)
    }

    #[test]
    fn refit_equals_the_plain_refit_bit_for_bit() {
        let mut rng = Rng::new(17);
        for (rule, leaf_size) in [
            (SplitRule::Median, 1),
            (SplitRule::Mean, 1),
            (SplitRule::Median, 3),
        ] {
            let (mut vertices, triangles) = soup(&mut rng);
            let mesh = TriMesh::new(vertices.clone(), triangles.clone()).expect("mesh");
            let options = AabbTreeOptions { rule, leaf_size };
            let mut deforming = DeformingTree::build(&mesh, &options);
            let mut plain = AabbTree::build_mesh(&mesh, &options);
            assert!(
                plain.nodes.iter().any(|n| n.count > 1),
                "some leaf holds several triangles"
            );
            for _ in 0..5 {
                // Large moves: the mesh folds through itself.
                for v in &mut vertices {
                    *v += rng.in_cube(2.0);
                }
                let n_u = deforming.refit(&vertices).expect("same count");
                assert_eq!(n_u, plain.refit(&vertices, &triangles));
                assert_eq!(deforming.tree().nodes, plain.nodes);
                let mesh = TriMesh::new(vertices.clone(), triangles.clone()).expect("mesh");
                deforming.tree().validate_mesh(&mesh).expect("boxes hold");
            }
        }
    }

    #[test]
    fn another_vertex_count_is_refused() {
        let (vertices, triangles) = soup(&mut Rng::new(3));
        let mesh = TriMesh::new(vertices.clone(), triangles).expect("mesh");
        let mut tree = DeformingTree::build(&mesh, &AabbTreeOptions::default());
        let before = tree.clone();
        let err = tree.refit(&vertices[1..]).expect_err("one vertex short");
        assert_eq!(
            err,
            MeshError::VertexCount {
                expected: vertices.len(),
                got: vertices.len() - 1
            }
        );
        assert_eq!(tree, before);
    }

    #[test]
    fn rebuild_equals_a_fresh_build_and_reuses_its_buffers() {
        let mut rng = Rng::new(29);
        for (rule, leaf_size) in [(SplitRule::Median, 1), (SplitRule::Mean, 3)] {
            let options = AabbTreeOptions { rule, leaf_size };
            let (mut vertices, triangles) = soup(&mut rng);
            let mesh =
                |v: &[Vec3], t: &[[u32; 3]]| TriMesh::new(v.to_vec(), t.to_vec()).expect("mesh");
            let mut tree = DeformingTree::build(&mesh(&vertices, &triangles), &options);
            let mut buffers = None;
            for frame in 0..4 {
                for v in &mut vertices {
                    *v += rng.in_cube(2.0);
                }
                let moved = mesh(&vertices, &triangles);
                tree.rebuild(&moved);
                assert_eq!(
                    tree,
                    DeformingTree::build(&moved, &options),
                    "frame {frame}"
                );
                tree.tree().validate_mesh(&moved).expect("boxes hold");
                // From the second rebuild on, the same buffers (no allocation).
                let now = (
                    tree.tree().nodes.as_ptr(),
                    tree.tree().order.as_ptr(),
                    tree.singles.as_ptr(),
                    tree.records.capacity(),
                );
                if frame > 0 {
                    assert_eq!(Some(now), buffers, "frame {frame}");
                }
                buffers = Some(now);
                // A refit after a rebuild is the plain refit.
                let mut plain = AabbTree::build_mesh(&moved, &options);
                for v in &mut vertices {
                    *v += rng.in_cube(0.5);
                }
                assert_eq!(
                    tree.refit(&vertices),
                    Ok(plain.refit(&vertices, &triangles))
                );
                assert_eq!(tree.tree().nodes, plain.nodes);
            }
            // Another, smaller mesh: a valid tree over it.
            let small = mesh(&vertices[..20], &[[0, 1, 2], [3, 4, 5], [5, 6, 7]]);
            tree.rebuild(&small);
            assert_eq!(tree, DeformingTree::build(&small, &options));
            assert_eq!(tree.refit(&vertices[..20]).map(|_| ()), Ok(()));
        }
    }
}
