//! [`CollisionPairConfig`]: I-COLLIDE's pair configuration for game code,
//! a view on the collision world's own.

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;

use super::resources::{CollisionState, PairConfigRequest};

/// I-COLLIDE's pair configuration: deactivate and reactivate specific pairs
/// or whole entities at run time. A deactivated pair never reaches the
/// narrow phase; if it was touching, it ends with a `CollisionEnd`.
///
/// This is a view on the collision world's configuration, which is stored
/// once, there ([`CollisionWorld::set_pair_enabled`],
/// [`CollisionWorld::set_active`]); changes take effect at the next run of
/// the plugin's systems. A request about an entity that has no collider
/// yet waits and applies when its collider appears. The configuration
/// belongs to the collider: removing an entity's `Collider` forgets it.
///
/// [`CollisionWorld::set_pair_enabled`]: crate::pipeline::CollisionWorld::set_pair_enabled
/// [`CollisionWorld::set_active`]: crate::pipeline::CollisionWorld::set_active
#[derive(SystemParam)]
pub struct CollisionPairConfig<'w> {
    state: ResMut<'w, CollisionState>,
}

impl CollisionPairConfig<'_> {
    /// Stops testing the pair `(a, b)`.
    pub fn deactivate_pair(&mut self, a: Entity, b: Entity) {
        set_pair(&mut self.state, a, b, false);
    }

    /// Tests the pair `(a, b)` again.
    pub fn activate_pair(&mut self, a: Entity, b: Entity) {
        set_pair(&mut self.state, a, b, true);
    }

    /// Stops testing every pair of `e`.
    pub fn deactivate_entity(&mut self, e: Entity) {
        set_entity(&mut self.state, e, false);
    }

    /// Tests the pairs of `e` again (those not deactivated one by one).
    pub fn activate_entity(&mut self, e: Entity) {
        set_entity(&mut self.state, e, true);
    }

    /// Whether the pair itself is active (entity activity aside).
    pub fn is_pair_active(&self, a: Entity, b: Entity) -> bool {
        let pending = self
            .state
            .pending_config
            .iter()
            .rev()
            .find_map(|r| match *r {
                PairConfigRequest::Pair(x, y, on) if (x, y) == (a, b) || (x, y) == (b, a) => {
                    Some(on)
                }
                _ => None,
            });
        pending.unwrap_or_else(|| {
            self.state
                .bodies(a, b)
                .and_then(|(ha, hb)| self.state.world.is_pair_enabled(ha, hb).ok())
                .unwrap_or(true)
        })
    }

    /// Whether the entity is active.
    pub fn is_entity_active(&self, e: Entity) -> bool {
        let pending = self
            .state
            .pending_config
            .iter()
            .rev()
            .find_map(|r| match *r {
                PairConfigRequest::Entity(x, on) if x == e => Some(on),
                _ => None,
            });
        pending.unwrap_or_else(|| {
            self.state
                .entity_body
                .get(&e)
                .and_then(|&h| self.state.world.is_active(h).ok())
                .unwrap_or(true)
        })
    }
}

fn set_pair(state: &mut CollisionState, a: Entity, b: Entity, on: bool) {
    match state.bodies(a, b) {
        // Both handles come from the live map.
        Some((ha, hb)) => {
            let _ = state.world.set_pair_enabled(ha, hb, on);
        }
        None => state.pending_config.push(PairConfigRequest::Pair(a, b, on)),
    }
}

fn set_entity(state: &mut CollisionState, e: Entity, on: bool) {
    match state.entity_body.get(&e) {
        Some(&h) => {
            let _ = state.world.set_active(h, on);
        }
        None => state.pending_config.push(PairConfigRequest::Entity(e, on)),
    }
}

/// Applies the waiting requests that `e`'s new collider makes possible.
pub(crate) fn apply_pending(state: &mut CollisionState, e: Entity) {
    if state.pending_config.is_empty() {
        return;
    }
    let mut requests = std::mem::take(&mut state.pending_config);
    requests.retain(|r| {
        let ready = match *r {
            PairConfigRequest::Pair(a, b, on) if a == e || b == e => state
                .bodies(a, b)
                .map(|(ha, hb)| state.world.set_pair_enabled(ha, hb, on)),
            PairConfigRequest::Entity(x, on) if x == e => state
                .entity_body
                .get(&x)
                .map(|&h| state.world.set_active(h, on)),
            _ => None,
        };
        ready.is_none()
    });
    state.pending_config = requests;
}
