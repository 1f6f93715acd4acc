//! A world mixing convex polytopes and triangle meshes, moving for hundreds
//! of frames: after each checked frame, the touching pairs equal brute force
//! — the separating-axis test for convex pairs, all triangle pairs of the
//! two surfaces (a convex shape's hull triangles) for pairs with a mesh,
//! and a mesh vertex inside a convex shape (solids contain).

use crate::common;

use std::collections::BTreeSet;

use bevy_icollide::bvh::mapped_triangle;
use bevy_icollide::collider::SharedShape;
use bevy_icollide::geometry::tritri::triangles_intersect;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::testkit::{Poly, Rng, sphere_hull, torus, triangles_inside};
use glam::{Quat, Vec3};

/// All triangle pairs of the two surfaces, B mapped into A's frame as the
/// narrow phase does.
fn surfaces_touch(a: &SharedShape, pa: &Pose, b: &SharedShape, pb: &Pose) -> bool {
    let (ma, mb) = (
        a.surface().expect("surface").mesh,
        b.surface().expect("surface").mesh,
    );
    let rel = pa.inverse().mul(pb);
    let tb: Vec<[Vec3; 3]> = (0..mb.triangles().len() as u32)
        .map(|t| mapped_triangle(mb, t, &rel))
        .collect();
    let cross = (0..ma.triangles().len())
        .any(|t| tb.iter().any(|u| triangles_intersect(ma.triangle(t), *u)));
    // Solids contain: a mesh wholly inside a convex shape touches it.
    let inside = |c: &SharedShape, pc: &Pose, m: &SharedShape, pm: &Pose| {
        c.polytope().is_some()
            && m.polytope().is_none()
            && !triangles_inside(&Poly::of(c, pc), m.surface().expect("surface").mesh, pm)
                .is_empty()
    };
    cross || inside(a, pa, b, pb) || inside(b, pb, a, pa)
}

#[test]
fn mixed_convex_and_mesh_world_matches_brute_force() {
    let mut rng = Rng::new(31);
    let (p, t) = torus(0.5, 0.15, 12, 8);
    let ring = SharedShape::trimesh(p, t).expect("torus");
    let shapes: Vec<SharedShape> = (0..40)
        .map(|i| {
            if i % 3 == 0 {
                ring.clone()
            } else {
                sphere_hull(&mut rng, 16, 0.4)
            }
        })
        .collect();
    let mut poses: Vec<Pose> = (0..40)
        .map(|_| Pose::new(rng.rotation(), rng.in_cube(2.0)))
        .collect();
    let vel: Vec<(Vec3, Quat)> = (0..40)
        .map(|_| {
            (
                rng.unit_vector() * 0.02,
                Quat::from_axis_angle(rng.unit_vector(), 0.05),
            )
        })
        .collect();
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let ids: Vec<_> = shapes
        .iter()
        .map(|s| world.add_body(BodyDesc::new(s.clone())))
        .collect();
    let mut touching: BTreeSet<(usize, usize)> = BTreeSet::new();
    let (mut checked, mut mesh_contacts) = (0, 0);
    for frame in 0..400u32 {
        for i in 0..40 {
            let (v, w) = vel[i];
            let t = (poses[i].translation + v).clamp(Vec3::splat(-2.0), Vec3::splat(2.0));
            poses[i] = Pose::new((w * poses[i].rotation).normalize(), t);
            world.set_pose(ids[i], poses[i]).expect("valid pose");
        }
        for ev in world.step() {
            let (a, b) = (ev.bodies[0].index(), ev.bodies[1].index());
            let key = (a.min(b) as usize, a.max(b) as usize);
            if ev.started {
                assert!(touching.insert(key));
            } else {
                assert!(touching.remove(&key));
            }
        }
        if !frame.is_multiple_of(8) {
            continue;
        }
        // World boxes of the surfaces: disjoint boxes cannot touch.
        let boxes: Vec<bevy_icollide::math::Aabb> = (0..40)
            .map(|i| {
                let m = shapes[i].surface().expect("surface").mesh;
                bevy_icollide::math::Aabb::from_points(
                    m.vertices().iter().map(|v| poses[i].transform_point(*v)),
                )
            })
            .collect();
        for i in 0..40 {
            for j in i + 1..40 {
                let (a, b) = (&shapes[i], &shapes[j]);
                let want = if !boxes[i].padded(1e-4).overlaps(&boxes[j]) {
                    false
                } else if a.polytope().is_some() && b.polytope().is_some() {
                    let ba = common::Body {
                        shape: a.clone(),
                        pose: poses[i],
                    };
                    let bb = common::Body {
                        shape: b.clone(),
                        pose: poses[j],
                    };
                    let sep = common::sat_separation(&ba, &bb);
                    if sep.abs() <= 1e-5 {
                        continue;
                    }
                    sep < 0.0
                } else {
                    let w = surfaces_touch(a, &poses[i], b, &poses[j]);
                    mesh_contacts += usize::from(w);
                    w
                };
                checked += 1;
                assert_eq!(
                    touching.contains(&(i, j)),
                    want,
                    "frame {frame}: pair ({i}, {j})"
                );
            }
        }
    }
    assert!(
        checked > 10_000 && mesh_contacts > 20,
        "{checked} checks, {mesh_contacts} mesh contacts"
    );
}
