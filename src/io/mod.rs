//! Mesh files. Behind the default feature `obj`: a Wavefront OBJ reader
//! that turns a file into vertex positions and triangles, which
//! [`SharedShape::trimesh`](crate::collider::SharedShape::trimesh) or
//! [`SharedShape::convex_hull`](crate::collider::SharedShape::convex_hull)
//! then validate and build. This layer knows nothing of shapes.

mod obj;

pub use obj::{ObjError, ObjMesh, load_obj, parse_obj};
