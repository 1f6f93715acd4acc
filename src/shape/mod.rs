//! Plain shape data, validated at build time, with no trees and no bounds
//! (those are built for a shape by [`crate::collider`]):
//!
//! - [`ConvexHull`]: the robust 3D convex hull of a point set (Quickhull,
//!   [`build`]), with vertex adjacency for hill-climbing;
//! - [`ConvexPolytope`]: a hull with merged planar faces, edges and the
//!   Voronoi planes Lin–Canny walks over;
//! - [`TriMesh`]: a polygon soup (cracks, duplicate and degenerate triangles
//!   allowed);
//! - [`Rounded`]: a sphere or a capsule, exact (a core and a radius);
//! - [`Implicit`]: a cylinder or a cone, exact (its support mapping);
//! - [`HeightField`]: terrain, a grid of heights with holes, the grid its
//!   own tree ([`heightfield`]).
//!
//! Convex shapes implement [`SupportMap`](crate::geometry::support::SupportMap),
//! so GJK and EPA work on them directly. Builders return an error for bad
//! input ([`HullError`], [`MeshError`]), never panic.

pub mod build;
pub mod heightfield;
mod implicit;
mod lanes;
mod polytope;
mod rounded;
mod seeds;
mod trimesh;

pub use build::{ConvexHull, HullError};
pub use heightfield::{HeightField, HeightFieldError};
pub use implicit::{Implicit, ImplicitKind};
pub use polytope::{ConvexPolytope, FaceSlot, Feature, PolyEdge, PolyFace, VertexLink};
pub use rounded::Rounded;
pub(crate) use trimesh::first_beyond;
pub use trimesh::{MeshError, TriMesh};
