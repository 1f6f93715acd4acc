//! The pairs' motion, stepped for as long as a bench runs (no replayed
//! loop): every body turns about its own axis and drifts in its own
//! direction; a pair's centre distance is kept in its band by mirroring
//! both velocities' components along the pair's axis (speeds unchanged),
//! so the share of overlapping pairs stays steady; a pair whose midpoint
//! drifts more than [`WRAP`] from its grid cell's centre along an axis is
//! moved back by `2 WRAP` along it, both bodies together (their relative
//! pose unchanged up to the translations' rounding), so that coordinates
//! stay small and pairs on a grid never meet.

use bevy_icollide::math::Pose;
use bevy_icollide::testkit::Rng;
use glam::{Quat, Vec3};

use crate::PairParams;

/// How far (per axis) a pair's midpoint may drift from its cell's centre.
pub const WRAP: f32 = 1.0;

/// Every body's pose, velocity and spin. See the module docs.
#[derive(Clone, Debug)]
pub struct PairMotion {
    /// `[min, max]` centre distance of a pair.
    band: [f32; 2],
    /// Each pair's cell centre.
    cells: Vec<Vec3>,
    /// `poses[b]`: body `b` now (pair `i` is bodies `2i`, `2i + 1`).
    pub poses: Vec<Pose>,
    velocities: Vec<Vec3>,
    spins: Vec<Quat>,
    /// Frames stepped.
    pub frame: u64,
}

impl PairMotion {
    /// The pairs' first poses, drawn from `rng` as [`crate::SeparatedPairs`]
    /// always drew them (same seed, same scene).
    pub fn new(params: &PairParams, rng: &mut Rng) -> Self {
        let n = 2 * params.pairs;
        let side = (params.pairs as f64).cbrt().ceil().max(1.0) as usize;
        let angle = params.rotation_deg.to_radians();
        let [d_min, d_max] = params.center_distance;
        let mut m = Self {
            band: params.center_distance,
            cells: Vec::with_capacity(params.pairs),
            poses: Vec::with_capacity(n),
            velocities: Vec::with_capacity(n),
            spins: Vec::with_capacity(n),
            frame: 0,
        };
        for i in 0..params.pairs {
            let cell = Vec3::new(
                (i % side) as f32,
                (i / side % side) as f32,
                (i / (side * side)) as f32,
            );
            let center = cell * params.spacing;
            m.cells.push(center);
            let axis = rng.unit_vector();
            let half = 0.5 * rng.range(d_min, d_max);
            for t in [center - axis * half, center + axis * half] {
                m.poses.push(Pose::new(rng.rotation(), t));
                m.velocities.push(rng.unit_vector() * params.step);
                m.spins
                    .push(Quat::from_axis_angle(rng.unit_vector(), angle));
            }
        }
        m
    }

    /// One frame on.
    pub fn step(&mut self) {
        let [d_min, d_max] = self.band;
        for i in 0..self.cells.len() {
            let (a, b) = (2 * i, 2 * i + 1);
            let axis = self.poses[b].translation - self.poses[a].translation;
            let d = axis.length();
            let u = axis / d;
            let rate = (self.velocities[b] - self.velocities[a]).dot(u);
            if (d + rate < d_min && rate < 0.0) || (d + rate > d_max && rate > 0.0) {
                for k in [a, b] {
                    let v = self.velocities[k];
                    self.velocities[k] = v - 2.0 * v.dot(u) * u;
                }
            }
        }
        let moves = self.poses.iter_mut().zip(&self.velocities).zip(&self.spins);
        for ((p, v), s) in moves {
            *p = Pose::new((*s * p.rotation).normalize(), p.translation + *v);
        }
        for (i, &cell) in self.cells.iter().enumerate() {
            let (a, b) = (2 * i, 2 * i + 1);
            let mid = 0.5 * (self.poses[a].translation + self.poses[b].translation) - cell;
            let back = Vec3::select(
                mid.abs().cmpgt(Vec3::splat(WRAP)),
                -2.0 * WRAP * mid.signum(),
                Vec3::ZERO,
            );
            if back != Vec3::ZERO {
                self.poses[a].translation += back;
                self.poses[b].translation += back;
            }
        }
        self.frame += 1;
    }
}
