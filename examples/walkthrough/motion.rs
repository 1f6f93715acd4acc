//! The hand's collision response: it moves toward the script's pose by
//! move and slide ([`MoveAndSlide`]) against the furniture, so it slides
//! along the table and the shelves instead of entering them, and what it
//! holds is stopped by the room too.
//!
//! The hand and the object it holds move as one rigid body: the hand
//! slides by the desired motion, the object slides by what the hand got,
//! the hand by what the object got, until both agree (within a hundredth
//! of the skin). A motion on which they do not agree after a few rounds is
//! not taken (nor the turn of that frame): the last pose was clear, so it
//! is kept. Grabbable objects are not obstacles for the hand (it reaches
//! into the cup to take it), and the hand–object pair stays deactivated
//! while held (the pipeline's pair configuration), so neither stops the
//! other.

use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;
use glam::Vec3;

/// What the hand and what it holds may not enter: everything but the
/// hand and the grabbable objects (the furniture and the room's shell).
#[derive(Resource)]
pub struct Obstacles {
    pub filter: SpatialQueryFilter,
    pub options: SlideOptions,
}

impl Obstacles {
    /// The skin: the hand stops this far from the furniture (3 mm).
    pub const SKIN: f32 = 0.003;

    pub fn new(excluded: impl IntoIterator<Item = Entity>) -> Self {
        Obstacles {
            filter: SpatialQueryFilter::default().with_excluded_entities(excluded),
            options: SlideOptions {
                skin: Self::SKIN,
                ..Default::default()
            },
        }
    }
}

/// A moving part: its entity, collider and pose at the start of the move.
pub struct Mover<'a> {
    pub entity: Entity,
    pub collider: &'a Collider,
    pub at: Transform,
}

/// Rounds of hand-then-object slides before a motion is given up.
const ROUNDS: usize = 4;

/// The translation the hand (and what it holds, `held`) can take toward
/// `motion` from its start, or `None` if no agreement was found.
/// `blocked` receives `(mover, obstacle)` for everything the slides came
/// within two skins of.
pub fn rigid_slide(
    slide: &mut MoveAndSlide,
    obstacles: &Obstacles,
    (hand, held): (&Mover, Option<&Mover>),
    motion: Vec3,
    blocked: &mut Vec<(Entity, Entity)>,
) -> Option<Vec3> {
    let mut d = motion;
    for _ in 0..ROUNDS {
        let dh = slide_part(slide, obstacles, hand, d, blocked)?;
        let Some(held) = held else {
            return Some(dh);
        };
        let dk = slide_part(slide, obstacles, held, dh, blocked)?;
        if (dk - dh).length() <= 0.01 * obstacles.options.skin {
            // The hand at `dk` is within a hundredth of the skin of where
            // its slide left it.
            return Some(dk);
        }
        d = dk;
    }
    None
}

/// One part's slide by `d`: its translation (`None` if it is stuck or the
/// input is refused).
fn slide_part(
    slide: &mut MoveAndSlide,
    obstacles: &Obstacles,
    part: &Mover,
    d: Vec3,
    blocked: &mut Vec<(Entity, Entity)>,
) -> Option<Vec3> {
    let start = (part.collider, part.at.translation, part.at.rotation);
    let out = slide
        .move_and_slide(start, d, &obstacles.options, &obstacles.filter, |hit| {
            let pair = (part.entity, hit.entity);
            if !blocked.contains(&pair) {
                blocked.push(pair);
            }
            true
        })
        .ok()?;
    (!out.stuck).then_some(out.translation)
}

/// The hand's transform after moving toward `target` (turned to its
/// rotation first) by [`rigid_slide`], with what it holds (`held`: its
/// entity, transform relative to the hand, collider); `at` unchanged if
/// the motion is not taken.
pub fn slide_toward(
    slide: &mut MoveAndSlide,
    obstacles: &Obstacles,
    (entity, at, collider): (Entity, Transform, &Collider),
    held: Option<(Entity, &Transform, &Collider)>,
    target: Transform,
    blocked: &mut Vec<(Entity, Entity)>,
) -> Transform {
    let turned = Transform {
        rotation: target.rotation,
        ..at
    };
    let held = held.map(|(e, local, c)| Mover {
        entity: e,
        collider: c,
        at: turned.mul_transform(*local),
    });
    let hand = Mover {
        entity,
        collider,
        at: turned,
    };
    let motion = target.translation - at.translation;
    match rigid_slide(slide, obstacles, (&hand, held.as_ref()), motion, blocked) {
        Some(d) => {
            Transform::from_translation(turned.translation + d).with_rotation(turned.rotation)
        }
        None => at,
    }
}
