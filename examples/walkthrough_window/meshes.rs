//! Render meshes for the colliders: a triangle soup with flat normals (every
//! triangle its own three vertices), from a collider's triangles or from a
//! compound piece's hull.

use bevy_full::asset::RenderAssetUsages;
use bevy_full::mesh::{Mesh, PrimitiveTopology};
use bevy_icollide::prelude::*;
use glam::Vec3;

/// A flat-shaded mesh of `triangles` over `vertices`.
pub fn flat_mesh(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Mesh {
    let positions: Vec<[f32; 3]> = triangles
        .iter()
        .flat_map(|t| t.map(|v| vertices[v as usize].to_array()))
        .collect();
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_computed_flat_normals()
}

/// The triangles of a shape (a mesh, or a convex hull's triangles); `None`
/// for compounds, spheres and capsules.
pub fn shape_mesh(shape: &SharedShape) -> Option<Mesh> {
    let surface = shape.surface()?;
    Some(flat_mesh(surface.mesh.vertices(), surface.mesh.triangles()))
}

/// One mesh per piece of a compound, with the piece's pose.
pub fn piece_meshes(shape: &SharedShape) -> Vec<(Mesh, Pose)> {
    let Some(compound) = shape.compound() else {
        return Vec::new();
    };
    compound
        .pieces()
        .iter()
        .filter_map(|p| Some((shape_mesh(&p.shape)?, p.pose)))
        .collect()
}
