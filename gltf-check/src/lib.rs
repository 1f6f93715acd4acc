//! Nothing here: the crate exists for its test, `tests/gltf_scene.rs`
//! (a glTF scene loaded end to end gets its colliders).
