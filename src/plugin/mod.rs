//! The Bevy plugin: the only module that imports `bevy_*`.
//!
//! [`CollisionPlugin`] adds five chained system sets, [`CollisionSystems`],
//! one system each, to a schedule of your choice (default `PostUpdate`,
//! after transform propagation):
//!
//! 1. `SyncPoses`: colliders added, replaced or removed; layers, static and
//!    sensor flags; poses from `GlobalTransform`
//!    (feature `bevy_transform`), from a `big_space` grid cell and
//!    `Transform` in `f64` (feature `big_space`: [`grid_pose`]) or from
//!    [`ColliderPose`]. A NaN, infinite,
//!    zero-scale or otherwise unusable pose is reported once with a warning
//!    and skipped: the collider keeps its last valid pose.
//! 2. `UpdateBounds`: deformable colliders refit to their
//!    [`DeformedVertices`]; boxes of moved colliders (fixed cube or dynamic
//!    box), written to [`ColliderAabb`].
//! 3. `BroadPhase`: sweep and prune.
//! 4. `NarrowPhase`: pair tests.
//! 5. `Report`: [`CollisionStart`] / [`CollisionEnd`] messages and observer
//!    events, sorted by pair; [`CollidingEntities`]; [`CollisionDiagnostics`].
//!
//! The pose conversion and the world's pose writes (stage 1:
//! `GlobalTransform` to pose and [`ColliderPose`], then into each body),
//! the box computations (stage 2) and the pair tests (stage 4) run on
//! Bevy's compute task pool when there are many (see
//! [`CollisionPlugin::with_parallel_tasks`]): each is split into fixed
//! shares whose results are applied on the system's thread in one order,
//! so the events, their order and every component written are the same
//! whatever the number of threads. The broad phase's update stays
//! serial (its output is one ordered list of pair changes).
//!
//! Each system calls the matching stage of the world's driver
//! ([`crate::pipeline::driver`]), which catches up on any stage skipped
//! before it and drains each stage's output once: a set disabled or run
//! twice by a custom schedule loses no pair and reports no event twice.
//!
//! **Why `PostUpdate` after `TransformSystems::Propagate`:** poses come from
//! `GlobalTransform`, which is only final after propagation; gameplay in
//! `Update` then reads the events of the previous frame (messages live for
//! two frames). Choose `FixedPostUpdate` with a fixed-step game loop.
//!
//! [`SpatialQuery`] answers one-shot ray casts and shape and box overlaps
//! from any system, against the world as of the last run of these stages.

#[cfg(feature = "bevy_asset")]
mod assets;
#[cfg(feature = "big_space")]
mod big_space;
#[cfg(feature = "bevy_transform")]
mod character;
mod collider_kinds;
mod components;
#[cfg(feature = "debug-render")]
mod debug;
mod entity_bodies;
mod events;
mod pair_config;
mod parallel;
#[cfg(feature = "picking")]
mod picking;
#[cfg(feature = "bevy_transform")]
mod pose;
#[cfg(feature = "bevy_transform")]
mod pose_sync;
#[cfg(feature = "bevy_transform")]
mod propagation;
#[cfg(feature = "reflect")]
mod reflect;
mod resources;
mod slide;
mod spatial;
mod spatial_f64;
mod static_scan;
mod systems;

#[cfg(feature = "bevy_asset")]
pub use assets::{
    ColliderConstructor, ColliderConstructorError, ColliderConstructorHierarchy, DeformableMesh,
};
#[cfg(feature = "big_space")]
pub use big_space::{GridPoseError, grid_pose, point_in_grid};
#[cfg(feature = "bevy_transform")]
pub use character::{
    CharacterGround, CharacterHit, CharacterPlugin, CharacterPush, KinematicCharacter,
    KinematicCharacterOutput, move_characters,
};
pub use components::{
    Collider, ColliderAabb, ColliderPose, CollidingEntities, CollisionEventsEnabled,
    CollisionLayers, DeformedVertices, LayerMask, MaxFrameMotion, Sensor, StaticCollider, SweptCcd,
};
#[cfg(feature = "debug-render")]
pub use debug::{CollisionDebugPlugin, CollisionGizmos, DebugRender};
pub use events::{CollisionEnd, CollisionStart};
pub use pair_config::CollisionPairConfig;
#[cfg(feature = "picking")]
pub use picking::{CollisionPickingCamera, CollisionPickingPlugin, CollisionPickingSettings};
pub use resources::{
    CollisionDiagnostics, CollisionState, Collisions, ParallelShares, PieceContact, StageTimes,
    TaskShare,
};
pub use slide::{MoveAndSlide, MoveAndSlideHit};
pub use spatial::{RayHitData, ShapeCastConfig, ShapeHitData, SpatialQuery, SpatialQueryFilter};
pub use spatial_f64::RayHitF64;

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{InternedScheduleLabel, ScheduleLabel};

use crate::pipeline::{CollisionWorld, WorldConfig, WorldError};

/// The stages of one collision frame, chained in this order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CollisionSystems {
    /// Copy poses and collider changes into the collision world.
    SyncPoses,
    /// Recompute moved colliders' boxes.
    UpdateBounds,
    /// Sweep and prune.
    BroadPhase,
    /// Exact tests on active pairs.
    NarrowPhase,
    /// Events, `CollidingEntities`, diagnostics.
    Report,
}

/// Adds collision detection to an app. See the [module docs](self).
pub struct CollisionPlugin {
    schedule: InternedScheduleLabel,
    config: WorldConfig,
    all_pair_messages: bool,
    parallel_tasks: Option<usize>,
}

impl Default for CollisionPlugin {
    /// Runs in `PostUpdate`, after transform propagation, with no margin.
    fn default() -> Self {
        Self::new(PostUpdate)
    }
}

impl CollisionPlugin {
    /// Runs the collision stages in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            config: WorldConfig::default(),
            all_pair_messages: false,
            parallel_tasks: None,
        }
    }

    /// Writes the [`CollisionStart`] / [`CollisionEnd`] messages for every
    /// pair, not only for pairs where an entity has
    /// [`CollisionEventsEnabled`] (the default, as in avian): I-COLLIDE's
    /// report of all collisions, for simulations that react to every pair.
    /// Observer events stay opt-in.
    pub fn with_messages_for_all_pairs(mut self) -> Self {
        self.all_pair_messages = true;
        self
    }

    /// Splits the parallel stages (pose conversion and writes, bounds
    /// update, narrow phase) into `tasks` tasks each on Bevy's compute
    /// task pool; 0 or 1 runs them on the calling thread. Default: four
    /// tasks per compute thread, serial on a one-thread pool. Each split is
    /// into fixed shares whose results are applied serially in one order:
    /// the events (content and order) do not depend on this number nor on
    /// the threads.
    ///
    /// A split pays only when each task has enough work to outweigh the
    /// pool's hand-over and the second core's cache misses: on a 2-core
    /// virtual machine, 10 000–20 000 moving hulls ran 12–15 % faster with
    /// `1` than split, and 50 000 fastest with `2` (docs/BENCHMARKS.md).
    /// Measure on the target machine.
    pub fn with_parallel_tasks(mut self, tasks: usize) -> Self {
        self.parallel_tasks = Some(tasks);
        self
    }

    /// Sets the side of the broad phase's grid cells (default: 8 × the
    /// median box size, chosen at the first update). Errors: a NaN,
    /// infinite, zero or negative size, or one beyond
    /// [`MAX_POSITION`](crate::collider::limits::MAX_POSITION).
    pub fn with_cell_size(self, cell_size: f32) -> Result<Self, WorldError> {
        let config = WorldConfig {
            cell_size: Some(cell_size),
            ..self.config
        };
        self.with_config(config)
    }

    /// Turns contact data on or off (default on): distance and closest
    /// features of separated convex pairs, penetration depth of overlapping
    /// ones. Off, pairs report only that they touch or not (the cheaper
    /// coherent boolean test).
    pub fn with_penetration(mut self, penetration: bool) -> Self {
        self.config.penetration = penetration;
        self
    }

    /// Turns time-to-collision scheduling on (default off; I-COLLIDE §3.4,
    /// see [`crate::pipeline`]'s `set_speed_bound`): a pair of colliders
    /// with a [`MaxFrameMotion`] found apart is not tested again until
    /// their motion could have closed the distance between them (the
    /// events stay those of an unscheduled world). Turns contact data on
    /// (the distance comes with it).
    pub fn with_time_to_collision(mut self, on: bool) -> Self {
        self.config.time_to_collision = on;
        self.config.penetration |= on;
        self
    }

    /// How far a collider's box may move, as a fraction of its largest
    /// extent, before the broad phase's grid hears of it (default
    /// [`DEFAULT_MARGIN`](crate::broad_phase::enlarged::DEFAULT_MARGIN); see
    /// [`Enlarged`](crate::broad_phase::Enlarged)). Events stay exact
    /// whatever the value. Errors: a NaN, infinite or negative margin, or
    /// one beyond [`MAX_BROAD_PHASE_MARGIN`](crate::collider::limits::MAX_BROAD_PHASE_MARGIN).
    pub fn with_broad_phase_margin(self, margin: f32) -> Result<Self, WorldError> {
        let config = WorldConfig {
            broad_phase_margin: margin,
            ..self.config
        };
        self.with_config(config)
    }

    /// Pads every box by `margin` (world units) before the broad phase.
    /// Errors: a NaN, infinite or negative margin, or one beyond
    /// [`MAX_POSITION`](crate::collider::limits::MAX_POSITION).
    pub fn with_margin(self, margin: f32) -> Result<Self, WorldError> {
        let config = WorldConfig {
            margin,
            ..self.config
        };
        self.with_config(config)
    }

    /// The plugin with `config`, checked as the world checks it
    /// ([`WorldConfig::validate`]).
    fn with_config(mut self, config: WorldConfig) -> Result<Self, WorldError> {
        config.validate()?;
        self.config = config;
        Ok(self)
    }
}

impl Plugin for CollisionPlugin {
    fn build(&self, app: &mut App) {
        // The settings were checked by the builders (`with_config`).
        let world = CollisionWorld::new(self.config).unwrap_or_default();
        app.insert_resource(CollisionState {
            world,
            all_pair_messages: self.all_pair_messages,
            parallel_tasks: self.parallel_tasks,
            ..Default::default()
        })
        .init_resource::<CollisionDiagnostics>()
        .add_message::<CollisionStart>()
        .add_message::<CollisionEnd>();
        #[cfg(feature = "reflect")]
        reflect::register(app);
        #[cfg(feature = "bevy_asset")]
        app.init_resource::<assets::MeshColliders>().add_systems(
            self.schedule,
            (
                assets::follow_mesh_assets.after(bevy_asset::AssetEventSystems),
                assets::apply_hierarchies,
                assets::construct_colliders,
            )
                .chain()
                .before(CollisionSystems::SyncPoses),
        );

        let sets = (
            CollisionSystems::SyncPoses,
            CollisionSystems::UpdateBounds,
            CollisionSystems::BroadPhase,
            CollisionSystems::NarrowPhase,
            CollisionSystems::Report,
        )
            .chain();
        #[cfg(feature = "bevy_transform")]
        let sets = sets.after(bevy_transform::TransformSystems::Propagate);
        // Cell-placed colliders (`big_space`): f64 poses from their cells,
        // after the transform sync (which skips them) added their bodies.
        #[cfg(feature = "big_space")]
        app.add_systems(
            self.schedule,
            big_space::sync_grid_poses
                .in_set(CollisionSystems::SyncPoses)
                .after(systems::sync_poses),
        );
        app.configure_sets(self.schedule, sets).add_systems(
            self.schedule,
            (
                systems::sync_poses.in_set(CollisionSystems::SyncPoses),
                systems::update_bounds.in_set(CollisionSystems::UpdateBounds),
                systems::broad_phase.in_set(CollisionSystems::BroadPhase),
                systems::narrow_phase.in_set(CollisionSystems::NarrowPhase),
                systems::report.in_set(CollisionSystems::Report),
            ),
        );
    }
}
