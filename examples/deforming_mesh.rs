//! A deforming triangle mesh: a cloth whose vertices a system rewrites
//! every frame through `DeformedVertices`, and a ball above it that the
//! cloth reaches as it bulges up, then leaves as it falls back.
//!
//! The collider keeps its own AABB tree and refits it to the new vertices
//! in the same frame (SOLID's bottom-up refit, O(n), no allocation), so
//! every pair, ray and query sees the deformed surface. With a `Mesh3d`
//! asset, the `DeformableMesh` marker does this from the asset's changes.
//!
//! Run: `cargo run --example deforming_mesh`

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

/// The cloth's rest positions (local frame, same order as the collider's).
#[derive(Component)]
struct Cloth {
    rest: Vec<Vec3>,
}

/// Height of the bulge's top at each frame.
const BULGE: [f32; 7] = [0.0, 0.12, 0.24, 0.36, 0.48, 0.24, 0.0];

/// A square of `n × n` vertices, 2 wide, in the XZ plane, and its triangles.
fn grid(n: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let step = 2.0 / (n - 1) as f32;
    let vertices = (0..n * n)
        .map(|i| {
            Vec3::new(
                (i % n) as f32 * step - 1.0,
                0.0,
                (i / n) as f32 * step - 1.0,
            )
        })
        .collect();
    let mut triangles = Vec::new();
    for row in 0..n - 1 {
        for col in 0..n - 1 {
            let v = row * n + col;
            triangles.push([v, v + n, v + 1]);
            triangles.push([v + 1, v + n, v + n + 1]);
        }
    }
    (vertices, triangles)
}

/// Lifts the cloth into a smooth bulge centred on the origin. Rewrites the
/// vector in place: no allocation per frame.
fn deform(mut cloths: Query<(&Cloth, &mut DeformedVertices)>, mut frame: Local<usize>) {
    let height = BULGE[(*frame).min(BULGE.len() - 1)];
    *frame += 1;
    for (cloth, mut vertices) in &mut cloths {
        vertices.0.clear();
        let lift = |p: Vec3| Vec3::Y * height * (-4.0 * (p.x * p.x + p.z * p.z)).exp();
        vertices.0.extend(cloth.rest.iter().map(|&p| p + lift(p)));
    }
}

/// The frame number and the events, one line each.
#[derive(Resource, Default)]
struct Log {
    frame: usize,
    events: Vec<String>,
}

fn log(
    mut log: ResMut<Log>,
    mut starts: MessageReader<CollisionStart>,
    mut ends: MessageReader<CollisionEnd>,
) {
    log.frame += 1;
    let starts = starts.read().map(|_| "the cloth reaches the ball");
    let ends = ends.read().map(|_| "the cloth falls away from the ball");
    for what in starts.chain(ends).collect::<Vec<_>>() {
        let line = format!("frame {}: {what}", log.frame);
        println!("{line}");
        log.events.push(line);
    }
}

pub fn main() {
    let mut app = App::new();
    app.add_plugins((TransformPlugin, CollisionPlugin::default()))
        .init_resource::<Log>()
        .add_systems(Update, deform)
        .add_systems(PostUpdate, log.after(CollisionSystems::Report));

    // 17 × 17 vertices: one sits at the centre, under the ball.
    let (rest, triangles) = grid(17);
    let collider = Collider::trimesh(rest.clone(), triangles).expect("a valid grid");
    let cloth = (collider, DeformedVertices(rest.clone()), Cloth { rest });
    let cloth = app.world_mut().spawn((cloth, Transform::default())).id();
    // The ball's bottom is 0.3 above the rest cloth.
    let ball = (Collider::sphere(0.3), CollisionEventsEnabled);
    let ball = app
        .world_mut()
        .spawn((ball, Transform::from_xyz(0.0, 0.6, 0.0)))
        .id();

    for (i, height) in BULGE.iter().enumerate() {
        app.update();
        let colliding = app.world().get::<CollidingEntities>(ball).unwrap();
        println!(
            "frame {}: bulge {height:.2}, touching {}",
            i + 1,
            colliding.contains(cloth)
        );
        assert_eq!(colliding.contains(cloth), *height > 0.3, "frame {}", i + 1);
    }
    // The bulge reaches the ball at 0.36 (frame 4) and leaves it at 0.24 (frame 6).
    assert_eq!(
        app.world().resource::<Log>().events,
        [
            "frame 4: the cloth reaches the ball",
            "frame 6: the cloth falls away from the ball"
        ]
    );
    println!("deforming_mesh: all as expected");
}
