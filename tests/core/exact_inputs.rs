//! Issue 42, items 7 and 8: the numbers every builder, mutator and setting
//! takes go through one check each ([`limits`]), and what is accepted
//! answers right; the parallel narrow phase takes any task count and loses
//! no pair; one inside rule for every kind (solids contain, a mesh is a
//! surface).
//!
//! - a mutator never takes what a builder refuses (`set_vertices` far out,
//!   `set_scale` past the limit, margins, poses, speed bounds, cell sizes,
//!   compound pieces), and a refused call changes nothing;
//! - a scene scaled by any power of two up to the coordinate limit gets
//!   the answers of the unscaled scene (`f32` scaling by a power of two is
//!   exact: any difference is an overflow or an absolute constant);
//! - meshes at those sizes answer sphere probes as an `f64` brute force;
//! - a mesh inside a solid touches it, anything inside a mesh does not,
//!   against an `f64` reference on random placements.

use bevy_icollide::bvh::TreeKind;
use bevy_icollide::collider::limits::{self, MAX_BROAD_PHASE_MARGIN, MAX_COORDINATE, MAX_POSITION};
use bevy_icollide::collider::{CompoundPiece, ShapeKind, SharedShape};
use bevy_icollide::math::{Pose, PoseError};
use bevy_icollide::pipeline::{
    BodyDesc, BodyHandle, CollisionWorld, ContactEvent, QueryFilter, SpeedBound, WorldConfig,
    WorldError,
};
use bevy_icollide::plugin::CollisionPlugin;
use bevy_icollide::query::{self, Ray, ShapeCastOptions};
use bevy_icollide::testkit::{
    self, MultiBodyParams, MultiBodyScene, Poly, Rng, cube_sphere, dpose, grid,
    point_triangle_distance, segment_triangle_distance, sphere_hull, torus, triangles_inside,
};
use glam::{DVec3, Quat, Vec3};

fn world() -> CollisionWorld {
    CollisionWorld::new(WorldConfig::default()).expect("config")
}

/// A triangle-mesh cube of half-size `h` (12 triangles, a closed surface).
fn cube_mesh(h: f32) -> SharedShape {
    crate::common::cube_mesh(h).expect("cube mesh")
}

/// Two bodies at poses, one step: whether they started touching.
fn world_touch(a: &SharedShape, pa: Pose, b: &SharedShape, pb: Pose, deform: bool) -> bool {
    let mut w = world();
    let x = w.add_body(BodyDesc::new(a.clone()));
    let y = w.add_body(BodyDesc::new(b.clone()));
    w.set_pose(x, pa).expect("pose");
    w.set_pose(y, pb).expect("pose");
    if deform && let ShapeKind::TriMesh(m) = a.kind() {
        w.set_vertices(x, m.vertices()).expect("vertices");
    }
    w.step().count() > 0
}

/// What the world shows of a body: pose, scale, deformed vertices, boxes.
fn snapshot(w: &CollisionWorld, h: BodyHandle) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?}",
        w.pose(h),
        w.scale(h),
        w.deformed_mesh(h).map(|m| m.vertices().to_vec()),
        w.aabb(h),
        w.tight_aabb(h)
    )
}

// ---------------------------------------------------------------- item 7

/// `set_vertices` refuses a vertex the mesh builder refuses (`10³⁰`, or
/// one its scale takes past the limit); before, it took it, and a sphere
/// 0.26 from the cloth was reported touching it. Nothing changes.
#[test]
fn set_vertices_refuses_what_the_builders_refuse() {
    let (v, t) = grid(8, |_, _| 0.0);
    let cloth = SharedShape::trimesh(v.clone(), t.clone()).expect("cloth");
    let mut w = world();
    let c = w.add_body(BodyDesc::new(cloth));
    let b = w.add_body(BodyDesc::new(SharedShape::sphere(0.1).expect("ball")));
    w.set_pose(c, Pose::IDENTITY).expect("pose");
    w.set_pose(b, Pose::from_translation(Vec3::new(0.05, 0.36, 0.05)))
        .expect("pose");
    w.set_vertices(c, &v).expect("the rest pose");
    assert_eq!(w.step().count(), 0, "0.26 apart");
    let before = snapshot(&w, c);
    for far in [1e30, MAX_COORDINATE * 1.001] {
        let mut moved = v.clone();
        moved[40] = Vec3::new(0.0, far, 0.0);
        assert!(SharedShape::trimesh(moved.clone(), t.clone()).is_err());
        let err = w.set_vertices(c, &moved).unwrap_err();
        assert_eq!(err, WorldError::VertexBeyondLimit { index: 40 });
        assert!(err.to_string().contains("MAX_COORDINATE"), "{err}");
        assert_eq!(snapshot(&w, c), before, "nothing changes");
        assert_eq!(w.step().count(), 0, "still 0.26 apart");
    }
    // At the limit exactly it is taken; under a scale the bound shrinks.
    let mut at = v.clone();
    at[40] = Vec3::new(0.0, MAX_COORDINATE, 0.0);
    w.set_vertices(c, &at).expect("at the limit");
    w.set_vertices(c, &v).expect("back");
    w.set_scale(c, Vec3::new(1.0, 4.0, 1.0)).expect("scale");
    let err = w.set_vertices(c, &at).unwrap_err();
    assert_eq!(err, WorldError::VertexBeyondLimit { index: 40 });
    at[40].y = MAX_COORDINATE / 4.0;
    w.set_vertices(c, &at).expect("within the limit scaled");
    // A non-finite vertex keeps its own error.
    at[7].x = f32::NAN;
    let err = w.set_vertices(c, &at).unwrap_err();
    assert_eq!(err, WorldError::NonFiniteVertex { index: 7 });
}

/// `set_scale` refuses a scale that takes the mesh past the limit (before,
/// `1e20` was taken and a ray then missed the mesh it hits); the check
/// uses the deformed vertices of a deforming mesh, and `set_shape` checks a
/// new mesh against the body's scale.
#[test]
fn set_scale_and_set_shape_refuse_a_mesh_scaled_past_the_limit() {
    let mut w = world();
    let m = w.add_body(BodyDesc::new(cube_mesh(1.0)));
    w.set_pose(m, Pose::IDENTITY).expect("pose");
    let ray = Ray::new(Vec3::new(0.2, 0.1, -5.0), Vec3::Z);
    let _ = w.step();
    let hit = |w: &CollisionWorld| w.ray_cast(&ray, 10.0, QueryFilter::default());
    assert!(hit(&w).is_some());
    let before = snapshot(&w, m);
    for s in [1e20, 3e38, MAX_COORDINATE * 1.001] {
        let err = w.set_scale(m, Vec3::new(1.0, s, 1.0)).unwrap_err();
        assert_eq!(err, WorldError::ScaledBeyondLimit(Vec3::new(1.0, s, 1.0)));
        assert!(err.to_string().contains("MAX_COORDINATE"), "{err}");
        assert!(cube_mesh(1.0).scaled(s).is_err(), "the builder refuses too");
        assert_eq!(snapshot(&w, m), before, "nothing changes");
        let _ = w.step();
        assert!(hit(&w).is_some(), "the ray still hits");
    }
    w.set_scale(m, Vec3::splat(MAX_COORDINATE))
        .expect("at the limit");
    w.set_scale(m, Vec3::ONE).expect("back");
    // A deformed mesh: its current vertices decide.
    let big: Vec<Vec3> = cube_vertices().iter().map(|v| *v * 1024.0).collect();
    w.set_vertices(m, &big).expect("deform");
    let err = w
        .set_scale(m, Vec3::splat(MAX_COORDINATE / 512.0))
        .unwrap_err();
    assert!(matches!(err, WorldError::ScaledBeyondLimit(_)), "{err}");
    w.set_scale(m, Vec3::splat(MAX_COORDINATE / 1024.0))
        .expect("within");
    // A new shape under the body's scale.
    let err = w
        .set_shape(m, cube_mesh(2048.0), Default::default())
        .unwrap_err();
    assert!(matches!(err, WorldError::ScaledBeyondLimit(_)), "{err}");
    assert_eq!(w.shape(m).map(|s| s.local_aabb()), Some(mesh_box(1.0)));
    w.set_shape(m, cube_mesh(0.5), Default::default())
        .expect("a smaller mesh fits");
}

/// The vertices of `cube_mesh(1.0)`.
fn cube_vertices() -> Vec<Vec3> {
    let cube = cube_mesh(1.0);
    cube.surface().expect("mesh").mesh.vertices().to_vec()
}

fn mesh_box(h: f32) -> bevy_icollide::math::Aabb {
    bevy_icollide::math::Aabb::new(Vec3::splat(-h), Vec3::splat(h))
}

/// Margins beyond the limit are refused by the world and the plugin (before,
/// `3·10³⁸` was taken); at the limit, two touching cubes still get their
/// event (the boxes stay finite).
#[test]
fn margins_and_cell_sizes_are_checked_in_the_world_and_the_plugin() {
    for m in [3e38, 1e30, MAX_POSITION * 2.0] {
        let w = CollisionWorld::new(WorldConfig {
            margin: m,
            ..Default::default()
        });
        assert!(matches!(w, Err(WorldError::InvalidMargin(_))), "{m}");
        let p = CollisionPlugin::default().with_margin(m);
        assert!(matches!(p, Err(WorldError::InvalidMargin(_))), "{m}");
    }
    for m in [1e30, MAX_BROAD_PHASE_MARGIN * 2.0] {
        let w = CollisionWorld::new(WorldConfig {
            broad_phase_margin: m,
            ..Default::default()
        });
        assert!(
            matches!(w, Err(WorldError::InvalidBroadPhaseMargin(_))),
            "{m}"
        );
    }
    for c in [f32::NAN, 0.0, -1.0, f32::INFINITY, MAX_POSITION * 2.0] {
        let w = CollisionWorld::new(WorldConfig {
            cell_size: Some(c),
            ..Default::default()
        });
        assert!(matches!(w, Err(WorldError::InvalidCellSize(_))), "{c}");
        let p = CollisionPlugin::default().with_cell_size(c);
        assert!(matches!(p, Err(WorldError::InvalidCellSize(_))), "{c}");
    }
    for (margin, broad) in [(MAX_POSITION, MAX_BROAD_PHASE_MARGIN), (0.0, 0.0)] {
        let mut w = CollisionWorld::new(WorldConfig {
            margin,
            broad_phase_margin: broad,
            ..Default::default()
        })
        .expect("at the limits");
        let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
        let a = w.add_body(BodyDesc::new(cube.clone()));
        let b = w.add_body(BodyDesc::new(cube));
        w.set_pose(a, Pose::IDENTITY).expect("pose");
        w.set_pose(b, Pose::from_translation(Vec3::X))
            .expect("touching");
        assert_eq!(w.step().count(), 1, "margin {margin:e}");
        assert!(w.aabb(a).is_some_and(|b| b.is_valid()));
    }
}

/// The tilted triangle of the issue in an AABB tree, a sphere above its
/// middle (apart by a tenth of its radius): at `10¹⁰` and more the world
/// reported a touch before (the triangle's squared normal overflowed);
/// now such meshes are refused, and every size up to the limit answers as
/// the `f64` brute force.
#[test]
fn scaled_meshes_answer_sphere_probes_right_or_are_refused() {
    let tri = [
        Vec3::new(-1.0, -1.0, -0.3),
        Vec3::new(1.0, -0.8, 0.2),
        Vec3::new(0.1, 1.0, 0.4),
    ];
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize();
    let mid = (tri[0] + tri[1] + tri[2]) / 3.0;
    let top = (MAX_COORDINATE.log2().floor()) as i32;
    let mut sizes: Vec<f32> = (0..=top).step_by(4).map(|k| 2f32.powi(k)).collect();
    sizes.extend([MAX_COORDINATE, 1e9, 1e10, 1e11, 1e12]);
    let mut answered = 0;
    for s in sizes {
        let verts: Vec<Vec3> = tri.iter().map(|p| *p * s).collect();
        let built = SharedShape::trimesh_with_tree(verts.clone(), vec![[0, 1, 2]], TreeKind::Aabb);
        let Ok(mesh) = built else {
            assert!(s * 1.0 > MAX_COORDINATE, "{s:e} refused within the limit");
            continue;
        };
        for (lift, r) in [(0.05, 0.04), (0.05, 0.06), (0.3, 0.29), (0.3, 0.31)] {
            let c = (mid + n * lift) * s;
            let r = r * s;
            let d = point_triangle_distance(c.as_dvec3(), verts_d(&verts));
            let want = d <= f64::from(r);
            let ball = SharedShape::sphere(r).expect("ball");
            let pose = Pose::from_translation(c);
            let q = query::intersects(&mesh, &Pose::IDENTITY, &ball, &pose).expect("valid");
            let w = world_touch(&mesh, Pose::IDENTITY, &ball, pose, false);
            let wd = world_touch(&mesh, Pose::IDENTITY, &ball, pose, true);
            assert!(
                q == want && w == want && wd == want,
                "size {s:e} lift {lift} radius {r:e}: want {want}, intersects {q}, world {w}, deformed {wd}"
            );
            answered += 1;
        }
    }
    assert!(answered >= 4 * 8, "{answered} probes");
}

fn verts_d(v: &[Vec3]) -> [DVec3; 3] {
    [v[0].as_dvec3(), v[1].as_dvec3(), v[2].as_dvec3()]
}

/// Every kind at its size, for the scaling sweep.
fn kinds() -> Vec<SharedShape> {
    let mut rng = Rng::new(11);
    let (tv, tt) = torus(0.5, 0.15, 12, 8);
    vec![
        SharedShape::sphere(0.4).expect("sphere"),
        SharedShape::capsule(0.25, 0.6).expect("capsule"),
        SharedShape::cuboid(Vec3::new(0.4, 0.3, 0.5)).expect("cuboid"),
        sphere_hull(&mut rng, 12, 0.5),
        SharedShape::trimesh(tv.clone(), tt.clone()).expect("torus"),
        SharedShape::trimesh_with_tree(tv, tt, TreeKind::Aabb).expect("torus"),
        SharedShape::compound(vec![
            CompoundPiece {
                pose: Pose::from_translation(Vec3::X * 0.3),
                shape: SharedShape::sphere(0.3).expect("sphere"),
            },
            CompoundPiece {
                pose: Pose::IDENTITY,
                shape: SharedShape::cuboid(Vec3::splat(0.3)).expect("cuboid"),
            },
        ])
        .expect("compound"),
    ]
}

/// What a scene answers, per kind pair and placement: one-shot intersects,
/// distance (divided by the scale), the world's events for rigid and
/// deformed bodies (`false` without `with_world`), and ray hits (parameter
/// divided by the scale).
fn answers(
    shapes: &[SharedShape],
    f: f32,
    placements: &[(Pose, Pose)],
    rays: &[Ray],
    with_world: bool,
) -> Vec<(usize, usize, bool, f32, bool, bool)> {
    let at = |p: &Pose| Pose::new(p.rotation, p.translation * f);
    let mut out = Vec::new();
    for (i, a) in shapes.iter().enumerate() {
        for (j, b) in shapes.iter().enumerate() {
            for (pa, pb) in placements {
                let (pa, pb) = (at(pa), at(pb));
                let q = query::intersects(a, &pa, b, &pb).expect("valid");
                let d = query::distance(a, &pa, b, &pb).map_or(-1.0, |d| d / f);
                let w = with_world && world_touch(a, pa, b, pb, false);
                let wd = with_world && world_touch(a, pa, b, pb, true);
                out.push((i, j, q, d, w, wd));
            }
        }
        for r in rays {
            let ray = Ray::new(r.origin * f, r.dir);
            let hit = query::ray_cast(a, &Pose::IDENTITY, &ray, 4.0 * f).expect("valid");
            let toi = hit.map_or(-1.0, |h| h.toi / f);
            out.push((i, usize::MAX, hit.is_some(), toi, false, false));
        }
    }
    out
}

/// A scene scaled by `2ᵏ` for every `k` that keeps its shapes within the
/// coordinate limit gets the unscaled scene's answers: the world's events
/// (rigid and deforming bodies), `intersects`, distance and rays. With the
/// old limit (`2⁵⁰`) the world's answers changed from `2³³` on.
#[test]
fn a_scene_scaled_up_to_the_limit_answers_like_the_unscaled_one() {
    let (base, placements, rays) = sweep_scene();
    let want = answers(&base, 1.0, &placements, &rays, true);
    let touching = want.iter().filter(|a| a.4).count();
    assert!(
        touching > want.len() / 10,
        "{touching} touching of {}",
        want.len()
    );
    // The largest coordinate of the kinds is under 1: 2^top keeps them in.
    let top = MAX_COORDINATE.log2() as i32;
    for k in [1, 7, 13, 19, 20, 21, 24, top - 1, top] {
        compare_scaled(&base, k, &placements, &rays, &want, true);
    }
    // Two powers of two further (their largest coordinates are 0.4 to
    // 0.65) and the builders refuse every kind.
    for s in &base {
        assert!(s.scaled(2f32.powi(top + 2)).is_err(), "{}", s.kind_name());
    }
}

/// Below unit scale no limit is enforced: the world's answers are checked
/// down to `2⁻²⁴`, the one-shot queries' (which rescale far-from-unit
/// pairs; a compound's `intersects` did not before, and was wrong at
/// `2⁻⁴⁰`) down to `2⁻⁴⁰` (at `2⁻⁵⁰` a ray on a mesh is wrong: rays are not
/// rescaled).
#[test]
fn a_scene_scaled_down_answers_like_the_unscaled_one() {
    let (base, placements, rays) = sweep_scene();
    let want = answers(&base, 1.0, &placements, &rays, true);
    for k in [-1, -7, -13, -20, -24] {
        compare_scaled(&base, k, &placements, &rays, &want, true);
    }
    let want = answers(&base, 1.0, &placements, &rays, false);
    for k in [-30, -35, -40] {
        compare_scaled(&base, k, &placements, &rays, &want, false);
    }
}

/// The kinds, placements of pairs (some touching) and rays of the sweeps.
fn sweep_scene() -> (Vec<SharedShape>, Vec<(Pose, Pose)>, Vec<Ray>) {
    let mut rng = Rng::new(5);
    let placements: Vec<(Pose, Pose)> = (0..12 * testkit::long_factor())
        .map(|_| {
            let a = Pose::new(rng.rotation(), rng.in_cube(0.1));
            let b = Pose::new(rng.rotation(), rng.unit_vector() * rng.range(0.3, 1.3));
            (a, b)
        })
        .collect();
    let rays: Vec<Ray> = (0..12)
        .map(|_| {
            let o = rng.unit_vector() * 2.0;
            Ray::new(o, (rng.in_cube(0.3) - o).normalize())
        })
        .collect();
    (kinds(), placements, rays)
}

/// The scene scaled by `2ᵏ` answers as `want` (distances to `1e-4`).
fn compare_scaled(
    base: &[SharedShape],
    k: i32,
    placements: &[(Pose, Pose)],
    rays: &[Ray],
    want: &[(usize, usize, bool, f32, bool, bool)],
    with_world: bool,
) {
    let f = 2f32.powi(k);
    let shapes: Vec<SharedShape> = base
        .iter()
        .map(|s| s.scaled(f).expect("within the limit"))
        .collect();
    let got = answers(&shapes, f, placements, rays, with_world);
    for (g, w) in got.iter().zip(want) {
        let same_d = (g.3 - w.3).abs() <= 1e-4 * (1.0 + w.3.abs());
        assert!(
            g.2 == w.2 && same_d && g.4 == w.4 && g.5 == w.5,
            "2^{k}, kinds {} / {}: {g:?} unscaled {w:?}",
            w.0,
            w.1
        );
    }
}

// ---------------------------------------------------------------- item 8

/// A multibody scene stepped with the given narrow phase; the events of
/// each frame and the number of pair tests run after the tasks.
fn run_scene(
    narrow: &mut dyn FnMut(&mut CollisionWorld),
    frames: usize,
) -> (Vec<Vec<ContactEvent>>, u32) {
    let params = MultiBodyParams {
        count: 120,
        density: 0.15,
        rotation_deg: 5.0,
        translation: 0.05,
        seed: 9,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let mut w = world();
    let ids: Vec<_> = (0..params.count)
        .map(|i| w.add_body(BodyDesc::new(scene.shape_of(i).clone())))
        .collect();
    let (mut out, mut after) = (Vec::new(), 0);
    for _ in 0..frames {
        for (i, &id) in ids.iter().enumerate() {
            w.set_pose(id, scene.bodies[i].pose).expect("pose");
        }
        narrow(&mut w);
        after += w.stats().tested_after_tasks;
        out.push(w.drain_events().collect());
        scene.step();
    }
    (out, after)
}

/// `update_narrow_phase_with(usize::MAX, …)` panicked (capacity overflow);
/// any count is now clamped to the pairs to test, and the events equal the
/// serial narrow phase's.
#[test]
fn any_task_count_gives_the_serial_events() {
    let (serial, _) = run_scene(&mut |w| w.update_narrow_phase(), 60);
    assert!(serial.iter().map(Vec::len).sum::<usize>() > 20);
    for tasks in [0, 1, 7, 1 << 20, usize::MAX] {
        let mut counts = Vec::new();
        let (got, after) = run_scene(
            &mut |w| {
                w.update_narrow_phase_with(tasks, |list| {
                    counts.push(list.len());
                    for t in list {
                        t.run();
                    }
                });
            },
            60,
        );
        assert_eq!(got, serial, "{tasks} tasks");
        assert_eq!(after, 0);
        assert!(
            counts.iter().all(|&n| n >= 1 && n <= tasks.max(1)),
            "{counts:?}"
        );
    }
}

/// A closure that drops some of its tasks (or keeps them unrun) left their pairs
/// untested, silently; now they are tested after it returns, counted in
/// the stats, and the events equal the serial ones.
#[test]
fn dropped_tasks_are_tested_after_the_closure_returns() {
    let (serial, _) = run_scene(&mut |w| w.update_narrow_phase(), 60);
    let (got, after) = run_scene(
        &mut |w| {
            w.update_narrow_phase_with(4, |list| {
                let mut kept = Vec::new();
                for (k, t) in list.into_iter().enumerate() {
                    match k % 3 {
                        0 => t.run(),
                        1 => drop(t),
                        _ => kept.push(t),
                    }
                }
                // Kept, never run, dropped when the closure returns.
                assert!(kept.iter().all(|t| t.len() <= 1 << 30));
            });
        },
        60,
    );
    assert_eq!(got, serial);
    assert!(after > 0, "the dropped tests are counted");
    let (got, after_all) = run_scene(
        &mut |w| w.update_narrow_phase_with(3, |list| drop(list)),
        60,
    );
    assert_eq!(got, serial);
    assert!(after_all > after);
}

/// The step's events, the drained events and a narrow task cannot be
/// dropped without a warning: they are `#[must_use]` (checked in the
/// source, since a test cannot observe a compiler warning).
#[test]
fn events_and_tasks_are_must_use() {
    let sources = [
        (
            include_str!("../../src/pipeline/driver.rs"),
            "pub struct ContactEvents",
        ),
        (
            include_str!("../../src/narrow_phase/tasks.rs"),
            "pub struct NarrowTask",
        ),
    ];
    for (src, item) in sources {
        let at = src.find(item).expect(item);
        let attrs: Vec<&str> = src[..at].lines().rev().take(3).collect();
        assert!(
            attrs
                .iter()
                .any(|l| l.trim_start().starts_with("#[must_use")),
            "{item} is not #[must_use]: {attrs:?}"
        );
    }
}

/// Solids (sphere, capsule, cuboid, hull, a compound's convex piece)
/// contain, a mesh is a surface: a small mesh cube inside any solid touches
/// it — `intersects`, distance 0, the world's event, the world's shape
/// query, a cast at time 0 — in either order; inside a closed mesh or a
/// compound's mesh piece it does not. Before, inside a cuboid or a compound
/// it was apart while inside a sphere or capsule it touched.
#[test]
fn one_inside_rule_for_every_kind() {
    let (sv, st) = cube_sphere(1.0, 6);
    let solids = [
        ("sphere", SharedShape::sphere(1.0).expect("sphere")),
        ("capsule", SharedShape::capsule(1.0, 1.0).expect("capsule")),
        ("cuboid", SharedShape::cuboid(Vec3::ONE).expect("cuboid")),
        ("hull", sphere_hull(&mut Rng::new(3), 40, 1.0)),
        (
            "compound",
            SharedShape::compound(vec![
                CompoundPiece {
                    pose: Pose::from_translation(Vec3::X * 3.0),
                    shape: SharedShape::sphere(0.5).expect("sphere"),
                },
                CompoundPiece {
                    pose: Pose::IDENTITY,
                    shape: SharedShape::cuboid(Vec3::ONE).expect("cuboid"),
                },
            ])
            .expect("compound"),
        ),
    ];
    let surfaces = [
        ("closed mesh", SharedShape::trimesh(sv, st).expect("mesh")),
        (
            "compound of a mesh",
            SharedShape::compound(vec![CompoundPiece {
                pose: Pose::IDENTITY,
                shape: cube_mesh(1.0),
            }])
            .expect("compound"),
        ),
    ];
    let small = cube_mesh(0.1);
    let inside = Pose::new(Quat::from_rotation_y(0.3), Vec3::new(0.05, -0.1, 0.02));
    for (touch, list) in [(true, &solids[..]), (false, &surfaces[..])] {
        for (name, big) in list {
            for (a, pa, b, pb) in [
                (big, Pose::IDENTITY, &small, inside),
                (&small, inside, big, Pose::IDENTITY),
            ] {
                let what = format!("a mesh inside a {name}");
                assert_eq!(query::intersects(a, &pa, b, &pb), Ok(touch), "{what}");
                let d = query::distance(a, &pa, b, &pb).expect("valid");
                assert_eq!(d == 0.0, touch, "{what}: distance {d}");
                assert_eq!(world_touch(a, pa, b, pb, false), touch, "{what}: world");
                let cast = query::cast_shapes(
                    (a, &pa, Vec3::ZERO),
                    (b, &pb, Vec3::X * 0.01),
                    &ShapeCastOptions::default(),
                )
                .expect("valid");
                assert_eq!(
                    cast.is_some_and(|h| h.started_touching),
                    touch,
                    "{what}: cast {cast:?}"
                );
            }
            let mut w = world();
            let h = w.add_body(BodyDesc::new(big.clone()));
            w.set_pose(h, Pose::IDENTITY).expect("pose");
            let _ = w.step();
            let mut out = Vec::new();
            w.intersect_shape(&small, inside, QueryFilter::default(), &mut out)
                .expect("valid");
            assert_eq!(out == [h], touch, "a mesh inside a {name}: shape query");
        }
    }
}

/// The inside rule against an `f64` reference on random placements of
/// small meshes (a cube, a torus) in, across and beside convex shapes —
/// random poses, identity rotations, far from the origin: touching exactly
/// when the two surfaces meet (an edge of one within 0 of a triangle of the
/// other) or a mesh triangle lies inside the solid, in `intersects` (both
/// orders), distance (0 exactly then) and the world (rigid and deformed).
#[test]
fn meshes_in_and_around_solids_touch_as_the_f64_reference_says() {
    let mut rng = Rng::new(42);
    let (tv, tt) = torus(0.12, 0.04, 8, 6);
    let meshes = [cube_mesh(0.1), SharedShape::trimesh(tv, tt).expect("torus")];
    let solids = [
        SharedShape::cuboid(Vec3::new(0.6, 0.4, 0.5)).expect("cuboid"),
        sphere_hull(&mut rng, 30, 0.6),
    ];
    let (mut inside, mut crossing, mut apart) = (0, 0, 0);
    for case in 0..200 * testkit::long_factor() {
        let m = &meshes[rng.below(meshes.len())];
        let s = &solids[rng.below(solids.len())];
        let far = if case % 4 == 3 {
            Vec3::new(4096.0, -2048.0, 1024.0)
        } else {
            Vec3::ZERO
        };
        let turn = |rng: &mut Rng| {
            if case % 3 == 2 {
                Quat::IDENTITY
            } else {
                rng.rotation()
            }
        };
        let ps = Pose::new(turn(&mut rng), far + rng.in_cube(0.2));
        let reach = if rng.bool() { 0.3 } else { 0.9 };
        let pm = Pose::new(turn(&mut rng), far + rng.in_cube(reach));
        let (poly, mesh) = (Poly::of(s, &ps), m.surface().expect("mesh").mesh);
        let tris: Vec<[DVec3; 3]> = (0..mesh.triangles().len())
            .map(|t| world_triangle(mesh.triangle(t), &pm))
            .collect();
        let hull: Vec<[DVec3; 3]> = poly
            .tris
            .iter()
            .map(|t| t.map(|i| poly.v[i as usize]))
            .collect();
        let gap = surfaces_gap(&tris, &hull).min(surfaces_gap(&hull, &tris));
        // Too close to call in f64 against f32 (a few ulps of the poses).
        let slack = 1e-5 + 1e-6 * f64::from(far.length());
        if gap > 0.0 && gap < slack {
            continue;
        }
        let cross = gap == 0.0;
        let within = !triangles_inside(&poly, mesh, &pm).is_empty();
        let want = cross || within;
        match (cross, within) {
            (true, _) => crossing += 1,
            (false, true) => inside += 1,
            _ => apart += 1,
        }
        let what = format!("case {case}: cross {cross} inside {within}");
        assert_eq!(query::intersects(s, &ps, m, &pm), Ok(want), "{what}");
        assert_eq!(query::intersects(m, &pm, s, &ps), Ok(want), "{what}");
        let d = query::distance(m, &pm, s, &ps).expect("valid");
        assert_eq!(d == 0.0, want, "{what}: distance {d}");
        assert_eq!(world_touch(m, pm, s, ps, false), want, "{what}: world");
        assert_eq!(world_touch(m, pm, s, ps, true), want, "{what}: deformed");
    }
    assert!(
        inside > 10 && crossing > 10 && apart > 10,
        "inside {inside}, crossing {crossing}, apart {apart}"
    );
}

/// A triangle at a pose, world space, `f64`.
fn world_triangle(t: [Vec3; 3], pose: &Pose) -> [DVec3; 3] {
    let (q, p) = dpose(pose);
    t.map(|v| q * v.as_dvec3() + p)
}

/// The smallest `f64` distance from an edge of a triangle of `a` to a
/// triangle of `b` (0 when one crosses).
fn surfaces_gap(a: &[[DVec3; 3]], b: &[[DVec3; 3]]) -> f64 {
    a.iter()
        .flat_map(|t| (0..3).map(move |e| (t[e], t[(e + 1) % 3])))
        .flat_map(|(p, q)| b.iter().map(move |u| segment_triangle_distance(p, q, *u)))
        .fold(f64::MAX, f64::min)
}

// ------------------------------------------------ one table, every mutator

/// The numbers every mutator and setting is walked with.
const TABLE: [f32; 9] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    0.0,
    -1.0,
    1e30,
    3e38,
    MAX_COORDINATE * 2.0,
    MAX_POSITION * 2.0,
];

/// The fault a refused number has, for checking that the message names it.
fn fault_words(v: f32) -> &'static [&'static str] {
    if !v.is_finite() {
        &["NaN", "infinite", "finite"]
    } else if v <= 0.0 {
        &[">= 0", "> 0", "positive", "zero", "negative"]
    } else {
        &["MAX_"]
    }
}

/// One mutator: its name, the numbers it takes (the others must be
/// refused), and the call on a world with a mesh body `m` and a ball `b`.
type Mutator = (
    &'static str,
    fn(f32) -> bool,
    fn(&mut CollisionWorld, BodyHandle, BodyHandle, f32) -> Result<(), String>,
);

fn mutators() -> Vec<Mutator> {
    fn err<E: std::fmt::Display>(r: Result<impl Sized, E>) -> Result<(), String> {
        r.map(|_| ()).map_err(|e| e.to_string())
    }
    let position = |v: f32| v.is_finite() && v.abs() <= MAX_POSITION;
    vec![
        ("set_pose translation", position, |w, m, _, v| {
            err(w.set_pose(m, Pose::from_translation(Vec3::new(0.5, v, 0.0))))
        }),
        (
            "set_pose rotation",
            |v| v == 0.0,
            |w, m, _, v| {
                err(w.set_pose(m, Pose::new(Quat::from_xyzw(v, 0.0, 0.0, 1.0), Vec3::ZERO)))
            },
        ),
        (
            "set_scale",
            |v| v == -1.0,
            |w, m, _, v| err(w.set_scale(m, Vec3::new(1.0, v, 1.0))),
        ),
        (
            "set_vertices",
            |v| v.is_finite() && v.abs() <= MAX_COORDINATE,
            |w, m, _, v| {
                let mut verts = cube_vertices();
                verts[5].z = v;
                err(w.set_vertices(m, &verts))
            },
        ),
        (
            "set_speed_bound linear",
            |v| (0.0..=MAX_POSITION).contains(&v),
            |w, m, _, v| {
                err(w.set_speed_bound(
                    m,
                    Some(SpeedBound {
                        linear: v,
                        angular: 0.1,
                    }),
                ))
            },
        ),
        (
            "set_speed_bound angular",
            |v| v.is_finite() && v >= 0.0,
            |w, m, _, v| {
                err(w.set_speed_bound(
                    m,
                    Some(SpeedBound {
                        linear: 0.1,
                        angular: v,
                    }),
                ))
            },
        ),
        (
            "set_shape (scaled)",
            |v| v > 0.0 && 0.5 * v <= MAX_COORDINATE,
            |w, _, b, v| {
                let shape = SharedShape::sphere(0.5).and_then(|s| s.scaled(v));
                let shape = shape.map_err(|e| e.to_string())?;
                err(w.set_shape(b, shape, Default::default()))
            },
        ),
        (
            "set_shape (sphere)",
            |v| v > 0.0 && v <= MAX_COORDINATE,
            |w, _, b, v| {
                let shape = SharedShape::sphere(v).map_err(|e| e.to_string())?;
                err(w.set_shape(b, shape, Default::default()))
            },
        ),
        (
            "set_shape (cuboid)",
            |v| v > 0.0 && v <= MAX_COORDINATE,
            |w, _, b, v| {
                let shape = SharedShape::cuboid(Vec3::splat(v)).map_err(|e| e.to_string())?;
                err(w.set_shape(b, shape, Default::default()))
            },
        ),
        (
            "set_shape (compound piece)",
            |v| v.is_finite() && v.abs() + 0.5 <= MAX_COORDINATE,
            |w, _, b, v| {
                let piece = CompoundPiece {
                    pose: Pose::from_translation(Vec3::new(v, 0.0, 0.0)),
                    shape: SharedShape::sphere(0.5).map_err(|e| e.to_string())?,
                };
                let shape = SharedShape::compound(vec![piece]).map_err(|e| e.to_string())?;
                err(w.set_shape(b, shape, Default::default()))
            },
        ),
        (
            "set_shape (hull point)",
            |v| v.is_finite() && v.abs() <= MAX_COORDINATE,
            |w, _, b, v| {
                let pts = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(v, v, v)];
                let shape = SharedShape::convex_hull(&pts).map_err(|e| e.to_string())?;
                err(w.set_shape(b, shape, Default::default()))
            },
        ),
        ("intersect_shape", position, |w, _, b, v| {
            let mut out = Vec::new();
            let shape = w.shape(b).cloned().ok_or("no shape")?;
            let pose = Pose::from_translation(Vec3::new(v, 0.0, 0.0));
            err(w.intersect_shape(&shape, pose, QueryFilter::default(), &mut out))
        }),
    ]
}

/// The settings, world and plugin: name, numbers taken, the check.
type Setting = (&'static str, fn(f32) -> bool, fn(f32) -> Result<(), String>);

fn settings() -> Vec<Setting> {
    fn err<T, E: std::fmt::Display>(r: Result<T, E>) -> Result<(), String> {
        r.map(|_| ()).map_err(|e| e.to_string())
    }
    let length = |v: f32| v.is_finite() && (0.0..=MAX_POSITION).contains(&v);
    let cell = |v: f32| v.is_finite() && v > 0.0 && v <= MAX_POSITION;
    let fraction = |v: f32| (0.0..=MAX_BROAD_PHASE_MARGIN).contains(&v);
    vec![
        ("world margin", length, |v| {
            err(CollisionWorld::new(WorldConfig {
                margin: v,
                ..Default::default()
            }))
        }),
        ("world broad-phase margin", fraction, |v| {
            err(CollisionWorld::new(WorldConfig {
                broad_phase_margin: v,
                ..Default::default()
            }))
        }),
        ("world cell size", cell, |v| {
            err(CollisionWorld::new(WorldConfig {
                cell_size: Some(v),
                ..Default::default()
            }))
        }),
        ("plugin margin", length, |v| {
            err(CollisionPlugin::default().with_margin(v))
        }),
        ("plugin broad-phase margin", fraction, |v| {
            err(CollisionPlugin::default().with_broad_phase_margin(v))
        }),
        ("plugin cell size", cell, |v| {
            err(CollisionPlugin::default().with_cell_size(v))
        }),
        (
            "SharedShape::scaled",
            |v| v > 0.0 && v <= 1e8,
            |v| err(SharedShape::cuboid(Vec3::ONE).and_then(|c| c.scaled(v))),
        ),
        (
            "SharedShape::capsule length",
            |v| (0.0..=1e4).contains(&v),
            |v| err(SharedShape::capsule(1.0, v)),
        ),
        (
            "SharedShape::trimesh vertex",
            |v| v.is_finite() && v.abs() <= MAX_COORDINATE,
            |v| {
                err(SharedShape::trimesh(
                    vec![Vec3::ZERO, Vec3::X, Vec3::new(0.0, v, 1.0)],
                    vec![[0, 1, 2]],
                ))
            },
        ),
    ]
}

/// Every mutator and every setting, walked with the same table of numbers:
/// each number outside its domain gets an error naming the fault, and a
/// refused world call leaves the world as it was (its bodies, and the
/// events of the next steps, equal those of a world that was never called).
#[test]
fn every_mutator_refuses_the_same_bad_numbers_and_changes_nothing() {
    let setup = || {
        let mut w = world();
        let m = w.add_body(BodyDesc::new(cube_mesh(1.0)));
        let b = w.add_body(BodyDesc::new(SharedShape::sphere(0.5).expect("ball")));
        w.set_pose(m, Pose::IDENTITY).expect("pose");
        w.set_pose(b, Pose::from_translation(Vec3::new(1.2, 0.0, 0.0)))
            .expect("pose");
        let _ = w.step();
        (w, m, b)
    };
    let mut refused = 0;
    for (name, takes, call) in mutators() {
        for v in TABLE {
            let (mut w, m, b) = setup();
            let (mut control, _, _) = setup();
            let before = (snapshot(&w, m), snapshot(&w, b));
            match call(&mut w, m, b, v) {
                Ok(()) => assert!(takes(v), "{name}({v:e}) was taken"),
                Err(e) => {
                    assert!(!takes(v), "{name}({v:e}) refused: {e}");
                    let words = if name.contains("rotation") {
                        &["unit", "NaN"][..]
                    } else {
                        fault_words(v)
                    };
                    assert!(
                        words.iter().any(|k| e.contains(k)),
                        "{name}({v:e}): '{e}' does not name the fault ({words:?})"
                    );
                    assert_eq!((snapshot(&w, m), snapshot(&w, b)), before, "{name}({v:e})");
                    // Then both worlds move the same way and report the same.
                    for k in 0..3 {
                        let p = Pose::from_translation(Vec3::new(1.2 - 0.2 * k as f32, 0.0, 0.0));
                        for world in [&mut w, &mut control] {
                            world.set_pose(b, p).expect("pose");
                        }
                        let got: Vec<ContactEvent> = w.step().collect();
                        let want: Vec<ContactEvent> = control.step().collect();
                        assert_eq!(got, want, "{name}({v:e}) step {k}");
                    }
                    refused += 1;
                }
            }
        }
    }
    for (name, takes, check) in settings() {
        for v in TABLE {
            match check(v) {
                Ok(()) => assert!(takes(v), "{name}({v:e}) was taken"),
                Err(e) => {
                    assert!(!takes(v), "{name}({v:e}) refused: {e}");
                    let words = fault_words(v);
                    assert!(
                        words.iter().any(|k| e.contains(k)),
                        "{name}({v:e}): '{e}' does not name the fault ({words:?})"
                    );
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > 100, "{refused} refusals");
    let _ = limits::length_within(1.0, 2.0);
    let _ = PoseError::TooFar;
}

/// A rotation off unit length by as much as `Pose::validate` takes
/// (`|q|²` within 2·10⁻³ of 1) answers as its normalized rotation in every
/// free query: boxes and cylinders 0.003 apart, `A` turned about an
/// oblique axis and placed 2 and 50 units from `B`, `|q_A|²` at 0.9982 and
/// 1.0018 (used as it was, the rotation stretched `A`'s offset from `B` by
/// 0.2 %: `distance` said 0 or 0.0066).
#[test]
fn a_rotation_within_the_tolerance_answers_as_the_unit_rotation() {
    let kinds = [
        SharedShape::cuboid(Vec3::splat(0.5)).expect("box"),
        SharedShape::cylinder(0.5, 1.0).expect("cylinder"),
    ];
    let turn = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let opts = ShapeCastOptions::default();
    for shape in &kinds {
        for far in [2.0f32, 50.0] {
            for len2 in [0.9982f32, 1.0018] {
                let q = turn * len2.sqrt();
                assert!(Pose::new(q, Vec3::ZERO).validate().is_ok());
                // B a wide slab at `far` along x; A turned, placed 0.003
                // short of it (in the unit rotation).
                let b = &SharedShape::cuboid(Vec3::new(0.5, 5.0, 5.0)).expect("slab");
                let pb = Pose::from_translation(Vec3::new(far, 0.0, 0.0));
                let unit = Pose::new(turn, Vec3::ZERO);
                let d0 = query::distance(shape, &unit, b, &pb).expect("unit");
                let pa = Vec3::new(d0 - 0.003, 0.0, 0.0);
                let (exact, off) = (Pose::new(turn, pa), Pose::new(q, pa));
                let want = query::distance(shape, &exact, b, &pb).expect("unit");
                let got = query::distance(shape, &off, b, &pb).expect("off");
                let at = format!("{} at {far}, |q|² {len2}", shape.kind_name());
                assert!((want - 0.003).abs() < 2e-5, "{at}: unit pose {want}");
                assert!((got - want).abs() < 1e-5, "{at}: distance {got} vs {want}");
                assert!(
                    !query::intersects(shape, &off, b, &pb).expect("off"),
                    "{at}"
                );
                let ray = Ray::new(Vec3::new(-5.0, 0.0, 0.0) + pa, Vec3::X);
                let toi = |p: &Pose| {
                    query::ray_cast(shape, p, &ray, 20.0)
                        .expect("ray")
                        .map(|h| h.toi)
                };
                let (tw, tg) = (toi(&exact).expect("hit"), toi(&off).expect("hit"));
                assert!((tw - tg).abs() < 1e-5, "{at}: ray {tg} vs {tw}");
                let cast = |p: &Pose| {
                    query::cast_shapes((shape, p, Vec3::X), (b, &pb, Vec3::ZERO), &opts)
                        .expect("cast")
                        .map(|h| h.time_of_impact)
                };
                let (cw, cg) = (cast(&exact).expect("hit"), cast(&off).expect("hit"));
                assert!((cw - cg).abs() < 1e-4, "{at}: cast {cg} vs {cw}");
                world_agrees(shape, (&exact, &off), (b, &pb), &at);
            }
        }
    }
}

/// The world's shape queries on the same placement: the slab a body,
/// `shape` at the off-unit pose 0.001 from it found apart, and cast onto
/// it at the unit pose's time.
fn world_agrees(
    shape: &SharedShape,
    (exact, off): (&Pose, &Pose),
    (b, pb): (&SharedShape, &Pose),
    at: &str,
) {
    let mut w = world();
    let slab = w.add_body(BodyDesc::new(b.clone()));
    w.set_pose(slab, *pb).expect("pose");
    let _ = w.step();
    // 0.001 apart: the stretch (0.002 nearer at |q|² 0.9982) would overlap.
    let nearer = Pose::new(off.rotation, off.translation + Vec3::X * 0.002);
    assert!(
        !query::intersects(shape, &nearer, b, pb).expect("query"),
        "{at}: intersects"
    );
    let mut out = Vec::new();
    w.intersect_shape(shape, nearer, QueryFilter::default(), &mut out)
        .expect("query");
    assert!(out.is_empty(), "{at}: intersect_shape {out:?}");
    let opts = ShapeCastOptions::default();
    let cast = |p: &Pose| {
        let m = bevy_icollide::math::RigidMotion::linear(*p, Vec3::X);
        w.cast_shape(shape, &m, &opts, QueryFilter::default())
            .expect("cast")
            .expect("hit")
            .hit
            .time_of_impact
    };
    let (cw, cg) = (cast(exact), cast(off));
    assert!((cw - cg).abs() < 1e-4, "{at}: world cast {cg} vs {cw}");
}
