//! Scaled mesh bodies in a world (issue 13: non-uniform scale of a mesh
//! collider, applied in the queries). Two worlds run the same motion: in
//! one, the meshes are built once at their own size and scaled per body
//! with `set_scale` (anisotropic, some mirrored, the scale changing over
//! time); in the other, each body's mesh is a copy whose vertices were
//! multiplied by that scale. Every frame, the two give the same events in
//! the same order, and at checked frames the touching mesh pairs equal all
//! triangle pairs of the scaled copies; rays, shape intersections and
//! shape casts agree too. Convex hulls, capsules and compounds of hulls
//! move among the meshes. Bad scales are refused with a clear error.

use crate::common;

use std::collections::BTreeSet;

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::geometry::tritri::triangles_intersect;
use bevy_icollide::math::{Aabb, Pose, PoseError, RigidMotion};
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, WorldConfig, WorldError};
use bevy_icollide::query::{Ray, ShapeCastOptions};
use bevy_icollide::testkit::{Rng, sphere_hull, torus};
use glam::{Quat, Vec3};

const N: usize = 36;

/// A body's shape in the scaled world and its scale over time.
struct Spec {
    shape: SharedShape,
    scale: Option<[Vec3; 2]>,
}

impl Spec {
    /// The scale at `frame` (it changes between two values every 50 frames).
    fn scale(&self, frame: u32) -> Vec3 {
        self.scale
            .map_or(Vec3::ONE, |s| s[(frame / 50 % 2) as usize])
    }
}

/// `mesh` with its vertices multiplied by `scale`.
fn scaled_copy(shape: &SharedShape, scale: Vec3) -> SharedShape {
    let m = shape.surface().expect("a mesh").mesh;
    let v = m.vertices().iter().map(|&p| p * scale).collect();
    SharedShape::trimesh(v, m.triangles().to_vec()).expect("scaled copy")
}

fn random_scale(rng: &mut Rng) -> Vec3 {
    let mut s = rng.vec(0.4, 2.2);
    if rng.below(4) == 0 {
        s.x = -s.x;
    }
    s
}

fn specs(rng: &mut Rng) -> Vec<Spec> {
    let (p, t) = torus(0.5, 0.15, 12, 8);
    let ring = SharedShape::trimesh(p, t).expect("torus");
    let hand = common::model("odedstein_hand_lowres.obj");
    let v = hand.vertices().iter().map(|&p| p * 4.0).collect();
    let hand = SharedShape::trimesh(v, hand.triangles().to_vec()).expect("hand");
    (0..N)
        .map(|i| match i % 5 {
            0 => Spec {
                shape: ring.clone(),
                scale: Some([random_scale(rng), random_scale(rng)]),
            },
            1 => Spec {
                shape: hand.clone(),
                scale: Some([random_scale(rng), random_scale(rng)]),
            },
            2 => Spec {
                shape: sphere_hull(rng, 16, 0.4),
                scale: None,
            },
            3 => Spec {
                shape: SharedShape::capsule(0.15, 0.5).expect("capsule"),
                scale: None,
            },
            // A compound: its pieces meet the scaled meshes piece by piece.
            _ => {
                let piece = |x: f32, rng: &mut Rng| CompoundPiece {
                    pose: Pose::new(rng.rotation(), Vec3::new(x, 0.0, 0.0)),
                    shape: sphere_hull(rng, 12, 0.25),
                };
                let pieces = vec![piece(-0.3, rng), piece(0.3, rng)];
                Spec {
                    shape: SharedShape::compound(pieces).expect("compound"),
                    scale: None,
                }
            }
        })
        .collect()
}

/// The world of scaled copies at `frame`'s scales.
fn copies(specs: &[Spec], frame: u32) -> Vec<SharedShape> {
    specs
        .iter()
        .map(|s| match s.scale {
            Some(_) => scaled_copy(&s.shape, s.scale(frame)),
            None => s.shape.clone(),
        })
        .collect()
}

/// Whether two meshes (scaled copies) at poses share a triangle pair: all
/// pairs, B mapped into A's frame as the narrow phase does (a pair whose
/// triangles' boxes are disjoint cannot intersect: the boxes are the exact
/// min / max of the same coordinates).
fn meshes_touch(a: &SharedShape, pa: &Pose, b: &SharedShape, pb: &Pose) -> bool {
    let (ma, mb) = (a.surface().unwrap().mesh, b.surface().unwrap().mesh);
    let rel = pa.inverse().mul(pb);
    let boxed = |t: [Vec3; 3]| (Aabb::from_points(t), t);
    let tb: Vec<(Aabb, [Vec3; 3])> = (0..mb.triangles().len())
        .map(|t| boxed(mb.triangle(t).map(|p| rel.transform_point(p))))
        .collect();
    let all_b = Aabb::from_points(tb.iter().flat_map(|(_, t)| *t));
    (0..ma.triangles().len()).any(|t| {
        let (bx, x) = boxed(ma.triangle(t));
        bx.overlaps(&all_b)
            && tb
                .iter()
                .any(|(by, y)| bx.overlaps(by) && triangles_intersect(x, *y))
    })
}

type Events = Vec<(u32, u32, bool)>;

fn step(world: &mut CollisionWorld) -> Events {
    world
        .step()
        .map(|e| (e.bodies[0].index(), e.bodies[1].index(), e.started))
        .collect()
}

struct Twins {
    scaled: CollisionWorld,
    copied: CollisionWorld,
    ids: Vec<BodyHandle>,
    copy_ids: Vec<BodyHandle>,
}

impl Twins {
    fn new(specs: &[Spec], ccd: bool) -> Self {
        let mut scaled = CollisionWorld::new(WorldConfig::default()).expect("config");
        let mut copied = CollisionWorld::new(WorldConfig::default()).expect("config");
        let desc = |shape| BodyDesc {
            ccd,
            ..BodyDesc::new(shape)
        };
        let ids = specs
            .iter()
            .map(|s| scaled.add_body(desc(s.shape.clone())))
            .collect();
        let copy_ids = copies(specs, 0)
            .into_iter()
            .map(|s| copied.add_body(desc(s)))
            .collect();
        Twins {
            scaled,
            copied,
            ids,
            copy_ids,
        }
    }

    /// Sets every pose and, on the frames they change, the scales.
    fn place(&mut self, specs: &[Spec], poses: &[Pose], frame: u32) {
        let new_scales = frame.is_multiple_of(50);
        let shapes = if new_scales {
            copies(specs, frame)
        } else {
            Vec::new()
        };
        for (i, spec) in specs.iter().enumerate() {
            if new_scales && spec.scale.is_some() {
                self.scaled
                    .set_scale(self.ids[i], spec.scale(frame))
                    .expect("a mesh scales");
                let mode = bevy_icollide::bounds::BoundsMode::DynamicBox;
                self.copied
                    .set_shape(self.copy_ids[i], shapes[i].clone(), mode)
                    .expect("live");
            }
            self.scaled.set_pose(self.ids[i], poses[i]).expect("pose");
            self.copied
                .set_pose(self.copy_ids[i], poses[i])
                .expect("pose");
        }
    }
}

/// One random pose per body, in a cube where they crowd each other.
fn random_poses(rng: &mut Rng) -> Vec<Pose> {
    (0..N)
        .map(|_| Pose::new(rng.rotation(), rng.in_cube(2.5)))
        .collect()
}

#[test]
fn scaled_mesh_bodies_behave_as_their_scaled_copies() {
    let mut rng = Rng::new(77);
    let specs = specs(&mut rng);
    let mut poses = random_poses(&mut rng);
    let vel: Vec<(Vec3, Quat)> = (0..N)
        .map(|_| {
            let turn = Quat::from_axis_angle(rng.unit_vector(), 0.05);
            (rng.unit_vector() * 0.03, turn)
        })
        .collect();
    let mut twins = Twins::new(&specs, false);
    let (mut events, mut checked, mut mesh_contacts) = (0, 0, 0);
    let mut touching: BTreeSet<(u32, u32)> = BTreeSet::new();
    for frame in 0..300u32 {
        for i in 0..N {
            let (v, w) = vel[i];
            let t = (poses[i].translation + v).clamp(Vec3::splat(-2.5), Vec3::splat(2.5));
            poses[i] = Pose::new((w * poses[i].rotation).normalize(), t);
        }
        twins.place(&specs, &poses, frame);
        let (a, b) = (step(&mut twins.scaled), step(&mut twins.copied));
        assert_eq!(a, b, "frame {frame}: events");
        events += a.len();
        for &(x, y, started) in &a {
            let key = (x.min(y), x.max(y));
            assert_eq!(started, touching.insert(key), "frame {frame}");
            if !started {
                touching.remove(&key);
            }
        }
        if frame.is_multiple_of(25) {
            // Mesh pairs against all triangle pairs of the scaled copies.
            let shapes = copies(&specs, frame);
            for i in 0..N {
                for j in i + 1..N {
                    if specs[i].scale.is_none() || specs[j].scale.is_none() {
                        continue;
                    }
                    let want = meshes_touch(&shapes[i], &poses[i], &shapes[j], &poses[j]);
                    let got = touching.contains(&(i as u32, j as u32));
                    assert_eq!(got, want, "frame {frame}: pair ({i}, {j})");
                    mesh_contacts += usize::from(want);
                    checked += 1;
                }
            }
            check_queries(&twins, &mut rng, frame);
        }
    }
    assert!(events > 100, "{events} events");
    assert!(
        mesh_contacts > 10 && checked > 1000,
        "{mesh_contacts} of {checked}"
    );
}

/// With continuous detection on every body (the meshes' swept boxes and
/// casts scaled): the same events as the copies, frame for frame.
#[test]
fn scaled_meshes_with_continuous_detection_behave_as_their_copies() {
    let mut rng = Rng::new(78);
    let specs = specs(&mut rng);
    let mut poses = random_poses(&mut rng);
    let mut twins = Twins::new(&specs, true);
    let mut events = 0;
    for frame in 0..100u32 {
        for p in poses.iter_mut() {
            // Jumps and turns large enough to pass through thin parts.
            let t = (p.translation + rng.in_cube(0.4)).clamp(Vec3::splat(-2.5), Vec3::splat(2.5));
            *p = Pose::new(
                (Quat::from_scaled_axis(rng.in_cube(0.3)) * p.rotation).normalize(),
                t,
            );
        }
        twins.place(&specs, &poses, frame);
        let (a, b) = (step(&mut twins.scaled), step(&mut twins.copied));
        assert_eq!(a, b, "frame {frame}: events");
        events += a.len();
    }
    assert!(events > 100, "{events} events");
}

/// Rays, shape intersections and shape casts: the same bodies, the same
/// hits.
fn check_queries(t: &Twins, rng: &mut Rng, frame: u32) {
    let filter = Default::default;
    let probe = SharedShape::capsule(0.1, 0.3).expect("capsule");
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for k in 0..40 {
        let origin = rng.unit_vector() * 4.0;
        let ray = Ray::new(origin, rng.in_cube(1.5) - origin);
        let (a, b) = (
            t.scaled.ray_cast(&ray, 2.0, filter()),
            t.copied.ray_cast(&ray, 2.0, filter()),
        );
        let key = |h: Option<bevy_icollide::pipeline::WorldRayHit>| {
            h.map(|h| (h.body.index(), h.triangle, h.toi))
        };
        assert_eq!(key(a), key(b), "frame {frame}, ray {k}");
        let at = Pose::new(rng.rotation(), rng.in_cube(2.5));
        t.scaled
            .intersect_shape(&probe, at, filter(), &mut x)
            .expect("valid");
        t.copied
            .intersect_shape(&probe, at, filter(), &mut y)
            .expect("valid");
        let idx = |v: &[BodyHandle]| v.iter().map(|h| h.index()).collect::<Vec<_>>();
        assert_eq!(idx(&x), idx(&y), "frame {frame}, probe {k}");
        let motion = RigidMotion::linear(Pose::new(at.rotation, origin), -origin);
        let opts = ShapeCastOptions::default();
        let ca = t
            .scaled
            .cast_shape(&probe, &motion, &opts, filter())
            .expect("valid");
        let cb = t
            .copied
            .cast_shape(&probe, &motion, &opts, filter())
            .expect("valid");
        match (ca, cb) {
            (Some(p), Some(q)) => {
                assert_eq!(p.body.index(), q.body.index(), "frame {frame}, cast {k}");
                let dt = (p.hit.time_of_impact - q.hit.time_of_impact).abs();
                assert!(dt < 1e-3, "frame {frame}, cast {k}: {p:?} {q:?}");
            }
            (p, q) => assert_eq!(p.is_none(), q.is_none(), "frame {frame}, cast {k}"),
        }
    }
}

#[test]
fn bad_scales_are_refused_with_a_clear_error() {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let (p, t) = torus(0.5, 0.15, 12, 8);
    let mesh = world.add_body(BodyDesc::new(SharedShape::trimesh(p, t).expect("torus")));
    let ball = world.add_body(BodyDesc::new(SharedShape::sphere(0.5).expect("sphere")));
    let err = world.set_scale(ball, Vec3::new(2.0, 1.0, 1.0)).unwrap_err();
    assert_eq!(err, WorldError::NotScalable("sphere"));
    assert!(err.to_string().contains("SharedShape::scaled"), "{err}");
    // Within the tolerance of 1, any shape is fine (and it is 1).
    world.set_scale(ball, Vec3::splat(1.0005)).expect("unit");
    assert_eq!(world.scale(ball), Ok(Vec3::ONE));
    for bad in [
        Vec3::new(f32::NAN, 1.0, 1.0),
        Vec3::new(1.0, f32::INFINITY, 1.0),
    ] {
        let err = world.set_scale(mesh, bad).unwrap_err();
        assert_eq!(err, WorldError::InvalidPose(PoseError::NonFinite));
    }
    let err = world.set_scale(mesh, Vec3::new(1.0, 0.0, 1.0)).unwrap_err();
    assert_eq!(err, WorldError::InvalidPose(PoseError::NonPositiveScale));
    assert_eq!(world.scale(mesh), Ok(Vec3::ONE), "unchanged after errors");
    let s = Vec3::new(-2.0, 0.5, 3.0);
    world
        .set_scale(mesh, s)
        .expect("a mesh scales, mirrored too");
    assert_eq!(world.scale(mesh), Ok(s));
}
