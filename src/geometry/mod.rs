//! Geometry kernels: primitive tests on points, segments, triangles and
//! boxes, and the support-map algorithms. Nothing here knows a shape type,
//! a tree or a body; everything is tested on its own.
//!
//! - [`tritri`]: exact triangle–triangle intersection (Guigue–Devillers on
//!   the adaptive-precision `orient3d` of the `robust` crate), the decision
//!   at the leaves of every mesh query;
//! - [`closest`]: closest points point–segment, segment–segment,
//!   segment–triangle distance;
//! - [`ray`]: rays, Möller–Trumbore, the slab test;
//! - [`support`]: the [`SupportMap`](support::SupportMap) trait (a convex
//!   set by its support mapping) with spheres, boxes, point sets and
//!   hill-climbing over a vertex graph;
//! - [`gjk`] and [`epa`]: distance, intersection and penetration depth of
//!   any two support maps (Gilbert, Johnson, Keerthi 1988; van den Bergen
//!   2001, 2003), warm-started from a cached simplex;
//! - [`cast`]: time of impact of two moving convex shapes by conservative
//!   advancement on GJK distances.

pub mod cast;
pub mod closest;
pub mod epa;
pub mod gjk;
pub mod ray;
pub mod support;
pub mod tritri;
