//! Plain GJK (`geometry::gjk`, the path of the world's narrow phase, of
//! contacts and of the kinds `query/curved.rs` does not take) at grazing
//! contact of curved shapes, against the independent `f64` reference of
//! `implicit_reference.rs` at GJK's promised gap: `2·10⁻⁶` of the CSO's
//! scale (plus the rounding of `f32` positions far out).
//!
//! The placement that found the defect: a lying cylinder overlapping an
//! upright one rim to side by `2⁻²⁴`, answered `2.16·10⁻⁵` apart in one
//! argument order (the triangle's closest point, summed from vertices
//! `10⁴` times longer than it, pointed GJK the wrong way).

use bevy_icollide::collider::SharedShape;
use bevy_icollide::geometry::gjk::{GjkCache, gjk_distance};
use bevy_icollide::geometry::support::SupportMap;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::testkit::{Rng, long_factor};
use glam::{Quat, Vec3};

use crate::implicit_reference::{Placed, separation};

/// GJK's promised gap, relative to the CSO's scale.
const GAP: f64 = 2e-6;

/// The shape's support map for plain GJK.
fn support(s: &SharedShape) -> &dyn SupportMap {
    match (s.implicit(), s.rounded()) {
        (Some(i), _) => i,
        (_, Some(r)) => r,
        _ => panic!("not a curved kind: {}", s.kind_name()),
    }
}

/// The CSO's scale bound: both bounding radii and the centres' distance.
fn scale(a: &SharedShape, pa: &Pose, b: &SharedShape, pb: &Pose) -> f64 {
    f64::from(a.fixed_cube().radius + b.fixed_cube().radius)
        + f64::from(pa.translation.distance(pb.translation))
}

/// Plain GJK's distance of `a` and `b` against the reference separation,
/// within [`GAP`] of the scale plus `slack`; returns GJK's distance.
fn check(a: (&SharedShape, &Pose), b: (&SharedShape, &Pose), slack: f64) -> f32 {
    let ((sa, pa), (sb, pb)) = (a, b);
    let g = gjk_distance(support(sa), pa, support(sb), pb, &mut GjkCache::new());
    let seeds = if g.intersecting {
        vec![]
    } else {
        vec![g.point_b - g.point_a]
    };
    let (ra, rb) = (Placed::new(sa, pa), Placed::new(sb, pb));
    let (_, n) = separation(&ra, &rb, &seeds);
    let (sv, _) = polish(&ra, &rb, n);
    let tol = GAP * scale(sa, pa, sb, pb) + 8.0 * f64::from(f32::EPSILON) + slack;
    let d = f64::from(g.distance);
    assert!(
        (d - sv.max(0.0)).abs() <= tol,
        "{} at {pa:?} / {} at {pb:?}: GJK {d} ({} iterations), reference {sv}, tolerance {tol}",
        sa.kind_name(),
        sb.kind_name(),
        g.iterations
    );
    g.distance
}

/// The grazing rim-on-side placement of `exact_curved`: an upright
/// cylinder and a lying one, its side on the upright's rim, `gap` apart.
fn rim_on_side(gap: f32) -> (SharedShape, Pose, Pose) {
    let cyl = SharedShape::cylinder(0.5, 1.0).expect("cylinder");
    let lying = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let c = 0.5 + std::f32::consts::FRAC_1_SQRT_2 * (0.5 + gap);
    (cyl, Pose::IDENTITY, Pose::new(lying, Vec3::new(c, c, 0.0)))
}

#[test]
fn grazing_rim_on_side_both_orders_at_the_origin_and_far_out() {
    let tiny = 2f32.powi(-24);
    for gap in [4.0 * tiny, tiny, 0.0, -tiny] {
        let (cyl, pa, pb) = rim_on_side(gap);
        for k in [0, 10, 16] {
            let far = match k {
                0 => Vec3::ZERO,
                _ => Vec3::new(1.0, -1.0, 0.5) * 2f32.powi(k),
            };
            // Far out, the relative pose rounds with the positions.
            let slack = 8.0 * f64::from(f32::EPSILON) * f64::from(far.abs().max_element() + 2.0);
            let pa = Pose::new(pa.rotation, pa.translation + far);
            let pb = Pose::new(pb.rotation, pb.translation + far);
            check((&cyl, &pa), (&cyl, &pb), slack);
            check((&cyl, &pb), (&cyl, &pa), slack);
        }
    }
}

/// The same placement in a world with contact data: touching, distance 0,
/// whichever body comes first.
#[test]
fn grazing_rim_on_side_touches_in_a_world_with_penetration() {
    let (cyl, pa, pb) = rim_on_side(-2f32.powi(-24));
    for swap in [false, true] {
        let config = WorldConfig {
            penetration: true,
            ..WorldConfig::default()
        };
        let mut world = CollisionWorld::new(config).expect("valid config");
        let (p, q) = if swap { (pb, pa) } else { (pa, pb) };
        let ha = world.add_body(BodyDesc::new(cyl.clone()));
        let hb = world.add_body(BodyDesc::new(cyl.clone()));
        world.set_pose(ha, p).expect("pose");
        world.set_pose(hb, q).expect("pose");
        let _ = world.step();
        let r = world.pair(ha, hb).expect("a pair").result;
        let c = r.contact.expect("contact data");
        assert!(r.touching && c.distance == 0.0, "swap {swap}: {r:?}");
    }
}

/// Seeded near-grazing pairs of cylinders, cones and rounded kinds: from
/// a random placement, `B` is moved along the reference's separating
/// direction to `2⁻²⁴` apart, touching and `2⁻²⁴` overlapping; both orders.
#[test]

fn near_grazing_curved_pairs_match_the_reference_at_gjks_gap() {
    let mut rng = Rng::new(9127);
    let shapes = [
        SharedShape::cylinder(0.5, 1.0).expect("cylinder"),
        SharedShape::cone(0.5, 1.0).expect("cone"),
        SharedShape::cylinder(0.2, 1.4).expect("cylinder"),
        SharedShape::round_cylinder(0.4, 0.8, 0.1).expect("round cylinder"),
        SharedShape::round_cone(0.4, 0.8, 0.1).expect("round cone"),
        SharedShape::capsule(0.3, 0.8).expect("capsule"),
    ];
    let tiny = 2f32.powi(-24);
    for _ in 0..8 * long_factor() {
        for (i, a) in shapes.iter().enumerate() {
            let b = &shapes[(i + 1 + rng.below(shapes.len() - 1)) % shapes.len()];
            let pa = Pose::new(rng.rotation(), Vec3::ZERO);
            let pb = Pose::new(rng.rotation(), rng.unit_vector() * 1.5);
            let (s, n) = separation(&Placed::new(a, &pa), &Placed::new(b, &pb), &[]);
            for delta in [tiny, 0.0, -tiny] {
                let shift = n.as_vec3() * (delta - s as f32);
                let pb = Pose::new(pb.rotation, pb.translation + shift);
                check((a, &pa), (b, &pb), 0.0);
                check((b, &pb), (a, &pa), 0.0);
            }
        }
    }
}

/// A denser pattern search on the sphere from `n` (2 048 tries a step,
/// down to steps of `10⁻¹²`): follows `sep`'s ridges (where the support
/// switches between a rim and an apex or a generator's ends), on which
/// the reference's 64 tries a step can stall.
fn polish(a: &Placed, b: &Placed, mut n: glam::DVec3) -> (f64, glam::DVec3) {
    let mut rng = Rng::new(77);
    let mut v = crate::implicit_reference::sep(a, b, n);
    let mut step = 1e-3;
    while step > 1e-12 {
        let mut moved = false;
        for _ in 0..2048 {
            let d = rng.unit_vector().as_dvec3();
            let m = (n + d * step).normalize();
            let fm = crate::implicit_reference::sep(a, b, m);
            if fm > v {
                (n, v, moved) = (m, fm, true);
            }
        }
        if !moved {
            step *= 0.5;
        }
    }
    (v, n)
}

/// Far out (up to `2²⁰`, where a position's unit in the last place is
/// `1/8`), GJK on rotated shapes is as exact as at the origin: the pair's
/// relative pose is the rotated difference of the two positions, which is
/// exact for nearby positions, so no slack is given for the distance from
/// the origin (the reference sees the same `f32` poses). Rotating the
/// positions themselves, then taking their difference, is off by about
/// `|position|·ε` (`8·10⁻³` at `2¹⁶`): this test fails on that.
#[test]
fn far_out_rotated_pairs_are_as_exact_as_at_the_origin() {
    let mut rng = Rng::new(4321);
    let shapes = [
        SharedShape::cylinder(0.5, 1.0).expect("cylinder"),
        SharedShape::cone(0.5, 1.0).expect("cone"),
    ];
    for k in [12, 16, 20] {
        let far = Vec3::new(1.0, -0.75, 0.5) * 2f32.powi(k);
        for (a, b) in [(&shapes[0], &shapes[1]), (&shapes[1], &shapes[1])] {
            let pa = Pose::new(rng.rotation(), far);
            let pb = Pose::new(rng.rotation(), far + rng.unit_vector() * 1.5);
            check((a, &pa), (b, &pb), 0.0);
            check((b, &pb), (a, &pa), 0.0);
        }
    }
}
