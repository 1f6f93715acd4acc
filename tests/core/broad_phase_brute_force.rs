//! Every broad phase through one harness, against brute force: after every
//! frame of seeded random motion (with spawns, despawns, static proxies,
//! filter changes and pair deactivation), the active pairs equal the O(n²)
//! set of overlapping, allowed box pairs (`testkit::box_pairs`), the
//! drained `started` / `ended` equal the difference since the last drain
//! (drained every frame, or every few frames), the invariants hold
//! (`validate`), and box queries find exactly the overlapping boxes.

use std::collections::BTreeSet;

use bevy_icollide::broad_phase::{
    BroadPhase, BruteForce, Enlarged, GridSweepAndPrune, PairChanges, PairFilter, PairKey,
    ProxyKey, SweepAndPrune, pair_ids, pair_key,
};
use bevy_icollide::math::Aabb;
use bevy_icollide::testkit::{self, Rng, box_pairs};
use glam::Vec3;

/// Layers and activity of a proxy, as the world keeps them.
#[derive(Clone, Copy, Debug)]
struct Rules {
    memberships: u32,
    filters: u32,
    active: bool,
}

impl Rules {
    fn allows(&self, o: &Rules) -> bool {
        self.active
            && o.active
            && self.memberships & o.filters != 0
            && o.memberships & self.filters != 0
    }
}

struct Proxy {
    aabb: Aabb,
    velocity: Vec3,
    is_static: bool,
}

/// The sim's rules as a filter; `grouped`: with the rules packed into
/// groups, as the world does (the sweeps skip whole groups).
struct SimFilter<'a> {
    rules: &'a [Rules],
    disabled: &'a BTreeSet<PairKey>,
    grouped: bool,
}

impl PairFilter for SimFilter<'_> {
    fn allows(&self, a: ProxyKey, b: ProxyKey) -> bool {
        self.rules[a as usize].allows(&self.rules[b as usize])
            && !self.disabled.contains(&pair_key(a, b))
    }

    fn group(&self, key: ProxyKey) -> u64 {
        let r = &self.rules[key as usize];
        match (self.grouped, r.active) {
            (false, _) => 0,
            (true, false) => 0,
            (true, true) => (u64::from(r.memberships) << 32) | u64::from(r.filters),
        }
    }

    fn groups_pair(&self, g: u64, h: u64) -> bool {
        let rules = |g: u64| Rules {
            memberships: (g >> 32) as u32,
            filters: g as u32,
            active: true,
        };
        !self.grouped || rules(g).allows(&rules(h))
    }
}

/// The proxies by key (`None`: free), their rules and the deactivated pairs.
struct Sim<B: BroadPhase> {
    rng: Rng,
    bp: B,
    proxies: Vec<Option<Proxy>>,
    rules: Vec<Rules>,
    disabled: BTreeSet<PairKey>,
    /// Keys free for reuse, and keys removed since the last update (reused
    /// after it).
    free: Vec<ProxyKey>,
    freed: Vec<ProxyKey>,
    half: f32,
    /// Whether the filter has groups (odd seeds).
    grouped: bool,
}

impl<B: BroadPhase> Sim<B> {
    fn new(bp: B, seed: u64, half: f32) -> Self {
        Sim {
            rng: Rng::new(seed),
            bp,
            proxies: Vec::new(),
            rules: Vec::new(),
            disabled: BTreeSet::new(),
            free: Vec::new(),
            freed: Vec::new(),
            half,
            grouped: seed % 2 == 1,
        }
    }

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

    fn random_rules(&mut self) -> Rules {
        Rules {
            memberships: 1 << self.rng.below(3),
            filters: if self.rng.below(3) == 0 {
                0b101
            } else {
                u32::MAX
            },
            active: self.rng.below(20) != 0,
        }
    }

    fn live_keys(&self) -> Vec<ProxyKey> {
        (0..self.proxies.len() as ProxyKey)
            .filter(|&k| self.proxies[k as usize].is_some())
            .collect()
    }

    fn spawn(&mut self) {
        let aabb = self.random_box();
        let is_static = self.rng.below(4) == 0;
        let rules = self.random_rules();
        let key = self.free.pop().unwrap_or(self.proxies.len() as ProxyKey);
        if key as usize == self.proxies.len() {
            self.proxies.push(None);
            self.rules.push(rules);
        }
        self.rules[key as usize] = rules;
        self.bp
            .insert(key, aabb, is_static)
            .expect("free key, valid box");
        let speed = if is_static {
            0.0
        } else {
            self.rng.range(0.0, 0.3)
        };
        let velocity = self.rng.unit_vector() * speed;
        self.proxies[key as usize] = Some(Proxy {
            aabb,
            velocity,
            is_static,
        });
    }

    fn despawn(&mut self) {
        let keys = self.live_keys();
        let key = keys[self.rng.below(keys.len())];
        self.proxies[key as usize] = None;
        self.bp.remove(key).expect("live proxy");
        self.disabled.retain(|&k| {
            let (a, b) = pair_ids(k);
            a != key && b != key
        });
        self.freed.push(key);
    }

    fn move_all(&mut self) {
        self.move_some(1, 0);
    }

    /// Moves the live proxies whose key plus `offset` is a multiple of
    /// `every` (all of them for 1).
    fn move_some(&mut self, every: u32, offset: u32) {
        let half = self.half;
        for key in self.live_keys() {
            if !(key + offset).is_multiple_of(every) {
                continue;
            }
            let grow = 1.0 + self.rng.range(-0.05, 0.05);
            let Some(p) = self.proxies[key as usize].as_mut() else {
                continue;
            };
            if p.is_static {
                continue;
            }
            let mut c = p.aabb.center() + p.velocity;
            for k in 0..3 {
                if c[k].abs() > half {
                    p.velocity[k] = -p.velocity[k];
                    c[k] = p.aabb.center()[k] + p.velocity[k];
                }
            }
            // Boxes also grow and shrink, as dynamic boxes of turning objects do.
            let h = (p.aabb.half_extents() * grow).clamp(Vec3::splat(0.1), Vec3::splat(20.0));
            p.aabb = Aabb::from_center_half_extents(c, h);
            self.bp.set_aabb(key, p.aabb).expect("valid box");
        }
    }

    fn tweak_config(&mut self) {
        let keys = self.live_keys();
        if keys.len() < 2 {
            return;
        }
        let key = keys[self.rng.below(keys.len())];
        match self.rng.below(3) {
            0 => {
                self.rules[key as usize] = self.random_rules();
                self.bp.refilter(key);
            }
            1 => {
                let p = self.proxies[key as usize].as_mut().expect("live");
                p.is_static = !p.is_static;
                self.bp.set_static(key, p.is_static).expect("live proxy");
            }
            _ => {
                let other = keys[self.rng.below(keys.len())];
                if key != other {
                    let pair = pair_key(key, other);
                    if !self.disabled.remove(&pair) {
                        self.disabled.insert(pair);
                    }
                    self.bp.refilter_pair(key, other);
                }
            }
        }
    }

    fn update(&mut self) {
        let filter = SimFilter {
            rules: &self.rules,
            disabled: &self.disabled,
            grouped: self.grouped,
        };
        self.bp.update(&filter);
        self.free.append(&mut self.freed);
        self.bp
            .validate(&filter)
            .expect("invariants hold after an update");
    }

    fn active(&self) -> BTreeSet<PairKey> {
        let mut out = BTreeSet::new();
        self.bp.for_each_active(&mut |k| {
            out.insert(k);
        });
        out
    }

    fn brute_force(&self) -> BTreeSet<PairKey> {
        let boxes: Vec<Option<Aabb>> = self
            .proxies
            .iter()
            .map(|p| p.as_ref().map(|p| p.aabb))
            .collect();
        let is_static = |i: usize| self.proxies[i].as_ref().is_some_and(|p| p.is_static);
        box_pairs(&boxes, is_static)
            .into_iter()
            .filter(|&k| {
                let (a, b) = pair_ids(k);
                self.rules[a as usize].allows(&self.rules[b as usize])
                    && !self.disabled.contains(&k)
            })
            .collect()
    }

    /// Box queries find exactly the proxies whose boxes overlap.
    fn check_queries(&mut self) {
        let q = self.random_box();
        let mut got = BTreeSet::new();
        self.bp.query_aabb(&q, &mut |k| {
            assert!(got.insert(k), "proxy {k} reported twice");
        });
        let want: BTreeSet<ProxyKey> = self
            .live_keys()
            .into_iter()
            .filter(|&k| self.proxies[k as usize].as_ref().unwrap().aabb.overlaps(&q))
            .collect();
        assert_eq!(got, want, "box query");
    }
}

/// Runs `frames` frames, draining the pair changes every `drain_every`
/// frames, and checks everything against brute force.
fn run<B: BroadPhase>(bp: B, seed: u64, n: usize, frames: usize, half: f32, drain_every: usize) {
    let mut sim = Sim::new(bp, seed, half);
    for _ in 0..n {
        sim.spawn();
    }
    let mut at_drain = BTreeSet::new();
    let mut changes = PairChanges::default();
    let mut total_pairs = 0;
    for frame in 0..frames {
        // Every third frame, one proxy in eight moves: broad phases keep
        // separate paths for few movers (Enlarged walks their candidates).
        let every = if frame % 3 == 1 { 8 } else { 1 };
        sim.move_some(every, frame as u32);
        if frame % 13 == 6 {
            // Queries see the latest boxes before the update too.
            sim.check_queries();
        }
        if frame % 7 == 0 {
            sim.spawn();
        }
        if frame % 11 == 0 && !sim.live_keys().is_empty() {
            sim.despawn();
        }
        if frame % 5 == 0 {
            sim.tweak_config();
        }
        sim.update();
        let expected = sim.brute_force();
        assert_eq!(
            sim.active(),
            expected,
            "seed {seed}, frame {frame}: active pairs differ from brute force"
        );
        if frame % 13 == 0 {
            sim.check_queries();
        }
        if frame % drain_every == 0 {
            sim.bp.drain_changes(&mut changes);
            check_changes(&changes, &at_drain, &expected, seed, frame);
            at_drain = expected.clone();
        }
        total_pairs += expected.len();
    }
    assert!(
        total_pairs > frames,
        "the scene must actually produce overlaps (got {total_pairs})"
    );
}

/// The drained changes are sorted and equal the net difference between the
/// pairs at the last drain and now (keys are reused only after an update,
/// so a pair key names one pair between two drains only if no proxy in it
/// was removed; compare net sets).
fn check_changes(
    changes: &PairChanges,
    before: &BTreeSet<PairKey>,
    now: &BTreeSet<PairKey>,
    seed: u64,
    frame: usize,
) {
    assert!(changes.started.windows(2).all(|w| w[0] < w[1]), "sorted");
    assert!(changes.ended.windows(2).all(|w| w[0] < w[1]), "sorted");
    let started: BTreeSet<PairKey> = now.difference(before).copied().collect();
    let ended: BTreeSet<PairKey> = before.difference(now).copied().collect();
    let got_started: BTreeSet<PairKey> = changes.started.iter().copied().collect();
    let got_ended: BTreeSet<PairKey> = changes.ended.iter().copied().collect();
    let net = |a: &BTreeSet<PairKey>, b: &BTreeSet<PairKey>| -> BTreeSet<PairKey> {
        a.difference(b).copied().collect()
    };
    assert_eq!(
        net(&got_started, &got_ended),
        net(&started, &ended),
        "seed {seed}, frame {frame}: started"
    );
    assert_eq!(
        net(&got_ended, &got_started),
        net(&ended, &started),
        "seed {seed}, frame {frame}: ended"
    );
}

/// Every implementation, the same scenes.
fn every_broad_phase(seed: u64, n: usize, frames: usize, half: f32, drain_every: usize) {
    run(SweepAndPrune::new(), seed, n, frames, half, drain_every);
    run(
        GridSweepAndPrune::new(Some(half / 6.0)),
        seed,
        n,
        frames,
        half,
        drain_every,
    );
    run(
        GridSweepAndPrune::new(None),
        seed,
        n,
        frames,
        half,
        drain_every,
    );
    run(BruteForce::new(), seed, n, frames / 4, half, drain_every);
    // Enlarged boxes: margins from none (every move reaches the inner broad
    // phase) to wider than the boxes' own motion over many frames.
    for margin in [0.0, 0.05, 0.5] {
        let grid = GridSweepAndPrune::new(Some(half / 6.0));
        run(
            Enlarged::new(grid, margin),
            seed,
            n,
            frames,
            half,
            drain_every,
        );
    }
    run(
        Enlarged::new(SweepAndPrune::new(), 0.2),
        seed,
        n,
        frames / 2,
        half,
        drain_every,
    );
    run(
        Enlarged::new(BruteForce::new(), 0.2),
        seed,
        n,
        frames / 4,
        half,
        drain_every,
    );
}

#[test]
fn every_broad_phase_equals_brute_force_dense() {
    every_broad_phase(1, 300, 400 * testkit::long_factor(), 12.0, 1);
}

#[test]
fn every_broad_phase_equals_brute_force_sparse_many_seeds() {
    for seed in 2..6 {
        every_broad_phase(seed, 150, 400, 25.0, 1);
    }
}

#[test]
fn changes_accumulate_between_drains() {
    // Updating several times before one drain loses nothing.
    for seed in 6..9 {
        every_broad_phase(seed, 150, 400, 12.0, 3);
    }
}

#[test]
fn grid_with_small_cells_and_oversized_boxes() {
    // Cells of 2 with boxes up to 3 wide: most boxes live in several cells,
    // the huge ones are oversized.
    run(GridSweepAndPrune::new(Some(2.0)), 1, 300, 2000, 12.0, 1);
}

#[test]
fn bulk_insert_rebuild_equals_brute_force() {
    // 2000 insertions in one update take the full sort-and-sweep path.
    let mut sim = Sim::new(SweepAndPrune::new(), 99, 30.0);
    for _ in 0..2000 {
        sim.spawn();
    }
    sim.update();
    assert!(sim.bp.stats().rebuilt);
    let active = sim.active();
    assert_eq!(active, sim.brute_force());
    let mut changes = PairChanges::default();
    sim.bp.drain_changes(&mut changes);
    assert_eq!(changes.started.len(), active.len());
    for frame in 0..100 {
        sim.move_all();
        sim.update();
        assert_eq!(sim.active(), sim.brute_force(), "frame {frame}");
    }
}

#[test]
fn bad_calls_are_errors() {
    let mut bps: [Box<dyn BroadPhase>; 4] = [
        Box::new(SweepAndPrune::new()),
        Box::new(GridSweepAndPrune::new(None)),
        Box::new(BruteForce::new()),
        Box::new(Enlarged::new(GridSweepAndPrune::new(None), 0.1)),
    ];
    for bp in &mut bps {
        let bad = Aabb::new(Vec3::ZERO, Vec3::new(f32::NAN, 1.0, 1.0));
        let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
        assert!(bp.insert(0, bad, false).is_err());
        let inverted = Aabb::new(Vec3::ONE, Vec3::ZERO);
        assert!(bp.insert(0, inverted, false).is_err());
        assert!(bp.insert(1 << 31, unit, false).is_err());
        bp.insert(0, unit, false).expect("valid");
        assert!(bp.insert(0, unit, false).is_err(), "key in use");
        assert!(bp.set_aabb(0, bad).is_err());
        assert!(bp.set_aabb(7, unit).is_err());
        assert!(bp.remove(7).is_err());
        bp.update(&|_, _| true);
        bp.validate(&|_, _| true).expect("valid");
    }
}

/// Boxes wider than `f32::MAX` and margins that would overflow: the
/// enlarged broad phase takes the box as it is instead of refusing it.
#[test]
fn enlarged_boxes_never_overflow() {
    let huge = Aabb::new(Vec3::splat(-3e38), Vec3::splat(3e38));
    let big = Aabb::new(Vec3::splat(-1e30), Vec3::splat(1e30));
    let unit = Aabb::new(Vec3::ZERO, Vec3::ONE);
    for margin in [0.0, 0.25, 1e6, 1e30] {
        let mut bp = Enlarged::new(GridSweepAndPrune::new(None), margin);
        bp.insert(0, huge, false).expect("a valid box");
        bp.insert(1, big, false).expect("a valid box");
        bp.insert(2, unit, false).expect("a valid box");
        bp.update(&|_, _| true);
        bp.validate(&|_, _| true).expect("valid");
        assert_eq!(bp.box_pairs(), 3, "margin {margin}");
        let far = Aabb::new(Vec3::splat(2e30), Vec3::splat(2e30 + 1e24));
        bp.set_aabb(1, far).expect("a valid box");
        bp.set_aabb(2, huge).expect("a valid box");
        bp.update(&|_, _| true);
        bp.validate(&|_, _| true).expect("valid");
        assert_eq!(bp.is_active(0, 1), huge.overlaps(&far));
        assert!(bp.is_active(0, 2) && bp.is_active(1, 2), "margin {margin}");
        assert_eq!(bp.aabb(1), Some(far));
    }
}

/// The world's grid behind enlarged boxes sizes its automatic cells by the
/// tight boxes: the same cells as the grid alone.
#[test]
fn the_enlarged_grid_sizes_its_cells_by_the_tight_boxes() {
    for margin in [0.0, 0.25, 1.0] {
        let mut alone = GridSweepAndPrune::new(None);
        let mut enlarged = Enlarged::over_grid(None, margin);
        for k in 0..9u32 {
            let b = Aabb::from_center_half_extents(Vec3::splat(k as f32 * 3.0), Vec3::ONE);
            alone.insert(k, b, false).expect("valid");
            enlarged.insert(k, b, false).expect("valid");
        }
        alone.update(&|_, _| true);
        enlarged.update(&|_, _| true);
        let (a, e) = (alone.cell_size(), enlarged.inner().cell_size());
        assert!(
            (a - e).abs() <= 1e-5 * a,
            "margin {margin}: {a} against {e}"
        );
    }
    // An explicit cell size is kept.
    let mut given = Enlarged::over_grid(Some(5.0), 0.25);
    given
        .insert(0, Aabb::new(Vec3::ZERO, Vec3::ONE), false)
        .expect("valid");
    given.update(&|_, _| true);
    assert_eq!(given.inner().cell_size(), 5.0);
}

#[test]
fn sweep_and_prune_lists_stay_sorted() {
    let mut sap = SweepAndPrune::new();
    sap.insert(0, Aabb::new(Vec3::ZERO, Vec3::ONE), false)
        .expect("valid");
    sap.update(&|_, _| true);
    for axis in 0..3 {
        let list = sap.endpoints(axis);
        assert_eq!(list.len(), 2);
        assert!(list.windows(2).all(|w| !w[1].before(w[0])));
    }
}

#[test]
fn filtered_pairs_are_never_stored() {
    // 1500 boxes in one spot (3000 in a long run), no pair allowed: 1.1
    // million overlapping pairs (4.5 million), none stored. Then the filter lets a third of them pair: those
    // pairs are found again, and only those.
    for mut bp in [
        Box::new(SweepAndPrune::new()) as Box<dyn BroadPhase>,
        Box::new(GridSweepAndPrune::new(None)),
        Box::new(Enlarged::new(GridSweepAndPrune::new(None), 0.1)),
    ] {
        let n = if testkit::long_run() { 3000u32 } else { 1500 };
        let mut rng = Rng::new(3);
        for k in 0..n {
            let b = Aabb::from_center_half_extents(rng.in_cube(0.1), Vec3::splat(1.0));
            bp.insert(k, b, false).expect("valid");
        }
        bp.update(&|_, _| false);
        assert_eq!(bp.box_pairs(), 0, "no filtered pair is stored");
        let allow = |a: ProxyKey, b: ProxyKey| a.is_multiple_of(3) && b.is_multiple_of(3);
        for k in (0..n).step_by(3) {
            bp.refilter(k);
        }
        bp.update(&allow);
        let m = (n as usize).div_ceil(3);
        assert_eq!(bp.box_pairs(), m * (m - 1) / 2);
        let mut changes = PairChanges::default();
        bp.drain_changes(&mut changes);
        assert_eq!(changes.started.len(), m * (m - 1) / 2);
        assert!(changes.ended.is_empty());
    }
}

/// A crowd in one spot: `n` boxes around the origin, a quarter static, in
/// `groups` layer groups (more than a sweep's 32 classes when large);
/// each frame a random half of the movers jitter in place, so the lists
/// are far from sorted and updates give up sorting by insertion.
fn shuffled_crowd<B: BroadPhase>(mut bp: B, n: u32, groups: u32, frames: usize) {
    let mut rng = Rng::new(u64::from(n + groups));
    let rules: Vec<Rules> = (0..n)
        .map(|k| {
            let g = k % groups;
            Rules {
                memberships: 1 << (g % 32),
                filters: if g.is_multiple_of(3) {
                    u32::MAX
                } else {
                    !(1 << (g % 32))
                },
                active: g % 7 != 6,
            }
        })
        .collect();
    let disabled = BTreeSet::new();
    let filter = SimFilter {
        rules: &rules,
        disabled: &disabled,
        grouped: true,
    };
    let is_static = |k: u32| k.is_multiple_of(4);
    let jitter = |rng: &mut Rng| {
        Aabb::from_center_half_extents(rng.in_cube(0.5), Vec3::splat(0.5) + rng.vec(0.0, 0.1))
    };
    let mut boxes: Vec<Option<Aabb>> = (0..n).map(|_| Some(jitter(&mut rng))).collect();
    for k in 0..n {
        bp.insert(k, boxes[k as usize].unwrap(), is_static(k))
            .expect("valid");
    }
    let mut rebuilt = 0;
    for frame in 0..frames {
        bp.update(&filter);
        rebuilt += usize::from(frame > 0 && bp.stats().rebuilt);
        let want: BTreeSet<PairKey> = box_pairs(&boxes, |i| is_static(i as u32))
            .into_iter()
            .filter(|&k| {
                let (a, b) = pair_ids(k);
                filter.allows(a, b)
            })
            .collect();
        let mut got = BTreeSet::new();
        bp.for_each_active(&mut |k| {
            got.insert(k);
        });
        assert_eq!(got, want, "{n} boxes, {groups} groups, frame {frame}");
        bp.validate(&filter).expect("invariants");
        for k in 0..n {
            if !is_static(k) && (frame % 2 == 0 || rng.below(2) == 0) {
                let b = jitter(&mut rng);
                boxes[k as usize] = Some(b);
                bp.set_aabb(k, b).expect("valid");
            }
        }
    }
    assert!(rebuilt > 0, "shuffling in one spot sorts from scratch");
}

#[test]
fn shuffled_crowds_by_group_equal_brute_force() {
    // Few groups (each its own class) and many (a catch-all class); a
    // whole-list re-sort (every mover moved) and per-proxy sifting (half).
    for groups in [1, 5, 40] {
        shuffled_crowd(SweepAndPrune::new(), 600, groups, 12);
        shuffled_crowd(GridSweepAndPrune::new(None), 600, groups, 12);
    }
}

#[test]
fn a_stack_of_statics_is_swept_in_linear_time() {
    // 200 000 static boxes stacked in one spot and 100 movers elsewhere:
    // with static proxies in their own class, the first update sorts and
    // sweeps without testing the 2 · 10^10 static pairs (it would take
    // minutes); then one mover falls onto the stack and pairs with every box.
    let mut sap = SweepAndPrune::new();
    let n = 200_000u32;
    let unit = Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(0.5));
    for k in 0..n {
        sap.insert(k, unit, true).expect("valid");
    }
    for k in 0..100 {
        let c = Vec3::new(10.0 + 3.0 * k as f32, 0.0, 0.0);
        sap.insert(
            n + k,
            Aabb::from_center_half_extents(c, Vec3::splat(0.5)),
            false,
        )
        .expect("valid");
    }
    sap.update(&AllowAllGroups);
    assert_eq!(sap.box_pairs(), 0);
    // A quadratic sweep would give the same pairs, only slower: count its
    // box tests (the movers are apart, so hardly any).
    let tests = sap.stats().sweep_tests;
    assert!(
        sap.stats().rebuilt && tests < 10 * u64::from(n),
        "{tests} box tests"
    );
    sap.set_aabb(n, unit).expect("valid");
    sap.update(&AllowAllGroups);
    assert_eq!(sap.box_pairs(), n as usize);
}

/// Every pair allowed, default groups.
struct AllowAllGroups;

impl PairFilter for AllowAllGroups {
    fn allows(&self, _: ProxyKey, _: ProxyKey) -> bool {
        true
    }
}

/// Every broad phase's pairs against brute force, after each update.
fn assert_pairs<B: BroadPhase>(bp: &B, boxes: &[Option<Aabb>], what: &str) {
    let want = box_pairs(boxes, |_| false);
    let mut got = BTreeSet::new();
    bp.for_each_active(&mut |k| {
        got.insert(k);
    });
    assert_eq!(got, want, "{what}");
}

#[test]
fn sifts_over_their_swap_budget_fall_back_to_a_rebuild() {
    // Under a third of the proxies move (the per-proxy sift, not the
    // whole-list re-sort), but far: across most of the lists, over the
    // swap budget, so the sift stops and the update sorts from scratch.
    let mut rng = Rng::new(41);
    let n = 2000u32;
    let spread = |k: u32, rng: &mut Rng| {
        let c = Vec3::new(k as f32 * 2.0, rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        Aabb::from_center_half_extents(c, Vec3::splat(0.4))
    };
    let mut sap = SweepAndPrune::new();
    let mut boxes: Vec<Option<Aabb>> = (0..n).map(|k| Some(spread(k, &mut rng))).collect();
    for k in 0..n {
        sap.insert(k, boxes[k as usize].unwrap(), false)
            .expect("valid");
    }
    sap.update(&AllowAllGroups);
    assert_pairs(&sap, &boxes, "spread");
    let mut rebuilt = 0;
    for frame in 0..6 {
        // 300 proxies (under n / 3) jump between the spot and their place.
        for _ in 0..300 {
            let k = rng.below(n as usize) as u32;
            let b = if frame % 2 == 0 {
                Aabb::from_center_half_extents(rng.in_cube(1.0), Vec3::splat(0.4))
            } else {
                spread(k, &mut rng)
            };
            boxes[k as usize] = Some(b);
            sap.set_aabb(k, b).expect("valid");
        }
        sap.update(&AllowAllGroups);
        rebuilt += usize::from(sap.stats().rebuilt);
        assert_pairs(&sap, &boxes, &format!("frame {frame}"));
        sap.validate(&AllowAllGroups).expect("invariants");
    }
    assert!(rebuilt > 0, "a sift over budget sorts from scratch");
}

#[test]
fn insertions_over_their_swap_budget_fall_back_to_a_rebuild() {
    // A crowd of 600 in one spot, then fewer insertions than a bulk
    // rebuild takes (under 64), each sifted from the list's end across the
    // crowd: over the budget part way, the rest are left pending and the
    // update sorts from scratch.
    let mut rng = Rng::new(43);
    let mut sap = SweepAndPrune::new();
    let crowd = |rng: &mut Rng| Aabb::from_center_half_extents(rng.in_cube(0.5), Vec3::splat(0.5));
    let mut boxes: Vec<Option<Aabb>> = (0..600).map(|_| Some(crowd(&mut rng))).collect();
    for (k, b) in boxes.iter().enumerate() {
        sap.insert(k as u32, b.unwrap(), false).expect("valid");
    }
    sap.update(&AllowAllGroups);
    assert_pairs(&sap, &boxes, "crowd");
    let mut rebuilt = 0;
    for round in 0..3 {
        for _ in 0..30 {
            let k = boxes.len() as u32;
            let b = Aabb::from_center_half_extents(
                rng.in_cube(0.2) - Vec3::splat(0.3),
                Vec3::splat(0.6),
            );
            boxes.push(Some(b));
            sap.insert(k, b, false).expect("valid");
        }
        sap.update(&AllowAllGroups);
        rebuilt += usize::from(sap.stats().rebuilt);
        assert_pairs(&sap, &boxes, &format!("round {round}"));
        sap.validate(&AllowAllGroups).expect("invariants");
    }
    assert!(rebuilt > 0, "insertions over budget sort from scratch");
}

/// `Enlarged::set_aabb`'s per-frame test (the box valid, and still inside
/// its fat box, on four-lane vectors): a box flush with its fat box on any
/// side stays (nothing reaches the inner broad phase), one a float step
/// beyond on any one side of any one axis leaves it, and a coordinate that
/// is not finite on any one axis is refused; near the origin and far out
/// (steps of 2⁻²⁴ relative), with a neighbour whose box touches the moved
/// one's side exactly: the pairs equal brute force after every update and
/// the invariants hold (the fat box holds the tight one).
#[test]
fn enlarged_boxes_flush_with_their_fat_box_stay_and_one_step_out_leave() {
    for center in [Vec3::ZERO, Vec3::new(-3e5, 7e5, 1e6)] {
        let tight = Aabb::from_center_half_extents(center, Vec3::ONE);
        for axis in 0..3 {
            for high in [false, true] {
                flush_and_one_step_out(tight, axis, high);
            }
        }
    }
}

/// One side of [`enlarged_boxes_flush_with_their_fat_box_stay_and_one_step_out_leave`].
fn flush_and_one_step_out(tight: Aabb, axis: usize, high: bool) {
    let what = format!("{:?} axis {axis} high {high}", tight.min);
    let step = |x: f32| if high { x.next_up() } else { x.next_down() };
    let mut bp = Enlarged::new(GridSweepAndPrune::new(None), 0.25);
    bp.insert(0, tight, false).expect("valid");
    bp.update(&|_, _| true);
    let fat = bp.inner().aabb(0).expect("live");
    assert!(fat.contains(&tight) && fat != tight, "{what}");
    // Flush with the fat box on that side, a neighbour touching it there.
    let (mut flush, mut touch) = (tight, tight);
    if high {
        flush.max[axis] = fat.max[axis];
        touch.min[axis] = flush.max[axis];
        touch.max[axis] = flush.max[axis] + 1.0;
    } else {
        flush.min[axis] = fat.min[axis];
        touch.max[axis] = flush.min[axis];
        touch.min[axis] = flush.min[axis] - 1.0;
    }
    bp.insert(1, touch, false).expect("valid");
    bp.set_aabb(0, flush).expect("valid");
    bp.update(&|_, _| true);
    assert_eq!(bp.stats().escaped, 0, "{what}: flush stays");
    assert_eq!(bp.inner().aabb(0), Some(fat), "{what}");
    assert!(bp.is_active(0, 1), "{what}: touching boxes pair");
    bp.validate(&|_, _| true).expect("valid");
    // One float step beyond the fat box: leaves it; the neighbour, moved
    // by the same step, still touches.
    let mut out = flush;
    let mut next = touch;
    if high {
        out.max[axis] = step(fat.max[axis]);
        next.min[axis] = out.max[axis];
        next.max[axis] = next.min[axis] + 1.0;
    } else {
        out.min[axis] = step(fat.min[axis]);
        next.max[axis] = out.min[axis];
        next.min[axis] = next.max[axis] - 1.0;
    }
    assert!(!fat.contains(&out), "{what}");
    bp.set_aabb(1, next).expect("valid");
    bp.set_aabb(0, out).expect("valid");
    bp.update(&|_, _| true);
    assert_eq!(
        bp.stats().escaped,
        1,
        "{what}: one step out leaves (the neighbour stays)"
    );
    assert!(bp.inner().aabb(0).expect("live").contains(&out), "{what}");
    assert_eq!(
        bp.box_pairs(),
        box_pairs(&[Some(out), Some(next)], |_| false).len()
    );
    assert!(bp.is_active(0, 1), "{what}: still touching");
    bp.validate(&|_, _| true).expect("valid");
    // Apart by one step: the pair ends.
    let mut apart = next;
    if high {
        apart.min[axis] = out.max[axis].next_up();
    } else {
        apart.max[axis] = out.min[axis].next_down();
    }
    bp.set_aabb(1, apart).expect("valid");
    bp.update(&|_, _| true);
    assert!(!bp.is_active(0, 1), "{what}: one step apart");
    // Not finite on this one axis, or min above max: refused, box kept.
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut b = out;
        if high {
            b.max[axis] = bad;
        } else {
            b.min[axis] = bad;
        }
        assert!(bp.set_aabb(0, b).is_err(), "{what}: {bad}");
    }
    let mut inverted = out;
    inverted.min[axis] = out.max[axis].next_up();
    assert!(bp.set_aabb(0, inverted).is_err(), "{what}: min above max");
    bp.update(&|_, _| true);
    assert_eq!(bp.aabb(0), Some(out), "{what}");
    bp.validate(&|_, _| true).expect("valid");
}
