//! Deformable triangle-mesh bodies (van den Bergen 1997): the body owns its
//! current mesh and an AABB tree over it, refit when the vertices move.
//!
//! A body becomes deformable at its first
//! [`set_vertices`](CollisionWorld::set_vertices): its shape (a triangle
//! mesh) gives the triangles, the call the positions; the body's own copy
//! and an AABB tree are built once ([`DeformingTree`], which keeps its
//! leaves' triangles in the order the refit reads them). Each later call
//! copies the positions and refits the tree (leaves from the moved
//! vertices, then every inner box from its children, one reverse pass, no
//! allocation): `O(n)`, the order of the copy itself. The broad-phase box
//! (the root box, moved by the pose) follows at the next bounds update, and
//! every pair, query and ray with the body uses the deformed surface.
//!
//! **Refit or rebuild.** A refit keeps the rest pose's topology: under
//! strong deformation (a cloth crumpled into a ball, a mesh folded through
//! itself) siblings overlap more and more and queries slow down, though
//! they stay exact. [`rebuild_tree`](CollisionWorld::rebuild_tree) builds
//! the tree afresh for the current vertices, one call (about ten times the
//! cost of a refit).

use glam::Vec3;

use super::{BodyHandle, CollisionWorld, WorldError};
use crate::broad_phase::BroadPhase;
use crate::bvh::{AabbTree, AabbTreeOptions, DeformingTree, Surface, TreeRef};
use crate::collider::ShapeKind;
use crate::collider::limits::coordinate_bound;
use crate::math::Aabb;
use crate::shape::{MeshError, TriMesh};

/// A deformable body's current mesh and its AABB tree.
#[derive(Debug)]
pub(super) struct Deformable {
    mesh: TriMesh,
    tree: DeformingTree,
}

impl Deformable {
    /// The surface the pair tests use.
    pub fn surface(&self) -> Surface<'_> {
        Surface::new(&self.mesh, TreeRef::Aabb(self.tree.tree()))
    }

    /// The box of the current vertices, in the body's frame.
    pub fn local_box(&self) -> Aabb {
        self.tree
            .tree()
            .nodes
            .first()
            .map_or(Aabb::EMPTY, |n| n.aabb)
    }
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// Sets the current vertex positions (body frame) of a triangle-mesh
    /// body, which makes it deformable (see the
    /// [pipeline docs](super#deformable-meshes)): the
    /// tree is refit now, the broad-phase box follows at the next bounds
    /// update. Returns the number of tree boxes updated (`N_u`).
    ///
    /// Errors (nothing changes then): a stale handle; a body that is not a
    /// triangle mesh; a count other than the mesh's vertex count; a NaN or
    /// infinite position; a position that the body's scale takes beyond
    /// [`MAX_COORDINATE`](crate::collider::limits::MAX_COORDINATE) (the
    /// limit every mesh builder applies), all checked in one pass.
    pub fn set_vertices(&mut self, h: BodyHandle, vertices: &[Vec3]) -> Result<u32, WorldError> {
        let body = self.body_mut(h)?;
        let bound = coordinate_bound(body.scale);
        let updated = match &mut body.deform {
            Some(d) => {
                d.mesh
                    .set_vertices_within(vertices, bound)
                    .map_err(mesh_error)?;
                d.tree.refit(d.mesh.vertices()).map_err(mesh_error)?
            }
            None => {
                let ShapeKind::TriMesh(rest) = body.shape.kind() else {
                    return Err(WorldError::NotDeformable(body.shape.kind_name()));
                };
                let mut mesh = rest.clone();
                mesh.set_vertices_within(vertices, bound)
                    .map_err(mesh_error)?;
                let tree = DeformingTree::build(&mesh, &AabbTreeOptions::default());
                let n = tree.tree().nodes.len() as u32;
                body.deform = Some(Box::new(Deformable { mesh, tree }));
                n
            }
        };
        body.geometry_changed();
        self.refits_pending += u64::from(updated);
        self.mark_dirty(h.index());
        Ok(updated)
    }

    /// Builds a deformable body's tree afresh for its current vertices
    /// (when refits have let its boxes grow loose). Errors: a stale handle,
    /// a body that is not deformable.
    pub fn rebuild_tree(&mut self, h: BodyHandle) -> Result<(), WorldError> {
        let body = self.body_mut(h)?;
        let kind = body.shape.kind_name();
        let d = body
            .deform
            .as_mut()
            .ok_or(WorldError::NotDeformable(kind))?;
        d.tree.rebuild(&d.mesh);
        Ok(())
    }

    /// A deformable body's current mesh (`None` for other bodies).
    pub fn deformed_mesh(&self, h: BodyHandle) -> Option<&TriMesh> {
        self.body(h).ok()?.deform.as_ref().map(|d| &d.mesh)
    }

    /// A deformable body's tree (`None` for other bodies).
    pub fn deformed_tree(&self, h: BodyHandle) -> Option<&AabbTree> {
        self.body(h).ok()?.deform.as_ref().map(|d| d.tree.tree())
    }
}

fn mesh_error(e: MeshError) -> WorldError {
    match e {
        MeshError::VertexCount { expected, got } => WorldError::VertexCount { expected, got },
        MeshError::NonFinite { index } => WorldError::NonFiniteVertex { index },
        MeshError::BeyondBound { index } => WorldError::VertexBeyondLimit { index },
        // The other mesh errors cannot come from new positions.
        _ => WorldError::NonFiniteVertex { index: 0 },
    }
}
