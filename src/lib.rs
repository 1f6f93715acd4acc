//! # bevy_icollide
//!
//! Exact, interactive collision detection for Bevy games and simulations,
//! built on three classic systems:
//!
//! - **I-COLLIDE** (Cohen, Lin, Manocha, Ponamgi, I3D 1995): sweep and prune
//!   over three endpoint lists kept sorted by insertion sort, fixed cubes or
//!   dynamic boxes updated by hill-climbing ([`broad_phase`], [`bounds`]);
//!   Lin–Canny closest features between convex polytopes with coherence
//!   ([`narrow_phase::lin_canny`]), with GJK and EPA beside it
//!   ([`narrow_phase::gjk`], [`narrow_phase::epa`]).
//! - **OBBTree / RAPID** (Gottschalk, Lin, Manocha, SIGGRAPH 1996): OBB
//!   trees over polygon soups and exact triangle–triangle tests ([`bvh`],
//!   [`narrow_phase::tritri`]).
//! - Non-convex objects as **hierarchies of convex pieces** (I-COLLIDE's
//!   hand): [`shape::Compound`], tested piece pair by piece pair
//!   ([`narrow_phase::compound`]).
//! - **AABB trees for deformable models** (van den Bergen, 1997): planned.
//!
//! The geometry core ([`math`], [`shape`], [`bounds`], [`broad_phase`],
//! [`bvh`], [`narrow_phase`], [`world`], [`query`]) knows nothing of Bevy; [`plugin`]
//! is the only module that imports `bevy_*`.
//!
//! ## Quick start
//!
//! ```
//! use bevy_app::prelude::*;
//! use bevy_ecs::prelude::*;
//! use bevy_icollide::prelude::*;
//! use bevy_transform::prelude::*;
//! use glam::Vec3;
//!
//! fn on_start(mut starts: MessageReader<CollisionStart>) {
//!     for ev in starts.read() {
//!         println!("{:?} touches {:?}", ev.collider1, ev.collider2);
//!     }
//! }
//!
//! let mut app = App::new();
//! app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()))
//!     .add_systems(Update, on_start);
//! let cube = Collider::cuboid(Vec3::splat(0.5)).expect("valid half-extents");
//! app.world_mut().spawn((cube.clone(), Transform::from_xyz(0.0, 0.0, 0.0)));
//! app.world_mut().spawn((cube, Transform::from_xyz(0.9, 0.0, 0.0)));
//! app.update();
//! app.update();
//! ```
//!
//! ## What is exact today
//!
//! The broad phase is exact: after every frame its active pairs are exactly
//! the overlapping box pairs. Convex–convex pairs are tested exactly
//! (Lin–Canny, contact data from EPA); pairs involving a triangle mesh are
//! tested exactly on their surfaces (OBB trees, exact triangle tests);
//! compounds reduce to those two cases piece by piece, see [`narrow_phase`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bounds;
pub mod broad_phase;
pub mod bvh;
pub mod math;
pub mod narrow_phase;
pub mod plugin;
pub mod query;
pub mod scenes;
pub mod shape;
pub mod world;

/// The names most users need.
pub mod prelude {
    pub use crate::bounds::BoundsMode;
    pub use crate::math::{Aabb, Pose};
    pub use crate::plugin::{
        Collider, ColliderAabb, ColliderPose, CollidingEntities, CollisionDiagnostics,
        CollisionEnd, CollisionEventsEnabled, CollisionLayers, CollisionPairConfig,
        CollisionPlugin, CollisionStart, CollisionSystems, Collisions, LayerMask, RayHitData,
        Sensor, SpatialQuery, SpatialQueryFilter, StaticCollider,
    };
    pub use crate::shape::{CompoundPiece, ShapeError, SharedShape};
}

/// The README's examples are compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
