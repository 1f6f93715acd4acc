//! Static colliders at rest in several tables and archetypes (extra
//! components of the crate and of the user, a sparse-set component, a
//! parent), a few of them teleported each frame onto a moving collider and
//! away, reshaped, despawned or spawned. The plugin finds the static
//! colliders that changed by reading each table's change ticks in blocks
//! (`plugin/static_scan.rs`): every edit, in any table and at any row
//! (first, last, a block's tail), must reach the world in the frame it
//! was made. Checked after every frame against a brute force over all
//! pairs (spheres: centres closer than the radii's sum), from the
//! entities' `GlobalTransform`s.

use std::collections::{HashMap, HashSet};

use bevy_app::prelude::*;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_icollide::testkit::{Rng, long_factor};
use bevy_transform::prelude::*;
use glam::Vec3;

use crate::event_log::{Ev, Log, app_with_log};

/// A user's component: static colliders with it sit in a table of their own.
#[derive(Component)]
struct Tag;

/// A user's sparse-set component: a different archetype, the same table.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Sparse;

/// The scene and what the brute force needs to know of it.
struct Scene {
    app: App,
    movers: Vec<Entity>,
    /// Static colliders, by group (one group per table or archetype).
    groups: Vec<Vec<Entity>>,
    radius: HashMap<Entity, f32>,
    statics: HashSet<Entity>,
    /// Colliders whose layers filter every other out.
    filtered: HashSet<Entity>,
    /// Each static collider's place at rest (parent-relative for children).
    home: HashMap<Entity, Vec3>,
    /// The pairs the messages say touch.
    reported: Pairs,
}

const R: f32 = 0.5;

fn sphere(r: f32) -> Collider {
    Collider::sphere(r)
}

/// Static spheres 3 apart in row `row` far from the movers.
fn rest(row: usize, i: usize) -> Vec3 {
    Vec3::new(200.0 + 3.0 * i as f32, 3.0 * row as f32, 0.0)
}

/// The moving spheres' lane: 10 apart along x.
fn lane(i: usize) -> Vec3 {
    Vec3::new(-30.0 + 10.0 * i as f32, 0.0, 0.0)
}

impl Scene {
    /// Groups of 150, 70, 65, 40, 20, 10 and 30 static spheres (none a
    /// multiple of the scan's 64-row blocks) and six movers.
    fn new() -> Self {
        let mut app = app_with_log();
        let w = app.world_mut();
        let mut groups: Vec<Vec<Entity>> = vec![Vec::new(); 7];
        let sizes = [150, 70, 65, 40, 20, 10, 30];
        let parent = w.spawn(Transform::from_xyz(0.0, -100.0, 0.0)).id();
        for (g, &n) in sizes.iter().enumerate() {
            for i in 0..n {
                let t = Transform::from_translation(rest(g, i));
                let mut e = w.spawn((sphere(R), t, StaticCollider));
                match g {
                    1 => e.insert(CollisionLayers::default()),
                    2 => e.insert(Tag),
                    3 => e.insert(Sparse),
                    4 => e.insert(Sensor),
                    5 => e.insert(MaxFrameMotion {
                        linear: 1.0,
                        angular: 1.0,
                    }),
                    6 => e.insert(ChildOf(parent)),
                    _ => &mut e,
                };
                groups[g].push(e.id());
            }
        }
        let movers: Vec<Entity> = (0..6)
            .map(|i| {
                w.spawn((sphere(R), Transform::from_translation(lane(i))))
                    .id()
            })
            .collect();
        let all = groups.iter().flatten().copied();
        let home = all
            .clone()
            .map(|e| (e, w.get::<Transform>(e).unwrap().translation))
            .collect();
        Self {
            radius: all
                .clone()
                .chain(movers.iter().copied())
                .map(|e| (e, R))
                .collect(),
            statics: all.collect(),
            filtered: HashSet::new(),
            app,
            movers,
            groups,
            home,
            reported: HashSet::new(),
        }
    }

    /// The parent's offset for children (group 6), zero for roots.
    fn offset(&self, e: Entity) -> Vec3 {
        let w = self.app.world();
        w.get::<ChildOf>(e)
            .and_then(|c| w.get::<GlobalTransform>(c.parent()))
            .map_or(Vec3::ZERO, |g| g.translation())
    }

    /// Puts `e`'s centre at `at` (world).
    fn teleport(&mut self, e: Entity, at: Vec3) {
        let local = at - self.offset(e);
        let w = self.app.world_mut();
        w.get_mut::<Transform>(e).expect("transform").translation = local;
    }

    /// Puts `e` `d` from mover `m`'s centre in a random direction.
    fn onto(&mut self, rng: &mut Rng, e: Entity, m: usize, d: f32) {
        let centre = self.centre(self.movers[m]);
        self.teleport(e, centre + rng.unit_vector() * d);
    }

    fn send_home(&mut self, e: Entity) {
        let home = self.home[&e];
        let w = self.app.world_mut();
        w.get_mut::<Transform>(e).expect("transform").translation = home;
    }

    fn centre(&self, e: Entity) -> Vec3 {
        let g = self.app.world().get::<GlobalTransform>(e).expect("global");
        g.translation()
    }

    /// One update; its events into `reported`, each checked against the
    /// pairs reported so far; then `reported` against the brute force.
    fn step(&mut self, what: &str) -> Vec<Ev> {
        self.app.update();
        let events = std::mem::take(&mut self.app.world_mut().resource_mut::<Log>().0);
        for ev in &events {
            match *ev {
                Ev::Start(a, b) => assert!(self.reported.insert(key(a, b)), "{what}: {ev:?} twice"),
                Ev::End(a, b) => {
                    assert!(self.reported.remove(&key(a, b)), "{what}: {ev:?} unknown")
                }
            }
        }
        let (truth, undecided) = self.brute_force();
        let missed: Vec<_> = truth.difference(&self.reported).collect();
        let extra = self.reported.difference(&truth);
        let extra: Vec<_> = extra.filter(|p| !undecided.contains(p)).collect();
        assert!(
            missed.is_empty() && extra.is_empty(),
            "{what}: missed {missed:?}, extra {extra:?}"
        );
        events
    }

    /// Every pair (not both static) whose spheres overlap by more than
    /// 10⁻³, and those within 10⁻³ of touching (either answer is right),
    /// from the entities' `GlobalTransform`s (no plugin code).
    fn brute_force(&self) -> (Pairs, Pairs) {
        let bodies: Vec<(Entity, Vec3, f32)> = self
            .radius
            .iter()
            .map(|(&e, &r)| (e, self.centre(e), r))
            .collect();
        let (mut touching, mut undecided) = (HashSet::new(), HashSet::new());
        for (i, &(a, pa, ra)) in bodies.iter().enumerate() {
            for &(b, pb, rb) in &bodies[i + 1..] {
                let both_static = self.statics.contains(&a) && self.statics.contains(&b);
                if both_static || self.filtered.contains(&a) || self.filtered.contains(&b) {
                    continue;
                }
                let gap = pa.distance(pb) - ra - rb;
                if gap.abs() <= 1e-3 {
                    undecided.insert(key(a, b));
                } else if gap < 0.0 {
                    touching.insert(key(a, b));
                }
            }
        }
        (touching, undecided)
    }
}

/// Pairs, smaller entity first.
type Pairs = HashSet<(Entity, Entity)>;

fn key(a: Entity, b: Entity) -> (Entity, Entity) {
    (a.min(b), a.max(b))
}

/// The first and last of each group and the rows around the scan's
/// block boundaries.
fn edges(groups: &[Vec<Entity>]) -> Vec<Entity> {
    let rows = [0, 62, 63, 64, 65, 127, 128, 129];
    let mut out = Vec::new();
    for g in groups {
        out.extend(rows.iter().filter_map(|&r| g.get(r)));
        out.push(*g.last().expect("group"));
    }
    out
}

#[test]
fn each_static_collider_teleported_onto_a_mover_and_back_starts_and_ends_its_pair() {
    let mut scene = Scene::new();
    let mut rng = Rng::new(45);
    scene.step("spawn");
    for e in edges(&scene.groups) {
        let m = rng.below(scene.movers.len());
        scene.onto(&mut rng, e, m, 0.6);
        let pair = key(e, scene.movers[m]);
        let got: Vec<Ev> = scene.step("onto a mover").iter().map(ordered).collect();
        assert_eq!(got, vec![Ev::Start(pair.0, pair.1)], "{e} onto a mover");
        scene.send_home(e);
        let got: Vec<Ev> = scene.step("home again").iter().map(ordered).collect();
        assert_eq!(got, vec![Ev::End(pair.0, pair.1)], "{e} home again");
    }
}

/// The last collider of each group laid onto the first of the next (a
/// static pair: none), made moving (its pair starts), static again (it
/// ends); then onto a mover and given layers that filter the mover out
/// (its pair ends) and back to the default layers (it starts again).
#[test]
fn static_flags_and_layers_edited_in_every_table_reach_the_world_that_frame() {
    let mut scene = Scene::new();
    let mut rng = Rng::new(3);
    scene.step("spawn");
    let groups = scene.groups.clone();
    for (g, group) in groups.iter().enumerate() {
        let (e, other) = (*group.last().expect("e"), groups[(g + 1) % groups.len()][0]);
        let pair = key(e, other);
        let at = scene.centre(other) + rng.unit_vector() * 0.5;
        scene.teleport(e, at);
        assert_eq!(scene.step("onto a static one"), vec![]);
        scene
            .app
            .world_mut()
            .entity_mut(e)
            .remove::<StaticCollider>();
        scene.statics.remove(&e);
        let got: Vec<Ev> = scene.step("made moving").iter().map(ordered).collect();
        assert_eq!(got, vec![Ev::Start(pair.0, pair.1)], "{e} made moving");
        scene.app.world_mut().entity_mut(e).insert(StaticCollider);
        scene.statics.insert(e);
        let got: Vec<Ev> = scene.step("static again").iter().map(ordered).collect();
        assert_eq!(got, vec![Ev::End(pair.0, pair.1)], "{e} static again");
        let m = rng.below(scene.movers.len());
        scene.onto(&mut rng, e, m, 0.5);
        let pair = key(e, scene.movers[m]);
        let got: Vec<Ev> = scene.step("onto a mover").iter().map(ordered).collect();
        assert_eq!(got, vec![Ev::Start(pair.0, pair.1)], "{e} onto a mover");
        let none = CollisionLayers::new(LayerMask::ALL, LayerMask::NONE);
        scene.app.world_mut().entity_mut(e).insert(none);
        scene.filtered.insert(e);
        let got: Vec<Ev> = scene.step("filtered").iter().map(ordered).collect();
        assert_eq!(got, vec![Ev::End(pair.0, pair.1)], "{e} filtered");
        *scene
            .app
            .world_mut()
            .get_mut::<CollisionLayers>(e)
            .expect("layers") = CollisionLayers::default();
        scene.filtered.remove(&e);
        let got: Vec<Ev> = scene.step("default layers").iter().map(ordered).collect();
        assert_eq!(got, vec![Ev::Start(pair.0, pair.1)], "{e} default layers");
    }
}

/// An event with its pair smaller entity first.
fn ordered(ev: &Ev) -> Ev {
    match *ev {
        Ev::Start(a, b) => Ev::Start(a.min(b), a.max(b)),
        Ev::End(a, b) => Ev::End(a.min(b), a.max(b)),
    }
}

#[test]
fn static_colliders_edited_at_random_in_every_table_match_the_brute_force() {
    let mut scene = Scene::new();
    let mut rng = Rng::new(7);
    scene.step("spawn");
    let edges = edges(&scene.groups);
    for frame in 0..80 * long_factor() {
        for _ in 0..rng.below(4) {
            edit(&mut scene, &mut rng, &edges);
        }
        scene.step(&format!("frame {frame}"));
    }
}

/// One random edit: a static collider (an edge row half the time)
/// teleported onto a mover or near it but apart, sent home, reshaped,
/// despawned, or a new one spawned onto a mover; or a mover moved.
fn edit(scene: &mut Scene, rng: &mut Rng, edges: &[Entity]) {
    let all: Vec<Entity> = scene.groups.iter().flatten().copied().collect();
    let e = if rng.below(2) == 0 {
        edges[rng.below(edges.len())]
    } else {
        all[rng.below(all.len())]
    };
    let m = rng.below(scene.movers.len());
    if !scene.radius.contains_key(&e) {
        return;
    }
    match rng.below(8) {
        0..=2 => {
            let d = rng.range(0.1, 0.9);
            scene.onto(rng, e, m, d);
        }
        3 => {
            let d = rng.range(1.1, 1.5);
            scene.onto(rng, e, m, d);
        }
        4 => scene.send_home(e),
        5 => {
            let r = if rng.below(2) == 0 { 0.8 } else { R };
            scene.app.world_mut().entity_mut(e).insert(sphere(r));
            scene.radius.insert(e, r);
        }
        6 if rng.below(4) == 0 => {
            scene.app.world_mut().despawn(e);
            scene.radius.remove(&e);
        }
        6 => spawn_onto(scene, rng, m),
        _ => {
            let at = lane(m) + rng.in_cube(1.0);
            let mover = scene.movers[m];
            scene.teleport(mover, at);
        }
    }
}

/// A new static collider (in the sparse group's archetype half the
/// time) touching mover `m`.
fn spawn_onto(scene: &mut Scene, rng: &mut Rng, m: usize) {
    let at = scene.centre(scene.movers[m]) + rng.unit_vector() * 0.5;
    let w = scene.app.world_mut();
    let mut e = w.spawn((sphere(R), Transform::from_translation(at), StaticCollider));
    if rng.below(2) == 0 {
        e.insert(Sparse);
    }
    let e = e.id();
    scene.radius.insert(e, R);
    scene.statics.insert(e);
    scene.home.insert(e, rest(9, scene.home.len()));
}
