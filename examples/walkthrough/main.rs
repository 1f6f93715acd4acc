//! I-COLLIDE's architectural walkthrough, headless: a hand made of convex
//! pieces moves through a furnished living room, touches things (they turn
//! red), picks up a cup, carries it into the bookshelf and lets go.
//!
//! ```text
//! cargo run --release --example walkthrough -- [--picture FILE] [--quiet]
//! ```
//!
//! Everything gameplay does is driven by collision events: `CollisionStart`
//! marks the touched object (red) and logs a line, `CollisionEnd` unmarks
//! it, a grab takes an object the hand is touching (known from the events,
//! no geometry is polled) and parents it to the hand, so it moves with the
//! hand and keeps colliding with the room; a release leaves it where it is.
//! The hand has continuous detection (`SweptCcd`): it cannot pass through
//! a thin object between two frames.
//! While held, the hand–object pair is deactivated (I-COLLIDE's pair
//! configuration). The hand follows a scripted path by move and slide
//! (`MoveAndSlide`, `motion.rs`): it slides along the table and the shelves
//! instead of entering them, and what it holds is stopped by the room too;
//! what stops them is logged (`Blocked`), and they never touch the
//! furniture (no contact event between them). At the end the example
//! prints the per-stage timings and a summary, and writes a picture (top
//! and side views, the hand's path, touched objects in red).

#[path = "hand.rs"]
mod hand;
#[path = "motion.rs"]
mod motion;
#[path = "picture.rs"]
mod picture;
#[path = "scene.rs"]
mod scene;

use std::collections::BTreeSet;
use std::path::PathBuf;

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryData;
use bevy_icollide::plugin::StageTimes;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

use hand::move_hand;
use motion::Obstacles;
use scene::{Role, Script};

/// How to run.
pub struct Config {
    /// Where to write the picture (`None`: no picture).
    pub picture: Option<PathBuf>,
    /// Print the events as they happen.
    pub verbose: bool,
}

/// Something that happened, for the summary and the test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Happening {
    /// Two objects started touching.
    Touch(&'static str, &'static str),
    /// Two objects stopped touching.
    Untouch(&'static str, &'static str),
    /// The hand picked an object up.
    Grab(&'static str),
    /// The hand let an object go.
    Release(&'static str),
    /// The first (moving) came within two skins of the second and was
    /// stopped or slid along it (the first frame of a run of such frames).
    Blocked(&'static str, &'static str),
}

/// Where a moving part (the hand, or what it holds) was after a frame.
pub struct Track {
    pub frame: u32,
    pub name: &'static str,
    pub shape: SharedShape,
    pub pose: Pose,
}

/// What a run produced.
pub struct Summary {
    pub happenings: Vec<Happening>,
    pub frames: u32,
    pub touched: BTreeSet<&'static str>,
    pub timings: StageTimes,
    pub worst: StageTimes,
    /// The hand's and the held object's poses, every frame.
    pub tracks: Vec<Track>,
    /// What they may not enter: the furniture and the room's shell.
    pub furniture: Vec<(&'static str, SharedShape, Pose)>,
}

#[derive(Component)]
struct Label(&'static str);

#[derive(Component)]
struct Grabbable;

#[derive(Component)]
struct Hand;

/// Red: touched by the hand or by what it holds (how many such contacts).
#[derive(Component)]
struct Touched(u32);

#[derive(Component)]
struct Held;

#[derive(Message)]
struct Grab;

#[derive(Message)]
struct Release;

#[derive(Resource, Default)]
struct Journal {
    verbose: bool,
    happenings: Vec<Happening>,
    hand_path: Vec<Vec3>,
    touched: BTreeSet<&'static str>,
    /// Grabbable objects the hand touches now, from the events, in the
    /// order it touched them.
    in_hand_reach: Vec<Entity>,
    /// `(mover, obstacle)` pairs within two skins this frame and the last.
    blocked: Vec<(Entity, Entity)>,
    blocked_before: Vec<(Entity, Entity)>,
    /// `(frame, entity, pose)` of the hand and what it holds.
    tracks: Vec<(u32, Entity, Pose)>,
}

impl Journal {
    fn log(&mut self, frame: u32, h: Happening) {
        if self.verbose {
            println!("frame {frame:>3}: {h:?}");
        }
        self.happenings.push(h);
    }
}

fn main() {
    let mut config = Config {
        picture: Some(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/target/walkthrough.svg"
        ))),
        verbose: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--picture" => config.picture = args.next().map(PathBuf::from),
            "--quiet" => config.verbose = false,
            other => {
                eprintln!("unknown argument {other:?}; usage: [--picture FILE] [--quiet]");
                std::process::exit(2);
            }
        }
    }
    match run(&config) {
        Ok(s) => print_summary(&s, &config),
        Err(e) => {
            eprintln!("walkthrough: {e}");
            std::process::exit(1);
        }
    }
}

/// Builds the app, runs the script to its end, writes the picture.
pub fn run(config: &Config) -> Result<Summary, Box<dyn std::error::Error>> {
    let mut app = App::new();
    // Every pair's messages: the hand, what it holds and the furniture all
    // take part, so no entity needs `CollisionEventsEnabled`.
    app.add_plugins((
        bevy_transform::TransformPlugin,
        CollisionPlugin::default().with_messages_for_all_pairs(),
    ))
    .add_message::<Grab>()
    .add_message::<Release>()
    .insert_resource(Journal {
        verbose: config.verbose,
        ..Default::default()
    })
    .add_systems(
        Update,
        (drive_hand, move_hand, on_contacts, grab, release).chain(),
    );
    let (cup, grabbable) = spawn_room(app.world_mut())?;
    let script = Script::new(cup);
    let hand = Collider::new(scene::hand()?);
    // Continuous detection: a fast hand cannot pass through a thin shelf
    // between two frames.
    let hand = app
        .world_mut()
        .spawn((hand, script.transform(0), Label("hand"), Hand, SweptCcd))
        .id();
    app.insert_resource(script);
    app.insert_resource(Obstacles::new(grabbable.into_iter().chain([hand])));
    let frames = app.world().resource::<Script>().last_frame();
    for _ in 0..frames {
        app.update();
    }
    if let Some(path) = &config.picture {
        std::fs::write(
            path,
            picture::svg(&outlines(app.world_mut()), &hand_path(&app)),
        )?;
    }
    let d = app.world().resource::<CollisionDiagnostics>();
    let (timings, worst) = (d.mean(), d.worst);
    let journal = app
        .world_mut()
        .remove_resource::<Journal>()
        .unwrap_or_default();
    let (tracks, furniture) = shapes_of(app.world_mut(), &journal.tracks);
    Ok(Summary {
        happenings: journal.happenings,
        frames,
        touched: journal.touched,
        timings,
        worst,
        tracks,
        furniture,
    })
}

/// The tracked poses with their shapes, and the furniture.
type Shapes = (Vec<Track>, Vec<(&'static str, SharedShape, Pose)>);

fn shapes_of(world: &mut World, tracks: &[(u32, Entity, Pose)]) -> Shapes {
    let mut q = world.query::<(&Label, &Collider)>();
    let tracks = tracks
        .iter()
        .filter_map(|&(frame, e, pose)| {
            let (label, collider) = q.get(world, e).ok()?;
            let shape = collider.shape().clone();
            Some(Track {
                frame,
                name: label.0,
                shape,
                pose,
            })
        })
        .collect();
    let mut q =
        world.query_filtered::<(&Label, &Collider, &GlobalTransform), With<StaticCollider>>();
    let furniture = q
        .iter(world)
        .map(|(label, c, g)| (label.0, c.shape().clone(), pose_of(&g.compute_transform())))
        .collect();
    (tracks, furniture)
}

fn pose_of(t: &Transform) -> Pose {
    Pose::new(t.rotation, t.translation)
}

/// Spawns the room's models; returns where the cup stands and the
/// grabbable objects.
fn spawn_room(world: &mut World) -> Result<(Vec3, Vec<Entity>), Box<dyn std::error::Error>> {
    let mut cup = None;
    let mut grabbable = Vec::new();
    for model in scene::models() {
        let path = model.path();
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let obj = bevy_icollide::io::parse_obj(&text).map_err(|e| format!("{path}: {e}"))?;
        let collider =
            Collider::trimesh(obj.positions, obj.triangles).map_err(|e| format!("{path}: {e}"))?;
        let transform = model.transform(&text)?;
        if model.name == "cup_1" {
            cup = Some(transform.translation);
        }
        let mut e = world.spawn((collider, transform, Label(model.name)));
        match model.role {
            Role::Furniture => e.insert(StaticCollider),
            Role::Grabbable => {
                grabbable.push(e.id());
                e.insert(Grabbable)
            }
        };
    }
    Ok((cup.ok_or("the scene has no cup_1")?, grabbable))
}

/// The script's next frame: its grab and release requests.
fn drive_hand(
    mut script: ResMut<Script>,
    mut grabs: MessageWriter<Grab>,
    mut releases: MessageWriter<Release>,
) {
    script.frame += 1;
    if script.frame == script.grab_at {
        grabs.write(Grab);
    }
    if script.frame == script.release_at {
        releases.write(Release);
    }
}

/// One side of a contact event, as the gameplay sees it.
#[derive(QueryData)]
#[query_data(mutable)]
struct Side {
    label: &'static Label,
    hand: Has<Hand>,
    held: Has<Held>,
    grabbable: Has<Grabbable>,
    touched: Option<&'static mut Touched>,
}

impl SideItem<'_, '_> {
    /// The hand, or what it holds.
    fn is_hand_side(&self) -> bool {
        self.hand || self.held
    }

    fn touch_count(&self) -> u32 {
        self.touched.as_ref().map_or(0, |t| t.0)
    }
}

/// Starts mark objects touched by the hand (or what it holds) red and
/// note the grabbable ones within reach; ends undo that.
fn on_contacts(
    mut starts: MessageReader<CollisionStart>,
    mut ends: MessageReader<CollisionEnd>,
    mut q: Query<Side>,
    mut journal: ResMut<Journal>,
    script: Res<Script>,
    mut commands: Commands,
) {
    let starts = starts.read().map(|e| ([e.collider1, e.collider2], true));
    let ends = ends.read().map(|e| ([e.collider1, e.collider2], false));
    for (pair, started) in starts.chain(ends) {
        let Ok([a, b]) = q.get_many_mut(pair) else {
            continue;
        };
        let names = (a.label.0, b.label.0);
        let h = if started {
            Happening::Touch(names.0, names.1)
        } else {
            Happening::Untouch(names.0, names.1)
        };
        journal.log(script.frame, h);
        for (me, other, e) in [(&a, &b, pair[1]), (&b, &a, pair[0])] {
            if !me.is_hand_side() || other.hand {
                continue;
            }
            let n = other.touch_count();
            if started {
                journal.touched.insert(other.label.0);
                commands.entity(e).insert(Touched(n + 1));
                if me.hand && other.grabbable {
                    journal.in_hand_reach.push(e);
                }
            } else {
                journal.in_hand_reach.retain(|&x| x != e);
                match n {
                    0 => {}
                    1 => {
                        commands.entity(e).remove::<Touched>();
                    }
                    _ => {
                        commands.entity(e).insert(Touched(n - 1));
                    }
                }
            }
        }
    }
}

fn grab(
    mut requests: MessageReader<Grab>,
    mut journal: ResMut<Journal>,
    script: Res<Script>,
    hand: Query<(Entity, &GlobalTransform), With<Hand>>,
    objects: Query<(&Label, &GlobalTransform)>,
    mut pairs: CollisionPairConfig,
    mut commands: Commands,
) {
    for _ in requests.read() {
        // The object touched last.
        let (Ok((h, hand_global)), Some(&obj)) = (hand.single(), journal.in_hand_reach.last())
        else {
            continue;
        };
        let Ok((label, global)) = objects.get(obj) else {
            continue;
        };
        let local = global.reparented_to(hand_global);
        commands.entity(obj).insert((ChildOf(h), local, Held));
        pairs.deactivate_pair(h, obj);
        journal.log(script.frame, Happening::Grab(label.0));
    }
}

fn release(
    mut requests: MessageReader<Release>,
    mut journal: ResMut<Journal>,
    script: Res<Script>,
    hand: Query<Entity, With<Hand>>,
    held: Query<(Entity, &Label, &GlobalTransform), With<Held>>,
    mut pairs: CollisionPairConfig,
    mut commands: Commands,
) {
    for _ in requests.read() {
        for (e, label, global) in &held {
            commands
                .entity(e)
                .remove::<(ChildOf, Held)>()
                .insert(global.compute_transform());
            if let Ok(h) = hand.single() {
                pairs.activate_pair(h, e);
            }
            journal.log(script.frame, Happening::Release(label.0));
        }
    }
}

fn outlines(world: &mut World) -> Vec<picture::Outline> {
    let journal_touched = world.resource::<Journal>().touched.clone();
    let mut q = world.query::<(&Label, &Collider, &GlobalTransform, Has<Hand>)>();
    let mut out: Vec<picture::Outline> = q
        .iter(world)
        .map(|(label, collider, global, is_hand)| {
            let pts = match collider.shape().bounds_geometry() {
                bevy_icollide::collider::BoundsGeometry::Hull(h) => h.vertices().to_vec(),
                bevy_icollide::collider::BoundsGeometry::Points(p) => p.clone(),
                bevy_icollide::collider::BoundsGeometry::Rounded(r) => r.core().to_vec(),
                bevy_icollide::collider::BoundsGeometry::Implicit(s) => {
                    s.local_aabb().corners().to_vec()
                }
                bevy_icollide::collider::BoundsGeometry::HalfSpace(h) => {
                    h.local_aabb().corners().to_vec()
                }
            };
            picture::Outline {
                name: label.0.to_string(),
                points: pts.iter().map(|&p| global.transform_point(p)).collect(),
                touched: journal_touched.contains(label.0),
                is_hand,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn hand_path(app: &App) -> Vec<Vec3> {
    app.world().resource::<Journal>().hand_path.clone()
}

fn print_summary(s: &Summary, config: &Config) {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!("\nwalkthrough: {} frames", s.frames);
    println!("stage      mean ms   worst ms");
    for (name, m, w) in [
        ("sync", s.timings.sync, s.worst.sync),
        ("bounds", s.timings.bounds, s.worst.bounds),
        ("broad", s.timings.broad, s.worst.broad),
        ("narrow", s.timings.narrow, s.worst.narrow),
        ("report", s.timings.report, s.worst.report),
        ("total", s.timings.total(), s.worst.total()),
    ] {
        println!("{name:<9} {:>8.3} {:>10.3}", ms(m), ms(w));
    }
    let starts = s
        .happenings
        .iter()
        .filter(|h| matches!(h, Happening::Touch(..)))
        .count();
    println!(
        "{starts} contacts started; touched by the hand or what it held: {}",
        s.touched.iter().copied().collect::<Vec<_>>().join(", ")
    );
    if let Some(p) = &config.picture {
        println!("picture written to {}", p.display());
    }
}
