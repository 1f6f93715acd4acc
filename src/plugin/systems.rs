//! One system per stage. Each reads only what the previous stage wrote.

use std::time::Instant;

use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemParam;

use super::components::{
    Collider, ColliderAabb, ColliderPose, CollidingEntities, CollisionEventsEnabled,
    CollisionLayers, DeformedVertices, MaxFrameMotion, Sensor, StaticCollider, SweptCcd,
};
use super::events::{CollisionEnd, CollisionStart, MessagePolicy};
use super::pair_config::apply_pending;
use super::resources::{CollisionDiagnostics, CollisionState};
use crate::math::Pose;
use crate::pipeline::{BodyDesc, BodyHandle, ContactEvent, SpeedBound};

type FlagsQuery<'w, 's> = Query<
    'w,
    's,
    (
        Option<&'static CollisionLayers>,
        Has<StaticCollider>,
        Has<Sensor>,
        Has<SweptCcd>,
        Option<&'static MaxFrameMotion>,
    ),
    With<Collider>,
>;

/// Moving colliders added or whose shape changed (static ones are found by
/// `static_scan.rs`).
type MovingColliderChanged = (Changed<Collider>, Without<StaticCollider>);

/// Flags of moving colliders that changed (a static collider's are found
/// by `static_scan.rs`).
type ChangedFlags = (
    With<Collider>,
    Without<StaticCollider>,
    Or<(
        Changed<CollisionLayers>,
        Added<Sensor>,
        Added<SweptCcd>,
        Changed<MaxFrameMotion>,
    )>,
);

/// The static colliders, read as slices of their change ticks
/// (`static_scan.rs`): one pass over a few ticks per static collider each
/// frame, where the moving colliders' queries pass over theirs three
/// times (`Without<StaticCollider>`: their archetypes alone). Bevy keeps
/// no change tick per archetype, so a static collider the user moves is
/// seen only through its own ticks.
type StaticScanned = (With<StaticCollider>, NotInCell);

#[cfg(feature = "bevy_transform")]
type Global = bevy_transform::components::GlobalTransform;
#[cfg(feature = "bevy_transform")]
type TransformItem = (Entity, &'static Global, &'static mut ColliderPose);
/// Colliders placed by a `big_space` grid cell: synced from the cell
/// (`big_space.rs`), never from their floating-origin-relative
/// `GlobalTransform` nor their `ColliderPose` (which that sync writes).
#[cfg(feature = "big_space")]
type NotInCell = Without<big_space::prelude::CellCoord>;
#[cfg(not(feature = "big_space"))]
type NotInCell = ();
#[cfg(feature = "bevy_transform")]
type TransformChanged = (
    With<Collider>,
    Without<StaticCollider>,
    NotInCell,
    Or<(Changed<Global>, Changed<Collider>)>,
);
/// Colliders whose user-written pose changed (those with a `GlobalTransform`
/// are synced from it instead).
#[cfg(feature = "bevy_transform")]
type PoseChanged = (
    With<Collider>,
    Without<Global>,
    NotInCell,
    Or<(Changed<ColliderPose>, Changed<Collider>)>,
);
#[cfg(not(feature = "bevy_transform"))]
type PoseChanged = (
    With<Collider>,
    Or<(Changed<ColliderPose>, Changed<Collider>)>,
);

/// Everything the `SyncPoses` stage reads.
#[derive(SystemParam)]
pub(crate) struct SyncParams<'w, 's> {
    state: ResMut<'w, CollisionState>,
    diagnostics: ResMut<'w, CollisionDiagnostics>,
    removed: RemovedComponents<'w, 's, Collider>,
    removed_layers: RemovedComponents<'w, 's, CollisionLayers>,
    removed_static: RemovedComponents<'w, 's, StaticCollider>,
    removed_sensor: RemovedComponents<'w, 's, Sensor>,
    removed_ccd: RemovedComponents<'w, 's, SweptCcd>,
    removed_motion: RemovedComponents<'w, 's, MaxFrameMotion>,
    changed: Query<'w, 's, (Entity, &'static Collider), MovingColliderChanged>,
    /// The static colliders' tick columns, read as slices
    /// (`static_scan.rs`).
    static_scan: Query<'w, 's, super::static_scan::ScanData, StaticScanned>,
    /// The static colliders `static_scan` found changed this frame.
    static_changed: Local<'s, Vec<Entity>>,
    flags: FlagsQuery<'w, 's>,
    changed_flags: Query<'w, 's, Entity, ChangedFlags>,
    #[cfg(feature = "bevy_transform")]
    transforms: Query<'w, 's, TransformItem, TransformChanged>,
    /// The static colliders' transforms (read for those `static_scan` found).
    #[cfg(feature = "bevy_transform")]
    static_transforms: Query<'w, 's, TransformItem, (With<StaticCollider>, NotInCell)>,
    poses: Query<'w, 's, (Entity, &'static ColliderPose), PoseChanged>,
    scratch: Local<'s, Vec<(Entity, Collider)>>,
    #[cfg(feature = "bevy_transform")]
    staging: Local<'s, super::parallel::PoseStaging>,
    /// The one-thread sync's order (table or body order).
    #[cfg(feature = "bevy_transform")]
    in_body_order: Local<'s, super::pose_sync::BodyOrder>,
    colliding: Query<'w, 's, &'static mut CollidingEntities>,
    #[cfg(feature = "bevy_transform")]
    propagation: super::propagation::PropagationCheck<'w, 's>,
}

/// Stage 1: colliders, flags, pair configuration and poses into the world.
pub(crate) fn sync_poses(mut p: SyncParams) {
    let start = Instant::now();
    #[cfg(feature = "bevy_transform")]
    p.propagation.check(&mut p.diagnostics);
    sync_removed(&mut p);
    sync_colliders(&mut p);
    sync_flags(&mut p);
    #[cfg(feature = "bevy_transform")]
    sync_transforms(&mut p);
    let SyncParams { state, poses, .. } = &mut p;
    for (e, pose) in poses.iter() {
        if let Some(&body) = state.entity_body.get(&e) {
            apply_pose(state, (e, body), Ok(pose.0));
        }
    }
    p.diagnostics.last.sync = start.elapsed();
}

fn sync_removed(p: &mut SyncParams) {
    let state = &mut *p.state;
    for e in p.removed.read() {
        if let Some(body) = state.entity_body.remove(&e) {
            // The body exists: removal cannot fail. Its ending pairs' events
            // carry the entity as user data.
            let _ = state.world.remove_body(body);
            state.warned.clear(e);
        }
    }
}

/// New and replaced colliders, in entity order (reproducible body ids).
fn sync_colliders(p: &mut SyncParams) {
    let mut list = std::mem::take(&mut *p.scratch);
    list.extend(p.changed.iter().map(|(e, c)| (e, c.clone())));
    p.static_changed.clear();
    super::static_scan::changed_statics(&p.static_scan, &mut p.static_changed, &mut list);
    list.sort_unstable_by_key(|(e, _)| *e);
    for (e, collider) in list.drain(..) {
        if let Some(&body) = p.state.entity_body.get(&e) {
            let _ = p
                .state
                .world
                .set_shape(body, collider.shape().clone(), collider.bounds());
            continue;
        }
        let Ok((layers, is_static, sensor, ccd, motion)) = p.flags.get(e) else {
            continue;
        };
        let body = p.state.world.add_body(BodyDesc {
            shape: collider.shape().clone(),
            bounds: collider.bounds(),
            is_static,
            layers: layers.copied().unwrap_or_default().to_layers(),
            active: true,
            sensor,
            user_data: e.to_bits(),
            ccd,
        });
        set_speed_bound(&mut p.state, (e, body), motion);
        p.state.entity_body.insert(e, body);
        // A new body touches nothing yet (a copy from a scene or a clone
        // may carry stale entities).
        if let Ok(mut c) = p.colliding.get_mut(e) {
            c.0.clear();
        }
        apply_pending(&mut p.state, e);
    }
    *p.scratch = list;
}

/// Layers, static, sensor and continuous-detection flags that changed or
/// were removed.
fn sync_flags(p: &mut SyncParams) {
    let SyncParams {
        state,
        removed_layers,
        removed_static,
        removed_sensor,
        removed_ccd,
        removed_motion,
        flags,
        changed_flags,
        static_changed,
        ..
    } = p;
    let removed = removed_layers
        .read()
        .chain(removed_static.read())
        .chain(removed_sensor.read())
        .chain(removed_ccd.read())
        .chain(removed_motion.read());
    let statics = static_changed.iter().copied();
    for e in changed_flags.iter().chain(statics).chain(removed) {
        let (Some(&body), Ok((layers, is_static, sensor, ccd, motion))) =
            (state.entity_body.get(&e), flags.get(e))
        else {
            continue;
        };
        let world = &mut state.world;
        let _ = world.set_layers(body, layers.copied().unwrap_or_default().to_layers());
        let _ = world.set_static(body, is_static);
        let _ = world.set_sensor(body, sensor);
        let _ = world.set_ccd(body, ccd);
        set_speed_bound(state, (e, body), motion);
    }
}

/// A collider's declared motion bound into the world; a bad one is
/// warned about and ignored (no scheduling for that collider).
fn set_speed_bound(
    state: &mut CollisionState,
    (e, body): (Entity, BodyHandle),
    motion: Option<&MaxFrameMotion>,
) {
    let bound = motion.map(|m| SpeedBound {
        linear: m.linear,
        angular: m.angular,
    });
    if let Err(err) = state.world.set_speed_bound(body, bound) {
        log::warn!("bevy_icollide: entity {e}: {err}; the bound is ignored");
        let _ = state.world.set_speed_bound(body, None);
    }
}

/// Changed transforms into the world, in query order. With several
/// tasks the query's items are staged in one pass and converted (and
/// their `ColliderPose` written) in chunks on the compute pool; the world
/// then takes them serially in the same order.
#[cfg(feature = "bevy_transform")]
fn sync_transforms(p: &mut SyncParams) {
    let SyncParams {
        state,
        diagnostics,
        transforms,
        staging,
        in_body_order,
        static_changed,
        static_transforms,
        ..
    } = p;
    for &e in static_changed.iter() {
        if let Ok((e, global, mut pose)) = static_transforms.get_mut(e) {
            super::pose_sync::sync_transform(
                state,
                e,
                super::pose::pose_and_scale(global),
                &mut pose,
            );
        }
    }
    let tasks = super::parallel::task_count(state.parallel_tasks);
    if tasks <= 1 {
        diagnostics.parallel.sync = Default::default();
        in_body_order.sync(state, transforms.iter_mut());
        return;
    }
    let mut items = staging.take();
    items.extend(transforms.iter_mut());
    diagnostics.parallel.sync =
        super::parallel::convert_poses(&mut items, &mut staging.found, &state.entity_body, tasks);
    diagnostics.parallel.poses = staging.write(state, &items, tasks);
    staging.keep(items);
}

/// Sets a body's pose, or warns once and keeps the last valid pose.
#[inline]
pub(super) fn apply_pose(
    state: &mut CollisionState,
    (e, body): (Entity, BodyHandle),
    pose: Result<Pose, crate::pipeline::WorldError>,
) {
    let result = pose.and_then(|pose| state.world.set_pose(body, pose));
    note_pose(state, e, result);
}

/// Clears a collider's warning once its pose is set, or warns once that it
/// keeps its last valid pose.
pub(super) fn note_pose(
    state: &mut CollisionState,
    e: Entity,
    result: Result<(), crate::pipeline::WorldError>,
) {
    match result {
        Ok(()) => state.warned.clear(e),
        Err(err) => {
            state.warned.warn(e, || {
                format!("collider {e} skipped: {err}; it keeps its last valid pose")
            });
        }
    }
}

/// Stage 2: boxes of moved colliders (on Bevy's compute task pool when
/// there are many; the boxes go to the broad phase in one serial order).
pub(crate) fn update_bounds(
    mut state: ResMut<CollisionState>,
    mut aabbs: Query<&mut ColliderAabb>,
    deformed: Query<(Entity, &DeformedVertices), Changed<DeformedVertices>>,
    mut diagnostics: ResMut<CollisionDiagnostics>,
) {
    let start = Instant::now();
    for (e, vertices) in &deformed {
        refit(&mut state, e, &vertices.0);
    }
    let tasks = super::parallel::task_count(state.parallel_tasks);
    diagnostics.parallel.bounds = super::parallel::update_bounds(&mut state.world, tasks);
    for body in state.world.moved_bodies() {
        let (Some(e), Some(aabb)) = (state.entity(body), state.world.aabb(body)) else {
            continue;
        };
        if let Ok(mut c) = aabbs.get_mut(e) {
            c.0 = aabb;
        }
    }
    diagnostics.last.bounds = start.elapsed();
}

/// Refits a deformable collider to its new vertices, or warns once.
fn refit(state: &mut CollisionState, e: Entity, vertices: &[glam::Vec3]) {
    let Some(&body) = state.entity_body.get(&e) else {
        return;
    };
    match state.world.set_vertices(body, vertices) {
        Ok(_) => state.warned.clear(e),
        Err(err) => {
            state
                .warned
                .warn(e, || format!("deformed vertices of {e} skipped: {err}"));
        }
    }
}

/// Stage 3: sweep and prune.
pub(crate) fn broad_phase(
    mut state: ResMut<CollisionState>,
    mut diagnostics: ResMut<CollisionDiagnostics>,
) {
    let start = Instant::now();
    state.world.update_broad_phase();
    diagnostics.last.broad = start.elapsed();
}

/// Stage 4: pair tests, spread over Bevy's compute task pool when there are
/// enough pairs (results are applied and events sorted serially afterwards,
/// so the events do not depend on the thread count).
pub(crate) fn narrow_phase(
    mut state: ResMut<CollisionState>,
    mut diagnostics: ResMut<CollisionDiagnostics>,
) {
    let start = Instant::now();
    let tasks = super::parallel::task_count(state.parallel_tasks);
    diagnostics.parallel.narrow = super::parallel::update_narrow_phase(&mut state.world, tasks);
    diagnostics.last.narrow = start.elapsed();
}

/// Stage 5: events in sorted pair order, `CollidingEntities`, diagnostics.
#[allow(clippy::too_many_arguments)]
pub(crate) fn report(
    mut state: ResMut<CollisionState>,
    mut starts: MessageWriter<CollisionStart>,
    mut ends: MessageWriter<CollisionEnd>,
    mut colliding: Query<&mut CollidingEntities>,
    observed: Query<(), With<CollisionEventsEnabled>>,
    mut commands: Commands,
    mut diagnostics: ResMut<CollisionDiagnostics>,
) {
    let start = Instant::now();
    let CollisionState {
        world,
        all_pair_messages,
        reported,
        ..
    } = &mut *state;
    let mut messages = MessagePolicy {
        all: *all_pair_messages,
        reported,
    };
    for ev in world.drain_events() {
        let [a, b] = entities(&ev);
        for (me, other) in [(a, b), (b, a)] {
            if let Ok(mut c) = colliding.get_mut(me) {
                if ev.started {
                    c.insert(other);
                } else {
                    c.remove(other);
                }
            }
        }
        if messages.due(ev.started, [a, b], &observed) {
            if ev.started {
                starts.write(CollisionStart {
                    collider1: a,
                    collider2: b,
                });
            } else {
                ends.write(CollisionEnd {
                    collider1: a,
                    collider2: b,
                });
            }
        }
        for (me, other) in [(a, b), (b, a)] {
            if observed.contains(me) {
                if ev.started {
                    commands.trigger(CollisionStart {
                        collider1: me,
                        collider2: other,
                    });
                } else {
                    commands.trigger(CollisionEnd {
                        collider1: me,
                        collider2: other,
                    });
                }
            }
        }
    }
    diagnostics.stats = state.world.stats();
    diagnostics.last.report = start.elapsed();
    diagnostics.finish_frame();
}

/// The entities of an event's bodies (stored as their user data).
fn entities(ev: &ContactEvent) -> [Entity; 2] {
    ev.user_data.map(Entity::from_bits)
}
