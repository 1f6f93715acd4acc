//! The examples, in short versions, so that they cannot rot: the multi-body
//! benchmark's run and sweep (the same files `cargo run --example multibody`
//! compiles), and the core-without-Bevy example, which asserts what it shows.

#[path = "../../examples/core_without_bevy.rs"]
mod core_without_bevy;
#[path = "../../examples/multibody/sim.rs"]
mod sim;
#[path = "../../examples/multibody/svg.rs"]
mod svg;
#[path = "../../examples/multibody/sweep.rs"]
mod sweep;

use bevy_icollide::prelude::BoundsMode;
use bevy_icollide::testkit::MultiBodyParams;
use sim::{RunParams, run};

fn dense(bounds: BoundsMode) -> RunParams {
    let base = RunParams::default();
    RunParams {
        scene: MultiBodyParams {
            count: 150,
            density: 0.2,
            translation: 0.05,
            ..base.scene
        },
        bounds,
        frames: 40,
        ..base
    }
}

#[test]
fn multibody_runs_and_both_bounds_modes_see_the_same_collisions() {
    let cube = run(&dense(BoundsMode::FixedCube));
    let boxes = run(&dense(BoundsMode::DynamicBox));
    for s in [&cube, &boxes] {
        assert_eq!(s.frames, 40);
        assert!(s.starts > 0.0 && s.touching > 0.0, "{s:?}");
        assert!(s.box_pairs >= s.touching && s.swaps > 0.0, "{s:?}");
        assert!((s.mean_faces - 76.0).abs() < 1.0, "{s:?}");
        assert!(s.worst.total() >= s.mean.total(), "{s:?}");
    }
    // The narrow phase is exact: the same contacts, hence the same
    // velocity exchanges and trajectories, whatever the boxes.
    assert_eq!(cube.touching, boxes.touching);
    assert_eq!(cube.starts, boxes.starts);
    // Tight boxes overlap less often than cubes.
    assert!(boxes.box_pairs < cube.box_pairs, "{boxes:?} {cube:?}");
}

#[test]
fn multibody_sweep_writes_csv_and_svg() {
    let dir = std::env::temp_dir().join(format!("icollide-sweep-{}", std::process::id()));
    let mut axes = sweep::axes();
    for axis in &mut axes {
        axis.values.truncate(2);
    }
    axes[0].values = vec![50.0, 100.0];
    let base = RunParams {
        frames: 3,
        warmup: 1,
        scene: MultiBodyParams {
            count: 60,
            ..RunParams::default().scene
        },
        ..RunParams::default()
    };
    let mut files = sweep::sweep(&dir, &base, &axes, (&sweep::BOUNDS, "")).expect("writable");
    assert_eq!(files.len(), 10);
    let ttc = sweep::sweep(&dir, &base, &axes[3..4], (&sweep::TTC, "_ttc")).expect("writable");
    assert_eq!(ttc.len(), 2);
    files.extend(ttc);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("written");
        if f.extension().is_some_and(|e| e == "svg") {
            assert!(
                text.starts_with("<svg") && text.contains("<polyline"),
                "{f:?}"
            );
        } else {
            // Header, then 2 values × 2 variants.
            assert_eq!(text.lines().count(), 5, "{f:?}");
        }
    }
    std::fs::remove_dir_all(&dir).expect("temp dir");
}

#[test]
fn core_without_bevy_example() {
    core_without_bevy::main();
}
