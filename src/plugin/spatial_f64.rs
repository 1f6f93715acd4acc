//! `f64` spatial queries for large worlds: a ray or a shape placed at an
//! `f64` point, tested in the frame at that point
//! ([`crate::pipeline::large_world`]), the hit point given in `f64`. With
//! `big_space` (feature `big_space`), a point of the root grid's frame is
//! `grid_pose`'s translation, and [`point_in_grid`](super::point_in_grid)
//! turns a hit back into a cell and an offset.

use bevy_ecs::prelude::*;
use glam::{DVec3, Quat, Vec3};

use super::components::Collider;
use super::spatial::{RayHitData, SpatialQuery, SpatialQueryFilter, core_filter};
use crate::math::WorldPose;

/// A ray hit with its point in `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHitF64 {
    /// The hit; its `point` is `point` rounded to `f32`.
    pub hit: RayHitData,
    /// The hit point, world space, `f64`: the ray's origin plus its
    /// direction times the distance (that product in `f32`), the sum in
    /// `f64`.
    pub point: DVec3,
}

impl SpatialQuery<'_> {
    /// The first collider hit by the ray from the `f64` point `origin`
    /// along `direction` (normalized here) within `max_distance`, each
    /// collider tested in the frame at `origin`; ties to the smallest body
    /// handle. `None` when nothing is hit or for a zero, NaN or infinite
    /// input or an origin beyond
    /// [`MAX_POSITION`](crate::collider::limits::MAX_POSITION). Candidates
    /// are the colliders whose boxes meet the box of the ray's segment:
    /// keep `max_distance` to the range needed.
    pub fn cast_ray_f64(
        &self,
        origin: DVec3,
        direction: Vec3,
        max_distance: f32,
        filter: &SpatialQueryFilter,
    ) -> Option<RayHitF64> {
        let dir = direction.try_normalize()?;
        let exclude = self.excluded_bodies(filter);
        let hit = self.state.world.ray_cast_f64(
            (origin, dir),
            max_distance,
            core_filter(filter, &exclude),
        )?;
        Some(RayHitF64 {
            hit: self.hit_data(&hit)?,
            point: hit.point_f64,
        })
    }

    /// The colliders that `shape` at the `f64` point `position`, turned by
    /// `rotation`, intersects (exactly; touching counts), tested in the
    /// frame at `position`; sorted. Empty for a NaN, infinite or non-unit
    /// pose or a position beyond
    /// [`MAX_POSITION`](crate::collider::limits::MAX_POSITION).
    pub fn shape_intersections_f64(
        &self,
        shape: &Collider,
        position: DVec3,
        rotation: Quat,
        filter: &SpatialQueryFilter,
    ) -> Vec<Entity> {
        let exclude = self.excluded_bodies(filter);
        let mut bodies = Vec::new();
        let at = WorldPose::new(rotation, position);
        let filter = core_filter(filter, &exclude);
        let world = &self.state.world;
        if world
            .intersect_shape_f64(shape.shape(), at, filter, &mut bodies)
            .is_err()
        {
            return Vec::new();
        }
        self.entities(&bodies)
    }
}
