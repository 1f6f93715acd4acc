//! OBB trees: top-down construction.
//!
//! The hierarchy of S. Gottschalk, M. C. Lin and D. Manocha, *"OBBTree: A
//! Hierarchical Structure for Rapid Interference Detection"*, SIGGRAPH 1996,
//! section 4 (and their RAPID library), built top-down over a triangle soup:
//!
//! 1. Fit an [`Obb`] to the group's triangles (paper, section 4.1: axes from
//!    the covariance of the convex hull's surface; see [`super::obb`]).
//! 2. Split the group by a plane orthogonal to the box's longest axis, through
//!    the mean of the triangle centroids projected on that axis (paper,
//!    section 4.2; [`SplitRule::Median`] uses their median instead). If one
//!    side would be empty, try the second longest axis, then the third.
//! 3. Groups of at most `leaf_size` triangles (RAPID: 1), and groups that no
//!    axis divides (all centroids equal: duplicate triangles), are leaves.
//!
//! The build is iterative (an explicit stack), partitions one index array in
//! place (every node owns a contiguous range of it, which for a leaf is
//! [`ObbTree::order`]`[first..first + count]`), and allocates nothing per
//! node except the convex hulls.
//!
//! # Hull or triangles
//!
//! A convex hull per node is the paper's method, but it costs: each level of
//! the tree hulls all the mesh's vertices again. Groups of fewer than
//! [`ObbTreeOptions::hull_min_triangles`] triangles
//! ([`DEFAULT_HULL_MIN_TRIANGLES`] = 65 536 by default) take their axes from
//! the area-weighted covariance of their own triangles instead, summed from
//! per-triangle moments computed once (`O(n)` per level). Single-triangle
//! groups (the leaves, with RAPID's leaf size 1) take the triangle's normal
//! and the in-plane edge direction giving the smallest bounding rectangle
//! (no eigen-solve; the minimum-area rectangle around a convex polygon has a
//! side along one of its edges). Groups of two and three triangles, about
//! half the inner nodes, do the same on their summed normal and the best of
//! their edges: tighter than their covariance boxes, and cheaper (see
//! `obb_build.rs`).
//!
//! Measured on the 2-core development machine, release build, 100 000
//! triangles of a bumpy torus (the ignored `timing_100k` test; leaf size 1;
//! best of 3; "volume" is the sum of the internal nodes' volumes, relative
//! to the hull-free build, lower is tighter):
//!
//! | hull for groups of ≥ | mean split | median split | volume (mean / median) |
//! |----------------------|-----------:|-------------:|-----------------------:|
//! | never                |      82 ms |        90 ms |        1.000 / 1.004   |
//! | 16 384               |     108 ms |       119 ms |        1.014 / 1.027   |
//! | 8 192                |     120 ms |       138 ms |        1.002 / 1.013   |
//! | 4 096                |     145 ms |       160 ms |        1.014 / 1.021   |
//! | 1 024                |     177 ms |       194 ms |        0.996 / 1.008   |
//! | 64                   |     276 ms |       298 ms |        0.995 / 1.005   |
//! | every group (paper)  |     638 ms |       676 ms |        0.994 / 1.004   |
//!
//! On such an evenly tessellated surface the hull barely changes the boxes
//! (area weighting already makes the triangle covariance independent of the
//! tessellation); it matters for groups whose triangles are unevenly spread
//! over their hull (interior or concave detail), which are mostly the large
//! groups near the root, and the threshold keeps the hull there. The default
//! (65 536: the root and its children on the largest meshes) keeps a
//! 100 000-triangle build under 150 ms when the machine is shared: the
//! `mesh_collide` bench measured 223 ms with 8 192 and 117 ms with 65 536.
//!
//! # Node layout
//!
//! A node is 48 bytes: the box rotation as a unit quaternion (16 B), center
//! and half extents (24 B), `first` and `count` (8 B). A [`Mat3`] would make
//! it 68 B. The extents are computed on the axes *decoded* from the stored
//! quaternion, so [`ObbTree::node_obb`] bounds the triangles exactly as the
//! fitted box did.

use glam::{Mat3, Quat, Vec3};
use serde::{Deserialize, Serialize};

use super::obb::Obb;
use super::rounding::NODE_DEFECT;
use super::tree::{BvNode, Bvh, BvhError};
use crate::shape::TriMesh;

/// Groups of at least this many triangles get their axes from their convex
/// hull's surface (the paper's method); smaller ones from their triangles.
pub const DEFAULT_HULL_MIN_TRIANGLES: usize = 65_536;

/// One node of an [`ObbTree`]: 48 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObbNode {
    /// The box axes as a unit quaternion: the axes are the columns of
    /// `Mat3::from_quat(rotation)`.
    pub rotation: Quat,
    /// Center of the box.
    pub center: Vec3,
    /// Half the box size along each axis.
    pub half_extents: Vec3,
    /// Internal node: index of the first child (the second is `first + 1`).
    /// Leaf: index of the first triangle in [`Bvh::order`].
    pub first: u32,
    /// Leaf: number of triangles (at least 1). Internal node: 0.
    pub count: u32,
}

impl ObbNode {
    /// The node's box, axes decoded from the quaternion.
    pub fn obb(&self) -> Obb {
        Obb {
            center: self.center,
            axes: Mat3::from_quat(self.rotation),
            half_extents: self.half_extents,
        }
    }

    /// Whether the node is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.count > 0
    }
}

/// Where a group is split.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SplitRule {
    /// At the mean of the projected triangle centroids (the paper's rule).
    #[default]
    Mean,
    /// At their median: balanced trees.
    Median,
}

/// Build settings for [`ObbTree::build_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObbTreeOptions {
    /// Where groups are split.
    pub rule: SplitRule,
    /// Groups of at most this many triangles become leaves (0 counts as 1).
    pub leaf_size: usize,
    /// Groups of at least this many triangles are fitted on their convex
    /// hull, smaller ones on their triangles (`0` or `1`: always the hull, as
    /// in the paper; `usize::MAX`: never).
    pub hull_min_triangles: usize,
}

impl Default for ObbTreeOptions {
    fn default() -> Self {
        Self {
            rule: SplitRule::Mean,
            leaf_size: 1,
            hull_min_triangles: DEFAULT_HULL_MIN_TRIANGLES,
        }
    }
}

/// A binary tree of oriented bounding boxes over a triangle soup, in the
/// shared layout of [`Bvh`]: [`Bvh::order`] holds triangle indices.
pub type ObbTree = Bvh<ObbNode>;

impl BvNode for ObbNode {
    #[inline]
    fn first(&self) -> u32 {
        self.first
    }
    #[inline]
    fn count(&self) -> u32 {
        self.count
    }
    fn is_finite(&self) -> bool {
        self.rotation.is_finite() && self.center.is_finite() && self.half_extents.is_finite()
    }
}

impl Bvh<ObbNode> {
    /// Builds the tree top-down over `triangles` (indices into `positions`),
    /// with the default hull threshold ([`DEFAULT_HULL_MIN_TRIANGLES`]).
    /// Degenerate and duplicate triangles are fine.
    ///
    /// # Panics
    /// If a triangle index is out of range for `positions`, or there are
    /// 2³¹ triangles or more.
    pub fn build(
        positions: &[Vec3],
        triangles: &[[u32; 3]],
        rule: SplitRule,
        leaf_size: usize,
    ) -> ObbTree {
        Self::build_with(
            positions,
            triangles,
            &ObbTreeOptions {
                rule,
                leaf_size,
                ..ObbTreeOptions::default()
            },
        )
    }

    /// [`ObbTree::build`] with all settings.
    ///
    /// # Panics
    /// As [`ObbTree::build`].
    pub fn build_with(
        positions: &[Vec3],
        triangles: &[[u32; 3]],
        options: &ObbTreeOptions,
    ) -> ObbTree {
        let n = triangles.len();
        assert!(n < (1 << 31), "ObbTree: too many triangles ({n})");
        assert!(
            triangles
                .iter()
                .flatten()
                .all(|&i| (i as usize) < positions.len()),
            "ObbTree: triangle index out of range ({} positions)",
            positions.len()
        );
        if n == 0 {
            return ObbTree::default();
        }
        super::obb_build::build(positions, triangles, options)
    }

    /// The box of node `i`, axes decoded. Panics if `i` is out of range.
    pub fn node_obb(&self, i: usize) -> Obb {
        self.nodes[i].obb()
    }

    /// The triangle indices of leaf `i` (empty for an internal node).
    #[inline]
    pub fn leaf_triangles(&self, i: usize) -> &[u32] {
        self.leaf_primitives(i)
    }

    /// Checks a tree over the triangles of `mesh` (one read from a file,
    /// say): [`Bvh::validate_layout`], and every node's box holding the
    /// vertices of the triangles below it (within a relative `1e-4`). Never
    /// loops or panics, whatever the data.
    pub fn validate(&self, mesh: &TriMesh) -> Result<(), BvhError> {
        self.validate_layout(mesh.triangles().len())?;
        let scale = mesh
            .vertices()
            .iter()
            .fold(0.0f32, |m, v| m.max(v.abs().max_element()));
        let eps = 1e-4 * scale.max(f32::MIN_POSITIVE);
        // Each node's triangles: a leaf's, or its children's (children
        // come after their parent, so a reverse pass sees them first).
        let mut ranges = vec![(u32::MAX, 0u32); self.nodes.len()];
        for i in (0..self.nodes.len()).rev() {
            let node = &self.nodes[i];
            ranges[i] = if node.is_leaf() {
                (node.first, node.first + node.count)
            } else {
                let (a, b) = (ranges[node.first as usize], ranges[node.first as usize + 1]);
                (a.0.min(b.0), a.1.max(b.1))
            };
            // A box on axes that are no rotation (the traversals' rounding
            // bounds assume unit quaternions, as the builds make them).
            if (node.rotation.length_squared() - 1.0).abs() > NODE_DEFECT {
                return Err(BvhError::NotContained { node: i });
            }
            let obb = node.obb();
            let tris = &self.order[ranges[i].0 as usize..ranges[i].1 as usize];
            let held = tris.iter().all(|&t| {
                mesh.triangle(t as usize)
                    .iter()
                    .all(|&v| obb.contains_point(v, eps))
            });
            if !held {
                return Err(BvhError::NotContained { node: i });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A bumpy torus: `nu × nv` quads, `2 nu nv` triangles.
    fn torus(nu: usize, nv: usize) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut pos = Vec::with_capacity(nu * nv);
        for i in 0..nu {
            let u = i as f32 / nu as f32 * std::f32::consts::TAU;
            for j in 0..nv {
                let v = j as f32 / nv as f32 * std::f32::consts::TAU;
                let r = 1.0
                    + 0.08 * (7.0 * u).sin() * (5.0 * v).cos()
                    + 0.03 * (23.0 * u + 3.0 * v).sin();
                let big = 3.0 + r * v.cos();
                pos.push(Vec3::new(big * u.cos(), r * v.sin(), big * u.sin()));
            }
        }
        let mut tris = Vec::with_capacity(2 * nu * nv);
        let id = |i: usize, j: usize| ((i % nu) * nv + j % nv) as u32;
        for i in 0..nu {
            for j in 0..nv {
                tris.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                tris.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        (pos, tris)
    }

    /// Checks every structural invariant and the containment of every node.
    fn validate(tree: &ObbTree, pos: &[Vec3], tris: &[[u32; 3]], leaf_size: usize) {
        let n = tris.len();
        assert_eq!(tree.order.len(), n);
        let mut seen = vec![false; n];
        for &t in &tree.order {
            assert!(!seen[t as usize], "triangle {t} twice");
            seen[t as usize] = true;
        }
        if n == 0 {
            assert!(tree.nodes.is_empty());
            return;
        }
        let nn = tree.nodes.len();
        let mut parents = vec![0u32; nn];
        let mut covered = vec![0u32; n];
        // range[i]: the node's contiguous slice of order.
        let mut range = vec![(usize::MAX, 0usize); nn];
        for (i, node) in tree.nodes.iter().enumerate() {
            if node.is_leaf() {
                let (f, c) = (node.first as usize, node.count as usize);
                assert!(f + c <= n);
                for k in &mut covered[f..f + c] {
                    *k += 1;
                }
                range[i] = (f, f + c);
            } else {
                let f = node.first as usize;
                assert!(f > i && f + 1 < nn, "children of {i} at {f}");
                parents[f] += 1;
                parents[f + 1] += 1;
            }
        }
        assert!(
            covered.iter().all(|&c| c == 1),
            "leaves must cover order once"
        );
        assert_eq!(parents[0], 0);
        assert!(parents[1..].iter().all(|&p| p == 1));
        for i in (0..nn).rev() {
            let node = tree.nodes[i];
            if !node.is_leaf() {
                let (a, b) = (range[node.first as usize], range[node.first as usize + 1]);
                assert_eq!(a.1, b.0, "children ranges must be adjacent");
                range[i] = (a.0, b.1);
            }
        }
        assert_eq!(range[0], (0, n));
        let scale = pos.iter().fold(0.0f32, |s, p| s.max(p.abs().max_element()));
        let eps = 1e-6 * (1.0 + scale);
        for (i, &(a, b)) in range.iter().enumerate() {
            let obb = tree.node_obb(i);
            assert!(obb.center.is_finite() && obb.half_extents.is_finite());
            for &t in &tree.order[a..b] {
                for v in tris[t as usize] {
                    let p = pos[v as usize];
                    assert!(obb.contains_point(p, eps), "node {i}: {p} outside {obb:?}");
                }
            }
            let node = tree.nodes[i];
            if node.is_leaf() && node.count as usize > leaf_size.max(1) {
                // Only undividable groups: all centroids equal.
                let c = |t: u32| {
                    let [p, q, r] = tris[t as usize].map(|v| pos[v as usize]);
                    (p + q + r) / 3.0
                };
                let leaf = tree.leaf_triangles(i);
                let c0 = c(leaf[0]);
                assert!(
                    leaf.iter().all(|&t| c(t).abs_diff_eq(c0, eps)),
                    "leaf {i} divisible"
                );
            }
        }
    }

    #[test]
    fn node_size() {
        assert_eq!(std::mem::size_of::<ObbNode>(), 48);
        assert_eq!(std::mem::size_of::<Obb>(), 60);
    }

    #[test]
    fn torus_trees_are_valid() {
        let (pos, tris) = torus(40, 24);
        for rule in [SplitRule::Mean, SplitRule::Median] {
            for leaf in [0, 1, 4, 16] {
                for hull_min in [1, 64, usize::MAX] {
                    let opts = ObbTreeOptions {
                        rule,
                        leaf_size: leaf,
                        hull_min_triangles: hull_min,
                    };
                    let tree = ObbTree::build_with(&pos, &tris, &opts);
                    validate(&tree, &pos, &tris, leaf);
                    let mesh = TriMesh::new(pos.clone(), tris.clone()).expect("mesh");
                    tree.validate(&mesh).expect("unit quaternions, boxes hold");
                    if leaf <= 1 {
                        assert_eq!(tree.nodes.len(), 2 * tris.len() - 1);
                    }
                    if rule == SplitRule::Median {
                        let levels =
                            (tris.len().div_ceil(leaf.max(1)) as f64).log2().ceil() as usize + 1;
                        assert_eq!(tree.depth(), levels);
                    }
                }
            }
        }
    }

    /// A node whose quaternion is not a unit one (its axes no rotation)
    /// is refused: the traversals' rounding bounds assume unit ones.
    #[test]
    fn non_unit_node_rotations_are_refused() {
        let (pos, tris) = torus(12, 8);
        let mesh = TriMesh::new(pos.clone(), tris.clone()).expect("mesh");
        let mut tree = ObbTree::build(&pos, &tris, SplitRule::Mean, 1);
        tree.validate(&mesh).expect("valid");
        tree.nodes[3].rotation *= 1.0001;
        assert_eq!(
            tree.validate(&mesh),
            Err(BvhError::NotContained { node: 3 })
        );
    }

    #[test]
    fn root_box_is_tight_for_a_box_mesh() {
        // 12 triangles of a rotated 1 x 2 x 4 box: the root is the box itself.
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7);
        let h = Vec3::new(0.5, 1.0, 2.0);
        let pos: Vec<Vec3> = (0..8)
            .map(|i| {
                let s = Vec3::new(
                    if i & 1 == 0 { -1.0 } else { 1.0 },
                    if i & 2 == 0 { -1.0 } else { 1.0 },
                    if i & 4 == 0 { -1.0 } else { 1.0 },
                );
                Vec3::new(5.0, 6.0, 7.0) + q * (s * h)
            })
            .collect();
        let tris = [
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ];
        let tree = ObbTree::build(&pos, &tris, SplitRule::Mean, 1);
        validate(&tree, &pos, &tris, 1);
        // The root (12 triangles) is below the hull threshold: triangle
        // covariance. With the hull everywhere, the same.
        for hull_min in [1, usize::MAX] {
            let opts = ObbTreeOptions {
                hull_min_triangles: hull_min,
                ..Default::default()
            };
            let tree = ObbTree::build_with(&pos, &tris, &opts);
            let v = tree.node_obb(0).volume();
            assert!((v / 8.0 - 1.0).abs() < 1e-4, "{v}");
        }
    }

    #[test]
    fn duplicate_and_degenerate_triangles() {
        let (pos, mut tris) = torus(8, 6);
        let base = tris.len() as u32;
        // Duplicates (same and permuted indices), zero-area triangles
        // (repeated vertex, collinear), and a far-away duplicate cluster.
        for k in 0..10 {
            tris.push(tris[k]);
            tris.push(tris[k]);
            let [a, b, c] = tris[k];
            tris.push([b, c, a]);
            tris.push([a, a, a]);
            tris.push([a, a, b]);
        }
        for _ in 0..50 {
            tris.push([0, 0, 0]);
        }
        let mut pos = pos;
        let p = pos.len() as u32;
        pos.extend([
            Vec3::splat(100.0),
            Vec3::splat(100.0),
            Vec3::new(100.0, 100.0, 101.0),
        ]);
        for _ in 0..20 {
            tris.push([p, p + 1, p + 2]);
        }
        assert!(tris.len() as u32 > base);
        for rule in [SplitRule::Mean, SplitRule::Median] {
            for leaf in [1, 3] {
                for hull_min in [1, 64] {
                    let opts = ObbTreeOptions {
                        rule,
                        leaf_size: leaf,
                        hull_min_triangles: hull_min,
                    };
                    let tree = ObbTree::build_with(&pos, &tris, &opts);
                    validate(&tree, &pos, &tris, leaf);
                    let mesh = TriMesh::new(pos.clone(), tris.clone()).expect("mesh");
                    tree.validate(&mesh).expect("unit quaternions, boxes hold");
                }
            }
        }
    }

    #[test]
    fn all_identical_and_flat_and_tiny_inputs() {
        // Every triangle identical: one leaf.
        let pos = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
        let tris = vec![[0, 1, 2]; 100];
        let tree = ObbTree::build(&pos, &tris, SplitRule::Mean, 1);
        validate(&tree, &pos, &tris, 1);
        assert_eq!(tree.nodes.len(), 1);
        assert_eq!(tree.depth(), 1);
        // All triangles collapsed to one point.
        let tris = vec![[0, 0, 0]; 7];
        let tree = ObbTree::build(&pos, &tris, SplitRule::Median, 1);
        validate(&tree, &pos, &tris, 1);
        // A flat grid (no 3D hull anywhere).
        let mut pos = Vec::new();
        let mut tris = Vec::new();
        for i in 0..30 {
            for j in 0..30 {
                pos.push(Vec3::new(i as f32, 0.5, j as f32 * 0.7));
            }
        }
        for i in 0..29u32 {
            for j in 0..29u32 {
                let a = i * 30 + j;
                tris.push([a, a + 30, a + 31]);
                tris.push([a, a + 31, a + 1]);
            }
        }
        for rule in [SplitRule::Mean, SplitRule::Median] {
            let opts = ObbTreeOptions {
                rule,
                leaf_size: 1,
                hull_min_triangles: 1,
            };
            let tree = ObbTree::build_with(&pos, &tris, &opts);
            validate(&tree, &pos, &tris, 1);
            assert!(tree.node_obb(0).half_extents.min_element() < 1e-4);
        }
        // Empty and single-triangle trees.
        let tree = ObbTree::build(&pos, &[], SplitRule::Mean, 1);
        assert!(tree.nodes.is_empty() && tree.order.is_empty());
        assert_eq!(tree.depth(), 0);
        let tree = ObbTree::build(&pos, &tris[..1], SplitRule::Mean, 1);
        validate(&tree, &pos, &tris[..1], 1);
        assert_eq!(tree.depth(), 1);
    }

    #[test]
    fn skewed_tree() {
        // Triangles at exponentially spaced positions: the mean split peels
        // off a few triangles per level (a lopsided, deep tree).
        let mut pos = Vec::new();
        let mut tris = Vec::new();
        for k in 0..2500u32 {
            let x = 1.03f32.powi(k as i32);
            pos.extend([
                Vec3::new(x, 0.0, 0.0),
                Vec3::new(x, 1.0, 0.0),
                Vec3::new(x, 0.0, 1.0),
            ]);
            tris.push([3 * k, 3 * k + 1, 3 * k + 2]);
        }
        let tree = ObbTree::build(&pos, &tris, SplitRule::Mean, 1);
        validate(&tree, &pos, &tris, 1);
        println!("deep tree: depth {}", tree.depth());
        // Twice a balanced tree's 13 levels (it has 30 or so; the exact
        // count moves with the last bits of the node axes).
        assert!(tree.depth() > 26);
    }

    #[test]
    fn non_finite_positions_do_not_hang() {
        let (mut pos, tris) = torus(6, 5);
        pos[3] = Vec3::NAN;
        pos[7] = Vec3::INFINITY;
        for rule in [SplitRule::Mean, SplitRule::Median] {
            let tree = ObbTree::build(&pos, &tris, rule, 1);
            assert_eq!(tree.order.len(), tris.len());
            assert!(tree.nodes.iter().all(|n| n.center.is_finite()));
        }
    }

    /// Sum of internal-node volumes: a quality proxy (lower is tighter).
    fn internal_volume(tree: &ObbTree) -> f64 {
        tree.nodes
            .iter()
            .filter(|n| !n.is_leaf())
            .map(|n| n.obb().volume() as f64)
            .sum()
    }

    #[test]
    #[ignore = "timing; run with --release -- --ignored --nocapture"]
    fn timing_100k() {
        let (pos, tris) = torus(250, 200);
        assert_eq!(tris.len(), 100_000);
        let mut best = f64::INFINITY;
        let mut tree = ObbTree::default();
        for _ in 0..3 {
            let t0 = Instant::now();
            tree = ObbTree::build(&pos, &tris, SplitRule::Mean, 1);
            best = best.min(t0.elapsed().as_secs_f64());
        }
        println!(
            "default build (mean, leaf 1): {:.1} ms, {} nodes, depth {}, internal volume {:.4}",
            best * 1e3,
            tree.nodes.len(),
            tree.depth(),
            internal_volume(&tree)
        );
        validate(&tree, &pos, &tris, 1);
        let mut reference = None;
        for hull_min in [usize::MAX, 16_384, 8192, 4096, 1024, 64, 1] {
            for rule in [SplitRule::Mean, SplitRule::Median] {
                let opts = ObbTreeOptions {
                    rule,
                    leaf_size: 1,
                    hull_min_triangles: hull_min,
                };
                let mut best = f64::INFINITY;
                let mut tree = ObbTree::default();
                for _ in 0..3 {
                    let t0 = Instant::now();
                    tree = ObbTree::build_with(&pos, &tris, &opts);
                    best = best.min(t0.elapsed().as_secs_f64());
                }
                let vol = internal_volume(&tree);
                let base = *reference.get_or_insert(vol);
                println!(
                    "hull_min {hull_min:>20} {rule:?}: {:7.1} ms, depth {}, internal volume {:.4} (x{:.3})",
                    best * 1e3,
                    tree.depth(),
                    vol,
                    vol / base
                );
            }
        }
    }
}
