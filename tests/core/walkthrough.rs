//! The walkthrough example, run by the test suite so it cannot rot: the
//! scripted hand touches the cup, grabs it, carries it into the bookshelf
//! (the cup hits it) and releases it, in that order, and the picture is
//! written.

#[allow(dead_code)]
#[path = "../../examples/walkthrough/main.rs"]
mod example;

use example::{Config, Happening};

fn touch(h: &Happening, x: &str, y: &str) -> bool {
    matches!(h, Happening::Touch(a, b) if (*a, *b) == (x, y) || (*a, *b) == (y, x))
}

#[test]
fn the_hand_touches_grabs_carries_and_releases_the_cup() {
    let picture = std::env::temp_dir().join("bevy_icollide_walkthrough_test.svg");
    let summary = example::run(&Config {
        picture: Some(picture.clone()),
        verbose: false,
    })
    .expect("the walkthrough runs");
    let steps: [&dyn Fn(&Happening) -> bool; 4] = [
        &|h| touch(h, "hand", "cup_1"),
        &|h| *h == Happening::Grab("cup_1"),
        &|h| touch(h, "cup_1", "bookshelves"),
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
    assert!(summary.touched.contains("cup_1") && summary.touched.contains("bookshelves"));
    let svg = std::fs::read_to_string(&picture).expect("picture written");
    assert!(svg.starts_with("<svg") && svg.contains("cup_1") && svg.contains("#e53935"));
    let _ = std::fs::remove_file(picture);
}
