//! Height fields as colliders: the builder, in-place height edits, and
//! the bounds of a field (its box: eight corners whose hull the dynamic
//! box hill-climbs, or the corners themselves when the field is flat).

use std::sync::Arc;

use glam::Vec3;

use super::kind::{KindData, LocalRay, RayFeature};
use super::{ShapeData, ShapeError, ShapeKind, SharedShape, bounds_of, limits, points_bounds};
use crate::geometry::ray::Ray;
use crate::shape::{HeightField, HeightFieldError};

impl From<HeightFieldError> for ShapeError {
    fn from(e: HeightFieldError) -> Self {
        ShapeError::InvalidParameter(e.0)
    }
}

impl ShapeData {
    /// The height field, for height fields.
    pub fn heightfield(&self) -> Option<&HeightField> {
        match &self.kind {
            ShapeKind::HeightField(h) => Some(h),
            _ => None,
        }
    }
}

impl SharedShape {
    /// A height field of `nrows × ncols` samples (row-major, rows along
    /// local `z`, columns along `x`), spanning `scale.x × scale.z`
    /// centred on the origin, heights multiplied by `scale.y` (parry's
    /// `HeightField` layout; see [`HeightField`]). No holes: build the
    /// [`HeightField`] and call [`HeightField::set_hole`], then
    /// [`heightfield_from`](Self::heightfield_from).
    ///
    /// Errors: fewer than 2 or more than
    /// [`MAX_SIDE`](crate::shape::heightfield::MAX_SIDE) samples along a
    /// side, a length that is not `nrows · ncols`, a NaN or infinite
    /// height, a scale not finite and positive, a vertex beyond
    /// [`limits::MAX_COORDINATE`].
    pub fn heightfield(
        heights: Vec<f32>,
        nrows: usize,
        ncols: usize,
        scale: Vec3,
    ) -> Result<Self, ShapeError> {
        Self::heightfield_from(HeightField::new(heights, nrows, ncols, scale)?)
    }

    /// A collider of a built [`HeightField`] (with its holes). Errors: a
    /// vertex beyond [`limits::MAX_COORDINATE`].
    pub fn heightfield_from(field: HeightField) -> Result<Self, ShapeError> {
        limits::check_heightfield(&field.local_aabb())?;
        let bounds = bounds_of(field.local_aabb().corners().to_vec())?;
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::HeightField(field),
            bounds,
        ))))
    }

    /// Edits a height field in place ([`HeightField::set_heights`]: the
    /// samples of a sub-rectangle, no rebuild) and updates its bounds.
    ///
    /// Errors (nothing changed): the shape is not a height field, or is
    /// shared with another handle (clone the [`HeightField`] and build a
    /// new shape instead), or the edit is refused by
    /// [`HeightField::set_heights`] or would put a vertex beyond
    /// [`limits::MAX_COORDINATE`].
    pub fn set_heights(
        &mut self,
        at: (usize, usize),
        size: (usize, usize),
        values: &[f32],
    ) -> Result<(), ShapeError> {
        let data = Arc::get_mut(&mut self.0).ok_or(ShapeError::InvalidParameter(
            "set_heights: the shape is shared with another handle",
        ))?;
        let ShapeKind::HeightField(field) = &mut data.kind else {
            return Err(ShapeError::InvalidParameter(
                "set_heights: the shape is not a height field",
            ));
        };
        let old: Vec<f32> = (0..size.0)
            .flat_map(|r| {
                let start = (at.0 + r) * field.ncols() + at.1;
                field
                    .heights()
                    .get(start..start + size.1)
                    .unwrap_or(&[])
                    .to_vec()
            })
            .collect();
        field.set_heights(at, size, values)?;
        let b = field.local_aabb();
        if let Err(e) = limits::check_heightfield(&b) {
            field.set_heights(at, size, &old)?;
            return Err(e);
        }
        data.bounds = bounds_of(b.corners().to_vec())?;
        (data.cube, data.local_aabb) = match &data.bounds {
            super::BoundsGeometry::Hull(h) => points_bounds(h.vertices()),
            _ => points_bounds(&b.corners()),
        };
        data.reach = data.local_aabb.reach();
        Ok(())
    }
}

impl HeightField {
    /// A copy scaled by `factor` about the origin (every extent).
    pub(super) fn scaled(&self, factor: f32) -> Result<HeightField, ShapeError> {
        let mut copy = self.clone();
        copy.set_scale(self.scale() * factor)?;
        Ok(copy)
    }
}
impl KindData for HeightField {
    fn name(&self) -> &'static str {
        "height field"
    }
    fn local_ray(&self, ray: &Ray, max_toi: f32) -> LocalRay {
        LocalRay::Answered(self.ray_cast(ray, max_toi))
    }
    fn ray_feature(&self, _feature: u32) -> RayFeature {
        RayFeature::Triangle
    }
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        SharedShape::heightfield_from(HeightField::scaled(self, factor)?)
    }
}
