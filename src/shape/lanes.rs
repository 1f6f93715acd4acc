//! The whole-hull scans, eight vertices at a time: the support vertex and
//! the box of the rotated hull.
//!
//! A cold GJK query asks each hull for its support in directions that swing
//! widely, and below 2 048 vertices scanning the hull whole beats a
//! hill-climbing walk (see `polytope::SCAN_BELOW`). The scans keep a
//! structure-of-arrays copy of the vertices, `[x; 8], [y; 8], [z; 8]` per
//! chunk of eight (the last chunk padded with the last vertex).
//!
//! **Support** ([`VertexLanes::argmax`]): each chunk as two halves of four,
//! so that four dot products, the comparison and the running maximum are
//! each one SIMD operation (`glam::Vec4`); each half keeps its own running
//! maximum (one chain of compare-and-select from chunk to chunk would be
//! latency-bound); at the end, the largest value over the eight lanes,
//! then the smallest index among the lanes holding it, by compares,
//! selects and minima (no branch: a branchy merge was mispredicted about
//! once a call in GJK's cold queries). Same answer as
//! the scalar scan, bit for bit: the dot products are summed in the same
//! order, each lane keeps its first maximum, and ties between lanes go to
//! the smallest index, so the first vertex maximizing `d · v` wins.
//! [`VertexLanes::support`] returns the point from the lanes the scan just
//! read, so that GJK does not wait on a second load from the vertex array.
//!
//! **Support value** ([`VertexLanes::max_dot`]): the same dot products
//! and running maxima without the indices, for a caller that needs only
//! `max d · v` (the cached separating axis, `query::hull_axis`).
//!
//! Hulls under 64 vertices are scanned for every support, warm or cold
//! (`polytope::WALK_FROM`).
//!
//! **Rotated box** ([`VertexLanes::rotated_bounds`], the dynamic boxes of
//! hulls below `bounds::dynamic_box::CLIMB_MIN_VERTICES`): three dot
//! products, three minima and three maxima per vertex. Where the CPU has
//! AVX (detected at run time; the crate is built for baseline x86-64) a
//! chunk is one 8-wide register per coordinate; elsewhere two 4-wide
//! halves. Multiplies and adds only, no fused multiply-add, so both paths
//! round like `Vec3::dot` and give the brute-force box. This is one of the
//! crate's two `unsafe` blocks (calling the AVX function once the CPU is
//! known to have it).
//!
//! **Read-ahead** ([`VertexLanes::prefetch`], through `math::prefetch`,
//! which holds the other `unsafe` block: a prefetch instruction). When
//! every body has its own hull, the lanes of 10 000 hulls leave the cache
//! and the scan of each waits on its loads; the collision world's box stage
//! calls `DynamicBox::prefetch` for the body two places ahead (and
//! `DynamicBox::prefetch_fields`, the hull's own fields, four places
//! ahead).
//!
//! What each of these gained, run by run (cold GJK and the box stage
//! against parry3d and the scalar transform): see
//! `docs/notes/EXPERIMENTS.md#convex-boolean` and `#bounds`.

use glam::{Vec3, Vec4};

use crate::math::prefetch::{LINE, prefetch_slice};

/// Vertices per chunk: one AVX register of `f32`, two SSE registers.
const CHUNK: usize = 8;

/// Cache lines that [`VertexLanes::prefetch`] asks for: 2 KiB, the lanes
/// of the first 168 vertices (21 chunks of 96 bytes); the hardware
/// prefetcher follows longer scans on its own.
const PREFETCH_LINES: usize = 32;

/// A chunk of [`CHUNK`] vertices, coordinate by coordinate.
type Chunk = [[f32; CHUNK]; 3];

/// A polytope's vertices in chunks of eight, coordinate by coordinate.
#[derive(Clone, Debug, Default)]
pub(crate) struct VertexLanes {
    chunks: Vec<Chunk>,
}

/// Lanes `4 h .. 4 h + 4` of one coordinate row of a chunk.
#[inline(always)]
fn half(row: &[f32; CHUNK], h: usize) -> Vec4 {
    Vec4::from_slice(&row[4 * h..4 * h + 4])
}

/// `d > best ? d : best`, lane by lane (`Vec4::select(d.cmpgt(best), d,
/// best)`). On x86 one `maxps`, which returns its second operand when
/// the first is NaN, so the same: the running maximum's chain from chunk
/// to chunk is then one instruction instead of a compare and a select
/// (`new_kinds` cone–hull distance 2 % faster). Elsewhere the select:
/// glam's `max` may propagate a NaN there.
#[inline(always)]
fn keep_larger(d: Vec4, best: Vec4) -> Vec4 {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        d.max(best)
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        Vec4::select(d.cmpgt(best), d, best)
    }
}

impl VertexLanes {
    /// The lanes of `vertices` (at most 2²⁴ of them: indices travel as
    /// `f32`); the last chunk is padded with the last vertex.
    pub fn new(vertices: &[Vec3]) -> Self {
        let chunks = vertices
            .chunks(CHUNK)
            .map(|c| {
                let at = |k: usize| c[k.min(c.len() - 1)];
                let row = |f: fn(Vec3) -> f32| std::array::from_fn(|k| f(at(k)));
                [row(|v| v.x), row(|v| v.y), row(|v| v.z)]
            })
            .collect();
        Self { chunks }
    }

    /// Asks the CPU to start loading the first [`PREFETCH_LINES`] cache
    /// lines of the lanes, so that a scan a little later finds them in the
    /// cache (see `math::prefetch`).
    #[inline]
    pub fn prefetch(&self) {
        prefetch_slice(&self.chunks, PREFETCH_LINES * LINE);
    }

    /// The first vertex maximizing `dir · v` (0 when there are none, or
    /// when `dir` has a NaN). Four lanes, each chunk as two halves,
    /// each half with its own running maximum: two independent chains of
    /// compare-and-select, half the latency of one.
    pub fn argmax(&self, dir: Vec3) -> u32 {
        let (dx, dy, dz) = (Vec4::splat(dir.x), Vec4::splat(dir.y), Vec4::splat(dir.z));
        let mut best = [Vec4::splat(f32::NEG_INFINITY); 2];
        let mut index = [Vec4::ZERO; 2];
        let mut at = Vec4::new(0.0, 1.0, 2.0, 3.0);
        for [x, y, z] in &self.chunks {
            for h in 0..2 {
                let d = half(x, h) * dx + half(y, h) * dy + half(z, h) * dz;
                let better = d.cmpgt(best[h]);
                index[h] = Vec4::select(better, at + Vec4::splat(4.0 * h as f32), index[h]);
                best[h] = keep_larger(d, best[h]);
            }
            at += Vec4::splat(CHUNK as f32);
        }
        // The largest value, then the smallest index among the lanes
        // holding it (each lane's index is its first vertex of its own
        // maximum): the first vertex maximizing `d · v`. No branch (a
        // data-dependent branch here was mispredicted about once a call).
        let top = Vec4::splat(keep_larger(best[0], best[1]).max_element());
        let first = |h: usize| Vec4::select(best[h].cmpeq(top), index[h], Vec4::INFINITY);
        first(0).min(first(1)).min_element() as u32
    }

    /// The largest `dir · v` over the vertices, the value alone: the
    /// dot products as [`argmax`](Self::argmax) forms them (so the value
    /// of its vertex, bit for bit but for a zero's sign: `0 == −0`, and
    /// the merge across lanes may keep either), no index kept, so each
    /// half's step is one multiply-add chain and one maximum. The padding
    /// lanes repeat the last vertex and change nothing. `−∞` without
    /// vertices; a NaN product is skipped (`−∞` when `dir` has a NaN).
    pub fn max_dot(&self, dir: Vec3) -> f32 {
        let (dx, dy, dz) = (Vec4::splat(dir.x), Vec4::splat(dir.y), Vec4::splat(dir.z));
        let mut best = [Vec4::splat(f32::NEG_INFINITY); 2];
        for [x, y, z] in &self.chunks {
            for (h, best) in best.iter_mut().enumerate() {
                let d = half(x, h) * dx + half(y, h) * dy + half(z, h) * dz;
                *best = keep_larger(d, *best);
            }
        }
        keep_larger(best[0], best[1]).max_element()
    }

    /// [`argmax`](Self::argmax) and its vertex, read from the lanes (which
    /// the scan has just brought into the cache).
    #[inline]
    pub fn support(&self, dir: Vec3) -> (u32, Vec3) {
        let i = self.argmax(dir);
        (i, self.vertex(i))
    }

    /// Vertex `i` (`i` below the number of vertices), from the lanes. An
    /// index past the vertices gives a padding copy of the last vertex, or
    /// zero past the chunks.
    #[inline]
    pub fn vertex(&self, i: u32) -> Vec3 {
        debug_assert!((i as usize) < self.chunks.len() * CHUNK);
        let (c, k) = (i as usize / CHUNK, i as usize % CHUNK);
        self.chunks
            .get(c)
            .map_or(Vec3::ZERO, |[x, y, z]| Vec3::new(x[k], y[k], z[k]))
    }

    /// The smallest and largest `rows[k] · v` over the vertices, per `k`
    /// (the box of the rotated vertices, row `k` of the rotation giving
    /// coordinate `k`), with `Vec3::dot`'s arithmetic: the scalar loop's
    /// box bit for bit. `(+∞, −∞)` without vertices. Eight vertices at a
    /// time where the CPU has AVX, four otherwise.
    #[allow(unsafe_code)]
    pub fn rotated_bounds(&self, rows: [Vec3; 3]) -> (Vec3, Vec3) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU has AVX (checked just above), the one feature
            // `rotated_bounds_avx` is compiled for. `--bench broad_phase --
            // bounds_update` (module docs) measured it worth the exception
            // to the crate's `deny(unsafe_code)`.
            return unsafe { rotated_bounds_avx(&self.chunks, rows) };
        }
        rotated_bounds_sse(&self.chunks, rows)
    }
}

/// [`VertexLanes::rotated_bounds`] four lanes at a time (`glam::Vec4`).
/// The AVX function's body compiled for the baseline CPU would serve here
/// too, but it ran slower on this path (more instructions under callgrind
/// and more time per box, on 40-vertex hulls), so the two stay separate.
fn rotated_bounds_sse(chunks: &[Chunk], rows: [Vec3; 3]) -> (Vec3, Vec3) {
    let mut lo = [Vec4::INFINITY; 3];
    let mut hi = [Vec4::NEG_INFINITY; 3];
    for [x, y, z] in chunks {
        for h in 0..2 {
            let (x, y, z) = (half(x, h), half(y, h), half(z, h));
            for k in 0..3 {
                let r = rows[k];
                let d = x * Vec4::splat(r.x) + y * Vec4::splat(r.y) + z * Vec4::splat(r.z);
                lo[k] = lo[k].min(d);
                hi[k] = hi[k].max(d);
            }
        }
    }
    (
        Vec3::new(
            lo[0].min_element(),
            lo[1].min_element(),
            lo[2].min_element(),
        ),
        Vec3::new(
            hi[0].max_element(),
            hi[1].max_element(),
            hi[2].max_element(),
        ),
    )
}

/// [`VertexLanes::rotated_bounds`] eight lanes at a time: plain arrays of
/// eight that the compiler turns into AVX registers (a multiply, not a
/// fused multiply-add: the same rounding as `Vec3::dot`). The minimum is
/// written as SSE's `min` (`if a < b { a } else { b }`), which is what
/// both paths and the scalar loop compute on finite values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn rotated_bounds_avx(chunks: &[Chunk], rows: [Vec3; 3]) -> (Vec3, Vec3) {
    let mut lo = [[f32::INFINITY; CHUNK]; 3];
    let mut hi = [[f32::NEG_INFINITY; CHUNK]; 3];
    for [x, y, z] in chunks {
        for k in 0..3 {
            let r = rows[k];
            for l in 0..CHUNK {
                let d = x[l] * r.x + y[l] * r.y + z[l] * r.z;
                lo[k][l] = if lo[k][l] < d { lo[k][l] } else { d };
                hi[k][l] = if hi[k][l] > d { hi[k][l] } else { d };
            }
        }
    }
    // Eight lanes to four, then glam's reductions (the compiler's fold
    // over all eight was slower).
    let low = |a: &[f32; CHUNK]| half(a, 0).min(half(a, 1)).min_element();
    let high = |a: &[f32; CHUNK]| half(a, 0).max(half(a, 1)).max_element();
    (
        Vec3::new(low(&lo[0]), low(&lo[1]), low(&lo[2])),
        Vec3::new(high(&hi[0]), high(&hi[1]), high(&hi[2])),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    /// The scalar scan: the first vertex maximizing `dir · v`.
    fn scalar(vertices: &[Vec3], dir: Vec3) -> u32 {
        let mut best = 0;
        let mut best_val = f32::NEG_INFINITY;
        for (i, v) in vertices.iter().enumerate() {
            let val = dir.dot(*v);
            if val > best_val {
                best_val = val;
                best = i as u32;
            }
        }
        best
    }

    /// The value-only scan against the largest `dir · v` of the scalar
    /// loop, equal (ties and duplicates, every length up to 70, so
    /// every padding of the last chunk), with all products negative (a
    /// padding lane not holding a vertex, or a lane skipped, shows), and
    /// a NaN direction (`−∞`, never a value).
    #[test]
    fn value_scan_gives_the_scalar_maximum() {
        let mut rng = Rng::new(43);
        for n in 0..70 {
            let mut v: Vec<Vec3> = (0..n).map(|_| (rng.vec(-3.0, 3.0) * 2.0).round()).collect();
            if n > 3 {
                v[n - 1] = v[1];
            }
            let below: Vec<Vec3> = v.iter().map(|p| *p - Vec3::splat(20.0)).collect();
            for pts in [&v, &below] {
                let lanes = VertexLanes::new(pts);
                for _ in 0..200 {
                    let d = (rng.vec(-2.0, 2.0) * 2.0).round() + Vec3::splat(0.5);
                    let want = pts.iter().fold(f32::NEG_INFINITY, |m, p| m.max(d.dot(*p)));
                    let got = lanes.max_dot(d);
                    assert!(got == want, "n {n}, dir {d}: {got} against {want}");
                }
                assert_eq!(lanes.max_dot(Vec3::NAN), f32::NEG_INFINITY, "n {n}");
            }
        }
    }

    #[test]
    fn lanes_answer_like_the_scalar_scan_ties_included() {
        let mut rng = Rng::new(41);
        for n in 0..70 {
            // Coarse coordinates: many exact ties, and duplicates.
            let mut v: Vec<Vec3> = (0..n).map(|_| (rng.vec(-3.0, 3.0) * 2.0).round()).collect();
            if n > 3 {
                v[n - 1] = v[1];
            }
            let lanes = VertexLanes::new(&v);
            for _ in 0..200 {
                let d = (rng.vec(-2.0, 2.0) * 2.0).round();
                let i = scalar(&v, d);
                assert_eq!(lanes.argmax(d), i, "n {n}, dir {d}");
                if n > 0 {
                    assert_eq!(lanes.support(d), (i, v[i as usize]), "n {n}, dir {d}");
                }
            }
            assert_eq!(lanes.argmax(Vec3::NAN), 0);
            for _ in 0..20 {
                let q = rng.rotation();
                let rows = glam::Mat3::from_quat(q).transpose();
                let rows = [rows.col(0), rows.col(1), rows.col(2)];
                let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
                for &p in &v {
                    let w = Vec3::new(rows[0].dot(p), rows[1].dot(p), rows[2].dot(p));
                    lo = lo.min(w);
                    hi = hi.max(w);
                }
                assert_eq!(lanes.rotated_bounds(rows), (lo, hi), "n {n}");
                assert_eq!(rotated_bounds_sse(&lanes.chunks, rows), (lo, hi), "n {n}");
            }
        }
    }
}
