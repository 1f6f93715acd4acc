use glam::Vec3;

use crate::bounds::{BoundsMode, DynamicBox};
use crate::broad_phase::{ProxyFilter, ProxyId};
use crate::math::{Aabb, Pose};
use crate::shape::{BoundsGeometry, Rounded, SharedShape};

/// Index of a body in a [`CollisionWorld`](super::CollisionWorld) (reused
/// after removal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BodyId(pub u32);

/// What a body is made of when it is added.
#[derive(Clone, Debug)]
pub struct BodyDesc {
    /// The shared shape.
    pub shape: SharedShape,
    /// Fixed cube or dynamic box.
    pub bounds: BoundsMode,
    /// Static bodies never pair with each other.
    pub is_static: bool,
    /// Layers and activity.
    pub filter: ProxyFilter,
    /// Sensors report start / end only.
    pub sensor: bool,
    /// Caller's tag, carried into events (the plugin stores the entity).
    pub user_data: u64,
}

impl BodyDesc {
    /// A dynamic (non-static) body with a dynamic box, default layers.
    pub fn new(shape: SharedShape) -> Self {
        Self {
            shape,
            bounds: BoundsMode::DynamicBox,
            is_static: false,
            filter: ProxyFilter::default(),
            sensor: false,
            user_data: 0,
        }
    }
}

#[derive(Debug)]
pub(super) struct Body {
    pub shape: SharedShape,
    pub mode: BoundsMode,
    pub is_static: bool,
    pub filter: ProxyFilter,
    pub sensor: bool,
    pub user_data: u64,
    pub dynamic_box: DynamicBox,
    pub pose: Option<Pose>,
    pub tight: Aabb,
    pub proxy: Option<ProxyId>,
    pub dirty: bool,
    pub moved: bool,
    pub alive: bool,
}

impl Body {
    pub fn new(d: BodyDesc) -> Self {
        Self {
            shape: d.shape,
            mode: d.bounds,
            is_static: d.is_static,
            filter: d.filter,
            sensor: d.sensor,
            user_data: d.user_data,
            dynamic_box: DynamicBox::new(),
            pose: None,
            tight: Aabb::EMPTY,
            proxy: None,
            dirty: false,
            moved: false,
            alive: true,
        }
    }

    pub fn set_shape(&mut self, shape: SharedShape, mode: BoundsMode) {
        self.shape = shape;
        self.mode = mode;
        self.dynamic_box = DynamicBox::new();
    }

    /// The box without margin at the current pose, and the hill-climbing
    /// visits it took; `None` before the first valid pose.
    pub fn compute_tight_box(&mut self) -> Option<(Aabb, u32)> {
        let pose = self.pose?;
        Some(match (self.mode, self.shape.bounds_geometry()) {
            (BoundsMode::FixedCube, _) => (self.shape.fixed_cube().aabb(&pose), 0),
            (BoundsMode::DynamicBox, BoundsGeometry::Hull(hull)) => {
                self.dynamic_box.update(hull, &pose)
            }
            (BoundsMode::DynamicBox, BoundsGeometry::Points(points)) => {
                (vertex_box(points, &pose), points.len() as u32)
            }
            (BoundsMode::DynamicBox, BoundsGeometry::Rounded(r)) => (rounded_box(r, &pose), 2),
        })
    }

    /// The box without margin at the current pose, computed afresh and
    /// without touching the dynamic box's state (for queries on a body moved
    /// since the last bounds update): the fixed cube, or the box of the
    /// hull's vertices (the box hill-climbing finds). `None` without a pose.
    pub fn fresh_box(&self) -> Option<Aabb> {
        let pose = self.pose?;
        Some(match (self.mode, self.shape.bounds_geometry()) {
            (BoundsMode::FixedCube, _) => self.shape.fixed_cube().aabb(&pose),
            (BoundsMode::DynamicBox, BoundsGeometry::Hull(hull)) => {
                vertex_box(hull.vertices(), &pose)
            }
            (BoundsMode::DynamicBox, BoundsGeometry::Points(points)) => vertex_box(points, &pose),
            (BoundsMode::DynamicBox, BoundsGeometry::Rounded(r)) => rounded_box(r, &pose),
        })
    }

    /// The box without margin at the current pose, as queries see it: the
    /// last bounds update's, or a fresh one if the body moved since.
    pub fn current_box(&self) -> Option<Aabb> {
        match (self.dirty, self.proxy) {
            (true, _) => self.fresh_box(),
            (false, Some(_)) => Some(self.tight),
            (false, None) => None,
        }
    }
}

/// The box of a sphere or capsule at `pose`: its core's box grown by the
/// radius (exact).
fn rounded_box(r: &Rounded, pose: &Pose) -> Aabb {
    Aabb::from_points(r.core().map(|p| pose.transform_point(p))).padded(r.radius)
}

/// The box of `points` moved by `pose`.
pub(crate) fn vertex_box(points: &[Vec3], pose: &Pose) -> Aabb {
    Aabb::from_points(points.iter().map(|p| pose.transform_point(*p)))
}
