//! The static colliders with anything changed that the world mirrors,
//! found by reading each table's change ticks as slices (Bevy's
//! contiguous query iteration).
//!
//! Bevy keeps no change tick per table for `GlobalTransform`: a static
//! collider the user moves is seen only through its own tick, so finding
//! the changed ones reads every static collider's ticks every frame.
//! Bevy's filtered iteration (`Or<(Changed<…>, …)>`) does it entity by
//! entity, a branch per term and per entity; here each table's tick
//! columns are read in blocks of [`BLOCK`] rows, each block tested as a
//! whole (a loop without branches, which the compiler vectorizes), and
//! only a block holding a change is read again row by row. The rows found
//! and their order (table order) are those of the filtered query: a row
//! counts when any of its ticks [`Tick::is_newer_than`] the system's last
//! run, Bevy's own test (which handles the ticks' wrapping). Measured in
//! `docs/notes/EXPERIMENTS.md#static-scan`.

use bevy_ecs::change_detection::{ContiguousRef, Tick};
use bevy_ecs::prelude::*;
use bevy_ecs::query::WorldQuery;

use super::components::{
    Collider, CollisionLayers, MaxFrameMotion, Sensor, StaticCollider, SweptCcd,
};

/// The static colliders' shapes and every tick whose change the world
/// mirrors: changed `GlobalTransform`, `Collider`, `CollisionLayers`,
/// `MaxFrameMotion`; added `StaticCollider`, `Sensor`, `SweptCcd`.
pub(super) type ScanData = (
    Entity,
    Ref<'static, Collider>,
    Ref<'static, StaticCollider>,
    Option<Ref<'static, CollisionLayers>>,
    Option<Ref<'static, Sensor>>,
    Option<Ref<'static, SweptCcd>>,
    Option<Ref<'static, MaxFrameMotion>>,
    GlobalTicks,
);
#[cfg(feature = "bevy_transform")]
type GlobalTicks = Option<Ref<'static, bevy_transform::components::GlobalTransform>>;
#[cfg(not(feature = "bevy_transform"))]
type GlobalTicks = ();

/// Rows tested together: 64 ticks of 4 bytes, four cache lines a column.
const BLOCK: usize = 64;

/// At most one tick column per term of [`ScanData`].
const COLUMNS: usize = 7;

/// Pushes each static collider with a changed tick to `changed`, and
/// those whose `Collider` changed (or was added) also to `shapes` with a
/// copy of it, in table order. The query reads only table-stored
/// components (dense, asserted at compile time), so Bevy always hands out
/// its slices.
pub(super) fn changed_statics<F: bevy_ecs::query::ArchetypeFilter>(
    query: &Query<ScanData, F>,
    changed: &mut Vec<Entity>,
    shapes: &mut Vec<(Entity, Collider)>,
) {
    const { assert!(<ScanData as WorldQuery>::IS_DENSE && <F as WorldQuery>::IS_DENSE) };
    let Ok(tables) = query.contiguous_iter() else {
        unreachable!("a dense query iterates contiguously");
    };
    for table in tables {
        let (entities, collider, is_static, layers, sensor, ccd, motion, global) = table;
        let (colliders, collider_ticks) = ContiguousRef::split(collider);
        let (last_run, this_run) = (collider_ticks.last_run(), collider_ticks.this_run());
        let mut columns = Columns::default();
        columns.push(collider_ticks.changed());
        columns.push(is_static.added_ticks_slice());
        columns.push_opt(layers.map(|c| c.changed_ticks_slice()));
        columns.push_opt(sensor.map(|c| c.added_ticks_slice()));
        columns.push_opt(ccd.map(|c| c.added_ticks_slice()));
        columns.push_opt(motion.map(|c| c.changed_ticks_slice()));
        #[cfg(feature = "bevy_transform")]
        columns.push_opt(global.map(|c| c.changed_ticks_slice()));
        #[cfg(not(feature = "bevy_transform"))]
        let () = global;
        let newer = |t: &Tick| t.is_newer_than(last_run, this_run);
        columns.for_each_changed_row(entities.len(), newer, |row| {
            changed.push(entities[row]);
            if newer(&collider_ticks.changed()[row]) {
                shapes.push((entities[row], colliders[row].clone()));
            }
        });
    }
}

/// One table's tick columns (those of the components it has).
#[derive(Default)]
struct Columns<'w> {
    ticks: [&'w [Tick]; COLUMNS],
    len: usize,
}

impl<'w> Columns<'w> {
    fn push(&mut self, ticks: &'w [Tick]) {
        self.ticks[self.len] = ticks;
        self.len += 1;
    }

    fn push_opt(&mut self, ticks: Option<&'w [Tick]>) {
        if let Some(ticks) = ticks {
            self.push(ticks);
        }
    }

    /// Calls `found` with each row (ascending) where any column's tick is
    /// `newer`: block by block, a block read row by row only when one of
    /// its ticks is.
    fn for_each_changed_row(
        &self,
        rows: usize,
        newer: impl Fn(&Tick) -> bool + Copy,
        mut found: impl FnMut(usize),
    ) {
        let columns = &self.ticks[..self.len];
        for start in (0..rows).step_by(BLOCK) {
            let block = start..(start + BLOCK).min(rows);
            let any = |c: &&[Tick]| c[block.clone()].iter().fold(false, |a, t| a | newer(t));
            if !columns.iter().any(any) {
                continue;
            }
            for row in block {
                if columns.iter().any(|c| newer(&c[row])) {
                    found(row);
                }
            }
        }
    }
}
