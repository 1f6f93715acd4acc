//! The grid and the grid over enlarged boxes, every body moving on across
//! cell borders, on placements that break rounding: unit boxes touching
//! exactly at a face, boxes 2⁻²⁴ apart, rows of them far from the origin.
//! After every frame the active pairs must equal an independent all-pairs
//! test of the boxes (written out here, no crate code), and the drained
//! changes the difference of consecutive sets. The frames alternate every
//! body moving (the candidates' one pass, every cell dirty) with one in
//! five moving (the walks), so the broad phases' read-ahead paths run on
//! cells whose lists grow and shrink under their position hints.

use std::collections::BTreeSet;

use bevy_icollide::broad_phase::{
    AllowAll, BroadPhase, Enlarged, GridSweepAndPrune, PairChanges, PairKey, ProxyKey, pair_key,
};
use bevy_icollide::math::Aabb;
use bevy_icollide::testkit::{self, Rng};
use glam::Vec3;

/// 2⁻²⁴.
const TINY: f32 = 1.0 / 16_777_216.0;

/// Whether two boxes overlap (closed intervals on every axis), without the
/// crate's `Aabb::overlaps`.
fn touch(p: &Aabb, q: &Aabb) -> bool {
    (0..3).all(|k| p.min[k] <= q.max[k] && q.min[k] <= p.max[k])
}

/// Every overlapping pair, by testing all of them.
fn all_pairs(boxes: &[Aabb]) -> BTreeSet<PairKey> {
    let mut out = BTreeSet::new();
    for (i, p) in boxes.iter().enumerate() {
        for (j, q) in boxes.iter().enumerate().skip(i + 1) {
            if touch(p, q) {
                out.insert(pair_key(i as ProxyKey, j as ProxyKey));
            }
        }
    }
    out
}

/// A box of half extent `h` at `c`, its corners exactly `c ± h` where
/// those are representable.
fn cube(c: Vec3, h: f32) -> Aabb {
    Aabb {
        min: c - Vec3::splat(h),
        max: c + Vec3::splat(h),
    }
}

/// The scene: rows of unit cubes touching at faces (near the origin and
/// around x = 2²⁰, where a float's step is 1/8), pairs whose faces are 2⁻²⁴
/// apart (near 0.375, where that is a few steps) or one step apart far
/// out, and random boxes. Each row, each close pair and each random box is
/// a group moving as one, at a velocity in multiples of 1/8 (none along x
/// for the close pairs), so the contacts and gaps stay exact as they move.
struct Scene {
    boxes: Vec<Aabb>,
    group: Vec<usize>,
    velocity: Vec<Vec3>,
}

impl Scene {
    fn new(rng: &mut Rng) -> Self {
        let mut s = Scene {
            boxes: Vec::new(),
            group: Vec::new(),
            velocity: Vec::new(),
        };
        let eighths = |rng: &mut Rng| (rng.in_cube(1.0) * 8.0).round() / 8.0;
        let far = Vec3::new(1_048_576.0, -2048.0, 4096.0);
        for origin in [Vec3::ZERO, far] {
            for row in 0..6 {
                let v = eighths(rng);
                let row: Vec<Aabb> = (0..12)
                    .map(|i| cube(origin + Vec3::new(i as f32, 3.0 * row as f32, 0.0), 0.5))
                    .collect();
                s.push(&row, v);
            }
        }
        for i in 0..40 {
            let v = eighths(rng) * Vec3::new(0.0, 1.0, 1.0);
            let a = cube(Vec3::new(-0.125, 2.0 * i as f32 - 40.0, 20.0), 0.5);
            let mut b = cube(a.center() + Vec3::X, 0.5);
            b.min.x = a.max.x + TINY;
            s.push(&[a, b], v);
            let d = cube(far + Vec3::new(0.0, 2.0 * i as f32, 30.0), 0.5);
            let mut e = cube(d.center() + Vec3::X, 0.5);
            e.min.x = d.max.x.next_up();
            s.push(&[d, e], v);
        }
        for _ in 0..200 {
            let c = rng.in_cube(24.0);
            let b = cube(c, rng.range(0.3, 1.5));
            let v = eighths(rng);
            s.push(&[b], v);
        }
        s
    }

    fn push(&mut self, boxes: &[Aabb], velocity: Vec3) {
        let g = self.velocity.len();
        self.velocity.push(velocity);
        for b in boxes {
            self.boxes.push(*b);
            self.group.push(g);
        }
    }
}

/// Moves the boxes for `frames` frames through `bp`, checking each frame.
fn run(mut bp: impl BroadPhase, seed: u64, frames: usize) {
    let mut rng = Rng::new(seed);
    let Scene {
        mut boxes,
        group,
        mut velocity,
    } = Scene::new(&mut rng);
    for (i, b) in boxes.iter().enumerate() {
        bp.insert(i as ProxyKey, *b, false).expect("valid box");
    }
    let mut changes = PairChanges::default();
    let mut before = BTreeSet::new();
    let mut seen = 0;
    for frame in 0..frames {
        // Turn back every 24 frames: the groups cross cell borders both
        // ways and meet their old neighbours again.
        if frame % 24 == 23 {
            velocity.iter_mut().for_each(|v| *v = -*v);
        }
        let every = if frame % 2 == 0 { 1 } else { 5 };
        for (i, b) in boxes.iter_mut().enumerate() {
            if (group[i] + frame) % every != 0 {
                continue;
            }
            let v = velocity[group[i]];
            *b = Aabb {
                min: b.min + v,
                max: b.max + v,
            };
            bp.set_aabb(i as ProxyKey, *b).expect("live proxy");
        }
        bp.update(&AllowAll);
        let want = all_pairs(&boxes);
        let mut got = BTreeSet::new();
        bp.for_each_active(&mut |k| {
            got.insert(k);
        });
        assert_eq!(got, want, "seed {seed}, frame {frame}: pairs");
        bp.drain_changes(&mut changes);
        let started: BTreeSet<_> = want.difference(&before).copied().collect();
        let ended: BTreeSet<_> = before.difference(&want).copied().collect();
        assert_eq!(
            changes.started.iter().copied().collect::<BTreeSet<_>>(),
            started,
            "seed {seed}, frame {frame}: started"
        );
        assert_eq!(
            changes.ended.iter().copied().collect::<BTreeSet<_>>(),
            ended,
            "seed {seed}, frame {frame}: ended"
        );
        seen += want.len();
        before = want;
    }
    assert!(seen > 100 * frames, "the scene must keep its contacts");
}

#[test]
fn moving_rows_touching_and_far_out_equal_all_pairs() {
    let frames = 96 * testkit::long_factor();
    for seed in [3, 17] {
        // Cells of 4: the rows' boxes cross a border every few frames.
        run(GridSweepAndPrune::new(Some(4.0)), seed, frames);
        for margin in [0.0, 0.25] {
            let grid = Enlarged::over_grid(Some(4.0), margin);
            run(grid, seed, frames);
        }
        run(Enlarged::over_grid(None, 0.25), seed, frames);
    }
}
