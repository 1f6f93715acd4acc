//! `big_space` grids (feature `big_space`): colliders placed by a grid cell
//! and a cell-local `Transform` collide 10⁹ m out as the same scene does
//! at the origin without `big_space`.
//!
//! - `cell_placed_colliders_give_the_origin_events`: 16 colliders (boxes,
//!   spheres, capsules, cylinders) move and turn for 60 frames around the
//!   corner of four cells (edge 10 km) 10⁹ m from the origin, crossing
//!   from cell to cell; two boxes meet face to face exactly on a cell
//!   boundary, one in each cell. Under `big_space`'s own plugins
//!   (recentring, propagation, a floating origin) the `CollisionStart` /
//!   `CollisionEnd` sequence equals the origin scene's (plain `Transform`,
//!   Bevy's `TransformPlugin`). Positions are multiples of 2⁻⁸ so that the
//!   far scene is exactly the origin scene moved.
//! - `nested_grids_and_f64_queries`: a collider in a turned grid placed in
//!   a cell of the root grid gets the composed `f64` position; an `f64`
//!   ray cast from 10⁹ m hits it at the `f64` point, which `point_in_grid`
//!   turns back into a cell; a collider in a cell past the world's limit
//!   (`2⁵⁰ m`) is refused (warned, no pose), not placed wrong.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::system::SystemState;
use bevy_icollide::plugin::{Collisions, SpatialQuery, SpatialQueryFilter, point_in_grid};
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use big_space::plugin::BigSpaceMinimalPlugins;
use big_space::prelude::{BigSpace, CellCoord, FloatingOrigin, Grid};
use glam::{DVec3, Quat, Vec3};

/// The cells' edge (m).
const EDGE: f32 = 10_000.0;
/// The cell whose centre is `10⁹ m` along each axis.
const FAR: i64 = 100_000;
/// The scene's origin in the far run: the corner of four cells.
const CORNER: DVec3 = DVec3::new(1e9 + 5_000.0, 1e9 + 5_000.0, 1e9);
const FRAMES: usize = 60;
const BODIES: usize = 16;

/// The spawn index of a collider, to compare the runs' events.
#[derive(Component, Clone, Copy)]
struct Index(usize);

/// The frame number, counted in `First`.
#[derive(Resource, Default)]
struct Frame(usize);

/// `(frame, started, lower index, higher index)` for every message.
#[derive(Resource, Default)]
struct Log(Vec<(usize, bool, usize, usize)>);

/// A multiple of 2⁻⁸ (exact at the origin and 10⁹ m out).
fn q8(x: f32) -> f32 {
    (x * 256.0).round() / 256.0
}

fn shape(i: usize) -> Collider {
    match i % 4 {
        _ if i < 2 => Collider::cuboid(2.0, 2.0, 2.0),
        0 => Collider::cuboid(1.5, 1.0, 2.5),
        1 => Collider::sphere(1.0),
        2 => Collider::capsule(0.5, 2.0),
        _ => Collider::cylinder(0.75, 1.5),
    }
}

/// Body `i`'s pose at `frame`, relative to the scene's origin. Bodies 0
/// and 1 are unit-rotation boxes of side 2 face to face on the plane
/// x = 0 (a cell boundary in the far run) until frame 30, then body 1
/// leaves; the others cross the corner on lines through it, turning.
fn pose(i: usize, frame: usize) -> (Vec3, Quat) {
    let f = frame as f32;
    match i {
        0 => (Vec3::new(-1.0, 0.5, 0.0), Quat::IDENTITY),
        1 => {
            let away = if frame < 30 { 0.0 } else { 0.25 * (f - 29.0) };
            (Vec3::new(1.0 + away, 0.5, 0.0), Quat::IDENTITY)
        }
        _ => {
            let a = i as f32 * 0.7;
            let (s, c) = a.sin_cos();
            let start = Vec3::new(q8(9.0 * c), q8(9.0 * s), q8(1.5 * ((i % 3) as f32 - 1.0)));
            let step = Vec3::new(q8(-0.3 * c), q8(-0.3 * s), 0.0);
            let spin = Quat::from_rotation_y(0.03 * f * i as f32) * Quat::from_rotation_x(0.4);
            (start + step * f, spin)
        }
    }
}

/// The cell and cell-local offset of the far point `CORNER + p`, in the
/// root grid (exact: `p` is a multiple of 2⁻⁸).
fn in_cell(p: Vec3) -> (CellCoord, Vec3) {
    let w = CORNER + p.as_dvec3();
    let cell = (w / f64::from(EDGE)).round();
    let local = w - cell * f64::from(EDGE);
    let c = CellCoord::new(cell.x as i64, cell.y as i64, cell.z as i64);
    (c, local.as_vec3())
}

fn count(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

fn record(
    frame: Res<Frame>,
    index: Query<&Index>,
    mut log: ResMut<Log>,
    mut s: MessageReader<CollisionStart>,
    mut e: MessageReader<CollisionEnd>,
) {
    let idx = |a: Entity, b: Entity| {
        let (a, b) = (
            index.get(a).expect("indexed").0,
            index.get(b).expect("indexed").0,
        );
        (a.min(b), a.max(b))
    };
    let mut now: Vec<_> = s
        .read()
        .map(|m| (true, idx(m.collider1, m.collider2)))
        .collect();
    now.extend(e.read().map(|m| (false, idx(m.collider1, m.collider2))));
    now.sort_unstable();
    log.0
        .extend(now.into_iter().map(|(st, (a, b))| (frame.0, st, a, b)));
}

fn move_origin(frame: Res<Frame>, mut bodies: Query<(&Index, &mut Transform)>) {
    for (i, mut t) in &mut bodies {
        let (p, q) = pose(i.0, frame.0);
        *t = Transform::from_translation(p).with_rotation(q);
    }
}

fn move_far(frame: Res<Frame>, mut bodies: Query<(&Index, &mut Transform, &mut CellCoord)>) {
    for (i, mut t, mut cell) in &mut bodies {
        let (p, q) = pose(i.0, frame.0);
        let (c, local) = in_cell(p);
        *cell = c;
        *t = Transform::from_translation(local).with_rotation(q);
    }
}

fn base_app() -> App {
    let mut app = App::new();
    app.init_resource::<Frame>()
        .init_resource::<Log>()
        .add_systems(First, count)
        .add_systems(Last, record);
    app
}

/// The scene at the origin: plain transforms, Bevy's transform plugin.
fn origin_run() -> Vec<(usize, bool, usize, usize)> {
    let mut app = base_app();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default().with_messages_for_all_pairs(),
    ))
    .add_systems(Update, move_origin);
    for i in 0..BODIES {
        let (p, q) = pose(i, 0);
        let t = Transform::from_translation(p).with_rotation(q);
        app.world_mut().spawn((shape(i), t, Index(i)));
    }
    run(app)
}

/// The scene around `CORNER`, every collider in its cell of the root grid.
fn far_run() -> Vec<(usize, bool, usize, usize)> {
    let mut app = base_app();
    app.add_plugins((
        BigSpaceMinimalPlugins,
        CollisionPlugin::default().with_messages_for_all_pairs(),
    ))
    .add_systems(Update, move_far);
    let world = app.world_mut();
    let root = world
        .spawn((BigSpace::default(), Grid::new(EDGE, 0.0)))
        .id();
    let origin_cell = CellCoord::new(FAR, FAR, FAR);
    world.spawn((
        FloatingOrigin,
        origin_cell,
        Transform::default(),
        ChildOf(root),
    ));
    for i in 0..BODIES {
        let (p, q) = pose(i, 0);
        let (cell, local) = in_cell(p);
        let t = Transform::from_translation(local).with_rotation(q);
        world.spawn((shape(i), cell, t, ChildOf(root), Index(i)));
    }
    run(app)
}

fn run(mut app: App) -> Vec<(usize, bool, usize, usize)> {
    for _ in 0..FRAMES {
        app.update();
    }
    std::mem::take(&mut app.world_mut().resource_mut::<Log>().0)
}

#[test]
fn cell_placed_colliders_give_the_origin_events() {
    // The scene crosses cells: bodies 0 and 1 in neighbouring cells.
    let cells: Vec<CellCoord> = (0..BODIES).map(|i| in_cell(pose(i, 0).0).0).collect();
    assert_ne!(cells[0], cells[1]);
    let moved = (2..BODIES).any(|i| in_cell(pose(i, 0).0).0 != in_cell(pose(i, FRAMES).0).0);
    assert!(moved, "no body changes cell");

    let origin = origin_run();
    let far = far_run();
    // The boundary pair starts touching and ends when body 1 leaves.
    assert!(origin.contains(&(1, true, 0, 1)), "{origin:?}");
    assert!(
        origin
            .iter()
            .any(|&(f, s, a, b)| f >= 30 && !s && (a, b) == (0, 1))
    );
    let others = origin.iter().filter(|e| (e.2, e.3) != (0, 1)).count();
    assert!(others >= 10, "too few events to compare: {origin:?}");
    assert_eq!(
        far, origin,
        "the far scene's events differ from the origin's"
    );
}

#[test]
fn nested_grids_and_f64_queries() {
    let mut app = App::new();
    app.add_plugins((BigSpaceMinimalPlugins, CollisionPlugin::default()));
    let world = app.world_mut();
    let root = world
        .spawn((BigSpace::default(), Grid::new(EDGE, 0.0)))
        .id();
    let far = CellCoord::new(FAR, 0, 0);
    world.spawn((FloatingOrigin, far, Transform::default(), ChildOf(root)));
    // A grid of 100 m cells in root cell (FAR, 0, 0), turned 90° about z.
    let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let sub = (Grid::new(100.0, 0.0), far, Transform::from_rotation(turn));
    let sub = world.spawn((sub, ChildOf(root))).id();
    let local = Transform::from_xyz(2.0, 0.0, 0.0);
    let body = (
        Collider::sphere(1.0),
        CellCoord::new(1, 0, 0),
        local,
        ChildOf(sub),
    );
    let body = world.spawn(body).id();
    // A cell past the world's limit (2^50 m): refused, never placed.
    let past = CellCoord::new(1 << 40, 0, 0);
    let lost = (
        Collider::sphere(1.0),
        past,
        Transform::default(),
        ChildOf(root),
    );
    let lost = world.spawn(lost).id();
    app.update();

    let mut params = SystemState::<(Collisions, SpatialQuery)>::new(app.world_mut());
    let (collisions, query) = params.get(app.world()).expect("valid params");
    let handle = collisions.body(body).expect("a body");
    let placed = collisions.world().pose_f64(handle).expect("posed");
    // 102 m along the sub-grid's x, which is the root's y.
    let want = DVec3::new(FAR as f64 * f64::from(EDGE), 102.0, 0.0);
    assert!((placed.translation - want).length() < 1e-5, "{placed:?}");
    let lost = collisions.body(lost).expect("a body");
    assert_eq!(collisions.world().pose_f64(lost), None, "past the limit");

    // A ray from 10 m below it, in f64.
    let from = want - DVec3::new(0.0, 10.0, 0.0);
    let hit = query.cast_ray_f64(from, Vec3::Y, 100.0, &SpatialQueryFilter::default());
    let hit = hit.expect("hit");
    assert_eq!(hit.hit.entity, body);
    assert!((hit.point - (want - DVec3::Y)).length() < 1e-4, "{hit:?}");
    let (cell, offset) = point_in_grid(&Grid::new(EDGE, 0.0), hit.point);
    assert_eq!(cell, CellCoord::new(FAR, 0, 0));
    assert!((offset - Vec3::new(0.0, 101.0, 0.0)).length() < 1e-4);
    // A small sphere touching it, placed in f64.
    let intersecting = query.shape_intersections_f64(
        &Collider::sphere(0.5),
        want + DVec3::new(0.0, 1.25, 0.0),
        Quat::IDENTITY,
        &SpatialQueryFilter::default(),
    );
    assert_eq!(intersecting, vec![body]);
}
