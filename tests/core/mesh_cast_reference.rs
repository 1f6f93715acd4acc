//! An independent `f64` reference for shape casts against triangle meshes
//! (issue 43's C–M, M–M and R–M shape-cast cells), written from the shapes'
//! data alone (a hull's vertices and triangles, a sphere's or capsule's core
//! and radius, a mesh's triangles as the test built them): no crate query,
//! geometry or cast code; only `testkit`'s `f64` point–triangle and
//! segment–segment distances (Ericson) and its `f64` motions.
//!
//! Every shape is a union of convex parts, each a polytope (a hull, a
//! triangle, a segment, a point) swept by a ball (radius 0 for hulls and
//! triangles; a mesh is the union of its triangles, a surface). A cast's
//! first contact is the earliest first contact of two parts.
//!
//! - **Sharp parts under a translation** (hull or triangle against a
//!   triangle): closed form by the separating-axis theorem in time. Two
//!   convex polytopes are disjoint iff an axis among their face normals,
//!   their edge × edge cross products and, for a flat part (a triangle),
//!   its normal × the other's edges and its own in-plane edge normals
//!   separates them (the facet normals of their Minkowski difference, flat
//!   or not). Moving A by `t d`, the projections on a fixed axis `L` slide
//!   by `t (L·d)`, so the times at which `L` does not separate form one
//!   closed interval `[lo_L, hi_L]` (all times, or none, when `L·d = 0`);
//!   the parts touch exactly on `[max lo, min hi]`, whose start is the first
//!   contact. No sampling, no iteration: only `f64` rounding (relative
//!   `~10⁻¹⁵`).
//! - **Rounded parts under a translation** (a sphere's point, a capsule's
//!   segment, against a triangle): the signed separation `s(t)` (the cores'
//!   distance, or minus their SAT depth, less the radius) is convex in `t`,
//!   so its first root is ternary search for the minimum (100 rounds,
//!   `(2/3)¹⁰⁰ < 10⁻¹⁷` of the cast time) then bisection (60 rounds): the
//!   root to `2⁻⁶⁰` of the cast time, never after it.
//! - **Turning casts**: the least signed separation over part pairs at `t`
//!   changes at most at `L` (relative speed plus each turn rate times the
//!   reach about its center, `testkit::lipschitz`), so stepping by
//!   `(s + ε) / L` from 0 never steps over a time at which two parts
//!   overlap by `ε` or more: the first such time is certified (or that
//!   there is none), rigorously up to `f64` rounding.

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::RigidMotion;
use bevy_icollide::testkit::{
    DPose, lipschitz, motion_pose, point_triangle_distance, segment_segment,
    segment_triangle_distance,
};
use glam::{DVec3, Vec3};

/// A convex part in some frame: a polytope (maybe flat, a segment or a
/// point) swept by a ball.
#[derive(Clone, Debug)]
pub struct Part {
    pub v: Vec<DVec3>,
    /// Boundary triangles (a hull's, or the triangle itself).
    pub tris: Vec<[usize; 3]>,
    /// Edges.
    pub segs: Vec<[usize; 2]>,
    /// Candidate axes of its own: face normals (a triangle: its normal and
    /// its in-plane edge normals).
    pub normals: Vec<DVec3>,
    /// A flat part's normal.
    pub flat: Option<DVec3>,
    pub radius: f64,
}

impl Part {
    /// A convex hull from its vertices and boundary triangles.
    pub fn hull(v: &[Vec3], tris: &[[u32; 3]]) -> Part {
        let v: Vec<DVec3> = v.iter().map(|p| p.as_dvec3()).collect();
        let tris: Vec<[usize; 3]> = tris.iter().map(|t| t.map(|i| i as usize)).collect();
        let normals = tris
            .iter()
            .map(|t| (v[t[1]] - v[t[0]]).cross(v[t[2]] - v[t[0]]))
            .collect();
        let mut segs: Vec<[usize; 2]> = tris
            .iter()
            .flat_map(|t| [0, 1, 2].map(|k| [t[k], t[(k + 1) % 3]]))
            .map(|[i, j]| [i.min(j), i.max(j)])
            .collect();
        segs.sort_unstable();
        segs.dedup();
        Part {
            v,
            tris,
            segs,
            normals,
            flat: None,
            radius: 0.0,
        }
    }

    /// A solid triangle.
    pub fn triangle(t: [DVec3; 3]) -> Part {
        let n = (t[1] - t[0]).cross(t[2] - t[0]);
        let mut normals = vec![n];
        normals.extend((0..3).map(|k| n.cross(t[(k + 1) % 3] - t[k])));
        Part {
            v: t.to_vec(),
            tris: vec![[0, 1, 2]],
            segs: vec![[0, 1], [1, 2], [2, 0]],
            normals,
            flat: Some(n),
            radius: 0.0,
        }
    }

    /// A segment `y ∈ [−h, h]` (a point when `h = 0`) swept by a ball.
    pub fn rounded(h: f64, radius: f64) -> Part {
        let (v, segs) = if h == 0.0 {
            (vec![DVec3::ZERO], Vec::new())
        } else {
            (vec![DVec3::Y * -h, DVec3::Y * h], vec![[0, 1]])
        };
        Part {
            v,
            tris: Vec::new(),
            segs,
            normals: Vec::new(),
            flat: None,
            radius,
        }
    }

    /// The part at pose `(q, p)`, moved by `shift`.
    pub fn placed(&self, (q, p): DPose, shift: DVec3) -> Part {
        Part {
            v: self.v.iter().map(|x| q * *x + p + shift).collect(),
            normals: self.normals.iter().map(|n| q * *n).collect(),
            flat: self.flat.map(|n| q * n),
            ..self.clone()
        }
    }

    /// Center of its vertices and a radius holding it (radius included).
    pub fn ball(&self) -> (DVec3, f64) {
        let c = self.v.iter().copied().sum::<DVec3>() / self.v.len() as f64;
        let r = self.v.iter().map(|x| x.distance(c)).fold(0.0, f64::max);
        (c, r + self.radius)
    }

    fn span(&self, l: DVec3) -> (f64, f64) {
        self.v.iter().fold((f64::MAX, f64::MIN), |(lo, hi), x| {
            let d = l.dot(*x);
            (lo.min(d), hi.max(d))
        })
    }

    fn edge(&self, e: &[usize; 2]) -> DVec3 {
        self.v[e[1]] - self.v[e[0]]
    }
}

/// The candidate separating axes of two parts (see the module docs).
fn axes(a: &Part, b: &Part) -> Vec<DVec3> {
    let mut out: Vec<DVec3> = a.normals.iter().chain(&b.normals).copied().collect();
    for ea in &a.segs {
        let da = a.edge(ea);
        out.extend(b.segs.iter().map(|eb| da.cross(b.edge(eb))));
        out.extend(b.flat.map(|n| n.cross(da)));
    }
    if let Some(n) = a.flat {
        out.extend(b.segs.iter().map(|eb| n.cross(b.edge(eb))));
    }
    out.retain(|l| *l != DVec3::ZERO);
    out
}

/// The closed times in `[0, t_max]` at which sharp part `a` moved by
/// `t d` touches sharp part `b` (same frame): `[max lo, min hi]` of the
/// axes' intervals (see the module docs), or `None`.
pub fn touch_interval(a: &Part, b: &Part, d: DVec3, t_max: f64) -> Option<(f64, f64)> {
    assert!(a.radius == 0.0 && b.radius == 0.0, "sharp parts only");
    let (mut lo, mut hi) = (0.0f64, t_max);
    for l in axes(a, b) {
        let ((a0, a1), (b0, b1), s) = (a.span(l), b.span(l), l.dot(d));
        if s == 0.0 {
            if a1 < b0 || a0 > b1 {
                return None;
            }
            continue;
        }
        let (x, y) = ((b0 - a1) / s, (b1 - a0) / s);
        let (x, y) = if s > 0.0 { (x, y) } else { (y, x) };
        lo = lo.max(x);
        hi = hi.min(y);
        if lo > hi {
            return None;
        }
    }
    Some((lo, hi))
}

/// The signed separation of two parts: their distance when apart (every
/// vertex–triangle and edge–edge pair), minus their depth (the SAT's least
/// overlap over unit axes) when they overlap, less both radii.
pub fn separation(a: &Part, b: &Part) -> f64 {
    let mut sep = f64::MIN;
    for l in axes(a, b) {
        let l = l.normalize();
        let ((a0, a1), (b0, b1)) = (a.span(l), b.span(l));
        sep = sep.max((b0 - a1).max(a0 - b1));
    }
    if a.tris.is_empty() && b.tris.is_empty() {
        // Points and segments: no inside, no axes needed.
        sep = distance(a, b).max(f64::MIN_POSITIVE);
    }
    let core = if sep > 0.0 { distance(a, b) } else { sep };
    core - a.radius - b.radius
}

/// The distance of two disjoint parts over all their feature pairs.
fn distance(a: &Part, b: &Part) -> f64 {
    let mut best = f64::MAX;
    for (x, y) in [(a, b), (b, a)] {
        for p in &x.v {
            for t in &y.tris {
                best = best.min(point_triangle_distance(*p, t.map(|i| y.v[i])));
            }
            if y.segs.is_empty() && y.tris.is_empty() {
                best = best.min(p.distance(y.v[0]));
            }
        }
        if x.v.len() == 1 {
            for e in &y.segs {
                best = best.min(segment_segment(x.v[0], x.v[0], y.v[e[0]], y.v[e[1]]));
            }
        }
    }
    for ea in &a.segs {
        for eb in &b.segs {
            let d = segment_segment(a.v[ea[0]], a.v[ea[1]], b.v[eb[0]], b.v[eb[1]]);
            best = best.min(d);
        }
    }
    best
}

/// For the check of the closed form, without its axes: 0 when two sharp
/// parts meet by their features (a vertex of one in the other, or an edge
/// of one through a boundary triangle of the other: two convex polytopes
/// meet iff one of these holds), else their distance.
pub fn feature_gap(a: &Part, b: &Part) -> f64 {
    let inside = |p: DVec3, x: &Part| match x.flat {
        Some(_) => point_triangle_distance(p, [x.v[0], x.v[1], x.v[2]]) == 0.0,
        None if x.tris.is_empty() => false,
        None => x.tris.iter().all(|t| {
            let n = (x.v[t[1]] - x.v[t[0]]).cross(x.v[t[2]] - x.v[t[0]]);
            n.dot(p - x.v[t[0]]) <= 0.0
        }),
    };
    for (x, y) in [(a, b), (b, a)] {
        if x.v.iter().any(|p| inside(*p, y)) {
            return 0.0;
        }
        for e in &x.segs {
            for t in &y.tris {
                let tri = t.map(|i| y.v[i]);
                if segment_triangle_distance(x.v[e[0]], x.v[e[1]], tri) == 0.0 {
                    return 0.0;
                }
            }
        }
    }
    distance(a, b)
}

/// The first root in `[0, t_max]` of a convex `f` (see the module docs).
pub fn first_root(f: impl Fn(f64) -> f64, t_max: f64) -> Option<f64> {
    if f(0.0) <= 0.0 {
        return Some(0.0);
    }
    let (mut lo, mut hi) = (0.0f64, t_max);
    for _ in 0..100 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) < f(m2) { hi = m2 } else { lo = m1 }
    }
    let end = if f(t_max) <= f(lo) { t_max } else { lo };
    if f(end) > 0.0 {
        return None;
    }
    let (mut x, mut y) = (0.0, end);
    for _ in 0..60 {
        let m = 0.5 * (x + y);
        if f(m) > 0.0 { x = m } else { y = m }
    }
    Some(y)
}

/// A shape as parts in its own frame, and the farthest its points are
/// from its origin.
#[derive(Clone, Debug)]
pub struct Body {
    pub parts: Vec<Part>,
    pub reach: f64,
}

impl Body {
    /// A sphere, capsule (along `y`), cuboid or hull, from its parameters.
    pub fn of(s: &SharedShape) -> Body {
        let part = match s.rounded() {
            Some(r) => Part::rounded(f64::from(r.half_height), f64::from(r.radius)),
            None => {
                let h = s.hull().expect("a sphere, capsule or polytope");
                Part::hull(h.vertices(), h.triangles())
            }
        };
        Body::new(vec![part])
    }

    /// A mesh from the vertices and triangles it was built from.
    pub fn mesh(v: &[Vec3], t: &[[u32; 3]]) -> Body {
        let tri = |t: &[u32; 3]| Part::triangle(t.map(|i| v[i as usize].as_dvec3()));
        Body::new(t.iter().map(tri).collect())
    }

    fn new(parts: Vec<Part>) -> Body {
        let reach = parts
            .iter()
            .map(|p| p.v.iter().map(|x| x.length()).fold(0.0, f64::max) + p.radius)
            .fold(0.0, f64::max);
        Body { parts, reach }
    }

    pub fn placed(&self, pose: DPose, shift: DVec3) -> Vec<Part> {
        self.parts.iter().map(|p| p.placed(pose, shift)).collect()
    }
}

/// Whether the balls of `a` (moving by `t d`, `t ∈ [0, t_max]`) and `b`
/// come within `slack` of touching.
fn may_meet(a: (DVec3, f64), b: (DVec3, f64), d: DVec3, t_max: f64, slack: f64) -> bool {
    let rel = b.0 - a.0;
    let dd = d.length_squared();
    let t = if dd > 0.0 {
        (rel.dot(d) / dd).clamp(0.0, t_max)
    } else {
        0.0
    };
    (a.0 + d * t).distance(b.0) <= a.1 + b.1 + slack
}

/// The first contact in `[0, t_max]` of parts `a` moved by `t d` with the
/// still parts `b`, and the pair: closed form for sharp pairs, the convex
/// root for rounded ones.
pub fn linear_first(a: &[Part], b: &[Part], d: DVec3, t_max: f64) -> Option<(f64, [usize; 2])> {
    let mut best: Option<(f64, [usize; 2])> = None;
    let balls_b: Vec<_> = b.iter().map(Part::ball).collect();
    for (i, pa) in a.iter().enumerate() {
        let ball_a = pa.ball();
        for (j, pb) in b.iter().enumerate() {
            let limit = best.map_or(t_max, |x| x.0);
            if !may_meet(ball_a, balls_b[j], d, limit, 1e-9 * (1.0 + ball_a.1)) {
                continue;
            }
            let t = if pa.radius == 0.0 && pb.radius == 0.0 {
                touch_interval(pa, pb, d, limit).map(|x| x.0)
            } else {
                first_root(|t| separation(&pa.placed(IDENTITY, d * t), pb), limit)
            };
            if let Some(t) = t.filter(|&t| best.is_none_or(|x| t < x.0)) {
                best = Some((t, [i, j]));
            }
        }
    }
    best
}

/// The identity `f64` pose.
pub const IDENTITY: DPose = (glam::DQuat::IDENTITY, DVec3::ZERO);

/// The least signed separation of two sets of parts and the pair (pairs
/// whose balls are farther apart than the least found are skipped).
pub fn least(a: &[Part], b: &[Part]) -> (f64, [usize; 2]) {
    let balls_b: Vec<_> = b.iter().map(Part::ball).collect();
    let mut best = (f64::MAX, [0, 0]);
    for (i, pa) in a.iter().enumerate() {
        let ba = pa.ball();
        for (j, pb) in b.iter().enumerate() {
            if ba.0.distance(balls_b[j].0) - ba.1 - balls_b[j].1 > best.0 {
                continue;
            }
            let s = separation(pa, pb);
            if s < best.0 {
                best = (s, [i, j]);
            }
        }
    }
    best
}

/// Two bodies under rigid motions, posed in `f64` in a frame at B's start
/// translation.
pub struct Moving<'a> {
    pub a: (&'a Body, &'a RigidMotion),
    pub b: (&'a Body, &'a RigidMotion),
}

impl Moving<'_> {
    /// Both bodies' parts at time `t`.
    pub fn at(&self, t: f64) -> [Vec<Part>; 2] {
        let frame = (self.b.1.start.translation.as_dvec3(), DVec3::ZERO);
        let pose = |m: &RigidMotion| motion_pose(m, t, frame);
        [
            self.a.0.placed(pose(self.a.1), DVec3::ZERO),
            self.b.0.placed(pose(self.b.1), DVec3::ZERO),
        ]
    }

    /// The least signed separation at `t` and the pair.
    pub fn gap(&self, t: f64) -> (f64, [usize; 2]) {
        let [a, b] = self.at(t);
        least(&a, &b)
    }

    /// The first time in `[0, t_max]` two parts overlap by at least `eps / 2`,
    /// none before overlapping by `eps` (Lipschitz steps, see the module
    /// docs): `Ok(None)` when none does, `Err(())` when the steps do not
    /// settle in `cap` (a graze within `eps` for long: undecided).
    pub fn first_deep(&self, t_max: f64, eps: f64, cap: usize) -> Result<Option<f64>, ()> {
        let l = lipschitz((self.a.1, self.a.0.reach), (self.b.1, self.b.0.reach)) * 1.001;
        let l = l.max(1e-12);
        let mut t = 0.0f64;
        for _ in 0..cap {
            let s = self.gap(t).0;
            if s <= -0.5 * eps {
                return Ok(Some(t));
            }
            t += (s + eps) / l;
            if t > t_max {
                return Ok(None);
            }
        }
        Err(())
    }
}
