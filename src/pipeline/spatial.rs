//! Spatial queries against the whole world: the bodies whose broad-phase
//! box overlaps a box ([`CollisionWorld::aabb_query`]), the bodies a shape
//! at a pose intersects, exactly ([`CollisionWorld::intersect_shape`]), and
//! ray casts, nearest hit ([`CollisionWorld::ray_cast`]) or every hit
//! ([`CollisionWorld::ray_cast_all`]), with a layer and exclusion filter
//! ([`QueryFilter`]). Shape casts are in `shape_cast.rs`
//! ([`CollisionWorld::cast_shape`]).
//!
//! **No second world.** Candidates come from the broad phase's own data
//! ([`BroadPhase::query_aabb`], [`BroadPhase::query_ray`]): for the grid,
//! the cells a box covers or a ray crosses (in order along the ray), a
//! binary search in each cell's sorted x endpoint list, the oversized
//! proxies tested directly. The exact tests are those of [`crate::query`]:
//! the pair test for shapes (Lin–Canny for convex–convex, simultaneous
//! OBB-tree traversal with exact triangle tests when a triangle mesh is
//! involved), Cyrus–Beck for rays on convex shapes and the shape's OBB tree
//! (Möller–Trumbore at the leaves) for rays on meshes.
//!
//! **Cost.** A box query costs the cells it covers plus the candidates in
//! them; a shape query adds one cold exact test per candidate whose tight
//! box overlaps the shape's box. A first-hit ray cast walks the cells in
//! order and stops at the first cell entered beyond the nearest hit so far,
//! so it usually casts against a few shapes near the hit;
//! [`CollisionWorld::ray_cast_all`] walks to the end of the ray. Results
//! are sorted (by handle, or by distance then handle) so that they do not
//! depend on the broad phase's internal order. Queries take `&self`.
//!
//! **What a query sees.** Every live body with a valid pose, at its current
//! pose: bodies moved (or given a shape) since the last bounds update are
//! tested with a box computed afresh from their pose, the others with the
//! box of the last bounds update (the broad phase's box: tight box plus the
//! margin). A body whose pairs are deactivated is still seen.

use glam::{DVec3, Vec3};

use super::body::{Body, vertex_box};
use super::{BodyHandle, CollisionWorld, WorldError};
use crate::broad_phase::BroadPhase;
use crate::collider::{BoundsGeometry, RayFeature, SharedShape};
use crate::math::{Aabb, Pose, WorldPose};
use crate::query::{self, Ray};

/// Which bodies a query sees: those in a layer of `mask` and not excluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryFilter<'a> {
    /// A body is seen when `mask & memberships != 0` (its
    /// [`Layers::memberships`](super::Layers::memberships)).
    pub mask: u32,
    /// Bodies never seen (scanned linearly: meant for a few bodies, such as
    /// the one casting the ray).
    pub exclude: &'a [BodyHandle],
}

impl Default for QueryFilter<'_> {
    /// Every layer, nothing excluded.
    fn default() -> Self {
        QueryFilter::ALL
    }
}

impl QueryFilter<'static> {
    /// Every layer, nothing excluded.
    pub const ALL: Self = QueryFilter {
        mask: u32::MAX,
        exclude: &[],
    };

    /// The bodies in a layer of `mask`.
    pub fn from_mask(mask: u32) -> Self {
        QueryFilter { mask, exclude: &[] }
    }
}

impl QueryFilter<'_> {
    /// The same filter, also excluding `exclude`.
    pub fn with_exclude(self, exclude: &[BodyHandle]) -> QueryFilter<'_> {
        QueryFilter {
            mask: self.mask,
            exclude,
        }
    }

    /// Whether a body with these layer memberships passes.
    #[inline]
    pub fn accepts(&self, id: BodyHandle, memberships: u32) -> bool {
        self.mask & memberships != 0 && !self.exclude.contains(&id)
    }
}

/// Where a ray meets a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldRayHit {
    /// The body hit.
    pub body: BodyHandle,
    /// Ray parameter of the hit, in units of the ray's direction (0 when the
    /// ray starts inside a convex body).
    pub toi: f32,
    /// The hit point, world space.
    pub point: Vec3,
    /// The hit point, world space, in `f64`: the ray's origin plus its
    /// direction times `toi` (that product in `f32`), the sum in `f64` (see
    /// [`super::large_world`]).
    pub point_f64: DVec3,
    /// Unit surface normal at the hit, world space: outward for a convex
    /// body (zero when the ray starts inside it), facing the ray's origin
    /// for a mesh.
    pub normal: Vec3,
    /// The triangle hit, for a triangle mesh (or a compound's mesh piece).
    pub triangle: Option<u32>,
    /// The face hit, for a convex polytope (or a compound's convex piece)
    /// the ray starts outside of.
    pub face: Option<u32>,
    /// The compound piece hit (0 for a body that is not a compound).
    pub piece: u32,
}

impl<B: BroadPhase> CollisionWorld<B> {
    /// The bodies whose broad-phase box (tight box plus the margin, as
    /// [`aabb`](Self::aabb) returns it) overlaps `aabb` (touching counts),
    /// sorted by handle, in `out` (cleared first).
    pub fn aabb_query(&self, aabb: Aabb, filter: QueryFilter<'_>, out: &mut Vec<BodyHandle>) {
        out.clear();
        self.visit_boxes(&aabb, &filter, |id, _| out.push(id));
        out.sort_unstable();
    }

    /// The bodies `shape` at `pose` intersects (touching counts), exactly,
    /// as [`query::intersects`] decides (a triangle mesh is a surface, the
    /// other kinds solids), sorted by handle, in `out` (cleared first).
    /// Errors: a pose the world refuses (see
    /// [`set_pose`](Self::set_pose)).
    pub fn intersect_shape(
        &self,
        shape: &SharedShape,
        pose: Pose,
        filter: QueryFilter<'_>,
        out: &mut Vec<BodyHandle>,
    ) -> Result<(), WorldError> {
        super::checks::pose(&pose)?;
        self.intersect_shape_f64(shape, pose.into(), filter, out)
    }

    /// The nearest body `ray` meets within `max_toi` (in units of
    /// `ray.dir`), by [`query::ray_cast`]; among bodies hit at the same
    /// parameter, the smallest handle. `None` also for a NaN or infinite ray.
    pub fn ray_cast(
        &self,
        ray: &Ray,
        max_toi: f32,
        filter: QueryFilter<'_>,
    ) -> Option<WorldRayHit> {
        let mut best: Option<WorldRayHit> = None;
        self.visit_ray(ray, max_toi, &filter, |id, body, limit| {
            if let Some(hit) = cast_body(id, body, (DVec3::ZERO, ray), limit)
                && best.is_none_or(|b| hit.toi < b.toi || (hit.toi == b.toi && hit.body < b.body))
            {
                best = Some(hit);
            }
            best.map_or(max_toi, |b| b.toi)
        });
        best
    }

    /// Every body `ray` meets within `max_toi`, its first hit each, sorted
    /// by parameter then handle, in `out` (cleared first).
    pub fn ray_cast_all(
        &self,
        ray: &Ray,
        max_toi: f32,
        filter: QueryFilter<'_>,
        out: &mut Vec<WorldRayHit>,
    ) {
        out.clear();
        self.visit_ray(ray, max_toi, &filter, |id, body, _| {
            out.extend(cast_body(id, body, (DVec3::ZERO, ray), max_toi));
            max_toi
        });
        out.sort_unstable_by(|a, b| a.toi.total_cmp(&b.toi).then(a.body.cmp(&b.body)));
    }

    /// Calls `f` with the pair side (current pose, deformed surface, scale)
    /// of each body passing `filter` that has a valid pose and whose tight
    /// box overlaps `aabb`: the bodies a query near `aabb` must test
    /// exactly (the slide's contact gathering, [`crate::character`]).
    pub(crate) fn visit_sides(
        &self,
        aabb: &Aabb,
        filter: &QueryFilter<'_>,
        mut f: impl FnMut(BodyHandle, query::PairSide<'_>),
    ) {
        self.visit_boxes(aabb, filter, |id, body| {
            if let (Some(tight), Some(_)) = (body.current_box(), body.pose)
                && tight.overlaps(aabb)
            {
                let mut side = body.side(false);
                side.tight = tight;
                f(id, side);
            }
        });
    }

    /// The bodies passing `filter` whose broad-phase box overlaps `region`,
    /// into `out` (cleared first): gathered once for many queries inside
    /// it ([`Self::visit_sides_among`], `cast_shape_among`).
    pub(crate) fn gather(
        &self,
        region: &Aabb,
        filter: &QueryFilter<'_>,
        out: &mut Vec<BodyHandle>,
    ) {
        out.clear();
        self.visit_boxes(region, filter, |id, _| out.push(id));
    }

    /// [`Self::visit_sides`] among `bodies` (gathered by [`Self::gather`]
    /// with a region holding `aabb`).
    pub(crate) fn visit_sides_among(
        &self,
        bodies: &[BodyHandle],
        aabb: &Aabb,
        mut f: impl FnMut(BodyHandle, query::PairSide<'_>),
    ) {
        for &id in bodies {
            if let Ok(body) = self.body(id)
                && let (Some(tight), Some(_)) = (body.current_box(), body.pose)
                && tight.overlaps(aabb)
            {
                let mut side = body.side(false);
                side.tight = tight;
                f(id, side);
            }
        }
    }

    /// Calls `f` once for each body passing `filter` whose broad-phase box
    /// (fresh for bodies moved since the last bounds update) overlaps `aabb`.
    pub(super) fn visit_boxes<'s>(
        &'s self,
        aabb: &Aabb,
        filter: &QueryFilter<'_>,
        mut f: impl FnMut(BodyHandle, &'s Body),
    ) {
        self.broad.query_aabb(aabb, &mut |i| {
            let body = &self.bodies[i as usize];
            let h = self.handle(i);
            if body.alive && !body.dirty && filter.accepts(h, body.layers.memberships) {
                f(h, body);
            }
        });
        let margin = self.config.margin;
        for &i in &self.dirty {
            let body = &self.bodies[i as usize];
            let h = self.handle(i);
            if body.alive
                && body.dirty
                && filter.accepts(h, body.layers.memberships)
                && body
                    .fresh_box()
                    .is_some_and(|b| b.padded(margin).overlaps(aabb))
            {
                f(h, body);
            }
        }
    }

    /// Calls `f(body, limit)` for each body passing `filter` whose box the
    /// ray may reach within `limit`; `f` returns the new limit. Bodies moved
    /// since the last bounds update are all passed, first.
    fn visit_ray(
        &self,
        ray: &Ray,
        max_toi: f32,
        filter: &QueryFilter<'_>,
        mut f: impl FnMut(BodyHandle, &Body, f32) -> f32,
    ) {
        if !ray.origin.is_finite() || !ray.dir.is_finite() || max_toi.is_nan() || max_toi < 0.0 {
            return;
        }
        let mut limit = max_toi;
        for &i in &self.dirty {
            let body = &self.bodies[i as usize];
            let h = self.handle(i);
            if body.alive && body.dirty && filter.accepts(h, body.layers.memberships) {
                limit = f(h, body, limit);
            }
        }
        self.broad
            .query_ray(ray.origin, ray.dir, limit, &mut |i, _| {
                let body = &self.bodies[i as usize];
                let h = self.handle(i);
                if body.alive && !body.dirty && filter.accepts(h, body.layers.memberships) {
                    limit = f(h, body, limit);
                }
                limit
            });
    }
}

/// Whether `shape` at `at` touches a body (its deformed surface, if any),
/// whose box is `tight`, as [`query::intersects`] decides, in the frame at
/// the shape's translation.
pub(super) fn shape_touches(shape: &SharedShape, at: &WorldPose, body: &Body, tight: Aabb) -> bool {
    let origin = at.translation;
    let mut side = body.side_in(origin, false);
    side.boolean_only = true;
    side.tight = tight.shifted_out(-origin);
    query::intersects_side(&query::PairSide::of(shape, &at.in_frame(origin)), &side)
}

/// The first hit of `ray` (given in the frame at the world point
/// `origin`) on one body within `limit`, tested in that frame.
pub(super) fn cast_body(
    id: BodyHandle,
    body: &Body,
    (origin, ray): (DVec3, &Ray),
    limit: f32,
) -> Option<WorldRayHit> {
    body.pose?;
    let hit = query::ray_cast_side(&body.side_in(origin, false), ray, limit).ok()??;
    let point_f64 = origin + ray.origin.as_dvec3() + (ray.dir * hit.toi).as_dvec3();
    let shape = match body.shape.compound() {
        Some(c) => &c.pieces()[hit.piece as usize].shape,
        None => &body.shape,
    };
    let feature = shape.kind().data().ray_feature(hit.feature);
    let (mesh, convex) = (feature == RayFeature::Triangle, feature == RayFeature::Face);
    Some(WorldRayHit {
        body: id,
        toi: hit.toi,
        point: point_f64.as_vec3(),
        point_f64,
        normal: hit.normal,
        triangle: mesh.then_some(hit.feature),
        face: convex.then_some(hit.feature),
        piece: hit.piece,
    })
}

/// The box of a shape at a pose (of its hull's or its points' vertices;
/// a sphere's or capsule's local box moved, which holds it), rounded out
/// as the bodies' boxes are ([`Aabb::rounded_out`] at its rotation, then
/// [`Aabb::placed_at`] its translation).
pub(super) fn shape_box(shape: &SharedShape, at: &WorldPose) -> Aabb {
    let pose = &Pose::new(at.rotation, Vec3::ZERO);
    match shape.bounds_geometry() {
        BoundsGeometry::Hull(hull) => vertex_box(hull.vertices(), pose).padded(shape.bounds_pad()),
        BoundsGeometry::Points(points) => vertex_box(points, pose).padded(shape.bounds_pad()),
        BoundsGeometry::Rounded(_) => shape.local_aabb().transformed(pose),
        BoundsGeometry::Implicit(s) => super::body::implicit_box(s, pose),
        BoundsGeometry::HalfSpace(h) => h.world_box(pose),
    }
    .rounded_out(shape.reach(), Vec3::ZERO)
    .placed_at(at.translation)
}
