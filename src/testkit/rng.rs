//! The seeded generator behind every test's sampling.

use glam::{Quat, Vec3};

/// A small, fast, seeded PRNG (splitmix64). Not for cryptography.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.f32()
    }

    /// Uniform integer in `[0, n)` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A point uniform in the box `[lo, hi)^3`.
    pub fn vec(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    /// A point uniform in the cube `[-h, h]^3`.
    pub fn in_cube(&mut self, h: f32) -> Vec3 {
        self.vec(-h, h)
    }

    /// A uniform random unit vector.
    pub fn unit_vector(&mut self) -> Vec3 {
        loop {
            let v = self.in_cube(1.0);
            let l = v.length_squared();
            if l > 1e-4 && l <= 1.0 {
                return v / l.sqrt();
            }
        }
    }

    /// A uniform random rotation (Shoemake's method).
    pub fn rotation(&mut self) -> Quat {
        let (u1, u2, u3) = (self.f32(), self.f32(), self.f32());
        let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
        let (t2, t3) = (std::f32::consts::TAU * u2, std::f32::consts::TAU * u3);
        Quat::from_xyzw(a * t2.sin(), a * t2.cos(), b * t3.sin(), b * t3.cos()).normalize()
    }

    /// Uniform integer in `[lo, hi)`.
    pub fn usize(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo)
    }

    /// A fair coin.
    pub fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
}
