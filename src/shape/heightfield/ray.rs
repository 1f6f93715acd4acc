//! Ray casts on a height field: the cells the ray crosses, in the order it
//! crosses them, by a 2D grid walk over `x` and `z` (Amanatides & Woo, *A
//! Fast Voxel Traversal Algorithm for Ray Tracing*, Eurographics 1987):
//! each step goes to the neighbour across the nearer of the next column
//! and row boundaries. No tree is built or walked.
//!
//! The walk has two levels: over the min/max tiles first, a tile skipped
//! when the ray's height over its piece `[enter, exit]` of the tile
//! cannot reach the tile's heights; then over the cells of a tile it
//! cannot skip. Each cell step's piece of the ray is tested against the
//! triangles of its cell, and of a neighbour when the piece's box, grown
//! by a relative pad, reaches across an edge (a ray along a cell edge or
//! through a corner tests both sides); Möller–Trumbore on each triangle
//! whose cell's heights the piece can reach (the same test as meshes).
//! The walk stops at the first step whose piece holds a hit: a later
//! cell's triangles lie beyond its exit.

use std::ops::ControlFlow;

use glam::Vec3;

use super::{HeightField, TILE};
use crate::geometry::ray::{Ray, RayHit, ray_triangle};
use crate::shape::support_ray::box_span;

/// Relative pad of each step's box (as the mesh trees' slab test pads
/// theirs): relative to the cell size and the coordinates.
const PAD: f32 = 1e-5;

/// The walk along one axis: the current index among `lo..=hi` (tiles or
/// cells, each `unit` cells wide), its direction of travel, and the ray
/// parameter at which it leaves the current one.
struct Axis {
    k: usize,
    unit: u32,
    lo: u32,
    hi: u32,
    index: u32,
    step: i8,
    next: f32,
}

/// The best hit so far: parameter and triangle.
type Best = Option<(f32, u32)>;

impl HeightField {
    /// The first triangle `ray` (field frame) meets within `max_toi`:
    /// parameter, unit normal facing the ray's origin side, triangle id
    /// (among triangles hit at the same parameter, the smallest id).
    pub fn ray_cast(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        let b = self.local_aabb();
        let cell =
            (self.scale.x / (self.ncols - 1) as f32).max(self.scale.z / (self.nrows - 1) as f32);
        let pad = PAD * (cell + b.reach());
        let (t0, t1) = box_span(b.padded(pad), ray)?;
        let (t0, t1) = (t0.max(0.0), t1.min(max_toi));
        if t0 > t1 {
            return None;
        }
        let mut best: Best = None;
        let tiles = ((0, self.tile_rows() - 1), (0, self.tile_cols - 1));
        let _ = self.walk(ray, (t0, t1), TILE, tiles, |tr, tc, enter, exit| {
            let [lo, hi] = self.tiles[(tr * self.tile_cols + tc) as usize];
            let heights = (lo * self.scale.y, hi * self.scale.y);
            if !reaches(ray, (enter, exit), pad, heights) {
                return ControlFlow::Continue(());
            }
            let rows = (tr * TILE, ((tr + 1) * TILE).min(self.nrows - 1) - 1);
            let cols = (tc * TILE, ((tc + 1) * TILE).min(self.ncols - 1) - 1);
            self.walk(ray, (enter, exit), 1, (rows, cols), |row, col, e, x| {
                self.test_cells(ray, (row, col), (e, x), pad, &mut best);
                stop_at(best, x)
            })?;
            stop_at(best, exit)
        });
        best.map(|(toi, id)| self.hit(ray, toi, id))
    }

    fn tile_rows(&self) -> u32 {
        (self.nrows - 1).div_ceil(TILE)
    }

    /// The triangles of cell `(row, col)` and of the neighbours its piece
    /// of the ray `[enter, exit]` reaches within `pad`, into `best`.
    fn test_cells(
        &self,
        ray: &Ray,
        (row, col): (u32, u32),
        (enter, exit): (f32, f32),
        pad: f32,
        best: &mut Best,
    ) {
        let (p, q) = (ray.at(enter), ray.at(exit));
        let (lo, hi) = (p.min(q) - Vec3::splat(pad), p.max(q) + Vec3::splat(pad));
        let near = |i: u32, cells: u32, at: &dyn Fn(u32) -> f32, (a, b): (f32, f32)| {
            let first = if i > 0 && a < at(i) { i - 1 } else { i };
            let last = if i + 1 < cells && b > at(i + 1) {
                i + 1
            } else {
                i
            };
            first..=last
        };
        let cols = near(col, self.ncols - 1, &|j| self.col_x(j), (lo.x, hi.x));
        let rows = near(row, self.nrows - 1, &|i| self.row_z(i), (lo.z, hi.z));
        for r in rows {
            for c in cols.clone() {
                if self.is_hole(r as usize, c as usize) {
                    continue;
                }
                let tris = self.cell_triangles(r, c);
                let ys = [tris[0][0].y, tris[0][1].y, tris[0][2].y, tris[1][1].y];
                let (ylo, yhi) = ys.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |m, &y| {
                    (m.0.min(y), m.1.max(y))
                });
                if yhi < lo.y || ylo > hi.y {
                    continue;
                }
                let id = 2 * (r * (self.ncols - 1) + c);
                for (k, tri) in (0..).zip(tris) {
                    if let Some(t) = ray_triangle(ray, tri, f32::INFINITY)
                        && best.is_none_or(|(bt, bi)| t < bt || (t == bt && id + k < bi))
                    {
                        *best = Some((t, id + k));
                    }
                }
            }
        }
    }

    /// Walks the grid of `unit`-cell squares (tiles or cells) with rows
    /// `rows.0..=rows.1` and columns `cols.0..=cols.1` along `ray` over
    /// `[t0, t1]`: `f(row, col, enter, exit)` for each square in the order
    /// the ray crosses them, until `f` breaks.
    fn walk(
        &self,
        ray: &Ray,
        (t0, t1): (f32, f32),
        unit: u32,
        (rows, cols): ((u32, u32), (u32, u32)),
        mut f: impl FnMut(u32, u32, f32, f32) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let start = ray.at(t0);
        let mut x = Axis::new(self, (0, unit, cols), ray, start.x);
        let mut z = Axis::new(self, (2, unit, rows), ray, start.z);
        let mut enter = t0;
        loop {
            let exit = x.next.min(z.next).min(t1).max(enter);
            f(z.index, x.index, enter, exit)?;
            if exit >= t1 {
                return ControlFlow::Continue(());
            }
            let axis = if x.next <= z.next { &mut x } else { &mut z };
            if !axis.advance(self, ray) {
                return ControlFlow::Continue(());
            }
            enter = exit;
        }
    }

    fn hit(&self, ray: &Ray, toi: f32, id: u32) -> RayHit {
        let [a, b, c] = self.triangle(id).unwrap_or([Vec3::ZERO; 3]);
        let n = (b - a).cross(c - a).normalize_or_zero();
        RayHit {
            toi,
            normal: if n.dot(ray.dir) > 0.0 { -n } else { n },
            feature: id,
            piece: 0,
        }
    }
}

/// Whether the ray's height over `[enter, exit]`, grown by `pad`, meets
/// `[lo, hi]`.
fn reaches(ray: &Ray, (enter, exit): (f32, f32), pad: f32, (lo, hi): (f32, f32)) -> bool {
    let (a, b) = (ray.at(enter).y, ray.at(exit).y);
    a.min(b) - pad <= hi && a.max(b) + pad >= lo
}

/// Break once the best hit lies within the piece that ends at `exit`.
fn stop_at(best: Best, exit: f32) -> ControlFlow<()> {
    if best.is_some_and(|(t, _)| t <= exit) {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

impl Axis {
    /// The walk along axis `k` (0: columns over `x`, 2: rows over `z`)
    /// over squares `lo..=hi` of `unit` cells, from coordinate `at`.
    fn new(
        field: &HeightField,
        (k, unit, (lo, hi)): (usize, u32, (u32, u32)),
        ray: &Ray,
        at: f32,
    ) -> Axis {
        let d = ray.dir[k];
        let step = if d > 0.0 {
            1
        } else if d < 0.0 {
            -1
        } else {
            0
        };
        let mut a = Axis {
            k,
            unit,
            lo,
            hi,
            index: lo,
            step,
            next: f32::INFINITY,
        };
        let (cells, size) = a.extent(field);
        let estimate = ((at / size + 0.5) * cells as f32 / unit as f32).floor();
        let mut i = estimate.clamp(lo as f32, hi as f32) as u32;
        while i > lo && a.bound(field, i) > at {
            i -= 1;
        }
        while i < hi && a.bound(field, i + 1) < at {
            i += 1;
        }
        a.index = i;
        a.next = a.exit(field, ray);
        a
    }

    fn extent(&self, field: &HeightField) -> (u32, f32) {
        if self.k == 0 {
            (field.ncols - 1, field.scale.x)
        } else {
            (field.nrows - 1, field.scale.z)
        }
    }

    /// The coordinate of the boundary before square `i`.
    fn bound(&self, field: &HeightField, i: u32) -> f32 {
        let (cells, _) = self.extent(field);
        let j = (i * self.unit).min(cells);
        if self.k == 0 {
            field.col_x(j)
        } else {
            field.row_z(j)
        }
    }

    /// The parameter at which the ray leaves the current square along
    /// this axis (infinite when it does not, or leaves the range there).
    fn exit(&self, field: &HeightField, ray: &Ray) -> f32 {
        let boundary = match self.step {
            1 if self.index < self.hi => self.index + 1,
            -1 if self.index > self.lo => self.index,
            _ => return f32::INFINITY,
        };
        (self.bound(field, boundary) - ray.origin[self.k]) / ray.dir[self.k]
    }

    /// Steps to the next square; `false` when the ray leaves the range.
    fn advance(&mut self, field: &HeightField, ray: &Ray) -> bool {
        if self.next == f32::INFINITY {
            return false;
        }
        self.index = self.index.wrapping_add_signed(self.step as i32);
        self.next = self.exit(field, ray);
        true
    }
}
