//! Every collider's `ColliderAabb` is the world's box of its body
//! (`CollisionWorld::aabb`, read through `Collisions`), or the default
//! before it has one, after every frame of a scene that moves, spawns,
//! despawns and rescales colliders: hulls in motion (some frames only
//! half of them), mesh tiles whose scale changes, hulls given a refused
//! scale (they keep their last box), with a box margin; serial and with
//! the bounds update split into tasks.

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::system::RunSystemOnce;
use bevy_icollide::prelude::*;
use bevy_icollide::testkit::MultiBodyScene;
use bevy_tasks::{ComputeTaskPool, TaskPoolBuilder};
use bevy_transform::prelude::*;
use glam::Vec3;

use crate::hull_scene::{self, transform};

/// A floor tile mesh (scales, unlike a hull).
fn tile() -> Collider {
    let v = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    let vertices = v.iter().map(|&(x, z)| Vec3::new(x, 0.0, z)).collect();
    Collider::trimesh(vertices, vec![[0, 1, 2], [0, 2, 3]]).expect("a tile")
}

/// Entities whose `ColliderAabb` differs from their body's world box.
fn mismatches(app: &mut App) -> (usize, Vec<Entity>) {
    let check = |q: Query<(Entity, &ColliderAabb), With<Collider>>, c: Collisions| {
        let mut bad = Vec::new();
        let mut boxed = 0;
        for (e, aabb) in &q {
            let world = c.body(e).and_then(|b| c.world().aabb(b));
            boxed += usize::from(world.is_some());
            if aabb.0 != world.unwrap_or_default() {
                bad.push(e);
            }
        }
        (boxed, bad)
    };
    app.world_mut().run_system_once(check).expect("runs")
}

/// A pseudo-random sequence (SplitMix64), for the scene's edits.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn run(tasks: usize, seed: u64) {
    let params = hull_scene::params(700, seed);
    let mut scene = MultiBodyScene::new(&params);
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default()
            .with_parallel_tasks(tasks)
            .with_margin(0.01)
            .expect("a margin"),
    ));
    let mut ids: Vec<Entity> = (0..params.count)
        .map(|i| hull_scene::spawn_hull(&mut app, &scene, i))
        .collect();
    let tiles: Vec<Entity> = (0..8)
        .map(|k| {
            let at = Transform::from_xyz(k as f32 * 3.0, 0.5, 0.0);
            app.world_mut().spawn((tile(), at)).id()
        })
        .collect();
    let mut rng = seed;
    for frame in 0..30 {
        if frame % 3 == 1 {
            for _ in 0..20 {
                let i = (next(&mut rng) % params.count as u64) as usize;
                app.world_mut().despawn(ids[i]);
                ids[i] = hull_scene::spawn_hull(&mut app, &scene, i);
            }
        }
        for (i, &e) in ids.iter().enumerate() {
            if frame % 4 == 3 && i % 2 == 0 {
                continue;
            }
            let mut t = transform(&scene, i);
            if next(&mut rng).is_multiple_of(50) {
                t.scale = Vec3::splat(1.5);
            }
            *app.world_mut().get_mut::<Transform>(e).expect("a body") = t;
        }
        for &e in &tiles {
            let s = 0.5 + (next(&mut rng) % 100) as f32 / 50.0;
            let mut t = app.world_mut().get_mut::<Transform>(e).expect("a tile");
            t.scale = Vec3::new(s, 1.0, 2.5 - s);
            t.translation.y += 0.01;
        }
        app.update();
        let (boxed, bad) = mismatches(&mut app);
        assert!(boxed > 650, "frame {frame}: {boxed} boxes");
        let first = &bad[..bad.len().min(5)];
        assert!(
            bad.is_empty(),
            "{tasks} tasks, frame {frame}: {} boxes differ, {first:?}…",
            bad.len()
        );
        scene.step();
    }
}

#[test]
fn every_collider_s_box_is_its_body_s_box() {
    ComputeTaskPool::get_or_init(|| TaskPoolBuilder::new().num_threads(4).build());
    for (tasks, seed) in [(1, 11), (1, 12), (4, 13)] {
        run(tasks, seed);
    }
}
