//! Distance, closest points and penetration depth between any two shapes
//! made of convex pieces (polytopes, spheres, capsules, cylinders, cones,
//! compounds of them).

use glam::Vec3;
use smallvec::SmallVec;

use super::QueryError;
use super::lin_canny::{self, ConvexCache};
use super::{curved, half_space, heightfield, implicit, mesh_distance};
use crate::collider::{ShapeData, ShapeKind, SharedShape};
use crate::geometry::epa::{self, Penetration};
use crate::geometry::gjk::{GjkCache, REL_GAP, gjk_distance_within};
use crate::geometry::support::SupportMap;
use crate::math::Pose;
use crate::shape::{Feature, HalfSpace};

/// Closest points of two shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoints {
    /// Distance (0 when they intersect or touch).
    pub distance: f32,
    /// Closest point on the first shape, world space.
    pub point_a: Vec3,
    /// Closest point on the second shape, world space.
    pub point_b: Vec3,
    /// The closest features `[on a, on b]` (penetrating features when they
    /// intersect).
    pub features: [Feature; 2],
    /// Whether the shapes intersect (touching counts).
    pub intersecting: bool,
    /// The compound pieces the points are on, `[of a, of b]` (0 for a
    /// shape that is not a compound).
    pub pieces: [u32; 2],
}

/// A shape's non-compound pieces at their world poses: `(piece, shape,
/// pose)`; a shape that is not a compound is its own piece 0.
/// On the stack for a shape that is not a compound (no allocation per
/// one-shot query).
fn pieces<'a>(s: &'a ShapeData, pose: &Pose) -> SmallVec<[(u32, &'a ShapeData, Pose); 1]> {
    match s.compound() {
        Some(c) => (0..)
            .zip(c.pieces())
            .map(|(i, p)| (i, &*p.shape, pose.mul(&p.pose)))
            .collect(),
        None => smallvec::smallvec![(0, s, *pose)],
    }
}

/// A convex piece as GJK / EPA see it: a polytope, a sphere or capsule, a
/// cylinder or cone.
pub(super) fn support_map(s: &ShapeData) -> Option<&dyn SupportMap> {
    s.kind().data().support_map()
}

/// Calls `f` on every pair of pieces of the two shapes at their world
/// poses (a shape that is not a compound is its own piece 0), after
/// validating the poses; stops at the first error `f` returns.
fn for_each_piece_pair<'a>(
    a: &'a ShapeData,
    pose_a: &Pose,
    b: &'a ShapeData,
    pose_b: &Pose,
    mut f: impl FnMut([u32; 2], (&'a ShapeData, Pose), (&'a ShapeData, Pose)) -> Result<(), QueryError>,
) -> Result<(), QueryError> {
    let pose_a = &pose_a.validated().map_err(QueryError::InvalidPose)?;
    let pose_b = &pose_b.validated().map_err(QueryError::InvalidPose)?;
    let (pieces_a, pieces_b) = (pieces(a, pose_a), pieces(b, pose_b));
    for &(ia, sa, pa) in &pieces_a {
        for &(ib, sb, pb) in &pieces_b {
            f([ia, ib], (sa, pa), (sb, pb))?;
        }
    }
    Ok(())
}

/// Closest points and features of `a` at `pose_a` and `b` at `pose_b`:
/// for compounds, the closest pair of pieces. Triangle meshes are
/// surfaces (see the [table](super)); their features are the triangles
/// (`Feature::Face(triangle)`).
pub fn closest_points(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<ClosestPoints, QueryError> {
    closest_points_within((a, pose_a), (b, pose_b), REL_GAP)
}

/// [`closest_points`] with GJK converged to `gap` of the pair's scale
/// (see [`super::distance_with_tolerance`]), `gap` already checked.
pub(super) fn closest_points_within(
    (a, pose_a): (&SharedShape, &Pose),
    (b, pose_b): (&SharedShape, &Pose),
    gap: f32,
) -> Result<ClosestPoints, QueryError> {
    if a.compound().is_none() && b.compound().is_none() {
        // One piece each: no piece lists to build.
        let pose_a = &pose_a.validated().map_err(QueryError::InvalidPose)?;
        let pose_b = &pose_b.validated().map_err(QueryError::InvalidPose)?;
        return piece_closest_points((a, pose_a), (b, pose_b), ([0, 0], gap));
    }
    let mut best: Option<ClosestPoints> = None;
    for_each_piece_pair(a, pose_a, b, pose_b, |pieces, (sa, pa), (sb, pb)| {
        let c = piece_closest_points((sa, &pa), (sb, &pb), (pieces, gap))?;
        if best.is_none_or(|b| c.distance < b.distance) {
            best = Some(c);
        }
        Ok(())
    })?;
    // Every shape has at least one piece.
    best.ok_or(QueryError::Unsupported {
        a: a.kind_name(),
        b: b.kind_name(),
    })
}

/// Closest points of two pieces: Lin–Canny for two polytopes (with
/// features), GJK with margins for a sphere or capsule and a polytope, the
/// trees' branch and bound when a mesh is involved.
fn piece_closest_points(
    (a, pose_a): (&ShapeData, &Pose),
    (b, pose_b): (&ShapeData, &Pose),
    (pieces, gap): ([u32; 2], f32),
) -> Result<ClosestPoints, QueryError> {
    if let Some(h) = a.half_space() {
        return half_space_closest((h, pose_a), (b, pose_b), pieces);
    }
    if let Some(h) = b.half_space() {
        let c = half_space_closest((h, pose_b), (a, pose_a), [pieces[1], pieces[0]]);
        return c.map(flipped);
    }
    if let Some(c) = rescaled_closest_points((a, pose_a), (b, pose_b), (pieces, gap)) {
        return Ok(c);
    }
    if let Some(c) = rescaled_mesh_closest_points((a, pose_a), (b, pose_b), (pieces, gap)) {
        return c;
    }
    if a.heightfield().is_some() || b.heightfield().is_some() {
        let c = heightfield::closest_points((a, pose_a), (b, pose_b), pieces, flipped);
        return c.ok_or(QueryError::Unsupported {
            a: a.kind_name(),
            b: b.kind_name(),
        });
    }
    if let (Some(ca), Some(cb)) = (a.polytope(), b.polytope()) {
        let r = lin_canny::closest_features(ca, pose_a, cb, pose_b, &mut ConvexCache::default());
        return Ok(ClosestPoints {
            distance: r.distance,
            point_a: r.point_a,
            point_b: r.point_b,
            features: r.features,
            intersecting: r.intersecting,
            pieces,
        });
    }
    if let (Some(sa), Some(sb)) = (support_map(a), support_map(b)) {
        let at = ((a, pose_a), (b, pose_b));
        if let Some(c) = curved::closest_points(at.0, at.1, (sa, sb), (pieces, gap)) {
            return Ok(c);
        }
        let r = gjk_distance_within((sa, pose_a), (sb, pose_b), &mut GjkCache::default(), gap);
        return Ok(ClosestPoints {
            distance: r.distance,
            point_a: r.point_a,
            point_b: r.point_b,
            features: [Feature::Vertex(0); 2],
            intersecting: r.intersecting,
            pieces,
        });
    }
    let found = match (a.kind(), b.kind()) {
        (ShapeKind::Rounded(r), _) => b
            .surface()
            .map(|s| mesh_distance::rounded_surface((r, pose_a), (s, pose_b), pieces)),
        (_, ShapeKind::Rounded(r)) => a.surface().map(|s| {
            let c =
                mesh_distance::rounded_surface((r, pose_b), (s, pose_a), [pieces[1], pieces[0]]);
            flipped(c)
        }),
        (ShapeKind::Implicit(s), _) => b
            .surface()
            .map(|m| implicit::implicit_surface((s, pose_a), (m, pose_b), pieces)),
        (_, ShapeKind::Implicit(s)) => a.surface().map(|m| {
            let c = implicit::implicit_surface((s, pose_b), (m, pose_a), [pieces[1], pieces[0]]);
            flipped(c)
        }),
        (ShapeKind::RoundConvex(s), _) => b
            .surface()
            .map(|m| implicit::implicit_surface((s, pose_a), (m, pose_b), pieces)),
        (_, ShapeKind::RoundConvex(s)) => a.surface().map(|m| {
            let c = implicit::implicit_surface((s, pose_b), (m, pose_a), [pieces[1], pieces[0]]);
            flipped(c)
        }),
        _ => mesh_distance::surfaces((a, pose_a), (b, pose_b), pieces),
    };
    found.ok_or(QueryError::Unsupported {
        a: a.kind_name(),
        b: b.kind_name(),
    })
}

/// Closest points of a half-space (A) and any non-compound piece (B).
fn half_space_closest(
    (h, pa): (&HalfSpace, &Pose),
    (b, pb): (&ShapeData, &Pose),
    pieces: [u32; 2],
) -> Result<ClosestPoints, QueryError> {
    if let Some(g) = b.half_space() {
        let (c, _) = half_space::half_spaces((h, pa), (g, pb));
        return Ok(ClosestPoints { pieces, ..c });
    }
    if let Some(s) = support_map(b) {
        return Ok(half_space::half_space_closest((h, pa), (s, pb), pieces));
    }
    if let Some(f) = b.heightfield() {
        let c = super::half_space_cast::half_space_field((h, pa), (f, pb), pieces);
        return c.ok_or(QueryError::Unsupported {
            a: "half-space",
            b: b.kind_name(),
        });
    }
    b.surface()
        .map(|m| half_space::half_space_surface((h, pa), (m, pb), pieces))
        .ok_or(QueryError::Unsupported {
            a: "half-space",
            b: b.kind_name(),
        })
}

/// The penetration of two non-compound convex pieces, one of them a
/// half-space (`None` for other pairs).
fn half_space_penetration(
    (a, pa): (&ShapeData, &Pose),
    (b, pb): (&ShapeData, &Pose),
) -> Option<Result<Option<Penetration>, ()>> {
    let flip = |p: Penetration| Penetration {
        normal: -p.normal,
        point_a: p.point_b,
        point_b: p.point_a,
        ..p
    };
    let of = |h, ph: &Pose, s: &ShapeData, ps: &Pose| match (s.half_space(), support_map(s)) {
        (Some(g), _) => {
            let (c, data) = half_space::half_spaces((h, ph), (g, ps));
            match data {
                Some(d) if c.intersecting => Ok(Some(Penetration {
                    depth: d.depth,
                    normal: d.normal,
                    point_a: d.point_a,
                    point_b: d.point_b,
                })),
                _ if c.intersecting => Err(()),
                _ => Ok(None),
            }
        }
        (None, Some(m)) => Ok(half_space::half_space_penetration((h, ph), (m, ps))),
        (None, None) => Err(()),
    };
    match (a.half_space(), b.half_space()) {
        (Some(h), _) => Some(of(h, pa, b, pb)),
        (None, Some(h)) => Some(of(h, pb, a, pa).map(|p| p.map(flip))),
        (None, None) => None,
    }
}

/// Squared lengths overflow `f32` beyond about `1.8·10¹⁹`, and GJK's
/// sub-simplex tests lose precision on tiny coordinates long before their
/// squares underflow (8 % off at `10⁻¹⁵`): the scale of a pair (centres'
/// distance, extents) outside `[2⁻²⁰, 2²⁰]` is computed rescaled by a power
/// of two, which is exact.
const SCALE_LIMIT: f32 = 1_048_576.0; // 2^20

/// The power of two that brings the pair's scale to about 1, when the
/// scale is outside [`SCALE_LIMIT`]'s range.
fn rescale((a, pose_a): (&ShapeData, &Pose), (b, pose_b): (&ShapeData, &Pose)) -> Option<f32> {
    // A half-space's pairs are closed form, whatever the scale (and its
    // box is as large as the world).
    if a.half_space().is_some() || b.half_space().is_some() {
        return None;
    }
    // Largest coordinates, without squares (which could overflow).
    let extent = |s: &ShapeData| {
        let bx = s.local_aabb();
        bx.min.abs().max(bx.max.abs()).max_element()
    };
    let gap = (pose_b.translation - pose_a.translation)
        .abs()
        .max_element();
    let size = gap.max(extent(a)).max(extent(b));
    let in_range = (1.0 / SCALE_LIMIT..=SCALE_LIMIT).contains(&size);
    (!in_range && size.is_finite() && size > 0.0).then(|| (-size.log2().round()).exp2())
}

/// A convex shape scaled by a power of two (exact): GJK on it cannot
/// overflow or lose its squares to underflow.
struct Scaled<'a> {
    inner: &'a dyn SupportMap,
    scale: f32,
}

impl SupportMap for Scaled<'_> {
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        self.inner.support(dir, hint) * self.scale
    }
    fn margin(&self) -> f32 {
        self.inner.margin() * self.scale
    }
    fn core_support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        self.inner.core_support(dir, hint) * self.scale
    }
}

/// For two convex pieces whose scale is outside the range `f32` squares
/// hold well, their closest points computed rescaled; `None` otherwise
/// (the caller computes them as usual).
pub(super) fn rescaled_closest_points(
    (a, pose_a): (&ShapeData, &Pose),
    (b, pose_b): (&ShapeData, &Pose),
    (pieces, gap): ([u32; 2], f32),
) -> Option<ClosestPoints> {
    let scale = rescale((a, pose_a), (b, pose_b))?;
    let (sa, sb) = (support_map(a)?, support_map(b)?);
    Some(scaled_closest_points(
        (sa, pose_a),
        (sb, pose_b),
        scale,
        (pieces, gap),
    ))
}

/// For a pair with a triangle mesh whose scale is outside the range `f32`
/// squares hold well (a mesh `2·10¹⁹` from the other piece), the closest
/// points of copies scaled by a power of two (exact, [`rescaled_copies`]),
/// scaled back; `None` otherwise.
fn rescaled_mesh_closest_points(
    (a, pose_a): (&ShapeData, &Pose),
    (b, pose_b): (&ShapeData, &Pose),
    pieces: ([u32; 2], f32),
) -> Option<Result<ClosestPoints, QueryError>> {
    let copies = rescaled_copies((a, pose_a), (b, pose_b))?;
    let ((sa, pa), (sb, pb)) = (&copies.a, &copies.b);
    let back = 1.0 / copies.scale;
    Some(
        piece_closest_points((sa, pa), (sb, pb), pieces).map(|c| ClosestPoints {
            distance: c.distance * back,
            point_a: c.point_a * back,
            point_b: c.point_b * back,
            ..c
        }),
    )
}

/// A pair scaled by a power of two: the copies at their scaled poses.
pub(super) struct Rescaled {
    pub a: (SharedShape, Pose),
    pub b: (SharedShape, Pose),
    pub scale: f32,
}

/// For a pair with a triangle mesh or a compound outside the scale range (see
/// [`SCALE_LIMIT`]), copies of both scaled by a power of two toward size 1
/// (exact). The copies and their trees are built for this query only: such
/// a query costs a build, which only these extreme scales pay. `None` for
/// pairs in range or with neither (convex pairs scale their support
/// maps instead), or should a copy be refused (the query then runs
/// unscaled; scaling toward size 1 stays within every builder's limits).
pub(super) fn rescaled_copies(
    (a, pose_a): (&ShapeData, &Pose),
    (b, pose_b): (&ShapeData, &Pose),
) -> Option<Rescaled> {
    // A compound too, whatever its pieces: its pair test recurses into
    // them unscaled (compounds do not nest, so one level is all there is).
    let copied = |s: &ShapeData| s.kind().data().own_mesh().is_some() || s.compound().is_some();
    if !copied(a) && !copied(b) {
        return None;
    }
    let scale = rescale((a, pose_a), (b, pose_b))?;
    let at = |p: &Pose| Pose::new(p.rotation, p.translation * scale);
    Some(Rescaled {
        a: (a.scaled(scale).ok()?, at(pose_a)),
        b: (b.scaled(scale).ok()?, at(pose_b)),
        scale,
    })
}

/// Closest points of two convex pieces computed at `scale` (GJK with
/// margins), scaled back.
fn scaled_closest_points(
    (a, pose_a): (&dyn SupportMap, &Pose),
    (b, pose_b): (&dyn SupportMap, &Pose),
    scale: f32,
    (pieces, gap): ([u32; 2], f32),
) -> ClosestPoints {
    let at = |p: &Pose| Pose::new(p.rotation, p.translation * scale);
    let (sa, sb) = (Scaled { inner: a, scale }, Scaled { inner: b, scale });
    let r = gjk_distance_within(
        (&sa, &at(pose_a)),
        (&sb, &at(pose_b)),
        &mut GjkCache::default(),
        gap,
    );
    let back = 1.0 / scale;
    ClosestPoints {
        distance: r.distance * back,
        point_a: r.point_a * back,
        point_b: r.point_b * back,
        features: [Feature::Vertex(0); 2],
        intersecting: r.intersecting,
        pieces,
    }
}

/// The same closest points seen from the other shape.
fn flipped(c: ClosestPoints) -> ClosestPoints {
    ClosestPoints {
        point_a: c.point_b,
        point_b: c.point_a,
        features: [c.features[1], c.features[0]],
        pieces: [c.pieces[1], c.pieces[0]],
        ..c
    }
}

/// Distance between the shapes (0 when they intersect or touch).
pub fn distance(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<f32, QueryError> {
    closest_points(a, pose_a, b, pose_b).map(|c| c.distance)
}

/// Penetration depth, normal (from `a` to `b`) and deepest points when the
/// shapes overlap; `None` when they are apart. Touching shapes give a depth
/// of (about) 0. For compounds, the deepest pair of pieces (all pieces must
/// be convex).
pub fn penetration(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<Option<Penetration>, QueryError> {
    let mut best: Option<Penetration> = None;
    let unsupported = QueryError::Unsupported {
        a: a.kind_name(),
        b: b.kind_name(),
    };
    for_each_piece_pair(a, pose_a, b, pose_b, |_, (sa, pa), (sb, pb)| {
        let p = match half_space_penetration((sa, &pa), (sb, &pb)) {
            Some(p) => p.map_err(|()| unsupported)?,
            None => {
                let (Some(ca), Some(cb)) = (support_map(sa), support_map(sb)) else {
                    return Err(unsupported);
                };
                epa::penetration(ca, &pa, cb, &pb, &mut GjkCache::default())
            }
        };
        if let Some(p) = p.filter(|p| best.is_none_or(|b| p.depth > b.depth)) {
            best = Some(p);
        }
        Ok(())
    })?;
    Ok(best)
}
