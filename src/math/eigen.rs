//! Eigen-decomposition of 3x3 symmetric matrices by the cyclic Jacobi method.
//!
//! The OBBTree of S. Gottschalk, M. C. Lin and D. Manocha (*"OBBTree: A
//! Hierarchical Structure for Rapid Interference Detection"*, SIGGRAPH 1996,
//! section 4.1; the RAPID library) orients each box along the eigenvectors of
//! the covariance matrix of the geometry it bounds. RAPID diagonalises that
//! matrix with Jacobi rotations (`Meigen`, after Numerical Recipes §11.1); so
//! does this module, in `f64`:
//!
//! * each sweep annihilates the three off-diagonal entries in turn with the
//!   numerically stable rotation of Numerical Recipes (`t = sgn θ / (|θ| +
//!   √(θ²+1))`, `θ = (a_qq − a_pp) / 2a_pq`);
//! * after a few sweeps an off-diagonal entry that no longer changes the
//!   diagonal at working precision is set to zero; the loop stops when all
//!   three are below `1e-16` of the largest entry (at most [`MAX_SWEEPS`]
//!   sweeps; in practice 3 to 5);
//! * the matrix is first divided by its largest entry, so that huge and tiny
//!   scales neither overflow nor underflow.
//!
//! Eigenvalues are returned in decreasing order, the eigenvectors as the
//! columns of a rotation matrix (orthonormal, determinant +1). Repeated
//! eigenvalues are no problem for Jacobi: any orthonormal basis of the
//! eigenspace is returned. The zero matrix gives zero eigenvalues and the
//! identity.

use glam::{BVec4A, DMat3, DVec3, Mat3, Vec4};

use super::vec3x4::V3x4;

/// Off-diagonal entries below this fraction of the largest entry count as
/// zero (the residual `‖A v − λ v‖` stays below about `1e-15 ‖A‖`).
const TINY: f64 = 1e-16;

/// The most Jacobi sweeps [`symmetric_eigen`] performs.
pub const MAX_SWEEPS: usize = 50;

/// The eigen-decomposition `A = V diag(values) Vᵀ` of a symmetric 3x3 matrix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SymmetricEigen {
    /// Eigenvalues, largest first.
    pub values: DVec3,
    /// Unit eigenvectors as columns (`vectors.col(i)` belongs to `values[i]`):
    /// orthonormal and right-handed (a rotation matrix).
    pub vectors: DMat3,
}

/// Eigenvalues and eigenvectors of the symmetric matrix `m` by cyclic Jacobi.
///
/// Only the symmetric part `(m + mᵀ) / 2` is used. Never panics; a matrix
/// with a NaN or infinite entry gives its diagonal as "eigenvalues" and the
/// identity as eigenvectors.
pub fn symmetric_eigen(m: &DMat3) -> SymmetricEigen {
    symmetric_eigen_within(m, TINY)
}

/// [`symmetric_eigen`] stopped once every off-diagonal entry is below
/// `tiny` times the largest entry (at least `1e-16`): eigenvectors then
/// within about `tiny / gap` radians of the exact ones, where `gap` is the
/// relative distance between eigenvalues. Box axes need no more than
/// `1e-7` (what an `f32` rotation holds), which saves the last sweep or two.
pub fn symmetric_eigen_within(m: &DMat3, tiny: f64) -> SymmetricEigen {
    let tiny = tiny.max(TINY);
    let mut a = [[0.0f64; 3]; 3];
    for (i, row) in a.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = 0.5 * (m.col(j)[i] + m.col(i)[j]);
        }
    }
    let scale = a.iter().flatten().fold(0.0f64, |s, x| s.max(x.abs()));
    if scale == 0.0 || !a.iter().flatten().all(|x| x.is_finite()) {
        // Zero (or non-finite) matrix: nothing to rotate.
        return sorted(a, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 1.0);
    }
    for x in a.iter_mut().flatten() {
        *x /= scale;
    }

    // v[r][c]: row r, column c; columns become the eigenvectors.
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for sweep in 0..MAX_SWEEPS {
        // The scaled matrix has entries of at most 1: off-diagonal entries
        // below TINY no longer matter at f64 precision relative to ‖A‖.
        if a[0][1].abs() <= tiny && a[0][2].abs() <= tiny && a[1][2].abs() <= tiny {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            let apq = a[p][q];
            if apq.abs() <= tiny {
                continue;
            }
            let g = 100.0 * apq.abs();
            if sweep > 3 && a[p][p].abs() + g == a[p][p].abs() && a[q][q].abs() + g == a[q][q].abs()
            {
                // Below working precision relative to both diagonal entries.
                a[p][q] = 0.0;
                a[q][p] = 0.0;
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * apq);
            let t = if theta.abs() > 1e150 {
                0.5 / theta
            } else {
                let t = 1.0 / (theta.abs() + (theta * theta + 1.0).sqrt());
                if theta < 0.0 { -t } else { t }
            };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A' = Jᵀ A J with the rotation J in the (p, q) plane.
            a[p][p] -= t * apq;
            a[q][q] += t * apq;
            a[p][q] = 0.0;
            a[q][p] = 0.0;
            let r = 3 - p - q;
            let (arp, arq) = (a[r][p], a[r][q]);
            a[r][p] = c * arp - s * arq;
            a[p][r] = a[r][p];
            a[r][q] = s * arp + c * arq;
            a[q][r] = a[r][q];
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    sorted(a, v, scale)
}

/// Two eigenvalues closer than this fraction of the spectrum's spread send
/// [`symmetric_eigen_closed_form`] to Jacobi: their eigenvectors are then
/// ill-determined by cross products.
const CLUSTER: f64 = 1e-3;

/// The eigen-decomposition in closed form, about 4× cheaper than Jacobi:
/// the eigenvalues by Smith's trigonometric formula (O. K. Smith,
/// *Eigenvalues of a symmetric 3 × 3 matrix*, CACM 4(4), 1961), each
/// eigenvector as the longest cross product of two rows of `A − λI` (as in
/// D. Eberly, *A Robust Eigensolver for 3 × 3 Symmetric Matrices*, 2014),
/// then orthonormalised. When two eigenvalues lie within `1e-3` of the
/// spread of each other (or the matrix is a multiple of the identity, or
/// not finite) the vectors are ill-determined this way and Jacobi
/// ([`symmetric_eigen_within`] with `tiny`) answers instead.
pub fn symmetric_eigen_closed_form(m: &DMat3, tiny: f64) -> SymmetricEigen {
    let s = |i: usize, j: usize| 0.5 * (m.col(j)[i] + m.col(i)[j]);
    let a = DMat3::from_cols(
        DVec3::new(s(0, 0), s(1, 0), s(2, 0)),
        DVec3::new(s(0, 1), s(1, 1), s(2, 1)),
        DVec3::new(s(0, 2), s(1, 2), s(2, 2)),
    );
    let scale = a
        .abs()
        .to_cols_array()
        .iter()
        .fold(0.0f64, |x, y| x.max(*y));
    if !(scale > 0.0 && scale.is_finite()) {
        return symmetric_eigen_within(m, tiny);
    }
    let a = a * (1.0 / scale);
    let q = (a.x_axis.x + a.y_axis.y + a.z_axis.z) / 3.0;
    let b = a - DMat3::from_diagonal(DVec3::splat(q));
    let off = a.y_axis.x * a.y_axis.x + a.z_axis.x * a.z_axis.x + a.z_axis.y * a.z_axis.y;
    let diag = b.x_axis.x * b.x_axis.x + b.y_axis.y * b.y_axis.y + b.z_axis.z * b.z_axis.z;
    let p = ((diag + 2.0 * off) / 6.0).sqrt();
    if p < CLUSTER {
        return symmetric_eigen_within(m, tiny);
    }
    let half_det = ((b * (1.0 / p)).determinant() * 0.5).clamp(-1.0, 1.0);
    let phi = half_det.acos() / 3.0;
    let third = 2.0 * std::f64::consts::FRAC_PI_3;
    let max = q + 2.0 * p * phi.cos();
    let min = q + 2.0 * p * (phi + third).cos();
    let mid = 3.0 * q - max - min;
    if (max - mid).min(mid - min) < CLUSTER * p {
        return symmetric_eigen_within(m, tiny);
    }
    let (Some(x), Some(y)) = (null_vector(&a, max), null_vector(&a, mid)) else {
        return symmetric_eigen_within(m, tiny);
    };
    let y = (y - x * x.dot(y)).normalize();
    SymmetricEigen {
        values: DVec3::new(max, mid, min) * scale,
        vectors: DMat3::from_cols(x, y, x.cross(y)),
    }
}

/// A unit vector `v` with `(A − λI) v ≈ 0` for a simple eigenvalue `λ`:
/// the longest cross product of two rows of `A − λI`.
fn null_vector(a: &DMat3, lambda: f64) -> Option<DVec3> {
    // Symmetric: rows are columns.
    let b = *a - DMat3::from_diagonal(DVec3::splat(lambda));
    let c = [
        b.x_axis.cross(b.y_axis),
        b.x_axis.cross(b.z_axis),
        b.y_axis.cross(b.z_axis),
    ];
    let best = c
        .into_iter()
        .max_by(|u, v| u.length_squared().total_cmp(&v.length_squared()))?;
    let len = best.length();
    (len > 0.0 && len.is_finite()).then(|| best / len)
}

/// The eigenvectors of a symmetric matrix as an `f32` rotation (columns by
/// decreasing eigenvalue, right-handed), by the same closed form as
/// [`symmetric_eigen_closed_form`] carried out in `f32` after an `f64`
/// normalisation (`f32` trigonometry, no `f64` cross products; the second
/// vector from one row crossed with the first), as one lane of the
/// crate's four-lane solve (the OBB build solves sibling boxes side by
/// side).
/// `None` (the caller takes the `f64` path) unless the spectrum is spread:
/// the eigenvalues' spread `p` at least [`FAST_SPREAD`] of the largest
/// entry and every gap at least [`FAST_GAP`] `p`. Accuracy: Smith's angle
/// loses about `√ε` near a double eigenvalue, so two vectors whose
/// eigenvalues are within a few percent of the spread can turn within
/// their plane by up to about `10⁻²` radians; every axis's variance (its
/// Rayleigh quotient) stays within `10⁻⁴` of the spread of the exact
/// eigenvalue (tested against Jacobi). That is what a box fitted on the
/// axes depends on — the OBB build's covariance axes need no more (a box
/// is fitted around its points on whatever axes it gets).
pub fn principal_axes_f32(m: &DMat3) -> Option<Mat3> {
    let mut lanes = [[f32::NAN; 6]; 4];
    lanes[0] = normalized_entries(m)?;
    let (axes, valid) = principal_axes_lanes(lanes);
    valid
        .test(0)
        .then(|| Mat3::from_cols(axes[0].lane(0), axes[1].lane(0), axes[2].lane(0)))
}

/// The six entries `xx, yy, zz, xy, xz, yz` of the symmetric part of `m`,
/// divided by the largest in magnitude and rounded to `f32`: what
/// [`principal_axes_lanes`] takes. `None` for the zero matrix and one with
/// a non-finite entry.
pub(crate) fn normalized_entries(m: &DMat3) -> Option<[f32; 6]> {
    let s = |i: usize, j: usize| 0.5 * (m.col(j)[i] + m.col(i)[j]);
    let e = [s(0, 0), s(1, 1), s(2, 2), s(0, 1), s(0, 2), s(1, 2)];
    let scale = e.iter().fold(0.0f64, |x, y| x.max(y.abs()));
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    let k = 1.0 / scale;
    Some(e.map(|x| (x * k) as f32))
}

/// [`principal_axes_f32`] for four matrices at once, one per lane of
/// `Vec4`s (their [`normalized_entries`]): the eigenvector columns and
/// the lanes that have them (a NaN lane is dropped early). The solve is
/// one long dependency chain (square roots, divisions, `acos`, `cos`,
/// cross products); side by side, the chains overlap, and a lane's answer
/// does not depend on the others.
pub(crate) fn principal_axes_lanes(entries: [[f32; 6]; 4]) -> ([V3x4; 3], BVec4A) {
    let [xx, yy, zz, xy, xz, yz] = std::array::from_fn(|k| Vec4::from_array(entries.map(|e| e[k])));
    // Products by reciprocals, not divisions: a division is three or four
    // times the latency.
    let q = (xx + yy + zz) * (1.0 / 3.0);
    let (bx, by, bz) = (xx - q, yy - q, zz - q);
    let off = xy * xy + xz * xz + yz * yz;
    let p = ((bx * bx + by * by + bz * bz + 2.0 * off) * (1.0 / 6.0)).sqrt();
    // NaN compares false: not valid.
    let mut valid = p.cmpge(Vec4::splat(FAST_SPREAD));
    // det(B / p) / 2, with B = A − qI.
    let ip = p.recip();
    let (ux, uy, uz, uxy, uxz, uyz) = (bx * ip, by * ip, bz * ip, xy * ip, xz * ip, yz * ip);
    let det =
        ux * (uy * uz - uyz * uyz) - uxy * (uxy * uz - uyz * uxz) + uxz * (uxy * uyz - uy * uxz);
    let half_det = (det * 0.5).to_array().map(|h| h.clamp(-1.0, 1.0));
    // φ in [0, π/3]: cos(φ + 2π/3) = −cos φ / 2 − (√3 / 2) sin φ, sin φ ≥ 0.
    let c = Vec4::from_array(half_det.map(|h| (h.acos() * (1.0 / 3.0)).cos()));
    let sn = (Vec4::ONE - c * c).max(Vec4::ZERO).sqrt();
    let max = 2.0 * p * c;
    let min = p * (-c - 3f32.sqrt() * sn);
    let mid = -max - min;
    valid &= (max - mid).min(mid - min).cmpge(FAST_GAP * p);
    // The rows of B − λI span the plane normal to λ's eigenvector.
    let rows = |l: Vec4| {
        [
            V3x4 {
                x: bx - l,
                y: xy,
                z: xz,
            },
            V3x4 {
                x: xy,
                y: by - l,
                z: yz,
            },
            V3x4 {
                x: xz,
                y: yz,
                z: bz - l,
            },
        ]
    };
    let [r0, r1, r2] = rows(max);
    let (x, x_ok) = longest([r0.cross(r1), r0.cross(r2), r1.cross(r2)]);
    // The rows for `mid` lie in the plane of x and the third eigenvector:
    // the longest one, crossed with x, gives y.
    let (y, y_ok) = longest(rows(mid).map(|r| r.cross(x)));
    let z = x.cross(y);
    valid &= x_ok & y_ok & x.is_finite() & y.is_finite() & z.is_finite();
    ([x, y, z], valid)
}

/// Per lane, the longest of three vectors, normalised, and whether it
/// exists (not all zero, none infinite or NaN).
fn longest(v: [V3x4; 3]) -> (V3x4, BVec4A) {
    let l = v.map(|v| v.dot(v));
    let first = l[0].cmpge(l[1]) & l[0].cmpge(l[2]);
    let second = l[1].cmpge(l[2]);
    let best = V3x4::select(first, v[0], V3x4::select(second, v[1], v[2]));
    let len2 = Vec4::select(first, l[0], Vec4::select(second, l[1], l[2]));
    let ok = len2.cmpgt(Vec4::ZERO) & len2.is_finite_mask();
    (best.scale(len2.sqrt().recip()), ok)
}

/// Smallest eigenvalue spread (relative to the largest entry) that
/// [`principal_axes_f32`] accepts.
pub const FAST_SPREAD: f32 = 1e-2;

/// Smallest eigenvalue gap (relative to the spread) that
/// [`principal_axes_f32`] accepts.
pub const FAST_GAP: f32 = 1e-2;

/// Sorts the diagonal of `a` (times `scale`) decreasingly with the columns of
/// `v`, and makes the basis right-handed.
fn sorted(a: [[f64; 3]; 3], v: [[f64; 3]; 3], scale: f64) -> SymmetricEigen {
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[j][j].total_cmp(&a[i][i]));
    let col = |k: usize| DVec3::new(v[0][k], v[1][k], v[2][k]);
    let values = DVec3::new(
        a[order[0]][order[0]] * scale,
        a[order[1]][order[1]] * scale,
        a[order[2]][order[2]] * scale,
    );
    let (x, y, mut z) = (col(order[0]), col(order[1]), col(order[2]));
    if x.cross(y).dot(z) < 0.0 {
        z = -z;
    }
    SymmetricEigen {
        values,
        vectors: DMat3::from_cols(x, y, z),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    /// The crate's seeded generator, with f64 sampling for these tests.
    struct Rng(crate::testkit::Rng);
    impl Rng {
        fn new(seed: u64) -> Self {
            Self(crate::testkit::Rng::new(seed))
        }
        fn next_u64(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn unit(&mut self) -> f64 {
            (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
        }
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * self.unit()
        }
        /// `R diag((d + offset) 10^e) Rᵀ`: `d` uniform in `[-1, 1]³` (its
        /// first two within `width` of each other when `clustered`), `e`
        /// uniform in `[-decades, decades]`, `R` a random rotation.
        fn spectrum(&mut self, clustered: bool, width: f64, decades: f64, offset: f64) -> DMat3 {
            let mut d = DVec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if clustered {
                d.y = d.x + self.range(-width, width);
            }
            let scale = 10f64.powf(self.range(-decades, decades));
            let r = self.rotation();
            r * DMat3::from_diagonal((d + DVec3::splat(offset)) * scale) * r.transpose()
        }
        fn rotation(&mut self) -> DMat3 {
            let q = DQuat::from_xyzw(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            DMat3::from_quat(q.normalize())
        }
    }

    fn norm(m: &DMat3) -> f64 {
        (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared()).sqrt()
    }

    /// A v = λ v (relative to ‖A‖), orthonormal, right-handed, sorted.
    fn check(m: &DMat3, e: &SymmetricEigen, tol: f64) {
        let n = norm(m).max(f64::MIN_POSITIVE);
        for k in 0..3 {
            let v = e.vectors.col(k);
            let r = *m * v - v * e.values[k];
            assert!(
                r.length() <= tol * n,
                "residual {} for {m:?}, {e:?}",
                r.length() / n
            );
        }
        let vtv = e.vectors.transpose() * e.vectors;
        assert!(
            (vtv - DMat3::IDENTITY)
                .abs()
                .to_cols_array()
                .iter()
                .all(|&x| x < 1e-12),
            "not orthonormal: {vtv:?}"
        );
        assert!((e.vectors.determinant() - 1.0).abs() < 1e-12);
        assert!(e.values[0] >= e.values[1] && e.values[1] >= e.values[2]);
    }

    #[test]
    fn random_symmetric() {
        let mut rng = Rng::new(1);
        for _ in 0..10_000 {
            let mut m = DMat3::ZERO;
            for i in 0..3 {
                for j in i..3 {
                    let x = rng.range(-10.0, 10.0);
                    m.col_mut(j)[i] = x;
                    m.col_mut(i)[j] = x;
                }
            }
            let e = symmetric_eigen(&m);
            check(&m, &e, 1e-9);
            // Trace and determinant are preserved.
            let tr = m.x_axis.x + m.y_axis.y + m.z_axis.z;
            assert!((e.values.element_sum() - tr).abs() < 1e-9 * norm(&m));
        }
    }

    #[test]
    fn known_spectrum() {
        let mut rng = Rng::new(2);
        for _ in 0..1000 {
            let r = rng.rotation();
            let l = DVec3::new(
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
                rng.range(-5.0, 5.0),
            );
            let m = r * DMat3::from_diagonal(l) * r.transpose();
            let e = symmetric_eigen(&m);
            check(&m, &e, 1e-9);
            let mut want = l.to_array();
            want.sort_by(|a, b| b.total_cmp(a));
            for (k, w) in want.iter().enumerate() {
                assert!((e.values[k] - w).abs() < 1e-9 * 5.0);
            }
        }
    }

    #[test]
    fn f32_axes_match_jacobi_when_spread() {
        let mut rng = Rng::new(8);
        let mut fast = 0;
        for i in 0..20_000 {
            // Some spectra clustered; shifted so the trace varies too.
            let offset = rng.range(-2.0, 2.0);
            let m = rng.spectrum(i % 3 == 0, 1e-3, 6.0, offset);
            let Some(axes) = principal_axes_f32(&m) else {
                continue;
            };
            fast += 1;
            let want = symmetric_eigen(&m);
            // Orthonormal, right-handed, and each axis's variance (its
            // Rayleigh quotient) that of Jacobi's eigenvalue, to 1e-4 of the
            // spread: what a box fitted on the axes depends on. (Within a
            // nearly equal pair the vectors themselves are ill-determined.)
            let a = axes.as_dmat3();
            let off = (a.transpose() * a - DMat3::IDENTITY).abs();
            assert!(off.to_cols_array().iter().all(|&x| x < 1e-5));
            assert!((a.determinant() - 1.0).abs() < 1e-5);
            let spread = want.values[0] - want.values[2];
            for k in 0..3 {
                let v = a.col(k);
                let rayleigh = v.dot(m * v);
                assert!(
                    (rayleigh - want.values[k]).abs() <= 1e-4 * spread,
                    "axis {k}: {rayleigh} vs {} (spread {spread}) for {m:?}",
                    want.values[k]
                );
            }
        }
        assert!(fast > 10_000, "the fast path took only {fast} matrices");
        // Clustered, zero or non-finite: the f64 path.
        assert!(principal_axes_f32(&DMat3::IDENTITY).is_none());
        assert!(principal_axes_f32(&DMat3::ZERO).is_none());
        assert!(principal_axes_f32(&DMat3::from_diagonal(DVec3::new(1.0, 1.0, 0.5))).is_none());
        assert!(principal_axes_f32(&(DMat3::IDENTITY * f64::NAN)).is_none());
    }

    #[test]
    fn lanes_solve_each_matrix_on_its_own() {
        // Four different matrices (some clustered, one non-finite) in one
        // call: every lane answers as that matrix alone does.
        let mut rng = Rng::new(9);
        for _ in 0..2_000 {
            let entries: [[f32; 6]; 4] = std::array::from_fn(|_| {
                let (clustered, offset) = (rng.unit() < 0.3, rng.range(-1.0, 1.0));
                let m = rng.spectrum(clustered, 1e-3, 4.0, offset);
                if rng.unit() < 0.1 {
                    [f32::NAN; 6]
                } else {
                    normalized_entries(&m).expect("a random spectrum is not zero")
                }
            });
            let (axes, valid) = principal_axes_lanes(entries);
            for (i, e) in entries.iter().enumerate() {
                let (alone, alone_valid) = principal_axes_lanes([*e; 4]);
                assert_eq!(valid.test(i), alone_valid.test(0), "lane {i}");
                if valid.test(i) {
                    for k in 0..3 {
                        assert_eq!(axes[k].lane(i), alone[k].lane(0), "lane {i}, axis {k}");
                    }
                }
            }
        }
    }

    #[test]
    fn closed_form_equals_jacobi() {
        let mut rng = Rng::new(7);
        for i in 0..20_000 {
            // Random spectra, some with clustered eigenvalues (Jacobi path).
            let m = rng.spectrum(i % 5 == 0, 1e-4, 30.0, 0.0);
            let fast = symmetric_eigen_closed_form(&m, TINY);
            check(&m, &fast, 1e-9);
            let slow = symmetric_eigen(&m);
            let spread = (slow.values.x - slow.values.z).abs().max(f64::MIN_POSITIVE);
            assert!(
                (fast.values - slow.values).abs().max_element() <= 1e-9 * spread,
                "{m:?}: {fast:?} vs {slow:?}"
            );
        }
    }

    #[test]
    fn diagonal() {
        let m = DMat3::from_diagonal(DVec3::new(2.0, -1.0, 7.0));
        let e = symmetric_eigen(&m);
        assert_eq!(e.values, DVec3::new(7.0, 2.0, -1.0));
        check(&m, &e, 0.0);
        assert_eq!(e.vectors.col(0).abs(), DVec3::Z);
        assert_eq!(e.vectors.col(1).abs(), DVec3::X);
    }

    #[test]
    fn repeated_eigenvalues() {
        let mut rng = Rng::new(3);
        for _ in 0..1000 {
            let r = rng.rotation();
            let a = rng.range(-3.0, 3.0);
            let b = rng.range(-3.0, 3.0);
            for l in [DVec3::splat(a), DVec3::new(a, a, b), DVec3::new(b, a, a)] {
                let m = r * DMat3::from_diagonal(l) * r.transpose();
                let e = symmetric_eigen(&m);
                check(&m, &e, 1e-9);
            }
        }
        let m = DMat3::from_diagonal(DVec3::splat(4.0));
        let e = symmetric_eigen(&m);
        assert_eq!(e.values, DVec3::splat(4.0));
        assert_eq!(e.vectors, DMat3::IDENTITY);
    }

    #[test]
    fn zero_and_rank_one() {
        let e = symmetric_eigen(&DMat3::ZERO);
        assert_eq!(e.values, DVec3::ZERO);
        assert_eq!(e.vectors, DMat3::IDENTITY);
        let u = DVec3::new(1.0, 2.0, -2.0);
        let m = DMat3::from_cols(u * u.x, u * u.y, u * u.z);
        let e = symmetric_eigen(&m);
        check(&m, &e, 1e-12);
        assert!((e.values[0] - 9.0).abs() < 1e-12);
        assert!(e.vectors.col(0).cross(u / 3.0).length() < 1e-12);
    }

    #[test]
    fn huge_and_tiny_scales() {
        let mut rng = Rng::new(4);
        for scale in [1e-300, 1e-150, 1e-30, 1e30, 1e150, 1e300] {
            for _ in 0..200 {
                let r = rng.rotation();
                let l = DVec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                );
                let m = r * DMat3::from_diagonal(l * scale) * r.transpose();
                let e = symmetric_eigen(&m);
                assert!(e.values.is_finite() && e.vectors.is_finite());
                check(&m, &e, 1e-9);
            }
        }
        // Subnormal entries.
        let m = DMat3::from_cols_array(&[5e-324, 1e-323, 0.0, 1e-323, 0.0, 0.0, 0.0, 0.0, 0.0]);
        let e = symmetric_eigen(&m);
        assert!(e.values.is_finite() && e.vectors.is_finite());
        assert!((e.vectors.determinant() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn non_finite_does_not_panic() {
        let m = DMat3::from_diagonal(DVec3::new(f64::NAN, 1.0, 2.0));
        let e = symmetric_eigen(&m);
        assert_eq!(e.vectors.determinant(), 1.0);
        let m = DMat3::from_cols_array(&[
            1.0,
            f64::INFINITY,
            0.0,
            f64::INFINITY,
            1.0,
            0.0,
            0.0,
            0.0,
            1.0,
        ]);
        let e = symmetric_eigen(&m);
        assert_eq!(e.vectors.determinant(), 1.0);
    }

    #[test]
    fn ill_conditioned() {
        // Nearly equal eigenvalues and a huge spread.
        let mut rng = Rng::new(5);
        for _ in 0..1000 {
            let r = rng.rotation();
            let l = DVec3::new(1.0, 1.0 + 1e-13, rng.range(-1e-12, 1e-12));
            let m = r * DMat3::from_diagonal(l) * r.transpose();
            check(&m, &symmetric_eigen(&m), 1e-9);
            let l = DVec3::new(1e12, 1.0, -1e-12);
            let m = r * DMat3::from_diagonal(l) * r.transpose();
            check(&m, &symmetric_eigen(&m), 1e-9);
        }
    }
}
