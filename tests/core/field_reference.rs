//! An `f64` reference for casts against height fields, independent of the
//! crate's field and cast code: the terrain's triangles written out by the
//! test (`Terrain::triangles`, the documented vertex formula and split),
//! each a shape of its own, and the other shape in the field's frame at
//! time `t` from both motions evaluated in `f64` (`testkit::motion_pose`,
//! relative to the field's start translation: exact far from the origin).
//! Signed gaps to a triangle: a ball by its center's exact triangle
//! distance, a capsule by its segment's, a polytope by SAT (overlap) or
//! the distance over all feature pairs, a mesh triangle by the exact
//! triangle–triangle predicate (`testkit::triangles_meet`, Shewchuk's
//! orientations) or the vertex–triangle and edge–edge distances; a
//! compound by its pieces. The first time the least gap reaches a level
//! is found by Lipschitz stepping (`testkit::first_within`): the gap moves
//! at most at the points' speed in the field's frame.

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::testkit::{
    self, DPose, RefShape, closest_on_triangle, motion_pose, point_triangle_distance,
    segment_segment, segment_triangle_distance, signed_gap, to_dquat, triangles_meet,
};
use glam::{DQuat, DVec3, Vec3};

use crate::exact_heightfield::Terrain;

/// A shape as the reference sees it, in its own frame.
pub enum Body {
    Ball(f64),
    /// Half height along `y`, radius.
    Capsule(f64, f64),
    /// Vertices and triangles of a convex polytope.
    Poly(Vec<Vec3>, Vec<[u32; 3]>),
    /// A mesh's triangles.
    Mesh(Vec<[DVec3; 3]>),
    /// Pieces at their poses.
    Compound(Vec<(DPose, Body)>),
}

impl Body {
    /// A sphere, capsule, cuboid or hull; a mesh or compound from the
    /// data it was built from ([`Body::mesh`], [`Body::Compound`]).
    pub fn of(s: &SharedShape) -> Body {
        if let Some(r) = s.rounded() {
            let (h, r) = (r.half_height as f64, r.radius as f64);
            return if h == 0.0 {
                Body::Ball(r)
            } else {
                Body::Capsule(h, r)
            };
        }
        let hull = s.hull().expect("a sphere, capsule or polytope");
        Body::Poly(hull.vertices().to_vec(), hull.triangles().to_vec())
    }

    /// A terrain's triangles (its own frame), as a mesh: a field against a
    /// field is a mesh against each terrain triangle.
    pub fn terrain(t: &Terrain) -> Body {
        Body::Mesh(
            t.triangles()
                .into_iter()
                .map(|(_, v)| v.map(|x| x.as_dvec3()))
                .collect(),
        )
    }

    pub fn mesh(v: &[Vec3], t: &[[u32; 3]]) -> Body {
        Body::Mesh(
            t.iter()
                .map(|t| t.map(|i| v[i as usize].as_dvec3()))
                .collect(),
        )
    }

    /// The farthest its points are from its origin.
    pub fn radius(&self) -> f64 {
        match self {
            Body::Ball(r) => *r,
            Body::Capsule(h, r) => h + r,
            Body::Poly(v, _) => v.iter().map(|p| p.as_dvec3().length()).fold(0.0, f64::max),
            Body::Mesh(t) => t.iter().flatten().map(|p| p.length()).fold(0.0, f64::max),
            Body::Compound(p) => p
                .iter()
                .map(|((_, t), b)| t.length() + b.radius())
                .fold(0.0, f64::max),
        }
    }

    /// Its signed gap to the triangle `tri` (same frame) at pose `(q, p)`,
    /// or `f64::INFINITY` when `bound` (the gap found so far) is certainly
    /// smaller.
    pub fn gap(&self, (q, p): DPose, tri: &[DVec3; 3], bound: f64) -> f64 {
        let c = (tri[0] + tri[1] + tri[2]) / 3.0;
        let rt = tri.iter().map(|v| v.distance(c)).fold(0.0, f64::max);
        if p.distance(c) - self.radius() - rt > bound {
            return f64::INFINITY;
        }
        match self {
            Body::Ball(r) => point_triangle_distance(p, *tri) - r,
            Body::Capsule(h, r) => {
                let axis = q * DVec3::new(0.0, *h, 0.0);
                segment_triangle_distance(p - axis, p + axis, *tri) - r
            }
            Body::Poly(v, t) => {
                let flat = RefShape::Hull(
                    tri.map(|x| x.as_vec3()).to_vec(),
                    vec![[0, 1, 2], [0, 2, 1]],
                );
                let own = RefShape::Hull(v.clone(), t.clone());
                signed_gap(&own, (q, p), &flat, (DQuat::IDENTITY, DVec3::ZERO))
            }
            Body::Mesh(ts) => {
                let mut best = bound;
                for m in ts {
                    let m = m.map(|x| q * x + p);
                    let cm = (m[0] + m[1] + m[2]) / 3.0;
                    let rm = m.iter().map(|v| v.distance(cm)).fold(0.0, f64::max);
                    if cm.distance(c) - rm - rt <= best {
                        best = best.min(triangle_gap(m, *tri));
                    }
                }
                if best < bound { best } else { f64::INFINITY }
            }
            Body::Compound(pieces) => pieces
                .iter()
                .map(|((pq, pt), b)| b.gap((q * *pq, q * *pt + p), tri, bound))
                .fold(f64::INFINITY, f64::min),
        }
    }
}

/// The distance of two triangles; `-1` when they meet (a surface has no
/// depth: the step to meeting is the distance's, see [`Scene::first_at`]).
pub fn triangle_gap(a: [DVec3; 3], b: [DVec3; 3]) -> f64 {
    if triangles_meet(a, b) {
        return -1.0;
    }
    let mut best = f64::INFINITY;
    for (x, y) in [(a, b), (b, a)] {
        for v in x {
            best = best.min((closest_on_triangle(v, y[0], y[1], y[2]) - v).length());
        }
    }
    for i in 0..3 {
        for j in 0..3 {
            best = best.min(segment_segment(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]));
        }
    }
    best
}

/// A cast of `body` (under `shape`) against a terrain (under `field`).
pub struct Scene<'a> {
    pub body: &'a Body,
    pub shape: &'a RigidMotion,
    pub terrain: &'a Terrain,
    pub field: &'a RigidMotion,
    /// The terrain's triangles (field frame, `f64`) with their ids.
    pub tris: Vec<(u32, [DVec3; 3])>,
}

impl<'a> Scene<'a> {
    pub fn new(
        body: &'a Body,
        shape: &'a RigidMotion,
        t: &'a Terrain,
        field: &'a RigidMotion,
    ) -> Self {
        let tris = t
            .triangles()
            .into_iter()
            .map(|(id, v)| (id, v.map(|x| x.as_dvec3())))
            .collect();
        Scene {
            body,
            shape,
            terrain: t,
            field,
            tris,
        }
    }

    /// The shape's pose in the field's frame at `t`.
    pub fn relative(&self, t: f64) -> DPose {
        let frame = (self.field.start.translation.as_dvec3(), DVec3::ZERO);
        let (qf, pf) = motion_pose(self.field, t, frame);
        let (qs, ps) = motion_pose(self.shape, t, frame);
        let inv = qf.inverse();
        (inv * qs, inv * (ps - pf))
    }

    /// The least signed gap at `t`, and the triangle: the triangles in
    /// the order of a lower bound (bounding balls), until it exceeds the
    /// least gap found.
    pub fn gap(&self, t: f64) -> (f64, u32) {
        let pose = self.relative(t);
        let reach = self.body.radius();
        let mut order: Vec<(f64, usize)> = self
            .tris
            .iter()
            .enumerate()
            .map(|(k, (_, tri))| {
                let c = (tri[0] + tri[1] + tri[2]) / 3.0;
                let rt = tri.iter().map(|v| v.distance(c)).fold(0.0, f64::max);
                (pose.1.distance(c) - reach - rt, k)
            })
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut best = (f64::INFINITY, u32::MAX);
        for (lower, k) in order {
            if lower > best.0 {
                break;
            }
            let (id, tri) = &self.tris[k];
            let g = self.body.gap(pose, tri, best.0);
            if g < best.0 {
                best = (g, *id);
            }
        }
        best
    }

    /// The gap to triangle `id` at `t`.
    pub fn gap_to(&self, t: f64, id: u32) -> f64 {
        let (_, tri) = self
            .tris
            .iter()
            .find(|x| x.0 == id)
            .expect("a terrain triangle");
        self.body.gap(self.relative(t), tri, f64::INFINITY)
    }

    /// A bound on the gap's rate over `[0, t_max]` (see the module docs).
    pub fn lipschitz(&self, t_max: f64) -> f64 {
        let center = |m: &RigidMotion, t: f64| {
            let (q, p) = motion_pose(m, t, (self.field.start.translation.as_dvec3(), DVec3::ZERO));
            p + q * m.local_center.as_dvec3()
        };
        let d = |t| (center(self.shape, t) - center(self.field, t)).length();
        let reach = self.body.radius() + self.shape.local_center.as_dvec3().length();
        let spin = |m: &RigidMotion| m.angvel.as_dvec3().length();
        let v = (self.shape.linvel - self.field.linvel).as_dvec3().length();
        (v + spin(self.field) * (d(0.0).max(d(t_max)) + reach) + spin(self.shape) * reach) * 1.01
    }

    /// The first time in `[0, t_max]` the least gap is at most `level`
    /// (`level < 0`; for a mesh, meeting: its gap is a distance until
    /// then, so no step passes the first meeting by more than `-level`
    /// over the speed bound).
    pub fn first_at(&self, t_max: f64, level: f64) -> Option<f64> {
        let l = self.lipschitz(t_max).max(1e-12);
        testkit::first_within(|t| self.gap(t).0, l, t_max, (level, 1e-9))
    }
}

/// A pose as the reference's.
pub fn dpose(p: &Pose) -> DPose {
    (to_dquat(p.rotation), p.translation.as_dvec3())
}
