//! The Bevy plugin's integration tests (headless apps), in one binary so
//! that `cargo test` links once. The modules for off-by-default features
//! (`debug-render`, `picking`) compile only with them:
//! `cargo test --features debug-render,picking --test app`.

#[path = "../common/mod.rs"]
mod common;

mod assets;
mod bevy_app;
mod big_space;
mod boxes;
mod ccd;
mod debug_render;
mod event_log;
mod examples;
mod heightfield;
mod hull_scene;
mod implicit;
mod move_and_slide;
mod parallel;
mod picking;
mod polyline;
mod pose_order;
mod reflect;
mod round_kinds;
mod scaled_app;
mod shape_cast_world;
mod spatial_query;
mod static_tables;
mod statics;
mod ttc;
