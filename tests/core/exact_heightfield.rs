//! Height fields against an independent brute force: the same terrain
//! written out here as an explicit triangle list (its own loops over the
//! samples, the documented vertex formula and split), every triangle
//! tested in `f64`, on seeded random terrains with holes.
//!
//! **What "exact" means here** (as for meshes, `exact_trees.rs`): a pair
//! is decided on `f32` coordinates: a convex polytope's or mesh's pair
//! maps the field's triangles into the shape's frame by the `f32`
//! relative pose `pose_shape⁻¹ · pose_field`; a sphere, capsule, cylinder
//! or cone is mapped into the field's frame by `pose_field⁻¹ ·
//! pose_shape`. The reference takes those same `f32` coordinates in
//! `f64` and decides every triangle: polytopes exactly (Shewchuk's
//! predicates, `testkit::touching_pairs`, and its own inside test), so the
//! pairs must be equal; spheres and capsules by `f64` segment–triangle
//! distances, cylinders and cones by their support functions
//! (`implicit_reference.rs`), equal outside a band of `BAND` of the
//! pair's size (the crate's `f32` distances and GJK). Rays: every
//! triangle by an `f64` solve; the crate's hit must be a triangle the ray
//! meets (to `1e-5` in barycentrics) at its parameter, and no triangle met
//! well inside (`1e-4`) may come earlier.
//!
//! Placements: random poses, identity poses, shapes resting exactly on a
//! vertex or an edge shared by cells, offsets of `2⁻²⁴`, terrains far from
//! the origin and large; rays at grazing angles, along cell edges, through
//! vertices and holes, from outside the grid.

use std::collections::BTreeSet;

use bevy_icollide::bvh::ContactMode;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::query::{self, INSIDE_SOLID};
use bevy_icollide::shape::HeightField;
use bevy_icollide::testkit::{
    Rng, long_factor, o3, segment_triangle_distance, sphere_hull, torus, touching_pairs,
};
use glam::{DVec3, Quat, Vec3};

use crate::implicit_reference::{Placed, RefShape, separation};

/// Band (relative to the pair's size) around contact in which spheres,
/// capsules, cylinders and cones may answer either way.
const BAND: f64 = 2e-5;

/// A terrain as plain data: heights, hole cells, scale.
#[derive(Clone)]
pub struct Terrain {
    pub rows: usize,
    pub cols: usize,
    pub heights: Vec<f32>,
    pub holes: Vec<bool>,
    pub scale: Vec3,
}

impl Terrain {
    /// Smooth hills plus noise, some flat patches (shared planes), about
    /// `holes` of the cells open.
    pub fn random(rng: &mut Rng, (rows, cols): (usize, usize), scale: Vec3, holes: f32) -> Self {
        let (a, b) = (rng.range(1.0, 4.0), rng.range(1.0, 4.0));
        let heights = (0..rows * cols)
            .map(|k| {
                let (i, j) = ((k / cols) as f32, (k % cols) as f32);
                let smooth = (a * i / rows as f32).sin() * (b * j / cols as f32).cos();
                if rng.below(6) == 0 {
                    0.25
                } else {
                    0.5 * smooth + 0.1 * rng.range(-1.0, 1.0)
                }
            })
            .collect();
        let cells = (rows - 1) * (cols - 1);
        let holes = (0..cells).map(|_| rng.f32() < holes).collect();
        Terrain {
            rows,
            cols,
            heights,
            holes,
            scale,
        }
    }

    pub fn shape(&self) -> SharedShape {
        let mut f = HeightField::new(self.heights.clone(), self.rows, self.cols, self.scale)
            .expect("height field");
        for (c, _) in self.holes.iter().enumerate().filter(|h| *h.1) {
            f.set_hole(c / (self.cols - 1), c % (self.cols - 1), true)
                .expect("hole");
        }
        SharedShape::heightfield_from(f).expect("shape")
    }

    /// The documented vertex of sample `(i, j)`, in `f32`.
    pub fn vertex(&self, i: usize, j: usize) -> Vec3 {
        let x = (-0.5 + j as f32 * (1.0 / (self.cols - 1) as f32)) * self.scale.x;
        let z = (-0.5 + i as f32 * (1.0 / (self.rows - 1) as f32)) * self.scale.z;
        Vec3::new(x, self.heights[i * self.cols + j] * self.scale.y, z)
    }

    /// Every triangle outside holes with its id (see the module docs of
    /// `shape::heightfield`).
    pub fn triangles(&self) -> Vec<(u32, [Vec3; 3])> {
        let mut out = Vec::new();
        for i in 0..self.rows - 1 {
            for j in 0..self.cols - 1 {
                let cell = i * (self.cols - 1) + j;
                if self.holes[cell] {
                    continue;
                }
                let (p00, p10) = (self.vertex(i, j), self.vertex(i + 1, j));
                let (p01, p11) = (self.vertex(i, j + 1), self.vertex(i + 1, j + 1));
                out.push((2 * cell as u32, [p00, p10, p01]));
                out.push((2 * cell as u32 + 1, [p10, p11, p01]));
            }
        }
        out
    }
}

fn pairs_of(a: &SharedShape, pa: &Pose, b: &SharedShape, pb: &Pose) -> BTreeSet<[u32; 2]> {
    let pairs = query::intersecting_triangles(a, pa, b, pb, ContactMode::All).expect("pairs");
    let set: BTreeSet<[u32; 2]> = pairs.iter().copied().collect();
    assert_eq!(set.len(), pairs.len(), "duplicate pairs");
    set
}

/// A convex polytope (`a`) on the terrain: the exact pairs.
fn polytope_reference(a: &SharedShape, pa: &Pose, t: &Terrain, pf: &Pose) -> BTreeSet<[u32; 2]> {
    // A polytope's hull triangles, or a mesh's own (a surface: no inside).
    let ha: Vec<[DVec3; 3]> = match a.hull().filter(|_| a.polytope().is_some()) {
        Some(hull) => {
            let hv = |i: u32| hull.vertices()[i as usize].as_dvec3();
            hull.triangles().iter().map(|t| t.map(hv)).collect()
        }
        None => {
            let m = a.surface().expect("a mesh").mesh;
            (0..m.triangles().len())
                .map(|k| m.triangle(k).map(|v| v.as_dvec3()))
                .collect()
        }
    };
    let rel = pa.inverse().mul(pf);
    let tris = t.triangles();
    let mapped: Vec<[DVec3; 3]> = tris
        .iter()
        .map(|(_, tri)| tri.map(|v| rel.transform_point(v).as_dvec3()))
        .collect();
    let crossing: BTreeSet<[u32; 2]> = touching_pairs(&ha, &mapped)
        .into_iter()
        .map(|[h, k]| [h, tris[k as usize].0])
        .collect();
    if !crossing.is_empty() || a.polytope().is_none() {
        return crossing;
    }
    // Inside or on the surface: on no face's outer side (exact).
    let inside = |p: DVec3| ha.iter().all(|&[x, y, z]| o3(x, y, z, p) >= 0);
    (0..tris.len())
        .filter(|&k| inside(mapped[k][0]))
        .map(|k| [INSIDE_SOLID, tris[k].0])
        .collect()
}

/// A sphere or capsule (`a`) on the terrain: pairs that must be reported
/// and pairs that may be (within the band).
fn rounded_reference(
    a: &SharedShape,
    pa: &Pose,
    t: &Terrain,
    pf: &Pose,
) -> (BTreeSet<[u32; 2]>, BTreeSet<[u32; 2]>) {
    let r = a.rounded().expect("rounded");
    let rel = pf.inverse().mul(pa);
    let [p, q] = r.core().map(|v| rel.transform_point(v).as_dvec3());
    let size = f64::from(r.radius) + p.abs().max(q.abs()).max_element();
    let radius = f64::from(r.radius);
    let (mut must, mut may) = (BTreeSet::new(), BTreeSet::new());
    for (id, tri) in t.triangles() {
        let d = segment_triangle_distance(p, q, tri.map(|v| v.as_dvec3()));
        if d <= radius - BAND * size {
            must.insert([0, id]);
        }
        if d <= radius + BAND * size {
            may.insert([0, id]);
        }
    }
    (must, may)
}

/// A cylinder or cone (`a`) on the terrain, as [`rounded_reference`].
fn implicit_reference(
    a: &SharedShape,
    pa: &Pose,
    t: &Terrain,
    pf: &Pose,
) -> (BTreeSet<[u32; 2]>, BTreeSet<[u32; 2]>) {
    let rel = pf.inverse().mul(pa);
    let placed = Placed::new(a, &rel);
    let reach = f64::from(a.fixed_cube().radius) * 1.01;
    let size = reach + rel.translation.abs().max_element() as f64;
    let (mut must, mut may) = (BTreeSet::new(), BTreeSet::new());
    for (id, tri) in t.triangles() {
        let d = tri.map(|v| v.as_dvec3());
        let near = segment_triangle_distance(placed.pos, placed.pos, d) <= reach;
        if !near {
            continue;
        }
        let tri_ref = Placed::of(RefShape::hull(&tri, &[[0, 1, 2]]), &Pose::IDENTITY);
        let (s, _) = separation(&placed, &tri_ref, &[]);
        if s < -BAND * size {
            must.insert([0, id]);
        }
        if s <= BAND * size {
            may.insert([0, id]);
        }
    }
    (must, may)
}

/// Checks one shape on the terrain against the reference; returns the
/// number of touching pairs.
pub fn check(a: &SharedShape, pa: &Pose, t: &Terrain, field: &SharedShape, pf: &Pose) -> usize {
    let got = pairs_of(a, pa, field, pf);
    let what = format!("{} at {pa:?}, field at {pf:?}", a.kind_name());
    let surface = a.polytope().is_some() || a.surface().is_some_and(|_| a.rounded().is_none());
    let (must, may) = if surface {
        let want = polytope_reference(a, pa, t, pf);
        (want.clone(), want)
    } else if a.rounded().is_some() {
        rounded_reference(a, pa, t, pf)
    } else {
        implicit_reference(a, pa, t, pf)
    };
    assert!(
        got.is_superset(&must),
        "{what}: missed {:?}",
        must.difference(&got).collect::<Vec<_>>()
    );
    assert!(
        got.is_subset(&may),
        "{what}: extra {:?}",
        got.difference(&may).collect::<Vec<_>>()
    );
    // The boolean query and the flipped pair agree with the pairs.
    let hit = query::intersects(a, pa, field, pf).expect("intersects");
    assert!(hit || must.is_empty(), "{what}: intersects missed");
    assert!(!hit || !may.is_empty(), "{what}: intersects extra");
    if must == may {
        assert_eq!(hit, !got.is_empty(), "{what}: intersects");
    }
    let flipped: BTreeSet<[u32; 2]> = pairs_of(field, pf, a, pa)
        .iter()
        .map(|p| [p[1], p[0]])
        .collect();
    assert_eq!(flipped, got, "{what}: flipped");
    got.len()
}

/// A random convex shape of about `size`, or a small torus mesh.
fn any_convex(rng: &mut Rng, size: f32) -> SharedShape {
    match rng.below(7) {
        6 => {
            let (v, t) = torus(size, 0.3 * size, 12, 8);
            SharedShape::trimesh(v, t).expect("torus")
        }
        0 => SharedShape::cuboid(rng.vec(0.3, 1.0) * size).expect("cuboid"),
        1 => sphere_hull(rng, 40, size),
        2 => SharedShape::sphere(size * rng.range(0.3, 1.0)).expect("sphere"),
        3 => SharedShape::capsule(size * rng.range(0.2, 0.6), size * rng.range(0.0, 1.0))
            .expect("capsule"),
        4 => SharedShape::cylinder(size * rng.range(0.3, 1.0), size * rng.range(0.3, 1.5))
            .expect("cylinder"),
        _ => {
            SharedShape::cone(size * rng.range(0.3, 1.0), size * rng.range(0.3, 1.5)).expect("cone")
        }
    }
}

#[test]
fn convex_shapes_at_random_poses_on_terrains_with_holes() {
    let mut rng = Rng::new(4301);
    let mut touching = 0;
    let mut total = 0;
    for round in 0..6 * long_factor() {
        let dims = (rng.usize(2, 24), rng.usize(2, 24));
        let scale = rng.vec(2.0, 8.0);
        let t = Terrain::random(&mut rng, dims, scale, 0.15);
        let field = t.shape();
        let pf = if round % 2 == 0 {
            Pose::IDENTITY
        } else {
            Pose::new(rng.rotation(), rng.in_cube(3.0))
        };
        for _ in 0..30 {
            let cell = (scale.x / dims.1 as f32).max(scale.z / dims.0 as f32);
            let size = cell * rng.range(0.3, 2.0);
            let a = any_convex(&mut rng, size);
            let on = t.vertex(rng.below(dims.0), rng.below(dims.1));
            let local = on + rng.in_cube(0.6 * cell);
            let pa = Pose::new(rng.rotation(), pf.transform_point(local));
            total += 1;
            touching += usize::from(check(&a, &pa, &t, &field, &pf) > 0);
        }
    }
    assert!(
        touching > total / 4 && touching < total,
        "{touching} of {total} touch"
    );
}

/// Shapes resting exactly on a vertex or the middle of a shared edge:
/// a cuboid's bottom face, a sphere's lowest point, at identity
/// rotations, then nudged by `±2⁻²⁴` of the coordinates.
#[test]
fn shapes_on_shared_vertices_and_edges_and_tiny_offsets() {
    let mut rng = Rng::new(4302);
    let t = Terrain::random(&mut rng, (9, 11), Vec3::new(8.0, 1.0, 6.0), 0.1);
    let field = t.shape();
    let (cube, ball) = (
        SharedShape::cuboid(Vec3::splat(0.25)).expect("cube"),
        SharedShape::sphere(0.25).expect("sphere"),
    );
    let capsule = SharedShape::capsule(0.2, 0.3).expect("capsule");
    let mut touching = 0;
    for i in 1..t.rows - 1 {
        for j in 1..t.cols - 1 {
            let v = t.vertex(i, j);
            let edge = 0.5 * (t.vertex(i + 1, j) + t.vertex(i, j + 1));
            for (k, p) in [v, edge].into_iter().enumerate() {
                for (s, lift) in [(&cube, 0.25), (&ball, 0.25), (&capsule, 0.35)] {
                    for nudge in [0.0, 1.0, -1.0] {
                        let dy = nudge * p.y.abs().max(lift) * f32::EPSILON * 0.5;
                        let pa = Pose::new(Quat::IDENTITY, p + Vec3::Y * (lift + dy));
                        let n = check(s, &pa, &t, &field, &Pose::IDENTITY);
                        touching += usize::from(n > 0 && k == 0 && nudge == 0.0);
                    }
                }
            }
        }
    }
    assert!(touching > 0, "no shape touched a vertex it rests on");
}

/// The terrain large and far from the origin, shapes near its vertices.
#[test]
fn far_from_the_origin_and_large() {
    let mut rng = Rng::new(4303);
    for (k, far) in [1.0e4f32, 1.0e6, 3.0e7].into_iter().enumerate() {
        let scale = Vec3::new(1.0e3, 20.0, 8.0e2) * (k as f32 + 1.0);
        let t = Terrain::random(&mut rng, (33, 17), scale, 0.1);
        let field = t.shape();
        let pf = Pose::new(rng.rotation(), rng.unit_vector() * far);
        for _ in 0..20 * long_factor() {
            let cell = scale.x / 16.0;
            let size = cell * rng.range(0.2, 1.0);
            let a = any_convex(&mut rng, size);
            let on = t.vertex(rng.below(33), rng.below(17));
            let pa = Pose::new(
                rng.rotation(),
                pf.transform_point(on + rng.in_cube(0.3 * cell)),
            );
            check(&a, &pa, &t, &field, &pf);
        }
    }
}

/// A terrain wholly inside a box touches it (a polytope is solid): every
/// triangle reported as inside, none crossing; the terrain wholly inside
/// a hole-free region of a box that it crosses reports the crossings.
#[test]
fn a_terrain_inside_a_box_touches_it() {
    let mut rng = Rng::new(4304);
    let t = Terrain::random(&mut rng, (5, 6), Vec3::new(2.0, 0.5, 2.0), 0.2);
    let field = t.shape();
    let big = SharedShape::cuboid(Vec3::splat(3.0)).expect("cube");
    let pairs = pairs_of(&big, &Pose::IDENTITY, &field, &Pose::IDENTITY);
    let ids: BTreeSet<[u32; 2]> = t
        .triangles()
        .iter()
        .map(|(id, _)| [INSIDE_SOLID, *id])
        .collect();
    assert_eq!(pairs, ids);
    assert!(query::intersects(&big, &Pose::IDENTITY, &field, &Pose::IDENTITY).expect("query"));
    let far = Pose::new(Quat::IDENTITY, Vec3::new(0.0, 10.0, 0.0));
    assert!(!query::intersects(&big, &far, &field, &Pose::IDENTITY).expect("query"));
    check(&big, &Pose::IDENTITY, &t, &field, &Pose::IDENTITY);
}
