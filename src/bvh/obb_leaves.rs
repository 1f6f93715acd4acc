//! Leaf boxes of the OBB tree, four triangles at a time, and the boxes of
//! its pairs and triples, four groups at a time.
//!
//! A leaf of one triangle gets the box of the triangle's own axes: the
//! normal, and in the plane the direction of the edge that gives the
//! smallest bounding rectangle (the minimum-area rectangle around a convex
//! polygon has a side along one of its edges: H. Freeman and R. Shapira,
//! *Determining the minimum-area encasing rectangle for an arbitrary
//! closed curve*, CACM 18(7), 1975). The box is flat; its rectangle is at
//! most twice the triangle.
//!
//! The work per leaf is short but one long dependency chain: a normal
//! (square root, division), the edge choice, an in-plane axis (square
//! root, division), the rotation stored as a quaternion (DirectXMath's
//! rule: branches on the matrix' diagonal, a square root, a division, a
//! normalisation), the axes decoded from it and the corners projected on
//! them. A build has as many leaves as triangles, so [`leaf_boxes`] runs
//! four of them in the four lanes of `Vec4`s (structure of arrays, one
//! triangle per lane): the chains run side by side, and the quaternion's
//! four cases become selections instead of branches.
//!
//! Inner nodes over two or three triangles get boxes the same way, four
//! groups to a call ([`group_boxes`]): the summed normal, and the best of
//! the group's edges in that plane. Fitted one at a time, a pair's chain
//! cost more than the covariance solve it replaced (see `obb_build.rs`).

use glam::{BVec4A, Quat, Vec3, Vec4};

use super::obb::BOX_PAD;
use super::obb_tree::ObbNode;
use crate::math::vec3x4::V3x4;

/// The leaf nodes of four triangles (corners `tris[i]`; `first` 0 and
/// `count` 1, for the caller to place): for each, the rotation as stored
/// in the tree and the box on the axes decoded from it (as glam's
/// `Mat3::from_quat` decodes it, so the node bounds exactly what was
/// fitted), padded by [`BOX_PAD`]. `None` for a triangle with zero area, a
/// non-finite corner, or axes that do not come out finite: the caller fits
/// those another way. Each lane is computed on its own: a triangle's box
/// does not depend on the other three.
pub(crate) fn leaf_boxes(tris: [[Vec3; 3]; 4]) -> [Option<ObbNode>; 4] {
    let [p, q, r] = [0, 1, 2].map(|c| V3x4::new(tris.map(|t| t[c])));
    let (e0, e1, e2) = (q.sub(p), r.sub(q), p.sub(r));
    let n = e0.cross(r.sub(p));
    let len = n.dot(n).sqrt();
    let mut valid = len.cmpgt(Vec4::ZERO) & len.is_finite_mask();
    let z = n.scale(len.recip());
    let (e, bl) = best_edge([(e0, r.sub(p)), (e1, p.sub(q)), (e2, q.sub(r))]);
    valid &= bl.cmpgt(Vec4::ZERO);
    // Re-orthogonalised against rounding: x exactly in the plane of z.
    let x = e.sub(z.scale(z.dot(e)));
    let x = x.scale(x.dot(x).sqrt().recip());
    lane_nodes([x, z], valid, p, &[q.sub(p), r.sub(p)], 1)
}

/// The boxes of four small groups of triangles (`C / 3` triangles each:
/// corners `groups[i]`, three per triangle), one group per lane, as inner
/// nodes (`first` and `count` 0, for the caller to place). The third axis
/// is the sum of the triangles' area-weighted normals (each flipped if it
/// faces away from the first's); in that plane the first axis runs along
/// whichever of the triangles' edges, projected into the plane, gives the
/// rectangle of least area around all the corners (as for a single
/// triangle, whose minimum rectangle has a side along an edge; for a group
/// this is the best of its edges, not always the minimum over all
/// directions). `None` for a group without a finite normal or axes: the
/// caller fits it another way.
pub(crate) fn group_boxes<const C: usize>(groups: [[Vec3; C]; 4]) -> [Option<ObbNode>; 4] {
    let c: [V3x4; C] = std::array::from_fn(|k| V3x4::new(groups.map(|g| g[k])));
    let normal = |t: usize| c[3 * t + 1].sub(c[3 * t]).cross(c[3 * t + 2].sub(c[3 * t]));
    let n0 = normal(0);
    let n = (1..C / 3).fold(n0, |n, t| {
        let nt = normal(t);
        let flip = n0.dot(nt).cmplt(Vec4::ZERO);
        n.add(nt.scale(Vec4::select(flip, Vec4::NEG_ONE, Vec4::ONE)))
    });
    let len = n.dot(n).sqrt();
    let mut valid = len.cmpgt(Vec4::ZERO) & len.is_finite_mask();
    let z = n.scale(len.recip());
    // The corners relative to the first; per edge, the rectangle's area
    // along its projection `u` is `span_u · span_v / |u|²` (`v = z × u`,
    // both unnormalised; a zero-length projection gives NaN, never chosen).
    let rel: [V3x4; C] = c.map(|p| p.sub(c[0]));
    let (mut best, mut best_area) = (z, Vec4::INFINITY);
    for t in 0..C / 3 {
        for (i, j) in [(0, 1), (1, 2), (2, 0)] {
            let e = c[3 * t + j].sub(c[3 * t + i]);
            let u = e.sub(z.scale(z.dot(e)));
            let v = z.cross(u);
            let span = |d: V3x4| {
                let (lo, hi) = rel[1..]
                    .iter()
                    .fold((Vec4::ZERO, Vec4::ZERO), |(lo, hi), r| {
                        let x = d.dot(*r);
                        (lo.min(x), hi.max(x))
                    });
                hi - lo
            };
            let area = span(u) * span(v) / u.dot(u);
            let better = area.cmplt(best_area);
            best = V3x4::select(better, u, best);
            best_area = Vec4::select(better, area, best_area);
        }
    }
    valid &= best_area.is_finite_mask();
    let x = best.scale(best.dot(best).sqrt().recip());
    lane_nodes([x, z], valid, c[0], &rel[1..], 0)
}

/// The nodes (`first` 0, `count` as given) of the boxes with first axis `x`
/// and third `z` (unit, orthogonal; the second is `z × x`) around `first`
/// and the corners `rel` relative to it, one per lane: the rotation as
/// stored, the box on the axes decoded from it ([`extents`]). `None` in a
/// lane not `valid` or whose rotation or box does not come out finite.
fn lane_nodes(
    [x, z]: [V3x4; 2],
    valid: BVec4A,
    first: V3x4,
    rel: &[V3x4],
    count: u32,
) -> [Option<ObbNode>; 4] {
    let rot = rotations([x, z.cross(x), z]);
    let valid = rot.iter().fold(valid, |v, c| v & c.is_finite_mask());
    let (center, half) = extents(decoded(rot), first, rel);
    let valid = valid & center.is_finite() & half.is_finite();
    std::array::from_fn(|i| {
        valid.test(i).then(|| ObbNode {
            rotation: Quat::from_xyzw(rot[0][i], rot[1][i], rot[2][i], rot[3][i]),
            center: center.lane(i),
            half_extents: half.lane(i),
            first: 0,
            count,
        })
    })
}

/// Of the three edges `e` (each with the vector `c` from its start to the
/// opposite corner), the one whose rectangle has the least area, and its
/// squared length (zero when no edge has a length). The rectangle along
/// `e` (length `l`) is `2A / l` high (`A` the area) and
/// `(max(l², d) − min(0, d)) / l` wide, `d = c·e`, so its area is
/// `2A (max(l², d) − min(0, d)) / l²`: the edges compare by that ratio
/// (a quotient per lane: products of the two would overflow `f32` for
/// edges beyond about 10⁹). Ties go to the first edge.
fn best_edge(edges: [(V3x4, V3x4); 3]) -> (V3x4, Vec4) {
    let ratio = |(e, c): (V3x4, V3x4)| {
        let l2 = e.dot(e);
        let d = c.dot(e);
        ((l2.max(d) - d.min(Vec4::ZERO)) / l2, l2)
    };
    let (mut best, (mut br, mut bl)) = (edges[0].0, ratio(edges[0]));
    for edge in &edges[1..] {
        let (r, l) = ratio(*edge);
        // A zero-length edge has no direction: never chosen.
        let better = l.cmpgt(Vec4::ZERO) & (bl.cmple(Vec4::ZERO) | r.cmplt(br));
        best = V3x4::select(better, edge.0, best);
        br = Vec4::select(better, r, br);
        bl = Vec4::select(better, l, bl);
    }
    (best, bl)
}

/// The unit quaternions (lanes of x, y, z, w) of the rotations with these
/// columns, by DirectXMath's `XMQuaternionRotationMatrix` (as glam's
/// `Quat::from_mat3`): the largest of the four squared components is
/// found from the diagonal and the others from sums and differences of
/// off-diagonal entries; its four cases are selections per lane. Then
/// normalised.
pub(super) fn rotations([c0, c1, c2]: [V3x4; 3]) -> [Vec4; 4] {
    let (m00, m01, m02) = (c0.x, c0.y, c0.z);
    let (m10, m11, m12) = (c1.x, c1.y, c1.z);
    let (m20, m21, m22) = (c2.x, c2.y, c2.z);
    let one = Vec4::ONE;
    let z_or_w = m22.cmpgt(Vec4::ZERO);
    let dif10 = m11 - m00;
    let sum10 = m11 + m00;
    // Cases: x largest (0), y (1), z (2), w (3).
    let y_case = !z_or_w & dif10.cmpgt(Vec4::ZERO);
    let w_case = z_or_w & sum10.cmpgt(Vec4::ZERO);
    let z_case = z_or_w & !w_case;
    let x_case = !z_or_w & !y_case;
    let omm22 = one - m22;
    let opm22 = one + m22;
    let four_sq = Vec4::select(
        z_or_w,
        Vec4::select(w_case, opm22 + sum10, opm22 - sum10),
        Vec4::select(y_case, omm22 + dif10, omm22 - dif10),
    );
    let inv = Vec4::splat(0.5) / four_sq.sqrt();
    let (s01, s02, s12) = (m01 + m10, m02 + m20, m12 + m21);
    let (d12, d20, d01) = (m12 - m21, m20 - m02, m01 - m10);
    let pick = |x: Vec4, y: Vec4, z: Vec4, w: Vec4| {
        let v = Vec4::select(
            x_case,
            x,
            Vec4::select(y_case, y, Vec4::select(z_case, z, w)),
        );
        v * inv
    };
    let q = [
        pick(four_sq, s01, s02, d12),
        pick(s01, four_sq, s12, d20),
        pick(s02, s12, four_sq, d01),
        pick(d12, d20, d01, four_sq),
    ];
    let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let k = len.recip();
    q.map(|c| c * k)
}

/// The columns of the rotation matrices of unit quaternions (glam's
/// `Mat3::from_quat`, per lane).
fn decoded([x, y, z, w]: [Vec4; 4]) -> [V3x4; 3] {
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    let one = Vec4::ONE;
    [
        V3x4 {
            x: one - (yy + zz),
            y: xy + wz,
            z: xz - wy,
        },
        V3x4 {
            x: xy - wz,
            y: one - (xx + zz),
            z: yz + wx,
        },
        V3x4 {
            x: xz + wy,
            y: yz - wx,
            z: one - (xx + yy),
        },
    ]
}

/// Center and half extents of the boxes with `axes` around `first` and the
/// other corners, given relative to it as `rel` (rounding relative to the
/// triangle's size), padded as [`AxisExtents`](super::obb::AxisExtents)
/// pads ([`BOX_PAD`]).
fn extents(axes: [V3x4; 3], first: V3x4, rel: &[V3x4]) -> (V3x4, V3x4) {
    let on = |k: usize| {
        let (lo, hi) = rel.iter().fold((Vec4::ZERO, Vec4::ZERO), |(lo, hi), r| {
            let x = axes[k].dot(*r);
            (lo.min(x), hi.max(x))
        });
        ((lo + hi) * 0.5, (hi - lo) * 0.5)
    };
    let [(m0, h0), (m1, h1), (m2, h2)] = [0, 1, 2].map(on);
    let center = first
        .add(axes[0].scale(m0))
        .add(axes[1].scale(m1))
        .add(axes[2].scale(m2));
    let largest = h0.max(h1).max(h2);
    let far = center.x.abs().max(center.y.abs()).max(center.z.abs());
    let pad = Vec4::splat(BOX_PAD) * (largest + far);
    let half = V3x4 {
        x: h0 + pad,
        y: h1 + pad,
        z: h2 + pad,
    };
    (center, half)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::obb::{Moments, Obb};
    use crate::testkit::Rng;
    use glam::Mat3;

    fn one(tri: [Vec3; 3]) -> Option<ObbNode> {
        leaf_boxes([tri; 4])[0]
    }

    #[test]
    fn leaf_boxes_are_tight_and_hold_their_triangle() {
        let mut rng = Rng::new(15);
        for i in 0..3000 {
            // Near the origin, then 1e3 and 1e4 away from it (where the
            // pad's distance term matters).
            let offset = rng.vec(-1.0, 1.0) * [0.0, 1e3, 1e4][i % 3];
            let tri = [0; 3].map(|_| rng.vec(-5.0, 5.0) + offset);
            let leaf = one(tri).unwrap();
            let obb = leaf.obb();
            // The box is on the stored rotation, and holds the corners
            // with no tolerance: the pad covers the rounding.
            assert!(leaf.rotation.is_normalized());
            assert!(
                tri.iter().all(|&p| obb.contains_point(p, 0.0)),
                "{tri:?} {obb:?}"
            );
            if i % 3 > 0 {
                continue;
            }
            let [p, q, r] = tri;
            let area = 0.5 * (q - p).cross(r - p).length();
            // Flat (up to the pad, 8 ε times the box's size and distance
            // from the origin, about 1e-5 here), and the rectangle is at
            // most twice the triangle.
            assert!(obb.half_extents.z < 2e-5, "{obb:?} {tri:?}");
            let rect = 4.0 * obb.half_extents.x * obb.half_extents.y;
            assert!(rect <= 2.0 * area * 1.0001 + 1e-4, "{rect} vs {area}");
            // No worse than the covariance axes.
            let mut m = Moments::default();
            m.add_triangle(p.as_dvec3(), q.as_dvec3(), r.as_dvec3());
            let cov = Obb::from_axes(m.axes(), &tri);
            assert!(rect <= 4.0 * cov.half_extents.x * cov.half_extents.y * 1.0001 + 1e-4);
        }
    }

    #[test]
    fn degenerate_triangles_have_no_leaf_box() {
        let x2 = Vec3::X * 2.0;
        assert!(one([Vec3::ZERO, Vec3::X, x2]).is_none());
        assert!(one([Vec3::ZERO; 3]).is_none());
        assert!(one([Vec3::NAN, Vec3::X, Vec3::Y]).is_none());
        assert!(one([Vec3::INFINITY, Vec3::X, Vec3::Y]).is_none());
        // Two corners equal: no area.
        assert!(one([Vec3::Y, Vec3::X, Vec3::X]).is_none());
    }

    #[test]
    fn lanes_are_independent() {
        // Each triangle's box is the same whatever shares its batch and
        // whichever lane it takes, degenerate neighbours included.
        let mut rng = Rng::new(16);
        let bad = [Vec3::NAN, Vec3::X, Vec3::Y];
        let flat = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
        for _ in 0..200 {
            let tris: [[Vec3; 3]; 4] = std::array::from_fn(|_| {
                let tri = [rng.vec(-3.0, 3.0), rng.vec(-3.0, 3.0), rng.vec(-3.0, 3.0)];
                match rng.below(6) {
                    0 => bad,
                    1 => flat,
                    _ => tri,
                }
            });
            let batch = leaf_boxes(tris);
            for (i, tri) in tris.iter().enumerate() {
                assert_eq!(batch[i], one(*tri), "lane {i}");
                let mut moved = tris;
                moved.rotate_left(1);
                assert_eq!(leaf_boxes(moved)[(i + 3) % 4], batch[i]);
            }
        }
    }

    #[test]
    fn rotation_matches_glam_for_every_case() {
        // Each of the four cases of DirectXMath's rule (chosen from m22,
        // m11 - m00 and m11 + m00, as glam chooses them) gives glam's
        // `Quat::from_mat3`, normalised, up to rounding; and the decoded
        // axes are `Mat3::from_quat`'s, bit for bit.
        let mut rng = Rng::new(17);
        let mut seen = [false; 4];
        for _ in 0..2000 {
            let m = Mat3::from_quat(rng.rotation());
            let cols = [m.x_axis, m.y_axis, m.z_axis].map(|c| V3x4::new([c; 4]));
            let got = rotations(cols).map(|c| c[0]);
            let got = Quat::from_xyzw(got[0], got[1], got[2], got[3]);
            let want = Quat::from_mat3(&m).normalize();
            assert!(got.abs_diff_eq(want, 1e-6), "{got} vs {want}");
            let (m00, m11, m22) = (m.x_axis.x, m.y_axis.y, m.z_axis.z);
            let case = match (m22 <= 0.0, m11 - m00 <= 0.0, m11 + m00 <= 0.0) {
                (true, true, _) => 0,
                (true, false, _) => 1,
                (false, _, true) => 2,
                (false, _, false) => 3,
            };
            seen[case] = true;
            let back = decoded(rotations(cols)).map(|c| c.lane(0));
            assert_eq!(
                Mat3::from_cols(back[0], back[1], back[2]),
                Mat3::from_quat(got)
            );
        }
        assert_eq!(seen, [true; 4]);
    }
}
