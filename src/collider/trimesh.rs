//! The triangle mesh kind: its builders (a soup, with the tree of your
//! choice; an OBJ file) and what it knows ([`KindData`]): it is its own
//! surface (its triangles under its tree), which answers its rays.

use std::sync::Arc;

use glam::Vec3;

use super::kind::{KindData, RayFeature};
use super::{ShapeData, ShapeError, ShapeKind, SharedShape, bounds_of, limits};
use crate::bvh::TreeKind;
#[cfg(feature = "obj")]
use crate::io::load_obj;
use crate::shape::TriMesh;

impl KindData for TriMesh {
    fn name(&self) -> &'static str {
        "triangle mesh"
    }
    fn ray_feature(&self, _feature: u32) -> RayFeature {
        RayFeature::Triangle
    }
    fn own_mesh(&self) -> Option<&TriMesh> {
        Some(self)
    }
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        SharedShape::trimesh(
            self.vertices().iter().map(|v| *v * factor).collect(),
            self.triangles().to_vec(),
        )
    }
}

impl SharedShape {
    /// A triangle soup. Cracks, duplicate and degenerate triangles are valid.
    ///
    /// Errors: no vertices or no triangles, a NaN or infinite vertex, an index
    /// out of range.
    pub fn trimesh(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self, ShapeError> {
        Self::trimesh_with_tree(vertices, triangles, TreeKind::Obb)
    }

    /// [`trimesh`](Self::trimesh) with the tree of your choice: OBB (the
    /// default: tightest, for rigid models) or AABB (cheaper to build and
    /// refit; what a deformable body's tree is, see
    /// [`CollisionWorld::set_vertices`](crate::pipeline::CollisionWorld::set_vertices)).
    pub fn trimesh_with_tree(
        vertices: Vec<Vec3>,
        triangles: Vec<[u32; 3]>,
        tree: TreeKind,
    ) -> Result<Self, ShapeError> {
        let mesh = TriMesh::new(vertices, triangles)?;
        limits::check_points(mesh.vertices())?;
        let bounds = bounds_of(mesh.used_vertices())?;
        Ok(Self(Arc::new(ShapeData::with_tree(
            ShapeKind::TriMesh(mesh),
            bounds,
            tree,
        ))))
    }

    /// A triangle soup from a Wavefront OBJ file (feature `obj`) (polygons fan-triangulated).
    /// Lines the reader skipped (such as the vertex/face count line of the
    /// FCL models) are logged as warnings.
    #[cfg(feature = "obj")]
    pub fn trimesh_from_obj(path: impl AsRef<std::path::Path>) -> Result<Self, ShapeError> {
        let mesh = load_obj(path)?;
        for w in &mesh.warnings {
            log::warn!("bevy_icollide: {w}");
        }
        Self::trimesh(mesh.positions, mesh.triangles)
    }

    /// The convex hull of the vertices of a Wavefront OBJ file (feature
    /// `obj`).
    #[cfg(feature = "obj")]
    pub fn convex_hull_from_obj(path: impl AsRef<std::path::Path>) -> Result<Self, ShapeError> {
        let mesh = load_obj(path)?;
        Self::convex_hull(&mesh.positions)
    }
}
