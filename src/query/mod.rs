//! Queries on two shapes at poses: the pair tests the narrow phase runs
//! every frame (with a cache that carries each pair's state from frame to
//! frame), and the same tests as one-shot calls (from a fresh cache). No
//! world, no Bevy.
//!
//! This layer sits *below* the narrow phase, as parry's queries sit below
//! rapier's narrow phase: the narrow phase keeps the pairs and their caches
//! (crate-internal) and calls the pair test, `test_pair`; the one-shot
//! [`intersects`] calls the same function with a fresh cache, so it answers
//! exactly what the world would. One dispatch, one answer.
//!
//! ## The pair test, by shape kinds
//!
//! | pair | test | contact data |
//! |------|------|--------------|
//! | convex – convex | Lin–Canny from the cached feature pair ([`lin_canny`]), GJK fallback; EPA for the depth ([`epa`](crate::geometry::epa)) | closest features, distance or depth, normal, points |
//! | a triangle mesh with a mesh or a convex shape | simultaneous OBB-tree traversal, exact triangle–triangle tests (the convex shape's hull triangles); with a convex shape and no crossing, the mesh triangles inside it ([`INSIDE_SOLID`]) | the intersecting triangle pairs |
//! | a sphere or capsule with anything but a compound | core distance against the radius: closed form with another rounded shape, GJK with margin (EPA for the depth) with a convex polytope, a cylinder or a cone, OBB-tree descent and segment–triangle distances with a mesh (`rounded.rs`) | distance or depth, normal, points (features are `Vertex(0)`); with a mesh, the triangles within reach (`[0, triangle]`) |
//! | a cylinder or cone with anything but a sphere, capsule or compound | GJK through its support map (EPA for the depth) with a convex polytope or another cylinder or cone; with a mesh, the tree descended with the shape's box in each node's frame (six supports), GJK shape–triangle at the leaves (`implicit.rs`) | distance or depth, normal, points (features are `Vertex(0)`); with a mesh, the touched triangles (`[0, triangle]`) |
//! | a height field with anything but a compound or a height field | the other shape's box in the field's frame gives the cells under it (the grid is the tree), each of their triangles measured by the test a mesh triangle gets: core–triangle distance against the radius, GJK shape–triangle, or the field triangle against a hull's or mesh's tree with exact triangle–triangle tests and the exact inside test for polytopes (`heightfield.rs`) | the touched field triangles `[feature of the other, field triangle]` |
//! | a compound (or a polyline: its segments are its pieces) with anything | the piece trees descended to the piece pairs whose boxes overlap, each tested by the rows above from its own cache (`compound.rs`) | per piece pair, what its row gives; the pair's contact is the deepest (or closest) convex piece pair's, with its piece indices |
//!
//! The match has one arm per kind pair; a pair with a compound on either
//! side goes to one arm, which recurses to non-compound piece pairs. Every
//! pair of kinds is handled: the match is exhaustive, so a new kind that is
//! not dispatched does not compile.
//!
//! **One inside rule** (`inside.rs`): spheres, capsules, cylinders, cones and convex
//! polytopes (and a compound's convex pieces) are solids, a triangle mesh
//! is a surface. A shape entirely inside a mesh, with no triangles
//! crossing, does not touch it, whatever its kind; a mesh entirely inside a
//! solid touches it, whatever the solid's kind (as in parry: a `TriMesh` is
//! its triangles, a convex shape is solid). A boolean-only side (a sensor,
//! or a world without penetration depth) computes no contact data: two
//! polytopes then take SOLID's coherent boolean test (GJK from the pair's
//! last separating axis, then its cached simplex) instead of Lin–Canny's
//! walk, and no pair runs EPA.
//!
//! ## One-shot queries
//!
//! Each call answers from scratch (a cold Lin–Canny walk). For the same pair
//! over many frames, keep a [`lin_canny::ConvexCache`] and call
//! [`lin_canny::closest_features`] directly: the warm walk is nearly
//! constant time.
//!
//! | shapes | intersects | distance / closest points | penetration |
//! |--------|------------|---------------------------|-------------|
//! | convex – convex | Lin–Canny | Lin–Canny (features) | EPA |
//! | with a triangle mesh | the trees, exact triangle tests (a mesh is a surface, a convex shape solid) | branch and bound over the trees, exact triangle distances (a polytope by its hull's triangles, 0 with a mesh triangle inside it) | [`QueryError::Unsupported`] (no depth for non-convex shapes) |
//! | with a sphere or capsule (not a mesh) | the pair test | GJK with margins | EPA on the cores plus the radii |
//! | with a cylinder or cone | the pair test | GJK (with a mesh: branch and bound over its tree, GJK at the leaves) | EPA (not with a mesh) |
//! | with a height field | the pair test (cells under the other's box) | convex kinds and meshes: branch and bound over cells, GJK at the triangles (a mesh: against each of its triangles); a half-space: the field's lowest vertex; a field: each triangle under the other's box against the other's nearest triangle | [`QueryError::Unsupported`] |
//! | with a compound | the pair test's piece recursion | over all piece pairs | deepest piece pair (all pieces convex) |
//!
//! [`ray_cast`] works on every kind: Cyrus–Beck clipping against a convex
//! polytope's faces, the OBB tree with Möller–Trumbore at the leaves for a
//! mesh, a grid walk over tiles and cells for a height field, closed form for spheres, capsules, cylinders and cones, the nearest piece's hit for
//! a compound.
//!
//! [`cast_shapes`] and [`cast_shapes_nonlinear`] work on every pair of
//! kinds: the first time two moving shapes touch (conservative advancement
//! on convex parts, the trees searched by time for meshes; `cast.rs`).

mod balls;
mod cache;
mod cast;
mod cast_frame;
pub(crate) mod compound;
mod curved;
mod curved_solve;
mod dispatch;
mod distance;
mod features;
mod field_field;
mod half_space;
mod half_space_cast;
mod heightfield;
mod heightfield_cast;
mod hull_axis;
mod implicit;
mod inside;
mod intersect;
pub mod lin_canny;
mod mesh_distance;
mod mesh_walk;
mod pair;
mod ray_cast;
mod rounded;
mod tolerance;
mod warm_tetra;
#[cfg(test)]
mod warm_tetra_tests;

pub(crate) use cache::{CachePool, PairCache, QueryScratch};
pub use cast::{CastStatus, ShapeCastHit, ShapeCastOptions, cast_shapes, cast_shapes_nonlinear};
pub(crate) use cast::{cast_sides, swept_test};
pub(crate) use cast_frame::clipped_max_time;
pub(crate) use dispatch::{boolean_convex, test_pair};
pub use distance::{ClosestPoints, closest_points, distance, penetration};
pub use inside::INSIDE_SOLID;
pub(crate) use intersect::intersects_side;
pub use intersect::{intersecting_triangles, intersects};
pub(crate) use pair::PairSide;
pub use pair::{ContactData, PairResult};
pub use ray_cast::ray_cast;
pub(crate) use ray_cast::ray_cast_side;
pub use tolerance::{closest_points_with_tolerance, distance_with_tolerance};

pub use crate::geometry::epa::Penetration;
pub use crate::geometry::ray::{Ray, RayHit};

use crate::math::PoseError;

/// Why a query could not be answered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueryError {
    /// A pose is NaN, infinite or not a unit rotation.
    InvalidPose(PoseError),
    /// A ray cast's input is refused; the text names the fault (a NaN or
    /// infinite origin or direction, a NaN or negative `max_toi`).
    InvalidRay(&'static str),
    /// A shape cast's input is refused; the text names the fault (a NaN or
    /// infinite velocity or rotation center, bad options).
    InvalidCast(&'static str),
    /// A distance tolerance outside
    /// [`MIN_DISTANCE_TOLERANCE`](crate::collider::limits::MIN_DISTANCE_TOLERANCE)`..=`[`MAX_DISTANCE_TOLERANCE`](crate::collider::limits::MAX_DISTANCE_TOLERANCE)
    /// (or NaN): the value given.
    InvalidTolerance(f32),
    /// This query is not implemented for these shape kinds yet.
    Unsupported {
        /// Kind of the first shape.
        a: &'static str,
        /// Kind of the second shape.
        b: &'static str,
    },
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::InvalidPose(e) => write!(f, "invalid pose: {e}"),
            QueryError::InvalidRay(e) => write!(f, "invalid ray: {e}"),
            QueryError::InvalidCast(e) => write!(f, "invalid shape cast: {e}"),
            QueryError::InvalidTolerance(t) => write!(
                f,
                "distance tolerance {t} is outside [2e-6, 0.1] (relative to the pair's size)"
            ),
            QueryError::Unsupported { a, b } => {
                write!(
                    f,
                    "this query is not supported between {a} and {b} shapes yet"
                )
            }
        }
    }
}

impl std::error::Error for QueryError {}
