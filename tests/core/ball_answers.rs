//! The boolean hull pair's ball answers (`query::balls`: apart when the
//! outer balls are apart, touching when the inner balls overlap) against
//! the f64 separating-axis test, where they decide: pairs placed exactly
//! at the balls' boundaries (outer balls tangent at the hulls' farthest
//! vertices, inner balls tangent at the faces nearest the centroids), then
//! moved apart or together by `±2^-k` of the hull's size (k = 10 … 24),
//! at the origin and far from it, through the world's boolean narrow
//! phase. Pairs the reference finds within GJK's touching tolerance are
//! not judged (either answer is right there).

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::WorldPose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::shape::ConvexPolytope;
use bevy_icollide::testkit::{Poly, Rng, sat, sphere_hull};
use glam::{DQuat, DVec3, Quat};

/// Within this fraction of the size of touching, the pair is not judged
/// (GJK's tolerance is `10⁻⁶` of the pair's scale).
const BAND: f64 = 4e-6;

/// A body's placement: rotation and `f64` translation.
type Place = (Quat, DVec3);

/// B's placement in A's frame with its farthest vertex on A's (rotated
/// half a turn about an axis across the line of centroids): the outer
/// balls tangent there, and B moved `delta` on along that line.
fn outer_tangent(p: &ConvexPolytope, delta: f64) -> Place {
    let c = p.centroid().as_dvec3();
    let far = p
        .vertices()
        .iter()
        .map(|v| v.as_dvec3())
        .fold(c, |best, v| {
            if (v - c).length() > (best - c).length() {
                v
            } else {
                best
            }
        });
    let u = (far - c).normalize();
    let q = DQuat::from_axis_angle(u.any_orthonormal_vector(), std::f64::consts::PI);
    (q.as_quat(), far - q * far + u * delta)
}

/// The face nearest the centroid: outward normal and distance.
fn nearest_face(p: &ConvexPolytope) -> (DVec3, f64) {
    let c = p.centroid().as_dvec3();
    p.faces()
        .iter()
        .map(|f| {
            (
                f.normal.as_dvec3(),
                f64::from(f.offset) - f.normal.as_dvec3().dot(c),
            )
        })
        .fold(
            (DVec3::X, f64::INFINITY),
            |a, b| if b.1 < a.1 { b } else { a },
        )
}

/// B's placement in A's frame with its nearest face against A's, the
/// centroids on the faces' common normal (the inner balls tangent where
/// the faces meet), then moved `delta` apart along it.
fn inner_tangent(a: &ConvexPolytope, b: &ConvexPolytope, delta: f64) -> Place {
    let ((na, da), (nb, db)) = (nearest_face(a), nearest_face(b));
    let q = DQuat::from_rotation_arc(nb, -na);
    let cb = a.centroid().as_dvec3() + na * (da + db + delta);
    (q.as_quat(), cb - q * b.centroid().as_dvec3())
}

/// `local` (in A's frame) as a world placement, A placed at `at`.
fn compose(at: Place, local: Place) -> Place {
    let q = at.0.as_dquat();
    ((at.0 * local.0).normalize(), at.1 + q * local.1)
}

fn reference(shape: &SharedShape, at: Place) -> Poly {
    let hull = shape.hull().expect("hull");
    let q = at.0.as_dquat().normalize();
    Poly::at(hull.vertices(), hull.triangles(), (q, at.1))
}

struct Case {
    bodies: [BodyHandle; 2],
    /// The f64 separating-axis overlap (> 0 overlapping, < 0 apart).
    overlap: f64,
    what: String,
}

fn offsets(size: f64) -> Vec<f64> {
    let steps = (10..=24).map(|k| size * 2f64.powi(-k));
    steps
        .clone()
        .chain([0.0])
        .chain(steps.map(|d| -d))
        .collect()
}

/// Every hull pair placed at both boundaries, at every offset, at `far`
/// (each pair 64 sizes from the last), through one boolean world update;
/// returns the number of judged pairs.
fn run(rng: &mut Rng, far: DVec3) -> usize {
    let size = 1.0f64;
    let shapes: Vec<SharedShape> = [12, 40, 100, 40, 12]
        .iter()
        .map(|&n| sphere_hull(rng, n, size as f32))
        .collect();
    let config = WorldConfig {
        penetration: false,
        ..Default::default()
    };
    let mut world = CollisionWorld::new(config).expect("config");
    let mut cases = Vec::new();
    let mut slot = 0.0;
    for (i, sa) in shapes.iter().enumerate() {
        let sb = &shapes[(i + 1) % shapes.len()];
        let (pa, pb) = (sa.polytope().expect("hull"), sb.polytope().expect("hull"));
        for delta in offsets(size) {
            let rot = rng.rotation();
            for (kind, local) in [
                ("outer", outer_tangent(pa, delta)),
                ("inner", inner_tangent(pa, pb, delta)),
            ] {
                let shape_b = if kind == "outer" { sa } else { sb };
                slot += 64.0 * size;
                let at_a = (rot, far + DVec3::new(slot, 0.0, 0.0));
                let at_b = compose(at_a, local);
                let mut add = |s: &SharedShape, (q, t): Place| {
                    let h = world.add_body(BodyDesc::new(s.clone()));
                    let pose = WorldPose {
                        rotation: q,
                        translation: t,
                    };
                    world.set_pose_f64(h, pose).expect("pose");
                    h
                };
                let bodies = [add(sa, at_a), add(shape_b, at_b)];
                let overlap = sat(&reference(sa, at_a), &reference(shape_b, at_b)).0;
                let what = format!("{kind} tangent, hulls {i}, offset {delta:e}, at {far}");
                cases.push(Case {
                    bodies,
                    overlap,
                    what,
                });
            }
        }
    }
    let _ = world.step();
    let mut judged = 0;
    for c in &cases {
        let touching = world
            .pair(c.bodies[0], c.bodies[1])
            .is_some_and(|p| p.result.touching);
        if c.overlap.abs() <= BAND * size {
            continue;
        }
        judged += 1;
        assert_eq!(
            touching,
            c.overlap > 0.0,
            "{}: f64 overlap {:e}",
            c.what,
            c.overlap
        );
    }
    judged
}

#[test]
fn ball_answers_agree_with_sat_at_their_boundaries() {
    let mut rng = Rng::new(0xba11);
    for far in [DVec3::ZERO, DVec3::new(3.0e6, -2.5e6, 1.25e6)] {
        let judged = run(&mut rng, far);
        // Most offsets are outside the band: the answers were judged.
        assert!(judged >= 150, "{judged} pairs judged at {far}");
    }
}

#[test]
fn inner_radius_is_inside_every_face() {
    let mut rng = Rng::new(0x1a2b);
    for n in [4, 8, 12, 40, 100, 300] {
        for _ in 0..4 {
            let size = rng.range(0.01, 100.0);
            let shape = sphere_hull(&mut rng, n, size);
            let p = shape.polytope().expect("hull");
            let r = f64::from(p.inner_radius());
            let hull = reference(&shape, (Quat::IDENTITY, DVec3::ZERO));
            let depth = -hull.plane_dist(p.centroid().as_dvec3());
            assert!(
                r > 0.0 && r <= depth,
                "{n} points: inner radius {r} against {depth}"
            );
            // Not needlessly small either.
            assert!(
                r >= depth * (1.0 - 1e-6),
                "{n} points: inner radius {r} against {depth}"
            );
        }
    }
}
