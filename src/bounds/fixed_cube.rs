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

    /// The world box for `pose`: one rotated center and six adds. Padded
    /// by a few ulps of the world center, which is where the translation's
    /// rounding (in the vertices' world coordinates and in the box's own
    /// corners) lives: far from the origin it exceeds the local pad.
    #[inline]
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        let center = pose.transform_point(self.center);
        let half = Vec3::splat(self.radius) + center.abs() * (4.0 * f32::EPSILON);
        Aabb::from_center_half_extents(center, half)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;
    use glam::Mat3;

    /// The cube holds every vertex however the world coordinate is rounded
    /// (the dynamic box's `row · v + t` and `Pose::transform_point`), also
    /// far from the origin, where the translation's rounding dwarfs the
    /// object's: a vertex on the bounding sphere, turned onto an axis,
    /// used to poke out by an ulp of the world coordinate.
    #[test]
    fn the_cube_contains_the_vertices_far_from_the_origin() {
        let mut rng = Rng::new(3);
        for trial in 0..20_000 {
            let scale = [1e-3, 1.0, 10.0][trial % 3];
            let verts: Vec<Vec3> = (0..8).map(|_| rng.unit_vector() * scale).collect();
            let cube = FixedCube::from_vertices(&verts);
            // A vertex turned onto the x axis: its world x is the extreme
            // the cube's face must hold.
            let v = verts[0] - cube.center;
            let onto_x = glam::Quat::from_rotation_arc(v.normalize(), Vec3::X);
            for rotation in [onto_x, rng.rotation()] {
                let pose = Pose::new(rotation, rng.in_cube([1.0, 50.0, 1e3, 1e5][trial / 3 % 4]));
                let b = cube.aabb(&pose);
                let rows = Mat3::from_quat(pose.rotation).transpose();
                for &p in &verts {
                    let by_rows =
                        Vec3::new(rows.x_axis.dot(p), rows.y_axis.dot(p), rows.z_axis.dot(p))
                            + pose.translation;
                    for w in [by_rows, pose.transform_point(p)] {
                        assert!(
                            b.min.cmple(w).all() && b.max.cmpge(w).all(),
                            "trial {trial}: {w:?} outside {b:?}"
                        );
                    }
                }
            }
        }
    }
}
