//! The collision world without Bevy: bodies named by generational
//! [`BodyHandle`]s, their pair configuration, and the frame driver that runs
//! the stages in order. The plugin maps entities to handles and calls the
//! stages from its systems; tests and benchmarks drive the same code
//! without an `App`.
//!
//! ## One frame
//!
//! [`CollisionWorld::step`] runs the stages in order and returns the
//! frame's contact events (Box2D v3's `b2World_Step` is the model: the
//! order is readable in one place, [`driver`]):
//!
//! 1. [`update_bounds`](CollisionWorld::update_bounds): the boxes of the
//!    bodies whose pose or shape changed (fixed cube or dynamic box,
//!    padded by the margin) go to the broad phase;
//! 2. [`update_broad_phase`](CollisionWorld::update_broad_phase): the broad
//!    phase applies them; its output is the net [`PairChanges`] since it
//!    was last drained;
//! 3. [`update_narrow_phase`](CollisionWorld::update_narrow_phase): drains
//!    those changes, tests the pairs with a moved body, and appends the
//!    start / end events (sorted by user data) to the event queue;
//! 4. [`drain_events`](CollisionWorld::drain_events): the reader takes
//!    them, once.
//!
//! **Any order is safe.** Each stage first runs the earlier stages that
//! have pending input (a cursor that catches up), and each output is a
//! queue drained once by its reader. So skipping a stage, running one
//! twice, or removing a body between two stages gives exactly the events of
//! the right order: no pair lost, no event twice (tested in
//! `tests/core/pipeline_order.rs`).
//!
//! ## Pair configuration
//!
//! Stored once, here: each body's [`Layers`] and activity, and the set of
//! deactivated pairs (I-COLLIDE's `deactivate_pair`). The broad phase asks
//! these rules when boxes start to overlap and is told which bodies to ask
//! again after a change; the plugin's `CollisionPairConfig` is a view on
//! them.
//!
//! ## Deformable meshes
//!
//! A triangle-mesh body becomes deformable at its first
//! [`set_vertices`](CollisionWorld::set_vertices) (van den Bergen 1997): it
//! gets its own copy of the mesh and an AABB tree over it; each later call
//! copies the positions and refits the tree (leaves from the moved
//! vertices, then every inner box from its children, one reverse pass, no
//! allocation): `O(n)`, the order of the copy itself. The broad-phase box
//! (the root box, moved by the pose) follows at the next bounds update, and
//! every pair, query and ray with the body uses the deformed surface.
//!
//! A refit keeps the rest pose's topology: under strong deformation (a
//! cloth crumpled into a ball, a mesh folded through itself) siblings
//! overlap more and more and queries slow down, though they stay exact.
//! [`rebuild_tree`](CollisionWorld::rebuild_tree) builds the tree afresh,
//! one call (ten to fifteen times a refit).
//!
//! ## Spatial queries
//!
//! Box, shape and ray queries against the whole world ([`spatial`]), from
//! the broad phase's own data: no second world.

mod body;
mod bounds_tasks;
mod ccd;
mod checks;
mod deform;
pub mod driver;
mod handle;
#[cfg(test)]
mod hull_path_tests;
pub mod large_world;
#[cfg(test)]
mod merge_order_tests;
mod moved;
mod pose_tasks;
mod scale;
mod shape_cast;
pub mod spatial;
mod ttc;

pub use body::{BodyDesc, Layers};
pub use bounds_tasks::BoundsTask;
pub use handle::BodyHandle;
pub use pose_tasks::{PoseTask, PoseWrite};
pub use scale::UNIT_SCALE_TOLERANCE;
pub use shape_cast::WorldShapeHit;
pub use spatial::{QueryFilter, WorldRayHit};
pub use ttc::SpeedBound;

use body::Body;

use crate::bounds::BoundsMode;
use crate::broad_phase::enlarged::DEFAULT_MARGIN;
use crate::broad_phase::{
    BroadPhase, Enlarged, GridSweepAndPrune, PairChanges, PairKey, PairSet, pair_ids, pair_key,
};
use crate::collider::SharedShape;
use crate::math::{Aabb, Pose, PoseError};
use crate::narrow_phase::{NarrowPhase, PairEvent, PairState};

/// World settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldConfig {
    /// Padding added on every side of each box before the broad phase
    /// (finite, >= 0, at most [`MAX_POSITION`](crate::collider::limits::MAX_POSITION)).
    pub margin: f32,
    /// Side of the broad phase's grid cells (see [`GridSweepAndPrune`];
    /// finite, positive, at most [`MAX_POSITION`](crate::collider::limits::MAX_POSITION));
    /// `None` chooses 8 × the median box size at the first update.
    pub cell_size: Option<f32>,
    /// How far a body's box may move before the grid hears of it, as a
    /// fraction of the box's largest extent (finite, >= 0, at most
    /// [`MAX_BROAD_PHASE_MARGIN`](crate::collider::limits::MAX_BROAD_PHASE_MARGIN); see
    /// [`Enlarged`]). The pairs stay exact whatever the value; 0 passes
    /// every move to the grid. Static bodies are not grown. Used by
    /// [`CollisionWorld::new`]; [`CollisionWorld::with_broad_phase`] takes
    /// its broad phase as given.
    pub broad_phase_margin: f32,
    /// Compute contact data: closest features and distance (Lin–Canny) for
    /// separated convex pairs, penetration depth, normal and deepest points
    /// (EPA) for overlapping ones. Off: pairs only report whether they
    /// touch (I-COLLIDE's events), by the coherent boolean test (GJK from
    /// the cached separating axis), much cheaper per pair.
    pub penetration: bool,
    /// Time-to-collision scheduling (I-COLLIDE §3.4, `ttc.rs`): a pair of
    /// bodies with speed bounds ([`CollisionWorld::set_speed_bound`]) found
    /// apart is not tested again until its bodies, by the motion measured,
    /// could have closed the distance between them: the events are those
    /// of the unscheduled world. Needs `penetration` (the distance comes
    /// with the contact data). Off by default.
    pub time_to_collision: bool,
}

impl Default for WorldConfig {
    fn default() -> Self {
        Self {
            margin: 0.0,
            cell_size: None,
            broad_phase_margin: DEFAULT_MARGIN,
            penetration: true,
            time_to_collision: false,
        }
    }
}

/// Why a world call was refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WorldError {
    /// The handle's body was removed (its slot may hold another body now).
    StaleHandle(BodyHandle),
    /// The pose cannot be used.
    InvalidPose(PoseError),
    /// The margin is NaN, infinite, negative or beyond
    /// [`MAX_POSITION`](crate::collider::limits::MAX_POSITION).
    InvalidMargin(f32),
    /// The broad phase's margin is NaN, infinite, negative or beyond
    /// [`MAX_BROAD_PHASE_MARGIN`](crate::collider::limits::MAX_BROAD_PHASE_MARGIN).
    InvalidBroadPhaseMargin(f32),
    /// The grid's cell size is NaN, infinite, not positive or beyond
    /// [`MAX_POSITION`](crate::collider::limits::MAX_POSITION).
    InvalidCellSize(f32),
    /// A speed bound is NaN, infinite or negative, or its distance beyond
    /// [`MAX_POSITION`](crate::collider::limits::MAX_POSITION).
    InvalidSpeedBound(SpeedBound),
    /// Only a triangle-mesh body can deform (the kind given).
    NotDeformable(&'static str),
    /// Only a triangle-mesh body can take a scale other than 1 (the kind
    /// given); other shapes are built at their size.
    NotScalable(&'static str),
    /// New vertex positions for a mesh of another size.
    VertexCount {
        /// The mesh's vertex count.
        expected: usize,
        /// The count given.
        got: usize,
    },
    /// A new vertex position is NaN or infinite.
    NonFiniteVertex {
        /// Its index.
        index: usize,
    },
    /// A new vertex position, scaled by the body's scale, is beyond
    /// [`MAX_COORDINATE`](crate::collider::limits::MAX_COORDINATE).
    VertexBeyondLimit {
        /// Its index.
        index: usize,
    },
    /// The mesh scaled by this scale (its current vertices, if it deforms)
    /// reaches beyond [`MAX_COORDINATE`](crate::collider::limits::MAX_COORDINATE).
    ScaledBeyondLimit(glam::Vec3),
}

impl std::fmt::Display for WorldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorldError::StaleHandle(b) => write!(f, "body {b} does not exist (any more)"),
            WorldError::InvalidPose(e) => write!(f, "invalid pose: {e}"),
            WorldError::InvalidMargin(m) => write!(
                f,
                "invalid margin {m}: it must be finite, >= 0 and at most MAX_POSITION (2^50)"
            ),
            WorldError::InvalidBroadPhaseMargin(m) => write!(
                f,
                "invalid broad-phase margin {m}: it must be finite, >= 0 and at most \
                 MAX_BROAD_PHASE_MARGIN (2^20)"
            ),
            WorldError::InvalidCellSize(c) => write!(
                f,
                "invalid cell size {c}: it must be finite, > 0 and at most MAX_POSITION (2^50)"
            ),
            WorldError::InvalidSpeedBound(b) => write!(
                f,
                "invalid speed bound {b:?}: both parts must be finite and >= 0, the linear \
                 one at most MAX_POSITION (2^50)"
            ),
            WorldError::NotDeformable(kind) => {
                write!(f, "a {kind} body cannot deform: only triangle meshes can")
            }
            WorldError::NotScalable(kind) => write!(
                f,
                "a {kind} body cannot be scaled: only triangle meshes can \
                 (build the shape at its size: SharedShape::scaled)"
            ),
            WorldError::VertexCount { expected, got } => {
                write!(
                    f,
                    "{got} vertex positions for a mesh of {expected} vertices"
                )
            }
            WorldError::NonFiniteVertex { index } => {
                write!(f, "vertex {index} has a NaN or infinite coordinate")
            }
            WorldError::VertexBeyondLimit { index } => write!(
                f,
                "vertex {index}, scaled by the body's scale, is beyond MAX_COORDINATE (2^28)"
            ),
            WorldError::ScaledBeyondLimit(s) => write!(
                f,
                "the mesh scaled by {s} reaches beyond MAX_COORDINATE (2^28)"
            ),
        }
    }
}

impl std::error::Error for WorldError {}

/// Two bodies started or stopped touching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactEvent {
    /// The bodies, ordered by user data.
    pub bodies: [BodyHandle; 2],
    /// Their user data (the plugin stores `Entity::to_bits`), ascending.
    pub user_data: [u64; 2],
    /// `true`: started touching; `false`: stopped.
    pub started: bool,
}

/// Counters of the last run of each stage.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WorldStats {
    /// Boxes recomputed.
    pub bounds_updated: u32,
    /// Hull vertices visited by dynamic-box hill-climbing.
    pub hill_climb_visits: u64,
    /// Endpoint swaps per axis.
    pub swaps: [u64; 3],
    /// Pairs the broad phase stores: box-overlapping and allowed.
    pub box_pairs: u32,
    /// Pairs in the narrow phase.
    pub active_pairs: u32,
    /// Pair tests run.
    pub pair_tests: u32,
    /// Pairs whose need for a test the narrow phase checked: every pair
    /// when many bodies moved, else only the moved bodies' pairs (a pair
    /// of two moved bodies twice), the new ones and those touching by
    /// sweep: pairs at rest cost nothing.
    pub pairs_checked: u32,
    /// Pairs touching.
    pub touching: u32,
    /// Tree boxes refit for deformable bodies (`N_u` of the cost model),
    /// since the last bounds update.
    pub refit_nodes: u64,
    /// Pair tests of the last [`update_narrow_phase_with`](CollisionWorld::update_narrow_phase_with)
    /// that were in tasks its closure dropped instead of running, and were
    /// run serially after it returned (0: every task ran).
    pub tested_after_tasks: u32,
}

/// The collision world, generic over its broad phase (by default the grid
/// of sweep and prunes over enlarged boxes, [`Enlarged`]`<`[`GridSweepAndPrune`]`>`;
/// [`crate::broad_phase::SweepAndPrune`], the grid alone and the
/// brute-force reference work the same). See the module docs.
pub struct CollisionWorld<B: BroadPhase = Enlarged<GridSweepAndPrune>> {
    config: WorldConfig,
    bodies: Vec<Body>,
    free: Vec<u32>,
    /// Removed bodies, freed once the narrow phase has ended their pairs.
    pending_free: Vec<u32>,
    /// Bodies whose pose or shape changed since the last bounds update.
    dirty: Vec<u32>,
    /// The dirty slots in ascending order, for the parallel bounds update
    /// (kept for its capacity).
    bounds_order: Vec<u32>,
    /// The parallel bounds update's task list and per-task counters, kept
    /// for their memory.
    bounds_tasks: Vec<BoundsTask<'static>>,
    bounds_visits: Vec<u64>,
    /// The parallel pose writes' lists, kept for their memory.
    pose_lists: pose_tasks::PoseLists,
    /// Bodies whose box changed since the last narrow phase.
    moved: moved::MovedBodies,
    /// Deactivated pairs, by body slots.
    disabled_pairs: PairSet,
    broad: B,
    /// The broad phase has calls it has not applied yet.
    broad_pending: bool,
    /// The broad phase's output, drained by the narrow phase.
    changes: PairChanges,
    narrow: NarrowPhase,
    pair_events: Vec<PairEvent>,
    /// The narrow phase's output, drained by the reader.
    events: Vec<ContactEvent>,
    stats: WorldStats,
    /// Tree boxes refit since the last bounds update.
    refits_pending: u64,
}

impl CollisionWorld {
    /// An empty world with the grid broad phase over enlarged boxes.
    /// Errors: a setting out of its range ([`WorldConfig::validate`]).
    pub fn new(config: WorldConfig) -> Result<Self, WorldError> {
        config.validate()?;
        let m = config.broad_phase_margin;
        Self::with_broad_phase(config, Enlarged::over_grid(config.cell_size, m))
    }
}

impl Default for CollisionWorld {
    fn default() -> Self {
        Self::new(WorldConfig::default()).expect("the default margins are valid")
    }
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// An empty world over a broad phase of your choice. Errors: a
    /// setting out of its range ([`WorldConfig::validate`]).
    pub fn with_broad_phase(config: WorldConfig, broad: B) -> Result<Self, WorldError> {
        config.validate()?;
        Ok(Self {
            config,
            bodies: Vec::new(),
            free: Vec::new(),
            pending_free: Vec::new(),
            dirty: Vec::new(),
            bounds_order: Vec::new(),
            bounds_tasks: Vec::new(),
            bounds_visits: Vec::new(),
            pose_lists: Default::default(),
            moved: Default::default(),
            disabled_pairs: PairSet::default(),
            broad,
            broad_pending: false,
            changes: PairChanges::default(),
            narrow: NarrowPhase::default(),
            pair_events: Vec::new(),
            events: Vec::new(),
            stats: WorldStats::default(),
            refits_pending: 0,
        })
    }

    /// The settings.
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Adds a body. It enters the broad phase at the first bounds update
    /// after it has a valid pose.
    pub fn add_body(&mut self, desc: BodyDesc) -> BodyHandle {
        match self.free.pop() {
            Some(i) => {
                let generation = self.bodies[i as usize].generation.wrapping_add(1);
                self.bodies[i as usize] = Body::new(desc, generation);
                BodyHandle::new(i, generation)
            }
            None => {
                self.bodies.push(Body::new(desc, 0));
                BodyHandle::new(self.bodies.len() as u32 - 1, 0)
            }
        }
    }

    /// Removes a body; its touching pairs end (with an event) at the next
    /// narrow phase, after which its slot is reused.
    pub fn remove_body(&mut self, h: BodyHandle) -> Result<(), WorldError> {
        let body = self.body_mut(h)?;
        body.alive = false;
        if std::mem::take(&mut body.in_broad) {
            // The proxy exists: removal cannot fail.
            let _ = self.broad.remove(h.index());
            self.broad_pending = true;
        }
        let i = h.index();
        self.disabled_pairs.retain(|&k| {
            let (a, b) = pair_ids(k);
            a != i && b != i
        });
        self.pending_free.push(i);
        Ok(())
    }

    /// Sets a body's pose. A NaN, infinite or non-unit pose, or a
    /// translation beyond [`MAX_POSITION`](crate::collider::limits::MAX_POSITION)
    /// ([`PoseError::TooFar`]), is refused and the body keeps its last
    /// valid pose. Far from the origin, [`set_pose_f64`](Self::set_pose_f64)
    /// places it to within `f64` precision (see [`large_world`]).
    #[inline]
    pub fn set_pose(&mut self, h: BodyHandle, pose: Pose) -> Result<(), WorldError> {
        checks::pose(&pose)?;
        self.set_pose_f64(h, pose.into())
    }

    /// Replaces a body's shape or bounds mode. Its pairs are kept and
    /// retested. A mesh replacing a scaled mesh keeps the scale; other
    /// shapes take scale 1. Errors (nothing changes then): a stale handle;
    /// a new mesh that the body's scale takes beyond
    /// [`MAX_COORDINATE`](crate::collider::limits::MAX_COORDINATE)
    /// ([`WorldError::ScaledBeyondLimit`]).
    pub fn set_shape(
        &mut self,
        h: BodyHandle,
        shape: SharedShape,
        mode: BoundsMode,
    ) -> Result<(), WorldError> {
        let body = self.body(h)?;
        if matches!(shape.kind(), crate::collider::ShapeKind::TriMesh(_)) {
            checks::scaled_shape(body, &shape, body.scale, false)?;
        }
        self.body_mut(h)?.set_shape(shape, mode);
        self.mark_dirty(h.index());
        Ok(())
    }

    /// Changes a body's collision layers.
    pub fn set_layers(&mut self, h: BodyHandle, layers: Layers) -> Result<(), WorldError> {
        let body = self.body_mut(h)?;
        if body.layers != layers {
            body.layers = layers;
            self.refilter(h.index());
        }
        Ok(())
    }

    /// Deactivates (`false`) or reactivates every pair of a body (pairs
    /// deactivated one by one stay so).
    pub fn set_active(&mut self, h: BodyHandle, active: bool) -> Result<(), WorldError> {
        let body = self.body_mut(h)?;
        if body.active != active {
            body.active = active;
            self.refilter(h.index());
        }
        Ok(())
    }

    /// Marks a body static (static bodies never pair with each other) or not.
    pub fn set_static(&mut self, h: BodyHandle, is_static: bool) -> Result<(), WorldError> {
        let body = self.body_mut(h)?;
        body.is_static = is_static;
        if body.in_broad {
            let _ = self.broad.set_static(h.index(), is_static);
            self.broad_pending = true;
        }
        Ok(())
    }

    /// Marks a body as a sensor (reports start / end only).
    pub fn set_sensor(&mut self, h: BodyHandle, sensor: bool) -> Result<(), WorldError> {
        self.body_mut(h)?.sensor = sensor;
        Ok(())
    }

    /// Deactivates (`false`) or reactivates one pair of bodies. A deactivated
    /// pair never reaches the narrow phase; if it was touching it ends.
    pub fn set_pair_enabled(
        &mut self,
        a: BodyHandle,
        b: BodyHandle,
        enabled: bool,
    ) -> Result<(), WorldError> {
        self.body(a)?;
        self.body(b)?;
        if a.index() == b.index() {
            return Ok(());
        }
        let key = pair_key(a.index(), b.index());
        let changed = if enabled {
            self.disabled_pairs.remove(&key)
        } else {
            self.disabled_pairs.insert(key)
        };
        if changed {
            self.broad.refilter_pair(a.index(), b.index());
            self.broad_pending = true;
        }
        Ok(())
    }

    /// Whether the pair is enabled (not deactivated by
    /// [`set_pair_enabled`](Self::set_pair_enabled); body activity aside).
    pub fn is_pair_enabled(&self, a: BodyHandle, b: BodyHandle) -> Result<bool, WorldError> {
        self.body(a)?;
        self.body(b)?;
        Ok(!self
            .disabled_pairs
            .contains(&pair_key(a.index(), b.index())))
    }

    /// Whether a body's pairs are active (see [`set_active`](Self::set_active)).
    pub fn is_active(&self, h: BodyHandle) -> Result<bool, WorldError> {
        Ok(self.body(h)?.active)
    }

    /// The pairs in the narrow phase with their last result.
    pub fn pairs(&self) -> impl Iterator<Item = ([BodyHandle; 2], &PairState)> + '_ {
        self.narrow.pairs().map(|(k, s)| (self.pair_handles(k), s))
    }

    /// The last result of a pair, if its boxes overlap and it is enabled.
    pub fn pair(&self, a: BodyHandle, b: BodyHandle) -> Option<&PairState> {
        self.body(a).ok()?;
        self.body(b).ok()?;
        self.narrow.pair(pair_key(a.index(), b.index()))
    }

    /// A body's broad-phase box (with margin), once it has one.
    pub fn aabb(&self, h: BodyHandle) -> Option<Aabb> {
        self.body(h).ok().filter(|b| b.in_broad)?;
        self.broad.aabb(h.index())
    }

    /// A body's box without margin, once it has one.
    pub fn tight_aabb(&self, h: BodyHandle) -> Option<Aabb> {
        let body = self.body(h).ok()?;
        body.in_broad.then_some(body.tight)
    }

    /// A body's last valid pose, its translation rounded to `f32` (see
    /// [`pose_f64`](Self::pose_f64)).
    pub fn pose(&self, h: BodyHandle) -> Option<Pose> {
        Some(self.body(h).ok()?.pose?.to_pose())
    }

    /// A body's shape.
    pub fn shape(&self, h: BodyHandle) -> Option<&SharedShape> {
        Some(&self.body(h).ok()?.shape)
    }

    /// A body's layers.
    pub fn layers(&self, h: BodyHandle) -> Option<Layers> {
        Some(self.body(h).ok()?.layers)
    }

    /// A body's user data.
    pub fn user_data(&self, h: BodyHandle) -> Option<u64> {
        Some(self.body(h).ok()?.user_data)
    }

    /// Whether the handle names a live body.
    pub fn contains(&self, h: BodyHandle) -> bool {
        self.body(h).is_ok()
    }

    /// Bodies whose box changed since the last narrow phase.
    pub fn moved_bodies(&self) -> impl Iterator<Item = BodyHandle> + '_ {
        self.moved.iter().map(|&i| self.handle(i))
    }

    /// The broad phase, read-only.
    pub fn broad_phase(&self) -> &B {
        &self.broad
    }

    /// Counters of the last run of each stage.
    pub fn stats(&self) -> WorldStats {
        self.stats
    }

    /// Number of live bodies.
    pub fn len(&self) -> usize {
        self.bodies.len() - self.free.len() - self.pending_free.len()
    }

    /// Whether the world has no body.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn body(&self, h: BodyHandle) -> Result<&Body, WorldError> {
        self.bodies
            .get(h.index() as usize)
            .filter(|b| b.alive && b.generation == h.generation())
            .ok_or(WorldError::StaleHandle(h))
    }

    fn body_mut(&mut self, h: BodyHandle) -> Result<&mut Body, WorldError> {
        self.bodies
            .get_mut(h.index() as usize)
            .filter(|b| b.alive && b.generation == h.generation())
            .ok_or(WorldError::StaleHandle(h))
    }

    /// The handle of the body (live or just removed) in slot `i`.
    fn handle(&self, i: u32) -> BodyHandle {
        BodyHandle::new(i, self.bodies[i as usize].generation)
    }

    fn pair_handles(&self, key: PairKey) -> [BodyHandle; 2] {
        let (a, b) = pair_ids(key);
        [self.handle(a), self.handle(b)]
    }

    fn mark_dirty(&mut self, i: u32) {
        let body = &mut self.bodies[i as usize];
        if !body.dirty {
            body.dirty = true;
            self.dirty.push(i);
        }
    }

    /// The pair rules of body `i` changed: the broad phase asks again.
    fn refilter(&mut self, i: u32) {
        if self.bodies[i as usize].in_broad {
            self.broad.refilter(i);
            self.broad_pending = true;
        }
    }
}
