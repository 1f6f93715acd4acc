//! Kinematic characters as components: the core's
//! [`CharacterController`] (slope limit, steps, snapping, platforms; see
//! [`crate::character`]) run by a system on every entity with a
//! [`KinematicCharacter`], as bevy_rapier3d's `KinematicCharacterController`
//! users expect: set [`KinematicCharacter::desired_motion`] each frame, read
//! [`KinematicCharacterOutput`] after the move.
//!
//! The crate has no dynamics: what a character pushes is *reported* — each
//! touch in [`KinematicCharacterOutput::hits`] carries the push the
//! character would apply (its motion into the touched body along the
//! normal), and touches of bodies that are not [`StaticCollider`]s are
//! also written as [`CharacterPush`] messages for a physics or gameplay
//! system to act on. A kinematic body the character stands on (its ground)
//! carries it: when that body's pose changes between two moves, the
//! character is moved with it ([`platform_motion`]) before its own move.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy_transform::TransformSystems;
use bevy_transform::components::Transform;
use glam::Vec3;

use super::components::{Collider, StaticCollider};
use super::resources::CollisionState;
use super::spatial::{SpatialQueryFilter, core_filter, excluded_bodies};
use crate::character::{CharacterController, ControllerOptions, Touch, platform_motion};
use crate::math::Pose;
use crate::pipeline::BodyHandle;

/// Runs [`move_characters`] in a schedule (default `PostUpdate`), before
/// transform propagation: a character's new pose is propagated and synced
/// into the collision world in the same frame.
pub struct CharacterPlugin {
    schedule: InternedScheduleLabel,
}

impl Default for CharacterPlugin {
    fn default() -> Self {
        Self::new(PostUpdate)
    }
}

impl CharacterPlugin {
    /// Runs the characters' moves in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        CharacterPlugin {
            schedule: schedule.intern(),
        }
    }
}

impl Plugin for CharacterPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<CharacterPush>().add_systems(
            self.schedule,
            move_characters.before(TransformSystems::Propagate),
        );
    }
}

/// A kinematic character: the entity's [`Collider`] walks by
/// [`Self::desired_motion`] each frame through every collider `filter`
/// passes (the entity itself is never an obstacle). The entity's
/// `Transform` is its world pose (a root entity: not a child); its
/// rotation is kept.
#[derive(Component, Debug, Default)]
#[require(KinematicCharacterOutput)]
pub struct KinematicCharacter {
    /// How it walks (skin, slope limit, step height, snapping).
    pub options: ControllerOptions,
    /// The translation wanted for the next move (world space); set to zero
    /// once moved.
    pub desired_motion: Vec3,
    /// What it may pass through (layers, excluded entities).
    pub filter: SpatialQueryFilter,
    controller: CharacterController,
    /// The body stood on after the last move and its pose then.
    riding: Option<(BodyHandle, Pose)>,
    exclude: Vec<BodyHandle>,
}

impl KinematicCharacter {
    /// A character walking with these options.
    pub fn new(options: ControllerOptions) -> Self {
        KinematicCharacter {
            options,
            ..Default::default()
        }
    }
}

/// A touch of the last move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterHit {
    /// The collider touched.
    pub entity: Entity,
    /// Closest point on it, world space.
    pub point: Vec3,
    /// Unit normal from it toward the character.
    pub normal: Vec3,
    /// Whether it is a [`StaticCollider`].
    pub is_static: bool,
    /// The push the character would apply: its desired motion's part into
    /// the body (`max(0, −motion·normal) · −normal`; divide by the frame's
    /// time for a velocity).
    pub push: Vec3,
}

/// The ground a character stands on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CharacterGround {
    /// The collider stood on.
    pub entity: Entity,
    /// Its normal (within the slope limit).
    pub normal: Vec3,
    /// The closest point on it.
    pub point: Vec3,
}

/// What the last move of a [`KinematicCharacter`] did.
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct KinematicCharacterOutput {
    /// The translation applied (the carry included).
    pub translation: Vec3,
    /// What carried it (its ground's motion) before its own move.
    pub carried: Vec3,
    /// The ground after the move, if it stands on walkable ground.
    pub ground: Option<CharacterGround>,
    /// The height of the step climbed (0: none).
    pub stepped: f32,
    /// How far it was snapped down (0: not).
    pub snapped: f32,
    /// Every part touched by the slide (buffer reused from move to move).
    pub hits: Vec<CharacterHit>,
    /// The move failed (a pose or an option the core refused): nothing
    /// moved; the error is logged once per character.
    pub error: Option<crate::query::QueryError>,
}

impl KinematicCharacterOutput {
    /// Standing on walkable ground.
    pub fn grounded(&self) -> bool {
        self.ground.is_some()
    }
}

/// A character touched a collider that is not a [`StaticCollider`] (one a
/// physics or gameplay system may move): the push it would apply.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct CharacterPush {
    /// The character.
    pub character: Entity,
    /// The touch (`hit.push` is the push).
    pub hit: CharacterHit,
}

/// The characters of one frame.
type CharacterItem = (
    Entity,
    &'static Collider,
    &'static mut Transform,
    &'static mut KinematicCharacter,
    &'static mut KinematicCharacterOutput,
);

/// Moves every [`KinematicCharacter`] by its desired motion against the
/// collision world of the last collision frame (one that is not in it yet,
/// spawned since, waits: so does the level spawned with it): carried by the body it
/// stood on if that body moved, then walked (the core's
/// [`CharacterController::move_character`]); the touches reported, the
/// pushes on non-static bodies written as [`CharacterPush`] messages.
pub fn move_characters(
    state: Res<CollisionState>,
    mut characters: Query<CharacterItem>,
    statics: Query<(), With<StaticCollider>>,
    mut pushes: MessageWriter<CharacterPush>,
) {
    for (entity, collider, mut transform, mut character, mut out) in &mut characters {
        // Not in the collision world yet (spawned this frame): neither is
        // what was spawned with it, so it waits for the next frame.
        if !state.entity_body.contains_key(&entity) {
            continue;
        }
        let c = &mut *character;
        let motion = std::mem::take(&mut c.desired_motion);
        move_one(
            &state,
            (entity, collider, &mut transform),
            c,
            motion,
            &mut out,
        );
        if out.error.is_some() {
            continue;
        }
        for hit in out.hits.iter_mut() {
            hit.is_static = statics.contains(hit.entity);
            if !hit.is_static {
                pushes.write(CharacterPush {
                    character: entity,
                    hit: *hit,
                });
            }
        }
    }
}

/// One character's carry and walk; fills `out`.
fn move_one(
    state: &CollisionState,
    (entity, collider, transform): (Entity, &Collider, &mut Transform),
    c: &mut KinematicCharacter,
    motion: Vec3,
    out: &mut KinematicCharacterOutput,
) {
    let world = &state.world;
    let carried = carry(state, c.riding, transform.translation);
    let start = Pose::new(transform.rotation, transform.translation + carried);
    excluded_bodies(state, &c.filter, &mut c.exclude);
    c.exclude.extend(state.entity_body.get(&entity).copied());
    let filter = core_filter(&c.filter, &c.exclude);
    c.controller.options = c.options;
    out.hits.clear();
    let hits = &mut out.hits;
    let moved =
        c.controller
            .move_character(world, (collider.shape(), start), motion, filter, |t| {
                hits.extend(hit_of(state, t, motion));
                true
            });
    match moved {
        Ok(m) => {
            transform.translation = m.pose.translation;
            out.translation = m.pose.translation - start.translation + carried;
            out.carried = carried;
            out.ground = m.ground.and_then(|g| {
                Some(CharacterGround {
                    entity: state.entity(g.body)?,
                    normal: g.normal,
                    point: g.point,
                })
            });
            (out.stepped, out.snapped, out.error) = (m.stepped, m.snapped, None);
            c.riding = m.ground.and_then(|g| Some((g.body, world.pose(g.body)?)));
        }
        Err(e) => {
            if out.error.is_none() {
                log::warn!("bevy_icollide: character {entity}: {e}");
            }
            out.error = Some(e);
        }
    }
}

/// How far the body stood on moved `point` since the last move.
fn carry(state: &CollisionState, riding: Option<(BodyHandle, Pose)>, point: Vec3) -> Vec3 {
    let Some((body, then)) = riding else {
        return Vec3::ZERO;
    };
    match state.world.pose(body) {
        Some(now) if now != then => platform_motion(&then, &now, point),
        _ => Vec3::ZERO,
    }
}

/// A touch as a hit, with the push of `motion` into it (`is_static` filled
/// by the caller).
fn hit_of(state: &CollisionState, t: &Touch, motion: Vec3) -> Option<CharacterHit> {
    Some(CharacterHit {
        entity: state.entity(t.body)?,
        point: t.point,
        normal: t.normal,
        is_static: false,
        push: (-motion.dot(t.normal)).max(0.0) * -t.normal,
    })
}
