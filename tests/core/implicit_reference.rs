//! An `f64` reference for cylinders and cones (and the kinds they meet),
//! independent of the crate's geometry: each shape by its analytic support
//! function `h(n) = max_{p ∈ S} n·p` and, for the round kinds, the exact
//! Euclidean distance from a point (in the meridian half-plane: a solid of
//! revolution is nearest in the plane through its axis and the point).
//!
//! The signed separation of two convex solids is `max_{|n|=1} sep(n)`,
//! `sep(n) = -h_A(n) - h_B(-n)`: their distance when apart, minus their
//! penetration depth when they overlap; every `sep(n)` is a lower bound. It
//! is maximised over 600 directions, refined by a random pattern search
//! (plus any candidate directions given, which can only raise the bound).

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::shape::ImplicitKind;
use glam::{DQuat, DVec2, DVec3, Vec3};

/// A shape in its own frame, `f64`.
#[derive(Clone, Debug)]
pub enum RefShape {
    Cylinder {
        h: f64,
        r: f64,
    },
    Cone {
        h: f64,
        r: f64,
    },
    /// A segment `y ∈ [-h, h]` grown by `r` (a sphere when `h = 0`).
    Capsule {
        h: f64,
        r: f64,
    },
    /// A convex polytope: vertices, and outward face normals with offsets.
    Hull(Vec<DVec3>, Vec<(DVec3, f64)>),
    /// A shape swept by a ball of this radius.
    Round(Box<RefShape>, f64),
    /// A convex polytope with its exact distance: vertices, outward face
    /// planes, boundary triangles (0 inside every plane, else the nearest
    /// triangle's distance).
    Solid(Vec<DVec3>, Vec<(DVec3, f64)>, Vec<[DVec3; 3]>),
    /// A segment.
    Segment(DVec3, DVec3),
    /// A triangle (flat, solid).
    Triangle([DVec3; 3]),
}

impl RefShape {
    /// From a shape's own parameters (or a hull's vertices and triangles).
    pub fn of(shape: &SharedShape) -> RefShape {
        if let Some(s) = shape.implicit() {
            let (h, r) = (f64::from(s.half_height), f64::from(s.radius));
            let core = match s.kind {
                ImplicitKind::Cylinder => RefShape::Cylinder { h, r },
                ImplicitKind::Cone => RefShape::Cone { h, r },
            };
            return match s.rounding {
                0.0 => core,
                b => RefShape::Round(Box::new(core), f64::from(b)),
            };
        }
        if let Some(s) = shape.round_convex() {
            let v: Vec<DVec3> = s.core_points().iter().map(|p| p.as_dvec3()).collect();
            let core = match (v.len(), shape.hull()) {
                (2, _) => RefShape::Segment(v[0], v[1]),
                (3, None) => RefShape::Triangle([v[0], v[1], v[2]]),
                (_, h) => {
                    let h = h.expect("a rounded hull's core hull");
                    Self::solid(h.vertices(), h.triangles())
                }
            };
            return match f64::from(s.radius()) {
                0.0 => core,
                r => RefShape::Round(Box::new(core), r),
            };
        }
        if let Some(c) = shape.rounded() {
            let (h, r) = (f64::from(c.half_height), f64::from(c.radius));
            return RefShape::Capsule { h, r };
        }
        let hull = shape.hull().expect("a hull");
        Self::hull(hull.vertices(), hull.triangles())
    }

    /// A polytope (or a triangle: its two faces).
    pub fn hull(vertices: &[Vec3], triangles: &[[u32; 3]]) -> RefShape {
        let v: Vec<DVec3> = vertices.iter().map(|p| p.as_dvec3()).collect();
        let faces = triangles
            .iter()
            .filter_map(|t| {
                let [a, b, c] = t.map(|i| v[i as usize]);
                let n = (b - a).cross(c - a).try_normalize()?;
                Some((n, n.dot(a)))
            })
            .collect();
        RefShape::Hull(v, faces)
    }

    /// A solid polytope with its exact distance (see [`RefShape::Solid`]).
    pub fn solid(vertices: &[Vec3], triangles: &[[u32; 3]]) -> RefShape {
        let RefShape::Hull(v, faces) = Self::hull(vertices, triangles) else {
            unreachable!()
        };
        let tris = triangles.iter().map(|t| t.map(|i| v[i as usize])).collect();
        RefShape::Solid(v, faces, tris)
    }

    /// `h(n)` in the shape's frame.
    pub fn support(&self, n: DVec3) -> f64 {
        let radial = DVec2::new(n.x, n.z).length();
        match *self {
            RefShape::Cylinder { h, r } => h * n.y.abs() + r * radial,
            RefShape::Cone { h, r } => (h * n.y).max(-h * n.y + r * radial),
            RefShape::Capsule { h, r } => h * n.y.abs() + r * n.length(),
            RefShape::Hull(ref v, _) => v.iter().map(|p| p.dot(n)).fold(f64::MIN, f64::max),
            RefShape::Round(ref core, b) => core.support(n) + b * n.length(),
            RefShape::Solid(ref v, _, _) => v.iter().map(|p| p.dot(n)).fold(f64::MIN, f64::max),
            RefShape::Segment(a, b) => a.dot(n).max(b.dot(n)),
            RefShape::Triangle(t) => t.iter().map(|p| p.dot(n)).fold(f64::MIN, f64::max),
        }
    }

    /// The distance from `p` (shape frame) to the solid, 0 inside; for a
    /// hull, the largest face-plane excess (exact near a face).
    pub fn distance(&self, p: DVec3) -> f64 {
        let (rho, y) = (DVec2::new(p.x, p.z).length(), p.y);
        match *self {
            RefShape::Cylinder { h, r } => {
                DVec2::new((rho - r).max(0.0), (y.abs() - h).max(0.0)).length()
            }
            RefShape::Cone { h, r } => cone_distance(h, r, DVec2::new(rho, y)),
            RefShape::Capsule { h, r } => {
                (DVec2::new(rho, (y.abs() - h).max(0.0)).length() - r).max(0.0)
            }
            RefShape::Hull(_, ref f) => f.iter().map(|(n, d)| n.dot(p) - d).fold(0.0, f64::max),
            RefShape::Round(ref core, b) => (core.distance(p) - b).max(0.0),
            RefShape::Solid(_, ref f, ref tris) => {
                if f.iter().all(|(n, d)| n.dot(p) <= *d) {
                    return 0.0;
                }
                tris.iter()
                    .map(|t| point_triangle(p, *t))
                    .fold(f64::MAX, f64::min)
            }
            RefShape::Segment(a, b) => point_segment(p, a, b),
            RefShape::Triangle(t) => point_triangle(p, t),
        }
    }
}

/// Distance from `p` to the segment `ab`, `f64`.
pub fn point_segment(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    (a + ab * t).distance(p)
}

/// Distance from `p` to the triangle `t`, `f64`: to its plane when the
/// projection falls inside (barycentric coordinates of the projection all
/// non-negative), else to the nearest edge.
pub fn point_triangle(p: DVec3, [a, b, c]: [DVec3; 3]) -> f64 {
    let n = (b - a).cross(c - a);
    let len2 = n.length_squared();
    if len2 > 0.0 {
        let q = p - n * ((p - a).dot(n) / len2);
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| (v - u).cross(q - u).dot(n) >= 0.0);
        if inside {
            return (p - q).length();
        }
    }
    point_segment(p, a, b)
        .min(point_segment(p, b, c))
        .min(point_segment(p, c, a))
}

/// Distance from `q = (ρ, y)` to the cone's meridian triangle `(0, -h)`,
/// `(r, -h)`, `(0, h)`.
fn cone_distance(h: f64, r: f64, q: DVec2) -> f64 {
    let inside = q.y >= -h && q.y <= h && q.x <= r * (h - q.y) / (2.0 * h);
    if inside {
        return 0.0;
    }
    let seg = |a: DVec2, b: DVec2| {
        let t = ((q - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        (a + (b - a) * t).distance(q)
    };
    let (base0, base1, apex) = (DVec2::new(0.0, -h), DVec2::new(r, -h), DVec2::new(0.0, h));
    seg(base0, base1)
        .min(seg(base1, apex))
        .min(seg(apex, base0))
}

/// A shape placed in the world, `f64`.
#[derive(Clone, Debug)]
pub struct Placed {
    pub shape: RefShape,
    pub rot: DQuat,
    pub pos: DVec3,
}

impl Placed {
    pub fn new(shape: &SharedShape, pose: &Pose) -> Placed {
        Placed::of(RefShape::of(shape), pose)
    }

    pub fn of(shape: RefShape, pose: &Pose) -> Placed {
        let q = pose.rotation;
        let rot = DQuat::from_xyzw(q.x.into(), q.y.into(), q.z.into(), q.w.into()).normalize();
        Placed {
            shape,
            rot,
            pos: pose.translation.as_dvec3(),
        }
    }

    /// `h(n)` in the world.
    pub fn support(&self, n: DVec3) -> f64 {
        self.shape.support(self.rot.inverse() * n) + n.dot(self.pos)
    }

    /// Distance from a world point to the solid.
    pub fn distance(&self, p: DVec3) -> f64 {
        self.shape.distance(self.rot.inverse() * (p - self.pos))
    }
}

/// `sep(n)` for a unit `n` (see the module docs).
pub fn sep(a: &Placed, b: &Placed, n: DVec3) -> f64 {
    -a.support(n) - b.support(-n)
}

/// The signed separation, maximised from 600 directions and `seeds`.
pub fn separation(a: &Placed, b: &Placed, seeds: &[Vec3]) -> (f64, DVec3) {
    let f = |n: DVec3| sep(a, b, n);
    let mut starts: Vec<(f64, DVec3)> = fibonacci(600).map(|n| (f(n), n)).collect();
    for s in seeds {
        if let Some(n) = s.as_dvec3().try_normalize() {
            starts.push((f(n), n));
        }
    }
    starts.sort_by(|x, y| y.0.total_cmp(&x.0));
    starts
        .iter()
        .take(3)
        .map(|&(v, n)| refine(&f, n, v))
        .fold(
            (f64::MIN, DVec3::X),
            |best, c| if c.0 > best.0 { c } else { best },
        )
}

/// A random pattern search on the unit sphere from `n`.
fn refine(f: &impl Fn(DVec3) -> f64, mut n: DVec3, mut v: f64) -> (f64, DVec3) {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut step = 0.1;
    while step > 1e-11 {
        let mut moved = false;
        for _ in 0..64 {
            let d = DVec3::new(rand(), rand(), rand());
            let m = (n + d.normalize() * step).normalize();
            let fm = f(m);
            if fm > v {
                (n, v, moved) = (m, fm, true);
            }
        }
        if !moved {
            step *= 0.5;
        }
    }
    (v, n)
}

/// `k` directions spread over the sphere.
pub fn fibonacci(k: usize) -> impl Iterator<Item = DVec3> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..k).map(move |i| {
        let y = 1.0 - 2.0 * (i as f64 + 0.5) / k as f64;
        let rad = (1.0 - y * y).sqrt();
        let t = golden * i as f64;
        DVec3::new(rad * t.cos(), y, rad * t.sin())
    })
}

/// The first `t` in `[0, max_t]` where the ray `o + t d` meets the solid
/// (sphere tracing on the exact distance: never steps past it), and the
/// closest the ray comes; `None` for the hit when it never comes within
/// `eps`.
pub fn trace(s: &Placed, o: DVec3, d: DVec3, max_t: f64, eps: f64) -> (Option<f64>, f64) {
    let (mut t, mut closest) = (0.0, f64::MAX);
    let len = d.length();
    for _ in 0..200_000 {
        let dist = s.distance(o + d * t);
        closest = closest.min(dist);
        if dist <= eps {
            return (Some(t), 0.0);
        }
        t += dist / len;
        if t > max_t {
            break;
        }
    }
    (None, closest)
}
