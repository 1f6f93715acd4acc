//! Property tests, seeded (a generator of our own rather than proptest: no
//! shrinking, no extra dependency; `ICOLLIDE_PROPERTY_CASES` sets the count,
//! default 200 per property).
//!
//! - Convex pairs (random hulls and boxes) at scales from 1e-4 to 1e5 and
//!   offsets up to 1e5 from the origin (at most 10⁴ sizes away: beyond,
//!   `f32` cannot place the shape to its own size): `intersects` equals the
//!   f64 separating-axis test and `distance` the f64 distance, except
//!   within rounding of touching (a band of 10⁻⁵ of the offset plus size).
//! - Nasty triangle soups (zero-area, duplicate, coplanar triangles sharing
//!   edges, parallel faces at a hair's distance) against each other and
//!   against hulls at the same scales and offsets: `intersects` and
//!   `intersecting_triangles` equal the exact test on every triangle pair
//!   (B mapped into A's frame, as the queries do), and `distance` equals the
//!   minimum over all triangle pairs bit for bit.

use std::collections::BTreeSet;

use bevy_icollide::bvh::{ContactMode, mapped_triangle};
use bevy_icollide::collider::SharedShape;
use bevy_icollide::geometry::closest::triangle_triangle;
use bevy_icollide::geometry::tritri::triangles_intersect;
use bevy_icollide::math::Pose;
use bevy_icollide::query;
use bevy_icollide::shape::TriMesh;
use bevy_icollide::testkit::{self, Poly, Rng, sphere_hull};
use glam::Vec3;

fn cases() -> usize {
    std::env::var("ICOLLIDE_PROPERTY_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200)
}

/// A scale in [1e-4, 1e5] and an offset from the origin in [0, min(1e5,
/// 1e4 · scale)].
fn scale_and_offset(rng: &mut Rng) -> (f32, f32) {
    let scale = 10f32.powf(rng.range(-4.0, 5.0));
    let offset = (scale * 10f32.powf(rng.range(-1.0, 4.0))).min(1e5);
    (scale, offset)
}

fn convex(rng: &mut Rng, scale: f32) -> SharedShape {
    if rng.bool() {
        let points = 6 + rng.below(30);
        sphere_hull(rng, points, scale)
    } else {
        let h = Vec3::new(
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
        ) * scale;
        SharedShape::cuboid(h).expect("cuboid")
    }
}

/// Two poses `offset` from the origin, the second `scale · [0.3, 2.5]` from
/// the first (about half the pairs overlap).
fn poses(rng: &mut Rng, scale: f32, offset: f32) -> (Pose, Pose) {
    let base = rng.unit_vector() * offset;
    let a = Pose::new(rng.rotation(), base);
    let b = Pose::new(
        rng.rotation(),
        base + rng.unit_vector() * scale * rng.range(0.3, 2.5),
    );
    (a, b)
}

#[test]
fn convex_pairs_at_every_scale_and_offset_match_f64() {
    let mut rng = Rng::new(41);
    let (mut decided, mut overlapping) = (0, 0);
    for i in 0..cases() {
        let (scale, offset) = scale_and_offset(&mut rng);
        let (a, b) = (convex(&mut rng, scale), convex(&mut rng, scale));
        let (pa, pb) = poses(&mut rng, scale, offset);
        let (sep, _) = testkit::sat(&Poly::of(&a, &pa), &Poly::of(&b, &pb));
        let band = 1e-5 * f64::from(offset + scale);
        if sep.abs() <= band {
            continue; // too close to touching for f32 to decide
        }
        decided += 1;
        let touch = query::intersects(&a, &pa, &b, &pb).expect("valid");
        let what = format!("case {i}: scale {scale:e}, offset {offset:e}, separation {sep:e}");
        assert_eq!(touch, sep > 0.0, "{what}");
        let d = query::distance(&a, &pa, &b, &pb).expect("valid");
        if sep > 0.0 {
            overlapping += 1;
            assert_eq!(d, 0.0, "{what}");
        } else {
            let want = testkit::distance(&Poly::of(&a, &pa), &Poly::of(&b, &pb));
            assert!(
                (f64::from(d) - want).abs() <= 1e-4 * want + band,
                "{what}: distance {d} vs {want}"
            );
        }
    }
    assert!(
        decided * 10 >= cases() * 8 && overlapping * 5 >= decided,
        "{decided} decided, {overlapping} overlapping"
    );
}

/// A soup of nasty triangles of size `scale`: random ones, zero-area ones
/// (a repeated or collinear corner), duplicates, coplanar neighbours
/// sharing an edge, and a parallel copy a hair away.
fn nasty_soup(rng: &mut Rng, scale: f32) -> TriMesh {
    let mut v: Vec<Vec3> = Vec::new();
    let mut t: Vec<[u32; 3]> = Vec::new();
    let tri = |v: &mut Vec<Vec3>, t: &mut Vec<[u32; 3]>, p: [Vec3; 3]| {
        let i = v.len() as u32;
        v.extend(p);
        t.push([i, i + 1, i + 2]);
    };
    for _ in 0..6 {
        let p = [0; 3].map(|_| rng.in_cube(scale));
        tri(&mut v, &mut t, p);
        match rng.below(5) {
            0 => tri(&mut v, &mut t, [p[0], p[0], p[1]]),
            1 => tri(&mut v, &mut t, [p[0], p[1], p[0] + 2.0 * (p[1] - p[0])]),
            2 => tri(&mut v, &mut t, p),
            3 => tri(&mut v, &mut t, [p[0], p[1], p[0] + p[1] - p[2]]),
            _ => {
                let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero() * (1e-6 * scale);
                tri(&mut v, &mut t, p.map(|x| x + n));
            }
        }
    }
    TriMesh::new(v, t).expect("a soup")
}

/// The intersecting triangle pairs over every pair, B mapped into A's frame.
fn brute_pairs(a: &TriMesh, pa: &Pose, b: &TriMesh, pb: &Pose) -> BTreeSet<[u32; 2]> {
    let rel = pa.inverse().mul(pb);
    let mut out = BTreeSet::new();
    for tb in 0..b.triangles().len() {
        let y = mapped_triangle(b, tb as u32, &rel);
        for ta in 0..a.triangles().len() {
            if triangles_intersect(a.triangle(ta), y) {
                out.insert([ta as u32, tb as u32]);
            }
        }
    }
    out
}

#[test]
fn nasty_soups_match_every_triangle_pair() {
    let mut rng = Rng::new(42);
    let (mut touching, mut total) = (0, 0);
    for i in 0..cases() {
        let (scale, offset) = scale_and_offset(&mut rng);
        let a = nasty_soup(&mut rng, scale);
        let (pa, pb) = poses(&mut rng, scale, offset);
        let sa = SharedShape::trimesh(a.vertices().to_vec(), a.triangles().to_vec()).expect("soup");
        let (sb, b) = if rng.bool() {
            let b = nasty_soup(&mut rng, scale);
            (
                SharedShape::trimesh(b.vertices().to_vec(), b.triangles().to_vec()).expect("soup"),
                b,
            )
        } else {
            let hull = convex(&mut rng, scale);
            let surface = hull.surface().expect("hull surface").mesh.clone();
            (hull, surface)
        };
        let want = brute_pairs(&a, &pa, &b, &pb);
        let what = format!("case {i}: scale {scale:e}, offset {offset:e}");
        let got: BTreeSet<[u32; 2]> =
            query::intersecting_triangles(&sa, &pa, &sb, &pb, ContactMode::All)
                .expect("valid")
                .into_iter()
                .collect();
        assert_eq!(got, want, "{what}");
        assert_eq!(
            query::intersects(&sa, &pa, &sb, &pb).expect("valid"),
            !want.is_empty(),
            "{what}"
        );
        let d = query::distance(&sa, &pa, &sb, &pb).expect("valid");
        let rel = pa.inverse().mul(&pb);
        let mut min = f32::INFINITY;
        for tb in 0..b.triangles().len() {
            let y = mapped_triangle(&b, tb as u32, &rel);
            for ta in 0..a.triangles().len() {
                min = min.min(triangle_triangle(a.triangle(ta), y).0);
            }
        }
        assert_eq!(d, min, "{what}");
        touching += usize::from(!want.is_empty());
        total += 1;
    }
    assert!(
        touching * 5 >= total && touching * 5 <= 4 * total,
        "{touching} of {total} touching"
    );
}
