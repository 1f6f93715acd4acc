//! Shape casts onto height fields against an independent reference: the
//! terrain's own triangles (`Terrain::triangles`, the documented vertex
//! formula and split), each a separate `SharedShape::triangle`, measured
//! with `query::distance` at a fine time stepping of the motion (no field
//! code involved). A hit at `t` must have the shapes within the tolerance
//! of a terrain triangle at `t` (never early), and apart from every
//! triangle at each step before `t` (never late by more than a step); a
//! miss must be apart at every step. Seeded random terrains with holes,
//! spheres, capsules, hulls, cylinders and cuboids from above at grazing
//! to steep angles, some turning; a cast down through a hole misses.

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{self, ShapeCastOptions};
use bevy_icollide::shape::Feature;
use bevy_icollide::testkit::{Rng, long_factor, sphere_hull};
use glam::{Quat, Vec3};

use crate::exact_heightfield::Terrain;

/// Time steps of the reference over the cast.
const STEPS: usize = 48;

/// The terrain's triangles (world) near the box `[lo, hi]`, as shapes.
fn near_triangles(t: &Terrain, pf: &Pose, (lo, hi): (Vec3, Vec3)) -> Vec<(u32, SharedShape)> {
    let mut out = Vec::new();
    for (id, tri) in t.triangles() {
        let w = tri.map(|v| pf.transform_point(v));
        let (tmin, tmax) = (w[0].min(w[1]).min(w[2]), w[0].max(w[1]).max(w[2]));
        if tmin.cmple(hi).all() && tmax.cmpge(lo).all() {
            let s = SharedShape::triangle(w[0], w[1], w[2]).expect("terrain triangle");
            out.push((id, s));
        }
    }
    out
}

/// The reference distance at `pose` to the nearby triangles, and the
/// nearest one.
fn separation(s: &SharedShape, pose: &Pose, tris: &[(u32, SharedShape)]) -> (f32, u32) {
    tris.iter()
        .map(|(id, t)| {
            (
                query::distance(s, pose, t, &Pose::IDENTITY).expect("distance"),
                *id,
            )
        })
        .fold(
            (f32::INFINITY, u32::MAX),
            |a, b| if b.0 < a.0 { b } else { a },
        )
}

/// Casts `s` under `motion` onto the terrain and checks it against the
/// reference; whether it hit.
fn check_cast(s: &SharedShape, motion: &RigidMotion, t: &Terrain, pf: &Pose) -> bool {
    let field = t.shape();
    let options = ShapeCastOptions::default();
    let still = RigidMotion::stationary(*pf);
    let hit = query::cast_shapes_nonlinear((s, motion), (&field, &still), &options)
        .expect("a stationary field is cast");
    let flipped = query::cast_shapes_nonlinear((&field, &still), (s, motion), &options)
        .expect("the field as side A");
    // The same contact, to the tolerance (each is within it; the pair
    // frame follows side A).
    match (hit, flipped) {
        (Some(h), Some(f)) => {
            assert_eq!(h.features, [f.features[1], f.features[0]]);
            assert!(
                (h.time_of_impact - f.time_of_impact).abs() <= 1e-4,
                "{h:?} {f:?}"
            );
            assert!(h.normal.dot(f.normal) < -0.999, "{h:?} {f:?}");
        }
        (h, f) => assert_eq!(h.is_some(), f.is_some(), "the field as side A"),
    }
    let r = s.local_aabb().reach() + 0.1;
    let ends = [motion.pose_at(0.0), motion.pose_at(1.0)].map(|p| p.translation);
    let tris = near_triangles(t, pf, (ends[0].min(ends[1]) - r, ends[0].max(ends[1]) + r));
    let end = hit.map_or(1.0, |h| h.time_of_impact);
    for k in 0..STEPS {
        let time = end * k as f32 / STEPS as f32;
        let (d, _) = separation(s, &motion.pose_at(time), &tris);
        assert!(d > 0.0, "touching at {time} before the reported {end}");
    }
    let Some(h) = hit else {
        return false;
    };
    let (d, _) = separation(s, &motion.pose_at(h.time_of_impact), &tris);
    let slack = 1e-5 * (1.0 + ends[0].abs().max_element());
    assert!(d <= options.tolerance + slack, "{d} apart at the hit {h:?}");
    let Feature::Face(id) = h.features[1] else {
        panic!("field feature {:?}", h.features[1]);
    };
    let on = tris.iter().find(|x| x.0 == id).expect("a terrain triangle");
    let pose = motion.pose_at(h.time_of_impact);
    let dt = query::distance(s, &pose, &on.1, &Pose::IDENTITY).expect("distance");
    assert!(dt <= options.tolerance + slack, "triangle {id} {dt} away");
    true
}

/// A random shape of about `size`: sphere, capsule, hull, cylinder, cuboid.
fn any_shape(rng: &mut Rng, size: f32) -> SharedShape {
    match rng.below(5) {
        0 => SharedShape::sphere(size * rng.range(0.3, 1.0)).expect("sphere"),
        1 => SharedShape::capsule(size * rng.range(0.2, 0.5), size * rng.range(0.2, 1.0))
            .expect("capsule"),
        2 => sphere_hull(rng, 24, size),
        3 => SharedShape::cylinder(size * rng.range(0.3, 1.0), size * rng.range(0.3, 1.5))
            .expect("cylinder"),
        _ => SharedShape::cuboid(rng.vec(0.3, 1.0) * size).expect("cuboid"),
    }
}

/// A start above the terrain and a velocity down at an angle from
/// `min_deg` (grazing) to 80 degrees below the horizontal.
fn from_above(rng: &mut Rng, pf: &Pose, min_deg: f32) -> (Pose, Vec3) {
    let rot = Quat::from_euler(glam::EulerRot::XYZ, rng.f32() * 6.0, rng.f32() * 6.0, 0.0);
    let start = pf.transform_point(Vec3::new(rng.range(-3.0, 3.0), 2.2, rng.range(-3.0, 3.0)));
    let (tilt, yaw) = (rng.range(min_deg, 80.0).to_radians(), rng.range(0.0, 6.3));
    let dir = Vec3::new(tilt.cos() * yaw.cos(), -tilt.sin(), tilt.cos() * yaw.sin());
    (Pose::new(rot, start), dir * rng.range(3.0, 8.0))
}

fn terrain_and_pose(rng: &mut Rng) -> (Terrain, Pose) {
    let t = Terrain::random(rng, (12, 12), Vec3::new(8.0, 2.0, 8.0), 0.1);
    let yaw = Quat::from_rotation_y(rng.range(0.0, 6.3));
    (t, Pose::new(yaw, rng.vec(-2.0, 2.0)))
}

#[test]
fn linear_casts_onto_terrains_with_holes() {
    let mut rng = Rng::new(4101);
    let mut hits = 0;
    let runs = 40 * long_factor();
    for _ in 0..runs {
        let (t, pf) = terrain_and_pose(&mut rng);
        let s = any_shape(&mut rng, 0.5);
        let (pose, vel) = from_above(&mut rng, &pf, 3.0);
        hits += usize::from(check_cast(&s, &RigidMotion::linear(pose, vel), &t, &pf));
    }
    assert!(hits > runs / 2 && hits < runs, "{hits} hits of {runs}");
}

#[test]
fn turning_casts_onto_terrains() {
    let mut rng = Rng::new(4102);
    let mut hits = 0;
    let runs = 12 * long_factor();
    for _ in 0..runs {
        let (t, pf) = terrain_and_pose(&mut rng);
        let s = any_shape(&mut rng, 0.5);
        let (pose, vel) = from_above(&mut rng, &pf, 10.0);
        let mut motion = RigidMotion::linear(pose, vel);
        motion.angvel = rng.vec(-3.0, 3.0);
        hits += usize::from(check_cast(&s, &motion, &t, &pf));
    }
    assert!(hits > runs / 2, "{hits} hits of {runs}");
}

#[test]
fn a_cast_down_through_a_hole_misses() {
    let mut t = Terrain::random(&mut Rng::new(4103), (9, 9), Vec3::new(8.0, 1.0, 8.0), 0.0);
    let cell = 4 * 8 + 4;
    t.holes[cell] = true;
    let ball = SharedShape::sphere(0.2).expect("ball");
    let c = (t.vertex(4, 4) + t.vertex(5, 5)) * 0.5;
    let start = Pose::from_translation(Vec3::new(c.x, 3.0, c.z));
    let down = RigidMotion::linear(start, Vec3::new(0.0, -6.0, 0.0));
    assert!(
        !check_cast(&ball, &down, &t, &Pose::IDENTITY),
        "through the hole"
    );
    t.holes[cell] = false;
    assert!(
        check_cast(&ball, &down, &t, &Pose::IDENTITY),
        "onto the cell"
    );
}

/// A capsule walks a height field under gravity with `move_and_slide`:
/// never into it (the independent triangle reference after every slide,
/// the exact intersection test along its path), and on it most steps.
#[test]
fn a_capsule_slides_over_a_height_field_never_under_it() {
    use bevy_icollide::character::{SlideOptions, Slider};
    use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, QueryFilter};
    let t = Terrain::random(
        &mut Rng::new(4104),
        (24, 24),
        Vec3::new(16.0, 1.5, 16.0),
        0.0,
    );
    let field = t.shape();
    let mut world = CollisionWorld::default();
    let mut desc = BodyDesc::new(field.clone());
    desc.is_static = true;
    let h = world.add_body(desc);
    world.set_pose(h, Pose::IDENTITY).expect("pose");
    let _ = world.step();
    let capsule = SharedShape::capsule(0.3, 0.6).expect("capsule");
    let skin = 0.01;
    let mut slider = Slider::new(SlideOptions {
        skin,
        ..Default::default()
    });
    let mut pose = Pose::from_translation(Vec3::new(-6.0, 2.5, -6.0));
    let (steps, mut on_ground) = (300, 0);
    for i in 0..steps {
        let motion = Vec3::new(0.04, -0.05, 0.03);
        let out = slider
            .move_and_slide(&world, (&capsule, pose), motion, QueryFilter::ALL, |_| true)
            .expect("slide");
        let p = out.pose.translation;
        let tris = near_triangles(&t, &Pose::IDENTITY, (p - 1.0, p + 1.0));
        let (gap, _) = separation(&capsule, &out.pose, &tris);
        assert!(gap > skin / 8.0, "step {i}: gap {gap} at {p}");
        on_ground += usize::from(gap <= 2.0 * skin);
        for w in slider.path().windows(2) {
            for k in 0..=8 {
                let at = Pose::new(pose.rotation, w[0].lerp(w[1], k as f32 / 8.0));
                let hit = query::intersects(&capsule, &at, &field, &Pose::IDENTITY);
                assert!(!hit.expect("intersects"), "step {i}: path into the field");
            }
        }
        pose = out.pose;
    }
    let p = pose.translation;
    assert!(p.x > -6.0 + 0.5 * 0.04 * steps as f32, "walked to {p}");
    assert!(
        on_ground > steps / 2,
        "on the ground {on_ground} of {steps}"
    );
}
