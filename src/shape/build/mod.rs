//! Robust 3D convex hull built with Quickhull.
//!
//! The algorithm is the one of C. B. Barber, D. P. Dobkin and H. Huhdanpaa,
//! *"The Quickhull Algorithm for Convex Hulls"*, ACM Transactions on
//! Mathematical Software 22(4), 1996, pp. 469–483:
//!
//! 1. Build an initial tetrahedron from extreme points: the two farthest
//!    points among the six axis extremes, the point farthest from the line
//!    through them, and the point farthest from the plane through those three.
//!    The same search detects degenerate inputs (coincident, collinear,
//!    coplanar points).
//! 2. Give every remaining point to the face it lies farthest outside of
//!    (the face's *conflict list*); points that are outside no face are inside
//!    the hull and are dropped for good.
//! 3. While some face's conflict list holds a point clearly outside the hull,
//!    take the farthest such point (the *apex*). Starting at that face, a
//!    depth-first search over the triangle neighbours collects every face the
//!    apex can see. The edges between visible and hidden faces form the
//!    *horizon*, a closed loop that is put in order. The visible faces are
//!    deleted, a cone of new triangles joins the apex to every horizon edge,
//!    and the points of the deleted faces' conflict lists (the *orphans*) are
//!    handed to the new faces.
//!
//! # Robustness
//!
//! All plane tests run in `f64` on the (exactly converted) `f32` inputs. The
//! distance tolerance is modelled on qhull's:
//! `eps = 3 * f32::EPSILON * (max|x| + max|y| + max|z|)`.
//!
//! * A point becomes an apex only when it lies more than `eps` above its
//!   face's plane (or, at the knife edges of very thin hulls, more than `eps`
//!   away from that face's and its neighbours' triangles). Duplicate,
//!   coplanar and nearly coplanar points are thus never added.
//! * The faces an apex *sees*, and the points kept in conflict lists, use a
//!   much smaller threshold, `VISIBILITY * eps` (`1e-3 * eps`): far above
//!   rounding noise, so exactly coplanar or collinear points never give
//!   zero-area triangles (every new triangle stands more than that threshold
//!   above a deleted face), yet small enough that the new cone meets the
//!   hidden faces in convex edges. (With `eps` there, the slightly concave
//!   edges get amplified by thin triangles and can even fold a new triangle
//!   over its neighbour.) A hidden face is also made visible when its third
//!   vertex would stand more than `eps` above the new triangle over its
//!   horizon edge.
//! * The horizon must form one simple loop (each vertex once); if rounding
//!   ever gives a visible region that is not a disc, the apex is skipped
//!   rather than corrupting the mesh.
//! * A final pass removes hull vertices that lie within `eps` of a triangle
//!   spanned by their neighbours (points on a flat face or a straight edge
//!   that were added before the true corners) and rebuilds the hull from the
//!   remaining vertices, so that the output holds only extreme points.
//!
//! The result is a closed 2-manifold of genus 0 whose vertices are exact
//! copies of input points; every input point lies within a few `eps` of the
//! inner side of every face plane.
//!
//! Dead triangles are tombstoned and their slots recycled through a free
//! list; the live triangles are compacted at the end. Memory stays linear in
//! the number of input points, and the main loop runs at most once per point.

mod prune;
mod quickhull;
#[cfg(test)]
mod tests;

use super::lanes::VertexLanes;
use glam::{DVec3, Vec3};

use prune::{Mesh, prune_redundant};
use quickhull::{initial_simplex, quickhull, to_f64, tolerance_f64};

/// Why a hull could not be built.
#[derive(Debug, Clone, PartialEq)]
pub enum HullError {
    /// No points given.
    Empty,
    /// Point `index` has a NaN or infinite coordinate.
    NonFinite {
        /// Index of the first offending point.
        index: usize,
    },
    /// All points coincide (within tolerance).
    Coincident,
    /// All points lie on one line (within tolerance).
    Collinear,
    /// All points lie in one plane (within tolerance): a hull needs 4 non-coplanar points.
    Coplanar,
}

impl std::fmt::Display for HullError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => write!(f, "cannot build a convex hull: no points given"),
            Self::NonFinite { index } => write!(
                f,
                "cannot build a convex hull: point {index} has a NaN or infinite coordinate"
            ),
            Self::Coincident => write!(
                f,
                "cannot build a convex hull: all points coincide (within tolerance)"
            ),
            Self::Collinear => write!(
                f,
                "cannot build a convex hull: all points lie on one line (within tolerance)"
            ),
            Self::Coplanar => write!(
                f,
                "cannot build a convex hull: all points lie in one plane (within tolerance); \
                 at least 4 non-coplanar points are needed"
            ),
        }
    }
}

impl std::error::Error for HullError {}

/// A closed convex hull: unique vertices, outward-facing triangles, vertex adjacency.
///
/// The triangles form a closed 2-manifold of genus 0: every edge belongs to
/// exactly two triangles (with opposite orientation) and
/// `V - E + F = 2`.
#[derive(Debug, Clone)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    adjacency_offsets: Vec<u32>,
    adjacency: Vec<u32>,
    /// The vertices four at a time (whole-hull scans: small hulls' boxes).
    lanes: VertexLanes,
}

impl ConvexHull {
    /// Builds the convex hull of `points` with Quickhull.
    ///
    /// # Errors
    /// See [`HullError`]: no points, a non-finite coordinate, or all points
    /// coincident, collinear or coplanar within [`ConvexHull::tolerance`].
    pub fn new(points: &[Vec3]) -> Result<Self, HullError> {
        let pts = to_f64(points)?;
        let eps = tolerance_f64(&pts);
        let simplex = initial_simplex(&pts, eps)?;
        let mesh = Mesh::new(pts.len(), &quickhull(&pts, eps, simplex));
        let mesh = prune_redundant(mesh, &pts, eps);
        Ok(Self::from_mesh(points, &mesh))
    }

    /// The distance tolerance used for `points`:
    /// `3 * f32::EPSILON * (max|x| + max|y| + max|z|)`.
    ///
    /// Non-finite coordinates are ignored.
    pub fn tolerance(points: &[Vec3]) -> f64 {
        let pts: Vec<DVec3> = points
            .iter()
            .filter(|p| p.is_finite())
            .map(|p| p.as_dvec3())
            .collect();
        tolerance_f64(&pts)
    }

    /// The hull's extreme points, each once. Each is an exact copy of an input point.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The hull's triangles, indexing [`ConvexHull::vertices`], counter-clockwise
    /// seen from outside (the right-hand normal points out).
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The vertices that share an edge with vertex `v`, sorted ascending,
    /// without duplicates. Empty if `v` is out of range.
    pub fn neighbors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (
            self.adjacency_offsets.get(v),
            self.adjacency_offsets.get(v + 1),
        ) {
            (Some(&start), Some(&end)) => self
                .adjacency
                .get(start as usize..end as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The number of (undirected) edges of the hull.
    pub fn edge_count(&self) -> usize {
        self.adjacency.len() / 2
    }

    /// Copies the mesh's vertices from the original `f32` input and builds the
    /// CSR vertex adjacency from the triangle edges.
    fn from_mesh(points: &[Vec3], mesh: &Mesh) -> Self {
        let vertices: Vec<Vec3> = mesh.verts.iter().map(|&i| points[i]).collect();
        // Indices fit in u32: a hull of more than 4 billion vertices cannot be held in memory.
        let triangles: Vec<[u32; 3]> = mesh.tris.iter().map(|t| t.map(|i| i as u32)).collect();
        let mut edges: Vec<(u32, u32)> = triangles
            .iter()
            .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a), (b, a), (c, b), (a, c)])
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let mut adjacency_offsets = vec![0u32; mesh.verts.len() + 1];
        for &(a, _) in &edges {
            adjacency_offsets[a as usize + 1] += 1;
        }
        for i in 1..adjacency_offsets.len() {
            adjacency_offsets[i] += adjacency_offsets[i - 1];
        }
        let adjacency = edges.into_iter().map(|(_, b)| b).collect();
        Self {
            lanes: VertexLanes::new(&vertices),
            vertices,
            triangles,
            adjacency_offsets,
            adjacency,
        }
    }

    /// The vertices four at a time.
    pub(crate) fn lanes(&self) -> &VertexLanes {
        &self.lanes
    }
}
