use glam::Vec3;
use serde::{Deserialize, Serialize};

/// An axis-aligned bounding box, closed: boxes that touch overlap.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    /// The empty box (`min = +inf`, `max = -inf`): the identity of [`Aabb::union`].
    pub const EMPTY: Self = Self {
        min: Vec3::INFINITY,
        max: Vec3::NEG_INFINITY,
    };

    /// A box from its corners.
    pub fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// The box `center ± half_extents`.
    pub fn from_center_half_extents(center: Vec3, half_extents: Vec3) -> Self {
        Self::new(center - half_extents, center + half_extents)
    }

    /// The smallest box holding all `points` ([`Aabb::EMPTY`] for none).
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| b.include(p))
    }

    /// The box grown to hold `p`.
    #[inline]
    pub fn include(self, p: Vec3) -> Self {
        Self::new(self.min.min(p), self.max.max(p))
    }

    /// The smallest box holding both.
    #[inline]
    pub fn union(self, other: Self) -> Self {
        Self::new(self.min.min(other.min), self.max.max(other.max))
    }

    /// The box grown by `margin` on every side.
    #[inline]
    pub fn padded(self, margin: f32) -> Self {
        Self::new(
            self.min - Vec3::splat(margin),
            self.max + Vec3::splat(margin),
        )
    }

    /// Closed overlap test: touching boxes overlap.
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// Whether `other` is inside this box (closed boxes).
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.cmple(other.min).all() && other.max.cmple(self.max).all()
    }

    /// Whether `p` is inside (closed box).
    #[inline]
    pub fn contains_point(&self, p: Vec3) -> bool {
        self.min.cmple(p).all() && p.cmple(self.max).all()
    }

    /// Center of the box.
    #[inline]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Half of the box's size along each axis.
    #[inline]
    pub fn half_extents(&self) -> Vec3 {
        (self.max - self.min) * 0.5
    }

    /// The largest distance from `p` to a point of the box (its farthest
    /// corner).
    #[inline]
    pub fn max_distance_from(&self, p: Vec3) -> f32 {
        (self.min - p).abs().max((self.max - p).abs()).length()
    }

    /// A box holding this box moved by `pose` (the box of the rotated box:
    /// `|R| · half-extents` around the moved center), grown by
    /// [`rounding_pad`](super::rounding_pad) of its reach and the pose's
    /// translation: a cull by this box never drops a pair the pair tests
    /// call touching (the pad also covers this function's own rounding,
    /// whose errors follow the operands: a local center and a translation
    /// that cancel, the half extents' and center's rounding from min/max).
    pub fn transformed(&self, pose: &super::Pose) -> Self {
        let m = pose.rotation_matrix();
        let abs = glam::Mat3::from_cols(m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
        let (local, half) = (self.center(), self.half_extents());
        Self::from_center_half_extents(pose.transform_point(local), abs * half)
            .rounded_out(self.reach(), pose.translation)
    }

    /// A bound on `|x|₂` over the box's points: the length of its corner
    /// farthest from the origin.
    #[inline]
    pub fn reach(&self) -> f32 {
        self.min.abs().max(self.max.abs()).length()
    }

    /// The world box of a shape whose points are within `reach` of its own
    /// origin, at world translation `translation`, grown by
    /// [`rounding_pad`](super::rounding_pad) on every side: the box every
    /// box test of the world compares.
    #[inline]
    pub fn rounded_out(self, reach: f32, translation: Vec3) -> Self {
        self.padded(super::rounding_pad(reach, translation))
    }

    /// The box scaled by `scale` per axis about the origin (a negative
    /// component mirrors it): exact, the corners scale to corners.
    #[inline]
    pub fn scaled(&self, scale: Vec3) -> Self {
        let (a, b) = (self.min * scale, self.max * scale);
        Self::new(a.min(b), a.max(b))
    }

    /// The 8 corners; corner `i` takes `max` on axis `k` when bit `k` of `i`
    /// is set.
    pub fn corners(&self) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            let bits = glam::BVec3::new(i & 1 != 0, i & 2 != 0, i & 4 != 0);
            Vec3::select(bits, self.max, self.min)
        })
    }

    /// True when every coordinate is finite and `min <= max` on every axis.
    #[inline]
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && self.min.cmple(self.max).all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_boxes_overlap() {
        let a = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let b = Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        let c = Aabb::new(Vec3::new(1.01, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c) && !c.overlaps(&a));
        assert!(!Aabb::EMPTY.is_valid());
        assert_eq!(
            Aabb::from_points([Vec3::ONE, -Vec3::ONE]).center(),
            Vec3::ZERO
        );
    }
}
