//! The exact touching pairs of a frame, independent of the crate's narrow
//! phase: every pair of bodies whose bounding spheres meet (a grid of the
//! centers, cells as wide as two radii) is decided in `f64` on the hulls'
//! vertices and triangles at the scene's poses (`testkit::Poly`):
//!
//! - apart if one of the hulls' face normals or the line of centers
//!   separates the two vertex sets by more than the band;
//! - touching if a vertex of one lies inside the other (all its face
//!   planes) by more than the band;
//! - otherwise by the full separating-axis test (`testkit::sat`: every face
//!   normal and every edge–edge cross product), touching when the overlap
//!   exceeds the band, apart when it is below minus the band, and
//!   *grazing* (undecided) in between.
//!
//! The band, 10⁻⁵ × (half the box's side + 1), covers the difference
//! between the scene's `f32` pose and the one the plugin decomposes from
//! `GlobalTransform`, and `f32` rounding at the scene's coordinates (the
//! crate's own f64 cross-checks use the same band). Pairs in it count
//! neither as errors nor as misses; the report gives their number.

use std::collections::{HashMap, HashSet};

use bevy_icollide::math::Pose;
use bevy_icollide::testkit::{self, MultiBodyScene, Poly};
use glam::{DVec3, IVec3, Vec3};

use crate::engines::pair_key;

/// One frame's decided pairs.
#[derive(Default)]
pub struct Truth {
    /// Pairs that touch (by more than the band).
    pub touching: HashSet<u64>,
    /// Pairs within the band of touching: not decided; with whether the
    /// f64 overlap is positive (for information only).
    pub grazing: HashMap<u64, bool>,
}

/// One engine's pairs against a checked frame.
#[derive(Default, Debug, Clone)]
pub struct Check {
    /// Reported pairs that are apart (by more than the band).
    pub not_touching: usize,
    /// Touching pairs not reported.
    pub missed: usize,
    /// Largest distance between the shapes of a reported pair that is
    /// apart (f64 brute force).
    pub max_gap: f64,
    /// Pairs within the band whose report differs from the f64 overlap's
    /// sign (not an error: `f32` input cannot decide them).
    pub band_differs: usize,
    /// A few pairs in error (scene indices).
    pub examples: Vec<(u32, u32)>,
}

/// The scene's poses and hulls, and the exact pairs of a frame.
pub struct Reference {
    /// Each body's distinct-shape index.
    shape_of: Vec<usize>,
    /// The distinct hulls' vertices and triangles (local).
    hulls: Vec<(Vec<Vec3>, Vec<[u32; 3]>)>,
    /// Each body's current pose.
    pub poses: Vec<Pose>,
    /// Center distance above which two bodies cannot touch.
    reach: f32,
    band: f64,
}

impl Reference {
    pub fn new(scene: &MultiBodyScene) -> Self {
        let hulls: Vec<_> = scene
            .shapes
            .iter()
            .map(|s| {
                let h = s.hull().expect("the scene's shapes are hulls");
                (h.vertices().to_vec(), h.triangles().to_vec())
            })
            .collect();
        let radius = hulls
            .iter()
            .flat_map(|(v, _)| v.iter())
            .fold(0.0f32, |m, v| m.max(v.length()));
        let band = 1e-5 * (f64::from(scene.half_size) + 1.0);
        Self {
            shape_of: scene.bodies.iter().map(|b| b.shape).collect(),
            hulls,
            poses: scene.bodies.iter().map(|b| b.pose).collect(),
            reach: 2.0 * radius + 4.0 * band as f32,
            band,
        }
    }

    fn poly(&self, i: usize) -> Poly {
        let (v, t) = &self.hulls[self.shape_of[i]];
        Poly::new(v, t, &self.poses[i])
    }

    /// The decided pairs at the current poses.
    pub fn truth(&self) -> Truth {
        let cell = |p: Vec3| (p / self.reach).floor().as_ivec3();
        let mut grid: HashMap<IVec3, Vec<u32>> = HashMap::new();
        for (i, p) in self.poses.iter().enumerate() {
            grid.entry(cell(p.translation)).or_default().push(i as u32);
        }
        let mut truth = Truth::default();
        for (i, p) in self.poses.iter().enumerate() {
            let c = cell(p.translation);
            for k in 0..27 {
                let near = c + IVec3::new(k % 3, k / 3 % 3, k / 9) - IVec3::ONE;
                for &j in grid.get(&near).map_or(&[][..], Vec::as_slice) {
                    let q = &self.poses[j as usize];
                    if j as usize <= i || p.translation.distance(q.translation) > self.reach {
                        continue;
                    }
                    let key = pair_key(i as u32, j);
                    match self.decide(i, j as usize) {
                        Ok(true) => {
                            truth.touching.insert(key);
                        }
                        Ok(false) => {}
                        Err(overlap) => {
                            truth.grazing.insert(key, overlap > 0.0);
                        }
                    }
                }
            }
        }
        truth
    }

    /// Whether bodies `i` and `j` touch; within the band, the f64 overlap
    /// (positive: touching).
    fn decide(&self, i: usize, j: usize) -> Result<bool, f64> {
        let (a, b) = (self.poly(i), self.poly(j));
        if self.quick_apart(&a, &b) {
            return Ok(false);
        }
        if self.vertex_inside(&a, &b) || self.vertex_inside(&b, &a) {
            return Ok(true);
        }
        let (overlap, _) = testkit::sat(&a, &b);
        if overlap.abs() > self.band {
            Ok(overlap > 0.0)
        } else {
            Err(overlap)
        }
    }

    /// A face normal of either hull, or the line of centers, along which
    /// the vertex sets are more than the band apart.
    fn quick_apart(&self, a: &Poly, b: &Poly) -> bool {
        let center = |p: &Poly| p.v.iter().sum::<DVec3>() / p.v.len() as f64;
        let line = (center(b) - center(a)).normalize_or_zero();
        let gap = |u: DVec3| {
            let (alo, ahi) = extent(a, u);
            let (blo, bhi) = extent(b, u);
            (blo - ahi).max(alo - bhi)
        };
        std::iter::once(line)
            .chain(a.normals.iter().copied())
            .chain(b.normals.iter().copied())
            .any(|u| u != DVec3::ZERO && gap(u) > self.band)
    }

    /// A vertex of `a` inside every face plane of `b` by more than the band.
    fn vertex_inside(&self, a: &Poly, b: &Poly) -> bool {
        a.v.iter().any(|&p| b.plane_dist(p) < -self.band)
    }

    /// Distance between the hulls of a pair that is apart (f64, every
    /// vertex–triangle and edge–edge pair).
    fn gap(&self, key: u64) -> f64 {
        let (i, j) = ((key >> 32) as usize, (key & 0xffff_ffff) as usize);
        testkit::distance(&self.poly(i), &self.poly(j))
    }

    /// An engine's pairs against a frame's decided ones.
    pub fn check(&self, truth: &Truth, reported: &HashSet<u64>) -> Check {
        let split = |k: u64| ((k >> 32) as u32, k as u32);
        let mut c = Check {
            band_differs: truth
                .grazing
                .iter()
                .filter(|&(k, &touch)| reported.contains(k) != touch)
                .count(),
            ..Default::default()
        };
        for &k in reported {
            if truth.touching.contains(&k) || truth.grazing.contains_key(&k) {
                continue;
            }
            c.not_touching += 1;
            c.max_gap = c.max_gap.max(self.gap(k));
            if c.examples.len() < 3 {
                c.examples.push(split(k));
            }
        }
        for &k in truth.touching.difference(reported) {
            c.missed += 1;
            if c.examples.len() < 6 {
                c.examples.push(split(k));
            }
        }
        c
    }
}

/// The extent of a vertex set along `u`.
fn extent(p: &Poly, u: DVec3) -> (f64, f64) {
    p.v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            let d = v.dot(u);
            (lo.min(d), hi.max(d))
        })
}
