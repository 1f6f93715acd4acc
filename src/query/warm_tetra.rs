//! A certificate that a boolean hull pair touches, from the tetrahedron
//! GJK left in the pair's cache, with few or no support searches.
//!
//! When the last query ended with a full simplex (the origin inside a
//! tetrahedron of the CSO), the cache keeps, for each of its four
//! vertices, the vertex of `A` and the vertex of `B` that produced it
//! (the hill-climbing hints). Under the new poses those eight vertices
//! still give four points `aᵢ - bᵢ` of the *new* CSO `A - B`, whatever
//! the motion: the tetrahedron they span lies in the CSO. If it contains
//! the origin the shapes overlap (Gilbert, Johnson & Keerthi 1988: the
//! shapes intersect iff the origin is in `A - B`), and GJK, which would
//! re-evaluate the four supports by hill-climbing from those vertices
//! before solving the simplex (van den Bergen 1999, §4.3.6 warm start),
//! is not needed. If it does not, the vertex opposite the face the origin
//! lies farthest beyond is replaced by the CSO's support along that
//! face's outward normal (one support search instead of GJK's four
//! re-evaluations and its own iterations), up to [`STEPS`] times; a
//! tetrahedron so certified replaces the cached one. Otherwise (or with
//! no cached tetrahedron) GJK decides. Every point tested is `aᵢ - bᵢ`
//! for vertices `aᵢ` of `A` and `bᵢ` of `B`, so which vertices the cache
//! holds affects how often the certificate holds, never its soundness.
//!
//! **Rounding.** The points are computed as GJK's support does (`f32`,
//! `B` mapped through the relative pose GJK uses, built once for both);
//! each is within a few tens of `f32` ulps of the sum `M` of the
//! magnitudes involved (the two vertices, the poses' translations) from
//! the exact point, plus `|δ|` of it for a rotation of norm² `1 + δ`. The
//! certificate asks for a ball about the origin of radius
//! `r = (2⁻¹⁶ + |δ_A| + |δ_B|)·M` inside the computed tetrahedron: moving
//! each vertex by `e < r` moves each support value `max uᵀwᵢ` by at most
//! `e`, so the exact tetrahedron still holds a ball of radius `r - e > 0`
//! (the pad argument of `query::balls`). The face tests run in `f64` on
//! the `f32` points, with an explicit bound `10⁻¹³·L³` on their own
//! rounding (`L` the largest coordinate; a triple product has six terms,
//! each at most `L³`, and a few roundings each: the bound is about 40
//! times that). The area vector the radius is scaled by is rounded by
//! about `10⁻¹⁵·L²`, while a tetrahedron of volume above the test's
//! floor (`4·10⁻¹³·L³`) has no face with one below `10⁻¹³·L²` (six times
//! the volume is an area vector's length times a height of at most
//! `2√3·L`): the ball certified is at least `0.97·r`, still far above `e`.
//!
//! In `plugin_frame`'s scene (10 000 hulls) this answers most touching
//! pairs that reach the cache (`docs/notes/EXPERIMENTS.md`, `#pair-cert`).
//! The same re-placed points ([`replaced_point`]) start GJK for the pairs
//! it leaves (`gjk::run_seeded`).

// Negated comparisons (`!(x > y)`) are deliberate: they send NaN to the
// conservative branch (not certified).
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use glam::{DVec3, Vec3};

use crate::geometry::gjk::{Cso, GjkCache};
use crate::math::Pose;
use crate::shape::ConvexPolytope;

/// The pad, relative to the sum of the magnitudes involved.
const PAD: f32 = 1.0 / 65_536.0;
/// Relative rounding bound of the `f64` face tests (see the module docs).
const F64_ERR: f64 = 1e-13;

/// Replacement steps tried when the re-placed tetrahedron does not hold
/// the ball: the vertex opposite the face the origin is farthest beyond
/// is replaced by the CSO's support along that face's outward normal
/// (instructions per pair test in `count_world_narrow` level off at 3–5).
const STEPS: usize = 5;

/// True when the pair's cached tetrahedron, re-placed under the poses
/// (`cso`, built from `a` and `b`), certifies that `A` and `B` overlap
/// (see the module docs); false means "not certified", not "apart". A
/// tetrahedron certified after a replacement step is kept in the cache.
#[inline]
pub(crate) fn certified_touching(
    (pa, a): (&ConvexPolytope, &Pose),
    (pb, b): (&ConvexPolytope, &Pose),
    cso: &Cso<'_, ConvexPolytope, ConvexPolytope>,
    cache: &mut GjkCache,
) -> bool {
    let Some(mut hints) = cache.warm_tetra() else {
        return false;
    };
    let place = replaced_point(pa, pb, cso);
    let mut w = [Vec3::ZERO; 4];
    let mut mag = 0.0f32;
    for (wi, &h) in w.iter_mut().zip(&hints) {
        // Out of range (a cache from another shape): nothing certified.
        let Some(p) = place(h) else {
            return false;
        };
        *wi = p;
        let (va, vb) = (pa.vertex(h[0]), pb.vertex(h[1]));
        mag = mag.max(va.abs().element_sum() + vb.abs().element_sum());
    }
    let trans = cso.b_frame().2;
    let skew =
        (a.rotation.length_squared() - 1.0).abs() + (b.rotation.length_squared() - 1.0).abs();
    let moved = (a.translation.abs() + b.translation.abs() + trans.abs()).element_sum();
    let pad = PAD + skew;
    for step in 0..=STEPS {
        let (i, u) = match faces_check(w, pad * (mag + moved)) {
            Ok(()) => {
                if step > 0 {
                    cache.set_warm_tetra(hints);
                }
                return true;
            }
            Err(Some(face)) if step < STEPS => face,
            Err(_) => return false,
        };
        let j = (i + 1) % 4;
        let sp = cso.support(u, hints[j][0], hints[j][1]);
        let vb = pb.vertex(sp.hint_b);
        mag = mag.max(sp.a.abs().element_sum() + vb.abs().element_sum());
        w[i] = sp.w;
        hints[i] = [sp.hint_a, sp.hint_b];
    }
    false
}

/// The CSO point of a cached vertex pair (`[vertex of A, vertex of B]`)
/// under the poses of `cso`, computed as its support does; `None` for an
/// index out of range.
#[inline]
pub(crate) fn replaced_point<'a>(
    pa: &'a ConvexPolytope,
    pb: &'a ConvexPolytope,
    cso: &Cso<'_, ConvexPolytope, ConvexPolytope>,
) -> impl Fn([u32; 2]) -> Option<Vec3> + 'a {
    let (rot, _, trans) = cso.b_frame();
    move |[i, j]| {
        let ok = (i as usize) < pa.vertex_count() && (j as usize) < pb.vertex_count();
        ok.then(|| pa.vertex(i) - (rot * pb.vertex(j) + trans))
    }
}

/// Whether the tetrahedron `w` contains the ball of radius `r` about the
/// origin (see [`faces_check`]).
#[cfg(test)]
pub(crate) fn holds_ball(w: [Vec3; 4], r: f32) -> bool {
    faces_check(w, r).is_ok()
}

/// `Ok` when the tetrahedron `w` contains the ball of radius `r` about the
/// origin: the origin's four barycentric volumes (the triple products of
/// the faces' vertices) have the tetrahedron's sign, each beyond the
/// tests' rounding by `r` times its face's area vector (so the origin is
/// `r` inside each face's plane). Otherwise the face the origin is
/// farthest beyond (or least inside), as the index of its opposite vertex
/// and its outward normal; `None` for a degenerate or non-finite one.
fn faces_check(w: [Vec3; 4], r: f32) -> Result<(), Option<(usize, Vec3)>> {
    let [p0, p1, p2, p3] = w.map(Vec3::as_dvec3);
    let l = [p0, p1, p2, p3]
        .iter()
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    let err = F64_ERR * l * l * l;
    let r = f64::from(r);
    if !(r >= 0.0 && err.is_finite()) {
        return Err(None);
    }
    let (c01, c02, c03) = (p0.cross(p1), p0.cross(p2), p0.cross(p3));
    let (c12, c13, c23) = (p1.cross(p2), p1.cross(p3), p2.cross(p3));
    // Face opposite vertex i: its volume with the origin and its normal
    // (the sum of the crosses around it, `(q - p) × (s - p) = p×q + q×s +
    // s×p`), both with the sign alternating with i, so that the volumes
    // all have the tetrahedron's sign when the origin is inside.
    let faces = [
        (p1.dot(c23), c12 + c23 - c13),
        (-p0.dot(c23), c03 - c02 - c23),
        (p3.dot(c01), c01 + c13 - c03),
        (-p2.dot(c01), c02 - c01 - c12),
    ];
    let volume: f64 = faces.iter().map(|f| f.0).sum();
    if !(volume.abs() > 4.0 * err) {
        return Err(None);
    }
    let sign = volume.signum();
    let held = faces
        .iter()
        .all(|&(v, n)| sign * v - err >= r * n.length() && sign * v > err);
    if held {
        return Ok(());
    }
    let (i, n) = (0..4)
        .map(|i| (i, faces[i].1 * sign))
        .min_by(|x, y| {
            let d = |(i, n): (usize, DVec3)| sign * faces[i].0 / n.length();
            d(*x).total_cmp(&d(*y))
        })
        .unwrap_or((0, DVec3::X));
    Err(Some((i, n.as_vec3())))
}
