//! The builder of a [`HalfSpace`] (validated by [`limits`]).

use std::sync::Arc;

use glam::Vec3;

use super::kind::{KindData, LocalRay};
use super::{BoundsGeometry, ShapeData, ShapeError, ShapeKind, SharedShape, limits};
use crate::geometry::ray::Ray;
use crate::shape::HalfSpace;

impl SharedShape {
    /// Everything below the plane through the origin with outward
    /// `normal` (normalized here): `{x : normal · x <= 0}` in the body's
    /// frame, a ground (parry's `HalfSpace`, avian3d's `Collider::half_space`).
    /// Its box is its part within the world's limits (see
    /// [`HalfSpace::world_box`]).
    ///
    /// Errors: a normal not finite, or zero.
    pub fn half_space(normal: Vec3) -> Result<Self, ShapeError> {
        let normal = limits::check_normal(normal)?;
        let h = HalfSpace { normal };
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::HalfSpace(h),
            BoundsGeometry::HalfSpace(h),
        ))))
    }
}

impl KindData for HalfSpace {
    fn name(&self) -> &'static str {
        "half-space"
    }
    fn local_ray(&self, ray: &Ray, max_toi: f32) -> LocalRay {
        LocalRay::Answered(self.ray_cast(ray, max_toi))
    }
    /// A half-space through the origin is its own scaled copy.
    fn scaled(&self, _factor: f32) -> Result<SharedShape, ShapeError> {
        SharedShape::half_space(self.normal)
    }
}
