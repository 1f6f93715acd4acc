//! Static colliders edited by the user after they were placed: moved
//! (their own `Transform`, or a parent's), reshaped, given other layers,
//! spawned late, among many that stay still. The plugin looks for changes
//! to static colliders in a query of their own (the moving colliders'
//! queries skip their archetypes): every such edit must still reach the
//! world, with the events a moving collider's edit would give.

use bevy_app::prelude::*;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;

use crate::event_log::{Ev, Log, app_with_log};

fn app() -> App {
    app_with_log()
}

/// One update; the events it gave, each pair smaller entity first.
fn step(app: &mut App) -> Vec<Ev> {
    app.update();
    let mut got = std::mem::take(&mut app.world_mut().resource_mut::<Log>().0);
    for ev in &mut got {
        let (Ev::Start(a, b) | Ev::End(a, b)) = ev;
        if *a > *b {
            std::mem::swap(a, b);
        }
    }
    got
}

fn start(a: Entity, b: Entity) -> Ev {
    Ev::Start(a.min(b), a.max(b))
}

fn end(a: Entity, b: Entity) -> Ev {
    Ev::End(a.min(b), a.max(b))
}

fn cube(side: f32) -> Collider {
    Collider::cuboid(side, side, side)
}

fn at(x: f32) -> Transform {
    Transform::from_xyz(x, 0.0, 0.0)
}

fn set_x(app: &mut App, e: Entity, x: f32) {
    app.world_mut()
        .get_mut::<Transform>(e)
        .expect("transform")
        .translation
        .x = x;
}

/// Many still static colliders in a row along z (none near x = 0), and
/// one moving collider at `x`.
fn scene(app: &mut App, statics: usize, x: f32) -> (Vec<Entity>, Entity) {
    let w = app.world_mut();
    let row = (0..statics)
        .map(|i| {
            let t = Transform::from_xyz(100.0, 0.0, 2.0 * i as f32);
            w.spawn((cube(1.0), t, StaticCollider)).id()
        })
        .collect();
    (row, w.spawn((cube(1.0), at(x))).id())
}

#[test]
fn a_static_collider_moved_by_its_transform_starts_and_ends_pairs() {
    let mut app = app();
    let (row, mover) = scene(&mut app, 300, 0.0);
    assert_eq!(step(&mut app), vec![]);
    // One deep in the row, moved onto the mover, then away again.
    let s = row[211];
    app.world_mut()
        .get_mut::<Transform>(s)
        .expect("t")
        .translation = glam::Vec3::new(0.9, 0.0, 0.0);
    assert_eq!(step(&mut app), vec![start(s, mover)]);
    assert_eq!(step(&mut app), vec![], "still: no event");
    set_x(&mut app, s, 1.2);
    assert_eq!(step(&mut app), vec![end(s, mover)]);
    // Onto another static collider: static pairs never form.
    app.world_mut()
        .get_mut::<Transform>(s)
        .expect("t")
        .translation = glam::Vec3::new(100.0, 0.0, 2.0 * 17.0 + 0.5);
    assert_eq!(step(&mut app), vec![]);
}

#[test]
fn a_static_collider_moved_by_its_parent_starts_and_ends_pairs() {
    let mut app = app();
    let (_, mover) = scene(&mut app, 50, 0.0);
    let parent = app.world_mut().spawn(at(5.0)).id();
    let s = app
        .world_mut()
        .spawn((cube(1.0), at(1.0), StaticCollider, ChildOf(parent)))
        .id();
    assert_eq!(step(&mut app), vec![]);
    // Only the parent's transform changes: the child's global one follows.
    set_x(&mut app, parent, -0.5);
    assert_eq!(step(&mut app), vec![start(s, mover)]);
    set_x(&mut app, parent, 5.0);
    assert_eq!(step(&mut app), vec![end(s, mover)]);
}

#[test]
fn a_static_collider_reshaped_or_given_layers_updates_its_pairs() {
    let mut app = app();
    let (row, mover) = scene(&mut app, 100, 0.0);
    let s = app
        .world_mut()
        .spawn((cube(1.0), at(1.5), StaticCollider))
        .id();
    assert_eq!(step(&mut app), vec![]);
    // A larger shape reaches the mover; the smaller one again does not.
    app.world_mut().entity_mut(s).insert(cube(3.0));
    assert_eq!(step(&mut app), vec![start(s, mover)]);
    *app.world_mut().get_mut::<Collider>(s).expect("collider") = cube(1.0);
    assert_eq!(step(&mut app), vec![end(s, mover)]);
    *app.world_mut().get_mut::<Collider>(s).expect("collider") = cube(3.0);
    assert_eq!(step(&mut app), vec![start(s, mover)]);
    // Layers that filter the mover out, inserted then edited in place.
    let none = CollisionLayers::new(LayerMask::ALL, LayerMask::NONE);
    app.world_mut().entity_mut(s).insert(none);
    assert_eq!(step(&mut app), vec![end(s, mover)]);
    *app.world_mut()
        .get_mut::<CollisionLayers>(s)
        .expect("layers") = CollisionLayers::default();
    assert_eq!(step(&mut app), vec![start(s, mover)]);
    // A static collider spawned late, onto the mover, among still ones.
    let late = app
        .world_mut()
        .spawn((cube(1.0), at(-0.5), StaticCollider))
        .id();
    assert_eq!(step(&mut app), vec![start(late, mover)]);
    // The mover leaves them both; the row never took part.
    set_x(&mut app, mover, 50.0);
    let mut got = step(&mut app);
    got.sort_by_key(|ev| match *ev {
        Ev::Start(a, b) | Ev::End(a, b) => (a, b),
    });
    let mut want = vec![end(late, mover), end(s, mover)];
    want.sort_by_key(|ev| match *ev {
        Ev::Start(a, b) | Ev::End(a, b) => (a, b),
    });
    assert_eq!(got, want);
    assert!(
        row.iter()
            .all(|&r| app.world().get::<Collider>(r).is_some())
    );
}
