//! The GJK loop itself (van den Bergen, *Collision Detection in Interactive
//! 3D Environments*, §4.3; signed volumes after Montanari et al. 2017): from
//! the warm simplex (re-evaluated or re-placed) to the termination tests
//! the module docs list. The queries in `mod.rs` call it.

use glam::Vec3;

use super::{
    Cso, GJK_MAX_ITERATIONS, GjkCache, REL_DUP2, REL_ZERO, Simplex, SupportPoint, WALK_GAP,
};
use crate::geometry::support::{NO_HINT, SupportMap};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Distance,
    Intersect,
}

pub(crate) struct GjkOutcome {
    pub simplex: Simplex,
    pub v: Vec3,
    pub intersecting: bool,
    pub iterations: u32,
    pub support_calls: u32,
    /// Largest |w| seen: the length scale for tolerances.
    pub scale: f32,
}

/// The GJK loop on a CSO; updates the cache.
///
/// In `Intersect` mode the loop stops as soon as the lower bound on the core
/// distance exceeds `margin` (the sum of the shapes' margins). Converged
/// when the upper bound `|v|` and the lower bound `μ` are within `gap` of
/// the CSO scale ([`REL_GAP`] by default).
pub(crate) fn run<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    cache: &mut GjkCache,
    params: (Mode, f32, f32),
) -> GjkOutcome {
    run_seeded(cso, cache, params, None)
}

/// The CSO point of a cached vertex pair under the current poses, without
/// a support search (`None`: evaluate the support instead).
pub(crate) type Replace<'f> = &'f dyn Fn([u32; 2]) -> Option<Vec3>;

/// [`run`], its warm simplex re-placed by `seed` where given: the cached
/// vertex pairs' own points under the new poses (CSO points all the same)
/// instead of supports re-evaluated along the cached directions. A seed
/// gives the CSO point only, not the two shapes' points, so the outcome's
/// witnesses are meaningless: `Intersect` mode only.
pub(crate) fn run_seeded<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    cache: &mut GjkCache,
    (mode, margin, gap): (Mode, f32, f32),
    seed: Option<Replace<'_>>,
) -> GjkOutcome {
    debug_assert!(
        seed.is_none() || mode == Mode::Intersect,
        "a seed has no witnesses"
    );
    let (mut s, mut calls, mut scale, cold) = warm_start(cso, cache, seed);
    let mut v = s.reduce();
    let mut dist2 = v.length_squared();
    let mut intersecting = s.len == 4;
    let mut iterations = 0u32;
    let mut exhausted = false;
    let mut lower = f32::NEG_INFINITY;
    let mut walk = false;

    while !intersecting && iterations < GJK_MAX_ITERATIONS {
        let zero = REL_ZERO * scale;
        if !(dist2 > zero * zero) {
            // The origin is on the simplex (touching or overlapping).
            intersecting = true;
            break;
        }
        iterations += 1;
        let sp = if cold && !walk {
            cso.support(-v, NO_HINT, NO_HINT)
        } else {
            cso.support(-v, cache.hint_a, cache.hint_b)
        };
        calls += 1;
        cache.hint_a = sp.hint_a;
        cache.hint_b = sp.hint_b;
        if !sp.w.is_finite() {
            break;
        }
        scale = scale.max(sp.w.length());
        let vw = v.dot(sp.w);
        if mode == Mode::Intersect && vw > 0.0 && vw * vw > margin * margin * dist2 {
            break; // `v` is a separating axis (with the margins)
        }
        // The best lower bound so far within REL_GAP * scale of the upper
        // bound |v| (every support gives a lower bound vw/|v|).
        let len = dist2.sqrt();
        lower = lower.max(vw / len);
        if len - lower <= gap * scale {
            break;
        }
        // Once the bounds are within `WALK_GAP` (distance queries), the
        // directions barely turn: the supports walk from their last vertex.
        walk = mode == Mode::Distance && len - lower <= WALK_GAP * len;
        let tol = gap * scale * len;
        if s.contains(sp.w, REL_DUP2 * scale * scale) {
            // The support is already in the simplex: done, unless rounding
            // made `v` wrong (a simplex point on the origin's side of it).
            if s.consistent(v, tol) || exhausted {
                break;
            }
            exhausted = true;
            v = s.reduce_exhaustive();
            dist2 = v.length_squared();
            intersecting = s.len == 4;
            continue;
        }
        // Solve with the new point before committing to it, so that a
        // push without progress leaves the previous, better simplex.
        s.push(sp);
        let sub = s.solve();
        if !sub.is_full() && !(sub.d2 < dist2) {
            // No progress: the f32 solver may have rounded wrongly on a
            // near-degenerate simplex; retry in f64 before giving up.
            let Some((t, tv)) = retry_f64(&s, dist2, f32::EPSILON * scale * len) else {
                s.len -= 1; // keep the previous, better simplex
                break;
            };
            s = t;
            v = tv;
            dist2 = tv.length_squared();
            intersecting = s.len == 4;
            continue;
        }
        if sub.is_full() {
            s.apply(&sub);
            intersecting = true;
            v = sub.v;
            break;
        }
        s.apply(&sub);
        v = sub.v;
        dist2 = sub.d2;
    }
    cache.store(&s);
    if let Some(p) = s.pts[..s.len].last() {
        cache.hint_a = p.hint_a;
        cache.hint_b = p.hint_b;
    }
    GjkOutcome {
        simplex: s,
        v,
        intersecting,
        iterations,
        support_calls: calls,
        scale,
    }
}

/// GJK's first simplex: the cached simplex re-evaluated under the new poses
/// (or re-placed by `seed`), else one support towards B's origin. Returns
/// it with the support calls made, the largest |w| seen, and whether the
/// query is cold (no cached simplex, no hints).
fn warm_start<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    cache: &GjkCache,
    seed: Option<Replace<'_>>,
) -> (Simplex, u32, f32, bool) {
    let mut s = Simplex::default();
    let mut calls = 0u32;
    let mut scale = 0.0f32;
    for i in 0..cache.len.min(4) {
        let (dir, [ha, hb]) = (cache.dirs[i], cache.hints[i]);
        let sp = match seed.and_then(|f| f([ha, hb])) {
            Some(w) => SupportPoint {
                w,
                dir,
                hint_a: ha,
                hint_b: hb,
                ..SupportPoint::default()
            },
            None => cso.support(dir, ha, hb),
        };
        calls += 1;
        scale = scale.max(sp.w.length());
        if sp.w.is_finite() && !s.contains(sp.w, REL_DUP2 * scale * scale) {
            s.push(sp);
        }
    }
    // A cold query (no cached simplex, no hints) asks for its supports
    // without a start while its directions swing widely: a hull below
    // 2 048 vertices is then scanned whole, faster than a walk (see
    // `ConvexPolytope::support_vertex`).
    let cold = s.len == 0 && cache.hint_a == NO_HINT && cache.hint_b == NO_HINT;
    if s.len == 0 {
        // Cold start: towards B's origin, where the CSO comes closest to 0.
        let d0 = cso.b_origin();
        let d0 = if d0.length_squared() > 0.0 && d0.is_finite() {
            d0
        } else {
            Vec3::X
        };
        let sp = cso.support(d0, cache.hint_a, cache.hint_b);
        calls += 1;
        scale = scale.max(sp.w.length());
        s.push(sp);
    }
    (s, calls, scale, cold)
}

/// The simplex (its new point pushed) reduced exhaustively in `f64`, kept
/// when it holds the origin or comes within `slack` of the last `dist2`:
/// level within rounding while the bounds are apart is kept too, since `v`
/// is then `f64`-accurate where at a grazing contact the `f32` one was
/// turned (see the module docs). `None`: no progress.
fn retry_f64(s: &Simplex, dist2: f32, slack: f32) -> Option<(Simplex, Vec3)> {
    let mut t = *s;
    let tv = t.reduce_exhaustive();
    (t.len == 4 || tv.length_squared() <= dist2 + slack).then_some((t, tv))
}
