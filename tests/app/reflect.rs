//! Reflection (feature `reflect`): every public component, the events and
//! the diagnostics resource are registered, and an edit made through
//! reflection (as an inspector makes it) takes effect like a direct one.
#![cfg(feature = "reflect")]

use bevy_app::prelude::*;
use bevy_ecs::reflect::{AppTypeRegistry, ReflectComponent, ReflectResource};
use bevy_icollide::prelude::*;
use bevy_reflect::ReflectMut;
use bevy_transform::prelude::*;
use glam::Vec3;

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()));
    app
}

#[test]
fn public_types_are_registered() {
    let app = app();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let components = [
        "Collider",
        "ColliderPose",
        "ColliderAabb",
        "CollisionLayers",
        "DeformedVertices",
        "StaticCollider",
        "Sensor",
        "SweptCcd",
        "MaxFrameMotion",
        "CollisionEventsEnabled",
        "CollidingEntities",
        #[cfg(feature = "bevy_asset")]
        "ColliderConstructor",
        #[cfg(feature = "bevy_asset")]
        "ColliderConstructorHierarchy",
        #[cfg(feature = "bevy_asset")]
        "DeformableMesh",
    ];
    for name in components {
        let reg = registry
            .get_with_short_type_path(name)
            .unwrap_or_else(|| panic!("{name} is not registered"));
        assert!(
            reg.data::<ReflectComponent>().is_some(),
            "{name} reflects as a component"
        );
    }
    for name in ["LayerMask", "CollisionStart", "CollisionEnd"] {
        assert!(registry.get_with_short_type_path(name).is_some(), "{name}");
    }
    let diag = registry
        .get_with_short_type_path("CollisionDiagnostics")
        .expect("diagnostics registered");
    assert!(diag.data::<ReflectResource>().is_some());
}

#[test]
fn a_reflected_edit_of_layers_takes_effect() {
    let mut app = app();
    let cube = || Collider::cuboid(1.0, 1.0, 1.0);
    let a = app
        .world_mut()
        .spawn((cube(), Transform::from_xyz(0.0, 0.0, 0.0)))
        .id();
    let b = app
        .world_mut()
        .spawn((
            cube(),
            Transform::from_xyz(0.8, 0.0, 0.0),
            CollisionLayers::default(),
        ))
        .id();
    app.update();
    let touching = |app: &App| app.world().get::<CollidingEntities>(a).unwrap().contains(b);
    assert!(touching(&app), "overlapping cubes touch");

    // As an inspector does: find the component's reflection by name and
    // set a field.
    let registry = app.world().resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let reflect_layers = registry
        .get_with_short_type_path("CollisionLayers")
        .and_then(|r| r.data::<ReflectComponent>())
        .expect("CollisionLayers reflects");
    let mut entity = app.world_mut().entity_mut(b);
    let mut layers = reflect_layers.reflect_mut(&mut entity).expect("has layers");
    let ReflectMut::Struct(fields) = layers.reflect_mut() else {
        panic!("CollisionLayers reflects as a struct");
    };
    fields
        .field_mut("filters")
        .expect("filters field")
        .apply(&LayerMask::NONE);
    app.update();
    assert!(!touching(&app), "b filters everything out after the edit");
    assert_eq!(
        app.world().get::<CollisionLayers>(b).unwrap().filters,
        LayerMask::NONE
    );
}

#[test]
fn poses_and_boxes_serialize_through_reflection() {
    // What a scene file does with a component: serialize it through the
    // type registry and read it back.
    use bevy_reflect::serde::{TypedReflectDeserializer, TypedReflectSerializer};
    use bevy_reflect::{FromReflect, PartialReflect};
    use serde::de::DeserializeSeed;
    let app = app();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let pose = ColliderPose(Pose::new(
        glam::Quat::from_rotation_y(0.5),
        Vec3::new(1.0, -2.0, 3.5),
    ));
    let aabb = ColliderAabb(Aabb::from_center_half_extents(Vec3::ONE, Vec3::splat(0.25)));
    fn round_trip<T: FromReflect + PartialReflect + bevy_reflect::TypePath>(
        value: &T,
        registry: &bevy_reflect::TypeRegistry,
    ) -> T {
        let json = serde_json::to_string(&TypedReflectSerializer::new(value, registry))
            .expect("serializes");
        let registration = registry
            .get(std::any::TypeId::of::<T>())
            .expect("registered");
        let mut de = serde_json::Deserializer::from_str(&json);
        let back = TypedReflectDeserializer::new(registration, registry)
            .deserialize(&mut de)
            .expect("deserializes");
        T::from_reflect(back.as_ref()).expect("same type")
    }
    assert_eq!(round_trip(&pose, &registry), pose);
    assert_eq!(round_trip(&aabb, &registry), aabb);
}
