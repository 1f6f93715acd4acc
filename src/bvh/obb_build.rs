//! The top-down build loop of [`ObbTree`] (the method is described in
//! [`super::obb_tree`]).
//!
//! How the loop is organised:
//!
//! - **Moments flow down the stack.** A group's area-weighted moments (for
//!   its axes) are summed when its parent is split, from per-triangle
//!   moments computed once; sides of at most `leaf_size` triangles need
//!   none. (Summing one side and subtracting it from the parent's halves
//!   the additions, but measured no faster and loses the small side's
//!   covariance to cancellation on meshes spanning many magnitudes.)
//! - **No point buffer, no per-vertex bookkeeping.** The axes are known
//!   before the group's vertices are visited, so every triangle's three
//!   corners are projected on them as they are read, four lanes at a time
//!   ([`AxisExtents`]); a shared vertex is projected more than once, which
//!   gives the same extremes without the per-visit stamp that used to skip
//!   repeats (a load, a store and a branch per corner). Finiteness is checked once per build, not per corner.
//! - **Axes in `f32` when the covariance allows.** A node's covariance is
//!   summed and centred in `f64`, then diagonalised in closed form in
//!   `f32` ([`principal_axes_f32`](crate::math::eigen::principal_axes_f32)),
//!   and in `f64` only when two eigenvalues nearly coincide.
//! - **Leaves skip the general path.** A single triangle's box comes from
//!   its three corners and [`triangle_axes`] (no eigen-solve).
//!
//! Where the time goes (32k-triangle torus, the `solid` bench's `build`
//! scene on the 2-core machine, 2026-11-25): 29.2 and 31.6 ms in two runs,
//! 33.9 and 34.9 ms before the changes above (parry3d's `TriMesh::new`
//! 9.8–11.2 ms in the same runs); a callgrind count of one build, 141 M
//! instructions against 184 M before. In a `perf` profile the node axes
//! (covariance and eigenvectors) take about 20 % of the time, the leaves (axes, quaternion, extents) about 15 %, the per-level
//! passes over each group (projecting corners, the mean, the partition, the
//! children's moments) about half, and first-touch page faults of the
//! build's arrays about 5 %. No single hot spot is left: the 10 ms target
//! of issue 13 needs fewer passes over the triangles per level (a
//! structure-of-arrays layout permuted with the partition, so the moments
//! and corners are read in order) — fusing the sums into the partition was
//! tried and lost (22 accumulators spill from the registers).
//!
//! Groups of at least `hull_min_triangles` still collect their vertices
//! and fit on their convex hull (the paper's method), and groups whose
//! triangles all have zero area fit on the covariance of their vertices.

use glam::{DVec3, Mat3, Quat, Vec3};

use super::obb::{AxisExtents, Moments, Obb, bbox_middle, triangle_axes};
use super::obb_tree::{ObbNode, ObbTree, ObbTreeOptions, SplitRule};
use crate::shape::ConvexHull;

/// A group waiting to be fitted: node index, range of `order`, and its
/// triangles' moments (`None` when not needed: a leaf-size group).
struct Task {
    node: u32,
    start: usize,
    end: usize,
    moments: Option<Moments>,
}

/// The inputs and the scratch of one build.
struct Builder<'a> {
    positions: &'a [Vec3],
    triangles: &'a [[u32; 3]],
    options: ObbTreeOptions,
    origin: DVec3,
    centroids: Vec<Vec3>,
    moments: Vec<Moments>,
    /// Each vertex is stamped with the last visit that saw it.
    stamp: Vec<u32>,
    visit: u32,
    /// Whether every position is finite (the common case: no checks).
    all_finite: bool,
    pts: Vec<Vec3>,
}

const PLACEHOLDER: ObbNode = ObbNode {
    rotation: Quat::IDENTITY,
    center: Vec3::ZERO,
    half_extents: Vec3::ZERO,
    first: 0,
    count: 0,
};

/// Builds the tree; the caller has checked the indices and `n < 2³¹`, and
/// `triangles` is not empty.
pub(super) fn build(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    options: &ObbTreeOptions,
) -> ObbTree {
    let n = triangles.len();
    let mut b = Builder::new(positions, triangles, options);
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut nodes: Vec<ObbNode> = Vec::with_capacity(2 * n.div_ceil(b.options.leaf_size));
    nodes.push(PLACEHOLDER);
    let root = (n > b.options.leaf_size).then(|| b.sum(&order));
    let mut stack = vec![Task {
        node: 0,
        start: 0,
        end: n,
        moments: root,
    }];
    while let Some(task) = stack.pop() {
        let group = &mut order[task.start..task.end];
        let (rotation, obb) = b.fit(group, task.moments.as_ref());
        let split = task.moments.and_then(|_| b.split(group, &obb));
        let (first, count) = match split {
            Some((mid, lower, upper)) => {
                let first = nodes.len() as u32;
                nodes.push(PLACEHOLDER);
                nodes.push(PLACEHOLDER);
                let (start, end) = (task.start, task.end);
                stack.push(Task {
                    node: first + 1,
                    start: start + mid,
                    end,
                    moments: upper,
                });
                stack.push(Task {
                    node: first,
                    start,
                    end: start + mid,
                    moments: lower,
                });
                (first, 0)
            }
            None => (task.start as u32, group.len() as u32),
        };
        nodes[task.node as usize] = ObbNode {
            rotation,
            center: obb.center,
            half_extents: obb.half_extents,
            first,
            count,
        };
    }
    ObbTree { nodes, order }
}

impl<'a> Builder<'a> {
    /// Per-triangle centroids and surface moments, once.
    fn new(positions: &'a [Vec3], triangles: &'a [[u32; 3]], options: &ObbTreeOptions) -> Self {
        let (origin, finite) = bbox_middle(positions).unwrap_or((DVec3::ZERO, 0));
        let mut centroids = Vec::with_capacity(triangles.len());
        let mut moments = Vec::with_capacity(triangles.len());
        for t in triangles {
            let [p, q, r] = t.map(|i| positions[i as usize]);
            centroids.push((p + q + r) / 3.0);
            moments.push(if p.is_finite() && q.is_finite() && r.is_finite() {
                Moments::triangle(
                    p.as_dvec3() - origin,
                    q.as_dvec3() - origin,
                    r.as_dvec3() - origin,
                )
            } else {
                Moments::default()
            });
        }
        Self {
            positions,
            triangles,
            options: ObbTreeOptions {
                leaf_size: options.leaf_size.max(1),
                ..*options
            },
            origin,
            centroids,
            moments,
            stamp: vec![0; positions.len()],
            visit: 0,
            all_finite: finite == positions.len(),
            pts: Vec::new(),
        }
    }

    fn corners(&self, t: u32) -> [Vec3; 3] {
        self.triangles[t as usize].map(|v| self.positions[v as usize])
    }

    /// The moments of the triangles `group`.
    fn sum(&self, group: &[u32]) -> Moments {
        Moments::sum(group.iter().map(|&t| &self.moments[t as usize]))
    }

    /// The group's box (axes stored as a quaternion, extents measured on the
    /// decoded axes, so the node bounds exactly what was fitted).
    fn fit(&mut self, group: &[u32], moments: Option<&Moments>) -> (Quat, Obb) {
        if let [t] = group {
            let tri = self.corners(*t);
            if let Some(axes) = triangle_axes(tri) {
                // The corners are finite (the axes exist): no checks.
                let (rotation, axes) = quantized(axes);
                let mut ext = AxisExtents::new(axes, tri[0]);
                ext.add(tri[1]);
                ext.add(tri[2]);
                return (rotation, ext.finish());
            }
        }
        if group.len() >= self.options.hull_min_triangles {
            self.gather(group);
            if self.pts.len() >= 4
                && let Ok(hull) = ConvexHull::new(&self.pts)
            {
                let (rotation, axes) = quantized(Moments::of_hull(&hull, self.origin).axes());
                return (rotation, Obb::from_axes(axes, hull.vertices()));
            }
        }
        let covariance_axes = moments
            .copied()
            .or_else(|| Some(self.sum(group)))
            .filter(|m| m.covariance().is_some())
            .map(|m| m.axes());
        let axes = match covariance_axes {
            Some(axes) => axes,
            None => {
                // Zero area: the covariance of the vertices.
                self.gather(group);
                Moments::of_points(&self.pts, self.origin).axes()
            }
        };
        let (rotation, axes) = quantized(axes);
        (rotation, self.extents(group, axes))
    }

    /// A new stamp: vertices stamped with it have been seen in this visit.
    fn next_visit(&mut self) -> u32 {
        if self.visit == u32::MAX {
            self.stamp.fill(0);
            self.visit = 0;
        }
        self.visit += 1;
        self.visit
    }

    /// Collects the group's distinct finite vertices into `pts`.
    fn gather(&mut self, group: &[u32]) {
        self.pts.clear();
        let visit = self.next_visit();
        for &t in group {
            for v in self.triangles[t as usize] {
                if self.stamp[v as usize] != visit {
                    self.stamp[v as usize] = visit;
                    let p = self.positions[v as usize];
                    if p.is_finite() {
                        self.pts.push(p);
                    }
                }
            }
        }
    }

    /// The box with `axes` around the group's finite vertices: every
    /// triangle's corners are projected (a shared vertex more than once:
    /// the same extremes, without per-vertex bookkeeping to branch on).
    fn extents(&self, group: &[u32], axes: Mat3) -> Obb {
        let first = group
            .iter()
            .flat_map(|&t| self.corners(t))
            .find(|p| p.is_finite());
        let Some(first) = first else {
            return Obb::from_axes(axes, &[]);
        };
        let mut ext = AxisExtents::new(axes, first);
        for &t in group {
            for p in self.corners(t) {
                if self.all_finite || p.is_finite() {
                    ext.add(p);
                }
            }
        }
        ext.finish()
    }

    /// Splits a group of more than `leaf_size` triangles along the box's
    /// longest axis that divides it (then the second, the third): the lower
    /// side's length and both sides' moments (`None` for leaf-size sides).
    #[allow(clippy::type_complexity)]
    fn split(
        &self,
        group: &mut [u32],
        obb: &Obb,
    ) -> Option<(usize, Option<Moments>, Option<Moments>)> {
        let h = obb.half_extents;
        let mut by_length = [0usize, 1, 2];
        by_length.sort_by(|&i, &j| h[j].total_cmp(&h[i]));
        let mid = by_length
            .into_iter()
            .find_map(|k| partition(group, &self.centroids, obb.axes.col(k), self.options.rule))?;
        let (lower, upper) = group.split_at(mid);
        let leaf = self.options.leaf_size;
        let moments = |side: &[u32]| (side.len() > leaf).then(|| self.sum(side));
        Some((mid, moments(lower), moments(upper)))
    }
}

/// The axes stored as a unit quaternion, and the axes decoded from it.
fn quantized(fitted: Mat3) -> (Quat, Mat3) {
    let rotation = Quat::from_mat3(&fitted).normalize();
    let rotation = if rotation.is_finite() {
        rotation
    } else {
        Quat::IDENTITY
    };
    (rotation, Mat3::from_quat(rotation))
}

/// Splits `group` by the centroids' projections on `axis`: moves the lower
/// side to the front and returns its length, or `None` when a side would be
/// empty.
fn partition(group: &mut [u32], centroids: &[Vec3], axis: Vec3, rule: SplitRule) -> Option<usize> {
    let key = |t: u32| centroids[t as usize].dot(axis);
    let len = group.len();
    match rule {
        SplitRule::Mean => {
            let mean = (group.iter().map(|&t| f64::from(key(t))).sum::<f64>() / len as f64) as f32;
            let mut i = 0;
            for j in 0..len {
                if key(group[j]) < mean {
                    group.swap(i, j);
                    i += 1;
                }
            }
            (i > 0 && i < len).then_some(i)
        }
        SplitRule::Median => {
            let (lo, hi) = group
                .iter()
                .map(|&t| key(t))
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| {
                    (lo.min(x), hi.max(x))
                });
            if hi <= lo {
                return None;
            }
            let mid = len / 2;
            group.select_nth_unstable_by(mid, |&a, &b| key(a).total_cmp(&key(b)));
            Some(mid)
        }
    }
}
