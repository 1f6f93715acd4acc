//! Colliders from Bevy mesh assets (feature `bevy_asset`, on by default),
//! and a triangle mesh from your own vertices and indices.
//!
//! `ColliderConstructor` next to a `Mesh3d` builds the collider once the
//! mesh asset is loaded, on Bevy's async compute pool, then removes itself;
//! one shape is built per mesh asset and constructor and shared. A triangle
//! mesh is a surface (its hole and its inside are empty); a convex hull is
//! solid.
//!
//! Headless here: the plugins `DefaultPlugins` would bring for assets are
//! added by hand, and the mesh is built in code (`asset_server.load(...)`
//! works the same way). With the `bevy` crate, `Torus`, `Mesh`, `Mesh3d`
//! and `Assets` are in `bevy::prelude`.
//!
//! Run: `cargo run --example mesh_colliders`

use bevy_app::{TaskPoolPlugin, prelude::*};
use bevy_asset::{AssetApp, AssetPlugin, Assets};
use bevy_ecs::prelude::*;
use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::prelude::*;
use bevy_mesh::{Mesh, Mesh3d};
use bevy_shape::Torus;
use bevy_transform::prelude::*;
use glam::Vec3;

pub fn main() {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(), // the async compute pool the builds run on
        AssetPlugin::default(),
        TransformPlugin,
        CollisionPlugin::default(),
    ))
    .init_asset::<Mesh>(); // DefaultPlugins do this (bevy_mesh's MeshPlugin)

    // A torus lying in the XZ plane: tube radius 0.25 around a circle of radius 1.
    let torus = app
        .world_mut()
        .resource_mut::<Assets<Mesh>>()
        .add(Torus::new(0.75, 1.25));
    let world = app.world_mut();
    let mut from_mesh = |constructor: ColliderConstructor, x: f32| {
        let at = Transform::from_xyz(x, 0.0, 0.0);
        world
            .spawn((Mesh3d(torus.clone()), constructor, at, StaticCollider))
            .id()
    };
    let ring_a = from_mesh(ColliderConstructor::TrimeshFromMesh, 0.0);
    let ring_b = from_mesh(ColliderConstructor::TrimeshFromMesh, 10.0);
    let disc = from_mesh(ColliderConstructor::ConvexHullFromMesh, 20.0);

    // Small cubes: in ring_a's hole, across ring_b's tube, in the disc's middle.
    let cube = |x: f32| {
        (
            Collider::cuboid(0.4, 0.4, 0.4),
            Transform::from_xyz(x, 0.0, 0.0),
        )
    };
    let in_hole = world.spawn(cube(0.0)).id();
    let on_tube = world.spawn(cube(11.25)).id();
    let in_disc = world.spawn(cube(20.0)).id();

    // A floor of two triangles from data (data constructors return Result),
    // 10 below, and a ball resting on its triangle 1, 0.1 deep.
    let corners = [(-2.0, -2.0), (2.0, -2.0), (2.0, 2.0), (-2.0, 2.0)];
    let corners = corners.map(|(x, z)| Vec3::new(x, 0.0, z)).to_vec();
    let floor = Collider::trimesh(corners, vec![[0, 1, 2], [0, 2, 3]]).expect("valid mesh");
    let floor = world
        .spawn((floor, StaticCollider, Transform::from_xyz(0.0, -10.0, 0.0)))
        .id();
    let ball = (Collider::sphere(0.5), Transform::from_xyz(-1.0, -9.6, 1.0));
    let ball = world.spawn(ball).id();

    // The builds finish a few frames later (the pool works in the background).
    let built =
        |app: &App| [ring_a, ring_b, disc].map(|e| app.world().get::<Collider>(e).is_some());
    let mut frames = 0;
    while built(&app) != [true; 3] {
        assert!(frames < 2000, "the colliders are built within a few frames");
        app.update();
        frames += 1;
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    app.update(); // the new colliders take part from the next run of the plugin
    println!("mesh colliders built after {frames} frames");

    let world = app.world();
    let shape = |e: Entity| world.get::<Collider>(e).unwrap().shape().clone();
    assert!(shape(ring_a).ptr_eq(&shape(ring_b)), "one shape per asset");
    assert_eq!(shape(ring_a).kind_name(), "triangle mesh");
    assert_eq!(shape(disc).kind_name(), "convex");
    assert!(world.get::<ColliderConstructor>(ring_a).is_none(), "done");

    let touches = |a: Entity, b: Entity| world.get::<CollidingEntities>(a).unwrap().contains(b);
    assert!(!touches(ring_a, in_hole), "a mesh is a surface");
    assert!(touches(ring_b, on_tube), "the cube cuts the tube");
    assert!(touches(disc, in_disc), "a convex hull is solid");
    assert!(touches(floor, ball));

    // Mesh pairs have no contact data (no depth for a surface), but the
    // triangles within the ball's reach: [triangle of the floor, 0].
    let (contact, triangles) = app
        .world_mut()
        .run_system_once(move |c: Collisions| {
            (c.contact(floor, ball), c.triangle_pairs(floor, ball))
        })
        .expect("runs");
    println!("floor-ball: contact {contact:?}, triangle pairs {triangles:?}");
    assert!(contact.is_none());
    assert_eq!(triangles, Some(vec![[1, 0]]));
    println!("mesh_colliders: all as expected");
}
