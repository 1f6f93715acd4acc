//! Mutation fuzzing on stable Rust, seeded (cargo-fuzz needs a nightly
//! toolchain this project does not have): the OBJ reader, and the tree
//! deserializer, fed mutations of real inputs (bytes flipped, inserted,
//! deleted, lines duplicated or cut). Nothing may panic or loop; what reads
//! must be usable: an OBJ mesh builds a shape or is refused with an error,
//! and a tree that deserializes passes its own layout check and either
//! validates against its mesh and answers queries, or is refused by
//! `validate`.
//!
//! `ICOLLIDE_FUZZ_ITERS` sets the mutations per input (default 300, a few
//! seconds; the closing note gives longer runs).

use crate::common;

use bevy_icollide::bvh::{ContactMode, MeshSide, ObbTree, SplitRule, collide};
use bevy_icollide::collider::SharedShape;
use bevy_icollide::io::parse_obj;
use bevy_icollide::math::Pose;
use bevy_icollide::testkit::Rng;
use glam::Vec3;

fn iterations() -> usize {
    std::env::var("ICOLLIDE_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

/// One random mutation of `bytes`.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let at = |rng: &mut Rng, len: usize| rng.below(len.max(1));
    const INTERESTING: &[&[u8]] = &[
        b"nan",
        b"inf",
        b"-",
        b"1e39",
        b"0",
        b"-1",
        b"4294967295",
        b"\n",
        b"/",
        b" ",
        b"f ",
        b"v ",
        b"\0",
        b"\xff",
        b"9999999999",
    ];
    match rng.below(6) {
        0 if !bytes.is_empty() => {
            let i = at(rng, bytes.len());
            bytes[i] ^= 1 << rng.below(8);
        }
        1 => {
            let i = at(rng, bytes.len() + 1).min(bytes.len());
            let word = INTERESTING[rng.below(INTERESTING.len())];
            bytes.splice(i..i, word.iter().copied());
        }
        2 if !bytes.is_empty() => {
            let i = at(rng, bytes.len());
            let n = rng.below(16).min(bytes.len() - i);
            bytes.drain(i..i + n);
        }
        3 if !bytes.is_empty() => {
            let i = at(rng, bytes.len());
            let n = rng.below(64).min(bytes.len() - i);
            let copy: Vec<u8> = bytes[i..i + n].to_vec();
            let j = at(rng, bytes.len());
            bytes.splice(j..j, copy);
        }
        4 => {
            let cut = at(rng, bytes.len() + 1).min(bytes.len());
            bytes.truncate(cut);
        }
        _ => {
            let i = at(rng, bytes.len() + 1).min(bytes.len());
            let digit = b'0' + rng.below(10) as u8;
            bytes.insert(i, digit);
        }
    }
}

#[test]
fn obj_reader_survives_mutations() {
    let seeds = [
        "o3dv_solids_icosahedron.obj",
        "o3dv_solids_tetrahedron.obj",
        "fcl_rob.obj",
    ];
    let mut rng = Rng::new(9);
    let (mut read, mut refused) = (0, 0);
    for name in seeds {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/meshes")
            .join(name);
        let text = std::fs::read(path).expect("seed file");
        for _ in 0..iterations() {
            let mut bytes = text.clone();
            for _ in 0..1 + rng.below(4) {
                mutate(&mut rng, &mut bytes);
            }
            let Ok(s) = std::str::from_utf8(&bytes) else {
                continue;
            };
            match parse_obj(s) {
                Ok(m) => {
                    read += 1;
                    // What reads either builds or is refused, never panics.
                    let _ = SharedShape::trimesh(m.positions.clone(), m.triangles.clone());
                    let _ = SharedShape::convex_hull(&m.positions);
                }
                Err(e) => {
                    refused += 1;
                    assert!(!e.to_string().is_empty());
                }
            }
        }
    }
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}

#[test]
fn tree_deserializer_survives_mutations() {
    let mesh = common::model("o3dv_solids_icosahedron.obj");
    let tree = ObbTree::build(mesh.vertices(), mesh.triangles(), SplitRule::Mean, 1);
    let json = serde_json::to_string(&tree)
        .expect("serialize")
        .into_bytes();
    let mut rng = Rng::new(10);
    let (mut read, mut usable) = (0, 0);
    for _ in 0..4 * iterations() {
        let mut bytes = json.clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut rng, &mut bytes);
        }
        let Ok(back) = serde_json::from_slice::<ObbTree>(&bytes) else {
            continue;
        };
        read += 1;
        back.validate_layout(back.order.len())
            .expect("a read tree passed its layout check");
        if back.validate(&mesh).is_err() {
            continue;
        }
        // A tree that validates against its mesh answers like the original.
        usable += 1;
        let side = |t| MeshSide::new(&mesh, t, Pose::IDENTITY);
        let moved = MeshSide::new(
            &mesh,
            &tree,
            Pose::from_translation(Vec3::new(0.3, 0.1, 0.0)),
        );
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut scratch = Default::default();
        collide(&side(&tree), &moved, ContactMode::All, &mut scratch, &mut a);
        collide(&side(&back), &moved, ContactMode::All, &mut scratch, &mut b);
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }
    assert!(read > 0 && usable > 0, "{read} read, {usable} usable");
}
