//! Bounding boxes for the broad phase (I-COLLIDE, section 3.1 "bounding volumes").
//!
//! Cohen, Lin, Manocha, Ponamgi, *I-COLLIDE: an interactive and exact collision
//! detection system for large-scale environments*, I3D 1995.
//!
//! Two kinds of axis-aligned boxes follow an object as it moves:
//!
//! - [`FixedCube`]: a cube of half-size `r` around a center `c`, with `r` the
//!   radius of a sphere around the object about `c`. It contains the object in
//!   every orientation, so a frame costs one rotated center, a padded half
//!   size and six adds; it
//!   never shrinks when the object turns, so it is looser than a tight box.
//! - [`DynamicBox`]: the tight box of the convex hull in its current pose. For
//!   each axis the hull vertex that is extreme (min and max) is remembered; each
//!   frame, starting from last frame's extreme vertex, we walk to a neighbor
//!   whose coordinate is better until none is (hill-climbing). On a convex
//!   polytope the coordinate `e_k · (R v)` has no local optimum over the vertex
//!   graph that is not global (the simplex method's argument), so the walk ends
//!   at the true extreme vertex; with small motions it takes a step or two.
//!   Only one coordinate is computed per visited vertex: row `k` of `R` dotted
//!   with the local vertex.
//!
//! A support-mapped kind (cylinder, cone) has no vertices to climb over:
//! its dynamic box is [`support_box`], six supports, exact.
//!
//! The world grows either box by a pad for rounding that follows the
//! shape's reach and the pose's translation
//! ([`rounding_pad`](crate::math::rounding_pad)): the pair tests decide in
//! a relative frame computed in `f32`, and a box of the points as computed
//! could be a few ulps short of what they call touching. Then it pads by
//! the world's margin (see [`BoundsMode`]) before the broad phase.

mod dynamic_box;
mod fixed_cube;
mod support_box;

pub use dynamic_box::{CLIMB_MIN_VERTICES, DynamicBox, READ_AHEAD};
pub use fixed_cube::FixedCube;
pub use support_box::support_box;

use serde::{Deserialize, Serialize};

/// How an object's axis-aligned box is kept up to date.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BoundsMode {
    /// A tight box updated by hill-climbing over the hull's vertex graph.
    /// Best for objects that translate more than they rotate.
    #[default]
    DynamicBox,
    /// A cube that contains the object in every orientation: cheapest per
    /// frame, best for fast-spinning, round objects.
    FixedCube,
}
