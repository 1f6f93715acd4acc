//! avian3d 0.8 in "detection only": the configuration both Bevy benches
//! (`plugin_frame`, `character_frame`) give avian, written once.
//!
//! What runs: transform sync, collider boxes and trees, broad phase,
//! narrow phase (contact manifolds), events, and the spatial queries if
//! asked for. What does not: the solver and its integrator, CCD, islands
//! and sleeping, joints, forces, interpolation.

use avian3d::prelude as av;
use bevy::prelude::*;

/// Adds avian's physics to `app` in `PostUpdate` without the solver and
/// what only serves it, gravity zero; its spatial queries kept only if
/// `spatial_queries` (a character's `MoveAndSlide` casts through them).
pub fn add_avian_detection(app: &mut App, spatial_queries: bool) {
    let mut plugins = av::PhysicsPlugins::new(PostUpdate)
        .build()
        .disable::<av::IntegratorPlugin>()
        .disable::<av::SolverPlugin>()
        .disable::<av::CcdPlugin>()
        .disable::<av::IslandPlugin>()
        .disable::<av::IslandSleepingPlugin>()
        .disable::<av::JointPlugin>()
        .disable::<av::ForcePlugin>()
        .disable::<av::PhysicsInterpolationPlugin>();
    if !spatial_queries {
        plugins = plugins.disable::<av::SpatialQueryPlugin>();
    }
    // Read before the plugins build: nothing writes bodies back to their
    // transforms (the app moves them), no scale to sync, and no contact
    // matching (it carries impulses over for the solver's warm start).
    app.insert_resource(avian3d::physics_transform::PhysicsTransformConfig {
        position_to_transform: false,
        transform_to_collider_scale: false,
        ..Default::default()
    })
    .insert_resource(av::NarrowPhaseConfig {
        match_contacts: false,
        ..Default::default()
    })
    .add_plugins(plugins)
    .insert_resource(av::Gravity(Vec3::ZERO));
}
