//! The top-down build of [`AabbTree`](super::AabbTree) (the split rule is
//! described in [`super::aabb_tree`]; van den Bergen, *Efficient collision
//! detection of complex deformable models using AABB trees*, JGT 1997).
//!
//! How the loop is organised:
//!
//! - **Records, not indices.** The build partitions one array of 16-byte
//!   records (a primitive's center and index), so a selection compares keys
//!   in place, without a lookup per comparison. The records are aligned so
//!   that the bounds fold loads a center as one 4-lane vector.
//! - **Keys compare with `<`.** NaN centers (from NaN boxes: the tree then
//!   fails validation) are read as 0 when the records are made, so `<` is a
//!   total order on the keys (`f32::total_cmp` turns both keys into
//!   integers at every comparison).
//! - **The center bounds fold keeps four running bounds**, not one chain of
//!   dependent `min`/`max` (latency, not work, was that chain's cost).
//! - **The bottom of the tree is cheap.** Half the splits of a tree with one
//!   primitive per leaf are pairs, which both rules split one and one along
//!   any axis where their centers differ: a pair is split as it lies
//!   (neither child need be the lower one), unless both centers coincide
//!   (then it is a leaf, as the rule says). A side of at most `leaf_size`
//!   primitives is a leaf at once.
//! - **Nodes are numbered breadth first**: the loop walks the node array
//!   itself, splitting each node that holds too many primitives, and its
//!   children are appended at the end. The refit's reverse pass then
//!   meets a node a whole level after its children, not one or two
//!   iterations after the child it was numbered next to, as on a
//!   depth-first spine.
//! - **Small groups are sorted**, not selected ([`super::record_sort`]:
//!   sorting networks for 4, 8 and 16 records); larger groups take the
//!   standard library's selection (`select_nth_unstable_by`), whose
//!   in-place partition is cheaper than the alternatives measured.
//!
//! Why not a quickselect of our own, a counting selection, Floyd–Rivest or
//! presorted lists: see `docs/notes/EXPERIMENTS.md#aabb-build`.

use std::cmp::Ordering;

use glam::{Vec3, Vec3A, Vec4};

use super::aabb_tree::{AabbNode, AabbTree};
use super::obb_tree::SplitRule;
use super::record_sort::{Record, SMALL_SORT_MAX, sort_small};
use crate::math::Aabb;

/// The tree's nodes and primitive order (boxes left empty), top-down over
/// the primitives' centers.
pub(super) fn topology(
    centers: impl ExactSizeIterator<Item = Vec3>,
    rule: SplitRule,
    leaf_size: usize,
) -> AabbTree {
    let mut tree = AabbTree {
        nodes: Vec::new(),
        order: Vec::new(),
    };
    topology_into(centers, rule, leaf_size, &mut Vec::new(), &mut tree);
    tree
}

/// [`topology`] into `tree`, whose buffers are reused, with `records` as
/// the records' buffer (left filled): with buffers large enough from an
/// earlier build, nothing is allocated.
pub(super) fn topology_into(
    centers: impl ExactSizeIterator<Item = Vec3>,
    rule: SplitRule,
    leaf_size: usize,
    records: &mut Vec<Record>,
    tree: &mut AabbTree,
) {
    let n = centers.len();
    records.clear();
    records.extend(centers.enumerate().map(|(index, center)| Record {
        center: Vec3::select(center.cmpeq(center), center, Vec3::ZERO),
        index: index as u32,
    }));
    let (nodes, order) = (&mut tree.nodes, &mut tree.order);
    nodes.clear();
    nodes.reserve(2 * n);
    order.clear();
    if n == 0 {
        return;
    }
    let leaf_size = leaf_size.max(1);
    nodes.push(leaf(0, n));
    // The node array is its own queue: every node is visited once, in the
    // order it was appended, and a node still holding more than `leaf_size`
    // primitives is split. Nodes are thus numbered breadth first.
    for at in 0.. {
        let Some(&node) = nodes.get(at) else { break };
        let (start, count) = (node.first as usize, node.count as usize);
        if count <= leaf_size {
            continue; // small enough: a leaf
        }
        let end = start + count;
        let Some(mid) = split(&mut records[start..end], rule) else {
            continue; // no axis divides it: it stays a leaf
        };
        nodes[at] = inner(nodes.len());
        for (s, e) in [(start, start + mid), (start + mid, end)] {
            nodes.push(leaf(s, e - s));
        }
    }
    order.extend(records.iter().map(|r| r.index));
}

fn leaf(first: usize, count: usize) -> AabbNode {
    AabbNode {
        aabb: Aabb::EMPTY,
        first: first as u32,
        count: count as u32,
    }
}

fn inner(first: usize) -> AabbNode {
    leaf(first, 0)
}

/// Splits `group` (at least two records) across the longest axis of its
/// centers' bounds (then the others), moving the lower side to the front;
/// returns its length, or `None` when no axis divides the group (all
/// centers equal). A pair is the exception: it is left as it lies.
fn split(group: &mut [Record], rule: SplitRule) -> Option<usize> {
    if let [a, b] = group {
        // Two distinct centers differ along some axis, and both rules split
        // them one and one along it; which child is which does not matter
        // (nothing reads the children's order), so no axis is computed.
        return (a.center != b.center).then_some(1);
    }
    let (lo, hi) = center_bounds(group);
    let extent = Vec3::from(hi - lo);
    for k in longest_first(extent) {
        if extent[k].is_nan() || extent[k] <= 0.0 {
            continue;
        }
        let mid = match rule {
            SplitRule::Median => {
                let mid = group.len() / 2;
                select_nth(group, k, mid);
                mid
            }
            SplitRule::Mean => {
                let mean = group.iter().map(|r| r.center[k]).sum::<f32>() / group.len() as f32;
                partition_below(group, |_, r| r.center[k] < mean)
            }
        };
        if mid > 0 && mid < group.len() {
            return Some(mid);
        }
    }
    None
}

/// Puts the record of rank `nth` along axis `k` at `nth`, the records
/// below it before and those above after: small groups sorted
/// ([`sort_small`]), larger ones by the standard selection with one
/// comparison per axis (so that its inner loop has no axis index).
fn select_nth(group: &mut [Record], k: usize, nth: usize) {
    if group.len() <= SMALL_SORT_MAX {
        sort_small(group, k);
    } else {
        match k {
            0 => _ = group.select_nth_unstable_by(nth, |a, b| by(a.center.x, b.center.x)),
            1 => _ = group.select_nth_unstable_by(nth, |a, b| by(a.center.y, b.center.y)),
            _ => _ = group.select_nth_unstable_by(nth, |a, b| by(a.center.z, b.center.z)),
        }
    }
}

/// The bounds of the records' centers, with four running bounds so that
/// the fold is not one chain of dependent `min`s. A record is read as one
/// 16-byte vector ([`Record::lanes`]; its last lane, the index, is
/// ignored): a `Vec3A` from the center took three loads and shuffles.
/// Alternated six times (best of 100 in the bench's worker-thread loop):
/// 2.47–2.92 ms, median 2.54, against 2.58–2.65, median 2.60.
fn center_bounds(group: &[Record]) -> (Vec3A, Vec3A) {
    let mut lo = [Vec4::INFINITY; 4];
    let mut hi = [Vec4::NEG_INFINITY; 4];
    let chunks = group.chunks_exact(4);
    let rest = chunks.remainder();
    for chunk in chunks {
        for k in 0..4 {
            let c = chunk[k].lanes();
            lo[k] = lo[k].min(c);
            hi[k] = hi[k].max(c);
        }
    }
    for (k, r) in rest.iter().enumerate() {
        let c = r.lanes();
        lo[k] = lo[k].min(c);
        hi[k] = hi[k].max(c);
    }
    let lo = lo[0].min(lo[1]).min(lo[2].min(lo[3]));
    let hi = hi[0].max(hi[1]).max(hi[2].max(hi[3]));
    (lo.truncate().into(), hi.truncate().into())
}

/// The order of two keys that are not NaN. The selection only asks whether
/// a key is less than another, so this compiles to one `<`.
#[inline(always)]
fn by(a: f32, b: f32) -> Ordering {
    if a < b {
        Ordering::Less
    } else if b < a {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// The axes by decreasing `extent` (ties in axis order, NaN last), without
/// a sort call. The OBB build orders its box axes with it too.
pub(super) fn longest_first(extent: Vec3) -> [usize; 3] {
    let e = extent
        .to_array()
        .map(|x| if x.is_nan() { f32::NEG_INFINITY } else { x });
    let a = if e[0] >= e[1] { [0, 1] } else { [1, 0] };
    if e[2] > e[a[0]] {
        [2, a[0], a[1]]
    } else if e[2] > e[a[1]] {
        [a[0], 2, a[1]]
    } else {
        [a[0], a[1], 2]
    }
}

/// Moves the elements for which `below` holds to the front (Lomuto's
/// partition); returns how many there are. `below` gets each element with
/// its position before the partition: every write so far has touched only
/// positions before `j`, so the element at `j` is still the one that
/// started there (the OBB build reads keys kept by position). When no
/// element or every element is below, nothing moves.
///
/// Without a branch on `below`: every element is swapped with the first
/// one not below, and the count advances by `below`'s answer (a branch
/// here mispredicted on keys that alternate, as a grid's do: the cloth's
/// OBB build best of 100 10.06–10.31 → 9.56–9.65 ms; the torus's, whose
/// keys come in long runs, 8.95–9.02 → 9.16–9.28; a throwaway program
/// timing builds in a loop, binaries alternated). With none below, that
/// rotates the group by one, which is undone.
pub(super) fn partition_below<T: Copy>(
    group: &mut [T],
    below: impl Fn(usize, &T) -> bool,
) -> usize {
    let mut i = 0;
    for j in 0..group.len() {
        let x = group[j];
        let b = below(j, &x);
        group[j] = group[i];
        group[i] = x;
        i += usize::from(b);
    }
    if i == 0 && !group.is_empty() {
        group.rotate_left(1);
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    #[test]
    fn partition_below_by_position() {
        // Against a filter: the front holds exactly the elements whose
        // flag (read by their position before the partition) is set, the
        // back the others; with none or all set, nothing moves.
        let mut rng = Rng::new(4);
        for n in [0, 1, 2, 3, 7, 64] {
            for p in [0.0, 0.1, 0.5, 0.9, 1.0] {
                let flags: Vec<bool> = (0..n).map(|_| rng.f32() < p).collect();
                let start: Vec<u32> = (0..n as u32).map(|v| v * 7 % 64).collect();
                let mut group = start.clone();
                let i = partition_below(&mut group, |j, &v| {
                    assert_eq!(v, start[j], "element {j} moved before it was read");
                    flags[j]
                });
                let mut want: Vec<Vec<u32>> = [true, false]
                    .map(|f| {
                        (0..n)
                            .filter(|&j| flags[j] == f)
                            .map(|j| start[j])
                            .collect()
                    })
                    .into();
                let mut got = vec![group[..i].to_vec(), group[i..].to_vec()];
                for side in want.iter_mut().chain(got.iter_mut()) {
                    side.sort_unstable();
                }
                assert_eq!(got, want, "n {n}, p {p}");
                if i == 0 || i == n {
                    assert_eq!(group, start, "n {n}, p {p}: nothing moves");
                }
            }
        }
    }

    #[test]
    fn any_rule_leaf_size_and_center_gives_a_valid_tree() {
        // Coarse centers (duplicates), with NaN, ±∞ and ±0 mixed in.
        let mut rng = Rng::new(21);
        let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0];
        for n in [0, 1, 2, 3, 4, 17, 200] {
            let centers: Vec<Vec3> = (0..n)
                .map(|_| {
                    let mut c = (rng.in_cube(3.0)).round();
                    if rng.f32() < 0.2 {
                        c[rng.below(3)] = special[rng.below(special.len())];
                    }
                    c
                })
                .collect();
            for rule in [SplitRule::Median, SplitRule::Mean] {
                for leaf_size in [0, 1, 2, 3, 5, 17, 1_000_000] {
                    let tree = topology(centers.iter().copied(), rule, leaf_size);
                    tree.validate_layout(n).expect("every primitive once");
                    if rule == SplitRule::Median {
                        check_leaves(&tree, &centers, leaf_size.max(1));
                    }
                }
            }
        }
    }

    /// Median rule: a leaf holds at most `leaf_size` primitives unless their
    /// centers (NaN read as 0) are all equal.
    fn check_leaves(tree: &AabbTree, centers: &[Vec3], leaf_size: usize) {
        let key = |p: u32| {
            let c = centers[p as usize];
            Vec3::select(c.cmpeq(c), c, Vec3::ZERO)
        };
        for node in tree.nodes.iter().filter(|n| n.count > 0) {
            let range = node.first as usize..(node.first + node.count) as usize;
            let group = &tree.order[range];
            let same = group.iter().all(|&p| key(p) == key(group[0]));
            assert!(group.len() <= leaf_size || same, "leaf of {}", group.len());
        }
    }

    #[test]
    fn center_bounds_equal_a_plain_fold() {
        let mut rng = Rng::new(3);
        for n in 1..40 {
            let group: Vec<Record> = (0..n)
                .map(|i| Record {
                    center: rng.in_cube(5.0),
                    index: i,
                })
                .collect();
            let want = group
                .iter()
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), r| {
                    (lo.min(r.center), hi.max(r.center))
                });
            let (lo, hi) = center_bounds(&group);
            assert_eq!((Vec3::from(lo), Vec3::from(hi)), want, "n = {n}");
        }
    }

    #[test]
    fn nodes_are_numbered_breadth_first() {
        // What the refit's speed relies on (module docs): a node's depth
        // never decreases along the array, so every node comes at least a
        // level before its children. Odd counts and a leaf size of 3 make
        // leaves at two depths.
        let mut rng = Rng::new(4);
        for (n, leaf_size) in [(1000, 1), (777, 3), (33, 1)] {
            let centers: Vec<Vec3> = (0..n).map(|_| rng.in_cube(5.0)).collect();
            let tree = topology(centers.iter().copied(), SplitRule::Median, leaf_size);
            let mut depth = vec![0; tree.nodes.len()];
            for (i, node) in tree.nodes.iter().enumerate() {
                if node.count == 0 {
                    let f = node.first as usize;
                    (depth[f], depth[f + 1]) = (depth[i] + 1, depth[i] + 1);
                }
            }
            assert!(depth.windows(2).all(|w| w[0] <= w[1]), "n = {n}");
            assert!(depth.last() > Some(&1), "n = {n}: a tree of several levels");
        }
    }

    #[test]
    fn groups_split_at_the_median_of_the_longest_axis() {
        // Against a direct computation at every inner node: the longest
        // axis of the centers' bounds, then the lower half along it (keys
        // on a coarse grid, so there are ties).
        let mut rng = Rng::new(8);
        for n in [2, 3, 4, 17, 200, 1000] {
            let centers: Vec<Vec3> = (0..n)
                .map(|_| (rng.in_cube(4.0) * 2.0).round() * Vec3::new(1.0, 0.5, 0.25))
                .collect();
            let tree = topology(centers.iter().copied(), SplitRule::Median, 1);
            tree.validate_layout(n).expect("layout");
            check_node(&tree, &centers, 0);
        }
    }

    /// The primitives under node `i`; checks the node's split.
    fn check_node(tree: &AabbTree, centers: &[Vec3], i: usize) -> Vec<u32> {
        let node = tree.nodes[i];
        let c = |p: u32| centers[p as usize];
        if node.count > 0 {
            let range = node.first as usize..(node.first + node.count) as usize;
            let group = tree.order[range].to_vec();
            assert!(group.iter().all(|&p| c(p) == c(group[0])), "leaf {i}");
            return group;
        }
        let lower = check_node(tree, centers, node.first as usize);
        let upper = check_node(tree, centers, node.first as usize + 1);
        assert_eq!(lower.len(), (lower.len() + upper.len()) / 2, "median");
        let all = lower.iter().chain(&upper);
        let (lo, hi) = all.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| {
            (lo.min(c(p)), hi.max(c(p)))
        });
        if lower.len() + upper.len() > 2 {
            let k = longest_first(hi - lo)[0];
            let below = lower
                .iter()
                .map(|&p| c(p)[k])
                .fold(f32::NEG_INFINITY, f32::max);
            let above = upper.iter().map(|&p| c(p)[k]).fold(f32::INFINITY, f32::min);
            assert!(below <= above, "node {i} split along axis {k}");
        }
        lower.into_iter().chain(upper).collect()
    }
}
