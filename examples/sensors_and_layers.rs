//! Which pairs are tested: `CollisionLayers` (memberships and filters),
//! `Sensor` (a trigger: start and end only, no contact data),
//! `StaticCollider` (two of them never pair) and `CollisionPairConfig`
//! (turn one pair off at run time).
//!
//! Run: `cargo run --example sensors_and_layers`

use bevy_app::prelude::*;
use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;

// Layers are bits of a u32. Bit 0 is the default layer of every collider
// without `CollisionLayers` (`LayerMask::DEFAULT`): ours start at bit 1.
const PLAYER: u32 = 1 << 1;
const ENEMY: u32 = 1 << 2;
const WALL: u32 = 1 << 3;
const TRIGGER: u32 = 1 << 4;

#[derive(Component)]
struct Player;

/// Put on an enemy the player holds: their contact is no longer news.
#[derive(Component)]
struct Held;

/// The touching pairs after this frame's report, by name, with the
/// penetration depth when the pair has contact data.
#[derive(Resource, Default)]
struct Touching(Vec<String>);

fn record(collisions: Collisions, names: Query<&Name>, mut touching: ResMut<Touching>) {
    touching.0.clear();
    for (a, b) in collisions.touching() {
        let mut pair = [a, b].map(|e| names.get(e).map_or("?", Name::as_str));
        pair.sort();
        let contact = match collisions.contact(a, b) {
            Some(c) => format!("depth {:.2}", c.depth),
            None => "no contact data".to_string(),
        };
        touching
            .0
            .push(format!("{} and {}: {contact}", pair[0], pair[1]));
    }
    touching.0.sort();
}

/// Deactivates the pair of the player and each newly held enemy
/// (I-COLLIDE's `deactivate_pair`): the pair ends and is not tested again
/// until `activate_pair`.
fn hold(
    mut config: CollisionPairConfig,
    player: Single<Entity, With<Player>>,
    held: Query<Entity, Added<Held>>,
) {
    for enemy in &held {
        config.deactivate_pair(*player, enemy);
    }
}

fn at(x: f32, y: f32) -> Transform {
    Transform::from_xyz(x, y, 0.0)
}

pub fn main() {
    let mut app = App::new();
    app.add_plugins((TransformPlugin, CollisionPlugin::default()))
        .init_resource::<Touching>()
        .add_systems(Update, hold)
        .add_systems(PostUpdate, record.after(CollisionSystems::Report));
    let world = app.world_mut();
    let ball = Collider::sphere(0.5);
    // The player meets enemies, walls and triggers; enemies meet the player
    // and walls, not each other: a pair needs each side's memberships to
    // meet the other's filters.
    let player = (
        Player,
        Name::new("player"),
        CollisionLayers::new(PLAYER, ENEMY | WALL | TRIGGER),
    );
    let player = world.spawn((player, ball.clone(), at(0.0, 0.0))).id();
    let enemy = CollisionLayers::new(ENEMY, PLAYER | WALL);
    let enemy_a = world
        .spawn((enemy, Name::new("enemy A"), ball.clone(), at(0.8, 0.0)))
        .id();
    world.spawn((enemy, Name::new("enemy B"), ball, at(1.4, 0.0)));
    // Two static walls that overlap: static colliders never pair.
    let wall = (
        StaticCollider,
        CollisionLayers::new(WALL, LayerMask::ALL),
        Collider::cuboid(4.0, 1.0, 1.0),
    );
    world.spawn((wall.clone(), Name::new("wall 1"), at(0.0, 5.0)));
    world.spawn((wall, Name::new("wall 2"), at(1.0, 5.0)));
    // A trigger zone that only the player sets off.
    let zone = (
        Sensor,
        StaticCollider,
        CollisionLayers::new(TRIGGER, PLAYER),
        Name::new("zone"),
    );
    world.spawn((zone, Collider::cuboid(2.0, 2.0, 2.0), at(6.0, 0.0)));

    let frame = |app: &mut App, expected: &[&str]| {
        app.update();
        let touching = &app.world().resource::<Touching>().0;
        println!("touching: {touching:?}");
        assert_eq!(touching, expected);
    };
    // The player overlaps enemy A, which overlaps enemy B; the walls overlap.
    // Only the player's pair is tested, and it has contact data.
    frame(&mut app, &["enemy A and player: depth 0.20"]);

    // The player picks enemy A up: the pair is deactivated (and ends) this frame.
    app.world_mut().entity_mut(enemy_a).insert(Held);
    frame(&mut app, &[]);
    let colliding = app.world().get::<CollidingEntities>(player).unwrap();
    assert!(
        !colliding.contains(enemy_a),
        "they still overlap, but the pair is off"
    );

    // The player walks into the trigger zone: a sensor pair only says it touches.
    app.world_mut().entity_mut(player).insert(at(5.0, 0.0));
    frame(&mut app, &["player and zone: no contact data"]);
    println!("sensors_and_layers: all as expected");
}
