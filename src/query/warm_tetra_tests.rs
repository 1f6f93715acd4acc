//! The cached-tetrahedron certificate (`warm_tetra`) at its boundary: the
//! origin exactly on a face of the tetrahedron, `2⁻²⁴` (and more) inside
//! and outside it; then two boxes whose cached tetrahedron has a face on
//! the CSO's own face, so that the certificate's face is where the boxes
//! meet: offsets across it, identity and turned poses, vertex pairs that
//! share a vertex or repeat, against the `f64` separating-axis test, the
//! answer through [`boolean_convex`] with the certificate in front of GJK.

use glam::{DVec3, Quat, Vec3};

use super::cache::{PairCache, QueryScratch};
use super::dispatch::boolean_convex;
use super::lin_canny::ConvexCache;
use super::warm_tetra::{certified_touching, holds_ball};
use crate::geometry::gjk::{Cso, GjkCache};
use crate::math::Pose;
use crate::shape::{ConvexHull, ConvexPolytope};
use crate::testkit::{Poly, Rng, sat};

/// A tetrahedron with its face `z = z0` around the origin's projection
/// and its apex above.
fn tetra(z0: f32) -> [Vec3; 4] {
    [
        Vec3::new(0.25, 0.5, z0 + 3.0),
        Vec3::new(-1.0, -1.0, z0),
        Vec3::new(2.0, -1.0, z0),
        Vec3::new(-1.0, 2.0, z0),
    ]
}

#[test]
fn a_ball_is_held_only_clear_of_every_face() {
    let r = 3.0 / 65_536.0;
    let tiny = 2f32.powi(-24);
    // On the face, 2^-24 either side of it, within the radius: not held,
    // even with a zero radius on the face itself.
    for z0 in [0.0, -tiny, tiny, -r * 0.5, r] {
        assert!(!holds_ball(tetra(z0), r), "face at {z0:e}");
    }
    assert!(!holds_ball(tetra(0.0), 0.0), "on the face, no radius");
    // Clear of it by more than the radius: held, in any vertex order.
    let mut t = tetra(-2.0 * r);
    assert!(holds_ball(t, r));
    t.swap(0, 3);
    assert!(holds_ball(t, r), "vertex order");
    // Far from the origin (every point 10^5 and 3·10^9 away): no ball.
    for far in [1e5, 3e9] {
        let t = tetra(-2.0 * r).map(|p| p + Vec3::splat(far));
        assert!(!holds_ball(t, r), "at {far}");
    }
    // Degenerate: a repeated vertex, a flat tetrahedron, NaN.
    let mut d = tetra(-1.0);
    d[1] = d[2];
    assert!(!holds_ball(d, 0.0), "repeated vertex");
    let mut d = tetra(-1.0);
    d[0].z = -1.0;
    assert!(!holds_ball(d, 0.0), "flat");
    // The apex a hair above the face's plane, the origin beyond the face
    // inside the other three: the face's side is below rounding.
    let mut d = tetra(1.0);
    d[0].z = 1.0 + 2f32.powi(-20);
    assert!(!holds_ball(d, 0.0), "sliver apex");
    let mut d = tetra(-1.0);
    d[0].x = f32::NAN;
    assert!(!holds_ball(d, 0.0), "NaN");
}

/// A box hull of half-extents `h` and the index of its vertex at `signs`.
fn cuboid(h: Vec3) -> (ConvexPolytope, ConvexHull) {
    let pts: Vec<Vec3> = (0..8)
        .map(|i| {
            let s = |b: i32| if i & b != 0 { 1.0 } else { -1.0 };
            h * Vec3::new(s(1), s(2), s(4))
        })
        .collect();
    let hull = ConvexHull::new(&pts).expect("box");
    (ConvexPolytope::from_hull(&hull), hull)
}

fn corner(p: &ConvexPolytope, signs: Vec3) -> u32 {
    (0..p.vertex_count() as u32)
        .find(|&i| p.vertex(i).signum() == signs)
        .expect("corner")
}

/// Box A (half-extents 1) and box B (half-extents 1/2) side by side along
/// `x`: B's centre at `x = 3/2 + delta`, `(0.1, 0.2)` across, the pair
/// turned by `turn`. The cached tetrahedron pairs A's `+x` corners with
/// B's `-x` corners (three CSO points on the CSO's `+x` face, on which the
/// origin lies at `delta = 0`) and A's `-x` corner with B's `+x` one,
/// or (`shared`) with the `-x` corner B's first pair uses too.
fn boxes(delta: f64, turn: Quat, shared: bool) -> (bool, bool, f64) {
    let ((pa, ha), (pb, hb)) = (cuboid(Vec3::ONE), cuboid(Vec3::splat(0.5)));
    let pair = |sa: [f32; 3], sb: [f32; 3]| {
        [
            corner(&pa, Vec3::from_array(sa)),
            corner(&pb, Vec3::from_array(sb)),
        ]
    };
    let fourth_b = if shared {
        [-1., -1., -1.]
    } else {
        [1., 1., 1.]
    };
    let hints = [
        pair([1., 1., 1.], [-1., -1., -1.]),
        pair([1., -1., 1.], [-1., 1., -1.]),
        pair([1., 1., -1.], [-1., -1., 1.]),
        pair([-1., -1., -1.], fourth_b),
    ];
    let t = (DVec3::new(1.5 + delta, 0.1, 0.2)).as_vec3();
    let (a, b) = (Pose::new(turn, Vec3::ZERO), Pose::new(turn, turn * t));
    let gjk = GjkCache::with_tetra(hints);
    let certified = certified_touching(
        (&pa, &a),
        (&pb, &b),
        &Cso::new(&pa, &a, &pb, &b),
        &mut gjk.clone(),
    );
    let mut cache = PairCache::Convex(Box::new(ConvexCache {
        gjk,
        ..ConvexCache::default()
    }));
    let touching = boolean_convex(
        (&pa, &a),
        (&pb, &b),
        &mut cache,
        &mut QueryScratch::default(),
    );
    let reference = sat(
        &Poly::new(ha.vertices(), ha.triangles(), &a),
        &Poly::new(hb.vertices(), hb.triangles(), &b),
    );
    (certified, touching, reference.0)
}

#[test]
fn boxes_meeting_on_the_tetrahedron_face_agree_with_sat() {
    let mut rng = Rng::new(0x7e7a);
    let turns = [Quat::IDENTITY, rng.rotation(), rng.rotation()];
    let steps: Vec<f64> = (6..=24).map(|k| 2f64.powi(-k)).collect();
    let offsets = steps.iter().flat_map(|&d| [d, -d]).chain([0.0]);
    let mut certified_any = 0;
    for delta in offsets {
        for (k, &turn) in turns.iter().enumerate() {
            for shared in [false, true] {
                let (certified, touching, overlap) = boxes(delta, turn, shared);
                let what = format!("offset {delta:e}, turn {k}, shared {shared}: {overlap:e}");
                // The certificate holds only with the origin clear of
                // the face by its pad (2^-16 of the magnitudes, about 8
                // to 10 here: 1.2·10^-4 to 1.5·10^-4).
                if certified {
                    certified_any += 1;
                    assert!(overlap > 1e-4, "certified at {what}");
                }
                // The answer agrees with the f64 test off GJK's band.
                if overlap.abs() > 4e-6 * 3.0 {
                    assert_eq!(touching, overlap > 0.0, "{what}");
                }
            }
        }
    }
    // The deep offsets are certified (with both tetrahedra, every turn).
    assert!(certified_any >= 12, "{certified_any} certified");
}

#[test]
fn repeated_or_invalid_vertex_pairs_certify_nothing() {
    let (pa, _) = cuboid(Vec3::ONE);
    let (pb, _) = cuboid(Vec3::splat(0.5));
    let (a, b) = (Pose::IDENTITY, Pose::IDENTITY);
    // Concentric boxes, deep in contact: the corner pairs `(s, -s)` at
    // the signs of a regular tetrahedron certify.
    let pair = |s: [f32; 3]| {
        let s = Vec3::from_array(s);
        [corner(&pa, s), corner(&pb, -s)]
    };
    let [p, q, r, s] = [[1., 1., 1.], [1., -1., -1.], [-1., 1., -1.], [-1., -1., 1.]].map(pair);
    let hints = [p, q, r, s];
    let cso = Cso::new(&pa, &a, &pb, &b);
    let certified =
        |h| certified_touching((&pa, &a), (&pb, &b), &cso, &mut GjkCache::with_tetra(h));
    assert!(certified([p, q, r, s]), "deep, four corner pairs");
    assert!(!certified([p, p, r, s]), "a repeated pair");
    assert!(!certified([p, q, r, [8, s[1]]]), "A's index out of range");
    assert!(
        !certified([p, q, r, [s[0], u32::MAX]]),
        "B's index out of range"
    );
    assert!(!certified_touching(
        (&pa, &a),
        (&pb, &b),
        &cso,
        &mut GjkCache::new()
    ));
    // Far from the origin in the pair's own frame (10^5, 3·10^9): the pad
    // grows with the translations and nothing shallow is certified.
    for far in [1e5f32, 3e9] {
        let (fa, fb) = (
            Pose::new(Quat::IDENTITY, Vec3::splat(far)),
            Pose::new(Quat::IDENTITY, Vec3::splat(far)),
        );
        let (gjk, cso) = (GjkCache::with_tetra(hints), Cso::new(&pa, &fa, &pb, &fb));
        assert!(
            !certified_touching((&pa, &fa), (&pb, &fb), &cso, &mut gjk.clone()),
            "{far}"
        );
    }
}

#[test]
fn a_replaced_vertex_certifies_and_is_kept() {
    let (pa, _) = cuboid(Vec3::ONE);
    let (pb, _) = cuboid(Vec3::splat(0.5));
    let (a, b) = (Pose::IDENTITY, Pose::IDENTITY);
    let cso = Cso::new(&pa, &a, &pb, &b);
    let pair = |s: [f32; 3]| {
        let s = Vec3::from_array(s);
        [corner(&pa, s), corner(&pb, -s)]
    };
    // Concentric boxes; three corners of a regular tetrahedron and a
    // fourth on the same side of the origin: the origin is outside it.
    let stale = [[1., 1., 1.], [1., -1., -1.], [-1., 1., -1.], [1., 1., -1.]].map(pair);
    let w = stale.map(|[i, j]| pa.vertex(i) - pb.vertex(j));
    assert!(!holds_ball(w, 0.0));
    let mut gjk = GjkCache::with_tetra(stale);
    assert!(certified_touching((&pa, &a), (&pb, &b), &cso, &mut gjk));
    // The certified tetrahedron is kept, and certifies again as it is.
    let kept = gjk.warm_tetra().expect("tetrahedron");
    assert_ne!(kept, stale);
    let w = kept.map(|[i, j]| pa.vertex(i) - pb.vertex(j));
    assert!(holds_ball(w, 1e-3), "{kept:?}");
}
