//! The character example's level, without Bevy (the windowed variant and
//! the peers bench build the same one): a profile in the x–y plane
//! extruded along z into a triangle mesh, and a moving platform.
//!
//! Along +x: floor (y = 0), four stairs of 0.2 × 0.4 m up to a landing at
//! 0.8 m, a walkable 25° slope back down, floor, and a 60° slope (steeper
//! than the 45° limit) up to a plateau at 2 m. The platform (2 × 0.1 × 2 m)
//! starts over the floor at x = −8.

use glam::Vec3;

/// Half the level's width (z from −W to W).
pub const HALF_WIDTH: f32 = 2.0;
/// The stairs' rise.
pub const STEP_RISE: f32 = 0.2;
/// The landing's height.
pub const LANDING: f32 = 0.8;
/// Where the 60° slope starts.
pub const STEEP_FOOT: f32 = 8.0;
/// The platform's half extents.
pub const PLATFORM_HALF: Vec3 = Vec3::new(1.0, 0.05, 1.0);
/// The platform's centre at the start.
pub const PLATFORM_START: Vec3 = Vec3::new(-8.0, 0.1, 0.0);
/// How far the platform moves while the character rides it.
pub const PLATFORM_TRAVEL: Vec3 = Vec3::new(2.0, 0.2, 0.0);

/// The profile's points `(x, y)`, left to right.
pub fn profile() -> Vec<(f32, f32)> {
    let mut p = vec![(-12.0, 0.0)];
    for k in 0..4 {
        let x = 0.4 * k as f32;
        p.push((x, STEP_RISE * k as f32));
        p.push((x, STEP_RISE * (k + 1) as f32));
    }
    p.push((3.2, LANDING));
    p.push((3.2 + LANDING / 25f32.to_radians().tan(), 0.0));
    p.push((STEEP_FOOT, 0.0));
    p.push((STEEP_FOOT + 2.0 / 60f32.to_radians().tan(), 2.0));
    p.push((14.0, 2.0));
    p
}

/// The level: each profile segment a quad from `z = −W` to `W`.
pub fn mesh() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    mesh_of_width(HALF_WIDTH)
}

/// The level from `z = −half_width` to `half_width`.
pub fn mesh_of_width(half_width: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let p = profile();
    let mut vertices = Vec::with_capacity(2 * p.len());
    for &(x, y) in &p {
        vertices.push(Vec3::new(x, y, -half_width));
        vertices.push(Vec3::new(x, y, half_width));
    }
    let mut triangles = Vec::with_capacity(2 * p.len());
    for k in 0..p.len() as u32 - 1 {
        let (a, b, c, d) = (2 * k, 2 * k + 1, 2 * k + 2, 2 * k + 3);
        triangles.push([a, b, d]);
        triangles.push([a, d, c]);
    }
    (vertices, triangles)
}
