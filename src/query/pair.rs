//! The vocabulary of pair tests: a side ([`PairSide`]), a result
//! ([`PairResult`]) and its contact data ([`ContactData`]).

use glam::Vec3;

use crate::bvh::Surface;
use crate::collider::ShapeData;
use crate::math::{Aabb, Pose};
use crate::shape::Feature;

/// One side of a pair: a shape at a pose, as the pair tests see it.
#[derive(Clone, Copy)]
pub struct PairSide<'a> {
    /// The shape.
    pub shape: &'a ShapeData,
    /// Its pose.
    pub pose: Pose,
    /// Its world box without margin.
    pub tight: Aabb,
    /// Skip the penetration depth (sensors, or a world without depth).
    pub boolean_only: bool,
    /// A deformable body's current surface (its own mesh and AABB tree),
    /// which replaces the shape's.
    pub deformed: Option<Surface<'a>>,
    /// Scale of a triangle-mesh side along its own axes (`Vec3::ONE` for
    /// every other shape): applied by the surface queries.
    pub scale: Vec3,
}

impl<'a> PairSide<'a> {
    /// A shape at a pose, boolean only, its box computed from the shape.
    pub fn of(shape: &'a ShapeData, pose: &Pose) -> Self {
        PairSide {
            tight: shape.local_aabb().transformed(pose),
            ..Self::unboxed(shape, pose)
        }
    }

    /// A shape at a pose, boolean only, its box left empty: for the pair
    /// tests that read no box (every pair without a compound, a polyline
    /// or a height field), so that a one-shot query can skip the box
    /// transforms it does not need.
    pub(crate) fn unboxed(shape: &'a ShapeData, pose: &Pose) -> Self {
        PairSide {
            tight: Aabb::EMPTY,
            shape,
            pose: *pose,
            boolean_only: true,
            deformed: None,
            scale: Vec3::ONE,
        }
    }

    /// Whether the pair tests read this side's box (a compound's or a
    /// polyline's pieces are culled by it; a height field against a
    /// static kind answers by boxes).
    pub(crate) fn reads_box(shape: &ShapeData) -> bool {
        shape.compound().is_some()
            || shape.heightfield().is_some()
            || matches!(shape.kind(), crate::collider::ShapeKind::Polyline(_))
    }

    /// The surface the pair tests use: the deformed one, or the shape's.
    #[inline]
    pub fn surface(&self) -> Option<Surface<'a>> {
        let s = self.deformed.or_else(|| self.shape.surface())?;
        Some(s.with_scale(self.scale))
    }
}

/// Contact data of a pair whose test computes it (convex – convex).
/// "A" is the pair's first body, "B" the second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactData {
    /// Separation distance; 0 when touching or penetrating.
    pub distance: f32,
    /// Penetration depth; 0 unless penetrating.
    pub depth: f32,
    /// Unit normal, world space, from A to B: B moves away from A along it
    /// (the direction of the closest points when separated, the EPA normal
    /// when penetrating).
    pub normal: Vec3,
    /// Closest (or deepest) point on A, world space.
    pub point_a: Vec3,
    /// Closest (or deepest) point on B, world space.
    pub point_b: Vec3,
    /// The closest (or penetrating) features: `[on A, on B]`, of the
    /// pieces below.
    pub features: [Feature; 2],
    /// For compounds, the pieces these data are about: `[of A, of B]` (0
    /// for a shape that is not a compound).
    pub pieces: [u32; 2],
}

impl ContactData {
    /// Contact data of two shapes without features (a ball, a capsule, a
    /// support-mapped shape: [`Feature::Vertex`]`(0)` on both sides), not
    /// compound pieces.
    pub(crate) fn featureless(
        distance: f32,
        depth: f32,
        normal: Vec3,
        point_a: Vec3,
        point_b: Vec3,
    ) -> Self {
        Self {
            distance,
            depth,
            normal,
            point_a,
            point_b,
            features: [Feature::Vertex(0); 2],
            pieces: [0, 0],
        }
    }

    /// The same contact seen from B.
    pub fn flipped(&self) -> Self {
        Self {
            normal: -self.normal,
            point_a: self.point_b,
            point_b: self.point_a,
            features: [self.features[1], self.features[0]],
            pieces: [self.pieces[1], self.pieces[0]],
            ..*self
        }
    }
}

/// The result of one pair test.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairResult {
    /// The objects touch (or, when `exact` is false, their tight boxes do).
    pub touching: bool,
    /// Whether the answer is an exact shape test (`false`: box overlap).
    pub exact: bool,
    /// Contact data, for pair kinds that compute it (overlapping
    /// boolean-only pairs skip it: they only report start and end).
    pub contact: Option<ContactData>,
    /// The objects touched during the step (continuous detection: a body's
    /// sweep from its last pose met the other) but not at their current
    /// poses; the contact data are those at the time of impact.
    pub swept: bool,
}

impl PairResult {
    /// An exact answer without contact data (mesh pairs report triangle
    /// pairs instead; boolean-only convex pairs skip it).
    pub(crate) fn exact_without_contact(touching: bool) -> Self {
        Self {
            touching,
            exact: true,
            contact: None,
            swept: false,
        }
    }

    /// An exact answer with the contact data `contact` makes, except when
    /// the pair touches in a boolean-only query, which needs no more than
    /// the answer (apart, the data still says how far).
    pub(crate) fn exact_with_contact(
        touching: bool,
        boolean_only: bool,
        contact: impl FnOnce() -> Option<ContactData>,
    ) -> Self {
        Self {
            touching,
            exact: true,
            contact: (!touching || !boolean_only).then(contact).flatten(),
            swept: false,
        }
    }
}
