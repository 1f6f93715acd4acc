//! Colliders' shapes: built once, validated, shared by a cheap handle.
//!
//! A [`SharedShape`] is an `Arc` around [`ShapeData`]: the geometry (from
//! [`crate::shape`]) plus what every frame needs precomputed for it (the
//! convex hull with vertex adjacency for hill-climbing, the fixed bounding
//! cube, the OBB tree over its surface). A thousand chairs share one.
//!
//! Kinds today:
//! - [`ShapeKind::Convex`]: a convex polytope, the convex hull of a point set,
//!   with full adjacency for Lin–Canny.
//! - [`ShapeKind::TriMesh`]: a polygon soup (no topology required). Its bounds
//!   come from its convex hull; when the mesh is flat (a floor, a wall) and has
//!   no 3D hull, from its vertices directly.
//! - [`ShapeKind::Compound`]: convex (or mesh) pieces at local poses under an
//!   AABB tree, I-COLLIDE's hierarchy of convex pieces ([`Compound`]). Its
//!   bounds come from the hull of all the pieces' vertices.
//! - [`ShapeKind::Rounded`]: a sphere or a capsule ([`Rounded`]), exact
//!   (a core point or segment and a radius), for the cheap shapes game code
//!   expects. A box is a convex polytope ([`SharedShape::cuboid`]).
//! - [`ShapeKind::Implicit`]: a cylinder or a cone, sharp or rounded
//!   ([`Implicit`]), exact (its support mapping: GJK and EPA need nothing
//!   else).
//! - [`ShapeKind::RoundConvex`]: a convex polytope, a segment or a triangle
//!   swept by a ball ([`RoundConvex`]; a rounded box, a rounded hull; a
//!   sharp segment or triangle when the radius is 0), exact (the core's
//!   support mapping plus the radius).
//! - [`ShapeKind::HalfSpace`]: everything below a plane through the
//!   body's origin ([`HalfSpace`]), a ground; its box is the part within
//!   the world's limits (see [`limits`]).
//! - [`ShapeKind::HeightField`]: terrain, a grid of heights with holes
//!   ([`HeightField`](crate::shape::HeightField)), the grid its own tree.
//! - [`ShapeKind::Polyline`]: segments sharing points ([`Polyline`]), a
//!   composite of sharp segments, as a compound is of its pieces.
//!
//! Every shape also gets an OBB tree over its surface triangles (the mesh,
//! or the hull's) at build time, for exact mesh queries ([`crate::bvh`]).
//!
//! Builders return [`ShapeError`] for bad input: no points, NaN or infinite
//! coordinates, fewer than 4 non-coplanar points for a hull, out-of-range
//! triangle indices, and sizes beyond what `f32` can answer for
//! ([`limits`]: coordinates up to 2²⁸, aspect ratios up to 10⁴).

mod compound;
mod convex;
mod half_space;
mod heightfield;
pub mod kind;
pub mod limits;
mod polyline;
mod primitives;
mod round;
mod trimesh;

pub use compound::{Compound, CompoundPiece};
pub use kind::{KindData, LocalRay, RayFeature, ShapeKind};
pub use polyline::Polyline;

use std::sync::Arc;

use glam::Vec3;

use crate::bounds::FixedCube;
use crate::bvh::{Surface, SurfaceTree, TreeKind};
#[cfg(feature = "obj")]
use crate::io::ObjError;
use crate::math::Aabb;
use crate::math::prefetch::prefetch_value;
use crate::shape::{
    ConvexHull, ConvexPolytope, HalfSpace, HullError, Implicit, MeshError, RoundConvex, Rounded,
    TriMesh,
};

/// Why a shape could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeError {
    /// The convex hull could not be built.
    Hull(HullError),
    /// The triangle mesh is invalid.
    Mesh(MeshError),
    /// A parameter is out of its domain (named in the message).
    InvalidParameter(&'static str),
    /// The OBJ file could not be read.
    #[cfg(feature = "obj")]
    Obj(ObjError),
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShapeError::Hull(e) => write!(f, "convex hull: {e}"),
            ShapeError::Mesh(e) => write!(f, "triangle mesh: {e}"),
            ShapeError::InvalidParameter(what) => write!(f, "invalid parameter: {what}"),
            #[cfg(feature = "obj")]
            ShapeError::Obj(e) => write!(f, "OBJ: {e}"),
        }
    }
}

impl std::error::Error for ShapeError {}

impl From<HullError> for ShapeError {
    fn from(e: HullError) -> Self {
        ShapeError::Hull(e)
    }
}

#[cfg(feature = "obj")]
impl From<ObjError> for ShapeError {
    fn from(e: ObjError) -> Self {
        ShapeError::Obj(e)
    }
}

impl From<MeshError> for ShapeError {
    fn from(e: MeshError) -> Self {
        ShapeError::Mesh(e)
    }
}

/// How the broad phase bounds a shape.
#[derive(Debug)]
pub enum BoundsGeometry {
    /// A 3D convex hull: dynamic boxes hill-climb over its vertex graph.
    Hull(ConvexHull),
    /// A flat or degenerate point set without a 3D hull: boxes are computed
    /// from these points directly.
    Points(Vec<Vec3>),
    /// A sphere or capsule: the box of its core, grown by the radius (exact).
    Rounded(Rounded),
    /// A support-mapped shape: its box from six supports (exact).
    Implicit(Implicit),
    /// A half-space: its part within the world's limits
    /// ([`half_space`](crate::shape::HalfSpace::world_box)).
    HalfSpace(HalfSpace),
}

/// A shape and its precomputed bounding data. Use it through [`SharedShape`].
#[derive(Debug)]
pub struct ShapeData {
    kind: ShapeKind,
    bounds: BoundsGeometry,
    cube: FixedCube,
    local_aabb: Aabb,
    /// `local_aabb`'s reach (a bound on `|x|₂` over the shape's points).
    reach: f32,
    /// How much the boxes of the bounds geometry are grown by: a rounded
    /// convex shape's radius (its core is the bounds geometry), else 0.
    pad: f32,
    /// The hull's triangles as a mesh, for convex shapes (surface queries
    /// against meshes).
    hull_mesh: Option<TriMesh>,
    /// The tree over the surface triangles (the mesh, or the hull's).
    tree: SurfaceTree,
}

impl ShapeData {
    /// The convex polytope, for convex shapes.
    pub fn polytope(&self) -> Option<&ConvexPolytope> {
        match &self.kind {
            ShapeKind::Convex(p) => Some(p),
            _ => None,
        }
    }

    /// The parts the queries recurse into: a compound's pieces, a
    /// polyline's segments (see [`KindData::parts`]).
    pub fn compound(&self) -> Option<&Compound> {
        self.kind.data().parts()
    }

    /// A copy of this shape scaled by `factor` (> 0) about its origin.
    pub fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        if !factor.is_finite() || factor <= 0.0 {
            return Err(ShapeError::InvalidParameter(
                "scale factor must be finite and positive",
            ));
        }
        self.kind.data().scaled(factor)
    }

    /// Starts loading a convex shape's polytope fields (the narrow phase's
    /// read-ahead, four pairs ahead; see `math::prefetch`), which lead to
    /// its arrays. Reads the shape's kind to find them: hinting the whole
    /// shape instead (about a kilobyte) measured slower.
    #[inline]
    pub fn prefetch_fields(&self) {
        if let ShapeKind::Convex(p) = &self.kind {
            p.prefetch_fields();
        }
    }

    /// The shape's geometry.
    pub fn kind(&self) -> &ShapeKind {
        &self.kind
    }

    /// The kind's name, for messages: "convex", "triangle mesh", "compound",
    /// "sphere", "capsule", "cylinder", "cone" or "height field".
    pub fn kind_name(&self) -> &'static str {
        self.kind.data().name()
    }

    /// The geometry its boxes are computed from.
    pub fn bounds_geometry(&self) -> &BoundsGeometry {
        &self.bounds
    }

    /// Starts loading the bounds geometry's own fields (a hull's array
    /// headers), without reading anything: the box stage's read-ahead
    /// hints it before the hull's arrays (see
    /// [`DynamicBox::prefetch_fields`](crate::bounds::DynamicBox::prefetch_fields)).
    #[inline]
    pub fn prefetch_bounds_fields(&self) {
        prefetch_value(&self.bounds, std::mem::size_of::<BoundsGeometry>());
    }

    /// The convex hull, when the shape has a 3D one.
    pub fn hull(&self) -> Option<&ConvexHull> {
        match &self.bounds {
            BoundsGeometry::Hull(h) => Some(h),
            _ => None,
        }
    }

    /// The cylinder or cone, for implicit shapes.
    pub fn implicit(&self) -> Option<&Implicit> {
        match &self.kind {
            ShapeKind::Implicit(s) => Some(s),
            _ => None,
        }
    }

    /// The rounded convex shape, segment or triangle.
    pub fn round_convex(&self) -> Option<&RoundConvex> {
        match &self.kind {
            ShapeKind::RoundConvex(s) => Some(s),
            _ => None,
        }
    }

    /// The half-space, for half-space shapes.
    pub fn half_space(&self) -> Option<&HalfSpace> {
        match &self.kind {
            ShapeKind::HalfSpace(h) => Some(h),
            _ => None,
        }
    }

    /// How much the boxes of the bounds geometry are grown by (a rounded
    /// convex shape's radius; 0 for the other kinds).
    #[inline]
    pub fn bounds_pad(&self) -> f32 {
        self.pad
    }

    /// The sphere or capsule, for rounded shapes.
    pub fn rounded(&self) -> Option<&Rounded> {
        match &self.kind {
            ShapeKind::Rounded(r) => Some(r),
            _ => None,
        }
    }

    /// The fixed bounding cube (center and radius in the local frame).
    pub fn fixed_cube(&self) -> &FixedCube {
        &self.cube
    }

    /// The box of the shape in its own frame.
    pub fn local_aabb(&self) -> Aabb {
        self.local_aabb
    }

    /// A bound on `|x|₂` over the shape's points in its own frame (its
    /// local box's farthest corner): what a world box's rounding pad
    /// follows ([`Aabb::rounded_out`]).
    #[inline]
    pub fn reach(&self) -> f32 {
        self.reach
    }

    fn new(kind: ShapeKind, bounds: BoundsGeometry) -> Self {
        Self::with_tree(kind, bounds, TreeKind::Obb)
    }

    /// A shape whose boxes are its bounds geometry's grown by `pad`.
    fn padded(kind: ShapeKind, bounds: BoundsGeometry, pad: f32) -> Self {
        let mut s = Self::with_tree(kind, bounds, TreeKind::Obb);
        s.pad = pad;
        s.cube.radius += pad * (1.0 + 4.0 * f32::EPSILON);
        s.local_aabb = s.local_aabb.padded(pad);
        s.reach = s.local_aabb.reach();
        s
    }

    fn with_tree(kind: ShapeKind, bounds: BoundsGeometry, tree_kind: TreeKind) -> Self {
        let (cube, local_aabb) = match &bounds {
            BoundsGeometry::Hull(h) => points_bounds(h.vertices()),
            BoundsGeometry::Points(p) => points_bounds(p),
            BoundsGeometry::Rounded(r) => (
                FixedCube {
                    center: Vec3::ZERO,
                    radius: r.half_height + r.radius,
                },
                r.local_aabb(),
            ),
            BoundsGeometry::Implicit(s) => (
                FixedCube {
                    center: Vec3::ZERO,
                    radius: s.bounding_radius() * (1.0 + 4.0 * f32::EPSILON),
                },
                s.local_aabb(),
            ),
            BoundsGeometry::HalfSpace(h) => {
                let b = h.local_aabb();
                (
                    FixedCube {
                        center: Vec3::ZERO,
                        radius: b.reach(),
                    },
                    b,
                )
            }
        };
        let hull_mesh = match (&kind, &bounds) {
            (ShapeKind::Convex(_), BoundsGeometry::Hull(h)) => {
                TriMesh::new(h.vertices().to_vec(), h.triangles().to_vec()).ok()
            }
            _ => None,
        };
        let surface = surface_mesh(&kind, hull_mesh.as_ref());
        let tree = surface.map_or_else(SurfaceTree::default, |m| SurfaceTree::build(m, tree_kind));
        Self {
            kind,
            bounds,
            cube,
            reach: local_aabb.reach(),
            pad: 0.0,
            local_aabb,
            hull_mesh,
            tree,
        }
    }

    /// The surface as triangles with its tree: the mesh itself, or the
    /// convex hull's triangles. `None` for compounds (their pieces have one)
    /// and spheres, capsules, cylinders, cones and height fields.
    pub fn surface(&self) -> Option<Surface<'_>> {
        surface_mesh(&self.kind, self.hull_mesh.as_ref())
            .map(|mesh| Surface::new(mesh, self.tree.as_ref()))
    }

    /// The tree over the surface (an empty OBB tree for compounds and the
    /// round kinds).
    pub fn surface_tree(&self) -> &SurfaceTree {
        &self.tree
    }
}

/// The triangles a kind's surface is made of: a mesh's own, a convex
/// hull's (`hull_mesh`); none for the other kinds.
fn surface_mesh<'s>(kind: &'s ShapeKind, hull_mesh: Option<&'s TriMesh>) -> Option<&'s TriMesh> {
    kind.data().own_mesh().or(hull_mesh)
}

/// The fixed cube and local box of a point set.
fn points_bounds(pts: &[Vec3]) -> (FixedCube, Aabb) {
    (
        FixedCube::from_vertices(pts),
        Aabb::from_points(pts.iter().copied()),
    )
}

/// Bounds geometry of a point set: its hull, or the points themselves when
/// they are flat (a floor, a wall).
fn bounds_of(points: Vec<Vec3>) -> Result<BoundsGeometry, ShapeError> {
    match ConvexHull::new(&points) {
        Ok(h) => Ok(BoundsGeometry::Hull(h)),
        Err(HullError::Coplanar | HullError::Collinear | HullError::Coincident) => {
            Ok(BoundsGeometry::Points(points))
        }
        Err(e) => Err(e.into()),
    }
}

/// A cheap, clonable handle to a prebuilt shape (`Arc`-backed).
#[derive(Clone, Debug)]
pub struct SharedShape(Arc<ShapeData>);

impl std::ops::Deref for SharedShape {
    type Target = ShapeData;
    fn deref(&self) -> &ShapeData {
        &self.0
    }
}

impl SharedShape {
    /// A copy of this shape scaled by `factor` (> 0) about its origin.
    pub fn scaled(&self, factor: f32) -> Result<Self, ShapeError> {
        self.0.scaled(factor)
    }

    /// Whether two handles point at the same shape data.
    pub fn ptr_eq(&self, other: &SharedShape) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
