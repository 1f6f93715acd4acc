//! Shape casts against a height field: the field is its own tree. The box
//! the other shape sweeps over the cast, in the field's frame and grown by
//! the target distance and tolerance, gives the cells under it
//! ([`HeightField::for_each_triangle_in`]); each of their triangles is a
//! convex piece moving with the field (a point set), cast against the
//! other shape: with the convex–convex [`time_of_impact`] for a
//! support-mapped shape, with the mesh's tree search ([`tree_cast`], the
//! triangle a tree of one leaf, as a convex piece against a mesh) for a
//! mesh; the earliest kept, later triangles limited by it. Both may
//! translate and turn: a field that only translates is a triangle that
//! translates (the ray cast); a turning field's triangles turn about the
//! field's center (conservative advancement, their reach measured from
//! their vertices: Mirtich 1996), and the box they are taken from covers
//! the other shape's path in the turning frame. A compound is cast piece
//! by piece (`cast.rs`). A field against a field ([`fields_cast`]): each
//! triangle of one under the box the other sweeps is cast, as a convex
//! piece, against the other field (the same per-triangle cast).

use std::ops::ControlFlow;

use glam::Vec3;

use super::cast::{TreeSide, run_tree_cast};
use super::distance::support_map;
use crate::bvh::cast::{Parts, set_single_leaf};
use crate::bvh::{AabbTree, Surface, TreeRef};
use crate::collider::ShapeData;
use crate::geometry::cast::{CastParams, CastResult, Mover, Reach, time_of_impact};
use crate::geometry::gjk::GjkCache;
use crate::geometry::support::{PointSetSupport, SupportMap};
use crate::math::{Aabb, RigidMotion};
use crate::shape::{Feature, HeightField};

/// One non-compound piece of a cast with a field (pair frame).
#[derive(Clone, Copy)]
pub(super) struct FieldCastSide<'a> {
    /// The shape.
    pub shape: &'a ShapeData,
    /// Its motion.
    pub motion: &'a RigidMotion,
    /// Its box in its own frame (a deformed or scaled mesh's).
    pub local_box: Aabb,
    /// A mesh's surface (the deformed one, if any) and scale.
    pub mesh: Option<(Surface<'a>, Vec3)>,
}

/// A shape against a height field, either side: the hit and its features
/// (`[Vertex(0) or Face(mesh triangle), Face(field triangle)]`, flipped
/// when the field is side A), or `None` when neither is a field.
pub(super) fn field_pair_cast(
    a: FieldCastSide<'_>,
    b: FieldCastSide<'_>,
    params: &CastParams,
) -> Option<Option<(CastResult, [Feature; 2])>> {
    let (field_is_a, field, other) = match (a.shape.heightfield(), b.shape.heightfield()) {
        (Some(f), None) => (true, (f, a.motion), b),
        (None, Some(f)) => (false, (f, b.motion), a),
        (Some(fa), Some(fb)) => return Some(fields_cast((fa, &a), (fb, &b), params)),
        (None, None) => return None,
    };
    let Some(caster) = Caster::of(&other) else {
        return Some(None);
    };
    let found = field_cast(&caster, field, field_is_a, params);
    Some(found.map(|(hit, part, t)| {
        let pair = [part, Feature::Face(t)];
        (hit, if field_is_a { [pair[1], pair[0]] } else { pair })
    }))
}

/// Two fields: each triangle of `b` under the box `a` sweeps (`b`'s
/// frame) cast, as a convex piece moving with `b`, against `a`'s
/// triangles under the box it sweeps ([`field_cast`]); the earliest kept,
/// later triangles limited by it. Features `[Face(of a), Face(of b)]`.
fn fields_cast(
    (fa, a): (&HeightField, &FieldCastSide<'_>),
    (fb, b): (&HeightField, &FieldCastSide<'_>),
    params: &CastParams,
) -> Option<(CastResult, [Feature; 2])> {
    let region = swept_region((&a.local_box, a.motion), b.motion, params);
    let mut params = *params;
    let mut best: Option<(CastResult, [Feature; 2])> = None;
    let _ = fb.for_each_triangle_in(&region, |id, tri| {
        let reach = if b.motion.is_linear() {
            Reach::ball(0.0)
        } else {
            Reach::of_points(tri, b.motion)
        };
        let points = PointSetSupport(&tri);
        let caster = Caster {
            body: Body::Convex(&points, reach),
            local_box: Aabb::from_points(tri),
            motion: b.motion,
        };
        let found = field_cast(&caster, (fa, a.motion), true, &params);
        if let Some((hit, _, k)) = found.filter(|h| best.is_none_or(|b| h.0.time < b.0.time)) {
            params.max_time = hit.time;
            best = Some((hit, [Feature::Face(k), Feature::Face(id)]));
            if hit.time <= 0.0 {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    best
}

/// What is cast against the field's triangles.
#[derive(Clone, Copy)]
enum Body<'a> {
    /// A support-mapped shape and bounds on its points about its center.
    Convex(&'a dyn SupportMap, Reach),
    /// A mesh's surface and scale.
    Mesh(Surface<'a>, Vec3),
}

/// The other side of a field cast.
struct Caster<'a> {
    body: Body<'a>,
    /// Its box in its own frame.
    local_box: Aabb,
    /// Its motion (pair frame).
    motion: &'a RigidMotion,
}

impl<'a> Caster<'a> {
    fn of(side: &FieldCastSide<'a>) -> Option<Caster<'a>> {
        let body = if let Some(shape) = support_map(side.shape) {
            let reach = if side.motion.is_linear() {
                Reach::ball(0.0)
            } else {
                Reach::of_points(side.local_box.corners(), side.motion)
            };
            Body::Convex(shape, reach)
        } else {
            let (surface, scale) = side.mesh?;
            Body::Mesh(surface, scale)
        };
        Some(Caster {
            body,
            local_box: side.local_box,
            motion: side.motion,
        })
    }
}

/// The first contact of `caster` with the field under `motion`, the
/// caster's feature and the field triangle hit; the result's side A is
/// the field when `field_is_a`.
fn field_cast(
    caster: &Caster<'_>,
    (field, motion): (&HeightField, &RigidMotion),
    field_is_a: bool,
    params: &CastParams,
) -> Option<(CastResult, Feature, u32)> {
    let region = swept_region((&caster.local_box, caster.motion), motion, params);
    let mut params = *params;
    let mut best: Option<(CastResult, Feature, u32)> = None;
    let (mut leaf, mut stack) = (AabbTree::default(), Vec::new());
    let _ = field.for_each_triangle_in(&region, |id, tri| {
        let reach = if motion.is_linear() {
            Reach::ball(0.0)
        } else {
            Reach::of_points(tri, motion)
        };
        let points = PointSetSupport(&tri);
        let triangle = (&points as &dyn SupportMap, reach);
        let hit = match caster.body {
            Body::Convex(shape, shape_reach) => {
                let m = |(shape, reach), motion| Mover {
                    shape,
                    motion,
                    reach,
                };
                let (t, s) = (m(triangle, motion), m((shape, shape_reach), caster.motion));
                let hit = if field_is_a {
                    time_of_impact(&t, &s, &params, &mut GjkCache::new())
                } else {
                    time_of_impact(&s, &t, &params, &mut GjkCache::new())
                };
                hit.map(|h| (h, Feature::Vertex(0)))
            }
            Body::Mesh(surface, scale) => {
                set_single_leaf(&mut leaf, Aabb::from_points(tri));
                let t = TreeSide {
                    tree: TreeRef::Aabb(&leaf),
                    parts: Parts::Convex {
                        shape: triangle.0,
                        reach,
                    },
                };
                let s = TreeSide {
                    tree: surface.tree,
                    parts: Parts::Mesh(surface.mesh, scale),
                };
                let found = if field_is_a {
                    run_tree_cast((t, motion), (s, caster.motion), &params, &mut stack)
                } else {
                    run_tree_cast((s, caster.motion), (t, motion), &params, &mut stack)
                };
                found.map(|f| (f.hit, Feature::Face(f.parts[usize::from(!field_is_a)])))
            }
        };
        if let Some((hit, part)) = hit.filter(|h| best.is_none_or(|b| h.0.time < b.0.time)) {
            params.max_time = hit.time;
            best = Some((hit, part, id));
            if hit.time <= 0.0 {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    best
}

/// The box (field frame) the caster sweeps over `[0, max_time]`, grown by
/// the target distance and tolerance and a relative pad for rounding. A
/// field that does not turn: the caster's box at both ends for a
/// translating caster (a box moving in a straight line stays in their
/// hull's box), the ball about its motion's center that holds it at any
/// turn for a turning one (that center moves in a straight line). A
/// turning field: [`turning_region`].
fn swept_region(
    (local_box, motion): (&Aabb, &RigidMotion),
    field: &RigidMotion,
    params: &CastParams,
) -> Aabb {
    let t = params.max_time;
    let swept = if !field.is_linear() {
        turning_region((local_box, motion), field, t)
    } else if motion.is_linear() {
        let ends = [0.0, t].map(|s| field.pose_at(s).inverse().mul(&motion.pose_at(s)));
        local_box
            .transformed(&ends[0])
            .union(local_box.transformed(&ends[1]))
    } else {
        let r = local_box.max_distance_from(motion.local_center);
        let ball = |s: f32| {
            let center = motion.pose_at(s).transform_point(motion.local_center);
            let local = field.pose_at(s).inverse().transform_point(center);
            Aabb::from_center_half_extents(local, Vec3::splat(r))
        };
        ball(0.0).union(ball(t))
    };
    swept.padded(params.target + params.tolerance + 1e-5 * swept.reach())
}

/// Samples of the caster's path in a turning field's frame, at most.
const MAX_SAMPLES: f32 = 256.0;

/// The box (field frame) holding the caster's ball (about its motion's
/// center) over `[0, t]` while the field turns. The caster's center is
/// `d(s)` from the field's center (world), linear in `s`, so `|d|` is at
/// most its larger end value `ρ`; in the field's frame the center then
/// moves at most at `|v_c − v_f| + |ω_f| ρ`. The union of the balls at
/// `n + 1` evenly spaced samples, each grown by that speed times half the
/// spacing, holds the path.
fn turning_region((local_box, motion): (&Aabb, &RigidMotion), field: &RigidMotion, t: f32) -> Aabb {
    let r = local_box.max_distance_from(motion.local_center);
    let center = |m: &RigidMotion, s: f32| m.pose_at(s).transform_point(m.local_center);
    let d = |s: f32| center(motion, s) - center(field, s);
    let rho = d(0.0).length().max(d(t).length());
    let speed = (motion.linvel - field.linvel).length() + field.angvel.length() * rho;
    let n = (speed * t / r.max(1e-3 * rho).max(f32::MIN_POSITIVE))
        .ceil()
        .clamp(1.0, MAX_SAMPLES);
    let pad = r + speed * t / n * 0.5 * (1.0 + 1e-5);
    (0..=n as u32)
        .map(|i| t * i as f32 / n)
        .map(|s| {
            let local = field
                .pose_at(s)
                .inverse()
                .transform_point(center(motion, s));
            Aabb::from_center_half_extents(local, Vec3::splat(pad))
        })
        .fold(Aabb::EMPTY, Aabb::union)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Pose;
    use glam::Quat;

    /// A turning field's region holds the caster's ball at every time.
    #[test]
    fn a_turning_field_region_holds_the_path() {
        let point = [Vec3::ZERO];
        let shape = PointSetSupport(&point);
        let motion =
            RigidMotion::linear(Pose::from_translation(Vec3::new(3.0, 1.0, 0.0)), -Vec3::X);
        let mut field = RigidMotion::stationary(Pose::new(Quat::IDENTITY, Vec3::ZERO));
        field.angvel = Vec3::new(0.0, 2.0, 0.3);
        let c = Caster {
            body: Body::Convex(&shape, Reach::ball(0.0)),
            local_box: Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(0.1)),
            motion: &motion,
        };
        let region = turning_region((&c.local_box, c.motion), &field, 2.0);
        for k in 0..=1000 {
            let s = 2.0 * k as f32 / 1000.0;
            let p = field
                .pose_at(s)
                .inverse()
                .transform_point(motion.pose_at(s).translation);
            assert!(region.padded(-0.099).contains_point(p), "{s} {p}");
        }
    }
}
