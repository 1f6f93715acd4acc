//! The collision core's integration tests (no Bevy app), in one binary so
//! that `cargo test` links once: brute-force cross-checks of every query,
//! the world's pipeline, bad input, fuzzing, and the examples run short.
//!
//! Long randomized runs: `ICOLLIDE_LONG=N` runs the seeded suites N times
//! longer; `ICOLLIDE_FUZZ_ITERS` and `ICOLLIDE_PROPERTY_CASES` size the
//! fuzzer and the property tests.

#[path = "../common/mod.rs"]
mod common;

mod all_kinds;
mod bad_input;
mod ball_answers;
mod bounds_brute_force;
mod broad_phase_brute_force;
mod broad_phase_churn;
mod broad_phase_placements;
mod controller;
mod convex_brute_force;
mod deformable;
mod exact_bounds;
mod exact_casts;
mod exact_ccd;
mod exact_curved;
mod exact_field_compounds;
mod exact_field_field;
mod exact_field_motion;
mod exact_field_pieces;
mod exact_gjk_graze;
mod exact_half_space;
mod exact_half_space_pairs;
mod exact_heightfield;
mod exact_heightfield_cast;
mod exact_heightfield_ray;
mod exact_implicit;
mod exact_inputs;
mod exact_mesh_cast_placements;
mod exact_mesh_casts;
mod exact_polyline;
mod exact_polyline_casts;
mod exact_polyline_composites;
mod exact_polyline_motion;
mod exact_polyline_pairs;
mod exact_round_casts;
mod exact_round_fields;
mod exact_round_kinds;
mod exact_rounded;
mod exact_tree_queries;
mod exact_trees;
mod exact_ttc;
mod examples;
mod field_reference;
mod frame_cost;
mod fuzz;
mod implicit_reference;
mod large_world;
mod large_world_boxes;
mod layers;
mod mesh_brute_force;
mod mesh_cast_reference;
mod mesh_distance;
mod mixed_world;
mod movers;
mod parallel;
mod pipeline_order;
mod properties;
mod query;
mod ray_cast;
mod scaled_mesh;
mod scaled_world;
mod shape_cast;
mod slide;
mod soak;
mod support_checks;
mod walkthrough;
mod warm_tetra;
