//! Polylines cast at polylines (linear and turning) and turning polylines
//! cast at boxes, capsules and meshes, against independent `f64`
//! references: each segment its own reference shape moved in `f64` (along
//! its arc when turning, `exact_polyline_motion::turned`), the gaps from
//! the closed-form segment–segment, segment–triangle and segment–polytope
//! distances of `testkit::reference` (none of the crate's queries).
//!
//! Segments have no inside: two of them meet at an instant (the gap dips
//! to 0 and rises), so a first contact cannot be found by sampling for a
//! negative gap. Linear: each segment pair's gap is convex in time (the
//! distance of a point moving on a line to a convex set), its minimum
//! found by ternary search and, when 0, its first root by bisection.
//! Turning: 400 samples, every local minimum refined by ternary search
//! in its bracket, the first that reaches 0 bisected. The crate's time
//! is never after the reference's first contact and the gap then within
//! the tolerance; a miss only when the gap never reaches it.

use bevy_icollide::collider::SharedShape;
use bevy_icollide::math::{Pose, RigidMotion};
use bevy_icollide::query::{self, ShapeCastHit, ShapeCastOptions};
use bevy_icollide::testkit::{
    Poly, Rng, dpose, long_factor, segment_poly_distance, segment_segment,
    segment_triangle_distance,
};
use glam::{DVec3, Quat, Vec3};

use crate::exact_polyline::{polyline, segments};
use crate::exact_polyline_motion::turned;

/// What counts as touching for segments in the reference (they meet at
/// an instant: the minimum found is `0` to rounding).
const EPS: f64 = 1e-9;

/// `argmin` of `f` on `[lo, hi]` (ternary search) and the value there.
fn min_on(f: &dyn Fn(f64) -> f64, (mut lo, mut hi): (f64, f64)) -> (f64, f64) {
    for _ in 0..80 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) <= f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let t = 0.5 * (lo + hi);
    (t, f(t))
}

/// The first `t` in `[lo, hi]` with `f(t) ≤ EPS`, `f(lo) > EPS ≥ f(hi)`.
fn bisect(f: &dyn Fn(f64) -> f64, (mut lo, mut hi): (f64, f64)) -> f64 {
    for _ in 0..60 {
        let m = 0.5 * (lo + hi);
        if f(m) > EPS {
            lo = m;
        } else {
            hi = m;
        }
    }
    hi
}

/// The reference first contact of a gap (convex pieces: `convex`, one
/// ternary search per piece; else sampled local minima), and the least
/// gap found.
pub(crate) fn first_touch(pieces: &[&dyn Fn(f64) -> f64], convex: bool) -> (Option<f64>, f64) {
    let (mut first, mut least) = (None::<f64>, f64::MAX);
    for f in pieces {
        if f(0.0) <= EPS {
            return (Some(0.0), 0.0);
        }
        let brackets: Vec<(f64, f64)> = if convex {
            vec![(0.0, 1.0)]
        } else {
            let n = 400usize;
            let x = |k: usize| k as f64 / n as f64;
            let g: Vec<f64> = (0..=n).map(|k| f(x(k))).collect();
            (1..=n)
                .filter(|&k| k == n || (g[k] <= g[k - 1] && g[k] <= g[k + 1]))
                .map(|k| (x(k - 1), x((k + 1).min(n))))
                .collect()
        };
        for (lo, hi) in brackets {
            let (tm, gm) = min_on(*f, (lo, hi));
            let (tm, gm) = if f(hi) < gm { (hi, f(hi)) } else { (tm, gm) };
            least = least.min(gm);
            if gm <= EPS {
                let t = bisect(*f, (lo, tm));
                first = Some(first.map_or(t, |x: f64| x.min(t)));
                break;
            }
        }
    }
    (first, least)
}

/// Checks a cast against the reference: never after the first contact,
/// the gap within the tolerance at the reported time; a miss only when
/// the least gap is beyond the tolerance (or a hit within it). Whether
/// it hit.
pub(crate) fn check(
    got: Option<ShapeCastHit>,
    gap: &dyn Fn(f64) -> f64,
    reference: (Option<f64>, f64),
    case: &str,
) -> bool {
    let tol = f64::from(ShapeCastOptions::default().tolerance);
    let (first, least) = reference;
    match got {
        Some(h) => {
            let t = f64::from(h.time_of_impact);
            if let Some(t1) = first {
                assert!(
                    t <= t1 + 1e-5,
                    "{case}: toi {t} after the first contact {t1}"
                );
            }
            assert!(gap(t) <= tol + 1e-5, "{case}: gap {} at toi {t}", gap(t));
            true
        }
        None => {
            assert!(
                first.is_none(),
                "{case}: missed the contact at {first:?} (least {least})"
            );
            false
        }
    }
}

/// A polyline moving (even `i`) or the other shape still, the polyline
/// the second shape (odd `i`); linear when `m` does not turn.
pub(crate) fn cast(
    line: &SharedShape,
    m: &RigidMotion,
    (other, po): (&SharedShape, &Pose),
    i: usize,
) -> Option<ShapeCastHit> {
    let options = ShapeCastOptions::default();
    let still = RigidMotion::stationary(*po);
    if i.is_multiple_of(2) {
        query::cast_shapes_nonlinear((line, m), (other, &still), &options)
    } else {
        query::cast_shapes_nonlinear((other, &still), (line, m), &options)
    }
    .expect("cast")
}

/// Linear casts of polylines at polylines, both orders: each segment
/// pair's gap convex in time. Placements: random; identity poses with a
/// segment `0, 2⁻²⁴, 4·2⁻²⁴, 10⁻³` above a crossing one falling at speed
/// 1 (contact at the gap), a point falling onto a shared point of the
/// other chain, a segment sliding along a collinear one (touching from
/// the start) and `10⁻³` beside it (never touching).
#[test]
fn polylines_cast_at_polylines_stop_at_the_first_segment_contact() {
    let mut rng = Rng::new(4901);
    let (mut hits, mut misses) = (0, 0);
    let tiny = 2f32.powi(-24);
    for i in 0..200 * long_factor() {
        let (a, b, pa, pb, vel, want) = match i {
            0..10 => {
                let gap = [0.0, tiny, 4.0 * tiny, 1e-3, 0.25][i % 5];
                let b =
                    SharedShape::polyline(vec![-Vec3::Z, Vec3::ZERO, Vec3::X], None).expect("b");
                let a = if i < 5 {
                    SharedShape::polyline(
                        vec![Vec3::new(-0.5, 0.0, -0.5), Vec3::new(0.5, 0.0, -0.5)],
                        None,
                    )
                } else {
                    SharedShape::polyline(vec![Vec3::ZERO, Vec3::new(0.3, 0.4, 0.2)], None)
                }
                .expect("a");
                let pa = Pose::from_translation(Vec3::Y * gap);
                (
                    a,
                    b,
                    pa,
                    Pose::IDENTITY,
                    -Vec3::Y,
                    Some(f64::from(pa.translation.y)),
                )
            }
            10..12 => {
                let side = [0.0, 1e-3][i - 10];
                let b = SharedShape::polyline(vec![Vec3::ZERO, Vec3::X], None).expect("b");
                let a = SharedShape::polyline(vec![Vec3::ZERO, Vec3::X * 0.3], None).expect("a");
                let pa = Pose::from_translation(Vec3::new(-0.2, 0.0, side));
                (
                    a,
                    b,
                    pa,
                    Pose::IDENTITY,
                    Vec3::X,
                    (side == 0.0).then_some(0.0),
                )
            }
            _ => {
                let (a, b) = (polyline(&mut rng, 1.0), polyline(&mut rng, 1.0));
                let pb = Pose::new(rng.rotation(), rng.in_cube(0.3));
                let pa = Pose::new(rng.rotation(), pb.translation + rng.unit_vector() * 1.2);
                let vel =
                    (pb.translation + rng.in_cube(0.4) - pa.translation) * rng.range(0.7, 1.5);
                (a, b, pa, pb, vel, None)
            }
        };
        let (sa, sb) = (segments(&a, &pa), segments(&b, &pb));
        let v = vel.as_dvec3();
        let pair = |(x, y): ([DVec3; 2], [DVec3; 2])| {
            move |t: f64| segment_segment(x[0] + v * t, x[1] + v * t, y[0], y[1])
        };
        let fs: Vec<_> = sa
            .iter()
            .flat_map(|&x| sb.iter().map(move |&y| pair((x, y))))
            .collect();
        let refs: Vec<&dyn Fn(f64) -> f64> = fs.iter().map(|f| f as &dyn Fn(f64) -> f64).collect();
        let gap = |t: f64| refs.iter().map(|f| f(t)).fold(f64::MAX, f64::min);
        let reference = first_touch(&refs, true);
        let got = cast(&a, &RigidMotion::linear(pa, vel), (&b, &pb), i);
        let case = format!("case {i}: reference {reference:?}, got {got:?}");
        if let Some(w) = want {
            let t1 = reference
                .0
                .unwrap_or_else(|| panic!("{case}: the reference missed {w}"));
            assert!(
                (t1 - w).abs() <= 1e-9,
                "{case}: the reference at {t1}, not {w}"
            );
        }
        if i == 11 {
            assert!(got.is_none(), "{case}: sliding 1e-3 beside");
        }
        if check(got, &gap, reference, &case) {
            hits += 1;
        } else {
            misses += 1;
        }
    }
    eprintln!("linear: {hits} hits, {misses} misses");
    assert!(hits > 40 && misses > 20, "{hits} hits, {misses} misses");
}

/// The other shape of a turning cast: a box, a capsule, a small mesh (a
/// tetrahedron's four triangles) or a polyline, and each polyline
/// segment's `f64` gap to it.
pub(crate) enum Other {
    Box(Poly),
    Capsule([DVec3; 2], f64),
    Mesh(Vec<[DVec3; 3]>),
    Line(Vec<[DVec3; 2]>),
    /// A compound's pieces (each posed in the world).
    Pieces(Vec<Other>),
}

impl Other {
    pub(crate) fn gap(&self, [p, q]: [DVec3; 2]) -> f64 {
        match self {
            Other::Box(poly) => segment_poly_distance(p, q, poly),
            Other::Capsule([a, b], r) => segment_segment(p, q, *a, *b) - r,
            Other::Mesh(tris) => tris
                .iter()
                .map(|t| segment_triangle_distance(p, q, *t))
                .fold(f64::MAX, f64::min),
            Other::Line(segs) => segs
                .iter()
                .map(|s| segment_segment(p, q, s[0], s[1]))
                .fold(f64::MAX, f64::min),
            Other::Pieces(ps) => ps.iter().map(|o| o.gap([p, q])).fold(f64::MAX, f64::min),
        }
    }
}

/// A box, a capsule, a tetrahedron mesh or a polyline (`k`), posed.
pub(crate) fn other(rng: &mut Rng, k: usize, pose: Pose) -> (SharedShape, Other) {
    let (q, t) = dpose(&pose);
    match k {
        0 => {
            let s = SharedShape::cuboid(rng.vec(0.1, 0.35)).expect("box");
            let h = s.hull().expect("hull");
            (
                s.clone(),
                Other::Box(Poly::new(h.vertices(), h.triangles(), &pose)),
            )
        }
        1 => {
            let (r, half) = (rng.range(0.05, 0.2), rng.range(0.1, 0.4));
            let s = SharedShape::capsule(r, 2.0 * half).expect("capsule");
            let axis = q * DVec3::Y * f64::from(half);
            (s, Other::Capsule([t - axis, t + axis], f64::from(r)))
        }
        2 => {
            let v: Vec<Vec3> = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]
                .map(|p| p * 0.7 - 0.2)
                .to_vec();
            let tris = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
            let world = tris
                .iter()
                .map(|x: &[u32; 3]| x.map(|i| q * v[i as usize].as_dvec3() + t))
                .collect();
            (
                SharedShape::trimesh(v, tris).expect("mesh"),
                Other::Mesh(world),
            )
        }
        _ => {
            let s = polyline(rng, 1.0);
            let segs = segments(&s, &pose);
            (s, Other::Line(segs))
        }
    }
}

/// Turning casts: a polyline turning (and moving) about a random centre
/// at a box, a capsule, a mesh and a polyline, still, both orders; the
/// gap along the `f64` arcs. Closed form: a segment `[0, 1]·x` at the
/// identity turning a quarter about `z` sweeps a box corner, a capsule
/// (its axis along `z`) and a segment end at `(0.6 cos 45°, 0.6 sin 45°,
/// 0)`: contact at 45° (the turn's half time), less `asin(r / 0.6)` for
/// the capsule.
#[test]
fn turning_polylines_cast_at_boxes_capsules_meshes_and_polylines() {
    let mut rng = Rng::new(4902);
    let (mut hits, mut misses) = (0, 0);
    for i in 0..80 * long_factor() {
        let k = i % 4;
        let po = Pose::new(rng.rotation(), rng.in_cube(0.4));
        let (shape, reference) = other(&mut rng, k, po);
        match turning_case(
            &mut rng,
            i,
            (&shape, &po, &reference),
            &format!("case {i} (other {k})"),
        ) {
            Some(true) => hits += 1,
            Some(false) => misses += 1,
            None => {}
        }
    }
    eprintln!("turning: {hits} hits, {misses} misses");
    assert!(hits > 15 && misses > 10, "{hits} hits, {misses} misses");
    quarter_turns();
}

/// A random turning polyline cast at `shape` (posed `po`, `reference` its
/// f64 twin), the order by `i`'s parity: checked against the reference's
/// first touch; `Some(hit)`, or `None` for a start already touching
/// (skipped).
pub(crate) fn turning_case(
    rng: &mut Rng,
    i: usize,
    (shape, po, reference): (&SharedShape, &Pose, &Other),
    case: &str,
) -> Option<bool> {
    let line = polyline(rng, 1.0);
    let away = rng.unit_vector() * rng.range(0.6, 1.2);
    let m = RigidMotion {
        start: Pose::new(rng.rotation(), po.translation + away),
        local_center: rng.in_cube(0.3),
        linvel: -away * rng.range(0.0, 1.2) + rng.in_cube(0.3),
        angvel: rng.unit_vector() * rng.range(0.5, 3.0),
    };
    let fs: Vec<_> = (0..line.polyline().expect("line").segments().len())
        .map(|s| {
            let (line, m) = (&line, &m);
            move |t: f64| reference.gap(turned(line, m, t)[s])
        })
        .collect();
    let refs: Vec<&dyn Fn(f64) -> f64> = fs.iter().map(|f| f as &dyn Fn(f64) -> f64).collect();
    let gap = |t: f64| refs.iter().map(|f| f(t)).fold(f64::MAX, f64::min);
    let first = first_touch(&refs, false);
    if first.0 == Some(0.0) {
        return None;
    }
    let got = cast(&line, &m, (shape, po), i);
    Some(check(
        got,
        &gap,
        first,
        &format!("{case}: reference {first:?}, got {got:?}"),
    ))
}

/// The closed-form quarter turns (see the test above).
fn quarter_turns() {
    let at = QUARTER_TURN_MEETS;
    let r = 0.1f32;
    let cube = SharedShape::cuboid(Vec3::splat(0.2)).expect("box");
    let capsule = SharedShape::capsule(r, 0.4).expect("capsule");
    let chain = SharedShape::polyline(vec![Vec3::ZERO, Vec3::Y * 0.5], None).expect("chain");
    let upright = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let cases = [
        // The box's corner at `at`, the box where the angle is ≥ 45°.
        (
            &cube,
            Pose::from_translation(at + Vec3::new(-0.2, 0.2, 0.0)),
            0.5f64,
        ),
        // The capsule's axis along z through `at`: a disc of radius `r`.
        (
            &capsule,
            Pose::new(upright, at),
            0.5 - (f64::from(r) / 0.6).asin() / std::f64::consts::FRAC_PI_2,
        ),
        // A chain from `at` straight up.
        (&chain, Pose::from_translation(at), 0.5),
    ];
    check_quarter_turns(&cases);
}

/// Where the quarter-turning unit segment's end passes at half its turn:
/// `0.6` out at 45°.
pub(crate) const QUARTER_TURN_MEETS: Vec3 = Vec3::new(
    0.6 * std::f32::consts::FRAC_1_SQRT_2,
    0.6 * std::f32::consts::FRAC_1_SQRT_2,
    0.0,
);

/// The unit segment along x turning a quarter about z in the cast, cast at
/// each `(shape, pose, first contact)` in both orders: hits no later than
/// the closed-form time, and within `2·10⁻⁴` before it.
pub(crate) fn check_quarter_turns(cases: &[(&SharedShape, Pose, f64)]) {
    let seg = SharedShape::polyline(vec![Vec3::ZERO, Vec3::X], None).expect("segment");
    let m = RigidMotion {
        angvel: Vec3::Z * std::f32::consts::FRAC_PI_2,
        ..RigidMotion::stationary(Pose::IDENTITY)
    };
    for (k, &(shape, pose, want)) in cases.iter().enumerate() {
        for order in 0..2 {
            let hit = cast(&seg, &m, (shape, &pose), order)
                .unwrap_or_else(|| panic!("quarter turn {k}: no hit"));
            let t = f64::from(hit.time_of_impact);
            assert!(
                t <= want + 1e-6 && want - t <= 2e-4,
                "quarter turn {k}: {t} vs {want}"
            );
        }
    }
}
