//! Colliders from Bevy mesh assets (feature `bevy_asset`): built once the
//! mesh is there, off the main thread, one shape per asset shared by every
//! instance, exact collisions; hierarchies with per-node overrides; bad
//! meshes give a named error, never a panic.
#![cfg(feature = "bevy_asset")]

use bevy_app::TaskPoolPlugin;
use bevy_app::prelude::*;
use bevy_asset::{AssetApp, AssetPlugin, Assets, Handle, RenderAssetUsages};
use bevy_ecs::prelude::*;
use bevy_icollide::collider::{ShapeKind, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::prelude::*;
use bevy_icollide::query;
use bevy_icollide::testkit::{Rng, torus};
use bevy_mesh::{Indices, Mesh, Mesh3d, PrimitiveTopology};
use bevy_transform::prelude::*;
use glam::Vec3;

#[derive(Resource, Default)]
struct Starts(Vec<(Entity, Entity)>);

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default().with_messages_for_all_pairs(),
    ))
    .init_resource::<Assets<Mesh>>()
    .init_resource::<Starts>()
    .add_systems(
        Last,
        |mut m: MessageReader<CollisionStart>, mut s: ResMut<Starts>| {
            s.0.extend(m.read().map(|e| (e.collider1, e.collider2)));
        },
    );
    app
}

/// A Bevy mesh of a torus (major radius 1, minor 0.25), indexed.
fn torus_mesh() -> Mesh {
    let (pos, tris) = torus(1.0, 0.25, 24, 12);
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_POSITION,
        pos.iter().map(|p| p.to_array()).collect::<Vec<_>>(),
    )
    .with_inserted_indices(Indices::U32(tris.into_iter().flatten().collect()))
}

fn add(app: &mut App, mesh: Mesh) -> Handle<Mesh> {
    app.world_mut().resource_mut::<Assets<Mesh>>().add(mesh)
}

/// Updates until every entity has a collider (the builds run on the async
/// pool), at most a few seconds.
fn until_built(app: &mut App, entities: &[Entity]) {
    for _ in 0..2000 {
        app.update();
        if entities
            .iter()
            .all(|e| app.world().get::<Collider>(*e).is_some())
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("colliders not built");
}

#[test]
fn mesh_colliders_are_built_shared_and_collide_exactly() {
    let mut app = app();
    let handle = add(&mut app, torus_mesh());
    let spawn = |app: &mut App, x: f32| {
        app.world_mut()
            .spawn((
                Mesh3d(handle.clone()),
                ColliderConstructor::TrimeshFromMesh,
                Transform::from_xyz(x, 0.0, 0.0),
            ))
            .id()
    };
    let a = spawn(&mut app, 0.0);
    let b = spawn(&mut app, 10.0);
    // A small cube in the torus's hole touches nothing: the torus is a
    // surface, and its hole is empty.
    let cube = Collider::cuboid(0.4, 0.4, 0.4);
    let hole = app
        .world_mut()
        .spawn((cube.clone(), Transform::default()))
        .id();
    // One on the tube touches it.
    let tube = app
        .world_mut()
        .spawn((cube, Transform::from_xyz(11.0, 0.0, 0.0)))
        .id();
    until_built(&mut app, &[a, b]);
    app.update();
    let shape = |e: Entity| app.world().get::<Collider>(e).unwrap().shape().clone();
    assert!(shape(a).ptr_eq(&shape(b)), "one shape per mesh asset");
    assert_eq!(shape(a).kind_name(), "triangle mesh");
    assert!(app.world().get::<ColliderConstructor>(a).is_none());
    let starts = &app.world().resource::<Starts>().0;
    let touches = |x: Entity, y: Entity| starts.contains(&(x.min(y), x.max(y)));
    assert!(touches(b, tube), "the cube on the tube touches it");
    assert!(!touches(a, hole), "the cube in the hole does not");
}

#[test]
fn a_mesh_loaded_later_gets_its_collider_then() {
    let mut app = app();
    let handle = app.world().resource::<Assets<Mesh>>().reserve_handle();
    let e = app
        .world_mut()
        .spawn((
            Mesh3d(handle.clone()),
            ColliderConstructor::ConvexHullFromMesh,
            Transform::default(),
        ))
        .id();
    for _ in 0..5 {
        app.update();
    }
    assert!(app.world().get::<Collider>(e).is_none(), "not loaded yet");
    app.world_mut()
        .resource_mut::<Assets<Mesh>>()
        .insert(handle.id(), torus_mesh())
        .expect("reserved id");
    until_built(&mut app, &[e]);
    let collider = app.world().get::<Collider>(e).unwrap();
    assert_eq!(collider.shape().kind_name(), "convex");
}

#[test]
fn hierarchies_give_descendants_colliders_with_overrides() {
    let mut app = app();
    let handle = add(&mut app, torus_mesh());
    let root = app
        .world_mut()
        .spawn((
            ColliderConstructorHierarchy(ColliderConstructor::ConvexHullFromMesh),
            Transform::default(),
        ))
        .id();
    let child = app
        .world_mut()
        .spawn((Mesh3d(handle.clone()), Transform::default(), ChildOf(root)))
        .id();
    let grandchild = app
        .world_mut()
        .spawn((
            Mesh3d(handle.clone()),
            ColliderConstructor::TrimeshFromMesh,
            Transform::from_xyz(5.0, 0.0, 0.0),
            ChildOf(child),
        ))
        .id();
    let plain = app
        .world_mut()
        .spawn((Mesh3d(handle), Transform::default()))
        .id();
    until_built(&mut app, &[child, grandchild]);
    let kind = |e: Entity| app.world().get::<Collider>(e).unwrap().shape().kind_name();
    assert_eq!(kind(child), "convex");
    assert_eq!(
        kind(grandchild),
        "triangle mesh",
        "its own constructor wins"
    );
    assert!(
        app.world().get::<Collider>(plain).is_none(),
        "outside the hierarchy"
    );
}

#[test]
fn bad_meshes_give_named_errors() {
    let lines = Mesh::new(PrimitiveTopology::LineList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, vec![[0.0f32; 3]; 4]);
    let empty = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    );
    let ragged = torus_mesh().with_inserted_indices(Indices::U16(vec![0, 1, 2, 3]));
    let flat = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_POSITION,
        vec![[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
    );
    let error = |r: Result<Collider, ShapeError>| r.expect_err("refused").to_string();
    assert!(error(Collider::trimesh_from_mesh(&lines)).contains("triangle list"));
    assert!(error(Collider::trimesh_from_mesh(&empty)).contains("no vertex positions"));
    assert!(error(Collider::trimesh_from_mesh(&ragged)).contains("multiple of 3"));
    assert!(error(Collider::convex_hull_from_mesh(&flat)).contains("hull"));
    // Not indexed: every three vertices a triangle.
    let soup = Collider::trimesh_from_mesh(&flat).expect("one triangle");
    assert_eq!(soup.shape().kind_name(), "triangle mesh");

    // In an app: the error lands on the entity, no collider, no panic.
    let mut app = app();
    let handle = add(&mut app, lines);
    let e = app
        .world_mut()
        .spawn((
            Mesh3d(handle),
            ColliderConstructor::TrimeshFromMesh,
            Transform::default(),
        ))
        .id();
    for _ in 0..2000 {
        app.update();
        if app.world().get::<ColliderConstructorError>(e).is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let err = app
        .world()
        .get::<ColliderConstructorError>(e)
        .expect("error");
    assert!(err.0.to_string().contains("triangle list"));
    assert!(app.world().get::<Collider>(e).is_none());
}

/// An app with the asset server, so that modified mesh assets send
/// `AssetEvent`s (as `DefaultPlugins` do).
fn asset_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin::default(),
        bevy_transform::TransformPlugin,
        CollisionPlugin::default(),
    ))
    .init_asset::<Mesh>();
    app
}

/// The torus with every vertex lifted by a wave: `z += a sin(3 x + phase)`.
fn waved(phase: f32, a: f32) -> Vec<[f32; 3]> {
    let (pos, _) = torus(1.0, 0.25, 24, 12);
    pos.iter()
        .map(|p| [p.x, p.y, p.z + a * (3.0 * p.x + phase).sin()])
        .collect()
}

fn set_positions(app: &mut App, handle: &Handle<Mesh>, positions: Vec<[f32; 3]>) {
    let mut meshes = app.world_mut().resource_mut::<Assets<Mesh>>();
    let mut mesh = meshes.get_mut(handle).expect("mesh");
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, positions);
}

/// A triangle-mesh collider built from `handle` that follows it.
fn spawn_deformable(app: &mut App, handle: &Handle<Mesh>) -> Entity {
    app.world_mut()
        .spawn((
            Mesh3d(handle.clone()),
            ColliderConstructor::TrimeshFromMesh,
            DeformableMesh,
            Transform::default(),
        ))
        .id()
}

fn shape_of(app: &App, e: Entity) -> SharedShape {
    app.world()
        .get::<Collider>(e)
        .expect("collider")
        .shape()
        .clone()
}

#[test]
fn a_deformable_mesh_collider_follows_its_asset_exactly() {
    let mut app = asset_app();
    let handle = add(&mut app, torus_mesh());
    let torus_e = spawn_deformable(&mut app, &handle);
    // Small cubes around the tube, some of which the wave sweeps through.
    let mut rng = Rng::new(31);
    let cube = Collider::cuboid(0.16, 0.16, 0.16);
    let probes: Vec<(Entity, Vec3)> = (0..40)
        .map(|_| {
            let a = rng.range(0.0, std::f32::consts::TAU);
            let at = Vec3::new(a.cos(), a.sin(), 0.0) * rng.range(0.7, 1.3)
                + Vec3::Z * rng.range(-0.7, 0.7);
            let e = app
                .world_mut()
                .spawn((cube.clone(), Transform::from_translation(at)))
                .id();
            (e, at)
        })
        .collect();
    until_built(&mut app, &[torus_e]);
    let built = shape_of(&app, torus_e);
    let (_, triangles) = torus(1.0, 0.25, 24, 12);
    let mut changed_sets = 0;
    let mut previous = Vec::new();
    for frame in 0..8 {
        let positions = waved(0.7 * frame as f32, 0.45);
        set_positions(&mut app, &handle, positions.clone());
        app.update();
        // The reference: a mesh built afresh from the asset's positions,
        // against every probe.
        let fresh = SharedShape::trimesh(
            positions.iter().map(|p| Vec3::from_array(*p)).collect(),
            triangles.clone(),
        )
        .expect("mesh");
        let mut expected: Vec<Entity> = probes
            .iter()
            .filter(|(_, at)| {
                query::intersects(
                    &fresh,
                    &Pose::IDENTITY,
                    cube.shape(),
                    &Pose::from_translation(*at),
                )
                .expect("query")
            })
            .map(|(e, _)| *e)
            .collect();
        expected.sort();
        let mut got: Vec<Entity> = app
            .world()
            .get::<CollidingEntities>(torus_e)
            .expect("colliding entities")
            .iter()
            .collect();
        got.sort();
        assert_eq!(got, expected, "frame {frame}");
        changed_sets += usize::from(expected != previous);
        previous = expected;
        let vertices = &app
            .world()
            .get::<DeformedVertices>(torus_e)
            .expect("followed")
            .0;
        assert_eq!(vertices[5], Vec3::from_array(positions[5]));
    }
    assert!(
        changed_sets >= 4,
        "the wave changes what touches ({changed_sets} frames)"
    );
    assert!(shape_of(&app, torus_e).ptr_eq(&built), "refit, not rebuilt");
}

#[test]
fn a_deformable_mesh_whose_topology_changes_is_rebuilt() {
    let mut app = asset_app();
    let handle = add(&mut app, torus_mesh());
    let e = spawn_deformable(&mut app, &handle);
    until_built(&mut app, &[e]);
    let triangles = |app: &App| match shape_of(app, e).kind() {
        ShapeKind::TriMesh(m) => m.triangles().len(),
        _ => 0,
    };
    assert_eq!(triangles(&app), 24 * 12 * 2);
    let (_, tris) = torus(1.0, 0.25, 24, 12);
    let half: Vec<u32> = tris[..tris.len() / 2].iter().flatten().copied().collect();
    app.world_mut()
        .resource_mut::<Assets<Mesh>>()
        .get_mut(&handle)
        .expect("mesh")
        .insert_indices(Indices::U32(half));
    for _ in 0..2000 {
        app.update();
        if app.world().get::<Collider>(e).is_some() && triangles(&app) == 24 * 12 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("not rebuilt with the new triangles");
}

#[test]
fn a_modified_mesh_asset_is_evicted_from_the_shape_cache() {
    let mut app = asset_app();
    let handle = add(&mut app, torus_mesh());
    let spawn = |app: &mut App| {
        app.world_mut()
            .spawn((
                Mesh3d(handle.clone()),
                ColliderConstructor::TrimeshFromMesh,
                Transform::default(),
            ))
            .id()
    };
    let a = spawn(&mut app);
    until_built(&mut app, &[a]);
    let lifted = waved(0.0, 0.3);
    set_positions(&mut app, &handle, lifted.clone());
    app.update();
    let b = spawn(&mut app);
    until_built(&mut app, &[b]);
    let (old, new) = (shape_of(&app, a), shape_of(&app, b));
    assert!(!old.ptr_eq(&new), "built again from the modified mesh");
    let ShapeKind::TriMesh(m) = new.kind() else {
        panic!("a mesh");
    };
    assert_eq!(m.vertices()[7], Vec3::from_array(lifted[7]));
    let ShapeKind::TriMesh(m) = old.kind() else {
        panic!("a mesh");
    };
    assert_ne!(
        m.vertices()[7],
        Vec3::from_array(lifted[7]),
        "a keeps its shape"
    );
}
