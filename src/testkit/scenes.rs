//! Seeded scene generators shared by the multibody example, the tests and
//! the benchmarks, so that all of them measure the same thing.
//!
//! [`MultiBodyScene`] is I-COLLIDE's multi-body simulation: `n` convex
//! polytopes (hulls of random points on a sphere) in a cubic box at a given
//! density, each with a random linear velocity (a percentage of its radius
//! per frame) and a random spin (degrees per frame), bouncing off the walls;
//! colliding pairs exchange velocities ([`MultiBodyScene::exchange_velocities`],
//! called by whoever detects the collision).

use std::collections::HashMap;

use glam::{IVec3, Quat, Vec3};

use super::Rng;
use crate::collider::SharedShape;
use crate::math::Pose;

/// The convex hull of `points` random points on a sphere of `radius`.
pub fn sphere_hull(rng: &mut Rng, points: usize, radius: f32) -> SharedShape {
    loop {
        let pts: Vec<Vec3> = (0..points.max(4))
            .map(|_| rng.unit_vector() * radius)
            .collect();
        if let Ok(shape) = SharedShape::convex_hull(&pts) {
            return shape;
        }
    }
}

/// Parameters of a [`MultiBodyScene`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultiBodyParams {
    /// Number of objects.
    pub count: usize,
    /// Random points per hull (the hull keeps those on it: all of them, for
    /// points on a sphere).
    pub hull_points: usize,
    /// Fraction of the box's volume the objects' bounding spheres fill.
    pub density: f32,
    /// Spin, degrees per frame.
    pub rotation_deg: f32,
    /// Translation per frame, as a fraction of the radius (0.01 = 1 %).
    pub translation: f32,
    /// Distinct shapes, shared round-robin (memory at large counts).
    pub distinct_shapes: usize,
    /// PRNG seed.
    pub seed: u64,
    /// Place the objects so that no two bounding spheres overlap (up to
    /// [`PLACEMENT_TRIES`] random draws each; past that, the last draw is
    /// kept). Off: uniform placement, overlaps included.
    pub separated: bool,
}

/// Random draws per object for [`MultiBodyParams::separated`] placement.
pub const PLACEMENT_TRIES: usize = 100;

impl Default for MultiBodyParams {
    /// I-COLLIDE-like defaults: 1000 objects of 40 hull points at 5 %
    /// density, 10°/frame, 1.5 % of the radius per frame; uniform placement.
    fn default() -> Self {
        Self {
            count: 1000,
            hull_points: 40,
            density: 0.05,
            rotation_deg: 10.0,
            translation: 0.015,
            distinct_shapes: 32,
            seed: 1,
            separated: false,
        }
    }
}

impl MultiBodyParams {
    /// Hull points for about `faces` faces: the hull of `p` points in general
    /// position on a sphere is a triangulation with `2p - 4` faces.
    pub fn hull_points_for_faces(faces: usize) -> usize {
        (faces + 4).div_ceil(2).max(4)
    }
}

/// One object of the scene.
#[derive(Clone, Debug)]
pub struct SceneBody {
    /// Index into [`MultiBodyScene::shapes`].
    pub shape: usize,
    /// Current pose.
    pub pose: Pose,
    /// Translation per frame.
    pub velocity: Vec3,
    /// Rotation per frame.
    pub spin: Quat,
}

impl SceneBody {
    /// Advances one frame: moves and spins; bounces off a wall when its
    /// center would pass `limit` on an axis.
    pub fn advance(&mut self, limit: f32) {
        let mut t = self.pose.translation + self.velocity;
        for k in 0..3 {
            if t[k].abs() > limit {
                self.velocity[k] = -self.velocity[k];
                t[k] = self.pose.translation[k] + self.velocity[k];
            }
        }
        self.pose = Pose::new((self.spin * self.pose.rotation).normalize(), t);
    }
}

/// I-COLLIDE's multi-body scene. See the module docs.
#[derive(Clone, Debug)]
pub struct MultiBodyScene {
    /// The distinct shapes (radius 1).
    pub shapes: Vec<SharedShape>,
    /// The objects.
    pub bodies: Vec<SceneBody>,
    /// Half the side of the cubic box.
    pub half_size: f32,
}

impl MultiBodyScene {
    /// A seeded scene.
    pub fn new(params: &MultiBodyParams) -> Self {
        let mut rng = Rng::new(params.seed);
        let radius = 1.0;
        let shapes: Vec<SharedShape> = (0..params.distinct_shapes.max(1))
            .map(|_| sphere_hull(&mut rng, params.hull_points, radius))
            .collect();
        let sphere = 4.0 / 3.0 * std::f32::consts::PI * radius.powi(3);
        let volume = params.count as f32 * sphere / params.density.clamp(1e-6, 0.9);
        let half_size = 0.5 * volume.cbrt();
        let step = params.translation * radius;
        let angle = params.rotation_deg.to_radians();
        let tries = if params.separated { PLACEMENT_TRIES } else { 0 };
        let mut placer = Placer::new(2.0 * radius, tries);
        let bodies = (0..params.count)
            .map(|i| SceneBody {
                shape: i % shapes.len(),
                pose: Pose::new(rng.rotation(), placer.place(&mut rng, half_size - radius)),
                velocity: rng.unit_vector() * step,
                spin: Quat::from_axis_angle(rng.unit_vector(), angle),
            })
            .collect();
        Self {
            shapes,
            bodies,
            half_size,
        }
    }

    /// The shape of body `i`.
    pub fn shape_of(&self, i: usize) -> &SharedShape {
        &self.shapes[self.bodies[i].shape]
    }

    /// Mean face count of the distinct shapes (coplanar triangles merged).
    pub fn mean_faces(&self) -> f32 {
        let faces: usize = self
            .shapes
            .iter()
            .map(|s| s.polytope().map_or(0, |p| p.faces().len()))
            .sum();
        faces as f32 / self.shapes.len() as f32
    }

    /// I-COLLIDE's collision response: bodies `i` and `j` exchange their
    /// linear velocities (equal masses, an elastic collision), if their
    /// centers are approaching; bodies already moving apart (say, touching
    /// because of a spin) keep theirs, instead of being pulled through each
    /// other. Returns whether they exchanged.
    pub fn exchange_velocities(&mut self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.bodies[i], &self.bodies[j]);
        let offset = b.pose.translation - a.pose.translation;
        if (b.velocity - a.velocity).dot(offset) >= 0.0 {
            return false;
        }
        let v = a.velocity;
        self.bodies[i].velocity = b.velocity;
        self.bodies[j].velocity = v;
        true
    }

    /// Advances one frame: every body moves and spins; a body whose center
    /// would leave the box (shrunk by its radius) bounces off the wall.
    pub fn step(&mut self) {
        let limit = self.half_size - 1.0;
        for b in &mut self.bodies {
            b.advance(limit);
        }
    }
}

/// Random points in a cube, at least `gap` apart when a few draws find
/// room: a grid of cells of side `gap`, each point checked against the 27
/// cells around it.
struct Placer {
    gap: f32,
    tries: usize,
    cells: HashMap<IVec3, Vec<Vec3>>,
}

impl Placer {
    fn new(gap: f32, tries: usize) -> Self {
        Self {
            gap,
            tries,
            cells: HashMap::new(),
        }
    }

    /// A point in `[-h, h]^3`: the first of `tries` draws with room (the
    /// last draw if none), or the first draw if `tries` is 0.
    fn place(&mut self, rng: &mut Rng, h: f32) -> Vec3 {
        let mut p = rng.in_cube(h);
        for _ in 1..self.tries {
            if self.has_room(p) {
                break;
            }
            p = rng.in_cube(h);
        }
        if self.tries > 0 {
            self.cells.entry(self.cell(p)).or_default().push(p);
        }
        p
    }

    fn cell(&self, p: Vec3) -> IVec3 {
        (p / self.gap).floor().as_ivec3()
    }

    fn has_room(&self, p: Vec3) -> bool {
        let c = self.cell(p);
        (0..27).all(|k| {
            let near = c + IVec3::new(k % 3, k / 3 % 3, k / 9) - IVec3::ONE;
            let points = self.cells.get(&near).map_or(&[][..], Vec::as_slice);
            points.iter().all(|q| q.distance(p) >= self.gap)
        })
    }
}

/// A cloth: an `n × n` grid of quads over `[-1, 1]²` in the xz plane at
/// height `y = height(x, z)`, two triangles each (`2 n²`); vertex `(i, j)`
/// (x index, z index) is number `i (n + 1) + j`. The solid bench's cloth is
/// `grid(128, …)` under a travelling wave.
pub fn grid(n: usize, height: impl Fn(f32, f32) -> f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let side = n + 1;
    let at = |i: usize| -1.0 + 2.0 * i as f32 / n as f32;
    let positions = (0..side * side)
        .map(|k| {
            let (x, z) = (at(k / side), at(k % side));
            Vec3::new(x, height(x, z), z)
        })
        .collect();
    let id = |i: usize, j: usize| (i * side + j) as u32;
    let triangles = (0..n * n)
        .flat_map(|k| {
            let (i, j) = (k / n, k % n);
            let (p, q, r, s) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            [[p, q, r], [p, r, s]]
        })
        .collect();
    (positions, triangles)
}

/// A torus of major radius `major` and minor radius `minor` around the z
/// axis, as a `u × v` grid of quads split into `2 u v` triangles (RAPID's
/// test tori: 1, 0.2, 50 × 50 → 5000 triangles).
pub fn torus(major: f32, minor: f32, u: usize, v: usize) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let (u, v) = (u.max(3), v.max(3));
    let mut positions = Vec::with_capacity(u * v);
    for i in 0..u {
        let a = std::f32::consts::TAU * i as f32 / u as f32;
        for j in 0..v {
            let b = std::f32::consts::TAU * j as f32 / v as f32;
            let r = major + minor * b.cos();
            positions.push(Vec3::new(r * a.cos(), r * a.sin(), minor * b.sin()));
        }
    }
    let id = |i: usize, j: usize| ((i % u) * v + (j % v)) as u32;
    let mut triangles = Vec::with_capacity(2 * u * v);
    for i in 0..u {
        for j in 0..v {
            let (p, q, r, s) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push([p, q, r]);
            triangles.push([p, r, s]);
        }
    }
    (positions, triangles)
}

/// A sphere of `radius` about the origin as a "cube sphere": each face of a
/// cube is an `n × n` grid of quads (equal-angle spacing, `tan` mapping, so
/// the cells are nearly uniform), projected onto the sphere and split into
/// `2` triangles: `12 n²` triangles in all (`n = 52`: 32 448). Every vertex
/// lies on the sphere (to rounding); triangles face outwards. The seams
/// repeat their vertices (one grid per face), which a polygon soup allows.
///
/// Calls with the same `n` give the same directions, so two spheres of radii
/// `r₁ < r₂` are exact scalings of each other: corresponding triangles are
/// parallel, `r₂ - r₁` apart times the cosine of their angular radius.
pub fn cube_sphere(radius: f32, n: usize) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let n = n.max(1);
    // (normal, u, v) with u × v = normal: triangles wound outwards.
    let faces = [
        (Vec3::X, Vec3::Y, Vec3::Z),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::Z, Vec3::X),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::Y, Vec3::X),
    ];
    let side = n + 1;
    let mut positions = Vec::with_capacity(6 * side * side);
    let mut triangles = Vec::with_capacity(12 * n * n);
    let angle = |i: usize| {
        let a = -std::f64::consts::FRAC_PI_4 + std::f64::consts::FRAC_PI_2 * i as f64 / n as f64;
        a.tan()
    };
    for (normal, u, v) in faces {
        let base = positions.len() as u32;
        for i in 0..side {
            for j in 0..side {
                let d = normal.as_dvec3() + u.as_dvec3() * angle(i) + v.as_dvec3() * angle(j);
                positions.push((d.normalize() * f64::from(radius)).as_vec3());
            }
        }
        let id = |i: usize, j: usize| base + (i * side + j) as u32;
        for i in 0..n {
            for j in 0..n {
                let (p, q, r, s) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
                triangles.push([p, q, r]);
                triangles.push([p, r, s]);
            }
        }
    }
    (positions, triangles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separated_placement_keeps_bounding_spheres_apart() {
        let params = MultiBodyParams {
            count: 500,
            density: 0.1,
            separated: true,
            ..Default::default()
        };
        let scene = MultiBodyScene::new(&params);
        let centers: Vec<Vec3> = scene.bodies.iter().map(|b| b.pose.translation).collect();
        for (i, a) in centers.iter().enumerate() {
            assert!(a.abs().max_element() <= scene.half_size - 1.0);
            for b in &centers[i + 1..] {
                assert!(a.distance(*b) >= 2.0);
            }
        }
    }
}
