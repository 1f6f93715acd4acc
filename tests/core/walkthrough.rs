//! The walkthrough example, run by the test suite so it cannot rot: the
//! scripted hand is pressed onto the table and glides along it, touches
//! the cup, grabs it, carries it into the bookshelf and releases it, in
//! that order, and the picture is written.
//!
//! The hand moves by move and slide against the furniture, so the
//! recorded events are not those of a hand that passes through things:
//! the table and the bookshelf *stop* the hand and the held cup
//! (`Blocked`, from the slide's touches) instead of being touched (no
//! `CollisionStart` between them and the furniture: they never meet).
//! That is checked independently of the slide: at every frame the exact
//! distance (`query::distance`: the OBB tree's branch and bound, exact
//! triangle distances, 0 when a triangle is inside a piece) from the hand
//! and from the held cup to every piece of furniture is positive — no
//! penetration at all, let alone one deeper than the skin (the meshes
//! have no penetration depth: the distance is the exact measure).

#[allow(dead_code)]
#[path = "../../examples/walkthrough/main.rs"]
mod example;

use bevy_icollide::query::distance;
use example::{Config, Happening, Summary};

fn touch(h: &Happening, x: &str, y: &str) -> bool {
    matches!(h, Happening::Touch(a, b) if (*a, *b) == (x, y) || (*a, *b) == (y, x))
}

/// The skin of the hand's slide (`motion.rs`: 3 mm).
const SKIN: f32 = 0.003;

#[test]
fn the_hand_glides_on_the_table_grabs_carries_and_releases_the_cup() {
    let picture = std::env::temp_dir().join("bevy_icollide_walkthrough_test.svg");
    let summary = example::run(&Config {
        picture: Some(picture.clone()),
        verbose: false,
    })
    .expect("the walkthrough runs");
    let steps: [&dyn Fn(&Happening) -> bool; 5] = [
        &|h| *h == Happening::Blocked("hand", "table"),
        &|h| touch(h, "hand", "cup_1"),
        &|h| *h == Happening::Grab("cup_1"),
        &|h| *h == Happening::Blocked("cup_1", "bookshelves"),
        &|h| *h == Happening::Release("cup_1"),
    ];
    let mut at = 0;
    for (i, step) in steps.iter().enumerate() {
        let found = summary.happenings[at..].iter().position(step);
        let Some(k) = found else {
            panic!("step {i} missing after {at}: {:#?}", summary.happenings);
        };
        at += k + 1;
    }
    // Nothing else is grabbed, and the cup is not released twice.
    let grabs = summary
        .happenings
        .iter()
        .filter(|h| matches!(h, Happening::Grab(_) | Happening::Release(_)))
        .count();
    assert_eq!(grabs, 2, "{:#?}", summary.happenings);
    // The hand and the cup never touch the furniture (they are stopped
    // by it): only the grabbable cup is touched.
    let furniture: Vec<&str> = summary.furniture.iter().map(|f| f.0).collect();
    let met = summary.happenings.iter().find(|h| {
        ["hand", "cup_1"]
            .iter()
            .any(|m| furniture.iter().any(|f| touch(h, m, f)))
    });
    assert!(met.is_none(), "{met:?} in {:#?}", summary.happenings);
    assert!(summary.touched.contains("cup_1") && !summary.touched.contains("bookshelves"));
    the_hand_and_the_cup_stay_out_of_the_furniture(&summary);
    let svg = std::fs::read_to_string(&picture).expect("picture written");
    assert!(svg.starts_with("<svg") && svg.contains("cup_1") && svg.contains("#e53935"));
    let _ = std::fs::remove_file(picture);
}

/// The exact distance from the hand (every frame) and the held cup (while
/// held) to every piece of furniture is at least a quarter of the skin;
/// while dragged on the table (frames 112–140) the hand stays within two
/// skins of it and moves 40 cm along it.
fn the_hand_and_the_cup_stay_out_of_the_furniture(summary: &Summary) {
    let mut closest = (f32::INFINITY, 0, "", "");
    let mut on_table = Vec::new();
    for t in &summary.tracks {
        for (name, shape, pose) in &summary.furniture {
            // Boxes more than a skin apart: farther than the skin.
            let near = shape.local_aabb().transformed(pose).padded(SKIN);
            if !near.overlaps(&t.shape.local_aabb().transformed(&t.pose)) {
                continue;
            }
            let d = distance(&t.shape, &t.pose, shape, pose).expect("distance");
            if d < closest.0 {
                closest = (d, t.frame, t.name, *name);
            }
            let dragged = (112..=140).contains(&t.frame) && t.name == "hand";
            if dragged && *name == "table" {
                on_table.push((t.frame, d, t.pose.translation.x));
            }
        }
    }
    eprintln!("walkthrough: closest approach {closest:?} (skin {SKIN})");
    assert!(closest.0 >= 0.25 * SKIN, "{closest:?}");
    assert_eq!(on_table.len(), 29);
    assert!(
        on_table.iter().all(|&(_, d, _)| d <= 2.0 * SKIN),
        "{on_table:?}"
    );
    let glide = on_table[28].2 - on_table[0].2;
    assert!(glide > 0.4, "{on_table:?}");
}
