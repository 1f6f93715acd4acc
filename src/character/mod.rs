//! Collision response for kinematic shapes: move and slide.
//!
//! [`Slider::move_and_slide`] moves a shape by a desired translation
//! through a [`CollisionWorld`](crate::pipeline::CollisionWorld), stopping a skin width short of what it
//! meets and sliding along it, as a character, a camera or a held object
//! moves in a game (Quake's `PM_SlideMove`; Fauerby, "Improved Collision
//! detection and Response", 2003; avian3d's `MoveAndSlide` and rapier's
//! `KinematicCharacterController` do the same). No Bevy here; the plugin's
//! system parameter calls it against its world.
//!
//! ## One step
//!
//! 1. **Depenetration.** The touches within the skin `s` of the start
//!    (`contacts.rs`: every convex part of the shape against every convex
//!    part of each nearby body, mesh triangles one by one, GJK distances
//!    and EPA depths) are gathered; if one is closer than `s / 2` (the
//!    shape overlaps, or a body moved onto it), the shape is moved so that
//!    every one of them is `s` away along its normal (Gauss–Seidel over
//!    the planes, all at once, so two boxes pushing from two sides are
//!    both satisfied), and the touches are measured again, up to
//!    [`SlideOptions::depenetration_iterations`] rounds. A shape already
//!    at least `s / 2` from everything is not moved: resting on a slope
//!    does not drift down it (avian's PR #949).
//! 2. **Slide**, up to [`SlideOptions::max_iterations`] times: the touches
//!    within `2 s` are reported to the callback; the normals of those
//!    inside the skin (gap below `s`) and of the planes the casts of this
//!    step hit are the planes the motion may not enter (Quake's
//!    accumulated clip planes; a touch in the band `[s, 2 s)` is not one:
//!    the slanted normal of an edge ahead would lift the shape over it),
//!    and the remaining motion is
//!    projected onto the cone they leave ([`project_motion`]: walls,
//!    creases of two planes, corners of three). The world's exact shape
//!    cast ([`CollisionWorld::cast_shape`](crate::pipeline::CollisionWorld::cast_shape)) then moves the shape along it
//!    until it comes within `t = min(s / 2, g / 2)` of a body (`g` the
//!    nearest touch's gap; the cast's tolerance is `t / 4`), and the shape
//!    backs up along the motion to between `s − 5 t / 16` and `s − t / 16`
//!    from the plane it hit (`27 s / 32` to `31 s / 32` for `t = s / 2`): the
//!    cast's target is under the skin, so the next cast does not start in
//!    contact with the plane it slides along (avian's PR #949: a cast that
//!    ignores the skin), and the shape rests inside the skin, so the next
//!    step slides along the plane at once.
//!    What the backing-up returns of the motion is projected again at the
//!    next iteration: sliding keeps the tangential motion.
//!
//! ## A character controller
//!
//! [`CharacterController::move_character`] walks a shape on that slide
//! (rapier's `KinematicCharacterController` does the same parts):
//!
//! - **Ground**: a touch within two skins whose normal is within
//!   [`ControllerOptions::max_slope`] of `up`
//!   ([`CharacterController::ground`]);
//!   [`CharacterController::probe_ground`] moves the shape down by at most
//!   a distance, sliding off edges and steep slopes, until it stands on
//!   ground, and reports its body, normal, point and the distance moved.
//! - **Steep slopes are walls**: the slide adds to the plane of a slope
//!   steeper than the limit the vertical wall it stands for (its normal
//!   without its `up` part), so the motion up it is stopped and the motion
//!   down it is kept.
//! - **Steps**: a character that stood on ground and was stopped by
//!   something too steep is lifted by at most
//!   [`ControllerOptions::max_step_height`], moved along what was left of
//!   its horizontal motion (at least [`ControllerOptions::min_step_width`],
//!   so that a rounded bottom is over the step), and probed down; the step
//!   is taken if it lands on ground no higher than the limit and further
//!   along.
//! - **Snapping**: a character that stood on ground, does not move up and
//!   is not on ground after the move is probed down by
//!   [`ControllerOptions::snap_distance`] and put there if it finds
//!   ground: it stays on the ground down stairs and slopes, and leaves it
//!   off a higher ledge.
//! - **Platforms**: [`platform_motion`] is how far a point riding a
//!   platform moves between two of its poses; a character whose ground is
//!   the platform is carried by it before it moves.
//!
//! ## What it guarantees
//!
//! From a start at least `s / 2` from everything (after depenetration),
//! the shape stays at least each leg's cast target from everything along
//! its whole path (half the skin, or half the smallest gap the leg starts
//! with): it never tunnels, whatever the
//! speed, and never enters anything. It stops only where something is
//! within `2 s` of it, or when the callback stops it, or when the
//! iterations run out. A start that depenetration cannot free (a shape
//! wedged between bodies closer than its size) does not move
//! ([`SlideOutput::stuck`]).

mod contacts;
mod controller;
mod planes;
mod slide;

pub use contacts::Touch;
pub use controller::{
    CharacterController, CharacterOutput, ControllerOptions, Ground, platform_motion,
};
pub use planes::project_motion;
pub use slide::{SlideOptions, SlideOutput, Slider};
