//! EPA: penetration depth, normal and contact points of overlapping convex shapes.
//!
//! # Method
//!
//! The Expanding Polytope Algorithm (van den Bergen, "Proximity queries and
//! penetration depth computation on 3D game objects", GDC 2001; also
//! "Collision Detection in Interactive 3D Environments", 2003, §4.3.8) computes
//! the penetration depth — the length of the shortest translation that
//! separates the shapes — as the distance from the origin to the *boundary* of
//! the CSO `A - B`. Starting from GJK's final simplex (which encloses, or
//! touches, the origin), blown up to a tetrahedron if needed, it keeps a convex
//! polytope inside the CSO. Each step takes the face closest to the origin
//! (distance `d`, outward unit normal `n`), queries `w = s(n)` and
//!
//! * stops when `n·w - d ≤ ε·scale`: `d ≤ depth ≤ n·w` (the support plane
//!   `n·x = n·w` bounds the CSO), so `d` is the depth within tolerance;
//! * otherwise removes all faces visible from `w`, and re-triangulates the hole
//!   by connecting `w` to its horizon (silhouette) edges.
//!
//! The face loop is bounded ([`EPA_MAX_ITERATIONS`], [`EPA_MAX_FACES`]); on a
//! stall (numerically inconsistent horizon, degenerate faces) the best face so
//! far is returned. For polytopes EPA terminates exactly (the CSO has finitely
//! many faces); for curved shapes the depth is a lower bound that converges as
//! the polytope is refined near the closest face.
//!
//! Contact points are the barycentric combination, on the final face, of the
//! shape points that produced its CSO vertices: with `p = d·n` (the origin's
//! projection), `point_a - point_b = depth · normal`.
//!
//! Rounded shapes (non-zero [`SupportMap::margin`], e.g. spheres) are
//! `core ⊕ ball(margin)`: EPA runs on the cores and the margins are added to
//! the depth; when only the margins overlap the answer comes from GJK directly.
//!
//! Buffers live in [`EpaScratch`] (kept in the [`GjkCache`]) and are reused, so
//! steady-state queries do not allocate.

// Negated comparisons (`!(x > y)`) are deliberate: they send NaN to the
// conservative branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use glam::{Quat, Vec3};

use super::gjk::{self, Cso, GjkCache, Mode, SupportPoint};
use super::support::SupportMap;
use crate::math::Pose;

/// Maximum number of polytope expansions.
pub const EPA_MAX_ITERATIONS: u32 = 128;
/// Maximum number of live polytope faces before giving up refining.
pub const EPA_MAX_FACES: usize = 1024;
/// Convergence: support-plane gap relative to the CSO scale.
const REL_TOL: f32 = 1e-5;
/// Minimum relative distance for a point to count as new when building the
/// initial tetrahedron.
const REL_DISTINCT: f32 = 1e-5;

/// Result of a penetration query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration {
    /// Penetration depth (`>= 0`).
    pub depth: f32,
    /// Unit normal, world space, pointing from `A` to `B`: translating `B` by
    /// `depth * normal` brings the shapes into touching contact.
    pub normal: Vec3,
    /// Deepest point of `A` (inside `B`), world space.
    pub point_a: Vec3,
    /// Deepest point of `B` (inside `A`), world space;
    /// `point_a - point_b = depth * normal`.
    pub point_b: Vec3,
}

#[derive(Clone, Copy, Debug)]
struct Face {
    v: [u32; 3],
    n: Vec3,
    d: f32,
}

/// Reusable EPA buffers.
#[derive(Clone, Debug, Default)]
pub struct EpaScratch {
    verts: Vec<SupportPoint>,
    faces: Vec<Face>,
    visible: Vec<usize>,
    horizon: Vec<[u32; 2]>,
}

impl EpaScratch {
    /// Grows each buffer to at least `other`'s capacity.
    pub(crate) fn reserve_like(&mut self, other: &Self) {
        use crate::math::reserve_to;
        reserve_to(&mut self.verts, other.verts.capacity());
        reserve_to(&mut self.faces, other.faces.capacity());
        reserve_to(&mut self.visible, other.visible.capacity());
        reserve_to(&mut self.horizon, other.horizon.capacity());
    }
}

fn make_face(verts: &[SupportPoint], i: u32, j: u32, k: u32) -> Face {
    let (a, b, c) = (
        verts[i as usize].w,
        verts[j as usize].w,
        verts[k as usize].w,
    );
    let n = (b - a).cross(c - a);
    match n.try_normalize() {
        Some(n) => {
            // Average the plane offset over the three vertices (rounding).
            let d = (n.dot(a) + n.dot(b) + n.dot(c)) / 3.0;
            Face { v: [i, j, k], n, d }
        }
        // Zero-area face: never selected, never visible.
        None => Face {
            v: [i, j, k],
            n: Vec3::ZERO,
            d: f32::INFINITY,
        },
    }
}

fn closest_face(faces: &[Face]) -> Option<usize> {
    let mut best = None;
    let mut best_d = f32::INFINITY;
    for (i, f) in faces.iter().enumerate() {
        if f.d < best_d {
            best_d = f.d;
            best = Some(i);
        }
    }
    best
}

/// Penetration depth, normal and deepest points of `a` and `b` at the given
/// poses, or `None` when they do not overlap (per GJK, warm-started from
/// `cache`). Touching shapes give `Some` with a depth of (about) 0.
pub fn penetration<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    cache: &mut GjkCache,
) -> Option<Penetration> {
    let cso = Cso::new(a, pose_a, b, pose_b);
    let (ma, mb) = cso.margins();
    let m = ma + mb;
    let out = gjk::run(&cso, cache, (Mode::Distance, m, gjk::REL_GAP));
    let (depth, n, pa, pb) = if out.intersecting {
        // Cores overlap: EPA on the cores, then add the margins.
        let mut scratch = std::mem::take(&mut cache.epa);
        let (d, n, pa, pb) = expand(&cso, &out.simplex, out.scale, &mut scratch);
        cache.epa = scratch;
        (d + m, n, pa, pb)
    } else {
        // Cores apart but within the margins: exact, no EPA needed.
        let c = out.v.length();
        if !(c < m) {
            return None;
        }
        let (pa, pb) = out.simplex.witnesses();
        (m - c, -out.v / c, pa, pb)
    };
    let normal = pose_a
        .transform_vector(n)
        .try_normalize()
        .unwrap_or(Vec3::X);
    Some(Penetration {
        depth,
        normal,
        point_a: pose_a.transform_point(pa) + ma * normal,
        point_b: pose_a.transform_point(pb) - mb * normal,
    })
}

/// EPA proper, in `A`'s frame: returns (depth, normal, point on A, point on B).
fn expand<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    simplex: &gjk::Simplex,
    scale: f32,
    sc: &mut EpaScratch,
) -> (f32, Vec3, Vec3, Vec3) {
    let EpaScratch {
        verts,
        faces,
        visible,
        horizon,
    } = sc;
    verts.clear();
    faces.clear();
    verts.extend_from_slice(&simplex.pts[..simplex.len]);
    let mut scale = verts.iter().fold(scale, |s, p| s.max(p.w.length()));
    if !(scale > 0.0) {
        scale = f32::MIN_POSITIVE;
    }
    let hints = verts.last().map(|p| (p.hint_a, p.hint_b)).unwrap_or((0, 0));
    if !blow_up(cso, verts, REL_DISTINCT * scale, hints) {
        // The CSO is flat (degenerate shapes): no interior, depth 0.
        return degenerate_result(verts);
    }
    start_faces(verts, faces);
    let tol = REL_TOL * scale;
    let Some(mut best) = closest_face(faces) else {
        return degenerate_result(verts);
    };
    for _ in 0..EPA_MAX_ITERATIONS {
        let f = faces[best];
        let sp = cso.support(f.n, hints.0, hints.1);
        if !sp.w.is_finite() || f.n.dot(sp.w) - f.d <= tol {
            break; // converged: the support plane is at the face
        }
        if !add_point(verts, faces, (visible, horizon), best, sp) {
            break;
        }
        best = match closest_face(faces) {
            Some(b) => b,
            None => break,
        };
    }
    contact_on_face(verts, faces, best, tol)
}

/// Blows GJK's simplex up to a tetrahedron (the origin is on or inside it)
/// with supports along directions its points do not span; `false` when the
/// CSO is flat (no fourth point farther than `distinct`).
fn blow_up<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    cso: &Cso<'_, A, B>,
    verts: &mut Vec<SupportPoint>,
    distinct: f32,
    (ha, hb): (u32, u32),
) -> bool {
    if verts.len() == 1 {
        for d in [
            Vec3::X,
            Vec3::NEG_X,
            Vec3::Y,
            Vec3::NEG_Y,
            Vec3::Z,
            Vec3::NEG_Z,
        ] {
            let sp = cso.support(d, ha, hb);
            if (sp.w - verts[0].w).length() > distinct {
                verts.push(sp);
                break;
            }
        }
    }
    if verts.len() == 2 {
        let axis = (verts[1].w - verts[0].w).normalize();
        let mut u = axis.any_orthonormal_vector();
        let rot = Quat::from_axis_angle(axis, std::f32::consts::FRAC_PI_3);
        for _ in 0..6 {
            let sp = cso.support(u, ha, hb);
            if (sp.w - verts[0].w).cross(axis).length() > distinct {
                verts.push(sp);
                break;
            }
            u = rot * u;
        }
    }
    if verts.len() == 3 {
        let n = (verts[1].w - verts[0].w)
            .cross(verts[2].w - verts[0].w)
            .normalize_or_zero();
        let p = cso.support(n, ha, hb);
        let q = cso.support(-n, ha, hb);
        let (dp, dq) = (n.dot(p.w - verts[0].w), -n.dot(q.w - verts[0].w));
        let (best, dist) = if dp >= dq { (p, dp) } else { (q, dq) };
        if dist > distinct {
            verts.push(best);
        }
    }
    verts.len() >= 4
}

/// The tetrahedron's four faces, outward (CCW), after orienting it
/// positively (only its first four points are kept).
fn start_faces(verts: &mut Vec<SupportPoint>, faces: &mut Vec<Face>) {
    verts.truncate(4);
    let (w0, w1, w2, w3) = (verts[0].w, verts[1].w, verts[2].w, verts[3].w);
    if (w1 - w0).dot((w2 - w0).cross(w3 - w0)) < 0.0 {
        verts.swap(0, 1);
    }
    for [i, j, k] in [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]] {
        let f = make_face(verts, i, j, k);
        faces.push(f);
    }
}

/// One expansion: the faces visible from `sp` (a connected region around
/// `best`, which is visible) are replaced by `sp` joined to their horizon.
/// `false` (nothing changed) when that would exceed [`EPA_MAX_FACES`].
fn add_point(
    verts: &mut Vec<SupportPoint>,
    faces: &mut Vec<Face>,
    (visible, horizon): (&mut Vec<usize>, &mut Vec<[u32; 2]>),
    best: usize,
    sp: SupportPoint,
) -> bool {
    visible_region(verts, faces, visible, best, sp.w);
    collect_horizon(faces, visible, horizon);
    if !horizon_is_simple(horizon) {
        // Rounding made the region pinched (not a disk): fall back to
        // replacing the closest face only, which is always consistent.
        visible.clear();
        visible.push(best);
        collect_horizon(faces, visible, horizon);
    }
    if faces.len() + horizon.len() > EPA_MAX_FACES {
        return false;
    }
    visible.sort_unstable();
    // Remove visible faces (indices ascending: remove from the back).
    for &i in visible.iter().rev() {
        faces.swap_remove(i);
    }
    let new = verts.len() as u32;
    verts.push(sp);
    for h in horizon.iter() {
        let f = make_face(verts, h[0], h[1], new);
        faces.push(f);
    }
    true
}

/// Faces visible from `w`: flood fill over shared edges from `best`, so the
/// region is connected.
fn visible_region(
    verts: &[SupportPoint],
    faces: &[Face],
    visible: &mut Vec<usize>,
    best: usize,
    w: Vec3,
) {
    visible.clear();
    visible.push(best);
    let mut head = 0;
    while head < visible.len() {
        let fv = faces[visible[head]].v;
        head += 1;
        for e in 0..3 {
            let (p, q) = (fv[e], fv[(e + 1) % 3]);
            let twin = faces.iter().position(|g| {
                (g.v[0] == q && g.v[1] == p)
                    || (g.v[1] == q && g.v[2] == p)
                    || (g.v[2] == q && g.v[0] == p)
            });
            if let Some(g) = twin
                && !visible.contains(&g)
                && faces[g].n.dot(w - verts[faces[g].v[0] as usize].w) > 0.0
            {
                visible.push(g);
            }
        }
    }
}

/// Depth, normal and contact points on the final polytope. Minkowski-
/// difference faces of polytopes are often split into several coplanar
/// triangles; among the (near-)closest faces the one that contains the
/// origin's projection is taken, for meaningful contact points.
fn contact_on_face(
    verts: &[SupportPoint],
    faces: &[Face],
    best: usize,
    tol: f32,
) -> (f32, Vec3, Vec3, Vec3) {
    let best_d = faces[best].d;
    let mut pick = (best, bary(verts, &faces[best]));
    let mut pick_score = pick.1.iter().copied().fold(f32::INFINITY, f32::min);
    for (i, g) in faces.iter().enumerate() {
        if i != best && g.d <= best_d + tol && g.n.dot(faces[best].n) >= 1.0 - 1e-5 {
            let l = bary(verts, g);
            let score = l.iter().copied().fold(f32::INFINITY, f32::min);
            if score > pick_score {
                pick = (i, l);
                pick_score = score;
            }
        }
    }
    let f = faces[pick.0];
    let [i, j, k] = f.v.map(|x| verts[x as usize]);
    let l = pick.1.map(|x| x.max(0.0));
    let s = l[0] + l[1] + l[2];
    let l = if s > 0.0 && s.is_finite() {
        l.map(|x| x / s)
    } else {
        [1.0 / 3.0; 3]
    };
    let pa = l[0] * i.a + l[1] * j.a + l[2] * k.a;
    let pb = l[0] * i.b + l[1] * j.b + l[2] * k.b;
    // Depth: the smallest face distance (the picked face differs by rounding).
    (best_d.max(0.0), f.n, pa, pb)
}

/// Horizon: edges of the `visible` faces whose twin is not visible.
fn collect_horizon(faces: &[Face], visible: &[usize], horizon: &mut Vec<[u32; 2]>) {
    horizon.clear();
    for &i in visible {
        let v = faces[i].v;
        for e in 0..3 {
            let (p, q) = (v[e], v[(e + 1) % 3]);
            if let Some(pos) = horizon.iter().position(|h| *h == [q, p]) {
                horizon.swap_remove(pos);
            } else {
                horizon.push([p, q]);
            }
        }
    }
}

/// The hole is bounded by a single simple loop: each vertex starts and ends
/// at most one edge, and following the edges from the first one visits all.
fn horizon_is_simple(horizon: &[[u32; 2]]) -> bool {
    if horizon.len() < 3 {
        return false;
    }
    let unique = horizon.iter().enumerate().all(|(i, h)| {
        horizon[i + 1..]
            .iter()
            .all(|g| g[0] != h[0] && g[1] != h[1])
    });
    if !unique {
        return false;
    }
    let mut cur = horizon[0][1];
    let mut steps = 1;
    while cur != horizon[0][0] {
        match horizon.iter().find(|h| h[0] == cur) {
            Some(h) if steps < horizon.len() => {
                cur = h[1];
                steps += 1;
            }
            _ => return false,
        }
    }
    steps == horizon.len()
}

/// Normalized barycentric coordinates of the origin's projection onto `f`'s
/// plane (negative outside the triangle).
fn bary(verts: &[SupportPoint], f: &Face) -> [f32; 3] {
    let p = f.n * f.d;
    let [i, j, k] = f.v.map(|x| verts[x as usize].w);
    let l = [
        (j - p).cross(k - p).dot(f.n),
        (k - p).cross(i - p).dot(f.n),
        (i - p).cross(j - p).dot(f.n),
    ];
    let s = l[0] + l[1] + l[2];
    if s > 0.0 && s.is_finite() {
        l.map(|x| x / s)
    } else {
        [-1.0; 3]
    }
}

/// Depth-0 answer for a flat CSO (or a failed start).
fn degenerate_result(verts: &[SupportPoint]) -> (f32, Vec3, Vec3, Vec3) {
    let n = if verts.len() >= 3 {
        (verts[1].w - verts[0].w)
            .cross(verts[2].w - verts[0].w)
            .try_normalize()
            .unwrap_or(Vec3::X)
    } else if verts.len() == 2 {
        (verts[1].w - verts[0].w).any_orthonormal_vector()
    } else {
        Vec3::X
    };
    let (pa, pb) = verts.first().map(|p| (p.a, p.b)).unwrap_or_default();
    (0.0, n, pa, pb)
}
