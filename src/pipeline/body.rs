//! A body of the world: its shape, flags, pose and boxes.

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use crate::bounds::support_box;
use crate::bounds::{BoundsMode, DynamicBox, FixedCube};
use crate::broad_phase::{PairFilter, PairSet, ProxyKey, pair_key};
use crate::collider::{BoundsGeometry, ShapeKind, SharedShape};
use crate::math::{Aabb, Pose, WorldPose};
use crate::query::PairSide;
use crate::shape::{Implicit, Rounded};

use super::deform::Deformable;
use super::ttc::{SpeedBound, Travel};

/// Collision layers, with the convention of avian and rapier: two bodies
/// may collide when each one's `memberships` meets the other's `filters`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Layers {
    /// Layers this body belongs to.
    pub memberships: u32,
    /// Layers this body collides with.
    pub filters: u32,
}

impl Default for Layers {
    /// Member of the first layer, colliding with every layer.
    fn default() -> Self {
        Self {
            memberships: 1,
            filters: u32::MAX,
        }
    }
}

impl Layers {
    /// Whether two bodies with these layers may collide.
    #[inline]
    pub fn allows(&self, other: &Layers) -> bool {
        self.memberships & other.filters != 0 && other.memberships & self.filters != 0
    }
}

/// What a body is made of when it is added.
#[derive(Clone, Debug)]
pub struct BodyDesc {
    /// The shared shape.
    pub shape: SharedShape,
    /// Fixed cube or dynamic box.
    pub bounds: BoundsMode,
    /// Static bodies never pair with each other.
    pub is_static: bool,
    /// Collision layers.
    pub layers: Layers,
    /// `false`: every pair of this body is deactivated (I-COLLIDE's
    /// `deactivate_object`).
    pub active: bool,
    /// Sensors report start / end only (no contact data).
    pub sensor: bool,
    /// Caller's tag, carried into events (the plugin stores the entity).
    pub user_data: u64,
    /// Continuous detection: the body's pairs are found along its path
    /// from one narrow phase to the next, and a pair it passes through
    /// touches during that step (see [`CollisionWorld::set_ccd`](super::CollisionWorld::set_ccd)).
    pub ccd: bool,
}

impl BodyDesc {
    /// A dynamic (non-static), active body with a dynamic box, default
    /// layers, user data 0.
    pub fn new(shape: SharedShape) -> Self {
        Self {
            shape,
            bounds: BoundsMode::DynamicBox,
            is_static: false,
            layers: Layers::default(),
            active: true,
            sensor: false,
            user_data: 0,
            ccd: false,
        }
    }
}

/// A body's record. Laid out by hand (`repr(C)`, 64-byte aligned) so that
/// what every frame reads and writes for a moving body — the pose sync,
/// the bounds update, the broad phase's filter and the narrow phase's
/// hull path — lies in its first three cache lines (`HOT_BYTES`), what the
/// hull path and the filter read in the first two (`NARROW_BYTES`, the
/// span the narrow phase hints ahead: of a body at rest paired with a
/// mover, nothing else is read), and what only continuous detection,
/// time-to-collision scheduling and the events read comes after (the step
/// start and the travel alone are 192 bytes: between the pose and the
/// shape they would push the shape and the flags out of those lines).
#[derive(Debug)]
#[repr(C, align(64))]
pub(super) struct Body {
    /// The pose, its translation in `f64` (see [`WorldPose`]).
    pub pose: Option<WorldPose>,
    // Line 1 (`NARROW_BYTES`): with the pose, all the narrow phase's hull
    // path and the broad phase's filter read.
    pub shape: SharedShape,
    /// The slot's generation (see [`BodyHandle`](super::BodyHandle)).
    pub generation: u32,
    pub mode: BoundsMode,
    pub is_static: bool,
    pub active: bool,
    pub sensor: bool,
    /// Whether the body has a proxy in the broad phase (it gets one at its
    /// first bounds update with a pose).
    pub in_broad: bool,
    /// Pose or shape changed since the last bounds update.
    pub dirty: bool,
    pub alive: bool,
    /// Continuous detection (see `ccd.rs`).
    pub ccd: bool,
    pub tight: Aabb,
    pub layers: Layers,
    /// A deformable mesh's current vertices and tree.
    pub deform: Option<Box<Deformable>>,
    // Line 2: the bounds update's.
    pub dynamic_box: DynamicBox,
    /// The box at the current pose, without the sweep.
    pub unswept: Aabb,
    /// Scale along the shape's axes: `Vec3::ONE` unless a triangle mesh
    /// (see [`CollisionWorld::set_scale`](super::CollisionWorld::set_scale)).
    pub scale: Vec3,
    // Past `HOT_BYTES`: read by the optional features and the events.
    /// How far it may move per step (see `ttc.rs`).
    pub speed_bound: Option<SpeedBound>,
    pub user_data: u64,
    /// With `ccd`: where its step starts (the pose at the last narrow
    /// phase, or where `set_ccd` turned it on) and the box of its current
    /// shape there.
    pub step_start: Option<(WorldPose, Aabb)>,
    /// Time-to-collision scheduling's odometer (see `ttc.rs`).
    pub travel: Travel,
}

/// The bytes of a [`Body`] every frame reads for a moving body: its
/// first three cache lines (checked by a test).
#[cfg(test)]
pub(super) const HOT_BYTES: usize = 192;

/// The bytes of a [`Body`] the narrow phase's hull path reads of a body
/// (pose, shape, flags) and the broad phase's filter (flags, layers): its
/// first two cache lines, the narrow phase's hint (checked by a test). Of
/// a body at rest paired with a mover, that is all a frame reads.
pub(super) const NARROW_BYTES: usize = 128;

impl Body {
    pub fn new(d: BodyDesc, generation: u32) -> Self {
        Self {
            shape: d.shape,
            mode: d.bounds,
            is_static: d.is_static,
            layers: d.layers,
            active: d.active,
            sensor: d.sensor,
            user_data: d.user_data,
            dynamic_box: DynamicBox::new(),
            pose: None,
            scale: Vec3::ONE,
            tight: Aabb::EMPTY,
            in_broad: false,
            dirty: false,
            alive: true,
            generation,
            deform: None,
            ccd: d.ccd,
            step_start: None,
            unswept: Aabb::EMPTY,
            speed_bound: None,
            travel: Travel::default(),
        }
    }

    pub fn set_shape(&mut self, shape: SharedShape, mode: BoundsMode) {
        if !matches!(shape.kind(), ShapeKind::TriMesh(_)) {
            // Only meshes scale (the plugin sets it again from the
            // transform, and is told if it cannot).
            self.scale = Vec3::ONE;
        }
        self.shape = shape;
        self.mode = mode;
        self.dynamic_box = DynamicBox::new();
        self.deform = None;
        self.geometry_changed();
    }

    /// Its translation (the world origin before it has a pose): the origin
    /// of the frame its pairs are tested in.
    #[inline]
    pub fn origin(&self) -> DVec3 {
        self.pose.map_or(DVec3::ZERO, |p| p.translation)
    }

    /// The body as one side of a pair (its deformed surface, if any), in
    /// world coordinates rounded to `f32`.
    pub fn side(&self, penetration: bool) -> PairSide<'_> {
        self.side_in(DVec3::ZERO, penetration)
    }

    /// The body as one side of a query in the frame whose origin is the
    /// world point `origin` (see [`WorldPose::in_frame`]): its pose and
    /// its tight box moved there (rounded outward, wherever `origin` is).
    pub fn side_in(&self, origin: DVec3, penetration: bool) -> PairSide<'_> {
        let tight = if origin == DVec3::ZERO {
            self.tight
        } else {
            self.tight.shifted_out(-origin)
        };
        self.side_with(origin, tight, penetration)
    }

    /// The body as one side of a pair tested in the frame at `origin`, the
    /// translation of the pair's first body: its box moved there in `f32`
    /// ([`Aabb::moved_to_frame`], which its pad covers when `origin` is
    /// near it, as it is for a pair that may touch).
    #[inline]
    pub fn pair_side(&self, origin: DVec3, penetration: bool) -> PairSide<'_> {
        self.side_with(origin, self.tight.moved_to_frame(origin), penetration)
    }

    #[inline]
    fn side_with(&self, origin: DVec3, tight: Aabb, penetration: bool) -> PairSide<'_> {
        PairSide {
            shape: &self.shape,
            pose: self.pose.unwrap_or_default().in_frame(origin),
            tight,
            boolean_only: self.sensor || !penetration,
            deformed: self.deform.as_ref().map(|d| d.surface()),
            scale: self.scale,
        }
    }

    /// The body's box in its own frame: a deformed mesh's current box, or
    /// the shape's; scaled as the body is.
    pub fn local_box(&self) -> Aabb {
        let b = self
            .deform
            .as_ref()
            .map_or_else(|| self.shape.local_aabb(), |d| d.local_box());
        if self.scale == Vec3::ONE {
            return b;
        }
        b.scaled(self.scale)
    }

    /// The box without margin of a scaled, undeformed mesh at `pose`: its
    /// hull's box, scaled, exact for the hull; the fixed cube of the scaled
    /// mesh for a fixed-cube body. (A deformed mesh's box is
    /// [`local_box`](Self::local_box), moved.)
    fn scaled_box(&self, pose: &Pose) -> Aabb {
        let s = self.scale;
        match (self.mode, self.shape.bounds_geometry()) {
            (BoundsMode::FixedCube, _) => {
                let cube = self.shape.fixed_cube();
                FixedCube {
                    center: cube.center * s,
                    radius: cube.radius * s.abs().max_element(),
                }
                .aabb(pose)
            }
            // Not padded: only meshes scale.
            (_, BoundsGeometry::Hull(hull)) => scaled_vertex_box(hull.vertices(), s, pose),
            (_, BoundsGeometry::Points(points)) => scaled_vertex_box(points, s, pose),
            // Not reached: only meshes scale.
            (_, BoundsGeometry::Rounded(r)) => rounded_box(r, pose),
            (_, BoundsGeometry::Implicit(s)) => implicit_box(s, pose),
            (_, BoundsGeometry::HalfSpace(h)) => h.world_box(pose),
        }
    }

    /// The box without margin at the current pose, and the hill-climbing
    /// visits it took; `None` before the first valid pose. A deformable
    /// body's box is its tree's root box, moved. Computed at the pose's
    /// rotation around the body's origin, rounded out (see
    /// [`rounded_out`](Self::rounded_out)), then [`Aabb::placed_at`] its
    /// `f64` translation (see [`super::large_world`]).
    pub fn compute_tight_box(&mut self) -> Option<(Aabb, u32)> {
        let at = self.pose?;
        let (b, visits) = self.turned_box(&Pose::new(at.rotation, Vec3::ZERO));
        Some((b.placed_at(at.translation), visits))
    }

    /// The box without margin at a pose without translation (see
    /// [`compute_tight_box`](Self::compute_tight_box)), rounded out.
    fn turned_box(&mut self, pose: &Pose) -> (Aabb, u32) {
        let pose = *pose;
        if self.deform.is_some() {
            return (self.local_box().transformed(&pose), 0);
        }
        if self.scale != Vec3::ONE {
            return (self.rounded_out(self.scaled_box(&pose), &pose), 0);
        }
        let (b, visits) = match (self.mode, self.shape.bounds_geometry()) {
            (BoundsMode::FixedCube, _) => (self.shape.fixed_cube().aabb(&pose), 0),
            // A rounded convex shape's core's box, grown by its radius.
            (BoundsMode::DynamicBox, BoundsGeometry::Hull(hull)) => {
                let (b, visits) = self.dynamic_box.update(hull, &pose);
                (b.padded(self.shape.bounds_pad()), visits)
            }
            (BoundsMode::DynamicBox, BoundsGeometry::Points(points)) => {
                let b = vertex_box(points, &pose).padded(self.shape.bounds_pad());
                (b, points.len() as u32)
            }
            (BoundsMode::DynamicBox, BoundsGeometry::Rounded(r)) => (rounded_box(r, &pose), 2),
            (BoundsMode::DynamicBox, BoundsGeometry::Implicit(s)) => (implicit_box(s, &pose), 6),
            (BoundsMode::DynamicBox, BoundsGeometry::HalfSpace(h)) => (h.world_box(&pose), 0),
        };
        (self.rounded_out(b, &pose), visits)
    }

    /// A box of the body's points at `pose`, as computed in `f32`, grown
    /// by [`rounding_pad`](crate::math::rounding_pad) of the body's reach
    /// (scaled) and translation, in every bounds mode: no pair the pair
    /// tests call touching has its boxes apart. (A deformed mesh's box,
    /// [`Aabb::transformed`], has the pad already.)
    #[inline]
    fn rounded_out(&self, b: Aabb, pose: &Pose) -> Aabb {
        let reach = self.shape.reach() * self.scale.abs().max_element();
        b.rounded_out(reach, pose.translation)
    }

    /// The step before [`prefetch_bounds`](Self::prefetch_bounds): the
    /// shape's bounds fields, found from the body's record alone.
    #[inline]
    pub fn prefetch_bounds_fields(&self) {
        if self.mode == BoundsMode::DynamicBox {
            self.shape.prefetch_bounds_fields();
        }
    }

    /// Starts loading what [`compute_tight_box`](Self::compute_tight_box)
    /// of a hull's dynamic box reads (a cache hint; see
    /// [`DynamicBox::prefetch`](crate::bounds::DynamicBox::prefetch)).
    #[inline]
    pub fn prefetch_bounds(&self) {
        if self.mode == BoundsMode::DynamicBox
            && self.deform.is_none()
            && self.scale == Vec3::ONE
            && let BoundsGeometry::Hull(hull) = self.shape.bounds_geometry()
        {
            DynamicBox::prefetch(hull);
        }
    }

    /// The box without margin at the current pose, computed afresh and
    /// without touching the dynamic box's state (for queries on a body moved
    /// since the last bounds update). `None` without a pose.
    pub fn fresh_box(&self) -> Option<Aabb> {
        Some(self.box_at(&self.pose?))
    }

    /// The box without margin of the body's current shape at `at`: its box
    /// at `at`'s rotation ([`box_at_pose`](Self::box_at_pose)) moved to
    /// its `f64` translation ([`Aabb::placed_at`]: never a missed pair).
    pub fn box_at(&self, at: &WorldPose) -> Aabb {
        self.box_at_pose(&Pose::new(at.rotation, Vec3::ZERO))
            .placed_at(at.translation)
    }

    /// The box without margin of the body's current shape at `pose`: the
    /// fixed cube, or the box of the hull's vertices (the box
    /// hill-climbing finds), of a deformed mesh's current vertices, of a
    /// scaled mesh's hull.
    fn box_at_pose(&self, pose: &Pose) -> Aabb {
        if self.deform.is_some() {
            return self.local_box().transformed(pose);
        }
        if self.scale != Vec3::ONE {
            return self.rounded_out(self.scaled_box(pose), pose);
        }
        let b = match (self.mode, self.shape.bounds_geometry()) {
            (BoundsMode::FixedCube, _) => self.shape.fixed_cube().aabb(pose),
            (BoundsMode::DynamicBox, BoundsGeometry::Hull(hull)) => {
                vertex_box(hull.vertices(), pose).padded(self.shape.bounds_pad())
            }
            (BoundsMode::DynamicBox, BoundsGeometry::Points(points)) => {
                vertex_box(points, pose).padded(self.shape.bounds_pad())
            }
            (BoundsMode::DynamicBox, BoundsGeometry::Rounded(r)) => rounded_box(r, pose),
            (BoundsMode::DynamicBox, BoundsGeometry::Implicit(s)) => implicit_box(s, pose),
            (BoundsMode::DynamicBox, BoundsGeometry::HalfSpace(h)) => h.world_box(pose),
        };
        self.rounded_out(b, pose)
    }

    /// The body's geometry changed (shape, scale, vertices): its pairs are
    /// all retested (their distances were measured on the old one), and the
    /// start of its sweep, if any, gets the new geometry's box.
    pub fn geometry_changed(&mut self) {
        self.retest_pairs();
        if let Some((pose, _)) = self.step_start {
            self.step_start = Some((pose, self.box_at(&pose)));
        }
    }

    /// The box without margin at the current pose, as queries see it: the
    /// last bounds update's, or a fresh one if the body moved since.
    pub fn current_box(&self) -> Option<Aabb> {
        match (self.dirty, self.in_broad) {
            (true, _) => self.fresh_box(),
            (false, true) => Some(self.tight),
            (false, false) => None,
        }
    }
}

/// The world's pair rules as the broad phase asks them: layers, activity
/// and the deactivated pairs (I-COLLIDE's pair configuration), stored once,
/// in the world.
pub(super) struct PairRules<'a> {
    pub bodies: &'a [Body],
    pub disabled: &'a PairSet,
}

impl PairFilter for PairRules<'_> {
    #[inline]
    fn allows(&self, a: ProxyKey, b: ProxyKey) -> bool {
        let (ba, bb) = (&self.bodies[a as usize], &self.bodies[b as usize]);
        ba.active
            && bb.active
            && ba.layers.allows(&bb.layers)
            && (self.disabled.is_empty() || !self.disabled.contains(&pair_key(a, b)))
    }

    /// The body's layers, packed; an inactive body is in group 0 (no
    /// memberships), which pairs with nothing.
    #[inline]
    fn group(&self, key: ProxyKey) -> u64 {
        let body = &self.bodies[key as usize];
        if body.active {
            (u64::from(body.layers.memberships) << 32) | u64::from(body.layers.filters)
        } else {
            0
        }
    }

    #[inline]
    fn groups_pair(&self, g: u64, h: u64) -> bool {
        let layers = |g: u64| Layers {
            memberships: (g >> 32) as u32,
            filters: g as u32,
        };
        layers(g).allows(&layers(h))
    }
}

/// The box of a sphere or capsule at `pose`: its core's box grown by the
/// radius.
fn rounded_box(r: &Rounded, pose: &Pose) -> Aabb {
    Aabb::from_points(r.core().map(|p| pose.transform_point(p))).padded(r.radius)
}

/// The box of a cylinder or cone at `pose`: six supports (exact).
pub(crate) fn implicit_box(s: &Implicit, pose: &Pose) -> Aabb {
    support_box(s, pose, s.bounding_radius())
}

/// The box of `points` scaled by `s` (per axis) and moved by `pose`.
fn scaled_vertex_box(points: &[Vec3], s: Vec3, pose: &Pose) -> Aabb {
    Aabb::from_points(points.iter().map(|p| pose.transform_point(*p * s)))
}

/// The box of `points` moved by `pose`.
pub(crate) fn vertex_box(points: &[Vec3], pose: &Pose) -> Aabb {
    Aabb::from_points(points.iter().map(|p| pose.transform_point(*p)))
}
