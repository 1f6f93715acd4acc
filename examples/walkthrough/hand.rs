//! The headless walkthrough's hand system: it follows the script by move
//! and slide (`motion.rs`, shared with the windowed walkthrough) and logs
//! what stops it.

use bevy_ecs::prelude::*;
use bevy_icollide::prelude::*;
use bevy_transform::prelude::*;

use super::motion::{Obstacles, slide_toward};
use super::scene::Script;
use super::{Hand, Happening, Held, Journal, Label, pose_of};

/// A held object: its entity, transform relative to the hand, collider.
type HeldPart = (Entity, &'static Transform, &'static Collider);

/// Moves the hand (and what it holds) toward the script's pose, turned to
/// its heading, by move and slide against the furniture (`motion.rs`);
/// logs what newly stops them.
pub fn move_hand(
    script: Res<Script>,
    mut journal: ResMut<Journal>,
    mut hand: Query<(Entity, &mut Transform, &Collider), With<Hand>>,
    held: Query<HeldPart, (With<Held>, Without<Hand>)>,
    labels: Query<&Label>,
    obstacles: Res<Obstacles>,
    mut slide: MoveAndSlide,
) {
    let target = script.transform(script.frame);
    let Ok((h, mut t, collider)) = hand.single_mut() else {
        return;
    };
    let held = held.iter().next();
    let j = &mut *journal;
    std::mem::swap(&mut j.blocked, &mut j.blocked_before);
    j.blocked.clear();
    let parts = (h, *t, collider);
    *t = slide_toward(&mut slide, &obstacles, parts, held, target, &mut j.blocked);
    let frame = script.frame;
    j.tracks.push((frame, h, pose_of(&t)));
    if let Some((e, local, _)) = held {
        j.tracks.push((frame, e, pose_of(&t.mul_transform(*local))));
    }
    if frame.is_multiple_of(4) {
        j.hand_path.push(t.translation);
    }
    for k in 0..j.blocked.len() {
        let (a, b) = j.blocked[k];
        if j.blocked_before.contains(&(a, b)) {
            continue;
        }
        if let (Ok(x), Ok(y)) = (labels.get(a), labels.get(b)) {
            j.log(frame, Happening::Blocked(x.0, y.0));
        }
    }
}
