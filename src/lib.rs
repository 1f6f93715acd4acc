//! # bevy_icollide
//!
//! Exact, interactive collision detection for Bevy games and simulations,
//! built on three classic systems:
//!
//! - **I-COLLIDE** (Cohen, Lin, Manocha, Ponamgi, I3D 1995): sweep and prune
//!   over three endpoint lists kept sorted by insertion sort, fixed cubes or
//!   dynamic boxes updated by hill-climbing ([`broad_phase`], [`bounds`]);
//!   Lin–Canny closest features between convex polytopes with coherence
//!   ([`query::lin_canny`]), with GJK and EPA beside it ([`geometry::gjk`],
//!   [`geometry::epa`]).
//! - **OBBTree / RAPID** (Gottschalk, Lin, Manocha, SIGGRAPH 1996): OBB
//!   trees over polygon soups and exact triangle–triangle tests ([`bvh`],
//!   [`geometry::tritri`]).
//! - Non-convex objects as **hierarchies of convex pieces** (I-COLLIDE's
//!   hand): [`collider::Compound`], tested piece pair by piece pair
//!   (the compound arm of the pair test in [`query`]).
//! - **AABB trees for deformable models** (van den Bergen, 1997; SOLID):
//!   median split, the separating axis test between relatively oriented
//!   boxes with the relative rotation computed once per model pair (and
//!   "SAT lite"), bottom-up refit when a mesh deforms ([`bvh::AabbTree`],
//!   [`pipeline::CollisionWorld::set_vertices`]).
//! - **Proximity queries**: distance, closest points and tolerance queries
//!   between meshes by branch and bound over their trees (PQP's method,
//!   [`bvh::distance`]), GJK and Lin–Canny for convex shapes, EPA for the
//!   penetration depth.
//!
//! ## Layers
//!
//! Each module imports only from the layers below it (`tests/core/layers.rs`
//! checks it):
//!
//! | layer | what |
//! |---|---|
//! | [`math`] | poses, boxes, the symmetric eigen-solver |
//! | [`geometry`] | primitive tests, support maps, GJK, EPA (no shapes) |
//! | [`shape`], `io` | plain shape data and its validation; mesh files (feature `obj`) |
//! | [`bvh`] | bounding-volume trees over triangles or pieces |
//! | [`bounds`] | fixed cubes and dynamic boxes |
//! | [`collider`] | shapes with what is prebuilt for them, shared by `Arc` |
//! | [`broad_phase`], [`query`] | box pairs; tests on two shapes |
//! | [`narrow_phase`] | active pairs, their caches, events |
//! | [`pipeline`] | the world: bodies, handles, pair configuration, the frame driver |
//! | `plugin` | Bevy (feature `bevy`; the only module that imports `bevy_*`) |
//!
//! Public API in tiers: [`prelude`] for game code; [`pipeline`] for the core
//! without Bevy (`default-features = false`); [`geometry`], [`bvh`] and
//! [`query`] for algorithm users.
//!
//! ## Quick start
//!
//! ```
//! # #[cfg(feature = "bevy_transform")] {
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
//! let cube = Collider::cuboid(1.0, 1.0, 1.0);
//! // Collision events for this entity's pairs (as in avian).
//! app.world_mut().spawn((cube.clone(), Transform::from_xyz(0.0, 0.0, 0.0), CollisionEventsEnabled));
//! app.world_mut().spawn((cube, Transform::from_xyz(0.9, 0.0, 0.0)));
//! app.update();
//! app.update();
//! # }
//! ```
//!
//! Without Bevy:
//!
//! ```
//! use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
//! use bevy_icollide::prelude::*;
//! use glam::Vec3;
//!
//! let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
//! let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("valid half-extents");
//! let a = world.add_body(BodyDesc::new(cube.clone()));
//! let b = world.add_body(BodyDesc::new(cube));
//! world.set_pose(a, Pose::from_translation(Vec3::ZERO)).expect("live body");
//! world.set_pose(b, Pose::from_translation(Vec3::X * 0.9)).expect("live body");
//! let events: Vec<_> = world.step().collect();
//! assert!(events.len() == 1 && events[0].started);
//! ```
//!
//! ## What is exact
//!
//! The broad phase is exact: after every frame its active pairs are exactly
//! the overlapping box pairs. Convex–convex pairs are tested exactly
//! (Lin–Canny, contact data from EPA); pairs involving a triangle mesh are
//! tested exactly on their surfaces (OBB trees, exact triangle tests);
//! compounds reduce to those two cases piece by piece, see [`query`].

// Two exceptions, each benchmarked where it is: `shape::lanes` calls its
// AVX kernel after detecting AVX at run time, and `math::prefetch` issues
// the prefetch instruction (a cache hint that cannot fault).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod bounds;
pub mod broad_phase;
pub mod bvh;
pub mod character;
pub mod collider;
pub mod geometry;
#[cfg(feature = "obj")]
pub mod io;
pub mod math;
pub mod narrow_phase;
pub mod pipeline;
#[cfg(feature = "bevy")]
pub mod plugin;
pub mod query;
pub mod shape;
#[cfg(any(test, feature = "testkit"))]
#[doc(hidden)]
pub mod testkit;

/// The names most users need: the plugin, its components, events and
/// system parameters (feature `bevy`), and the shapes.
pub mod prelude {
    pub use crate::bounds::BoundsMode;
    pub use crate::character::{ControllerOptions, SlideOptions};
    pub use crate::collider::{CompoundPiece, ShapeError, SharedShape};
    pub use crate::math::{Aabb, Pose, RigidMotion, WorldPose};
    #[cfg(feature = "bevy_transform")]
    pub use crate::plugin::{
        CharacterGround, CharacterHit, CharacterPlugin, CharacterPush, KinematicCharacter,
        KinematicCharacterOutput,
    };
    #[cfg(feature = "bevy")]
    pub use crate::plugin::{
        Collider, ColliderAabb, ColliderPose, CollidingEntities, CollisionDiagnostics,
        CollisionEnd, CollisionEventsEnabled, CollisionLayers, CollisionPairConfig,
        CollisionPlugin, CollisionStart, CollisionSystems, Collisions, DeformedVertices, LayerMask,
        MaxFrameMotion, MoveAndSlide, MoveAndSlideHit, RayHitData, Sensor, ShapeCastConfig,
        ShapeHitData, SpatialQuery, SpatialQueryFilter, StaticCollider, SweptCcd,
    };
    #[cfg(feature = "bevy_asset")]
    pub use crate::plugin::{
        ColliderConstructor, ColliderConstructorError, ColliderConstructorHierarchy, DeformableMesh,
    };
    #[cfg(feature = "debug-render")]
    pub use crate::plugin::{CollisionDebugPlugin, CollisionGizmos, DebugRender};
    #[cfg(feature = "picking")]
    pub use crate::plugin::{
        CollisionPickingCamera, CollisionPickingPlugin, CollisionPickingSettings,
    };
}

/// The README's examples are compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(all(doctest, feature = "bevy_transform"))]
pub struct ReadmeDoctests;

/// The user guide's examples too.
#[doc = include_str!("../docs/GUIDE.md")]
#[cfg(all(doctest, feature = "bevy_transform"))]
pub struct GuideDoctests;
