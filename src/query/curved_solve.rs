//! Closest points of two features of a cylinder, cone or convex polytope
//! (points, circles, segments swept by a disc, discs, triangles), in one
//! frame: closed forms where there is one, Newton's method on the circles'
//! angles otherwise. Each answer is a candidate only: [`super::curved`]
//! certifies it with GJK's bounds before using it.

// Negated comparisons (`!(x > y)`) are deliberate: they send NaN to the
// conservative branch (no answer here, GJK's).
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use glam::{Vec2, Vec3};

use crate::geometry::closest::{point_segment, segment_segment};

/// A closest feature, in the query's frame.
#[derive(Clone, Copy, Debug)]
pub(super) enum Feat {
    /// A vertex (a cone's apex, a polytope's vertex).
    Point(Vec3),
    /// A circle (a rim): centre, unit normal, radius.
    Circle(Vec3, Vec3, f32),
    /// The segment `[p, q]` swept by a disc of radius `m` normal to it (a
    /// cylinder's side is its axis swept by its radius; `m = 0`: a
    /// polytope's edge). With `m > 0`, valid only where the closest point
    /// of the axis is interior: there the point `m` away towards the other
    /// feature is on the cylinder's side.
    Segment(Vec3, Vec3, f32),
    /// A flat disc (a cap): centre, unit normal, radius.
    Disc(Vec3, Vec3, f32),
    /// A cone's side: apex, base centre, base radius; against a point, the
    /// generator in the point's axial plane.
    ConeSide(Vec3, Vec3, f32),
    /// A triangle of a polytope's face.
    Tri([Vec3; 3]),
}

/// Newton steps on a circle's angle at most.
const STEPS: usize = 4;
/// A Newton step below this angle (radians) ends the iteration.
const DONE: f32 = 1e-4;

/// Candidate closest points `(on a, on b)` of features `a` and `b`, or
/// `None` where the pair has no solver here or its answer is not on the
/// features (a swept segment's end, a point off a disc or triangle).
/// `(pa, pb)` are starting points on `a` and `b` (GJK's loose witnesses).
pub(super) fn closest(a: Feat, b: Feat, (pa, pb): (Vec3, Vec3)) -> Option<(Vec3, Vec3)> {
    match (a, b) {
        (Feat::Point(_) | Feat::Circle(..) | Feat::Segment(..) | Feat::ConeSide(..), _) => {
            closest_ordered(a, b, (pa, pb))
        }
        _ => closest_ordered(b, a, (pb, pa)).map(|(y, x)| (x, y)),
    }
}

/// [`closest`] with `a` the simpler feature (point, circle, segment, cone
/// side before disc and triangle).
fn closest_ordered(a: Feat, b: Feat, (pa, pb): (Vec3, Vec3)) -> Option<(Vec3, Vec3)> {
    use Feat::*;
    match (a, b) {
        (Point(p), Point(q)) => Some((p, q)),
        (Point(p), _) => closest_to_point(b, p).map(|q| (p, q)),
        (_, Point(q)) => closest_to_point(a, q).map(|p| (p, q)),
        (Circle(c, n, r), Circle(d, m, s)) => circle_circle((c, n, r), (d, m, s), (pa, pb)),
        (Circle(c, n, r), Segment(p, q, m)) => circle_segment((c, n, r), (p, q, m), pa),
        (Segment(p, q, m), Circle(c, n, r)) => {
            circle_segment((c, n, r), (p, q, m), pb).map(|(x, y)| (y, x))
        }
        (Circle(c, n, r), Disc(d, m, s)) => lowest_on_disc((c, n, r), (d, m, s)),
        (Circle(c, n, r), Tri(t)) => lowest_on_triangle((c, n, r), t),
        (Segment(p, q, m), Disc(d, n, r)) => segment_disc((p, q, m), (d, n, r), pa),
        (Segment(p, q, m), Segment(s, t, k)) => segment_segment_swept((p, q, m), (s, t, k)),
        (Segment(p, q, 0.0), ConeSide(apex, base, r)) => {
            edge_cone_side((p, q), (apex, base, r), pa)
        }
        (ConeSide(apex, base, r), Segment(p, q, 0.0)) => {
            edge_cone_side((p, q), (apex, base, r), pb).map(|(x, y)| (y, x))
        }
        _ => None,
    }
}

/// The point of feature `f` closest to `p`.
fn closest_to_point(f: Feat, p: Vec3) -> Option<Vec3> {
    match f {
        Feat::Point(q) => Some(q),
        Feat::Circle(c, n, r) => {
            let radial = reject(p - c, n).try_normalize()?;
            Some(c + r * radial)
        }
        Feat::Segment(a, b, m) => swept_point((a, b, m), p),
        Feat::Disc(c, n, r) => {
            let q = p - n * (p - c).dot(n);
            ((q - c).length_squared() <= r * r).then_some(q)
        }
        Feat::ConeSide(apex, base, r) => {
            let axis = apex - base;
            let radial = reject(p - base, axis).try_normalize()?;
            let rim = base + r * radial;
            interior_foot(p, apex, rim)
        }
        Feat::Tri(t) => on_triangle(p, t),
    }
}

/// The component of `v` normal to `axis` (any length).
#[inline]
fn reject(v: Vec3, axis: Vec3) -> Vec3 {
    v - axis * (v.dot(axis) / axis.length_squared())
}

/// The foot of `p` on segment `[a, b]` when it is strictly inside.
fn interior_foot(p: Vec3, a: Vec3, b: Vec3) -> Option<Vec3> {
    let e = b - a;
    let t = (p - a).dot(e) / e.length_squared();
    (t > 0.0 && t < 1.0).then(|| a + e * t)
}

/// The point of the swept segment `(a, b, m)` closest to `p`.
fn swept_point((a, b, m): (Vec3, Vec3, f32), p: Vec3) -> Option<Vec3> {
    if m == 0.0 {
        return Some(point_segment(p, a, b));
    }
    let foot = interior_foot(p, a, b)?;
    Some(foot + m * (p - foot).try_normalize()?)
}

/// `p` when it lies on triangle `t` (its projection inside, `p` on the
/// plane within rounding): the projection.
fn on_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> Option<Vec3> {
    let n = (b - a).cross(c - a);
    let q = p - n * ((p - a).dot(n) / n.length_squared());
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(u, v)| (v - u).cross(q - u).dot(n) >= 0.0);
    inside.then_some(q)
}

/// A unit vector normal to unit `n`.
fn any_normal(n: Vec3) -> Vec3 {
    n.any_orthonormal_vector()
}

/// A circle as centre, in-plane basis and radius, with a point's angle
/// kept as a unit 2D vector (rotated by Newton steps, no trigonometry).
#[derive(Clone, Copy)]
struct Ring {
    c: Vec3,
    e1: Vec3,
    e2: Vec3,
    r: f32,
    at: Vec2,
}

impl Ring {
    fn new((c, n, r): (Vec3, Vec3, f32), near: Vec3) -> Self {
        let e1 = any_normal(n);
        let e2 = n.cross(e1);
        let q = near - c;
        let at = Vec2::new(q.dot(e1), q.dot(e2))
            .try_normalize()
            .unwrap_or(Vec2::X);
        Self { c, e1, e2, r, at }
    }
    /// The point, its derivative and second derivative in the angle.
    fn eval(&self) -> (Vec3, Vec3, Vec3) {
        let radial = self.r * (self.at.x * self.e1 + self.at.y * self.e2);
        let tangent = self.r * (self.at.x * self.e2 - self.at.y * self.e1);
        (self.c + radial, tangent, -radial)
    }
    /// Turns the point by about `step` radians (`atan(step)`: the same
    /// fixed point, and Newton's quadratic convergence is kept).
    fn turn(&mut self, step: f32) {
        let at = self.at + step * self.at.perp();
        self.at = at.normalize();
    }
}

/// Circle against circle: Newton's method on both angles for the
/// stationary points of `½|P(s) − Q(t)|²`, from the witnesses.
fn circle_circle(
    a: (Vec3, Vec3, f32),
    b: (Vec3, Vec3, f32),
    (pa, pb): (Vec3, Vec3),
) -> Option<(Vec3, Vec3)> {
    let (mut ra, mut rb) = (Ring::new(a, pa), Ring::new(b, pb));
    for _ in 0..STEPS {
        let ((p, dp, ddp), (q, dq, ddq)) = (ra.eval(), rb.eval());
        let d = p - q;
        let g = Vec2::new(d.dot(dp), -d.dot(dq));
        let (h11, h22, h12) = (
            dp.dot(dp) + d.dot(ddp),
            dq.dot(dq) - d.dot(ddq),
            -dp.dot(dq),
        );
        let det = h11 * h22 - h12 * h12;
        if !(h11 > 0.0 && det > 0.0) {
            return None;
        }
        let step = -Vec2::new(h22 * g.x - h12 * g.y, h11 * g.y - h12 * g.x) / det;
        ra.turn(step.x);
        rb.turn(step.y);
        if step.abs().max_element() < DONE {
            break;
        }
    }
    Some((ra.eval().0, rb.eval().0))
}

/// Circle against a swept segment: Newton's method on the circle's angle
/// for the distance to the segment's line, then the segment's point.
fn circle_segment(
    a: (Vec3, Vec3, f32),
    (s, t, m): (Vec3, Vec3, f32),
    pa: Vec3,
) -> Option<(Vec3, Vec3)> {
    let e = (t - s).try_normalize()?;
    let mut ra = Ring::new(a, pa);
    for _ in 0..STEPS {
        let (p, dp, ddp) = ra.eval();
        let d = reject(p - s, e);
        let dpp = reject(dp, e);
        let (g, h) = (d.dot(dp), dpp.dot(dpp) + d.dot(ddp));
        if !(h > 0.0) {
            return None;
        }
        let step = -g / h;
        ra.turn(step);
        if step.abs() < DONE {
            break;
        }
    }
    let p = ra.eval().0;
    if m == 0.0 && interior_foot(p, s, t).is_none() {
        // A polytope edge's end: the circle against that vertex.
        let end = point_segment(p, s, t);
        return closest_to_point(Feat::Circle(a.0, a.1, a.2), end).map(|x| (x, end));
    }
    swept_point((s, t, m), p).map(|q| (p, q))
}

/// The circle's lowest point towards a plane of normal `n` through `d`
/// (its nearest point to the plane) and that point's projection.
fn lowest((c, n, r): (Vec3, Vec3, f32), (d, m): (Vec3, Vec3)) -> Option<(Vec3, Vec3)> {
    // Towards the plane: against m when the circle is on m's side.
    let down = if (c - d).dot(m) > 0.0 { -m } else { m };
    let p = c + r * reject(down, n).try_normalize()?;
    Some((p, p - m * (p - d).dot(m)))
}

/// Circle against a cap (a disc): the circle's lowest point, when its
/// projection is on the disc.
fn lowest_on_disc(a: (Vec3, Vec3, f32), (d, m, s): (Vec3, Vec3, f32)) -> Option<(Vec3, Vec3)> {
    let (p, q) = lowest(a, (d, m))?;
    ((q - d).length_squared() <= s * s).then_some((p, q))
}

/// Circle against a polytope's face: the lowest point, when its projection
/// is in the face's triangle.
fn lowest_on_triangle(a: (Vec3, Vec3, f32), t: [Vec3; 3]) -> Option<(Vec3, Vec3)> {
    let m = (t[1] - t[0]).cross(t[2] - t[0]).try_normalize()?;
    let (p, _) = lowest(a, (t[0], m))?;
    on_triangle(p, t).map(|q| (p, q))
}

/// Two swept segments (cylinder sides, polytope edges): the axes' closest
/// points, moved out by the sweeps (interior points only where swept).
fn segment_segment_swept(
    (p, q, m): (Vec3, Vec3, f32),
    (s, t, k): (Vec3, Vec3, f32),
) -> Option<(Vec3, Vec3)> {
    let (x, y) = segment_segment(p, q, s, t);
    let interior = |z: Vec3, a: Vec3, b: Vec3, w: f32| w == 0.0 || interior_foot(z, a, b).is_some();
    if !(interior(y, p, q, m) && interior(x, s, t, k)) {
        return None;
    }
    let n = (y - x).try_normalize()?;
    Some((x + m * n, y - k * n))
}

/// A polytope's edge `[s, t]` against a cone's side: Newton's method on
/// the edge's parameter for the (convex) distance to the cone's surface,
/// `ρ cos β − z sin β` (`ρ` from the axis, `z` below the apex, `β` the
/// half-angle), then the side's point from the edge's.
fn edge_cone_side(
    (s, t): (Vec3, Vec3),
    (apex, base, r): (Vec3, Vec3, f32),
    pe: Vec3,
) -> Option<(Vec3, Vec3)> {
    let axis = apex - base;
    let (k, h2) = (axis.try_normalize()?, axis.length());
    let slant = Vec2::new(h2, r).length();
    let (cos_b, sin_b) = (h2 / slant, r / slant);
    let e = t - s;
    let ee = e.length_squared();
    let mut at = ((pe - s).dot(e) / ee).clamp(0.0, 1.0);
    let (de, dz) = (reject(e, k), -e.dot(k));
    for _ in 0..STEPS + 2 {
        let rad = reject(s + e * at - apex, k);
        let rho = rad.length();
        if !(rho > 0.0) {
            return None;
        }
        let d1 = rad.dot(de) / rho;
        let d2 = (de.dot(de) - d1 * d1) / rho;
        let (g, hh) = (cos_b * d1 - sin_b * dz, cos_b * d2);
        if !(hh > 0.0) {
            break;
        }
        let next = (at - g / hh).clamp(0.0, 1.0);
        let done = ((next - at) * (next - at) * ee) < DONE * DONE * h2 * h2;
        at = next;
        if done {
            break;
        }
    }
    let q = s + e * at;
    closest_to_point(Feat::ConeSide(apex, base, r), q).map(|p| (q, p))
}

/// A swept segment (a cylinder's side) against a cap: the axis point
/// lowest towards the cap's plane (the witness's foot when the axis is
/// parallel to it), moved out by the sweep, when its projection is on the
/// disc.
fn segment_disc(
    (p, q, m): (Vec3, Vec3, f32),
    (d, n, s): (Vec3, Vec3, f32),
    pa: Vec3,
) -> Option<(Vec3, Vec3)> {
    let e = q - p;
    let down = if (p + q - 2.0 * d).dot(n) > 0.0 {
        -n
    } else {
        n
    };
    let slope = e.dot(down);
    let foot = if slope.abs() <= 1e-6 * e.length() {
        point_segment(pa, p, q)
    } else if slope > 0.0 {
        q
    } else {
        p
    };
    let out = if m > 0.0 {
        m * reject(down, e).try_normalize()?
    } else {
        Vec3::ZERO
    };
    let x = foot + out;
    let y = x - n * (x - d).dot(n);
    ((y - d).length_squared() <= s * s).then_some((x, y))
}

/// A simpler feature holding the likely closest point when `f` failed,
/// near `w`: a disc's rim; a swept segment's end circle (radius the
/// sweep, normal the axis; a polytope edge's end vertex); a cone side's
/// apex or base rim.
pub(super) fn demoted(f: Feat, w: Vec3) -> Option<Feat> {
    match f {
        Feat::Disc(c, n, r) => Some(Feat::Circle(c, n, r)),
        Feat::Segment(p, q, m) => {
            let end = if w.distance_squared(p) < w.distance_squared(q) {
                p
            } else {
                q
            };
            if m > 0.0 {
                Some(Feat::Circle(end, (q - p).normalize(), m))
            } else {
                Some(Feat::Point(end))
            }
        }
        Feat::ConeSide(apex, base, r) => {
            if w.distance_squared(apex) < w.distance_squared(base) {
                Some(Feat::Point(apex))
            } else {
                Some(Feat::Circle(base, (apex - base).normalize(), r))
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cylinder of radius 0.5 and half-height 0.5 along Y, as its swept
    /// axis.
    const SIDE: Feat = Feat::Segment(Vec3::new(0.0, -0.5, 0.0), Vec3::new(0.0, 0.5, 0.0), 0.5);

    /// Beside the side, the reduction is exact: the point on the side at
    /// the other point's height, `ρ − r` away; above the cap (the axis's
    /// closest point at its end) it refuses: the nearest point is on the
    /// rim, not `r` from the axis's end.
    #[test]
    fn the_side_is_its_axis_swept_only_where_the_axis_point_is_interior() {
        for p in [Vec3::new(0.8, 0.1, 0.3), Vec3::new(-0.1, -0.45, 0.6)] {
            let (_, b) = closest(Feat::Point(p), SIDE, (p, Vec3::ZERO)).expect("beside the side");
            let rho = Vec2::new(p.x, p.z).length();
            assert!((p.distance(b) - (rho - 0.5)).abs() <= 1e-6, "{p}: {b}");
            assert!(
                (Vec2::new(b.x, b.z).length() - 0.5).abs() <= 1e-6 && (b.y - p.y).abs() <= 1e-6,
                "{b}"
            );
        }
        for p in [Vec3::new(0.6, 0.6, 0.0), Vec3::new(0.1, -0.7, 0.55)] {
            assert!(
                closest(Feat::Point(p), SIDE, (p, Vec3::ZERO)).is_none(),
                "{p}"
            );
        }
    }
}
