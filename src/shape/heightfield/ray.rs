//! Ray casts on a height field: the cells the ray crosses, in the order it
//! crosses them, by a 2D grid walk over `x` and `z` (Amanatides & Woo, *A
//! Fast Voxel Traversal Algorithm for Ray Tracing*, Eurographics 1987):
//! each step goes to the neighbour across the nearer of the next column
//! and row boundaries. No tree is built or walked.
//!
//! Each step's piece of the ray, `[enter, exit]`, is tested against the
//! triangles under its box (grown by a relative pad, so a ray along a
//! cell edge or through a corner also tests the neighbours it grazes;
//! the box's `y` range skips cells the piece passes above or below),
//! Möller–Trumbore on each (the same test as meshes). The walk stops at
//! the first step whose piece holds a hit: a later cell's triangles lie
//! beyond its exit.

use std::ops::ControlFlow;

use glam::Vec3;

use super::HeightField;
use crate::geometry::ray::{Ray, RayHit, ray_triangle};
use crate::math::Aabb;
use crate::shape::implicit::box_span;

/// Relative pad of each step's box (as the mesh trees' slab test pads
/// theirs): relative to the cell size and the coordinates.
const PAD: f32 = 1e-5;

/// One axis of the walk: the current cell, its direction of travel, and
/// the ray parameter at which it leaves the cell.
struct Axis {
    k: usize,
    cell: u32,
    cells: u32,
    step: i8,
    next: f32,
}

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
        let start = ray.at(t0);
        let mut x = self.axis(0, ray, start.x);
        let mut z = self.axis(2, ray, start.z);
        let mut best: Option<(f32, u32)> = None;
        let mut enter = t0;
        loop {
            let exit = x.next.min(z.next).min(t1).max(enter);
            let (p, q) = (ray.at(enter), ray.at(exit));
            let region = Aabb::new(p.min(q), p.max(q)).padded(pad);
            let _ = self.for_each_triangle_in(&region, |id, tri| {
                if let Some(t) = ray_triangle(ray, tri, max_toi)
                    && best.is_none_or(|(bt, bi)| t < bt || (t == bt && id < bi))
                {
                    best = Some((t, id));
                }
                ControlFlow::Continue(())
            });
            if best.is_some_and(|(t, _)| t <= exit) || exit >= t1 {
                break;
            }
            let axis = if x.next <= z.next { &mut x } else { &mut z };
            if !axis.advance(self, ray) {
                break;
            }
            enter = exit;
        }
        best.map(|(toi, id)| self.hit(ray, toi, id))
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

    /// The walk's state along axis `k` (0: columns over `x`, 2: rows over
    /// `z`) from the coordinate `at` of the ray's entry.
    fn axis(&self, k: usize, ray: &Ray, at: f32) -> Axis {
        let (cells, found) = if k == 0 {
            (self.ncols - 1, self.col_span(at, at))
        } else {
            (self.nrows - 1, self.row_span(at, at))
        };
        let d = ray.dir[k];
        let cell = found.map_or(if at < 0.0 { 0 } else { cells - 1 }, |(first, last)| {
            if d < 0.0 { last } else { first }
        });
        let step = if d > 0.0 {
            1
        } else if d < 0.0 {
            -1
        } else {
            0
        };
        let mut a = Axis {
            k,
            cell,
            cells,
            step,
            next: f32::INFINITY,
        };
        a.next = a.exit(self, ray);
        a
    }
}

impl Axis {
    /// The parameter at which the ray leaves the current cell along this
    /// axis (infinite when it does not, or leaves the grid there).
    fn exit(&self, field: &HeightField, ray: &Ray) -> f32 {
        let k = self.k;
        let boundary = match self.step {
            1 if self.cell + 1 < self.cells => self.cell + 1,
            -1 if self.cell > 0 => self.cell,
            _ => return f32::INFINITY,
        };
        let at = if k == 0 {
            field.col_x(boundary)
        } else {
            field.row_z(boundary)
        };
        (at - ray.origin[k]) / ray.dir[k]
    }

    /// Steps to the next cell along this axis; `false` when the ray leaves
    /// the grid.
    fn advance(&mut self, field: &HeightField, ray: &Ray) -> bool {
        if self.next == f32::INFINITY {
            return false;
        }
        self.cell = self.cell.wrapping_add_signed(self.step as i32);
        self.next = self.exit(field, ray);
        true
    }
}
