//! GJK ray cast: the time of impact of two convex shapes in translation, in
//! one GJK-like loop (van den Bergen, *Ray casting against general convex
//! objects with application to continuous collision detection*, 2004).
//!
//! In A's frame B moves by `t r`. With `C = core(A) − core(B)` (the CSO at
//! time 0), the shapes are within `m` (their margins plus the target
//! distance) at time `t` exactly when the point `x = t r` is within `m` of
//! `C`. The loop keeps a simplex of CSO points and `v = x − c`, `c` the
//! point of the simplex's hull closest to `x` (so `|v|` bounds the distance
//! of `x` to `C` from above). A support point `p = s_C(v)` gives the plane
//! `v · y = v · p` that `C` lies behind; while `x` is more than `m` in
//! front of it, `x` advances along the ray to where it is exactly `m` in
//! front (`t` grows; the shapes cannot come within `m` before), or, when
//! the ray runs away from the plane, there is no contact at all. The loop
//! ends when `|v| ≤ m + tolerance`: the shapes are within the target plus
//! the tolerance at `t`, and `t` is never after the first such time.
//!
//! A run that does not settle in [`RAYCAST_MAX_ITERATIONS`] returns `None`
//! to its caller, which falls back to conservative advancement.
//!
//! Precision: `x = t r` and the support points relative to it carry `f32`'s
//! relative error of `|x|`, so a target far along the ray (`|x|` large
//! against the shapes) is found only to that, and `v · r` overflows for a
//! huge `|r|`. The query layer (`query/cast_frame.rs`) therefore calls this
//! in a pair frame: the ray starts where the shapes' bounding balls first
//! come within reach (`|x|` stays within the pair's size) and time runs in
//! a unit that makes `|r|` about the pair's size.

use glam::Vec3;

use super::{Cso, REL_DUP2, Simplex, SupportMap, SupportPoint};
use crate::geometry::support::NO_HINT;

/// Loop iterations before giving up.
pub const RAYCAST_MAX_ITERATIONS: u32 = 64;

/// What the ray cast found (returned once per cast, never stored: the
/// simplex inline is cheaper than a box).
#[allow(clippy::large_enum_variant)]
pub(crate) enum RayCast {
    /// The shapes come within reach at time `t`; `v` (A's frame) points
    /// from A towards B then (zero if the simplex holds `x`), `n` is the
    /// last advancing normal (zero if none), `simplex` gives the witnesses.
    Hit {
        t: f32,
        v: Vec3,
        n: Vec3,
        simplex: Simplex,
    },
    /// They never do within `max_t`.
    Miss,
    /// The loop did not settle.
    Unsettled,
}

/// The ray cast of the CSO along `r` (see the module docs): within `m` plus
/// `tol`, for `t` in `[0, max_t]`.
pub(crate) fn ray_cast_cso<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    r: Vec3,
    (m, tol): (f32, f32),
    max_t: f32,
) -> RayCast {
    let (mut t, mut x, mut n) = (0.0f32, Vec3::ZERO, Vec3::ZERO);
    let mut s = Simplex::default();
    let first = cso.support(cso.b_origin(), NO_HINT, NO_HINT);
    let (mut hint_a, mut hint_b) = (first.hint_a, first.hint_b);
    let mut scale = first.w.length();
    s.push(first);
    // `v` is x − c; the simplex stores p − x, so that its closest point to
    // the origin is c − x = −v.
    let mut v = -s.reduce();
    for _ in 0..RAYCAST_MAX_ITERATIONS {
        let reach = m + tol;
        if v.length_squared() <= reach * reach || s.len == 4 {
            return hit(t, v, n, s);
        }
        let p = cso.support(v, hint_a, hint_b);
        (hint_a, hint_b) = (p.hint_a, p.hint_b);
        if !p.w.is_finite() {
            return RayCast::Unsettled;
        }
        scale = scale.max(p.w.length());
        let len = v.length();
        let vw = v.dot(x - p.w);
        let advanced = vw > m * len;
        if advanced {
            let vr = v.dot(r);
            if vr >= 0.0 {
                return RayCast::Miss;
            }
            t -= (vw - m * len) / vr;
            if t > max_t || t.is_nan() {
                return RayCast::Miss;
            }
            x = t * r;
            n = v;
            shift(&mut s, x);
        }
        let q = SupportPoint { w: p.w - x, ..p };
        if s.contains(q.w, REL_DUP2 * scale * scale) {
            if !advanced {
                // Nothing new and x did not move: GJK cannot get closer,
                // though x is not within reach (rounding).
                return RayCast::Unsettled;
            }
        } else {
            s.push(q);
        }
        v = -s.reduce();
    }
    RayCast::Unsettled
}

fn hit(t: f32, v: Vec3, n: Vec3, simplex: Simplex) -> RayCast {
    RayCast::Hit { t, v, n, simplex }
}

/// Re-expresses the simplex's points relative to the new ray point `x`.
fn shift(s: &mut Simplex, x: Vec3) {
    for p in &mut s.pts[..s.len] {
        p.w = p.a - p.b - x;
    }
}
