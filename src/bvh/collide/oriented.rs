//! The RAPID traversal: oriented boxes, the relative pose of each node pair
//! from B's node box kept in A's frame on the stack (see the
//! [module docs](super)).
//!
//! A's box of a pair is grown by twice a pad derived from the two boxes'
//! reaches and the relative pose (B's share kept with the pending pair),
//! and the rotation guard raised to what the composed rotation's rounding
//! needs ([`Slack::pad_oriented`], [`Slack::eps_oriented`]), so that no
//! node pair whose triangles touch is separated.

use glam::{Mat3, Quat, Vec3};

use super::super::rounding::{Slack, reach};
use super::{
    BoxNode, CollideOptions, CollideStats, ContactMode, Leaves, MeshSide, obb_overlap, volume,
};

/// A pending node pair, with B's node box already expressed in A's frame
/// (rotation and center, and its scaled half extents), so descending A's
/// side reuses it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    na: u32,
    nb: u32,
    b_rot: Quat,
    b_center: Vec3,
    b_half: Vec3,
    /// B's share of the pair's pad ([`Slack::pad_oriented_b`]).
    b_pad: f32,
}

/// Intersecting triangle pairs, oriented-box traversal.
pub(super) fn collide<NA: BoxNode, NB: BoxNode>(
    a: &MeshSide<'_, NA>,
    b: &MeshSide<'_, NB>,
    options: &CollideOptions,
    stack: &mut Vec<Pending>,
    out: &mut Vec<[u32; 2]>,
) -> CollideStats {
    out.clear();
    let mut stats = CollideStats::default();
    if a.tree.nodes.is_empty() || b.tree.nodes.is_empty() {
        return stats;
    }
    let leaves = Leaves {
        a,
        b,
        rel: a.pose.inverse().mul(&b.pose),
        mode: options.mode,
    };
    let slack = Slack::new(&leaves.rel, options.eps);
    let eps = slack.eps_oriented();
    stack.clear();
    stack.push(pending(&leaves, &slack, 0, 0));
    while let Some(p) = stack.pop() {
        stats.box_tests += 1;
        let (la, lb) = (&a.tree.nodes[p.na as usize], &b.tree.nodes[p.nb as usize]);
        let (rot_a, center_a, half_a) = a.node_box(p.na);
        // Box B relative to box A: R = A^T B', t = A^T (c_b' - c_a).
        let inv_a = rot_a.conjugate();
        let r = Mat3::from_quat(inv_a * p.b_rot);
        let t = inv_a * (p.b_center - center_a);
        let pad = Slack::pad_oriented(reach(center_a, half_a), p.b_pad);
        if !obb_overlap(half_a + Vec3::splat(2.0 * pad), p.b_half, &r, t, eps) {
            continue;
        }
        let descend_a = match (la.is_leaf(), lb.is_leaf()) {
            (true, true) => {
                if leaves.test((p.na, p.nb), &mut stats, out) {
                    return stats;
                }
                continue;
            }
            (false, true) => true,
            (true, false) => false,
            // Descend the larger box first.
            (false, false) => volume(half_a) >= volume(p.b_half),
        };
        if descend_a {
            stack.push(Pending {
                na: la.first() + 1,
                ..p
            });
            stack.push(Pending {
                na: la.first(),
                ..p
            });
        } else {
            stack.push(pending(&leaves, &slack, p.na, lb.first() + 1));
            stack.push(pending(&leaves, &slack, p.na, lb.first()));
        }
    }
    debug_assert!(options.mode == ContactMode::All || out.is_empty());
    stats
}

/// The pair `(na, nb)` with B's node box mapped into A's frame.
#[inline]
fn pending<NA, NB: BoxNode>(q: &Leaves<'_, NA, NB>, slack: &Slack, na: u32, nb: u32) -> Pending {
    let (rotation, center, half) = q.b.node_box(nb);
    Pending {
        na,
        nb,
        b_rot: q.rel.rotation * rotation,
        b_center: q.rel.transform_point(center),
        b_half: half,
        b_pad: slack.pad_oriented_b(reach(center, half)),
    }
}
