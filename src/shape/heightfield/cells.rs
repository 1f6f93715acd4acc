//! The cells under a box: the grid is the tree. A box's `x` and `z` give
//! the column and row ranges by division, corrected against the vertices'
//! own `f32` coordinates (so a cell whose edge the box touches is never
//! left out, and no cell beyond it is taken); the tiles' and then the
//! triangles' heights cull what the box's `y` range cannot reach.

use std::ops::ControlFlow;

use glam::Vec3;

use super::{HeightField, TILE};
use crate::math::Aabb;

impl HeightField {
    /// The columns `first..=last` whose `x` span `[x(c), x(c + 1)]` meets
    /// `[lo, hi]` (closed: touching counts), `None` if none.
    pub fn col_span(&self, lo: f32, hi: f32) -> Option<(u32, u32)> {
        span((lo, hi), self.ncols - 1, self.scale.x, |j| self.col_x(j))
    }

    /// The rows whose `z` span meets `[lo, hi]`, as [`col_span`](Self::col_span).
    pub fn row_span(&self, lo: f32, hi: f32) -> Option<(u32, u32)> {
        span((lo, hi), self.nrows - 1, self.scale.z, |i| self.row_z(i))
    }

    /// Calls `f(id, triangle)` (field frame) for the triangles outside
    /// holes of the cells whose footprint meets `region`'s `x` and `z`
    /// ranges, except those whose three vertices all lie above or all
    /// below `region`'s `y` range; stops when `f` breaks. Cells are
    /// visited tile by tile ([`TILE`]), a tile skipped when its heights
    /// cannot reach the region.
    pub fn for_each_triangle_in(
        &self,
        region: &Aabb,
        mut f: impl FnMut(u32, [Vec3; 3]) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let (Some(cols), Some(rows)) = (
            self.col_span(region.min.x, region.max.x),
            self.row_span(region.min.z, region.max.z),
        ) else {
            return ControlFlow::Continue(());
        };
        let (lo, hi) = (region.min.y, region.max.y);
        let sy = self.scale.y;
        for tr in rows.0 / TILE..=rows.1 / TILE {
            for tc in cols.0 / TILE..=cols.1 / TILE {
                let [a, b] = self.tiles[(tr * self.tile_cols + tc) as usize];
                if a * sy > hi || b * sy < lo {
                    continue;
                }
                let r = rows.0.max(tr * TILE)..=rows.1.min(tr * TILE + TILE - 1);
                let c = cols.0.max(tc * TILE)..=cols.1.min(tc * TILE + TILE - 1);
                self.cells_in((r, c), (lo, hi), &mut f)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// [`for_each_triangle_in`](Self::for_each_triangle_in) over the given
    /// cells.
    fn cells_in(
        &self,
        (rows, cols): (std::ops::RangeInclusive<u32>, std::ops::RangeInclusive<u32>),
        (lo, hi): (f32, f32),
        f: &mut impl FnMut(u32, [Vec3; 3]) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let row_cells = self.ncols - 1;
        for row in rows {
            for col in cols.clone() {
                if self.is_hole(row as usize, col as usize) {
                    continue;
                }
                let id = 2 * (row * row_cells + col);
                for (k, tri) in (0..).zip(self.cell_triangles(row, col)) {
                    let ys = [tri[0].y, tri[1].y, tri[2].y];
                    if ys.iter().all(|&y| y > hi) || ys.iter().all(|&y| y < lo) {
                        continue;
                    }
                    f(id + k, tri)?;
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// The cells `first..=last` (of `cells`, with boundaries `at(0) <= at(1)
/// <= … <= at(cells)`, `at` nondecreasing in `f32` as the vertices'
/// coordinates are) whose span `[at(c), at(c + 1)]` meets `[lo, hi]`: an
/// estimate by division by the grid's extent `size`, then corrected
/// against `at` itself.
fn span(
    (lo, hi): (f32, f32),
    cells: u32,
    size: f32,
    at: impl Fn(u32) -> f32,
) -> Option<(u32, u32)> {
    if !(hi >= at(0) && lo <= at(cells)) {
        return None;
    }
    let top = (cells - 1) as f32;
    let estimate = |v: f32| ((v / size + 0.5) * cells as f32).floor().clamp(0.0, top) as u32;
    let mut first = estimate(lo);
    while first > 0 && at(first) >= lo {
        first -= 1;
    }
    while first < cells - 1 && at(first + 1) < lo {
        first += 1;
    }
    let mut last = estimate(hi);
    while last < cells - 1 && at(last + 1) <= hi {
        last += 1;
    }
    while last > 0 && at(last) > hi {
        last -= 1;
    }
    (first <= last).then_some((first, last))
}
