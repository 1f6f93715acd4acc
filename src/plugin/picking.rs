//! A `bevy_picking` backend on the crate's exact ray casts (feature
//! `picking`, off by default), so pointer events (`PointerClick`,
//! `PointerOver`, drags …) reach entities with a [`Collider`](super::Collider)
//! whether or not they have a render mesh, as avian's and rapier's
//! picking backends do.
//!
//! Each frame, for every ray `bevy_picking` casts (one per pointer and
//! camera, its `RayMap`), the backend asks [`SpatialQuery::cast_ray`] for
//! the first collider hit (meshes by their OBB trees, convex shapes
//! exactly; entities with `Pickable::IGNORE` are seen through) and reports it as `PointerHits`, with the hit's distance, point
//! and normal, ordered by the camera's order.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::{ReflectComponent, ReflectResource};
use bevy_picking::PickingSystems;
use bevy_picking::backend::ray::RayMap;
use bevy_picking::backend::{HitData, PointerHits};
use bevy_picking::prelude::Pickable;
#[cfg(feature = "reflect")]
use bevy_reflect::std_traits::ReflectDefault;

use super::spatial::{SpatialQuery, SpatialQueryFilter};

/// Adds the collider picking backend. Needs `bevy_picking`'s plugins
/// (in Bevy's `DefaultPlugins` with the `bevy_picking` feature) and the
/// [`CollisionPlugin`](super::CollisionPlugin).
#[derive(Default)]
pub struct CollisionPickingPlugin;

impl Plugin for CollisionPickingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<CollisionPickingSettings>()
            .add_systems(PreUpdate, update_hits.in_set(PickingSystems::Backend));
        #[cfg(feature = "reflect")]
        app.register_type::<CollisionPickingSettings>()
            .register_type::<CollisionPickingCamera>();
    }
}

/// Settings of the collider picking backend.
#[derive(Resource, Clone, Debug)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(Resource, Default, Debug)
)]
pub struct CollisionPickingSettings {
    /// Only cameras with [`CollisionPickingCamera`] pick colliders.
    pub require_markers: bool,
    /// Which colliders can be picked (layers, excluded entities).
    pub filter: SpatialQueryFilter,
    /// How far from the camera colliders are picked (default: no limit).
    pub max_distance: f32,
}

impl Default for CollisionPickingSettings {
    fn default() -> Self {
        Self {
            require_markers: false,
            filter: SpatialQueryFilter::default(),
            max_distance: f32::INFINITY,
        }
    }
}

/// Marks a camera that picks colliders when
/// [`CollisionPickingSettings::require_markers`] is set.
#[derive(Component, Clone, Copy, Debug, Default)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(Component, Default, Debug)
)]
pub struct CollisionPickingCamera;

/// One `PointerHits` per ray with a collider on it.
fn update_hits(
    settings: Res<CollisionPickingSettings>,
    rays: Res<RayMap>,
    cameras: Query<(&bevy_camera::Camera, Has<CollisionPickingCamera>)>,
    pickables: Query<&Pickable>,
    spatial: SpatialQuery,
    mut hits: MessageWriter<PointerHits>,
) {
    for (&ray_id, ray) in rays.iter() {
        let Ok((camera, marked)) = cameras.get(ray_id.camera) else {
            continue;
        };
        if settings.require_markers && !marked {
            continue;
        }
        let (origin, dir) = (ray.origin, ray.direction.as_vec3());
        let (max, filter) = (settings.max_distance, &settings.filter);
        let ignored = |e: Entity| pickables.get(e).is_ok_and(|p| *p == Pickable::IGNORE);
        // The first hit; past it only when it is to be ignored.
        let hit = match spatial.cast_ray(origin, dir, max, filter) {
            Some(h) if ignored(h.entity) => spatial
                .ray_hits(origin, dir, max, usize::MAX, filter)
                .into_iter()
                .find(|h| !ignored(h.entity)),
            first => first,
        };
        let Some(hit) = hit else {
            continue;
        };
        let data = HitData::new(
            ray_id.camera,
            hit.distance,
            Some(hit.point),
            Some(hit.normal),
        );
        hits.write(PointerHits::new(
            ray_id.pointer,
            vec![(hit.entity, data)],
            camera.order as f32,
        ));
    }
}
