//! Which pairs an update tests, and how they are found.
//!
//! A pair needs a test when it is new, when it touched by sweep alone at
//! its last test, or when one of its bodies moved (unless time-to-collision
//! scheduling says it cannot touch yet: [`needs_test`]). A pair touches by
//! sweep only if one of its bodies swept, and a body that swept is moved
//! at the next update (its box shrinks back to its pose:
//! `pipeline/ccd.rs`, [`PairBodies::moved_keys`]), so the moved bodies'
//! pairs include those. When every body
//! moves, one pass over all the pairs asks each of them; when few move,
//! that pass costs a time in the pairs at rest (each pair's state and its
//! two bodies' records read, to test a few). Then the pairs to test are
//! collected instead from the moved bodies' lists of their pairs (the
//! pair index threads one list per body through its array) and the new
//! pairs (the last ones in the array), and tested in array order: the same pairs, in the
//! same order, as the pass would test, so the events do not depend on the
//! choice. A static pair (neither body moving) is then never visited.
//!
//! The choice: the lists are walked when the moved bodies' pairs number
//! fewer than [`WALK_BELOW`]⁻¹ of all the pairs (their count is kept per
//! body, so it is known before walking).

use super::{PairBodies, PairState, needs_test};
use crate::broad_phase::candidates::{CandidateIndex, NIL};

/// The moved bodies' lists are walked when their pairs, summed, number
/// less than the pairs over `WALK_BELOW`: a pair of two moved bodies is in
/// two lists, and a walk reads the lists' links on top of what a pass
/// reads.
const WALK_BELOW: usize = 2;

/// The pairs an update tests, when it does not pass over all of them.
#[derive(Default)]
pub(super) struct Selection {
    /// The slots of the pairs to test, ascending (when walking).
    pub(super) due: Vec<u32>,
    /// Pairs whose need for a test was checked by the last choice (all of
    /// them for a pass).
    pub(super) checked: u32,
}

impl Selection {
    /// Chooses how this update finds its pairs to test: `true`, in
    /// [`due`](Self::due) (collected here); `false`, by one pass over all
    /// the pairs. `fresh` is where the new pairs start in the index.
    pub(super) fn choose(
        &mut self,
        pairs: &CandidateIndex<PairState>,
        fresh: usize,
        bodies: &impl PairBodies,
    ) -> bool {
        self.due.clear();
        let walk = bodies.moved_keys().filter(|moved| walk_pays(pairs, moved));
        let Some(moved) = walk else {
            self.checked = pairs.len() as u32;
            return false;
        };
        self.due.extend(fresh as u32..pairs.len() as u32);
        let mut checked = self.due.len();
        for &p in moved {
            let mut s = pairs.head(p);
            while s != NIL {
                let c = &pairs.all()[s as usize];
                checked += 1;
                if needs_test(bodies, c.key(), &c.value) {
                    self.due.push(s);
                }
                s = pairs.next(s, p);
            }
        }
        self.checked = checked as u32;
        // A pair of two moved bodies, or new and moved, is listed twice.
        self.due.sort_unstable();
        self.due.dedup();
        true
    }
}

/// Whether walking the moved bodies' lists visits fewer pairs than one
/// pass over all of them, by [`WALK_BELOW`] (stops counting as soon as it
/// does not).
fn walk_pays(pairs: &CandidateIndex<PairState>, moved: &[u32]) -> bool {
    let limit = pairs.len() / WALK_BELOW;
    let mut visits = 0usize;
    moved.iter().all(|&p| {
        visits += pairs.degree(p) as usize;
        visits < limit
    })
}
