//! The integration tests' view of the crate's brute-force references
//! (`bevy_icollide::testkit`): a convex body at a pose, and the world's
//! narrow phase run serially or on threads.
#![allow(dead_code)]

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::Pose;
use bevy_icollide::pipeline::CollisionWorld;
use bevy_icollide::shape::ConvexPolytope;
use bevy_icollide::testkit::{self, Poly};
use glam::{DVec3, Vec3};

#[allow(unused_imports)]
pub use bevy_icollide::testkit::{
    closest_on_segment, segment_segment as segment_distance, segment_triangle_distance,
};

/// A model of `assets/meshes/` as a triangle soup.
pub fn model(name: &str) -> bevy_icollide::shape::TriMesh {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/meshes")
        .join(name);
    let m = bevy_icollide::io::load_obj(path).expect("model loads");
    bevy_icollide::shape::TriMesh::new(m.positions, m.triangles).expect("valid mesh")
}

/// A convex shape at a pose.
pub struct Body {
    pub shape: SharedShape,
    pub pose: Pose,
}

impl Body {
    pub fn poly(&self) -> &ConvexPolytope {
        self.shape.polytope().expect("convex")
    }

    /// The f64 reference polytope (the hull's triangles, in world space).
    pub fn reference(&self) -> Poly {
        Poly::of(&self.shape, &self.pose)
    }

    /// The polytope's edges (merged faces' boundaries) in world space.
    pub fn world_edges(&self) -> Vec<(DVec3, DVec3)> {
        let p = self.poly();
        p.edges()
            .iter()
            .map(|e| {
                let f = |i: u32| self.pose.transform_point(p.vertex(i)).as_dvec3();
                (f(e.v[0]), f(e.v[1]))
            })
            .collect()
    }

    /// Largest signed distance of a world point to the face planes.
    pub fn outside_by(&self, p: Vec3) -> f32 {
        let local = self.pose.inverse().transform_point(p);
        let poly = self.poly();
        (0..poly.faces().len() as u32)
            .map(|f| poly.face_distance(f, local))
            .fold(f32::MIN, f32::max)
    }
}

/// Largest separation over all SAT axes (> 0: separated, < 0: overlap).
pub fn sat_separation(a: &Body, b: &Body) -> f64 {
    -testkit::sat(&a.reference(), &b.reference()).0
}

/// Distance over all vertex–triangle and edge–edge pairs (0 when the SAT
/// finds an overlap).
pub fn brute_distance(a: &Body, b: &Body) -> f64 {
    if sat_separation(a, b) <= 0.0 {
        return 0.0;
    }
    testkit::distance(&a.reference(), &b.reference())
}

/// Distance between segment `[p, q]` and a convex body's solid.
pub fn segment_body_distance(p: DVec3, q: DVec3, body: &Body) -> f64 {
    testkit::segment_poly_distance(p, q, &body.reference())
}

/// The world's narrow phase, serial (`None`) or split over `n` scoped
/// threads.
pub fn narrow_phase(world: &mut CollisionWorld, tasks: Option<usize>) {
    match tasks {
        None => world.update_narrow_phase(),
        Some(n) => world.update_narrow_phase_with(n, |list| {
            std::thread::scope(|s| {
                for task in list {
                    s.spawn(move || task.run());
                }
            });
        }),
    }
}

/// A triangle-mesh cube of half-size `h` (a surface: 12 triangles).
pub fn cube_mesh(h: f32) -> Result<SharedShape, bevy_icollide::collider::ShapeError> {
    let v: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -h } else { h },
                if i & 2 == 0 { -h } else { h },
                if i & 4 == 0 { -h } else { h },
            )
        })
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let t = quads
        .iter()
        .flat_map(|[a, b, c, d]| [[*a, *b, *c], [*a, *c, *d]])
        .collect();
    SharedShape::trimesh(v, t)
}
