//! The entity → body table: a slot per entity index, the entity kept in
//! the slot to tell a live entity from a despawned one that had its index.
//!
//! The pose sync looks up every changed collider's body each frame, and
//! under churn the new and despawned colliders insert and remove entries.
//! A hash map's lookup reads a control byte and then a bucket (two cache
//! misses once the table outgrows the cache, the entities coming in Bevy's
//! table order); a slot indexed by the entity's index is one read. The same
//! layout as Bevy's own sparse sets: memory follows the largest entity
//! index that has a collider (16 bytes a slot).
//!
//! One entity per index at a time: the plugin takes a despawned
//! collider's body out (`RemovedComponents`, read before new colliders)
//! before an entity reusing the index gets one.

use bevy_ecs::entity::Entity;

use crate::pipeline::BodyHandle;

/// Entities with a collider and their bodies (a map's API, by index).
#[derive(Default)]
pub(crate) struct EntityBodies {
    slots: Vec<Option<(Entity, BodyHandle)>>,
}

impl EntityBodies {
    /// The body of `e`, if `e` (this generation) has one.
    #[inline]
    pub(crate) fn get(&self, e: &Entity) -> Option<&BodyHandle> {
        match self.slots.get(e.index_u32() as usize) {
            Some(Some((owner, body))) if owner == e => Some(body),
            _ => None,
        }
    }

    /// Whether `e` has a body.
    pub(crate) fn contains_key(&self, e: &Entity) -> bool {
        self.get(e).is_some()
    }

    /// Gives `e` the body `body`; the body it had, if any. An entry left
    /// by an older entity with the same index is replaced.
    pub(crate) fn insert(&mut self, e: Entity, body: BodyHandle) -> Option<BodyHandle> {
        let i = e.index_u32() as usize;
        if self.slots.len() <= i {
            self.slots.resize(i + 1, None);
        }
        match self.slots[i].replace((e, body)) {
            Some((owner, old)) if owner == e => Some(old),
            _ => None,
        }
    }

    /// Takes the body of `e` out of the table.
    pub(crate) fn remove(&mut self, e: &Entity) -> Option<BodyHandle> {
        let slot = self.slots.get_mut(e.index_u32() as usize)?;
        match *slot {
            Some((owner, body)) if owner == *e => {
                *slot = None;
                Some(body)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;
    use bevy_ecs::entity::EntityHashMap;
    use bevy_ecs::world::World;

    /// Random inserts, removes and lookups, with entities despawned and
    /// spawned again (their indices reused at a new generation: a
    /// despawned entity's lookups must not find its successor's body),
    /// against a hash map.
    #[test]
    fn matches_a_hash_map_under_churn() {
        let mut rng = Rng::new(0x5eed_b0d1);
        let mut world = World::new();
        let mut live: Vec<Entity> = (0..64).map(|_| world.spawn_empty().id()).collect();
        let mut dead = Vec::new();
        let (mut table, mut map) = (EntityBodies::default(), EntityHashMap::default());
        let mut next = 0u64;
        for step in 0..20_000 {
            let e = live[rng.below(live.len())];
            match rng.below(5) {
                0 => {
                    next += 1;
                    let body = BodyHandle::from_bits(next);
                    assert_eq!(table.insert(e, body), map.insert(e, body), "step {step}");
                }
                1 => assert_eq!(table.remove(&e), map.remove(&e), "step {step}"),
                2 => {
                    // Despawn, the body taken out first (as the plugin does).
                    let x = live.swap_remove(rng.below(live.len()));
                    assert_eq!(table.remove(&x), map.remove(&x), "step {step}");
                    world.despawn(x);
                    dead.push(x);
                    live.push(world.spawn_empty().id());
                }
                3 if !dead.is_empty() => {
                    // A despawned entity's removal leaves its successor's body.
                    let x = dead[rng.below(dead.len())];
                    assert_eq!(table.remove(&x), map.remove(&x), "step {step}");
                }
                _ => {}
            }
            for x in live.iter().chain(&dead) {
                assert_eq!(table.get(x), map.get(x), "step {step}: {x}");
                assert_eq!(table.contains_key(x), map.contains_key(x));
            }
            if dead.len() > 32 {
                dead.remove(0);
            }
        }
    }
}
