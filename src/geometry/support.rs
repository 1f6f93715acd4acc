//! Support mappings for convex shapes.
//!
//! A convex set `S` is fully described, for the purposes of GJK and EPA, by its
//! *support mapping* `s_S(d) = argmax_{p ∈ S} d · p` (Gilbert, Johnson & Keerthi,
//! "A fast procedure for computing the distance between complex objects in
//! three-dimensional space", IEEE J. Robotics and Automation 4(2), 1988;
//! van den Bergen, "Collision Detection in Interactive 3D Environments", 2003, §4.3).
//! The support mapping of the Minkowski difference `A - B` (the *configuration
//! space obstacle*, CSO) is `s_{A-B}(d) = s_A(d) - s_B(-d)`, which is all GJK/EPA
//! ever need.
//!
//! Polytopes use *hill climbing* over the vertex adjacency graph (van den Bergen
//! 2003, §4.3.4): a linear function on a convex polytope has no non-global local
//! maximum along the edge graph, so steepest ascent from any vertex ends at a
//! support vertex. Starting from the previous answer (`hint`, temporal coherence)
//! makes a query O(1) neighbour scans in practice.

use glam::Vec3;

/// A `hint` meaning "no hint": the shape picks its own start (a convex
/// polytope of 256 vertices or more starts from the best of the extreme
/// vertices of 26 fixed directions, a few hill-climbing steps from any
/// answer).
pub const NO_HINT: u32 = u32::MAX;

/// A convex shape given by its support mapping, in the shape's local frame.
pub trait SupportMap {
    /// A point of the shape (local frame) that maximizes `dir · p`. `hint` is a
    /// vertex index the search may start from and update (hill-climbing); shapes
    /// without vertices ignore it. `dir` need not be normalized; for a zero
    /// direction any point of the shape may be returned.
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3;

    /// Radius of the ball this shape is rounded by: `shape = core ⊕ ball(margin)`.
    /// GJK and EPA run on the core and add the margin analytically, which is
    /// exact and fast for spheres (core = a point), capsules (a segment) and
    /// other rounded shapes. Default 0.
    fn margin(&self) -> f32 {
        0.0
    }

    /// Support point of the core (the shape shrunk by [`SupportMap::margin`]).
    /// Default: [`SupportMap::support`], for shapes without margin.
    fn core_support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        self.support(dir, hint)
    }
}

impl<T: SupportMap + ?Sized> SupportMap for &T {
    #[inline]
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        (**self).support(dir, hint)
    }
    #[inline]
    fn margin(&self) -> f32 {
        (**self).margin()
    }
    #[inline]
    fn core_support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        (**self).core_support(dir, hint)
    }
}

/// Vertex adjacency (the edge graph) of a convex polytope.
pub trait VertexAdjacency {
    /// The vertices sharing an edge with `v` (empty if `v` is out of range).
    fn neighbors(&self, v: u32) -> &[u32];
}

/// Compressed adjacency lists: the neighbours of `v` are
/// `indices[offsets[v]..offsets[v + 1]]`.
#[derive(Clone, Copy, Debug)]
pub struct CsrAdjacency<'a> {
    /// `vertex_count + 1` offsets into `indices`.
    pub offsets: &'a [u32],
    /// Concatenated neighbour lists.
    pub indices: &'a [u32],
}

impl VertexAdjacency for CsrAdjacency<'_> {
    fn neighbors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.offsets.get(v), self.offsets.get(v + 1)) {
            (Some(&s), Some(&e)) => self.indices.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Support over a convex vertex set with vertex adjacency, by hill-climbing from
/// `hint`: steepest ascent over the neighbours with *strict* improvement, so it
/// terminates (at most `vertices.len()` steps); exact when `vertices` are the
/// vertices of a convex polytope and `adjacency` its edge graph. Zero allocation.
#[derive(Clone, Copy, Debug)]
pub struct HullSupport<'a, N: VertexAdjacency + ?Sized> {
    /// Polytope vertices, local frame.
    pub vertices: &'a [Vec3],
    /// The polytope's edge graph.
    pub adjacency: &'a N,
}

impl<'a, N: VertexAdjacency + ?Sized> HullSupport<'a, N> {
    /// Wraps a vertex set and its adjacency.
    pub fn new(vertices: &'a [Vec3], adjacency: &'a N) -> Self {
        Self {
            vertices,
            adjacency,
        }
    }
}

impl<N: VertexAdjacency + ?Sized> SupportMap for HullSupport<'_, N> {
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        let n = self.vertices.len();
        if n == 0 {
            return Vec3::ZERO;
        }
        let mut cur = if (*hint as usize) < n { *hint } else { 0 };
        let mut best = self.vertices[cur as usize].dot(dir);
        // Strictly increasing objective: each vertex is visited at most once.
        for _ in 0..n {
            let mut next = cur;
            let mut next_val = best;
            for &nb in self.adjacency.neighbors(cur) {
                if let Some(p) = self.vertices.get(nb as usize) {
                    let val = p.dot(dir);
                    if val > next_val {
                        next = nb;
                        next_val = val;
                    }
                }
            }
            if next == cur {
                break;
            }
            cur = next;
            best = next_val;
        }
        *hint = cur;
        self.vertices[cur as usize]
    }
}

/// Support over a plain point set by exhaustive search (O(n); no adjacency
/// needed). `hint` receives the index of the returned point.
#[derive(Clone, Copy, Debug)]
pub struct PointSetSupport<'a>(pub &'a [Vec3]);

impl SupportMap for PointSetSupport<'_> {
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        let mut best_i = 0usize;
        let mut best = f32::NEG_INFINITY;
        for (i, p) in self.0.iter().enumerate() {
            let v = p.dot(dir);
            if v > best {
                best = v;
                best_i = i;
            }
        }
        *hint = best_i as u32;
        self.0.get(best_i).copied().unwrap_or(Vec3::ZERO)
    }
}

/// A ball: `s(d) = center + radius * d / |d|`; for GJK/EPA a point core
/// (`center`) with margin `radius`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Center, local frame.
    pub center: Vec3,
    /// Radius (`>= 0`).
    pub radius: f32,
}

impl Sphere {
    /// A ball centred at `center`.
    pub fn new(center: Vec3, radius: f32) -> Self {
        Self { center, radius }
    }
}

impl SupportMap for Sphere {
    #[inline]
    fn support(&self, dir: Vec3, _hint: &mut u32) -> Vec3 {
        self.center + self.radius * dir.try_normalize().unwrap_or(Vec3::X)
    }
    #[inline]
    fn margin(&self) -> f32 {
        self.radius.max(0.0)
    }
    #[inline]
    fn core_support(&self, _dir: Vec3, _hint: &mut u32) -> Vec3 {
        self.center
    }
}

/// An axis-aligned box centred at the origin: `s(d) = sign(d) ∘ half_extents`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    /// Half extents (`>= 0`).
    pub half_extents: Vec3,
}

impl Cuboid {
    /// A box with the given half extents.
    pub fn new(half_extents: Vec3) -> Self {
        Self { half_extents }
    }
}

impl SupportMap for Cuboid {
    #[inline]
    fn support(&self, dir: Vec3, _hint: &mut u32) -> Vec3 {
        Vec3::select(dir.cmplt(Vec3::ZERO), -self.half_extents, self.half_extents)
    }
}
