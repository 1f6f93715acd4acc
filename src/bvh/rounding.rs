//! How far `f32` rounding can move what a box test compares, and the
//! padding that makes the test conservative: no pair of boxes whose
//! triangles touch is ever separated.
//!
//! # What must hold
//!
//! A query maps each vertex `v` of B (scaled) into A's frame by the
//! relative pose `(q, t_ab)` in `f32`: `F(v) = fl(q * v + t_ab)`, and
//! decides every triangle pair exactly on those coordinates. The box test
//! of a node pair sees rounded stand-ins of the exact boxes: centers and
//! half extents converted from corners (AABB nodes), B's center mapped by
//! `F` and moved into A's box frame, the relative rotation as a rounded
//! matrix. It must say "overlap" whenever a triangle of A's node touches
//! the mapped triangle of B's.
//!
//! # The bounds (Higham's model: `fl(x ∘ y) = (x ∘ y)(1 + θ)`, `|θ| ≤ u`)
//!
//! `u = 2⁻²⁴`. `σ = |q|²` (poses are accepted with `|q|² − 1` up to
//! `2·10⁻³`), `δ = σ − 1`, `R` the rotation of `q / |q|`, `T = |t_ab|∞`.
//! A box's *reach* bounds `|x|∞` over its points: `|c|∞ + |h|₁` for a box
//! with center `c` and half extents `h` (any axes). `M_A`, `M_B`: reaches
//! of the two node boxes in their own frames.
//!
//! 1. **Vertex map.** glam computes `q * v` as `v (w² − b·b) + 2 b (v·b) +
//!    2 w (b × v)` (`b` the vector part), which is `σ R v` exactly. Each of
//!    the three terms is at most 8 roundings deep; bounding `|b|² ≤ σ`,
//!    `2 |w| |b| ≤ σ`, `|v|₂ ≤ √3 |v|∞` gives `|fl(q * v) − σ R v|∞ ≤
//!    γ₈ (1 + 2√3 + √2) σ |v|∞ ≤ 48 u σ |v|∞`, and the translation adds
//!    `u (√3 σ |v|∞ + T)`: `u (64 σ |v|∞ + 2 T)` covers both (tested
//!    against `f64` in this module).
//! 2. **Centers and half extents.** From corners, `(min + max) / 2` and
//!    `(max − min) / 2` are each off by at most `u M`. B's mapped center
//!    is off by the vertex map's error plus `√3 σ u M_B` (its own rounding
//!    carried through `R`); A's by `u M_A`; the difference rounds once
//!    more (`u |t|`, `|t|∞ ≤ M_A + 2 σ M_B + T`). B's true mapped box has
//!    half extents `σ h_B`, not `h_B`: `|δ| M_B` more.
//! 3. **The rotation.** The test's matrix `fl(from_quat(q))` is exactly
//!    `σ R − δ I` before rounding, so its entries are within `2 |δ| + 4 u`
//!    of `R`'s; the test adds `eps` to every `|R_ij|` (RAPID's guard), which
//!    covers it when `eps ≥ 2 |δ| + 8 u` ([`Slack::eps`] raises `eps` to
//!    that). The oriented traversal composes two quaternion products (each
//!    component off by `γ₄`, so the quaternion by `8 u` in norm, twice),
//!    with node rotations whose `|q|² − 1` is at most [`NODE_DEFECT`]
//!    (`8 u`: the builds normalise them, and `ObbTree::validate` refuses
//!    more), and `from_quat`'s derivative is at most 4 per unit of
//!    quaternion: its entries are within `2 |δ| + 100 u` of the relative
//!    rotation of the two boxes ([`Slack::eps_oriented`] raises `eps` to
//!    `2 |δ| + 136 u`). An OBB was fitted on the axes decoded from its
//!    quaternion, within `20 u` of its rotation: `20 u M` more.
//! 4. **The test's own arithmetic.** Each projected distance and radius is
//!    a sum of at most seven rounded terms, all bounded by the reaches:
//!    at most `γ₇` of `M_A + 2 σ M_B + T` per axis.
//!
//! Growing A's half extents by `2p` widens every axis by at least what
//! each error needs there, if `p` is half the largest need: `2p` on a
//! face axis (the radii are `a_i + Σ_j b_j |R_ij|` and `b_j + Σ_i a_i
//! |R_ij|`, and a column of a rotation has `Σ_i |R_ij| ≥ 1`), and `2p
//! (|R_i1j| + |R_i2j|) ≥ 2p |A_i × B_j|` on an edge axis, where every
//! error above is proportional to the axis' length as well (the terms
//! that are not, `eps · |t|`, are the test's own guard). Summing the
//! errors on the worst axis (B's faces: `√3` times the center and vertex
//! errors, `√3 ≈ 1.74`) and halving:
//!
//! `p ≥ u (11 M_A + 123 σ M_B + 7 T) + 0.51 |δ| M_B`
//!
//! for the AABB-tree traversal ([`Slack::pad`] uses `128 u (M_A + σ M_B +
//! T) + |δ| M_B`, per query, with the root boxes' reaches). The oriented
//! traversal maps the center difference once more through A's box
//! rotation (item 1 again, `|x| ≤ M_A + 2 σ M_B + T`, and `|δ_a| |x|` for
//! the node quaternion's own defect) and has no corner conversion for OBB
//! nodes: `p ≥ u (56 M_A + 238 σ M_B + 53 T) + 0.51 |δ| M_B + 1.52 |δ_a|
//! (M_A + σ M_B + T)`, and [`Slack::pad_oriented`] uses `288 u (M_A + σ
//! M_B + T) + |δ| M_B` (`256 u` and `4 NODE_DEFECT`), B's share computed
//! once per B node.
//!
//! The pad is about `2·10⁻⁵` of the coordinates' size: on a model near its
//! origin, a small fraction of its leaf boxes (on the hand model, about
//! 2·10⁻⁵ against leaves of 10⁻²).

use glam::{Quat, Vec3};

use crate::math::Pose;
use crate::math::rounding::TINY;
pub(crate) use crate::math::rounding::U;

/// The reach of a box: a bound on `|x|∞` over its points (`|c|∞ + |h|₁`,
/// whatever its axes).
#[inline]
pub(crate) fn reach(center: Vec3, half: Vec3) -> f32 {
    center.abs().max_element() + half.x + half.y + half.z
}

/// `|q|² − 1` as a bound: the rounded value's size plus its rounding.
#[inline]
pub(crate) fn norm_defect(q: Quat) -> f32 {
    (q.length_squared() - 1.0).abs() + 5.0 * U
}

/// A bound on `|q|² − 1` for the rotation of every node of a tree: the
/// builds normalise their quaternions (`|q|² − 1` within a few `u`), and
/// `ObbTree::validate` refuses a tree with more.
pub(crate) const NODE_DEFECT: f32 = 8.0 * U;

/// What rounding allows one query (one relative pose), from which each
/// node pair's pad follows (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slack {
    /// `max(1, |q|²)`, rounded up.
    sigma: f32,
    /// `|δ|` (bound).
    delta: f32,
    /// `|t_ab|∞`.
    t: f32,
    /// The box test's rotation guard: the caller's, raised to what the
    /// relative rotation's own rounding needs.
    pub eps: f32,
}

/// The oriented traversal's pad per unit of the coordinates' size.
const ORIENTED: f32 = 256.0 * U + 4.0 * NODE_DEFECT;

impl Slack {
    /// The allowances of a query with B's frame at `rel` in A's, and the
    /// caller's rotation guard `eps`.
    pub fn new(rel: &Pose, eps: f32) -> Self {
        let delta = norm_defect(rel.rotation);
        Slack {
            sigma: 1.0 + delta,
            delta,
            t: rel.translation.abs().max_element(),
            eps: eps.max(2.0 * delta + 8.0 * U),
        }
    }

    /// The pad `p` for the AABB-tree traversal (A's half extents grow by
    /// `2p`): `reach_a`, `reach_b` bound the reaches of every node box of
    /// each side (in its own frame).
    #[inline]
    pub fn pad(&self, reach_a: f32, reach_b: f32) -> f32 {
        128.0 * U * (reach_a + self.sigma * reach_b + self.t) + self.delta * reach_b + TINY
    }

    /// The share of B's node box (reach `reach_b`, its own frame) in the
    /// oriented traversal's pad `p` of a pair: computed once per B node.
    #[inline]
    pub fn pad_oriented_b(&self, reach_b: f32) -> f32 {
        (ORIENTED * self.sigma + self.delta) * reach_b + ORIENTED * self.t + TINY
    }

    /// The oriented traversal's pad `p` of a pair: A's node box's reach
    /// and B's share ([`pad_oriented_b`](Self::pad_oriented_b)).
    #[inline]
    pub fn pad_oriented(reach_a: f32, b_share: f32) -> f32 {
        ORIENTED * reach_a + b_share
    }

    /// The rotation guard of the oriented traversal (see the module docs).
    #[inline]
    pub fn eps_oriented(&self) -> f32 {
        self.eps.max(2.0 * self.delta + 136.0 * U)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;
    use glam::DVec3;

    /// A bound on `|fl(q * v + t) − (|q|² R v + t)|∞` for `|v|∞ ≤ v` and
    /// `|t|∞ ≤ t`, `sigma ≥ max(1, |q|²)` (item 1 of the module docs).
    fn map_error(sigma: f32, v: f32, t: f32) -> f32 {
        U * (64.0 * sigma * v + 2.0 * t)
    }

    /// The vertex map's error against `f64`, over unit and slightly
    /// non-unit quaternions (the `2·10⁻³` that poses may carry) and
    /// coordinates of every size, with and without a translation: within
    /// [`map_error`]. Without a translation the worst error seen is about
    /// a tenth of the bound (the bound is a worst case over every rounding
    /// at once); with one, half (the last sum's rounding is `u |t|`).
    #[test]
    fn the_vertex_map_stays_within_its_bound() {
        let mut rng = Rng::new(41);
        let mut worst = [0.0f64; 2];
        for k in 0..200_000 {
            let q = rng.rotation();
            let q = if k % 2 == 0 {
                q
            } else {
                q * (1.0 + rng.range(-1e-3, 1e-3))
            };
            let mag = |rng: &mut Rng| 10f32.powf(rng.range(-6.0, 6.0));
            let v = rng.in_cube(1.0) * mag(&mut rng);
            let with_t = k % 3 != 0;
            let t = if with_t {
                rng.in_cube(1.0) * mag(&mut rng)
            } else {
                Vec3::ZERO
            };
            let got = (q * v + t).as_dvec3();
            let (w, b) = (q.w as f64, DVec3::new(q.x as f64, q.y as f64, q.z as f64));
            let vd = v.as_dvec3();
            let want = vd * (w * w - b.dot(b))
                + b * (2.0 * vd.dot(b))
                + b.cross(vd) * (2.0 * w)
                + t.as_dvec3();
            let sigma = 1.0 + norm_defect(q);
            let bound = map_error(sigma, v.abs().max_element(), t.abs().max_element()) as f64;
            let err = (got - want).abs().max_element();
            assert!(err <= bound, "q {q} v {v} t {t}: error {err} above {bound}");
            let slot = &mut worst[usize::from(with_t)];
            *slot = slot.max(err / bound);
        }
        println!("vertex map: worst error / bound {worst:?} (without, with a translation)");
        assert!(
            worst[0] > 0.02 && worst[1] > 0.1,
            "the cases were reached: {worst:?}"
        );
    }

    /// The relative translation the pair tests decide in,
    /// `pose_a.inverse().mul(pose_b)`, against `f64`, for unit rotations
    /// (as the world stores them) and bodies up to `2⁵⁰` from the origin,
    /// within `u` of their size of each other: within `u (64 T_B + 50
    /// T_A)` (item 1 of `math::rounding`'s bound, which the world's boxes
    /// are padded for).
    #[test]
    fn the_relative_translation_stays_within_its_bound() {
        let mut rng = Rng::new(43);
        let mut worst = 0.0f64;
        for _ in 0..100_000 {
            let qa = rng.rotation().normalize();
            let far = 2f32.powf(rng.range(-10.0, 50.0));
            let ta = rng.in_cube(far);
            let near = far * rng.range(0.0, 1e-3);
            let tb = ta + rng.in_cube(near);
            let got = Pose::new(qa, ta)
                .inverse()
                .mul(&Pose::new(rng.rotation(), tb))
                .translation;
            let q = glam::DQuat::from_xyzw(qa.x as f64, qa.y as f64, qa.z as f64, qa.w as f64);
            let want = q.conjugate() * (tb.as_dvec3() - ta.as_dvec3());
            let [t_a, t_b] = [ta, tb].map(|t| t.abs().max_element() as f64);
            let bound = U as f64 * (64.0 * t_b + 50.0 * t_a);
            let err = (got.as_dvec3() - want).abs().max_element();
            assert!(err <= bound, "{ta} {tb}: error {err} above {bound}");
            worst = worst.max(err / bound);
        }
        println!("relative translation: worst error / bound {worst}");
        assert!(worst > 0.01, "the cases were reached: {worst}");
    }
}
