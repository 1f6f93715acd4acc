//! A height field against a height field: the pair test and the closest
//! points. Neither field is given a tree: the cells of one field under the
//! other's box give its triangles ([`HeightField::for_each_triangle_in`]),
//! each is mapped into the other field's frame and the cells under its own
//! box give the triangles it may meet, decided by the exact
//! triangle–triangle test (Shewchuk's orientation predicates, as two
//! meshes' leaves are; Devillers and Guigue 2003), or measured by GJK
//! triangle–triangle for distances.
//!
//! One frame decides: the field whose pose has the lesser bit pattern
//! ([`base_first`]) keeps its own `f32` coordinates and the other's
//! triangles are mapped into it by the `f32` relative pose, so a pair asked
//! in either order is decided on the very same coordinates; two fields at
//! bitwise equal poses are compared unmapped (exact, whatever the pose).

use std::ops::ControlFlow;

use glam::Vec3;

use super::distance::ClosestPoints;
use super::heightfield::{box_distance, search};
use crate::geometry::gjk::{GjkCache, gjk_distance};
use crate::geometry::support::PointSetSupport;
use crate::geometry::tritri::triangles_intersect;
use crate::math::{Aabb, Pose};
use crate::shape::{Feature, HeightField};

/// Whether the field at `a` is the frame of the pair ([`base_first`]'s
/// rule): its pose's bits are not greater than `b`'s.
fn base_first(a: &Pose, b: &Pose) -> bool {
    let bits = |p: &Pose| {
        let (q, t) = (p.rotation.to_array(), p.translation.to_array());
        [q[0], q[1], q[2], q[3], t[0], t[1], t[2]].map(f32::to_bits)
    };
    bits(a) <= bits(b)
}

/// The pose mapping the `moved` field's frame into the `base` field's,
/// `q_base⁻¹ q_moved` and `q_base⁻¹ (t_moved − t_base)`: the difference of
/// the translations first, exact for fields near each other however far
/// from the origin (`Pose::inverse().mul` would round `q⁻¹ t` at the
/// translations' magnitude). `None` when the poses are bitwise equal (no
/// mapping, exact).
fn relative(base: &Pose, moved: &Pose) -> Option<Pose> {
    (base != moved).then(|| {
        let inv = base.rotation.inverse();
        Pose::new(
            inv * moved.rotation,
            inv * (moved.translation - base.translation),
        )
    })
}

/// A field pair ordered base first ([`base_first`]), with the pose mapping
/// the moved field's frame into the base's ([`relative`]); `true` when `a`
/// is the base.
type Ordered<'f> = (
    bool,
    (&'f HeightField, &'f Pose),
    (&'f HeightField, &'f Pose),
    Option<Pose>,
);

fn ordered<'f>(a: (&'f HeightField, &'f Pose), b: (&'f HeightField, &'f Pose)) -> Ordered<'f> {
    let a_is_base = base_first(a.1, b.1);
    let (base, moved) = if a_is_base { (a, b) } else { (b, a) };
    (a_is_base, base, moved, relative(base.1, moved.1))
}

/// The touching `[triangle of a, triangle of b]` pairs of two fields
/// (`a` at `pa`, `b` at `pb`) into `pairs` (unsorted; the first one only
/// when `first_only`).
pub(super) fn field_pairs(
    (a, pa): (&HeightField, &Pose),
    (b, pb): (&HeightField, &Pose),
    first_only: bool,
    pairs: &mut Vec<[u32; 2]>,
) {
    let (a_is_base, (base, _), (moved, _), rel) = ordered((a, pa), (b, pb));
    let map = |v: Vec3| rel.map_or(v, |r| r.transform_point(v));
    // The moved field's triangles under the base's box (in the moved
    // field's frame; `transformed` pads for its rounding).
    let region = match rel {
        Some(r) => base.local_aabb().transformed(&r.inverse()),
        None => base.local_aabb(),
    };
    let _ = moved.for_each_triangle_in(&region, |m, tri| {
        let t = tri.map(map);
        base.for_each_triangle_in(&Aabb::from_points(t), |k, own| {
            if !triangles_intersect(own, t) {
                return ControlFlow::Continue(());
            }
            pairs.push(if a_is_base { [k, m] } else { [m, k] });
            if first_only {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
    });
}

/// The closest points of two fields (`a` at `pa`, `b` at `pb`), features
/// `[Face(triangle of a), Face(triangle of b)]`; `None` when either is all
/// holes. Branch and bound over the base field's cells (the search of a
/// shape against a field, `heightfield::search`, with the moved field's
/// box); each base triangle, mapped into the moved field's frame, takes
/// the nearest of the moved field's triangles the same way (bounded by the
/// best distance so far once there is one).
pub(super) fn field_closest(
    (a, pa): (&HeightField, &Pose),
    (b, pb): (&HeightField, &Pose),
    pieces: [u32; 2],
) -> Option<ClosestPoints> {
    let (a_is_base, (base, p_base), (moved, _), rel) = ordered((a, pa), (b, pb));
    let (to_base, to_moved) = (rel.unwrap_or(Pose::IDENTITY), rel.map(|r| r.inverse()));
    let moved_box = match rel {
        Some(r) => moved.local_aabb().transformed(&r),
        None => moved.local_aabb(),
    };
    let mut cache = GjkCache::default();
    let found = search(base, &moved_box, |tri, bound| {
        let t = tri.map(|v| to_moved.map_or(v, |r| r.transform_point(v)));
        let (d, on_base, on_moved, id) = nearest_to(moved, t, bound, &mut cache)?;
        let back = |p| to_base.transform_point(p);
        Some((d, back(on_base), back(on_moved), id))
    });
    let (d, on_base, on_moved, k, m) = found?;
    let (w_base, w_moved) = (
        p_base.transform_point(on_base),
        p_base.transform_point(on_moved),
    );
    let (point_a, point_b, ids) = if a_is_base {
        (w_base, w_moved, [k, m])
    } else {
        (w_moved, w_base, [m, k])
    };
    Some(ClosestPoints {
        distance: d,
        point_a,
        point_b,
        features: ids.map(Feature::Face),
        intersecting: d == 0.0,
        pieces,
    })
}

/// The nearest triangle of `field` to the triangle `t` (field frame):
/// `(distance, point on t, point on the field, triangle)`; only within
/// `bound` when it is finite (`None`: nothing that near).
fn nearest_to(
    field: &HeightField,
    t: [Vec3; 3],
    bound: f32,
    cache: &mut GjkCache,
) -> Option<(f32, Vec3, Vec3, u32)> {
    let own = Aabb::from_points(t);
    let mut measure = |tri: [Vec3; 3]| {
        cache.reset();
        let (pt, pf) = (PointSetSupport(&t), PointSetSupport(&tri));
        let g = gjk_distance(&pt, &Pose::IDENTITY, &pf, &Pose::IDENTITY, cache);
        (g.distance, g.point_a, g.point_b)
    };
    if !bound.is_finite() {
        let found = search(field, &own, |tri, _| {
            let (d, p, q) = measure(tri);
            Some((d, p, q, 0))
        })?;
        return Some((found.0, found.1, found.2, found.3));
    }
    let mut best: Option<(f32, Vec3, Vec3, u32)> = None;
    let pad = bound + 1e-5 * (own.reach() + bound);
    let _ = field.for_each_triangle_in(&own.padded(pad), |id, tri| {
        let limit = best.map_or(bound, |x| x.0);
        if box_distance(&Aabb::from_points(tri), &own) > limit {
            return ControlFlow::Continue(());
        }
        let (d, p, q) = measure(tri);
        if d <= limit && best.is_none_or(|x| d < x.0 || (d == x.0 && id < x.3)) {
            best = Some((d, p, q, id));
        }
        if d == 0.0 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    best
}
