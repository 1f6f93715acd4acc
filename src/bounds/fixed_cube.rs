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
        // An ulp-scale pad so that rounding never lets a vertex poke out:
        // a world coordinate, of a vertex or of the rotated center, is off
        // by up to a few ε times the rotated point's length (`|v| ≤ |c| +
        // r`), however it is computed (a matrix row, a quaternion). The
        // world translation's share is added per pose (`aabb`).
        let pad = (radius * 16.0 + center.length() * 32.0) * f32::EPSILON;
        Self {
            center,
            radius: radius + pad,
        }
    }

    /// The world box for `pose`: one rotated center, the half size padded
    /// per axis (an absolute value, a multiply and an add) and six adds.
    /// The pad is 4 ε times the world center's coordinate, which is where the translation's
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
            // Every fifth hull lies far from its local origin, and its pose
            // brings it back near the world origin: the rounding of the
            // local center then dominates.
            let offset = if trial % 5 == 4 {
                rng.in_cube(1e5)
            } else {
                Vec3::ZERO
            };
            let verts: Vec<Vec3> = (0..8).map(|_| rng.unit_vector() * scale + offset).collect();
            let cube = FixedCube::from_vertices(&verts);
            // A vertex turned onto the x axis: its world x is the extreme
            // the cube's face must hold.
            let v = verts[0] - cube.center;
            let onto_x = glam::Quat::from_rotation_arc(v.normalize_or(Vec3::X), Vec3::X);
            for rotation in [onto_x, rng.rotation()] {
                let near = rng.in_cube([1.0, 50.0, 1e3, 1e5][trial / 3 % 4]);
                let pose = Pose::new(rotation, near - rotation * offset);
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
