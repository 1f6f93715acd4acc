//! No allocation per frame in steady state: a counting global allocator
//! watches `CollisionWorld::step` on a coherent multi-body scene.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::scenes::{MultiBodyParams, MultiBodyScene};
use bevy_icollide::world::{BodyDesc, CollisionWorld, WorldConfig};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarding the caller's layout to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarding a block that came from `System.alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn steady_state_frames_do_not_allocate() {
    for mode in [BoundsMode::DynamicBox, BoundsMode::FixedCube] {
        let params = MultiBodyParams {
            count: 2000,
            ..Default::default()
        };
        let mut scene = MultiBodyScene::new(&params);
        let mut world = CollisionWorld::new(WorldConfig {
            margin: 0.02,
            ..Default::default()
        });
        let ids: Vec<_> = (0..params.count)
            .map(|i| {
                let mut d = BodyDesc::new(scene.shape_of(i).clone());
                d.bounds = mode;
                let id = world.add_body(d);
                world.set_pose(id, scene.bodies[i].pose).expect("valid");
                id
            })
            .collect();
        // Warm up until the pair tables and event buffers reached their size.
        for _ in 0..1000 {
            scene.step();
            for (i, &id) in ids.iter().enumerate() {
                world.set_pose(id, scene.bodies[i].pose).expect("valid");
            }
            world.step();
        }
        let mut frames_with_allocs = 0;
        let mut events = 0;
        for _ in 0..200 {
            scene.step();
            ALLOCS.store(0, Ordering::Relaxed);
            COUNTING.store(true, Ordering::Relaxed);
            for (i, &id) in ids.iter().enumerate() {
                world.set_pose(id, scene.bodies[i].pose).expect("valid");
            }
            world.step();
            COUNTING.store(false, Ordering::Relaxed);
            events += world.events().len();
            frames_with_allocs += u32::from(ALLOCS.load(Ordering::Relaxed) > 0);
        }
        eprintln!("{mode:?}: {frames_with_allocs} of 200 frames allocated, {events} events");
        assert!(events > 0, "the scene must produce events");
        // A table may still grow when the pair count reaches a new peak
        // (amortized growth, at most a frame or two after warm-up); no
        // per-frame or per-pair allocation (pair caches are recycled, EPA
        // shares one scratch).
        assert!(
            frames_with_allocs <= 2,
            "{mode:?}: {frames_with_allocs} of 200 frames allocated"
        );
    }
}
