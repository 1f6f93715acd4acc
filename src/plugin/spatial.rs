//! The `SpatialQuery` system parameter: one-shot box, shape and ray queries
//! and shape casts against every collider, named after avian3d's.

use bevy_ecs::entity::EntityHashSet;
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
#[cfg(feature = "reflect")]
use bevy_reflect::std_traits::ReflectDefault;
use glam::{Quat, Vec3};

use super::components::{Collider, LayerMask};
use super::resources::CollisionState;
use crate::collider::ShapeKind;
use crate::math::{Aabb, Pose, RigidMotion};
use crate::pipeline::{BodyHandle, QueryFilter, WorldRayHit, WorldShapeHit};
use crate::query::{Ray, ShapeCastOptions};
use crate::shape::Feature;

/// Which colliders a spatial query sees: those with a
/// [`CollisionLayers`](super::CollisionLayers) membership in `mask` (no
/// `CollisionLayers` means membership [`LayerMask::DEFAULT`]), minus
/// `excluded_entities`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(Debug, PartialEq, Clone, Default)
)]
pub struct SpatialQueryFilter {
    /// A collider is seen when `mask & memberships != 0`.
    pub mask: LayerMask,
    /// Colliders never seen.
    pub excluded_entities: EntityHashSet,
}

impl Default for SpatialQueryFilter {
    /// Every layer, nothing excluded.
    fn default() -> Self {
        Self {
            mask: LayerMask::ALL,
            excluded_entities: EntityHashSet::default(),
        }
    }
}

impl SpatialQueryFilter {
    /// The colliders in a layer of `mask`.
    pub fn from_mask(mask: impl Into<LayerMask>) -> Self {
        Self {
            mask: mask.into(),
            ..Default::default()
        }
    }

    /// The same filter with another mask.
    pub fn with_mask(mut self, mask: impl Into<LayerMask>) -> Self {
        self.mask = mask.into();
        self
    }

    /// The same filter, also excluding `entities`.
    pub fn with_excluded_entities(mut self, entities: impl IntoIterator<Item = Entity>) -> Self {
        self.excluded_entities.extend(entities);
        self
    }
}

/// Where a ray meets a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHitData {
    /// The collider hit.
    pub entity: Entity,
    /// Distance from the ray's origin (0 when it starts inside a convex
    /// collider).
    pub distance: f32,
    /// The hit point, world space.
    pub point: Vec3,
    /// Unit surface normal at the hit: outward for a convex collider (zero
    /// when the ray starts inside it), facing the ray's origin for a mesh.
    pub normal: Vec3,
    /// The triangle hit, for a triangle mesh.
    pub triangle: Option<u32>,
}

/// How a [`SpatialQuery::cast_shape`] casts, named after avian3d's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastConfig {
    /// How far the shape travels (default `f32::MAX`).
    pub max_distance: f32,
    /// The distance that counts as contact (default 0).
    pub target_distance: f32,
    /// How close to `target_distance` the shapes are at the reported hit
    /// (default `1e-4`).
    pub tolerance: f32,
    /// Skip colliders the shape already touches at its origin (default
    /// false: they are hit at distance 0).
    pub ignore_origin_penetration: bool,
}

impl Default for ShapeCastConfig {
    fn default() -> Self {
        ShapeCastConfig {
            max_distance: f32::MAX,
            target_distance: 0.0,
            tolerance: 1e-4,
            ignore_origin_penetration: false,
        }
    }
}

impl ShapeCastConfig {
    /// A cast up to `max_distance`.
    pub fn from_max_distance(max_distance: f32) -> Self {
        ShapeCastConfig {
            max_distance,
            ..Default::default()
        }
    }
}

/// Where a cast shape first touches a collider.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHitData {
    /// The collider touched.
    pub entity: Entity,
    /// How far the shape travelled.
    pub distance: f32,
    /// The contact point on the cast shape, world space, at the hit.
    pub point1: Vec3,
    /// The contact point on the collider, world space.
    pub point2: Vec3,
    /// Unit normal of the cast shape at `point1`, towards the collider.
    pub normal1: Vec3,
    /// Unit normal of the collider at `point2` (`-normal1`).
    pub normal2: Vec3,
    /// The triangle touched, for a triangle mesh.
    pub triangle: Option<u32>,
}

/// One-shot spatial queries against every collider, for gameplay systems:
/// ray casts, shape and box overlaps. They reuse the broad phase's grid
/// cells and sorted endpoint lists and the shapes' OBB trees (see
/// [`crate::pipeline::spatial`]); there is no second world.
///
/// **Timing.** The queries see the collision world as the plugin's systems
/// last left it: colliders at the poses of the last run of
/// [`CollisionSystems::SyncPoses`](super::CollisionSystems) (by default in
/// the previous frame's `PostUpdate`). A collider spawned or moved since is
/// seen from the next run on.
#[derive(SystemParam)]
pub struct SpatialQuery<'w> {
    pub(super) state: Res<'w, CollisionState>,
}

impl SpatialQuery<'_> {
    /// The first collider hit by the ray from `origin` along `direction`
    /// (any non-zero length; normalized here) within `max_distance`; among
    /// colliders hit at the same distance, the one with the smallest body
    /// handle. `None` when nothing is hit or the ray is zero, NaN or infinite.
    pub fn cast_ray(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance: f32,
        filter: &SpatialQueryFilter,
    ) -> Option<RayHitData> {
        let ray = Ray::new(origin, direction.try_normalize()?);
        let exclude = self.excluded_bodies(filter);
        let hit = self
            .state
            .world
            .ray_cast(&ray, max_distance, core_filter(filter, &exclude))?;
        self.hit_data(&hit)
    }

    /// Every collider hit by the ray within `max_distance`, nearest first,
    /// at most `max_hits` of them.
    pub fn ray_hits(
        &self,
        origin: Vec3,
        direction: Vec3,
        max_distance: f32,
        max_hits: usize,
        filter: &SpatialQueryFilter,
    ) -> Vec<RayHitData> {
        let Some(dir) = direction.try_normalize() else {
            return Vec::new();
        };
        let exclude = self.excluded_bodies(filter);
        let mut hits = Vec::new();
        self.state.world.ray_cast_all(
            &Ray::new(origin, dir),
            max_distance,
            core_filter(filter, &exclude),
            &mut hits,
        );
        hits.iter()
            .filter_map(|h| self.hit_data(h))
            .take(max_hits)
            .collect()
    }

    /// The colliders that `shape` at `position` and `rotation` intersects
    /// (exactly; touching counts; a surface test when a triangle mesh is
    /// involved), sorted. Empty for a NaN, infinite or non-unit
    /// pose.
    pub fn shape_intersections(
        &self,
        shape: &Collider,
        position: Vec3,
        rotation: Quat,
        filter: &SpatialQueryFilter,
    ) -> Vec<Entity> {
        let exclude = self.excluded_bodies(filter);
        let mut bodies = Vec::new();
        let pose = Pose::new(rotation, position);
        let filter = core_filter(filter, &exclude);
        if self
            .state
            .world
            .intersect_shape(shape.shape(), pose, filter, &mut bodies)
            .is_err()
        {
            return Vec::new();
        }
        self.entities(&bodies)
    }

    /// The first collider `shape` (at `origin`, turned by `rotation`)
    /// touches when it moves along `direction` (normalized here) up to
    /// `config.max_distance`, exactly (see [`crate::query::cast_shapes`]);
    /// ties go to the smallest body handle. `None` when nothing is touched,
    /// or for a zero, NaN or infinite direction, a bad pose or config, or a
    /// cast beyond the cast limits ([`crate::collider::limits`]: an origin
    /// beyond `MAX_CAST_COORDINATE`; an endless `max_distance` stops there).
    pub fn cast_shape(
        &self,
        shape: &Collider,
        (origin, rotation): (Vec3, Quat),
        direction: Vec3,
        config: &ShapeCastConfig,
        filter: &SpatialQueryFilter,
    ) -> Option<ShapeHitData> {
        self.shape_hits(shape, (origin, rotation), direction, 1, config, filter)
            .into_iter()
            .next()
    }

    /// Every collider `shape` touches on its way (see
    /// [`cast_shape`](Self::cast_shape)), nearest first, at most `max_hits`.
    pub fn shape_hits(
        &self,
        shape: &Collider,
        (origin, rotation): (Vec3, Quat),
        direction: Vec3,
        max_hits: usize,
        config: &ShapeCastConfig,
        filter: &SpatialQueryFilter,
    ) -> Vec<ShapeHitData> {
        let Some(dir) = direction.try_normalize() else {
            return Vec::new();
        };
        let exclude = self.excluded_bodies(filter);
        let motion = RigidMotion::linear(Pose::new(rotation, origin), dir);
        let options = ShapeCastOptions {
            max_time_of_impact: config.max_distance,
            target_distance: config.target_distance,
            tolerance: config.tolerance,
        };
        let world = &self.state.world;
        let filter = core_filter(filter, &exclude);
        let mut hits = Vec::new();
        let found = if max_hits == 1 && !config.ignore_origin_penetration {
            world
                .cast_shape(shape.shape(), &motion, &options, filter)
                .map(|h| hits.extend(h))
        } else {
            world.cast_shape_all(shape.shape(), &motion, &options, filter, &mut hits)
        };
        if found.is_err() {
            return Vec::new();
        }
        hits.iter()
            .filter(|h| !(config.ignore_origin_penetration && h.hit.started_touching))
            .filter_map(|h| self.shape_hit_data(h))
            .take(max_hits)
            .collect()
    }

    fn shape_hit_data(&self, h: &WorldShapeHit) -> Option<ShapeHitData> {
        let triangle = match h.hit.features[1] {
            Feature::Face(t) if self.is_mesh_part(h) => Some(t),
            _ => None,
        };
        Some(ShapeHitData {
            entity: self.state.entity(h.body)?,
            distance: h.hit.time_of_impact,
            point1: h.hit.point_a,
            point2: h.hit.point_b,
            normal1: h.hit.normal,
            normal2: -h.hit.normal,
            triangle,
        })
    }

    /// Whether the part of the body a cast touched is a triangle mesh.
    fn is_mesh_part(&self, h: &WorldShapeHit) -> bool {
        let Some(shape) = self.state.world.shape(h.body) else {
            return false;
        };
        let piece = match shape.compound() {
            Some(c) => c.pieces().get(h.hit.pieces[1] as usize).map(|p| &p.shape),
            None => Some(shape),
        };
        piece.is_some_and(|p| matches!(p.kind(), ShapeKind::TriMesh(_)))
    }

    /// The colliders whose box ([`ColliderAabb`](super::ColliderAabb): tight
    /// box plus margin) overlaps `aabb`, sorted.
    pub fn aabb_intersections_with_aabb(&self, aabb: Aabb) -> Vec<Entity> {
        let mut bodies = Vec::new();
        self.state
            .world
            .aabb_query(aabb, QueryFilter::ALL, &mut bodies);
        self.entities(&bodies)
    }

    pub(super) fn excluded_bodies(&self, filter: &SpatialQueryFilter) -> Vec<BodyHandle> {
        let mut out = Vec::new();
        excluded_bodies(&self.state, filter, &mut out);
        out
    }

    pub(super) fn hit_data(&self, hit: &WorldRayHit) -> Option<RayHitData> {
        Some(RayHitData {
            entity: self.state.entity(hit.body)?,
            distance: hit.toi,
            point: hit.point,
            normal: hit.normal,
            triangle: hit.triangle,
        })
    }

    /// The entities of `bodies`, sorted.
    pub(super) fn entities(&self, bodies: &[BodyHandle]) -> Vec<Entity> {
        let mut entities: Vec<Entity> = bodies
            .iter()
            .filter_map(|&b| self.state.entity(b))
            .collect();
        entities.sort_unstable();
        entities
    }
}

/// The bodies of `filter`'s excluded entities, into `out` (cleared first).
pub(super) fn excluded_bodies(
    state: &CollisionState,
    filter: &SpatialQueryFilter,
    out: &mut Vec<BodyHandle>,
) {
    out.clear();
    out.extend(
        filter
            .excluded_entities
            .iter()
            .filter_map(|e| state.entity_body.get(e).copied()),
    );
}

/// The core's filter for `filter`, with its excluded entities' bodies.
pub(super) fn core_filter<'a>(
    filter: &SpatialQueryFilter,
    exclude: &'a [BodyHandle],
) -> QueryFilter<'a> {
    QueryFilter::from_mask(filter.mask.0).with_exclude(exclude)
}
