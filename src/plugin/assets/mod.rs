//! Colliders from Bevy mesh assets (feature `bevy_asset`), as avian's
//! `ColliderConstructor` and bevy_rapier's `AsyncCollider`.
//!
//! - [`Collider::trimesh_from_mesh`] / [`Collider::convex_hull_from_mesh`]
//!   build a collider from a loaded [`Mesh`] (triangle lists; indexed or
//!   not), with an error naming what is wrong otherwise.
//! - [`ColliderConstructor`] on an entity with a [`Mesh3d`] builds its
//!   collider once the mesh asset has loaded. The build runs on Bevy's
//!   async compute pool, so a big tree never stalls a frame: the
//!   `Collider` appears when it is ready. One shape is built per mesh asset
//!   and constructor, and shared by every entity using them.
//! - [`ColliderConstructorHierarchy`] on a root (a glTF scene) puts the
//!   constructor on every descendant with a `Mesh3d` as the descendants
//!   appear; a descendant with its own `ColliderConstructor` (or a
//!   `Collider`) keeps it: that is the per-node override.
//!
//! A failed build (a mesh without positions, not a triangle list, its data
//! moved to the render world, or refused by the shape builders) is logged
//! once and leaves a [`ColliderConstructorError`] on the entity instead of
//! a collider.
//!
//! - [`DeformableMesh`] makes a triangle-mesh collider follow its mesh
//!   asset as it deforms (refit, or a rebuild when the topology changed),
//!   and a modified or removed asset is evicted from the shape cache
//!   ([`follow`]).
//!
//! An entity's collider does not follow a *different* `Mesh3d` handle put
//! on it later (the constructor is removed once the collider is there);
//! put a new `ColliderConstructor` on it for that.

use std::collections::HashMap;

use bevy_asset::{AssetId, Assets};
use bevy_ecs::prelude::*;
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::ReflectComponent;
use bevy_mesh::{Indices, Mesh, Mesh3d, PrimitiveTopology, VertexAttributeValues};
use bevy_tasks::{AsyncComputeTaskPool, Task, TaskPool, futures::check_ready};
use glam::Vec3;

mod follow;

pub use follow::DeformableMesh;
pub(crate) use follow::follow_mesh_assets;

use super::Collider;
use crate::collider::{ShapeError, SharedShape};

/// How to build a collider from the entity's [`Mesh3d`] once it has loaded
/// (avian's `ColliderConstructor`, bevy_rapier's `AsyncCollider`). The
/// build runs on Bevy's async compute pool, so a big tree never stalls a
/// frame: the `Collider` appears when it is ready, and this component is
/// removed. One shape is built per mesh asset and constructor, shared by
/// every entity using them. A failed build leaves a
/// [`ColliderConstructorError`] instead (and a warning in the log).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(Component, Debug, PartialEq, Hash)
)]
pub enum ColliderConstructor {
    /// The mesh's triangles under an OBB tree: exact surface contacts with
    /// triangle ids (see [`SharedShape::trimesh`]).
    TrimeshFromMesh,
    /// The convex hull of the mesh's vertices (see
    /// [`SharedShape::convex_hull`]).
    ConvexHullFromMesh,
}

/// Puts `ColliderConstructor` (this one) on every descendant with a
/// [`Mesh3d`] that has neither a constructor nor a collider yet, such as
/// the nodes of a glTF scene as it spawns. A descendant with its own
/// `ColliderConstructor` (or `Collider`) keeps it: that is the per-node
/// override.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(Component, Debug, PartialEq)
)]
pub struct ColliderConstructorHierarchy(pub ColliderConstructor);

/// Why a [`ColliderConstructor`] produced no collider.
#[derive(Component, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(opaque, Component, Debug, PartialEq)
)]
pub struct ColliderConstructorError(pub ShapeError);

impl Collider {
    /// A triangle-mesh collider from a Bevy mesh (a triangle list, indexed
    /// or not). Errors name the fault: another topology, no positions,
    /// positions not `Float32x3`, data moved to the render world, or what
    /// [`SharedShape::trimesh`] refuses.
    pub fn trimesh_from_mesh(mesh: &Mesh) -> Result<Self, ShapeError> {
        let (vertices, triangles) = mesh_data(mesh)?;
        SharedShape::trimesh(vertices, triangles).map(Self::new)
    }

    /// The convex hull of a Bevy mesh's vertices. Errors as
    /// [`trimesh_from_mesh`](Self::trimesh_from_mesh) and
    /// [`SharedShape::convex_hull`].
    pub fn convex_hull_from_mesh(mesh: &Mesh) -> Result<Self, ShapeError> {
        let (vertices, _) = mesh_data(mesh)?;
        SharedShape::convex_hull(&vertices).map(Self::new)
    }
}

/// The positions and triangles of a triangle-list mesh.
fn mesh_data(mesh: &Mesh) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), ShapeError> {
    let positions = positions(mesh)?;
    let indices: Vec<u32> = indices(mesh, positions.len())?.iter().collect();
    let triangles = indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    Ok((
        positions.iter().map(|v| Vec3::from_array(*v)).collect(),
        triangles,
    ))
}

const MOVED: &str =
    "the mesh's data was moved to the render world (keep RenderAssetUsages::MAIN_WORLD)";

/// The vertex positions of a mesh, or what is wrong with them.
fn positions(mesh: &Mesh) -> Result<&[[f32; 3]], ShapeError> {
    let bad = ShapeError::InvalidParameter;
    match mesh.try_attribute_option(Mesh::ATTRIBUTE_POSITION) {
        Err(_) => Err(bad(MOVED)),
        Ok(None) => Err(bad("the mesh has no vertex positions")),
        Ok(Some(VertexAttributeValues::Float32x3(p))) => Ok(p),
        Ok(Some(_)) => Err(bad("the mesh's positions are not Float32x3")),
    }
}

/// A triangle list's vertex indices, as stored (no copy).
enum IndexView<'a> {
    U16(&'a [u16]),
    U32(&'a [u32]),
    /// Not indexed: vertex `i` is index `i`.
    Identity(u32),
}

impl IndexView<'_> {
    fn len(&self) -> usize {
        match self {
            IndexView::U16(i) => i.len(),
            IndexView::U32(i) => i.len(),
            IndexView::Identity(n) => *n as usize,
        }
    }

    /// Index `k` (`k < len()`).
    fn at(&self, k: usize) -> u32 {
        match self {
            IndexView::U16(i) => u32::from(i[k]),
            IndexView::U32(i) => i[k],
            IndexView::Identity(_) => k as u32,
        }
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(|k| self.at(k))
    }
}

/// The indices of a triangle-list mesh with `vertices` positions, or what
/// is wrong with them.
fn indices(mesh: &Mesh, vertices: usize) -> Result<IndexView<'_>, ShapeError> {
    let bad = ShapeError::InvalidParameter;
    if mesh.primitive_topology() != PrimitiveTopology::TriangleList {
        return Err(bad("the mesh is not a triangle list"));
    }
    let view = match mesh.try_indices_option() {
        Err(_) => return Err(bad(MOVED)),
        Ok(None) => IndexView::Identity(vertices as u32),
        Ok(Some(Indices::U16(i))) => IndexView::U16(i),
        Ok(Some(Indices::U32(i))) => IndexView::U32(i),
    };
    if !view.len().is_multiple_of(3) {
        return Err(bad("the mesh's index count is not a multiple of 3"));
    }
    Ok(view)
}

type Key = (AssetId<Mesh>, ColliderConstructor);

/// Per mesh asset, per constructor: evicting an asset is one removal.
type PerAsset<T> = HashMap<AssetId<Mesh>, HashMap<ColliderConstructor, T>>;

/// Shapes built from mesh assets, and the builds under way, shared by
/// every entity using the same mesh and constructor.
#[derive(Resource, Default)]
pub(crate) struct MeshColliders {
    built: PerAsset<Result<SharedShape, ShapeError>>,
    building: PerAsset<Task<Result<SharedShape, ShapeError>>>,
}

impl MeshColliders {
    /// Forgets the shapes built from `asset`, and with `builds` the builds
    /// under way too. (A build under way for a modified asset is kept: a
    /// mesh modified every frame would otherwise never finish building; a
    /// deformable collider catches up with the current positions when it
    /// appears.)
    pub(crate) fn evict(&mut self, asset: AssetId<Mesh>, builds: bool) {
        self.built.remove(&asset);
        if builds {
            self.building.remove(&asset);
        }
    }

    /// The shape built for `key`, if any.
    fn get(&self, key: Key) -> Option<&Result<SharedShape, ShapeError>> {
        self.built.get(&key.0)?.get(&key.1)
    }

    fn is_building(&self, key: Key) -> bool {
        self.building
            .get(&key.0)
            .is_some_and(|tasks| tasks.contains_key(&key.1))
    }

    /// Moves finished builds to `built`.
    fn poll(&mut self) {
        let built = &mut self.built;
        self.building.retain(|&asset, tasks| {
            tasks.retain(|&constructor, task| match check_ready(task) {
                Some(result) => {
                    built.entry(asset).or_default().insert(constructor, result);
                    false
                }
                None => true,
            });
            !tasks.is_empty()
        });
    }

    /// Starts building `key`'s shape from `mesh` off the main thread.
    fn start(&mut self, key: Key, mesh: &Mesh) {
        let data = mesh_data(mesh);
        let pool = AsyncComputeTaskPool::get_or_init(TaskPool::default);
        let task = pool.spawn(async move {
            let (vertices, triangles) = data?;
            match key.1 {
                ColliderConstructor::TrimeshFromMesh => SharedShape::trimesh(vertices, triangles),
                ColliderConstructor::ConvexHullFromMesh => SharedShape::convex_hull(&vertices),
            }
        });
        self.building.entry(key.0).or_default().insert(key.1, task);
    }
}

/// Gives each entity waiting with a [`ColliderConstructor`] its collider
/// once its mesh is loaded and the shape built (see the module docs).
pub(crate) fn construct_colliders(
    mut commands: Commands,
    meshes: Option<Res<Assets<Mesh>>>,
    mut cache: ResMut<MeshColliders>,
    waiting: Query<(Entity, &ColliderConstructor, &Mesh3d), Without<Collider>>,
) {
    let Some(meshes) = meshes else {
        return;
    };
    cache.poll();
    for (entity, constructor, mesh) in &waiting {
        let key = (mesh.0.id(), *constructor);
        match cache.get(key) {
            Some(Ok(shape)) => {
                // `try_`: another system may despawn it before these apply.
                commands
                    .entity(entity)
                    .try_insert(Collider::new(shape.clone()))
                    .try_remove::<ColliderConstructor>();
            }
            Some(Err(e)) => {
                log::warn!("no collider for {entity}: {e}");
                commands
                    .entity(entity)
                    .try_insert(ColliderConstructorError(e.clone()))
                    .try_remove::<ColliderConstructor>();
            }
            None if cache.is_building(key) => {}
            None => {
                if let Some(m) = meshes.get(key.0) {
                    cache.start(key, m);
                }
            }
        }
    }
}

/// A node with a mesh and no constructor, collider or error of its own.
type Unbuilt = (
    With<Mesh3d>,
    Without<ColliderConstructor>,
    Without<Collider>,
    Without<ColliderConstructorError>,
);

/// What can give a hierarchy a node to build: a new or changed hierarchy
/// constructor, a new child anywhere, a new mesh anywhere.
type HierarchyChanges<'w, 's> = (
    Query<'w, 's, (), Changed<ColliderConstructorHierarchy>>,
    Query<'w, 's, (), Changed<Children>>,
    Query<'w, 's, (), Added<Mesh3d>>,
);

/// Puts the hierarchy's constructor on descendants with a mesh and no
/// constructor or collider of their own. Walks the hierarchies only in
/// frames where one of them may have gained such a node, so a loaded
/// scene costs nothing per frame.
pub(crate) fn apply_hierarchies(
    mut commands: Commands,
    roots: Query<(Entity, &ColliderConstructorHierarchy)>,
    children: Query<&Children>,
    nodes: Query<(), Unbuilt>,
    (hierarchies, parents, meshes): HierarchyChanges,
) {
    if hierarchies.is_empty() && parents.is_empty() && meshes.is_empty() {
        return;
    }
    for (root, hierarchy) in &roots {
        for node in children.iter_descendants(root) {
            if nodes.contains(node) {
                commands.entity(node).try_insert(hierarchy.0);
            }
        }
    }
}
