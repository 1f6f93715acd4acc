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
//! - [`RoundConvex`]: a polytope, a segment or a triangle swept by a ball
//!   (the core's support mapping plus the radius), exact;
//! - [`HalfSpace`]: everything below a plane.
//! - [`HeightField`]: terrain, a grid of heights with holes, the grid its
//!   own tree ([`heightfield`]).
//!
//! Convex shapes implement [`SupportMap`],
//! so GJK and EPA work on them directly. Builders return an error for bad
//! input ([`HullError`], [`MeshError`]), never panic.

pub mod build;
mod half_space;
pub mod heightfield;
mod implicit;
mod inner_ball;
mod lanes;
mod polytope;
mod polytope_features;
mod rays;
mod round_convex;
mod rounded;
mod seeds;
mod support_ray;
mod trimesh;

pub use build::{ConvexHull, HullError};
pub use half_space::{HALF_SPACE_EXTENT, HalfSpace, Lowest};
pub use heightfield::{HeightField, HeightFieldError};
pub use implicit::{Implicit, ImplicitKind};
pub use polytope::{ConvexPolytope, FaceSlot, Feature, PolyEdge, PolyFace, VertexLink};
pub use round_convex::{RoundConvex, RoundCore};
pub use rounded::Rounded;
pub(crate) use trimesh::first_beyond;
pub use trimesh::{MeshError, TriMesh};

use crate::geometry::support::SupportMap;
use crate::math::Aabb;

/// A support-mapped convex kind with what the mesh walks and the bounds
/// need besides its support map: its box in its own frame, and a bound on
/// the distance of its points from its origin.
pub trait SupportShape: SupportMap {
    /// The box in the shape's own frame.
    fn local_box(&self) -> Aabb;
    /// A bound on `|p|` over the shape's points `p`.
    fn reach(&self) -> f32;
}

impl SupportShape for Implicit {
    fn local_box(&self) -> Aabb {
        self.local_aabb()
    }
    fn reach(&self) -> f32 {
        self.bounding_radius()
    }
}

impl SupportShape for RoundConvex {
    fn local_box(&self) -> Aabb {
        self.local_aabb()
    }
    fn reach(&self) -> f32 {
        self.bounding_radius()
    }
}
