//! A certificate that a boolean hull pair touches, from the tetrahedron
//! GJK left in the pair's cache, without a support search.
//!
//! When the last query ended with a full simplex (the origin inside a
//! tetrahedron of the CSO), the cache keeps, for each of its four
//! vertices, the vertex of `A` and the vertex of `B` that produced it
//! (the hill-climbing hints). Under the new poses those eight vertices
//! still give four points `aᵢ - bᵢ` of the *new* CSO `A - B`, whatever
//! the motion: the tetrahedron they span lies in the CSO. If it contains
//! the origin the shapes overlap (Gilbert, Johnson & Keerthi 1988: the
//! shapes intersect iff the origin is in `A - B`), and GJK, which would
//! only re-evaluate those supports by hill-climbing from the same
//! vertices and solve the same kind of simplex (van den Bergen 1999,
//! §4.3.6 warm start), is not needed. In `plugin_frame`'s scene about 56 %
//! of the touching pairs that reach GJK are answered so (`EXPERIMENTS.md`,
//! `#pair-cert`). Otherwise (or with no cached tetrahedron) GJK decides.
//!
//! **Rounding.** The points are computed as GJK's support does (`f32`,
//! `B` mapped through the same relative pose); each is within a few tens
//! of `f32` ulps of the sum `M` of the magnitudes involved (the two
//! vertices, the two poses' translations) from the exact point, plus `|δ|`
//! of it for a rotation of norm² `1 + δ`. The certificate asks for a ball
//! about the origin of radius `r = (2⁻¹⁶ + |δ_A| + |δ_B|)·M` inside the
//! computed tetrahedron: moving each vertex by `e < r` moves each support
//! value `max uᵀwᵢ` by at most `e`, so the exact tetrahedron still holds
//! a ball of radius `r - e > 0` (the pad argument of `query::balls`). The
//! face tests run in `f64` on the `f32` points, with an explicit bound
//! `10⁻¹³·L³` on their own rounding (`L` the largest coordinate; a triple
//! product has six terms, each at most `L³`, and a few roundings each: the
//! bound is about 40 times that).

use glam::Vec3;

use crate::geometry::gjk::{Cso, GjkCache};
use crate::math::Pose;
use crate::shape::ConvexPolytope;

/// The pad, relative to the sum of the magnitudes involved.
const PAD: f32 = 1.0 / 65_536.0;
/// Relative rounding bound of the `f64` face tests (see the module docs).
const F64_ERR: f64 = 1e-13;

/// True when the pair's cached tetrahedron, re-placed under the poses
/// (`cso`, built from `a` and `b`), certifies that `A` and `B` overlap
/// (see the module docs); false means "not certified", not "apart".
#[inline]
pub(crate) fn certified_touching(
    (pa, a): (&ConvexPolytope, &Pose),
    (pb, b): (&ConvexPolytope, &Pose),
    cso: &Cso<'_, ConvexPolytope, ConvexPolytope>,
    cache: &GjkCache,
) -> bool {
    let Some(hints) = cache.warm_tetra() else {
        return false;
    };
    let (na, nb) = (pa.vertex_count(), pb.vertex_count());
    if hints
        .iter()
        .any(|h| h[0] as usize >= na || h[1] as usize >= nb)
    {
        return false;
    }
    let (rot, _, trans) = cso.b_frame();
    let mut w = [Vec3::ZERO; 4];
    let mut mag = 0.0f32;
    for (wi, h) in w.iter_mut().zip(&hints) {
        let (va, vb) = (pa.vertex(h[0]), pb.vertex(h[1]));
        // As `Cso::support` computes a CSO point.
        *wi = va - (rot * vb + trans);
        mag = mag.max(va.abs().element_sum() + vb.abs().element_sum());
    }
    let skew =
        (a.rotation.length_squared() - 1.0).abs() + (b.rotation.length_squared() - 1.0).abs();
    let moved = a.translation.abs() + b.translation.abs() + trans.abs();
    let r = (PAD + skew) * (mag + moved.element_sum());
    holds_ball(w, r)
}

/// Whether the tetrahedron `w` contains the ball of radius `r` about the
/// origin: the origin's four barycentric volumes (the triple products of
/// the faces' vertices) have one sign, each beyond the tests' rounding by
/// `r` times its face's area vector (so the origin is `r` inside each
/// face's plane). A degenerate or non-finite tetrahedron holds no ball.
pub(crate) fn holds_ball(w: [Vec3; 4], r: f32) -> bool {
    let [p0, p1, p2, p3] = w.map(Vec3::as_dvec3);
    let l = [p0, p1, p2, p3]
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    let err = F64_ERR * l * l * l;
    let r = f64::from(r);
    if !(r >= 0.0 && err.is_finite()) {
        return false;
    }
    let (c01, c02, c03) = (p0.cross(p1), p0.cross(p2), p0.cross(p3));
    let (c12, c13, c23) = (p1.cross(p2), p1.cross(p3), p2.cross(p3));
    // Face opposite vertex i: its signed volume with the origin (sign
    // alternating with i, so that all four share the tetrahedron's
    // orientation when the origin is inside) and its normal, the sum of
    // the crosses around it (`(q - p) × (s - p) = p×q + q×s + s×p`).
    let faces = [
        (p1.dot(c23), c12 + c23 - c13),
        (-p0.dot(c23), c02 + c23 - c03),
        (p3.dot(c01), c01 + c13 - c03),
        (-p2.dot(c01), c01 + c12 - c02),
    ];
    let sign = faces[0].0.signum();
    faces
        .iter()
        .all(|&(v, n)| sign * v - err >= r * n.length() && sign * v > err)
}
