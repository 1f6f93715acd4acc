//! Rounded primitives: a sphere or a capsule is every point within `radius`
//! of a core — a point, or a segment along the local Y axis (the convention
//! of avian3d and parry3d). GJK and EPA take them as `core ⊕ ball(radius)`
//! ([`SupportMap::margin`](crate::geometry::support::SupportMap::margin)),
//! so the round part is exact, not tessellated.

use crate::geometry::support::SupportMap;
use glam::Vec3;

use crate::math::Aabb;

/// A sphere (`half_height == 0`) or a capsule along local Y.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rounded {
    /// Half the length of the core segment (0 for a sphere).
    pub half_height: f32,
    /// Radius around the core.
    pub radius: f32,
}

impl Rounded {
    /// The core segment's end points (equal for a sphere).
    #[inline]
    pub fn core(&self) -> [Vec3; 2] {
        [
            Vec3::new(0.0, -self.half_height, 0.0),
            Vec3::new(0.0, self.half_height, 0.0),
        ]
    }

    /// Whether this is a sphere.
    pub fn is_sphere(&self) -> bool {
        self.half_height == 0.0
    }

    /// The box in the local frame.
    pub fn local_aabb(&self) -> Aabb {
        let h = Vec3::new(self.radius, self.half_height + self.radius, self.radius);
        Aabb::from_center_half_extents(Vec3::ZERO, h)
    }
}

impl SupportMap for Rounded {
    #[inline]
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        self.core_support(dir, hint) + self.radius * dir.try_normalize().unwrap_or(Vec3::Y)
    }
    #[inline]
    fn margin(&self) -> f32 {
        self.radius
    }
    #[inline]
    fn core_support(&self, dir: Vec3, _hint: &mut u32) -> Vec3 {
        Vec3::new(0.0, self.half_height.copysign(dir.y), 0.0)
    }
}
