//! Shape casts and continuous detection against an independent `f64`
//! brute force (`testkit::cast`: motions, ball and polytope distances over
//! all features, Lipschitz stepping), at every speed and distance from the
//! origin the cast limits admit (`collider::limits`), refused beyond them.
//!
//! - Linear casts at `2·10⁰ … 2·10³⁷` per unit time, targets exactly on the
//!   path (spheres, cubes, hulls) and grazing (spheres, `2⁻¹⁰` of the reach
//!   inside or outside): a hit exactly when the path touches; at the
//!   reported (`f32`) time the exact distance is not below the target and
//!   at most target + tolerance + what the shapes move in one `f32` step.
//! - Casts `10³ … 1.7·10³⁸` from the origin, pairs `2·10¹⁹ … 10³⁸` apart:
//!   the same answers as near the origin; starts beyond
//!   `MAX_CAST_COORDINATE` and turns beyond `MAX_CAST_TURN` refused.
//! - Turning casts: a rod turning beside a ball `2·10⁻⁴` away, a cube
//!   spinning beside a cube it cannot reach (up to `MAX_CAST_TURN`): no
//!   hit; random turning casts of spheres, cubes, hulls: hits where brute
//!   force touches, never a hit farther than target + tolerance.
//! - The world's cast with bodies parked far away, and the plugin's.
//! - Continuous detection: a sphere jumping `10¹ … 2·10³⁰` per step past a
//!   row of 400 spheres starts a touch with exactly those its path
//!   touches, in the step it touches them; a rod turning `60 … 170°` per
//!   step starts and ends only what it touches.

use bevy_icollide::collider::SharedShape;
use bevy_icollide::collider::limits::{MAX_CAST_COORDINATE, MAX_CAST_TURN, MAX_POSITION};
use bevy_icollide::math::{Pose, RigidMotion, WorldPose};
use bevy_icollide::pipeline::{BodyDesc, BodyHandle, CollisionWorld, QueryFilter, WorldConfig};
use bevy_icollide::query::{
    CastStatus, QueryError, ShapeCastHit, ShapeCastOptions, cast_shapes, cast_shapes_nonlinear,
};
use bevy_icollide::testkit::{
    self, RefShape, Rng, first_within, lipschitz, motion_pose, signed_gap, sphere_hull,
};
use glam::{DVec3, Quat, Vec3};

/// A ball, a cube and a hull, each of size 1 (radius 0.5).
fn shapes(rng: &mut Rng) -> Vec<(&'static str, SharedShape)> {
    vec![
        ("sphere", SharedShape::sphere(0.5).expect("sphere")),
        ("cube", SharedShape::cuboid(Vec3::splat(0.5)).expect("cube")),
        ("hull", sphere_hull(rng, 24, 0.5)),
    ]
}

/// One of ±x, ±y, ±z and an axis orthogonal to it.
fn axes(rng: &mut Rng) -> (Vec3, Vec3) {
    let k = rng.below(3);
    let sign = if rng.bool() { 1.0 } else { -1.0 };
    let mut e = Vec3::ZERO;
    e[k] = sign;
    let mut f = Vec3::ZERO;
    f[(k + 1 + rng.below(2)) % 3] = 1.0;
    (e, f)
}

/// The exact distance of two shapes at time `t` of their motions, in a
/// frame moving with A's start translation.
fn gap_at(a: (&RefShape, &RigidMotion), b: (&RefShape, &RigidMotion), t: f64) -> f64 {
    let frame = (a.1.start.translation.as_dvec3(), a.1.linvel.as_dvec3());
    signed_gap(
        a.0,
        motion_pose(a.1, t, frame),
        b.0,
        motion_pose(b.1, t, frame),
    )
}

/// The distance the shapes may be apart at a hit at `t`: the target and
/// tolerance, plus what they move in one `f32` step of time (`speed`
/// bounds how fast the distance changes), plus the pair's rounding.
fn allowed(options: &ShapeCastOptions, speed: f64, t: f32) -> f64 {
    let step = (t.next_up() - t) as f64;
    (options.target_distance + options.tolerance) as f64 + 2.0 * speed * step + 1e-5
}

/// A hit checked against exact distances at its time: not past the target
/// (never after the first contact, for shapes approaching each other), at
/// most [`allowed`] apart, the reported distance that of two points of the
/// shapes (not below the exact one).
fn check_hit(
    (a, b): (&RefShape, &RefShape),
    (ma, mb): (&RigidMotion, &RigidMotion),
    options: &ShapeCastOptions,
    h: &ShapeCastHit,
    what: &str,
) {
    let speed = lipschitz((ma, a.radius()), (mb, b.radius()));
    let d = gap_at((a, ma), (b, mb), h.time_of_impact as f64);
    let target = options.target_distance as f64;
    assert!(d >= target - 1e-5, "{what}: past the contact, {d} at {h:?}");
    let most = allowed(options, speed, h.time_of_impact);
    assert!(d <= most, "{what}: {d} apart (> {most}) at {h:?}");
    assert!(
        h.distance as f64 >= d - 1e-5 * (1.0 + d),
        "{what}: {d} vs {h:?}"
    );
    assert!(h.distance as f64 <= most, "{what}: {h:?} (> {most})");
}

#[test]
fn linear_casts_hit_what_is_on_their_path_at_every_speed() {
    let mut rng = Rng::new(42);
    let kinds = shapes(&mut rng);
    let mut hits = 0;
    for k in 0..=37 {
        let speed = 2.0 * 10f32.powi(k);
        for trial in 0..6 * testkit::long_factor() {
            let (na, a) = &kinds[rng.below(3)];
            let (nb, b) = &kinds[rng.below(3)];
            let (e, f) = axes(&mut rng);
            let t0 = rng.usize(2, 15) as f32 / 16.0;
            let at = rng.in_cube(2.0);
            let lateral = e.cross(f) * rng.range(-0.25, 0.25) + f * rng.range(-0.25, 0.25);
            // 2 more along the path: apart at the start at any speed.
            let start = at + lateral - e * (t0 * speed + 2.0);
            let ma = RigidMotion::stationary(Pose::new(rng.rotation(), at));
            let mb = RigidMotion::linear(Pose::new(rng.rotation(), start), e * speed);
            let options = ShapeCastOptions {
                target_distance: if trial % 3 == 2 { 0.05 } else { 0.0 },
                max_time_of_impact: 2.0,
                ..ShapeCastOptions::default()
            };
            let what = format!("{na} / {nb} at {speed}, #{trial}");
            let h = cast_shapes_nonlinear((a, &ma), (b, &mb), &options)
                .expect("valid")
                .unwrap_or_else(|| panic!("{what}: missed a target on its path"));
            let (ra, rb) = (RefShape::of(a), RefShape::of(b));
            check_hit((&ra, &rb), (&ma, &mb), &options, &h, &what);
            let late = t0 + 2.0 / speed;
            assert!(
                !h.started_touching && h.time_of_impact <= late,
                "{what}: {h:?}"
            );
            hits += 1;
        }
    }
    assert!(hits >= 38 * 6);
}

#[test]
fn grazing_linear_casts_hit_only_inside_the_reach_at_every_speed() {
    let mut rng = Rng::new(43);
    let ball = SharedShape::sphere(0.5).expect("sphere");
    let reference = RefShape::of(&ball);
    for k in 0..=37 {
        let speed = 2.0 * 10f32.powi(k);
        for trial in 0..8 * testkit::long_factor() {
            let (e, f) = axes(&mut rng);
            let inside = trial % 2 == 0;
            let off = if inside {
                1.0 - 1.0 / 1024.0
            } else {
                1.0 + 1.0 / 1024.0
            };
            let t0 = rng.usize(2, 15) as f32 / 16.0;
            let start = f * off - e * (t0 * speed);
            let ma = RigidMotion::stationary(Pose::IDENTITY);
            let mb = RigidMotion::linear(Pose::from_translation(start), e * speed);
            let options = ShapeCastOptions::default();
            let h = cast_shapes_nonlinear((&ball, &ma), (&ball, &mb), &options).expect("valid");
            let what = format!("{speed}, #{trial} (inside {inside})");
            match (inside, h) {
                (true, Some(h)) => {
                    check_hit((&reference, &reference), (&ma, &mb), &options, &h, &what)
                }
                (false, None) => {}
                (_, h) => panic!("{what}: {h:?}"),
            }
        }
    }
}

/// A pair about `base` (both moving along with `drift`), B 4 away along
/// `f` coming at 4 per unit time: touching at 0.75 (cube and ball of
/// radius 0.5) or about.
fn far_pair(rng: &mut Rng, base: Vec3, f: Vec3, drift: Vec3) -> [RigidMotion; 2] {
    let ma = RigidMotion::linear(Pose::new(rng.rotation(), base), drift);
    let mb = RigidMotion::linear(Pose::new(rng.rotation(), base + 4.0 * f), drift - 4.0 * f);
    [ma, mb]
}

#[test]
fn casts_far_from_the_origin_answer_as_near_it() {
    let mut rng = Rng::new(44);
    let kinds = shapes(&mut rng);
    let options = ShapeCastOptions::default();
    let mut far = vec![0.0f32];
    far.extend(
        (3..=38)
            .map(|k| 10f32.powi(k))
            .filter(|&x| x <= MAX_CAST_COORDINATE),
    );
    far.push(MAX_CAST_COORDINATE);
    for x in far {
        for trial in 0..4 * testkit::long_factor() {
            let (na, a) = &kinds[rng.below(3)];
            let (nb, b) = &kinds[rng.below(3)];
            let (e, f) = axes(&mut rng);
            let drift = if trial % 2 == 1 { -e * x } else { Vec3::ZERO };
            let [ma, mb] = far_pair(&mut rng, e * x, f, drift);
            let what = format!("{na} / {nb} at {x}, #{trial}");
            let h = cast_shapes_nonlinear((a, &ma), (b, &mb), &options)
                .expect("within the limits")
                .unwrap_or_else(|| panic!("{what}: missed"));
            let (ra, rb) = (RefShape::of(a), RefShape::of(b));
            check_hit((&ra, &rb), (&ma, &mb), &options, &h, &what);
            assert!(
                h.time_of_impact > 0.4 && !h.started_touching,
                "{what}: {h:?}"
            );
        }
    }
}

#[test]
fn pairs_far_apart_are_apart_and_reached_only_at_speed() {
    let mut rng = Rng::new(45);
    let ball = SharedShape::sphere(0.5).expect("sphere");
    let r = RefShape::of(&ball);
    let options = ShapeCastOptions::default();
    for k in 19..=38 {
        let apart = 2.0 * 10f32.powi(k);
        if apart > MAX_CAST_COORDINATE {
            continue;
        }
        let (e, f) = axes(&mut rng);
        let ma = RigidMotion::stationary(Pose::IDENTITY);
        for v in [Vec3::ZERO, f, -e] {
            let mb = RigidMotion::linear(Pose::from_translation(e * apart), v);
            let h = cast_shapes_nonlinear((&ball, &ma), (&ball, &mb), &options).expect("valid");
            assert_eq!(h, None, "{apart} apart, moving at {v}");
        }
        let mb = RigidMotion::linear(Pose::from_translation(e * apart), -e * (2.0 * apart));
        let h = cast_shapes_nonlinear((&ball, &ma), (&ball, &mb), &options)
            .expect("valid")
            .unwrap_or_else(|| panic!("{apart}: missed"));
        check_hit((&r, &r), (&ma, &mb), &options, &h, &format!("{apart}"));
        assert!(h.time_of_impact <= 0.5 && h.time_of_impact > 0.49, "{h:?}");
    }
}

#[test]
fn casts_beyond_the_limits_are_refused() {
    let ball = SharedShape::sphere(0.5).expect("sphere");
    let options = ShapeCastOptions::default();
    let beyond = MAX_CAST_COORDINATE * 1.5;
    for at in [Vec3::X * beyond, Vec3::new(0.0, -beyond, 1.0)] {
        let r = cast_shapes(
            (&ball, &Pose::from_translation(at), Vec3::ZERO),
            (&ball, &Pose::IDENTITY, Vec3::X),
            &options,
        );
        assert!(matches!(r, Err(QueryError::InvalidCast(_))), "{at}: {r:?}");
    }
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    let other = RigidMotion::stationary(Pose::from_translation(Vec3::X * 3.0));
    for w in [1.01 * MAX_CAST_TURN, 1e6, 1e30] {
        let spin = RigidMotion {
            angvel: Vec3::Z * w,
            ..RigidMotion::stationary(Pose::IDENTITY)
        };
        let r = cast_shapes_nonlinear((&cube, &spin), (&cube, &other), &options);
        assert!(matches!(r, Err(QueryError::InvalidCast(_))), "{w}: {r:?}");
    }
}

/// A frame turning `z` into a random axis, at a random place.
fn random_frame(rng: &mut Rng) -> Pose {
    Pose::new(rng.rotation(), rng.in_cube(3.0))
}

/// The minimum over `[0, t]` of the exact distance, certified above
/// `level`: `true` when it never comes down to it.
fn never_within(
    a: (&RefShape, &RigidMotion),
    b: (&RefShape, &RigidMotion),
    t: f64,
    level: f64,
) -> bool {
    let l = lipschitz((a.1, a.0.radius()), (b.1, b.0.radius()));
    first_within(|s| gap_at(a, b, s), l, t, (level, 1e-9)).is_none()
}

#[test]
fn a_rod_turning_beside_a_ball_never_hits_it() {
    let mut rng = Rng::new(46);
    let rod = SharedShape::cuboid(Vec3::new(1.0, 0.05, 0.05)).expect("rod");
    let ball = SharedShape::sphere(0.2).expect("ball");
    let (rr, rb) = (RefShape::of(&rod), RefShape::of(&ball));
    let options = ShapeCastOptions::default();
    let tip = (1.0f32 + 0.05 * 0.05).sqrt();
    for trial in 0..24 * testkit::long_factor() {
        let frame = random_frame(&mut rng);
        let w = [1.0, 10.0, 60.0][trial % 3];
        let phi = rng.range(0.0, std::f32::consts::TAU);
        let (c, s) = (phi.cos(), phi.sin());
        // Above the plane the rod turns in, or beyond its corners' circle.
        let local = if trial % 2 == 0 {
            let rho = rng.range(0.1, 0.95);
            Vec3::new(rho * c, rho * s, 0.05 + 0.2 + 2e-4)
        } else {
            Vec3::new(c, s, 0.0) * (tip + 0.2 + 2e-4)
        };
        let turning = RigidMotion {
            angvel: frame.rotation * Vec3::Z * w,
            ..RigidMotion::stationary(frame)
        };
        let still = RigidMotion::stationary(Pose::from_translation(frame.transform_point(local)));
        let what = format!("#{trial}: {w} rad, ball at {local}");
        assert!(
            never_within((&rr, &turning), (&rb, &still), 1.0, 1.5e-4),
            "{what}: the reference touches"
        );
        let h = cast_shapes_nonlinear((&rod, &turning), (&ball, &still), &options).expect("valid");
        assert_eq!(h, None, "{what}");
    }
}

#[test]
fn a_cube_spinning_beside_a_cube_it_cannot_reach_never_hits_it() {
    let mut rng = Rng::new(47);
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    let options = ShapeCastOptions::default();
    let corner = 0.5f32 * std::f32::consts::SQRT_2;
    for (i, w) in [1.0, 10.0, 100.0, 1e3, 0.99 * MAX_CAST_TURN]
        .into_iter()
        .enumerate()
    {
        for gap in [0.35, 0.05, 1e-3] {
            let frame = random_frame(&mut rng);
            let spin = RigidMotion {
                angvel: frame.rotation * Vec3::Z * w,
                ..RigidMotion::stationary(frame)
            };
            let side = Vec3::new(corner + 0.5 + gap, 0.0, rng.range(-0.3, 0.3));
            let other = Pose::new(frame.rotation, frame.transform_point(side));
            let still = RigidMotion::stationary(other);
            let h = cast_shapes_nonlinear((&cube, &spin), (&cube, &still), &options);
            assert_eq!(h, Ok(None), "{w} rad per unit time, gap {gap}");
            if i < 2 {
                let r = RefShape::of(&cube);
                assert!(never_within(
                    (&r, &spin),
                    (&r, &still),
                    1.0,
                    gap as f64 * 0.9
                ));
            }
        }
    }
}

#[test]
fn random_turning_casts_agree_with_brute_force() {
    let mut rng = Rng::new(48);
    let kinds = shapes(&mut rng);
    let (mut hits, mut misses, mut unresolved) = (0, 0, 0);
    for trial in 0..60 * testkit::long_factor() {
        let (na, a) = &kinds[rng.below(3)];
        let (nb, b) = &kinds[rng.below(3)];
        let w = [2.0, 20.0, 200.0][trial % 3];
        let motion = |rng: &mut Rng, at: Vec3, v: Vec3| RigidMotion {
            start: Pose::new(rng.rotation(), at),
            local_center: rng.in_cube(0.3),
            linvel: v,
            angvel: rng.unit_vector() * rng.range(0.5, 1.0) * w,
        };
        let u = rng.unit_vector();
        let from = u * rng.range(1.2, 3.0);
        let aim = -from * rng.range(0.3, 1.5) + Vec3::new(0.0, rng.range(-1.0, 1.0), 0.0);
        let ma = motion(&mut rng, Vec3::ZERO, Vec3::ZERO);
        let mb = motion(&mut rng, from, aim);
        let options = ShapeCastOptions {
            target_distance: if trial % 4 == 3 { 0.05 } else { 0.0 },
            ..ShapeCastOptions::default()
        };
        let (ra, rb) = (RefShape::of(a), RefShape::of(b));
        let what = format!("{na} / {nb} #{trial}, {w} rad");
        let target = options.target_distance as f64;
        let l = lipschitz((&ma, ra.radius()), (&mb, rb.radius()));
        let gap = |t: f64| gap_at((&ra, &ma), (&rb, &mb), t);
        let first = first_within(gap, l, 1.0, (target - 1e-5, 1e-9));
        let h = cast_shapes_nonlinear((a, &ma), (b, &mb), &options).expect("valid");
        match h {
            Some(h) if h.status == CastStatus::OutOfIterations => {
                // Honest: no contact before the time, none reached.
                let d = gap(h.time_of_impact as f64);
                assert!(d > target + options.tolerance as f64, "{what}: {h:?}");
                assert!(first.is_none_or(|t| h.time_of_impact as f64 <= t), "{what}");
                unresolved += 1;
            }
            Some(h) if h.started_touching => {
                let most = target + options.tolerance as f64 + 1e-5;
                assert!(h.time_of_impact == 0.0 && gap(0.0) <= most, "{what}: {h:?}");
            }
            Some(h) => {
                check_hit((&ra, &rb), (&ma, &mb), &options, &h, &what);
                if let Some(t) = first {
                    assert!(
                        h.time_of_impact as f64 <= t + 1e-6,
                        "{what}: {h:?} after {t}"
                    );
                }
                hits += 1;
            }
            None => {
                assert_eq!(first, None, "{what}: missed the contact");
                misses += 1;
            }
        }
    }
    assert!(hits >= 10 && misses >= 10, "{hits} hits, {misses} misses");
    assert!(
        unresolved * 200 <= hits + misses,
        "{unresolved} out of steps"
    );
}

#[test]
fn the_worlds_cast_finds_the_cube_ahead_not_a_body_parked_far_away() {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let cube = SharedShape::cuboid(Vec3::splat(0.5)).expect("cube");
    let ball = SharedShape::sphere(0.5).expect("ball");
    let place = |world: &mut CollisionWorld, shape: &SharedShape, at: Vec3| {
        let id = world.add_body(BodyDesc::new(shape.clone()));
        world
            .set_pose(id, Pose::from_translation(at))
            .expect("pose");
        id
    };
    // World bodies stand within MAX_POSITION (2^50); beyond, `set_pose`
    // refuses them (a body at 2e38 was once returned at time 0).
    let refused = world.add_body(BodyDesc::new(ball.clone()));
    let r = world.set_pose(refused, Pose::from_translation(Vec3::X * 2e38));
    assert!(r.is_err(), "{r:?}");
    world.remove_body(refused).expect("live body");
    let near = MAX_POSITION * 0.5;
    let ahead = place(&mut world, &cube, Vec3::X * 4.0);
    let far_ahead = place(&mut world, &cube, Vec3::new(near, 4.0, 0.0));
    // Balls parked on both paths, ahead (reached by an endless cast, in
    // order) and behind (never).
    let mut reachable = [Vec::new(), Vec::new()];
    for parked in [0.75 * MAX_POSITION, -MAX_POSITION, MAX_POSITION] {
        let on_x = place(&mut world, &ball, Vec3::new(parked, 0.0, 0.0));
        let on_y = place(&mut world, &ball, Vec3::new(near, parked, 0.0));
        if parked > 0.0 {
            reachable[0].push(on_x);
            reachable[1].push(on_y);
        }
    }
    let _ = world.step().count();
    for (i, (from, dir, want)) in [
        (Vec3::ZERO, Vec3::X, ahead),
        (Vec3::new(near, 0.0, 0.0), Vec3::Y, far_ahead),
    ]
    .into_iter()
    .enumerate()
    {
        for max_time in [10.0, f32::MAX] {
            let motion = RigidMotion::linear(Pose::from_translation(from), dir);
            let options = ShapeCastOptions {
                max_time_of_impact: max_time,
                ..ShapeCastOptions::default()
            };
            let hit = world
                .cast_shape(&ball, &motion, &options, QueryFilter::ALL)
                .expect("within the limits")
                .expect("the cube ahead");
            assert_eq!(hit.body, want, "from {from}: {hit:?}");
            let t = hit.hit.time_of_impact;
            assert!(
                (t - 3.0).abs() <= 1e-4 && !hit.hit.started_touching,
                "{hit:?}"
            );
            let mut all = Vec::new();
            world
                .cast_shape_all(&ball, &motion, &options, QueryFilter::ALL, &mut all)
                .expect("valid");
            let bodies: Vec<BodyHandle> = all.iter().map(|h| h.body).collect();
            // Endless: on to the ball ahead on the path, never to those
            // behind or off it.
            let mut expect = vec![want];
            if max_time == f32::MAX {
                expect.extend(&reachable[i]);
            }
            assert_eq!(bodies, expect, "from {from}, up to {max_time}");
        }
    }
    let beyond = RigidMotion::linear(Pose::from_translation(Vec3::X * 2e38), -Vec3::X);
    let r = world.cast_shape(
        &ball,
        &beyond,
        &ShapeCastOptions::default(),
        QueryFilter::ALL,
    );
    assert!(matches!(r, Err(QueryError::InvalidCast(_))), "{r:?}");
}

#[test]
fn the_plugins_cast_finds_what_is_ahead_far_from_the_origin() {
    use bevy_app::prelude::*;
    use bevy_ecs::system::RunSystemOnce;
    use bevy_icollide::prelude::*;
    use bevy_transform::prelude::*;

    let mut app = App::new();
    app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()));
    let cube = Collider::cuboid(1.0, 1.0, 1.0);
    let mut spawn = |at: Vec3| {
        let t = Transform::from_translation(at);
        app.world_mut().spawn((cube.clone(), t)).id()
    };
    // As far as the world takes bodies (MAX_POSITION, 2^50).
    let far = MAX_POSITION;
    let ahead = spawn(Vec3::new(far, 4.0, 0.0));
    let parked = spawn(Vec3::new(0.0, 0.0, far));
    app.update();
    let hits = app
        .world_mut()
        .run_system_once(move |q: SpatialQuery| {
            let ball = Collider::sphere(0.5);
            let config = ShapeCastConfig::default();
            let cast = |from: Vec3, dir: Vec3| {
                q.cast_shape(
                    &ball,
                    (from, Quat::IDENTITY),
                    dir,
                    &config,
                    &SpatialQueryFilter::default(),
                )
            };
            [
                cast(Vec3::new(far, 0.0, 0.0), Vec3::Y),
                cast(Vec3::ZERO, Vec3::Z),
                cast(Vec3::new(MAX_CAST_COORDINATE * 1.5, 0.0, 0.0), Vec3::Y),
            ]
        })
        .expect("system runs");
    let hit = hits[0].as_ref().expect("the cube ahead");
    assert_eq!(hit.entity, ahead);
    assert!((hit.distance - 3.0).abs() <= 1e-4, "{hit:?}");
    // From the origin to a cube 2^50 away: where it is, to f32's precision.
    let hit = hits[1].as_ref().expect("the cube 2^50 away");
    assert_eq!(hit.entity, parked);
    assert!((hit.distance / far - 1.0).abs() <= 1e-6, "{hit:?}");
    assert!(
        hits[2].is_none(),
        "beyond the limit: refused, {:?}",
        hits[2]
    );
}

/// The balls a path touches, with the mover's diagonal coordinate where
/// it first touches each; the mover's coordinate at each step; the starts
/// reported, with their step.
type RowRun = (Vec<(BodyHandle, f64)>, Vec<f32>, Vec<(BodyHandle, usize)>);

/// Continuous detection of a ball jumping `jump` per step along the
/// diagonal `(s, s, 0)` (both coordinates the same `f32`: exactly on it)
/// past a row of 400 balls off it by up to 1.3 (never within `2⁻¹²` of the
/// reach 1, beyond the tolerance): the step each start is reported in, by
/// body. The whole scene is placed at `offset` through `f64` poses
/// (`tests/core/large_world.rs` runs it far from the origin).
pub(crate) fn row_starts(rng: &mut Rng, jump: f32, offset: DVec3) -> RowRun {
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let ball = SharedShape::sphere(0.5).expect("ball");
    let mut row = Vec::new();
    for i in 0..400 {
        let (off, d) = loop {
            let off = Vec3::new(
                rng.range(-0.9, 0.9),
                rng.range(-0.9, 0.9),
                rng.range(-1.0, 1.0),
            );
            let (across, up) = ((off.x - off.y) as f64 / 2f64.sqrt(), off.z as f64);
            let d = across.hypot(up);
            if (d - 1.0).abs() > 1.0 / 4096.0 {
                break (off, d);
            }
        };
        let mut desc = BodyDesc::new(ball.clone());
        desc.is_static = true;
        let id = world.add_body(desc);
        let at = Vec3::new(3.0, 3.0, 0.0) * i as f32 + off;
        place(&mut world, id, at, offset);
        // At (s, s, 0) the mover is sqrt(2 (s − s_c)² + d²) from it.
        if d < 1.0 {
            let s_c = (at.x as f64 + at.y as f64) / 2.0;
            row.push((id, s_c - ((1.0 - d * d) / 2.0).sqrt()));
        }
    }
    let mut desc = BodyDesc::new(ball);
    desc.ccd = true;
    let mover = world.add_body(desc);
    let x0 = -0.37 * jump - 2.0;
    let steps = ((1205.0 - x0) / jump).ceil() as usize + 1;
    let (mut xs, mut starts) = (Vec::new(), Vec::new());
    for k in 0..=steps {
        let x = x0 + k as f32 * jump;
        xs.push(x);
        place(&mut world, mover, Vec3::new(x, x, 0.0), offset);
        for e in world.step().filter(|e| e.started) {
            let other = if e.bodies[0] == mover {
                e.bodies[1]
            } else {
                e.bodies[0]
            };
            starts.push((other, k));
        }
    }
    (row, xs, starts)
}

/// A body at `at + offset`, the sum in `f64`.
fn place(world: &mut CollisionWorld, id: BodyHandle, at: Vec3, offset: DVec3) {
    let pose = WorldPose::new(Quat::IDENTITY, at.as_dvec3() + offset);
    world.set_pose_f64(id, pose).expect("pose");
}

#[test]
fn a_fast_sphere_starts_a_touch_with_every_sphere_it_passes() {
    let mut rng = Rng::new(49);
    // Up to jumps the world's positions admit (MAX_POSITION, 2^50).
    for jump in [1e1f32, 1e4, 1e6, 1e10, 1e13] {
        let (row, xs, mut starts) = row_starts(&mut rng, jump, DVec3::ZERO);
        let mut want: Vec<(BodyHandle, usize)> = row
            .iter()
            .map(|&(id, touch)| {
                let k = xs.iter().position(|&x| x as f64 >= touch).expect("passed");
                (id, k)
            })
            .collect();
        starts.sort();
        want.sort();
        assert!(want.len() > 100, "{} touched", want.len());
        let missed = want.iter().filter(|w| !starts.contains(w)).count();
        assert_eq!(starts, want, "jumping {jump} per step: {missed} missed");
    }
}

/// The touches the reference is sure of and those it allows, of a rod
/// turning from `from` to `to` about its center past `balls`.
fn rod_reference(
    (rod, from, to): (&RefShape, Quat, Quat),
    balls: &[(BodyHandle, Vec3)],
    tolerance: f64,
) -> (Vec<BodyHandle>, Vec<BodyHandle>) {
    let (q0, q1) = (to_d(from), to_d(to));
    let mut turn = q1 * q0.inverse();
    if turn.w < 0.0 {
        turn = -turn;
    }
    let (axis, angle) = turn.to_axis_angle();
    let pose = |s: f64| {
        (
            (glam::DQuat::from_axis_angle(axis, angle * s) * q0).normalize(),
            DVec3::ZERO,
        )
    };
    let ball = RefShape::Ball(0.2);
    let (mut sure, mut allowed) = (Vec::new(), Vec::new());
    for &(id, at) in balls {
        let gap = |s: f64| signed_gap(rod, pose(s), &ball, (glam::DQuat::IDENTITY, at.as_dvec3()));
        let l = angle * rod.radius();
        let (start, end) = (gap(0.0), gap(1.0));
        let through = |level: f64| first_within(gap, l, 1.0, (level, 1e-9)).is_some();
        if end < -1e-5 || (start > tolerance + 1e-5 && through(-1e-5)) {
            sure.push(id);
        }
        if end <= 1e-5 || (start > -1e-5 && through(tolerance + 1e-5)) {
            allowed.push(id);
        }
    }
    (sure, allowed)
}

fn to_d(q: Quat) -> glam::DQuat {
    bevy_icollide::testkit::to_dquat(q)
}

#[test]
fn a_rod_turning_fast_with_continuous_detection_starts_only_what_it_touches() {
    let mut rng = Rng::new(50);
    let rod_shape = SharedShape::cuboid(Vec3::new(1.0, 0.05, 0.05)).expect("rod");
    let rod = RefShape::of(&rod_shape);
    let tip = (1.0f32 + 0.05 * 0.05).sqrt();
    let (mut swept, mut near) = (0, 0);
    for trial in 0..3 * testkit::long_factor() {
        let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
        let frame = Quat::from_axis_angle(rng.unit_vector(), rng.range(0.0, 3.0));
        let mut balls = Vec::new();
        for i in 0..24 {
            let phi = rng.range(0.0, std::f32::consts::TAU);
            let (c, s) = (phi.cos(), phi.sin());
            let local = match i % 3 {
                0 => Vec3::new(c, s, 0.0) * rng.range(0.3, 1.0),
                1 => Vec3::new(c, s, 0.0) * (tip + 0.2 + 2e-4),
                _ => Vec3::new(c * 0.6, s * 0.6, 0.05 + 0.2 + 2e-4),
            };
            let at = frame * local;
            let mut desc = BodyDesc::new(SharedShape::sphere(0.2).expect("ball"));
            desc.is_static = true;
            let id = world.add_body(desc);
            world
                .set_pose(id, Pose::from_translation(at))
                .expect("pose");
            balls.push((id, at));
        }
        let mut desc = BodyDesc::new(rod_shape.clone());
        desc.ccd = true;
        let rod_id = world.add_body(desc);
        let mut angle = rng.range(0.0, 6.0);
        let mut rotation = frame * Quat::from_rotation_z(angle);
        world
            .set_pose(rod_id, Pose::new(rotation, Vec3::ZERO))
            .expect("pose");
        let mut touching: Vec<BodyHandle> = world
            .step()
            .map(|e| {
                if e.bodies[0] == rod_id {
                    e.bodies[1]
                } else {
                    e.bodies[0]
                }
            })
            .collect();
        for step in 0..16 {
            angle += rng.range(60.0, 170.0).to_radians();
            let next = (frame * Quat::from_rotation_z(angle)).normalize();
            world
                .set_pose(rod_id, Pose::new(next, Vec3::ZERO))
                .expect("pose");
            for e in world.step() {
                let other = if e.bodies[0] == rod_id {
                    e.bodies[1]
                } else {
                    e.bodies[0]
                };
                if e.started {
                    touching.push(other);
                } else {
                    touching.retain(|&b| b != other);
                }
            }
            let (sure, allowed) = rod_reference((&rod, rotation, next), &balls, 1e-4);
            for b in &sure {
                assert!(touching.contains(b), "#{trial} step {step}: missed {b:?}");
            }
            for b in &touching {
                assert!(
                    allowed.contains(b),
                    "#{trial} step {step}: false touch {b:?}"
                );
            }
            swept += sure.len();
            near += balls.len() - allowed.len();
            rotation = next;
        }
    }
    assert!(
        swept >= 50 && near >= 200,
        "{swept} touches, {near} near misses"
    );
}
