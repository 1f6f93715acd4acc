//! The box of a support-mapped shape at a pose, from six supports: the
//! extreme point along `±e_k` in the world is the shape's support point
//! along `±Rᵀ e_k` in its frame (van den Bergen 2003, §4.3). Exact for the
//! shape (no hull, no tessellation), then grown by the rounding of the
//! rotation and the translation.

use glam::Vec3;

use crate::geometry::support::{NO_HINT, SupportMap};
use crate::math::{Aabb, Pose};

/// The box of `shape` at `pose`; `reach` bounds the distance of its points
/// from its origin (for the rounding pad).
pub fn support_box<S: SupportMap + ?Sized>(shape: &S, pose: &Pose, reach: f32) -> Aabb {
    let inv = pose.rotation.conjugate();
    let mut b = Aabb::EMPTY;
    for k in 0..3 {
        let axis = Vec3::AXES[k];
        for dir in [axis, -axis] {
            let p = shape.support(inv * dir, &mut { NO_HINT });
            b = b.include(pose.transform_point(p));
        }
    }
    // A world coordinate is off by a few ε of |R p| + |t|; a support
    // direction off by ε moves the extreme by ε of the shape's size.
    let pad = 8.0 * f32::EPSILON * (reach + pose.translation.abs().max_element());
    b.padded(pad)
}
