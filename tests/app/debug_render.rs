//! The debug plugin (feature `debug-render`) draws what the world holds:
//! the lines recorded for each item, told apart by color, are counted and
//! compared with O(n²) references over the same scene (all box pairs, the
//! SAT on every convex pair, every triangle pair of the mesh pairs).
//!
//! Run: `cargo test --features debug-render --test debug_render`.
#![cfg(feature = "debug-render")]

use std::any::TypeId;

use bevy_app::prelude::*;
use bevy_asset::{AssetPlugin, Assets};
use bevy_color::{Color, LinearRgba};
use bevy_ecs::prelude::*;
use bevy_gizmos::GizmoPlugin;
use bevy_gizmos::prelude::GizmoConfigStore;
use bevy_gizmos::{GizmoAsset, GizmoHandles};
use bevy_icollide::bvh::{BvNode, Bvh, SurfaceTree};
use bevy_icollide::prelude::*;
use bevy_icollide::testkit::{self, Poly, Rng, torus};
use glam::{Quat, Vec3};

/// One distinct color per item, so each line tells what drew it.
fn palette() -> CollisionGizmos {
    let c = |i: u8| Some(Color::srgb_u8(10 * i, 255 - 10 * i, 7 * i));
    CollisionGizmos {
        fixed_cube_color: c(1),
        dynamic_box_color: c(2),
        shape_color: c(3),
        colliding_color: c(4),
        pair_color: c(5),
        closest_points_color: c(6),
        contact_point_color: c(7),
        contact_normal_color: c(8),
        contact_size: 0.1,
        triangle_color: c(9),
        tree_color: c(10),
    }
}

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin::default(),
        CollisionDebugPlugin::default(),
        GizmoPlugin,
        CollisionPlugin::default(),
    ));
    app.finish();
    let mut store = app.world_mut().resource_mut::<GizmoConfigStore>();
    *store.config_mut::<CollisionGizmos>().1 = palette();
    app
}

/// Segments recorded for the collision group last frame, per color.
fn segments(app: &App, color: Option<Color>) -> usize {
    let world = app.world();
    let handles = world.resource::<GizmoHandles>();
    let Some(Some(handle)) = handles.handles().get(&TypeId::of::<CollisionGizmos>()) else {
        return 0;
    };
    let asset = world
        .resource::<Assets<GizmoAsset>>()
        .get(handle)
        .expect("gizmo asset");
    let want: LinearRgba = color.expect("a color").into();
    let colors = &asset.buffer().list_colors;
    colors.chunks(2).filter(|c| c[0] == want).count()
}

struct Body {
    shape: SharedShape,
    pose: Pose,
    entity: Entity,
    hidden: bool,
    fixed: bool,
}

/// Nodes at `depth` plus leaves above it, counted from the node array.
fn level_size<N: BvNode>(tree: &Bvh<N>, i: usize, d: usize, depth: usize) -> usize {
    let n = &tree.nodes[i];
    if d == depth || n.is_leaf() {
        return 1;
    }
    let f = n.first() as usize;
    level_size(tree, f, d + 1, depth) + level_size(tree, f + 1, d + 1, depth)
}

fn spawn(app: &mut App, rng: &mut Rng) -> Vec<Body> {
    let mut bodies = Vec::new();
    let (pos, tris) = torus(1.0, 0.3, 20, 10);
    let ring = SharedShape::trimesh(pos, tris).unwrap();
    for i in 0..30 {
        let (shape, fixed) = match i {
            0 | 1 => (ring.clone(), false),
            _ => (SharedShape::cuboid(rng.vec(0.2, 0.6)).unwrap(), i % 3 == 0),
        };
        let pose = Pose::new(rng.rotation(), rng.in_cube(2.5));
        let mut collider = Collider::new(shape.clone());
        if fixed {
            collider = collider.with_bounds(BoundsMode::FixedCube);
        }
        let hidden = i == 7;
        let mut e = app.world_mut().spawn((collider, ColliderPose(pose)));
        if hidden {
            e.insert(DebugRender::hidden());
        }
        if i == 0 {
            e.insert(DebugRender::default().with_tree_depth(3));
        }
        bodies.push(Body {
            shape,
            pose,
            entity: e.id(),
            hidden,
            fixed,
        });
    }
    bodies
}

/// What the references say each item should draw.
#[derive(Debug, Default, PartialEq)]
struct Expected {
    fixed: usize,
    dynamic: usize,
    shape: usize,
    colliding: usize,
    pairs: usize,
    closest: usize,
    contact_points: usize,
    normals: usize,
    triangles: usize,
    tree: usize,
}

fn expected(app: &App, bodies: &[Body]) -> Expected {
    let mut x = Expected::default();
    let boxes: Vec<Aabb> = bodies
        .iter()
        .map(|b| app.world().get::<ColliderAabb>(b.entity).unwrap().0)
        .collect();
    let mut touching = vec![false; bodies.len()];
    for (i, a) in bodies.iter().enumerate() {
        for (j, b) in bodies.iter().enumerate().skip(i + 1) {
            if !boxes[i].overlaps(&boxes[j]) {
                continue;
            }
            x.pairs += 1;
            let touch = match (a.shape.polytope(), b.shape.polytope()) {
                (Some(_), Some(_)) => {
                    let t =
                        testkit::sat(&Poly::of(&a.shape, &a.pose), &Poly::of(&b.shape, &b.pose)).0
                            >= 0.0;
                    if t {
                        x.contact_points += 6;
                        x.normals += 1;
                    } else {
                        x.closest += 1;
                    }
                    t
                }
                _ => {
                    let (ma, mb) = (
                        a.shape.surface().unwrap().mesh,
                        b.shape.surface().unwrap().mesh,
                    );
                    let n = testkit::triangle_pairs(ma, &a.pose, mb, &b.pose).len();
                    x.triangles += 6 * n;
                    n > 0
                }
            };
            touching[i] |= touch;
            touching[j] |= touch;
        }
    }
    for (i, b) in bodies.iter().enumerate().filter(|(_, b)| !b.hidden) {
        *(if b.fixed {
            &mut x.fixed
        } else {
            &mut x.dynamic
        }) += 12;
        if b.shape.polytope().is_some() {
            *(if touching[i] {
                &mut x.colliding
            } else {
                &mut x.shape
            }) += 12;
        }
    }
    let SurfaceTree::Obb(tree) = bodies[0].shape.surface_tree() else {
        panic!("an OBB tree")
    };
    x.tree = 12 * level_size(tree, 0, 0, 3);
    x
}

fn drawn(app: &App) -> Expected {
    let p = palette();
    Expected {
        fixed: segments(app, p.fixed_cube_color),
        dynamic: segments(app, p.dynamic_box_color),
        shape: segments(app, p.shape_color),
        colliding: segments(app, p.colliding_color),
        pairs: segments(app, p.pair_color),
        closest: segments(app, p.closest_points_color),
        contact_points: segments(app, p.contact_point_color),
        normals: segments(app, p.contact_normal_color),
        triangles: segments(app, p.triangle_color),
        tree: segments(app, p.tree_color),
    }
}

/// Seeded scenes of boxes and two tori, moved for a few frames: every item
/// draws exactly what the brute-force references count.
#[test]
fn every_item_draws_what_brute_force_counts() {
    let mut app = app();
    let mut rng = Rng::new(11);
    let mut bodies = spawn(&mut app, &mut rng);
    let mut seen = Expected::default();
    for frame in 0..6 {
        app.update();
        let want = expected(&app, &bodies);
        assert_eq!(drawn(&app), want, "frame {frame}");
        seen.closest += want.closest;
        seen.contact_points += want.contact_points;
        seen.triangles += want.triangles;
        seen.colliding += want.colliding;
        for b in &mut bodies {
            b.pose = Pose::new(
                b.pose.rotation * Quat::from_rotation_y(0.2),
                b.pose.translation * 0.9,
            );
            app.world_mut().get_mut::<ColliderPose>(b.entity).unwrap().0 = b.pose;
        }
    }
    // The scenes are not vacuous: every kind of item was drawn.
    assert!(
        seen.closest > 0 && seen.contact_points > 0 && seen.triangles > 0 && seen.colliding > 0,
        "{seen:?}"
    );
}

/// Turning the gizmo group off draws nothing; a `None` color skips its item.
#[test]
fn the_gizmo_group_and_colors_switch_items_off() {
    let mut app = app();
    let mut rng = Rng::new(5);
    spawn(&mut app, &mut rng);
    app.update();
    let p = palette();
    assert!(segments(&app, p.pair_color) > 0);
    app.world_mut()
        .resource_mut::<GizmoConfigStore>()
        .config_mut::<CollisionGizmos>()
        .1
        .pair_color = None;
    app.update();
    assert_eq!(segments(&app, p.pair_color), 0);
    assert!(segments(&app, p.dynamic_box_color) > 0);
    app.world_mut()
        .resource_mut::<GizmoConfigStore>()
        .config_mut::<CollisionGizmos>()
        .0
        .enabled = false;
    app.update();
    assert_eq!(segments(&app, p.dynamic_box_color), 0);
}

/// Without Bevy's `GizmoPlugin` the debug plugin draws nothing and the
/// app runs.
#[test]
fn without_the_gizmo_plugin_nothing_is_drawn_and_nothing_panics() {
    let mut app = App::new();
    app.add_plugins((CollisionPlugin::default(), CollisionDebugPlugin::default()));
    app.finish();
    app.world_mut()
        .spawn((Collider::cuboid(2.0, 2.0, 2.0), ColliderPose::default()));
    app.update();
    assert!(!app.world().contains_resource::<GizmoConfigStore>());
}

/// Segment end points recorded for the collision group last frame, of one
/// color.
fn segment_points(app: &App, color: Option<Color>) -> Vec<Vec3> {
    let world = app.world();
    let handles = world.resource::<GizmoHandles>();
    let Some(Some(handle)) = handles.handles().get(&TypeId::of::<CollisionGizmos>()) else {
        return Vec::new();
    };
    let asset = world
        .resource::<Assets<GizmoAsset>>()
        .get(handle)
        .expect("gizmo asset");
    let want: LinearRgba = color.expect("a color").into();
    let buffer = asset.buffer();
    (buffer.list_positions.iter())
        .zip(buffer.list_colors.iter())
        .filter(|(_, c)| **c == want)
        .map(|(p, _)| *p)
        .collect()
}

/// A mesh collider scaled by its transform is drawn at its scale: its
/// tree's root box holds the scaled vertices, and the intersecting
/// triangles are the scaled ones.
#[test]
fn a_scaled_mesh_is_drawn_at_its_scale() {
    use bevy_transform::components::{GlobalTransform, Transform};
    let mut app = app();
    let (pos, tris) = torus(1.0, 0.3, 20, 10);
    let ring = SharedShape::trimesh(pos.clone(), tris).unwrap();
    let t = Transform::from_xyz(0.5, 0.0, 0.0)
        .with_rotation(Quat::from_rotation_y(0.4))
        .with_scale(Vec3::new(2.0, 0.5, 1.5));
    let mesh_vertices: Vec<Vec3> = pos.iter().map(|&p| t.transform_point(p)).collect();
    app.world_mut().spawn((
        Collider::new(ring),
        t,
        GlobalTransform::from(t),
        DebugRender::default().with_tree_depth(0),
    ));
    // A cube through the tube where the scaled ring reaches farthest in x.
    let far = mesh_vertices
        .iter()
        .copied()
        .max_by(|a, b| a.x.total_cmp(&b.x))
        .unwrap();
    let c = Transform::from_translation(far - Vec3::X * 0.1);
    let cube = SharedShape::cuboid(Vec3::splat(0.2)).unwrap();
    let cube_vertices: Vec<Vec3> = (cube.hull().unwrap().vertices().iter())
        .map(|&p| c.transform_point(p))
        .collect();
    app.world_mut()
        .spawn((Collider::new(cube), c, GlobalTransform::from(c)));
    app.update();
    let p = palette();
    let corners = segment_points(&app, p.tree_color);
    assert_eq!(corners.len(), 24, "one box: 12 segments");
    let drawn = bevy_icollide::math::Aabb::from_points(corners.iter().copied());
    for v in &mesh_vertices {
        assert!(
            drawn.padded(1e-4).contains_point(*v),
            "{v} outside the root box"
        );
    }
    let ends = segment_points(&app, p.triangle_color);
    assert!(!ends.is_empty(), "the cube crosses the ring's tube");
    for e in &ends {
        let near = |vs: &[Vec3]| vs.iter().any(|v| v.distance(*e) < 1e-4);
        assert!(
            near(&mesh_vertices) || near(&cube_vertices),
            "{e}: not a scaled vertex"
        );
    }
}

/// A cylinder's outline is its two rims (24 segments each) and four
/// sides; a cone's its base rim and four sides (a compound's cylinder
/// piece drawn the same).
#[test]
fn cylinders_and_cones_are_outlined() {
    let mut app = app();
    let far = |x: f32| ColliderPose(Pose::new(Quat::IDENTITY, Vec3::new(x, 0.0, 0.0)));
    app.world_mut()
        .spawn((Collider::cylinder(0.5, 1.0), far(0.0)));
    app.update();
    assert_eq!(segments(&app, palette().shape_color), 52);
    app.world_mut().spawn((Collider::cone(0.5, 1.0), far(5.0)));
    app.update();
    assert_eq!(segments(&app, palette().shape_color), 52 + 28);
    let piece = CompoundPiece {
        pose: Pose::IDENTITY,
        shape: SharedShape::cylinder(0.2, 0.4).unwrap(),
    };
    let compound = SharedShape::compound(vec![piece]).unwrap();
    app.world_mut().spawn((Collider::new(compound), far(10.0)));
    app.update();
    assert_eq!(segments(&app, palette().shape_color), 52 + 28 + 52);
}

/// A rounded box's six pushed-out faces (24 lines), a triangle's three
/// edges, a segment, a half-space's 8 × 8 grid and normal (19).
#[test]
fn round_kinds_and_half_spaces_are_outlined() {
    let mut app = app();
    let far = |x: f32| ColliderPose(Pose::new(Quat::IDENTITY, Vec3::new(x, 0.0, 0.0)));
    app.world_mut()
        .spawn((Collider::round_cuboid(1.0, 1.0, 1.0, 0.1), far(0.0)));
    app.update();
    assert_eq!(segments(&app, palette().shape_color), 24);
    let tri = Collider::triangle(Vec3::ZERO, Vec3::X, Vec3::Y);
    app.world_mut().spawn((tri, far(5.0)));
    app.world_mut()
        .spawn((Collider::segment(Vec3::ZERO, Vec3::X), far(10.0)));
    app.update();
    assert_eq!(segments(&app, palette().shape_color), 24 + 3 + 1);
    app.world_mut()
        .spawn((Collider::half_space(Vec3::Y), far(-20.0)));
    app.update();
    let all = segments(&app, palette().shape_color) + segments(&app, palette().colliding_color);
    assert_eq!(all, 24 + 3 + 1 + 19);
}

/// A polyline is outlined by its segments.
#[test]
fn polylines_are_outlined_by_their_segments() {
    let mut app = app();
    let points = vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
    app.world_mut().spawn((
        Collider::polyline(points, None),
        ColliderPose(Pose::IDENTITY),
    ));
    app.update();
    assert_eq!(segments(&app, palette().shape_color), 3);
}
