//! Shape casts of convex polytopes (C–M), meshes (M–M), spheres and
//! capsules (R–M) against triangle meshes under both trees, checked
//! against the independent `f64` reference of `mesh_cast_reference.rs`
//! (closed-form separating-axis times for sharp parts, the convex first
//! root for rounded ones, Lipschitz stepping for turning casts), both
//! orders, both bodies moving.
//!
//! Linear casts: a hit exactly when the reference has a contact in
//! `[0, 1]`, or a near miss within [`allowed`]; the time never after the
//! reference's first contact (by at most two `f32` steps of time plus
//! `TOL` of the size over the speed); the reference separation at the
//! reported time within [`allowed`]; the witness points on their shapes,
//! the mesh triangles named touching, the normal a separating direction of
//! the touching parts (their separation along it within `NORMAL_TOL` of
//! their separation). Turning casts: touching within [`allowed`] at the
//! reported time, and no two parts overlapping by `EPS` before it (by
//! Lipschitz steps: rigorous), or none in `[0, 1]` when there is no hit.
//! Each cell's test then runs the rounding-breaking placements of
//! `exact_mesh_cast_placements.rs` (identity poses, shared vertices,
//! `2⁻²⁴` gaps, grazing, high speed, `2²⁰` out).

use bevy_icollide::bvh::TreeKind;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{self, CastStatus, ShapeCastHit, ShapeCastOptions};
use bevy_icollide::shape::Feature;
use bevy_icollide::testkit::{Rng, cube_sphere, long_factor, sphere_hull, to_dquat, torus};
use glam::{DVec3, Vec3};

use crate::exact_mesh_cast_placements::placements;
use crate::mesh_cast_reference::{Body, Moving, Part, least, linear_first, separation};

/// The pair's `f32` rounding, relative to the shapes' size (1).
pub(crate) const TOL: f64 = 1e-5;
/// The overlap the turning check certifies absent before a hit.
const EPS: f64 = 1e-5;
/// How far the normal's separation may fall short of the parts'.
const NORMAL_TOL: f64 = 2e-3;

/// A shape, its reference body, its motion.
#[derive(Clone)]
pub(crate) struct Side<'a> {
    pub shape: &'a SharedShape,
    pub body: &'a Body,
    pub motion: RigidMotion,
}

impl<'a> Side<'a> {
    /// A shape, its reference body, its motion.
    pub fn new(shape: &'a SharedShape, body: &'a Body, motion: RigidMotion) -> Self {
        Self {
            shape,
            body,
            motion,
        }
    }
}

/// A mesh's data and its shape under `tree`.
pub(crate) fn mesh(v: Vec<Vec3>, t: Vec<[u32; 3]>, tree: TreeKind) -> (SharedShape, Body) {
    let body = Body::mesh(&v, &t);
    (
        SharedShape::trimesh_with_tree(v, t, tree).expect("mesh"),
        body,
    )
}

/// A small mesh: a bumpy 3 × 3 patch, a torus, a cube sphere, a bent
/// sheet of 2 × 2 quads.
fn random_mesh(rng: &mut Rng, tree: TreeKind) -> (SharedShape, Body) {
    let (v, t) = match rng.below(4) {
        0 => bevy_icollide::testkit::grid(2, |_, _| 0.0),
        1 => torus(0.35, 0.1, 8, 5),
        2 => cube_sphere(0.3, 2),
        _ => bevy_icollide::testkit::grid(2, |x, z| 0.3 * x * z),
    };
    let bump = rng.range(0.0, 0.2);
    let v = v
        .into_iter()
        .map(|p| p * 0.6 + Vec3::Y * rng.range(-bump, bump))
        .collect();
    mesh(v, t, tree)
}

/// The distance the shapes may be apart at a hit at `t`: tolerance, what
/// they move in two `f32` steps of time at `speed`, the pair's rounding.
pub(crate) fn allowed(speed: f64, t: f32) -> f64 {
    allowed_with(&ShapeCastOptions::default(), speed, t)
}

/// [`allowed`] at the options' tolerance.
fn allowed_with(options: &ShapeCastOptions, speed: f64, t: f32) -> f64 {
    let step = f64::from(t.next_up() - t);
    f64::from(options.tolerance) + 2.0 * speed * step + TOL
}

/// The crate's cast of X and Y (Y first when `flip`), seen as X's.
pub(crate) fn cast(x: &Side<'_>, y: &Side<'_>, flip: bool) -> Option<ShapeCastHit> {
    cast_with(x, y, flip, &ShapeCastOptions::default())
}

/// [`cast`] with these options.
fn cast_with(
    x: &Side<'_>,
    y: &Side<'_>,
    flip: bool,
    options: &ShapeCastOptions,
) -> Option<ShapeCastHit> {
    let got = if flip {
        query::cast_shapes_nonlinear((y.shape, &y.motion), (x.shape, &x.motion), options)
    } else {
        query::cast_shapes_nonlinear((x.shape, &x.motion), (y.shape, &y.motion), options)
    };
    got.expect("cast").map(|h| {
        if !flip {
            return h;
        }
        ShapeCastHit {
            point_a: h.point_b,
            point_b: h.point_a,
            normal: -h.normal,
            features: [h.features[1], h.features[0]],
            pieces: [h.pieces[1], h.pieces[0]],
            ..h
        }
    })
}

/// What a check found: no hit, a hit, or a case left undecided.
#[derive(Debug, PartialEq)]
pub(crate) enum Seen {
    Miss,
    Hit,
    Undecided,
}

/// A linear cast of X at Y (both translating), against the reference.
pub(crate) fn check_linear(x: &Side<'_>, y: &Side<'_>, flip: bool, case: &str) -> Seen {
    check_linear_with(x, y, flip, case, &ShapeCastOptions::default())
}

/// [`check_linear`] with these options; a target distance is in the
/// bodies' radii (the reference's contact is at the target).
fn check_linear_with(
    x: &Side<'_>,
    y: &Side<'_>,
    flip: bool,
    case: &str,
    options: &ShapeCastOptions,
) -> Seen {
    let got = cast_with(x, y, flip, options);
    let origin = y.motion.start.translation.as_dvec3();
    let pose = |m: &RigidMotion| {
        (
            to_dquat(m.start.rotation),
            m.start.translation.as_dvec3() - origin,
        )
    };
    let (a, b) = (
        x.body.placed(pose(&x.motion), DVec3::ZERO),
        y.body.placed(pose(&y.motion), DVec3::ZERO),
    );
    let d = (x.motion.linvel.as_dvec3()) - y.motion.linvel.as_dvec3();
    let first = linear_first(&a, &b, d, 1.0);
    let at = |t: f64| -> Vec<Part> {
        a.iter()
            .map(|p| p.placed(crate::mesh_cast_reference::IDENTITY, d * t))
            .collect()
    };
    let speed = d.length();
    let Some(h) = got else {
        assert!(first.is_none(), "{case}: missed the contact at {first:?}");
        return Seen::Miss;
    };
    let toi = f64::from(h.time_of_impact);
    if let Some((t, _)) = first {
        let step = f64::from((t as f32).next_up() - t as f32);
        let late = 2.0 * step + TOL / speed.max(1e-9);
        assert!(
            toi <= t + late,
            "{case}: toi {toi} after the first contact {t}, {h:?}"
        );
    }
    let (s, pair) = least(&at(toi), &b);
    let most = allowed_with(options, speed, h.time_of_impact);
    assert!(
        s <= most,
        "{case}: {s} apart (> {most}) at {toi}, first {first:?}, {h:?}"
    );
    if h.status == CastStatus::Converged && !h.started_touching {
        let shift = origin + y.motion.linvel.as_dvec3() * toi;
        let grow = f64::from(options.target_distance);
        check_witness((&at(toi), &b), shift, &h, (most, pair, grow), case);
    }
    if first.is_some() {
        Seen::Hit
    } else {
        Seen::Undecided
    }
}

/// The part named by a feature: a mesh's triangle, else the one part.
fn named(parts: &[Part], f: Feature) -> usize {
    match (parts.len(), f) {
        (1, _) => 0,
        (_, Feature::Face(k)) => k as usize,
        (_, f) => panic!("a mesh's feature {f:?}"),
    }
}

/// The witness points lie on their shapes (on the parts named), those
/// parts touch, and the normal separates them (module docs); A's parts
/// grown by `grow`.
fn check_witness(
    (a, b): (&[Part], &[Part]),
    origin: DVec3,
    h: &ShapeCastHit,
    (most, pair, grow): (f64, [usize; 2], f64),
    case: &str,
) {
    let ulp = |p: Vec3| f64::from(p.abs().max_element().next_up() - p.abs().max_element());
    let (ia, ib) = (named(a, h.features[0]), named(b, h.features[1]));
    // A's radii hold the target distance (`grow`), its witness does not.
    for (parts, k, p, g) in [(a, ia, h.point_a, grow), (b, ib, h.point_b, 0.0)] {
        let point = Part::rounded(0.0, 0.0)
            .placed(crate::mesh_cast_reference::IDENTITY, p.as_dvec3() - origin);
        let on = (separation(&point, &parts[k]) + g).abs();
        assert!(
            on <= most + 4.0 * ulp(p),
            "{case}: witness {p} {on} off part {k}, {h:?}"
        );
    }
    let s = separation(&a[ia], &b[ib]);
    assert!(
        s <= most,
        "{case}: parts {ia}, {ib} named but {s} apart ({pair:?} touch), {h:?}"
    );
    let n = h.normal.as_dvec3();
    assert!((n.length() - 1.0).abs() < 1e-3, "{case}: normal {h:?}");
    let along =
        |p: &Part, n: DVec3| p.v.iter().map(|x| n.dot(*x)).fold(f64::MIN, f64::max) + p.radius;
    let sep_n = -along(&a[ia], n) - along(&b[ib], -n);
    assert!(
        sep_n >= s - NORMAL_TOL,
        "{case}: {sep_n} along the normal, parts {s} apart, {h:?}"
    );
}

/// A turning cast of X at Y, against the reference (module docs).
pub(crate) fn check_turning(x: &Side<'_>, y: &Side<'_>, flip: bool, case: &str) -> Seen {
    let got = cast(x, y, flip);
    let moving = Moving {
        a: (x.body, &x.motion),
        b: (y.body, &y.motion),
    };
    let end = got.map_or(1.0, |h| h.time_of_impact);
    let Ok(deep) = moving.first_deep(f64::from(end), EPS, 20_000) else {
        return Seen::Undecided;
    };
    assert!(
        deep.is_none_or(|t| t >= f64::from(end)),
        "{case}: parts overlap at {deep:?}, before the hit {got:?}"
    );
    let Some(h) = got else {
        return Seen::Miss;
    };
    let l = bevy_icollide::testkit::lipschitz((&x.motion, x.body.reach), (&y.motion, y.body.reach));
    let (s, _) = moving.gap(f64::from(end));
    let most = allowed(l, end);
    assert!(
        s <= most,
        "{case}: turning cast {s} apart (> {most}) at {end}, {h:?}"
    );
    Seen::Hit
}

/// X at `px` and Y near the origin, X's velocity aimed at Y (a miss now
/// and then), Y drifting; turning (both spinning) when `turn`.
pub(crate) fn motions(rng: &mut Rng, turn: bool) -> [RigidMotion; 2] {
    let py = Pose::new(rng.rotation(), rng.in_cube(0.2));
    let px = Pose::new(
        rng.rotation(),
        py.translation + rng.unit_vector() * rng.range(0.9, 1.4),
    );
    let aim = (py.translation + rng.in_cube(0.5) - px.translation) * rng.range(0.6, 1.6);
    let drift = rng.in_cube(0.3);
    let mut mx = RigidMotion::linear(px, aim + drift);
    let mut my = RigidMotion::linear(py, drift);
    if turn {
        for m in [&mut mx, &mut my] {
            m.angvel = rng.unit_vector() * rng.range(0.5, 3.0);
            m.local_center = rng.in_cube(0.2);
        }
    }
    [mx, my]
}

/// `n` random casts of the shapes `make_x` gives at random meshes under
/// both trees: a third turning, the rest linear, both orders, one in five
/// `2¹⁶` from the origin. Counts.
pub(crate) fn random_casts(
    seed: u64,
    n: usize,
    make_x: &dyn Fn(&mut Rng, TreeKind) -> (SharedShape, Body),
) -> [usize; 3] {
    let mut rng = Rng::new(seed);
    let mut seen = [0; 3];
    for tree in [TreeKind::Obb, TreeKind::Aabb] {
        for i in 0..n * long_factor() {
            let (sy, by) = random_mesh(&mut rng, tree);
            let (sx, bx) = make_x(&mut rng, tree);
            let turn = i % 3 == 2;
            let [mut mx, mut my] = motions(&mut rng, turn);
            if i % 5 == 4 {
                // 2¹⁶ out: `f32` steps of 2⁻⁷ there.
                let far = Vec3::new(1.0, -1.0, 1.0) * 65536.0;
                mx.start.translation += far;
                my.start.translation += far;
            }
            let x = Side::new(&sx, &bx, mx);
            let y = Side::new(&sy, &by, my);
            let case = format!("{tree:?} #{i}: {} at a mesh", sx.kind_name());
            let r = if turn {
                check_turning(&x, &y, i % 2 == 1, &case)
            } else {
                check_linear(&x, &y, i % 2 == 1, &case)
            };
            let k = match r {
                Seen::Hit if turn => 2,
                Seen::Hit => 0,
                Seen::Miss => 1,
                Seen::Undecided => continue,
            };
            seen[k] += 1;
        }
    }
    eprintln!(
        "{seed}: {} linear hits, {} misses, {} turning hits",
        seen[0], seen[1], seen[2]
    );
    seen
}

fn assert_mix([hits, misses, turning]: [usize; 3], n: usize) {
    assert!(
        hits * 4 >= n && misses * 20 >= n && turning * 10 >= n,
        "{hits} linear hits, {misses} misses, {turning} turning hits of {n}"
    );
}

/// C–M: cuboids and hulls cast at meshes.
#[test]
fn convex_polytopes_cast_at_meshes_match_the_separating_axis_times() {
    let seen = random_casts(4301, 45, &|rng, _| {
        let s = if rng.bool() {
            SharedShape::cuboid(rng.vec(0.1, 0.3)).expect("cuboid")
        } else {
            sphere_hull(rng, 12, 0.3)
        };
        let b = Body::of(&s);
        (s, b)
    });
    assert_mix(seen, 90 * long_factor());
    placements("C");
}

/// M–M: meshes cast at meshes (every moving triangle against every still
/// one, closed form).
#[test]
fn meshes_cast_at_meshes_match_the_triangle_pair_times() {
    let seen = random_casts(4302, 36, &|rng, tree| random_mesh(rng, tree));
    assert_mix(seen, 72 * long_factor());
    placements("M");
}

/// R–M: spheres and capsules cast at meshes (the convex first root of
/// each triangle's separation).
#[test]
fn spheres_and_capsules_cast_at_meshes_match_the_first_root() {
    let seen = random_casts(4303, 45, &|rng, _| {
        let s = if rng.bool() {
            SharedShape::sphere(rng.range(0.05, 0.3)).expect("sphere")
        } else {
            SharedShape::capsule(rng.range(0.05, 0.2), rng.range(0.1, 0.5)).expect("capsule")
        };
        let b = Body::of(&s);
        (s, b)
    });
    assert_mix(seen, 90 * long_factor());
    placements("R");
}

/// Many cheap linear casts (a box, hull, sphere, capsule or two-triangle
/// mesh at a two-triangle mesh, both orders) with every check of
/// [`check_linear`]: the normals of the GJK ray cast's hits, which were
/// once the direction from the simplex's closest point when GJK stopped
/// within the tolerance, up to 60° from any separating direction of two
/// sharp parts (about one hit in 600).
#[test]
fn linear_cast_normals_at_meshes_separate_the_touching_parts() {
    let mut rng = Rng::new(4305);
    let mut hits = 0;
    for i in 0..1500 * long_factor() {
        let tree = [TreeKind::Obb, TreeKind::Aabb][i % 2];
        let quad = |rng: &mut Rng| {
            let (v, t) = bevy_icollide::testkit::grid(1, |_, _| 0.0);
            let v = v.into_iter().map(|p| p * 0.4 + rng.in_cube(0.1)).collect();
            mesh(v, t, tree)
        };
        let (sy, by) = quad(&mut rng);
        let (sx, bx) = match rng.below(5) {
            0 => quad(&mut rng),
            1 => {
                let s = sphere_hull(&mut rng, 8, 0.3);
                (s.clone(), Body::of(&s))
            }
            2 => {
                let s = SharedShape::cuboid(rng.vec(0.05, 0.3)).expect("cuboid");
                (s.clone(), Body::of(&s))
            }
            3 => {
                let s = SharedShape::sphere(rng.range(0.05, 0.3)).expect("sphere");
                (s.clone(), Body::of(&s))
            }
            _ => {
                let s = SharedShape::capsule(rng.range(0.05, 0.2), 0.3).expect("capsule");
                (s.clone(), Body::of(&s))
            }
        };
        let [mx, my] = motions(&mut rng, false);
        let x = Side::new(&sx, &bx, mx);
        let y = Side::new(&sy, &by, my);
        let case = format!("{tree:?} #{i}: {} at a quad", sx.kind_name());
        hits += usize::from(check_linear(&x, &y, i % 4 >= 2, &case) == Seen::Hit);
    }
    eprintln!("{hits} hits");
    assert!(hits * 5 >= 1500 * long_factor(), "{hits} hits");
}

/// R–M to a target distance (`0.05`, tolerance `10⁻³`): the reference's
/// radii grown by the target, the same checks.
#[test]
fn spheres_and_capsules_cast_at_meshes_to_a_target_distance() {
    let options = ShapeCastOptions {
        target_distance: 0.05,
        tolerance: 1e-3,
        ..ShapeCastOptions::default()
    };
    let mut rng = Rng::new(4306);
    let mut hits = 0;
    for i in 0..60 * long_factor() {
        let tree = [TreeKind::Obb, TreeKind::Aabb][i % 2];
        let (sy, by) = random_mesh(&mut rng, tree);
        let sx = if rng.bool() {
            SharedShape::sphere(rng.range(0.05, 0.3)).expect("sphere")
        } else {
            SharedShape::capsule(rng.range(0.05, 0.2), rng.range(0.1, 0.5)).expect("capsule")
        };
        let mut bx = Body::of(&sx);
        bx.parts[0].radius += f64::from(options.target_distance);
        let [mx, my] = motions(&mut rng, false);
        let x = Side::new(&sx, &bx, mx);
        let y = Side::new(&sy, &by, my);
        let case = format!("{tree:?} #{i}: {} at a mesh, target", sx.kind_name());
        hits += usize::from(check_linear_with(&x, &y, i % 4 >= 2, &case, &options) == Seen::Hit);
    }
    assert!(hits * 4 >= 60 * long_factor(), "{hits} hits");
}
