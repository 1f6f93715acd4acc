//! The `MoveAndSlide` system parameter: the core's move and slide
//! ([`crate::character`]) against the plugin's collision world, with
//! entities in place of body handles (named after avian3d's).

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use glam::{Quat, Vec3};

use super::components::Collider;
use super::resources::CollisionState;
use super::spatial::{SpatialQueryFilter, core_filter, excluded_bodies};
use crate::character::{SlideOptions, SlideOutput, Slider};
use crate::math::Pose;
use crate::pipeline::BodyHandle;
use crate::query::QueryError;

/// A part of a collider the sliding shape touched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveAndSlideHit {
    /// The collider touched.
    pub entity: Entity,
    /// Closest (or deepest) point on it, world space.
    pub point: Vec3,
    /// Unit normal from the collider toward the sliding shape.
    pub normal: Vec3,
    /// Distance between them (negative: penetration depth).
    pub gap: f32,
    /// The collider's compound piece (0 for one that is not a compound).
    pub piece: u32,
    /// The triangle touched, for a triangle mesh.
    pub triangle: Option<u32>,
}

/// Move and slide against every collider, for character and camera
/// systems: see [`crate::character`] (what it guarantees, how it works).
/// Keeps its buffers between calls of one system.
///
/// **Timing.** As [`SpatialQuery`](super::SpatialQuery): colliders at the
/// poses of the last run of the plugin's systems.
#[derive(SystemParam)]
pub struct MoveAndSlide<'w, 's> {
    state: Res<'w, CollisionState>,
    buffers: Local<'s, SlideBuffers>,
}

/// What [`MoveAndSlide`] keeps between calls: the slider's buffers and the
/// excluded bodies (no allocation per call once warm).
#[derive(Default)]
struct SlideBuffers {
    slider: Slider,
    exclude: Vec<BodyHandle>,
}

impl MoveAndSlide<'_, '_> {
    /// Moves `shape` from `(position, rotation)` by `motion` (the rotation
    /// is kept) through the colliders `filter` passes, sliding along what
    /// it touches; `on_hit` hears of every part touched and returns `false`
    /// to stop there. Errors: a NaN, infinite or non-unit pose, a NaN or
    /// infinite motion, bad options ([`SlideOptions::check`]).
    pub fn move_and_slide(
        &mut self,
        (shape, position, rotation): (&Collider, Vec3, Quat),
        motion: Vec3,
        options: &SlideOptions,
        filter: &SpatialQueryFilter,
        mut on_hit: impl FnMut(&MoveAndSlideHit) -> bool,
    ) -> Result<SlideOutput, QueryError> {
        let state = &*self.state;
        let SlideBuffers { slider, exclude } = &mut *self.buffers;
        excluded_bodies(state, filter, exclude);
        let core = core_filter(filter, exclude);
        slider.options = *options;
        let pose = Pose::new(rotation, position);
        slider.move_and_slide(&state.world, (shape.shape(), pose), motion, core, |t| {
            let Some(entity) = state.entity(t.body) else {
                return true;
            };
            on_hit(&MoveAndSlideHit {
                entity,
                point: t.point,
                normal: t.normal,
                gap: t.gap,
                piece: t.piece,
                triangle: t.triangle,
            })
        })
    }
}
