//! The final pass of the hull build: drop vertices within `eps` of a
//! triangle spanned by their neighbours, and rebuild.

use glam::DVec3;

use super::quickhull::{NONE, initial_simplex, quickhull};

/// A compact triangle mesh: `verts[i]` is the input index of vertex `i`
/// (ascending), `tris` index `verts`.
pub(super) struct Mesh {
    pub(super) verts: Vec<usize>,
    pub(super) tris: Vec<[usize; 3]>,
}

impl Mesh {
    /// Compacts triangles given as indices into `n` points, keeping only the
    /// points they use.
    pub(super) fn new(n: usize, tris: &[[usize; 3]]) -> Self {
        let mut remap = vec![NONE; n];
        for t in tris {
            for &i in t {
                remap[i] = 0;
            }
        }
        let mut verts = Vec::new();
        for (i, slot) in remap.iter_mut().enumerate() {
            if *slot == 0 {
                *slot = verts.len();
                verts.push(i);
            }
        }
        let tris = tris.iter().map(|t| t.map(|i| remap[i])).collect();
        Self { verts, tris }
    }

    /// The link of every vertex as CSR: for each triangle `[v, x, y]` around
    /// vertex `v`, the directed link edge `(x, y)`.
    fn links(&self) -> (Vec<usize>, Vec<(usize, usize)>) {
        let mut offsets = vec![0usize; self.verts.len() + 1];
        for t in &self.tris {
            for &v in t {
                offsets[v + 1] += 1;
            }
        }
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        let mut fill = offsets.clone();
        let mut links = vec![(0, 0); offsets[self.verts.len()]];
        for &[a, b, c] in &self.tris {
            for (v, x, y) in [(a, b, c), (b, c, a), (c, a, b)] {
                links[fill[v]] = (x, y);
                fill[v] += 1;
            }
        }
        (offsets, links)
    }
}

/// Removes hull vertices that are not extreme points (within `eps`) and
/// rebuilds the hull from the others, until none is left.
///
/// A vertex is removed when it lies within `eps` of a triangle spanned by
/// its neighbours: then it lies within `eps` of the hull of the other
/// vertices. Only non-adjacent vertices are removed per round, so the error
/// does not add up along chains of removed vertices.
pub(super) fn prune_redundant(mut mesh: Mesh, pts: &[DVec3], eps: f64) -> Mesh {
    for _ in 0..mesh.verts.len() {
        let drop = redundant_vertices(&mesh, pts, eps);
        if !drop.contains(&true) {
            break;
        }
        let keep: Vec<usize> = mesh
            .verts
            .iter()
            .zip(&drop)
            .filter(|(_, d)| !**d)
            .map(|(&i, _)| i)
            .collect();
        let sub: Vec<DVec3> = keep.iter().map(|&i| pts[i]).collect();
        let Ok(simplex) = initial_simplex(&sub, eps) else {
            break;
        };
        let mut next = Mesh::new(sub.len(), &quickhull(&sub, eps, simplex));
        next.verts.iter_mut().for_each(|i| *i = keep[*i]);
        mesh = next;
    }
    mesh
}

/// Flags an independent set of redundant vertices of `mesh`.
fn redundant_vertices(mesh: &Mesh, pts: &[DVec3], eps: f64) -> Vec<bool> {
    let (offsets, links) = mesh.links();
    let n = mesh.verts.len();
    let mut drop = vec![false; n];
    let mut blocked = vec![false; n];
    let pos = |v: usize| pts[mesh.verts[v]];
    for v in 0..n {
        let link = &links[offsets[v]..offsets[v + 1]];
        if blocked[v] || !is_redundant(pos(v), link, pos, eps) {
            continue;
        }
        drop[v] = true;
        for &(x, _) in link {
            blocked[x] = true;
        }
    }
    drop
}

/// Whether the vertex at `p` with link `link` lies within `eps` of a triangle
/// `(l, x, y)` where `l` is a neighbour and `(x, y)` a link edge. This catches
/// points inside flat regions and on straight edges of the hull.
fn is_redundant(p: DVec3, link: &[(usize, usize)], pos: impl Fn(usize) -> DVec3, eps: f64) -> bool {
    // Fast proof of extremeness: p stands out by more than eps from all its
    // neighbours along the mean normal of its triangles.
    let d = link
        .iter()
        .map(|&(x, y)| (pos(x) - p).cross(pos(y) - p).normalize_or_zero())
        .sum::<DVec3>()
        .normalize_or_zero();
    let top = link
        .iter()
        .map(|&(x, _)| d.dot(pos(x)))
        .fold(f64::NEG_INFINITY, f64::max);
    if d.dot(p) - top > eps {
        return false;
    }
    link.iter().any(|&(l, _)| {
        link.iter()
            .any(|&(x, y)| point_triangle_distance(p, pos(l), pos(x), pos(y)) <= eps)
    })
}

/// Distance from `p` to the (possibly degenerate) triangle `(a, b, c)`.
pub(super) fn point_triangle_distance(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let edges = point_segment_distance(p, a, b)
        .min(point_segment_distance(p, b, c))
        .min(point_segment_distance(p, c, a));
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    if nn <= 1e-24 * (b - a).length_squared() * (c - a).length_squared() || nn == 0.0 {
        return edges;
    }
    let inside = n.dot((b - a).cross(p - a)) >= 0.0
        && n.dot((c - b).cross(p - b)) >= 0.0
        && n.dot((a - c).cross(p - c)) >= 0.0;
    if inside {
        n.dot(p - a).abs() / nn.sqrt()
    } else {
        edges
    }
}

/// Distance from `p` to the segment `(a, b)`.
fn point_segment_distance(p: DVec3, a: DVec3, b: DVec3) -> f64 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}
