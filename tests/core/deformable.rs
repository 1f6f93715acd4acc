//! Deformable meshes against brute force: a cloth (a grid of triangles)
//! under a moving wave, folding through itself and collapsing triangles to
//! points, with rigid bodies of every surface kind passing through it. Every
//! frame: the refit tree is valid and has the root box of a fresh build; the
//! world's touching pairs and their triangle pairs equal all triangle pairs
//! tested exactly; queries see the deformed surface.

use std::collections::BTreeSet;

use bevy_icollide::bvh::{AabbTree, AabbTreeOptions, TreeKind};
use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::{
    BodyDesc, BodyHandle, CollisionWorld, QueryFilter, WorldConfig, WorldError,
};
use bevy_icollide::query::Ray;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{Rng, grid, sphere_hull, torus, triangle_pairs};
use glam::{Quat, Vec3};

/// The cloth at time `k`: a travelling wave, from frame 150 a fold that
/// pushes one half through the other, from frame 250 a strip of vertices
/// collapsed onto one point (degenerate triangles).
fn deform(rest: &[Vec3], k: usize) -> Vec<Vec3> {
    let t = k as f32 * 0.05;
    rest.iter()
        .map(|p| {
            let mut q = *p + Vec3::Y * (0.3 * (3.0 * p.x + t).sin() * (2.0 * p.z - t).cos());
            if k >= 150 && p.x > 0.0 {
                let fold = ((k - 150) as f32 * 0.02).min(1.5);
                q.y -= fold * p.x;
                q.x -= fold * p.x * 0.8;
            }
            if k >= 250 && p.z.abs() < 0.15 {
                q = Vec3::new(0.1, 0.05, 0.0);
            }
            q
        })
        .collect()
}

struct Rigid {
    handle: BodyHandle,
    shape: SharedShape,
    pose: Pose,
    velocity: Vec3,
    spin: Quat,
}

fn rigid_shapes(rng: &mut Rng) -> Vec<SharedShape> {
    let (tv, tt) = torus(0.3, 0.08, 16, 8);
    vec![
        sphere_hull(rng, 20, 0.25),
        SharedShape::trimesh(tv.clone(), tt.clone()).expect("torus"),
        SharedShape::trimesh_with_tree(tv, tt, TreeKind::Aabb).expect("torus"),
        SharedShape::cuboid(Vec3::new(0.3, 0.05, 0.2)).expect("box"),
    ]
}

#[test]
fn a_deforming_cloth_matches_brute_force() {
    let (rest, tris) = grid(16, |_, _| 0.0);
    let shape = SharedShape::trimesh(rest.clone(), tris.clone()).expect("cloth");
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let cloth_body = world.add_body(BodyDesc::new(shape.clone()));
    world.set_pose(cloth_body, Pose::IDENTITY).expect("valid");
    let mut rng = Rng::new(8);
    let mut rigids: Vec<Rigid> = rigid_shapes(&mut rng)
        .into_iter()
        .map(|shape| {
            let handle = world.add_body(BodyDesc::new(shape.clone()));
            Rigid {
                handle,
                shape,
                pose: Pose::new(rng.rotation(), rng.in_cube(0.8)),
                velocity: rng.unit_vector() * 0.02,
                spin: Quat::from_axis_angle(rng.unit_vector(), 0.05),
            }
        })
        .collect();
    let (mut touching_frames, mut checked) = (0, 0);
    for k in 0..320 {
        let verts = deform(&rest, k);
        world
            .set_vertices(cloth_body, &verts)
            .expect("valid vertices");
        let mesh = TriMesh::new(verts, tris.clone()).expect("mesh");
        check_tree(&world, cloth_body, &mesh);
        for r in &mut rigids {
            let mut t = r.pose.translation + r.velocity;
            for a in 0..3 {
                if t[a].abs() > 1.0 {
                    r.velocity[a] = -r.velocity[a];
                    t[a] = r.pose.translation[a] + r.velocity[a];
                }
            }
            r.pose = Pose::new((r.spin * r.pose.rotation).normalize(), t);
            world.set_pose(r.handle, r.pose).expect("valid pose");
        }
        world.step().for_each(drop);
        for r in &rigids {
            let surface = r.shape.surface().expect("surface").mesh;
            let want = triangle_pairs(&mesh, &Pose::IDENTITY, surface, &r.pose);
            let state = world.pair(cloth_body, r.handle);
            let touching = state.is_some_and(|s| s.result.touching);
            assert_eq!(touching, !want.is_empty(), "frame {k}: touching");
            if touching {
                touching_frames += 1;
                let got: BTreeSet<[u32; 2]> = state
                    .and_then(|s| s.triangle_pairs())
                    .map(|p| {
                        // The pair stores the body in the smaller slot first.
                        let flip = cloth_body.index() > r.handle.index();
                        p.iter()
                            .map(|&[x, y]| if flip { [y, x] } else { [x, y] })
                            .collect()
                    })
                    .expect("mesh pair");
                assert_eq!(got, want, "frame {k}: triangle pairs");
            }
            checked += 1;
        }
        check_queries(&world, &mesh, &mut rng, k);
    }
    assert!(
        touching_frames > 200 && checked == 320 * 4,
        "the bodies must cross the cloth ({touching_frames} touching pair-frames)"
    );
}

/// The refit tree holds the deformed triangles and has the root box of a
/// tree built afresh.
fn check_tree(world: &CollisionWorld, body: BodyHandle, mesh: &TriMesh) {
    let tree = world.deformed_tree(body).expect("deformable");
    tree.validate_mesh(mesh).expect("refit tree is valid");
    let fresh = AabbTree::build_mesh(mesh, &AabbTreeOptions::default());
    assert_eq!(tree.nodes[0].aabb, fresh.nodes[0].aabb);
    assert_eq!(world.deformed_mesh(body).expect("mesh"), mesh);
}

/// Rays and shape queries on the world see the deformed cloth.
fn check_queries(world: &CollisionWorld, mesh: &TriMesh, rng: &mut Rng, k: usize) {
    let ray = Ray::new(rng.in_cube(1.0) + Vec3::Y * 2.0, -Vec3::Y);
    let hits_cloth = (0..mesh.triangles().len()).any(|t| {
        bevy_icollide::geometry::ray::ray_triangle(&ray, mesh.triangle(t), 10.0).is_some()
    });
    let mut hits = Vec::new();
    world.ray_cast_all(&ray, 10.0, QueryFilter::ALL, &mut hits);
    let got = hits
        .iter()
        .any(|h| h.triangle.is_some() && h.body.index() == 0);
    assert_eq!(got, hits_cloth, "frame {k}: ray on the cloth");
}

#[test]
fn bad_deformations_are_errors() {
    let (rest, tris) = grid(4, |_, _| 0.0);
    let shape = SharedShape::trimesh(rest.clone(), tris).expect("cloth");
    let mut world = CollisionWorld::new(WorldConfig::default()).expect("valid config");
    let body = world.add_body(BodyDesc::new(shape));
    assert_eq!(
        world.set_vertices(body, &rest[1..]),
        Err(WorldError::VertexCount {
            expected: rest.len(),
            got: rest.len() - 1
        })
    );
    let mut nan = rest.clone();
    nan[3].y = f32::NAN;
    assert_eq!(
        world.set_vertices(body, &nan),
        Err(WorldError::NonFiniteVertex { index: 3 })
    );
    assert!(world.deformed_mesh(body).is_none(), "nothing changed");
    let cube = world.add_body(BodyDesc::new(SharedShape::cuboid(Vec3::ONE).expect("cube")));
    assert_eq!(
        world.set_vertices(cube, &rest),
        Err(WorldError::NotDeformable("convex"))
    );
    assert_eq!(
        world.rebuild_tree(cube),
        Err(WorldError::NotDeformable("convex"))
    );
    world.set_vertices(body, &rest).expect("valid");
    world.rebuild_tree(body).expect("deformable");
}
