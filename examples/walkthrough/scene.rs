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

/// The hand's scripted path: key positions and headings at frames, eased
/// in between.
#[derive(bevy_ecs::resource::Resource)]
pub struct Script {
    pub frame: u32,
    /// `(frame, palm centre, heading)`; heading 0 points the fingers along
    /// +X, 180° along −X (a turn about +Y).
    pub keys: Vec<(u32, Vec3, f32)>,
    pub grab_at: u32,
    pub release_at: u32,
}

impl Script {
    /// The script around the cup at `cup` (its anchor, Y-up).
    ///
    /// First the hand is pressed down onto the free side of the table
    /// (keys 6 cm below its top, z = 0.2: clear of the teapot and the
    /// cup) and dragged along it: with move and slide it glides on the
    /// tabletop. Then it reaches the cup, takes it and pushes it into the
    /// bookshelf, which stops them both.
    pub fn new(cup: Vec3) -> Self {
        // The palm 13 cm beyond the cup, fingers pointing back over it.
        let above = Vec3::new(cup.x + 0.13, 1.05, cup.z);
        let low = Vec3::new(above.x, 0.895, above.z);
        let lifted = Vec3::new(above.x, 1.1, above.z);
        let shelf = |x| Vec3::new(x, 0.99, 1.07);
        let pressed = |x| Vec3::new(x, 0.74, 0.2);
        Self {
            frame: 0,
            keys: vec![
                (0, Vec3::new(-2.4, 1.2, 0.4), 180.0),
                (90, Vec3::new(0.55, 0.95, 0.2), 180.0),
                (110, pressed(0.55), 180.0),
                (140, pressed(1.2), 180.0),
                (170, above, 180.0),
                (200, low, 180.0),
                (230, low, 180.0),
                (260, lifted, 180.0),
                (380, shelf(2.1), 0.0),
                (420, shelf(2.33), 0.0),
                (440, shelf(2.33), 0.0),
                (520, Vec3::new(1.6, 1.3, 0.5), 60.0),
            ],
            grab_at: 215,
            release_at: 430,
        }
    }

    pub fn last_frame(&self) -> u32 {
        self.keys.last().map_or(0, |k| k.0)
    }

    /// The hand's transform at `frame`.
    pub fn transform(&self, frame: u32) -> Transform {
        let next = self.keys.iter().position(|k| k.0 >= frame);
        let (p, heading) = match next {
            Some(0) => (self.keys[0].1, self.keys[0].2),
            Some(n) => {
                let ((f0, p0, h0), (f1, p1, h1)) = (self.keys[n - 1], self.keys[n]);
                let t = (frame - f0) as f32 / (f1 - f0) as f32;
                let t = t * t * (3.0 - 2.0 * t);
                (p0.lerp(p1, t), h0 + (h1 - h0) * t)
            }
            None => self.keys.last().map_or((Vec3::ZERO, 0.0), |k| (k.1, k.2)),
        };
        // The hand's fingers are along its local +Z: a quarter turn puts
        // them along +X, then the heading turns them about +Y.
        let rotation = Quat::from_rotation_y((90.0 + heading).to_radians());
        Transform::from_translation(p).with_rotation(rotation)
    }
}
