//! The walkthrough's world: the furnished living room (static meshes), the
//! tea set and the stool (grabbable meshes), and a right hand made of
//! convex pieces (a palm and three segments per finger, I-COLLIDE's
//! hierarchy of convex pieces).
//!
//! The models are in `assets/walkthrough/` (see its `SOURCES.md`), each in
//! the scene's +Z-up axes with its origin at the bottom centre of its box;
//! [`Placed::transform`] puts it in Bevy's +Y-up world: (x, y, z) → (x, z, −y).

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

/// A model and where its anchor goes in the room (Z-up, metres).
pub struct Placed {
    pub name: &'static str,
    pub role: Role,
    /// Anchor (bottom centre) in the scene's Z-up frame.
    pub anchor_zup: Vec3,
}

impl Placed {
    /// The Bevy transform: the model's Z-up axes turned to Y-up, at its anchor.
    pub fn transform(&self) -> Transform {
        Transform::from_translation(zup_to_yup(self.anchor_zup)).with_rotation(zup_rotation())
    }

    /// The model file.
    pub fn path(&self) -> String {
        format!(
            "{}/assets/walkthrough/{}.obj",
            env!("CARGO_MANIFEST_DIR"),
            self.name
        )
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

/// The room's objects, anchors as written by `assets/walkthrough/derive.py`.
pub fn objects() -> Vec<Placed> {
    let p = |name, role, x, y, z| Placed {
        name,
        role,
        anchor_zup: Vec3::new(x, y, z),
    };
    use Role::*;
    vec![
        p("living_room", Furniture, -0.00005, -0.07392, -0.01276),
        p("cabinet", Furniture, -1.77267, 2.55587, -0.00037),
        p("bookshelves", Furniture, 2.716, -1.0716, 0.0),
        p("tall_cabinet", Furniture, 0.0235, 2.61761, -0.00102),
        p("sofa", Furniture, 0.0, -2.41304, 0.00063),
        p("table", Furniture, 0.9, 0.0, -0.00013),
        p("stool", Grabbable, 1.78529, 1.61971, -0.00099),
        p("cup_1", Grabbable, 1.01847, 0.11367, 0.80615),
        p("saucer_1", Grabbable, 1.01769, 0.10091, 0.7998),
        p("teapot", Grabbable, 0.78668, 0.12647, 0.80031),
    ]
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
