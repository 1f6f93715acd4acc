//! Height fields, continued: ray casts against every triangle in `f64`
//! (see `exact_heightfield.rs` for the terrain and the rules), height
//! edits against a field rebuilt from scratch, bad input, and the world.
//!
//! A ray's reference: every triangle solved in `f64` (parameter and
//! smallest barycentric coordinate) on the `f32` coordinates the crate
//! decides on (the ray mapped into the field's frame by the `f32` inverse
//! pose). The crate's hit must be on a triangle the ray meets (to `1e-5`
//! in barycentrics) at its parameter (to `1e-4` of the ray's length),
//! and no triangle met well inside (`1e-4`) may come before it; a miss
//! means no triangle is met well inside.

use bevy_icollide::bvh::ContactMode;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, QueryFilter, WorldConfig};
use bevy_icollide::query::{self, Ray};
use bevy_icollide::shape::HeightField;
use bevy_icollide::testkit::{Rng, long_factor, sphere_hull};
use glam::{DVec3, Quat, Vec3};

use crate::exact_heightfield::{Terrain, check};

/// `(t, smallest barycentric)` of the ray and the triangle's plane.
fn solve(o: DVec3, d: DVec3, [a, b, c]: [DVec3; 3]) -> Option<(f64, f64)> {
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det == 0.0 {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    let t = e2.dot(q) / det;
    Some((t, u.min(v).min(1.0 - u - v)))
}

/// Checks one ray (world space) on the field at `pf`; returns whether it
/// hit.
fn check_ray(t: &Terrain, field: &SharedShape, pf: &Pose, ray: &Ray, max_toi: f32) -> bool {
    let got = query::ray_cast(field, pf, ray, max_toi).expect("ray");
    let inv = pf.inverse();
    let (o, d) = (inv.transform_point(ray.origin), inv.rotation * ray.dir);
    let (o, d) = (o.as_dvec3(), d.as_dvec3());
    let reach = f64::from(t.scale.max_element()) + o.length();
    let tol = 1e-4 * reach / d.length();
    let max = f64::from(max_toi);
    let tris = t.triangles();
    let solved: Vec<(u32, f64, f64)> = tris
        .iter()
        .filter_map(|(id, tri)| {
            let (s, m) = solve(o, d, tri.map(|v| v.as_dvec3()))?;
            Some((*id, s, m))
        })
        .collect();
    let robust = solved
        .iter()
        .filter(|(_, s, m)| *m >= 1e-4 && *s >= tol && *s <= max - tol)
        .map(|(_, s, _)| *s)
        .fold(f64::INFINITY, f64::min);
    let what = format!("ray {ray:?} max {max_toi} on field at {pf:?}: {got:?}");
    match got {
        Some(h) => {
            let (_, s, m) = solved
                .iter()
                .find(|(id, _, _)| *id == h.feature)
                .copied()
                .unwrap_or_else(|| panic!("{what}: triangle {} is not there", h.feature));
            assert!(m >= -1e-5, "{what}: the ray misses its triangle ({m})");
            let toi = f64::from(h.toi);
            assert!((toi - s).abs() <= tol, "{what}: parameter {toi} vs {s}");
            assert!(toi <= robust + tol, "{what}: an earlier hit at {robust}");
            assert!(f64::from(h.normal.dot(ray.dir)) <= 1e-6, "{what}: normal");
            true
        }
        None => {
            assert!(robust == f64::INFINITY, "{what}: missed a hit at {robust}");
            false
        }
    }
}

/// Random rays from above at grazing to steep angles, from the sides and
/// from below, bounded and not, on terrains with holes, posed or not.
#[test]
fn rays_from_every_side_at_every_angle() {
    let mut rng = Rng::new(4311);
    let (mut hits, mut total) = (0, 0);
    for round in 0..8 * long_factor() {
        // Every fourth terrain spans many min/max tiles.
        let dims = if round % 4 == 3 {
            (rng.usize(60, 140), rng.usize(60, 140))
        } else {
            (rng.usize(2, 40), rng.usize(2, 40))
        };
        let scale = rng.vec(1.0, 20.0) * (dims.0.max(dims.1) as f32 / 20.0).max(1.0);
        let t = Terrain::random(&mut rng, dims, scale, 0.2);
        let field = t.shape();
        let pf = if round % 2 == 0 {
            Pose::IDENTITY
        } else {
            Pose::new(rng.rotation(), rng.in_cube(50.0))
        };
        let half = t.scale * 0.5;
        for _ in 0..150 {
            let target = Vec3::new(
                rng.range(-half.x, half.x),
                rng.range(-0.6, 0.6) * t.scale.y,
                rng.range(-half.z, half.z),
            );
            let elevation = rng.range(0.005, std::f32::consts::FRAC_PI_2);
            let azimuth = rng.range(0.0, std::f32::consts::TAU);
            let dir = Vec3::new(
                azimuth.cos() * elevation.cos(),
                -elevation.sin(),
                azimuth.sin() * elevation.cos(),
            );
            let dir = if rng.below(5) == 0 { -dir } else { dir };
            let back = rng.range(0.5, 2.0) * t.scale.max_element();
            let origin = target - dir * back;
            let max_toi = if rng.bool() {
                f32::INFINITY
            } else {
                back * rng.range(0.5, 1.5)
            };
            let ray = Ray::new(pf.transform_point(origin), pf.rotation * dir);
            total += 1;
            hits += usize::from(check_ray(&t, &field, &pf, &ray, max_toi));
        }
    }
    assert!(hits > total / 3 && hits < total, "{hits} of {total} hit");
}

/// Rays in the planes of cell edges (along rows and columns), vertical
/// rays through every vertex and edge midpoint, horizontal rays skimming
/// a flat terrain, rays through holes.
#[test]
fn rays_along_cell_edges_through_vertices_and_holes() {
    let mut rng = Rng::new(4312);
    let t = Terrain::random(&mut rng, (13, 9), Vec3::new(6.0, 2.0, 9.0), 0.3);
    let field = t.shape();
    let id = Pose::IDENTITY;
    for i in 0..t.rows {
        for j in 0..t.cols {
            let v = t.vertex(i, j);
            let down = Ray::new(v + Vec3::Y * 3.0, -Vec3::Y);
            check_ray(&t, &field, &id, &down, f32::INFINITY);
            let up = Ray::new(v - Vec3::Y * 3.0, Vec3::Y);
            check_ray(&t, &field, &id, &up, f32::INFINITY);
            if i + 1 < t.rows && j + 1 < t.cols {
                let mid = 0.5 * (t.vertex(i + 1, j) + t.vertex(i, j + 1));
                check_ray(&t, &field, &id, &Ray::new(mid + Vec3::Y, -Vec3::Y), 5.0);
            }
            for slope in [0.01f32, 0.2, 1.0] {
                let along_z = Ray::new(Vec3::new(v.x, 2.0, -6.0), Vec3::new(0.0, -slope, 1.0));
                check_ray(&t, &field, &id, &along_z, f32::INFINITY);
                let along_x = Ray::new(Vec3::new(-4.0, 2.0, v.z), Vec3::new(1.0, -slope, 0.0));
                check_ray(&t, &field, &id, &along_x, f32::INFINITY);
            }
        }
    }
    // A flat terrain: rays skimming it at its height, and just above.
    let flat = Terrain {
        heights: vec![0.5; 6 * 7],
        holes: vec![false; 5 * 6],
        ..Terrain::random(&mut rng, (6, 7), Vec3::new(3.0, 1.0, 3.0), 0.0)
    };
    let f = flat.shape();
    for y in [0.5f32, 0.5 + 1e-6, 0.5 - 1e-6] {
        check_ray(
            &flat,
            &f,
            &id,
            &Ray::new(Vec3::new(-3.0, y, 0.1), Vec3::X),
            9.0,
        );
    }
}

/// Edits of random rectangles (raising and lowering the extremes) agree
/// with a field rebuilt from the edited heights: the same pairs, rays and
/// box, and the reference.
#[test]
fn height_edits_agree_with_a_rebuilt_field() {
    let mut rng = Rng::new(4313);
    let mut t = Terrain::random(&mut rng, (21, 18), Vec3::new(10.0, 2.0, 12.0), 0.1);
    let mut edited = t.shape();
    for _ in 0..12 * long_factor() {
        let (h, w) = (rng.usize(1, 8), rng.usize(1, 8));
        let (r, c) = (rng.below(t.rows - h + 1), rng.below(t.cols - w + 1));
        let lift = [3.0, -3.0, 0.0][rng.below(3)];
        let values: Vec<f32> = (0..h * w).map(|_| lift + rng.range(-0.5, 0.5)).collect();
        edited.set_heights((r, c), (h, w), &values).expect("edit");
        for k in 0..h {
            let at = (r + k) * t.cols + c;
            t.heights[at..at + w].copy_from_slice(&values[k * w..(k + 1) * w]);
        }
        let rebuilt = t.shape();
        assert_eq!(edited.local_aabb(), rebuilt.local_aabb());
        assert_eq!(edited.fixed_cube(), rebuilt.fixed_cube());
        for _ in 0..20 {
            let s = SharedShape::capsule(0.3, 0.5).expect("capsule");
            let cuboid = sphere_hull(&mut rng, 20, 0.6);
            let at = t.vertex(rng.below(t.rows), rng.below(t.cols)) + rng.in_cube(0.5);
            let pa = Pose::new(rng.rotation(), at);
            for a in [&s, &cuboid] {
                let got = query::intersecting_triangles(
                    a,
                    &pa,
                    &edited,
                    &Pose::IDENTITY,
                    ContactMode::All,
                );
                let want = query::intersecting_triangles(
                    a,
                    &pa,
                    &rebuilt,
                    &Pose::IDENTITY,
                    ContactMode::All,
                );
                assert_eq!(got, want);
                check(a, &pa, &t, &edited, &Pose::IDENTITY);
            }
            let ray = Ray::new(at + Vec3::Y * 5.0, rng.unit_vector() - Vec3::Y * 2.0);
            let got = query::ray_cast(&edited, &Pose::IDENTITY, &ray, f32::INFINITY);
            assert_eq!(
                got,
                query::ray_cast(&rebuilt, &Pose::IDENTITY, &ray, f32::INFINITY)
            );
            check_ray(&t, &edited, &Pose::IDENTITY, &ray, f32::INFINITY);
        }
    }
}

/// Bad input: a clear error, nothing changed, never a panic.
#[test]
fn bad_height_fields_are_refused() {
    let ok = |n: usize, m: usize| vec![0.0f32; n * m];
    let one = Vec3::ONE;
    let bad = [
        SharedShape::heightfield(ok(1, 4), 1, 4, one),
        SharedShape::heightfield(ok(4, 1), 4, 1, one),
        SharedShape::heightfield(ok(3, 3), 3, 4, one),
        SharedShape::heightfield(vec![0.0, f32::NAN, 0.0, 0.0], 2, 2, one),
        SharedShape::heightfield(vec![0.0, f32::INFINITY, 0.0, 0.0], 2, 2, one),
        SharedShape::heightfield(ok(2, 2), 2, 2, Vec3::new(1.0, 0.0, 1.0)),
        SharedShape::heightfield(ok(2, 2), 2, 2, Vec3::new(-1.0, 1.0, 1.0)),
        SharedShape::heightfield(ok(2, 2), 2, 2, Vec3::new(1.0, f32::NAN, 1.0)),
        SharedShape::heightfield(vec![0.0, 1e30, 0.0, 0.0], 2, 2, one),
        SharedShape::heightfield(ok(2, 2), 2, 2, Vec3::splat(1e9)),
        SharedShape::heightfield(Vec::new(), 40_000, 2, one),
    ];
    for (k, r) in bad.into_iter().enumerate() {
        let e = r.expect_err("refused");
        assert!(!e.to_string().is_empty(), "case {k}");
    }
    let mut f = HeightField::new(ok(3, 4), 3, 4, one).expect("field");
    assert!(f.set_hole(2, 0, true).is_err());
    assert!(f.set_hole(0, 3, true).is_err());
    assert!(f.set_heights((2, 0), (2, 1), &[1.0, 1.0]).is_err());
    assert!(f.set_heights((0, 0), (1, 2), &[1.0]).is_err());
    assert!(f.set_heights((0, 0), (0, 0), &[]).is_err());
    assert!(f.set_heights((0, 0), (1, 1), &[f32::NAN]).is_err());
    assert!(f.heights().iter().all(|&h| h == 0.0));
    let mut s = SharedShape::heightfield(ok(3, 4), 3, 4, one).expect("shape");
    assert!(s.set_heights((0, 0), (1, 1), &[1e30]).is_err());
    assert_eq!(s.local_aabb().max.y, 0.0);
    let copy = s.clone();
    assert!(s.set_heights((0, 0), (1, 1), &[1.0]).is_err(), "shared");
    drop(copy);
    s.set_heights((0, 0), (1, 1), &[1.0]).expect("unique");
    assert_eq!(s.local_aabb().max.y, 1.0);
    let mut cube = SharedShape::cuboid(one).expect("cube");
    assert!(cube.set_heights((0, 0), (1, 1), &[1.0]).is_err());
}

/// A static terrain in the world: each moving shape's pair touches
/// exactly when the one-shot query says so, and world rays report the
/// triangle.
#[test]
fn a_terrain_in_the_world() {
    let mut rng = Rng::new(4314);
    let t = Terrain::random(&mut rng, (30, 25), Vec3::new(20.0, 3.0, 24.0), 0.1);
    let field = t.shape();
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("world");
    let pf = Pose::new(Quat::from_rotation_y(0.3), Vec3::new(100.0, -5.0, 40.0));
    let hf = world.add_body(BodyDesc {
        is_static: true,
        ..BodyDesc::new(field.clone())
    });
    world.set_pose(hf, pf).expect("pose");
    let shapes = [
        SharedShape::sphere(0.5).expect("sphere"),
        SharedShape::capsule(0.3, 1.0).expect("capsule"),
        SharedShape::cuboid(Vec3::new(0.5, 0.3, 0.4)).expect("cuboid"),
        SharedShape::cylinder(0.5, 0.8).expect("cylinder"),
        sphere_hull(&mut rng, 40, 0.7),
    ];
    let mut bodies = Vec::new();
    for k in 0..20 {
        let s = shapes[k % shapes.len()].clone();
        let at = t.vertex(rng.below(t.rows), rng.below(t.cols)) + Vec3::Y * rng.range(-0.5, 1.0);
        let h = world.add_body(BodyDesc::new(s.clone()));
        bodies.push((h, s, Pose::new(rng.rotation(), pf.transform_point(at))));
    }
    let mut touching = 0;
    for _frame in 0..30 {
        for (h, _, pose) in &mut bodies {
            pose.translation += rng.in_cube(0.05) - Vec3::Y * 0.02;
            world.set_pose(*h, *pose).expect("pose");
        }
        let _ = world.step();
        for (h, s, pose) in &bodies {
            let want = query::intersects(s, pose, &field, &pf).expect("query");
            let got = world.pair(*h, hf).is_some_and(|p| p.result.touching);
            assert_eq!(got, want, "{} at {pose:?}", s.kind_name());
            touching += usize::from(got);
        }
    }
    assert!(touching > 50, "{touching} touching");
    let ray = Ray::new(pf.transform_point(Vec3::new(0.3, 10.0, 0.2)), -Vec3::Y);
    let hit = world
        .ray_cast(&ray, f32::INFINITY, QueryFilter::default())
        .expect("hit");
    let want = query::ray_cast(&field, &pf, &ray, f32::INFINITY).expect("ray");
    assert_eq!(hit.triangle, want.map(|w| w.feature));
}

/// An edit of one sample on a tile boundary (sample rows and columns that
/// are multiples of the tile size are corners of cells in two tiles):
/// the cells of both tiles reach the raised vertex.
#[test]
fn edits_on_tile_boundaries_reach_both_tiles() {
    let tile = bevy_icollide::shape::heightfield::TILE as usize;
    let n = 2 * tile + 3;
    let mut t = Terrain {
        heights: vec![0.0; n * n],
        holes: vec![false; (n - 1) * (n - 1)],
        rows: n,
        cols: n,
        scale: Vec3::new(n as f32 - 1.0, 1.0, n as f32 - 1.0),
    };
    let mut edited = t.shape();
    let ball = SharedShape::sphere(0.2).expect("sphere");
    for (i, j) in [(tile, tile), (tile, 3), (3, 2 * tile), (2 * tile, 2 * tile)] {
        edited.set_heights((i, j), (1, 1), &[4.0]).expect("edit");
        t.heights[i * n + j] = 4.0;
        // Just below the raised vertex, in each of the four cells around it.
        for (di, dj) in [
            (-0.25f32, -0.25f32),
            (-0.25, 0.25),
            (0.25, -0.25),
            (0.25, 0.25),
        ] {
            let v = t.vertex(i, j);
            let at = Vec3::new(v.x + dj, 3.5, v.z + di);
            let pose = Pose::new(Quat::IDENTITY, at);
            check(&ball, &pose, &t, &edited, &Pose::IDENTITY);
            let ray = Ray::new(at + Vec3::Y * 2.0, -Vec3::Y);
            check_ray(&t, &edited, &Pose::IDENTITY, &ray, f32::INFINITY);
        }
    }
}

/// The distance from convex shapes to terrains with holes, against every
/// triangle in `f64` (spheres and capsules: segment–triangle distances
/// less the radius; polytopes: vertex–triangle and edge–edge distances to
/// each triangle), to `1e-4` of the size (GJK's tolerance); shapes from
/// touching to far above, beside the grid, over holes, field posed or
/// not, and the flipped query.
#[test]
fn distances_to_the_terrain() {
    use bevy_icollide::testkit::{Poly, distance as poly_distance, segment_triangle_distance};
    let mut rng = Rng::new(4315);
    let mut apart = 0;
    for round in 0..4 * long_factor() {
        let dims = (rng.usize(2, 20), rng.usize(2, 20));
        let scale = rng.vec(2.0, 8.0);
        let t = Terrain::random(&mut rng, dims, scale, 0.25);
        let field = t.shape();
        let pf = if round % 2 == 0 {
            Pose::IDENTITY
        } else {
            Pose::new(rng.rotation(), rng.in_cube(5.0))
        };
        for k in 0..25 {
            let size = rng.range(0.2, 1.0);
            let s = match k % 3 {
                0 => SharedShape::sphere(size).expect("sphere"),
                1 => SharedShape::capsule(size * 0.5, size).expect("capsule"),
                _ => sphere_hull(&mut rng, 20, size),
            };
            let lift = [0.0, 0.05, 0.5, 3.0][rng.below(4)];
            let base = t.vertex(rng.below(dims.0), rng.below(dims.1));
            let side = if k % 7 == 0 {
                Vec3::X * scale.x
            } else {
                Vec3::ZERO
            };
            let local = base + side + Vec3::Y * (lift + size) + rng.in_cube(0.3);
            let ps = Pose::new(rng.rotation(), pf.transform_point(local));
            let got = query::distance(&s, &ps, &field, &pf).expect("distance");
            let back = query::distance(&field, &pf, &s, &ps).expect("distance");
            assert_eq!(got, back, "flipped");
            // The reference, in the field's frame (the shape mapped by the
            // f32 relative pose, as the query maps it).
            let rel = pf.inverse().mul(&ps);
            let tris = t.triangles();
            let want = if let Some(r) = s.rounded() {
                let [p, q] = r.core().map(|v| rel.transform_point(v).as_dvec3());
                let d = tris
                    .iter()
                    .map(|(_, tri)| segment_triangle_distance(p, q, tri.map(|v| v.as_dvec3())))
                    .fold(f64::INFINITY, f64::min);
                (d - f64::from(r.radius)).max(0.0)
            } else {
                let hull = s.hull().expect("hull");
                let ph = Poly::new(hull.vertices(), hull.triangles(), &rel);
                let touching = crate::exact_heightfield::check(&s, &ps, &t, &field, &pf) > 0;
                if touching {
                    0.0
                } else {
                    // Both orientations: `Poly` lists each edge once per
                    // pair of opposite half-edges.
                    tris.iter()
                        .map(|(_, tri)| {
                            poly_distance(
                                &ph,
                                &Poly::new(tri, &[[0, 1, 2], [0, 2, 1]], &Pose::IDENTITY),
                            )
                        })
                        .fold(f64::INFINITY, f64::min)
                }
            };
            if want.is_infinite() {
                continue;
            }
            let tol = 1e-4 * (f64::from(size) + f64::from(scale.max_element()));
            let cp = query::closest_points(&s, &ps, &field, &pf).expect("closest");
            assert!(
                (f64::from(got) - want).abs() <= tol,
                "{} at {ps:?} on field at {pf:?}: {got} vs {want}; {cp:?}; field triangles {:?}",
                s.kind_name(),
                cp.features[1]
            );
            apart += usize::from(want > 0.0);
        }
    }
    assert!(apart > 30, "{apart} apart");
}

/// Queries once missing with a height field now answer: casts (also
/// field against field), mesh and field distances, mesh contacts.
#[test]
fn missing_height_field_queries_are_errors() {
    use bevy_icollide::query::ShapeCastOptions;
    let field = SharedShape::heightfield(vec![0.0; 9], 3, 3, Vec3::ONE).expect("field");
    let ball = SharedShape::sphere(0.1).expect("ball");
    let above = Pose::new(Quat::IDENTITY, Vec3::Y);
    let cast = |field_vel: Vec3| {
        query::cast_shapes(
            (&ball, &above, -Vec3::Y),
            (&field, &Pose::IDENTITY, field_vel),
            &ShapeCastOptions::default(),
        )
    };
    // Stationary and moving fields are cast (`exact_field_motion.rs`).
    assert!(cast(Vec3::ZERO).expect("cast").is_some());
    assert!(cast(Vec3::X * 0.2).expect("a moving field").is_some());
    assert!(
        cast(Vec3::X).expect("a moving field").is_none(),
        "gone by then"
    );
    let mesh =
        SharedShape::trimesh(vec![Vec3::ZERO, Vec3::X, Vec3::Z], vec![[0, 1, 2]]).expect("mesh");
    let mesh_cast = query::cast_shapes(
        (&mesh, &above, -Vec3::Y),
        (&field, &Pose::IDENTITY, Vec3::ZERO),
        &ShapeCastOptions::default(),
    );
    assert!(mesh_cast.expect("a mesh onto a field").is_some());
    // A field against a field is cast too (`exact_field_field.rs`).
    let two = query::cast_shapes(
        (&field, &above, -Vec3::Y),
        (&field, &Pose::IDENTITY, Vec3::ZERO),
        &ShapeCastOptions::default(),
    );
    let hit = two.expect("field onto field").expect("a hit");
    assert!((hit.time_of_impact - 1.0).abs() < 1e-3, "{hit:?}");
    assert_eq!(
        query::distance(&field, &above, &field, &Pose::IDENTITY),
        Ok(1.0)
    );
    let d = query::distance(&mesh, &above, &field, &Pose::IDENTITY);
    assert_eq!(d.expect("mesh–field distance"), 1.0);
    // Mesh contacts are exact (the same tree walk as a polytope's).
    let pairs = query::intersecting_triangles(
        &mesh,
        &Pose::IDENTITY,
        &field,
        &Pose::IDENTITY,
        ContactMode::All,
    );
    assert!(!pairs.expect("pairs").is_empty());
}
