//! No allocation per frame in steady state: a counting global allocator
//! watches `CollisionWorld::step` on a coherent multi-body scene; and no
//! growth of the memory in use when bodies are removed and added every
//! frame (churn).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::thread::LocalKey;

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, PoseWrite, WorldConfig, WorldError};
use bevy_icollide::testkit::{MultiBodyParams, MultiBodyScene};
use glam::Vec3;

struct Counting;

// Counted per thread: the test harness and the other tests allocate on
// their own threads meanwhile (a global count saw them: "allocated 3
// times" in a full run). Every counted run steps on its test's thread,
// the parallel path's tasks included (run there in turn).
thread_local! {
    static COUNTING_HERE: Cell<bool> = const { Cell::new(false) };
    static ALLOCS_HERE: Cell<u64> = const { Cell::new(0) };
    static LIVE_HERE: Cell<i64> = const { Cell::new(0) };
}

/// One of this thread's counters (`Ordering` kept for the call sites'
/// atomics-like reading; a thread's own cell needs none).
struct Here<T: 'static>(&'static LocalKey<Cell<T>>);

impl<T: Copy + Default + 'static> Here<T> {
    fn load(&self, _: Ordering) -> T {
        self.0.try_with(Cell::get).unwrap_or_default()
    }
    fn store(&self, value: T, _: Ordering) {
        let _ = self.0.try_with(|c| c.set(value));
    }
}

impl<T: Copy + std::ops::Add<Output = T> + 'static> Here<T> {
    fn add(&self, by: T) {
        let _ = self.0.try_with(|c| c.set(c.get() + by));
    }
}

static COUNTING: Here<bool> = Here(&COUNTING_HERE);
static ALLOCS: Here<u64> = Here(&ALLOCS_HERE);
/// Bytes allocated and not freed on this thread (always counted).
static LIVE: Here<i64> = Here(&LIVE_HERE);
static ONE_RUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.add(1);
        }
        LIVE.add(held(layout.size()));
        // SAFETY: forwarding the caller's layout to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.add(-held(layout.size()));
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.add(1);
        }
        LIVE.add(held(new_size) - held(layout.size()));
        // SAFETY: forwarding a block that came from `System.alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes a block of `size` holds: at least 16, as a system allocator's
/// smallest chunk, so that a leak of tiny blocks shows as what it costs.
fn held(size: usize) -> i64 {
    size.max(16) as i64
}

/// What the 200 counted frames (after warm-up) did.
struct Counted {
    frames_with_allocs: u32,
    allocs: u64,
    events: usize,
}

/// Runs the multi-body scene with `shape_of(i)` for body `i`.
fn run(
    mode: BoundsMode,
    warm_up: u32,
    shape_of: impl Fn(&MultiBodyScene, usize) -> SharedShape,
) -> Counted {
    run_with(mode, warm_up, shape_of, |_| false)
}

/// One serial step; returns the number of events.
fn serial_step(world: &mut CollisionWorld) -> usize {
    world.step().len()
}

/// One step on the parallel path (the bounds update's and the narrow
/// phase's tasks, three each), the tasks run in turn on this thread: what
/// the split and the merge allocate, not a thread pool's spawning.
fn step_in_tasks(world: &mut CollisionWorld) -> usize {
    world.update_bounds_with(3, |tasks| {
        for task in tasks {
            task.run();
        }
    });
    world.update_narrow_phase_with(3, |tasks| {
        for task in tasks {
            task.run();
        }
    });
    world.drain_events().len()
}

/// [`run`] with continuous detection on the bodies `ccd` picks.
fn run_with(
    mode: BoundsMode,
    warm_up: u32,
    shape_of: impl Fn(&MultiBodyScene, usize) -> SharedShape,
    ccd: impl Fn(usize) -> bool,
) -> Counted {
    run_stepped(
        mode,
        warm_up,
        (shape_of, ccd),
        (poses_one_by_one, serial_step),
    )
}

/// How a frame's poses reach the world: one `set_pose` each, or
/// `set_poses_with` in three tasks run in turn (its lists kept).
type SetPoses = fn(&mut CollisionWorld, &[PoseWrite], &mut Vec<Result<(), WorldError>>);

fn poses_one_by_one(
    world: &mut CollisionWorld,
    writes: &[PoseWrite],
    _: &mut Vec<Result<(), WorldError>>,
) {
    for w in writes {
        world.set_pose(w.body, w.pose).expect("valid");
    }
}

fn poses_in_tasks(
    world: &mut CollisionWorld,
    writes: &[PoseWrite],
    out: &mut Vec<Result<(), WorldError>>,
) {
    world.set_poses_with(writes, 3, |tasks| tasks.for_each(|t| t.run()), out);
    assert!(out.iter().all(Result::is_ok));
}

/// [`run_with`], each frame's poses set by `set_poses`, each frame
/// stepped by `step`.
fn run_stepped(
    mode: BoundsMode,
    warm_up: u32,
    (shape_of, ccd): (
        impl Fn(&MultiBodyScene, usize) -> SharedShape,
        impl Fn(usize) -> bool,
    ),
    (set_poses, step): (SetPoses, fn(&mut CollisionWorld) -> usize),
) -> Counted {
    // The allocation counter is global: one counted run at a time.
    let _one_at_a_time = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    let params = MultiBodyParams {
        count: 2000,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let mut world = CollisionWorld::new(WorldConfig {
        margin: 0.02,
        ..Default::default()
    })
    .expect("valid config");
    let ids: Vec<_> = (0..params.count)
        .map(|i| {
            let mut d = BodyDesc::new(shape_of(&scene, i));
            d.bounds = mode;
            d.ccd = ccd(i);
            let id = world.add_body(d);
            world.set_pose(id, scene.bodies[i].pose).expect("valid");
            id
        })
        .collect();
    let mut c = Counted {
        frames_with_allocs: 0,
        allocs: 0,
        events: 0,
    };
    let (mut writes, mut outcomes) = (Vec::with_capacity(ids.len()), Vec::new());
    // Warm up until the pair tables and event buffers reached their size.
    for frame in 0..warm_up + 200 {
        scene.step();
        let counting = frame >= warm_up;
        ALLOCS.store(0, Ordering::Relaxed);
        COUNTING.store(counting, Ordering::Relaxed);
        writes.clear();
        writes.extend(ids.iter().zip(&scene.bodies).map(|(&body, b)| PoseWrite {
            body,
            pose: b.pose,
            scale: None,
        }));
        set_poses(&mut world, &writes, &mut outcomes);
        let events = step(&mut world);
        COUNTING.store(false, Ordering::Relaxed);
        if counting {
            let n = ALLOCS.load(Ordering::Relaxed);
            c.events += events;
            c.allocs += n;
            c.frames_with_allocs += u32::from(n > 0);
        }
    }
    c
}

/// A table may still grow when the pair count reaches a new peak (amortized
/// growth, at most a frame or two after warm-up); no per-frame or per-pair
/// allocation (pair caches are recycled, EPA shares one scratch).
fn check(what: &str, c: &Counted) {
    eprintln!(
        "{what}: {} of 200 frames allocated ({} allocations), {} events",
        c.frames_with_allocs, c.allocs, c.events
    );
    assert!(c.events > 0, "{what}: the scene must produce events");
    assert!(
        c.frames_with_allocs <= 2,
        "{what}: {} of 200 frames allocated",
        c.frames_with_allocs
    );
}

#[test]
fn steady_state_frames_do_not_allocate() {
    for mode in [BoundsMode::DynamicBox, BoundsMode::FixedCube] {
        let r = run(mode, 1000, |scene, i| scene.shape_of(i).clone());
        check(&format!("{mode:?}"), &r);
    }
}

/// The parallel path (pose writes, bounds and narrow-phase tasks, split
/// and merged): its job and task lists keep their memory between frames.
#[test]
fn steady_state_frames_in_tasks_do_not_allocate() {
    let shape = |scene: &MultiBodyScene, i| scene.shape_of(i).clone();
    let r = run_stepped(
        BoundsMode::DynamicBox,
        1000,
        (shape, |_| false),
        (poses_in_tasks, step_in_tasks),
    );
    check("in tasks", &r);
}

/// The same with every kind: compounds (their piece-pair lists and caches
/// are recycled too, by kind), spheres, capsules and meshes. A recycled
/// cache can still grow (a mesh pair with more triangle pairs than the
/// cache's last owner had, a compound pair with more piece pairs): that is
/// amortized, it fades as the pooled caches reach their working size
/// (measured: 170 allocations in 200 frames after 1000 frames of warm-up,
/// 27 after 3000), so the bound here is on the rate, well under one
/// allocation per new pair.
#[test]
fn steady_state_frames_with_every_kind_allocate_only_amortized_growth() {
    let (p, t) = bevy_icollide::testkit::torus(0.5, 0.15, 12, 8);
    let ring = SharedShape::trimesh(p, t).expect("torus");
    let ball = SharedShape::sphere(0.5).expect("sphere");
    let capsule = SharedShape::capsule(0.3, 0.6).expect("capsule");
    let r = run(BoundsMode::DynamicBox, 2000, |scene, i| match i % 5 {
        0 => {
            let piece = |x: f32| CompoundPiece {
                pose: Pose::from_translation(Vec3::new(x, 0.0, 0.0)),
                shape: scene.shape_of(i).scaled(0.6).expect("scaled"),
            };
            SharedShape::compound(vec![piece(-0.3), piece(0.3)]).expect("compound")
        }
        1 => ball.clone(),
        2 => capsule.clone(),
        3 => ring.clone(),
        _ => scene.shape_of(i).clone(),
    });
    eprintln!(
        "every kind: {} of 200 frames allocated ({} allocations), {} events",
        r.frames_with_allocs, r.allocs, r.events
    );
    assert!(r.events > 1000, "{} events", r.events);
    // Events are starts and ends: about events / 2 new pairs.
    assert!(
        r.allocs * 10 < r.events as u64,
        "{} allocations for {} events",
        r.allocs,
        r.events
    );
}

/// Continuous detection on a quarter of the bodies: their swept casts
/// reuse the narrow phase's scratch memory (the tree search's stack, EPA's
/// buffers), so steady frames still do not allocate.
#[test]
fn steady_state_frames_with_continuous_detection_do_not_allocate() {
    let r = run_with(
        BoundsMode::DynamicBox,
        1000,
        |scene, i| scene.shape_of(i).clone(),
        |i| i % 4 == 1,
    );
    check("continuous detection", &r);
}

#[test]
fn a_crowd_sorted_from_scratch_every_frame_does_not_allocate() {
    // A crowd shuffled in one spot: every update's re-sort runs over its
    // swap budget and sorts and sweeps from scratch, with the buffers kept
    // from the frames before.
    use bevy_icollide::broad_phase::{BroadPhase, PairChanges, SweepAndPrune};
    use bevy_icollide::math::Aabb;
    use bevy_icollide::testkit::Rng;
    struct All;
    impl bevy_icollide::broad_phase::PairFilter for All {
        fn allows(&self, _: u32, _: u32) -> bool {
            true
        }
    }
    let _one_at_a_time = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng::new(3);
    let mut sap = SweepAndPrune::new();
    let jitter = |rng: &mut Rng| Aabb::from_center_half_extents(rng.in_cube(1.0), Vec3::splat(0.5));
    for k in 0..400 {
        sap.insert(k, jitter(&mut rng), k % 5 == 0).expect("valid");
    }
    let mut changes = PairChanges::default();
    let (mut frames_with_allocs, mut rebuilt) = (0, 0);
    for frame in 0..60 {
        let boxes: Vec<Aabb> = (0..400).map(|_| jitter(&mut rng)).collect();
        let counting = frame >= 20;
        ALLOCS.store(0, Ordering::Relaxed);
        COUNTING.store(counting, Ordering::Relaxed);
        for (k, b) in boxes.iter().enumerate() {
            sap.set_aabb(k as u32, *b).expect("valid");
        }
        BroadPhase::update(&mut sap, &All);
        sap.drain_changes(&mut changes);
        changes.clear();
        COUNTING.store(false, Ordering::Relaxed);
        if counting {
            frames_with_allocs += u32::from(ALLOCS.load(Ordering::Relaxed) > 0);
            rebuilt += u32::from(sap.stats().rebuilt);
        }
    }
    assert!(rebuilt > 30, "{rebuilt} of 40 frames sorted from scratch");
    assert!(
        frames_with_allocs <= 2,
        "{frames_with_allocs} of 40 frames allocated"
    );
}

/// Churn (procedural levels, projectiles): every frame a tenth of 1 000
/// moving hulls is removed and added again (new handles, reused slots).
/// After warm-up the memory in use grows only with the peak number of
/// active pairs: each pair holds one convex cache, an ended pair's cache is
/// pooled for the next new pair, so the caches ever made are the most pairs
/// ever active at once, and the pair tables hold room for that peak. That
/// peak is a high-water mark of a fluctuating count; it still rises, ever
/// more rarely, over long runs. So the counted frames are cut into
/// segments: in a segment where the active-pair peak did not rise, the
/// memory in use must not exceed what earlier segments reached (a leak of
/// any size per frame or per new pair fails there); where it rose, by at
/// most [`PAIR_BYTES`] per pair it rose by. Most segments must be of the
/// first kind, or the test would prove nothing. Every segment may also
/// grow by [`CELL_BYTES`]: the broad phase's cell lists and the candidate
/// table have high-water marks of their own (at `ICOLLIDE_LONG=4` one
/// segment in eight grew by 64 bytes with no new pair peak), far below
/// what one leaked allocation per frame adds over a segment (50 frames at
/// least: 800 bytes, a block counting as 16 bytes at least).
#[test]
fn churn_does_not_grow_the_memory_in_use() {
    churn(serial_step, "churn");
}

/// The same on the parallel path.
#[test]
fn churn_in_tasks_does_not_grow_the_memory_in_use() {
    churn(step_in_tasks, "churn in tasks");
}

/// Bytes one more simultaneously active pair may add (its convex cache,
/// its state and its share of the pair tables), with room for a table's
/// growth step.
const PAIR_BYTES: i64 = 1024;
/// Segments of the counted frames.
const SEGMENTS: usize = 8;
/// Growth a segment may show without a new pair peak (see above).
const CELL_BYTES: i64 = 256;

fn churn(step: fn(&mut CollisionWorld) -> usize, what: &str) {
    let _one_at_a_time = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    let params = MultiBodyParams {
        count: 1000,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let add = |world: &mut CollisionWorld, scene: &MultiBodyScene, i: usize| {
        let id = world.add_body(BodyDesc::new(scene.shape_of(i).clone()));
        world.set_pose(id, scene.bodies[i].pose).expect("valid");
        id
    };
    let mut ids: Vec<_> = (0..params.count)
        .map(|i| add(&mut world, &scene, i))
        .collect();
    let (warm_up, counted) = (200, 400 * bevy_icollide::testkit::long_factor());
    // Per segment of the counted frames: peak bytes in use, and by how
    // much the active-pair peak (over all frames so far) rose in it.
    let (mut bytes, mut rose, mut pair_peak, mut events) =
        ([0i64; SEGMENTS], [0u32; SEGMENTS], 0, 0);
    for frame in 0..warm_up + counted {
        scene.step();
        for i in (frame % 10..params.count).step_by(10) {
            world.remove_body(ids[i]).expect("live body");
            ids[i] = add(&mut world, &scene, i);
        }
        for (i, &id) in ids.iter().enumerate() {
            world.set_pose(id, scene.bodies[i].pose).expect("valid");
        }
        events += step(&mut world);
        let pairs = world.stats().active_pairs;
        if frame >= warm_up {
            let s = ((frame - warm_up) * SEGMENTS / counted).min(SEGMENTS - 1);
            rose[s] += pairs.saturating_sub(pair_peak);
            bytes[s] = bytes[s].max(LIVE.load(Ordering::Relaxed));
        }
        pair_peak = pair_peak.max(pairs);
    }
    eprintln!("{what}: peak bytes in use {bytes:?}, pair peak rose by {rose:?}, {events} events");
    assert!(
        events > 10_000,
        "{events} events: bodies must start and end pairs"
    );
    let quiet = rose[1..].iter().filter(|&&r| r == 0).count();
    assert!(
        quiet * 2 >= SEGMENTS - 1,
        "the pair peak rose in too many segments ({rose:?}) for the test to tell a leak"
    );
    for s in 1..SEGMENTS {
        let before = bytes[..s].iter().copied().max().unwrap_or(0);
        assert!(
            bytes[s] <= before + CELL_BYTES + i64::from(rose[s]) * PAIR_BYTES,
            "the memory in use grew in segment {s}: {bytes:?} bytes, pair peak rose by {rose:?}"
        );
    }
}

/// The one-shot boolean and distance queries allocate nothing on convex
/// pairs (support-mapped kinds and hulls, touching and apart): their GJK
/// cache lives on the stack. Failed before (a boxed pair cache per
/// `intersects` call on every overlapping pair).
#[test]
fn one_shot_convex_queries_do_not_allocate() {
    use bevy_icollide::query;
    let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    let pts: Vec<Vec3> = (0..40)
        .map(|i| {
            let t = i as f32 * 2.4;
            Vec3::new(t.cos(), (i as f32 / 20.0) - 1.0, t.sin()) * 0.5
        })
        .collect();
    let shapes = [
        SharedShape::cylinder(0.5, 1.0).expect("cylinder"),
        SharedShape::cone(0.5, 1.0).expect("cone"),
        SharedShape::round_cuboid(Vec3::new(0.4, 0.3, 0.2), 0.1).expect("round box"),
        SharedShape::convex_hull(&pts).expect("hull"),
        SharedShape::cuboid(Vec3::splat(0.5)).expect("cube"),
        SharedShape::sphere(0.5).expect("ball"),
    ];
    let poses: Vec<Pose> = (0..8)
        .map(|i| {
            let r = glam::Quat::from_euler(glam::EulerRot::XYZ, i as f32, 0.3 * i as f32, 0.1);
            Pose::new(r, Vec3::new(0.2 * i as f32, 0.1, 0.0))
        })
        .collect();
    COUNTING.store(true, Ordering::SeqCst);
    let before = ALLOCS.load(Ordering::SeqCst);
    let mut touching = 0;
    for a in &shapes {
        for b in &shapes {
            for (pa, pb) in poses.iter().zip(poses.iter().rev()) {
                touching += usize::from(query::intersects(a, pa, b, pb).unwrap());
                query::distance(a, pa, b, pb).unwrap();
            }
        }
    }
    let allocs = ALLOCS.load(Ordering::SeqCst) - before;
    COUNTING.store(false, Ordering::SeqCst);
    assert!(touching > 0, "some pairs touch");
    assert_eq!(allocs, 0, "one-shot queries allocated {allocs} times");
}
