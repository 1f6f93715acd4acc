//! A [`Pose`] from a Bevy transform, in one call:
//! `Pose::try_from(&transform)` or `Pose::try_from(&global_transform)`.

use bevy_transform::components::{GlobalTransform, Transform};
use glam::{Quat, Vec3};

use crate::math::{Pose, PoseError};

/// The rigid pose of a scale, rotation and translation; the scale must be 1
/// (within `1e-3`): shapes are built at their collision size
/// ([`SharedShape::scaled`](crate::collider::SharedShape::scaled)).
fn rigid(scale: Vec3, rotation: Quat, translation: Vec3) -> Result<Pose, PoseError> {
    if !scale.is_finite() || !rotation.is_finite() || !translation.is_finite() {
        return Err(PoseError::NonFinite);
    }
    if scale.min_element() <= 1e-6 {
        return Err(PoseError::NonPositiveScale);
    }
    if (scale - Vec3::ONE).abs().max_element() > 1e-3 {
        return Err(PoseError::UnsupportedScale);
    }
    let pose = Pose::new(rotation.normalize(), translation);
    pose.validate()?;
    Ok(pose)
}

/// The rigid pose and the scale of a global transform, for a collider
/// whose shape may scale (a triangle mesh: the world decides, see
/// [`CollisionWorld::set_scale`](crate::pipeline::CollisionWorld::set_scale)):
/// errors for NaN or infinite parts and for a scale component near 0.
pub(crate) fn pose_and_scale(global: &GlobalTransform) -> Result<(Pose, Vec3), PoseError> {
    let (scale, rotation, translation) = global.to_scale_rotation_translation();
    // A zero scale leaves no rotation to find (NaN): say why.
    if scale.is_finite() && scale.abs().min_element() <= 1e-6 {
        return Err(PoseError::NonPositiveScale);
    }
    if !scale.is_finite() || !rotation.is_finite() || !translation.is_finite() {
        return Err(PoseError::NonFinite);
    }
    let pose = Pose::new(rotation.normalize(), translation);
    pose.validate()?;
    Ok((pose, scale))
}

impl TryFrom<&GlobalTransform> for Pose {
    type Error = PoseError;

    /// The pose of a global transform; errors for NaN, infinite, zero,
    /// negative or non-unit scale.
    fn try_from(global: &GlobalTransform) -> Result<Pose, PoseError> {
        let (scale, rotation, translation) = global.to_scale_rotation_translation();
        rigid(scale, rotation, translation)
    }
}

impl TryFrom<&Transform> for Pose {
    type Error = PoseError;

    /// The pose of a transform; errors as for a `GlobalTransform`.
    fn try_from(t: &Transform) -> Result<Pose, PoseError> {
        rigid(t.scale, t.rotation, t.translation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_convert_or_are_refused() {
        let t = Transform::from_xyz(1.0, 2.0, 3.0).with_rotation(Quat::from_rotation_y(0.5));
        let p = Pose::try_from(&t).expect("rigid");
        assert_eq!(p.translation, Vec3::new(1.0, 2.0, 3.0));
        let g = Pose::try_from(&GlobalTransform::from(t)).expect("rigid");
        assert!(g.translation.distance(p.translation) < 1e-6);
        assert!(g.rotation.angle_between(p.rotation) < 1e-3);
        let scaled = t.with_scale(Vec3::splat(2.0));
        assert_eq!(Pose::try_from(&scaled), Err(PoseError::UnsupportedScale));
        let flat = t.with_scale(Vec3::new(1.0, 0.0, 1.0));
        assert_eq!(Pose::try_from(&flat), Err(PoseError::NonPositiveScale));
        let nan = Transform::from_xyz(f32::NAN, 0.0, 0.0);
        assert_eq!(Pose::try_from(&nan), Err(PoseError::NonFinite));
        // With the scale apart (for meshes), mirrored too: the same map
        // (a mirror may move to another axis, the rotation compensating).
        let g = GlobalTransform::from(t.with_scale(Vec3::new(2.0, -0.5, 3.0)));
        let (q, scale) = pose_and_scale(&g).expect("scaled");
        for x in [
            Vec3::X,
            Vec3::new(0.3, -2.0, 1.5),
            Vec3::new(-1.0, 4.0, 0.5),
        ] {
            let (want, got) = (g.transform_point(x), q.transform_point(x * scale));
            assert!(want.distance(got) < 1e-5, "{want} vs {got} ({scale})");
        }
        let flat = GlobalTransform::from(t.with_scale(Vec3::new(1.0, 0.0, 1.0)));
        assert_eq!(pose_and_scale(&flat), Err(PoseError::NonPositiveScale));
    }
}
