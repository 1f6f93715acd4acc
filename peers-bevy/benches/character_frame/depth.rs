//! One measure of penetration for every engine, independent of all three:
//! the characters' capsules against the level in `f64`, from the level's
//! definition (its profile and the boxes), not from any engine's shapes.
//!
//! The level is the region under its profile (a polyline in x–y, extruded
//! along z): solid ground. A capsule of radius `r` whose vertical core
//! segment runs from `bottom` to `top` at `(x, z)`:
//!
//! - if `bottom` is under the profile's height at `x`, it is inside the
//!   ground: depth `r + (height − bottom)`;
//! - otherwise its depth is `r − d`, `d` the exact 2D distance from the
//!   core segment to the polyline (x–y plane; the level spans all z the
//!   characters reach), when positive.
//!
//! Each box: `r − d`, `d` the distance from the core segment to the box
//! (the segment's distance to an axis-aligned box is convex along it:
//! golden-section search to 10⁻¹² of its length; 0 inside).

/// Heights `(x, y)` of the profile, left to right (risers repeat an `x`).
pub struct Level {
    pub profile: Vec<(f64, f64)>,
    /// Boxes: centre and half extents.
    pub boxes: Vec<([f64; 3], [f64; 3])>,
}

/// A vertical capsule: core from `(x, y − half, z)` to `(x, y + half, z)`.
#[derive(Clone, Copy)]
pub struct Capsule {
    pub center: [f64; 3],
    pub half: f64,
    pub radius: f64,
}

impl Level {
    /// The ground's height at `x` (the highest, on a riser).
    fn height(&self, x: f64) -> f64 {
        let p = &self.profile;
        let mut h = f64::MIN;
        for w in p.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            if x < x0.min(x1) || x > x0.max(x1) {
                continue;
            }
            let y = if x1 == x0 {
                y0.max(y1)
            } else {
                y0 + (y1 - y0) * (x - x0) / (x1 - x0)
            };
            h = h.max(y);
        }
        h
    }

    /// How deep `c` is in the level (0: not in it).
    pub fn depth(&self, c: &Capsule) -> f64 {
        let [x, y, z] = c.center;
        let (bottom, top) = (y - c.half, y + c.half);
        let ground = self.height(x);
        let mut depth = if bottom < ground {
            c.radius + (ground - bottom)
        } else {
            let d = self
                .profile
                .windows(2)
                .map(|w| segment_segment_2d((x, bottom), (x, top), w[0], w[1]))
                .fold(f64::INFINITY, f64::min);
            (c.radius - d).max(0.0)
        };
        for (center, half) in &self.boxes {
            // The segment's box to the box: a lower bound of the distance.
            let lo = [x, bottom, z];
            let hi = [x, top, z];
            let gap2: f64 = (0..3)
                .map(|i| {
                    let (b0, b1) = (center[i] - half[i], center[i] + half[i]);
                    (b0 - hi[i]).max(lo[i] - b1).max(0.0).powi(2)
                })
                .sum();
            if gap2 >= c.radius * c.radius {
                continue;
            }
            let d = segment_box([x, bottom, z], [x, top, z], center, half);
            depth = depth.max(c.radius - d);
        }
        depth.max(0.0)
    }
}

type P2 = (f64, f64);

fn point_segment_2d(p: P2, a: P2, b: P2) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 == 0.0 {
        0.0
    } else {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    };
    ((p.0 - a.0 - t * dx).powi(2) + (p.1 - a.1 - t * dy).powi(2)).sqrt()
}

fn cross(o: P2, a: P2, b: P2) -> f64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

/// Exact distance between two 2D segments (0 when they cross).
fn segment_segment_2d(a: P2, b: P2, c: P2, d: P2) -> f64 {
    let (d1, d2) = (cross(c, d, a), cross(c, d, b));
    let (d3, d4) = (cross(a, b, c), cross(a, b, d));
    if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
        return 0.0;
    }
    [
        point_segment_2d(a, c, d),
        point_segment_2d(b, c, d),
        point_segment_2d(c, a, b),
        point_segment_2d(d, a, b),
    ]
    .into_iter()
    .fold(f64::INFINITY, f64::min)
}

fn point_box(p: [f64; 3], c: &[f64; 3], h: &[f64; 3]) -> f64 {
    (0..3)
        .map(|i| ((p[i] - c[i]).abs() - h[i]).max(0.0).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// Distance from segment `a–b` to a box (golden-section search of the
/// convex distance along the segment).
fn segment_box(a: [f64; 3], b: [f64; 3], c: &[f64; 3], h: &[f64; 3]) -> f64 {
    let at = |t: f64| point_box(std::array::from_fn(|i| a[i] + t * (b[i] - a[i])), c, h);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while hi - lo > 1e-12 {
        let (m1, m2) = (hi - g * (hi - lo), lo + g * (hi - lo));
        if at(m1) <= at(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    at(0.5 * (lo + hi)).min(at(0.0)).min(at(1.0))
}
