//! Rounding-breaking placements for casts at meshes (C–M, M–M, R–M),
//! checked as `exact_mesh_casts.rs` does: identity poses, a box, ball,
//! capsule or flat patch falling `0, 2⁻²⁴, 4·2⁻²⁴, 10⁻³` onto a flat grid
//! mesh with its corners onto the grid's vertices (the time is the gap:
//! exact in the reference, both orders); sliding level at `0` (touching at
//! 0) and `10⁻³` above (no hit); grazing a pyramid's apex level with it (a
//! ball touching it at one instant, the others from when their edge
//! reaches it); shot at `10³ … 10⁶` per unit time through a one-quad wall
//! (through it within the step: hit at the reference time); the same `2²⁰`
//! from the origin. And the reference checked against itself: its
//! closed-form times equal the first roots of its separations.

use bevy_icollide::bvh::TreeKind;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::testkit::{Rng, grid, sphere_hull, to_dquat};
use glam::{DVec3, Quat, Vec3};

use crate::exact_mesh_casts::{Seen, Side, check_linear, mesh};
use crate::mesh_cast_reference::{
    Body, IDENTITY, Part, feature_gap, first_root, linear_first, touch_interval,
};

/// A mover at identity rotation: shape, body, rotation, and the height
/// of its origin above its lowest point.
pub(crate) type Mover = (SharedShape, Body, Quat, f32);

/// The movers of a cell: a box and a pyramid (C), a ball and a capsule
/// (R), a flat quad patch (M).
pub(crate) fn movers(kind: &str, tree: TreeKind) -> Vec<Mover> {
    let one = |s: SharedShape, q: Quat, h: f32| {
        let b = Body::of(&s);
        (s, b, q, h)
    };
    match kind {
        "C" => vec![
            one(
                SharedShape::cuboid(Vec3::splat(0.25)).expect("box"),
                Quat::IDENTITY,
                0.25,
            ),
            one(
                SharedShape::convex_hull(&[
                    Vec3::new(-0.25, 0.0, -0.25),
                    Vec3::new(0.25, 0.0, -0.25),
                    Vec3::new(0.25, 0.0, 0.25),
                    Vec3::new(-0.25, 0.0, 0.25),
                    Vec3::new(0.0, 0.5, 0.0),
                ])
                .expect("pyramid"),
                Quat::IDENTITY,
                0.0,
            ),
        ],
        "R" => vec![
            one(
                SharedShape::sphere(0.25).expect("ball"),
                Quat::IDENTITY,
                0.25,
            ),
            one(
                SharedShape::capsule(0.125, 0.5).expect("capsule"),
                Quat::IDENTITY,
                0.375,
            ),
        ],
        _ => {
            let (v, t) = grid(1, |_, _| 0.0);
            let v: Vec<Vec3> = v.into_iter().map(|p| p * 0.25).collect();
            let (s, b) = mesh(v, t, tree);
            vec![(s, b, Quat::IDENTITY, 0.0)]
        }
    }
}

/// Checks X against Y, both orders; asserts what was seen.
fn both_orders(x: &Side<'_>, y: &Side<'_>, want: Seen, case: &str) {
    for flip in [false, true] {
        let seen = check_linear(x, y, flip, &format!("{case}, flip {flip}"));
        assert_eq!(seen, want, "{case}, flip {flip}");
    }
}

/// The placements of the module docs for the movers of `kind`.
pub(crate) fn placements(kind: &str) {
    let tiny = 2f32.powi(-24);
    for tree in [TreeKind::Obb, TreeKind::Aabb] {
        let (v, t) = grid(4, |_, _| 0.0);
        let (floor, floor_body) = mesh(v, t, tree);
        let apex = [
            Vec3::new(-0.5, 0.0, -0.5),
            Vec3::new(0.5, 0.0, -0.5),
            Vec3::new(0.5, 0.0, 0.5),
            Vec3::new(-0.5, 0.0, 0.5),
            Vec3::new(0.0, 0.25, 0.0),
        ];
        let tent = [[0, 4, 1], [1, 4, 2], [2, 4, 3], [3, 4, 0]];
        let (tent, tent_body) = mesh(apex.to_vec(), tent.to_vec(), tree);
        let (v, t) = grid(1, |_, _| 0.0);
        let (wall, wall_body) = mesh(v, t, tree);
        for (s, b, q, h) in movers(kind, tree) {
            for far in [0.0, 2f32.powi(20)] {
                let base = Vec3::new(far, 0.0, far);
                let still = |p: Vec3| RigidMotion::stationary(Pose::from_translation(base + p));
                let on = Side::new;
                let case = |what: &str| format!("{tree:?} {} {what} at {far}", s.kind_name());
                // Falling onto the grid, corners onto its vertices.
                for gap in [0.0, tiny, 4.0 * tiny, 1e-3] {
                    let at = base + Vec3::new(0.25, h + gap, 0.25);
                    let x = on(&s, &b, RigidMotion::linear(Pose::new(q, at), -Vec3::Y));
                    let y = on(&floor, &floor_body, still(Vec3::ZERO));
                    let want = f64::from(at.y) - f64::from(h);
                    let got = reference_time(&x, &y).expect("falling onto the grid");
                    // Sharp parts: the closed form, exact; a ball: 2⁻⁶⁰.
                    assert!((got - want).abs() <= 1e-15, "{}: {got}", case("falling"));
                    both_orders(&x, &y, Seen::Hit, &case(&format!("falling {gap}")));
                }
                // Sliding level: touching from the start, or 10⁻³ above.
                for (gap, want) in [(0.0, Seen::Hit), (1e-3, Seen::Miss)] {
                    let at = base + Vec3::new(-0.3, h + gap, 0.1);
                    let x = on(&s, &b, RigidMotion::linear(Pose::new(q, at), Vec3::X * 0.6));
                    let y = on(&floor, &floor_body, still(Vec3::ZERO));
                    both_orders(&x, &y, want, &case(&format!("sliding {gap}")));
                }
                // Grazing the apex level with it, passing over it at 0.5.
                let at = base + Vec3::new(-1.5, 0.25 + h, 0.0);
                let x = on(&s, &b, RigidMotion::linear(Pose::new(q, at), Vec3::X * 3.0));
                let y = on(&tent, &tent_body, still(Vec3::ZERO));
                let graze = reference_time(&x, &y).expect("grazing the apex");
                assert!(graze <= 0.5, "{}: {graze}", case("grazing"));
                both_orders(&x, &y, Seen::Hit, &case("grazing"));
                // Through a one-quad wall within the step.
                for speed in [1e3f32, 1e4, 1e6] {
                    let at = base + Vec3::new(0.1, 0.5 * speed + h, -0.2);
                    let x = on(
                        &s,
                        &b,
                        RigidMotion::linear(Pose::new(q, at), -Vec3::Y * speed),
                    );
                    let y = on(&wall, &wall_body, still(Vec3::ZERO));
                    both_orders(&x, &y, Seen::Hit, &case(&format!("at {speed}")));
                }
            }
        }
    }
}

/// The reference's first contact of X with Y (linear).
fn reference_time(x: &Side<'_>, y: &Side<'_>) -> Option<f64> {
    let o = y.motion.start.translation.as_dvec3();
    let pose = |m: &RigidMotion| {
        (
            to_dquat(m.start.rotation),
            m.start.translation.as_dvec3() - o,
        )
    };
    let (a, b) = (
        x.body.placed(pose(&x.motion), DVec3::ZERO),
        y.body.placed(pose(&y.motion), DVec3::ZERO),
    );
    let d = x.motion.linvel.as_dvec3() - y.motion.linvel.as_dvec3();
    linear_first(&a, &b, d, 1.0).map(|x| x.0)
}

/// The reference's closed-form times (a hull, triangle, segment or point
/// against a triangle, moved by `t d`) equal the first roots of the parts' feature
/// gaps (distance, or 0 when a vertex is inside or an edge crosses a
/// triangle: no axes), to `10⁻⁹`; both
/// find a contact or neither, but where the least separation is within
/// `10⁻⁹` of 0 (a graze).
#[test]
fn the_mesh_cast_reference_agrees_with_itself() {
    let mut rng = Rng::new(4304);
    let mut hits = 0;
    for i in 0..400 {
        let a = match i % 4 {
            0 => {
                let h = sphere_hull(&mut rng, 10, 0.3);
                let h = h.hull().expect("hull");
                Part::hull(h.vertices(), h.triangles())
            }
            1 => Part::triangle([0; 3].map(|_| rng.in_cube(0.4).as_dvec3())),
            // A sharp segment, a point: a capsule's, a ball's core.
            k => Part::rounded(f64::from(rng.range(0.0, 0.4)) * f64::from(k == 2), 0.0),
        };
        let pose = (to_dquat(rng.rotation()), rng.in_cube(1.0).as_dvec3());
        let a = a.placed(pose, DVec3::ZERO);
        let b = Part::triangle([0; 3].map(|_| rng.in_cube(0.5).as_dvec3()));
        let d = (rng.in_cube(0.5) - pose.1.as_vec3() * rng.range(0.8, 2.0)).as_dvec3();
        let s = |t: f64| feature_gap(&a.placed(IDENTITY, d * t), &b);
        let closed = touch_interval(&a, &b, d, 1.0).map(|x| x.0);
        let root = first_root(s, 1.0);
        match (closed, root) {
            (Some(x), Some(y)) => {
                assert!((x - y).abs() <= 1e-9, "#{i}: {x} vs {y}");
                hits += 1;
            }
            (None, None) => {}
            // Only a graze may differ: touching (to rounding) at the
            // closed-form time, the features' gap a hair above 0.
            (Some(x), None) => assert!(s(x) <= 1e-9, "#{i}: {x} but no root"),
            (None, Some(y)) => panic!("#{i}: the parts meet at {y}, the closed form says never"),
        }
    }
    assert!(hits > 80, "{hits} hits");
    // A segment in a triangle's plane, parallel to the one line that
    // separates them (through a vertex, along no edge): they meet at 0.5.
    let tri = Part::triangle([DVec3::ZERO, DVec3::X, DVec3::Y]);
    let seg = Part {
        v: vec![DVec3::new(0.75, 1.0, 0.0), DVec3::new(1.75, -1.0, 0.0)],
        ..Part::rounded(1.0, 0.0)
    };
    let d = DVec3::new(-0.5, 0.0, 0.0);
    assert_eq!(touch_interval(&seg, &tri, d, 1.0).map(|x| x.0), Some(0.5));
    let root = first_root(|t| feature_gap(&seg.placed(IDENTITY, d * t), &tri), 1.0);
    assert!(root.is_some_and(|y| (y - 0.5).abs() < 1e-12), "{root:?}");
}
