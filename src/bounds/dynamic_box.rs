use glam::{Mat3, Vec3};
use serde::{Deserialize, Serialize};

use crate::math::prefetch::prefetch_value;
use crate::math::{Aabb, Pose};
use crate::shape::ConvexHull;

/// A tight box kept up to date by hill-climbing over the hull's vertex graph
/// (hulls of 1 024 vertices or more; smaller ones are transformed whole,
/// eight or four vertices at a time, which is faster: see
/// `CLIMB_MIN_VERTICES`).
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

    /// Starts loading into the cache what the next [`update`](Self::update)
    /// of `hull` reads (a hint: no effect on any result). A batch of bodies
    /// calls it [`READ_AHEAD`] bodies ahead of the one it updates, and
    /// [`prefetch_fields`](Self::prefetch_fields) twice as far ahead.
    #[inline]
    pub fn prefetch(hull: &ConvexHull) {
        if hull.vertices().len() < CLIMB_MIN_VERTICES {
            hull.lanes().prefetch();
        }
    }

    /// Starts loading `hull`'s own fields (its arrays' addresses and
    /// lengths) without reading them, for [`prefetch`](Self::prefetch) a
    /// little later: when every body has its own hull, they miss too.
    #[inline]
    pub fn prefetch_fields(hull: &ConvexHull) {
        prefetch_value(hull, std::mem::size_of::<ConvexHull>());
    }

    /// Updates the extremal vertices for `pose` and returns the world box
    /// with the number of vertices whose coordinate was computed.
    pub fn update(&mut self, hull: &ConvexHull, pose: &Pose) -> (Aabb, Visits) {
        let verts = hull.vertices();
        if verts.len() < CLIMB_MIN_VERTICES {
            return (transform_all(hull, pose), verts.len() as Visits);
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
/// every vertex, eight at a time with AVX, four without (`shape::lanes`):
/// a streaming pass over the hull's structure-of-arrays copy beats six
/// climbs (each a chain of dependent loads over the vertex graph) until
/// the hull is large. Measured (`--bench broad_phase -- bounds_update`,
/// 10 000 hulls turning 10° per frame, one run per size, 2-core machine,
/// ms per frame; the scalar transform of every vertex for reference; the
/// 4-wide column is the run before the 8-wide pass):
///
/// | hull vertices | 8-wide transform | 4-wide | climbing   | scalar transform |
/// |--------------:|-----------------:|-------:|-----------:|-----------------:|
/// |            40 |             0.36 |   0.49 |          – |             0.96 |
/// |           100 |             0.53 |   0.89 |          – |             2.23 |
/// |           200 |             0.88 |   1.41 |          – |             4.87 |
/// |           400 |             1.42 |   2.49 |          – |             9.30 |
/// |           800 |             3.43 |   4.76 |          – |             17.7 |
/// |         1 600 |             6.78 |   9.48 | 8.46, 14.9 |             35.6 |
/// |         6 400 |             21.7 |      – | 94.4       |                – |
///
/// At 10° per frame the 8-wide transform now beats climbing at every size
/// measured, but climbing's cost follows the spin, not the size: at 1° per
/// frame and 1 600 vertices it visited 61 vertices and took 4.3 ms against
/// 6.1 ms for the transform. The threshold stays where the two meet for
/// moderate spins; choosing per body from its last climb's visits is the
/// better rule, not done yet.
pub const CLIMB_MIN_VERTICES: usize = 1024;

/// The box of every vertex moved by `pose`, with the climbs' arithmetic
/// (row `k` of the rotation dotted with the vertex, plus the translation),
/// so both paths give the brute-force box bit for bit; eight or four
/// vertices at a time (the hull's structure-of-arrays lanes).
#[inline]
fn transform_all(hull: &ConvexHull, pose: &Pose) -> Aabb {
    let rows = Mat3::from_quat(pose.rotation).transpose();
    let (lo, hi) = hull
        .lanes()
        .rotated_bounds([rows.col(0), rows.col(1), rows.col(2)]);
    Aabb::new(lo + pose.translation, hi + pose.translation)
}

/// How many bodies ahead a batch of box updates calls
/// [`DynamicBox::prefetch`]: far enough for the loads to arrive in time,
/// near enough that they are still in the cache when used.
pub const READ_AHEAD: usize = 2;

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
