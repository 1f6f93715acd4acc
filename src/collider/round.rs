//! The builders of [`RoundConvex`] shapes: a rounded box, a rounded hull,
//! a segment, a triangle, each validated by [`limits`].

use std::sync::Arc;

use glam::Vec3;

use super::kind::{KindData, LocalRay};
use super::{BoundsGeometry, ShapeData, ShapeError, ShapeKind, SharedShape, limits};
use crate::geometry::ray::Ray;
use crate::geometry::support::SupportMap;
use crate::math::Aabb;
use crate::shape::{ConvexHull, ConvexPolytope, RoundConvex, RoundCore};

impl SharedShape {
    /// A box of `half_extents` centred on the origin swept by a ball of
    /// `radius`: `radius` larger all round, with round edges and corners
    /// (the Minkowski sum, exact; parry's `round_cuboid`, avian3d's
    /// `Collider::round_cuboid`).
    ///
    /// Errors: half-extents as [`cuboid`](Self::cuboid), a radius not
    /// finite and positive or beyond the shape limits ([`limits`]).
    pub fn round_cuboid(half_extents: Vec3, radius: f32) -> Result<Self, ShapeError> {
        if !half_extents.is_finite() || half_extents.min_element() <= 0.0 {
            return Err(ShapeError::InvalidParameter(
                "cuboid half-extents must be finite and positive",
            ));
        }
        limits::check_cuboid(half_extents)?;
        let corners = Aabb::new(-half_extents, half_extents).corners();
        Self::round_convex_hull(&corners, radius)
    }

    /// The convex hull of `points` swept by a ball of `radius` (exact, as
    /// [`round_cuboid`](Self::round_cuboid)). Errors as
    /// [`convex_hull`](Self::convex_hull), and a bad radius.
    pub fn round_convex_hull(points: &[Vec3], radius: f32) -> Result<Self, ShapeError> {
        limits::check_points(points)?;
        let hull = ConvexHull::new(points)?;
        let reach = hull
            .vertices()
            .iter()
            .map(|v| v.length())
            .fold(0.0, f32::max);
        limits::check_round_radius(reach, radius, false)?;
        let core = RoundCore::Polytope(Box::new(ConvexPolytope::from_hull(&hull)));
        let kind = ShapeKind::RoundConvex(RoundConvex::new(core, radius));
        let bounds = BoundsGeometry::Hull(hull);
        Ok(Self(Arc::new(ShapeData::padded(kind, bounds, radius))))
    }

    /// The segment from `a` to `b` (a sharp, degenerate convex shape; a
    /// capsule of radius 0). Errors: a coordinate not finite or beyond
    /// the shape limits, `a == b`.
    pub fn segment(a: Vec3, b: Vec3) -> Result<Self, ShapeError> {
        Self::flat(&[a, b], 0.0)
    }

    /// The triangle `a, b, c` (solid, flat, both sides). Errors: a
    /// coordinate not finite or beyond the shape limits, a triangle whose
    /// longest edge is more than `MAX_ASPECT` times its smallest height (a
    /// zero area among them).
    pub fn triangle(a: Vec3, b: Vec3, c: Vec3) -> Result<Self, ShapeError> {
        Self::flat(&[a, b, c], 0.0)
    }

    /// A segment or triangle swept by a ball of `radius` (>= 0).
    pub(super) fn flat(points: &[Vec3], radius: f32) -> Result<Self, ShapeError> {
        limits::check_flat(points)?;
        let reach = points.iter().map(|v| v.length()).fold(0.0, f32::max);
        limits::check_round_radius(reach, radius, true)?;
        let core = RoundCore::Points(points.into());
        let kind = ShapeKind::RoundConvex(RoundConvex::new(core, radius));
        let bounds = BoundsGeometry::Points(points.to_vec());
        Ok(Self(Arc::new(ShapeData::padded(kind, bounds, radius))))
    }

    /// `s` scaled by `factor` (validated by the caller) about its origin.
    pub(super) fn round_scaled(s: &RoundConvex, factor: f32) -> Result<Self, ShapeError> {
        let pts: Vec<Vec3> = s.core_points().iter().map(|p| *p * factor).collect();
        match s.core() {
            RoundCore::Polytope(_) => Self::round_convex_hull(&pts, s.radius() * factor),
            RoundCore::Points(_) => Self::flat(&pts, s.radius() * factor),
        }
    }
}

impl KindData for RoundConvex {
    fn name(&self) -> &'static str {
        RoundConvex::name(self)
    }
    fn support_map(&self) -> Option<&dyn SupportMap> {
        Some(self)
    }
    fn local_ray(&self, ray: &Ray, max_toi: f32) -> LocalRay {
        LocalRay::Answered(self.ray_cast(ray, max_toi))
    }
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        SharedShape::round_scaled(self, factor)
    }
}
