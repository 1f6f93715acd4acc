//! Components a user puts on entities, and the ones the plugin keeps up to date.

use bevy_ecs::prelude::*;
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::ReflectComponent;
#[cfg(feature = "reflect")]
use bevy_reflect::{Reflect, ReflectDeserialize, ReflectSerialize, std_traits::ReflectDefault};
use glam::Vec3;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::bounds::BoundsMode;
use crate::collider::{CompoundPiece, ShapeError, SharedShape};
use crate::math::{Aabb, Pose};
use crate::pipeline::Layers;

/// A collision shape on an entity: a cheap handle to a prebuilt shape plus
/// how its box is kept ([`BoundsMode`]). Cloning shares the shape.
///
/// Inserting it (again) takes effect at the next run of the plugin's
/// systems; removing it (or despawning) ends the entity's collisions with a
/// [`CollisionEnd`](super::CollisionEnd).
///
/// Reflected as an opaque value that does not serialize (a prebuilt shape
/// is not scene data): scene files describe colliders with a
/// `ColliderConstructor` (feature `bevy_asset`), built when they load.
#[derive(Component, Clone, Debug)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(opaque, Component, Debug)
)]
#[require(ColliderPose, ColliderAabb, CollidingEntities)]
pub struct Collider {
    shape: SharedShape,
    bounds: BoundsMode,
}

impl Collider {
    /// A collider for a prebuilt shape, with a dynamic box.
    pub fn new(shape: SharedShape) -> Self {
        Self {
            shape,
            bounds: BoundsMode::default(),
        }
    }

    /// The convex hull of `points`. See [`SharedShape::convex_hull`].
    pub fn convex_hull(points: &[Vec3]) -> Result<Self, ShapeError> {
        SharedShape::convex_hull(points).map(Self::new)
    }

    /// A box of the given side lengths, centered on the entity (full
    /// lengths, as avian3d's `Collider::cuboid`; [`SharedShape::cuboid`]
    /// takes half-extents).
    ///
    /// ```
    /// # use bevy_icollide::prelude::*;
    /// let crate_box = Collider::cuboid(1.0, 2.0, 1.0);
    /// ```
    ///
    /// # Panics
    ///
    /// If a length is not finite and positive, or the box is outside the
    /// shape limits ([`crate::collider::limits`]). For sizes that come from
    /// data, [`Collider::try_cuboid`] returns the error instead.
    #[track_caller]
    pub fn cuboid(x_length: f32, y_length: f32, z_length: f32) -> Self {
        literal("cuboid", Self::try_cuboid(x_length, y_length, z_length))
    }

    /// [`Collider::cuboid`] for sizes from data: the reason as an error.
    pub fn try_cuboid(x_length: f32, y_length: f32, z_length: f32) -> Result<Self, ShapeError> {
        SharedShape::cuboid(0.5 * Vec3::new(x_length, y_length, z_length)).map(Self::new)
    }

    /// A ball of the given radius, centered on the entity.
    ///
    /// # Panics
    ///
    /// If the radius is not finite and positive or beyond the shape limits;
    /// [`Collider::try_sphere`] returns the error instead.
    #[track_caller]
    pub fn sphere(radius: f32) -> Self {
        literal("sphere", Self::try_sphere(radius))
    }

    /// [`Collider::sphere`] for sizes from data: the reason as an error.
    pub fn try_sphere(radius: f32) -> Result<Self, ShapeError> {
        SharedShape::sphere(radius).map(Self::new)
    }

    /// A capsule along local Y: a segment of `length` rounded by `radius`,
    /// so `length + 2 radius` tall (as avian3d's `Collider::capsule`).
    ///
    /// # Panics
    ///
    /// If the radius is not finite and positive, the length negative or not
    /// finite, or the capsule outside the shape limits;
    /// [`Collider::try_capsule`] returns the error instead.
    #[track_caller]
    pub fn capsule(radius: f32, length: f32) -> Self {
        literal("capsule", Self::try_capsule(radius, length))
    }

    /// [`Collider::capsule`] for sizes from data: the reason as an error.
    pub fn try_capsule(radius: f32, length: f32) -> Result<Self, ShapeError> {
        SharedShape::capsule(radius, length).map(Self::new)
    }

    /// A solid cylinder along local Y: `radius` in the XZ plane, `height`
    /// along Y, centered on the entity (as avian3d's `Collider::cylinder`).
    /// Exact: its support mapping, not a tessellation.
    ///
    /// # Panics
    ///
    /// If the radius or height is not finite and positive, or the cylinder
    /// is outside the shape limits (size, or one dimension more than
    /// `MAX_ASPECT` times the other, see [`crate::collider::limits`]);
    /// [`Collider::try_cylinder`] returns the error instead.
    #[track_caller]
    pub fn cylinder(radius: f32, height: f32) -> Self {
        literal("cylinder", Self::try_cylinder(radius, height))
    }

    /// [`Collider::cylinder`] for sizes from data: the reason as an error.
    pub fn try_cylinder(radius: f32, height: f32) -> Result<Self, ShapeError> {
        SharedShape::cylinder(radius, height).map(Self::new)
    }

    /// A height field (terrain): `nrows × ncols` samples, row-major, rows
    /// along local Z, spanning `scale.x × scale.z` centred on the entity,
    /// heights times `scale.y` (parry's layout; holes and triangle ids:
    /// [`HeightField`](crate::shape::HeightField)).
    ///
    /// # Panics
    ///
    /// On the errors of [`SharedShape::heightfield`];
    /// [`Collider::try_heightfield`] returns them instead.
    #[track_caller]
    pub fn heightfield(heights: Vec<f32>, nrows: usize, ncols: usize, scale: Vec3) -> Self {
        literal(
            "heightfield",
            Self::try_heightfield(heights, nrows, ncols, scale),
        )
    }

    /// [`Collider::heightfield`] for data: the reason as an error.
    pub fn try_heightfield(
        heights: Vec<f32>,
        nrows: usize,
        ncols: usize,
        scale: Vec3,
    ) -> Result<Self, ShapeError> {
        SharedShape::heightfield(heights, nrows, ncols, scale).map(Self::new)
    }

    /// A solid cone along local Y: its base of `radius` at `-height / 2`,
    /// its apex at `+height / 2`, centered on the entity (as avian3d's
    /// `Collider::cone`). Exact: its support mapping.
    ///
    /// # Panics
    ///
    /// As [`Collider::cylinder`]; [`Collider::try_cone`] returns the error
    /// instead.
    #[track_caller]
    pub fn cone(radius: f32, height: f32) -> Self {
        literal("cone", Self::try_cone(radius, height))
    }

    /// [`Collider::cone`] for sizes from data: the reason as an error.
    pub fn try_cone(radius: f32, height: f32) -> Result<Self, ShapeError> {
        SharedShape::cone(radius, height).map(Self::new)
    }

    /// A cylinder as [`Collider::cylinder`] swept by a ball of
    /// `border_radius`: `border_radius` larger all round, with round edges
    /// (the Minkowski sum, exact; parry's `round_cylinder`).
    ///
    /// # Panics
    ///
    /// As [`Collider::cylinder`], and for a border radius that is negative
    /// or not finite; [`Collider::try_round_cylinder`] returns the error
    /// instead.
    #[track_caller]
    pub fn round_cylinder(radius: f32, height: f32, border_radius: f32) -> Self {
        literal(
            "round_cylinder",
            Self::try_round_cylinder(radius, height, border_radius),
        )
    }

    /// [`Collider::round_cylinder`] for sizes from data: the reason as an
    /// error.
    pub fn try_round_cylinder(
        radius: f32,
        height: f32,
        border_radius: f32,
    ) -> Result<Self, ShapeError> {
        SharedShape::round_cylinder(radius, height, border_radius).map(Self::new)
    }

    /// A cone as [`Collider::cone`] swept by a ball of `border_radius`, as
    /// [`Collider::round_cylinder`].
    ///
    /// # Panics
    ///
    /// As [`Collider::round_cylinder`]; [`Collider::try_round_cone`]
    /// returns the error instead.
    #[track_caller]
    pub fn round_cone(radius: f32, height: f32, border_radius: f32) -> Self {
        literal(
            "round_cone",
            Self::try_round_cone(radius, height, border_radius),
        )
    }

    /// [`Collider::round_cone`] for sizes from data: the reason as an error.
    pub fn try_round_cone(
        radius: f32,
        height: f32,
        border_radius: f32,
    ) -> Result<Self, ShapeError> {
        SharedShape::round_cone(radius, height, border_radius).map(Self::new)
    }

    /// Convex (or mesh) pieces at local poses. See [`SharedShape::compound`].
    pub fn compound(pieces: Vec<CompoundPiece>) -> Result<Self, ShapeError> {
        SharedShape::compound(pieces).map(Self::new)
    }

    /// A triangle soup. See [`SharedShape::trimesh`].
    pub fn trimesh(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self, ShapeError> {
        SharedShape::trimesh(vertices, triangles).map(Self::new)
    }

    /// A triangle soup from a Wavefront OBJ file (feature `obj`). See
    /// [`SharedShape::trimesh_from_obj`].
    #[cfg(feature = "obj")]
    pub fn trimesh_from_obj(path: impl AsRef<std::path::Path>) -> Result<Self, ShapeError> {
        SharedShape::trimesh_from_obj(path).map(Self::new)
    }

    /// The same shape with another bounds mode.
    pub fn with_bounds(mut self, bounds: BoundsMode) -> Self {
        self.bounds = bounds;
        self
    }

    /// The shared shape.
    pub fn shape(&self) -> &SharedShape {
        &self.shape
    }

    /// How the box is kept.
    pub fn bounds(&self) -> BoundsMode {
        self.bounds
    }
}

/// The collider of a constructor for literal sizes, or a panic naming the
/// constructor and the fault (the `try_` forms return the error).
#[track_caller]
pub(super) fn literal(constructor: &str, built: Result<Collider, ShapeError>) -> Collider {
    built.unwrap_or_else(|e| panic!("Collider::{constructor}: {e}"))
}

/// The collider's world pose as the collision world uses it.
///
/// With the default `bevy_transform` feature, the plugin writes it from
/// `GlobalTransform` each time that changes: the rigid part here, the scale
/// to the collision world. A triangle-mesh collider takes any scale
/// (non-uniform, mirrored: applied in the queries, no rebuild); other
/// shapes need scale 1 (build them at their size with
/// [`SharedShape::scaled`]; another scale is refused with a warning).
/// Without the feature, write it yourself (and the scale with
/// [`CollisionWorld::set_scale`](crate::pipeline::CollisionWorld::set_scale)).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(opaque, Component, Default, Debug, PartialEq, Serialize, Deserialize)
)]
pub struct ColliderPose(pub Pose);

/// The collider's broad-phase box in world space (tight box plus margin;
/// the tight box carries the pad for rounding,
/// [`rounding_pad`](crate::math::rounding_pad)), written by the plugin
/// after each bounds update.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(opaque, Component, Default, Debug, PartialEq, Serialize, Deserialize)
)]
pub struct ColliderAabb(pub Aabb);

/// A bit mask of up to 32 collision layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Default, Debug, PartialEq, Hash)
)]
pub struct LayerMask(pub u32);

impl LayerMask {
    /// Every layer.
    pub const ALL: Self = Self(u32::MAX);
    /// No layer.
    pub const NONE: Self = Self(0);
    /// The first layer, the default membership.
    pub const DEFAULT: Self = Self(1);
}

impl Default for LayerMask {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl From<u32> for LayerMask {
    fn from(bits: u32) -> Self {
        Self(bits)
    }
}

/// Which layers an entity belongs to and which it collides with, as in
/// avian3d and rapier: `a` and `b` may collide when
/// `a.memberships & b.filters != 0` and `b.memberships & a.filters != 0`.
/// Pairs that fail the test never reach the narrow phase.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Default, Debug, PartialEq, Hash)
)]
pub struct CollisionLayers {
    /// Layers this entity belongs to.
    pub memberships: LayerMask,
    /// Layers this entity collides with.
    pub filters: LayerMask,
}

impl Default for CollisionLayers {
    fn default() -> Self {
        Self {
            memberships: LayerMask::DEFAULT,
            filters: LayerMask::ALL,
        }
    }
}

impl CollisionLayers {
    /// Layers from anything that converts into masks.
    pub fn new(memberships: impl Into<LayerMask>, filters: impl Into<LayerMask>) -> Self {
        Self {
            memberships: memberships.into(),
            filters: filters.into(),
        }
    }

    pub(crate) fn to_layers(self) -> Layers {
        Layers {
            memberships: self.memberships.0,
            filters: self.filters.0,
        }
    }
}

/// The current vertex positions of a deformable triangle-mesh collider, in
/// its local frame (same count and order as the mesh it was built from).
/// Write it whenever the mesh deforms: in the `UpdateBounds` stage the
/// collision world refits the collider's own AABB tree to it (SOLID's
/// bottom-up refit), its broad-phase box follows, and every pair, query and
/// ray uses the deformed surface. Bad positions (another count, NaN) are
/// reported once with a warning and skipped.
#[derive(Component, Clone, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Default, Debug, PartialEq)
)]
pub struct DeformedVertices(pub Vec<Vec3>);

/// Marks a collider as static: its box is computed when it is placed and
/// whenever its pose changes, and two static colliders never form a pair.
#[derive(Component, Clone, Copy, Debug, Default)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Default, Debug)
)]
pub struct StaticCollider;

/// Marks a collider as a sensor: its pairs report start / end only.
#[derive(Component, Clone, Copy, Debug, Default)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Default, Debug)
)]
pub struct Sensor;

/// Continuous collision detection for a fast collider (avian3d's name): its
/// pairs are found along its whole path from one frame to the next, and a
/// collider it passes through between two frames gets a
/// [`CollisionStart`](super::CollisionStart) at the first touch (and a
/// [`CollisionEnd`](super::CollisionEnd) the frame after, if they are
/// apart by then), so nothing tunnels. See [`crate::pipeline`]'s
/// `set_ccd`. Costs a shape cast per pair apart at the end of a step in
/// which the collider moved.
#[derive(Component, Clone, Copy, Debug, Default)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Default, Debug)
)]
pub struct SweptCcd;

/// The most a collider moves in one frame (between two runs of the
/// narrow phase): its origin by at most `linear` (world units), its
/// rotation by at most `angular` (radians). With
/// [`CollisionPlugin::with_time_to_collision`](super::CollisionPlugin::with_time_to_collision),
/// a pair of such colliders found apart is not tested again before it
/// could touch. A collider that moves farther than declared gets all its
/// pairs tested that frame (never a missed contact).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Debug, PartialEq)
)]
pub struct MaxFrameMotion {
    /// Largest translation per frame.
    pub linear: f32,
    /// Largest rotation per frame, radians.
    pub angular: f32,
}

/// Opts an entity in to collision events, as in avian: the
/// [`CollisionStart`](super::CollisionStart) / [`CollisionEnd`](super::CollisionEnd)
/// messages of its pairs, and the observer events targeted at it. Pairs
/// where neither entity has it write no message, unless the plugin was
/// built [`with_messages_for_all_pairs`](super::CollisionPlugin::with_messages_for_all_pairs).
/// An end is written exactly for the pairs whose start was.
#[derive(Component, Clone, Copy, Debug, Default)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Default, Debug)
)]
pub struct CollisionEventsEnabled;

/// The entities this collider touches, sorted, kept up to date by the plugin
/// (emptied when the collider gets its body, so a copy loaded from a scene
/// or cloned from another entity starts clean).
#[derive(Component, Clone, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Default, Debug, PartialEq)
)]
pub struct CollidingEntities(pub(crate) SmallVec<[Entity; 4]>);

impl CollidingEntities {
    /// Whether `e` touches this collider.
    pub fn contains(&self, e: Entity) -> bool {
        self.0.binary_search(&e).is_ok()
    }

    /// The touching entities, sorted.
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        self.0.iter().copied()
    }

    /// How many entities touch this collider.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether nothing touches this collider.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn insert(&mut self, e: Entity) {
        if let Err(i) = self.0.binary_search(&e) {
            self.0.insert(i, e);
        }
    }

    pub(crate) fn remove(&mut self, e: Entity) {
        if let Ok(i) = self.0.binary_search(&e) {
            self.0.remove(i);
        }
    }
}
