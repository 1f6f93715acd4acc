//! Boolean hull pairs in contact over many frames, where the pair's cached
//! tetrahedron (`query::warm_tetra`) answers most frames without GJK,
//! against the `f64` separating-axis test: pairs drawn in shallow to
//! medium contact (centroids between the inner and the outer balls'
//! reach, so the balls decide few of them), turning a few degrees and
//! sliding in and out of contact, near the origin, 10⁵ and 3·10⁹ away,
//! through the world's boolean narrow phase. Pairs the reference finds
//! within GJK's touching tolerance are not judged.

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::WorldPose;
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig};
use bevy_icollide::testkit::{Poly, Rng, long_factor, sat, sphere_hull};
use glam::{DVec3, Quat};

/// Within this fraction of the size of touching, the pair is not judged.
const BAND: f64 = 4e-6;

struct Pair {
    shapes: [SharedShape; 2],
    bodies: [BodyHandle; 2],
    at: [(Quat, DVec3); 2],
    spin: [Quat; 2],
    slide: DVec3,
}

fn reference(shape: &SharedShape, (q, t): (Quat, DVec3)) -> Poly {
    let hull = shape.hull().expect("hull");
    Poly::at(
        hull.vertices(),
        hull.triangles(),
        (q.as_dquat().normalize(), t),
    )
}

fn place(world: &mut CollisionWorld, h: BodyHandle, (q, t): (Quat, DVec3)) {
    let pose = WorldPose {
        rotation: q,
        translation: t,
    };
    world.set_pose_f64(h, pose).expect("pose");
}

/// `count` pairs at `far` over `frames` frames; returns (judged, touching
/// judged) pair-frames. Prints the split with `--nocapture`.
fn run(rng: &mut Rng, far: DVec3, count: usize, frames: usize) -> (usize, usize) {
    let config = WorldConfig {
        penetration: false,
        ..Default::default()
    };
    let mut world = CollisionWorld::new(config).expect("config");
    let mut pairs = Vec::new();
    for i in 0..count {
        let sizes = [rng.range(0.5, 2.0), rng.range(0.5, 2.0)];
        let points = [[12, 40, 100][i % 3], [40, 12, 40][i % 3]];
        let shapes = [0, 1].map(|k| sphere_hull(rng, points[k], sizes[k]));
        // Centroids about 1.6 to 1.9 radii apart (both near the origin
        // of their frames): contact, mostly shallower than the inner balls.
        let gap = f64::from(sizes[0] + sizes[1]) * f64::from(rng.range(0.8, 0.95));
        let slot = far + DVec3::new(16.0 * i as f64, 0.0, 0.0);
        let dir = rng.unit_vector().as_dvec3();
        let at = [(rng.rotation(), slot), (rng.rotation(), slot + dir * gap)];
        let bodies = [0, 1].map(|k| world.add_body(BodyDesc::new(shapes[k].clone())));
        let spin = [0, 1]
            .map(|_| Quat::from_axis_angle(rng.unit_vector(), rng.range(1.0, 6.0).to_radians()));
        let slide = rng.unit_vector().as_dvec3() * f64::from(rng.range(0.0, 0.04));
        pairs.push(Pair {
            shapes,
            bodies,
            at,
            spin,
            slide,
        });
    }
    let (mut judged, mut touching) = (0, 0);
    for frame in 0..frames {
        for p in &mut pairs {
            if frame > 0 {
                p.at[0].0 = (p.spin[0] * p.at[0].0).normalize();
                p.at[1].0 = (p.spin[1] * p.at[1].0).normalize();
                // In and out of contact: the slide turns back every 4 frames.
                let back = if (frame / 4) % 2 == 0 { 1.0 } else { -1.0 };
                p.at[1].1 += p.slide * back;
            }
            for k in 0..2 {
                place(&mut world, p.bodies[k], p.at[k]);
            }
        }
        let _ = world.step();
        for (i, p) in pairs.iter().enumerate() {
            let overlap = sat(
                &reference(&p.shapes[0], p.at[0]),
                &reference(&p.shapes[1], p.at[1]),
            )
            .0;
            if overlap.abs() <= BAND * 4.0 {
                continue;
            }
            let reported = world
                .pair(p.bodies[0], p.bodies[1])
                .is_some_and(|r| r.result.touching);
            judged += 1;
            touching += usize::from(overlap > 0.0);
            assert_eq!(
                reported,
                overlap > 0.0,
                "pair {i}, frame {frame}, at {far}: f64 overlap {overlap:e}"
            );
        }
    }
    println!("at {far}: {judged} judged, {touching} touching");
    (judged, touching)
}

#[test]
fn pairs_in_contact_over_frames_agree_with_sat() {
    let mut rng = Rng::new(0x7e7a_0001);
    let frames = 12 * long_factor();
    for far in [
        DVec3::ZERO,
        DVec3::new(1e5, -1e5, 1e5),
        DVec3::new(3e9, 2e9, -3e9),
    ] {
        let (judged, touching) = run(&mut rng, far, 24, frames);
        // Most pair-frames are judged, many of them in contact and many
        // apart.
        assert!(judged >= 24 * frames * 3 / 4, "{judged} judged at {far}");
        assert!(touching * 4 >= judged, "{touching} of {judged} at {far}");
        assert!(
            (judged - touching) * 10 >= judged,
            "{touching} of {judged} at {far}"
        );
    }
}
