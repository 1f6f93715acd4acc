//! Mesh assets that change after their colliders were built.
//!
//! - A collider marked [`DeformableMesh`] follows its [`Mesh3d`] asset: when
//!   the asset is modified (`Assets<Mesh>::get_mut`, an animation writing
//!   positions), the new positions become the collider's
//!   [`DeformedVertices`] and the collision world refits the collider's own
//!   AABB tree to them in the same frame's `UpdateBounds` stage (SOLID's
//!   bottom-up refit, `O(n)`; see [`crate::pipeline`]'s deformable meshes).
//!   If the asset's topology changed (another vertex count or other
//!   triangles), no refit can follow it: the collider is rebuilt from the
//!   new mesh by a [`ColliderConstructor`], and its pairs end and start
//!   again when the new shape is there.
//! - A modified, removed or unused mesh asset is evicted from the shape
//!   cache, so constructors started later build from the current mesh
//!   (colliders already built keep their shape, as in avian).
//!
//! Reads `AssetEvent<Mesh>` messages (registered by `AssetPlugin` and
//! `init_asset::<Mesh>()`, which `DefaultPlugins` do); without them nothing
//! is followed or evicted.

use bevy_asset::{AssetEvent, AssetId, Assets};
use bevy_ecs::prelude::*;
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::ReflectComponent;
use bevy_mesh::{Mesh, Mesh3d};
#[cfg(feature = "reflect")]
use bevy_reflect::std_traits::ReflectDefault;
use glam::Vec3;

use super::{ColliderConstructor, MeshColliders, indices, positions};
use crate::collider::{ShapeError, ShapeKind};
use crate::plugin::resources::WarnOnce;
use crate::plugin::{Collider, DeformedVertices};
use crate::shape::TriMesh;

/// A triangle-mesh collider that deforms with its [`Mesh3d`] asset: each
/// modification of the asset is refit into the collider (see the module
/// docs). Put it next to `ColliderConstructor::TrimeshFromMesh` (or a
/// `Collider` built from the same mesh). On a collider that is not a
/// triangle mesh it does nothing but warn once.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "reflect",
    derive(bevy_reflect::Reflect),
    reflect(Component, Default, Debug, PartialEq)
)]
pub struct DeformableMesh;

/// The assets modified this frame, and the entities warned about.
#[derive(Default)]
pub(crate) struct FollowScratch {
    modified: Vec<AssetId<Mesh>>,
    warned: WarnOnce,
}

/// What a modified mesh asset means for a collider built from it.
enum Follow {
    /// Same topology: the new positions are in the buffer.
    Refit,
    /// Other vertices or triangles: rebuild.
    Rebuild,
}

/// Followers and whether each is new this frame (a collider just built,
/// possibly from an older version of the asset).
type Followers<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Mesh3d,
        Ref<'static, Collider>,
        Ref<'static, DeformableMesh>,
        Option<&'static mut DeformedVertices>,
    ),
    With<DeformableMesh>,
>;

/// Evicts changed assets from the shape cache and refits (or rebuilds)
/// the [`DeformableMesh`] colliders whose asset was modified.
pub(crate) fn follow_mesh_assets(
    mut commands: Commands,
    events: Option<MessageReader<AssetEvent<Mesh>>>,
    meshes: Option<Res<Assets<Mesh>>>,
    mut cache: ResMut<MeshColliders>,
    mut scratch: Local<FollowScratch>,
    mut followers: Followers,
) {
    let Some(meshes) = meshes else {
        return;
    };
    scratch.modified.clear();
    if let Some(mut events) = events {
        for event in events.read() {
            match *event {
                AssetEvent::Modified { id } => {
                    cache.evict(id, false);
                    scratch.modified.push(id);
                }
                AssetEvent::Removed { id } | AssetEvent::Unused { id } => cache.evict(id, true),
                _ => {}
            }
        }
    }
    for (entity, mesh3d, collider, marker, vertices) in &mut followers {
        let id = mesh3d.id();
        let fresh = collider.is_added() || marker.is_added();
        if !fresh && !scratch.modified.contains(&id) {
            continue;
        }
        let Some(mesh) = meshes.get(id) else {
            continue;
        };
        let ShapeKind::TriMesh(built) = collider.shape().kind() else {
            scratch.warned.warn(entity, || {
                format!(
                    "DeformableMesh on {entity} not followed: its collider is a {}, not a \
                     triangle mesh",
                    collider.shape().kind_name()
                )
            });
            continue;
        };
        // Written in place (its allocation reused), marked changed only
        // when the positions were copied.
        let result = match vertices {
            Some(mut v) => {
                let result = follow(mesh, built, &mut v.bypass_change_detection().0);
                if let Ok(Follow::Refit) = result {
                    v.set_changed();
                }
                result
            }
            None => {
                let mut buffer = Vec::new();
                let result = follow(mesh, built, &mut buffer);
                if let Ok(Follow::Refit) = result {
                    commands.entity(entity).try_insert(DeformedVertices(buffer));
                }
                result
            }
        };
        match result {
            Ok(Follow::Refit) => scratch.warned.clear(entity),
            Ok(Follow::Rebuild) => {
                commands
                    .entity(entity)
                    .try_remove::<(Collider, DeformedVertices)>()
                    .try_insert(ColliderConstructor::TrimeshFromMesh);
            }
            Err(e) => {
                scratch.warned.warn(entity, || {
                    format!("DeformableMesh on {entity} not followed: {e}")
                });
            }
        }
    }
}

/// Compares the asset's topology with the collider's mesh and, when they
/// agree, copies the positions into `out` (its allocation reused).
fn follow(mesh: &Mesh, built: &TriMesh, out: &mut Vec<Vec3>) -> Result<Follow, ShapeError> {
    let positions = positions(mesh)?;
    let indices = indices(mesh, positions.len())?;
    let same = positions.len() == built.vertices().len()
        && indices.len() == 3 * built.triangles().len()
        && indices
            .iter()
            .eq(built.triangles().iter().flatten().copied());
    if !same {
        return Ok(Follow::Rebuild);
    }
    out.clear();
    out.extend(positions.iter().map(|p| Vec3::from_array(*p)));
    Ok(Follow::Refit)
}
