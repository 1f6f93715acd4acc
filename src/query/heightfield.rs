//! Height fields ([`HeightField`]) against the other kinds. The field is
//! its own tree: the other shape's box, in the field's frame, gives the
//! cells under it ([`HeightField::for_each_triangle_in`]), and each of
//! their triangles is measured by the very test a mesh's triangles get:
//!
//! - a sphere or capsule: its core segment within the radius of the
//!   triangle (`rounded::core_touches`), in the field's frame;
//! - a cylinder or cone: GJK shape–triangle (`implicit::touches_triangle`),
//!   in the field's frame;
//! - a convex polytope or a triangle mesh (a surface with a tree): the
//!   field triangle, mapped into the surface's frame by the pair's
//!   relative pose, against the surface's tree (`mesh_walk`), exact
//!   triangle–triangle tests at the leaves, as two meshes are; a polytope
//!   is solid, so when no triangle crosses its surface the field
//!   triangles with a vertex inside it touch it (the one inside rule,
//!   `inside.rs`), decided by exact orientation predicates against the
//!   hull's triangles.
//!
//! The field is side B here, as `[feature of A, field triangle]` pairs
//! (A's feature: `0` for spheres, capsules, cylinders and cones; the hull
//! or mesh triangle; [`INSIDE_SOLID`]); `test_pair` flips the pair in one
//! place when the field is side A. A height field against a height field
//! is `field_field.rs` (`[triangle of A, triangle of B]`).

use std::ops::ControlFlow;

use glam::{Quat, Vec3};

use super::cache::{PairCache, QueryScratch};
use super::distance::{ClosestPoints, support_map};
use super::inside::{INSIDE_SOLID, box_meets_region};
use super::mesh_walk::touched_triangles_by;
use super::pair::{PairResult, PairSide};
use super::{field_field, implicit, rounded};
use crate::bounds::support_box;
use crate::bvh::{BoxNode, MeshSide, TreeRef};
use crate::collider::ShapeData;
use crate::collider::ShapeKind;
use crate::geometry::gjk::{GjkCache, gjk_distance};
use crate::geometry::support::{NO_HINT, PointSetSupport, SupportMap};
use crate::geometry::tritri::{orient3, triangles_intersect};
use crate::math::{Aabb, Pose};
use crate::shape::{ConvexPolytope, Feature, HeightField, SupportShape, TriMesh};

/// [`shape_heightfield`] with the pair's cache (made a mesh cache: its
/// triangle pairs) and the shared scratch.
pub(super) fn pair(
    a: &PairSide<'_>,
    (field, b): (&HeightField, &PairSide<'_>),
    cache: &mut PairCache,
    scratch: &mut QueryScratch,
) -> PairResult {
    match cache.mesh_pairs() {
        Some(pairs) => shape_heightfield(a, (field, b), pairs, &mut scratch.triangles),
        None => PairResult::default(),
    }
}

/// Any shape (`a`, not a compound) against a height field (`b`): the
/// touching `[feature of a, field triangle]` pairs into `pairs` (sorted;
/// the first one only for a boolean-only pair). `scratch` holds one field
/// triangle's surface triangles.
pub(super) fn shape_heightfield(
    a: &PairSide<'_>,
    (field, b): (&HeightField, &PairSide<'_>),
    pairs: &mut Vec<[u32; 2]>,
    scratch: &mut Vec<[u32; 2]>,
) -> PairResult {
    pairs.clear();
    let first_only = a.boolean_only || b.boolean_only;
    let to_field = b.pose.inverse().mul(&a.pose);
    let exact = match a.shape.kind() {
        ShapeKind::Rounded(r) => {
            let core = rounded::world_core(r, &to_field);
            let region = rounded::core_region(core, r.radius);
            collect(field, &region, first_only, pairs, |tri| {
                rounded::core_touches(core, r.radius, tri)
            });
            true
        }
        ShapeKind::Implicit(s) => support_pairs((s, &to_field), field, first_only, pairs),
        ShapeKind::RoundConvex(s) => support_pairs((s, &to_field), field, first_only, pairs),
        ShapeKind::Convex(_) | ShapeKind::TriMesh(_) => {
            surface_pairs(a, (field, b), first_only, (pairs, scratch));
            true
        }
        ShapeKind::HalfSpace(h) => {
            // The triangles with a vertex on or below the plane.
            let n = to_field.rotation * h.normal;
            let c = n.dot(to_field.translation);
            let all = field.local_aabb().padded(1.0 + field.local_aabb().reach());
            collect(field, &all, first_only, pairs, |tri| {
                tri.iter().any(|v| n.dot(*v) <= c)
            });
            true
        }
        ShapeKind::HeightField(f) => {
            field_field::field_pairs((f, &a.pose), (field, &b.pose), first_only, pairs);
            true
        }
        // Composites reach here only as their parts (`test_pair`).
        ShapeKind::Compound(_) | ShapeKind::Polyline(_) => false,
    };
    if !exact {
        return PairResult {
            touching: a.tight.overlaps(&b.tight),
            ..PairResult::default()
        };
    }
    pairs.sort_unstable();
    PairResult::exact_without_contact(!pairs.is_empty())
}

/// A support-mapped shape `s` at `pose` (field frame) against the field:
/// GJK against each field triangle under its box; always exact.
fn support_pairs<S: SupportShape>(
    (s, pose): (&S, &Pose),
    field: &HeightField,
    first_only: bool,
    pairs: &mut Vec<[u32; 2]>,
) -> bool {
    let mut cache = GjkCache::default();
    let region = implicit::shape_region(s, pose);
    collect(field, &region, first_only, pairs, |tri| {
        implicit::touches_triangle((s, pose), tri, &mut cache)
    });
    true
}

/// The field triangles under `region` (field frame) that `touches`, as
/// pairs `[0, triangle]`.
fn collect(
    field: &HeightField,
    region: &Aabb,
    first_only: bool,
    pairs: &mut Vec<[u32; 2]>,
    mut touches: impl FnMut([Vec3; 3]) -> bool,
) {
    let _ = field.for_each_triangle_in(region, |id, tri| {
        if touches(tri) {
            pairs.push([0, id]);
            if first_only {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
}

/// A surface (`a`: a polytope's hull or a mesh, with its tree) against the
/// field: each field triangle under `a`'s box, mapped into `a`'s frame,
/// against `a`'s tree; then, for a polytope with no crossing, the field
/// triangles inside it.
fn surface_pairs(
    a: &PairSide<'_>,
    (field, b): (&HeightField, &PairSide<'_>),
    first_only: bool,
    (pairs, scratch): (&mut Vec<[u32; 2]>, &mut Vec<[u32; 2]>),
) {
    let Some(surface) = a.surface() else {
        return;
    };
    let to_field = b.pose.inverse().mul(&a.pose);
    let to_surface = a.pose.inverse().mul(&b.pose);
    // A polytope's own box in the field's frame (six supports) is tighter
    // than its local box turned: fewer cells, a narrower height range.
    let region = match a.shape.polytope() {
        Some(p) => support_box(p, &to_field, p.radius()),
        None => a
            .shape
            .local_aabb()
            .scaled(surface.scale)
            .transformed(&to_field),
    };
    let mut candidates: smallvec::SmallVec<[(u32, Vec3); 32]> = smallvec::SmallVec::new();
    let poly = a.shape.polytope();
    let mut hints = [NO_HINT; 2];
    let _ = field.for_each_triangle_in(&region, |id, tri| {
        let t = tri.map(|v| to_surface.transform_point(v));
        if poly.is_some_and(|p| off_plane(p, t, &mut hints)) {
            return ControlFlow::Continue(());
        }
        scratch.clear();
        let found = match (poly, surface.tree) {
            (Some(p), _)
                if surface.scale == Vec3::ONE && surface.mesh.vertices().len() <= SCAN_VERTICES =>
            {
                crossing_scan((surface.mesh, p.radius()), t, first_only, scratch)
            }
            (_, TreeRef::Obb(tree)) => {
                crossing(&surface.side(tree, a.pose), t, first_only, scratch)
            }
            (_, TreeRef::Aabb(tree)) => {
                crossing(&surface.side(tree, a.pose), t, first_only, scratch)
            }
        };
        pairs.extend(scratch.iter().map(|&[_, m]| [m, id]));
        if found && first_only {
            return ControlFlow::Break(());
        }
        candidates.push((id, t[0]));
        ControlFlow::Continue(())
    });
    if !pairs.is_empty() {
        return;
    }
    if poly.is_some() {
        for (id, v) in candidates {
            if inside_hull(surface.mesh, v) {
                pairs.push([INSIDE_SOLID, id]);
                if first_only {
                    return;
                }
            }
        }
    }
}

/// Whether the polytope lies wholly on one side of the plane of `t`
/// (polytope frame), clear of it by a relative pad: then `t` neither
/// crosses its surface nor lies inside it. A conservative early out
/// (two supports, hill-climbing from the last ones in `hints`) before the
/// exact tests; a degenerate `t` is never rejected.
fn off_plane(p: &ConvexPolytope, t: [Vec3; 3], hints: &mut [u32; 2]) -> bool {
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let d = n.dot(t[0]);
    let hi = n.dot(p.support(n, &mut hints[0]));
    let lo = n.dot(p.support(-n, &mut hints[1]));
    let size = p.radius() + t[0].abs().max_element() + (t[1] - t[0]).abs().max_element();
    let pad = 1e-5 * n.length() * size;
    lo > d + pad || hi < d - pad
}

/// Whether `p` (hull frame) is inside the hull whose outward,
/// counter-clockwise triangles are `hull`, or on its surface: on no
/// triangle's outer side, by exact orientation predicates. Meant for a
/// vertex of a field triangle that crosses no hull triangle, which then
/// lies strictly inside or strictly outside: the answer is exact, with no
/// tolerance to count a vertex a hair outside as touching.
fn inside_hull(hull: &TriMesh, p: Vec3) -> bool {
    (0..hull.triangles().len()).all(|t| {
        let [a, b, c] = hull.triangle(t);
        orient3(a, b, c, p) <= 0
    })
}

/// The triangles of `side` that cross `t` (side frame), as pairs `[0,
/// triangle]`: the tree descended with `t`'s box, exact triangle–triangle
/// tests at the leaves.
fn crossing<N: BoxNode>(
    side: &MeshSide<'_, N>,
    t: [Vec3; 3],
    first_only: bool,
    out: &mut Vec<[u32; 2]>,
) -> bool {
    let b = Aabb::from_points(t);
    let (c, h) = (b.center(), b.half_extents());
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    touched_triangles_by(
        side,
        first_only,
        out,
        |node| box_meets_region(node, c, h) && box_meets_plane(node, (n, t[0])),
        |m| triangles_intersect(m, t),
    )
}

/// Unscaled hulls with at most this many vertices are scanned whole per
/// field triangle ([`crossing_scan`]) instead of descending their tree.
const SCAN_VERTICES: usize = 128;

/// [`crossing`] for a small unscaled hull (`mesh`, its vertices within
/// `reach` of its origin): each vertex is classed once against `t`'s
/// plane (above or below it, clear by the relative pad of
/// [`off_plane`]); a hull triangle with all three vertices on one side is
/// skipped, one whose box misses `t`'s too (exact: boxes of the very
/// coordinates); the rest take the exact triangle–triangle test. A
/// descent of the tree costs a rotated box test per node, more than a dot
/// product per vertex on hulls of a few dozen vertices.
fn crossing_scan(
    (mesh, reach): (&TriMesh, f32),
    t: [Vec3; 3],
    first_only: bool,
    out: &mut Vec<[u32; 2]>,
) -> bool {
    let b = Aabb::from_points(t);
    let n = (t[1] - t[0]).cross(t[2] - t[0]);
    let d = n.dot(t[0]);
    let size = reach + t[0].abs().max_element() + (t[1] - t[0]).abs().max_element();
    let pad = 1e-5 * n.length() * size;
    let mut side = [0u8; SCAN_VERTICES];
    let vertices = mesh.vertices();
    for (f, p) in side.iter_mut().zip(vertices) {
        let s = n.dot(*p) - d;
        *f = u8::from(s > pad) | u8::from(s < -pad) << 1;
    }
    for (m, &[i, j, k]) in mesh.triangles().iter().enumerate() {
        let (i, j, k) = (i as usize, j as usize, k as usize);
        if side[i % SCAN_VERTICES] & side[j % SCAN_VERTICES] & side[k % SCAN_VERTICES] != 0 {
            continue;
        }
        let tri = [vertices[i], vertices[j], vertices[k]];
        if Aabb::from_points(tri).overlaps(&b) && triangles_intersect(tri, t) {
            out.push([0, m as u32]);
            if first_only {
                return true;
            }
        }
    }
    !out.is_empty()
}

/// Whether a node's oriented box (side frame) can meet the plane through
/// `p` with normal `n` (not unit): its centre no farther from the plane
/// than its extent along `n`, with a relative pad against rounding
/// (conservative). A field triangle is a slanted slab of its box: most
/// of a shape's nodes inside its box lie off its plane.
fn box_meets_plane((rotation, center, half): (Quat, Vec3, Vec3), (n, p): (Vec3, Vec3)) -> bool {
    let local = rotation.conjugate() * n;
    let reach = local.abs().dot(half);
    let size = half.max_element() + center.abs().max_element() + p.abs().max_element();
    n.dot(center - p).abs() <= reach + 1e-5 * n.length() * size
}

/// Closest points of a convex shape (a polytope, sphere, capsule,
/// cylinder or cone) and a height field, either side (`flip` turns the
/// answer around when the field is side A), or of two fields
/// (`field_field.rs`); `None` for other kinds.
///
/// Branch and bound over cells, nearest first: the cells under the
/// shape's box (every height) give a first distance, their footprint
/// grown until they hold a triangle; then every triangle within that
/// distance of the shape's box (its cells, its tiles and heights culled
/// by the box grown by it), each skipped when its box is farther than the
/// best distance so far, GJK shape–triangle on the rest (the same leaf
/// measure as a mesh's). Features: `[Vertex(0), Face(triangle)]`.
pub(super) fn closest_points(
    (a, pose_a): (&ShapeData, &Pose),
    (b, pose_b): (&ShapeData, &Pose),
    pieces: [u32; 2],
    flip: fn(ClosestPoints) -> ClosestPoints,
) -> Option<ClosestPoints> {
    match (a.heightfield(), b.heightfield()) {
        (None, Some(f)) => nearest((a, pose_a), (f, pose_b), pieces),
        (Some(f), None) => nearest((b, pose_b), (f, pose_a), [pieces[1], pieces[0]]).map(flip),
        (Some(fa), Some(fb)) => field_field::field_closest((fa, pose_a), (fb, pose_b), pieces),
        (None, None) => None,
    }
}

/// [`closest_points`] with the shape `s` as side A: a support-mapped
/// shape by GJK against each field triangle; a mesh by its triangles
/// (moved into the field's frame once, each skipped when its box is
/// farther than the best distance so far, GJK triangle–triangle on the
/// rest: `O(mesh triangles)` per field triangle left by the search).
fn nearest(
    (s, ps): (&ShapeData, &Pose),
    (f, pf): (&HeightField, &Pose),
    pieces: [u32; 2],
) -> Option<ClosestPoints> {
    let pose = pf.inverse().mul(ps);
    let mut cache = GjkCache::default();
    if let Some(map) = support_map(s) {
        let shape_box = support_box(map, &pose, s.reach());
        let found = search(f, &shape_box, |tri, _| {
            cache.reset();
            let g = gjk_distance(
                map,
                &pose,
                &PointSetSupport(&tri),
                &Pose::IDENTITY,
                &mut cache,
            );
            Some((g.distance, g.point_a, g.point_b, 0))
        });
        return found.map(|b| closest(b, pf, Feature::Vertex(0), pieces));
    }
    let mesh = s.surface()?.mesh;
    let v = mesh.vertices();
    let tris: Vec<([Vec3; 3], Aabb)> = mesh
        .triangles()
        .iter()
        .map(|t| {
            let w = t.map(|i| pose.transform_point(v[i as usize]));
            (w, Aabb::from_points(w))
        })
        .collect();
    let shape_box = tris.iter().fold(Aabb::EMPTY, |b, t| b.union(t.1));
    let found = search(f, &shape_box, |tri, bound| {
        let field_box = Aabb::from_points(tri);
        let mut best: Option<(f32, Vec3, Vec3, u32)> = None;
        for (k, (m, b)) in (0u32..).zip(&tris) {
            let limit = best.map_or(bound, |x| x.0.min(bound));
            if box_distance(b, &field_box) > limit {
                continue;
            }
            cache.reset();
            let (pm, pt) = (PointSetSupport(m), PointSetSupport(&tri));
            let g = gjk_distance(&pm, &Pose::IDENTITY, &pt, &Pose::IDENTITY, &mut cache);
            if best.is_none_or(|x| g.distance < x.0) {
                best = Some((g.distance, g.point_a, g.point_b, k));
            }
        }
        best
    });
    let (d, a, b, id, k) = found?;
    Some(closest((d, a, b, id, 0), pf, Feature::Face(k), pieces))
}

/// The nearest field triangle's `(distance, point on the shape, point on
/// the field, triangle, the shape's part)` by `measure(triangle, bound)`
/// (field frame; `None`: nothing within `bound`), branch and bound over
/// cells nearest first: the cells under the shape's box (every height)
/// give a first distance, their footprint grown until they hold a
/// triangle; then every triangle within that distance of the shape's box,
/// each skipped when its box is farther than the best distance so far.
pub(super) fn search(
    f: &HeightField,
    shape_box: &Aabb,
    mut measure: impl FnMut([Vec3; 3], f32) -> Option<(f32, Vec3, Vec3, u32)>,
) -> Option<(f32, Vec3, Vec3, u32, u32)> {
    let mut best: Option<(f32, Vec3, Vec3, u32, u32)> = None;
    let mut visit = |region: &Aabb, best: &mut Option<(f32, Vec3, Vec3, u32, u32)>| {
        let _ = f.for_each_triangle_in(region, |id, tri| {
            let bound = best.map_or(f32::INFINITY, |b| b.0);
            if box_distance(&Aabb::from_points(tri), shape_box) > bound {
                return ControlFlow::Continue(());
            }
            let Some((d, pa, pb, part)) = measure(tri, bound) else {
                return ControlFlow::Continue(());
            };
            if best.is_none_or(|b| d < b.0 || (d == b.0 && id < b.3)) {
                *best = Some((d, pa, pb, id, part));
            }
            if d == 0.0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
    };
    let all = f.local_aabb();
    let cell = (all.max - all.min).max_element() / (f.nrows().min(f.ncols()) - 1) as f32;
    let mut grow = 0.0f32;
    loop {
        let g = Vec3::new(grow, 0.0, grow);
        let (lo, hi) = (shape_box.min - g, shape_box.max + g);
        let probe = Aabb::new(
            Vec3::new(lo.x, all.min.y, lo.z),
            Vec3::new(hi.x, all.max.y, hi.z),
        );
        visit(&probe, &mut best);
        if best.is_some() || probe.contains(&all) {
            break;
        }
        grow = (2.0 * grow).max(cell);
    }
    let d = best?.0;
    if d > 0.0 {
        let pad = 1e-5 * (shape_box.reach() + d);
        visit(&shape_box.padded(d + pad), &mut best);
    }
    best
}

/// The closest points of a search (field frame) in the world.
fn closest(
    (d, on_shape, on_field, t, _): (f32, Vec3, Vec3, u32, u32),
    pf: &Pose,
    feature: Feature,
    pieces: [u32; 2],
) -> ClosestPoints {
    ClosestPoints {
        distance: d,
        point_a: pf.transform_point(on_shape),
        point_b: pf.transform_point(on_field),
        features: [feature, Feature::Face(t)],
        intersecting: d == 0.0,
        pieces,
    }
}

/// The distance between two boxes (0 when they overlap): a lower bound
/// on the distance between anything inside them.
pub(super) fn box_distance(a: &Aabb, b: &Aabb) -> f32 {
    (a.min - b.max).max(b.min - a.max).max(Vec3::ZERO).length()
}
