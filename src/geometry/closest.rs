//! Closest points and distances between primitives: point–segment,
//! segment–segment (Ericson, *Real-Time Collision Detection*, 2005,
//! §5.1.9), segment–triangle. Plain `f32`, no shapes.

use glam::Vec3;

/// Closest point to `p` on segment `[a, b]`.
#[inline]
pub fn point_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let d = b - a;
    let len2 = d.length_squared();
    if len2 <= f32::MIN_POSITIVE {
        return a;
    }
    a + d * ((p - a).dot(d) / len2).clamp(0.0, 1.0)
}

/// Closest points of segments `[p1, q1]` and `[p2, q2]`.
pub fn segment_segment(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (Vec3, Vec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    let eps = f32::MIN_POSITIVE;
    if a <= eps && e <= eps {
        return (p1, p2);
    }
    let (s, t);
    if a <= eps {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= eps {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                (s, t) = (s0, t0);
            }
        }
    }
    (p1 + d1 * s, p2 + d2 * t)
}

/// Distance between segment `[p, q]` and a closed triangle (which may be
/// degenerate).
pub fn segment_triangle_distance([p, q]: [Vec3; 2], [a, b, c]: [Vec3; 3]) -> f32 {
    let n = (b - a).cross(c - a);
    let edges = [(a, b), (b, c), (c, a)];
    let mut best = edges
        .iter()
        .map(|&(u, v)| {
            let (x, y) = segment_segment(p, q, u, v);
            x.distance(y)
        })
        .fold(f32::INFINITY, f32::min);
    if n.length_squared() == 0.0 {
        return best; // a degenerate triangle is its edges
    }
    for x in [p, q] {
        if inside_prism(x, [a, b, c], n) {
            best = best.min((x - a).dot(n).abs() / n.length());
        }
    }
    let (dp, dq) = (n.dot(p - a), n.dot(q - a));
    if dp * dq < 0.0 {
        let x = p + (q - p) * (dp / (dp - dq));
        if inside_prism(x, [a, b, c], n) {
            return 0.0;
        }
    }
    best
}

/// Whether `x` projects into the triangle (normal `n`, not normalised).
fn inside_prism(x: Vec3, [a, b, c]: [Vec3; 3], n: Vec3) -> bool {
    [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(u, v)| (v - u).cross(x - u).dot(n) >= 0.0)
}

/// Closest point to `p` on the closed triangle `[a, b, c]` (Ericson,
/// *Real-Time Collision Detection*, §5.1.5: the Voronoi region of `p`
/// decides between a vertex, an edge and the face). A degenerate triangle
/// is its edges.
pub fn point_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> Vec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    if ab.cross(ac).length_squared() <= f32::MIN_POSITIVE {
        return [(a, b), (b, c), (c, a)]
            .map(|(u, v)| point_segment(p, u, v))
            .into_iter()
            .min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p)))
            .unwrap_or(a);
    }
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

/// The closest points of two closed triangles, `(distance, on a, on b)`.
/// Two triangles that intersect (decided exactly, by
/// [`triangles_intersect`](super::tritri::triangles_intersect)) are at
/// distance 0, the points a point they share (to rounding). Otherwise the
/// closest pair is a vertex and the other triangle, or two edges (the six
/// vertex–triangle and nine edge–edge candidates are all tried).
pub fn triangle_triangle(a: [Vec3; 3], b: [Vec3; 3]) -> (f32, Vec3, Vec3) {
    let mut best = (f32::INFINITY, a[0], b[0]);
    let mut keep = |p: Vec3, q: Vec3| {
        let d = p.distance_squared(q);
        if d < best.0 {
            best = (d, p, q);
        }
    };
    for i in 0..3 {
        let (p1, q1) = (a[i], a[(i + 1) % 3]);
        for j in 0..3 {
            let (x, y) = segment_segment(p1, q1, b[j], b[(j + 1) % 3]);
            keep(x, y);
        }
    }
    for &p in &a {
        keep(p, point_triangle(p, b));
    }
    for &q in &b {
        keep(point_triangle(q, a), q);
    }
    let (d2, p, q) = best;
    if super::tritri::triangles_intersect(a, b) {
        // A shared point: the candidates' closest pair, or where an edge
        // of one crosses the other (non-coplanar triangles cross there).
        let (mut p, mut q) = (p, q);
        for (e, t, flip) in [(a, b, false), (b, a, true)] {
            for i in 0..3 {
                if let Some((x, y)) = edge_crossing(e[i], e[(i + 1) % 3], t)
                    && x.distance_squared(y) < p.distance_squared(q)
                {
                    (p, q) = if flip { (y, x) } else { (x, y) };
                }
            }
        }
        return (0.0, p, q);
    }
    (d2.sqrt(), p, q)
}

/// Where segment `[p, q]` crosses the plane of triangle `t`, with the
/// closest point of `t` to it; `None` when it does not cross the plane.
fn edge_crossing(p: Vec3, q: Vec3, t: [Vec3; 3]) -> Option<(Vec3, Vec3)> {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let (dp, dq) = (n.dot(p - t[0]), n.dot(q - t[0]));
    if dp * dq > 0.0 || dp == dq {
        return None;
    }
    let x = p + (q - p) * (dp / (dp - dq));
    Some((x, point_triangle(x, t)))
}

/// The closest points of segment `[p, q]` and a closed triangle,
/// `(distance, on the segment, on the triangle)`: where the segment crosses
/// the triangle, or the nearest of its ends to the triangle and its nearest
/// approach to the three edges.
pub fn segment_triangle(p: Vec3, q: Vec3, t: [Vec3; 3]) -> (f32, Vec3, Vec3) {
    let mut best = (f32::INFINITY, p, t[0]);
    let mut keep = |x: Vec3, y: Vec3| {
        let d = x.distance_squared(y);
        if d < best.0 {
            best = (d, x, y);
        }
    };
    for x in [p, q] {
        keep(x, point_triangle(x, t));
    }
    for i in 0..3 {
        let (x, y) = segment_segment(p, q, t[i], t[(i + 1) % 3]);
        keep(x, y);
    }
    if let Some((x, y)) = edge_crossing(p, q, t) {
        keep(x, y);
    }
    (best.0.sqrt(), best.1, best.2)
}
