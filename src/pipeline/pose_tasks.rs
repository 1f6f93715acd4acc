//! Many bodies' pose (and scale) writes split into tasks the caller runs on
//! its threads, as the bounds update's boxes are
//! ([`BoundsTask`](super::BoundsTask)): the plugin's pose sync hands the
//! world every moved collider's pose each frame, and the writes' first
//! touch of each body record is most of that stage's serial cost.
//!
//! A write reads and writes its own body alone (checks, pose, scale, the
//! dirty flag), so the body table is cut into runs of equal slot ranges,
//! one per task, and each write goes to the task of its slot (in the
//! writes' order within a task). The world's own list of dirty bodies is
//! then appended in one serial pass in the writes' order: exactly what
//! [`set_scale`](CollisionWorld::set_scale) and
//! [`set_pose`](CollisionWorld::set_pose) called one write after the other
//! leave, so the boxes' hand-over to the broad phase, the pair changes and
//! the events are the same whatever the number of tasks or threads. A task
//! the caller drops leaves its writes to that serial pass.

use glam::Vec3;

use super::body::Body;
use super::large_world::place;
use super::scale::rescale;
use super::{BodyHandle, CollisionWorld, WorldError, checks};
use crate::broad_phase::BroadPhase;
use crate::math::Pose;
use crate::narrow_phase::recycle;

/// One body's new pose and, if given, its new scale (set first, as
/// [`set_scale`](CollisionWorld::set_scale) then
/// [`set_pose`](CollisionWorld::set_pose) would).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoseWrite {
    /// The body.
    pub body: BodyHandle,
    /// Its new pose.
    pub pose: Pose,
    /// Its new scale, or `None` to leave it.
    pub scale: Option<Vec3>,
}

/// A write's outcome: whether it made its body dirty, and its error.
type Outcome = Option<(bool, Result<(), WorldError>)>;

/// A share of the writes: a run of the body table and its writes.
#[must_use = "a task writes nothing until it is run (a dropped task's writes are made serially afterwards)"]
pub struct PoseTask<'a> {
    bodies: &'a mut [Body],
    /// Slot of `bodies[0]`.
    first: u32,
    writes: &'a [PoseWrite],
    /// Indices into `writes` of this share's writes, in order.
    items: &'a [u32],
    /// Their outcomes, as `items`.
    outcomes: &'a mut [Outcome],
}

impl PoseTask<'_> {
    /// Makes this share's writes.
    pub fn run(self) {
        for (&k, out) in self.items.iter().zip(self.outcomes.iter_mut()) {
            let w = &self.writes[k as usize];
            let body = &mut self.bodies[(w.body.index() - self.first) as usize];
            *out = Some(write(body, w));
        }
    }

    /// Number of writes in this share.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether this share is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// The parallel writes' lists, kept between calls for their memory.
#[derive(Default)]
pub(super) struct PoseLists {
    /// Writes per task, then their running start.
    counts: Vec<u32>,
    /// Write indices grouped by task, each group in the writes' order.
    order: Vec<u32>,
    /// For each write, its place in `order`.
    at: Vec<u32>,
    outcomes: Vec<Outcome>,
    tasks: Vec<PoseTask<'static>>,
}

/// One write into its body, with the checks and order of `set_scale` then
/// `set_pose`: whether it made the body dirty (it was not yet), and the
/// first error (a scale refused stops the pose; a pose refused keeps a
/// scale already set).
fn write(body: &mut Body, w: &PoseWrite) -> (bool, Result<(), WorldError>) {
    let was = body.dirty;
    let result = (|| {
        if let Some(scale) = w.scale {
            checks::scale(scale)?;
            let changed = rescale(live(body, w.body)?, scale)?;
            body.dirty |= changed;
        }
        checks::pose(&w.pose)?;
        let pose = w.pose.into();
        checks::world_pose(&pose)?;
        place(live(body, w.body)?, pose);
        body.dirty = true;
        Ok(())
    })();
    (body.dirty && !was, result)
}

/// `body` if `h` is its live handle.
fn live(body: &mut Body, h: BodyHandle) -> Result<&mut Body, WorldError> {
    if body.alive && body.generation == h.generation() {
        Ok(body)
    } else {
        Err(WorldError::StaleHandle(h))
    }
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// Each of `writes` as [`set_scale`](Self::set_scale) (if it has a
    /// scale) then [`set_pose`](Self::set_pose), with the body writes
    /// spread over `tasks` tasks (clamped to `1 ..= writes`): `run` gets
    /// the tasks (each `Send`) and should run all of them before it
    /// returns (a scoped spawn). `outcomes` gets each write's result, in
    /// order. Everything after (boxes, pairs, events) is what the serial
    /// calls in the writes' order give, whatever the split (see the module
    /// docs). A dropped task's writes are made serially after `run`
    /// returns. Allocates nothing in steady state.
    pub fn set_poses_with(
        &mut self,
        writes: &[PoseWrite],
        tasks: usize,
        run: impl FnOnce(std::vec::Drain<'_, PoseTask<'_>>),
        outcomes: &mut Vec<Result<(), WorldError>>,
    ) {
        outcomes.clear();
        if writes.is_empty() {
            return;
        }
        let slots = self.bodies.len();
        let tasks = tasks.clamp(1, writes.len().min(slots).max(1));
        let mut lists = std::mem::take(&mut self.pose_lists);
        group(&mut lists, writes, tasks, slots);
        let mut list: Vec<PoseTask<'_>> = recycle(std::mem::take(&mut lists.tasks));
        split(
            &mut list,
            &mut self.bodies,
            writes,
            &lists.order,
            &mut lists.outcomes,
            &lists.counts,
        );
        run(list.drain(..));
        lists.tasks = recycle(list);
        for (k, w) in writes.iter().enumerate() {
            let done = lists.outcomes[lists.at[k] as usize].take();
            let (dirty, result) = done.unwrap_or_else(|| self.write_serially(w));
            if dirty {
                self.dirty.push(w.body.index());
            }
            outcomes.push(result);
        }
        self.pose_lists = lists;
    }

    /// A write of a dropped task (or beyond the body table), made on the
    /// calling thread.
    fn write_serially(&mut self, w: &PoseWrite) -> (bool, Result<(), WorldError>) {
        match self.bodies.get_mut(w.body.index() as usize) {
            Some(body) => write(body, w),
            None => (false, Err(WorldError::StaleHandle(w.body))),
        }
    }
}

/// The task of slot `slot`: equal slot ranges of the `slots` slots (task
/// `t` has slots `⌈t · slots / tasks⌉ .. ⌈(t + 1) · slots / tasks⌉`);
/// `tasks` (no task: the serial pass) for a slot beyond the table.
fn task_of(slot: u32, tasks: usize, slots: usize) -> usize {
    (slot as usize * tasks / slots.max(1)).min(tasks)
}

/// The first slot of task `t`'s run.
fn run_start(t: usize, tasks: usize, slots: usize) -> usize {
    (t * slots).div_ceil(tasks)
}

/// The writes' indices grouped by task (a counting sort, stable; the
/// writes beyond the body table last, in no task's group), and each
/// write's place: `counts[t]` is then task `t`'s first place.
fn group(lists: &mut PoseLists, writes: &[PoseWrite], tasks: usize, slots: usize) {
    let PoseLists {
        counts,
        order,
        at,
        outcomes,
        ..
    } = lists;
    counts.clear();
    counts.resize(tasks + 2, 0);
    for w in writes {
        counts[task_of(w.body.index(), tasks, slots) + 1] += 1;
    }
    for t in 1..counts.len() {
        counts[t] += counts[t - 1];
    }
    // Now `counts[t]` is group `t`'s start.
    order.clear();
    at.clear();
    order.resize(writes.len(), 0);
    // Each group's count as its cursor: afterwards `counts[t]` is the end
    // of group `t`, shifted back into starts below.
    for (k, w) in (0u32..).zip(writes) {
        let t = task_of(w.body.index(), tasks, slots);
        order[counts[t] as usize] = k;
        at.push(counts[t]);
        counts[t] += 1;
    }
    counts.rotate_right(1);
    counts[0] = 0;
    outcomes.clear();
    outcomes.resize(writes.len(), None);
}

/// The body table cut into one run per task (equal slot ranges), each
/// with its writes and their outcomes.
fn split<'a>(
    list: &mut Vec<PoseTask<'a>>,
    mut rest: &'a mut [Body],
    writes: &'a [PoseWrite],
    order: &'a [u32],
    mut outcomes: &'a mut [Outcome],
    counts: &[u32],
) {
    let (slots, tasks) = (rest.len(), counts.len() - 2);
    let mut first = 0u32;
    for t in 0..tasks {
        let end = run_start(t + 1, tasks, slots);
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(end - first as usize);
        let n = (counts[t + 1] - counts[t]) as usize;
        let (out, more) = std::mem::take(&mut outcomes).split_at_mut(n);
        let items = &order[counts[t] as usize..counts[t + 1] as usize];
        list.push(PoseTask {
            bodies: head,
            first,
            writes,
            items,
            outcomes: out,
        });
        (rest, outcomes, first) = (tail, more, end as u32);
    }
}
