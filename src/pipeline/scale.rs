//! Scaled triangle meshes: a mesh body's scale along its own axes, applied
//! in every query on it (SOLID's scaled models: the tree is built once at
//! the mesh's size, each box and triangle is scaled as a query visits it;
//! see [`MeshSide`](crate::bvh::MeshSide)). Other shapes are built at their
//! collision size ([`SharedShape::scaled`](crate::collider::SharedShape::scaled)).

use glam::Vec3;

use super::body::Body;
use super::{BodyHandle, CollisionWorld, WorldError, checks};
use crate::broad_phase::BroadPhase;
#[cfg(doc)]
use crate::math::PoseError;

/// Scales within this of 1 on every axis count as 1 (what Bevy's
/// transforms keep after many operations).
pub const UNIT_SCALE_TOLERANCE: f32 = 1e-3;

impl<B: BroadPhase> CollisionWorld<B> {
    /// Sets a body's scale along its shape's axes: vertex `p` of its mesh
    /// is at `pose.transform_point(p * scale)`. Negative components mirror
    /// the mesh. A scale within [`UNIT_SCALE_TOLERANCE`] of 1 is 1. The box
    /// follows at the next bounds update; pairs are retested.
    ///
    /// Errors (nothing changes then): a stale handle; a NaN or infinite
    /// component ([`PoseError::NonFinite`]); a component of magnitude below
    /// `1e-6` ([`PoseError::NonPositiveScale`], a collapsed mesh); a scale
    /// other than 1 on a body that is not a triangle mesh
    /// ([`WorldError::NotScalable`]); a scale that takes the mesh (its
    /// current vertices, if it deforms) beyond
    /// [`MAX_COORDINATE`](crate::collider::limits::MAX_COORDINATE)
    /// ([`WorldError::ScaledBeyondLimit`]).
    pub fn set_scale(&mut self, h: BodyHandle, scale: Vec3) -> Result<(), WorldError> {
        checks::scale(scale)?;
        if rescale(self.body_mut(h)?, scale)? {
            self.mark_dirty(h.index());
        }
        Ok(())
    }

    /// A body's scale (`Vec3::ONE` unless set on a mesh).
    pub fn scale(&self, h: BodyHandle) -> Result<Vec3, WorldError> {
        Ok(self.body(h)?.scale)
    }
}

/// Sets a body's scale (checked by `checks::scale`; within
/// [`UNIT_SCALE_TOLERANCE`] of 1 it is 1): whether it changed (the body's
/// box must then be recomputed). Errors as
/// [`CollisionWorld::set_scale`]'s, nothing changed then.
#[inline]
pub(super) fn rescale(body: &mut Body, scale: Vec3) -> Result<bool, WorldError> {
    let unit = (scale - Vec3::ONE).abs().max_element() <= UNIT_SCALE_TOLERANCE;
    let scale = if unit { Vec3::ONE } else { scale };
    checks::scaled_shape(body, &body.shape, scale, true)?;
    if body.scale == scale {
        return Ok(false);
    }
    body.scale = scale;
    body.geometry_changed();
    Ok(true)
}
