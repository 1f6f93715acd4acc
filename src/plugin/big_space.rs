//! Large worlds with `big_space` (feature `big_space`): a collider placed
//! by a grid cell gets its `f64` world position from the cell and its
//! cell-local `Transform`.
//!
//! `big_space` places an entity by an integer [`CellCoord`] in its parent's
//! [`Grid`] plus a `Transform` relative to that cell's centre; its
//! `GlobalTransform` is relative to the floating origin (the camera), in
//! `f32`, and moves when the camera does. The collision world wants one
//! fixed frame instead: the root [`BigSpace`](big_space::prelude::BigSpace)'s.
//! [`sync_grid_poses`] (in [`CollisionSystems::SyncPoses`](super::CollisionSystems),
//! after the `GlobalTransform` sync, which skips colliders with a
//! `CellCoord`) computes a collider's pose in that frame in `f64`:
//!
//! - in its grid: `cell · edge + translation` ([`Grid::grid_position_double`],
//!   exact in `f64` for cells up to `2⁵³ / edge`), the rotation its
//!   `Transform`'s;
//! - a grid that is itself in a cell of a parent grid (nested grids) is
//!   placed the same way, and the poses compose: `t = t_grid + q_grid t_local`
//!   in `f64`, `q = q_grid q_local`;
//!
//! then hands it to [`CollisionWorld::set_pose_f64`](crate::pipeline::CollisionWorld::set_pose_f64),
//! which tests every pair in a frame at its first body
//! ([`crate::pipeline::large_world`]): a pair 10⁹ m out gets the answer it
//! gets at the origin. [`ColliderPose`] gets the pose rounded to `f32`.
//!
//! Only the collider's own `CellCoord` counts: a collider placed by a plain
//! `Transform` under a cell entity (a low-precision child) is synced from
//! its `GlobalTransform` as without this feature (floating-origin
//! relative): give every collider in a big space its own `CellCoord`.
//! Grids must have scale 1; the collider's own scale is handled as for a
//! `GlobalTransform` (a triangle mesh takes it, another shape refuses a
//! scale other than 1 with a warning).

use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;
use bevy_transform::components::Transform;
use big_space::prelude::{CellCoord, Grid};
use glam::{DVec3, Vec3};

use super::components::{Collider, ColliderPose};
use super::resources::CollisionState;
use crate::math::WorldPose;
use crate::pipeline::{BodyHandle, WorldError};

/// A cell-placed entity's parent link, its cell and its transform.
type Cells<'w, 's> = Query<'w, 's, (&'static CellCoord, &'static Transform, &'static ChildOf)>;

/// Colliders placed by a grid cell.
type GridColliders<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static CellCoord,
        &'static Transform,
        &'static ChildOf,
        &'static mut ColliderPose,
    ),
    With<Collider>,
>;

/// Stage 1 (after the transform sync): every cell-placed collider's `f64`
/// pose into the world, set only when it changed (a nested grid's motion
/// moves colliders whose own components did not change, so each is
/// recomputed: a few hierarchy look-ups per collider and frame).
pub(crate) fn sync_grid_poses(
    mut state: ResMut<CollisionState>,
    mut colliders: GridColliders,
    cells: Cells,
    grids: Query<&Grid>,
) {
    for (e, cell, transform, parent, mut pose) in &mut colliders {
        let Some(&body) = state.entity_body.get(&e) else {
            continue;
        };
        let result = grid_pose((cell, transform, parent), &cells, &grids)
            .map_err(|e| e.to_string())
            .and_then(|p| set_if_changed(&mut state, body, p, transform.scale));
        match result {
            Ok(world_pose) => {
                state.warned.clear(e);
                let rounded = world_pose.to_pose();
                if pose.0 != rounded {
                    pose.0 = rounded;
                }
            }
            Err(err) => {
                state.warned.warn(e, || {
                    format!("collider {e} skipped: {err}; it keeps its last valid pose")
                });
            }
        }
    }
}

/// Sets the body's scale and, when it differs from the world's, its pose.
fn set_if_changed(
    state: &mut CollisionState,
    body: BodyHandle,
    pose: WorldPose,
    scale: Vec3,
) -> Result<WorldPose, String> {
    let set = |state: &mut CollisionState| -> Result<(), WorldError> {
        state.set_scale(body, scale)?;
        if state.world.pose_f64(body) != Some(pose) {
            state.world.set_pose_f64(body, pose)?;
        }
        Ok(())
    };
    set(state).map_err(|e| e.to_string())?;
    Ok(pose)
}

/// Why a cell-placed entity has no pose in the root grid's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridPoseError {
    /// The entity (or a grid above it) has a `CellCoord` but its parent
    /// has no `Grid` (`big_space` requires one).
    NoGrid,
    /// A grid above the entity is scaled other than 1.
    ScaledGrid,
    /// A NaN or infinite cell position, translation or rotation.
    NonFinite,
}

impl std::fmt::Display for GridPoseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GridPoseError::NoGrid => "it has a CellCoord but its parent has no Grid",
            GridPoseError::ScaledGrid => "a grid above it has a scale other than 1",
            GridPoseError::NonFinite => "its grid position is NaN or infinite",
        })
    }
}

/// The pose, in the root grid's frame, of an entity at `cell` and
/// `transform` in the grid `parent`: composed up through every grid that is
/// itself placed in a cell (see [`GridPoseError`]). For a system of your
/// own (the plugin's system calls it for every cell-placed collider).
pub fn grid_pose(
    (cell, transform, parent): (&CellCoord, &Transform, &ChildOf),
    cells: &Query<(&CellCoord, &Transform, &ChildOf)>,
    grids: &Query<&Grid>,
) -> Result<WorldPose, GridPoseError> {
    let mut rotation = transform.rotation.as_dquat();
    let grid = grids
        .get(parent.parent())
        .map_err(|_| GridPoseError::NoGrid)?;
    let mut translation = grid.grid_position_double(cell, transform);
    let mut node = parent.parent();
    // Up through the grids placed in cells; the root grid has no cell.
    while let Ok((cell, t, up)) = cells.get(node) {
        if (t.scale - Vec3::ONE).abs().max_element() > 1e-6 {
            return Err(GridPoseError::ScaledGrid);
        }
        let grid = grids.get(up.parent()).map_err(|_| GridPoseError::NoGrid)?;
        let q = t.rotation.as_dquat();
        translation = grid.grid_position_double(cell, t) + q * translation;
        rotation = q * rotation;
        node = up.parent();
    }
    if !translation.is_finite() || !rotation.is_finite() {
        return Err(GridPoseError::NonFinite);
    }
    // Bit for bit the `Transform`'s rotation when no grid turns (products
    // with the identity are exact in `f64`).
    Ok(WorldPose::new(rotation.as_quat(), translation))
}

/// A point of the root grid's frame (`f64`, e.g. a hit's
/// [`RayHitF64::point`](super::RayHitF64)) as a cell and a cell-local
/// offset in `grid` (a grid directly under the root, or the root): the
/// cell nearest the point, as `big_space` recentres.
pub fn point_in_grid(grid: &Grid, point: DVec3) -> (CellCoord, Vec3) {
    grid.translation_to_grid(point)
}
