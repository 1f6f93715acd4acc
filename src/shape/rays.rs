//! Ray casts of the convex polytope and of the sphere and capsule, in the
//! shape's own frame: Cyrus–Beck clipping against the polytope's face
//! planes (Cyrus, Beck 1978: the ray enters at the largest entering
//! parameter and leaves at the smallest leaving one), closed form for the
//! rounded shapes. (Moved from `query/ray_cast.rs` so that each kind's
//! ray cast sits below the collider layer, as the other kinds' do.)

use glam::Vec3;

use super::{ConvexPolytope, Rounded};
use crate::geometry::closest::point_segment;
use crate::geometry::ray::{Ray, RayHit, smallest_root};

impl ConvexPolytope {
    /// The first hit of `ray` (in the polytope's frame) within `max_toi`.
    pub fn ray_cast(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        let poly = self;
        // The ray is inside face f's half-space for t on one side of t_f.
        let (mut enter, mut exit) = (f32::NEG_INFINITY, max_toi);
        let mut entered_by = None;
        for (f, face) in poly.faces().iter().enumerate() {
            let denom = face.normal.dot(ray.dir);
            let dist = face.offset - face.normal.dot(ray.origin);
            if denom == 0.0 {
                if dist < 0.0 {
                    return None; // parallel to this face and outside it
                }
            } else if denom < 0.0 {
                let t = dist / denom;
                if t > enter {
                    enter = t;
                    entered_by = Some(f as u32);
                }
            } else {
                exit = exit.min(dist / denom);
            }
        }
        if enter.max(0.0) > exit {
            return None;
        }
        Some(match entered_by {
            Some(f) if enter > 0.0 => RayHit {
                piece: 0,
                toi: enter,
                normal: poly.face(f).normal,
                feature: f,
            },
            // The origin is inside (or on) the polytope.
            _ => RayHit {
                piece: 0,
                toi: 0.0,
                normal: Vec3::ZERO,
                feature: u32::MAX,
            },
        })
    }
}

impl Rounded {
    /// The first hit of `ray` (in the shape's frame) on a sphere or capsule
    /// within `max_toi`: the nearest of the ray's hits on the two end balls and
    /// on the cylinder between them (closed form). A ray starting inside hits
    /// at `toi = 0` with a zero normal, as for convex polytopes.
    pub fn ray_cast(&self, ray: &Ray, max_toi: f32) -> Option<RayHit> {
        let r = self;
        let [p, q] = r.core();
        let on_core = |x: Vec3| point_segment(x, p, q);
        if ray.origin.distance_squared(on_core(ray.origin)) <= r.radius * r.radius {
            return Some(RayHit {
                toi: 0.0,
                normal: Vec3::ZERO,
                feature: 0,
                piece: 0,
            });
        }
        let ball = |c: Vec3| {
            smallest_root(
                ray.dir.length_squared(),
                2.0 * ray.dir.dot(ray.origin - c),
                (ray.origin - c).length_squared() - r.radius * r.radius,
            )
        };
        let (o, d) = (ray.origin, ray.dir);
        let side = smallest_root(
            d.x * d.x + d.z * d.z,
            2.0 * (o.x * d.x + o.z * d.z),
            o.x * o.x + o.z * o.z - r.radius * r.radius,
        )
        .filter(|&t| (o.y + t * d.y).abs() <= r.half_height);
        let toi = [ball(p), ball(q), side]
            .into_iter()
            .flatten()
            .filter(|&t| t <= max_toi)
            .fold(f32::INFINITY, f32::min);
        if !toi.is_finite() {
            return None;
        }
        let x = ray.at(toi);
        let normal = (x - on_core(x)).normalize_or_zero();
        Some(RayHit {
            toi,
            normal,
            feature: 0,
            piece: 0,
        })
    }
}
