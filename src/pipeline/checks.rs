//! The world's checks of the numbers it is given, one per kind of number,
//! on the limits of [`crate::collider::limits`]: the world's settings (here
//! and in the plugin, through [`WorldConfig::validate`]), and every mutator
//! (`set_pose`, `set_scale`, `set_vertices`, `set_shape`,
//! `set_speed_bound`). A refused call changes nothing.

use glam::Vec3;

use super::body::Body;
use super::ttc::SpeedBound;
use super::{WorldConfig, WorldError};
use crate::collider::limits::{
    MAX_BROAD_PHASE_MARGIN, MAX_POSITION, box_within, length_within, position_within,
    position_within_f64,
};
use crate::collider::{ShapeKind, SharedShape};
use crate::math::{Pose, PoseError, WorldPose};

/// Smallest magnitude of a mesh's scale component (a collapsed mesh below).
pub(super) const MIN_SCALE: f32 = 1e-6;

impl WorldConfig {
    /// Checks the settings: the margin a length within
    /// [`MAX_POSITION`], the broad-phase margin finite, `>= 0` and within
    /// [`MAX_BROAD_PHASE_MARGIN`], a given cell size finite, positive and
    /// within [`MAX_POSITION`]. [`CollisionWorld::new`](super::CollisionWorld::new),
    /// [`with_broad_phase`](super::CollisionWorld::with_broad_phase) and the
    /// plugin's builders call it.
    pub fn validate(&self) -> Result<(), WorldError> {
        if !length_within(self.margin, MAX_POSITION) {
            return Err(WorldError::InvalidMargin(self.margin));
        }
        if !length_within(self.broad_phase_margin, MAX_BROAD_PHASE_MARGIN) {
            return Err(WorldError::InvalidBroadPhaseMargin(self.broad_phase_margin));
        }
        if let Some(c) = self.cell_size
            && !(length_within(c, MAX_POSITION) && c > 0.0)
        {
            return Err(WorldError::InvalidCellSize(c));
        }
        Ok(())
    }
}

/// A pose the world takes: finite, a unit rotation, a translation within
/// [`MAX_POSITION`].
pub(super) fn pose(p: &Pose) -> Result<(), WorldError> {
    p.validate().map_err(WorldError::InvalidPose)?;
    if !position_within(p.translation) {
        return Err(WorldError::InvalidPose(PoseError::TooFar));
    }
    Ok(())
}

/// An `f64` pose the world takes: finite, a unit rotation, a translation
/// within [`MAX_POSITION`]; returned with its rotation
/// [validated](Pose::validated) (normalized where off unit length within
/// the tolerance).
pub(super) fn world_pose(p: &WorldPose) -> Result<WorldPose, WorldError> {
    let rotation = Pose::new(p.rotation, Vec3::ZERO)
        .validated()
        .map_err(WorldError::InvalidPose)?
        .rotation;
    if !p.translation.is_finite() {
        return Err(WorldError::InvalidPose(PoseError::NonFinite));
    }
    if !position_within_f64(p.translation) {
        return Err(WorldError::InvalidPose(PoseError::TooFar));
    }
    Ok(WorldPose { rotation, ..*p })
}

/// A speed bound: its distance a length within [`MAX_POSITION`], its angle
/// finite and `>= 0` (any angle: above 2 radians it allows any turn).
pub(super) fn speed_bound(b: &SpeedBound) -> Result<(), WorldError> {
    let angular = b.angular.is_finite() && b.angular >= 0.0;
    if length_within(b.linear, MAX_POSITION) && angular {
        Ok(())
    } else {
        Err(WorldError::InvalidSpeedBound(*b))
    }
}

/// A scale's own check: finite, every component at least [`MIN_SCALE`] in
/// magnitude.
pub(super) fn scale(s: Vec3) -> Result<(), WorldError> {
    if !s.is_finite() {
        return Err(WorldError::InvalidPose(PoseError::NonFinite));
    }
    if s.abs().min_element() < MIN_SCALE {
        return Err(WorldError::InvalidPose(PoseError::NonPositiveScale));
    }
    Ok(())
}

/// `shape` on `body` at `scale`: only a mesh scales, and its scaled
/// coordinates (its current ones, if it deforms) stay within
/// [`MAX_COORDINATE`](crate::collider::limits::MAX_COORDINATE).
pub(super) fn scaled_shape(
    body: &Body,
    shape: &SharedShape,
    scale: Vec3,
    deformed: bool,
) -> Result<(), WorldError> {
    if scale == Vec3::ONE {
        return Ok(());
    }
    if !matches!(shape.kind(), ShapeKind::TriMesh(_)) {
        return Err(WorldError::NotScalable(shape.kind_name()));
    }
    let own = match (&body.deform, deformed) {
        (Some(d), true) => d.local_box(),
        _ => shape.local_aabb(),
    };
    if !box_within(&own, scale) {
        return Err(WorldError::ScaledBeyondLimit(scale));
    }
    Ok(())
}
