//! Shape casts against a half-space (on either side), in closed form when
//! neither shape turns and by conservative advancement otherwise, on the
//! other shape's distance to the plane (`half_space.rs`): the half-space
//! is unbounded, so the cast frame of the other kinds (fitted to the
//! shapes' bounding balls) does not apply.
//!
//! - **Both only translate**: every point of the other shape moves along
//!   the fixed normal `n` at the same rate `n · (v_b - v_a)`, so its
//!   distance is `d(t) = d(0) + t · rate` and the contact is at
//!   `(d(0) - target) / -rate`, less the rounding of `d(0)` (`8 ε` of the
//!   shapes' distance and size) and two ulps: never after the contact.
//! - **Either turns**: conservative advancement (Mirtich 1996): a point at
//!   distance `r` from its body's center moves at most `|v| + |ω| r`, so
//!   the distance changes at most at `|v_b - v_a| + |ω_b| r_b + |ω_a| D`
//!   (`D` bounds the other shape's distance from the half-space's center
//!   over the cast), and each step advances by the distance over that
//!   rate: never past the contact.
//!
//! Two half-spaces: closed form, see [`two_half_spaces`].
//!
//! A height field is measured by its lowest vertex (every sample outside
//! holes: `O(samples)` per measure).

use glam::Vec3;

use super::cast::{CastStatus, ShapeCastHit, ShapeCastOptions};
use super::distance::{ClosestPoints, support_map};
use super::half_space;
use super::pair::PairSide;
use crate::bvh::Surface;
use crate::collider::ShapeData;
use crate::geometry::cast::MAX_STEPS;
use crate::geometry::support::PointSetSupport;
use crate::math::{Pose, RigidMotion};
use crate::shape::{Feature, HalfSpace, HeightField};

/// The cast when either side is a half-space (`None`: neither is); the
/// answer is the cast's.
pub(super) fn half_space_cast(
    (a, ma): (&PairSide<'_>, &RigidMotion),
    (b, mb): (&PairSide<'_>, &RigidMotion),
    options: &ShapeCastOptions,
) -> Option<Option<ShapeCastHit>> {
    if let Some(h) = a.shape.half_space() {
        return Some(cast((h, ma), (b, mb), options));
    }
    let h = b.shape.half_space()?;
    let hit = cast((h, mb), (a, ma), options);
    Some(hit.map(|x| ShapeCastHit {
        point_a: x.point_b,
        point_b: x.point_a,
        normal: -x.normal,
        features: [x.features[1], x.features[0]],
        pieces: [x.pieces[1], x.pieces[0]],
        ..x
    }))
}

/// The half-space `h` (A) under `ma` and `other` (B) under `mb`.
fn cast(
    (h, ma): (&HalfSpace, &RigidMotion),
    (other, mb): (&PairSide<'_>, &RigidMotion),
    options: &ShapeCastOptions,
) -> Option<ShapeCastHit> {
    let at = |t: f32| measure((h, &ma.pose_at(t)), (other, &mb.pose_at(t)));
    let reach = other.shape.local_aabb().max_distance_from(mb.local_center);
    let tol = options.tolerance.max(reach * 2f32.powi(-20));
    let (target, max_t) = (options.target_distance, options.max_time_of_impact);
    let start = at(0.0);
    if start.distance <= target {
        return Some(hit_at(h, ma, 0.0, start, true, CastStatus::Converged));
    }
    if let Some(g) = other.shape.half_space() {
        return two_half_spaces((h, ma), (g, mb), &at, options);
    }
    let gap = mb.start.transform_point(mb.local_center) - ma.start.transform_point(ma.local_center);
    if ma.is_linear() && mb.is_linear() {
        let n = ma.start.rotation * h.normal;
        let rate = n.dot(mb.linvel - ma.linvel);
        // The distance's own rounding (of the relative pose and the
        // support point), taken off: never after the contact.
        let err = 8.0 * f32::EPSILON * (gap.length() + reach);
        let t = (start.distance - target - err).max(0.0) / -rate;
        if !(rate < 0.0 && t <= max_t) {
            return None;
        }
        let t = (t - 2.0 * t * f32::EPSILON).max(0.0);
        return Some(hit_at(h, ma, t, at(t), false, CastStatus::Converged));
    }
    let closing = (mb.linvel - ma.linvel).length();
    let far = gap.length() + closing * max_t + reach;
    let rate = closing + mb.angvel.length() * reach + ma.angvel.length() * far;
    let mut t = 0.0f32;
    let mut c = start;
    for _ in 0..MAX_STEPS {
        if c.distance <= target + tol {
            return Some(hit_at(h, ma, t, c, false, CastStatus::Converged));
        }
        t += (c.distance - target) / rate;
        if t.is_nan() || t > max_t {
            return None;
        }
        c = at(t);
    }
    Some(hit_at(h, ma, t, c, false, CastStatus::OutOfIterations))
}

/// Two half-spaces apart at time 0 (normals opposite, see
/// [`half_space::half_spaces`]). While each turns only about its own
/// normal, each plane slides in itself and the gap changes at the fixed
/// rate `n_a · (v_b - v_a)`: the contact is in closed form, as for
/// translations (the rounding taken off is that of the gap alone: the
/// planes have no extent to measure). Any other turn tilts the normals
/// apart at once, and planes that are not parallel meet: contact at 0.
fn two_half_spaces(
    (h, ma): (&HalfSpace, &RigidMotion),
    (g, mb): (&HalfSpace, &RigidMotion),
    at: &dyn Fn(f32) -> ClosestPoints,
    options: &ShapeCastOptions,
) -> Option<ShapeCastHit> {
    let (na, nb) = (ma.start.rotation * h.normal, mb.start.rotation * g.normal);
    let in_plane = |w: Vec3, n: Vec3| w.cross(n).length() <= 2f32.powi(-20) * w.length();
    if !(in_plane(ma.angvel, na) && in_plane(mb.angvel, nb)) {
        return Some(hit_at(h, ma, 0.0, at(0.0), false, CastStatus::Converged));
    }
    let rate = na.dot(mb.linvel - ma.linvel);
    let gap = (mb.start.translation - ma.start.translation).length();
    let d = at(0.0).distance - options.target_distance - 8.0 * f32::EPSILON * gap;
    let t = d.max(0.0) / -rate;
    if !(rate < 0.0 && t <= options.max_time_of_impact) {
        return None;
    }
    let t = (t - 2.0 * t * f32::EPSILON).max(0.0);
    Some(hit_at(h, ma, t, at(t), false, CastStatus::Converged))
}

fn hit_at(
    h: &HalfSpace,
    ma: &RigidMotion,
    t: f32,
    c: ClosestPoints,
    started_touching: bool,
    status: CastStatus,
) -> ShapeCastHit {
    ShapeCastHit {
        time_of_impact: t,
        distance: c.distance,
        point_a: c.point_a,
        point_b: c.point_b,
        normal: ma.pose_at(t).rotation * h.normal,
        features: c.features,
        pieces: c.pieces,
        started_touching,
        status,
    }
}

/// Closest points of the half-space (A) and a side (B; a compound's
/// nearest piece).
fn measure((h, ph): (&HalfSpace, &Pose), (other, po): (&PairSide<'_>, &Pose)) -> ClosestPoints {
    let Some(c) = other.shape.compound() else {
        return piece((h, ph), (other.shape, other.surface(), po), 0);
    };
    let mut best: Option<ClosestPoints> = None;
    for (i, p) in (0..).zip(c.pieces()) {
        let at = po.mul(&p.pose);
        let m = piece((h, ph), (&p.shape, p.shape.surface(), &at), i);
        if best.is_none_or(|b| m.distance < b.distance) {
            best = Some(m);
        }
    }
    best.unwrap_or_else(|| empty(ph))
}

fn piece(
    (h, ph): (&HalfSpace, &Pose),
    (s, surface, ps): (&ShapeData, Option<Surface<'_>>, &Pose),
    index: u32,
) -> ClosestPoints {
    let pieces = [0, index];
    if let Some(g) = s.half_space() {
        let (c, _) = half_space::half_spaces((h, ph), (g, ps));
        return ClosestPoints { pieces, ..c };
    }
    if let Some(m) = support_map(s) {
        return half_space::half_space_closest((h, ph), (m, ps), pieces);
    }
    if let Some(f) = s.heightfield() {
        return half_space_field((h, ph), (f, ps), pieces).unwrap_or_else(|| empty(ph));
    }
    match surface {
        Some(m) => half_space::half_space_surface((h, ph), (m, ps), pieces),
        None => empty(ph),
    }
}

/// Nothing to touch (not reached: every kind has a support map or a
/// surface).
/// The half-space and a height field by the field's lowest vertex
/// (every sample outside holes: `O(samples)`); `None` when every cell is
/// a hole.
pub(super) fn half_space_field(
    (h, ph): (&HalfSpace, &Pose),
    (f, pf): (&HeightField, &Pose),
    pieces: [u32; 2],
) -> Option<ClosestPoints> {
    let mut points = Vec::new();
    let all = f.local_aabb().padded(1.0 + f.local_aabb().reach());
    let _ = f.for_each_triangle_in(&all, |_, tri| {
        points.extend(tri);
        std::ops::ControlFlow::Continue(())
    });
    let m = PointSetSupport(&points);
    (!points.is_empty()).then(|| half_space::half_space_closest((h, ph), (&m, pf), pieces))
}

fn empty(ph: &Pose) -> ClosestPoints {
    ClosestPoints {
        distance: f32::INFINITY,
        point_a: ph.translation,
        point_b: ph.translation,
        features: [Feature::Vertex(0); 2],
        intersecting: false,
        pieces: [0, 0],
    }
}
