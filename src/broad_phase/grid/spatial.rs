//! Spatial queries on the grid's own data: no second structure.
//!
//! - **Box query** ([`GridSweepAndPrune::query_aabb`]): the cells the box
//!   covers (or, when it covers more cells than exist, the existing cells in
//!   its range); in each, a binary search in the cell's sorted x endpoint
//!   list, then the shorter side is scanned (min endpoints left of the box's
//!   max, or max endpoints right of its min) and the candidates' boxes are
//!   tested. A proxy living in several cells is reported only from the cell
//!   holding the min corner of its box ∩ the query box, so each proxy once.
//! - **Ray query** ([`GridSweepAndPrune::query_ray`]): the cells along the
//!   ray, in order (3D DDA, Amanatides & Woo 1987), clipped to the range of
//!   existing cells; in each, the x-list candidates over the rest of the ray
//!   get a slab test. A proxy is reported from the first cell of its range
//!   the walk enters (each coordinate of the walk is monotone, so the cells
//!   of a box range form one stretch of the walk). The walk stops at the
//!   first cell entered beyond the caller's limit (the nearest hit so far).
//!
//! Both also test, directly, the proxies not in the cells' lists: oversized
//! ones, and those inserted or moved since the last update (so a query sees
//! every proxy at its current box, between updates too).
//!
//! Cost: box query O(cells covered + log m + candidates per cell); ray query
//! O(cells crossed + candidates), plus O(oversized + moved since the last
//! update) for both. A ray crossing more cells than there are proxies tests
//! every proxy instead.

use glam::Vec3;

use super::super::sap::x_candidates as sap_x_candidates;
use super::super::{RAY_PAD, ray_box, ray_is_valid};
use super::{Cell, GridSweepAndPrune, ProxyKey, Region, State, cell_key};
use crate::math::Aabb;

/// A ray `origin + t · dir`, `t >= 0`.
#[derive(Clone, Copy)]
struct Line {
    origin: Vec3,
    dir: Vec3,
}

impl GridSweepAndPrune {
    /// Calls `visit` once for each proxy whose current box overlaps `aabb`
    /// (closed boxes: touching counts), in no particular order. A NaN or
    /// inverted box finds nothing.
    ///
    /// Uses the cells' own data: the cells the box covers (or the existing
    /// cells in its range, when fewer), a binary search in each cell's
    /// sorted x endpoint list, the oversized proxies and those moved since
    /// the last update tested directly. A proxy in several cells is
    /// reported from one of them only.
    pub fn query_aabb(&self, aabb: &Aabb, mut visit: impl FnMut(ProxyKey)) {
        if !aabb.min.cmple(aabb.max).all() {
            return;
        }
        self.for_each_loose(|id, b| {
            if b.overlaps(aabb) {
                visit(id);
            }
        });
        if self.cell > 0.0 {
            self.query_cells(aabb, &mut visit);
        }
    }

    /// Calls `visit(proxy, t)` once for each proxy whose current box the
    /// ray `origin + t · dir`, `0 <= t <= limit`, reaches (boxes padded by a
    /// relative 1e-5 against rounding); `t` is where it enters the box.
    /// `visit` returns the new limit: the nearest hit so far for a first-hit
    /// search (proxies beyond it are skipped and the walk stops), or the
    /// same limit to find every proxy. A NaN or infinite ray, or a negative
    /// or NaN `max_toi`, finds nothing.
    ///
    /// Walks the cells along the ray in order (3D DDA) and stops at the
    /// first cell entered beyond the limit; oversized proxies and those
    /// moved since the last update are tested first, directly.
    pub fn query_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_toi: f32,
        mut visit: impl FnMut(ProxyKey, f32) -> f32,
    ) {
        if !ray_is_valid(origin, dir, max_toi) {
            return;
        }
        let line = Line { origin, dir };
        let mut limit = max_toi;
        self.for_each_loose(|id, b| {
            if let Some((t, _)) = ray_box(line.origin, line.dir, b, limit) {
                limit = visit(id, t);
            }
        });
        if let (true, Some(range)) = (self.cell > 0.0, self.occupied) {
            self.walk_cells(line, limit, range, &mut visit);
        }
    }

    /// Live proxies that are not in the cells' lists as they stand:
    /// inserted or moved since the last update, and oversized ones.
    fn for_each_loose(&self, mut f: impl FnMut(ProxyKey, &Aabb)) {
        for &id in &self.queue {
            if self.meta[id as usize].state == State::Live {
                f(id, &self.boxes[id as usize]);
            }
        }
        for &id in &self.oversized {
            let m = &self.meta[id as usize];
            if m.state == State::Live && !m.queued {
                f(id, &self.boxes[id as usize]);
            }
        }
    }

    /// Whether a proxy is in the cells' lists with its current box.
    #[inline]
    fn listed(&self, id: ProxyKey) -> bool {
        let m = &self.meta[id as usize];
        m.state == State::Live && !m.queued && !m.oversized
    }

    fn query_cells(&self, aabb: &Aabb, visit: &mut impl FnMut(ProxyKey)) {
        let [lo, hi] = self.cell_range(aabb);
        let covered: f64 = (0..3)
            .map(|k| f64::from(hi[k]) - f64::from(lo[k]) + 1.0)
            .product();
        if covered <= self.regions.len() as f64 {
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        let cell = [x, y, z];
                        if let Some(&r) = self.region_of.get(&cell_key(cell)) {
                            self.query_region(r, aabb, |m| m == cell, visit);
                        }
                    }
                }
            }
            return;
        }
        // Fewer cells exist than the box covers: visit those in its range
        // (compared as keys: far cells share clamped keys).
        let (klo, khi) = (key_cell(lo), key_cell(hi));
        for (r, &cell) in self.region_cells.iter().enumerate() {
            if in_range(key_cell(cell), [klo, khi]) {
                let key = cell_key(cell);
                self.query_region(r as u32, aabb, |m| cell_key(m) == key, visit);
            }
        }
    }

    /// The proxies of one cell overlapping `aabb`, each reported only if
    /// `owns` accepts the cell of the min corner of its box ∩ `aabb`.
    fn query_region(
        &self,
        r: u32,
        aabb: &Aabb,
        owns: impl Fn(Cell) -> bool,
        visit: &mut impl FnMut(ProxyKey),
    ) {
        let region = &self.regions[r as usize];
        for id in x_candidates(region, aabb.min.x, aabb.max.x) {
            let b = &self.boxes[id as usize];
            if self.listed(id) && b.overlaps(aabb) && owns(self.cell_of(b.min.max(aabb.min))) {
                visit(id);
            }
        }
    }

    /// Walks the cells along the ray within the existing cells' range.
    fn walk_cells(
        &self,
        line: Line,
        mut limit: f32,
        range: [Cell; 2],
        visit: &mut impl FnMut(ProxyKey, f32) -> f32,
    ) {
        let Walk { mut cell, t0, t1 } = match self.walk_start(line, limit, range) {
            Start::Miss => return,
            Start::Everything => return self.ray_every_listed(line, limit, visit),
            Start::Walk(walk) => walk,
        };
        let step = line.dir.signum();
        let (mut prev, mut t_in) = (None, t0);
        let slack = RAY_PAD * self.cell / line.dir.length();
        while t_in <= limit + RAY_PAD * limit + slack {
            if let Some(&r) = self.region_of.get(&cell_key(cell)) {
                let at = CellVisit { cell, prev, t_in };
                limit = self.ray_region(r, line, at, limit.min(t1), visit);
            }
            let Some((k, t_out)) = self.cell_exit(line, cell) else {
                return;
            };
            prev = Some(cell);
            cell[k] += step[k] as i32;
            if t_out > t1 || !in_range(cell, range) {
                return;
            }
            t_in = t_out;
        }
    }

    /// Where the walk starts and ends: the ray clipped to the existing
    /// cells' range (padded).
    fn walk_start(&self, line: Line, limit: f32, [lo, hi]: [Cell; 2]) -> Start {
        let c = self.cell;
        let pad = Vec3::splat(c * 1e-3);
        let corner = |cell: Cell| Vec3::new(cell[0] as f32, cell[1] as f32, cell[2] as f32) * c;
        let span = Aabb::new(corner(lo) - pad, corner(hi) + Vec3::splat(c) + pad);
        let Some((t0, t1)) = ray_box(line.origin, line.dir, &span, limit) else {
            return Start::Miss;
        };
        let at = |t: f32| clamp_cell(self.cell_of(line.origin + line.dir * t), [lo, hi]);
        let (cell, end) = (at(t0), at(t1));
        let steps: i64 = (0..3)
            .map(|k| (i64::from(end[k]) - i64::from(cell[k])).abs())
            .sum();
        if steps as usize > self.proxies.len() + self.regions.len() {
            Start::Everything
        } else {
            Start::Walk(Walk { cell, t0, t1 })
        }
    }

    /// The axis and ray parameter at which the ray leaves `cell`.
    fn cell_exit(&self, line: Line, cell: Cell) -> Option<(usize, f32)> {
        let c = self.cell;
        (0..3)
            .filter(|&k| line.dir[k] != 0.0)
            .map(|k| {
                let side = cell[k] + i32::from(line.dir[k] > 0.0);
                (k, (side as f32 * c - line.origin[k]) / line.dir[k])
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Slab tests on the proxies of one cell entered for the first time;
    /// returns the new limit.
    fn ray_region(
        &self,
        r: u32,
        line: Line,
        at: CellVisit,
        mut limit: f32,
        visit: &mut impl FnMut(ProxyKey, f32) -> f32,
    ) -> f32 {
        let region = &self.regions[r as usize];
        let (a, b) = (
            line.origin.x + line.dir.x * at.t_in,
            line.origin.x + line.dir.x * limit,
        );
        let pad = RAY_PAD * (a.abs() + b.abs() + self.cell);
        for id in x_candidates(region, a.min(b) - pad, a.max(b) + pad) {
            let p = &self.proxies[id as usize];
            let Some(range) = p.range else { continue };
            let first = in_range(at.cell, range) && at.prev.is_none_or(|q| !in_range(q, range));
            if first
                && self.listed(id)
                && let Some((t, _)) =
                    ray_box(line.origin, line.dir, &self.boxes[id as usize], limit)
            {
                limit = visit(id, t);
            }
        }
        limit
    }

    /// Every proxy in the cells, without the walk (rays crossing more
    /// cells than there are proxies).
    fn ray_every_listed(
        &self,
        line: Line,
        mut limit: f32,
        visit: &mut impl FnMut(ProxyKey, f32) -> f32,
    ) {
        for (id, b) in self.boxes.iter().enumerate() {
            let id = id as ProxyKey;
            if self.listed(id)
                && let Some((t, _)) = ray_box(line.origin, line.dir, b, limit)
            {
                limit = visit(id, t);
            }
        }
    }
}

/// How a ray query goes through the cells.
enum Start {
    /// The ray misses the existing cells.
    Miss,
    /// It would cross more cells than there are proxies: test them all.
    Everything,
    /// Walk the cells.
    Walk(Walk),
}

/// A walk's first cell and its parameter range along the ray.
#[derive(Clone, Copy)]
struct Walk {
    cell: Cell,
    t0: f32,
    t1: f32,
}

/// Where the walk is: the cell, the one before it, the entry parameter.
#[derive(Clone, Copy)]
struct CellVisit {
    cell: Cell,
    prev: Option<Cell>,
    t_in: f32,
}

/// The keys of a cell's proxies whose x interval may meet `[lo, hi]`.
fn x_candidates(region: &Region, lo: f32, hi: f32) -> impl Iterator<Item = ProxyKey> + '_ {
    sap_x_candidates(&region.axes[0], lo, hi)
}

fn in_range(c: Cell, [lo, hi]: [Cell; 2]) -> bool {
    (0..3).all(|k| lo[k] <= c[k] && c[k] <= hi[k])
}

fn clamp_cell(c: Cell, [lo, hi]: [Cell; 2]) -> Cell {
    [0, 1, 2].map(|k| c[k].clamp(lo[k], hi[k]))
}

/// A cell's coordinates as its key sees them (see `cell_key`).
fn key_cell(c: Cell) -> Cell {
    c.map(|x| x.clamp(-(1 << 20), (1 << 20) - 1))
}
