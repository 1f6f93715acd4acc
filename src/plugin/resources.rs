//! Resources: the collision world behind the plugin, the pair configuration,
//! the read-only `Collisions` system parameter and per-stage diagnostics.

use std::collections::HashSet;
use std::time::Duration;

use bevy_ecs::entity::{EntityHashMap, EntityHashSet};
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;

use crate::narrow_phase::compound::PiecePair;
use crate::narrow_phase::{ContactData, PairCache, PairState};
use crate::world::{BodyId, CollisionWorld, WorldStats};

/// The collision world and the entity ↔ body maps. Read it through
/// [`Collisions`]; the plugin's systems are the only writers.
#[derive(Resource, Default)]
pub struct CollisionState {
    pub(crate) world: CollisionWorld,
    pub(crate) entity_body: EntityHashMap<BodyId>,
    pub(crate) body_entity: Vec<Option<Entity>>,
    /// Entities already warned about an unusable pose (cleared when valid).
    pub(crate) warned: EntityHashSet,
}

impl CollisionState {
    pub(crate) fn entity(&self, body: BodyId) -> Option<Entity> {
        self.body_entity.get(body.0 as usize).copied().flatten()
    }

    pub(crate) fn link(&mut self, e: Entity, body: BodyId) {
        let i = body.0 as usize;
        if self.body_entity.len() <= i {
            self.body_entity.resize(i + 1, None);
        }
        self.body_entity[i] = Some(e);
        self.entity_body.insert(e, body);
    }
}

/// Read-only access to collision results, for gameplay systems.
#[derive(SystemParam)]
pub struct Collisions<'w> {
    state: Res<'w, CollisionState>,
}

impl Collisions<'_> {
    /// Whether `a` and `b` are touching now.
    pub fn contains(&self, a: Entity, b: Entity) -> bool {
        self.pair(a, b).is_some_and(|s| s.result.touching)
    }

    /// The cached state of the pair `(a, b)`, if their boxes overlap and the
    /// pair is enabled.
    pub fn pair(&self, a: Entity, b: Entity) -> Option<&PairState> {
        let (ba, bb) = (
            self.state.entity_body.get(&a)?,
            self.state.entity_body.get(&b)?,
        );
        self.state.world.pair(*ba, *bb)
    }

    /// Contact data of the pair, seen from `a` (the normal points from `a`
    /// to `b`): closest features, distance or penetration depth, normal and
    /// points. `None` when the boxes do not overlap, or the pair kind does
    /// not compute contact data (see [`crate::narrow_phase`]), or a sensor
    /// is involved and they touch.
    pub fn contact(&self, a: Entity, b: Entity) -> Option<ContactData> {
        let (ba, bb) = (
            self.state.entity_body.get(&a)?,
            self.state.entity_body.get(&b)?,
        );
        let c = self.state.world.pair(*ba, *bb)?.result.contact?;
        // The pair stores A = the smaller body id.
        Some(if ba < bb { c } else { c.flipped() })
    }

    /// For pairs involving a triangle mesh: the intersecting triangle pairs
    /// `[triangle of a, triangle of b]` (all of them; the first one only if a
    /// sensor is involved). `None` for other pair kinds or when the boxes do
    /// not overlap.
    pub fn triangle_pairs(&self, a: Entity, b: Entity) -> Option<Vec<[u32; 2]>> {
        let (ba, bb) = (
            self.state.entity_body.get(&a)?,
            self.state.entity_body.get(&b)?,
        );
        let PairCache::Mesh(pairs) = &self.state.world.pair(*ba, *bb)?.cache else {
            return None;
        };
        // The pair stores the smaller body id first.
        Some(if ba < bb {
            pairs.clone()
        } else {
            pairs.iter().map(|&[x, y]| [y, x]).collect()
        })
    }

    /// For pairs involving a compound: the touching piece pairs, seen from
    /// `a` (`pieces` = `[piece of a, piece of b]`, 0 for a side that is not
    /// a compound), each with what its pair kind computes: contact data for
    /// two convex pieces, triangle pairs with a mesh. Sorted by pieces.
    /// `None` for other pair kinds or when the boxes do not overlap.
    pub fn touching_pieces(&self, a: Entity, b: Entity) -> Option<Vec<PieceContact>> {
        let (ba, bb) = (
            self.state.entity_body.get(&a)?,
            self.state.entity_body.get(&b)?,
        );
        let PairCache::Compound(c) = &self.state.world.pair(*ba, *bb)?.cache else {
            return None;
        };
        let flip = ba > bb;
        let mut out: Vec<PieceContact> = c.touching().map(|p| PieceContact::new(p, flip)).collect();
        out.sort_by_key(|p| p.pieces);
        Some(out)
    }

    /// Every touching pair, in no particular order.
    pub fn touching(&self) -> impl Iterator<Item = (Entity, Entity)> + '_ {
        self.state.world.pairs().filter_map(|([a, b], s)| {
            s.result
                .touching
                .then(|| Some((self.state.entity(a)?, self.state.entity(b)?)))
                .flatten()
        })
    }

    /// The underlying collision world (boxes, broad phase, statistics).
    pub fn world(&self) -> &CollisionWorld {
        &self.state.world
    }

    /// The body of an entity's collider, once it has one.
    pub fn body(&self, e: Entity) -> Option<BodyId> {
        self.state.entity_body.get(&e).copied()
    }
}

/// A touching piece pair of a compound pair (see
/// [`Collisions::touching_pieces`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PieceContact {
    /// `[piece of a, piece of b]`.
    pub pieces: [u32; 2],
    /// Contact data, for two convex pieces (not for sensors).
    pub contact: Option<ContactData>,
    /// Intersecting triangle pairs `[of a's piece, of b's piece]`, when a
    /// piece is a mesh.
    pub triangles: Vec<[u32; 2]>,
}

impl PieceContact {
    fn new(p: &PiecePair, flip: bool) -> Self {
        let triangles = match &p.cache {
            PairCache::Mesh(t) => t.clone(),
            _ => Vec::new(),
        };
        let contact = p.result.contact.map(|c| ContactData {
            pieces: p.pieces,
            ..c
        });
        if !flip {
            return Self {
                pieces: p.pieces,
                contact,
                triangles,
            };
        }
        Self {
            pieces: [p.pieces[1], p.pieces[0]],
            contact: contact.map(|c| c.flipped()),
            triangles: triangles.iter().map(|&[x, y]| [y, x]).collect(),
        }
    }
}

/// A change in [`CollisionPairConfig`] still to apply.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PairConfigChange {
    Pair(Entity, Entity),
    Entity(Entity),
}

/// I-COLLIDE's pair configuration: deactivate and reactivate specific pairs
/// or whole entities at run time. A deactivated pair never reaches the narrow
/// phase; if it was touching, it ends with a `CollisionEnd`. Changes take
/// effect at the next run of the plugin's systems. The configuration is kept
/// by entity, so it holds for colliders spawned later too.
#[derive(Resource, Default, Debug)]
pub struct CollisionPairConfig {
    disabled_pairs: HashSet<(Entity, Entity)>,
    disabled_entities: EntityHashSet,
    pub(crate) changes: Vec<PairConfigChange>,
}

fn ordered(a: Entity, b: Entity) -> (Entity, Entity) {
    if a <= b { (a, b) } else { (b, a) }
}

impl CollisionPairConfig {
    /// Stops testing the pair `(a, b)`.
    pub fn deactivate_pair(&mut self, a: Entity, b: Entity) {
        if self.disabled_pairs.insert(ordered(a, b)) {
            self.changes.push(PairConfigChange::Pair(a, b));
        }
    }

    /// Tests the pair `(a, b)` again.
    pub fn activate_pair(&mut self, a: Entity, b: Entity) {
        if self.disabled_pairs.remove(&ordered(a, b)) {
            self.changes.push(PairConfigChange::Pair(a, b));
        }
    }

    /// Stops testing every pair of `e`.
    pub fn deactivate_entity(&mut self, e: Entity) {
        if self.disabled_entities.insert(e) {
            self.changes.push(PairConfigChange::Entity(e));
        }
    }

    /// Tests the pairs of `e` again (those not deactivated one by one).
    pub fn activate_entity(&mut self, e: Entity) {
        if self.disabled_entities.remove(&e) {
            self.changes.push(PairConfigChange::Entity(e));
        }
    }

    /// Whether the pair itself is active (entity activity aside).
    pub fn is_pair_active(&self, a: Entity, b: Entity) -> bool {
        !self.disabled_pairs.contains(&ordered(a, b))
    }

    /// Whether the entity is active.
    pub fn is_entity_active(&self, e: Entity) -> bool {
        !self.disabled_entities.contains(&e)
    }

    /// The deactivated pairs that involve `e`.
    pub(crate) fn disabled_pairs_of(&self, e: Entity) -> impl Iterator<Item = Entity> + '_ {
        self.disabled_pairs.iter().filter_map(move |&(a, b)| {
            if a == e {
                Some(b)
            } else if b == e {
                Some(a)
            } else {
                None
            }
        })
    }
}

/// Time spent in each stage, for one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// `SyncPoses`.
    pub sync: Duration,
    /// `UpdateBounds`.
    pub bounds: Duration,
    /// `BroadPhase`.
    pub broad: Duration,
    /// `NarrowPhase`.
    pub narrow: Duration,
    /// `Report`.
    pub report: Duration,
}

impl StageTimes {
    /// The sum of the stages.
    pub fn total(&self) -> Duration {
        self.sync + self.bounds + self.broad + self.narrow + self.report
    }

    fn fields(&mut self) -> [&mut Duration; 5] {
        [
            &mut self.sync,
            &mut self.bounds,
            &mut self.broad,
            &mut self.narrow,
            &mut self.report,
        ]
    }
}

/// Per-stage timings and counters, updated every frame.
#[derive(Resource, Clone, Debug, Default)]
pub struct CollisionDiagnostics {
    /// The last frame.
    pub last: StageTimes,
    /// Sum over all frames (divide by `frames` for the mean).
    pub total: StageTimes,
    /// The worst frame, stage by stage.
    pub worst: StageTimes,
    /// Frames measured.
    pub frames: u64,
    /// Counters of the last frame.
    pub stats: WorldStats,
}

impl CollisionDiagnostics {
    /// The mean per stage.
    pub fn mean(&self) -> StageTimes {
        let mut m = self.total;
        let n = self.frames.max(1) as u32;
        for f in m.fields() {
            *f /= n;
        }
        m
    }

    pub(crate) fn finish_frame(&mut self) {
        self.frames += 1;
        let mut last = self.last;
        let (mut total, mut worst) = (self.total, self.worst);
        for ((l, t), w) in last
            .fields()
            .into_iter()
            .zip(total.fields())
            .zip(worst.fields())
        {
            *t += *l;
            *w = (*w).max(*l);
        }
        self.total = total;
        self.worst = worst;
    }
}
