//! The primitive kinds' builders: sphere and capsule ([`Rounded`]),
//! cylinder and cone ([`Implicit`]), each validated by [`limits`].

use std::sync::Arc;

use super::kind::{KindData, LocalRay};
use super::{BoundsGeometry, ShapeData, ShapeError, ShapeKind, SharedShape, limits};
use crate::geometry::ray::Ray;
use crate::geometry::support::SupportMap;
use crate::shape::{Implicit, ImplicitKind, Rounded};

impl SharedShape {
    /// A ball of the given radius (> 0) centred on the origin.
    pub fn sphere(radius: f32) -> Result<Self, ShapeError> {
        Self::rounded(0.0, radius)
    }

    /// A capsule along local Y: a segment of `length` (>= 0) centred on the
    /// origin, rounded by `radius` (> 0). Its total height is
    /// `length + 2 * radius` (avian3d's `Collider::capsule(radius, length)`).
    pub fn capsule(radius: f32, length: f32) -> Result<Self, ShapeError> {
        if !length.is_finite() || length < 0.0 {
            return Err(ShapeError::InvalidParameter(
                "capsule length must be finite and >= 0",
            ));
        }
        Self::rounded(length * 0.5, radius)
    }

    pub(super) fn rounded(half_height: f32, radius: f32) -> Result<Self, ShapeError> {
        if !radius.is_finite() || radius <= 0.0 {
            return Err(ShapeError::InvalidParameter(
                "radius must be finite and positive",
            ));
        }
        limits::check_rounded(half_height, radius)?;
        let r = Rounded {
            half_height,
            radius,
        };
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::Rounded(r),
            BoundsGeometry::Rounded(r),
        ))))
    }

    /// A solid cylinder along local Y, centred on the origin: `radius` in
    /// the XZ plane, `height` along Y (avian3d's
    /// `Collider::cylinder(radius, height)`).
    ///
    /// Errors: a radius or height not finite and positive, beyond the
    /// shape limits, or one more than `MAX_ASPECT` times the other
    /// ([`limits`]).
    pub fn cylinder(radius: f32, height: f32) -> Result<Self, ShapeError> {
        Self::implicit(Implicit {
            kind: ImplicitKind::Cylinder,
            half_height: height * 0.5,
            radius,
            rounding: 0.0,
        })
    }

    /// A solid cone along local Y, centred on the origin: its base of
    /// `radius` at `y = -height / 2`, its apex at `y = height / 2`
    /// (avian3d's `Collider::cone(radius, height)`). Errors as
    /// [`cylinder`](Self::cylinder).
    pub fn cone(radius: f32, height: f32) -> Result<Self, ShapeError> {
        Self::implicit(Implicit {
            kind: ImplicitKind::Cone,
            half_height: height * 0.5,
            radius,
            rounding: 0.0,
        })
    }

    /// A cylinder as [`cylinder`](Self::cylinder) swept by a ball of
    /// `border_radius` (>= 0): the Minkowski sum, `border_radius` larger
    /// all round than the cylinder given (parry's `round_cylinder`),
    /// exact. Errors as [`cylinder`](Self::cylinder), and a border radius
    /// that is negative or not finite.
    pub fn round_cylinder(
        radius: f32,
        height: f32,
        border_radius: f32,
    ) -> Result<Self, ShapeError> {
        Self::implicit(Implicit {
            kind: ImplicitKind::Cylinder,
            half_height: height * 0.5,
            radius,
            rounding: border_radius,
        })
    }

    /// A cone as [`cone`](Self::cone) swept by a ball of `border_radius`
    /// (>= 0), as [`round_cylinder`](Self::round_cylinder).
    pub fn round_cone(radius: f32, height: f32, border_radius: f32) -> Result<Self, ShapeError> {
        Self::implicit(Implicit {
            kind: ImplicitKind::Cone,
            half_height: height * 0.5,
            radius,
            rounding: border_radius,
        })
    }

    pub(super) fn implicit(s: Implicit) -> Result<Self, ShapeError> {
        limits::check_implicit(s.half_height, s.radius, s.rounding)?;
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::Implicit(s),
            BoundsGeometry::Implicit(s),
        ))))
    }
}

impl KindData for Rounded {
    fn name(&self) -> &'static str {
        if self.is_sphere() {
            "sphere"
        } else {
            "capsule"
        }
    }
    fn support_map(&self) -> Option<&dyn SupportMap> {
        Some(self)
    }
    fn local_ray(&self, ray: &Ray, max_toi: f32) -> LocalRay {
        LocalRay::Answered(self.ray_cast(ray, max_toi))
    }
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        SharedShape::rounded(self.half_height * factor, self.radius * factor)
    }
}

impl KindData for Implicit {
    fn name(&self) -> &'static str {
        Implicit::name(self)
    }
    fn support_map(&self) -> Option<&dyn SupportMap> {
        Some(self)
    }
    fn local_ray(&self, ray: &Ray, max_toi: f32) -> LocalRay {
        LocalRay::Answered(self.ray_cast(ray, max_toi))
    }
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        SharedShape::implicit(Implicit {
            half_height: self.half_height * factor,
            radius: self.radius * factor,
            rounding: self.rounding * factor,
            ..*self
        })
    }
}
