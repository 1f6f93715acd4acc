//! The convex polytope kind: its builders (the hull of a point set, a
//! box) and what it knows ([`KindData`]): Lin–Canny's polytope is its
//! support map, Cyrus–Beck its ray cast, its hull's triangles its surface.

use std::sync::Arc;

use glam::Vec3;

use super::kind::{KindData, LocalRay, RayFeature};
use super::{BoundsGeometry, ShapeData, ShapeError, ShapeKind, SharedShape, limits};
use crate::geometry::ray::Ray;
use crate::geometry::support::SupportMap;
use crate::math::Aabb;
use crate::shape::{ConvexHull, ConvexPolytope};

impl KindData for ConvexPolytope {
    fn name(&self) -> &'static str {
        "convex"
    }
    fn support_map(&self) -> Option<&dyn SupportMap> {
        Some(self)
    }
    fn local_ray(&self, ray: &Ray, max_toi: f32) -> LocalRay {
        LocalRay::Answered(self.ray_cast(ray, max_toi))
    }
    fn ray_feature(&self, feature: u32) -> RayFeature {
        // `u32::MAX`: the ray starts inside, no face.
        if feature == u32::MAX {
            RayFeature::None
        } else {
            RayFeature::Face
        }
    }
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        let pts: Vec<Vec3> = self.vertices().iter().map(|v| *v * factor).collect();
        SharedShape::convex_hull(&pts)
    }
}

impl SharedShape {
    /// The convex hull of `points` as a convex polytope.
    ///
    /// Errors: no points, a NaN or infinite coordinate, or all points
    /// coincident, collinear or coplanar (a hull needs 4 non-coplanar points).
    pub fn convex_hull(points: &[Vec3]) -> Result<Self, ShapeError> {
        limits::check_points(points)?;
        let hull = ConvexHull::new(points)?;
        let polytope = ConvexPolytope::from_hull(&hull);
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::Convex(polytope),
            BoundsGeometry::Hull(hull),
        ))))
    }

    /// A box with the given half-extents, centered on the origin.
    pub fn cuboid(half_extents: Vec3) -> Result<Self, ShapeError> {
        if !half_extents.is_finite() || half_extents.min_element() <= 0.0 {
            return Err(ShapeError::InvalidParameter(
                "cuboid half-extents must be finite and positive",
            ));
        }
        limits::check_cuboid(half_extents)?;
        let corners = Aabb::new(-half_extents, half_extents).corners();
        Self::convex_hull(&corners)
    }
}
