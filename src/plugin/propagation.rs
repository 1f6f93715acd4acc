//! A warning, once, when colliders' `GlobalTransform`s are never
//! propagated (an app without `TransformPlugin`, e.g. `MinimalPlugins`
//! alone): every collider would sit at the origin and touch every other,
//! silently.
//!
//! The check looks at root colliders (no parent) whose `Transform` is not
//! the identity: propagation makes their `GlobalTransform` equal to it. One
//! seen with an identity `GlobalTransform` on two runs in a row (a collider
//! spawned after this frame's propagation has not been propagated yet)
//! means nothing propagates; one seen propagated ends the check for good.

use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;
use bevy_transform::components::{GlobalTransform, Transform};

use super::components::Collider;
use super::resources::CollisionDiagnostics;

/// What the check has seen so far.
#[derive(Default)]
pub(crate) enum Propagation {
    /// Nothing conclusive yet.
    #[default]
    Unknown,
    /// This root collider was not propagated on the last run.
    Suspect(Entity),
    /// Settled: propagation works, or the warning was given.
    Settled,
}

type Roots<'w, 's> = Query<
    'w,
    's,
    (Entity, &'static Transform, &'static GlobalTransform),
    (With<Collider>, Without<ChildOf>),
>;

/// The check's state and query, run by the pose sync before it reads the
/// transforms (a system of its own cost a system's scheduling every frame,
/// with nothing to do once settled).
#[derive(SystemParam)]
pub(crate) struct PropagationCheck<'w, 's> {
    seen: Local<'s, Propagation>,
    roots: Roots<'w, 's>,
}

impl PropagationCheck<'_, '_> {
    /// Looks once more, unless settled (then it costs nothing).
    pub(crate) fn check(&mut self, diagnostics: &mut CollisionDiagnostics) {
        if matches!(*self.seen, Propagation::Settled) {
            return;
        }
        let Some((e, transform, global)) = self
            .roots
            .iter()
            .find(|(_, t, _)| **t != Transform::IDENTITY)
        else {
            return;
        };
        if GlobalTransform::from(*transform) == *global || *global != GlobalTransform::IDENTITY {
            *self.seen = Propagation::Settled;
            return;
        }
        *self.seen = match *self.seen {
            Propagation::Suspect(s) if s == e => {
                log::warn!(
                    "bevy_icollide: collider {e} has a Transform but its GlobalTransform is never \
                     updated: add bevy_transform's TransformPlugin (DefaultPlugins has it), or \
                     every collider stays at the origin"
                );
                diagnostics.unpropagated_transforms = true;
                Propagation::Settled
            }
            _ => Propagation::Suspect(e),
        };
    }
}
