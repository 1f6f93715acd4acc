//! The motion that slides along touched planes: the closest vector to the
//! desired motion that moves into none of them.
//!
//! The touched planes' normals `n_i` (unit, out of the obstacles) bound
//! the cone of allowed motions `{v : v·n_i ≥ 0 for all i}`. The slide
//! takes the Euclidean projection of the desired motion `r` onto that
//! cone. A projection onto a polyhedral cone in 3D lies on one of its
//! faces: `r` itself (no plane is entered), `r` projected onto one plane
//! (sliding along a wall), onto the crease line of two planes (their cross
//! product: a corridor's floor and wall), or the apex 0 (a corner of three
//! planes or more). Every candidate that is allowed is a point of the
//! cone, and the projection is the allowed candidate closest to `r`
//! (Quake's `ClipVelocity` over every plane and crease, taken exactly
//! rather than in a fixed order, which can leave a motion entering a plane
//! clipped earlier).

use glam::Vec3;

/// Normals closer than this (cosine) are merged into one plane.
const SAME_PLANE: f32 = 0.999_99;

/// The allowed motion closest to `r` for the planes `normals` (unit, out
/// of the obstacles): see the module docs. A motion entering a plane by
/// less than `2⁻²⁰ |r|` counts as allowed.
pub fn project_motion(r: Vec3, normals: &[Vec3]) -> Vec3 {
    let eps = r.length() * 1e-6;
    let allowed = |v: Vec3| normals.iter().all(|n| v.dot(*n) >= -eps);
    if allowed(r) {
        return r;
    }
    let mut best = Vec3::ZERO;
    let mut best_d2 = r.length_squared();
    let mut consider = |v: Vec3| {
        let d2 = (r - v).length_squared();
        if d2 < best_d2 && allowed(v) {
            best = v;
            best_d2 = d2;
        }
    };
    for (i, n) in normals.iter().enumerate() {
        consider(r - r.dot(*n) * *n);
        for m in &normals[i + 1..] {
            if n.dot(*m) > SAME_PLANE {
                continue;
            }
            let e = n.cross(*m).normalize_or_zero();
            if e != Vec3::ZERO {
                consider(r.dot(e) * e);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_crease_and_corner() {
        let r = Vec3::new(1.0, -1.0, 0.5);
        assert_eq!(project_motion(r, &[]), r);
        assert_eq!(project_motion(r, &[Vec3::Y]), Vec3::new(1.0, 0.0, 0.5));
        let crease = project_motion(r, &[Vec3::Y, -Vec3::X]);
        assert!((crease - Vec3::new(0.0, 0.0, 0.5)).length() < 1e-6);
        assert_eq!(
            project_motion(r, &[Vec3::Y, -Vec3::X, -Vec3::Z]),
            Vec3::ZERO
        );
        // Moving away from a plane is not clipped.
        assert_eq!(project_motion(Vec3::Y, &[Vec3::Y, Vec3::X]), Vec3::Y);
    }
}
