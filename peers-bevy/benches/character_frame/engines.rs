//! The four apps, each with the same level and characters, in the
//! configuration the bench's docs describe.

use std::time::Duration;

use avian3d::prelude as av;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_icollide::plugin as ic;
use bevy_icollide::prelude::{ControllerOptions, SlideOptions};
use bevy_rapier3d::prelude as ra;

use crate::avian_detection::add_avian_detection;
use crate::level;

/// The engines compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// This crate's `MoveAndSlide` system parameter (slide only).
    Slide,
    /// This crate's `KinematicCharacter` (slide, steps, snapping).
    Controller,
    /// avian3d's `MoveAndSlide` system parameter (slide only).
    Avian,
    /// bevy_rapier3d's `KinematicCharacterController` (autostep, snap).
    Rapier,
}

impl Engine {
    pub const ALL: [Engine; 4] = [Self::Slide, Self::Controller, Self::Avian, Self::Rapier];

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "slide" => Self::Slide,
            "controller" => Self::Controller,
            "avian" => Self::Avian,
            "rapier" => Self::Rapier,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Slide => "icollide MoveAndSlide",
            Self::Controller => "icollide KinematicCharacter",
            Self::Avian => "avian3d MoveAndSlide",
            Self::Rapier => "rapier3d KinematicCharacterController",
        }
    }
}

/// The capsule: radius, segment length (1.4 m tall), the skin every
/// engine keeps, the motion per frame (3 m/s along +x, 3 m/s down) and
/// the frame's time.
pub const RADIUS: f32 = 0.3;
pub const SEGMENT: f32 = 0.8;
pub const SKIN: f32 = 0.01;
pub const MOTION: Vec3 = Vec3::new(0.05, -0.05, 0.0);
pub const DT: f32 = 1.0 / 60.0;
/// The boxes: at x = −1, every 2 m along z, 0.6 m cubes (too high to step).
pub const BOX_X: f32 = -1.0;
pub const BOX_HALF: f32 = 0.3;

/// Where the characters start: 10 columns (x from −11, 1 m apart), rows
/// 1 m apart along z; and the level's half width.
pub fn layout(n: usize) -> (Vec<Vec3>, f32) {
    let cols = n.min(10);
    let rows = n.div_ceil(10);
    let y = RADIUS + 0.5 * SEGMENT + SKIN;
    let z0 = -(rows as f32) * 0.5 + 0.5;
    let starts = (0..n)
        .map(|i| Vec3::new(-11.0 + (i % cols) as f32, y, z0 + (i / cols) as f32))
        .collect();
    (starts, (rows as f32 * 0.5 + 1.0).max(2.0))
}

/// The boxes' centres for a level of this half width.
pub fn boxes(half_width: f32) -> Vec<Vec3> {
    let k = (half_width - 1.0).floor() as i32;
    (-k..=k)
        .filter(|z| z % 2 == 0)
        .map(|z| Vec3::new(BOX_X, BOX_HALF, z as f32))
        .collect()
}

#[derive(Component)]
struct Walker;

// Every engine's driving system skips the first update (the colliders
// enter each engine's world during it): the moves start with the second.

/// One app.
pub struct Harness {
    pub engine: Engine,
    pub app: App,
    walkers: Vec<Entity>,
}

impl Harness {
    pub fn new(engine: Engine, n: usize) -> Self {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, TransformPlugin))
            .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
                DT,
            )));
        match engine {
            Engine::Slide => add_slide(&mut app),
            Engine::Controller => add_controller(&mut app),
            Engine::Avian => add_avian(&mut app),
            Engine::Rapier => add_rapier(&mut app),
        }
        app.finish();
        app.cleanup();
        let (starts, half_width) = layout(n);
        spawn_level(&mut app, engine, half_width);
        let walkers = starts
            .iter()
            .map(|&p| spawn_walker(&mut app, engine, p))
            .collect();
        Harness {
            engine,
            app,
            walkers,
        }
    }

    /// The characters' positions.
    pub fn positions(&self, out: &mut Vec<Vec3>) {
        out.clear();
        let w = self.app.world();
        out.extend(
            self.walkers
                .iter()
                .filter_map(|&e| w.get::<Transform>(e).map(|t| t.translation)),
        );
    }
}

fn spawn_level(app: &mut App, engine: Engine, half_width: f32) {
    let (vertices, triangles) = level::mesh_of_width(half_width);
    let w = app.world_mut();
    let h = Vec3::splat(BOX_HALF);
    match engine {
        Engine::Slide | Engine::Controller => {
            let level = ic::Collider::trimesh(vertices, triangles).expect("level");
            w.spawn((level, Transform::IDENTITY, ic::StaticCollider));
            for c in boxes(half_width) {
                let b = ic::Collider::cuboid(2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
                w.spawn((b, Transform::from_translation(c), ic::StaticCollider));
            }
        }
        Engine::Avian => {
            let level = av::Collider::trimesh(vertices, triangles);
            w.spawn((level, Transform::IDENTITY, av::RigidBody::Static));
            for c in boxes(half_width) {
                let b = av::Collider::cuboid(2.0 * h.x, 2.0 * h.y, 2.0 * h.z);
                w.spawn((b, Transform::from_translation(c), av::RigidBody::Static));
            }
        }
        Engine::Rapier => {
            let level = ra::Collider::trimesh(vertices, triangles).expect("level");
            w.spawn((level, Transform::IDENTITY, ra::RigidBody::Fixed));
            for c in boxes(half_width) {
                let b = ra::Collider::cuboid(h.x, h.y, h.z);
                w.spawn((b, Transform::from_translation(c), ra::RigidBody::Fixed));
            }
        }
    }
}

/// A character: in layer 2, colliding with nothing (no pair with the
/// level or another character in any engine's collision pipeline); its
/// moves see layer 1, the level.
fn spawn_walker(app: &mut App, engine: Engine, at: Vec3) -> Entity {
    let w = app.world_mut();
    let t = Transform::from_translation(at);
    match engine {
        Engine::Slide => w.spawn((t, Walker, ic_capsule())).id(),
        Engine::Controller => {
            let options = ControllerOptions {
                slide: SlideOptions {
                    skin: SKIN,
                    ..Default::default()
                },
                ..Default::default()
            };
            let mut c = ic::KinematicCharacter::new(options);
            c.filter = ic::SpatialQueryFilter::from_mask(1);
            w.spawn((t, Walker, ic_capsule(), c)).id()
        }
        Engine::Avian => w
            .spawn((
                t,
                Walker,
                av::RigidBody::Kinematic,
                av::Collider::capsule(RADIUS, SEGMENT),
                av::CollisionLayers::new(0b10, av::LayerMask::NONE),
            ))
            .id(),
        Engine::Rapier => w
            .spawn((
                t,
                Walker,
                ra::RigidBody::KinematicPositionBased,
                ra::Collider::capsule_y(0.5 * SEGMENT, RADIUS),
                ra::CollisionGroups::new(ra::Group::GROUP_2, ra::Group::NONE),
                rapier_controller(),
            ))
            .id(),
    }
}

fn ic_capsule() -> impl Bundle {
    (
        ic::Collider::capsule(RADIUS, SEGMENT),
        ic::CollisionLayers::new(0b10, ic::LayerMask::NONE),
    )
}

fn add_slide(app: &mut App) {
    app.add_plugins(ic::CollisionPlugin::default())
        .add_systems(Update, slide_walkers);
}

/// Every character slides by the motion (this crate's `MoveAndSlide`).
fn slide_walkers(
    mut slide: ic::MoveAndSlide,
    mut q: Query<(&ic::Collider, &mut Transform), With<Walker>>,
    mut started: Local<bool>,
) {
    if !std::mem::replace(&mut *started, true) {
        return;
    }
    let options = SlideOptions {
        skin: SKIN,
        ..Default::default()
    };
    let filter = ic::SpatialQueryFilter::from_mask(1);
    for (c, mut t) in &mut q {
        let start = (c, t.translation, t.rotation);
        if let Ok(out) = slide.move_and_slide(start, MOTION, &options, &filter, |_| true) {
            t.translation = out.pose.translation;
        }
    }
}

fn add_controller(app: &mut App) {
    app.add_plugins((
        ic::CollisionPlugin::default(),
        ic::CharacterPlugin::default(),
    ))
    .add_systems(Update, drive_controllers);
}

fn drive_controllers(mut q: Query<&mut ic::KinematicCharacter>, mut started: Local<bool>) {
    if !std::mem::replace(&mut *started, true) {
        return;
    }
    for mut c in &mut q {
        c.desired_motion = MOTION;
    }
}

/// avian: the physics without the solver and what only serves it, its
/// spatial queries kept (its `MoveAndSlide` casts through them).
fn add_avian(app: &mut App) {
    add_avian_detection(app, true);
    app.add_systems(Update, avian_walkers);
}

/// avian's config, kept (its plane list is a `Vec`).
struct AvianConfig(av::MoveAndSlideConfig);

impl Default for AvianConfig {
    fn default() -> Self {
        AvianConfig(av::MoveAndSlideConfig {
            skin_width: SKIN,
            ..Default::default()
        })
    }
}

fn avian_walkers(
    slide: av::MoveAndSlide,
    mut q: Query<(&av::Collider, &mut Transform), With<Walker>>,
    config: Local<AvianConfig>,
    mut started: Local<bool>,
) {
    if !std::mem::replace(&mut *started, true) {
        return;
    }
    let filter = av::SpatialQueryFilter::from_mask(1);
    let dt = Duration::from_secs_f32(DT);
    for (c, mut t) in &mut q {
        let out = slide.move_and_slide(
            c,
            t.translation,
            t.rotation,
            MOTION / DT,
            dt,
            &config.0,
            &filter,
            |_| av::MoveAndSlideHitResponse::Accept,
        );
        t.translation = out.position;
    }
}

/// rapier: the collision pipeline only (no solver), one step per update.
fn add_rapier(app: &mut App) {
    let config = ra::RapierConfiguration {
        gravity: Vec3::ZERO,
        simulation_mode: ra::SimulationMode::CollisionOnly,
        num_threads: Some(1),
        ..ra::RapierConfiguration::new(1.0)
    };
    let init = ra::RapierContextInitialization::InitializeDefaultRapierContext {
        integration_parameters: ra::IntegrationParameters::default(),
        rapier_configuration: config,
        broad_phase_optimization_strategy: ra::BroadPhaseOptimizationStrategy::default(),
    };
    app.add_plugins(
        ra::RapierPhysicsPlugin::<ra::NoUserData>::default().with_custom_initialization(init),
    )
    .insert_resource(ra::TimestepMode::Fixed {
        dt: DT,
        substeps: 1,
    })
    .add_systems(Update, drive_rapier);
}

/// Rapier's controller as ours: skin 0.01, steps up to 0.25 (0.3 wide),
/// snapping 0.2, 45° slopes, no impulses (nothing dynamic), the level's
/// group only.
fn rapier_controller() -> ra::KinematicCharacterController {
    let abs = ra::CharacterLength::Absolute;
    ra::KinematicCharacterController {
        offset: abs(SKIN),
        autostep: Some(ra::CharacterAutostep {
            max_height: abs(0.25),
            min_width: abs(0.3),
            include_dynamic_bodies: false,
        }),
        snap_to_ground: Some(abs(0.2)),
        max_slope_climb_angle: std::f32::consts::FRAC_PI_4,
        min_slope_slide_angle: std::f32::consts::FRAC_PI_4,
        apply_impulse_to_dynamic_bodies: false,
        filter_groups: Some(ra::CollisionGroups::new(
            ra::Group::GROUP_2,
            ra::Group::GROUP_1,
        )),
        ..Default::default()
    }
}

fn drive_rapier(mut q: Query<&mut ra::KinematicCharacterController>, mut started: Local<bool>) {
    if !std::mem::replace(&mut *started, true) {
        return;
    }
    for mut c in &mut q {
        c.translation = Some(MOTION);
    }
}
