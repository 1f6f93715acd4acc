use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::math::{Aabb, Pose};

/// A bounding cube that holds its object in every orientation.
///
/// `center` is a point in the object's local frame and `radius` the largest
/// distance from it to a vertex, so the cube `pose(center) ± radius` contains
/// the object whatever the rotation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedCube {
    /// Center in the object's local frame.
    pub center: Vec3,
    /// Radius of the bounding sphere about `center` (the cube's half-size).
    pub radius: f32,
}

impl FixedCube {
    /// The cube for a set of (hull) vertices. Of two candidate centers, the
    /// middle of the local box and the vertex centroid, it keeps the one with
    /// the smaller radius.
    pub fn from_vertices(vertices: &[Vec3]) -> Self {
        let box_center = Aabb::from_points(vertices.iter().copied()).center();
        let centroid = vertices.iter().copied().sum::<Vec3>() / (vertices.len().max(1) as f32);
        let radius_about = |c: Vec3| {
            vertices
                .iter()
                .map(|v| v.distance(c))
                .fold(0.0f32, f32::max)
        };
        let (rb, rc) = (radius_about(box_center), radius_about(centroid));
        let (center, radius) = if rb <= rc {
            (box_center, rb)
        } else {
            (centroid, rc)
        };
        // One ulp-scale pad so rounding in the rotated center never lets a
        // vertex poke out of the cube.
        let pad = radius * 4.0 * f32::EPSILON + center.abs().max_element() * 2.0 * f32::EPSILON;
        Self {
            center,
            radius: radius + pad,
        }
    }

    /// The world box for `pose`: one rotated center and six adds.
    #[inline]
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        Aabb::from_center_half_extents(pose.transform_point(self.center), Vec3::splat(self.radius))
    }
}
