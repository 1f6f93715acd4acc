//! The shape kinds ([`ShapeKind`]) and what every kind knows about itself
//! ([`KindData`]): its name, its support map (convex kinds), its ray cast
//! in its own frame, its own triangles, its parts (composite kinds) and a
//! scaled copy. Each kind implements [`KindData`] in its own file under
//! `collider/` (`convex.rs`, `trimesh.rs`, `compound.rs`, `primitives.rs`,
//! `round.rs`, `half_space.rs`, `heightfield.rs`, `polyline.rs`), next to
//! its builder; [`ShapeKind::data`] is the one `match` that hands a kind to
//! its implementation. Queries on one shape delegate through it; queries
//! on two shapes dispatch on the pair of kinds in one file per operation
//! (see `docs/notes/KINDS.md`), as parry's `QueryDispatcher` and Box2D's
//! `s_registers` table do.

use super::{Compound, Polyline, ShapeError, SharedShape};
use crate::geometry::ray::{Ray, RayHit};
use crate::geometry::support::SupportMap;
use crate::shape::{
    ConvexPolytope, HalfSpace, HeightField, Implicit, RoundConvex, Rounded, TriMesh,
};

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
    HeightField(HeightField),
    /// Segments sharing points (a composite of sharp segments).
    Polyline(Polyline),
}

impl ShapeKind {
    /// The kind's own implementation of what a kind knows: the one place
    /// a single-shape question dispatches on the kind.
    pub fn data(&self) -> &dyn KindData {
        match self {
            ShapeKind::Convex(k) => k,
            ShapeKind::TriMesh(k) => k,
            ShapeKind::Compound(k) => k,
            ShapeKind::Rounded(k) => k,
            ShapeKind::Implicit(k) => k,
            ShapeKind::RoundConvex(k) => k,
            ShapeKind::HalfSpace(k) => k,
            ShapeKind::HeightField(k) => k,
            ShapeKind::Polyline(k) => k,
        }
    }
}

/// How a kind answers a ray in its own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LocalRay {
    /// Its own closed form or walk answered: the first hit, if any.
    Answered(Option<RayHit>),
    /// Ask its surface (a mesh: its tree and triangles) or its parts.
    BySurface,
}

/// What a ray hit's `feature` names, for a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RayFeature {
    /// Nothing (a curved or featureless shape, or a ray starting inside).
    None,
    /// A face of a convex polytope.
    Face,
    /// A triangle (of a mesh or a height field).
    Triangle,
}

/// What a shape kind knows about itself, implemented next to its builder.
/// The defaults are those of a kind that has no such thing.
pub trait KindData {
    /// The kind's name, for messages ("convex", "capsule", "polyline"…).
    fn name(&self) -> &'static str;

    /// The support map GJK and EPA use, for a convex kind (with its
    /// margin, for a rounded one).
    fn support_map(&self) -> Option<&dyn SupportMap> {
        None
    }

    /// The first hit of `ray` (in the shape's frame) within `max_toi`.
    fn local_ray(&self, _ray: &Ray, _max_toi: f32) -> LocalRay {
        LocalRay::BySurface
    }

    /// What the `feature` of a ray hit on this kind names.
    fn ray_feature(&self, _feature: u32) -> RayFeature {
        RayFeature::None
    }

    /// The kind's own triangles, when it is a triangle surface.
    fn own_mesh(&self) -> Option<&TriMesh> {
        None
    }

    /// The parts of a composite kind (a compound's pieces, a polyline's
    /// segments), which the queries recurse into.
    fn parts(&self) -> Option<&Compound> {
        None
    }

    /// A copy scaled by `factor` (finite, > 0, checked by the caller)
    /// about the shape's origin, validated as a new shape.
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError>;
}
