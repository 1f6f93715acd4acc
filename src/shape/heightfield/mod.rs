//! A height field: terrain as a regular grid of heights, the grid itself
//! its tree.
//!
//! **Layout** (parry's `HeightField` conventions, so a parry or avian user
//! finds the same terrain): `nrows × ncols` samples, row-major; row `i`
//! advances along local `z`, column `j` along local `x`. The sample
//! `(i, j)` is the vertex
//!
//! ```text
//! x = (-0.5 + j · (1 / (ncols - 1))) · scale.x
//! y = heights[i · ncols + j] · scale.y
//! z = (-0.5 + i · (1 / (nrows - 1))) · scale.z
//! ```
//!
//! computed in `f32` exactly as written (the same expression as parry's),
//! so the grid spans `[-scale.x / 2, scale.x / 2] × [-scale.z / 2,
//! scale.z / 2]`, centred on the origin.
//!
//! **Triangles.** A cell `(row, col)` (`0 <= row < nrows - 1`, `0 <= col <
//! ncols - 1`) has corners `p00 = (row, col)`, `p10 = (row + 1, col)`,
//! `p01 = (row, col + 1)`, `p11 = (row + 1, col + 1)` and two triangles
//! split along the `p10`–`p01` diagonal (parry's default subdivision):
//! triangle `0` is `[p00, p10, p01]`, triangle `1` is `[p10, p11, p01]`.
//! Their ids are `2 · (row · (ncols - 1) + col) + k`: a triangle id gives
//! its cell (`id / 2`) and its half (`id % 2`) ([`HeightField::cell_of`]).
//!
//! **Holes** are an explicit per-cell mask (parry's `CELL_REMOVED`), one
//! bit per cell: a hole cell has no triangles. Heights are always finite
//! (NaN is refused, not a hole marker: a NaN that slipped in would
//! otherwise silently open the terrain).
//!
//! **Memory**: 4 bytes per sample, 1 bit per cell, and 8 bytes of
//! min/max height per tile of [`TILE`]² cells (under 0.13 bytes per
//! sample), no tree: queries find the cells under a box by division and
//! skip tiles and cells whose heights cannot reach it; a ray walks the
//! cells it crosses (`ray.rs`, Amanatides & Woo 1987).
//!
//! **Edits** ([`HeightField::set_heights`], [`HeightField::set_hole`])
//! change samples in place; only the tiles they touch are re-measured.

mod cells;
mod ray;

use glam::Vec3;

use crate::math::Aabb;

/// Cells per side of a min/max tile.
pub const TILE: u32 = 8;

/// Largest number of samples along a side (`2¹⁵`): triangle ids
/// `2 · cells` stay below `2³¹`, clear of the reserved `u32::MAX`.
pub const MAX_SIDE: u32 = 32_768;

/// Why a height field could not be built or edited (the message names the
/// fault).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeightFieldError(pub &'static str);

impl std::fmt::Display for HeightFieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for HeightFieldError {}

/// A grid of heights with holes (see the module docs).
#[derive(Clone, Debug)]
pub struct HeightField {
    nrows: u32,
    ncols: u32,
    heights: Vec<f32>,
    /// One bit per cell, row-major over cells.
    holes: Vec<u64>,
    /// Per tile: min and max unscaled height of its samples.
    tiles: Vec<[f32; 2]>,
    tile_cols: u32,
    scale: Vec3,
    /// Min and max unscaled height over all samples.
    range: [f32; 2],
}

impl HeightField {
    /// A height field of `nrows × ncols` samples (row-major, rows along
    /// `z`), scaled by `scale`, without holes.
    ///
    /// Errors: fewer than 2 rows or columns, more than [`MAX_SIDE`],
    /// `heights.len() != nrows · ncols`, a NaN or infinite height, a scale
    /// not finite and positive.
    pub fn new(
        heights: Vec<f32>,
        nrows: usize,
        ncols: usize,
        scale: Vec3,
    ) -> Result<Self, HeightFieldError> {
        check_layout(heights.len(), nrows, ncols)?;
        check_scale(scale)?;
        // A fold without early exit: vectorized over the whole array.
        if !heights.iter().fold(true, |ok, h| ok & h.is_finite()) {
            return Err(HeightFieldError("a height is NaN or infinite"));
        }
        let cells = (nrows - 1) * (ncols - 1);
        let tile_cols = (ncols as u32 - 1).div_ceil(TILE);
        let tile_rows = (nrows as u32 - 1).div_ceil(TILE);
        let mut field = Self {
            nrows: nrows as u32,
            ncols: ncols as u32,
            heights,
            holes: vec![0; cells.div_ceil(64)],
            tiles: vec![[0.0; 2]; (tile_cols * tile_rows) as usize],
            tile_cols,
            scale,
            range: [0.0; 2],
        };
        field.measure_tiles(0..tile_rows, 0..tile_cols);
        Ok(field)
    }

    /// Number of samples along `z`.
    pub fn nrows(&self) -> usize {
        self.nrows as usize
    }

    /// Number of samples along `x`.
    pub fn ncols(&self) -> usize {
        self.ncols as usize
    }

    /// The heights, row-major (unscaled).
    pub fn heights(&self) -> &[f32] {
        &self.heights
    }

    /// The scale: the grid's extent along `x` and `z`, the heights' factor
    /// along `y`.
    pub fn scale(&self) -> Vec3 {
        self.scale
    }

    /// Changes the scale (finite and positive, else an error and no
    /// change).
    pub fn set_scale(&mut self, scale: Vec3) -> Result<(), HeightFieldError> {
        check_scale(scale)?;
        self.scale = scale;
        Ok(())
    }

    /// Number of triangles, holes included: `2 · (nrows - 1) · (ncols - 1)`.
    pub fn triangle_count(&self) -> usize {
        2 * (self.nrows as usize - 1) * (self.ncols as usize - 1)
    }

    /// Bytes held by the field's arrays (heights, hole bits, tiles).
    pub fn heap_bytes(&self) -> usize {
        self.heights.capacity() * 4 + self.holes.capacity() * 8 + self.tiles.capacity() * 8
    }

    /// The cell `(row, col)` and half (0 or 1) of a triangle id.
    pub fn cell_of(&self, triangle: u32) -> (usize, usize, u32) {
        let cell = (triangle / 2) as usize;
        let cols = self.ncols as usize - 1;
        (cell / cols, cell % cols, triangle % 2)
    }

    /// Whether the cell `(row, col)` is a hole.
    pub fn is_hole(&self, row: usize, col: usize) -> bool {
        let c = row * (self.ncols as usize - 1) + col;
        self.holes[c / 64] >> (c % 64) & 1 == 1
    }

    /// Makes the cell `(row, col)` a hole (`true`) or solid again.
    /// Errors: a cell outside the grid.
    pub fn set_hole(&mut self, row: usize, col: usize, hole: bool) -> Result<(), HeightFieldError> {
        if row + 1 >= self.nrows as usize || col + 1 >= self.ncols as usize {
            return Err(HeightFieldError("hole cell outside the grid"));
        }
        let c = row * (self.ncols as usize - 1) + col;
        let bit = 1u64 << (c % 64);
        if hole {
            self.holes[c / 64] |= bit;
        } else {
            self.holes[c / 64] &= !bit;
        }
        Ok(())
    }

    /// Replaces the samples of the sub-rectangle of `rows × cols` samples
    /// whose first sample is `(row, col)` by `values` (row-major), in
    /// place: no rebuild, the tiles it touches re-measured.
    ///
    /// Errors (nothing changed): a rectangle outside the grid or empty,
    /// `values.len() != rows · cols`, a NaN or infinite value.
    pub fn set_heights(
        &mut self,
        (row, col): (usize, usize),
        (rows, cols): (usize, usize),
        values: &[f32],
    ) -> Result<(), HeightFieldError> {
        let inside = row.checked_add(rows).is_some_and(|r| r <= self.nrows())
            && col.checked_add(cols).is_some_and(|c| c <= self.ncols());
        if rows == 0 || cols == 0 || !inside {
            return Err(HeightFieldError(
                "edited rectangle empty or outside the grid",
            ));
        }
        if values.len() != rows * cols {
            return Err(HeightFieldError("edited values are not rows × cols"));
        }
        if values.iter().any(|h| !h.is_finite()) {
            return Err(HeightFieldError("a height is NaN or infinite"));
        }
        let n = self.ncols();
        for (r, line) in values.chunks_exact(cols).enumerate() {
            let at = (row + r) * n + col;
            self.heights[at..at + cols].copy_from_slice(line);
        }
        // Sample s is a corner of cells s - 1 and s (those in the grid).
        let tiles = |s: usize, n: usize, samples: u32| {
            let last_cell = samples - 2;
            (s.saturating_sub(1) as u32 / TILE)..((s + n - 1) as u32).min(last_cell) / TILE + 1
        };
        let t_rows = tiles(row, rows, self.nrows);
        let t_cols = tiles(col, cols, self.ncols);
        self.measure_tiles(t_rows, t_cols);
        Ok(())
    }

    /// The box of the field in its own frame (every sample, holes
    /// included).
    pub fn local_aabb(&self) -> Aabb {
        let (lo, hi) = (self.col_x(0), self.col_x(self.ncols - 1));
        let (front, back) = (self.row_z(0), self.row_z(self.nrows - 1));
        let (a, b) = (self.range[0] * self.scale.y, self.range[1] * self.scale.y);
        Aabb::new(Vec3::new(lo, a, front), Vec3::new(hi, b, back))
    }

    /// The `x` of column `j` (see the module docs).
    #[inline]
    pub fn col_x(&self, j: u32) -> f32 {
        (-0.5 + j as f32 * (1.0 / (self.ncols - 1) as f32)) * self.scale.x
    }

    /// The `z` of row `i` (see the module docs).
    #[inline]
    pub fn row_z(&self, i: u32) -> f32 {
        (-0.5 + i as f32 * (1.0 / (self.nrows - 1) as f32)) * self.scale.z
    }

    /// The vertex of sample `(i, j)`.
    #[inline]
    pub fn vertex(&self, i: u32, j: u32) -> Vec3 {
        let h = self.heights[(i * self.ncols + j) as usize];
        Vec3::new(self.col_x(j), h * self.scale.y, self.row_z(i))
    }

    /// The triangle `id` (see the module docs), `None` in a hole or out of
    /// range.
    pub fn triangle(&self, id: u32) -> Option<[Vec3; 3]> {
        if id as usize >= self.triangle_count() {
            return None;
        }
        let (row, col, k) = self.cell_of(id);
        if self.is_hole(row, col) {
            return None;
        }
        let [t0, t1] = self.cell_triangles(row as u32, col as u32);
        Some(if k == 0 { t0 } else { t1 })
    }

    /// The two triangles of cell `(row, col)`, hole or not.
    #[inline]
    pub fn cell_triangles(&self, row: u32, col: u32) -> [[Vec3; 3]; 2] {
        let p00 = self.vertex(row, col);
        let p10 = self.vertex(row + 1, col);
        let p01 = self.vertex(row, col + 1);
        let p11 = self.vertex(row + 1, col + 1);
        [[p00, p10, p01], [p10, p11, p01]]
    }

    /// Re-measures the min/max of the tiles in the given ranges, then the
    /// field's range from all tiles. Per row of tiles, the min/max of each
    /// column of its `TILE + 1` sample rows (shared edges included)
    /// elementwise over whole rows, then each tile's `TILE + 1` columns of
    /// those: compare-and-select on finite heights, which vectorizes.
    fn measure_tiles(&mut self, rows: std::ops::Range<u32>, cols: std::ops::Range<u32>) {
        let n = self.ncols as usize;
        let first = (cols.start * TILE) as usize;
        let last = ((cols.end * TILE) as usize).min(n - 1);
        let (mut lo, mut hi) = (
            vec![0.0f32; last - first + 1],
            vec![0.0f32; last - first + 1],
        );
        for tr in rows {
            let r0 = (tr * TILE) as usize;
            let r1 = (((tr + 1) * TILE).min(self.nrows - 1)) as usize;
            let line = |i: usize| &self.heights[i * n + first..=i * n + last];
            lo.copy_from_slice(line(r0));
            hi.copy_from_slice(line(r0));
            for i in r0 + 1..=r1 {
                for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(line(i)) {
                    *l = if x < *l { x } else { *l };
                    *h = if x > *h { x } else { *h };
                }
            }
            for tc in cols.clone() {
                let a = (tc * TILE) as usize - first;
                let b = (((tc + 1) * TILE) as usize).min(n - 1) - first;
                let m = lo[a..=b]
                    .iter()
                    .zip(&hi[a..=b])
                    .fold([f32::INFINITY, f32::NEG_INFINITY], |[m0, m1], (&l, &h)| {
                        [m0.min(l), m1.max(h)]
                    });
                self.tiles[(tr * self.tile_cols + tc) as usize] = m;
            }
        }
        self.range = self
            .tiles
            .iter()
            .fold([f32::INFINITY, f32::NEG_INFINITY], |m, t| {
                [m[0].min(t[0]), m[1].max(t[1])]
            });
    }
}

fn check_layout(len: usize, nrows: usize, ncols: usize) -> Result<(), HeightFieldError> {
    let side = 2..=MAX_SIDE as usize;
    if !side.contains(&nrows) || !side.contains(&ncols) {
        return Err(HeightFieldError(
            "a height field needs 2 to MAX_SIDE (32768) samples along each side",
        ));
    }
    if len != nrows * ncols {
        return Err(HeightFieldError("heights.len() is not nrows × ncols"));
    }
    Ok(())
}

fn check_scale(scale: Vec3) -> Result<(), HeightFieldError> {
    if !scale.is_finite() || scale.min_element() <= 0.0 {
        return Err(HeightFieldError(
            "height field scale must be finite and positive",
        ));
    }
    Ok(())
}
