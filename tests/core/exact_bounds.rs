//! The world's boxes never drop a touching pair (issue 42): for every pair
//! of kinds (convex hull, cuboid, sphere, capsule, mesh with an OBB tree
//! and with an AABB tree, scaled mesh, deformable mesh, compound), at the
//! placements that break rounding, in both bounds modes, over the default
//! broad phase (enlarged boxes over the grid) and sweep and prune, with
//! contact data (Lin–Canny for convex pairs) and without (GJK):
//!
//! - a world holding both bodies reports the pair touching after one step
//!   whenever the same world with a margin so large that every box
//!   overlaps every other (over a brute-force broad phase) does: the
//!   narrow phase's own answer, with only the boxes different (its pair
//!   tests use no box but a compound's, which culls its pieces by the
//!   other body's box);
//! - the two bodies' boxes without margin overlap whenever
//!   `query::intersects` says they touch at the world's poses (the query
//!   on the same geometry as one shape: a scaled mesh's vertices scaled, a
//!   deformable mesh's moved ones).
//!
//! Where the narrow phase and the query disagree (their convex tests'
//! tolerances differ), the runs are counted and printed, not failed: that
//! is not the boxes' doing.
//!
//! The placements: B slid along a random direction, both at random
//! rotations, to the last `f32` step at which `query::intersects` says
//! touching (bisection on the bits of the slide), and one step beyond;
//! boxes touching face to face at the identity rotation, exactly and
//! `2⁻²⁴` of the size apart either way; shapes sharing a vertex, an edge
//! or a face at one pose. Each near the origin and far from it (unit
//! shapes at `10³` and `10⁶`, shapes of `2²⁰` and `2²⁷` at `2³⁵`, `2⁴⁰`
//! and `2⁴⁶`, where `f32` still steps 16 times across them).

use std::collections::BTreeMap;

use bevy_icollide::bounds::BoundsMode;
use bevy_icollide::broad_phase::{BroadPhase, BruteForce, SweepAndPrune};
use bevy_icollide::bvh::TreeKind;
use bevy_icollide::collider::limits::MAX_POSITION;
use bevy_icollide::collider::{CompoundPiece, SharedShape};
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{BodyDesc, CollisionWorld, WorldConfig};
use bevy_icollide::query;
use bevy_icollide::testkit::{Rng, long_factor, sphere_hull, torus};
use glam::{Quat, Vec3};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Hull,
    Cuboid,
    Sphere,
    Capsule,
    MeshObb,
    MeshAabb,
    Scaled,
    Deformable,
    Compound,
}

const KINDS: [Kind; 9] = {
    use Kind::*;
    [
        Hull, Cuboid, Sphere, Capsule, MeshObb, MeshAabb, Scaled, Deformable, Compound,
    ]
};

/// `(size, distance from the origin)`: near the origin, and far from it
/// with `f32` still stepping at least 16 times across the shapes.
const CLASSES: [(f32, f32); 6] = [
    (1.0, 0.0),
    (1.0, 1.0e3),
    (1.0, 1.0e6),
    (1_048_576.0, 34_359_738_368.0),       // 2^20 at 2^35
    (134_217_728.0, 1_099_511_627_776.0),  // 2^27 at 2^40
    (134_217_728.0, 70_368_744_177_664.0), // 2^27 at 2^46
];

/// A scaled mesh's scale.
const SCALE: Vec3 = Vec3::new(1.25, 0.75, 1.5);

/// A body as the world gets it, and the same geometry as one shape for
/// `query::intersects` (a scaled mesh's vertices scaled, a deformable
/// mesh's moved vertices under an AABB tree, as the world's own tree).
struct Item {
    kind: Kind,
    shape: SharedShape,
    scale: Vec3,
    vertices: Option<Vec<Vec3>>,
    reference: SharedShape,
}

fn mesh(v: Vec<Vec3>, t: Vec<[u32; 3]>, tree: TreeKind) -> SharedShape {
    SharedShape::trimesh_with_tree(v, t, tree).expect("a valid mesh")
}

fn compound(size: f32, rng: &mut Rng) -> SharedShape {
    let piece = |pose, shape| CompoundPiece { pose, shape };
    let cuboid = SharedShape::cuboid(Vec3::new(0.5, 0.3, 0.4) * size).expect("a cuboid");
    let capsule = SharedShape::capsule(0.2 * size, 0.5 * size).expect("a capsule");
    let pieces = vec![
        piece(Pose::new(rng.rotation(), Vec3::X * 0.5 * size), cuboid),
        piece(
            Pose::new(rng.rotation(), Vec3::new(-0.5, 0.2, 0.0) * size),
            sphere_hull(rng, 12, 0.5 * size),
        ),
        piece(
            Pose::new(rng.rotation(), Vec3::new(0.0, -0.4, 0.3) * size),
            capsule,
        ),
    ];
    SharedShape::compound(pieces).expect("a compound")
}

fn item(kind: Kind, size: f32, rng: &mut Rng) -> Item {
    let plain = |shape: SharedShape| Item {
        kind,
        reference: shape.clone(),
        shape,
        scale: Vec3::ONE,
        vertices: None,
    };
    let (v, t) = torus(0.6 * size, 0.25 * size, 10, 6);
    match kind {
        Kind::Hull => plain(sphere_hull(rng, 20, size)),
        Kind::Cuboid => plain(SharedShape::cuboid(Vec3::new(1.0, 0.5, 0.75) * size).expect("box")),
        Kind::Sphere => plain(SharedShape::sphere(size).expect("a sphere")),
        Kind::Capsule => plain(SharedShape::capsule(0.5 * size, size).expect("a capsule")),
        Kind::MeshObb => plain(mesh(v, t, TreeKind::Obb)),
        Kind::MeshAabb => plain(mesh(v, t, TreeKind::Aabb)),
        Kind::Scaled => Item {
            kind,
            reference: mesh(
                v.iter().map(|p| *p * SCALE).collect(),
                t.clone(),
                TreeKind::Obb,
            ),
            shape: mesh(v, t, TreeKind::Obb),
            scale: SCALE,
            vertices: None,
        },
        Kind::Deformable => {
            let moved: Vec<Vec3> = v.iter().map(|p| *p + rng.in_cube(0.05 * size)).collect();
            Item {
                kind,
                reference: mesh(moved.clone(), t.clone(), TreeKind::Aabb),
                shape: mesh(v, t, TreeKind::Obb),
                scale: Vec3::ONE,
                vertices: Some(moved),
            }
        }
        Kind::Compound => plain(compound(size, rng)),
    }
}

/// The rotation as the world stores it (`set_pose` normalises a
/// quaternion that is not unit within `4 ε`).
fn unit(q: Quat) -> Quat {
    let off = (q.length_squared() - 1.0).abs() > 4.0 * f32::EPSILON;
    if off { q.normalize() } else { q }
}

#[derive(Clone, Copy, Debug)]
enum Broad {
    Default,
    Sap,
    /// A margin that makes every box overlap every other, brute force.
    Everything,
}

/// Whether a world of both bodies reports them touching after one step.
fn world_touches(
    pair: [(&Item, Pose); 2],
    mode: BoundsMode,
    penetration: bool,
    b: Broad,
) -> (bool, bool) {
    let config = WorldConfig {
        penetration,
        ..Default::default()
    };
    match b {
        Broad::Default => step(CollisionWorld::new(config).expect("config"), pair, mode),
        Broad::Sap => step(
            CollisionWorld::with_broad_phase(config, SweepAndPrune::new()).expect("config"),
            pair,
            mode,
        ),
        Broad::Everything => {
            let config = WorldConfig {
                margin: MAX_POSITION / 4.0,
                ..config
            };
            let world = CollisionWorld::with_broad_phase(config, BruteForce::new());
            step(world.expect("config"), pair, mode)
        }
    }
}

/// Whether the world reports the pair touching after one step, and
/// whether its two boxes without margin overlap.
fn step<B: BroadPhase>(
    mut world: CollisionWorld<B>,
    pair: [(&Item, Pose); 2],
    mode: BoundsMode,
) -> (bool, bool) {
    let handles = pair.map(|(item, pose)| {
        let mut desc = BodyDesc::new(item.shape.clone());
        desc.bounds = mode;
        let h = world.add_body(desc);
        world.set_pose(h, pose).expect("a valid pose");
        if item.scale != Vec3::ONE {
            world.set_scale(h, item.scale).expect("a valid scale");
        }
        if let Some(v) = &item.vertices {
            world.set_vertices(h, v).expect("valid vertices");
        }
        h
    });
    let touches = world.step().any(|e| e.started);
    let [a, b] = handles.map(|h| world.tight_aabb(h).expect("a box"));
    (touches, a.overlaps(&b))
}

/// What the placements found, per kind pair.
#[derive(Default)]
struct Tally {
    placements: usize,
    /// Placements `query::intersects` calls touching.
    touching: usize,
    /// World runs whose boxes without margin are apart at a placement
    /// `query::intersects` calls touching.
    boxes_apart: BTreeMap<(Kind, Kind), usize>,
    /// World runs that missed a touch the everything-overlaps world
    /// reports (the narrow phase's answer, lost to the boxes).
    missed_narrow: BTreeMap<(Kind, Kind), usize>,
    /// Everything-overlaps runs that disagree with `query::intersects`:
    /// the narrow phase's own business, not the boxes' (reported).
    narrow_differs: BTreeMap<(Kind, Kind), usize>,
    first: Option<String>,
}

impl Tally {
    fn check(&mut self, (a, pa): (&Item, Pose), (b, pb): (&Item, Pose), what: &str) {
        let (pa, pb) = (
            Pose::new(unit(pa.rotation), pa.translation),
            Pose::new(unit(pb.rotation), pb.translation),
        );
        self.placements += 1;
        let said = query::intersects(&a.reference, &pa, &b.reference, &pb).expect("valid poses");
        self.touching += usize::from(said);
        let key = (a.kind, b.kind);
        for mode in [BoundsMode::DynamicBox, BoundsMode::FixedCube] {
            for penetration in [true, false] {
                let pair = [(a, pa), (b, pb)];
                let (everything, _) = world_touches(pair, mode, penetration, Broad::Everything);
                if everything != said {
                    *self.narrow_differs.entry(key).or_default() += 1;
                }
                for broad in [Broad::Default, Broad::Sap] {
                    let (got, overlap) = world_touches(pair, mode, penetration, broad);
                    assert!(
                        !got || everything,
                        "{what} {key:?}: boxes cannot make a touch ({mode:?}, {broad:?})"
                    );
                    let apart = said && !overlap;
                    let missed = everything && !got;
                    if apart {
                        *self.boxes_apart.entry(key).or_default() += 1;
                    }
                    if missed {
                        *self.missed_narrow.entry(key).or_default() += 1;
                    }
                    if (apart || missed) && self.first.is_none() {
                        self.first = Some(format!(
                            "{what} {key:?} {mode:?} penetration {penetration} {broad:?}: \
                             query says {said}, everything-overlaps world {everything}, \
                             world {got}, boxes overlap {overlap}; A at {pa:?}, B at {pb:?}"
                        ));
                    }
                }
            }
        }
    }

    fn assert_none_missed(&self, test: &str) {
        println!(
            "{test}: {} placements, {} touching by query::intersects; boxes apart at a \
             touch {:?}; touches of the narrow phase missed {:?}; narrow-phase runs \
             differing from query::intersects (not the boxes' doing) {:?}",
            self.placements,
            self.touching,
            self.boxes_apart,
            self.missed_narrow,
            self.narrow_differs
        );
        let missed: usize = self
            .boxes_apart
            .values()
            .chain(self.missed_narrow.values())
            .sum();
        assert!(
            missed == 0,
            "{test}: {missed} runs lost a touching pair to the boxes; first: {}",
            self.first.as_deref().unwrap_or("")
        );
    }
}

/// B's pose slid by `s` along `dir` from A's translation.
fn slid(pa: &Pose, rot_b: Quat, dir: Vec3, s: f32) -> Pose {
    Pose::new(rot_b, pa.translation + dir * s)
}

/// The last `f32` slide at which `query::intersects` says touching, and
/// the next one (apart), by bisection on the bits: `None` if no sample
/// of the slide touches.
fn grazing(a: &Item, pa: &Pose, b: &Item, rot_b: Quat, dir: Vec3, size: f32) -> Option<[f32; 2]> {
    let touch = |s: f32| {
        let pb = slid(pa, rot_b, dir, s);
        query::intersects(&a.reference, pa, &b.reference, &pb).expect("valid poses")
    };
    let far = 6.0 * size;
    if touch(far) {
        return None;
    }
    let k = (0..16).rev().find(|&k| touch(far * k as f32 / 16.0))?;
    let (mut lo, mut hi) = (
        (far * k as f32 / 16.0).to_bits(),
        (far * (k + 1) as f32 / 16.0).to_bits(),
    );
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if touch(f32::from_bits(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some([f32::from_bits(lo), f32::from_bits(hi)])
}

/// A far translation of size `base` in a random octant.
fn far_point(rng: &mut Rng, base: f32) -> Vec3 {
    let sign = |rng: &mut Rng| if rng.bool() { 1.0 } else { -1.0 };
    Vec3::new(sign(rng), 0.7 * sign(rng), 0.3 * sign(rng)) * base
}

/// Grazing placements found by bisection, at random rotations.
#[test]
fn grazing_pairs_of_every_kind_are_never_dropped() {
    let mut tally = Tally::default();
    let mut rng = Rng::new(42);
    for &(size, base) in &CLASSES {
        for ka in KINDS {
            for kb in KINDS {
                let (a, b) = (item(ka, size, &mut rng), item(kb, size, &mut rng));
                for _ in 0..long_factor() {
                    let centre = far_point(&mut rng, base) + rng.in_cube(size);
                    let pa = Pose::new(unit(rng.rotation()), centre);
                    let (rot_b, dir) = (unit(rng.rotation()), rng.unit_vector());
                    let Some(ends) = grazing(&a, &pa, &b, rot_b, dir, size) else {
                        continue;
                    };
                    for s in ends {
                        tally.check((&a, pa), (&b, slid(&pa, rot_b, dir, s)), "grazing");
                    }
                }
            }
        }
    }
    assert!(
        tally.touching * 3 > tally.placements,
        "the bisection finds touching placements"
    );
    tally.assert_none_missed("grazing");
}

/// Boxes touching face to face at the identity rotation (B's box's min on
/// an axis at A's box's max), exactly and `2⁻²⁴` of the size either way,
/// the centres offset on the other axes or aligned (spheres and capsules
/// then touch on the boxes' faces).
#[test]
fn pairs_whose_boxes_touch_at_the_identity_are_never_dropped() {
    let mut tally = Tally::default();
    let mut rng = Rng::new(24);
    for &(size, base) in &CLASSES {
        for ka in KINDS {
            for kb in KINDS {
                let (a, b) = (item(ka, size, &mut rng), item(kb, size, &mut rng));
                let (ba, bb) = (a.reference.local_aabb(), b.reference.local_aabb());
                for (_, aligned) in (0..long_factor()).flat_map(|k| [(k, false), (k, true)]) {
                    let pa = Pose::from_translation(far_point(&mut rng, base) + rng.in_cube(size));
                    let axis = rng.below(3);
                    let mut offset = if aligned {
                        ba.center() - bb.center()
                    } else {
                        rng.in_cube(0.3 * size)
                    };
                    for nudge in [0.0, 1.0, -1.0] {
                        offset[axis] = ba.max[axis] - bb.min[axis] + nudge * size / 16_777_216.0;
                        let pb = Pose::from_translation(pa.translation + offset);
                        tally.check((&a, pa), (&b, pb), "identity");
                    }
                }
            }
        }
    }
    tally.assert_none_missed("identity");
}

/// Two triangles of one mesh that share a vertex (issue 42's example), as
/// two one-triangle meshes (each tree kind, and deformable), and cuboids
/// sharing a face, an edge or a vertex (as hulls), both at one pose, and
/// with B's frame moved (its vertices shifted by `-d`, its pose by `+d`:
/// the same place in exact arithmetic, rounded differently).
#[test]
fn shapes_sharing_a_feature_at_one_pose_are_never_dropped() {
    let mut tally = Tally::default();
    let mut rng = Rng::new(7);
    for &(size, base) in &CLASSES {
        let (p, q, r, s, t) = (
            Vec3::ZERO,
            Vec3::new(1.0, 0.0, 0.0) * size,
            Vec3::new(0.0, 1.0, 0.0) * size,
            Vec3::new(-0.5, 0.2, 0.7) * size,
            Vec3::new(-0.3, -0.8, 0.4) * size,
        );
        let tri = |kind: Kind, v: Vec<Vec3>| {
            let (tree, vertices) = match kind {
                Kind::MeshAabb => (TreeKind::Aabb, None),
                Kind::Deformable => (TreeKind::Obb, Some(v.clone())),
                _ => (TreeKind::Obb, None),
            };
            let reference_tree = if kind == Kind::MeshObb {
                TreeKind::Obb
            } else {
                TreeKind::Aabb
            };
            Item {
                kind,
                shape: mesh(v.clone(), vec![[0, 1, 2]], tree),
                scale: Vec3::ONE,
                vertices,
                reference: mesh(v, vec![[0, 1, 2]], reference_tree),
            }
        };
        let h = Vec3::new(1.0, 0.5, 0.75) * size;
        let cuboid = |shift: Vec3| {
            let corners: Vec<Vec3> = (0..8)
                .map(|i| {
                    Vec3::new(
                        [-h.x, h.x][i & 1],
                        [-h.y, h.y][i >> 1 & 1],
                        [-h.z, h.z][i >> 2],
                    ) + shift
                })
                .collect();
            let shape = SharedShape::convex_hull(&corners).expect("a box");
            Item {
                kind: Kind::Cuboid,
                reference: shape.clone(),
                shape,
                scale: Vec3::ONE,
                vertices: None,
            }
        };
        for _ in 0..4 * long_factor() {
            let rotation = [Quat::IDENTITY, unit(rng.rotation())][rng.below(2)];
            let pose = Pose::new(rotation, far_point(&mut rng, base) + rng.in_cube(size));
            for ka in [Kind::MeshObb, Kind::MeshAabb, Kind::Deformable] {
                for kb in [Kind::MeshObb, Kind::MeshAabb, Kind::Deformable] {
                    let (a, b) = (tri(ka, vec![p, q, r]), tri(kb, vec![p, s, t]));
                    tally.check((&a, pose), (&b, pose), "shared vertex");
                    let d = rng.in_cube(0.5 * size);
                    let moved = tri(kb, vec![p - d, s - d, t - d]);
                    let at = Pose::new(rotation, pose.translation + rotation * d);
                    tally.check((&a, pose), (&moved, at), "shared vertex, B's frame moved");
                }
            }
            for shift in [Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::ONE] {
                let (a, b) = (cuboid(-h * shift), cuboid(h * shift));
                tally.check((&a, pose), (&b, pose), "shared feature");
                let at = Pose::new(rotation, pose.translation + rotation * (h * shift));
                tally.check(
                    (&a, pose),
                    (&cuboid(Vec3::ZERO), at),
                    "shared feature, B's frame moved",
                );
                let c = h - h * shift;
                let flat = tri(
                    Kind::MeshAabb,
                    vec![c, c - Vec3::X * h.x, c - Vec3::Y * h.y],
                );
                tally.check((&a, pose), (&flat, pose), "triangle on a face");
            }
        }
    }
    tally.assert_none_missed("shared features");
}
