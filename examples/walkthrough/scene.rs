//! The walkthrough's world: the furnished living room (static meshes), the
//! tea set and the stool (grabbable meshes), and a right hand made of
//! convex pieces (a palm and three segments per finger, I-COLLIDE's
//! hierarchy of convex pieces).
//!
//! The models are in `assets/walkthrough/` (see its `SOURCES.md`), each in
//! the scene's +Z-up axes with its origin at the bottom centre of its box;
//! [`Model::transform`] puts it in Bevy's +Y-up world: (x, y, z) → (x, z, −y).

use std::f32::consts::FRAC_PI_2;

use bevy_icollide::prelude::*;
use bevy_transform::prelude::Transform;
use glam::{Quat, Vec3};

/// What an object is to the gameplay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Room shell and furniture: static.
    Furniture,
    /// Small things the hand can pick up.
    Grabbable,
}

/// A model of the room and its role.
pub struct Model {
    pub name: &'static str,
    pub role: Role,
}

impl Model {
    /// The model file.
    pub fn path(&self) -> String {
        format!(
            "{}/assets/walkthrough/{}.obj",
            env!("CARGO_MANIFEST_DIR"),
            self.name
        )
    }

    /// The Bevy transform: the model's Z-up axes turned to Y-up, at the
    /// anchor its file's header gives (`# anchor in the room: x y z`,
    /// written by `assets/walkthrough/derive.py`).
    pub fn transform(&self, obj_text: &str) -> Result<Transform, String> {
        let anchor = obj_text
            .lines()
            .find_map(|l| l.strip_prefix("# anchor in the room:"))
            .ok_or_else(|| format!("{}: no anchor line", self.path()))?;
        let xyz: Vec<f32> = anchor
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: bad anchor: {e}", self.path()))?;
        let [x, y, z] = xyz[..] else {
            return Err(format!("{}: the anchor needs 3 numbers", self.path()));
        };
        let at = zup_to_yup(Vec3::new(x, y, z));
        Ok(Transform::from_translation(at).with_rotation(zup_rotation()))
    }
}

/// (x, y, z) in the Z-up scene → Bevy's Y-up world.
pub fn zup_to_yup(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.z, -p.y)
}

/// The rotation that does [`zup_to_yup`] on a model's axes.
pub fn zup_rotation() -> Quat {
    Quat::from_rotation_x(-FRAC_PI_2)
}

/// The room's objects.
pub fn models() -> Vec<Model> {
    use Role::*;
    [
        ("living_room", Furniture),
        ("cabinet", Furniture),
        ("bookshelves", Furniture),
        ("tall_cabinet", Furniture),
        ("sofa", Furniture),
        ("table", Furniture),
        ("stool", Grabbable),
        ("cup_1", Grabbable),
        ("saucer_1", Grabbable),
        ("teapot", Grabbable),
    ]
    .into_iter()
    .map(|(name, role)| Model { name, role })
    .collect()
}

/// A finger segment (or thumb bone): the hull of elliptic rings along +Z,
/// centred on the origin, narrower at the ends (a rounded capsule).
fn segment(len: f32, width: f32, thick: f32) -> Result<SharedShape, ShapeError> {
    let mut pts = Vec::new();
    for (t, s) in [(0.0, 0.55), (0.15, 1.0), (0.85, 1.0), (1.0, 0.55)] {
        for k in 0..8 {
            let a = k as f32 * std::f32::consts::FRAC_PI_4;
            pts.push(Vec3::new(
                a.cos() * width * 0.5 * s,
                a.sin() * thick * 0.5 * s,
                (t - 0.5) * len,
            ));
        }
    }
    SharedShape::convex_hull(&pts)
}

/// Appends a chain of segments starting at `joint`: each segment is bent
/// by `curl` (toward the palm, −Y) at its base joint.
fn chain(
    pieces: &mut Vec<CompoundPiece>,
    mut joint: Pose,
    lengths: &[f32],
    width: f32,
    curl: f32,
) -> Result<(), ShapeError> {
    for &len in lengths {
        joint = joint.mul(&Pose::new(Quat::from_rotation_x(curl), Vec3::ZERO));
        let center = joint.mul(&Pose::from_translation(Vec3::new(0.0, 0.0, len * 0.5)));
        pieces.push(CompoundPiece {
            pose: center,
            shape: segment(len, width, width * 0.85)?,
        });
        joint = joint.mul(&Pose::from_translation(Vec3::new(0.0, 0.0, len)));
    }
    Ok(())
}

/// A life-size right hand, palm down (−Y), fingers along +Z, thumb on +X:
/// a palm and 15 finger segments, 16 convex pieces in all.
pub fn hand() -> Result<SharedShape, ShapeError> {
    let palm = Vec3::new(0.0425, 0.0125, 0.0475);
    let mut pieces = vec![CompoundPiece {
        pose: Pose::IDENTITY,
        shape: SharedShape::cuboid(palm)?,
    }];
    // Little, ring, middle, index: x of the knuckle, segment lengths.
    let fingers: [(f32, [f32; 3]); 4] = [
        (-0.031, [0.032, 0.020, 0.018]),
        (-0.0105, [0.042, 0.026, 0.021]),
        (0.0105, [0.045, 0.028, 0.022]),
        (0.031, [0.040, 0.025, 0.020]),
    ];
    for (x, lengths) in fingers {
        let knuckle = Pose::from_translation(Vec3::new(x, 0.0, palm.z));
        chain(&mut pieces, knuckle, &lengths, 0.018, 0.22)?;
    }
    let thumb_base = Pose::new(
        Quat::from_rotation_y(0.75),
        Vec3::new(palm.x - 0.004, -0.004, -0.015),
    );
    chain(&mut pieces, thumb_base, &[0.036, 0.030, 0.025], 0.021, 0.15)?;
    SharedShape::compound(pieces)
}
