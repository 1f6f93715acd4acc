//! [`Collider`] constructors of the rounded convex kinds, segments,
//! triangles, half-spaces and polylines (each with its `try_` form returning the
//! builder's error; see [`SharedShape`]).

use glam::Vec3;

use super::components::{Collider, literal};
use crate::collider::{ShapeError, SharedShape};

impl Collider {
    /// A box of the given side lengths (as [`Collider::cuboid`]) swept by
    /// a ball of `border_radius`: `border_radius` larger all round, with
    /// round edges and corners (avian3d's `Collider::round_cuboid`; the
    /// Minkowski sum, exact).
    ///
    /// # Panics
    ///
    /// On lengths or a radius not finite and positive, or beyond the shape
    /// limits; [`Collider::try_round_cuboid`] returns the error instead.
    #[track_caller]
    pub fn round_cuboid(x: f32, y: f32, z: f32, border_radius: f32) -> Self {
        literal(
            "round_cuboid",
            Self::try_round_cuboid(x, y, z, border_radius),
        )
    }

    /// [`Collider::round_cuboid`] for sizes from data: the reason as an
    /// error.
    pub fn try_round_cuboid(
        x: f32,
        y: f32,
        z: f32,
        border_radius: f32,
    ) -> Result<Self, ShapeError> {
        SharedShape::round_cuboid(Vec3::new(x, y, z) * 0.5, border_radius).map(Self::new)
    }

    /// The convex hull of `points` swept by a ball of `border_radius`
    /// (avian3d's `Collider::round_convex_hull`). See
    /// [`SharedShape::round_convex_hull`].
    pub fn round_convex_hull(points: &[Vec3], border_radius: f32) -> Result<Self, ShapeError> {
        SharedShape::round_convex_hull(points, border_radius).map(Self::new)
    }

    /// The segment from `a` to `b`.
    ///
    /// # Panics
    ///
    /// On a coordinate not finite or beyond the shape limits, or `a == b`;
    /// [`Collider::try_segment`] returns the error instead.
    #[track_caller]
    pub fn segment(a: Vec3, b: Vec3) -> Self {
        literal("segment", Self::try_segment(a, b))
    }

    /// [`Collider::segment`] for points from data: the reason as an error.
    pub fn try_segment(a: Vec3, b: Vec3) -> Result<Self, ShapeError> {
        SharedShape::segment(a, b).map(Self::new)
    }

    /// The triangle `a, b, c` (solid, flat).
    ///
    /// # Panics
    ///
    /// On a coordinate not finite or beyond the shape limits, or a
    /// degenerate triangle (see [`SharedShape::triangle`]);
    /// [`Collider::try_triangle`] returns the error instead.
    #[track_caller]
    pub fn triangle(a: Vec3, b: Vec3, c: Vec3) -> Self {
        literal("triangle", Self::try_triangle(a, b, c))
    }

    /// [`Collider::triangle`] for points from data: the reason as an error.
    pub fn try_triangle(a: Vec3, b: Vec3, c: Vec3) -> Result<Self, ShapeError> {
        SharedShape::triangle(a, b, c).map(Self::new)
    }

    /// Everything below the plane through the entity's origin with
    /// outward `normal` (a ground; avian3d's `Collider::half_space`).
    ///
    /// # Panics
    ///
    /// On a normal not finite or zero; [`Collider::try_half_space`]
    /// returns the error instead.
    #[track_caller]
    pub fn half_space(normal: Vec3) -> Self {
        literal("half_space", Self::try_half_space(normal))
    }

    /// [`Collider::half_space`] for a normal from data: the reason as an
    /// error.
    pub fn try_half_space(normal: Vec3) -> Result<Self, ShapeError> {
        SharedShape::half_space(normal).map(Self::new)
    }

    /// A polyline through `points`: the segments `indices` (pairs of
    /// point indices), or the chain `0–1, 1–2, …` when `None` (avian3d's
    /// `Collider::polyline`; see [`SharedShape::polyline`]).
    ///
    /// # Panics
    ///
    /// On a point not finite or beyond the shape limits, no segment, an
    /// index out of range or a segment of zero length;
    /// [`Collider::try_polyline`] returns the error instead.
    #[track_caller]
    pub fn polyline(points: Vec<Vec3>, indices: Option<Vec<[u32; 2]>>) -> Self {
        literal("polyline", Self::try_polyline(points, indices))
    }

    /// [`Collider::polyline`] for points from data: the reason as an
    /// error.
    pub fn try_polyline(
        points: Vec<Vec3>,
        indices: Option<Vec<[u32; 2]>>,
    ) -> Result<Self, ShapeError> {
        SharedShape::polyline(points, indices).map(Self::new)
    }
}
