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
