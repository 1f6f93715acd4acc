//! Spatial queries against brute force, on seeded scenes mixing convex
//! hulls and triangle meshes (some static, some oversized, several layers):
//!
//! - box queries equal testing every body's broad-phase box;
//! - shape queries equal `query::intersects` on every body;
//! - ray casts equal `query::ray_cast` on every body (same hits, bit for
//!   bit), and each hit equals brute force over the body's triangles (a
//!   mesh's: same parameter and triangle; a convex body's hull triangles,
//!   within 1e-5 relative, or 0 from inside); the nearest hit is the
//!   brute-force nearest body;
//! - layer masks and excluded bodies are respected;
//! - between the stages of a frame, queries see the current poses;
//! - the grid's own box and ray queries equal brute force over its proxies;
//! - the `SpatialQuery` system parameter from an app.

use crate::common;

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::broad_phase::GridSweepAndPrune;
use bevy_icollide::collider::{ShapeKind, SharedShape};
use bevy_icollide::geometry::ray::ray_triangle;
use bevy_icollide::math::{Aabb, Pose};
use bevy_icollide::pipeline::{
    BodyDesc, BodyHandle, CollisionWorld, Layers, QueryFilter, WorldConfig, WorldRayHit,
};
use bevy_icollide::query::{self, Ray};
use bevy_icollide::testkit::ray_mesh as ray_cast_brute_force;
use bevy_icollide::testkit::{Rng, sphere_hull, torus};
use glam::{DVec3, Quat, Vec3};

/// Half-size of the cube the bodies live in.
const HALF: f32 = 12.0;

struct Scene {
    world: CollisionWorld,
    ids: Vec<BodyHandle>,
    rng: Rng,
}

fn mesh(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> SharedShape {
    SharedShape::trimesh(vertices, triangles).expect("valid mesh")
}

/// A soup of `n` random triangles in a cube of half-size `h`.
fn soup(rng: &mut Rng, n: usize, h: f32) -> SharedShape {
    let vertices: Vec<Vec3> = (0..3 * n).map(|_| rng.in_cube(h)).collect();
    let triangles = (0..n as u32)
        .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    mesh(vertices, triangles)
}

/// A flat square of half-side `h` in the xz plane (no 3D hull).
fn quad(h: f32) -> SharedShape {
    let v = vec![
        Vec3::new(-h, 0.0, -h),
        Vec3::new(h, 0.0, -h),
        Vec3::new(h, 0.0, h),
        Vec3::new(-h, 0.0, h),
    ];
    mesh(v, vec![[0, 1, 2], [0, 2, 3]])
}

fn random_shape(rng: &mut Rng, tori: &[SharedShape]) -> SharedShape {
    match rng.below(10) {
        0..6 => {
            let radius = rng.range(0.3, 1.5);
            sphere_hull(rng, 20, radius)
        }
        6..8 => tori[rng.below(tori.len())].clone(),
        8 => {
            let size = rng.range(0.5, 1.5);
            soup(rng, 12, size)
        }
        _ => quad(rng.range(0.5, 2.0)),
    }
}

fn random_pose(rng: &mut Rng) -> Pose {
    Pose::new(rng.rotation(), rng.in_cube(HALF))
}

/// `n` random bodies, a floor mesh and a big slab (both oversized with
/// small cells), stepped a few frames with some bodies moving.
fn scene(seed: u64, n: usize, cell_size: Option<f32>) -> Scene {
    let mut rng = Rng::new(seed);
    let tori: Vec<SharedShape> = [(1.0, 0.3), (1.8, 0.5)]
        .iter()
        .map(|&(a, b)| {
            let (v, t) = torus(a, b, 16, 8);
            mesh(v, t)
        })
        .collect();
    let mut world = CollisionWorld::new(WorldConfig {
        margin: 0.05,
        cell_size,
        ..Default::default()
    })
    .expect("valid config");
    let mut ids = Vec::new();
    for i in 0..n + 2 {
        let (shape, pose) = match i {
            i if i == n => (quad(30.0), Pose::from_translation(Vec3::Y * -HALF)),
            i if i == n + 1 => (
                SharedShape::cuboid(Vec3::new(20.0, 0.5, 20.0)).expect("slab"),
                Pose::new(rng.rotation(), Vec3::ZERO),
            ),
            _ => (random_shape(&mut rng, &tori), random_pose(&mut rng)),
        };
        let mut desc = BodyDesc::new(shape);
        desc.is_static = rng.below(5) == 0;
        desc.bounds = [BoundsMode::DynamicBox, BoundsMode::FixedCube][rng.below(2)];
        desc.layers = Layers {
            memberships: 1 << rng.below(4),
            ..Default::default()
        };
        let id = world.add_body(desc);
        world.set_pose(id, pose).expect("valid pose");
        ids.push(id);
    }
    let mut s = Scene { world, ids, rng };
    for _ in 0..4 {
        let _ = s.world.step();
        s.move_some(n / 3);
    }
    let _ = s.world.step();
    s
}

impl Scene {
    /// Moves `k` random bodies a little (or, one in ten, far).
    fn move_some(&mut self, k: usize) {
        for _ in 0..k {
            let id = self.ids[self.rng.below(self.ids.len())];
            let old = self.world.pose(id).expect("posed");
            let far = self.rng.below(10) == 0;
            let pose = if far {
                random_pose(&mut self.rng)
            } else {
                let spin = Quat::from_axis_angle(self.rng.unit_vector(), 0.2);
                Pose::new(
                    (spin * old.rotation).normalize(),
                    old.translation + self.rng.in_cube(0.5),
                )
            };
            self.world.set_pose(id, pose).expect("valid pose");
        }
    }

    /// A random filter: all layers, or some; sometimes a few excluded bodies.
    fn filter(&mut self, exclude: &mut Vec<BodyHandle>) -> u32 {
        exclude.clear();
        if self.rng.below(4) == 0 {
            for _ in 0..1 + self.rng.below(3) {
                exclude.push(self.ids[self.rng.below(self.ids.len())]);
            }
        }
        if self.rng.below(3) == 0 {
            self.rng.next_u64() as u32 & 0xf
        } else {
            u32::MAX
        }
    }

    fn shape(&self, id: BodyHandle) -> SharedShape {
        self.world.shape(id).expect("live body").clone()
    }
}

fn seen(filter: &QueryFilter<'_>, layers: &[u32], id: BodyHandle) -> bool {
    filter.accepts(id, layers[id.index() as usize])
}

/// Every body's layer memberships, by body id.
fn all_layers(s: &Scene) -> Vec<u32> {
    let mut layers = vec![0; s.ids.len()];
    for &id in &s.ids {
        layers[id.index() as usize] = s.world.layers(id).expect("live body").memberships;
    }
    layers
}

fn random_box(rng: &mut Rng) -> Aabb {
    let c = rng.in_cube(HALF * 1.3);
    let h = match rng.below(10) {
        0 => Vec3::ZERO,
        1 => Vec3::splat(1e6),
        2..5 => Vec3::new(
            rng.range(0.0, 20.0),
            rng.range(0.0, 3.0),
            rng.range(0.0, 20.0),
        ),
        _ => Vec3::new(
            rng.range(0.0, 3.0),
            rng.range(0.0, 3.0),
            rng.range(0.0, 3.0),
        ),
    };
    Aabb::from_center_half_extents(c, h)
}

#[test]
fn box_queries_equal_brute_force() {
    for (seed, cell) in [(1, Some(3.0)), (2, None), (3, Some(1.0))] {
        let mut s = scene(seed, 150, cell);
        let layers = all_layers(&s);
        let (mut got, mut exclude) = (Vec::new(), Vec::new());
        let mut found = 0;
        for i in 0..400 {
            let mask = s.filter(&mut exclude);
            let filter = QueryFilter::from_mask(mask).with_exclude(&exclude);
            let q = if i == 0 {
                Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY)
            } else {
                random_box(&mut s.rng)
            };
            s.world.aabb_query(q, filter, &mut got);
            let want: Vec<BodyHandle> = s
                .ids
                .iter()
                .copied()
                .filter(|&id| seen(&filter, &layers, id))
                .filter(|&id| s.world.aabb(id).expect("boxed").overlaps(&q))
                .collect();
            assert_eq!(got, want, "seed {seed}, box {i}: {q:?}");
            found += got.len();
        }
        assert!(found > 2000, "seed {seed}: only {found} boxes found");
    }
}

#[test]
fn shape_queries_equal_brute_force() {
    let mut rng = Rng::new(9);
    let (v, t) = torus(1.2, 0.3, 16, 8);
    let probes = [
        sphere_hull(&mut rng, 24, 0.8),
        sphere_hull(&mut rng, 24, 2.5),
        SharedShape::cuboid(Vec3::new(3.0, 0.2, 1.0)).expect("box"),
        mesh(v, t),
        soup(&mut rng, 10, 1.5),
    ];
    for (seed, cell) in [(4, Some(3.0)), (5, None)] {
        let mut s = scene(seed, 150, cell);
        let layers = all_layers(&s);
        let (mut got, mut exclude) = (Vec::new(), Vec::new());
        let mut found = 0;
        for i in 0..300 {
            let mask = s.filter(&mut exclude);
            let filter = QueryFilter::from_mask(mask).with_exclude(&exclude);
            let probe = &probes[i % probes.len()];
            let pose = random_pose(&mut s.rng);
            s.world
                .intersect_shape(probe, pose, filter, &mut got)
                .expect("valid pose");
            let want: Vec<BodyHandle> = s
                .ids
                .iter()
                .copied()
                .filter(|&id| seen(&filter, &layers, id))
                .filter(|&id| {
                    let other = s.world.pose(id).expect("posed");
                    query::intersects(probe, &pose, &s.shape(id), &other).expect("supported")
                })
                .collect();
            assert_eq!(got, want, "seed {seed}, probe {i}");
            found += got.len();
        }
        assert!(found > 150, "seed {seed}: only {found} intersections");
    }
}

fn random_ray(s: &mut Scene) -> (Ray, f32) {
    let origin = s.rng.in_cube(HALF * 1.2);
    let target = if s.rng.below(2) == 0 {
        let id = s.ids[s.rng.below(s.ids.len())];
        s.world.pose(id).expect("posed").translation + s.rng.in_cube(1.0)
    } else {
        origin + s.rng.unit_vector()
    };
    let dir = (target - origin).normalize_or(Vec3::X) * s.rng.range(0.5, 2.0);
    let max_toi = if s.rng.below(2) == 0 {
        f32::INFINITY
    } else {
        s.rng.range(1.0, 40.0)
    };
    (Ray::new(origin, dir), max_toi)
}

/// `query::ray_cast` on every body the filter passes, sorted like
/// `ray_cast_all`.
fn every_body(
    s: &Scene,
    ray: &Ray,
    max_toi: f32,
    pass: impl Fn(BodyHandle) -> bool,
) -> Vec<WorldRayHit> {
    let mut hits: Vec<WorldRayHit> = s
        .ids
        .iter()
        .copied()
        .filter(|&id| pass(id))
        .filter_map(|id| {
            let shape = s.shape(id);
            let h = query::ray_cast(&shape, &s.world.pose(id)?, ray, max_toi).ok()??;
            let mesh = matches!(shape.kind(), ShapeKind::TriMesh(_));
            Some(WorldRayHit {
                body: id,
                toi: h.toi,
                point: ray.at(h.toi),
                point_f64: ray.origin.as_dvec3() + (ray.dir * h.toi).as_dvec3(),
                normal: h.normal,
                triangle: mesh.then_some(h.feature),
                face: (!mesh && h.feature != u32::MAX).then_some(h.feature),
                piece: 0,
            })
        })
        .collect();
    hits.sort_by(|a, b| a.toi.total_cmp(&b.toi).then(a.body.cmp(&b.body)));
    hits
}

/// Brute force over a body's triangles in its frame: `(toi, triangle)`;
/// for a convex body the hull's triangles, or `toi = 0` from inside.
fn triangles_brute_force(
    shape: &SharedShape,
    pose: &Pose,
    ray: &Ray,
    max_toi: f32,
) -> Option<(f32, Option<u32>)> {
    let inv = pose.inverse();
    let local = Ray::new(
        inv.transform_point(ray.origin),
        inv.transform_vector(ray.dir),
    );
    match shape.kind() {
        ShapeKind::TriMesh(m) => {
            ray_cast_brute_force(m, &local, max_toi).map(|(t, i)| (t, Some(i)))
        }
        ShapeKind::Convex(poly) => {
            let inside =
                (0..poly.faces().len() as u32).all(|f| poly.face_distance(f, local.origin) <= 0.0);
            if inside {
                return Some((0.0, None));
            }
            let hull = shape.hull().expect("hull");
            hull.triangles()
                .iter()
                .filter_map(|t| {
                    ray_triangle(&local, t.map(|v| hull.vertices()[v as usize]), max_toi)
                })
                .min_by(f32::total_cmp)
                .map(|t| (t, None))
        }
        other => panic!("these scenes hold convex and mesh bodies, not {other:?}"),
    }
}

/// Parameter tolerance: 1e-5 relative to the distances involved.
fn tolerance(ray: &Ray, toi: f32) -> f32 {
    1e-5 * (1.0 + ray.origin.length() / ray.dir.length() + toi)
}

/// Whether the ray passes within rounding of an edge of a convex body
/// (where Cyrus–Beck and the hull triangles may disagree on a hit), or
/// starts on its surface. Never for a mesh.
fn grazes(shape: &SharedShape, pose: &Pose, ray: &Ray, toi: f32) -> bool {
    if shape.polytope().is_none() {
        return false;
    }
    let body = common::Body {
        shape: shape.clone(),
        pose: *pose,
    };
    let p = ray.at(toi).as_dvec3();
    let near_edge = body
        .world_edges()
        .iter()
        .map(|&(a, b)| p.distance(common::closest_on_segment(p, a, b)))
        .fold(f64::MAX, f64::min);
    let scale = f64::from(1.0 + ray.origin.length() + ray.dir.length() * toi);
    near_edge < 1e-4 * scale || body.outside_by(ray.origin).abs() < 1e-4
}

/// One body's hit against its triangles; returns whether it agreed (a
/// disagreement must be a grazing ray on a convex body).
fn check_hit(
    s: &Scene,
    hit: Option<&WorldRayHit>,
    id: BodyHandle,
    ray: &Ray,
    max_toi: f32,
) -> bool {
    let (shape, pose) = (s.shape(id), s.world.pose(id).expect("posed"));
    let want = triangles_brute_force(&shape, &pose, ray, max_toi);
    let is_mesh = matches!(shape.kind(), ShapeKind::TriMesh(_));
    match (hit, want) {
        (Some(h), Some((t, tri))) if is_mesh => {
            assert_eq!((h.toi, h.triangle), (t, tri), "body {id:?}: mesh hit");
            true
        }
        (Some(h), Some((t, _))) if (h.toi - t).abs() <= tolerance(ray, t) => true,
        (None, None) => true,
        (h, w) => {
            let toi = h.map(|h| h.toi).or(w.map(|w| w.0)).unwrap_or(0.0);
            assert!(
                grazes(&shape, &pose, ray, toi),
                "body {id:?}: {h:?} vs brute force {w:?}"
            );
            false
        }
    }
}

#[test]
fn ray_casts_equal_brute_force() {
    for (seed, cell) in [(6, Some(3.0)), (7, None), (8, Some(1.5))] {
        let mut s = scene(seed, 120, cell);
        let layers = all_layers(&s);
        let (mut all, mut exclude) = (Vec::new(), Vec::new());
        let (mut hits, mut grazing, mut checked) = (0, 0, 0);
        for i in 0..2000 {
            let mask = s.filter(&mut exclude);
            let filter = QueryFilter::from_mask(mask).with_exclude(&exclude);
            let (ray, max_toi) = random_ray(&mut s);
            s.world.ray_cast_all(&ray, max_toi, filter, &mut all);
            let want = every_body(&s, &ray, max_toi, |id| seen(&filter, &layers, id));
            assert_eq!(all, want, "seed {seed}, ray {i}: all hits");
            let first = s.world.ray_cast(&ray, max_toi, filter);
            assert_eq!(
                first,
                want.first().copied(),
                "seed {seed}, ray {i}: first hit"
            );
            for &id in s.ids.iter().filter(|&&id| seen(&filter, &layers, id)) {
                let hit = all.iter().find(|h| h.body == id);
                checked += 1;
                grazing += usize::from(!check_hit(&s, hit, id, &ray, max_toi));
            }
            check_nearest(&s, first, &ray, max_toi, |id| seen(&filter, &layers, id));
            hits += usize::from(first.is_some());
        }
        assert!(hits > 1000, "seed {seed}: {hits} of 2000 rays hit");
        assert!(
            grazing * 10_000 < checked,
            "seed {seed}: {grazing} grazing of {checked}"
        );
    }
}

/// The nearest hit is the brute-force nearest body over all triangles
/// (or a body hit within rounding of it).
fn check_nearest(
    s: &Scene,
    first: Option<WorldRayHit>,
    ray: &Ray,
    max_toi: f32,
    pass: impl Fn(BodyHandle) -> bool,
) {
    let best = s
        .ids
        .iter()
        .copied()
        .filter(|&id| pass(id))
        .filter_map(|id| {
            let (shape, pose) = (s.shape(id), s.world.pose(id)?);
            triangles_brute_force(&shape, &pose, ray, max_toi).map(|(t, tri)| (t, id, tri))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let agree = match (first, best) {
        (None, None) => true,
        (Some(h), Some((t, id, tri))) => {
            if h.body == id && tri.is_some() {
                assert_eq!(h.triangle, tri, "nearest triangle");
            }
            (h.toi - t).abs() <= tolerance(ray, t)
        }
        _ => false,
    };
    if !agree {
        // Only a ray grazing a convex body may differ: the nearer one.
        let (h, b) = (first.map(|h| (h.toi, h.body)), best.map(|b| (b.0, b.1)));
        let (toi, id) = match (h, b) {
            (Some(h), Some(b)) => {
                if h.0 <= b.0 {
                    h
                } else {
                    b
                }
            }
            (h, b) => h.or(b).expect("one side hit"),
        };
        let (shape, pose) = (s.shape(id), s.world.pose(id).expect("posed"));
        assert!(
            grazes(&shape, &pose, ray, toi),
            "nearest: {first:?} vs {best:?}"
        );
    }
}

/// Every query's answer, for comparing two states of a world.
fn answers(s: &Scene, seed: u64) -> (Vec<Vec<BodyHandle>>, Vec<Vec<WorldRayHit>>) {
    let mut rng = Rng::new(seed);
    let probe = sphere_hull(&mut rng, 16, 1.5);
    let (mut shapes, mut rays) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        let mut out = Vec::new();
        let pose = random_pose(&mut rng);
        s.world
            .intersect_shape(&probe, pose, QueryFilter::ALL, &mut out)
            .expect("valid pose");
        shapes.push(out);
        let ray = Ray::new(rng.in_cube(HALF), rng.unit_vector());
        let mut hits = Vec::new();
        s.world
            .ray_cast_all(&ray, f32::INFINITY, QueryFilter::ALL, &mut hits);
        assert_eq!(
            s.world.ray_cast(&ray, f32::INFINITY, QueryFilter::ALL),
            hits.first().copied()
        );
        rays.push(hits);
    }
    (shapes, rays)
}

#[test]
fn queries_between_stages_see_current_poses() {
    let mut s = scene(10, 120, Some(3.0));
    s.move_some(60);
    // A body removed and one added since the last step.
    s.world.remove_body(s.ids[3]).expect("live body");
    s.ids.remove(3);
    let added = s
        .world
        .add_body(BodyDesc::new(SharedShape::cuboid(Vec3::ONE).expect("cube")));
    s.world
        .set_pose(added, Pose::from_translation(Vec3::new(0.5, 0.5, 0.5)))
        .expect("valid");
    s.ids.push(added);
    let moved = answers(&s, 11);
    s.world.update_bounds();
    let bounded = answers(&s, 11);
    s.world.update_broad_phase();
    s.world.update_narrow_phase();
    let stepped = answers(&s, 11);
    assert!(moved == stepped, "queries before the bounds update differ");
    assert!(bounded == stepped, "queries before the broad phase differ");
    let mut out = Vec::new();
    s.world.aabb_query(
        Aabb::new(Vec3::splat(0.4), Vec3::splat(0.6)),
        QueryFilter::ALL,
        &mut out,
    );
    assert!(out.contains(&added));
}

/// Three unit cubes on the x axis, in layers 1, 2 and 4.
fn row() -> (CollisionWorld, [BodyHandle; 3]) {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let ids = [0, 1, 2].map(|i| {
        let mut desc = BodyDesc::new(SharedShape::cuboid(Vec3::splat(0.5)).expect("cube"));
        desc.layers.memberships = 1 << i;
        let id = world.add_body(desc);
        let at = Vec3::new(3.0 * i as f32, 0.0, 0.0);
        world
            .set_pose(id, Pose::from_translation(at))
            .expect("valid");
        id
    });
    let _ = world.step();
    (world, ids)
}

#[test]
fn layer_masks_and_exclusions_are_respected() {
    let (world, [a, b, c]) = row();
    let ray = Ray::new(Vec3::new(-5.0, 0.0, 0.0), Vec3::X);
    let first = |f: QueryFilter<'_>| world.ray_cast(&ray, 100.0, f).map(|h| (h.body, h.toi));
    assert_eq!(first(QueryFilter::ALL), Some((a, 4.5)));
    assert_eq!(first(QueryFilter::from_mask(0b110)), Some((b, 7.5)));
    assert_eq!(
        first(QueryFilter::from_mask(0b110).with_exclude(&[b])),
        Some((c, 10.5))
    );
    assert_eq!(first(QueryFilter::from_mask(0b1000)), None);
    assert_eq!(first(QueryFilter::ALL.with_exclude(&[a, b, c])), None);
    let mut hits = Vec::new();
    world.ray_cast_all(&ray, 100.0, QueryFilter::from_mask(0b101), &mut hits);
    let got: Vec<_> = hits
        .iter()
        .map(|h| (h.body, h.toi, h.face.is_some()))
        .collect();
    assert_eq!(got, [(a, 4.5, true), (c, 10.5, true)]);
    assert_eq!(hits[0].normal, -Vec3::X);
    assert_eq!(hits[0].point, Vec3::new(-0.5, 0.0, 0.0));
    let mut out = Vec::new();
    let everything = Aabb::new(Vec3::splat(-10.0), Vec3::splat(10.0));
    world.aabb_query(
        everything,
        QueryFilter::from_mask(0b011).with_exclude(&[a]),
        &mut out,
    );
    assert_eq!(out, [b]);
    let probe = SharedShape::cuboid(Vec3::new(4.0, 0.1, 0.1)).expect("rod");
    let pose = Pose::from_translation(Vec3::new(3.0, 0.0, 0.0));
    world
        .intersect_shape(&probe, pose, QueryFilter::ALL, &mut out)
        .expect("valid");
    assert_eq!(out, [a, b, c]);
    world
        .intersect_shape(&probe, pose, QueryFilter::from_mask(0b100), &mut out)
        .expect("valid");
    assert_eq!(out, [c]);
    // A ray from inside a cube hits it at 0, with no face.
    let inside = world.ray_cast(&Ray::new(Vec3::ZERO, Vec3::X), 100.0, QueryFilter::ALL);
    assert_eq!(
        inside.map(|h| (h.body, h.toi, h.face)),
        Some((a, 0.0, None))
    );
    // Bad input finds nothing.
    assert!(
        world
            .ray_cast(&Ray::new(Vec3::NAN, Vec3::X), 100.0, QueryFilter::ALL)
            .is_none()
    );
    assert!(world.ray_cast(&ray, -1.0, QueryFilter::ALL).is_none());
    let bad = Pose::new(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0), Vec3::ZERO);
    assert!(
        world
            .intersect_shape(&probe, bad, QueryFilter::ALL, &mut out)
            .is_err()
    );
}

#[test]
fn rays_across_many_empty_cells() {
    // Small cells, bodies far apart: a ray crosses more cells than there
    // are bodies, and the grid tests its proxies directly instead.
    let mut world = CollisionWorld::new(WorldConfig {
        cell_size: Some(1.0),
        ..Default::default()
    })
    .expect("valid config");
    let ids = [-5000.0, 0.0, 5000.0].map(|x| {
        let id = world.add_body(BodyDesc::new(
            SharedShape::cuboid(Vec3::splat(0.5)).expect("cube"),
        ));
        world
            .set_pose(id, Pose::from_translation(Vec3::new(x, 0.0, 0.0)))
            .expect("valid");
        id
    });
    let _ = world.step();
    let ray = Ray::new(Vec3::new(-6000.0, 0.0, 0.0), Vec3::X);
    let mut hits = Vec::new();
    world.ray_cast_all(&ray, f32::INFINITY, QueryFilter::ALL, &mut hits);
    let got: Vec<_> = hits.iter().map(|h| (h.body, h.toi)).collect();
    assert_eq!(got, [(ids[0], 999.5), (ids[1], 5999.5), (ids[2], 10999.5)]);
    let first = world.ray_cast(
        &ray,
        6000.0,
        QueryFilter::from_mask(1).with_exclude(&ids[..1]),
    );
    assert_eq!(first.map(|h| (h.body, h.toi)), Some((ids[1], 5999.5)));
    let miss = Ray::new(Vec3::new(-6000.0, 0.0, 0.0), Vec3::new(1.0, 0.01, 0.0));
    assert_eq!(world.ray_cast(&miss, f32::INFINITY, QueryFilter::ALL), None);
}

/// Whether the ray reaches the box within `max_toi` (slab test, f64).
fn slab(ray: &Ray, b: &Aabb, max_toi: f32, pad: f64) -> bool {
    let (o, d) = (ray.origin.as_dvec3(), ray.dir.as_dvec3());
    let (min, max) = (
        b.min.as_dvec3() - DVec3::splat(pad),
        b.max.as_dvec3() + DVec3::splat(pad),
    );
    let (mut lo, mut hi) = (0.0f64, f64::from(max_toi));
    for k in 0..3 {
        if d[k] == 0.0 {
            if o[k] < min[k] || o[k] > max[k] {
                return false;
            }
            continue;
        }
        let (a, c) = ((min[k] - o[k]) / d[k], (max[k] - o[k]) / d[k]);
        lo = lo.max(a.min(c));
        hi = hi.min(a.max(c));
    }
    lo <= hi
}

/// Grid queries on live proxies, with changes pending since the last update.
fn grid_queries_match(grid: &GridSweepAndPrune, boxes: &[Option<Aabb>], rng: &mut Rng) {
    for i in 0..200 {
        let q = random_box(rng);
        let mut got = Vec::new();
        grid.query_aabb(&q, |p| got.push(p as usize));
        got.sort_unstable();
        let want: Vec<usize> = (0..boxes.len())
            .filter(|&p| boxes[p].is_some_and(|b| b.overlaps(&q)))
            .collect();
        assert_eq!(got, want, "box {i}");
        let ray = Ray::new(
            rng.in_cube(HALF * 1.5),
            rng.unit_vector() * rng.range(0.5, 2.0),
        );
        let max_toi = if i % 2 == 0 {
            f32::INFINITY
        } else {
            rng.range(1.0, 30.0)
        };
        let mut got = Vec::new();
        grid.query_ray(ray.origin, ray.dir, max_toi, |p, _| {
            got.push(p as usize);
            max_toi
        });
        got.sort_unstable();
        assert!(
            got.windows(2).all(|w| w[0] < w[1]),
            "ray {i}: a proxy twice"
        );
        for (p, b) in boxes.iter().enumerate() {
            let Some(b) = b else { continue };
            let listed = got.binary_search(&p).is_ok();
            assert!(
                !slab(&ray, b, max_toi, 0.0) || listed,
                "ray {i}: proxy {p} missed"
            );
            assert!(
                slab(&ray, b, max_toi, 1e-3) || !listed,
                "ray {i}: proxy {p} not reached"
            );
        }
    }
}

#[test]
fn grid_queries_equal_brute_force() {
    let mut rng = Rng::new(12);
    let mut grid = GridSweepAndPrune::new(Some(2.0));
    let mut boxes: Vec<Option<Aabb>> = Vec::new();
    let random = |rng: &mut Rng| {
        let h = if rng.below(30) == 0 {
            Vec3::splat(rng.range(5.0, 20.0))
        } else {
            rng.in_cube(1.5).abs()
        };
        Aabb::from_center_half_extents(rng.in_cube(HALF), h)
    };
    for p in 0..400 {
        let b = random(&mut rng);
        grid.insert(p, b, false).expect("valid box");
        boxes.push(Some(b));
    }
    for frame in 0..6 {
        grid.update(&|_, _| true);
        grid_queries_match(&grid, &boxes, &mut rng);
        // Changes pending until the next update: moves, removals, inserts.
        for _ in 0..60 {
            let p = rng.below(boxes.len());
            match (boxes[p], rng.below(6)) {
                (Some(_), 0) => {
                    grid.remove(p as u32).expect("live");
                    boxes[p] = None;
                }
                (Some(_), _) => {
                    let b = random(&mut rng);
                    grid.set_aabb(p as u32, b).expect("live");
                    boxes[p] = Some(b);
                }
                (None, _) => {}
            }
        }
        for _ in 0..10 {
            let b = random(&mut rng);
            grid.insert(boxes.len() as u32, b, false)
                .expect("valid box");
            boxes.push(Some(b));
        }
        grid_queries_match(&grid, &boxes, &mut rng);
        assert!(grid.cell_count() > 10, "frame {frame}: few cells");
    }
}

mod app {
    use bevy_app::prelude::*;
    use bevy_ecs::prelude::*;
    use bevy_ecs::system::RunSystemOnce;
    use bevy_icollide::prelude::*;
    use bevy_transform::prelude::*;
    use glam::{Quat, Vec3};

    fn spawn_row(app: &mut App) -> [Entity; 3] {
        let cube = Collider::cuboid(1.0, 1.0, 1.0);
        [0, 1, 2].map(|i| {
            app.world_mut()
                .spawn((
                    cube.clone(),
                    CollisionLayers::new(1 << i, LayerMask::ALL),
                    Transform::from_xyz(3.0 * i as f32, 0.0, 0.0),
                ))
                .id()
        })
    }

    fn first_hit(app: &mut App, filter: SpatialQueryFilter) -> Option<RayHitData> {
        app.world_mut()
            .run_system_once(move |q: SpatialQuery| {
                q.cast_ray(Vec3::new(-5.0, 0.0, 0.0), Vec3::X * 2.0, 100.0, &filter)
            })
            .expect("system runs")
    }

    #[test]
    fn spatial_query_param_in_an_app() {
        let mut app = App::new();
        app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()));
        let [a, b, c] = spawn_row(&mut app);
        // Not seen before the plugin's systems have run.
        assert_eq!(first_hit(&mut app, SpatialQueryFilter::default()), None);
        app.update();
        let hit = first_hit(&mut app, SpatialQueryFilter::default()).expect("hit");
        assert_eq!((hit.entity, hit.distance, hit.normal), (a, 4.5, -Vec3::X));
        assert_eq!(hit.triangle, None);
        let f = SpatialQueryFilter::from_mask(0b110);
        assert_eq!(first_hit(&mut app, f.clone()).map(|h| h.entity), Some(b));
        let f = f.with_excluded_entities([b]);
        assert_eq!(first_hit(&mut app, f).map(|h| h.entity), Some(c));
        let (all, shapes, boxes) = app
            .world_mut()
            .run_system_once(|q: SpatialQuery| {
                let all = q.ray_hits(
                    Vec3::new(-5.0, 0.0, 0.0),
                    Vec3::X,
                    100.0,
                    2,
                    &SpatialQueryFilter::default(),
                );
                let rod = Collider::cuboid(4.0, 0.2, 0.2);
                let shapes = q.shape_intersections(
                    &rod,
                    Vec3::X * 4.0,
                    Quat::IDENTITY,
                    &SpatialQueryFilter::default(),
                );
                let aabb = Aabb::new(Vec3::splat(-0.6), Vec3::splat(0.6));
                (all, shapes, q.aabb_intersections_with_aabb(aabb))
            })
            .expect("system runs");
        let all: Vec<_> = all.iter().map(|h| (h.entity, h.distance)).collect();
        assert_eq!(all, [(a, 4.5), (b, 7.5)]);
        let mut want = [b, c];
        want.sort();
        assert_eq!(shapes, want);
        assert_eq!(boxes, [a]);
        // Moved in `Update`: seen from the next collision update on.
        app.world_mut()
            .get_mut::<Transform>(a)
            .expect("a")
            .translation
            .y = 5.0;
        assert_eq!(
            first_hit(&mut app, SpatialQueryFilter::default()).map(|h| h.entity),
            Some(a)
        );
        app.update();
        assert_eq!(
            first_hit(&mut app, SpatialQueryFilter::default()).map(|h| h.entity),
            Some(b)
        );
        app.world_mut().despawn(b);
        app.update();
        assert_eq!(
            first_hit(&mut app, SpatialQueryFilter::default()).map(|h| h.entity),
            Some(c)
        );
    }
}
