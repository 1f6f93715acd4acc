//! Spatial queries against the whole world; see the
//! [world's module docs](super#spatial-queries).

use glam::Vec3;

use super::body::{Body, vertex_box};
use super::{BodyId, CollisionWorld, WorldError};
use crate::math::{Aabb, Pose};
use crate::query::{self, Ray};
use crate::shape::{BoundsGeometry, ShapeKind, SharedShape};

/// Which bodies a query sees: those in a layer of `mask` and not excluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryFilter<'a> {
    /// A body is seen when `mask & memberships != 0` (its
    /// [`ProxyFilter::memberships`](crate::broad_phase::ProxyFilter::memberships)).
    pub mask: u32,
    /// Bodies never seen (scanned linearly: meant for a few bodies, such as
    /// the one casting the ray).
    pub exclude: &'a [BodyId],
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
    pub fn with_exclude(self, exclude: &[BodyId]) -> QueryFilter<'_> {
        QueryFilter {
            mask: self.mask,
            exclude,
        }
    }

    /// Whether a body with these layer memberships passes.
    #[inline]
    pub fn accepts(&self, id: BodyId, memberships: u32) -> bool {
        self.mask & memberships != 0 && !self.exclude.contains(&id)
    }
}

/// Where a ray meets a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldRayHit {
    /// The body hit.
    pub body: BodyId,
    /// Ray parameter of the hit, in units of the ray's direction (0 when the
    /// ray starts inside a convex body).
    pub toi: f32,
    /// The hit point, world space.
    pub point: Vec3,
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

impl CollisionWorld {
    /// The bodies whose broad-phase box (tight box plus the margin, as
    /// [`aabb`](Self::aabb) returns it) overlaps `aabb` (touching counts),
    /// sorted by id, in `out` (cleared first). See the
    /// [world's module docs](crate::world#spatial-queries).
    pub fn aabb_query(&self, aabb: Aabb, filter: QueryFilter<'_>, out: &mut Vec<BodyId>) {
        out.clear();
        self.visit_boxes(&aabb, &filter, |id, _| out.push(id));
        out.sort_unstable();
    }

    /// The bodies `shape` at `pose` intersects (touching counts), exactly,
    /// as [`query::intersects`] decides (a surface query when a triangle
    /// mesh is involved), sorted by id, in `out` (cleared first).
    pub fn intersect_shape(
        &self,
        shape: &SharedShape,
        pose: Pose,
        filter: QueryFilter<'_>,
        out: &mut Vec<BodyId>,
    ) -> Result<(), WorldError> {
        out.clear();
        pose.validate().map_err(WorldError::InvalidPose)?;
        let aabb = shape_box(shape, &pose);
        self.visit_boxes(&aabb, &filter, |id, body| {
            let (Some(tight), Some(body_pose)) = (body.current_box(), body.pose) else {
                return;
            };
            if tight.overlaps(&aabb)
                && query::intersects(shape, &pose, &body.shape, &body_pose).unwrap_or(false)
            {
                out.push(id);
            }
        });
        out.sort_unstable();
        Ok(())
    }

    /// The nearest body `ray` meets within `max_toi` (in units of
    /// `ray.dir`), by [`query::ray_cast`]; among bodies hit at the same
    /// parameter, the smallest id. `None` also for a NaN or infinite ray.
    pub fn ray_cast(
        &self,
        ray: &Ray,
        max_toi: f32,
        filter: QueryFilter<'_>,
    ) -> Option<WorldRayHit> {
        let mut best: Option<WorldRayHit> = None;
        self.visit_ray(ray, max_toi, &filter, |id, body, limit| {
            if let Some(hit) = cast_body(id, body, ray, limit)
                && best.is_none_or(|b| hit.toi < b.toi || (hit.toi == b.toi && hit.body < b.body))
            {
                best = Some(hit);
            }
            best.map_or(max_toi, |b| b.toi)
        });
        best
    }

    /// Every body `ray` meets within `max_toi`, its first hit each, sorted
    /// by parameter then body id, in `out` (cleared first).
    pub fn ray_cast_all(
        &self,
        ray: &Ray,
        max_toi: f32,
        filter: QueryFilter<'_>,
        out: &mut Vec<WorldRayHit>,
    ) {
        out.clear();
        self.visit_ray(ray, max_toi, &filter, |id, body, _| {
            out.extend(cast_body(id, body, ray, max_toi));
            max_toi
        });
        out.sort_unstable_by(|a, b| a.toi.total_cmp(&b.toi).then(a.body.cmp(&b.body)));
    }

    /// Calls `f` once for each body passing `filter` whose broad-phase box
    /// (fresh for bodies moved since the last bounds update) overlaps `aabb`.
    fn visit_boxes(&self, aabb: &Aabb, filter: &QueryFilter<'_>, mut f: impl FnMut(BodyId, &Body)) {
        self.broad.query_aabb(aabb, |p| {
            let i = self.proxy_body[p as usize];
            let body = &self.bodies[i as usize];
            if body.alive && !body.dirty && filter.accepts(BodyId(i), body.filter.memberships) {
                f(BodyId(i), body);
            }
        });
        let margin = self.config.margin;
        for &i in &self.dirty {
            let body = &self.bodies[i as usize];
            if body.alive
                && body.dirty
                && filter.accepts(BodyId(i), body.filter.memberships)
                && body
                    .fresh_box()
                    .is_some_and(|b| b.padded(margin).overlaps(aabb))
            {
                f(BodyId(i), body);
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
        mut f: impl FnMut(BodyId, &Body, f32) -> f32,
    ) {
        if !ray.origin.is_finite() || !ray.dir.is_finite() || max_toi.is_nan() || max_toi < 0.0 {
            return;
        }
        let mut limit = max_toi;
        for &i in &self.dirty {
            let body = &self.bodies[i as usize];
            if body.alive && body.dirty && filter.accepts(BodyId(i), body.filter.memberships) {
                limit = f(BodyId(i), body, limit);
            }
        }
        self.broad.query_ray(ray.origin, ray.dir, limit, |p, _| {
            let i = self.proxy_body[p as usize];
            let body = &self.bodies[i as usize];
            if body.alive && !body.dirty && filter.accepts(BodyId(i), body.filter.memberships) {
                limit = f(BodyId(i), body, limit);
            }
            limit
        });
    }
}

/// The first hit of `ray` on one body within `limit`.
fn cast_body(id: BodyId, body: &Body, ray: &Ray, limit: f32) -> Option<WorldRayHit> {
    let pose = body.pose?;
    let hit = query::ray_cast(&body.shape, &pose, ray, limit).ok()??;
    let shape = match body.shape.compound() {
        Some(c) => &c.pieces()[hit.piece as usize].shape,
        None => &body.shape,
    };
    let (mesh, convex) = match shape.kind() {
        ShapeKind::TriMesh(_) => (true, false),
        ShapeKind::Convex(_) => (false, hit.feature != u32::MAX),
        ShapeKind::Rounded(_) | ShapeKind::Compound(_) => (false, false),
    };
    Some(WorldRayHit {
        body: id,
        toi: hit.toi,
        point: ray.at(hit.toi),
        normal: hit.normal,
        triangle: mesh.then_some(hit.feature),
        face: convex.then_some(hit.feature),
        piece: hit.piece,
    })
}

/// The box of a shape at a pose (of its hull's or its points' vertices;
/// a sphere's or capsule's local box moved, which holds it).
fn shape_box(shape: &SharedShape, pose: &Pose) -> Aabb {
    match shape.bounds_geometry() {
        BoundsGeometry::Hull(hull) => vertex_box(hull.vertices(), pose),
        BoundsGeometry::Points(points) => vertex_box(points, pose),
        BoundsGeometry::Rounded(_) => shape.local_aabb().transformed(pose),
    }
}
