//! Bounding-volume trees over polygon soups.
//!
//! **OBB trees** (Gottschalk, Lin, Manocha, *OBBTree: a hierarchical
//! structure for rapid interference detection*, SIGGRAPH 1996; the RAPID
//! library): boxes fitted from the covariance of a group's surface
//! ([`obb`], with the 3×3 symmetric eigen-solver in [`eigen`](crate::math::eigen)), a top-down
//! build splitting at the mean (or median) of the triangle centers across the
//! longest axis ([`obb_tree`]), and the simultaneous traversal of two trees
//! with the 15-axis separating axis test and exact triangle tests at the
//! leaves ([`collide()`]).
//!
//! Every tree has the same layout ([`tree`]: [`Bvh`] over a node type):
//! nodes in one array, the two children side by side after their parent,
//! leaves pointing at a range of one primitive-index array. An OBB node is
//! 48 bytes (rotation as a quaternion, center, half-extents, first child or
//! triangle, triangle count); an AABB node ([`AabbTree`]: compound shapes'
//! pieces, deforming meshes as a [`DeformingTree`], and meshes that ask
//! for it) is 32. Trees serialize with serde, and
//! `validate` checks one read from outside.
//!
//! Distance ([`distance`]) and time of impact ([`cast`]) are one branch
//! and bound over node pairs with different bounds (`search.rs`).
//!
//! The cost of a query follows the model `T = N_v C_v + N_p C_p` (box tests
//! times their cost plus triangle tests times theirs): [`CollideStats`]
//! counts both.

mod aabb_build;
pub mod aabb_tree;
pub mod cast;
pub mod collide;
pub mod deforming;
pub mod distance;
pub mod obb;
mod obb_build;
mod obb_leaves;
pub mod obb_tree;
pub mod ray;
mod record_sort;
mod rounding;
mod search;
pub mod surface;
pub mod tree;

pub use aabb_tree::{AabbNode, AabbTree, AabbTreeOptions};
pub use collide::{
    BoxNode, CollideOptions, CollideScratch, CollideStats, ContactMode, MeshSide, SatTest,
    TreePair, collide, collide_with, collide_with_eps, mapped_triangle,
};
pub use deforming::DeformingTree;
pub use distance::{DistanceLimit, DistanceStats, SurfaceDistance, surface_distance};
pub use obb::{OBB_EPS, Obb, obb_overlap};
pub use obb_tree::{ObbNode, ObbTree, ObbTreeOptions, SplitRule};
pub use surface::{Surface, SurfaceTree, TreeKind, TreeRef, collide_surfaces, distance_surfaces};
pub use tree::{BvNode, Bvh, BvhError};
