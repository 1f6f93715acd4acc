//! The simplex of GJK and its closest point by signed volumes (see the
//! [module docs](super#closest-point-of-a-simplex-signed-volumes)).

use glam::{DVec3, Vec2, Vec3};

use super::{REL_DUP2, SupportPoint};

/// Up to four CSO points with barycentric weights of the closest point.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Simplex {
    pub pts: [SupportPoint; 4],
    pub lambda: [f32; 4],
    pub len: usize,
}

impl Simplex {
    pub(super) fn push(&mut self, p: SupportPoint) {
        if self.len < 4 {
            self.pts[self.len] = p;
            self.lambda[self.len] = 0.0;
            self.len += 1;
        }
    }

    pub(super) fn contains(&self, w: Vec3, tol2: f32) -> bool {
        self.pts[..self.len]
            .iter()
            .any(|q| (q.w - w).length_squared() <= tol2)
    }

    /// Closest points on `A` and `B` (A's frame) for the current weights.
    pub fn witnesses(&self) -> (Vec3, Vec3) {
        let mut pa = Vec3::ZERO;
        let mut pb = Vec3::ZERO;
        for i in 0..self.len {
            pa += self.lambda[i] * self.pts[i].a;
            pb += self.lambda[i] * self.pts[i].b;
        }
        (pa, pb)
    }

    /// Whether every simplex point lies on the far side of the plane through
    /// `v` normal to `v` (within `tol`): true for the exact closest point.
    pub(super) fn consistent(&self, v: Vec3, tol: f32) -> bool {
        let d2 = v.length_squared();
        self.pts[..self.len].iter().all(|p| v.dot(p.w) >= d2 - tol)
    }

    /// [`Simplex::reduce`] by exhaustive search in `f64` over all 15
    /// sub-simplices (Johnson's method, solving each affine projection
    /// directly): slower, immune to the rounding of slivers. Used only when
    /// the `f32` result would stall the iteration.
    pub(super) fn reduce_exhaustive(&mut self) -> Vec3 {
        let n = self.len;
        let w: [DVec3; 4] = std::array::from_fn(|i| self.pts[i].w.as_dvec3());
        let mut best: Option<(f64, u8, [f64; 4])> = None;
        for mask in 1u8..(1 << n) {
            let idx: SmallIdx = (0..n).filter(|i| mask & (1 << i) != 0).collect();
            let Some(lam) = affine_projection(&w, &idx) else {
                continue;
            };
            if lam.iter().take(idx.len()).any(|&l| l < -1e-12) {
                continue;
            }
            let p: DVec3 = idx.iter().zip(lam).map(|(&i, l)| w[i] * l).sum();
            let d2 = p.length_squared();
            if best.is_none_or(|b| d2 < b.0) {
                let mut full = [0.0; 4];
                for (k, &i) in idx.iter().enumerate() {
                    full[i] = lam[k];
                }
                best = Some((d2, mask, full));
            }
        }
        let Some((_, mask, lam)) = best else {
            return self.reduce();
        };
        let mut out = Simplex::default();
        let mut v = DVec3::ZERO;
        for i in 0..n {
            if mask & (1 << i) != 0 {
                out.pts[out.len] = self.pts[i];
                out.lambda[out.len] = lam[i] as f32;
                out.len += 1;
                v += w[i] * lam[i];
            }
        }
        *self = out;
        v.as_vec3()
    }

    /// Replaces the simplex by the smallest sub-simplex containing its point
    /// closest to the origin, sets the weights and returns that point.
    pub(super) fn reduce(&mut self) -> Vec3 {
        let sub = self.solve();
        self.apply(&sub);
        sub.v
    }

    /// The smallest sub-simplex containing the point closest to the origin,
    /// its weights and the point, without changing the simplex (so a
    /// caller can still drop a point that made no progress).
    #[inline]
    pub(super) fn solve(&self) -> Sub {
        let w = [self.pts[0].w, self.pts[1].w, self.pts[2].w, self.pts[3].w];
        match self.len {
            0 => Sub {
                lambda: [0.0; 4],
                mask: 0,
                v: Vec3::ZERO,
                d2: 0.0,
            },
            1 => Sub::vertex(&w, 0),
            2 => s1d(&w, 0, 1),
            3 => s2d(&w, [0, 1, 2]),
            _ => s3d(&w),
        }
    }

    /// Keeps the points of `sub` with its weights (in place; slot order is
    /// kept, so a point only moves down).
    #[inline]
    pub(super) fn apply(&mut self, sub: &Sub) {
        if self.len == 0 {
            return;
        }
        let mut n = 0;
        for i in 0..self.len {
            if sub.mask & (1 << i) != 0 {
                if n != i {
                    self.pts[n] = self.pts[i];
                }
                self.lambda[n] = sub.lambda[i];
                n += 1;
            }
        }
        self.len = n;
    }
}

type SmallIdx = smallvec::SmallVec<[usize; 4]>;

/// Barycentric weights of the projection of the origin onto the affine hull
/// of `w[idx]` (`None` if the points are affinely dependent).
fn affine_projection(w: &[DVec3], idx: &[usize]) -> Option<[f64; 4]> {
    let p0 = w[idx[0]];
    let k = idx.len() - 1;
    let e: SmallVec3 = idx[1..].iter().map(|&i| w[i] - p0).collect();
    // Normal equations G mu = -E^T p0, G = E^T E (k x k, k <= 3).
    let mut g = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for a in 0..k {
        for b in 0..k {
            g[a][b] = e[a].dot(e[b]);
        }
        r[a] = -e[a].dot(p0);
    }
    let mu = solve(&g, &r, k)?;
    let mut lam = [0.0; 4];
    lam[0] = 1.0 - mu[..k].iter().sum::<f64>();
    lam[1..=k].copy_from_slice(&mu[..k]);
    Some(lam)
}

type SmallVec3 = smallvec::SmallVec<[DVec3; 3]>;

/// Solves the k x k system (k <= 3) by Gaussian elimination with pivoting.
fn solve(g: &[[f64; 3]; 3], r: &[f64; 3], k: usize) -> Option<[f64; 3]> {
    let mut m = [[0.0f64; 4]; 3];
    for i in 0..k {
        m[i][..k].copy_from_slice(&g[i][..k]);
        m[i][3] = r[i];
    }
    let scale = (0..k).map(|i| g[i][i].abs()).fold(0.0, f64::max);
    for c in 0..k {
        let piv = (c..k).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[piv][c].abs() <= 1e-14 * scale.max(f64::MIN_POSITIVE) {
            return None;
        }
        m.swap(c, piv);
        let pivot_row = m[c];
        for (row, r) in m.iter_mut().enumerate().take(k) {
            if row != c {
                let f = r[c] / pivot_row[c];
                for (x, p) in r.iter_mut().zip(pivot_row).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut x = [0.0; 3];
    for i in 0..k {
        x[i] = m[i][3] / m[i][i];
    }
    Some(x)
}

/// Result of a simplex sub-algorithm: weights indexed by simplex slot, the
/// set of slots used, the point they give and its squared length.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sub {
    lambda: [f32; 4],
    mask: u8,
    /// The point `Σ λᵢ wᵢ` (the closest point of the simplex).
    pub v: Vec3,
    /// `|v|²`.
    pub d2: f32,
}

impl Sub {
    #[inline]
    fn vertex(w: &[Vec3; 4], i: usize) -> Self {
        let mut lambda = [0.0; 4];
        lambda[i] = 1.0;
        Self {
            lambda,
            mask: 1 << i,
            v: w[i],
            d2: w[i].length_squared(),
        }
    }

    #[inline]
    fn new(lambda: [f32; 4], mask: u8, w: &[Vec3; 4]) -> Self {
        let mut v = Vec3::ZERO;
        for (i, (l, wi)) in lambda.iter().zip(w).enumerate() {
            if mask & (1 << i) != 0 {
                v += *l * *wi;
            }
        }
        Self {
            lambda,
            mask,
            v,
            d2: v.length_squared(),
        }
    }

    /// Whether the sub-simplex holds 4 points (the origin is enclosed).
    pub fn is_full(&self) -> bool {
        self.mask == 0b1111
    }
}

#[inline]
fn same_sign(a: f32, b: f32) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// Keeps the candidate whose point is closest to the origin.
#[inline]
fn keep_closest(best: &mut Option<Sub>, cand: Sub) {
    match best {
        Some(b) if b.d2 <= cand.d2 => {}
        _ => *best = Some(cand),
    }
}

/// Segment `w[i]w[j]`.
fn s1d(w: &[Vec3; 4], i: usize, j: usize) -> Sub {
    let (a, b) = (w[i], w[j]);
    let t = b - a;
    let tt = t.length_squared();
    let scale2 = a.length_squared().max(b.length_squared());
    if !(tt > REL_DUP2 * scale2) {
        // Coincident end points: keep the one closer to the origin.
        return if b.length_squared() < a.length_squared() {
            Sub::vertex(w, j)
        } else {
            Sub::vertex(w, i)
        };
    }
    let u = -a.dot(t) / tt;
    if !(u > 0.0) {
        Sub::vertex(w, i)
    } else if u >= 1.0 {
        Sub::vertex(w, j)
    } else {
        let mut lambda = [0.0; 4];
        lambda[i] = 1.0 - u;
        lambda[j] = u;
        let v = (1.0 - u) * a + u * b;
        Sub {
            lambda,
            mask: (1 << i) | (1 << j),
            v,
            d2: v.length_squared(),
        }
    }
}

/// `p` in the coordinate plane normal to axis `ax`, as `(p[ax+1], p[ax+2])`
/// (indices mod 3), so that 2D signed areas there are `n[ax]`-oriented.
#[inline]
fn drop_axis(p: Vec3, ax: usize) -> Vec2 {
    match ax {
        0 => Vec2::new(p.y, p.z),
        1 => Vec2::new(p.z, p.x),
        _ => Vec2::new(p.x, p.y),
    }
}

/// Triangle `w[i]w[j]w[k]` (signed areas in the best coordinate plane).
fn s2d(w: &[Vec3; 4], [i, j, k]: [usize; 3]) -> Sub {
    let (a, b, c) = (w[i], w[j], w[k]);
    let (ab, ac) = (b - a, c - a);
    let n = ab.cross(ac);
    let nn = n.length_squared();
    // Edges as (end, end), opposite i, j, k.
    let edges = [(j, k), (i, k), (i, j)];
    let mut best = None;
    if !(nn > 1e-10 * ab.length_squared() * ac.length_squared()) {
        // Degenerate (collinear/duplicate) triangle: closest point on its edges.
        for &(p, q) in &edges {
            keep_closest(&mut best, s1d(w, p, q));
        }
        return best.unwrap_or(Sub::vertex(w, i));
    }
    // Orthogonal projection of the origin onto the triangle's plane.
    let p0 = n * (a.dot(n) / nn);
    let an = n.abs();
    let ax = if an.x >= an.y && an.x >= an.z {
        0
    } else if an.y >= an.z {
        1
    } else {
        2
    };
    let [a2, b2, c2, p2] = [a, b, c, p0].map(|p| drop_axis(p, ax));
    let total = n[ax]; // == the signed area of (a, b, c) in that plane
    let c = [
        (b2 - p2).perp_dot(c2 - p2),
        (p2 - a2).perp_dot(c2 - a2),
        (b2 - a2).perp_dot(p2 - a2),
    ];
    if c.iter().all(|&ci| same_sign(ci, total)) {
        let s = c[0] + c[1] + c[2];
        let mut lambda = [0.0; 4];
        lambda[i] = c[0] / s;
        lambda[j] = c[1] / s;
        lambda[k] = c[2] / s;
        return Sub::new(lambda, (1 << i) | (1 << j) | (1 << k), w);
    }
    // Only edges opposite a vertex whose sub-area has the wrong sign can hold
    // the closest point.
    for (&(p, q), &ci) in edges.iter().zip(c.iter()) {
        if !same_sign(ci, total) {
            keep_closest(&mut best, s1d(w, p, q));
        }
    }
    best.unwrap_or(Sub::vertex(w, i))
}

/// Tetrahedron `w[0..4]` (signed volumes).
fn s3d(w: &[Vec3; 4]) -> Sub {
    let faces = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]]; // opposite vertex 0..3
    let (e1, e2, e3) = (w[1] - w[0], w[2] - w[0], w[3] - w[0]);
    let det = e1.dot(e2.cross(e3));
    let vol_scale = e1.length() * e2.length() * e3.length();
    let mut best = None;
    if !(det.abs() > 1e-5 * vol_scale) {
        // Flat or duplicated tetrahedron: closest point on its faces.
        for &f in &faces {
            keep_closest(&mut best, s2d(w, f));
        }
        return best.unwrap_or(Sub::vertex(w, 0));
    }
    // Cramer's rule for -w0 = [e1 e2 e3] β, scaled by det.
    let m = -w[0];
    let c1 = m.dot(e2.cross(e3));
    let c2 = m.dot(e3.cross(e1));
    let c3 = m.dot(e1.cross(e2));
    let c = [det - c1 - c2 - c3, c1, c2, c3];
    if c.iter().all(|&ci| same_sign(ci, det)) {
        let s = c[0] + c[1] + c[2] + c[3];
        return Sub::new([c[0] / s, c[1] / s, c[2] / s, c[3] / s], 0b1111, w);
    }
    for (l, &cl) in c.iter().enumerate() {
        if !same_sign(cl, det) {
            keep_closest(&mut best, s2d(w, faces[l]));
        }
    }
    best.unwrap_or(Sub::vertex(w, 0))
}
