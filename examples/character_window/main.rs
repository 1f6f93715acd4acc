//! The character example in a window: the capsule on the mesh level
//! (stairs, a walkable and a steep slope, a moving platform), driven by the
//! keys, with the collision debug render over it.
//!
//! ```text
//! cargo run --release --features viewer --ignore-rust-version --example character_window
//! ```
//!
//! Keys: arrows walk (relative to the camera's heading), Space jumps, Tab
//! shows or hides the debug render. The line at the top says whether the
//! character stands on ground, and what it stands on. The platform moves
//! back and forth; stand on it to ride it.

#[path = "../character/level.rs"]
#[allow(dead_code)]
mod level;

use bevy_full::gizmos::config::GizmoConfigStore;
use bevy_full::prelude::*;
use bevy_icollide::prelude::*;

const RADIUS: f32 = 0.3;
const SEGMENT: f32 = 0.8;
/// Walking speed and gravity, per second.
const SPEED: f32 = 4.0;
const GRAVITY: f32 = 20.0;
const JUMP: f32 = 7.0;

#[derive(Component)]
struct Player {
    /// Vertical speed (jumps and falls).
    vertical: f32,
}

#[derive(Component)]
struct Platform;

#[derive(Component)]
struct Hud;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_icollide character".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            CollisionPlugin::default(),
            CharacterPlugin::default(),
            CollisionDebugPlugin::default(),
        ))
        .insert_resource(GlobalAmbientLight {
            brightness: 400.0,
            ..default()
        })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (walk, move_platform, follow_camera, toggle_debug, hud),
        )
        .run();
}

fn flat_mesh(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Mesh {
    let positions: Vec<[f32; 3]> = triangles
        .iter()
        .flat_map(|t| t.map(|v| vertices[v as usize].to_array()))
        .collect();
    Mesh::new(
        bevy_full::mesh::PrimitiveTopology::TriangleList,
        bevy_full::asset::RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_computed_flat_normals()
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let (vertices, triangles) = level::mesh();
    commands.spawn((
        Mesh3d(meshes.add(flat_mesh(&vertices, &triangles))),
        MeshMaterial3d(materials.add(Color::srgb(0.6, 0.6, 0.55))),
        Collider::trimesh(vertices, triangles).expect("the level"),
        Transform::IDENTITY,
        StaticCollider,
    ));
    let h = level::PLATFORM_HALF;
    commands.spawn((
        Mesh3d(meshes.add(Cuboid::new(2.0 * h.x, 2.0 * h.y, 2.0 * h.z))),
        MeshMaterial3d(materials.add(Color::srgb(0.3, 0.5, 0.8))),
        Collider::cuboid(2.0 * h.x, 2.0 * h.y, 2.0 * h.z),
        Transform::from_translation(level::PLATFORM_START),
        Platform,
    ));
    let stand = level::PLATFORM_START.y + h.y + RADIUS + 0.5 * SEGMENT + 0.02;
    commands.spawn((
        Mesh3d(meshes.add(Capsule3d::new(RADIUS, SEGMENT))),
        MeshMaterial3d(materials.add(Color::srgb(0.9, 0.6, 0.2))),
        Collider::capsule(RADIUS, SEGMENT),
        Transform::from_xyz(level::PLATFORM_START.x, stand, 0.0),
        KinematicCharacter::new(ControllerOptions::default()),
        Player { vertical: 0.0 },
    ));
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(-8.0, 4.0, 8.0).looking_at(Vec3::new(-8.0, 1.0, 0.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 6000.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(2.0, 8.0, 4.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Text::new(""),
        TextFont {
            font_size: FontSize::Px(16.0),
            ..default()
        },
        Node {
            position_type: PositionType::Absolute,
            top: px(8),
            left: px(8),
            ..default()
        },
        Hud,
    ));
}

/// Arrows walk along the camera's heading, Space jumps; gravity pulls.
fn walk(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    camera: Query<&Transform, (With<Camera3d>, Without<Player>)>,
    mut player: Query<(
        &mut KinematicCharacter,
        &KinematicCharacterOutput,
        &mut Player,
    )>,
) {
    let dt = time.delta_secs();
    let Ok((mut c, out, mut p)) = player.single_mut() else {
        return;
    };
    let forward = camera
        .single()
        .map(|t| (t.forward().as_vec3() * Vec3::new(1.0, 0.0, 1.0)).normalize_or_zero())
        .unwrap_or(Vec3::NEG_Z);
    let right = forward.cross(Vec3::Y);
    let mut wish = Vec3::ZERO;
    for (key, dir) in [
        (KeyCode::ArrowUp, forward),
        (KeyCode::ArrowDown, -forward),
        (KeyCode::ArrowRight, right),
        (KeyCode::ArrowLeft, -right),
    ] {
        if keys.pressed(key) {
            wish += dir;
        }
    }
    if out.grounded() {
        p.vertical = if keys.just_pressed(KeyCode::Space) {
            JUMP
        } else {
            -1.0
        };
    } else {
        p.vertical -= GRAVITY * dt;
    }
    c.desired_motion = (wish.normalize_or_zero() * SPEED + Vec3::Y * p.vertical) * dt;
}

/// The platform goes back and forth along x and up and down.
fn move_platform(time: Res<Time>, mut q: Query<&mut Transform, With<Platform>>) {
    let s = (time.elapsed_secs() * 0.5).sin() * 0.5 + 0.5;
    for mut t in &mut q {
        t.translation = level::PLATFORM_START + s * level::PLATFORM_TRAVEL;
    }
}

fn follow_camera(
    player: Query<&Transform, With<Player>>,
    mut camera: Query<&mut Transform, (With<Camera3d>, Without<Player>)>,
) {
    let (Ok(p), Ok(mut c)) = (player.single(), camera.single_mut()) else {
        return;
    };
    let target = p.translation + Vec3::new(-2.0, 3.0, 7.0);
    c.translation = c.translation.lerp(target, 0.1);
    c.look_at(p.translation, Vec3::Y);
}

fn toggle_debug(keys: Res<ButtonInput<KeyCode>>, mut store: ResMut<GizmoConfigStore>) {
    if keys.just_pressed(KeyCode::Tab) {
        for (_, config, _) in store.iter_mut() {
            config.enabled = !config.enabled;
        }
    }
}

fn hud(
    player: Query<&KinematicCharacterOutput, With<Player>>,
    platform: Query<(), With<Platform>>,
    mut text: Query<&mut Text, With<Hud>>,
) {
    let (Ok(out), Ok(mut text)) = (player.single(), text.single_mut()) else {
        return;
    };
    let ground = match out.ground {
        Some(g) if platform.contains(g.entity) => "on the platform",
        Some(_) => "on the ground",
        None => "in the air",
    };
    text.0 = format!(
        "{ground}; stepped {:.2} m, snapped {:.2} m; arrows walk, Space jumps, Tab debug",
        out.stepped, out.snapped
    );
}
