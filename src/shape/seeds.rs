//! Start vertices for hill-climbing without a hint.
//!
//! Hill-climbing (van den Bergen 2003, §4.3.4) is O(1) neighbour scans when
//! it starts at the previous answer, but a cold query starting from an
//! arbitrary vertex walks across the hull: about `√n` steps of a vertex's
//! degree each, ~180 dot products on a 1000-vertex hull. GJK with a fresh
//! cache starts from no hint ([`NO_HINT`](crate::geometry::support::NO_HINT)).
//!
//! A [`SupportSeeds`] table holds the extreme vertices of the 26 directions
//! `{-1, 0, 1}³ \ 0` (deduplicated). Any direction is within about 27.6°
//! of one of them (the largest angle found over 400 000 random unit
//! directions), so the best seed for `dir` (≤ 26 dot products over a
//! contiguous array) is a vertex whose support direction is close to
//! `dir`, and the climb from it is a few steps. The table is a start, not
//! an answer: the climb makes the result exact. Hulls of fewer than
//! `SEEDED_MIN` vertices get an empty table: a cold query scans them.

use glam::Vec3;

/// Hulls with fewer vertices get no table: a cold query scans them whole
/// (`polytope::SCAN_BELOW`, measured there).
const SEEDED_MIN: usize = 2048;

/// The extreme vertices of the 26 cube directions (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct SupportSeeds {
    index: Vec<u32>,
    point: Vec<Vec3>,
}

impl SupportSeeds {
    /// The table for `vertices`: empty below `SEEDED_MIN` vertices.
    pub(crate) fn new(vertices: &[Vec3]) -> Self {
        let mut seeds = Self::default();
        if vertices.len() < SEEDED_MIN {
            return seeds;
        }
        for d in (0..27).map(cube_direction).filter(|d| *d != Vec3::ZERO) {
            let Some(best) = argmax(vertices, d) else {
                return seeds;
            };
            if !seeds.index.contains(&best) {
                seeds.index.push(best);
                seeds.point.push(vertices[best as usize]);
            }
        }
        seeds
    }

    /// The seed maximizing `dir · v`; vertex 0 for an empty table.
    #[inline]
    pub(crate) fn start(&self, dir: Vec3) -> u32 {
        argmax(&self.point, dir).map_or(0, |i| self.index[i as usize])
    }
}

/// Direction `code` of `{-1, 0, 1}³` (`code` in `0..27`; 13 is zero).
fn cube_direction(code: u32) -> Vec3 {
    let digit = |k: u32| ((code / k) % 3) as f32 - 1.0;
    Vec3::new(digit(1), digit(3), digit(9))
}

/// Index of the first point maximizing `dir · p`.
fn argmax(points: &[Vec3], dir: Vec3) -> Option<u32> {
    let mut best = None;
    let mut best_val = f32::NEG_INFINITY;
    for (i, p) in points.iter().enumerate() {
        let val = dir.dot(*p);
        if val > best_val || best.is_none() {
            best_val = val;
            best = Some(i as u32);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_the_extremes_of_the_cube_directions() {
        let pts: Vec<Vec3> = (0..SEEDED_MIN + 100)
            .map(|i| {
                let t = i as f32 * 0.7;
                Vec3::new(t.sin(), (1.3 * t).cos(), (0.37 * t).sin()) * (1.0 + 0.1 * (i % 7) as f32)
            })
            .collect();
        let seeds = SupportSeeds::new(&pts);
        assert!(!seeds.index.is_empty() && seeds.index.len() <= 26);
        for d in [0, 4, 12, 14, 22, 26].map(cube_direction) {
            let best = pts
                .iter()
                .map(|p| p.dot(d))
                .fold(f32::NEG_INFINITY, f32::max);
            let got = pts[seeds.start(d) as usize].dot(d);
            assert_eq!(got, best, "direction {d}");
        }
        assert_eq!(SupportSeeds::new(&[]).start(Vec3::X), 0);
        let small = SupportSeeds::new(&pts[..SEEDED_MIN - 1]);
        assert!(small.index.is_empty() && small.start(Vec3::X) == 0);
    }
}
