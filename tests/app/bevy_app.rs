//! App-level tests (no window): scripted scenes with exact expected
//! `CollisionStart` / `CollisionEnd` sequences, observers, lifecycle, layers,
//! pair configuration, bad poses, determinism.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;

use crate::event_log::{Ev, Log, app_with_log, record_all};
use glam::{Quat, Vec3};

#[derive(Resource, Default)]
struct ObserverLog(Vec<Ev>);

fn app() -> App {
    let mut app = app_with_log();
    app.init_resource::<ObserverLog>();
    app
}

fn cube() -> Collider {
    Collider::cuboid(1.0, 1.0, 1.0)
}

fn at(x: f32) -> Transform {
    Transform::from_xyz(x, 0.0, 0.0)
}

/// Runs `f` on the pair configuration, as a gameplay system would.
fn configure(app: &mut App, f: impl FnOnce(&mut CollisionPairConfig) + Send + Sync + 'static) {
    let mut f = Some(f);
    app.world_mut()
        .run_system_once(move |mut c: CollisionPairConfig| {
            if let Some(f) = f.take() {
                f(&mut c);
            }
        })
        .expect("the plugin is installed");
}

fn take(app: &mut App) -> Vec<Ev> {
    std::mem::take(&mut app.world_mut().resource_mut::<Log>().0)
}

fn pair(a: Entity, b: Entity) -> (Entity, Entity) {
    if a < b { (a, b) } else { (b, a) }
}

/// Events in the order the plugin emits them: sorted by pair.
fn by_pair(mut v: Vec<Ev>) -> Vec<Ev> {
    v.sort_by_key(|e| match e {
        Ev::Start(x, y) | Ev::End(x, y) => (*x, *y),
    });
    v
}

fn start(a: Entity, b: Entity) -> Ev {
    let (a, b) = pair(a, b);
    Ev::Start(a, b)
}

fn end(a: Entity, b: Entity) -> Ev {
    let (a, b) = pair(a, b);
    Ev::End(a, b)
}

fn set_x(app: &mut App, e: Entity, x: f32) {
    app.world_mut()
        .get_mut::<Transform>(e)
        .expect("transform")
        .translation
        .x = x;
}

#[test]
fn start_and_end_follow_motion() {
    let mut app = app();
    let a = app.world_mut().spawn((cube(), at(0.0))).id();
    let b = app.world_mut().spawn((cube(), at(3.0))).id();
    app.update();
    assert_eq!(take(&mut app), vec![]);
    set_x(&mut app, b, 0.9);
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
    let colliding = app.world().get::<CollidingEntities>(a).expect("component");
    assert!(colliding.contains(b) && colliding.len() == 1);
    set_x(&mut app, b, 0.95);
    app.update();
    assert_eq!(take(&mut app), vec![], "still touching: no new event");
    set_x(&mut app, b, 1.2);
    app.update();
    assert_eq!(take(&mut app), vec![end(a, b)]);
    assert!(
        app.world()
            .get::<CollidingEntities>(a)
            .expect("component")
            .is_empty()
    );
    // The broad-phase box is readable: the cube's, grown by the pad for
    // rounding (6·10⁻⁵ here).
    let aabb = app.world().get::<ColliderAabb>(b).expect("component").0;
    assert!(
        (aabb.min.x - 0.7).abs() < 1e-4 && (aabb.max.x - 1.7).abs() < 1e-4,
        "{aabb:?}"
    );
    assert!(aabb.min.x < 0.7 && aabb.max.x > 1.7, "{aabb:?}");
}

#[test]
fn rotation_is_followed_by_the_dynamic_box() {
    let mut app = app();
    let a = app.world_mut().spawn((cube(), at(0.0))).id();
    // At 1.15 the axis-aligned cubes are apart; turned 45° about z, a's box
    // reaches 0.707 and touches b's box at 0.65.
    let b = app.world_mut().spawn((cube(), at(1.15))).id();
    app.update();
    assert_eq!(take(&mut app), vec![]);
    app.world_mut().get_mut::<Transform>(a).expect("t").rotation =
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
}

#[test]
fn observers_get_events_only_on_opted_in_entities() {
    let mut app = app();
    let watched = app
        .world_mut()
        .spawn((cube(), at(0.0), CollisionEventsEnabled))
        .id();
    app.world_mut().entity_mut(watched).observe(
        |ev: On<CollisionStart>, mut log: ResMut<ObserverLog>| {
            log.0.push(Ev::Start(ev.collider1, ev.collider2));
        },
    );
    app.world_mut().entity_mut(watched).observe(
        |ev: On<CollisionEnd>, mut log: ResMut<ObserverLog>| {
            log.0.push(Ev::End(ev.collider1, ev.collider2));
        },
    );
    let other = app.world_mut().spawn((cube(), at(0.5))).id();
    app.update();
    set_x(&mut app, other, 5.0);
    app.update();
    let log = &app.world().resource::<ObserverLog>().0;
    // collider1 is the observed entity.
    assert_eq!(
        log,
        &vec![Ev::Start(watched, other), Ev::End(watched, other)]
    );
    assert_eq!(
        take(&mut app),
        vec![start(watched, other), end(watched, other)]
    );
}

#[test]
fn despawn_and_collider_removal_end_pairs() {
    let mut app = app();
    let a = app.world_mut().spawn((cube(), at(0.0))).id();
    let b = app.world_mut().spawn((cube(), at(0.5))).id();
    let c = app.world_mut().spawn((cube(), at(-0.6))).id();
    app.update();
    assert_eq!(take(&mut app), by_pair(vec![start(a, b), start(a, c)]));
    app.world_mut().despawn(b);
    app.update();
    assert_eq!(take(&mut app), vec![end(a, b)]);
    assert!(
        !app.world()
            .get::<CollidingEntities>(a)
            .expect("c")
            .contains(b)
    );
    app.world_mut().entity_mut(c).remove::<Collider>();
    app.update();
    assert_eq!(take(&mut app), vec![end(a, c)]);
    // Re-inserting a collider starts the pair again.
    app.world_mut().entity_mut(c).insert(cube());
    app.update();
    assert_eq!(take(&mut app), vec![start(a, c)]);
    // Replacing the shape by a small one that no longer reaches ends it.
    app.world_mut()
        .entity_mut(c)
        .insert(Collider::cuboid(0.02, 0.02, 0.02));
    app.update();
    assert_eq!(take(&mut app), vec![end(a, c)]);
}

#[test]
fn spawn_and_despawn_in_the_same_frame_leave_no_trace() {
    let mut app = app();
    let a = app.world_mut().spawn((cube(), at(0.0))).id();
    app.update();
    let b = app.world_mut().spawn((cube(), at(0.2))).id();
    app.world_mut().despawn(b);
    app.update();
    app.update();
    assert_eq!(take(&mut app), vec![]);
    assert!(
        app.world()
            .get::<CollidingEntities>(a)
            .expect("c")
            .is_empty()
    );
}

#[test]
fn layers_filter_pairs_and_changes_take_effect() {
    let mut app = app();
    let a = app
        .world_mut()
        .spawn((cube(), at(0.0), CollisionLayers::new(0b01, 0b01)))
        .id();
    let b = app
        .world_mut()
        .spawn((cube(), at(0.5), CollisionLayers::new(0b10, 0b11)))
        .id();
    app.update();
    assert_eq!(take(&mut app), vec![], "a does not listen to layer 2");
    app.world_mut()
        .entity_mut(a)
        .insert(CollisionLayers::new(0b01, 0b11));
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
    app.world_mut()
        .entity_mut(b)
        .insert(CollisionLayers::new(0b10, LayerMask::NONE));
    app.update();
    assert_eq!(take(&mut app), vec![end(a, b)]);
    app.world_mut().entity_mut(b).remove::<CollisionLayers>();
    app.update();
    assert_eq!(
        take(&mut app),
        vec![start(a, b)],
        "default layers collide with everything"
    );
}

#[test]
fn pair_configuration_deactivates_and_reactivates() {
    let mut app = app();
    let a = app.world_mut().spawn((cube(), at(0.0))).id();
    let b = app.world_mut().spawn((cube(), at(0.5))).id();
    let c = app.world_mut().spawn((cube(), at(-0.6))).id();
    app.update();
    take(&mut app);
    configure(&mut app, move |cfg| cfg.deactivate_pair(b, a));
    app.update();
    assert_eq!(take(&mut app), vec![end(a, b)]);
    configure(&mut app, move |cfg| cfg.deactivate_entity(c));
    app.update();
    assert_eq!(take(&mut app), vec![end(a, c)]);
    configure(&mut app, move |cfg| cfg.activate_pair(a, b));
    configure(&mut app, move |cfg| cfg.activate_entity(c));
    app.update();
    let want = by_pair(vec![start(a, b), start(a, c)]);
    assert_eq!(take(&mut app), want);
    // Configuration made before a collider exists applies when it spawns.
    let d = app.world_mut().spawn_empty().id();
    configure(&mut app, move |cfg| cfg.deactivate_pair(a, d));
    app.world_mut().entity_mut(d).insert((cube(), at(0.1)));
    app.update();
    let got = take(&mut app);
    assert!(!got.contains(&start(a, d)), "{got:?}");
    assert!(
        got.contains(&start(b, d)) && got.contains(&start(c, d)),
        "{got:?}"
    );
}

#[test]
fn static_colliders_never_pair_with_each_other() {
    let mut app = app();
    let a = app
        .world_mut()
        .spawn((cube(), at(0.0), StaticCollider))
        .id();
    let b = app
        .world_mut()
        .spawn((cube(), at(0.5), StaticCollider))
        .id();
    app.update();
    assert_eq!(take(&mut app), vec![]);
    app.world_mut().entity_mut(b).remove::<StaticCollider>();
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
    app.world_mut().entity_mut(b).insert(StaticCollider);
    app.update();
    assert_eq!(take(&mut app), vec![end(a, b)]);
}

#[test]
fn bad_poses_are_skipped_not_propagated() {
    let mut app = app();
    let a = app.world_mut().spawn((cube(), at(0.0))).id();
    let b = app.world_mut().spawn((cube(), at(0.5))).id();
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
    // NaN translation: skipped, the pair keeps its last valid pose.
    set_x(&mut app, b, f32::NAN);
    app.update();
    assert_eq!(take(&mut app), vec![]);
    // Zero and negative scale: skipped too.
    app.world_mut()
        .get_mut::<Transform>(b)
        .expect("t")
        .translation
        .x = 5.0;
    app.world_mut().get_mut::<Transform>(b).expect("t").scale = Vec3::ZERO;
    app.update();
    assert_eq!(take(&mut app), vec![]);
    app.world_mut().get_mut::<Transform>(b).expect("t").scale = Vec3::new(-1.0, 1.0, 1.0);
    app.update();
    assert_eq!(take(&mut app), vec![]);
    // An infinite translation on a new entity: it never enters the world.
    let c = app
        .world_mut()
        .spawn((cube(), Transform::from_xyz(f32::INFINITY, 0.0, 0.0)))
        .id();
    app.update();
    assert_eq!(take(&mut app), vec![]);
    assert!(
        app.world()
            .get::<CollidingEntities>(c)
            .expect("c")
            .is_empty()
    );
    // A valid pose again: b moved away, the pair ends; c comes in.
    app.world_mut().get_mut::<Transform>(b).expect("t").scale = Vec3::ONE;
    app.world_mut()
        .get_mut::<Transform>(c)
        .expect("t")
        .translation
        .x = -0.5;
    app.update();
    let want = by_pair(vec![end(a, b), start(a, c)]);
    assert_eq!(take(&mut app), want);
}

#[test]
fn collider_pose_without_transform() {
    let mut app = app();
    let a = app
        .world_mut()
        .spawn((cube(), ColliderPose(Pose::from_translation(Vec3::ZERO))))
        .id();
    let b = app
        .world_mut()
        .spawn((cube(), ColliderPose(Pose::from_translation(Vec3::X * 3.0))))
        .id();
    app.update();
    assert_eq!(take(&mut app), vec![]);
    app.world_mut()
        .get_mut::<ColliderPose>(b)
        .expect("pose")
        .0
        .translation
        .x = 0.5;
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
}

fn scripted_run() -> Vec<Ev> {
    scripted_run_in(app())
}

fn scripted_run_in(mut app: App) -> Vec<Ev> {
    let mut rng = bevy_icollide::testkit::Rng::new(5);
    let mut entities = Vec::new();
    for _ in 0..60 {
        let t = Transform::from_translation(rng.in_cube(4.0)).with_rotation(rng.rotation());
        entities.push(app.world_mut().spawn((cube(), t)).id());
    }
    let mut all = Vec::new();
    for frame in 0..200 {
        for &e in &entities {
            let d = rng.in_cube(0.1);
            let mut t = app.world_mut().get_mut::<Transform>(e).expect("t");
            t.translation = (t.translation + d).clamp(Vec3::splat(-4.0), Vec3::splat(4.0));
        }
        if frame % 50 == 25 {
            let e = entities.swap_remove(rng.below(entities.len()));
            app.world_mut().despawn(e);
        }
        app.update();
        all.extend(take(&mut app));
    }
    all
}

#[test]
fn same_inputs_give_the_same_events_in_the_same_order() {
    let first = scripted_run();
    assert!(first.len() > 20, "the scene must produce events");
    assert_eq!(first, scripted_run());
}

/// A frame counter for run conditions.
#[derive(Resource, Default)]
struct Frame(u32);

/// An app that counts frames, with run conditions on the plugin's sets
/// added by `configure` (the same resources and systems in every variant,
/// so that entity ids match).
fn counting_app(configure: impl FnOnce(&mut App)) -> App {
    let mut app = app();
    app.init_resource::<Frame>()
        .add_systems(First, |mut f: ResMut<Frame>| f.0 += 1);
    configure(&mut app);
    app
}

#[test]
fn skipped_or_repeated_stages_give_the_same_events() {
    let want = scripted_run_in(counting_app(|app| {
        app.configure_sets(PostUpdate, CollisionSystems::Report.run_if(|| true));
    }));
    // The bounds and broad-phase sets skipped every other frame: the
    // narrow phase catches up on them.
    let skipping = counting_app(|app| {
        app.configure_sets(
            PostUpdate,
            (CollisionSystems::UpdateBounds, CollisionSystems::BroadPhase)
                .run_if(|f: Res<Frame>| f.0.is_multiple_of(2)),
        );
    });
    assert_eq!(scripted_run_in(skipping), want, "skipped stages");
    // The report set skipped every third frame: its events come a frame
    // later, none lost.
    let late = counting_app(|app| {
        app.configure_sets(
            PostUpdate,
            CollisionSystems::Report.run_if(|f: Res<Frame>| !f.0.is_multiple_of(3)),
        );
    });
    let got = scripted_run_in(late);
    assert_eq!(got.len(), want.len(), "late reports");
    assert_eq!(sorted(got), sorted(want.clone()), "late reports");
}

fn sorted(mut v: Vec<Ev>) -> Vec<Ev> {
    v.sort_by_key(|e| match *e {
        Ev::Start(a, b) => (a, b, 0),
        Ev::End(a, b) => (a, b, 1),
    });
    v
}

#[derive(Resource, Default)]
struct Seen(Vec<(f32, f32, Vec3)>);

#[test]
fn gameplay_systems_read_contact_data() {
    let mut app = app();
    app.init_resource::<Seen>().add_systems(
        Last,
        |q: Query<Entity, With<Collider>>, c: Collisions, mut seen: ResMut<Seen>| {
            let mut es: Vec<Entity> = q.iter().collect();
            es.sort_by_key(|e| e.index_u32());
            if let [a, b] = es[..]
                && let Some(k) = c.contact(a, b)
            {
                seen.0.push((k.distance, k.depth, k.normal));
            }
        },
    );
    let _a = app.world_mut().spawn((cube(), at(0.0))).id();
    let b = app.world_mut().spawn((cube(), at(1.05))).id();
    app.update();
    set_x(&mut app, b, 0.9);
    app.update();
    let seen = &app.world().resource::<Seen>().0;
    // Boxes overlap without margin only once they touch; then the depth.
    let (d, depth, n) = *seen.last().expect("contact data");
    assert!(d == 0.0 && (depth - 0.1).abs() < 1e-4, "{seen:?}");
    assert!((n - Vec3::X).length() < 1e-3, "normal from a to b: {n}");
}

#[test]
fn sensors_report_events_without_contact_data() {
    let mut app = app();
    let a = app.world_mut().spawn((cube(), at(0.0), Sensor)).id();
    let b = app.world_mut().spawn((cube(), at(0.8))).id();
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
    let (touching, contact) = app
        .world_mut()
        .run_system_once(move |c: Collisions| (c.contains(a, b), c.contact(a, b)))
        .expect("system runs");
    assert!(
        touching && contact.is_none(),
        "a touching sensor pair has no contact data"
    );
    // Apart: the boolean test (GJK from the cached axis) ends the pair.
    set_x(&mut app, b, 1.5);
    app.update();
    assert_eq!(take(&mut app), vec![end(a, b)]);
}

#[test]
fn penetration_depth_can_be_turned_off() {
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default()
            .with_messages_for_all_pairs()
            .with_penetration(false),
    ))
    .init_resource::<Log>()
    .add_systems(Last, record_all);
    let a = app.world_mut().spawn((cube(), at(0.0))).id();
    let b = app.world_mut().spawn((cube(), at(0.8))).id();
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
    let (touching, contact) = app
        .world_mut()
        .run_system_once(move |c: Collisions| (c.contains(a, b), c.contact(a, b)))
        .expect("system runs");
    assert!(touching && contact.is_none());
}

#[test]
fn mesh_pairs_are_exact_and_list_their_triangles() {
    let (pos, tris) = bevy_icollide::testkit::torus(1.0, 0.2, 24, 12);
    let torus = Collider::trimesh(pos, tris).expect("valid mesh");
    let mut app = app();
    let a = app.world_mut().spawn((torus.clone(), at(0.0))).id();
    // Interlocked like chain links: the boxes overlap, the surfaces do not.
    let link = Transform::from_xyz(1.0, 0.0, 0.0)
        .with_rotation(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2));
    let b = app.world_mut().spawn((torus, link)).id();
    app.update();
    assert_eq!(take(&mut app), vec![], "interlocked tori do not touch");
    // Slide b until its tube crosses a's.
    set_x(&mut app, b, 0.2);
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
    let pairs = app
        .world_mut()
        .run_system_once(move |c: Collisions| c.triangle_pairs(a, b))
        .expect("system runs")
        .expect("mesh pair");
    assert!(!pairs.is_empty());
    let flipped = app
        .world_mut()
        .run_system_once(move |c: Collisions| c.triangle_pairs(b, a))
        .expect("system runs")
        .expect("mesh pair");
    assert_eq!(flipped.len(), pairs.len());
    assert_eq!(flipped[0], [pairs[0][1], pairs[0][0]]);
}

#[test]
fn a_cube_against_a_mesh_floor() {
    // A flat mesh (no 3D hull) as a static floor, a convex cube above it.
    let floor = Collider::trimesh(
        vec![
            Vec3::new(-5.0, 0.0, -5.0),
            Vec3::new(5.0, 0.0, -5.0),
            Vec3::new(5.0, 0.0, 5.0),
            Vec3::new(-5.0, 0.0, 5.0),
        ],
        vec![[0, 2, 1], [0, 3, 2]],
    )
    .expect("valid floor");
    let mut app = app();
    let f = app
        .world_mut()
        .spawn((floor, Transform::IDENTITY, StaticCollider))
        .id();
    let c = app
        .world_mut()
        .spawn((cube(), Transform::from_xyz(0.0, 0.6, 0.0)))
        .id();
    app.update();
    assert_eq!(take(&mut app), vec![]);
    app.world_mut()
        .get_mut::<Transform>(c)
        .expect("t")
        .translation
        .y = 0.45;
    app.update();
    assert_eq!(take(&mut app), vec![start(f, c)]);
    app.world_mut()
        .get_mut::<Transform>(c)
        .expect("t")
        .translation
        .y = 0.5001;
    app.update();
    assert_eq!(take(&mut app), vec![end(f, c)]);
}

#[test]
fn a_deforming_floor_touches_what_it_reaches() {
    // A flat mesh floor that bulges up under a resting cube, then flattens.
    let grid = |lift: f32| {
        vec![
            Vec3::new(-5.0, 0.0, -5.0),
            Vec3::new(5.0, 0.0, -5.0),
            Vec3::new(5.0, 0.0, 5.0),
            Vec3::new(-5.0, 0.0, 5.0),
            Vec3::new(0.0, lift, 0.0),
        ]
    };
    let tris = vec![[0, 4, 1], [1, 4, 2], [2, 4, 3], [3, 4, 0]];
    let floor = Collider::trimesh(grid(0.0), tris).expect("valid floor");
    let mut app = app();
    let f = app
        .world_mut()
        .spawn((floor, Transform::IDENTITY, DeformedVertices(grid(0.0))))
        .id();
    let c = app
        .world_mut()
        .spawn((cube(), Transform::from_xyz(0.0, 0.8, 0.0)))
        .id();
    app.update();
    assert_eq!(take(&mut app), vec![]);
    app.world_mut().get_mut::<DeformedVertices>(f).expect("v").0 = grid(0.5);
    app.update();
    assert_eq!(
        take(&mut app),
        vec![start(f, c)],
        "the bulge reaches the cube"
    );
    app.world_mut().get_mut::<DeformedVertices>(f).expect("v").0 = grid(0.1);
    app.update();
    assert_eq!(take(&mut app), vec![end(f, c)], "the floor flattens");
    // Bad vertices are skipped: the floor keeps its last shape.
    app.world_mut().get_mut::<DeformedVertices>(f).expect("v").0 = vec![Vec3::NAN; 5];
    app.update();
    assert_eq!(take(&mut app), vec![]);
}

#[test]
fn messages_are_opt_in_by_default_and_every_end_follows_its_start() {
    // As in avian: a pair's messages are written when either entity has
    // `CollisionEventsEnabled`; an end exactly when its start was.
    let mut app = App::new();
    app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()))
        .init_resource::<Log>()
        .add_systems(Last, record_all);
    let a = app
        .world_mut()
        .spawn((cube(), at(0.0), CollisionEventsEnabled))
        .id();
    let b = app.world_mut().spawn((cube(), at(0.8))).id();
    let c = app.world_mut().spawn((cube(), at(10.0))).id();
    let d = app.world_mut().spawn((cube(), at(10.8))).id();
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)], "c-d opted out");
    // The opted-in entity goes: its pair's end is still written.
    app.world_mut().despawn(a);
    app.update();
    assert_eq!(take(&mut app), vec![end(a, b)]);
    // Opting in while touching: no start was written, so no end either.
    app.world_mut().entity_mut(c).insert(CollisionEventsEnabled);
    set_x(&mut app, d, 20.0);
    app.update();
    assert_eq!(take(&mut app), vec![]);
    set_x(&mut app, d, 10.8);
    app.update();
    assert_eq!(take(&mut app), vec![start(c, d)]);
    // The collision state is exact whatever the messages.
    assert!(app.world().get::<CollidingEntities>(c).unwrap().contains(d));
}

#[test]
fn a_collider_removed_and_reinserted_in_one_frame_ends_before_it_starts() {
    // The re-inserted collider gets a new body, in the slot a despawned
    // collider freed: when that slot is the lower one, its start must
    // still come after the old body's end, or the opted-in pair loses its
    // last end and `CollidingEntities` its partner. Bodies are added in
    // entity order, so the freed slot is spawned before and after.
    for filler_first in [true, false] {
        removed_and_reinserted(filler_first);
    }
}

fn removed_and_reinserted(filler_first: bool) {
    let mut app = App::new();
    app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()))
        .init_resource::<Log>()
        .add_systems(Last, record_all);
    let far = || (cube(), at(30.0));
    let early = filler_first.then(|| app.world_mut().spawn(far()).id());
    let a = app
        .world_mut()
        .spawn((cube(), at(0.0), CollisionEventsEnabled))
        .id();
    let b = app.world_mut().spawn((cube(), at(0.8))).id();
    let c = early.unwrap_or_else(|| app.world_mut().spawn(far()).id());
    app.update();
    assert_eq!(take(&mut app), vec![start(a, b)]);
    app.world_mut().despawn(c);
    app.update();
    assert_eq!(take(&mut app), vec![]);
    app.world_mut()
        .entity_mut(b)
        .remove::<Collider>()
        .insert(cube());
    app.update();
    // (The log lists starts before ends whatever the order they came in.)
    assert_eq!(take(&mut app), vec![start(a, b), end(a, b)]);
    assert!(app.world().get::<CollidingEntities>(a).unwrap().contains(b));
    assert!(app.world().get::<CollidingEntities>(b).unwrap().contains(a));
    set_x(&mut app, b, 5.0);
    app.update();
    assert_eq!(
        take(&mut app),
        vec![end(a, b)],
        "filler first: {filler_first}"
    );
}

#[test]
fn a_new_collider_starts_with_no_colliding_entities() {
    // A copy of a touching entity's `CollidingEntities` (as a scene or a
    // clone brings it) is cleared when the copy's collider gets its body.
    let mut app = app();
    let a = app.world_mut().spawn((cube(), at(0.0))).id();
    let b = app.world_mut().spawn((cube(), at(0.8))).id();
    app.update();
    let copy = app.world().get::<CollidingEntities>(a).unwrap().clone();
    assert!(copy.contains(b));
    let c = app.world_mut().spawn((cube(), at(50.0), copy)).id();
    app.update();
    assert!(app.world().get::<CollidingEntities>(c).unwrap().is_empty());
    assert!(app.world().get::<CollidingEntities>(a).unwrap().contains(b));
}

/// Without `TransformPlugin` nothing updates `GlobalTransform`: every
/// collider would sit at the origin. The plugin says so once (a warning,
/// and `CollisionDiagnostics::unpropagated_transforms`); with propagation
/// it stays quiet, also for a collider spawned at the origin.
#[test]
fn missing_transform_propagation_is_reported_once() {
    let unpropagated = |app: &App| {
        app.world()
            .resource::<CollisionDiagnostics>()
            .unpropagated_transforms
    };
    let mut bare = App::new();
    bare.add_plugins(CollisionPlugin::default());
    bare.world_mut().spawn((cube(), Transform::IDENTITY));
    bare.world_mut().spawn((cube(), at(5.0)));
    bare.update();
    assert!(!unpropagated(&bare), "one frame may precede propagation");
    bare.update();
    assert!(unpropagated(&bare));

    let mut propagated = app();
    propagated.world_mut().spawn((cube(), Transform::IDENTITY));
    propagated.world_mut().spawn((cube(), at(5.0)));
    for _ in 0..3 {
        propagated.update();
    }
    assert!(!unpropagated(&propagated));
}
