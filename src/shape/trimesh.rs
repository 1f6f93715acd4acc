//! Triangle meshes: polygon soups, validated (no NaN, indices in range).

use glam::Vec3;

/// Why a triangle mesh is invalid.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshError {
    /// The mesh has no vertices.
    NoVertices,
    /// The mesh has no triangles.
    NoTriangles,
    /// Vertex `index` has a NaN or infinite coordinate.
    NonFinite {
        /// The vertex.
        index: usize,
    },
    /// New vertex positions for a mesh of another size.
    VertexCount {
        /// The mesh's vertex count.
        expected: usize,
        /// The count given.
        got: usize,
    },
    /// Triangle `triangle` refers to vertex `index`, which does not exist.
    IndexOutOfRange {
        /// The triangle.
        triangle: usize,
        /// The missing vertex index.
        index: u32,
    },
}

impl std::fmt::Display for MeshError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeshError::NoVertices => f.write_str("the mesh has no vertices"),
            MeshError::NoTriangles => f.write_str("the mesh has no triangles"),
            MeshError::NonFinite { index } => {
                write!(f, "vertex {index} has a NaN or infinite coordinate")
            }
            MeshError::VertexCount { expected, got } => {
                write!(
                    f,
                    "{got} vertex positions for a mesh of {expected} vertices"
                )
            }
            MeshError::IndexOutOfRange { triangle, index } => {
                write!(
                    f,
                    "triangle {triangle} refers to vertex {index}, which does not exist"
                )
            }
        }
    }
}

impl std::error::Error for MeshError {}

/// A polygon soup: vertex positions and triangles as index triples.
///
/// No topology is required: cracks, T-joints, open surfaces, duplicate and
/// degenerate (repeated-vertex or collinear) triangles are all valid.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// Validates and builds a mesh.
    pub fn new(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        if vertices.is_empty() {
            return Err(MeshError::NoVertices);
        }
        if triangles.is_empty() {
            return Err(MeshError::NoTriangles);
        }
        if let Some(index) = vertices.iter().position(|v| !v.is_finite()) {
            return Err(MeshError::NonFinite { index });
        }
        let n = vertices.len() as u32;
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i >= n) {
                return Err(MeshError::IndexOutOfRange { triangle: t, index });
            }
        }
        Ok(Self {
            vertices,
            triangles,
        })
    }

    /// Moves the vertices (a deforming model): the same number, finite;
    /// the triangles stay. On an error nothing changes.
    pub fn set_vertices(&mut self, vertices: &[Vec3]) -> Result<(), MeshError> {
        if vertices.len() != self.vertices.len() {
            return Err(MeshError::VertexCount {
                expected: self.vertices.len(),
                got: vertices.len(),
            });
        }
        if let Some(index) = vertices.iter().position(|v| !v.is_finite()) {
            return Err(MeshError::NonFinite { index });
        }
        self.vertices.copy_from_slice(vertices);
        Ok(())
    }

    /// Vertex positions.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Triangles as vertex index triples.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The corners of triangle `t`.
    pub fn triangle(&self, t: usize) -> [Vec3; 3] {
        self.triangles[t].map(|i| self.vertices[i as usize])
    }

    /// The vertices that some triangle uses, each once, in index order.
    pub fn used_vertices(&self) -> Vec<Vec3> {
        let mut used = vec![false; self.vertices.len()];
        for tri in &self.triangles {
            for &i in tri {
                used[i as usize] = true;
            }
        }
        self.vertices
            .iter()
            .zip(used)
            .filter_map(|(v, u)| u.then_some(*v))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_meshes_are_errors() {
        assert_eq!(
            TriMesh::new(vec![], vec![[0, 0, 0]]),
            Err(MeshError::NoVertices)
        );
        assert_eq!(
            TriMesh::new(vec![Vec3::ZERO], vec![]),
            Err(MeshError::NoTriangles)
        );
        assert_eq!(
            TriMesh::new(vec![Vec3::ZERO, Vec3::NAN], vec![[0, 1, 0]]),
            Err(MeshError::NonFinite { index: 1 })
        );
        assert_eq!(
            TriMesh::new(vec![Vec3::ZERO], vec![[0, 0, 0], [0, 3, 0]]),
            Err(MeshError::IndexOutOfRange {
                triangle: 1,
                index: 3
            })
        );
        // Degenerate triangles are valid.
        assert!(TriMesh::new(vec![Vec3::ZERO, Vec3::X], vec![[0, 0, 1], [1, 1, 1]]).is_ok());
    }
}
