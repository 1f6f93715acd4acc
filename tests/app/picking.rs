//! The `bevy_picking` backend (feature `picking`): for every ray of the
//! picking `RayMap`, the collider it reports is the nearest one a ray cast
//! against every collider finds (O(n) per ray), at the same distance; an
//! entity with `Pickable::IGNORE` is seen through.
//!
//! Run: `cargo test --features picking --test picking`.
#![cfg(feature = "picking")]

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::geometry::ray::Ray;
use bevy_icollide::prelude::*;
use bevy_icollide::query;
use bevy_icollide::testkit::{Rng, torus};
use bevy_picking::backend::ray::{RayId, RayMap};
use bevy_picking::backend::{HitData, PointerHits};
use bevy_picking::pointer::PointerId;
use bevy_picking::prelude::Pickable;
use glam::Vec3;

#[derive(Resource, Default)]
struct Hits(Vec<PointerHits>);

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((CollisionPlugin::default(), CollisionPickingPlugin))
        .init_resource::<RayMap>()
        .init_resource::<Hits>()
        .add_message::<PointerHits>()
        .add_systems(
            Last,
            |mut m: MessageReader<PointerHits>, mut h: ResMut<Hits>| {
                h.0.extend(m.read().cloned());
            },
        );
    app
}

/// The nearest pickable collider on the ray, by a ray cast against each.
fn brute_force(bodies: &[(Entity, SharedShape, Pose, bool)], ray: &Ray) -> Option<(Entity, f32)> {
    bodies
        .iter()
        .filter(|b| !b.3)
        .filter_map(|(e, shape, pose, _)| {
            let hit = query::ray_cast(shape, pose, ray, f32::INFINITY).expect("valid")?;
            Some((*e, hit.toi))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

#[test]
fn picks_equal_a_ray_cast_against_every_collider() {
    let mut app = app();
    let camera = app.world_mut().spawn(bevy_camera::Camera::default()).id();
    let mut rng = Rng::new(17);
    let (pos, tris) = torus(1.0, 0.3, 16, 8);
    let ring = SharedShape::trimesh(pos, tris).unwrap();
    let mut bodies = Vec::new();
    for i in 0..40 {
        let shape = if i % 5 == 0 {
            ring.clone()
        } else {
            SharedShape::cuboid(rng.vec(0.2, 0.8)).unwrap()
        };
        let pose = Pose::new(rng.rotation(), rng.in_cube(6.0));
        let ignored = i % 7 == 3;
        let mut e = app
            .world_mut()
            .spawn((Collider::new(shape.clone()), ColliderPose(pose)));
        if ignored {
            e.insert(Pickable::IGNORE);
        }
        bodies.push((e.id(), shape, pose, ignored));
    }
    app.update();
    let (mut hit, mut missed) = (0, 0);
    for round in 0..200 {
        let origin = rng.in_cube(12.0);
        let target = rng.in_cube(4.0);
        let ray = Ray::new(origin, (target - origin).normalize());
        let pointer = PointerId::Touch(round);
        let mut rays = app.world_mut().resource_mut::<RayMap>();
        rays.map.clear();
        rays.map.insert(
            RayId::new(camera, pointer),
            bevy_shape::Ray3d::new(ray.origin, bevy_math::Dir3::new(ray.dir).unwrap()),
        );
        app.world_mut().resource_mut::<Hits>().0.clear();
        app.update();
        let got: Vec<(Entity, HitData)> = app
            .world()
            .resource::<Hits>()
            .0
            .iter()
            .flat_map(|h| {
                assert_eq!(h.pointer, pointer);
                h.picks.clone()
            })
            .collect();
        match brute_force(&bodies, &ray) {
            Some((e, toi)) => {
                assert_eq!(got.len(), 1, "round {round}: {got:?}");
                let (entity, data) = &got[0];
                assert_eq!(*entity, e, "round {round}");
                assert!(
                    (data.depth - toi).abs() <= 1e-4 * toi.max(1.0),
                    "round {round}"
                );
                let point = data.position.expect("a point");
                assert!((point - ray.at(toi)).length() <= 1e-3, "round {round}");
                assert_eq!(data.camera, camera);
                hit += 1;
            }
            None => {
                assert!(got.is_empty(), "round {round}: {got:?}");
                missed += 1;
            }
        }
    }
    // Both outcomes were exercised.
    assert!(hit > 20 && missed > 20, "{hit} hits, {missed} misses");
}

#[test]
fn cameras_without_the_marker_pick_nothing_when_markers_are_required() {
    let mut app = app();
    app.insert_resource(CollisionPickingSettings {
        require_markers: true,
        ..Default::default()
    });
    let plain = app.world_mut().spawn(bevy_camera::Camera::default()).id();
    let marked = app
        .world_mut()
        .spawn((bevy_camera::Camera::default(), CollisionPickingCamera))
        .id();
    app.world_mut()
        .spawn((Collider::cuboid(2.0, 2.0, 2.0), ColliderPose::default()));
    app.update();
    let ray = bevy_shape::Ray3d::new(Vec3::new(0.0, 0.0, -5.0), bevy_math::Dir3::Z);
    let mut rays = app.world_mut().resource_mut::<RayMap>();
    rays.map.insert(RayId::new(plain, PointerId::Mouse), ray);
    rays.map
        .insert(RayId::new(marked, PointerId::Touch(1)), ray);
    app.update();
    let hits = &app.world().resource::<Hits>().0;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].pointer, PointerId::Touch(1));
    assert!((hits[0].picks[0].1.depth - 4.0).abs() < 1e-5);
}

#[test]
fn picking_settings_are_reflected_and_editable() {
    use bevy_ecs::reflect::{AppTypeRegistry, ReflectResource};
    use bevy_reflect::GetPath;
    let mut app = app();
    let types = app.world().resource::<AppTypeRegistry>().clone();
    let registry = types.read();
    for name in [
        "CollisionPickingSettings",
        "CollisionPickingCamera",
        "SpatialQueryFilter",
    ] {
        assert!(registry.get_with_short_type_path(name).is_some(), "{name}");
    }
    let reg = registry
        .get_with_short_type_path("CollisionPickingSettings")
        .expect("registered");
    assert!(
        reg.data::<ReflectResource>().is_some(),
        "reflects as a resource"
    );
    drop(registry);
    // An inspector's edit: through reflection, by field path.
    let mut settings = app.world_mut().resource_mut::<CollisionPickingSettings>();
    *settings
        .reflect_path_mut("max_distance")
        .expect("field")
        .try_downcast_mut::<f32>()
        .expect("f32") = 12.5;
    assert_eq!(
        app.world()
            .resource::<CollisionPickingSettings>()
            .max_distance,
        12.5
    );
}
