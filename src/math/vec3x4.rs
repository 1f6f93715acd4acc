//! Four `Vec3`s as three `Vec4`s (structure of arrays, one vector per
//! lane), for the batched fits of the OBB build: the leaf boxes
//! (`bvh::obb_leaves`) and the covariance axes ([`eigen`](super::eigen)).
//! Each operation is the `Vec3` one in every lane, with the same
//! products and sums in the same order.

use glam::{BVec4A, Vec3, Vec4};

/// Three coordinates, each for four lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct V3x4 {
    pub x: Vec4,
    pub y: Vec4,
    pub z: Vec4,
}

impl V3x4 {
    pub fn new(v: [Vec3; 4]) -> Self {
        Self {
            x: Vec4::new(v[0].x, v[1].x, v[2].x, v[3].x),
            y: Vec4::new(v[0].y, v[1].y, v[2].y, v[3].y),
            z: Vec4::new(v[0].z, v[1].z, v[2].z, v[3].z),
        }
    }

    pub fn lane(&self, i: usize) -> Vec3 {
        Vec3::new(self.x[i], self.y[i], self.z[i])
    }

    pub fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }

    pub fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }

    pub fn scale(self, s: Vec4) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }

    pub fn dot(self, o: Self) -> Vec4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    pub fn cross(self, o: Self) -> Self {
        Self {
            x: self.y * o.z - o.y * self.z,
            y: self.z * o.x - o.z * self.x,
            z: self.x * o.y - o.x * self.y,
        }
    }

    /// Per lane: `a` where `mask` holds, else `b`.
    pub fn select(mask: BVec4A, a: Self, b: Self) -> Self {
        Self {
            x: Vec4::select(mask, a.x, b.x),
            y: Vec4::select(mask, a.y, b.y),
            z: Vec4::select(mask, a.z, b.z),
        }
    }

    pub fn is_finite(&self) -> BVec4A {
        self.x.is_finite_mask() & self.y.is_finite_mask() & self.z.is_finite_mask()
    }
}
