use glam::{Mat3, Vec3};
use serde::{Deserialize, Serialize};

use crate::math::{Aabb, Pose};
use crate::shape::ConvexHull;

/// A tight box kept up to date by hill-climbing over the hull's vertex graph
/// (hulls of 64 vertices or more; smaller ones are
/// transformed whole, which is faster).
///
/// Holds, per axis, the index of the hull vertex with the smallest and the
/// largest world coordinate at the last update (the "extremal vertices").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DynamicBox {
    /// `[min_x, min_y, min_z]` extremal vertex indices.
    pub min_vertex: [u32; 3],
    /// `[max_x, max_y, max_z]` extremal vertex indices.
    pub max_vertex: [u32; 3],
}

/// Vertex visits of one update, for statistics (steps = visits - 6).
pub type Visits = u32;

impl DynamicBox {
    /// Starts the walk from vertex 0 on every axis; the first update climbs
    /// to the extremes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Updates the extremal vertices for `pose` and returns the world box
    /// with the number of vertices whose coordinate was computed.
    pub fn update(&mut self, hull: &ConvexHull, pose: &Pose) -> (Aabb, Visits) {
        let verts = hull.vertices();
        if verts.len() < CLIMB_MIN_VERTICES {
            return (transform_all(verts, pose), verts.len() as Visits);
        }
        // Row k of R: the k-th world coordinate of R v is row_k · v.
        let rows = Mat3::from_quat(pose.rotation).transpose();
        let mut lo = [0.0f32; 3];
        let mut hi = [0.0f32; 3];
        let mut visits = 0;
        for k in 0..3 {
            let row = rows.col(k);
            let (v, n) = climb(hull, verts, self.min_vertex[k], -row);
            self.min_vertex[k] = v;
            lo[k] = row.dot(verts[v as usize]) + pose.translation[k];
            let (v, m) = climb(hull, verts, self.max_vertex[k], row);
            self.max_vertex[k] = v;
            hi[k] = row.dot(verts[v as usize]) + pose.translation[k];
            visits += n + m;
        }
        (Aabb::new(Vec3::from(lo), Vec3::from(hi)), visits)
    }
}

/// Below this many vertices a hull's box is computed by transforming
/// every vertex: six climbs cost at least six neighbour scans (about 40
/// dot products with dependent loads) however coherent the motion, which
/// a contiguous pass over a small hull beats. Measured (`--bench
/// broad_phase`, 10 000 hulls turning 10° per frame, one run; climbing
/// against transforming all): 40 vertices 1.53× slower, 60 1.07× slower,
/// 100 0.71×, 200 0.41×.
pub(crate) const CLIMB_MIN_VERTICES: usize = 64;

/// The box of every vertex moved by `pose`, with the climbs' arithmetic
/// (row `k` of the rotation dotted with the vertex, plus the translation),
/// so both paths give the brute-force box bit for bit.
#[inline]
fn transform_all(verts: &[Vec3], pose: &Pose) -> Aabb {
    let rows = Mat3::from_quat(pose.rotation).transpose();
    let (r0, r1, r2) = (rows.col(0), rows.col(1), rows.col(2));
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    for &v in verts {
        let w = Vec3::new(r0.dot(v), r1.dot(v), r2.dot(v));
        lo = lo.min(w);
        hi = hi.max(w);
    }
    Aabb::new(lo + pose.translation, hi + pose.translation)
}

/// Steepest-ascent walk from `start` to the vertex maximizing `dir · v`.
///
/// Values are compared as `dir · v`, the very expression a brute-force box
/// maximizes, so the result equals the brute-force box bit for bit (a walk
/// on rounded edge vectors `dir · (w - v)` can stop one ulp short). Each
/// step strictly increases the value, so the walk ends; on a convex hull
/// the end is the global maximum. It is also bounded by the vertex count.
#[inline]
fn climb(hull: &ConvexHull, verts: &[Vec3], start: u32, dir: Vec3) -> (u32, Visits) {
    let n = verts.len() as u32;
    let mut best = start.min(n - 1);
    let mut best_val = dir.dot(verts[best as usize]);
    let mut visits = 1;
    for _ in 0..n {
        let from = best;
        for &w in hull.neighbors(from) {
            visits += 1;
            let val = dir.dot(verts[w as usize]);
            if val > best_val {
                best_val = val;
                best = w;
            }
        }
        if best == from {
            break;
        }
    }
    (best, visits)
}
