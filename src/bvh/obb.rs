//! Oriented bounding boxes: fitting and the 15-axis overlap test.
//!
//! Both follow S. Gottschalk, M. C. Lin and D. Manocha, *"OBBTree: A
//! Hierarchical Structure for Rapid Interference Detection"*, SIGGRAPH 1996,
//! and their RAPID library.
//!
//! # Fitting (paper, section 4.1)
//!
//! The box axes are the eigenvectors of the covariance matrix of the *surface
//! of the convex hull* of the points, each hull triangle weighted by its area.
//! Sampling the hull surface continuously (rather than the vertices, or the
//! mesh triangles) makes the axes independent of how the geometry is
//! tessellated and of interior points. For a triangle `(p, q, r)` with area
//! `A` and centroid `m`, the integral of `x xᵀ` over the triangle is
//! `A/12 (9 m mᵀ + p pᵀ + q qᵀ + r rᵀ)`; summing these, dividing by the total
//! area and subtracting `μ μᵀ` (μ the area-weighted mean of the centroids)
//! gives the covariance (paper, eq. 1–2; D. Eberly, *"Dynamic Collision
//! Detection using Oriented Bounding Boxes"*). The extents along each axis
//! come from the extreme points, and the box center is the middle of those
//! extremes (not the mean).
//!
//! When no 3D hull exists (flat, collinear, coincident or too few points),
//! [`Obb::fit`] falls back to the area-weighted covariance of the given
//! triangles, then to the covariance of the points, and finally to the world
//! axes. Moments are accumulated in `f64` relative to the middle of the
//! points' bounding box.
//!
//! # Overlap (paper, section 5)
//!
//! [`obb_overlap`] is the separating axis test: two boxes are disjoint iff
//! their projections on one of 15 axes are disjoint — the 3 face normals of
//! each box and the 9 cross products of an edge direction of each. It works in
//! A's frame, with B given by its rotation `R` and translation `T`, so every
//! projection is a few products with entries of `R` (at most 15 tests, 200
//! operations, exiting at the first separating axis). As in RAPID, a small
//! `eps` is added to every `|R_ij|` once: this widens every projected radius
//! a little and keeps the test from declaring near-parallel boxes (whose edge
//! cross products are almost zero and numerically meaningless) disjoint.
//! Unlike RAPID, `eps · |T_i|` is also added to the radii of the axes on
//! which `T` is projected through `R` (B's faces, the edge products), so that
//! the test is conservative for every rotation within `eps` of `R`.

use glam::{DMat3, DVec3, Mat3, Vec3, Vec3A, Vec4};
use serde::{Deserialize, Serialize};

use crate::math::Aabb;
use crate::math::eigen::{principal_axes_f32, symmetric_eigen_closed_form};
use crate::shape::ConvexHull;

/// A fitted box's pad per unit of its size plus its distance from the
/// origin (8 `f32` ulps): it covers the rounding of the projections and of
/// the center, so the box holds every point it was fitted around.
pub(crate) const BOX_PAD: f32 = 8.0 * f32::EPSILON;

/// A good `eps` for [`obb_overlap`] with `f32` boxes of unit-ish proportions:
/// RAPID's `1e-6`, about 8 `f32` ulps of an `|R_ij|`.
pub const OBB_EPS: f32 = 1e-6;

/// An oriented bounding box.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Obb {
    /// Center of the box.
    pub center: Vec3,
    /// The box axes as columns: unit length, orthogonal, right-handed.
    pub axes: Mat3,
    /// Half the box size along each of `axes`.
    pub half_extents: Vec3,
}

impl Default for Obb {
    fn default() -> Self {
        Self {
            center: Vec3::ZERO,
            axes: Mat3::IDENTITY,
            half_extents: Vec3::ZERO,
        }
    }
}

impl Obb {
    /// Fits a box around `points` as in the paper: mean and covariance of the
    /// surface of the points' convex hull (hull triangles weighted by area),
    /// the covariance's eigenvectors as axes (largest variance first), the
    /// extents from the extreme points along each axis.
    ///
    /// `points` are what must be bounded (usually the vertices of
    /// `triangles`); when it is empty, the vertices of `triangles` are used.
    /// `triangles` are only consulted when the points have no 3D hull (flat,
    /// collinear, coincident or fewer than 4 points): their area-weighted
    /// covariance gives the axes then; if their area is zero too, the
    /// covariance of the points does; if even that is zero (one point), the
    /// world axes.
    ///
    /// Never panics; non-finite points and triangles are ignored, and if no
    /// finite point remains the result is [`Obb::default`] (an empty box at
    /// the origin). The box is padded by a few `f32` ulps so that
    /// [`Obb::contains_point`] holds for every input point despite rounding.
    pub fn fit(points: &[Vec3], triangles: &[[Vec3; 3]]) -> Obb {
        let mut pts: Vec<Vec3> = points.iter().copied().filter(|p| p.is_finite()).collect();
        if pts.is_empty() {
            pts = triangles
                .iter()
                .flatten()
                .copied()
                .filter(|p| p.is_finite())
                .collect();
        }
        let Some((origin, _)) = bbox_middle(&pts) else {
            return Obb::default();
        };
        let (axes, extreme) = match ConvexHull::new(&pts) {
            Ok(hull) => (Moments::of_hull(&hull, origin).axes(), Extreme::Hull(hull)),
            Err(_) => {
                let mut m = Moments::default();
                for t in triangles.iter().filter(|t| t.iter().all(|p| p.is_finite())) {
                    let [p, q, r] = t.map(|p| p.as_dvec3() - origin);
                    m.add_triangle(p, q, r);
                }
                if m.covariance().is_none() {
                    m = Moments::of_points(&pts, origin);
                }
                (m.axes(), Extreme::Points)
            }
        };
        let bound: &[Vec3] = match &extreme {
            Extreme::Hull(h) => h.vertices(),
            Extreme::Points => &pts,
        };
        Obb::from_axes(axes, bound)
    }

    /// The smallest box with the given `axes` (columns; expected orthonormal)
    /// around the finite `points`, padded by a few `f32` ulps. With no finite
    /// point, an empty box at the origin.
    pub fn from_axes(axes: Mat3, points: &[Vec3]) -> Obb {
        let mut it = points.iter().copied().filter(|p| p.is_finite());
        let Some(first) = it.next() else {
            return Obb {
                axes,
                ..Obb::default()
            };
        };
        let mut ext = AxisExtents::new(axes, first);
        for p in it {
            ext.add(p);
        }
        ext.finish()
    }

    /// The box's volume.
    pub fn volume(&self) -> f32 {
        8.0 * self.half_extents.x * self.half_extents.y * self.half_extents.z
    }

    /// Whether `p` lies in the box grown by `eps` along every axis.
    pub fn contains_point(&self, p: Vec3, eps: f32) -> bool {
        let d = self.axes.transpose() * (p - self.center);
        d.abs().cmple(self.half_extents + Vec3::splat(eps)).all()
    }

    /// The 8 corners (x varies fastest).
    pub fn corners(&self) -> [Vec3; 8] {
        let unit = Aabb::new(-self.half_extents, self.half_extents);
        unit.corners().map(|c| self.center + self.axes * c)
    }

    /// `other`'s rotation and translation in this box's frame, the `(r, t)`
    /// that [`obb_overlap`] takes.
    pub fn relative(&self, other: &Obb) -> (Mat3, Vec3) {
        let at = self.axes.transpose();
        (at * other.axes, at * (other.center - self.center))
    }

    /// Whether the two boxes overlap: [`obb_overlap`] in this box's frame.
    pub fn overlaps(&self, other: &Obb, eps: f32) -> bool {
        let (r, t) = self.relative(other);
        obb_overlap(self.half_extents, other.half_extents, &r, t, eps)
    }
}

/// The extents of finite points along fixed axes, one point at a time: the
/// loop of [`Obb::from_axes`], for callers that visit points without
/// collecting them (the tree build).
pub(crate) struct AxisExtents {
    axes: Mat3,
    /// The rows of `axesᵀ` as columns, four lanes wide: a projection is
    /// three broadcasts, three products and two sums, in the order of
    /// `Mat3 * Vec3` (the same bits).
    at: [Vec4; 3],
    first: Vec3A,
    lo: Vec4,
    hi: Vec4,
}

impl AxisExtents {
    /// Starts at the finite point `first`. Points are projected relative to
    /// it: rounding stays relative to the set's size, not to its distance
    /// from the world origin.
    pub fn new(axes: Mat3, first: Vec3) -> Self {
        let at = axes.transpose();
        Self {
            axes,
            at: [at.x_axis, at.y_axis, at.z_axis].map(|c| c.extend(0.0)),
            first: first.into(),
            lo: Vec4::ZERO,
            hi: Vec4::ZERO,
        }
    }

    /// Adds a finite point.
    #[inline]
    pub fn add(&mut self, p: Vec3) {
        let d = self.project(p.into());
        self.lo = self.lo.min(d);
        self.hi = self.hi.max(d);
    }

    /// Adds a triangle's corners (finite); returns the sum of their
    /// projections (lane `k`: three times the centroid's offset from the
    /// first point along axis `k`), which the build's partition reads.
    #[inline]
    pub fn add_triangle(&mut self, [p, q, r]: [Vec3A; 3]) -> Vec4 {
        let (dp, dq, dr) = (self.project(p), self.project(q), self.project(r));
        // The triangle's own bounds first, then one `min` and one `max`
        // into the running bounds: the loop-carried chain is one operation
        // per triangle, not three (the same bounds: the corners are
        // finite, and `min` and `max` of finite values do not depend on
        // the order).
        self.lo = self.lo.min(dp.min(dq).min(dr));
        self.hi = self.hi.max(dp.max(dq).max(dr));
        dp + dq + dr
    }

    /// `p` relative to the first point, on the axes (lane 3 zero).
    #[inline]
    fn project(&self, p: Vec3A) -> Vec4 {
        let r = p - self.first;
        self.at[0] * r.x + self.at[1] * r.y + self.at[2] * r.z
    }

    /// The box, padded by a few `f32` ulps.
    pub fn finish(&self) -> Obb {
        let (lo, hi) = (self.lo.truncate(), self.hi.truncate());
        let mid = (lo + hi) * 0.5;
        let center = Vec3::from(self.first) + self.axes * mid;
        let half = (hi - lo) * 0.5;
        let pad = BOX_PAD * (half.max_element() + center.abs().max_element());
        Obb {
            center,
            axes: self.axes,
            half_extents: half + Vec3::splat(pad),
        }
    }
}

/// What the extents are measured on.
enum Extreme {
    Hull(ConvexHull),
    Points,
}

/// Middle of the bounding box of the finite `points`, and how many there
/// are (`None` when there are none).
pub(crate) fn bbox_middle<'a>(
    points: impl IntoIterator<Item = &'a Vec3>,
) -> Option<(DVec3, usize)> {
    let (lo, hi, n) = points
        .into_iter()
        .filter(|p| p.is_finite())
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY, 0), |(lo, hi, n), p| {
            (lo.min(*p), hi.max(*p), n + 1)
        });
    (n > 0).then(|| ((lo.as_dvec3() + hi.as_dvec3()) * 0.5, n))
}

/// Weighted first and second moments of triangles (by area) or points (by
/// unit weight), in `f64`, relative to an origin chosen by the caller.
///
/// The ten sums live in one array — weight `w`; `Σ w m` (x, y, z);
/// `Σ ∫ x xᵀ` (xx, yy, zz, xy, xz, yz) — so that [`sum`](Self::sum), which
/// the OBB build runs over every group's triangles at every level, is five
/// two-lane adds per triangle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Moments([f64; 10]);

impl Moments {
    /// Moments from the weight, the first and the second moments.
    fn new(weight: f64, first: DVec3, second: [f64; 6]) -> Self {
        let [xx, yy, zz, xy, xz, yz] = second;
        Self([weight, first.x, first.y, first.z, xx, yy, zz, xy, xz, yz])
    }

    /// The moments of the triangle `(p, q, r)` (area-weighted surface).
    pub fn triangle(p: DVec3, q: DVec3, r: DVec3) -> Self {
        let area = 0.5 * (q - p).cross(r - p).length();
        let s = p + q + r; // 3 m
        let k = area / 12.0;
        let sec = |a: usize, b: usize| k * (s[a] * s[b] + p[a] * p[b] + q[a] * q[b] + r[a] * r[b]);
        Self::new(
            area,
            s * (area / 3.0),
            [
                sec(0, 0),
                sec(1, 1),
                sec(2, 2),
                sec(0, 1),
                sec(0, 2),
                sec(1, 2),
            ],
        )
    }

    /// The moments of the surface of `hull`, relative to `origin`.
    pub fn of_hull(hull: &ConvexHull, origin: DVec3) -> Self {
        let mut m = Self::default();
        let v = hull.vertices();
        for t in hull.triangles() {
            let [p, q, r] = t.map(|i| v[i as usize].as_dvec3() - origin);
            m.add_triangle(p, q, r);
        }
        m
    }

    pub fn add_triangle(&mut self, p: DVec3, q: DVec3, r: DVec3) {
        self.add(&Self::triangle(p, q, r));
    }

    /// The moments of `points` (unit weight each), relative to `origin`.
    pub fn of_points(points: &[Vec3], origin: DVec3) -> Self {
        let mut m = Self::default();
        for p in points {
            let p = p.as_dvec3() - origin;
            m.add(&Self::new(
                1.0,
                p,
                [
                    p.x * p.x,
                    p.y * p.y,
                    p.z * p.z,
                    p.x * p.y,
                    p.x * p.z,
                    p.y * p.z,
                ],
            ));
        }
        m
    }

    /// The sum of the moments of the triangles `group` (indices into
    /// `table`): in `f32` over runs of [`ROUNDED_RUN`] triangles (a few
    /// ulps more rounding, a fraction of the conversions), the runs in
    /// `f64`. Not inlined on purpose: inlined into the OBB build's loop
    /// (which sums every group's triangles at every level), the running
    /// sums were kept on the stack, a store and a reload per sum and
    /// triangle (each a store-to-load chain, as the disassembly showed);
    /// compiled alone they stay in registers.
    #[inline(never)]
    pub fn sum_rounded(table: &[RoundedMoments], group: &[u32]) -> Self {
        let mut acc = [0.0f64; 10];
        for run in group.chunks(ROUNDED_RUN) {
            let mut part = [0.0f32; 10];
            for &t in run {
                let m = &table[t as usize].0;
                part = std::array::from_fn(|k| part[k] + m[k]);
            }
            acc = std::array::from_fn(|k| acc[k] + f64::from(part[k]));
        }
        Self(acc)
    }

    /// Whether rounding the summed moments' terms to `f32` leaves their
    /// covariance a precise enough guide to the axes: the rounding errors
    /// are a few `f32` ulps of the second moments about the origin, which
    /// are `|μ|²` per unit weight, so the variance (the covariance's
    /// trace) must not be much smaller than `|μ|²` ([`ROUNDING_MARGIN`]).
    /// False without weight (then nothing is lost by summing in `f64`).
    pub fn rounding_negligible(&self) -> bool {
        let [weight, fx, fy, fz, xx, yy, zz, ..] = self.0;
        let mu = DVec3::new(fx, fy, fz) / weight;
        let trace = (xx + yy + zz) / weight - mu.length_squared();
        trace * ROUNDING_MARGIN >= mu.length_squared()
    }

    #[inline]
    pub fn add(&mut self, o: &Self) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a += b;
        }
    }

    /// The covariance matrix, or `None` without weight or when not finite.
    pub fn covariance(&self) -> Option<DMat3> {
        let [weight, fx, fy, fz, second @ ..] = self.0;
        if weight <= 0.0 || !weight.is_finite() {
            return None;
        }
        let inv = 1.0 / weight;
        let mu = DVec3::new(fx, fy, fz) * inv;
        let c = |k: usize, a: usize, b: usize| second[k] * inv - mu[a] * mu[b];
        let (xx, yy, zz, xy, xz, yz) = (
            c(0, 0, 0),
            c(1, 1, 1),
            c(2, 2, 2),
            c(3, 0, 1),
            c(4, 0, 2),
            c(5, 1, 2),
        );
        let m = DMat3::from_cols(
            DVec3::new(xx, xy, xz),
            DVec3::new(xy, yy, yz),
            DVec3::new(xz, yz, zz),
        );
        m.is_finite().then_some(m)
    }

    /// The covariance's eigenvectors (largest variance first) as a
    /// right-handed `f32` rotation; the world axes without a covariance.
    pub fn axes(&self) -> Mat3 {
        self.covariance().map_or(Mat3::IDENTITY, |c| {
            principal_axes_f32(&c).unwrap_or_else(|| {
                rotation_f32(&symmetric_eigen_closed_form(&c, AXES_TOLERANCE).vectors)
            })
        })
    }
}

/// A triangle's (or a few triangles') [`Moments`] in `f32`: 40 bytes
/// instead of 80, for the OBB build's per-triangle table.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RoundedMoments([f32; 10]);

impl RoundedMoments {
    /// [`Moments::triangle`] computed in `f32`, on corners already taken
    /// relative to the origin: a few ulps from the `f64` moments rounded,
    /// the same order as the rounding that
    /// [`Moments::rounding_negligible`] allows for.
    pub fn triangle(p: Vec3, q: Vec3, r: Vec3) -> Self {
        let area = 0.5 * (q - p).cross(r - p).length();
        let s = p + q + r; // 3 m
        let k = area / 12.0;
        let diagonal = (s * s + p * p + q * q + r * r) * k;
        let (a, b) = (
            |v: Vec3| Vec3::new(v.x, v.x, v.y),
            |v: Vec3| Vec3::new(v.y, v.z, v.z),
        );
        let off = (a(s) * b(s) + a(p) * b(p) + a(q) * b(q) + a(r) * b(r)) * k;
        let first = s * (area / 3.0);
        Self([
            area, first.x, first.y, first.z, diagonal.x, diagonal.y, diagonal.z, off.x, off.y,
            off.z,
        ])
    }
}

/// How much smaller than `|μ|²` the variance may be for moments summed from
/// [`RoundedMoments`] ([`Moments::rounding_negligible`]): the covariance's
/// rounding error is then a few `f32` ulps times this, about 10⁻³ of its
/// trace. Any axes give a valid box; this keeps the boxes tight. Measured
/// against the axes of `f64` moments on every inner node of four triangles
/// or more that keeps the `f32` sums (the test
/// `rounded_moments_keep_the_boxes_tight`, which prints these): none tilted
/// past 0.5° on the 32k torus, the wingnut and the teapot, 17 of 13 664 on
/// the 128² cloth (854 more recomputed in `f64`), 246 of 1 015 on the FCL
/// environment (nearly equal eigenvalues, whose axes are arbitrary in
/// their plane); the boxes' volume grew by 0.10 % (torus, cloth), 0.38 %
/// (wingnut) and 0.29 % (teapot, FCL environment) in geometric mean, and
/// the random-placement table's box and triangle tests by at most 0.03 %
/// (`obb_build.rs`, *Memory*).
const ROUNDING_MARGIN: f64 = 1e4;

/// Triangles per `f32` run of [`Moments::sum_rounded`].
const ROUNDED_RUN: usize = 4;

/// Off-diagonal tolerance of the covariance's diagonalisation: the axes
/// are stored as an `f32` quaternion, and any axes give a valid box (it is
/// fitted around the points afterwards), so more precision buys nothing.
const AXES_TOLERANCE: f64 = 1e-8;

/// Rounds a rotation to `f32`, re-orthonormalised (Gram–Schmidt, `z = x × y`).
fn rotation_f32(v: &DMat3) -> Mat3 {
    let x = v.x_axis.normalize();
    let y = (v.y_axis - x * x.dot(v.y_axis)).normalize();
    let z = x.cross(y);
    let m = DMat3::from_cols(x, y, z).as_mat3();
    if m.is_finite() { m } else { Mat3::IDENTITY }
}

/// The 15-axis separating axis test (paper, section 5; RAPID's
/// `obb_disjoint`), negated: `true` when the boxes overlap.
///
/// Box A has half extents `a_half` and sits at the origin of its own frame
/// with the world axes; box B has half extents `b_half`, its axes are the
/// columns of `r` (B's axes expressed in A's frame: `r_ij = A_i · B_j`) and
/// its center is `t` (in A's frame). See [`Obb::relative`]. The 3 face axes
/// of A are tested first, then the 3 of B, then the 9 edge cross products
/// `A_i × B_j`; the first separating axis ends the test.
///
/// # Tolerance
///
/// `eps` is dimensionless: it is added once to every `|r_ij|` (as in RAPID)
/// and `eps · |t_i|` to the radii of the axes that project `t` through `r`.
/// The test is then exactly right, up to `f32` rounding of its own few
/// operations, for *some* rotation `r'` within `eps` of `r` entrywise: boxes
/// that overlap for any such `r'` are never reported disjoint. This makes it
/// conservative against the rounding of `r` and `t` (and keeps the
/// near-zero cross products of near-parallel edges from separating
/// anything). The price: boxes apart by less than about `eps · (sum of
/// extents and |t|)` along the separating axis (more along a
/// near-degenerate edge axis, divided by its length `|A_i × B_j|`) may be
/// reported as overlapping. [`OBB_EPS`] (`1e-6`, about 8 `f32` ulps) suits
/// `r` and `t` computed in `f32` from unit rotations; pass more when the
/// inputs carry more error (say, box centers far from the origin compared
/// with the box sizes).
#[inline]
pub fn obb_overlap(a_half: Vec3, b_half: Vec3, r: &Mat3, t: Vec3, eps: f32) -> bool {
    // rm[i][j] = A_i · B_j; bf = |rm| + eps.
    let rm = r.transpose().to_cols_array_2d();
    let bf = rm.map(|row| row.map(|x| x.abs() + eps));
    sat_axes(a_half, b_half, (&rm, &bf), t, eps, false)
}

/// The axis tests of [`obb_overlap`] with the relative rotation given as
/// `rm[i][j] = A_i · B_j` and `bf = |rm| + eps` (computed once per model
/// pair by the AABB-tree traversal); `lite` tries the six face axes only.
#[inline]
pub(crate) fn sat_axes(
    a_half: Vec3,
    b_half: Vec3,
    (rm, bf): (&[[f32; 3]; 3], &[[f32; 3]; 3]),
    t: Vec3,
    eps: f32,
    lite: bool,
) -> bool {
    let a = a_half.to_array();
    let b = b_half.to_array();
    // te[i] = eps |t_i|: covers the error of projecting t through r.
    let te = (t.abs() * eps).to_array();
    let t = t.to_array();
    // A's face axes.
    for i in 0..3 {
        let s = t[i].abs();
        if s > a[i] + b[0] * bf[i][0] + b[1] * bf[i][1] + b[2] * bf[i][2] {
            return false;
        }
    }
    // B's face axes.
    let te_sum = te[0] + te[1] + te[2];
    for j in 0..3 {
        let s = (t[0] * rm[0][j] + t[1] * rm[1][j] + t[2] * rm[2][j]).abs();
        if s > b[j] + a[0] * bf[0][j] + a[1] * bf[1][j] + a[2] * bf[2][j] + te_sum {
            return false;
        }
    }
    if lite {
        return true;
    }
    // Edge cross products A_i × B_j, with (i, i1, i2) and (j, j1, j2) cyclic.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let s = (t[i2] * rm[i1][j] - t[i1] * rm[i2][j]).abs();
            let ra = a[i1] * bf[i2][j] + a[i2] * bf[i1][j];
            let rb = b[j1] * bf[i][j2] + b[j2] * bf[i][j1];
            if s > ra + rb + te[i1] + te[i2] {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    use crate::testkit::Rng;

    fn assert_contains(obb: &Obb, pts: &[Vec3]) {
        assert!(obb.center.is_finite() && obb.axes.is_finite() && obb.half_extents.is_finite());
        assert!(obb.half_extents.cmpge(Vec3::ZERO).all());
        let scale = pts.iter().fold(0.0f32, |s, p| s.max(p.abs().max_element()));
        let eps = 1e-6 * (1.0 + scale);
        for p in pts {
            assert!(obb.contains_point(*p, eps), "{p} outside {obb:?}");
        }
        let ata = obb.axes.transpose() * obb.axes;
        assert!(ata.abs_diff_eq(Mat3::IDENTITY, 1e-5));
        assert!((obb.axes.determinant() - 1.0).abs() < 1e-5);
    }

    /// Points on the surface of the box `[-h, h]` (corners included), plus
    /// interior points, rotated by `q` and moved to `c`.
    fn box_points(rng: &mut Rng, h: Vec3, q: Quat, c: Vec3, n: usize) -> Vec<Vec3> {
        let mut pts = Aabb::new(-h, h).corners().to_vec();
        for _ in 0..n {
            let mut p = rng.vec(-1.0, 1.0);
            if rng.f32() < 0.5 {
                let k = (rng.f32() * 3.0) as usize % 3;
                p[k] = if p[k] < 0.0 { -1.0 } else { 1.0 };
            }
            pts.push(p * h);
        }
        pts.iter().map(|p| c + q * *p).collect()
    }

    #[test]
    fn fit_box_shaped_sets() {
        let mut rng = Rng::new(10);
        let mut worst = 1.0f32;
        for _ in 0..500 {
            // Distinct extents, so that the covariance has distinct eigenvalues.
            let h = Vec3::new(
                rng.range(0.5, 1.0),
                rng.range(1.5, 2.5),
                rng.range(3.5, 6.0),
            );
            let q = rng.rotation();
            let c = rng.vec(-100.0, 100.0);
            let n = (rng.f32() * 200.0) as usize;
            let pts = box_points(&mut rng, h, q, c, n);
            let obb = Obb::fit(&pts, &[]);
            assert_contains(&obb, &pts);
            let ratio = obb.volume() / (8.0 * h.x * h.y * h.z);
            worst = worst.max(ratio);
            assert!(ratio < 1.01, "volume ratio {ratio}");
            // Axes: largest variance first.
            let z = q * Vec3::Z;
            assert!(obb.axes.x_axis.dot(z).abs() > 0.999);
        }
        println!("box-shaped sets: worst volume ratio {worst}");
    }

    #[test]
    fn fit_surface_not_vertices() {
        // A dense cluster of vertices near one corner must not tilt the axes:
        // the hull's surface, not the vertex distribution, decides.
        let mut rng = Rng::new(11);
        let h = Vec3::new(1.0, 2.0, 4.0);
        let mut pts = box_points(&mut rng, h, Quat::IDENTITY, Vec3::ZERO, 0);
        for _ in 0..1000 {
            pts.push(h * 0.9 + rng.vec(-0.05, 0.05));
        }
        let obb = Obb::fit(&pts, &[]);
        assert_contains(&obb, &pts);
        assert!((obb.volume() / 64.0 - 1.0).abs() < 1e-4);
    }

    #[test]
    fn fit_random_clouds_contain_points() {
        let mut rng = Rng::new(12);
        for k in 0..300 {
            let n = 1 + k % 50;
            let q = rng.rotation();
            let s = Vec3::new(
                rng.range(0.01, 10.0),
                rng.range(0.01, 10.0),
                rng.range(0.01, 10.0),
            );
            let c = rng.vec(-1000.0, 1000.0);
            let pts: Vec<Vec3> = (0..n).map(|_| c + q * (rng.vec(-1.0, 1.0) * s)).collect();
            let tris: Vec<[Vec3; 3]> = pts.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
            assert_contains(&Obb::fit(&pts, &tris), &pts);
            // The triangles alone give the same points.
            if !tris.is_empty() {
                let used: Vec<Vec3> = tris.iter().flatten().copied().collect();
                assert_contains(&Obb::fit(&[], &tris), &used);
            }
        }
    }

    #[test]
    fn fit_degenerate_inputs() {
        let mut rng = Rng::new(13);
        let q = rng.rotation();
        let c = Vec3::new(3.0, -7.0, 11.0);
        // Empty.
        assert_eq!(Obb::fit(&[], &[]), Obb::default());
        // One point, duplicates.
        for pts in [vec![c], vec![c; 17]] {
            let obb = Obb::fit(&pts, &[]);
            assert_contains(&obb, &pts);
            assert!(obb.half_extents.max_element() < 1e-4);
        }
        // Collinear points.
        let d = q * Vec3::new(1.0, 2.0, 3.0).normalize();
        let pts: Vec<Vec3> = (0..20).map(|i| c + d * (i as f32 * 0.37)).collect();
        let obb = Obb::fit(&pts, &[]);
        assert_contains(&obb, &pts);
        assert!(obb.axes.x_axis.dot(d).abs() > 0.99999);
        assert!(obb.volume() < 1e-6);
        // A single triangle, a flat triangle fan, two points.
        let tri = [c, c + q * Vec3::X, c + q * Vec3::new(0.3, 2.0, 0.0)];
        let obb = Obb::fit(&tri, &[tri]);
        assert_contains(&obb, &tri);
        assert!(obb.axes.z_axis.dot(q * Vec3::Z).abs() > 0.99999);
        assert!(obb.half_extents.z < 1e-4);
        let fan: Vec<Vec3> = (0..12)
            .map(|i| c + q * Vec3::new((i as f32).cos() * 5.0, (i as f32).sin() * 2.0, 0.0))
            .collect();
        let tris: Vec<[Vec3; 3]> = (1..11).map(|i| [fan[0], fan[i], fan[i + 1]]).collect();
        let obb = Obb::fit(&fan, &tris);
        assert_contains(&obb, &fan);
        assert!(obb.half_extents.z < 1e-4);
        let obb = Obb::fit(&fan, &[]); // flat, no triangles: the points decide
        assert_contains(&obb, &fan);
        assert!(obb.half_extents.z < 1e-4);
        let two = [c, c + d];
        assert_contains(&Obb::fit(&two, &[]), &two);
        // Degenerate triangles only (zero area), collinear points.
        let tris = [[pts[0], pts[1], pts[2]], [pts[3], pts[3], pts[3]]];
        assert_contains(&Obb::fit(&pts, &tris), &pts);
        // Non-finite points are ignored.
        let mut bad = pts.clone();
        bad.push(Vec3::new(f32::NAN, 0.0, 0.0));
        bad.push(Vec3::INFINITY);
        let obb = Obb::fit(&bad, &[[Vec3::NAN, c, c]]);
        assert_contains(&obb, &pts);
        assert_eq!(Obb::fit(&[Vec3::NAN], &[]), Obb::default());
        // Tiny and huge coordinates.
        for s in [1e-20f32, 1e-3, 1e3, 1e15] {
            let pts: Vec<Vec3> = (0..30).map(|_| rng.vec(-s, s)).collect();
            assert_contains(&Obb::fit(&pts, &[]), &pts);
        }
    }

    #[test]
    fn corners_and_relative() {
        let mut rng = Rng::new(14);
        let obb = Obb {
            center: rng.vec(-5.0, 5.0),
            axes: Mat3::from_quat(rng.rotation()),
            half_extents: Vec3::new(1.0, 2.0, 3.0),
        };
        for c in obb.corners() {
            assert!(obb.contains_point(c, 1e-5));
            assert!(!obb.contains_point(c + (c - obb.center) * 0.01, 1e-5));
        }
        assert!((obb.volume() - 48.0).abs() < 1e-4);
        let (r, t) = obb.relative(&obb);
        assert!(r.abs_diff_eq(Mat3::IDENTITY, 1e-6) && t == Vec3::ZERO);
    }

    // ---------------------------------------------------------------- SAT

    /// Reference answer, in f64, from the 8 corners of each box projected on
    /// each of the 15 candidate axes (computed directly as face normals and
    /// edge cross products), in A's frame: A is `[-a, a]`, B has the exact
    /// rotation `rot` and center `t`.
    struct Reference {
        /// Per axis: `(gap, slack)`. `gap` is the distance between the
        /// projected intervals (> 0: separated) along the *unnormalised*
        /// axis; `slack` is how much the fast test widens that axis' radii,
        /// per unit of eps.
        axes: Vec<(f64, f64)>,
        /// Largest normalised gap: > 0 iff the boxes are disjoint.
        best: f64,
    }

    fn reference(a: DVec3, b: DVec3, rot: &DMat3, t: DVec3) -> Reference {
        let signs = |i: usize| {
            DVec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            )
        };
        let ca: [DVec3; 8] = std::array::from_fn(|i| signs(i) * a);
        let cb: [DVec3; 8] = std::array::from_fn(|i| t + *rot * (signs(i) * b));
        let ax = [DVec3::X, DVec3::Y, DVec3::Z];
        let bx = [rot.x_axis, rot.y_axis, rot.z_axis];
        let ta = t.abs();
        let mut cand = Vec::new();
        for axis in ax {
            cand.push((axis, b.element_sum()));
        }
        for axis in bx {
            cand.push((axis, a.element_sum() + ta.element_sum()));
        }
        for (i, axi) in ax.iter().enumerate() {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            for (j, bxj) in bx.iter().enumerate() {
                let slack = a[i1] + a[i2] + b[(j + 1) % 3] + b[(j + 2) % 3] + ta[i1] + ta[i2];
                cand.push((axi.cross(*bxj), slack));
            }
        }
        let mut axes = Vec::new();
        let mut best = f64::NEG_INFINITY;
        for (l, slack) in cand {
            let proj = |cs: &[DVec3; 8]| {
                cs.iter()
                    .map(|c| c.dot(l))
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                        (lo.min(x), hi.max(x))
                    })
            };
            let (alo, ahi) = proj(&ca);
            let (blo, bhi) = proj(&cb);
            let gap = (blo - ahi).max(alo - bhi);
            let len = l.length();
            if len > 1e-12 {
                best = best.max(gap / len);
            }
            axes.push((gap, slack));
        }
        Reference { axes, best }
    }

    /// A random exact rotation (f64) and its f32 rounding.
    fn random_rotation(rng: &mut Rng) -> (DMat3, Mat3) {
        let q = rng.rotation().as_dquat().normalize();
        let m = DMat3::from_quat(q);
        (m, m.as_mat3())
    }

    /// Compares the fast test with the reference on one configuration;
    /// returns (fast answer, whether it was a tolerated mismatch).
    fn compare(a: Vec3, b: Vec3, rot: &DMat3, r: &Mat3, t: Vec3, eps: f32) -> (bool, bool) {
        let fast = obb_overlap(a, b, r, t, eps);
        let re = reference(a.as_dvec3(), b.as_dvec3(), rot, t.as_dvec3());
        let ref_overlap = re.best <= 0.0;
        if fast == ref_overlap {
            return (fast, false);
        }
        assert!(
            fast,
            "fast test says disjoint, reference overlaps by {}: a {a} b {b} r {r:?} t {t}",
            -re.best
        );
        // Fast says overlap, the reference disjoint: allowed only inside the
        // eps band of every axis (so of the best one), up to f32 rounding.
        let scale = (a.element_sum() + b.element_sum() + t.abs().element_sum()) as f64;
        for &(gap, slack) in &re.axes {
            let band = eps as f64 * slack + 1e-6 * scale;
            assert!(
                gap <= band,
                "gap {gap} beyond the eps band {band}: a {a} b {b} r {r:?} t {t}"
            );
        }
        (fast, true)
    }

    fn random_half(rng: &mut Rng) -> Vec3 {
        Vec3::new(
            rng.range(0.05, 2.0),
            rng.range(0.05, 2.0),
            rng.range(0.05, 2.0),
        )
    }

    #[test]
    fn sat_matches_reference_random_pairs() {
        let mut rng = Rng::new(20);
        let (mut overlaps, mut tolerated) = (0, 0);
        let n = 100_000;
        for _ in 0..n {
            let (a, b) = (random_half(&mut rng), random_half(&mut rng));
            let (rot, r) = random_rotation(&mut rng);
            let t = rng.vec(-1.0, 1.0).normalize_or(Vec3::X) * rng.range(0.0, 4.2);
            let (fast, tol) = compare(a, b, &rot, &r, t, OBB_EPS);
            overlaps += fast as usize;
            tolerated += tol as usize;
        }
        println!("SAT: {overlaps} of {n} overlap, {tolerated} tolerated mismatches");
        assert!(overlaps > n * 3 / 10 && overlaps < n * 7 / 10, "{overlaps}");
    }

    #[test]
    fn sat_world_space_pairs() {
        // Through Obb::overlaps (r and t computed in f32 from world poses).
        let mut rng = Rng::new(23);
        let mut overlaps = 0;
        let n = 20_000;
        for _ in 0..n {
            let ca = rng.vec(-1.0, 1.0);
            let a = Obb {
                center: ca,
                axes: Mat3::from_quat(rng.rotation()),
                half_extents: random_half(&mut rng),
            };
            let cb = ca + rng.vec(-1.0, 1.0).normalize_or(Vec3::X) * rng.range(0.0, 4.2);
            let b = Obb {
                center: cb,
                axes: Mat3::from_quat(rng.rotation()),
                half_extents: random_half(&mut rng),
            };
            let fast = a.overlaps(&b, OBB_EPS);
            assert_eq!(fast, b.overlaps(&a, OBB_EPS));
            let (r, t) = a.relative(&b);
            let rot = a.axes.as_dmat3().transpose() * b.axes.as_dmat3();
            let t64 = a.axes.as_dmat3().transpose() * (b.center.as_dvec3() - a.center.as_dvec3());
            let re = reference(
                a.half_extents.as_dvec3(),
                b.half_extents.as_dvec3(),
                &rot,
                t64,
            );
            if fast != (re.best <= 0.0) {
                // Only at contact, within the rounding of the f32 poses.
                assert!(re.best.abs() < 1e-5, "{a:?} {b:?}");
            }
            let _ = (r, t);
            overlaps += fast as usize;
        }
        assert!(overlaps > n * 3 / 10 && overlaps < n * 7 / 10, "{overlaps}");
    }

    #[test]
    fn sat_near_contact_pairs() {
        // B moved along a random direction to within ±1e-5 of contact: the
        // answers cluster at the boundary, where the eps band matters.
        let mut rng = Rng::new(21);
        let (mut overlaps, mut tolerated) = (0, 0);
        let n = 50_000;
        for _ in 0..n {
            let (a, b) = (random_half(&mut rng), random_half(&mut rng));
            let (rot, r) = random_rotation(&mut rng);
            let dir = rng.vec(-1.0, 1.0).normalize_or(Vec3::X).as_dvec3();
            // Bisection on the distance to contact with the reference.
            let (mut lo, mut hi) = (0.0f64, 8.0f64);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if reference(a.as_dvec3(), b.as_dvec3(), &rot, dir * mid).best <= 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let t = (dir * (lo + rng.range(-1e-5, 1e-5) as f64)).as_vec3();
            let (fast, tol) = compare(a, b, &rot, &r, t, OBB_EPS);
            overlaps += fast as usize;
            tolerated += tol as usize;
        }
        println!("SAT near contact: {overlaps} of {n} overlap, {tolerated} tolerated mismatches");
    }

    #[test]
    fn sat_parallel_and_special_cases() {
        let h = Vec3::new(1.0, 2.0, 3.0);
        let id = Mat3::IDENTITY;
        // Identical, nested, touching faces, touching corners: overlap.
        assert!(obb_overlap(h, h, &id, Vec3::ZERO, OBB_EPS));
        assert!(obb_overlap(
            h,
            h * 0.1,
            &id,
            Vec3::new(0.5, 0.5, 0.5),
            OBB_EPS
        ));
        assert!(obb_overlap(h, h, &id, Vec3::new(2.0, 0.0, 0.0), OBB_EPS));
        assert!(obb_overlap(h, h, &id, Vec3::new(2.0, 4.0, 6.0), OBB_EPS));
        assert!(obb_overlap(h, h, &id, Vec3::new(2.0, 4.0, 6.0), 0.0));
        // Parallel and apart.
        assert!(!obb_overlap(h, h, &id, Vec3::new(2.01, 0.0, 0.0), OBB_EPS));
        assert!(!obb_overlap(h, h, &id, Vec3::new(0.0, 0.0, -6.01), OBB_EPS));
        // Separated only by an edge-edge axis: A turned 45° about z has an
        // edge along z at x = √2, B turned 45° about y an edge along y at
        // x = 2√2 + off − √2; the separating axis is z × y = −x.
        let one = Vec3::ONE;
        let a = Obb {
            center: Vec3::ZERO,
            axes: Mat3::from_rotation_z(std::f32::consts::FRAC_PI_4),
            half_extents: one,
        };
        for off in [0.05f32, -0.05] {
            let b = Obb {
                center: Vec3::new(2.0 * std::f32::consts::SQRT_2 + off, 0.0, 0.0),
                axes: Mat3::from_rotation_y(std::f32::consts::FRAC_PI_4),
                half_extents: one,
            };
            let (r, t) = a.relative(&b);
            let re = reference(one.as_dvec3(), one.as_dvec3(), &r.as_dmat3(), t.as_dvec3());
            assert_eq!(re.best <= 0.0, off < 0.0);
            assert_eq!(a.overlaps(&b, OBB_EPS), off < 0.0);
            assert_eq!(b.overlaps(&a, OBB_EPS), off < 0.0);
            // No face axis separates.
            assert!(re.axes[..6].iter().all(|&(g, _)| g <= 0.0));
        }
        // Nearly parallel boxes, deep overlap: must not report disjoint.
        let mut rng = Rng::new(22);
        for _ in 0..10_000 {
            let q = rng.rotation();
            let tiny = Quat::from_axis_angle(
                rng.vec(-1.0, 1.0).normalize_or(Vec3::X),
                rng.range(-1e-6, 1e-6),
            );
            let a = Obb {
                center: Vec3::ZERO,
                axes: Mat3::from_quat(q),
                half_extents: rng.vec(0.1, 2.0),
            };
            let b = Obb {
                center: rng.vec(-0.05, 0.05),
                axes: Mat3::from_quat(tiny * q),
                half_extents: rng.vec(0.1, 2.0),
            };
            assert!(a.overlaps(&b, OBB_EPS) && b.overlaps(&a, OBB_EPS));
            assert!(a.overlaps(&b, 0.0) && b.overlaps(&a, 0.0));
        }
    }
}
