//! The paper's five graphs: time per frame against the number of objects,
//! faces, density, rotational and translational velocity, fixed cubes
//! against dynamic boxes. Each graph is a CSV and an SVG in one folder.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use bevy_icollide::prelude::BoundsMode;
use bevy_icollide::testkit::MultiBodyParams;

use super::sim::{RunParams, Summary, ms, run};
use super::svg::{Plot, Series, render};

/// One graph: a parameter and the values it takes, the others at the base.
pub struct Axis {
    /// File stem: `DIR/vs_{name}.csv` and `.svg`.
    pub name: &'static str,
    /// The x axis' label.
    pub label: &'static str,
    /// Values of the parameter.
    pub values: Vec<f64>,
    /// Logarithmic x axis (for values that double).
    pub log_x: bool,
    /// Sets the parameter.
    pub set: fn(&mut MultiBodyParams, f64),
}

/// The five graphs, sized for a 2-core machine (about two minutes in
/// release at 1000 frames per point).
pub fn axes() -> Vec<Axis> {
    vec![
        Axis {
            name: "n",
            label: "number of objects",
            values: vec![250.0, 1000.0, 2000.0, 4000.0, 8000.0, 12000.0, 16000.0],
            log_x: false,
            set: |p, v| p.count = v as usize,
        },
        Axis {
            name: "faces",
            label: "faces per polytope",
            values: vec![8.0, 20.0, 40.0, 80.0, 160.0, 320.0, 640.0],
            log_x: true,
            set: |p, v| p.hull_points = MultiBodyParams::hull_points_for_faces(v as usize),
        },
        Axis {
            name: "density",
            label: "density (% of the box in bounding spheres)",
            values: vec![1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0],
            log_x: false,
            set: |p, v| p.density = v as f32 / 100.0,
        },
        Axis {
            name: "rotation",
            label: "rotational velocity (degrees per frame)",
            values: vec![0.0, 1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 45.0],
            log_x: false,
            set: |p, v| p.rotation_deg = v as f32,
        },
        Axis {
            name: "translation",
            label: "translational velocity (% of the radius per frame)",
            values: vec![0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0],
            log_x: false,
            set: |p, v| p.translation = v as f32 / 100.0,
        },
    ]
}

/// One series of a graph: how the bodies are bounded and scheduled.
pub struct Variant {
    bounds: BoundsMode,
    ttc: bool,
    name: &'static str,
    color: &'static str,
}

/// The paper's series: fixed cubes against dynamic boxes.
pub const BOUNDS: [Variant; 2] = [
    Variant {
        bounds: BoundsMode::FixedCube,
        ttc: false,
        name: "fixed cubes",
        color: "#d62728",
    },
    Variant {
        bounds: BoundsMode::DynamicBox,
        ttc: false,
        name: "dynamic boxes",
        color: "#1f77b4",
    },
];

/// Time-to-collision scheduling against none (dynamic boxes, contact data
/// on in both: the scheduling needs the distance).
pub const TTC: [Variant; 2] = [
    Variant {
        bounds: BoundsMode::DynamicBox,
        ttc: false,
        name: "every moved pair tested",
        color: "#1f77b4",
    },
    Variant {
        bounds: BoundsMode::DynamicBox,
        ttc: true,
        name: "time-to-collision scheduling",
        color: "#2ca02c",
    },
];

/// One measurement.
struct Row {
    mode: usize,
    x: f64,
    summary: Summary,
}

/// Runs every axis for every variant from `base`, writes
/// `dir/vs_{axis}{suffix}.csv` and `.svg`, and returns the files written.
pub fn sweep(
    dir: &Path,
    base: &RunParams,
    axes: &[Axis],
    (variants, suffix): (&[Variant], &str),
) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for axis in axes {
        let rows = measure(base, axis, variants);
        let stem = dir.join(format!("vs_{}{suffix}", axis.name));
        fs::write(stem.with_extension("csv"), csv(axis, &rows, variants))?;
        let plot = plot(axis, base, &rows, variants);
        fs::write(stem.with_extension("svg"), render(&plot))?;
        written.push(stem.with_extension("csv"));
        written.push(stem.with_extension("svg"));
    }
    Ok(written)
}

fn measure(base: &RunParams, axis: &Axis, variants: &[Variant]) -> Vec<Row> {
    let mut rows = Vec::new();
    for &x in &axis.values {
        for (mode, v) in variants.iter().enumerate() {
            let name = v.name;
            let mut p = RunParams {
                bounds: v.bounds,
                ttc: v.ttc,
                ..*base
            };
            (axis.set)(&mut p.scene, x);
            let summary = run(&p);
            println!(
                "{} = {x:>6}  {name:<13} {:>8.3} ms  (broad {:.3}, narrow {:.3})  {:>9.0} swaps  {:>7.0} box pairs  {:>6.1} touching",
                axis.name,
                summary.collision_ms(),
                ms(summary.mean.broad),
                ms(summary.mean.narrow),
                summary.swaps,
                summary.box_pairs,
                summary.touching
            );
            rows.push(Row { mode, x, summary });
        }
    }
    rows
}

fn csv(axis: &Axis, rows: &[Row], variants: &[Variant]) -> String {
    let mut out = format!(
        "{},bounds,ttc,faces,frames,sync_ms,bounds_ms,broad_ms,narrow_ms,report_ms,total_ms,swaps,box_pairs,active_pairs,pair_tests,touching,starts\n",
        axis.name
    );
    for r in rows {
        let (s, m) = (&r.summary, &r.summary.mean);
        out += &format!(
            "{},{},{},{:.1},{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.1},{:.1},{:.1},{:.1},{:.2},{:.2}\n",
            r.x,
            match variants[r.mode].bounds {
                BoundsMode::FixedCube => "cube",
                BoundsMode::DynamicBox => "box",
            },
            u8::from(variants[r.mode].ttc),
            s.mean_faces,
            s.frames,
            ms(m.sync),
            ms(m.bounds),
            ms(m.broad),
            ms(m.narrow),
            ms(m.report),
            ms(m.total()),
            s.swaps,
            s.box_pairs,
            s.active_pairs,
            s.pair_tests,
            s.touching,
            s.starts
        );
    }
    out
}

/// Solid: bounds + sweep and prune + exact tests; dashed: sweep and prune
/// (the exact tests when comparing scheduling).
fn plot(axis: &Axis, base: &RunParams, rows: &[Row], variants: &[Variant]) -> Plot {
    let mut series = Vec::new();
    for (mode, v) in variants.iter().enumerate() {
        let (name, color) = (v.name, v.color);
        let of = |f: fn(&Summary) -> f64| -> Vec<(f64, f64)> {
            let mode_rows = rows.iter().filter(|r| r.mode == mode);
            mode_rows.map(|r| (r.x, f(&r.summary))).collect()
        };
        series.push(Series {
            name: format!("{name}: bounds + sweep + exact"),
            points: of(Summary::collision_ms),
            color,
            dashed: false,
        });
        // Scheduling changes the exact tests, not the sort.
        let (part, dashed): (&str, fn(&Summary) -> f64) = if variants.iter().any(|v| v.ttc) {
            ("exact tests", |s| ms(s.mean.narrow))
        } else {
            ("sweep and prune", |s| ms(s.mean.broad))
        };
        series.push(Series {
            name: format!("{name}: {part}"),
            points: of(dashed),
            color,
            dashed: true,
        });
    }
    let s = &base.scene;
    Plot {
        title: format!("Time per frame vs {}", axis.label),
        subtitle: format!(
            "others: {} objects, {} faces, density {:.0} %, {:.0}°/frame, {:.1} % of radius/frame, {} frames",
            s.count,
            2 * s.hull_points - 4,
            s.density * 100.0,
            s.rotation_deg,
            s.translation * 100.0,
            base.frames
        ),
        x_label: axis.label.to_string(),
        y_label: "ms per frame".to_string(),
        log_x: axis.log_x,
        log_y: false,
        legend_below: false,
        series,
    }
}
