//! Boolean queries: whether two shapes intersect (the narrow phase's own
//! pair test from a fresh cache), and which triangles of two surfaces do.

use super::QueryError;
use super::cache::{PairCache, QueryScratch};
use super::dispatch::test_pair;
use super::distance::{rescaled_closest_points, rescaled_copies};
use super::pair::PairSide;
use crate::bvh::{CollideOptions, CollideScratch, ContactMode, collide_surfaces};
use crate::collider::SharedShape;
use crate::geometry::gjk::REL_GAP;
use crate::math::{Pose, rounding_pad};

/// Whether the shapes intersect (touching counts). With a triangle mesh
/// this is a surface query (OBB trees, exact triangle tests, first contact):
/// a shape entirely inside a mesh does not intersect it, while a mesh
/// entirely inside a solid (sphere, capsule, convex polytope, a compound's
/// convex piece) does (see the crate's one inside rule, [`super`]).
pub fn intersects(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
) -> Result<bool, QueryError> {
    let pose_a = &pose_a.validated().map_err(QueryError::InvalidPose)?;
    let pose_b = &pose_b.validated().map_err(QueryError::InvalidPose)?;
    // Far beyond (or far below) unit scale, convex pairs are decided
    // rescaled, as `distance` does, so that the two agree.
    if let Some(c) = rescaled_closest_points((a, pose_a), (b, pose_b), ([0, 0], REL_GAP)) {
        return Ok(c.intersecting);
    }
    if let Some(r) = rescaled_copies((a, pose_a), (b, pose_b)) {
        return intersects(&r.a.0, &r.a.1, &r.b.0, &r.b.1);
    }
    if PairSide::reads_box(a) || PairSide::reads_box(b) {
        let (sa, sb) = (PairSide::of(a, pose_a), PairSide::of(b, pose_b));
        return Ok(intersects_side(&sa, &sb));
    }
    // The pair test reads no box: test first, and transform the boxes
    // only for a pair that touches. Both must hold either way, so the
    // answer is `intersects_side`'s, without two box transforms per
    // separated pair (the world's boxes are padded so that a touching
    // pair's always overlap: `math::rounding`).
    if apart_by_reach((a, pose_a), (b, pose_b)) {
        return Ok(false);
    }
    let (sa, sb) = (PairSide::unboxed(a, pose_a), PairSide::unboxed(b, pose_b));
    let touching = test_pair(
        &sa,
        &sb,
        &mut PairCache::None,
        &mut QueryScratch::one_shot(),
    )
    .touching;
    Ok(touching && {
        let box_of = |s: &SharedShape, p| s.local_aabb().transformed(p);
        box_of(a, pose_a).overlaps(&box_of(b, pose_b))
    })
}

/// Whether the shapes' centres are farther apart than their reaches (the
/// bound on `|x|₂` over each shape's points) plus twice their world
/// boxes' rounding pads: then the pair test cannot say touching (the pads
/// cover its rounding per axis, `math::rounding`; `2 > √3`), and neither
/// do the boxes need transforming. A dozen instructions against two box
/// transforms. (A NaN reach never says apart.)
fn apart_by_reach((a, pa): (&SharedShape, &Pose), (b, pb): (&SharedShape, &Pose)) -> bool {
    let pad = rounding_pad(a.reach(), pa.translation) + rounding_pad(b.reach(), pb.translation);
    // In `f64`: no square overflows, whatever the scale.
    let reach = f64::from(a.reach() + b.reach() + 2.0 * pad);
    let gap = pb.translation.as_dvec3() - pa.translation.as_dvec3();
    gap.length_squared() > reach * reach
}

/// [`intersects`] on two pair sides (boolean only), valid poses.
pub(crate) fn intersects_side(a: &PairSide<'_>, b: &PairSide<'_>) -> bool {
    if !a.tight.overlaps(&b.tight) {
        return false;
    }
    let mut scratch = QueryScratch::one_shot();
    test_pair(a, b, &mut PairCache::None, &mut scratch).touching
}

/// The intersecting triangle pairs `[of a, of b]` of two surfaces (a mesh's
/// triangles, or a convex shape's hull triangles), by traversing their trees.
/// With a height field on either side, its touching triangles (ids as in
/// [`HeightField`](crate::shape::HeightField)) against the other's feature:
/// a hull or mesh triangle, [`INSIDE_SOLID`](super::INSIDE_SOLID), or `0`
/// for spheres, capsules, cylinders and cones.
pub fn intersecting_triangles(
    a: &SharedShape,
    pose_a: &Pose,
    b: &SharedShape,
    pose_b: &Pose,
    mode: ContactMode,
) -> Result<Vec<[u32; 2]>, QueryError> {
    let pose_a = &pose_a.validated().map_err(QueryError::InvalidPose)?;
    let pose_b = &pose_b.validated().map_err(QueryError::InvalidPose)?;
    let unsupported = || QueryError::Unsupported {
        a: a.kind_name(),
        b: b.kind_name(),
    };
    if a.heightfield().is_some() || b.heightfield().is_some() {
        return heightfield_triangles((a, pose_a), (b, pose_b), mode).ok_or_else(unsupported);
    }
    let sa = a.surface().ok_or_else(unsupported)?;
    let sb = b.surface().ok_or_else(unsupported)?;
    let mut out = Vec::new();
    let options = CollideOptions {
        mode,
        ..CollideOptions::default()
    };
    collide_surfaces(
        (sa, *pose_a),
        (sb, *pose_b),
        &options,
        &mut CollideScratch::default(),
        &mut out,
    );
    Ok(out)
}

/// [`intersecting_triangles`] with a height field: the pair test's own
/// triangle pairs (`None`: two height fields, answered by boxes only).
fn heightfield_triangles(
    (a, pose_a): (&SharedShape, &Pose),
    (b, pose_b): (&SharedShape, &Pose),
    mode: ContactMode,
) -> Option<Vec<[u32; 2]>> {
    let all = mode == ContactMode::All;
    let side = |s, p| PairSide {
        boolean_only: !all,
        ..PairSide::of(s, p)
    };
    let mut cache = PairCache::None;
    let r = test_pair(
        &side(a, pose_a),
        &side(b, pose_b),
        &mut cache,
        &mut QueryScratch::default(),
    );
    match cache {
        PairCache::Mesh(pairs) if r.exact => Some(pairs),
        _ => None,
    }
}
