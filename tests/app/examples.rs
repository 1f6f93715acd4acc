//! The headless examples a user copies from, run as tests: each example's
//! `main` plays a scripted scene and asserts what it demonstrates (the same
//! files `cargo run --example <name>` compiles).

#[path = "../../examples/character/main.rs"]
mod character;
#[path = "../../examples/continuous.rs"]
mod continuous;
#[path = "../../examples/deforming_mesh.rs"]
mod deforming_mesh;
#[path = "../../examples/events.rs"]
mod events;
#[cfg(feature = "bevy_asset")]
#[path = "../../examples/mesh_colliders.rs"]
mod mesh_colliders;
#[path = "../../examples/queries.rs"]
mod queries;
#[path = "../../examples/sensors_and_layers.rs"]
mod sensors_and_layers;

#[test]
fn events_example() {
    events::main();
}

#[test]
fn sensors_and_layers_example() {
    sensors_and_layers::main();
}

#[test]
fn queries_example() {
    queries::main();
}

#[cfg(feature = "bevy_asset")]
#[test]
fn mesh_colliders_example() {
    mesh_colliders::main();
}

#[test]
fn deforming_mesh_example() {
    deforming_mesh::main();
}

#[test]
fn continuous_example() {
    continuous::main();
}

#[test]
fn character_example() {
    character::main();
}
