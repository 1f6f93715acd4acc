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
//!
//! Every shape also gets an OBB tree over its surface triangles (the mesh,
//! or the hull's) at build time, for exact mesh queries ([`crate::bvh`]).
//!
//! Builders return [`ShapeError`] for bad input: no points, NaN or infinite
//! coordinates, fewer than 4 non-coplanar points for a hull, out-of-range
//! triangle indices, and sizes beyond what `f32` can answer for
//! ([`limits`]: coordinates up to 2²⁸, aspect ratios up to 10⁴).

mod compound;
mod half_space;
mod heightfield;
pub mod limits;
mod primitives;
mod round;

pub use compound::{Compound, CompoundPiece};

use std::sync::Arc;

use glam::Vec3;

use crate::bounds::FixedCube;
use crate::bvh::{Surface, SurfaceTree, TreeKind};
#[cfg(feature = "obj")]
use crate::io::{ObjError, load_obj};
use crate::math::prefetch::prefetch_value;
use crate::math::{Aabb, Pose};
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

/// The geometry of a shape.
///
/// The polytope is stored inline, not boxed: shapes are built once and
/// shared, and the narrow phase's first touch of a polytope is on its hot
/// path (one indirection less measurably helps Lin–Canny).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum ShapeKind {
    /// A convex polytope (the hull, with faces, edges and Voronoi planes).
    Convex(ConvexPolytope),
    /// A triangle soup.
    TriMesh(TriMesh),
    /// Pieces under an AABB tree.
    Compound(Compound),
    /// A sphere or a capsule.
    Rounded(Rounded),
    /// A cylinder or a cone.
    Implicit(Implicit),
    /// A convex polytope, a segment or a triangle swept by a ball.
    RoundConvex(RoundConvex),
    /// Everything below a plane.
    HalfSpace(HalfSpace),
    /// A height field (terrain).
    HeightField(crate::shape::HeightField),
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

    /// The pieces, for compound shapes.
    pub fn compound(&self) -> Option<&Compound> {
        match &self.kind {
            ShapeKind::Compound(c) => Some(c),
            _ => None,
        }
    }

    /// A copy of this shape scaled by `factor` (> 0) about its origin.
    pub fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        if !factor.is_finite() || factor <= 0.0 {
            return Err(ShapeError::InvalidParameter(
                "scale factor must be finite and positive",
            ));
        }
        match &self.kind {
            ShapeKind::Convex(_) => {
                let pts: Vec<Vec3> = self.hull().map_or(Vec::new(), |h| {
                    h.vertices().iter().map(|v| *v * factor).collect()
                });
                SharedShape::convex_hull(&pts)
            }
            ShapeKind::TriMesh(m) => SharedShape::trimesh(
                m.vertices().iter().map(|v| *v * factor).collect(),
                m.triangles().to_vec(),
            ),
            ShapeKind::Compound(c) => {
                let pieces = c
                    .pieces()
                    .iter()
                    .map(|p| {
                        Ok(CompoundPiece {
                            pose: Pose::new(p.pose.rotation, p.pose.translation * factor),
                            shape: p.shape.scaled(factor)?,
                        })
                    })
                    .collect::<Result<Vec<_>, ShapeError>>()?;
                SharedShape::compound(pieces)
            }
            ShapeKind::Rounded(r) => {
                SharedShape::rounded(r.half_height * factor, r.radius * factor)
            }
            ShapeKind::Implicit(s) => SharedShape::implicit(Implicit {
                half_height: s.half_height * factor,
                radius: s.radius * factor,
                rounding: s.rounding * factor,
                ..*s
            }),
            ShapeKind::RoundConvex(s) => SharedShape::round_scaled(s, factor),
            ShapeKind::HalfSpace(h) => SharedShape::half_space(h.normal),
            ShapeKind::HeightField(h) => SharedShape::heightfield_from(h.scaled(factor)?),
        }
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
        match &self.kind {
            ShapeKind::Convex(_) => "convex",
            ShapeKind::TriMesh(_) => "triangle mesh",
            ShapeKind::Compound(_) => "compound",
            ShapeKind::Rounded(r) if r.is_sphere() => "sphere",
            ShapeKind::Rounded(_) => "capsule",
            ShapeKind::Implicit(s) => s.name(),
            ShapeKind::RoundConvex(s) => s.name(),
            ShapeKind::HalfSpace(_) => "half-space",
            ShapeKind::HeightField(_) => "height field",
        }
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
    match kind {
        ShapeKind::TriMesh(m) => Some(m),
        ShapeKind::Convex(_) => hull_mesh,
        ShapeKind::Compound(_)
        | ShapeKind::Rounded(_)
        | ShapeKind::Implicit(_)
        | ShapeKind::RoundConvex(_)
        | ShapeKind::HalfSpace(_)
        | ShapeKind::HeightField(_) => None,
    }
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
    /// The convex hull of `points` as a convex polytope.
    ///
    /// Errors: no points, a NaN or infinite coordinate, or all points
    /// coincident, collinear or coplanar (a hull needs 4 non-coplanar points).
    pub fn convex_hull(points: &[Vec3]) -> Result<Self, ShapeError> {
        limits::check_points(points)?;
        let hull = ConvexHull::new(points)?;
        let polytope = ConvexPolytope::from_hull(&hull);
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::Convex(polytope),
            BoundsGeometry::Hull(hull),
        ))))
    }

    /// A box with the given half-extents, centered on the origin.
    pub fn cuboid(half_extents: Vec3) -> Result<Self, ShapeError> {
        if !half_extents.is_finite() || half_extents.min_element() <= 0.0 {
            return Err(ShapeError::InvalidParameter(
                "cuboid half-extents must be finite and positive",
            ));
        }
        limits::check_cuboid(half_extents)?;
        let corners = Aabb::new(-half_extents, half_extents).corners();
        Self::convex_hull(&corners)
    }

    /// A triangle soup. Cracks, duplicate and degenerate triangles are valid.
    ///
    /// Errors: no vertices or no triangles, a NaN or infinite vertex, an index
    /// out of range.
    pub fn trimesh(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self, ShapeError> {
        Self::trimesh_with_tree(vertices, triangles, TreeKind::Obb)
    }

    /// [`trimesh`](Self::trimesh) with the tree of your choice: OBB (the
    /// default: tightest, for rigid models) or AABB (cheaper to build and
    /// refit; what a deformable body's tree is, see
    /// [`CollisionWorld::set_vertices`](crate::pipeline::CollisionWorld::set_vertices)).
    pub fn trimesh_with_tree(
        vertices: Vec<Vec3>,
        triangles: Vec<[u32; 3]>,
        tree: TreeKind,
    ) -> Result<Self, ShapeError> {
        let mesh = TriMesh::new(vertices, triangles)?;
        limits::check_points(mesh.vertices())?;
        let bounds = bounds_of(mesh.used_vertices())?;
        Ok(Self(Arc::new(ShapeData::with_tree(
            ShapeKind::TriMesh(mesh),
            bounds,
            tree,
        ))))
    }

    /// A compound of pieces (convex shapes or meshes) at poses in the
    /// compound's frame: a non-convex object as a hierarchy of convex
    /// pieces. The pieces keep sharing their data (`Arc`).
    ///
    /// Errors: no pieces, a bad piece pose, a piece that is a compound, a
    /// piece placed beyond [`limits::MAX_COORDINATE`].
    pub fn compound(pieces: Vec<CompoundPiece>) -> Result<Self, ShapeError> {
        let compound = Compound::new(pieces)?;
        let bounds = bounds_of(compound.points())?;
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::Compound(compound),
            bounds,
        ))))
    }

    /// A triangle soup from a Wavefront OBJ file (feature `obj`) (polygons fan-triangulated).
    /// Lines the reader skipped (such as the vertex/face count line of the
    /// FCL models) are logged as warnings.
    #[cfg(feature = "obj")]
    pub fn trimesh_from_obj(path: impl AsRef<std::path::Path>) -> Result<Self, ShapeError> {
        let mesh = load_obj(path)?;
        for w in &mesh.warnings {
            log::warn!("bevy_icollide: {w}");
        }
        Self::trimesh(mesh.positions, mesh.triangles)
    }

    /// The convex hull of the vertices of a Wavefront OBJ file (feature
    /// `obj`).
    #[cfg(feature = "obj")]
    pub fn convex_hull_from_obj(path: impl AsRef<std::path::Path>) -> Result<Self, ShapeError> {
        let mesh = load_obj(path)?;
        Self::convex_hull(&mesh.positions)
    }

    /// A copy of this shape scaled by `factor` (> 0) about its origin.
    pub fn scaled(&self, factor: f32) -> Result<Self, ShapeError> {
        self.0.scaled(factor)
    }

    /// Whether two handles point at the same shape data.
    pub fn ptr_eq(&self, other: &SharedShape) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
