//! The narrow phase's boolean hull path (`PairBodies::hull_side`, tested
//! without building the pair's sides) against the general path it stands
//! for: the same world run twice, once through the world's bodies and
//! once through a view of them that offers no hull side, must leave every
//! pair in the same state (result, contact frame, wake, warm-start cache,
//! compared through their `Debug` text, which prints every `f32` and `f64`
//! exactly) and append the same raw pair events in the same order.
//!
//! The scenes mix what decides between the paths: hulls and spheres,
//! penetration on and off, sensors, continuous detection, time-to-collision
//! scheduling, near the origin, 10⁵ and 3·10⁹ away.

use glam::DVec3;

use super::CollisionWorld;
use super::driver::Bodies;
use crate::broad_phase::{BroadPhase, PairKey};
use crate::collider::{ShapeData, SharedShape};
use crate::math::{MotionResidual, RigidMotion, WorldPose};
use crate::narrow_phase::{PairBodies, PairEvent};
use crate::pipeline::{BodyDesc, BodyHandle, WorldConfig};
use crate::query::PairSide;
use crate::testkit::{MultiBodyParams, MultiBodyScene};

/// The world's bodies without the hull path: every pair takes the general
/// one (`hull_side` keeps its default, `None`).
struct General<'a>(Bodies<'a>);

impl PairBodies for General<'_> {
    fn side(&self, key: u32, origin: DVec3) -> PairSide<'_> {
        self.0.side(key, origin)
    }
    fn swept_side(&self, key: u32, origin: DVec3) -> PairSide<'_> {
        self.0.swept_side(key, origin)
    }
    fn origin(&self, key: u32) -> DVec3 {
        self.0.origin(key)
    }
    fn sweep_origin(&self, a: u32, b: u32) -> DVec3 {
        self.0.sweep_origin(a, b)
    }
    fn shape(&self, key: u32) -> &ShapeData {
        self.0.shape(key)
    }
    fn moved(&self, key: u32) -> bool {
        self.0.moved(key)
    }
    fn sweep(&self, key: u32, origin: DVec3) -> Option<(RigidMotion, MotionResidual)> {
        self.0.sweep(key, origin)
    }
    fn travel(&self, key: u32) -> Option<f64> {
        self.0.travel(key)
    }
    fn retest(&self, key: u32) -> bool {
        self.0.retest(key)
    }
}

/// One frame's narrow phase through the world's bodies (`hull_path`) or
/// through [`General`]: its raw pair events, then every pair's state.
fn frame(world: &mut CollisionWorld, hull_path: bool) -> (Vec<PairEvent>, Vec<String>) {
    world.update_broad_phase();
    world.broad.drain_changes(&mut world.changes);
    let bodies = Bodies::new(&world.bodies, &world.moved, &world.config);
    let (narrow, changes, out) = (&mut world.narrow, &world.changes, &mut world.pair_events);
    if hull_path {
        narrow.update(changes, &bodies, out);
    } else {
        narrow.update(changes, &General(bodies), out);
    }
    let events = out.clone();
    world.finish_narrow_phase();
    let mut pairs: Vec<(PairKey, String)> = world
        .narrow
        .pairs()
        .map(|(k, s)| (k, format!("{s:?}")))
        .collect();
    pairs.sort_unstable_by_key(|p| p.0);
    (events, pairs.into_iter().map(|p| p.1).collect())
}

/// A world of `params`' hulls (every seventh a sphere instead, every fifth
/// a sensor, every eleventh with continuous detection).
fn world(params: &MultiBodyParams, config: WorldConfig) -> (CollisionWorld, Vec<BodyHandle>) {
    let scene = MultiBodyScene::new(params);
    let sphere = SharedShape::sphere(1.0).expect("sphere");
    let mut world = CollisionWorld::new(config).expect("config");
    let ids = (0..params.count)
        .map(|i| {
            let shape = if i % 7 == 3 {
                sphere.clone()
            } else {
                scene.shape_of(i).clone()
            };
            world.add_body(BodyDesc {
                sensor: i % 5 == 1,
                ccd: i % 11 == 2,
                ..BodyDesc::new(shape)
            })
        })
        .collect();
    (world, ids)
}

/// Runs the scene through both paths, frame by frame; panics at the first
/// difference. Returns the pair tests and events seen.
fn compare(config: WorldConfig, (count, offset): (usize, DVec3), seed: u64) -> (u32, usize) {
    let params = MultiBodyParams {
        count,
        density: 0.2,
        rotation_deg: 6.0,
        translation: 0.06,
        seed,
        ..Default::default()
    };
    let mut scene = MultiBodyScene::new(&params);
    let (mut fast, ids) = world(&params, config);
    let (mut general, _) = world(&params, config);
    let (mut tests, mut events) = (0, 0);
    for f in 0..30 {
        for (i, &h) in ids.iter().enumerate() {
            let p = scene.bodies[i].pose;
            // Bodies with continuous detection jump 5 radii back and forth:
            // their sweeps cross bodies they touch at neither end.
            let jump = if i % 11 == 2 && f % 2 == 1 { 5.0 } else { 0.0 };
            let t = p.translation.as_dvec3() + DVec3::new(jump, 0.0, 0.0);
            let pose = WorldPose::new(p.rotation, t + offset);
            fast.set_pose_f64(h, pose).expect("valid pose");
            general.set_pose_f64(h, pose).expect("valid pose");
        }
        let (a, b) = (frame(&mut fast, true), frame(&mut general, false));
        assert_eq!(a.0, b.0, "frame {f}, offset {offset}: raw pair events");
        for (sa, sb) in a.1.iter().zip(&b.1) {
            assert_eq!(sa, sb, "frame {f}, offset {offset}: pair state");
        }
        assert_eq!(a.1.len(), b.1.len(), "frame {f}: active pairs");
        tests += fast.stats().pair_tests;
        events += a.0.len();
        scene.step();
    }
    (tests, events)
}

#[test]
fn hull_path_leaves_the_pairs_as_the_general_path_does() {
    // Far out, every box is padded by 2⁻¹⁷ of its translation (see
    // `Aabb::placed_at`): at 3·10⁹ every pair of the scene is tested.
    let places = [
        (160, DVec3::ZERO),
        (160, DVec3::new(1.0e5 + 0.1, -7.0e4 - 0.3, 3.0e4)),
        (40, DVec3::new(3.0e9, -2.0e9 - 0.3, 1.0e6 + 0.1)),
    ];
    for (k, penetration, ttc) in [(0, false, false), (1, true, false), (2, false, true)] {
        let config = WorldConfig {
            penetration,
            time_to_collision: ttc,
            ..Default::default()
        };
        for (j, &place) in places.iter().enumerate() {
            let (tests, events) = compare(config, place, 45 + k * 3 + j as u64);
            assert!(tests > 3000, "{tests} pair tests");
            assert!(events > 40, "{events} events");
        }
    }
}

/// The bounds update and the pose sync read a body's record in its first
/// `HOT_BYTES`, which start a cache line: every field they read must end
/// there, and the fields of the optional features after. The hull path and
/// the broad phase's filter read its first `NARROW_BYTES`, which the
/// narrow phase hints ahead.
#[test]
fn the_hot_fields_fill_the_record_s_first_lines() {
    use super::body::{Body, HOT_BYTES, Layers, NARROW_BYTES};
    use crate::bounds::{BoundsMode, DynamicBox};
    use crate::math::Aabb;
    use std::mem::{align_of, offset_of, size_of};
    macro_rules! end {
        ($field:ident, $t:ty) => {
            (
                stringify!($field),
                offset_of!(Body, $field) + size_of::<$t>(),
            )
        };
    }
    assert_eq!(align_of::<Body>(), 64);
    let hot = [
        end!(pose, Option<WorldPose>),
        end!(shape, SharedShape),
        end!(dynamic_box, DynamicBox),
        end!(tight, Aabb),
        end!(unswept, Aabb),
        end!(scale, glam::Vec3),
        end!(generation, u32),
        end!(deform, Option<Box<super::deform::Deformable>>),
        end!(layers, Layers),
        end!(mode, BoundsMode),
        end!(is_static, bool),
        end!(active, bool),
        end!(sensor, bool),
        end!(in_broad, bool),
        end!(dirty, bool),
        end!(alive, bool),
        end!(ccd, bool),
    ];
    for (field, end) in hot {
        assert!(end <= HOT_BYTES, "{field} ends at byte {end}");
    }
    // What the hull path reads of a body (and the pair filter), within the
    // narrow phase's hint.
    let narrow = [
        end!(pose, Option<WorldPose>),
        end!(shape, SharedShape),
        end!(sensor, bool),
        end!(ccd, bool),
        end!(active, bool),
        end!(layers, Layers),
    ];
    for (field, end) in narrow {
        assert!(end <= NARROW_BYTES, "{field} ends at byte {end}");
    }
    for cold in [offset_of!(Body, step_start), offset_of!(Body, travel)] {
        assert!(cold >= HOT_BYTES);
    }
}
