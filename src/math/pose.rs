use glam::{Affine3A, Mat3, Quat, Vec3};
use serde::{Deserialize, Serialize};

/// A rigid transformation: a rotation followed by a translation.
///
/// `p_world = rotation * p_local + translation`. Scale is not part of a pose:
/// shapes are built at the size they collide at (see the `plugin` docs for how
/// a Bevy `Transform` scale is treated).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// Unit quaternion.
    pub rotation: Quat,
    /// Translation.
    pub translation: Vec3,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The identity pose.
    pub const IDENTITY: Self = Self {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
    };

    /// A pose from a rotation and a translation.
    pub fn new(rotation: Quat, translation: Vec3) -> Self {
        Self {
            rotation,
            translation,
        }
    }

    /// A pose from a rotation matrix and a translation. Errors: a NaN or
    /// infinite entry, or a matrix that is not a rotation (orthonormal with
    /// determinant +1, within `1e-3`: a mirror or a scale is refused).
    pub fn from_rotation_matrix(rotation: Mat3, translation: Vec3) -> Result<Self, PoseError> {
        if !rotation.is_finite() || !translation.is_finite() {
            return Err(PoseError::NonFinite);
        }
        let gram = rotation.transpose() * rotation;
        let off = (gram - Mat3::IDENTITY).to_cols_array();
        if off.iter().any(|x| x.abs() > 1e-3) {
            return Err(PoseError::UnsupportedScale);
        }
        if rotation.determinant() < 0.0 {
            return Err(PoseError::NonPositiveScale);
        }
        let pose = Self::new(Quat::from_mat3(&rotation).normalize(), translation);
        pose.validate()?;
        Ok(pose)
    }

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Self {
        Self::new(Quat::IDENTITY, translation)
    }

    /// Maps a point from local to world coordinates.
    #[inline]
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// Rotates a vector (no translation).
    #[inline]
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation * v
    }

    /// The inverse pose.
    #[inline]
    pub fn inverse(&self) -> Self {
        let inv = self.rotation.inverse();
        Self::new(inv, -(inv * self.translation))
    }

    /// `self * other`: first `other`, then `self`.
    #[inline]
    pub fn mul(&self, other: &Pose) -> Pose {
        Pose::new(
            self.rotation * other.rotation,
            self.transform_point(other.translation),
        )
    }

    /// The pose as an affine matrix: a cheaper `transform_point` (a matrix
    /// product) where one pose maps many points.
    #[inline]
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_rotation_translation(self.rotation, self.translation)
    }

    /// The rotation as a 3x3 matrix (columns are the rotated local axes).
    #[inline]
    pub fn rotation_matrix(&self) -> Mat3 {
        Mat3::from_quat(self.rotation)
    }

    /// Checks that the pose is usable: finite values and a unit quaternion
    /// (within `1e-3`, what Bevy's `Transform` keeps after many rotations).
    pub fn validate(&self) -> Result<(), PoseError> {
        if !self.translation.is_finite() || !self.rotation.is_finite() {
            return Err(PoseError::NonFinite);
        }
        if (self.rotation.length_squared() - 1.0).abs() > 2e-3 {
            return Err(PoseError::NotNormalized);
        }
        Ok(())
    }

    /// The pose if [`validate`](Self::validate) takes it, its rotation
    /// normalized: a rotation accepted within the tolerance but used as it
    /// is would stretch every rotated vector by `|q|²` (0.2 % at the
    /// limit), and with it the distance between two shapes. A rotation
    /// already unit to `f32` rounding (`|q|²` within 8ε of 1, as every pose
    /// the world stores) is kept bit for bit, so that a free query on a
    /// body's pose answers exactly as the world does.
    pub fn validated(&self) -> Result<Pose, PoseError> {
        self.validate()?;
        if (self.rotation.length_squared() - 1.0).abs() <= 8.0 * f32::EPSILON {
            return Ok(*self);
        }
        Ok(Self::new(self.rotation.normalize(), self.translation))
    }
}

/// Why a pose (or a Bevy transform) cannot be used for collision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PoseError {
    /// A NaN or infinite rotation or translation.
    NonFinite,
    /// The rotation is not a unit quaternion.
    NotNormalized,
    /// A zero or negative scale (a collapsed or mirrored object).
    NonPositiveScale,
    /// A scale other than 1: shapes are built at their collision size.
    UnsupportedScale,
    /// A translation component beyond the world's limit
    /// ([`MAX_POSITION`](crate::collider::limits::MAX_POSITION), `2⁵⁰`).
    TooFar,
}

impl std::fmt::Display for PoseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PoseError::NonFinite => "the pose has a NaN or infinite component",
            PoseError::NotNormalized => "the rotation is not a unit quaternion",
            PoseError::NonPositiveScale => {
                "the scale is zero or negative (collapsed or mirrored object)"
            }
            PoseError::UnsupportedScale => {
                "the scale is not 1: build the shape at its collision size (SharedShape::scaled)"
            }
            PoseError::TooFar => {
                "a translation component is beyond MAX_POSITION (2^50), the world's limit"
            }
        })
    }
}

impl std::error::Error for PoseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_round_trips() {
        let p = Pose::new(
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.0),
            Vec3::new(1.0, -2.0, 3.0),
        );
        let q = p.mul(&p.inverse());
        assert!(q.translation.length() < 1e-5);
        assert!(q.rotation.angle_between(Quat::IDENTITY) < 1e-3);
        let x = Vec3::new(0.5, 0.25, -4.0);
        assert!((p.inverse().transform_point(p.transform_point(x)) - x).length() < 1e-5);
    }

    #[test]
    fn validate_rejects_bad_poses() {
        let mut p = Pose::IDENTITY;
        assert!(p.validate().is_ok());
        p.translation.x = f32::NAN;
        assert_eq!(p.validate(), Err(PoseError::NonFinite));
        let p = Pose::new(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0), Vec3::ZERO);
        assert_eq!(p.validate(), Err(PoseError::NotNormalized));
    }

    #[test]
    fn rotation_matrices_convert_or_are_refused() {
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.0);
        let t = Vec3::new(1.0, 2.0, 3.0);
        let p = Pose::from_rotation_matrix(Mat3::from_quat(q), t).expect("a rotation");
        let x = Vec3::new(0.5, -0.25, 4.0);
        assert!((p.transform_point(x) - (q * x + t)).length() < 1e-5);
        let m = Mat3::from_quat(q);
        assert_eq!(
            Pose::from_rotation_matrix(m * 2.0, t),
            Err(PoseError::UnsupportedScale)
        );
        assert_eq!(
            Pose::from_rotation_matrix(-m, t),
            Err(PoseError::NonPositiveScale)
        );
        assert_eq!(
            Pose::from_rotation_matrix(m, Vec3::NAN),
            Err(PoseError::NonFinite)
        );
    }
}
