//! Churn against brute force: every frame a share of the proxies is removed
//! and as many inserted (some at the very box of one just removed, as a
//! despawned and respawned collider; some identical to a live one; all
//! coordinates on a coarse grid, so that endpoints are shared), near the
//! origin and 2^22 away from it. Every broad phase takes the same calls in
//! lockstep with [`BruteForce`]; after each update its pairs equal the
//! O(n²) set of overlapping, allowed, not both static boxes
//! (`testkit::box_pairs`, independent of every broad phase), and its
//! drained changes, in their order, equal the brute-force broad phase's,
//! whose net effect is the difference of the reference sets.

use std::collections::BTreeSet;

use bevy_icollide::broad_phase::{
    BroadPhase, BruteForce, Enlarged, GridSweepAndPrune, PairChanges, PairFilter, PairKey,
    ProxyKey, SweepAndPrune, pair_ids,
};
use bevy_icollide::math::Aabb;
use bevy_icollide::testkit::{self, Rng, box_pairs};
use glam::Vec3;

/// Odd keys do not pair with multiples of 3 (a filter the insertions ask).
struct Parity;

impl PairFilter for Parity {
    fn allows(&self, a: ProxyKey, b: ProxyKey) -> bool {
        let no = |a: ProxyKey, b: ProxyKey| a % 2 == 1 && b.is_multiple_of(3);
        !(no(a, b) || no(b, a))
    }
}

/// The broad phases under test, by name, and the reference.
struct Lockstep {
    reference: BruteForce,
    tested: Vec<(String, Box<dyn BroadPhase>)>,
}

impl Lockstep {
    /// Single and grid sweep and prune (cells of several sizes, automatic),
    /// and the enlarged grid the world uses.
    fn new(half: f32) -> Self {
        let mut tested: Vec<(String, Box<dyn BroadPhase>)> = vec![
            ("sap".into(), Box::new(SweepAndPrune::new())),
            ("grid auto".into(), Box::new(GridSweepAndPrune::new(None))),
            (
                "enlarged grid".into(),
                Box::new(Enlarged::over_grid(None, 0.25)),
            ),
        ];
        for cell in [half / 8.0, half / 3.0, 2.5] {
            tested.push((
                format!("grid {cell}"),
                Box::new(GridSweepAndPrune::new(Some(cell))),
            ));
        }
        Lockstep {
            reference: BruteForce::new(),
            tested,
        }
    }

    fn each(&mut self, f: impl Fn(&mut dyn BroadPhase)) {
        f(&mut self.reference);
        for (_, bp) in &mut self.tested {
            f(bp.as_mut());
        }
    }
}

/// The proxies by key (`None`: free), boxes on a grid of `step` around
/// `origin`.
struct Scene {
    rng: Rng,
    origin: Vec3,
    half: f32,
    step: f32,
    boxes: Vec<Option<(Aabb, bool)>>,
    /// Keys free for reuse (removed before the last update).
    free: Vec<ProxyKey>,
}

impl Scene {
    fn random_box(&mut self) -> Aabb {
        let s = self.step;
        let snap = |v: f32| (v / s).round() * s;
        let c = self.rng.in_cube(self.half).map(snap);
        let h = Vec3::new(
            self.rng.range(0.5, 3.0),
            self.rng.range(0.5, 3.0),
            self.rng.range(0.5, 3.0),
        )
        .map(|v| snap(v).max(s));
        Aabb::new(self.origin + c - h, self.origin + c + h)
    }

    fn live(&self) -> Vec<ProxyKey> {
        (0..self.boxes.len() as ProxyKey)
            .filter(|&k| self.boxes[k as usize].is_some())
            .collect()
    }

    fn any_live(&mut self) -> ProxyKey {
        let live = self.live();
        live[self.rng.below(live.len())]
    }

    fn spawn(&mut self, bps: &mut Lockstep, aabb: Aabb) {
        let is_static = self.rng.below(5) == 0;
        let key = self.free.pop().unwrap_or(self.boxes.len() as ProxyKey);
        if key as usize == self.boxes.len() {
            self.boxes.push(None);
        }
        self.boxes[key as usize] = Some((aabb, is_static));
        bps.each(|bp| bp.insert(key, aabb, is_static).expect("free key"));
    }

    fn reference(&self) -> BTreeSet<PairKey> {
        let boxes: Vec<Option<Aabb>> = self.boxes.iter().map(|b| b.map(|(a, _)| a)).collect();
        let is_static = |i: usize| self.boxes[i].is_some_and(|(_, s)| s);
        box_pairs(&boxes, is_static)
            .into_iter()
            .filter(|&k| {
                let (a, b) = pair_ids(k);
                Parity.allows(a, b)
            })
            .collect()
    }

    /// Removes `n` random proxies and inserts as many: every third at the
    /// box of one removed, every fifth at a live one's box, the others
    /// anywhere. Returns the keys freed (reusable after the update).
    fn churn(&mut self, bps: &mut Lockstep, n: usize) -> Vec<ProxyKey> {
        let mut freed = Vec::new();
        let mut gone = Vec::new();
        for _ in 0..n.min(self.live().len()) {
            let key = self.any_live();
            let (aabb, _) = self.boxes[key as usize].take().expect("live");
            bps.each(|bp| bp.remove(key).expect("live"));
            freed.push(key);
            gone.push(aabb);
        }
        for (i, aabb) in gone.into_iter().enumerate() {
            let b = if i % 5 == 0 && !self.live().is_empty() {
                let k = self.any_live();
                self.boxes[k as usize].expect("live").0
            } else if i % 3 == 0 {
                aabb
            } else {
                self.random_box()
            };
            self.spawn(bps, b);
        }
        freed
    }

    /// Moves one in seven of the movable proxies halfway to a random box.
    fn move_some(&mut self, bps: &mut Lockstep, frame: usize) {
        for key in self.live() {
            let (aabb, is_static) = self.boxes[key as usize].expect("live");
            if is_static || !(key as usize + frame).is_multiple_of(7) {
                continue;
            }
            let b = self.random_box();
            let half_way = |x: Vec3, y: Vec3| ((x + y) * (0.5 / self.step)).round() * self.step;
            let moved = Aabb::new(half_way(aabb.min, b.min), half_way(aabb.max, b.max));
            self.boxes[key as usize] = Some((moved, false));
            bps.each(|bp| bp.set_aabb(key, moved).expect("valid"));
        }
    }
}

/// `n` proxies, `frames` frames of `per_frame` removed and inserted and a
/// few moved, every broad phase checked after every update.
fn churn(seed: u64, origin: Vec3, n: usize, frames: usize, per_frame: usize) {
    let half = 24.0;
    let mut scene = Scene {
        rng: Rng::new(seed),
        origin,
        half,
        step: if origin == Vec3::ZERO { 0.25 } else { 1.0 },
        boxes: Vec::new(),
        free: Vec::new(),
    };
    let mut bps = Lockstep::new(half);
    for _ in 0..n {
        let b = scene.random_box();
        scene.spawn(&mut bps, b);
    }
    let (mut want, mut got) = (PairChanges::default(), PairChanges::default());
    let mut before = BTreeSet::new();
    let mut pairs_seen = 0;
    for frame in 0..frames {
        let mut freed = scene.churn(&mut bps, per_frame);
        scene.move_some(&mut bps, frame);
        // A hint accepts any key: live, removed, never inserted, past all.
        let keys = scene.boxes.len() as u32;
        bps.each(|bp| {
            (0..keys + 70)
                .chain([u32::MAX])
                .for_each(|k| bp.prefetch_proxy(k))
        });
        let expected = scene.reference();
        let at = format!("seed {seed}, frame {frame}");
        check(
            &mut bps.reference,
            &mut want,
            &expected,
            &format!("{at}: brute force"),
        );
        for (name, bp) in &mut bps.tested {
            check(bp.as_mut(), &mut got, &expected, &format!("{at}: {name}"));
            assert_eq!(got.started, want.started, "{at}: {name} starts");
            assert_eq!(got.ended, want.ended, "{at}: {name} ends");
        }
        // A proxy removed and one inserted under another key: its pairs end
        // and the new ones start, net of what stayed.
        let started: BTreeSet<PairKey> = want.started.iter().copied().collect();
        let ended: BTreeSet<PairKey> = want.ended.iter().copied().collect();
        let net = |a: &BTreeSet<PairKey>, b: &BTreeSet<PairKey>| -> BTreeSet<PairKey> {
            a.difference(b).copied().collect()
        };
        assert_eq!(
            net(&expected, &before),
            net(&started, &ended),
            "{at}: net starts"
        );
        assert_eq!(
            net(&before, &expected),
            net(&ended, &started),
            "{at}: net ends"
        );
        pairs_seen += expected.len();
        before = expected;
        scene.free.append(&mut freed);
    }
    assert!(
        pairs_seen > 4 * frames,
        "the scene must overlap ({pairs_seen} pairs)"
    );
}

/// Updates `bp`, checks its invariants and pairs, drains its changes.
fn check(bp: &mut dyn BroadPhase, out: &mut PairChanges, want: &BTreeSet<PairKey>, at: &str) {
    bp.update(&Parity);
    bp.validate(&Parity)
        .unwrap_or_else(|e| panic!("{at}: invariants: {e:?}"));
    let mut pairs = BTreeSet::new();
    bp.for_each_active(&mut |k| {
        pairs.insert(k);
    });
    assert_eq!(&pairs, want, "{at}: pairs");
    bp.drain_changes(out);
}

#[test]
fn churn_near_the_origin_equals_brute_force() {
    for seed in 1..4 {
        churn(seed, Vec3::ZERO, 250, 40 * testkit::long_factor(), 25);
    }
}

#[test]
fn heavy_churn_equals_brute_force() {
    // Half the proxies every frame: many arrivals per cell (the cells'
    // from-scratch path) next to few.
    churn(11, Vec3::ZERO, 200, 20 * testkit::long_factor(), 100);
}

#[test]
fn churn_far_from_the_origin_equals_brute_force() {
    // 2^22: f32 spacing 0.5 there, boxes on a grid of 1.
    let far = Vec3::new(4_194_304.0, -4_194_304.0, 4_194_304.0);
    churn(21, far, 250, 40 * testkit::long_factor(), 25);
}
