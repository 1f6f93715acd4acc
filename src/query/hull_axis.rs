//! The cached separating axis of a boolean hull pair, tested by support
//! values alone.
//!
//! GJK's boolean test keeps the last separating axis `v` it found and
//! tries it first (SOLID's coherence, van den Bergen 2003, §4.3.6): the
//! plane normal to `v` still separates when `v · w > 0` for the CSO's
//! support `w = s_A(−v) − s_B(v)`. Only the value `v · w` matters, and
//! it splits into the two hulls' support values, each in its own frame:
//!
//! `v · w = min_a v · a − (max_b (Rᵀv) · b + v · t)`
//!
//! (`R`, `t`: B's frame in A's, so that a point `b` of B is `R b + t`).
//! A hull under 64 vertices gives its support value by a whole scan of
//! its vertex lanes with no index to track and no branch per vertex
//! (`ConvexPolytope::support_value`), instead of two hill-climbs whose
//! neighbour tests branch on the data. The vertex hints stay as they
//! were: the climbs that need them (GJK's) start from the last ones.
//!
//! **Rounding.** Each support value is the `f32` dot product of the
//! direction and a vertex, the value of the support vertex as GJK forms
//! it; the point `R b + t` is not formed, so the sum rounds differently
//! from GJK's `v · (a − (R b + t))`, but both are within a few ulps of
//! `|v|` times the magnitudes involved (the vertices, `t`), an order below
//! GJK's touching tolerance (`10⁻⁶` of the pair's scale): a pair this
//! test calls apart is one GJK's own first step would call apart up to
//! the same rounding. A non-finite value never says apart.

use crate::geometry::gjk::{Cso, GjkCache};
use crate::shape::ConvexPolytope;

/// Whether the pair's last separating axis (in `cache`) still separates
/// the hulls at the poses of `cso` (built from `pa` and `pb`).
#[inline]
pub(crate) fn hull_axis_separates(
    pa: &ConvexPolytope,
    pb: &ConvexPolytope,
    cso: &Cso<'_, ConvexPolytope, ConvexPolytope>,
    cache: &mut GjkCache,
) -> bool {
    let Some(v) = cache.separating_axis() else {
        return false;
    };
    let (_, rot_t, trans) = cso.b_frame();
    let low_a = -pa.support_value(-v, &mut cache.hint_a);
    let high_b = pb.support_value(rot_t * v, &mut cache.hint_b) + v.dot(trans);
    let gap = low_a - high_b;
    gap > 0.0 && gap < f32::INFINITY
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::hull_axis_separates;
    use crate::geometry::gjk::{Cso, GjkCache};
    use crate::math::Pose;
    use crate::shape::{ConvexHull, ConvexPolytope};
    use crate::testkit::Rng;

    /// A hull of `points` random points in a shell (a thin one past 64
    /// points, so that most are vertices and the hull is walked).
    fn hull(rng: &mut Rng, points: usize) -> ConvexPolytope {
        let inner = if points > 64 { 0.97 } else { 0.3 };
        let pts: Vec<Vec3> = (0..points)
            .map(|_| rng.unit_vector() * rng.range(inner, 1.0) + Vec3::new(0.2, -0.1, 0.3))
            .collect();
        ConvexPolytope::from_hull(&ConvexHull::new(&pts).expect("hull"))
    }

    /// `min_a v·a − max_b v·b` over the hulls' vertices at their poses
    /// (`v` in A's frame), in `f64`, and the magnitude it is relative to.
    fn reference(
        (pa, a): (&ConvexPolytope, &Pose),
        (pb, b): (&ConvexPolytope, &Pose),
        v: Vec3,
    ) -> (f64, f64) {
        let q = |p: &Pose| p.rotation.as_dquat().normalize();
        let u = q(a) * v.as_dvec3();
        let at = |p: &Pose, x: Vec3| q(p) * x.as_dvec3() + p.translation.as_dvec3();
        let low = pa.vertices().iter().map(|&x| u.dot(at(a, x)));
        let high = pb.vertices().iter().map(|&x| u.dot(at(b, x)));
        let gap = low.fold(f64::INFINITY, f64::min) - high.fold(f64::NEG_INFINITY, f64::max);
        let reach =
            |p: &ConvexPolytope| p.vertices().iter().map(|x| x.length()).fold(0.0, f32::max);
        let moved = (b.translation.as_dvec3() - a.translation.as_dvec3()).length();
        (gap, u.length() * (f64::from(reach(pa) + reach(pb)) + moved))
    }

    /// Places B on the far side of the plane normal to `v` (A's frame)
    /// from A, `offset` beyond where their supports along it meet.
    fn place(
        pa: &ConvexPolytope,
        a: &Pose,
        pb: &ConvexPolytope,
        rb: Quat,
        v: Vec3,
        offset: f64,
    ) -> Pose {
        let u = (a.rotation * v).as_dvec3();
        let lo = pa
            .vertices()
            .iter()
            .map(|&x| u.dot((a.rotation * x).as_dvec3()));
        let hi = pb.vertices().iter().map(|&x| u.dot((rb * x).as_dvec3()));
        let s = offset * u.length() - lo.fold(f64::INFINITY, f64::min)
            + hi.fold(f64::NEG_INFINITY, f64::max);
        let t = a.translation.as_dvec3() - u * (s / u.length_squared());
        Pose::new(rb, t.as_vec3())
    }

    /// The cached axis tested by support values against the `f64` gap
    /// along it, for hulls scanned (under 64 vertices, most not a
    /// multiple of 8) and walked (from random hints): poses turned or
    /// not, at the origin and far from it, B placed from `2⁻²` to `2⁻²⁴`
    /// (of the hulls' unit size) either side of touching along the axis
    /// and exactly on it. Within `10⁻⁶` of the magnitudes (GJK's touching
    /// tolerance) a pair is not judged.
    #[test]
    fn the_cached_axis_by_values_agrees_with_the_f64_gap() {
        let mut rng = Rng::new(45);
        let (mut apart, mut touching, mut odd, mut walked) = (0, 0, 0, 0);
        for case in 0..240 {
            let points = if case % 3 == 2 { 400 } else { 12 + case % 40 };
            let (pa, pb) = (hull(&mut rng, points), hull(&mut rng, points));
            odd += usize::from(pa.vertex_count() % 8 != 0);
            walked += usize::from(pb.vertex_count() >= 64);
            let turned = case % 4 != 0;
            let rot = |rng: &mut Rng| {
                if turned {
                    rng.rotation()
                } else {
                    Quat::IDENTITY
                }
            };
            let far = [0.0, 1e5, -3e3][case % 3];
            let a = Pose::new(rot(&mut rng), Vec3::new(far, -far, 0.5 * far));
            let rb = rot(&mut rng);
            let v = rng.unit_vector() * rng.range(0.01, 50.0);
            for k in [2, 6, 10, 16, 20, 24] {
                for offset in [-(2f64.powi(-k)), 0.0, 2f64.powi(-k)] {
                    let b = place(&pa, &a, &pb, rb, v, offset);
                    let hints = [rng.below(pa.vertex_count()), rng.below(pb.vertex_count())];
                    let mut cache = GjkCache::with_axis(v, hints.map(|h| h as u32));
                    let cso = Cso::new(&pa, &a, &pb, &b);
                    let got = hull_axis_separates(&pa, &pb, &cso, &mut cache);
                    let (gap, mag) = reference((&pa, &a), (&pb, &b), v);
                    if gap.abs() <= 1e-6 * mag {
                        continue;
                    }
                    assert_eq!(
                        got,
                        gap > 0.0,
                        "case {case}, offset {offset:e}: f64 gap {gap:e} of {mag:e}"
                    );
                    if gap > 0.0 { apart += 1 } else { touching += 1 }
                }
            }
        }
        assert!(
            apart > 1000 && touching > 1000,
            "{apart} apart, {touching} touching"
        );
        assert!(odd > 100, "{odd} hulls whose last chunk is padded");
        assert!(walked >= 80, "{walked} hulls walked");
    }

    /// No axis cached, or a NaN one: never apart.
    #[test]
    fn no_axis_or_a_nan_one_is_not_apart() {
        let mut rng = Rng::new(7);
        let (pa, pb) = (hull(&mut rng, 30), hull(&mut rng, 30));
        let (a, b) = (
            Pose::IDENTITY,
            Pose::new(Quat::IDENTITY, Vec3::new(9.0, 0.0, 0.0)),
        );
        let cso = Cso::new(&pa, &a, &pb, &b);
        assert!(!hull_axis_separates(&pa, &pb, &cso, &mut GjkCache::new()));
        for v in [Vec3::NAN, Vec3::new(f32::NAN, 1.0, 0.0)] {
            let mut cache = GjkCache::with_axis(v, [0, 0]);
            assert!(!hull_axis_separates(&pa, &pb, &cso, &mut cache), "{v}");
        }
        let mut cache = GjkCache::with_axis(Vec3::NEG_X, [0, 0]);
        assert!(hull_axis_separates(&pa, &pb, &cso, &mut cache));
    }
}
