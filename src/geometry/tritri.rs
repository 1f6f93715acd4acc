//! Exact triangle–triangle intersection test for OBBTree / RAPID leaves.
//!
//! The non-degenerate case follows O. Devillers and P. Guigue, *"Fast and robust triangle-triangle
//! overlap test using orientation predicates"*, Journal of Graphics Tools 8(1), 2003 (here "GD"):
//! the whole decision is made from signs of 3×3 / 2×2 orientation determinants, never from a
//! constructed point, so it can be made exact by evaluating every determinant with Shewchuk's
//! adaptive-precision predicates (`robust::orient3d` / `robust::orient2d`).
//!
//! Why this is exact for `f32` input: each coordinate converts to `f64` exactly, and Shewchuk's
//! predicates return the exact sign of the determinant of their (`f64`) arguments as long as no
//! intermediate product overflows or underflows. With `f32`-range inputs (|x| ≤ 3.4e38, smallest
//! subnormal 1.4e-45) the degree-3 products stay far inside the `f64` exponent range, so every
//! sign below is the sign of the real-number determinant of the given points. Projections onto a
//! coordinate plane only *proj* a coordinate, so the 2D predicates are exact in the same way.
//!
//! Case structure of [`triangles_intersect`]:
//! 1. signs of `a`'s vertices against the plane of `b` (and vice versa); all on one strict side
//!    means separated (GD §3, first rejection).
//! 2. an all-zero sign triple means that the reference triangle is degenerate (a segment or point
//!    has no plane, every orientation against it is 0) or that both triangles are coplanar; those
//!    go to `degenerate_or_coplanar`, which classifies both inputs exactly.
//! 3. otherwise both triangles are proper and cross each other's plane: GD's canonical
//!    permutation and the two-predicate interval test on the line of the two planes.

#![forbid(unsafe_code)]

use core::cmp::Ordering;

use glam::Vec3;
use robust::{Coord, Coord3D, orient2d, orient3d};

/// Whether the closed triangles `a` and `b` share at least one point. Exact for the f32 inputs
/// given: every sign decision is an adaptive-precision orientation predicate (Shewchuk's
/// orient3d / orient2d via the `robust` crate), so near-touching triangles are never misreported.
/// Degenerate triangles (repeated or collinear vertices: segments and points) are handled exactly
/// too.
///
/// Touching counts as intersecting (shared vertex, vertex on edge, edge on face, …).
/// Inputs with a non-finite coordinate (NaN, ±∞) describe no triangle; they return `false`.
pub fn triangles_intersect(a: [Vec3; 3], b: [Vec3; 3]) -> bool {
    if !a.iter().chain(b.iter()).all(|v| v.is_finite()) {
        return false;
    }
    // Signs of a's vertices w.r.t. the plane of b (all 0 when b is degenerate).
    let da = plane_signs(b, a);
    if strictly_one_side(da) {
        return false;
    }
    if da == [0; 3] {
        return degenerate_or_coplanar(a, b);
    }
    // Here b is a proper triangle and a is not contained in its plane.
    let db = plane_signs(a, b);
    if strictly_one_side(db) {
        return false;
    }
    if db == [0; 3] {
        // b is proper and not coplanar with a, so a must be degenerate (no plane).
        return degenerate_or_coplanar(a, b);
    }
    gd_non_coplanar(a, da, b, db)
}

// ---------------------------------------------------------------------------------------------
// Exact predicates
// ---------------------------------------------------------------------------------------------

/// Exact sign of an adaptive predicate's result: `1`, `0` or `-1`.
#[inline]
fn sign(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

#[inline]
fn c3(p: Vec3) -> Coord3D<f32> {
    Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// GD's `[a, b, c, d]`: the exact sign of `(d − a) · ((b − a) × (c − a))`, i.e. positive when `d`
/// lies on the side the normal of triangle `abc` (counter-clockwise seen from that side) points
/// to. Shewchuk's `orient3d(a, b, c, d)` is `det[a − d; b − d; c − d]`, which is the negation.
#[inline]
pub(crate) fn orient3(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> i8 {
    -sign(orient3d(c3(a), c3(b), c3(c), c3(d)))
}

/// A point projected onto a coordinate plane (one coordinate dropped, exactly).
type P2 = Coord<f32>;

/// Exact sign of the 2D orientation: positive when `a, b, c` turn counter-clockwise.
#[inline]
fn orient2(a: P2, b: P2, c: P2) -> i8 {
    sign(orient2d(a, b, c))
}

/// A coordinate plane to project on (by dropping the third coordinate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proj {
    /// Drop x: (y, z).
    Yz,
    /// Drop y: (z, x).
    Zx,
    /// Drop z: (x, y).
    Xy,
}

/// Projects `p` by dropping one coordinate (exact: no arithmetic happens).
#[inline]
fn project(p: Vec3, proj: Proj) -> P2 {
    match proj {
        Proj::Yz => Coord { x: p.y, y: p.z },
        Proj::Zx => Coord { x: p.z, y: p.x },
        Proj::Xy => Coord { x: p.x, y: p.y },
    }
}

fn project3(t: [Vec3; 3], proj: Proj) -> [P2; 3] {
    t.map(|p| project(p, proj))
}

/// A coordinate plane onto which `a, b, c` project to a proper (non-collinear) triangle, or `None`
/// when the three points are collinear in 3D.
///
/// The three projected orientations are exactly the components of `(b − a) × (c − a)`, so
/// they all vanish iff the points are collinear; any plane with a non-zero one projects the
/// plane of `abc` bijectively, which preserves every incidence inside that plane.
fn proper_projection(a: Vec3, b: Vec3, c: Vec3) -> Option<Proj> {
    [Proj::Xy, Proj::Yz, Proj::Zx]
        .into_iter()
        .find(|&d| orient2(project(a, d), project(b, d), project(c, d)) != 0)
}

/// Lexicographic (x, y, z) order. Along a line it is monotone, so on collinear points it orders
/// them as the line does — an exact way to find a segment's extremes and to compare positions.
fn lex_cmp(a: Vec3, b: Vec3) -> Ordering {
    a.x.partial_cmp(&b.x)
        .unwrap_or(Ordering::Equal)
        .then(a.y.partial_cmp(&b.y).unwrap_or(Ordering::Equal))
        .then(a.z.partial_cmp(&b.z).unwrap_or(Ordering::Equal))
}

/// Lexicographic (x, y) order on projected points; see [`lex_cmp`].
fn lex_cmp2(a: P2, b: P2) -> Ordering {
    a.x.partial_cmp(&b.x)
        .unwrap_or(Ordering::Equal)
        .then(a.y.partial_cmp(&b.y).unwrap_or(Ordering::Equal))
}

/// Signs `[t, t, t, p_i]` of the vertices `p` against the plane of `t` (all zero if `t` is
/// degenerate).
fn plane_signs(t: [Vec3; 3], p: [Vec3; 3]) -> [i8; 3] {
    let [a, b, c] = t;
    p.map(|v| orient3(a, b, c, v))
}

/// All three signs strictly positive or all strictly negative.
fn strictly_one_side(s: [i8; 3]) -> bool {
    (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0)
}

// ---------------------------------------------------------------------------------------------
// Guigue–Devillers, non-coplanar case (paper §3)
// ---------------------------------------------------------------------------------------------

/// Canonical form of GD §3: rotates `t` (an even permutation, so its plane keeps its orientation)
/// so that its first vertex is alone on its side of the other triangle's plane, and reports
/// whether the other triangle must swap its last two vertices (flipping its plane) to put that
/// vertex on the non-negative side. `s` are the signs of `t`'s vertices against the other plane;
/// they are neither all zero nor all strictly on one side.
///
/// The pivot is preferably a vertex strictly off the plane with the other two on the opposite
/// side or on the plane; failing that (signs `0,+,+` or `0,−,−`), the on-plane vertex facing two
/// strict ones. Either way the two edges leaving the pivot are the ones that meet the other plane,
/// which is what the interval test needs. Returns the rotated triangle, its rotated signs and
/// the flip flag.
fn canonical(t: [Vec3; 3], s: [i8; 3]) -> ([Vec3; 3], [i8; 3], bool) {
    let rot = |i: usize| {
        (
            [t[i], t[(i + 1) % 3], t[(i + 2) % 3]],
            [s[i], s[(i + 1) % 3], s[(i + 2) % 3]],
        )
    };
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        if s[i] > 0 && s[j] <= 0 && s[k] <= 0 {
            let (t, s) = rot(i);
            return (t, s, false);
        }
        if s[i] < 0 && s[j] >= 0 && s[k] >= 0 {
            let (t, s) = rot(i);
            return (t, s, true);
        }
    }
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        if s[i] == 0 && s[j] < 0 && s[k] < 0 {
            let (t, s) = rot(i);
            return (t, s, false);
        }
        if s[i] == 0 && s[j] > 0 && s[k] > 0 {
            let (t, s) = rot(i);
            return (t, s, true);
        }
    }
    // Unreachable for valid `s` (all cases are covered above); keep the input as is.
    (t, s, false)
}

/// Swaps the last two vertices (reverses the triangle's orientation, keeps vertex 0).
fn swap_qr<T: Copy>(t: [T; 3]) -> [T; 3] {
    [t[0], t[2], t[1]]
}

/// GD §3 for two proper triangles that each cross (or touch) the other's plane without being
/// coplanar. `da`: signs of `a`'s vertices against plane `b`; `db`: of `b`'s against plane `a`.
///
/// After the canonical permutation `p1` is alone on the non-negative side of plane 2 and `p2`
/// alone on the non-negative side of plane 1. Both triangles then cut the line `L = π1 ∩ π2` in
/// intervals `[i, j]` (edges `p1q1`, `p1r1`) and `[k, l]` (edges `p2q2`, `p2r2`), and the paper
/// shows they overlap iff `k ≤ j` and `i ≤ l`, i.e. iff
/// `[p1, q1, p2, q2] ≤ 0` and `[p1, r1, r2, p2] ≤ 0`.
fn gd_non_coplanar(a: [Vec3; 3], da: [i8; 3], b: [Vec3; 3], db: [i8; 3]) -> bool {
    // Canonical form of a; swapping q2/r2 flips plane 2 but does not change db's values.
    let (a, _, flip_b) = canonical(a, da);
    let (b, db) = if flip_b {
        (swap_qr(b), swap_qr(db))
    } else {
        (b, db)
    };
    // Canonical form of b; db was measured against a's plane, which the rotation of a kept.
    let (b, _, flip_a) = canonical(b, db);
    let a = if flip_a { swap_qr(a) } else { a };
    let [p1, q1, r1] = a;
    let [p2, q2, r2] = b;
    orient3(p1, q1, p2, q2) <= 0 && orient3(p1, r1, r2, p2) <= 0
}

// ---------------------------------------------------------------------------------------------
// Guigue–Devillers, coplanar case (paper §4)
// ---------------------------------------------------------------------------------------------

/// GD §4 on two proper, coplanar triangles projected (bijectively) to 2D: orients both
/// counter-clockwise, then runs the region-based test.
fn gd_coplanar_2d(t1: [P2; 3], t2: [P2; 3]) -> bool {
    let ccw = |t: [P2; 3]| {
        if orient2(t[0], t[1], t[2]) < 0 {
            swap_qr(t)
        } else {
            t
        }
    };
    gd_ccw_2d(ccw(t1), ccw(t2))
}

/// GD §4: locate `p1` among the 7 regions cut out by the edge lines of `t2` (both triangles are
/// counter-clockwise). Inside `t2` means overlap; otherwise `t2` is rotated so that `p1` lies in
/// the region beyond edge `r2p2` ([`gd_edge_region`]) or beyond vertex `r2`
/// ([`gd_vertex_region`]), where a fixed decision tree of orientations finishes the test.
fn gd_ccw_2d(t1: [P2; 3], t2: [P2; 3]) -> bool {
    let p1 = t1[0];
    let [p2, q2, r2] = t2;
    let in_pq = orient2(p2, q2, p1) >= 0;
    let in_qr = orient2(q2, r2, p1) >= 0;
    let in_rp = orient2(r2, p2, p1) >= 0;
    match (in_pq, in_qr, in_rp) {
        (true, true, true) => true,
        (true, true, false) => gd_edge_region(t1, [p2, q2, r2]),
        (true, false, true) => gd_edge_region(t1, [r2, p2, q2]),
        (false, true, true) => gd_edge_region(t1, [q2, r2, p2]),
        (true, false, false) => gd_vertex_region(t1, [p2, q2, r2]),
        (false, true, false) => gd_vertex_region(t1, [q2, r2, p2]),
        // Beyond p2q2 and q2r2 (the "all three outside" combination cannot occur for a proper
        // counter-clockwise t2, and GD does not look at r2p2 here either).
        (false, false, _) => gd_vertex_region(t1, [r2, p2, q2]),
    }
}

/// GD §4, `p1` in the region of vertex `r2` (outside edges `q2r2` and `r2p2`): decides by where
/// the edges of `t1` leaving `p1` pass relative to `r2` and its two edges.
fn gd_vertex_region(t1: [P2; 3], t2: [P2; 3]) -> bool {
    let [p1, q1, r1] = t1;
    let [p2, q2, r2] = t2;
    if orient2(r2, p2, q1) >= 0 {
        if orient2(r2, q2, q1) <= 0 {
            if orient2(p1, p2, q1) > 0 {
                orient2(p1, q2, q1) <= 0
            } else {
                orient2(p1, p2, r1) >= 0 && orient2(q1, r1, p2) >= 0
            }
        } else {
            orient2(p1, q2, q1) <= 0 && orient2(r2, q2, r1) <= 0 && orient2(q1, r1, q2) >= 0
        }
    } else if orient2(r2, p2, r1) >= 0 {
        if orient2(q1, r1, r2) >= 0 {
            orient2(p1, p2, r1) >= 0
        } else {
            orient2(q1, r1, q2) >= 0 && orient2(r2, r1, q2) >= 0
        }
    } else {
        false
    }
}

/// GD §4, `p1` in the region beyond edge `r2p2` only: decides whether the edges of `t1` leaving
/// `p1` (or `t1` itself) reach across that edge into `t2`.
fn gd_edge_region(t1: [P2; 3], t2: [P2; 3]) -> bool {
    let [p1, q1, r1] = t1;
    let [p2, _, r2] = t2;
    if orient2(r2, p2, q1) >= 0 {
        if orient2(p1, p2, q1) >= 0 {
            orient2(p1, q1, r2) >= 0
        } else {
            orient2(q1, r1, p2) >= 0 && orient2(r1, p1, p2) >= 0
        }
    } else {
        orient2(r2, p2, r1) >= 0
            && orient2(p1, p2, r1) >= 0
            && (orient2(p1, r1, r2) >= 0 || orient2(q1, r1, r2) >= 0)
    }
}

// ---------------------------------------------------------------------------------------------
// Degenerate inputs
// ---------------------------------------------------------------------------------------------

/// A triangle classified exactly by the rank of its vertex set.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Proper triangle and a coordinate plane onto which it projects without collapsing.
    Triangle([Vec3; 3], Proj),
    /// Collinear vertices, not all equal: the segment between the two extreme vertices.
    Segment(Vec3, Vec3),
    /// Three equal vertices.
    Point(Vec3),
}

/// Exact classification. Collinearity is "all three projected orientations are 0" (the cross
/// product of two edges vanishes); a collinear triple's extreme points are its lexicographic
/// minimum and maximum ([`lex_cmp`]).
fn classify(t: [Vec3; 3]) -> Shape {
    if let Some(proj) = proper_projection(t[0], t[1], t[2]) {
        return Shape::Triangle(t, proj);
    }
    let mut lo = t[0];
    let mut hi = t[0];
    for &v in &t[1..] {
        if lex_cmp(v, lo) == Ordering::Less {
            lo = v;
        }
        if lex_cmp(v, hi) == Ordering::Greater {
            hi = v;
        }
    }
    if lex_cmp(lo, hi) == Ordering::Equal {
        Shape::Point(lo)
    } else {
        Shape::Segment(lo, hi)
    }
}

/// Everything the GD fast path cannot decide: at least one input is degenerate (so it has no
/// plane), or both are proper and coplanar (the only way two proper triangles reach here — see
/// [`triangles_intersect`]).
fn degenerate_or_coplanar(a: [Vec3; 3], b: [Vec3; 3]) -> bool {
    use Shape::{Point, Segment, Triangle};
    match (classify(a), classify(b)) {
        (Triangle(ta, proj), Triangle(tb, _)) => {
            gd_coplanar_2d(project3(ta, proj), project3(tb, proj))
        }
        (Triangle(t, proj), Segment(p, q)) | (Segment(p, q), Triangle(t, proj)) => {
            segment_triangle(p, q, t, proj)
        }
        (Triangle(t, proj), Point(p)) | (Point(p), Triangle(t, proj)) => point_triangle(p, t, proj),
        (Segment(p, q), Segment(r, s)) => segment_segment(p, q, r, s),
        (Segment(p, q), Point(x)) | (Point(x), Segment(p, q)) => point_segment(x, p, q),
        (Point(x), Point(y)) => lex_cmp(x, y) == Ordering::Equal,
    }
}

/// Closed segment `pq` (`p ≠ q`) against the proper triangle `t` (which projects properly
/// onto `proj`). Möller–Trumbore's geometry, decided with signs only:
/// - both endpoints strictly on one side of the plane: disjoint;
/// - both on the plane: the coplanar 2D problem ([`coplanar_segment_triangle_2d`]);
/// - otherwise the segment meets the plane in exactly one point `X` (an endpoint if one sign is
///   0), and `X` lies in the closed triangle iff the line `pq` passes on the same side (or on)
///   each of the three edge lines: the signs of `[p, q, a, b]`, `[p, q, b, c]`, `[p, q, c, a]`
///   are not of mixed strict sign. (They cannot all vanish: `pq` is transversal to the plane.)
fn segment_triangle(p: Vec3, q: Vec3, t: [Vec3; 3], proj: Proj) -> bool {
    let [a, b, c] = t;
    let sp = orient3(a, b, c, p);
    let sq = orient3(a, b, c, q);
    if sp * sq > 0 {
        return false;
    }
    if sp == 0 && sq == 0 {
        return coplanar_segment_triangle_2d(project(p, proj), project(q, proj), project3(t, proj));
    }
    let e = [
        orient3(p, q, a, b),
        orient3(p, q, b, c),
        orient3(p, q, c, a),
    ];
    !(e.contains(&1) && e.contains(&-1))
}

/// Point against a proper triangle: on its plane, and inside its (bijective) projection.
fn point_triangle(x: Vec3, t: [Vec3; 3], proj: Proj) -> bool {
    let [a, b, c] = t;
    orient3(a, b, c, x) == 0 && point_in_triangle_2d(project(x, proj), project3(t, proj))
}

/// Two closed segments (`p ≠ q`, `r ≠ s`) in 3D. Skew (non-coplanar) segments never meet. Coplanar
/// ones are solved in a coordinate plane that keeps their common plane bijective — found from a
/// non-collinear triple among the endpoints; if there is none, all four points are collinear and
/// the question is 1D, answered with the lexicographic order along the line.
fn segment_segment(p: Vec3, q: Vec3, r: Vec3, s: Vec3) -> bool {
    if orient3(p, q, r, s) != 0 {
        return false;
    }
    match proper_projection(p, q, r).or_else(|| proper_projection(p, q, s)) {
        Some(d) => {
            segments_intersect_2d(project(p, d), project(q, d), project(r, d), project(s, d))
        }
        None => collinear_overlap(p, q, r, s),
    }
}

/// Point `x` on the closed segment `pq`: collinear with it (exactly, [`proper_projection`]) and
/// between its endpoints in the order along the line.
fn point_segment(x: Vec3, p: Vec3, q: Vec3) -> bool {
    proper_projection(x, p, q).is_none() && collinear_overlap(x, x, p, q)
}

/// Overlap of the closed segments `pq` and `rs` lying on one common line, via the lexicographic
/// order (monotone along the line).
fn collinear_overlap(p: Vec3, q: Vec3, r: Vec3, s: Vec3) -> bool {
    let (lo1, hi1) = minmax(p, q, lex_cmp);
    let (lo2, hi2) = minmax(r, s, lex_cmp);
    lex_cmp(lo1, hi2) != Ordering::Greater && lex_cmp(lo2, hi1) != Ordering::Greater
}

fn minmax<T: Copy>(a: T, b: T, cmp: impl Fn(T, T) -> Ordering) -> (T, T) {
    if cmp(a, b) == Ordering::Greater {
        (b, a)
    } else {
        (a, b)
    }
}

// ---------------------------------------------------------------------------------------------
// 2D helpers for the degenerate cases
// ---------------------------------------------------------------------------------------------

/// Closed point-in-triangle for a proper 2D triangle of either orientation: `x` is on the inner
/// side of, or on, all three edge lines.
fn point_in_triangle_2d(x: P2, t: [P2; 3]) -> bool {
    let [a, b, c] = t;
    let o = orient2(a, b, c);
    o * orient2(a, b, x) >= 0 && o * orient2(b, c, x) >= 0 && o * orient2(c, a, x) >= 0
}

/// Closed segments `pq` and `rs` in 2D, `p ≠ q` and `r ≠ s`. Each segment's endpoints must not lie
/// strictly on one side of the other's line; if all four points are collinear, the segments
/// overlap iff their intervals along the line (lexicographic order) do.
fn segments_intersect_2d(p: P2, q: P2, r: P2, s: P2) -> bool {
    let (d1, d2) = (orient2(p, q, r), orient2(p, q, s));
    if d1 * d2 > 0 {
        return false;
    }
    if d1 == 0 && d2 == 0 {
        let (lo1, hi1) = minmax(p, q, lex_cmp2);
        let (lo2, hi2) = minmax(r, s, lex_cmp2);
        return lex_cmp2(lo1, hi2) != Ordering::Greater && lex_cmp2(lo2, hi1) != Ordering::Greater;
    }
    orient2(r, s, p) * orient2(r, s, q) <= 0
}

/// Closed segment `pq` (`p ≠ q`) against a proper triangle in the same plane (projected to 2D):
/// an endpoint inside, or the segment meeting an edge. (A segment that meets the triangle without
/// either endpoint inside must cross its boundary.)
fn coplanar_segment_triangle_2d(p: P2, q: P2, t: [P2; 3]) -> bool {
    let [a, b, c] = t;
    point_in_triangle_2d(p, t)
        || point_in_triangle_2d(q, t)
        || segments_intersect_2d(p, q, a, b)
        || segments_intersect_2d(p, q, b, c)
        || segments_intersect_2d(p, q, c, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    // -----------------------------------------------------------------------------------------
    // Independent exact reference: "some edge of one meets the other (closed) triangle".
    //
    // Two closed triangles (proper or not) meet iff an edge of one meets the other: the
    // intersection is a convex set whose extreme points lie on a boundary. The pieces are built
    // from the same exact predicates but by a different decomposition than GD: no canonical
    // permutation, no interval test, and every coplanar question is answered by asking it in
    // *all three* coordinate projections (projection never loses an intersection, and at least
    // one projection is injective on the common plane / line), with fully general 2D primitives.
    // -----------------------------------------------------------------------------------------
    mod reference {
        use glam::Vec3;
        use robust::{Coord, Coord3D, orient2d, orient3d};

        type P = [f32; 2];

        fn sgn(x: f64) -> i32 {
            (x > 0.0) as i32 - (x < 0.0) as i32
        }
        fn o3(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> i32 {
            let k = |p: Vec3| Coord3D {
                x: p.x as f64,
                y: p.y as f64,
                z: p.z as f64,
            };
            sgn(orient3d(k(a), k(b), k(c), k(d)))
        }
        fn o2(a: P, b: P, c: P) -> i32 {
            let k = |p: P| Coord {
                x: p[0] as f64,
                y: p[1] as f64,
            };
            sgn(orient2d(k(a), k(b), k(c)))
        }
        fn proj(p: Vec3, k: usize) -> P {
            match k {
                0 => [p.y, p.z],
                1 => [p.x, p.z],
                _ => [p.x, p.y],
            }
        }
        /// `x` on the closed segment `pq` (any of them may coincide).
        fn on_seg2(x: P, p: P, q: P) -> bool {
            o2(p, q, x) == 0
                && x[0] >= p[0].min(q[0])
                && x[0] <= p[0].max(q[0])
                && x[1] >= p[1].min(q[1])
                && x[1] <= p[1].max(q[1])
        }
        fn seg_seg2(p: P, q: P, r: P, s: P) -> bool {
            if p == q {
                return on_seg2(p, r, s);
            }
            if r == s {
                return on_seg2(r, p, q);
            }
            let (d1, d2, d3, d4) = (o2(p, q, r), o2(p, q, s), o2(r, s, p), o2(r, s, q));
            if d1 == 0 && d2 == 0 {
                return on_seg2(p, r, s)
                    || on_seg2(q, r, s)
                    || on_seg2(r, p, q)
                    || on_seg2(s, p, q);
            }
            d1 * d2 <= 0 && d3 * d4 <= 0
        }
        fn pt_tri2(x: P, a: P, b: P, c: P) -> bool {
            let o = o2(a, b, c);
            if o == 0 {
                return on_seg2(x, a, b) || on_seg2(x, b, c) || on_seg2(x, c, a);
            }
            o2(a, b, x) * o >= 0 && o2(b, c, x) * o >= 0 && o2(c, a, x) * o >= 0
        }
        fn seg_seg3(p: Vec3, q: Vec3, r: Vec3, s: Vec3) -> bool {
            o3(p, q, r, s) == 0
                && (0..3).all(|k| seg_seg2(proj(p, k), proj(q, k), proj(r, k), proj(s, k)))
        }
        fn pt_tri3(x: Vec3, [a, b, c]: [Vec3; 3]) -> bool {
            o3(a, b, c, x) == 0
                && (0..3).all(|k| pt_tri2(proj(x, k), proj(a, k), proj(b, k), proj(c, k)))
        }
        fn collinear(a: Vec3, b: Vec3, c: Vec3) -> bool {
            (0..3).all(|k| o2(proj(a, k), proj(b, k), proj(c, k)) == 0)
        }
        /// Closed segment `pq` (possibly a point) against a closed triangle (possibly degenerate).
        fn seg_tri3(p: Vec3, q: Vec3, t: [Vec3; 3]) -> bool {
            let [a, b, c] = t;
            let edges = [(a, b), (b, c), (c, a)];
            if collinear(a, b, c) {
                return edges.iter().any(|&(u, v)| seg_seg3(p, q, u, v));
            }
            let (sp, sq) = (o3(a, b, c, p), o3(a, b, c, q));
            if sp * sq > 0 {
                return false;
            }
            match (sp, sq) {
                (0, 0) => {
                    pt_tri3(p, t)
                        || pt_tri3(q, t)
                        || edges.iter().any(|&(u, v)| seg_seg3(p, q, u, v))
                }
                (0, _) => pt_tri3(p, t),
                (_, 0) => pt_tri3(q, t),
                _ => {
                    // Strict crossing: the crossing point is inside iff the line pq turns the
                    // same way around all three edges.
                    let e = [o3(p, q, a, b), o3(p, q, b, c), o3(p, q, c, a)];
                    e.iter().all(|&x| x >= 0) || e.iter().all(|&x| x <= 0)
                }
            }
        }
        pub fn intersect(a: [Vec3; 3], b: [Vec3; 3]) -> bool {
            (0..3).any(|i| seg_tri3(a[i], a[(i + 1) % 3], b))
                || (0..3).any(|i| seg_tri3(b[i], b[(i + 1) % 3], a))
        }
    }

    // -----------------------------------------------------------------------------------------
    // Plain f32 Möller (1997) interval test, no epsilons, no robustness: a baseline only.
    // -----------------------------------------------------------------------------------------
    fn moller_f32(a: [Vec3; 3], b: [Vec3; 3]) -> bool {
        let n2 = (b[1] - b[0]).cross(b[2] - b[0]);
        let da = a.map(|v| n2.dot(v - b[0]));
        if da.iter().all(|&d| d > 0.0) || da.iter().all(|&d| d < 0.0) {
            return false;
        }
        let n1 = (a[1] - a[0]).cross(a[2] - a[0]);
        let db = b.map(|v| n1.dot(v - a[0]));
        if db.iter().all(|&d| d > 0.0) || db.iter().all(|&d| d < 0.0) {
            return false;
        }
        if da == [0.0; 3] || db == [0.0; 3] {
            return coplanar_f32(a, b, n1);
        }
        let dir = n1.cross(n2).abs();
        let k = if dir.x >= dir.y && dir.x >= dir.z {
            0
        } else if dir.y >= dir.z {
            1
        } else {
            2
        };
        let (a0, a1) = interval_f32(a.map(|v| v[k]), da);
        let (b0, b1) = interval_f32(b.map(|v| v[k]), db);
        a0.min(a1) <= b0.max(b1) && b0.min(b1) <= a0.max(a1)
    }
    fn interval_f32(p: [f32; 3], d: [f32; 3]) -> (f32, f32) {
        let i = if d[0] * d[1] > 0.0 {
            2
        } else if d[0] * d[2] > 0.0 {
            1
        } else if d[1] * d[2] > 0.0 || d[0] != 0.0 {
            0
        } else if d[1] != 0.0 {
            1
        } else {
            2
        };
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        let at = |j: usize| p[i] + (p[j] - p[i]) * d[i] / (d[i] - d[j]);
        (at(j), at(k))
    }
    fn coplanar_f32(a: [Vec3; 3], b: [Vec3; 3], n: Vec3) -> bool {
        let n = n.abs();
        let pr = |v: Vec3| {
            if n.x >= n.y && n.x >= n.z {
                [v.y, v.z]
            } else if n.y >= n.z {
                [v.x, v.z]
            } else {
                [v.x, v.y]
            }
        };
        let or = |a: [f32; 2], b: [f32; 2], c: [f32; 2]| {
            (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        };
        let (a, b) = (a.map(pr), b.map(pr));
        let inside = |x: [f32; 2], t: [[f32; 2]; 3]| {
            let s = [or(t[0], t[1], x), or(t[1], t[2], x), or(t[2], t[0], x)];
            s.iter().all(|&v| v >= 0.0) || s.iter().all(|&v| v <= 0.0)
        };
        let cross = |p: [f32; 2], q: [f32; 2], r: [f32; 2], s: [f32; 2]| {
            or(p, q, r) * or(p, q, s) <= 0.0 && or(r, s, p) * or(r, s, q) <= 0.0
        };
        (0..3).any(|i| (0..3).any(|j| cross(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3])))
            || inside(a[0], b)
            || inside(b[0], a)
    }

    // -----------------------------------------------------------------------------------------
    // Seeded PRNG and generators
    // -----------------------------------------------------------------------------------------
    /// The crate's seeded generator, with the sampling these tests need.
    struct Rng(crate::testkit::Rng);
    impl Rng {
        fn new(seed: u64) -> Self {
            Self(crate::testkit::Rng::new(seed))
        }
        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn below(&mut self, n: u32) -> u32 {
            (((self.next() >> 32) * n as u64) >> 32) as u32
        }
        fn range(&mut self, lo: i32, hi: i32) -> i32 {
            lo + self.below((hi - lo + 1) as u32) as i32
        }
        fn chance(&mut self, num: u32, den: u32) -> bool {
            self.below(den) < num
        }
        /// Uniform in [0, 1) with 24 random bits.
        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
        }
        fn unit_vec(&mut self) -> Vec3 {
            Vec3::new(self.unit(), self.unit(), self.unit())
        }
    }

    type I3 = [i32; 3];
    /// Integer lattice point in units of 1/64 (all values used stay far below 2^24: exact).
    fn lat(p: I3) -> Vec3 {
        Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) / 64.0
    }
    /// Random lattice point on the 1/8 grid, |coordinate| ≤ 2.
    fn grid_pt(r: &mut Rng) -> I3 {
        [0; 3].map(|_| 8 * r.range(-16, 16))
    }
    /// Barycentric weights (in eighths, summing to 8) biased towards vertices and edges.
    fn weights(r: &mut Rng) -> I3 {
        let w = |r: &mut Rng| match r.below(4) {
            0 => 0,
            1 => 8,
            _ => r.range(-4, 12),
        };
        let (w0, w1) = (w(r), w(r));
        let mut ws = [w0, w1, 8 - w0 - w1];
        // Rotate so that the constrained weight is not always the last one.
        ws.rotate_left(r.below(3) as usize);
        ws
    }
    /// Affine combination of the lattice triangle `t` (a point of its plane), exact on the 1/64
    /// lattice because the 1/8 grid points carry a factor 8.
    fn comb(t: [I3; 3], w: I3) -> I3 {
        [0, 1, 2].map(|k| (w[0] * t[0][k] + w[1] * t[1][k] + w[2] * t[2][k]) / 8)
    }

    /// A pair of lattice triangles in an exactly-touching-prone configuration.
    fn touching_pair(r: &mut Rng) -> ([I3; 3], [I3; 3]) {
        let a = [grid_pt(r), grid_pt(r), grid_pt(r)];
        let on = |r: &mut Rng| comb(a, weights(r));
        let b = match r.below(12) {
            0 => [on(r), grid_pt(r), grid_pt(r)], // vertex on plane / face / edge / vertex
            1 | 2 => [on(r), on(r), on(r)],       // coplanar
            3 => [on(r), on(r), grid_pt(r)],      // edge in plane: edge-edge contacts
            4 => [a[r.below(3) as usize], grid_pt(r), grid_pt(r)], // shared vertex
            5 => {
                let i = r.below(3) as usize;
                let third = if r.chance(1, 2) { on(r) } else { grid_pt(r) };
                [a[i], a[(i + 1) % 3], third] // shared edge (coplanar or not)
            }
            6 => [a[1], a[2], a[0]], // identical
            7 => {
                let p = on(r);
                [p, p, p] // point
            }
            8 => {
                let (p, q) = (on(r), if r.chance(1, 2) { on(r) } else { grid_pt(r) });
                [p, q, p] // segment
            }
            9 => {
                let (p, q) = (on(r), on(r));
                [p, q, [0, 1, 2].map(|k| 2 * q[k] - p[k])] // collinear triple
            }
            10 => {
                // Both degenerate-prone: a becomes collinear, b built on its line.
                let (p, q) = (a[0], a[1]);
                let l = |r: &mut Rng| {
                    let t = r.range(-8, 16);
                    [0, 1, 2].map(|k| p[k] + (q[k] - p[k]) * t / 8)
                };
                let a2 = [p, q, l(r)];
                let b = [l(r), if r.chance(1, 2) { l(r) } else { grid_pt(r) }, l(r)];
                return (a2, b);
            }
            _ => {
                // Coarse grid: lots of accidental coincidences.
                let c = |r: &mut Rng| [0; 3].map(|_| 32 * r.range(-2, 2));
                return ([c(r), c(r), c(r)], [c(r), c(r), c(r)]);
            }
        };
        (a, b)
    }

    /// One-ulp perturbation of one coordinate of one vertex: near-touching, not touching.
    fn nudge(r: &mut Rng, mut t: [Vec3; 3]) -> [Vec3; 3] {
        let (i, k) = (r.below(3) as usize, r.below(3) as usize);
        let x = t[i][k];
        t[i][k] = if r.chance(1, 2) {
            x.next_up()
        } else {
            x.next_down()
        };
        t
    }

    /// An exact symmetry of the problem: vertex permutations, swapping the triangles, axis
    /// permutations and reflections, power-of-two scaling.
    fn transform(r: &mut Rng, a: [Vec3; 3], b: [Vec3; 3]) -> ([Vec3; 3], [Vec3; 3]) {
        let axes = [
            [0, 1, 2],
            [1, 2, 0],
            [2, 0, 1],
            [1, 0, 2],
            [0, 2, 1],
            [2, 1, 0],
        ][r.below(6) as usize];
        let flip = Vec3::new(
            if r.chance(1, 2) { -1.0 } else { 1.0 },
            if r.chance(1, 2) { -1.0 } else { 1.0 },
            if r.chance(1, 2) { -1.0 } else { 1.0 },
        );
        // Scaling down must not flush tiny (e.g. subnormal, from nudging 0) coordinates.
        let tiny = a
            .iter()
            .chain(&b)
            .flat_map(|p| p.to_array())
            .any(|c| c != 0.0 && c.abs() < 1e-20);
        let scale = 2f32.powi(if tiny {
            r.range(0, 30)
        } else {
            r.range(-30, 30)
        });
        let map = |v: Vec3| Vec3::new(v[axes[0]], v[axes[1]], v[axes[2]]) * flip * scale;
        let perm = |r: &mut Rng, t: [Vec3; 3]| {
            let mut t = t.map(map);
            t.rotate_left(r.below(3) as usize);
            if r.chance(1, 2) {
                t.swap(1, 2);
            }
            t
        };
        let (a, b) = (perm(r, a), perm(r, b));
        if r.chance(1, 2) { (b, a) } else { (a, b) }
    }

    fn check(a: [Vec3; 3], b: [Vec3; 3]) -> bool {
        let got = triangles_intersect(a, b);
        let want = reference::intersect(a, b);
        assert_eq!(got, want, "mismatch for a = {a:?}, b = {b:?}");
        got
    }

    // -----------------------------------------------------------------------------------------
    // Randomised comparison against the reference
    // -----------------------------------------------------------------------------------------

    #[test]
    fn random_cube_matches_reference() {
        let mut r = Rng::new(0x5EED_0001);
        let (mut hits, mut degenerate) = (0, 0);
        let n = 200_000;
        for _ in 0..n {
            let mut a = [r.unit_vec(), r.unit_vec(), r.unit_vec()];
            let mut b = [r.unit_vec(), r.unit_vec(), r.unit_vec()];
            // ~5% degenerate: repeated vertices give segments and points.
            if r.chance(1, 40) {
                a[2] = a[r.below(2) as usize];
                degenerate += 1;
            }
            if r.chance(1, 40) {
                b[1] = b[0];
                if r.chance(1, 2) {
                    b[2] = b[0];
                }
                degenerate += 1;
            }
            hits += check(a, b) as usize;
        }
        println!(
            "random cube: {n} pairs, {hits} intersecting, {degenerate} with a degenerate triangle"
        );
        assert!(hits > n / 10 && hits < n * 9 / 10);
    }

    #[test]
    fn touching_lattice_matches_reference_and_symmetries() {
        let mut r = Rng::new(0x5EED_0002);
        let n = 150_000;
        let (mut hits, mut nudged) = (0, 0);
        for _ in 0..n {
            let (ai, bi) = touching_pair(&mut r);
            let (mut a, mut b) = (ai.map(lat), bi.map(lat));
            if r.chance(1, 3) {
                nudged += 1;
                if r.chance(1, 2) {
                    a = nudge(&mut r, a);
                } else {
                    b = nudge(&mut r, b);
                }
            }
            let want = check(a, b);
            hits += want as usize;
            for _ in 0..3 {
                let (ta, tb) = transform(&mut r, a, b);
                assert_eq!(
                    triangles_intersect(ta, tb),
                    want,
                    "symmetry broken: {a:?} {b:?} -> {ta:?} {tb:?}"
                );
            }
        }
        println!("lattice: {n} pairs ({nudged} nudged by one ulp), {hits} intersecting");
        assert!(hits > n / 5 && hits < n * 9 / 10);
    }

    #[test]
    fn degenerate_lattice_matches_reference() {
        // Points, segments and collinear triples against everything, on a coarse lattice.
        let mut r = Rng::new(0x5EED_0003);
        let mut hits = 0;
        let n = 50_000;
        let pt = |r: &mut Rng| lat([0; 3].map(|_| 16 * r.range(-3, 3)));
        let degen = |r: &mut Rng| {
            let (p, q) = (pt(r), pt(r));
            match r.below(4) {
                0 => [p, p, p],
                1 => [p, q, q],
                2 => [p, q, 2.0 * q - p],
                _ => [p, (p + q) * 0.5, q],
            }
        };
        for i in 0..n {
            let a = degen(&mut r);
            let b = if i % 2 == 0 {
                degen(&mut r)
            } else {
                [pt(&mut r), pt(&mut r), pt(&mut r)]
            };
            hits += check(a, b) as usize;
            hits += check(b, a) as usize;
        }
        println!("degenerate lattice: {} checks, {hits} intersecting", 2 * n);
        assert!(hits > n / 20);
    }

    #[test]
    fn coplanar_small_lattice_matches_reference() {
        // Dense 2D coincidences (shared vertices, collinear edges, vertex on edge) in a tilted
        // plane: points (i, j, i + 2j) with 0 ≤ i, j ≤ 4 — the GD 2D decision tree's boundaries.
        let mut r = Rng::new(0x5EED_0005);
        let n = 100_000;
        let mut hits = 0;
        let pt = |r: &mut Rng| {
            let (i, j) = (r.range(0, 4) as f32, r.range(0, 4) as f32);
            v(i, j, i + 2.0 * j)
        };
        for _ in 0..n {
            let a = [pt(&mut r), pt(&mut r), pt(&mut r)];
            let b = [pt(&mut r), pt(&mut r), pt(&mut r)];
            hits += check(a, b) as usize;
        }
        println!("coplanar lattice: {n} pairs, {hits} intersecting");
        assert!(hits > n / 10 && hits < n * 9 / 10);
    }

    #[test]
    fn robust_vs_plain_f32_moller_on_near_touching() {
        let mut r = Rng::new(0x5EED_0004);
        let n = 100_000;
        let (mut differ, mut false_neg, mut false_pos) = (0, 0, 0);
        for _ in 0..n {
            let (ai, bi) = loop {
                let (a, b) = touching_pair(&mut r);
                // Moller needs proper triangles; compare on those only.
                let proper = |t: [I3; 3]| {
                    let t = t.map(lat);
                    proper_projection(t[0], t[1], t[2]).is_some()
                };
                if proper(a) && proper(b) {
                    break (a, b);
                }
            };
            let (mut a, b) = (ai.map(lat), bi.map(lat));
            // Odd-valued offsets make the plane arithmetic round in f32.
            let shift = Vec3::new(0.1, 0.3, 0.7) * r.unit();
            let b = b.map(|v| v + shift);
            a = a.map(|v| v + shift);
            if r.chance(1, 2) {
                a = nudge(&mut r, a);
            }
            let exact = check(a, b);
            let plain = moller_f32(a, b);
            if exact != plain {
                differ += 1;
                if exact {
                    false_neg += 1;
                } else {
                    false_pos += 1;
                }
            }
        }
        println!(
            "near-touching: plain f32 Moller disagrees with the exact test on {differ} of {n} pairs \
             ({false_neg} missed contacts, {false_pos} phantom contacts)"
        );
    }

    // -----------------------------------------------------------------------------------------
    // Hand-made cases
    // -----------------------------------------------------------------------------------------

    fn v(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }
    const UNIT: [Vec3; 3] = [Vec3::ZERO, Vec3::X, Vec3::Y];

    /// Checks both argument orders, some vertex orders, and the reference.
    fn both(a: [Vec3; 3], b: [Vec3; 3], want: bool) {
        for (x, y) in [(a, b), (b, a), ([a[2], a[1], a[0]], [b[1], b[2], b[0]])] {
            assert_eq!(triangles_intersect(x, y), want, "a = {x:?}, b = {y:?}");
            assert_eq!(
                reference::intersect(x, y),
                want,
                "reference: a = {x:?}, b = {y:?}"
            );
        }
    }

    #[test]
    fn orient3_convention() {
        assert_eq!(orient3(Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z), 1);
        assert_eq!(orient3(Vec3::ZERO, Vec3::Y, Vec3::X, Vec3::Z), -1);
        assert_eq!(orient3(Vec3::ZERO, Vec3::X, Vec3::Y, v(3.0, -2.0, 0.0)), 0);
    }

    #[test]
    fn identical() {
        both(UNIT, UNIT, true);
        both(UNIT, [UNIT[1], UNIT[2], UNIT[0]], true);
        both(UNIT, [UNIT[2], UNIT[1], UNIT[0]], true);
    }

    #[test]
    fn shared_vertex_only() {
        both(
            UNIT,
            [Vec3::ZERO, v(-1.0, 0.0, 1.0), v(0.0, -1.0, 1.0)],
            true,
        );
        // Coplanar, touching at a vertex only.
        both(
            UNIT,
            [Vec3::ZERO, v(-1.0, 0.0, 0.0), v(0.0, -1.0, 0.0)],
            true,
        );
    }

    #[test]
    fn shared_edge() {
        both(UNIT, [Vec3::ZERO, Vec3::X, v(0.0, -1.0, 1.0)], true);
        both(UNIT, [Vec3::ZERO, Vec3::X, v(0.0, -1.0, 0.0)], true); // coplanar neighbours
    }

    #[test]
    fn parallel_planes_apart() {
        both(UNIT, UNIT.map(|p| p + Vec3::Z), false);
        both(UNIT, UNIT.map(|p| p + Vec3::Z * 1e-7), false);
    }

    #[test]
    fn coplanar_disjoint_and_containment() {
        both(UNIT, UNIT.map(|p| p + v(2.0, 0.0, 0.0)), false);
        // Bounding boxes overlap, triangles do not (x + y ≥ 1.25 > 1).
        both(
            UNIT,
            [v(1.0, 1.0, 0.0), v(0.25, 1.0, 0.0), v(1.0, 0.25, 0.0)],
            false,
        );
        // Touching the hypotenuse at one point only.
        both(
            UNIT,
            [v(0.5, 0.5, 0.0), v(1.0, 1.0, 0.0), v(0.5, 2.0, 0.0)],
            true,
        );
        // Containment, both ways.
        both(
            UNIT,
            [v(0.1, 0.1, 0.0), v(0.3, 0.1, 0.0), v(0.1, 0.3, 0.0)],
            true,
        );
        // Star of David style overlap without contained vertices.
        both(
            [v(0.0, 0.0, 0.0), v(4.0, 0.0, 0.0), v(2.0, 3.0, 0.0)],
            [v(0.0, 2.0, 0.0), v(4.0, 2.0, 0.0), v(2.0, -1.0, 0.0)],
            true,
        );
    }

    #[test]
    fn edge_through_interior() {
        both(
            UNIT,
            [v(0.25, 0.25, -1.0), v(0.25, 0.25, 1.0), v(-3.0, -3.0, 0.0)],
            true,
        );
    }

    #[test]
    fn near_misses() {
        // Vertex 1e-7 above the face.
        both(
            UNIT,
            [v(0.25, 0.25, 1e-7), v(0.25, 0.25, 1.0), v(0.0, 1.0, 1.0)],
            false,
        );
        both(
            UNIT,
            [v(0.25, 0.25, 0.0), v(0.25, 0.25, 1.0), v(0.0, 1.0, 1.0)],
            true,
        );
        // Edge passing 1e-7 beside an edge.
        let e = [v(0.5, -1.0, 1e-7), v(0.5, 1.0, 1e-7), v(0.5, 0.0, 1.0)];
        both([Vec3::ZERO, Vec3::X, v(0.0, -1.0, 0.0)], e, false);
    }

    /// Edge of `b` touches edge `[0, X]` of `UNIT` exactly at (0.25, 0, 0); non-coplanar.
    fn edge_edge(scale: f32, dy: f32) -> ([Vec3; 3], [Vec3; 3]) {
        let b = [
            v(0.25, -0.5 + dy, 0.5),
            v(0.25, 0.5 + dy, -0.5),
            v(0.25, -1.0 + dy, -1.0),
        ];
        (UNIT.map(|p| p * scale), b.map(|p| p * scale))
    }

    #[test]
    fn exact_edge_edge_touch() {
        let (a, b) = edge_edge(1.0, 0.0);
        both(a, b, true);
        let (a, b) = edge_edge(1.0, -1e-7);
        both(a, b, false);
        let (a, b) = edge_edge(1.0, 1e-7);
        both(a, b, true);
    }

    #[test]
    fn degenerate_point_and_segment() {
        let p = v(0.5, 0.0, 0.0);
        both(UNIT, [p; 3], true); // point on an edge
        both(UNIT, [v(0.5, 0.5, 0.0); 3], true); // point on the hypotenuse
        both(UNIT, [v(0.5, 0.5 + 1e-7, 0.0); 3], false);
        both(UNIT, [v(0.5, 0.0, 1e-7); 3], false);
        // Segment piercing the face, and passing beside it.
        let s = [v(0.25, 0.25, -1.0), v(0.25, 0.25, 1.0), v(0.25, 0.25, 1.0)];
        both(UNIT, s, true);
        both(UNIT, s.map(|p| p + v(1.0, 0.0, 0.0)), false);
        // Collinear triple lying across the face, and one touching only a vertex.
        both(
            UNIT,
            [v(-1.0, 0.5, 0.0), v(0.0, 0.5, 0.0), v(1.0, 0.5, 0.0)],
            true,
        );
        both(
            UNIT,
            [v(1.0, 0.0, 0.0), v(2.0, 0.0, 1.0), v(3.0, 0.0, 2.0)],
            true,
        );
        // Segment vs segment, point vs segment, point vs point.
        both(
            [p, v(2.0, 2.0, 2.0), p],
            [v(0.5, -1.0, 0.0), v(0.5, 1.0, 0.0), v(0.5, 1.0, 0.0)],
            true,
        );
        both(
            [p; 3],
            [v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.75, 0.0, 0.0)],
            true,
        );
        both([p; 3], [p; 3], true);
        both([p; 3], [p + Vec3::Z * 1e-7; 3], false);
        // Skew segments.
        both(
            [Vec3::ZERO, Vec3::X, Vec3::X],
            [v(0.5, -1.0, 1e-7), v(0.5, 1.0, 1e-7), v(0.5, 1.0, 1e-7)],
            false,
        );
    }

    #[test]
    fn huge_and_tiny_coordinates() {
        for scale in [
            1e6,
            1048576.0,
            2f32.powi(-20),
            2f32.powi(100),
            2f32.powi(-120),
        ] {
            let (a, b) = edge_edge(scale, 0.0);
            both(a, b, true);
        }
        // 1e6: touching and a near miss by far less than the f32 plane-distance error.
        let big = UNIT.map(|p| p * 1e6);
        both(
            big,
            [v(2.5e5, 2.5e5, 0.0), v(2.5e5, 2.5e5, 1e6), v(0.0, 1e6, 1e6)],
            true,
        );
        both(
            big,
            [
                v(2.5e5, 2.5e5, 0.0625),
                v(2.5e5, 2.5e5, 1e6),
                v(0.0, 1e6, 1e6),
            ],
            false,
        );
        // 1e-6 triangle, vertex touching the face and 1e-13 above it.
        let tiny = UNIT.map(|p| p * 1e-6);
        both(
            tiny,
            [
                v(2.5e-7, 2.5e-7, 0.0),
                v(2.5e-7, 2.5e-7, 1e-6),
                v(0.0, 0.0, 1e-6),
            ],
            true,
        );
        both(
            tiny,
            [
                v(2.5e-7, 2.5e-7, 1e-13),
                v(2.5e-7, 2.5e-7, 1e-6),
                v(0.0, 0.0, 1e-6),
            ],
            false,
        );
    }

    #[test]
    fn non_finite_is_false() {
        let nan = [v(f32::NAN, 0.0, 0.0), Vec3::X, Vec3::Y];
        let inf = [v(f32::INFINITY, 0.0, 0.0), Vec3::X, Vec3::Y];
        assert!(!triangles_intersect(nan, UNIT));
        assert!(!triangles_intersect(UNIT, inf));
    }
}
