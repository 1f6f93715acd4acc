//! A [`Pose`] from a Bevy transform, in one call:
//! `Pose::try_from(&transform)` or `Pose::try_from(&global_transform)`.

use bevy_transform::components::{GlobalTransform, Transform};
use glam::{BVec4A, Quat, Vec3, Vec3A, Vec4};

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
// Always inlined: left a call (it was, once the threads' pose writes added
// callers), its result went through memory and the one-thread sync at 10k
// took 0.74 ms instead of 0.63 (EXPERIMENTS.md#threads-share).
#[inline(always)]
pub(crate) fn pose_and_scale(global: &GlobalTransform) -> Result<(Pose, Vec3), PoseError> {
    let (scale, rotation, translation) = scale_rotation_translation(global);
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

/// [`GlobalTransform::to_scale_rotation_translation`], bit for bit (the
/// same operations in the same order), with the rotation's four cases
/// selected without branches ([`rotation_from_axes`]).
// Always inlined: left a call, its result went through the stack and the
// sync's first read of it stalled (EXPERIMENTS.md#plugin-share-2).
#[inline(always)]
fn scale_rotation_translation(global: &GlobalTransform) -> (Vec3, Quat, Vec3) {
    let affine = global.affine();
    let m = affine.matrix3;
    let det = m.determinant();
    let scale = Vec3::new(
        m.x_axis.length() * det.signum(),
        m.y_axis.length(),
        m.z_axis.length(),
    );
    let inv = scale.recip();
    let rotation = rotation_from_axes(m.x_axis * inv.x, m.y_axis * inv.y, m.z_axis * inv.z);
    (scale, rotation, affine.translation.into())
}

/// glam's `Quat::from_rotation_axes` (after DirectXMath's
/// `XMQuaternionRotationMatrix`: the largest of `4x²`, `4y²`, `4z²`, `4w²`
/// read off the diagonal, the other three components from the
/// off-diagonal sums and differences over its root), bit for bit: each
/// component is the same expression times the same `0.5 / √(4c²)`. glam
/// picks the case with two data-dependent branches, which mispredict on
/// bodies in random orientations; here the four candidates are computed
/// side by side and the case is selected by masks.
fn rotation_from_axes(x: Vec3A, y: Vec3A, z: Vec3A) -> Quat {
    let (m00, m01, m02) = x.into();
    let (m10, m11, m12) = y.into();
    let (m20, m21, m22) = z.into();
    let (dif10, sum10) = (m11 - m00, m11 + m00);
    let (omm22, opm22) = (1.0 - m22, 1.0 + m22);
    let four_sq = Vec4::new(omm22 - dif10, omm22 + dif10, opm22 - sum10, opm22 + sum10);
    // A negative candidate's root is NaN; that case is never selected.
    let inv = Vec4::splat(0.5) / four_sq.sqrt();
    let (p01, p02, p12) = (m01 + m10, m02 + m20, m12 + m21);
    let (d12, d20, d01) = (m12 - m21, m20 - m02, m01 - m10);
    let qx = Vec4::new(four_sq.x, p01, p02, d12) * inv.x;
    let qy = Vec4::new(p01, four_sq.y, p12, d20) * inv.y;
    let qz = Vec4::new(p02, p12, four_sq.z, d01) * inv.z;
    let qw = Vec4::new(d12, d20, d01, four_sq.w) * inv.w;
    let xy = Vec4::select(BVec4A::splat(dif10 <= 0.0), qx, qy);
    let zw = Vec4::select(BVec4A::splat(sum10 <= 0.0), qz, qw);
    Quat::from_vec4(Vec4::select(BVec4A::splat(m22 <= 0.0), xy, zw))
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

    /// Bits of a decomposition (NaNs compared as NaN, whatever the payload).
    fn bits((s, q, t): (Vec3, Quat, Vec3)) -> Vec<Option<u32>> {
        let all = s
            .to_array()
            .into_iter()
            .chain(q.to_array())
            .chain(t.to_array());
        all.map(|v| (!v.is_nan()).then(|| v.to_bits())).collect()
    }

    /// The branch-free decomposition equals glam's bit for bit: seeded
    /// random rotations, scales (mirrored, tiny, huge) and translations,
    /// and placements on the case boundaries (quarter and half turns about
    /// each axis and their products, where a diagonal sum or `m22` is 0
    /// exactly), a zero scale and non-finite parts.
    #[test]
    fn decomposition_matches_glam_bit_for_bit() {
        let mut rng = crate::testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.range(-1.0, 1.0);
        let mut transforms = Vec::new();
        let quarter = std::f32::consts::FRAC_PI_2;
        for k in 0..4 {
            for axis in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::ONE.normalize()] {
                let q = Quat::from_axis_angle(axis, quarter * k as f32);
                for r in [
                    q,
                    q * Quat::from_rotation_x(quarter),
                    q * Quat::from_rotation_y(2.0 * quarter),
                ] {
                    transforms.push(Transform::from_rotation(r));
                    transforms
                        .push(Transform::from_rotation(r).with_scale(Vec3::new(1.0, -1.0, 1.0)));
                }
            }
        }
        for _ in 0..20_000 {
            let q = Quat::from_xyzw(next(), next(), next(), next()).normalize();
            let s = Vec3::new(next(), next(), next()) * 4.0;
            let t = Vec3::new(next(), next(), next()) * 1e4;
            transforms.push(Transform::from_translation(t).with_rotation(q));
            transforms.push(
                Transform::from_translation(t)
                    .with_rotation(q)
                    .with_scale(s),
            );
        }
        transforms.push(Transform::from_scale(Vec3::new(1.0, 0.0, 1.0)));
        transforms.push(Transform::from_xyz(f32::NAN, 0.0, 0.0));
        transforms.push(Transform::from_scale(Vec3::new(f32::INFINITY, 1.0, 1.0)));
        transforms.push(Transform::from_scale(Vec3::splat(1e-20)));
        transforms.push(Transform::from_scale(Vec3::splat(1e20)));
        for t in transforms {
            let g = GlobalTransform::from(t);
            let (want, got) = (
                g.to_scale_rotation_translation(),
                scale_rotation_translation(&g),
            );
            assert_eq!(bits(want), bits(got), "{t:?}: {want:?} vs {got:?}");
        }
    }

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
