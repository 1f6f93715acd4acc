//! Distance between a sharp cylinder or cone and a sharp cylinder, cone or
//! convex polytope, at the crate's accuracy, in fewer GJK iterations.
//!
//! GJK converges only linearly on curved surfaces, and slowest where a
//! flat CSO edge (a cylinder's or cone's side generator) meets a curved
//! direction (a rim): the simplex's two ends of the edge come from
//! directions of different iterations. Here, for a requested gap below
//! [`FINE`], GJK runs to a loose gap ([`LOOSE`] of the pair's scale),
//! its witnesses name the closest
//! features (rim, side, cap, apex; a polytope's vertex, edge or face from
//! the simplex's vertex hints), and the features' closest points are
//! solved directly ([`curved_solve`]). A cylinder's side is its axis
//! segment swept by a disc of its radius normal to the axis: when the
//! closest point `p_s` of the axis is interior, `p_A − p_s` is normal to
//! the axis and the distance is `|p_A − p_s| − r` exactly (the cylinder
//! lies in the capsule of radius `r` about its axis, and
//! `p_s + r (p_A − p_s)/|p_A − p_s|` is on its side), which removes the
//! flat generator from the problem.
//!
//! The candidate is kept only under GJK's own certificate: with `u` the
//! unit vector between the candidate points `a ∈ A`, `b ∈ B`, the supports
//! of both shapes along `u` give the lower bound `μ` (a separating slab),
//! `|b − a|` is the upper bound, and the candidate is the answer when
//! `| |b − a| − μ | ≤ gap · scale` (van den Bergen 2003, §4.3.4; the scale
//! is GJK's, the largest support `|w|` of its loose run; two-sided, so
//! that a candidate point off its shape, too near, is refused), or
//! touching when `|b − a|` is within GJK's touching threshold. Otherwise
//! GJK goes on from its simplex (warm-started) to the requested gap, so
//! the answer's guarantee is GJK's either way.

// Negated comparisons (`!(x > y)`) are deliberate: they send NaN to the
// conservative branch (no answer here, GJK's).
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use glam::{Mat3, Vec3};

use super::curved_solve::{Feat, closest, demoted};
use super::distance::ClosestPoints;
use crate::collider::ShapeData;
use crate::geometry::gjk::{Cso, GjkCache, GjkOutcome, Mode, REL_ZERO, Simplex, run};
use crate::geometry::support::{NO_HINT, SupportMap};
use crate::math::Pose;
use crate::shape::{Feature, Implicit, ImplicitKind};

/// The gap GJK runs to before the features are solved: two cylinders or
/// cones; a cylinder or cone and a polytope (whose feature, from the
/// simplex's vertices, needs a closer start).
const LOOSE: [f32; 2] = [2e-2, 3e-3];
/// Requested gaps from this one up are left to GJK: its endgame is short
/// there (`new_kinds` at `10⁻³`: cone–hull 634 ns by GJK, 870 by this
/// path; cylinders on par).
const FINE: f32 = 1e-4;
/// Distance from a feature, relative to the shape's size, within which a
/// loose witness is taken to be on it (at least the loose gap itself).
const NEAR: f32 = 2e-2;

/// A shape this path handles: a sharp cylinder or cone, or a polytope.
#[derive(Clone, Copy)]
enum Part<'s> {
    Implicit(&'s Implicit),
    Hull(&'s crate::shape::ConvexPolytope),
}

impl<'s> Part<'s> {
    fn of(s: &'s ShapeData) -> Option<Self> {
        match (s.implicit(), s.polytope()) {
            (Some(i), _) if i.rounding == 0.0 => Some(Part::Implicit(i)),
            (_, Some(p)) => Some(Part::Hull(p)),
            _ => None,
        }
    }
}

/// Closest points of `a` and `b` when both are [`Part`]s, at least one a
/// cylinder or cone, and `gap` is below [`FINE`]; `None` otherwise (the
/// caller's GJK answers).
pub(super) fn closest_points(
    (a, pose_a): (&ShapeData, &Pose),
    (b, pose_b): (&ShapeData, &Pose),
    (sa, sb): (&dyn SupportMap, &dyn SupportMap),
    (pieces, gap): ([u32; 2], f32),
) -> Option<ClosestPoints> {
    let (pa, pb) = (Part::of(a)?, Part::of(b)?);
    let hull = matches!(pa, Part::Hull(_)) || matches!(pb, Part::Hull(_));
    let loose_gap = LOOSE[usize::from(hull)];
    if matches!((pa, pb), (Part::Hull(_), Part::Hull(_))) || !(gap < FINE) {
        return None;
    }
    let cso = Cso::new(sa, pose_a, sb, pose_b);
    let mut cache = GjkCache::default();
    let loose = run(&cso, &mut cache, (Mode::Distance, 0.0, loose_gap));
    let found = if loose.intersecting {
        None
    } else {
        certified(
            &cso,
            (pa, pb),
            &loose.simplex,
            (loose_gap, gap, loose.scale),
        )
    };
    let (a, b, distance) = found.unwrap_or_else(|| gjk_answer(&cso, &mut cache, loose, gap));
    Some(ClosestPoints {
        distance,
        point_a: pose_a.transform_point(a),
        point_b: pose_a.transform_point(b),
        features: [Feature::Vertex(0); 2],
        intersecting: distance == 0.0,
        pieces,
    })
}

/// GJK's answer `(a, b, distance)` (A's frame): the loose run's when it
/// found the shapes touching, else GJK on from the loose simplex (warm,
/// from `cache`) to `gap`.
fn gjk_answer<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    cache: &mut GjkCache,
    loose: GjkOutcome,
    gap: f32,
) -> (Vec3, Vec3, f32) {
    let out = if loose.intersecting {
        loose
    } else {
        run(cso, cache, (Mode::Distance, 0.0, gap))
    };
    let (a, b) = out.simplex.witnesses();
    let distance = if out.intersecting {
        0.0
    } else {
        out.v.length()
    };
    (a, b, distance)
}

/// The closest points `(a, b, |b − a|)` (A's frame) of the features that
/// hold the loose simplex's witnesses (or of a simpler feature next to
/// one, [`demoted`]), when GJK's bounds are within `gap · scale` (GJK's
/// `scale`: the largest `|w|` its loose run saw).
fn certified<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    (pa, pb): (Part<'_>, Part<'_>),
    simplex: &Simplex,
    (loose, gap, scale): (f32, f32, f32),
) -> Option<(Vec3, Vec3, f32)> {
    let (wa, wb) = simplex.witnesses();
    let pts = &simplex.pts[..simplex.len];
    let near = loose * scale;
    let fa = feature((pa, near), None, wa, pts.iter().map(|p| p.hint_a))?;
    let fb = feature(
        (pb, near),
        Some(&cso.b_frame()),
        wb,
        pts.iter().map(|p| p.hint_b),
    )?;
    let last = pts.last()?;
    let hint = (last.hint_a, last.hint_b);
    let try_pair = |pair| certify(cso, hint, pair, (wa, wb), (gap, scale));
    // The simpler neighbours are formed only when needed (most first tries
    // are certified).
    try_pair((fa, fb))
        .or_else(|| demoted(fa, wa).and_then(|f| try_pair((f, fb))))
        .or_else(|| demoted(fb, wb).and_then(|f| try_pair((fa, f))))
}

/// The features' closest points `(a, b, |b − a|)` (A's frame), when GJK's
/// bounds along `b − a` are within `gap · scale`; `(a, b, 0)` (touching)
/// when `|b − a|` is within GJK's touching threshold (`REL_ZERO · scale`).
fn certify<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    (hint_a, hint_b): (u32, u32),
    (fa, fb): (Feat, Feat),
    witnesses: (Vec3, Vec3),
    (gap, scale): (f32, f32),
) -> Option<(Vec3, Vec3, f32)> {
    let (a, b) = closest(fa, fb, witnesses)?;
    let d = b - a;
    let upper = d.length();
    let tol = gap * scale;
    // Two-sided: a valid pair has `upper ≥ distance ≥ lower`; a candidate
    // point off its shape could make `upper` too small, never certified.
    // `d / |d|`, not `try_normalize` (a second square root on the path to
    // the support).
    let u = d / upper;
    let lower = if upper > 0.0 && u.is_finite() {
        -u.dot(cso.support(u, hint_a, hint_b).w)
    } else {
        0.0
    };
    if upper <= REL_ZERO * scale && lower <= upper + tol {
        // Within GJK's touching threshold: touching, as GJK reports it.
        return Some((a, b, 0.0));
    }
    ((upper - lower).abs() <= tol).then_some((a, b, upper))
}

/// The feature of `part` (in `frame`, A's own frame when `None`) that
/// holds the loose witness `w` (A's frame); for a polytope, the distinct vertices
/// among the simplex's `hints`.
fn feature(
    (part, near): (Part<'_>, f32),
    frame: Option<&Frame>,
    w: Vec3,
    hints: impl Iterator<Item = u32>,
) -> Option<Feat> {
    let local = frame.map_or(w, |&(_, rot_t, origin)| rot_t * (w - origin));
    let f = match part {
        Part::Implicit(s) => implicit_feature(s, local, near)?,
        Part::Hull(p) => {
            let mut ids = [NO_HINT; 3];
            let mut n = 0;
            for h in hints {
                if h == NO_HINT || h as usize >= p.vertex_count() {
                    return None;
                }
                if !ids[..n].contains(&h) {
                    if n == 3 {
                        return None;
                    }
                    ids[n] = h;
                    n += 1;
                }
            }
            let v = |k: usize| p.vertex(ids[k]);
            match n {
                1 => Feat::Point(v(0)),
                2 => Feat::Segment(v(0), v(1), 0.0),
                3 => Feat::Tri([v(0), v(1), v(2)]),
                _ => return None,
            }
        }
    };
    Some(frame.map_or(f, |&(rot, _, origin)| moved(f, (rot, origin))))
}

/// A shape's frame in the query's (A's): rotation, its inverse, origin.
type Frame = (Mat3, Mat3, Vec3);

/// A feature mapped by the rotation `rot` and the translation `origin`.
fn moved(f: Feat, (rot, origin): (Mat3, Vec3)) -> Feat {
    let (p, v) = (|x| rot * x + origin, |x| rot * x);
    match f {
        Feat::Point(x) => Feat::Point(p(x)),
        Feat::Circle(c, n, r) => Feat::Circle(p(c), v(n), r),
        Feat::Segment(a, b, m) => Feat::Segment(p(a), p(b), m),
        Feat::Disc(c, n, r) => Feat::Disc(p(c), v(n), r),
        Feat::ConeSide(apex, base, r) => Feat::ConeSide(p(apex), p(base), r),
        Feat::Tri(t) => Feat::Tri(t.map(p)),
    }
}

/// The feature of a cylinder or cone (local frame) within [`NEAR`] of its
/// size or `near` of the local point `w`: a rim, a cap, the side, the
/// cone's apex.
fn implicit_feature(s: &Implicit, w: Vec3, near: f32) -> Option<Feat> {
    let (h, r) = (s.half_height, s.radius);
    let near = near.max(NEAR * h.max(r));
    let rho = Vec3::new(w.x, 0.0, w.z).length();
    let (top, bottom) = (Vec3::Y * h, Vec3::NEG_Y * h);
    match s.kind {
        ImplicitKind::Cylinder => {
            let end = if w.y > h - near {
                Some(top)
            } else if w.y < near - h {
                Some(bottom)
            } else {
                None
            };
            match (end, rho > r - near) {
                (Some(c), true) => Some(Feat::Circle(c, Vec3::Y, r)),
                (Some(c), false) => Some(Feat::Disc(c, c.normalize(), r)),
                (None, true) => Some(Feat::Segment(bottom, top, r)),
                (None, false) => None,
            }
        }
        ImplicitKind::Cone => {
            if w.distance(top) < near {
                return Some(Feat::Point(top));
            }
            let side = rho > r * (h - w.y) / (2.0 * h) - near;
            match (w.y < near - h, side) {
                (true, true) => Some(Feat::Circle(bottom, Vec3::Y, r)),
                (true, false) => Some(Feat::Disc(bottom, Vec3::NEG_Y, r)),
                (false, true) => Some(Feat::ConeSide(top, bottom, r)),
                (false, false) => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Quat;

    use super::*;
    use crate::collider::SharedShape;
    use crate::geometry::gjk::REL_GAP;

    /// The certified answer for the pair, when the closest-feature path
    /// gives one (`None`: GJK would answer).
    fn solved((a, pa): (&SharedShape, Pose), (b, pb): (&SharedShape, Pose)) -> Option<f32> {
        let (sa, sb) = (
            a.kind().data().support_map()?,
            b.kind().data().support_map()?,
        );
        let parts = (Part::of(a)?, Part::of(b)?);
        let cso = Cso::new(sa, &pa, sb, &pb);
        let hull = matches!(parts.1, Part::Hull(_));
        let gap = LOOSE[usize::from(hull)];
        let loose = run(&cso, &mut GjkCache::default(), (Mode::Distance, 0.0, gap));
        certified(&cso, parts, &loose.simplex, (gap, REL_GAP, loose.scale)).map(|(_, _, d)| d)
    }

    /// Each pair of features is solved and certified (not left to GJK),
    /// and the answer is the closed form: sides with parallel and with
    /// crossing axes, a rim on a side, a rim over a cap, a side on a cap.
    #[test]
    fn features_of_cylinders_are_solved_and_certified() {
        let cyl = SharedShape::cylinder(0.5, 1.0).expect("cylinder");
        let lying = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        let tilt = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
        let s2 = std::f32::consts::FRAC_1_SQRT_2;
        for gap in [0.25f32, 1e-3, 1e-5] {
            let corner = 0.5 + s2 * (0.5 + gap);
            let cases = [
                (Quat::IDENTITY, Vec3::new(1.0 + gap, 0.1, 0.0)),
                (lying, Vec3::new(1.0 + gap, 0.0, 0.0)),
                (lying, Vec3::new(corner, corner, 0.0)),
                (tilt, Vec3::new(0.0, 0.5 + s2 + gap, 0.0)),
                (lying, Vec3::new(0.2, 1.0 + gap, 0.0)),
            ];
            for (i, (rot, at)) in cases.into_iter().enumerate() {
                let pb = Pose::new(rot, at);
                let d = solved((&cyl, Pose::IDENTITY), (&cyl, pb));
                let d = d.unwrap_or_else(|| panic!("case {i} at gap {gap}: not certified"));
                assert!((d - gap).abs() <= 4e-6, "case {i}: {d} for {gap}");
            }
        }
    }

    /// A candidate point off its shape is not certified: a cone's apex
    /// diagonally above a cylinder's rim, against the cylinder's side as
    /// its axis swept by its radius with the axis's end accepted (the
    /// point `r` from the top centre, above the cap, outside the
    /// cylinder) is too near by 0.03; its support bound along the
    /// candidate's direction exposes it. The answer is the rim's
    /// distance or none.
    #[test]
    fn a_candidate_off_its_shape_is_not_certified() {
        let (cone, cyl) = (
            SharedShape::cone(0.5, 1.0).expect("cone"),
            SharedShape::cylinder(0.5, 1.0).expect("cylinder"),
        );
        let apex = Vec3::new(0.6, 0.6, 0.0);
        let rot = Quat::from_rotation_arc(Vec3::Y, Vec3::new(-1.0, -1.0, 0.0).normalize());
        let pa = Pose::new(rot, apex - rot * Vec3::new(0.0, 0.5, 0.0));
        let (sa, sb) = (
            cone.implicit().expect("cone"),
            cyl.implicit().expect("cylinder"),
        );
        let cso = Cso::new(sa, &pa, sb, &Pose::IDENTITY);
        let to_a = pa.inverse();
        let axis = [-0.5f32, 0.5].map(|y| to_a.transform_point(Vec3::new(0.0, y, 0.0)));
        let (top, off) = (
            axis[1],
            to_a.transform_point(Vec3::new(0.4932, 0.5822, 0.0)),
        );
        let apex_a = Vec3::new(0.0, 0.5, 0.0);
        // The point `r` from the axis's top end towards the apex.
        let wrong = top + 0.5 * (apex_a - top).normalize();
        assert!(wrong.distance(off) < 1e-3 && apex_a.distance(wrong) < 0.11);
        let truth = 0.1 * std::f32::consts::SQRT_2;
        for fb in [Feat::Segment(axis[0], axis[1], 0.5), Feat::Point(wrong)] {
            let got = certify(
                &cso,
                (NO_HINT, NO_HINT),
                (Feat::Point(apex_a), fb),
                (apex_a, wrong),
                (REL_GAP, 2.0),
            );
            if let Some((_, _, d)) = got {
                assert!((d - truth).abs() <= 1e-5, "{fb:?}: {d} for {truth}");
            }
        }
    }
}
