//! The broad phase far from the origin never misses a pair: unit cubes
//! face to face across each axis, overlapping (by up to half a cube) or
//! apart by gaps at `f32`'s resolution of their coordinate (`2⁻²⁴`
//! relative, and twice that) and finer (`2⁻¹⁶` m, over the touch
//! tolerance of `2·10⁻⁶` of the size), at the origin, 10⁶ and 10⁹ m. Every position is an exact `f64` value and
//! every gap an exact `f32` offset, so the exact answer is the sign of the
//! gap: the pairs the world reports touching are exactly those with a gap
//! of at most 0 (brute force over the scene's pairs: the cubes are
//! axis-aligned). Each pair's shared face lies halfway between two `f32`
//! values, where rounding the two translations to `f32` parts the cubes'
//! boxes by a whole `f32` step unless they are rounded outward and padded.

use std::collections::BTreeSet;

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::WorldPose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use glam::{DVec3, Quat, Vec3};

/// The cubes' centres, by user data.
fn scene(d: f64) -> Vec<DVec3> {
    let offset = DVec3::new(d, -d, 0.5 * d);
    // f32's step at the coordinate's magnitude: 2^-24 of it, rounded down
    // to a power of two (at least 2^-16, over the touch tolerance).
    let u = (d.max(256.0).log2().floor() - 24.0).exp2();
    let fine = 2f64.powi(-16);
    // Overlaps up to half the cube, gaps up to twice f32's step.
    let gaps = [-0.5, -0.25, -fine, 0.0, fine, u, 2.0 * u];
    let mut centres = Vec::new();
    for (k, &gap) in gaps.iter().enumerate() {
        for axis in 0..3 {
            // Each pair 256 m from the others (beyond every gap's reach).
            // The shared face on a midpoint of f32's grid there: the two
            // cubes' translations round to f32 on either side of it.
            let at = offset + DVec3::new(256.0 * k as f64, 256.0 * axis as f64, 0.0);
            let snap = |c: f64| (c / (2.0 * u)).round() * (2.0 * u) + u - 0.5;
            let at = DVec3::new(snap(at.x), snap(at.y), snap(at.z));
            let lateral = DVec3::splat(0.25).with_x(0.0);
            let across = DVec3::X * (1.0 + gap) + lateral;
            let r = |v: DVec3| DVec3::new(v[axis], v[(axis + 1) % 3], v[(axis + 2) % 3]);
            centres.extend([at, at + r(across)]);
        }
    }
    centres
}

/// Whether two unit cubes (axis-aligned) at these centres touch, exactly.
fn cubes_touch(a: DVec3, b: DVec3) -> bool {
    (b - a).abs().max_element() <= 1.0
}

#[test]
fn far_face_contacts_match_the_exact_gaps() {
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    for d in [0.0, 1e6, 1e9] {
        let centres = scene(d);
        let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
        for (i, &c) in centres.iter().enumerate() {
            let mut desc = BodyDesc::new(cube.clone());
            desc.user_data = i as u64;
            let id = world.add_body(desc);
            world
                .set_pose_f64(id, WorldPose::new(Quat::IDENTITY, c))
                .expect("pose");
        }
        let mut want = BTreeSet::new();
        for i in 0..centres.len() {
            for j in i + 1..centres.len() {
                if cubes_touch(centres[i], centres[j]) {
                    want.insert((i as u64, j as u64));
                }
            }
        }
        let started: Vec<_> = world
            .step()
            .filter(|e| e.started)
            .map(|e| e.bodies)
            .collect();
        let data = |h| world.user_data(h).expect("live");
        let got: BTreeSet<(u64, u64)> = started
            .into_iter()
            .map(|[a, b]| (data(a).min(data(b)), data(a).max(data(b))))
            .collect();
        assert_eq!(want.len(), 12, "4 gaps of at most 0, 3 axes");
        assert_eq!(got, want, "at {d:e} m");
    }
}
