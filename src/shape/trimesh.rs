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
    /// Vertex `index` has a coordinate beyond the bound it was checked
    /// against ([`TriMesh::set_vertices_within`]).
    BeyondBound {
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
            MeshError::BeyondBound { index } => {
                write!(f, "vertex {index} has a coordinate beyond the bound")
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

/// The index of the first vertex with a coordinate beyond `bound` on its
/// axis (`|x| > bound.x`, …), NaN or infinite coordinates included; `bound`
/// is clamped to `[0, f32::MAX]` (so `Vec3::splat(f32::MAX)` finds the
/// non-finite ones only).
///
/// A deforming mesh checks every frame's positions, so this runs at memory
/// speed: for non-negative floats the order of their bit patterns is their
/// order (NaN's patterns sort above infinity's), so each coordinate is one
/// integer compare of its magnitude bits with the bound's; the compares are
/// OR-ed over blocks of vertices with no branch (the compiler vectorizes the
/// block), and only a block that has one is searched.
/// (`iter().position(|v| !v.is_finite())` took 20 µs for the 16 641
/// vertices of the cloth bench; the copy that follows, 5 µs.)
pub(crate) fn first_beyond(vertices: &[Vec3], bound: Vec3) -> Option<usize> {
    const MAGNITUDE: u32 = 0x7fff_ffff;
    const BLOCK: usize = 64;
    let lim = bound
        .clamp(Vec3::ZERO, Vec3::splat(f32::MAX))
        .to_array()
        .map(f32::to_bits);
    let beyond = |v: &Vec3| {
        u32::from(v.x.to_bits() & MAGNITUDE > lim[0])
            | u32::from(v.y.to_bits() & MAGNITUDE > lim[1])
            | u32::from(v.z.to_bits() & MAGNITUDE > lim[2])
    };
    vertices.chunks(BLOCK).enumerate().find_map(|(b, block)| {
        if block.iter().fold(0, |acc, v| acc | beyond(v)) == 0 {
            return None;
        }
        let at = block.iter().position(|v| beyond(v) != 0)?;
        Some(b * BLOCK + at)
    })
}

/// The first NaN or infinite vertex.
fn first_non_finite(vertices: &[Vec3]) -> Option<usize> {
    first_beyond(vertices, Vec3::splat(f32::MAX))
}

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
        if let Some(index) = first_non_finite(&vertices) {
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
        self.set_vertices_within(vertices, Vec3::splat(f32::MAX))
    }

    /// [`set_vertices`](Self::set_vertices) with every coordinate within
    /// `bound` on its axis (`|x| <= bound.x`, …), checked in the same pass
    /// as finiteness: a vertex beyond is [`MeshError::BeyondBound`]. On an
    /// error nothing changes.
    pub fn set_vertices_within(&mut self, vertices: &[Vec3], bound: Vec3) -> Result<(), MeshError> {
        if vertices.len() != self.vertices.len() {
            return Err(MeshError::VertexCount {
                expected: self.vertices.len(),
                got: vertices.len(),
            });
        }
        if let Some(index) = first_beyond(vertices, bound) {
            return Err(if vertices[index].is_finite() {
                MeshError::BeyondBound { index }
            } else {
                MeshError::NonFinite { index }
            });
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
        // Infinities and NaNs of either sign, in any coordinate, past the
        // first block; the smallest and largest finite values pass.
        let mut vs = vec![
            Vec3::splat(f32::MAX),
            Vec3::splat(f32::MIN),
            Vec3::splat(-0.0),
        ];
        vs.extend((0..200).map(|i| Vec3::splat(f32::MIN_POSITIVE * i as f32)));
        let triangles = vec![[0, 1, 2]];
        let mut mesh = TriMesh::new(vs.clone(), triangles.clone()).expect("all finite");
        for (at, bad) in [
            (70, f32::INFINITY),
            (129, f32::NEG_INFINITY),
            (201, f32::NAN),
            (0, -f32::NAN),
        ] {
            for axis in 0..3 {
                let mut moved = vs.clone();
                moved[at][axis] = bad;
                moved[at + 1][axis] = bad;
                let err = MeshError::NonFinite { index: at };
                assert_eq!(
                    TriMesh::new(moved.clone(), triangles.clone()),
                    Err(err.clone())
                );
                assert_eq!(mesh.set_vertices(&moved), Err(err));
                assert_eq!(mesh.vertices(), &vs[..], "nothing changes on an error");
            }
        }
        // A bound per axis, in the same pass: beyond it (past the first
        // block too) is `BeyondBound`, at it is fine, a non-finite value
        // stays `NonFinite`; nothing changes on an error.
        let bound = Vec3::new(4.0, 8.0, f32::INFINITY);
        let mut within = vs.clone();
        within[0] = Vec3::new(-4.0, 8.0, f32::MAX);
        within[1] = Vec3::ZERO;
        mesh.set_vertices_within(&within, bound)
            .expect("at the bound");
        for (at, axis, x) in [(3, 0, 4.0001), (130, 1, -8.5), (201, 0, -1e30)] {
            let mut far = within.clone();
            far[at][axis] = x;
            assert_eq!(
                mesh.set_vertices_within(&far, bound),
                Err(MeshError::BeyondBound { index: at })
            );
            far[at + 1][2] = f32::NAN;
            far[at][axis] = f32::INFINITY;
            assert_eq!(
                mesh.set_vertices_within(&far, bound),
                Err(MeshError::NonFinite { index: at })
            );
            assert_eq!(mesh.vertices(), &within[..], "nothing changes on an error");
        }
        // Degenerate triangles are valid.
        assert!(TriMesh::new(vec![Vec3::ZERO, Vec3::X], vec![[0, 0, 1], [1, 1, 1]]).is_ok());
    }
}
