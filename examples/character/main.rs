//! A kinematic character, headless: a capsule rides a moving platform,
//! walks off it, climbs stairs, goes down a walkable slope and is stopped
//! by one too steep (`level.rs`), with `CharacterPlugin`'s
//! `KinematicCharacter` (the core's `CharacterController`: slope limit,
//! steps, snapping, platforms).
//!
//! ```text
//! cargo run --example character
//! ```
//!
//! Each frame a system in `Update` sets the character's desired motion —
//! 3 m/s along +x once walking, and a constant 3 m/s down (a simple
//! gravity: the slide keeps it on the ground) — and moves the platform;
//! the plugin moves the character in `PostUpdate` and writes
//! `KinematicCharacterOutput`, which a system in `Last` records. `main`
//! prints what happened and asserts it; `cargo test` runs it.

#[path = "level.rs"]
mod level;

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

/// The capsule: radius and segment length (1.4 m tall).
pub const RADIUS: f32 = 0.3;
pub const SEGMENT: f32 = 0.8;
/// Frames of the ride (the platform moves), of the rest after it, and of
/// the walk.
pub const RIDE: u32 = 60;
pub const REST: u32 = 10;
pub const WALK: u32 = 340;
/// Per frame (60 Hz): 3 m/s.
pub const STEP: f32 = 0.05;

/// One frame of the character (the index is the frame): where it is, whether it stands on ground,
/// the step it climbed.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub at: Vec3,
    pub grounded: bool,
    pub stepped: f32,
    pub on_platform: bool,
}

#[derive(Resource, Default)]
struct Log {
    frame: u32,
    frames: Vec<Frame>,
    pushes: u32,
}

#[derive(Component)]
struct Platform;

/// Runs the scene; every frame's record.
pub fn run() -> Vec<Frame> {
    let mut app = App::new();
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default(),
        CharacterPlugin::default(),
    ))
    .init_resource::<Log>()
    .add_systems(Update, drive)
    .add_systems(Last, record);
    let (vertices, triangles) = level::mesh();
    let floor = Collider::trimesh(vertices, triangles).expect("a valid level");
    app.world_mut()
        .spawn((floor, Transform::IDENTITY, StaticCollider));
    let h = level::PLATFORM_HALF;
    app.world_mut().spawn((
        Collider::cuboid(2.0 * h.x, 2.0 * h.y, 2.0 * h.z),
        Transform::from_translation(level::PLATFORM_START),
        Platform,
    ));
    let options = ControllerOptions::default();
    let stand = level::PLATFORM_START.y + h.y + RADIUS + 0.5 * SEGMENT + options.slide.skin;
    app.world_mut().spawn((
        Collider::capsule(RADIUS, SEGMENT),
        Transform::from_xyz(level::PLATFORM_START.x, stand, 0.0),
        KinematicCharacter::new(options),
    ));
    // Frame 0: the colliders enter the collision world.
    for _ in 0..=RIDE + REST + WALK {
        app.update();
    }
    let log = app.world_mut().remove_resource::<Log>().unwrap_or_default();
    println!("{} pushes on the platform reported", log.pushes);
    log.frames
}

/// The desired motion and the platform's pose for this frame.
fn drive(
    mut log: ResMut<Log>,
    mut character: Query<&mut KinematicCharacter>,
    mut platform: Query<&mut Transform, With<Platform>>,
) {
    let f = log.frame;
    let walking = f > RIDE + REST;
    let fall = if f == 0 { 0.0 } else { -STEP };
    for mut c in &mut character {
        c.desired_motion = Vec3::new(if walking { STEP } else { 0.0 }, fall, 0.0);
    }
    let t = f.min(RIDE) as f32 / RIDE as f32;
    for mut p in &mut platform {
        p.translation = level::PLATFORM_START + t * level::PLATFORM_TRAVEL;
    }
    log.frame += 1;
}

/// The character after this frame's move.
fn record(
    mut log: ResMut<Log>,
    character: Query<(&Transform, &KinematicCharacterOutput)>,
    platform: Query<(), With<Platform>>,
    mut pushes: MessageReader<CharacterPush>,
) {
    log.pushes += pushes.read().count() as u32;
    for (t, out) in &character {
        let on_platform = out.ground.is_some_and(|g| platform.contains(g.entity));
        log.frames.push(Frame {
            at: t.translation,
            grounded: out.grounded(),
            stepped: out.stepped,
            on_platform,
        });
    }
}

pub fn main() {
    let frames = run();
    let at = |f: u32| frames[f as usize].at;
    let skin = ControllerOptions::default().slide.skin;
    // Rides the platform: carried by its travel (within two skins), on it
    // every frame.
    let ride = at(RIDE + REST) - at(0);
    println!(
        "ride: moved {ride} with a platform that moved {}",
        level::PLATFORM_TRAVEL
    );
    assert!(
        (ride - level::PLATFORM_TRAVEL).abs().max_element() < 2.0 * skin,
        "{ride}"
    );
    assert!(
        frames[1..=(RIDE + REST) as usize]
            .iter()
            .all(|f| f.on_platform)
    );
    let walk = &frames[(RIDE + REST + 1) as usize..];
    // Climbs the stairs: four steps taken, up to the landing.
    let steps = walk.iter().filter(|f| f.stepped > 0.0).count();
    let top = walk.iter().map(|f| f.at.y).fold(f32::MIN, f32::max);
    let landing = level::LANDING + RADIUS + 0.5 * SEGMENT;
    println!("stairs: {steps} steps climbed, highest centre {top} (landing's {landing})");
    assert!((4..=8).contains(&steps), "{steps}");
    assert!((top - landing).abs() < 3.0 * skin, "{top}");
    // Stopped by the 60° slope: short of its foot, still for the last 60
    // frames, and not up it.
    let end = frames.last().expect("frames").at;
    let still = (end - at(RIDE + REST + WALK - 60)).length();
    println!("steep slope: stopped at {end}, moved {still} in the last 60 frames");
    assert!(
        end.x < level::STEEP_FOOT && end.x > level::STEEP_FOOT - 2.0 * RADIUS,
        "{end}"
    );
    assert!(
        still < skin && end.y < RADIUS + 0.5 * SEGMENT + 3.0 * skin,
        "{end} {still}"
    );
    // Stays grounded, but for the drop off the platform's edge (its
    // rounded bottom rolls down the edge, within the slope limit: measured
    // none).
    let airborne = walk.iter().filter(|f| !f.grounded).count();
    println!(
        "grounded: all but {airborne} of {} walking frames",
        walk.len()
    );
    assert!(airborne <= 10, "{airborne}");
}
