//! Resources: the collision world behind the plugin, the pair configuration,
//! the read-only `Collisions` system parameter and per-stage diagnostics.

use std::collections::HashSet;
use std::time::Duration;

use bevy_ecs::entity::EntityHashSet;
use bevy_ecs::prelude::*;
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::ReflectResource;
use bevy_ecs::system::SystemParam;
#[cfg(feature = "reflect")]
use bevy_reflect::std_traits::ReflectDefault;

use crate::narrow_phase::{PairState, PieceTouch};
use crate::pipeline::{BodyHandle, CollisionWorld, WorldStats};
use crate::query::ContactData;

/// The collision world and the entity → body map. Read it through
/// [`Collisions`] and [`SpatialQuery`](super::SpatialQuery), change the pair
/// configuration through [`CollisionPairConfig`](super::CollisionPairConfig);
/// the plugin's systems are the only other writers.
#[derive(Resource, Default)]
pub struct CollisionState {
    pub(crate) world: CollisionWorld,
    pub(crate) entity_body: super::entity_bodies::EntityBodies,
    /// Pair configuration asked for entities without a body yet, applied
    /// when their colliders appear.
    pub(crate) pending_config: Vec<PairConfigRequest>,
    /// Entities already warned about an unusable pose or deformation
    /// (cleared when valid).
    pub(crate) warned: WarnOnce,
    /// Messages for every pair, not only pairs with an opted-in entity
    /// ([`CollisionPlugin::with_messages_for_all_pairs`](super::CollisionPlugin::with_messages_for_all_pairs)).
    pub(crate) all_pair_messages: bool,
    /// Opt-in mode: the pairs whose `CollisionStart` message was written and
    /// whose `CollisionEnd` is owed (written even if the opted-in entity is
    /// gone by then).
    pub(crate) reported: HashSet<(Entity, Entity)>,
    /// Tasks per parallel stage
    /// ([`CollisionPlugin::with_parallel_tasks`](super::CollisionPlugin::with_parallel_tasks));
    /// `None`: four per compute thread.
    pub(crate) parallel_tasks: Option<usize>,
    /// A scale other than 1 (beyond the world's
    /// [`UNIT_SCALE_TOLERANCE`](crate::pipeline::UNIT_SCALE_TOLERANCE)) was
    /// handed to the world. Until then every body's scale is 1 and a unit
    /// scale changes nothing: [`set_scale`](Self::set_scale) skips it.
    #[cfg(feature = "bevy_transform")]
    pub(crate) any_scaled: bool,
}

/// Entities warned about, each once until what failed works again.
#[derive(Default)]
pub(crate) struct WarnOnce(EntityHashSet);

impl WarnOnce {
    /// What failed for `e` works again: its next failure is logged.
    pub(crate) fn clear(&mut self, e: Entity) {
        // Most frames nobody was warned about: no hash per entity.
        if !self.0.is_empty() {
            self.0.remove(&e);
        }
    }

    /// Logs `message()` (after the crate's name) unless `e` was warned
    /// about already; whether it did. (The message is built only when a
    /// logger takes warnings.)
    pub(crate) fn warn(&mut self, e: Entity, message: impl FnOnce() -> String) -> bool {
        let first = self.0.insert(e);
        if first {
            log::warn!("bevy_icollide: {}", message());
        }
        first
    }
}

impl CollisionState {
    /// The entity of a body (the plugin stores `Entity::to_bits` as user data).
    pub(crate) fn entity(&self, body: BodyHandle) -> Option<Entity> {
        self.world.user_data(body).map(Entity::from_bits)
    }

    /// The bodies of two entities, if both have one.
    pub(crate) fn bodies(&self, a: Entity, b: Entity) -> Option<(BodyHandle, BodyHandle)> {
        Some((*self.entity_body.get(&a)?, *self.entity_body.get(&b)?))
    }

    /// Sets a body's scale in the world, or nothing while no body was
    /// ever scaled and `scale` is 1 to the world's tolerance: the world
    /// would change nothing then (every body's scale is 1, a unit scale
    /// is accepted on every shape), so the call and its checks are
    /// skipped.
    #[cfg(feature = "bevy_transform")]
    pub(crate) fn set_scale(
        &mut self,
        body: BodyHandle,
        scale: glam::Vec3,
    ) -> Result<(), crate::pipeline::WorldError> {
        match self.scale_to_set(scale) {
            Some(scale) => self.world.set_scale(body, scale),
            None => Ok(()),
        }
    }

    /// The scale to give a body, or `None` when no body was ever scaled and
    /// this one is a unit scale (to the world's tolerance: it changes
    /// nothing then).
    pub(crate) fn scale_to_set(&mut self, scale: glam::Vec3) -> Option<glam::Vec3> {
        let unit =
            (scale - glam::Vec3::ONE).abs().max_element() <= crate::pipeline::UNIT_SCALE_TOLERANCE;
        if unit && !self.any_scaled {
            return None;
        }
        self.any_scaled |= !unit;
        Some(scale)
    }

    /// The collision world, read-only.
    pub fn world(&self) -> &CollisionWorld {
        &self.world
    }
}

/// A pair-configuration request waiting for its entities' colliders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairConfigRequest {
    Pair(Entity, Entity, bool),
    Entity(Entity, bool),
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
        let (ba, bb) = self.state.bodies(a, b)?;
        self.state.world.pair(ba, bb)
    }

    /// Whether the pair stores `b`'s body first (its data are seen from
    /// `b` and must be flipped for `a`).
    fn flipped(&self, a: Entity, b: Entity) -> Option<bool> {
        let (ba, bb) = self.state.bodies(a, b)?;
        Some(ba.index() > bb.index())
    }

    /// Contact data of the pair, seen from `a` (the normal points from `a`
    /// to `b`): closest features, distance or penetration depth, normal and
    /// points. Computed for pairs of convex shapes, spheres and capsules
    /// (and, per piece pair, inside compounds: [`Collisions::touching_pieces`]).
    ///
    /// `None` when the boxes do not overlap; for a pair with a triangle mesh
    /// (a mesh pair reports which triangles touch,
    /// [`Collisions::triangle_pairs`], not one contact: a polygon soup has no
    /// inside, so no penetration depth); for a compound pair (see
    /// `touching_pieces`); when a sensor is involved and they touch; and
    /// with contact data off
    /// ([`CollisionPlugin::with_penetration(false)`](super::CollisionPlugin::with_penetration)),
    /// for touching pairs.
    pub fn contact(&self, a: Entity, b: Entity) -> Option<ContactData> {
        let c = self.pair(a, b)?.result.contact?;
        // The pair stores A = the body in the smaller slot.
        Some(if self.flipped(a, b)? { c.flipped() } else { c })
    }

    /// For pairs involving a triangle mesh: the intersecting triangle pairs
    /// `[triangle of a, triangle of b]`, sorted (all of them; the first one
    /// only if a sensor is involved or contact data is off). A triangle is
    /// an index into the mesh's triangle list; for a convex hull, into the
    /// hull's own triangulated surface; a sphere or capsule has no triangles
    /// and its side is `0` (so a sphere–mesh pair lists `[0, t]` for every
    /// mesh triangle `t` within the radius). A mesh triangle lying inside a
    /// solid collider without crossing its surface is paired with
    /// [`INSIDE_SOLID`](crate::query::INSIDE_SOLID). Empty when they do not
    /// touch; `None` for other pair kinds or when the boxes do not overlap.
    pub fn triangle_pairs(&self, a: Entity, b: Entity) -> Option<Vec<[u32; 2]>> {
        let pairs = self.pair(a, b)?.triangle_pairs()?;
        // The pair stores the body in the smaller slot first.
        Some(if self.flipped(a, b)? {
            pairs.iter().map(|&[x, y]| [y, x]).collect()
        } else {
            pairs.to_vec()
        })
    }

    /// For pairs involving a compound: the touching piece pairs, seen from
    /// `a` (`pieces` = `[piece of a, piece of b]`, 0 for a side that is not
    /// a compound), each with what its pair kind computes: contact data for
    /// two convex pieces, triangle pairs with a mesh. Sorted by pieces.
    /// `None` for other pair kinds or when the boxes do not overlap.
    pub fn touching_pieces(&self, a: Entity, b: Entity) -> Option<Vec<PieceContact>> {
        let flip = self.flipped(a, b)?;
        let mut out: Vec<PieceContact> = self
            .pair(a, b)?
            .touching_pieces()?
            .map(|p| PieceContact::new(&p, flip))
            .collect();
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
    pub fn body(&self, e: Entity) -> Option<BodyHandle> {
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
    fn new(p: &PieceTouch<'_>, flip: bool) -> Self {
        let triangles = p.triangles.to_vec();
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

/// How a parallel stage's tasks ran in its last run: a diagnostic of the
/// compute pool, not of the results (which are the same on any thread).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskShare {
    /// Tasks run; 0 when the stage ran on the system's thread alone
    /// (one task configured, a one-thread pool, or too little work).
    pub tasks: u32,
    /// Of them, the tasks another thread of the pool ran. 0 of several
    /// means the other threads did not help in time (parked and slow to
    /// wake, or their cores taken by other processes).
    pub elsewhere: u32,
    /// From the spawning of the tasks to the start of the first one run
    /// elsewhere (the hand-over's latency), if any was.
    pub first_elsewhere: Option<Duration>,
}

/// [`TaskShare`] of each stage that splits work over the compute pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParallelShares {
    /// The pose conversion of `SyncPoses`.
    pub sync: TaskShare,
    /// The world's pose writes of `SyncPoses` (checks, pose and scale into
    /// each body's record).
    pub poses: TaskShare,
    /// The box computations of `UpdateBounds`.
    pub bounds: TaskShare,
    /// The pair tests of `NarrowPhase`.
    pub narrow: TaskShare,
}

/// Per-stage timings and counters, updated every frame.
#[derive(Resource, Clone, Debug, Default)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(opaque, Resource, Default, Debug)
)]
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
    /// How the last frame's parallel stages shared their tasks out.
    pub parallel: ParallelShares,
    /// Set (with a warning in the log) when colliders have a `Transform`
    /// whose `GlobalTransform` is never updated: an app without
    /// `TransformPlugin`, where every collider would sit at the origin.
    pub unpropagated_transforms: bool,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure is logged once per entity until it clears.
    #[test]
    fn warns_once_until_cleared() {
        let mut world = World::new();
        let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
        let mut warned = WarnOnce::default();
        let mut logged = Vec::new();
        let mut warn = |w: &mut WarnOnce, e: Entity| {
            if w.warn(e, String::new) {
                logged.push(e);
            }
        };
        warn(&mut warned, a);
        warn(&mut warned, a);
        warn(&mut warned, b);
        warned.clear(b);
        warn(&mut warned, a);
        warn(&mut warned, b);
        warned.clear(a);
        warn(&mut warned, a);
        assert_eq!(logged, [a, b, b, a]);
    }
}
