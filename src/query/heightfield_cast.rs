//! Shape casts against a stationary height field: the field is its own
//! tree. The box the moving shape sweeps over the cast, in the field's
//! frame and grown by the target distance and tolerance, gives the cells
//! under it ([`HeightField::for_each_triangle_in`]); each of their
//! triangles is cast with the convex–convex
//! [`time_of_impact`] (the triangle a stationary point set), the earliest
//! kept, later triangles limited by it — the leaf cast a mesh's triangles
//! get. Only a field that neither moves nor turns is cast (the caller
//! answers [`QueryError::Unsupported`](super::QueryError) otherwise); the
//! other shape may translate and turn.

use std::ops::ControlFlow;

use glam::Vec3;

use super::distance::support_map;
use super::pair::PairSide;
use crate::collider::ShapeData;
use crate::geometry::cast::{CastParams, CastResult, Mover, Reach, time_of_impact};
use crate::geometry::gjk::GjkCache;
use crate::geometry::support::{PointSetSupport, SupportMap};
use crate::math::{Aabb, Pose, RigidMotion};
use crate::shape::{Feature, HeightField};

/// Whether a pair with a height field can be cast: a stationary field
/// against a support-mapped shape (`heightfield_cast.rs`); a pair without
/// a field always can.
pub(super) fn field_castable(
    (a, ma): (&PairSide<'_>, &RigidMotion),
    (b, mb): (&PairSide<'_>, &RigidMotion),
) -> bool {
    let still = |m: &RigidMotion| m.linvel == Vec3::ZERO && m.angvel == Vec3::ZERO;
    match (a.shape.heightfield(), b.shape.heightfield()) {
        (None, None) => true,
        (Some(_), None) => still(ma) && support_map(b.shape).is_some(),
        (None, Some(_)) => still(mb) && support_map(a.shape).is_some(),
        (Some(_), Some(_)) => false,
    }
}

/// A support-mapped shape against a height field, either side (under
/// their motions in the pair frame): the hit and its features
/// (`[Vertex(0), Face(triangle)]`, flipped when the field is side A), or
/// `None` when neither is a field.
pub(super) fn field_pair_cast(
    a: (&ShapeData, &RigidMotion),
    b: (&ShapeData, &RigidMotion),
    params: &CastParams,
) -> Option<Option<(CastResult, [Feature; 2])>> {
    let (field_is_a, field, (shape, motion)) = match (a.0.heightfield(), b.0.heightfield()) {
        (Some(f), None) => (true, (f, a.1), b),
        (None, Some(f)) => (false, (f, b.1), a),
        _ => return None,
    };
    let local_box = shape.local_aabb();
    let reach = if motion.is_linear() {
        Reach::ball(0.0)
    } else {
        Reach::of_points(local_box.corners(), motion)
    };
    let caster = Caster {
        shape: support_map(shape)?,
        local_box,
        motion,
        reach,
    };
    let found = field_cast(&caster, field, field_is_a, params);
    Some(found.map(|(hit, t)| {
        let pair = [Feature::Vertex(0), Feature::Face(t)];
        (hit, if field_is_a { [pair[1], pair[0]] } else { pair })
    }))
}

/// The convex shape's side of a field cast.
struct Caster<'a> {
    /// Its support map.
    shape: &'a dyn SupportMap,
    /// Its box in its own frame.
    local_box: Aabb,
    /// Its motion (pair frame).
    motion: &'a RigidMotion,
    /// Bounds on its points about its motion's center.
    reach: Reach,
}

/// The first contact of `caster` with the field (whose `motion` only
/// translates, the pair frame moving with the caster), and the field
/// triangle hit; the result's side A is the field when `field_is_a`.
fn field_cast(
    caster: &Caster<'_>,
    (field, motion): (&HeightField, &RigidMotion),
    field_is_a: bool,
    params: &CastParams,
) -> Option<(CastResult, u32)> {
    let region = swept_region(caster, motion, params);
    let mut params = *params;
    let mut best: Option<(CastResult, u32)> = None;
    let shape = Mover {
        shape: caster.shape,
        motion: caster.motion,
        reach: caster.reach,
    };
    let _ = field.for_each_triangle_in(&region, |id, tri| {
        let points = PointSetSupport(&tri);
        let triangle = Mover {
            shape: &points as &dyn SupportMap,
            motion,
            reach: Reach::ball(0.0),
        };
        let hit = if field_is_a {
            time_of_impact(&triangle, &shape, &params, &mut GjkCache::new())
        } else {
            time_of_impact(&shape, &triangle, &params, &mut GjkCache::new())
        };
        if let Some(hit) = hit.filter(|h| best.is_none_or(|b| h.time < b.0.time)) {
            params.max_time = hit.time;
            best = Some((hit, id));
            if hit.time <= 0.0 {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    best
}

/// The box (field frame) the caster sweeps over `[0, max_time]`, grown by
/// the target distance and tolerance and a relative pad for rounding: its
/// box at both ends for a translating caster (a box moving in a straight
/// line stays in their hull's box), the ball about its motion's center
/// that holds it at any turn for a turning one.
fn swept_region(c: &Caster<'_>, field: &RigidMotion, params: &CastParams) -> Aabb {
    let t = params.max_time;
    let ends = [0.0, t].map(|s| field.pose_at(s).inverse().mul(&c.motion.pose_at(s)));
    let swept = if c.motion.is_linear() {
        c.local_box
            .transformed(&ends[0])
            .union(c.local_box.transformed(&ends[1]))
    } else {
        let r = c.local_box.max_distance_from(c.motion.local_center);
        let ball = |p: &Pose| {
            Aabb::from_center_half_extents(p.transform_point(c.motion.local_center), Vec3::splat(r))
        };
        ball(&ends[0]).union(ball(&ends[1]))
    };
    swept.padded(params.target + params.tolerance + 1e-5 * swept.reach())
}
