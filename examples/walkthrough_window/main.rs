//! The walkthrough in a window: the furnished living room and the hand of
//! convex pieces, rendered by Bevy, with the collision debug render over it.
//!
//! ```text
//! cargo run --release --features viewer --ignore-rust-version --example walkthrough_window [-- --script] [-- --screenshot FILE]
//! ```
//!
//! (Bevy 0.20.1's umbrella crate asks for rustc 1.97.1; on an older
//! toolchain add `--ignore-rust-version` after `cargo run`.)
//!
//! Keys: arrows move the hand over the floor (relative to the camera), R / F
//! raise and lower it, Z / X turn it; Space grabs what the hand touches or
//! lets it go (or click the object: picked by the crate's ray casts);
//! Tab shows or hides the debug render (boxes, pairs,
//! contacts); W A S D Q E fly the camera, the right mouse button looks
//! around. Touched objects turn red. The line at the top gives the
//! collision stages' times.
//!
//! The hand moves by the headless walkthrough's move and slide
//! (`motion.rs`): it and what it holds stop at the furniture.
//! `--script` plays the headless walkthrough's path instead of the keys;
//! `--screenshot FILE` plays it, saves the window at the moment the hand
//! touches the cup, and exits (see `scripts/screenshot.sh`).

#[path = "camera.rs"]
mod camera;
#[path = "meshes.rs"]
mod meshes;
#[path = "../walkthrough/motion.rs"]
mod motion;
#[path = "../walkthrough/scene.rs"]
#[allow(dead_code)]
mod scene;

use std::path::PathBuf;

use bevy_full::color::palettes::css;
use bevy_full::prelude::*;
use bevy_full::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy_icollide::prelude::*;
use camera::{fly_camera, toggle_debug};
use motion::{Obstacles, slide_toward};
use scene::{Role, Script};

/// How the hand is driven and whether a screenshot ends the run.
#[derive(Resource, Clone, Default)]
struct Mode {
    scripted: bool,
    screenshot: Option<PathBuf>,
}

/// The frame of the script at which the screenshot is taken: the hand has
/// come down on the cup (touched: red) and is about to grab it.
const SHOT_AT: u32 = 210;

#[derive(Component)]
struct Label(#[allow(dead_code)] &'static str);

#[derive(Component)]
struct Hand;

#[derive(Component)]
struct Grabbable;

#[derive(Component)]
struct Held;

/// A room object's own color and how many hand contacts tint it now.
#[derive(Component)]
struct Tint {
    base: Color,
    contacts: u32,
}

#[derive(Component)]
struct Hud;

/// Grabbable objects the hand touches, in the order it touched them.
#[derive(Resource, Default)]
struct Reach(Vec<Entity>);

/// Frames left before exiting once the screenshot is saved.
#[derive(Resource, Default)]
struct Exit(Option<u32>);

fn main() {
    let mut mode = Mode::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--script" => mode.scripted = true,
            "--screenshot" => {
                mode.scripted = true;
                mode.screenshot = args.next().map(PathBuf::from);
            }
            other => {
                eprintln!("unknown argument {other:?}; usage: [--script] [--screenshot FILE]");
                std::process::exit(2);
            }
        }
    }
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_icollide walkthrough".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins((
            CollisionPlugin::default().with_messages_for_all_pairs(),
            CollisionDebugPlugin::default(),
            // Clicks reach colliders through the crate's ray casts.
            CollisionPickingPlugin,
        ))
        .add_observer(click_to_grab)
        .insert_resource(mode)
        .insert_resource(GlobalAmbientLight {
            brightness: 400.0,
            ..default()
        })
        .init_resource::<Reach>()
        .init_resource::<Exit>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (scripted_hand, keyboard_hand, fly_camera, toggle_debug),
                on_contacts,
                hud,
                screenshot,
            )
                .chain(),
        )
        .run();
}

/// The room, the hand, a camera, lights and the timing line.
fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let (cup, grabbable) =
        spawn_room(&mut commands, &mut meshes, &mut materials).unwrap_or_else(|e| {
            eprintln!("walkthrough_window: {e}");
            std::process::exit(1);
        });
    let script = Script::new(cup);
    let hand_shape = scene::hand().expect("the hand builds");
    let skin = materials.add(Color::srgb(0.87, 0.68, 0.55));
    let hand = commands
        .spawn((
            Collider::new(hand_shape.clone()),
            script.transform(0),
            Visibility::default(),
            Label("hand"),
            Hand,
            SweptCcd,
        ))
        .with_children(|hand| {
            for (mesh, pose) in meshes::piece_meshes(&hand_shape) {
                hand.spawn((
                    Mesh3d(meshes.add(mesh)),
                    MeshMaterial3d(skin.clone()),
                    Transform::from_translation(pose.translation).with_rotation(pose.rotation),
                ));
            }
        })
        .id();
    commands.insert_resource(Obstacles::new(grabbable.into_iter().chain([hand])));
    commands.insert_resource(script);
    commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(0.25, 1.35, -1.0).looking_at(Vec3::new(1.15, 0.88, -0.05), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 6000.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(1.0, 4.0, -2.0).looking_at(Vec3::ZERO, Vec3::Y),
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

/// Spawns the room's models with their colliders and meshes; returns
/// where the cup stands and the grabbable objects.
fn spawn_room(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
) -> Result<(Vec3, Vec<Entity>), String> {
    let (mut cup, mut grabbable) = (None, Vec::new());
    for model in scene::models() {
        let path = model.path();
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let obj = bevy_icollide::io::parse_obj(&text).map_err(|e| format!("{path}: {e}"))?;
        let mesh = meshes::flat_mesh(&obj.positions, &obj.triangles);
        let collider =
            Collider::trimesh(obj.positions, obj.triangles).map_err(|e| format!("{path}: {e}"))?;
        let transform = model.transform(&text)?;
        if model.name == "cup_1" {
            cup = Some(transform.translation);
        }
        let base = match (model.role, model.name) {
            (_, "living_room") => Color::srgb(0.82, 0.80, 0.76),
            (Role::Furniture, _) => Color::srgb(0.55, 0.42, 0.30),
            (Role::Grabbable, _) => Color::srgb(0.92, 0.92, 0.95),
        };
        let material = materials.add(StandardMaterial {
            base_color: base,
            // The room is seen from inside: draw both sides of the walls.
            cull_mode: None,
            double_sided: true,
            ..default()
        });
        let mut e = commands.spawn((
            collider,
            transform,
            Mesh3d(meshes.add(mesh)),
            MeshMaterial3d(material),
            Label(model.name),
            Tint { base, contacts: 0 },
        ));
        match model.role {
            Role::Furniture => {
                e.insert(StaticCollider);
            }
            Role::Grabbable => {
                grabbable.push(e.insert(Grabbable).id());
            }
        }
    }
    let cup = cup.ok_or_else(|| "the scene has no cup_1".to_string())?;
    Ok((cup, grabbable))
}

/// `--script`: the headless walkthrough's path, grab and release.
fn scripted_hand(
    mode: Res<Mode>,
    mut script: ResMut<Script>,
    mut hand: Query<(Entity, &mut Transform, &Collider), With<Hand>>,
    mut grabbing: GrabParams,
    mut motion: HandMotion,
) {
    if !mode.scripted || script.frame >= script.last_frame() {
        return;
    }
    script.frame += 1;
    let Ok((h, mut t, collider)) = hand.single_mut() else {
        return;
    };
    *t = motion.toward((h, *t, collider), script.transform(script.frame));
    if script.frame == script.grab_at {
        grabbing.grab(h);
    }
    if script.frame == script.release_at {
        grabbing.release(h);
    }
}

/// The keys: arrows, R / F, Z / X move and turn the hand; Space grabs or
/// releases.
fn keyboard_hand(
    mode: Res<Mode>,
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    camera: Query<&Transform, (With<Camera3d>, Without<Hand>)>,
    mut hand: Query<(Entity, &mut Transform, &Collider), With<Hand>>,
    mut grabbing: GrabParams,
    mut motion: HandMotion,
) {
    let (Ok(cam), Ok((h, mut t, collider))) = (camera.single(), hand.single_mut()) else {
        return;
    };
    if mode.scripted {
        return;
    }
    let forward = Vec3::new(cam.forward().x, 0.0, cam.forward().z).normalize_or_zero();
    let right = Vec3::new(-forward.z, 0.0, forward.x);
    let axis =
        |pos: KeyCode, neg: KeyCode| f32::from(keys.pressed(pos)) - f32::from(keys.pressed(neg));
    let step = 0.6 * time.delta_secs();
    let mut target = *t;
    target.translation += (forward * axis(KeyCode::ArrowUp, KeyCode::ArrowDown)
        + right * axis(KeyCode::ArrowRight, KeyCode::ArrowLeft)
        + Vec3::Y * axis(KeyCode::KeyR, KeyCode::KeyF))
        * step;
    target.rotate_y(2.0 * time.delta_secs() * axis(KeyCode::KeyZ, KeyCode::KeyX));
    *t = motion.toward((h, *t, collider), target);
    if keys.just_pressed(KeyCode::Space) {
        if motion.held.is_empty() {
            grabbing.grab(h);
        } else {
            grabbing.release(h);
        }
    }
}

/// A held object: its entity, transform relative to the hand, collider.
type HeldPart = (Entity, &'static Transform, &'static Collider);

/// The hand's move and slide toward a pose (`motion.rs`).
#[derive(bevy_full::ecs::system::SystemParam)]
struct HandMotion<'w, 's> {
    obstacles: Res<'w, Obstacles>,
    held: Query<'w, 's, HeldPart, (With<Held>, Without<Hand>)>,
    slide: MoveAndSlide<'w, 's>,
}

impl HandMotion<'_, '_> {
    /// The hand's transform after moving toward `target`.
    fn toward(&mut self, hand: (Entity, Transform, &Collider), target: Transform) -> Transform {
        let held = self.held.iter().next();
        let obstacles = &self.obstacles;
        slide_toward(
            &mut self.slide,
            obstacles,
            hand,
            held,
            target,
            &mut Vec::new(),
        )
    }
}

/// What grabbing and releasing change.
#[derive(bevy_full::ecs::system::SystemParam)]
struct GrabParams<'w, 's> {
    reach: Res<'w, Reach>,
    globals: Query<'w, 's, &'static GlobalTransform>,
    held: Query<'w, 's, Entity, With<Held>>,
    pairs: CollisionPairConfig<'w>,
    commands: Commands<'w, 's>,
}

impl GrabParams<'_, '_> {
    /// Parents the object the hand touched last to the hand; their pair
    /// is deactivated while it is held.
    fn grab(&mut self, hand: Entity) {
        if let Some(&obj) = self.reach.0.last() {
            self.grab_object(hand, obj);
        }
    }

    /// Parents `obj` to the hand.
    fn grab_object(&mut self, hand: Entity, obj: Entity) {
        let (Ok(hand_global), Ok(global)) = (self.globals.get(hand), self.globals.get(obj)) else {
            return;
        };
        let local = global.reparented_to(hand_global);
        self.commands
            .entity(obj)
            .insert((ChildOf(hand), local, Held));
        self.pairs.deactivate_pair(hand, obj);
    }

    /// Leaves what the hand holds where it is.
    fn release(&mut self, hand: Entity) {
        for e in self.held.iter().collect::<Vec<_>>() {
            let Ok(global) = self.globals.get(e) else {
                continue;
            };
            let t = global.compute_transform();
            self.commands
                .entity(e)
                .remove::<(ChildOf, Held)>()
                .insert(t);
            self.pairs.activate_pair(hand, e);
        }
    }
}

/// A click on a grabbable object the hand touches grabs it (the click is
/// picked by the crate's ray cast: `CollisionPickingPlugin`).
fn click_to_grab(
    click: On<PointerClick>,
    hand: Query<Entity, With<Hand>>,
    mut grabbing: GrabParams,
) {
    let obj = click.entity;
    if let Ok(h) = hand.single()
        && grabbing.reach.0.contains(&obj)
        && grabbing.held.is_empty()
    {
        grabbing.grab_object(h, obj);
    }
}

/// Objects touched by the hand or what it holds turn red; grabbable ones
/// the hand touches are within reach.
fn on_contacts(
    mut starts: MessageReader<CollisionStart>,
    mut ends: MessageReader<CollisionEnd>,
    roles: Query<(Has<Hand>, Has<Held>, Has<Grabbable>)>,
    mut tints: Query<(&mut Tint, &MeshMaterial3d<StandardMaterial>)>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut reach: ResMut<Reach>,
) {
    let starts = starts.read().map(|e| ([e.collider1, e.collider2], true));
    let ends = ends.read().map(|e| ([e.collider1, e.collider2], false));
    for ([a, b], started) in starts.chain(ends) {
        for (me, other) in [(a, b), (b, a)] {
            let role = |e| roles.get(e).unwrap_or_default();
            let ((me_hand, me_held, _), (other_hand, _, other_grabbable)) = (role(me), role(other));
            if !(me_hand || me_held) || other_hand {
                continue;
            }
            if me_hand && other_grabbable {
                reach.0.retain(|&e| e != other);
                if started {
                    reach.0.push(other);
                }
            }
            let Ok((mut tint, material)) = tints.get_mut(other) else {
                continue;
            };
            tint.contacts = if started {
                tint.contacts + 1
            } else {
                tint.contacts.saturating_sub(1)
            };
            if let Some(mut m) = materials.get_mut(&material.0) {
                m.base_color = if tint.contacts > 0 {
                    css::RED.into()
                } else {
                    tint.base
                };
            }
        }
    }
}

/// The timing line.
fn hud(diagnostics: Res<CollisionDiagnostics>, mut text: Query<&mut Text, With<Hud>>) {
    let Ok(mut text) = text.single_mut() else {
        return;
    };
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let (m, s) = (diagnostics.mean(), diagnostics.stats);
    text.0 = format!(
        "collision per frame (mean ms): sync {:.3}  bounds {:.3}  broad {:.3}  narrow {:.3}  report {:.3}  total {:.3}\n\
         {} box pairs, {} touching | arrows R F Z X: hand, Space or click: grab, Tab: debug render, W A S D Q E + right mouse: camera",
        ms(m.sync),
        ms(m.bounds),
        ms(m.broad),
        ms(m.narrow),
        ms(m.report),
        ms(m.total()),
        s.box_pairs,
        s.touching,
    );
}

/// `--screenshot FILE`: saves the window at [`SHOT_AT`], then exits.
fn screenshot(
    mode: Res<Mode>,
    script: Res<Script>,
    mut exit: ResMut<Exit>,
    mut commands: Commands,
    mut quit: MessageWriter<AppExit>,
) {
    let Some(path) = &mode.screenshot else {
        return;
    };
    if script.frame == SHOT_AT && exit.0.is_none() {
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path.clone()))
            .observe(|_: On<ScreenshotCaptured>, mut exit: ResMut<Exit>| {
                exit.0 = Some(5);
            });
    }
    if let Some(n) = exit.0.as_mut() {
        if *n == 0 {
            quit.write(AppExit::Success);
        }
        *n = n.saturating_sub(1);
    }
}
