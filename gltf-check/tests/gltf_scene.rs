//! A glTF scene loaded end to end (bevy_gltf, the asset server reading
//! `tests/assets/shelf.gltf`, the scene spawned by a `WorldAssetRoot`) with
//! a `ColliderConstructorHierarchy` on its root: every mesh node gets a
//! collider, the two nodes sharing a mesh share one shape, and the pairs
//! that touch are exactly those a pair-by-pair query finds on the nodes'
//! world poses (the file is written by `scripts/make_gltf.py`).

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer};
use bevy_ecs::prelude::*;
use bevy_gltf::{GltfAssetLabel, GltfPlugin};
use bevy_icollide::math::Pose;
use bevy_icollide::prelude::*;
use bevy_icollide::query;
use bevy_mesh::{Mesh, Mesh3d};
use bevy_transform::prelude::*;
use bevy_world_serialization::{WorldAssetRoot, WorldSerializationPlugin};

#[derive(Resource, Default)]
struct Starts(Vec<(Entity, Entity)>);

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/tests/assets").into(),
            ..Default::default()
        },
        bevy_transform::TransformPlugin,
        WorldSerializationPlugin,
        GltfPlugin::default(),
        CollisionPlugin::default().with_messages_for_all_pairs(),
    ))
    .init_asset::<Mesh>()
    .init_resource::<Starts>()
    .add_systems(
        bevy_app::Last,
        |mut m: MessageReader<CollisionStart>, mut s: ResMut<Starts>| {
            s.0.extend(m.read().map(|e| (e.collider1, e.collider2)));
        },
    );
    app.finish();
    app.cleanup();
    app
}

/// The entities with a mesh and their node names (a primitive's entity is
/// a child of its node).
fn mesh_entities(app: &mut App) -> Vec<(Entity, String)> {
    let mut q = app
        .world_mut()
        .query_filtered::<(Entity, &ChildOf), With<Mesh3d>>();
    let found: Vec<(Entity, Entity)> = q.iter(app.world()).map(|(e, c)| (e, c.parent())).collect();
    let mut out: Vec<(Entity, String)> = found
        .into_iter()
        .map(|(e, node)| {
            let name = app
                .world()
                .get::<bevy_ecs::name::Name>(node)
                .map_or_else(String::new, |n| n.as_str().to_owned());
            (e, name)
        })
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

#[test]
fn a_gltf_scene_gets_colliders_from_its_hierarchy_constructor() {
    let mut app = app();
    let scene = app
        .world()
        .resource::<AssetServer>()
        .load(GltfAssetLabel::Scene(0).from_asset("shelf.gltf"));
    app.world_mut().spawn((
        WorldAssetRoot(scene),
        ColliderConstructorHierarchy(ColliderConstructor::ConvexHullFromMesh),
        Transform::default(),
    ));
    let mut meshes = Vec::new();
    for _ in 0..5000 {
        app.update();
        meshes = mesh_entities(&mut app);
        let built = meshes
            .iter()
            .filter(|(e, _)| app.world().get::<Collider>(*e).is_some())
            .count();
        if meshes.len() == 4 && built == 4 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    app.update();
    let names: Vec<&str> = meshes.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["board", "book_a", "book_b", "lamp"], "mesh nodes");
    let collider = |e: Entity| app.world().get::<Collider>(e).expect("a collider");
    for (e, name) in &meshes {
        assert_eq!(collider(*e).shape().kind_name(), "convex", "{name}");
    }
    let (board, book_a, book_b, lamp) = (meshes[0].0, meshes[1].0, meshes[2].0, meshes[3].0);
    assert!(
        collider(book_a).shape().ptr_eq(collider(book_b).shape())
            && collider(book_a).shape().ptr_eq(collider(lamp).shape()),
        "one shape per mesh asset"
    );
    assert!(!collider(board).shape().ptr_eq(collider(book_a).shape()));
    // The reference: every pair, queried on the nodes' world poses.
    let pose = |e: Entity| {
        let g = app.world().get::<GlobalTransform>(e).expect("placed");
        let (_, r, t) = g.to_scale_rotation_translation();
        Pose::new(r, t)
    };
    let mut expected = Vec::new();
    for i in 0..meshes.len() {
        for j in i + 1..meshes.len() {
            let (a, b) = (meshes[i].0, meshes[j].0);
            let hit =
                query::intersects(collider(a).shape(), &pose(a), collider(b).shape(), &pose(b))
                    .expect("query");
            if hit {
                expected.push((a.min(b), a.max(b)));
            }
        }
    }
    expected.sort();
    let mut got = app.world().resource::<Starts>().0.clone();
    got.sort();
    got.dedup();
    assert_eq!(got, expected);
    assert_eq!(
        expected,
        vec![(board.min(book_a), board.max(book_a))],
        "the scene as drawn"
    );
}
