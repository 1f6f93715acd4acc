//! An exact test of closed triangles (touching counts) on `f64`
//! coordinates, independent of the crate's own (`geometry::tritri`): a
//! closed segment–triangle test on Shewchuk's orientation predicates (the
//! `robust` crate, exact for `f64` inputs), and the triangles meet iff an
//! edge of one meets the other. With the every-pair sweep
//! [`touching_pairs`], the reference of `tests/core/exact_trees.rs`.

use std::collections::BTreeSet;

use glam::DVec3;
use robust::{Coord, Coord3D, orient2d, orient3d};

fn sign(x: f64) -> i8 {
    (x > 0.0) as i8 - (x < 0.0) as i8
}

/// The exact sign of Shewchuk's `orient3d(a, b, c, d)`: negative when `d`
/// lies on the side the normal of `abc` (counter-clockwise) points to.
pub fn o3(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> i8 {
    let k = |p: DVec3| Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    };
    sign(orient3d(k(a), k(b), k(c), k(d)))
}

/// `p` without coordinate `drop`.
fn flat(p: DVec3, drop: usize) -> Coord<f64> {
    let (i, j) = ((drop + 1) % 3, (drop + 2) % 3);
    Coord { x: p[i], y: p[j] }
}

fn o2(a: Coord<f64>, b: Coord<f64>, c: Coord<f64>) -> i8 {
    sign(orient2d(a, b, c))
}

/// A coordinate to drop that keeps the triangle a triangle (its normal's
/// component along it is not 0), or `None` for a degenerate triangle.
pub fn projection(t: [DVec3; 3]) -> Option<usize> {
    (0..3).find(|&k| o2(flat(t[0], k), flat(t[1], k), flat(t[2], k)) != 0)
}

fn same_side(s: [i8; 3]) -> bool {
    s.iter().all(|&x| x >= 0) || s.iter().all(|&x| x <= 0)
}

/// Closed segments in a plane (as 2D points).
fn segments_2d(p: Coord<f64>, q: Coord<f64>, r: Coord<f64>, s: Coord<f64>) -> bool {
    let within = |x: Coord<f64>, a: Coord<f64>, b: Coord<f64>| {
        a.x.min(b.x) <= x.x && x.x <= a.x.max(b.x) && a.y.min(b.y) <= x.y && x.y <= a.y.max(b.y)
    };
    let (d1, d2, d3, d4) = (o2(p, q, r), o2(p, q, s), o2(r, s, p), o2(r, s, q));
    (d1 * d2 < 0 && d3 * d4 < 0)
        || (d1 == 0 && within(r, p, q))
        || (d2 == 0 && within(s, p, q))
        || (d3 == 0 && within(p, r, s))
        || (d4 == 0 && within(q, r, s))
}

/// The closed segment `pq` against the closed, non-degenerate triangle `t`.
fn segment_triangle(p: DVec3, q: DVec3, t: [DVec3; 3]) -> bool {
    let (sp, sq) = (o3(t[0], t[1], t[2], p), o3(t[0], t[1], t[2], q));
    if sp * sq > 0 {
        return false;
    }
    if sp != 0 || sq != 0 {
        // One crossing point of the plane, on the segment: is it inside?
        return same_side([
            o3(p, q, t[0], t[1]),
            o3(p, q, t[1], t[2]),
            o3(p, q, t[2], t[0]),
        ]);
    }
    // In the triangle's plane: a projection that keeps it a triangle.
    let k = projection(t).expect("non-degenerate");
    let (p, q, [a, b, c]) = (flat(p, k), flat(q, k), t.map(|v| flat(v, k)));
    let inside = |x| same_side([o2(a, b, x), o2(b, c, x), o2(c, a, x)]);
    inside(p)
        || inside(q)
        || segments_2d(p, q, a, b)
        || segments_2d(p, q, b, c)
        || segments_2d(p, q, c, a)
}

/// Two closed triangles meet iff an edge of one meets the other: the
/// intersection of two triangles is convex, and its extreme points on the
/// line of the two planes (or, coplanar, a crossing of the boundaries or
/// one triangle inside the other) lie on an edge.
pub fn triangles_meet(a: [DVec3; 3], b: [DVec3; 3]) -> bool {
    (0..3).any(|i| segment_triangle(a[i], a[(i + 1) % 3], b))
        || (0..3).any(|i| segment_triangle(b[i], b[(i + 1) % 3], a))
}

/// Every touching pair `[i, j]` of triangles `ta[i]`, `tb[j]` (all
/// non-degenerate: panics otherwise), by [`triangles_meet`] on every pair
/// whose exact boxes meet (a sweep along x).
pub fn touching_pairs(ta: &[[DVec3; 3]], tb: &[[DVec3; 3]]) -> BTreeSet<[u32; 2]> {
    for t in ta.iter().chain(tb) {
        assert!(projection(*t).is_some(), "a degenerate triangle: {t:?}");
    }
    let boxes = |ts: &[[DVec3; 3]]| -> Vec<(DVec3, DVec3)> {
        ts.iter()
            .map(|t| (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2])))
            .collect()
    };
    let (ba, bb) = (boxes(ta), boxes(tb));
    let mut order: Vec<usize> = (0..tb.len()).collect();
    order.sort_by(|&i, &j| bb[i].0.x.total_cmp(&bb[j].0.x));
    let width = bb.iter().map(|b| b.1.x - b.0.x).fold(0.0, f64::max);
    let mut out = BTreeSet::new();
    for (i, (lo, hi)) in ba.iter().enumerate() {
        let start = order.partition_point(|&j| bb[j].0.x < lo.x - width);
        for &j in order[start..].iter().take_while(|&&j| bb[j].0.x <= hi.x) {
            let (l, h) = bb[j];
            if lo.cmple(h).all() && l.cmple(*hi).all() && triangles_meet(ta[i], tb[j]) {
                out.insert([i as u32, j as u32]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::tritri::triangles_intersect;
    use crate::testkit::Rng;
    use glam::Vec3;

    /// The two exact tests, written independently, agree on triangles
    /// that touch, cross, lie in one plane (overlapping, sharing an edge
    /// or a vertex, apart) or are apart, on a coarse grid of coordinates
    /// so that coincidences are common.
    #[test]
    fn agrees_with_the_crates_exact_test() {
        let mut rng = Rng::new(5);
        let mut point = |flat: bool| {
            let v = Vec3::new(
                rng.below(5) as f32,
                rng.below(5) as f32,
                if flat { 0.0 } else { rng.below(5) as f32 },
            );
            v * 0.25
        };
        let (mut meet, mut n) = (0, 0);
        while n < 20_000 {
            let flat = n % 2 == 0;
            let a = [point(flat), point(flat), point(flat)];
            let b = [point(flat), point(flat), point(flat)];
            let d = |t: [Vec3; 3]| t.map(|p| p.as_dvec3());
            if projection(d(a)).is_none() || projection(d(b)).is_none() {
                continue;
            }
            n += 1;
            let want = triangles_intersect(a, b);
            assert_eq!(triangles_meet(d(a), d(b)), want, "{a:?} {b:?}");
            meet += usize::from(want);
        }
        assert!(meet > 4000 && meet < 16_000, "{meet} of {n} meet");
    }
}
