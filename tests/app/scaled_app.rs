//! A mesh collider follows its `Transform`'s scale (non-uniform, mirrored,
//! changing), with no rebuild: the events are those of the scaled
//! geometry. A convex collider with a scale other than 1 is skipped (it
//! must be built at its size), as a bad pose is.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

#[derive(Resource, Default)]
struct Log(Vec<(Entity, Entity, bool)>);

fn record(
    mut log: ResMut<Log>,
    mut s: MessageReader<CollisionStart>,
    mut e: MessageReader<CollisionEnd>,
) {
    log.0
        .extend(s.read().map(|m| (m.collider1, m.collider2, true)));
    log.0
        .extend(e.read().map(|m| (m.collider1, m.collider2, false)));
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default().with_messages_for_all_pairs(),
    ))
    .init_resource::<Log>()
    .add_systems(Last, record);
    app
}

fn take(app: &mut App) -> Vec<(Entity, Entity, bool)> {
    std::mem::take(&mut app.world_mut().resource_mut::<Log>().0)
}

/// A unit floor tile on the +x side of its origin: x in [0, 1], z in
/// [-1, 1], y = 0.
fn tile() -> Collider {
    Collider::trimesh(
        vec![
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(0.0, 0.0, 1.0),
        ],
        vec![[0, 2, 1], [0, 3, 2]],
    )
    .expect("valid tile")
}

fn cube_at(app: &mut App, at: Vec3) -> Entity {
    let cube = Collider::cuboid(0.5, 0.5, 0.5);
    app.world_mut()
        .spawn((cube, Transform::from_translation(at)))
        .id()
}

fn set_scale(app: &mut App, e: Entity, scale: Vec3) {
    app.world_mut().get_mut::<Transform>(e).expect("t").scale = scale;
}

fn touching(app: &App, e: Entity) -> Vec<Entity> {
    let mut v: Vec<Entity> = app
        .world()
        .get::<CollidingEntities>(e)
        .expect("colliding")
        .iter()
        .collect();
    v.sort();
    v
}

#[test]
fn a_mesh_collider_takes_its_transform_scale() {
    let mut app = app();
    let floor = app
        .world_mut()
        .spawn((
            tile(),
            Transform::from_scale(Vec3::new(5.0, 1.0, 0.5)),
            StaticCollider,
        ))
        .id();
    // Resting on the scaled tile (x up to 5, z within 0.5), beside it
    // (z = 0.9 is off the squeezed tile), and on the mirrored side.
    let on = cube_at(&mut app, Vec3::new(4.0, 0.2, 0.0));
    let beside = cube_at(&mut app, Vec3::new(2.0, 0.2, 0.9));
    let mirrored = cube_at(&mut app, Vec3::new(-4.0, 0.2, 0.0));
    app.update();
    assert_eq!(touching(&app, floor), vec![on]);
    assert!(touching(&app, beside).is_empty() && touching(&app, mirrored).is_empty());
    take(&mut app);
    // Mirrored in x: the tile now covers x in [-5, 0].
    set_scale(&mut app, floor, Vec3::new(-5.0, 1.0, 0.5));
    app.update();
    assert_eq!(touching(&app, floor), vec![mirrored]);
    let ev = take(&mut app);
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert!(ev.contains(&(floor.min(on), floor.max(on), false)));
    assert!(ev.contains(&(floor.min(mirrored), floor.max(mirrored), true)));
    // Wider in z, shorter in x: `beside` is on it, `mirrored` is not.
    set_scale(&mut app, floor, Vec3::new(-3.0, 1.0, 1.0));
    app.update();
    assert!(touching(&app, floor).is_empty());
    set_scale(&mut app, floor, Vec3::new(3.0, 1.0, 1.0));
    app.update();
    assert_eq!(touching(&app, floor), vec![beside]);
}

#[test]
fn a_convex_collider_with_a_scale_is_skipped() {
    let mut app = app();
    let a = cube_at(&mut app, Vec3::ZERO);
    let b = cube_at(&mut app, Vec3::new(0.4, 0.0, 0.0));
    app.update();
    assert_eq!(touching(&app, a), vec![b]);
    // Scaled to 4x and moved: refused, it keeps its last valid pose (the
    // pair stays); scale 1 again at a distance: the pair ends.
    set_scale(&mut app, b, Vec3::splat(4.0));
    app.world_mut()
        .get_mut::<Transform>(b)
        .expect("t")
        .translation
        .x = 1.5;
    app.update();
    assert_eq!(touching(&app, a), vec![b], "skipped: last valid pose kept");
    set_scale(&mut app, b, Vec3::ONE);
    app.update();
    assert!(touching(&app, a).is_empty());
}

/// A unit scale is skipped only while no body was ever scaled: a mesh
/// scaled with its pose unchanged takes the scale, and set back to 1 it is
/// at scale 1 again in the world; its pairs follow both times.
#[test]
fn a_mesh_scaled_and_set_back_to_one_follows() {
    let mut app = app();
    let floor = app.world_mut().spawn((tile(), Transform::default())).id();
    let far = cube_at(&mut app, Vec3::new(3.0, 0.0, 0.0));
    app.update();
    assert!(touching(&app, floor).is_empty());
    set_scale(&mut app, floor, Vec3::new(5.0, 1.0, 1.0));
    app.update();
    assert_eq!(touching(&app, floor), vec![far], "same pose, new scale");
    set_scale(&mut app, floor, Vec3::ONE);
    app.update();
    let scale = app
        .world_mut()
        .run_system_once(move |c: Collisions| c.world().scale(c.body(floor).expect("a body")))
        .expect("runs");
    assert_eq!(scale, Ok(Vec3::ONE));
    assert!(touching(&app, floor).is_empty(), "back at scale 1");
}
