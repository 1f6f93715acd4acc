//! Shape casts against a world, against brute force: on seeded scenes of
//! hulls, spheres, capsules, tori, flat quads and compounds (some static,
//! several layers), moved for a few frames and left mid-frame, every-hit
//! casts equal the one-shot cast on every body that passes the filter (the
//! same bodies, the same times bit for bit, sorted by time then handle),
//! and the first-hit cast is the earliest of them (ties to the smaller
//! handle); translating and spinning shapes. Then `SpatialQuery` from an
//! app.

use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::pipeline::{
    BodyDesc, BodyHandle, CollisionWorld, Layers, QueryFilter, WorldConfig,
};
use bevy_icollide::query::{ShapeCastOptions, cast_shapes_nonlinear};
use bevy_icollide::testkit::{Rng, sphere_hull, torus};
use glam::{Quat, Vec3};

const HALF: f32 = 8.0;

fn shapes(rng: &mut Rng) -> Vec<SharedShape> {
    let (v, t) = torus(0.8, 0.25, 12, 8);
    let ring = SharedShape::trimesh(v, t).expect("torus");
    let quad = SharedShape::trimesh(
        vec![
            Vec3::new(-2.0, 0.0, -2.0),
            Vec3::new(2.0, 0.0, -2.0),
            Vec3::new(2.0, 0.0, 2.0),
            Vec3::new(-2.0, 0.0, 2.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )
    .expect("quad");
    let pieces = vec![
        CompoundPiece {
            pose: Pose::from_translation(Vec3::X * -0.4),
            shape: sphere_hull(rng, 12, 0.4),
        },
        CompoundPiece {
            pose: Pose::new(rng.rotation(), Vec3::X * 0.4),
            shape: SharedShape::capsule(0.2, 0.6).expect("capsule"),
        },
    ];
    vec![
        sphere_hull(rng, 20, 0.7),
        SharedShape::sphere(0.5).expect("sphere"),
        SharedShape::capsule(0.3, 1.0).expect("capsule"),
        ring,
        quad,
        SharedShape::compound(pieces).expect("compound"),
        SharedShape::cuboid(Vec3::new(0.6, 0.3, 0.9)).expect("cuboid"),
    ]
}

fn scene(rng: &mut Rng, kinds: &[SharedShape], n: usize) -> (CollisionWorld, Vec<BodyHandle>) {
    let mut world = CollisionWorld::new(WorldConfig {
        margin: 0.02,
        ..Default::default()
    })
    .expect("config");
    let mut ids = Vec::new();
    for _ in 0..n {
        let mut desc = BodyDesc::new(kinds[rng.below(kinds.len())].clone());
        desc.is_static = rng.below(5) == 0;
        desc.layers = Layers {
            memberships: 1 << rng.below(3),
            ..Default::default()
        };
        let id = world.add_body(desc);
        world
            .set_pose(id, Pose::new(rng.rotation(), rng.in_cube(HALF)))
            .expect("pose");
        ids.push(id);
    }
    for frame in 0..3 {
        let _ = world.step();
        for _ in 0..n / 4 {
            let id = ids[rng.below(n)];
            let p = world.pose(id).expect("posed");
            let moved = Pose::new(p.rotation, p.translation + rng.in_cube(0.5));
            world.set_pose(id, moved).expect("pose");
        }
        if frame == 2 {
            // Left mid-frame: some bodies moved since the last bounds update.
            world.update_bounds();
        }
    }
    (world, ids)
}

fn motion(rng: &mut Rng, spin: bool) -> RigidMotion {
    let mut m = RigidMotion::linear(
        Pose::new(rng.rotation(), rng.in_cube(HALF)),
        rng.unit_vector() * rng.range(1.0, 2.0 * HALF),
    );
    if spin {
        m.angvel = rng.unit_vector() * rng.range(0.5, 3.0);
        m.local_center = rng.in_cube(0.3);
    }
    m
}

#[test]
fn world_casts_equal_casting_at_every_body() {
    let mut rng = Rng::new(11);
    let kinds = shapes(&mut rng);
    let (world, ids) = scene(&mut rng, &kinds, 150);
    let options = ShapeCastOptions::default();
    let (mut all, mut hits_seen, mut exclude) = (Vec::new(), 0, Vec::new());
    for i in 0..150 {
        let shape = &kinds[rng.below(kinds.len())];
        let m = motion(&mut rng, i % 3 == 2);
        let mask = if rng.below(3) == 0 {
            1 << rng.below(3)
        } else {
            u32::MAX
        };
        exclude.clear();
        if rng.below(4) == 0 {
            exclude.push(ids[rng.below(ids.len())]);
        }
        let filter = QueryFilter::from_mask(mask).with_exclude(&exclude);
        let mut want = Vec::new();
        for &id in &ids {
            let seen =
                world.layers(id).expect("live").memberships & mask != 0 && !exclude.contains(&id);
            let body = world.shape(id).expect("live");
            let still = RigidMotion::stationary(world.pose(id).expect("posed"));
            let hit = cast_shapes_nonlinear((shape, &m), (body, &still), &options).expect("valid");
            if let (true, Some(h)) = (seen, hit) {
                want.push((h.time_of_impact, id));
            }
        }
        want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        world
            .cast_shape_all(shape, &m, &options, filter, &mut all)
            .expect("valid");
        let got: Vec<(f32, BodyHandle)> =
            all.iter().map(|h| (h.hit.time_of_impact, h.body)).collect();
        assert_eq!(got, want, "cast {i}");
        let first = world
            .cast_shape(shape, &m, &options, filter)
            .expect("valid");
        assert_eq!(
            first.map(|h| (h.hit.time_of_impact, h.body)),
            want.first().copied(),
            "cast {i}"
        );
        hits_seen += want.len();
    }
    assert!(
        hits_seen >= 100,
        "only {hits_seen} hits: the scene is too sparse to test"
    );
}

#[test]
fn spatial_query_casts_shapes_from_a_system() {
    use bevy_app::prelude::*;
    use bevy_ecs::prelude::*;
    use bevy_icollide::prelude::*;
    use bevy_transform::prelude::*;

    #[derive(Resource, Default)]
    struct Seen(Vec<(Entity, f32, Option<u32>)>);

    let mut app = App::new();
    app.add_plugins((bevy_transform::TransformPlugin, CollisionPlugin::default()))
        .init_resource::<Seen>()
        .add_systems(Update, |q: SpatialQuery, mut seen: ResMut<Seen>| {
            let ball = Collider::sphere(0.5);
            let config = ShapeCastConfig::from_max_distance(20.0);
            let from = (Vec3::new(-10.0, 0.0, 0.0), Quat::IDENTITY);
            let filter = SpatialQueryFilter::default();
            seen.0 = q
                .shape_hits(&ball, from, Vec3::X, 10, &config, &filter)
                .iter()
                .map(|h| (h.entity, h.distance, h.triangle))
                .collect();
            let first = q.cast_shape(&ball, from, Vec3::X, &config, &filter);
            assert_eq!(first.map(|h| h.entity), seen.0.first().map(|s| s.0));
        });
    let wall = app
        .world_mut()
        .spawn((
            Collider::cuboid(1.0, 6.0, 6.0),
            Transform::from_xyz(0.0, 0.0, 0.0),
        ))
        .id();
    let floor = Collider::trimesh(
        vec![
            Vec3::new(4.0, -3.0, -3.0),
            Vec3::new(4.0, 3.0, -3.0),
            Vec3::new(4.0, 0.0, 3.0),
        ],
        vec![[0, 1, 2]],
    )
    .expect("one triangle");
    let sheet = app.world_mut().spawn((floor, Transform::default())).id();
    app.update();
    app.update();
    let seen = &app.world().resource::<Seen>().0;
    assert_eq!(seen.len(), 2, "{seen:?}");
    // The ball's front reaches the wall's face at x = -0.5 after 9 units,
    // the sheet at x = 4 after 13.5.
    assert_eq!(seen[0].0, wall);
    assert!(
        (seen[0].1 - 9.0).abs() < 1e-3 && seen[0].2.is_none(),
        "{seen:?}"
    );
    assert_eq!(seen[1].0, sheet);
    assert!(
        (seen[1].1 - 13.5).abs() < 1e-3 && seen[1].2 == Some(0),
        "{seen:?}"
    );
}

#[test]
fn casts_see_a_deformed_mesh_where_it_is_now() {
    let (v, t) = torus(1.0, 0.3, 16, 10);
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("config");
    let cloth = world.add_body(BodyDesc::new(
        SharedShape::trimesh(v.clone(), t.clone()).expect("torus"),
    ));
    world.set_pose(cloth, Pose::IDENTITY).expect("pose");
    let _ = world.step();
    // Stretch it: twice as wide and 3 units up, then cast where it is now.
    let moved: Vec<Vec3> = v
        .iter()
        .map(|p| Vec3::new(2.0 * p.x, p.y + 3.0, 2.0 * p.z))
        .collect();
    world.set_vertices(cloth, &moved).expect("same count");
    let _ = world.step();
    let now = SharedShape::trimesh(moved, t).expect("moved torus");
    let ball = SharedShape::sphere(0.25).expect("ball");
    let options = ShapeCastOptions {
        max_time_of_impact: 20.0,
        ..Default::default()
    };
    let mut rng = Rng::new(12);
    let mut hits = 0;
    for i in 0..200 {
        let from = rng.in_cube(6.0);
        let target = Vec3::new(0.0, 3.0, 0.0) + rng.in_cube(2.5);
        let m = RigidMotion::linear(
            Pose::from_translation(from),
            (target - from).normalize_or_zero() * rng.range(0.5, 2.0),
        );
        let got = world
            .cast_shape(&ball, &m, &options, QueryFilter::ALL)
            .expect("valid");
        let still = RigidMotion::stationary(Pose::IDENTITY);
        let want = cast_shapes_nonlinear((&ball, &m), (&now, &still), &options).expect("valid");
        assert_eq!(
            got.map(|h| h.hit.time_of_impact),
            want.map(|h| h.time_of_impact),
            "cast {i}"
        );
        hits += usize::from(want.is_some());
    }
    assert!((40..=190).contains(&hits), "{hits} hits of 200");
}
