//! Reflection: the plugin registers every public component, its events and
//! its diagnostics resource, so inspectors (bevy-inspector-egui) and scene
//! files see them (feature `reflect`, on by default).
//!
//! Types holding the collision core's values (`Collider`'s shared shape,
//! `ColliderPose`, `ColliderAabb`, `CollisionDiagnostics`) are reflected
//! *opaque*: shown, cloned and compared whole, since the core does not
//! depend on bevy. The rest reflect field by field and can be edited.
//! `CollisionState` (the collision world itself) is not reflected.

use bevy_app::App;

use super::{
    Collider, ColliderAabb, ColliderPose, CollidingEntities, CollisionDiagnostics, CollisionEnd,
    CollisionEventsEnabled, CollisionLayers, CollisionStart, DeformedVertices, LayerMask,
    MaxFrameMotion, Sensor, StaticCollider, SweptCcd,
};

/// Registers the plugin's reflected types.
pub(super) fn register(app: &mut App) {
    app.register_type::<Collider>()
        .register_type::<ColliderPose>()
        .register_type::<ColliderAabb>()
        .register_type::<LayerMask>()
        .register_type::<CollisionLayers>()
        .register_type::<DeformedVertices>()
        .register_type::<StaticCollider>()
        .register_type::<Sensor>()
        .register_type::<SweptCcd>()
        .register_type::<MaxFrameMotion>()
        .register_type::<CollisionEventsEnabled>()
        .register_type::<CollidingEntities>()
        .register_type::<CollisionStart>()
        .register_type::<CollisionEnd>()
        .register_type::<CollisionDiagnostics>();
    #[cfg(feature = "bevy_asset")]
    app.register_type::<super::ColliderConstructor>()
        .register_type::<super::ColliderConstructorHierarchy>()
        .register_type::<super::ColliderConstructorError>()
        .register_type::<super::DeformableMesh>();
}
