//! Sweep and prune against brute force: after every frame of seeded random
//! motion (with spawns, despawns, static proxies, layer changes and pair
//! deactivation), the active pairs equal the O(n²) set of overlapping,
//! allowed box pairs, and `started` / `ended` equal the difference between
//! consecutive frames.

use std::collections::BTreeSet;

use bevy_icollide::broad_phase::{
    BroadPhaseError, GridSweepAndPrune, PairKey, ProxyFilter, ProxyId, ProxyOptions, SweepAndPrune,
    pair_key,
};
use bevy_icollide::math::Aabb;
use bevy_icollide::scenes::Rng;
use glam::Vec3;

/// The interface both broad phases share, for one test body.
trait Bp {
    fn insert(&mut self, aabb: Aabb, o: ProxyOptions) -> Result<ProxyId, BroadPhaseError>;
    fn remove(&mut self, id: ProxyId) -> Result<(), BroadPhaseError>;
    fn set_aabb(&mut self, id: ProxyId, aabb: Aabb) -> Result<(), BroadPhaseError>;
    fn set_static(&mut self, id: ProxyId, s: bool) -> Result<(), BroadPhaseError>;
    fn set_filter(&mut self, id: ProxyId, f: ProxyFilter) -> Result<(), BroadPhaseError>;
    fn set_pair_enabled(&mut self, a: ProxyId, b: ProxyId, e: bool);
    fn update(&mut self);
    fn active(&self) -> BTreeSet<PairKey>;
    fn started(&self) -> &[PairKey];
    fn ended(&self) -> &[PairKey];
}

macro_rules! impl_bp {
    ($t:ty) => {
        impl Bp for $t {
            fn insert(&mut self, aabb: Aabb, o: ProxyOptions) -> Result<ProxyId, BroadPhaseError> {
                <$t>::insert(self, aabb, o)
            }
            fn remove(&mut self, id: ProxyId) -> Result<(), BroadPhaseError> {
                <$t>::remove(self, id)
            }
            fn set_aabb(&mut self, id: ProxyId, aabb: Aabb) -> Result<(), BroadPhaseError> {
                <$t>::set_aabb(self, id, aabb)
            }
            fn set_static(&mut self, id: ProxyId, s: bool) -> Result<(), BroadPhaseError> {
                <$t>::set_static(self, id, s)
            }
            fn set_filter(&mut self, id: ProxyId, f: ProxyFilter) -> Result<(), BroadPhaseError> {
                <$t>::set_filter(self, id, f)
            }
            fn set_pair_enabled(&mut self, a: ProxyId, b: ProxyId, e: bool) {
                <$t>::set_pair_enabled(self, a, b, e)
            }
            fn update(&mut self) {
                <$t>::update(self)
            }
            fn active(&self) -> BTreeSet<PairKey> {
                self.pairs().active().collect()
            }
            fn started(&self) -> &[PairKey] {
                self.pairs().started()
            }
            fn ended(&self) -> &[PairKey] {
                self.pairs().ended()
            }
        }
    };
}
impl_bp!(SweepAndPrune);
impl_bp!(GridSweepAndPrune);

struct Proxy {
    id: ProxyId,
    aabb: Aabb,
    velocity: Vec3,
    is_static: bool,
    filter: ProxyFilter,
}

struct Sim<B: Bp> {
    rng: Rng,
    sap: B,
    proxies: Vec<Proxy>,
    disabled: BTreeSet<PairKey>,
    half: f32,
}

impl<B: Bp> Sim<B> {
    fn random_box(&mut self) -> Aabb {
        let c = self.rng.in_cube(self.half);
        let h = Vec3::new(
            self.rng.range(0.2, 1.5),
            self.rng.range(0.2, 1.5),
            self.rng.range(0.2, 1.5),
        );
        // Snap some coordinates to a coarse grid so that exact ties occur.
        let c = if self.rng.below(4) == 0 {
            (c * 2.0).round() * 0.5
        } else {
            c
        };
        let h = if self.rng.below(4) == 0 {
            (h * 2.0).round().max(Vec3::ONE) * 0.5
        } else {
            h
        };
        Aabb::from_center_half_extents(c, h)
    }

    fn random_filter(&mut self) -> ProxyFilter {
        ProxyFilter {
            memberships: 1 << self.rng.below(3),
            filters: if self.rng.below(3) == 0 {
                0b101
            } else {
                u32::MAX
            },
            active: self.rng.below(20) != 0,
        }
    }

    fn spawn(&mut self) {
        let aabb = self.random_box();
        let is_static = self.rng.below(4) == 0;
        let filter = self.random_filter();
        let id = self
            .sap
            .insert(aabb, ProxyOptions { is_static, filter })
            .expect("valid box");
        let speed = if is_static {
            0.0
        } else {
            self.rng.range(0.0, 0.3)
        };
        let velocity = self.rng.unit_vector() * speed;
        self.proxies.push(Proxy {
            id,
            aabb,
            velocity,
            is_static,
            filter,
        });
    }

    fn despawn(&mut self) {
        let i = self.rng.below(self.proxies.len());
        let p = self.proxies.swap_remove(i);
        self.sap.remove(p.id).expect("live proxy");
        self.disabled
            .retain(|&k| (k >> 32) as u32 != p.id && k as u32 != p.id);
    }

    fn move_all(&mut self) {
        for i in 0..self.proxies.len() {
            let p = &mut self.proxies[i];
            if p.is_static {
                continue;
            }
            let mut c = p.aabb.center() + p.velocity;
            for k in 0..3 {
                if c[k].abs() > self.half {
                    p.velocity[k] = -p.velocity[k];
                    c[k] = p.aabb.center()[k] + p.velocity[k];
                }
            }
            // Boxes also grow and shrink, as dynamic boxes of turning objects do.
            let grow = 1.0 + self.rng.range(-0.05, 0.05);
            let h = (p.aabb.half_extents() * grow).clamp(Vec3::splat(0.1), Vec3::splat(20.0));
            p.aabb = Aabb::from_center_half_extents(c, h);
            self.sap.set_aabb(p.id, p.aabb).expect("valid box");
        }
    }

    fn tweak_config(&mut self) {
        let n = self.proxies.len();
        if n < 2 {
            return;
        }
        match self.rng.below(3) {
            0 => {
                let i = self.rng.below(n);
                let f = self.random_filter();
                self.proxies[i].filter = f;
                self.sap
                    .set_filter(self.proxies[i].id, f)
                    .expect("live proxy");
            }
            1 => {
                let i = self.rng.below(n);
                let s = !self.proxies[i].is_static;
                self.proxies[i].is_static = s;
                self.sap
                    .set_static(self.proxies[i].id, s)
                    .expect("live proxy");
            }
            _ => {
                let (a, b) = (
                    self.proxies[self.rng.below(n)].id,
                    self.proxies[self.rng.below(n)].id,
                );
                if a != b {
                    let key = pair_key(a, b);
                    let enable = self.disabled.contains(&key);
                    if enable {
                        self.disabled.remove(&key);
                    } else {
                        self.disabled.insert(key);
                    }
                    self.sap.set_pair_enabled(a, b, enable);
                }
            }
        }
    }

    fn brute_force(&self) -> BTreeSet<PairKey> {
        let mut set = BTreeSet::new();
        for (i, a) in self.proxies.iter().enumerate() {
            for b in &self.proxies[i + 1..] {
                let key = pair_key(a.id, b.id);
                if !(a.is_static && b.is_static)
                    && a.aabb.overlaps(&b.aabb)
                    && a.filter.allows(&b.filter)
                    && !self.disabled.contains(&key)
                {
                    set.insert(key);
                }
            }
        }
        set
    }
}

fn run<B: Bp>(sap: B, seed: u64, n: usize, frames: usize, half: f32) {
    let mut sim = Sim {
        rng: Rng::new(seed),
        sap,
        proxies: Vec::new(),
        disabled: BTreeSet::new(),
        half,
    };
    for _ in 0..n {
        sim.spawn();
    }
    let mut previous = BTreeSet::new();
    let mut total_pairs = 0;
    for frame in 0..frames {
        sim.move_all();
        if frame % 7 == 0 {
            sim.spawn();
        }
        if frame % 11 == 0 && !sim.proxies.is_empty() {
            sim.despawn();
        }
        if frame % 5 == 0 {
            sim.tweak_config();
        }
        sim.sap.update();
        let active = sim.sap.active();
        let expected = sim.brute_force();
        assert_eq!(
            active, expected,
            "seed {seed}, frame {frame}: active pairs differ from brute force"
        );
        let started: BTreeSet<PairKey> = expected.difference(&previous).copied().collect();
        let ended: BTreeSet<PairKey> = previous.difference(&expected).copied().collect();
        // Ids are reused: a pair that ended and a new pair with the same ids
        // can be in both; compare net changes.
        let got_started: BTreeSet<PairKey> = sim.sap.started().iter().copied().collect();
        let got_ended: BTreeSet<PairKey> = sim.sap.ended().iter().copied().collect();
        assert!(
            sim.sap.ended().windows(2).all(|w| w[0] < w[1]),
            "ended is sorted"
        );
        assert_eq!(
            got_started
                .difference(&got_ended)
                .copied()
                .collect::<BTreeSet<_>>(),
            started.difference(&ended).copied().collect::<BTreeSet<_>>(),
            "seed {seed}, frame {frame}: started"
        );
        assert_eq!(
            got_ended
                .difference(&got_started)
                .copied()
                .collect::<BTreeSet<_>>(),
            ended.difference(&started).copied().collect::<BTreeSet<_>>(),
            "seed {seed}, frame {frame}: ended"
        );
        assert!(
            sim.sap.started().windows(2).all(|w| w[0] < w[1]),
            "started is sorted"
        );
        total_pairs += active.len();
        previous = expected;
    }
    assert!(
        total_pairs > frames,
        "the scene must actually produce overlaps (got {total_pairs})"
    );
}

#[test]
fn sweep_and_prune_equals_brute_force_dense() {
    run(SweepAndPrune::new(), 1, 300, 2000, 12.0);
}

#[test]
fn sweep_and_prune_equals_brute_force_sparse_many_seeds() {
    for seed in 2..6 {
        run(SweepAndPrune::new(), seed, 150, 500, 25.0);
    }
}

#[test]
fn grid_sweep_and_prune_equals_brute_force() {
    // Cells of 2 with boxes up to 3 wide: most boxes live in several cells,
    // the huge ones are oversized.
    run(GridSweepAndPrune::new(Some(2.0)), 1, 300, 2000, 12.0);
    for seed in 2..6 {
        run(GridSweepAndPrune::new(Some(5.0)), seed, 150, 500, 25.0);
    }
    run(GridSweepAndPrune::new(None), 7, 300, 500, 12.0);
}

#[test]
fn bulk_insert_rebuild_equals_brute_force() {
    // 2000 insertions in one update take the full sort-and-sweep path.
    let mut sim = Sim {
        rng: Rng::new(99),
        sap: SweepAndPrune::new(),
        proxies: Vec::new(),
        disabled: BTreeSet::new(),
        half: 30.0,
    };
    for _ in 0..2000 {
        sim.spawn();
    }
    sim.sap.update();
    assert!(sim.sap.stats().rebuilt);
    let active = sim.sap.active();
    assert_eq!(active, sim.brute_force());
    assert_eq!(Bp::started(&sim.sap).len(), active.len());
    for frame in 0..100 {
        sim.move_all();
        sim.sap.update();
        let active = sim.sap.active();
        assert_eq!(active, sim.brute_force(), "frame {frame}");
    }
}

#[test]
fn lists_stay_sorted_and_invalid_boxes_are_refused() {
    let mut sap = SweepAndPrune::new();
    let bad = Aabb::new(Vec3::ZERO, Vec3::new(f32::NAN, 1.0, 1.0));
    assert!(sap.insert(bad, ProxyOptions::default()).is_err());
    let inverted = Aabb::new(Vec3::ONE, Vec3::ZERO);
    assert!(sap.insert(inverted, ProxyOptions::default()).is_err());
    let id = sap
        .insert(Aabb::new(Vec3::ZERO, Vec3::ONE), ProxyOptions::default())
        .expect("valid");
    assert!(sap.set_aabb(id, bad).is_err());
    assert!(
        sap.set_aabb(id + 7, Aabb::new(Vec3::ZERO, Vec3::ONE))
            .is_err()
    );
    sap.update();
    for axis in 0..3 {
        let list = sap.endpoints(axis);
        assert_eq!(list.len(), 2);
        assert!(list.windows(2).all(|w| !w[1].before(w[0])));
    }
}
