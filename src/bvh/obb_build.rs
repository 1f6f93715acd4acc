//! The top-down build loop of [`ObbTree`] (the method is described in
//! [`super::obb_tree`]).
//!
//! How the loop is organised:
//!
//! - **Axes solved two at a time.** Per-triangle area-weighted moments are
//!   computed once, in `f32` (see *Memory* below). When a group is split,
//!   each side that will be split in turn has its moments summed and
//!   centred into a covariance in `f64`, which waits on the stack as six
//!   normalised `f32` entries. When a side comes off the stack, its axes
//!   and its sibling's are solved in one call, one per lane of `Vec4`s
//!   ([`principal_axes_lanes`]: Smith's eigenvalues in `f32`, eigenvectors
//!   from cross products; quaternions by [`rotations`]). The solve is one
//!   long chain of dependent square roots, divisions and trigonometry: side
//!   by side, the two chains overlap. A side the `f32` solve refuses (two
//!   eigenvalues nearly equal, or a flat spectrum) sums its moments again
//!   when it is fitted and takes the `f64` solve.
//! - **One pass per group for the box and the split's keys.** The axes
//!   are known before the group's triangles are visited, so every
//!   triangle's three corners (loaded as `Vec3A`, one load each) are
//!   projected on them as they are read, four lanes at a time
//!   ([`AxisExtents`]; a shared vertex is projected more than once, which
//!   gives the same extremes without a per-vertex stamp). The same pass
//!   keeps each triangle's summed projections ([`Keys`]): the mean-rule
//!   split reads its keys from there by position, with no centroid array
//!   and no second projection. Finiteness is checked once per build, not
//!   per corner.
//! - **Leaves, pairs and triples after the topology, four at a time**
//!   ([`small`]): their boxes need no moments and no eigen-solve, so
//!   they wait until the splits are done and are fitted one per lane.
//!
//! **Memory.** A build's scratch and its tree must stay under glibc's heap
//! trim threshold, or every build on the main thread gives its pages back
//! to the kernel and faults them in again at the next one. So the
//! per-triangle moments are kept and computed in `f32`
//! ([`RoundedMoments`], 40 bytes instead of 80) and summed in `f32` over
//! runs of four, the runs in `f64` ([`Moments::sum_rounded`]); and the
//! single-triangle leaves of pairs are fitted with their pair instead of
//! waiting in a list. The rounding errs by a few `f32` ulps of the second
//! moments about the origin; where that is not small against the group's
//! variance (a group small against its distance from the mesh's middle:
//! [`Moments::rounding_negligible`]), the group's moments are computed
//! again from its corners in `f64` (the trees' box-test counts moved by at
//! most 0.03 % against `f64` moments).
//!
//! The figures behind these choices, and what was measured and not kept
//! (summing one side and subtracting it from the parent's, prefetching the
//! corners, central `f32` moments, fitting leaves as soon as four wait):
//! see `docs/notes/EXPERIMENTS.md#obb-build`.
//!
//! Groups of at least `hull_min_triangles` still collect their vertices
//! and fit on their convex hull (the paper's method), and groups whose
//! triangles all have zero area fit on the covariance of their vertices.

use glam::{DVec3, Mat3, Quat, Vec3, Vec3A, Vec4};

use super::aabb_build::{longest_first, partition_below};
use super::obb::{AxisExtents, Moments, Obb, RoundedMoments, bbox_middle};
use super::obb_leaves::{group_boxes, leaf_boxes, rotations};
use super::obb_tree::{ObbNode, ObbTree, ObbTreeOptions, SplitRule};
use crate::math::eigen::{normalized_entries, principal_axes_lanes};
use crate::shape::ConvexHull;

mod small;

/// A group waiting to be fitted: node index, range of `order`, and what
/// its parent's split computed for it.
struct Task {
    node: u32,
    start: usize,
    end: usize,
    pending: Pending,
}

/// What the split of a group's parent leaves for it.
#[derive(Clone, Copy)]
enum Pending {
    /// A leaf-size group: it will not be split.
    Leaf,
    /// Two or three triangles (with one triangle per leaf): split at once
    /// (into two leaves, or a leaf and a pair), its box fitted at the end
    /// with the others of its size, four at a time ([`group_boxes`]).
    Small,
    /// A group to be split that fits on the covariance of its triangles,
    /// not yet solved: the covariance's [`normalized_entries`]. It is
    /// solved when it comes off the stack, together with its sibling
    /// ([`solve`]).
    Covariance([f32; 6]),
    /// A group to be split, with its covariance axes solved (stored as a
    /// quaternion).
    Axes(Quat),
    /// A group to be split whose axes the `f32` solve does not give: a
    /// hull-size group, triangles without area, or a spectrum too
    /// clustered or too flat for the `f32` closed form. [`Builder::fit`]
    /// sums its moments again and fits it the general way.
    Fit,
}

/// The inputs and the scratch of one build.
struct Builder<'a> {
    positions: &'a [Vec3],
    triangles: &'a [[u32; 3]],
    options: ObbTreeOptions,
    origin: DVec3,
    /// Triangle centroids, for the partitions that do not read `keys`
    /// (median rule, non-finite positions); empty otherwise.
    centroids: Vec<Vec3>,
    /// The group being split, its centroids on its box axes as the
    /// extents pass projected them (see [`Keys`]).
    keys: Keys,
    /// Per-triangle moments relative to `origin`, in `f32`.
    moments: Vec<RoundedMoments>,
    /// Each vertex is stamped with the last visit that saw it.
    stamp: Vec<u32>,
    visit: u32,
    /// Whether every position is finite (the common case: no checks).
    all_finite: bool,
    pts: Vec<Vec3>,
    /// Lone single-triangle leaves, pairs and triples waiting for their
    /// box (index: their number of triangles less one): node, first child
    /// (a leaf: its start in the order), start in the order. All a node
    /// needs: it is written, never read back. The children of pairs and
    /// triples that are single triangles are fitted with their parents.
    waiting: [Vec<[u32; 3]>; 3],
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
    let root = b.moments(&order);
    let mut stack = vec![Task {
        node: 0,
        start: 0,
        end: n,
        pending: b.pending(&order, root),
    }];
    while let Some(mut task) = stack.pop() {
        if let Pending::Covariance(entries) = task.pending {
            // The lower side comes off first; its sibling, if it waits
            // too, is on top of the stack.
            let sibling = stack
                .last_mut()
                .filter(|t| matches!(t.pending, Pending::Covariance(_)));
            solve(&mut task, entries, sibling);
        }
        let group = &mut order[task.start..task.end];
        let (rotation, obb) = b.fit(group, task.pending);
        let split = match task.pending {
            Pending::Leaf => None,
            _ => b.split(group, &obb),
        };
        let (first, count) = match split {
            Some((mid, lower, upper)) => {
                let first = nodes.len();
                let (start, end) = (task.start, task.end);
                let sides = [(start, start + mid, lower), (start + mid, end, upper)];
                // Leaf-size sides become leaves at once (a single
                // triangle's box waits for `fit_waiting`); the others
                // wait on the stack, the lower one on top.
                for (s, e, pending) in sides {
                    nodes.push(match pending {
                        Pending::Leaf => b.leaf(nodes.len(), &order[s..e], s),
                        _ => PLACEHOLDER,
                    });
                }
                for (child, &(s, e, pending)) in sides.iter().enumerate() {
                    if let Pending::Small = pending {
                        b.split_small(first + child, &mut nodes, &mut order[s..e], s);
                    }
                }
                for (child, (start, end, pending)) in sides.into_iter().enumerate().rev() {
                    if !matches!(pending, Pending::Leaf | Pending::Small) {
                        let node = (first + child) as u32;
                        stack.push(Task {
                            node,
                            start,
                            end,
                            pending,
                        });
                    }
                }
                (first as u32, 0)
            }
            None => (task.start as u32, group.len() as u32),
        };
        nodes[task.node as usize] = obb_node(rotation, &obb, first, count);
    }
    b.fit_waiting(&mut nodes, &order, group_boxes::<6>);
    b.fit_waiting(&mut nodes, &order, group_boxes::<9>);
    b.fit_waiting(&mut nodes, &order, leaf_boxes);
    ObbTree { nodes, order }
}

/// A triangle's moments relative to `origin` (none when a corner is not
/// finite).
fn triangle_moments([p, q, r]: [Vec3; 3], origin: DVec3) -> Moments {
    if p.is_finite() && q.is_finite() && r.is_finite() {
        Moments::triangle(
            p.as_dvec3() - origin,
            q.as_dvec3() - origin,
            r.as_dvec3() - origin,
        )
    } else {
        Moments::default()
    }
}

/// [`triangle_moments`] in `f32`, the origin rounded to `f32` (the
/// build's per-triangle table).
fn rounded_moments([p, q, r]: [Vec3; 3], origin: Vec3) -> RoundedMoments {
    if p.is_finite() && q.is_finite() && r.is_finite() {
        RoundedMoments::triangle(p - origin, q - origin, r - origin)
    } else {
        RoundedMoments::default()
    }
}

fn obb_node(rotation: Quat, obb: &Obb, first: u32, count: u32) -> ObbNode {
    ObbNode {
        rotation,
        center: obb.center,
        half_extents: obb.half_extents,
        first,
        count,
    }
}

impl<'a> Builder<'a> {
    /// Per-triangle surface moments (and centroids when the split does
    /// not use keys), once.
    fn new(positions: &'a [Vec3], triangles: &'a [[u32; 3]], options: &ObbTreeOptions) -> Self {
        let (origin, finite) = bbox_middle(positions).unwrap_or((DVec3::ZERO, 0));
        let all_finite = finite == positions.len();
        let by_keys = all_finite && options.rule == SplitRule::Mean;
        let mut centroids = Vec::with_capacity(if by_keys { 0 } else { triangles.len() });
        let mut moments = Vec::with_capacity(triangles.len());
        let o = origin.as_vec3();
        for t in triangles {
            let [p, q, r] = t.map(|i| positions[i as usize]);
            if !by_keys {
                centroids.push((p + q + r) / 3.0);
            }
            moments.push(rounded_moments([p, q, r], o));
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
            keys: Keys {
                by_keys,
                per_triangle: vec![Vec4::ZERO; if by_keys { triangles.len() } else { 0 }],
                positions: if by_keys {
                    positions.iter().map(|&p| p.into()).collect()
                } else {
                    Vec::new()
                },
                sums: DVec3::ZERO,
            },
            moments,
            stamp: vec![0; positions.len()],
            visit: 0,
            all_finite,
            // With one triangle per leaf most triangles end in pairs (at
            // most n / 2 of them); lone leaves (a split's side of one, not
            // a pair's or a triple's child) and triples are fewer.
            waiting: [
                Vec::new(),
                Vec::with_capacity(triangles.len() / 2),
                Vec::new(),
            ],
            pts: Vec::new(),
        }
    }

    #[inline]
    fn corners(&self, t: u32) -> [Vec3; 3] {
        let [a, b, c] = self.triangles[t as usize];
        let p = self.positions;
        [p[a as usize], p[b as usize], p[c as usize]]
    }

    /// The moments of the triangles `group`: summed from the rounded
    /// table, or computed again in `f64` from the corners when the
    /// rounding is not negligible (a group small against its distance
    /// from the origin).
    fn sum(&self, group: &[u32]) -> Moments {
        let rounded = Moments::sum_rounded(&self.moments, group);
        if rounded.rounding_negligible() {
            return rounded;
        }
        let mut exact = Moments::default();
        for &t in group {
            exact.add(&triangle_moments(self.corners(t), self.origin));
        }
        exact
    }

    /// Whether the group is a pair or a triple to be split into leaves:
    /// its box comes from [`group_boxes`].
    fn is_small(&self, group: &[u32]) -> bool {
        matches!(group.len(), 2 | 3)
            && self.options.leaf_size < 2
            && self.options.hull_min_triangles > group.len()
    }

    /// The moments of a group that will be split (more than `leaf_size`
    /// triangles) and is not small ([`Self::is_small`]), `None` otherwise.
    fn moments(&self, group: &[u32]) -> Option<Moments> {
        (group.len() > self.options.leaf_size && !self.is_small(group)).then(|| self.sum(group))
    }

    /// What a group with these `moments` (`None`: leaf-size or small)
    /// needs for its fit: its covariance, to be solved, when it fits on it.
    fn pending(&self, group: &[u32], moments: Option<Moments>) -> Pending {
        if self.is_small(group) {
            return Pending::Small;
        }
        let Some(moments) = moments else {
            return Pending::Leaf;
        };
        let entries = moments.covariance().and_then(|c| normalized_entries(&c));
        match entries {
            Some(e) if group.len() < self.options.hull_min_triangles => Pending::Covariance(e),
            _ => Pending::Fit,
        }
    }

    /// The group's box (axes stored as a quaternion, extents measured on
    /// the decoded axes, so the node bounds exactly what was fitted).
    /// Unless `pending` is a leaf (the group will be split), the extents
    /// pass also fills `keys` for the split when they are in use.
    fn fit(&mut self, group: &[u32], pending: Pending) -> (Quat, Obb) {
        let split = !matches!(pending, Pending::Leaf);
        if let Pending::Axes(rotation) = pending {
            return (
                rotation,
                self.fitted(group, Mat3::from_quat(rotation), true),
            );
        }
        if let [t] = group
            && let Some(leaf) = leaf_boxes([self.corners(*t); 4])[0]
        {
            return (leaf.rotation, leaf.obb());
        }
        if group.len() >= self.options.hull_min_triangles {
            self.gather(group);
            if self.pts.len() >= 4
                && let Ok(hull) = ConvexHull::new(&self.pts)
            {
                let (rotation, axes) = quantized(Moments::of_hull(&hull, self.origin).axes());
                return (rotation, self.fitted(group, axes, split));
            }
        }
        let covariance_axes = Some(self.sum(group))
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
        (rotation, self.fitted(group, axes, split))
    }

    /// The box with `axes` around the group; with `keys` in use and
    /// `split` (the group will be split), the keys too.
    fn fitted(&mut self, group: &[u32], axes: Mat3, split: bool) -> Obb {
        if split && self.keys.by_keys {
            self.extents_and_keys(group, axes)
        } else {
            self.extents(group, axes)
        }
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

    /// [`extents`](Self::extents) of a group of finite triangles that
    /// also records, for [`partition_by_keys`], each triangle's corner
    /// projections summed (three times its centroid on the axes, relative
    /// to the first corner) in `keys`, in the group's order, and their
    /// sums: the split then reads neither the centroids nor the axes again.
    fn extents_and_keys(&mut self, group: &[u32], axes: Mat3) -> Obb {
        let (triangles, positions) = (self.triangles, &self.keys.positions);
        let corners = |t: u32| triangles[t as usize].map(|v| positions[v as usize]);
        // A local box and local sums, written to a slice: the loop keeps
        // them in registers (through a `&mut` they were reloaded and
        // stored at every triangle).
        let mut ext = AxisExtents::new(axes, corners(group[0])[0].into());
        let keys = &mut self.keys.per_triangle[..group.len()];
        let mut sums = DVec3::ZERO;
        // Summed in f32 over short runs, then in f64: the mean stays
        // within a few f32 ulps of the keys' scale for any group size.
        for (run, out) in group.chunks(KEY_RUN).zip(keys.chunks_mut(KEY_RUN)) {
            let mut sum = Vec4::ZERO;
            for (&t, key) in run.iter().zip(out) {
                *key = ext.add_triangle(corners(t));
                sum += *key;
            }
            sums += sum.truncate().as_dvec3();
        }
        self.keys.sums = sums;
        ext.finish()
    }

    /// Splits a group of more than `leaf_size` triangles along the box's
    /// longest axis that divides it (then the second, the third): the lower
    /// side's length and what each side needs for its own fit.
    fn split(&self, group: &mut [u32], obb: &Obb) -> Option<(usize, Pending, Pending)> {
        // With keys in use, `fit` filled them for this group: every path
        // of a group to be split ends in `fitted(.., true)`.
        let mid = longest_first(obb.half_extents).into_iter().find_map(|k| {
            if self.keys.by_keys {
                partition_by_keys(group, &self.keys, k)
            } else {
                partition(group, &self.centroids, obb.axes.col(k), self.options.rule)
            }
        })?;
        let (lower, upper) = group.split_at(mid);
        // Both sums first, then both covariances: their divisions overlap.
        let (ml, mu) = (self.moments(lower), self.moments(upper));
        Some((mid, self.pending(lower, ml), self.pending(upper, mu)))
    }
}

/// Solves the covariance axes of `task` (its covariance's `entries`) and,
/// if it waits too, of its `sibling`, side by side in two lanes
/// ([`principal_axes_lanes`], quaternions by [`rotations`]). The solve is
/// one long chain of dependent square roots, divisions, `acos`, `cos` and
/// cross products: side by side, the two chains overlap. A side the `f32`
/// solve refuses becomes [`Pending::Fit`].
fn solve(task: &mut Task, entries: [f32; 6], sibling: Option<&mut Task>) {
    // Lanes without a group are NaN, which the solve drops early (a NaN's
    // `acos` and `cos` return at once).
    let mut lanes = [[f32::NAN; 6]; 4];
    lanes[0] = entries;
    if let Some(Task {
        pending: Pending::Covariance(e),
        ..
    }) = sibling.as_deref()
    {
        lanes[1] = *e;
    }
    let (axes, valid) = principal_axes_lanes(lanes);
    let q = rotations(axes);
    let valid = q.iter().fold(valid, |v, c| v & c.is_finite_mask());
    let solved = |lane: usize| {
        if valid.test(lane) {
            Pending::Axes(Quat::from_xyzw(
                q[0][lane], q[1][lane], q[2][lane], q[3][lane],
            ))
        } else {
            Pending::Fit
        }
    };
    task.pending = solved(0);
    if let Some(sibling) = sibling {
        sibling.pending = solved(1);
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

/// Triangles per run of the `f32` key sums in
/// [`Builder::extents_and_keys`].
const KEY_RUN: usize = 32;

/// What the extents pass of a group to be split leaves for the split
/// (mean rule, finite positions).
struct Keys {
    /// Whether the build splits by keys at all.
    by_keys: bool,
    /// Per position in the group: its triangle's corners projected on the
    /// box axes and summed (lane `k`: axis `k`).
    per_triangle: Vec<Vec4>,
    /// The positions, each in one 16-byte lane group: a corner is one load.
    positions: Vec<Vec3A>,
    /// The sums of `per_triangle`, per axis.
    sums: DVec3,
}

/// The mean-rule split along box axis `k` from the extents pass's keys,
/// read by position ([`partition_below`]): moves the triangles whose key
/// is below the mean to the front and returns their number, or `None`
/// when a side would be empty (then nothing moved, and the next axis reads
/// the same keys).
fn partition_by_keys(group: &mut [u32], keys: &Keys, k: usize) -> Option<usize> {
    let len = group.len();
    let mean = (keys.sums[k] / len as f64) as f32;
    let keys = &keys.per_triangle[..len];
    // One loop per axis: `keys[j][k]` with `k` unknown at compile time
    // was an indirect jump per triangle (glam's `Index` for `Vec4`).
    let i = match k {
        0 => partition_below(group, |j, _| keys[j].x < mean),
        1 => partition_below(group, |j, _| keys[j].y < mean),
        _ => partition_below(group, |j, _| keys[j].z < mean),
    };
    (i > 0 && i < len).then_some(i)
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
            let i = partition_below(group, |_, &t| key(t) < mean);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::obb_tree::DEFAULT_HULL_MIN_TRIANGLES;
    use crate::math::eigen::principal_axes_f32;
    use crate::shape::TriMesh;
    use crate::testkit::{Rng, grid, torus};

    /// The triangles under node `i`.
    fn under(tree: &ObbTree, i: usize) -> Vec<u32> {
        let node = tree.nodes[i];
        if node.count > 0 {
            return tree.leaf_triangles(i).to_vec();
        }
        let mut all = under(tree, node.first as usize);
        all.extend(under(tree, node.first as usize + 1));
        all
    }

    /// A jittered torus (no two triangles alike).
    fn jittered_torus() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut rng = Rng::new(5);
        let (mut pos, tris) = torus(1.0, 0.3, 24, 16);
        for p in &mut pos {
            *p += rng.in_cube(0.02);
        }
        (pos, tris)
    }

    fn build(pos: &[Vec3], tris: &[[u32; 3]], hull_min_triangles: usize) -> ObbTree {
        let options = ObbTreeOptions {
            rule: SplitRule::Mean,
            leaf_size: 1,
            hull_min_triangles,
        };
        ObbTree::build_with(pos, tris, &options)
    }

    #[test]
    fn mean_rule_splits_at_the_mean_along_the_longest_axis() {
        // Against a direct computation at every inner node: the centroids
        // projected on the node's longest box axis, their mean, and every
        // triangle of the lower child below it (up to rounding), every one
        // of the upper child above it. The build reads these keys from its
        // extents pass, in the group's order through the partition's swaps;
        // with a low hull threshold, on the hull's axes. (Pairs and triples
        // are split without keys: `small_groups_take_their_own_axes`.)
        let (pos, tris) = jittered_torus();
        let centroid = |t: u32| {
            tris[t as usize]
                .map(|v| pos[v as usize])
                .iter()
                .sum::<Vec3>()
                / 3.0
        };
        for hull_min in [DEFAULT_HULL_MIN_TRIANGLES, 64] {
            let tree = build(&pos, &tris, hull_min);
            let (mut checked, mut small) = (0, 0);
            for (i, node) in tree.nodes.iter().enumerate().filter(|(_, n)| n.count == 0) {
                if under(&tree, i).len() <= 3 {
                    small += 1;
                    continue;
                }
                let axes = Mat3::from_quat(node.rotation);
                let k = longest_first(node.half_extents)[0];
                let key = |t: u32| centroid(t).dot(axes.col(k));
                let (lower, upper) = (
                    under(&tree, node.first as usize),
                    under(&tree, node.first as usize + 1),
                );
                let all: Vec<f32> = lower.iter().chain(&upper).map(|&t| key(t)).collect();
                let (lo, hi) = all
                    .iter()
                    .fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
                let mean = all.iter().map(|&x| f64::from(x)).sum::<f64>() / all.len() as f64;
                let tol = 1e-4 * f64::from(hi - lo) + 1e-6;
                let side = |group: &[u32], below: bool| {
                    group.iter().all(|&t| {
                        let x = f64::from(key(t));
                        if below {
                            x < mean + tol
                        } else {
                            x > mean - tol
                        }
                    })
                };
                assert!(side(&lower, true), "node {i}: lower side");
                assert!(side(&upper, false), "node {i}: upper side");
                checked += 1;
            }
            assert_eq!(checked + small, tris.len() - 1, "every inner node seen");
            assert!(checked > tris.len() / 4, "{checked} nodes checked");
        }
    }

    /// Two copies of the jittered torus shrunk by `scale`, 2 apart: the
    /// origin (the middle of the bounding box) is far from both.
    fn far_tori(scale: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let (pos, tris) = jittered_torus();
        let n = pos.len() as u32;
        let place = |dx: f32| pos.iter().map(move |&p| p * scale + Vec3::X * dx);
        let both = place(-1.0).chain(place(1.0)).collect();
        let second = tris.iter().map(|t| t.map(|v| v + n));
        (both, tris.iter().copied().chain(second).collect())
    }

    #[test]
    fn inner_nodes_take_the_axes_of_their_own_triangles() {
        // Every node of four triangles or more whose spectrum the f32 solve
        // accepts has the covariance axes of its own triangles, computed
        // here in f64: siblings are solved in two lanes of one call (a
        // mix-up would give a node its sibling's), and the build sums
        // moments rounded to f32, or computes them again where the
        // rounding is not negligible. Far tori 10⁻³ across take that
        // second path (asserted), the plain torus the first. (Pairs and
        // triples: `small_groups_take_their_own_axes`.)
        for (mesh, (pos, tris)) in [("torus", jittered_torus()), ("far", far_tori(1e-3))] {
            let tree = build(&pos, &tris, DEFAULT_HULL_MIN_TRIANGLES);
            let (origin, _) = bbox_middle(&pos).expect("finite");
            let moments: Vec<Moments> = tris
                .iter()
                .map(|t| triangle_moments(t.map(|v| pos[v as usize]), origin))
                .collect();
            let rounded: Vec<RoundedMoments> = tris
                .iter()
                .map(|t| rounded_moments(t.map(|v| pos[v as usize]), origin.as_vec3()))
                .collect();
            let (mut checked, mut recomputed) = (0, 0);
            for (i, node) in tree.nodes.iter().enumerate().filter(|(_, n)| n.count == 0) {
                let group = under(&tree, i);
                if group.len() <= 3 {
                    continue;
                }
                let mut own = Moments::default();
                group.iter().for_each(|&t| own.add(&moments[t as usize]));
                let Some(want) = own.covariance().and_then(|c| principal_axes_f32(&c)) else {
                    continue;
                };
                recomputed +=
                    usize::from(!Moments::sum_rounded(&rounded, &group).rounding_negligible());
                let got = Mat3::from_quat(node.rotation);
                for k in 0..3 {
                    let cos = got.col(k).dot(want.col(k)).abs();
                    assert!(cos > 0.9999, "{mesh}: node {i}, axis {k}: cos {cos}");
                }
                checked += 1;
            }
            assert!(checked > tris.len() / 4, "{mesh}: {checked} nodes checked");
            match mesh {
                "torus" => assert_eq!(recomputed, 0, "{mesh}"),
                _ => assert!(
                    recomputed > checked / 2,
                    "{mesh}: {recomputed} of {checked}"
                ),
            }
        }
    }

    #[test]
    fn rounded_moments_keep_the_boxes_tight() {
        // On every node of four triangles or more that keeps the moments
        // summed in f32 (no f64 recompute), the axes those give against the
        // axes of f64 moments: the angle, and the volume of the group's box
        // on each (geometric mean of the ratio). Printed, and bounded: the
        // figures quoted at `ROUNDING_MARGIN` come from this test.
        let load = |name: &str| {
            let m = crate::io::load_obj(format!("assets/meshes/{name}")).expect("asset");
            (m.positions, m.triangles)
        };
        // The solid bench's cloth at t = 0.
        let cloth = grid(128, |x, z| 0.1 * (6.0 * x).sin() * (4.0 * z).cos());
        let meshes = [
            ("torus", torus(1.0, 0.2, 128, 128), 0, 1.002),
            ("wingnut", load("odedstein_wingnut.obj"), 0, 1.01),
            ("teapot", load("o3dv_utah_teapot.stl.obj"), 0, 1.01),
            ("cloth", cloth, 30, 1.002),
            ("fcl_env", load("fcl_env.obj"), 300, 1.01),
        ];
        for (mesh, (pos, tris), most_tilted, most_volume) in meshes {
            let (origin, _) = bbox_middle(&pos).expect("finite");
            let corners = |t: u32| tris[t as usize].map(|v| pos[v as usize]);
            let volume = |group: &[u32], axes: Mat3| -> f64 {
                let mut ext = AxisExtents::new(axes, corners(group[0])[0]);
                group
                    .iter()
                    .flat_map(|&t| corners(t))
                    .for_each(|p| ext.add(p));
                let h = ext.finish().half_extents.as_dvec3();
                (h.x + 1e-9) * (h.y + 1e-9) * (h.z + 1e-9)
            };
            let tree = ObbTree::build(&pos, &tris, SplitRule::Mean, 1);
            let (mut kept, mut recomputed, mut tilted, mut log_ratio) = (0, 0, 0, 0.0);
            for i in (0..tree.nodes.len()).filter(|&i| tree.nodes[i].count == 0) {
                let group = under(&tree, i);
                if group.len() <= 3 {
                    continue;
                }
                let mut exact = Moments::default();
                let mut rounded = Vec::new();
                for &t in &group {
                    exact.add(&triangle_moments(corners(t), origin));
                    rounded.push(rounded_moments(corners(t), origin.as_vec3()));
                }
                let positions: Vec<u32> = (0..group.len() as u32).collect();
                let summed = Moments::sum_rounded(&rounded, &positions);
                if !summed.rounding_negligible() {
                    recomputed += 1;
                    continue;
                }
                let (want, got) = (exact.axes(), summed.axes());
                let cos = (0..3)
                    .map(|k| got.col(k).dot(want.col(k)).abs())
                    .fold(1.0, f32::min);
                tilted += usize::from(cos < 0.5f32.to_radians().cos());
                log_ratio += (volume(&group, got) / volume(&group, want)).ln();
                kept += 1;
            }
            let ratio = (log_ratio / kept as f64).exp();
            println!(
                "{mesh}: {kept} nodes on f32 sums ({recomputed} recomputed in f64), {tilted} \
                 tilted over 0.5°, box volume x{ratio:.4} (geometric mean)"
            );
            assert!(tilted <= most_tilted, "{mesh}: {tilted} tilted");
            assert!(ratio <= most_volume, "{mesh}: volume x{ratio}");
            assert!(kept > tris.len() / 8, "{mesh}: {kept} kept");
        }
    }

    #[test]
    fn small_groups_take_their_own_axes() {
        // A node over two or three triangles (fitted four to a call, one
        // per lane: a mix-up would give a node another group's box) has
        // their summed normal as its third axis and, in that plane, a
        // rectangle around their corners no larger than along any of
        // their edges' projections (up to rounding); its box holds them
        // (`validate`). A triple's lone child is its triangle farthest from
        // the three's mean centroid.
        let (pos, tris) = jittered_torus();
        // A torus of 2^k triangles splits into pairs only: drop some.
        let tris: Vec<[u32; 3]> = tris
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % 7 != 3)
            .map(|(_, t)| t)
            .collect();
        let tree = build(&pos, &tris, DEFAULT_HULL_MIN_TRIANGLES);
        let mesh = TriMesh::new(pos.clone(), tris.clone()).expect("mesh");
        tree.validate(&mesh).expect("valid");
        let corners = |t: u32| tris[t as usize].map(|v| pos[v as usize]);
        let mut checked = [0; 2];
        for (i, node) in tree.nodes.iter().enumerate().filter(|(_, n)| n.count == 0) {
            let group = under(&tree, i);
            if !matches!(group.len(), 2 | 3) {
                continue;
            }
            let c: Vec<Vec3> = group.iter().flat_map(|&t| corners(t)).collect();
            let normal = |t: &[Vec3]| (t[1] - t[0]).cross(t[2] - t[0]);
            let n0 = normal(&c[..3]);
            let n = c
                .chunks(3)
                .map(normal)
                .fold(Vec3::ZERO, |n, nt| n + nt * n0.dot(nt).signum())
                .normalize();
            let axes = Mat3::from_quat(node.rotation);
            assert!(axes.z_axis.dot(n).abs() > 0.9999, "node {i}: normal");
            let area = |u: Vec3| {
                let span = |d: Vec3| {
                    let x = c.iter().map(|p| p.dot(d));
                    x.clone().fold(f32::MIN, f32::max) - x.fold(f32::MAX, f32::min)
                };
                span(u) * span(n.cross(u))
            };
            let got = area(axes.x_axis);
            let best = c
                .chunks(3)
                .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
                .filter_map(|(a, b)| (b - a).reject_from(n).try_normalize())
                .map(area)
                .fold(f32::MAX, f32::min);
            assert!(got <= best * 1.0001, "node {i}: area {got} against {best}");
            if let [lone, a, b] = group[..] {
                let centroid = |t: u32| corners(t).iter().sum::<Vec3>();
                let mean = (centroid(lone) + centroid(a) + centroid(b)) / 3.0;
                let d = |t: u32| centroid(t).distance_squared(mean);
                assert!(d(lone) >= d(a) && d(lone) >= d(b), "node {i}: lone child");
            }
            checked[group.len() - 2] += 1;
        }
        assert!(
            checked[0] > tris.len() / 8 && checked[1] > 10,
            "{checked:?} checked"
        );
    }
}
