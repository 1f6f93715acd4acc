//! Convex polytopes with full adjacency and precomputed Voronoi planes, the
//! data Lin–Canny walks over (Lin and Canny, *A fast algorithm for
//! incremental distance calculation*, ICRA 1991; I-COLLIDE section 4).
//!
//! Built from a [`ConvexHull`]: adjacent coplanar triangles (within the
//! hull's tolerance) are merged into one planar, convex face whose boundary
//! is a counter-clockwise loop seen from outside. Features are vertices,
//! edges and faces; every edge separates two faces.
//!
//! **Voronoi regions** (the points of space closest to a feature):
//! - vertex `v`: `(p - v) · (v - w) >= 0` for every neighbor `w`;
//! - edge `(v0, v1)` with unit direction `d`: `(p - v0) · d >= 0`,
//!   `(p - v1) · d <= 0`, and for each adjacent face `f`,
//!   `(p - v0) · m_f <= 0` where `m_f` is the in-plane normal of the edge
//!   pointing into `f`;
//! - face `f`: `(p - v_i) · m_i >= 0` for each boundary edge `i` (the side
//!   planes) and `(p - v_0) · n >= 0` (above the face).
//!
//! Vertex and edge regions lie outside the polytope; face regions are prisms
//! that also reach inside, which is where penetration shows (see
//! [`crate::query::lin_canny`]). The edge directions `d` and the
//! in-plane normals `m` are precomputed.
//!
//! **Layout.** A warm Lin–Canny query usually tests the same two features
//! as last frame, on hulls that have left the cache (a pair per body pair,
//! thousands of them), so each region is one contiguous run read without
//! going through another array: a vertex's position and the start of its
//! run share one 16-byte record, its planes are [`VertexLink`]s
//! (normal and edge together, 16 bytes), a face's loop slots carry their
//! vertex's position ([`FaceSlot`], 32 bytes), an edge's record carries its
//! ends. The pair cache keeps where its features' runs start
//! ([`region_start`](ConvexPolytope::region_start)), so a read-ahead reaches
//! them with no load in between. The copies cost about 14 KB on a
//! 100-vertex hull (294 edges, 588 slots) and took a warm query from 427 to
//! 323 ns with a hull per body, 321 to 258 ns with read-ahead
//! (`ICOLLIDE_BENCH_POINTS=100 --bench convex_distance`, same session).
//! The struct's own fields that a query reads come first and together
//! (`repr(C)`, boxed slices: 152 bytes, which `prefetch_fields` hints,
//! instead of 256 spread over four lines): 267 and 219 ns in one run after
//! that, against parry3d's `distance` at 2 630 ns; 258 and 206 ns (parry
//! 2 601) with the vertex records, which also made warm GJK's climbs
//! faster (`--bench convex_boolean`, 100 points: 709 → 658 ns). `perf` then puts much
//! of the remaining wait on the hint instructions themselves (a hint waits
//! for a free line fill buffer, which suggests the pairs' misses fill
//! them) and on the walk's moves (0.3 per query) to features no hint
//! covered. Fewer lines per query is therefore the lever: the struct is
//! aligned to a cache line and its hot fields are the first 112 bytes
//! (the vertex slice, which a warm query read only for its length, moved
//! behind them; the count comes from the records), so the hint covers two
//! lines instead of three or four. Two alternated runs each (2026-11-26):
//! warm 252.9, 250.2 → 240.2, 249.0 ns; with read-ahead 209.8, 211.5 →
//! 202.0, 206.3 ns: a few percent.

use crate::geometry::support::SupportMap;
use glam::{DVec3, Vec3};

use super::ConvexHull;
use super::lanes::VertexLanes;
use super::seeds::SupportSeeds;
use crate::math::prefetch::{LINE, prefetch_slice, prefetch_value};

/// A feature of a polytope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    /// A vertex index.
    Vertex(u32),
    /// An edge index.
    Edge(u32),
    /// A face index.
    Face(u32),
}

/// An edge: its vertices, the faces on its left (`faces[0]`, whose loop
/// runs `v[0] → v[1]`) and right (`faces[1]`), and the normals of its
/// Voronoi planes, stored together so a region test reads one record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolyEdge {
    /// End vertices.
    pub v: [u32; 2],
    /// Left and right faces.
    pub faces: [u32; 2],
    /// Unit direction `v[1] - v[0]`.
    pub dir: Vec3,
    /// In-plane normal of the edge pointing into each face.
    pub sides: [Vec3; 2],
    /// The positions of `v[0]` and `v[1]` (copies: a region test or a
    /// closest-point computation on the edge reads one record).
    pub ends: [Vec3; 2],
}

/// One step of a face's boundary loop: the edge from this slot's vertex to
/// the next slot's. The vertex's position is a copy, so that a face's
/// region test and closest points read the face's slots and nothing else.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceSlot {
    /// In-plane normal of the edge pointing into the face.
    pub side: Vec3,
    /// The edge.
    pub edge: u32,
    /// Position of the edge's start vertex in the loop.
    pub pos: Vec3,
    /// The edge's start vertex in the loop.
    pub vert: u32,
}

/// A vertex's position and the start of its run of [`VertexLink`]s (the
/// next record's start ends it), 16 bytes aligned so that one never
/// straddles two cache lines.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
struct VertexRec {
    pos: Vec3,
    start: u32,
}

/// One edge at a vertex, with the normal of the vertex's Voronoi plane
/// across it (unit `v - w`, `w` the edge's other vertex): a vertex's
/// region test reads one contiguous run of these.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexLink {
    /// Normal of the Voronoi plane.
    pub away: Vec3,
    /// The edge.
    pub edge: u32,
}

/// A planar convex face: outward unit normal, plane offset (`n · x = offset`
/// on the face) and the range of its boundary loop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolyFace {
    /// Outward unit normal.
    pub normal: Vec3,
    /// `normal · x` for points on the face.
    pub offset: f32,
    /// First loop slot.
    pub first: u32,
    /// Loop length (number of edges and vertices).
    pub len: u32,
}

/// A convex polytope. See the module docs.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct ConvexPolytope {
    // The fields a query reads, first and together (`repr(C)`, boxed
    // slices, the struct aligned to a cache line: 120 bytes, two lines),
    // what `prefetch_fields` hints. Lin–Canny's walk reads the first five
    // and the centroid and radius (the vertex count is the records'),
    // GJK's climbs the records and the neighbours.
    edges: Box<[PolyEdge]>,
    faces: Box<[PolyFace]>,
    /// The faces' boundary loops, one after another.
    face_slots: Box<[FaceSlot]>,
    /// Each vertex's position and the start of its CSR run (plus one
    /// record ending the last run): a vertex test or a hill-climbing step
    /// reads one record.
    vert_recs: Box<[VertexRec]>,
    /// CSR runs: edges incident to each vertex, with its Voronoi planes.
    vert_links: Box<[VertexLink]>,
    /// CSR, aligned with `vert_links`: neighbors of each vertex (for
    /// hill-climbing supports).
    vert_neighbors: Box<[u32]>,
    centroid: Vec3,
    radius: f32,
    /// A ball about the centroid inside the hull (see `inner_ball`).
    inner_radius: f32,
    // Read by whole-hull scans (hulls under 2 048 vertices without a
    // hint) and by callers that want the vertices as a slice.
    vertices: Box<[Vec3]>,
    /// The vertices in chunks of eight, for the whole-hull scans.
    lanes: VertexLanes,
    // Cold: only hulls of 2 048 vertices and more read it.
    /// Start vertices for hill-climbing without a hint.
    seeds: SupportSeeds,
}

impl ConvexPolytope {
    /// The polytope of a hull (coplanar triangles merged into faces).
    pub fn from_hull(hull: &ConvexHull) -> Self {
        let tol = ConvexHull::tolerance(hull.vertices()) * 8.0;
        let groups = group_coplanar(hull, tol);
        build(hull, &groups)
    }

    /// Starts loading what a Lin–Canny walk from `feature` reads: the
    /// feature's record and, from `start` (its
    /// [`region_start`](Self::region_start), kept by the pair so that no
    /// load stands between the hint and the data), the run of its region's
    /// planes. A cache hint that changes no result (see `math::prefetch`);
    /// reads the polytope's own fields, which
    /// [`prefetch_fields`](Self::prefetch_fields) a little earlier brings in.
    #[inline]
    pub fn prefetch(&self, feature: Option<Feature>, start: u32) {
        let start = start as usize;
        match feature {
            Some(Feature::Vertex(v)) => {
                self.prefetch_vertex(v);
                prefetch_slice(self.vert_links.get(start..).unwrap_or(&[]), 2 * LINE);
            }
            Some(Feature::Edge(e)) => prefetch_slice(
                self.edges.get(e as usize..).unwrap_or(&[]),
                std::mem::size_of::<PolyEdge>(),
            ),
            Some(Feature::Face(f)) => {
                prefetch_slice(self.faces.get(f as usize..).unwrap_or(&[]), LINE);
                prefetch_slice(self.face_slots.get(start..).unwrap_or(&[]), 2 * LINE);
            }
            None => {}
        }
    }

    /// Where the planes of `feature`'s Voronoi region start: a vertex's
    /// first link, a face's first loop slot (0 for an edge, whose planes
    /// are in its record, and for an index out of range). What
    /// [`prefetch`](Self::prefetch) needs to reach them without a load.
    #[inline]
    pub fn region_start(&self, feature: Feature) -> u32 {
        match feature {
            Feature::Vertex(v) => self.vert_recs.get(v as usize).map(|r| r.start),
            Feature::Face(f) => self.faces.get(f as usize).map(|f| f.first),
            Feature::Edge(_) => None,
        }
        .unwrap_or(0)
    }

    /// Starts loading vertex `v` and the start of its adjacency (what a
    /// hill-climbing support from `v` and a vertex's region test read first).
    #[inline]
    pub fn prefetch_vertex(&self, v: u32) {
        prefetch_slice(self.vert_recs.get(v as usize..).unwrap_or(&[]), LINE);
    }

    /// Starts loading the polytope's own fields (the first step of a
    /// read-ahead: [`prefetch`](Self::prefetch) reads them to find its
    /// arrays): those a query reads, the ones before `vertices` (two lines).
    #[inline]
    pub fn prefetch_fields(&self) {
        prefetch_value(self, std::mem::offset_of!(Self, vertices));
    }

    /// The number of vertices (read from the records, which a query
    /// reads anyway, not from the cold `vertices` field).
    #[inline]
    pub fn vertex_count(&self) -> usize {
        self.vert_recs.len().saturating_sub(1)
    }
    /// Vertices.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }
    /// Edges.
    pub fn edges(&self) -> &[PolyEdge] {
        &self.edges
    }
    /// Faces.
    pub fn faces(&self) -> &[PolyFace] {
        &self.faces
    }
    /// Vertex `i`.
    #[inline]
    pub fn vertex(&self, i: u32) -> Vec3 {
        // The last record only ends the last run.
        debug_assert!(
            (i as usize) < self.vertex_count(),
            "vertex {i} out of range"
        );
        self.vert_recs[i as usize].pos
    }
    /// Edge `i`.
    #[inline]
    pub fn edge(&self, i: u32) -> &PolyEdge {
        &self.edges[i as usize]
    }
    /// Unit direction of edge `i`, from `v[0]` to `v[1]`.
    #[inline]
    pub fn edge_dir(&self, i: u32) -> Vec3 {
        self.edges[i as usize].dir
    }
    /// Face `i`.
    #[inline]
    pub fn face(&self, i: u32) -> &PolyFace {
        &self.faces[i as usize]
    }
    /// The loop of face `f`: `(edge, start vertex, in-plane normal into the face)`.
    #[inline]
    pub fn face_loop(&self, f: u32) -> impl Iterator<Item = (u32, u32, Vec3)> + '_ {
        self.face_slots(f).iter().map(|s| (s.edge, s.vert, s.side))
    }
    /// The loop of face `f` as stored: its slots, with their vertices'
    /// positions.
    #[inline]
    pub fn face_slots(&self, f: u32) -> &[FaceSlot] {
        let face = &self.faces[f as usize];
        &self.face_slots[face.first as usize..(face.first + face.len) as usize]
    }
    /// The in-plane normal of loop slot `slot`, pointing into its face.
    #[inline]
    pub fn side_normal(&self, slot: u32) -> Vec3 {
        self.face_slots[slot as usize].side
    }
    /// The edges at vertex `v` with the normals of `v`'s Voronoi planes
    /// (unit `v - w` for each neighbor `w`).
    #[inline]
    pub fn vertex_region(&self, v: u32) -> &[VertexLink] {
        let (s, e) = self.vertex_range(v);
        &self.vert_links[s..e]
    }
    /// Edges incident to vertex `v`.
    #[inline]
    pub fn vertex_edges(&self, v: u32) -> impl ExactSizeIterator<Item = u32> + Clone + '_ {
        self.vertex_region(v).iter().map(|l| l.edge)
    }
    #[inline]
    fn vertex_range(&self, v: u32) -> (usize, usize) {
        (
            self.vert_recs[v as usize].start as usize,
            self.vert_recs[v as usize + 1].start as usize,
        )
    }
    /// Vertices sharing an edge with `v`.
    #[inline]
    pub fn neighbors(&self, v: u32) -> &[u32] {
        let (s, e) = self.vertex_range(v);
        &self.vert_neighbors[s..e]
    }
    /// Mean of the vertices (an interior point).
    pub fn centroid(&self) -> Vec3 {
        self.centroid
    }
    /// Largest distance from the centroid to a vertex.
    pub fn radius(&self) -> f32 {
        self.radius
    }
    /// The radius of a ball about the centroid that lies inside the hull,
    /// certified in `f64` and rounded down (0 when none could be).
    pub fn inner_radius(&self) -> f32 {
        self.inner_radius
    }
    /// The other vertex of edge `e` than `v`.
    #[inline]
    pub fn other_vertex(&self, e: u32, v: u32) -> u32 {
        let ed = &self.edges[e as usize];
        if ed.v[0] == v { ed.v[1] } else { ed.v[0] }
    }

    /// The vertex maximizing `dir · v`: hulls of fewer than 64 vertices
    /// are scanned whole (`WALK_FROM`), larger ones walked
    /// (hill-climbing) from `start`; a `start` that is not a vertex index
    /// ([`NO_HINT`](crate::geometry::support::NO_HINT)) scans hulls of
    /// fewer than 2 048 vertices whole, and starts larger ones from the
    /// best of the extreme vertices of 26 fixed directions, a few steps
    /// from the answer.
    ///
    /// Ties (several vertices with the largest `dir · v`): the scan
    /// returns the first of them (smallest index); the walk returns
    /// whichever it reaches first, which depends on `start`. Either is a
    /// support point: tied vertices lie on the same supporting plane, so
    /// the support value, and the bounds GJK takes from it, do not depend
    /// on which one is returned.
    pub fn support_vertex(&self, dir: Vec3, start: u32) -> u32 {
        self.support_point(dir, start).0
    }

    /// [`support_vertex`](Self::support_vertex) and its point. A scan
    /// reads the point from the lanes it has just read, not from the
    /// vertex array, which may not be in the cache (a cold GJK query on
    /// hulls that each pair owns waited there; see `lanes.rs`).
    fn support_point(&self, dir: Vec3, start: u32) -> (u32, Vec3) {
        let (n, hinted) = (self.vertex_count(), (start as usize) < self.vertex_count());
        if n < WALK_FROM || (!hinted && n < SCAN_BELOW) {
            return self.lanes.support(dir);
        }
        let mut best = if hinted { start } else { self.seeds.start(dir) };
        let mut best_val = dir.dot(self.vertex(best));
        loop {
            let (next, next_val) = self.best_neighbor(dir, best, best_val);
            if next == best {
                return (best, self.vertex(best));
            }
            (best, best_val) = (next, next_val);
        }
    }

    /// The neighbour of `v` maximizing `dir · w` if it beats `v_val`
    /// (`dir · v`), else `v`; with its value. Every neighbour is read and
    /// the larger kept by selects, not branches: the walk's one branch is
    /// then whether it moves (a branch per neighbour was mispredicted
    /// about once a call, `docs/notes/EXPERIMENTS.md#support-scan`).
    #[inline(always)]
    fn best_neighbor(&self, dir: Vec3, v: u32, v_val: f32) -> (u32, f32) {
        let (mut best, mut best_val) = (v, v_val);
        for &n in self.neighbors(v) {
            let val = dir.dot(self.vertex(n));
            let better = val > best_val;
            best = if better { n } else { best };
            best_val = if better { val } else { best_val };
        }
        (best, best_val)
    }

    /// The largest `dir · v` over the vertices, the value of
    /// [`support_vertex`](Self::support_vertex)'s vertex: hulls under
    /// `WALK_FROM` vertices are scanned whole for the value alone
    /// (`VertexLanes::max_dot`: no index to keep), larger ones walked from
    /// `hint`, which the walk updates. `−∞` (or NaN) when `dir` has a NaN.
    #[inline]
    pub(crate) fn support_value(&self, dir: Vec3, hint: &mut u32) -> f32 {
        if self.vertex_count() < WALK_FROM {
            return self.lanes.max_dot(dir);
        }
        let (i, p) = self.support_point(dir, *hint);
        *hint = i;
        dir.dot(p)
    }

    /// Signed distance of `p` to the plane of face `f` (positive outside).
    #[inline]
    pub fn face_distance(&self, f: u32, p: Vec3) -> f32 {
        let face = &self.faces[f as usize];
        face.normal.dot(p) - face.offset
    }
}

/// Without a start, hulls of fewer vertices than this are scanned whole
/// (parry's support function, every time): a contiguous pass beats a walk
/// of dependent loads. Cold `gjk_intersect` (`--bench convex_boolean`, one
/// run): 100 points 3 976 -> 1 232 ns (the walk started at vertex 0; parry
/// 1 014 ns), 1 000 points 19 841 -> 14 848 ns (the walk started at the
/// best of the 26 seeds, [`SupportSeeds`]; parry 9 097 ns). Larger hulls
/// start from the seeds.
const SCAN_BELOW: usize = 2048;

/// Hulls of fewer vertices than this are scanned whole for every support,
/// a hint or not: eight vertices for about three instructions each, a
/// loop whose length is the hull's, against a walk of about 16
/// instructions per neighbour tested whose branches follow the data
/// (mispredicted about once a walk). Measured on 40-point hulls in the
/// world's warm boolean tests: `docs/notes/EXPERIMENTS.md#support-scan`.
const WALK_FROM: usize = 64;

/// Groups of triangle indices, each group one planar face.
fn group_coplanar(hull: &ConvexHull, tol: f64) -> Vec<Vec<u32>> {
    let tris = hull.triangles();
    let v = |i: u32| hull.vertices()[i as usize].as_dvec3();
    let normals: Vec<DVec3> = tris
        .iter()
        .map(|t| {
            (v(t[1]) - v(t[0]))
                .cross(v(t[2]) - v(t[0]))
                .normalize_or_zero()
        })
        .collect();
    let neighbors = triangle_neighbors(tris);
    let mut group_of = vec![u32::MAX; tris.len()];
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for seed in 0..tris.len() {
        if group_of[seed] != u32::MAX {
            continue;
        }
        let g = groups.len() as u32;
        let (n, d) = (normals[seed], normals[seed].dot(v(tris[seed][0])));
        let mut members = vec![seed as u32];
        group_of[seed] = g;
        let mut i = 0;
        while i < members.len() {
            let t = members[i] as usize;
            i += 1;
            for &nb in &neighbors[t] {
                let nb = nb as usize;
                let coplanar = normals[nb].dot(n) > 0.999
                    && tris[nb].iter().all(|&x| (n.dot(v(x)) - d).abs() <= tol);
                if group_of[nb] == u32::MAX && coplanar {
                    group_of[nb] = g;
                    members.push(nb as u32);
                }
            }
        }
        groups.push(members);
    }
    groups
}

/// For each triangle, the triangles across its three edges.
fn triangle_neighbors(tris: &[[u32; 3]]) -> Vec<[u32; 3]> {
    let mut by_edge = std::collections::HashMap::with_capacity(tris.len() * 3);
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            by_edge.insert((tri[k], tri[(k + 1) % 3]), t as u32);
        }
    }
    tris.iter()
        .map(|tri| {
            std::array::from_fn(|k| {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                by_edge.get(&(b, a)).copied().unwrap_or(u32::MAX)
            })
        })
        .collect()
}

/// The boundary loop of a group of triangles (start vertices in order), or
/// `None` if it is not a single simple loop.
fn boundary_loop(tris: &[[u32; 3]], group: &[u32]) -> Option<Vec<u32>> {
    let mut half: std::collections::HashSet<(u32, u32)> = std::collections::HashSet::new();
    for &t in group {
        let tri = tris[t as usize];
        for k in 0..3 {
            half.insert((tri[k], tri[(k + 1) % 3]));
        }
    }
    let mut next = std::collections::HashMap::new();
    for &(a, b) in &half {
        if !half.contains(&(b, a)) && next.insert(a, b).is_some() {
            return None; // a vertex starts two boundary edges
        }
    }
    let start = *next.keys().min()?;
    let mut loop_ = vec![start];
    let mut cur = *next.get(&start)?;
    while cur != start {
        if loop_.len() > next.len() {
            return None;
        }
        loop_.push(cur);
        cur = *next.get(&cur)?;
    }
    (loop_.len() == next.len()).then_some(loop_)
}

/// Face loops (vertex indices into the hull), splitting any group whose
/// boundary is not one simple loop back into triangles.
fn face_loops(hull: &ConvexHull, groups: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let tris = hull.triangles();
    let mut loops = Vec::new();
    for g in groups {
        match boundary_loop(tris, g) {
            Some(l) if g.len() > 1 => loops.push(l),
            _ => loops.extend(g.iter().map(|&t| tris[t as usize].to_vec())),
        }
    }
    loops
}

fn build(hull: &ConvexHull, groups: &[Vec<u32>]) -> ConvexPolytope {
    let loops = face_loops(hull, groups);
    // Keep only vertices on some face loop, renumbered in hull order.
    let mut remap = vec![u32::MAX; hull.vertices().len()];
    for l in &loops {
        for &v in l {
            remap[v as usize] = 0;
        }
    }
    let mut vertices = Vec::new();
    for (i, r) in remap.iter_mut().enumerate() {
        if *r == 0 {
            *r = vertices.len() as u32;
            vertices.push(hull.vertices()[i]);
        }
    }
    let loops: Vec<Vec<u32>> = loops
        .iter()
        .map(|l| l.iter().map(|&v| remap[v as usize]).collect())
        .collect();
    let mut parts = Parts::default();
    add_faces(&mut parts, &vertices, &loops);
    add_vertex_adjacency(&mut parts, vertices.len());
    let c = vertices.iter().map(|v| v.as_dvec3()).sum::<DVec3>() / vertices.len() as f64;
    let centroid = c.as_vec3();
    let radius = vertices
        .iter()
        .map(|v| v.distance(centroid))
        .fold(0.0, f32::max);
    let inner_radius = super::inner_ball::inner_radius(hull.vertices(), hull.triangles(), centroid);
    ConvexPolytope {
        vert_recs: vertex_records(&vertices, &parts.vert_edge_start),
        seeds: SupportSeeds::new(&vertices),
        lanes: VertexLanes::new(&vertices),
        vertices: vertices.into(),
        edges: parts.edges.into(),
        faces: parts.faces.into(),
        face_slots: parts.face_slots.into(),
        vert_links: parts.vert_links.into(),
        centroid,
        radius,
        inner_radius,
        vert_neighbors: parts.vert_neighbors.into(),
    }
}

/// Vertex records: each position with its run's start, then one record
/// (at the origin) ending the last run.
fn vertex_records(vertices: &[Vec3], starts: &[u32]) -> Box<[VertexRec]> {
    let pos = vertices.iter().copied().chain([Vec3::ZERO]);
    pos.zip(starts)
        .map(|(pos, &start)| VertexRec { pos, start })
        .collect()
}

/// A polytope's arrays while they are built.
#[derive(Default)]
struct Parts {
    edges: Vec<PolyEdge>,
    faces: Vec<PolyFace>,
    face_slots: Vec<FaceSlot>,
    vert_edge_start: Vec<u32>,
    vert_links: Vec<VertexLink>,
    vert_neighbors: Vec<u32>,
}

/// Faces (normal by Newell's method, offset as the max over its vertices so
/// every vertex is on or below the plane), edges with their two faces.
fn add_faces(p: &mut Parts, vertices: &[Vec3], loops: &[Vec<u32>]) {
    let mut edge_of = std::collections::HashMap::new();
    for (f, l) in loops.iter().enumerate() {
        let pts: Vec<DVec3> = l.iter().map(|&v| vertices[v as usize].as_dvec3()).collect();
        let mut n = DVec3::ZERO;
        for i in 0..pts.len() {
            let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
            n += a.cross(b);
        }
        let n = n.normalize_or_zero();
        let offset = pts.iter().map(|x| n.dot(*x)).fold(f64::MIN, f64::max);
        let first = p.face_slots.len() as u32;
        for i in 0..l.len() {
            let (a, b) = (l[i], l[(i + 1) % l.len()]);
            let dir = (pts[(i + 1) % pts.len()] - pts[i]).normalize_or_zero();
            let side = n.cross(dir).normalize_or_zero().as_vec3();
            let key = (a.min(b), a.max(b));
            let e = *edge_of.entry(key).or_insert_with(|| {
                p.edges.push(PolyEdge {
                    v: [a, b],
                    faces: [f as u32, u32::MAX],
                    dir: dir.as_vec3(),
                    sides: [side, Vec3::ZERO],
                    ends: [a, b].map(|x| vertices[x as usize]),
                });
                p.edges.len() as u32 - 1
            });
            let edge = &mut p.edges[e as usize];
            if edge.v[0] != a {
                edge.faces[1] = f as u32;
                edge.sides[1] = side;
            }
            p.face_slots.push(FaceSlot {
                side,
                edge: e,
                pos: vertices[a as usize],
                vert: a,
            });
        }
        p.faces.push(PolyFace {
            normal: n.as_vec3(),
            offset: offset as f32,
            first,
            len: l.len() as u32,
        });
    }
}

fn add_vertex_adjacency(p: &mut Parts, n: usize) {
    let mut count = vec![0u32; n + 1];
    for e in &p.edges {
        count[e.v[0] as usize + 1] += 1;
        count[e.v[1] as usize + 1] += 1;
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let link = VertexLink {
        away: Vec3::ZERO,
        edge: 0,
    };
    p.vert_links = vec![link; 2 * p.edges.len()];
    p.vert_neighbors = vec![0; 2 * p.edges.len()];
    for (i, e) in p.edges.iter().enumerate() {
        for k in 0..2 {
            let v = e.v[k] as usize;
            p.vert_links[fill[v] as usize] = VertexLink {
                // From the other vertex towards v: -dir at v[0], +dir at v[1].
                away: if k == 0 { -e.dir } else { e.dir },
                edge: i as u32,
            };
            p.vert_neighbors[fill[v] as usize] = e.v[1 - k];
            fill[v] += 1;
        }
    }
    p.vert_edge_start = count;
}

impl SupportMap for ConvexPolytope {
    /// [`ConvexPolytope::support_vertex`] from `hint`, and its point.
    #[inline]
    fn support(&self, dir: Vec3, hint: &mut u32) -> Vec3 {
        let (i, point) = self.support_point(dir, *hint);
        *hint = i;
        point
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::support::NO_HINT;

    fn cube() -> ConvexPolytope {
        let pts: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32))
            .collect();
        ConvexPolytope::from_hull(&ConvexHull::new(&pts).expect("cube"))
    }

    #[test]
    fn cube_has_six_quads() {
        let c = cube();
        assert_eq!(
            (c.vertices().len(), c.edges().len(), c.faces().len()),
            (8, 12, 6)
        );
        for f in 0..6 {
            assert_eq!(c.face(f).len, 4);
            let n = c.face(f).normal;
            assert!((n.abs().max_element() - 1.0).abs() < 1e-6);
            // Side normals lie in the plane and point inward.
            for (_, v, m) in c.face_loop(f) {
                assert!(m.dot(n).abs() < 1e-6);
                assert!(m.dot(Vec3::splat(0.5) - c.vertex(v)) > 0.0);
            }
        }
        for e in c.edges() {
            assert!(e.faces[1] != u32::MAX && e.faces[0] != e.faces[1]);
        }
        for v in 0..8 {
            assert_eq!(c.vertex_edges(v).len(), 3);
        }
    }

    fn assert_valid(p: &ConvexPolytope, what: &str) {
        let (v, e, f) = (p.vertices().len(), p.edges().len(), p.faces().len());
        assert_eq!(v + f, e + 2, "{what}: Euler");
        for edge in p.edges() {
            assert!(
                edge.faces.iter().all(|&x| x != u32::MAX),
                "{what}: edge with one face"
            );
        }
        for face in 0..f as u32 {
            assert!(p.face(face).len >= 3, "{what}: face with < 3 edges");
            for (_, _, m) in p.face_loop(face) {
                assert!(
                    m.is_finite() && (m.length() - 1.0).abs() < 1e-3,
                    "{what}: side normal"
                );
            }
        }
    }

    /// The copies the region tests read (edge ends, loop slots' positions,
    /// vertex links) agree with the vertices and edges they copy, and
    /// `region_start` points at each feature's run.
    fn assert_copies(p: &ConvexPolytope) {
        for (v, &pos) in p.vertices().iter().enumerate() {
            assert_eq!(p.vertex(v as u32), pos);
        }
        for e in p.edges() {
            assert_eq!(e.ends, e.v.map(|v| p.vertex(v)));
        }
        for f in 0..p.faces().len() as u32 {
            let slots = p.face_slots(f);
            assert_eq!(p.region_start(Feature::Face(f)), p.face(f).first);
            for (i, s) in slots.iter().enumerate() {
                let next = slots[(i + 1) % slots.len()].vert;
                assert_eq!(s.pos, p.vertex(s.vert));
                assert_eq!(
                    p.other_vertex(s.edge, s.vert),
                    next,
                    "loop runs along its edges"
                );
            }
        }
        for v in 0..p.vertices().len() as u32 {
            let start = p.region_start(Feature::Vertex(v)) as usize;
            assert_eq!(
                &p.vert_links[start..start + p.vertex_region(v).len()],
                p.vertex_region(v)
            );
            for l in p.vertex_region(v) {
                let e = p.edge(l.edge);
                let sign = if e.v[1] == v { 1.0 } else { -1.0 };
                assert!(e.v.contains(&v));
                assert_eq!(l.away, e.dir * sign);
            }
        }
    }

    #[test]
    fn near_degenerate_inputs_build_valid_polytopes() {
        let mut rng = crate::testkit::Rng::new(5);
        // Slivers: a box 1 x 1 x 1e-4 of random points.
        let thin: Vec<Vec3> = (0..200)
            .map(|_| rng.in_cube(0.5) * Vec3::new(1.0, 1.0, 2e-4))
            .collect();
        if let Ok(h) = ConvexHull::new(&thin) {
            assert_valid(&ConvexPolytope::from_hull(&h), "thin box");
        }
        // A cube with noisy faces: nearly coplanar triangles merge.
        let mut noisy = Vec::new();
        for _ in 0..400 {
            let mut p = rng.in_cube(0.5);
            let k = rng.below(3);
            p[k] = if rng.below(2) == 0 { 0.5 } else { -0.5 } + rng.range(-1e-7, 1e-7);
            noisy.push(p);
        }
        let h = ConvexHull::new(&noisy).expect("noisy cube");
        let p = ConvexPolytope::from_hull(&h);
        assert_valid(&p, "noisy cube");
        assert_copies(&p);
        // Duplicates and a tiny scale.
        let mut tiny: Vec<Vec3> = (0..50).map(|_| rng.unit_vector() * 1e-4).collect();
        tiny.extend(tiny.clone());
        let h = ConvexHull::new(&tiny).expect("tiny sphere");
        assert_valid(&ConvexPolytope::from_hull(&h), "tiny sphere");
    }

    #[test]
    fn random_hulls_are_consistent() {
        let mut rng = crate::testkit::Rng::new(3);
        for _ in 0..200 {
            let pts: Vec<Vec3> = (0..4 + rng.below(60)).map(|_| rng.in_cube(1.0)).collect();
            let Ok(h) = ConvexHull::new(&pts) else {
                continue;
            };
            let p = ConvexPolytope::from_hull(&h);
            assert_copies(&p);
            let (v, e, f) = (p.vertices().len(), p.edges().len(), p.faces().len());
            assert_eq!(v + f, e + 2, "Euler");
            for (i, edge) in p.edges().iter().enumerate() {
                assert!(
                    edge.faces.iter().all(|&x| x != u32::MAX),
                    "edge {i} has two faces"
                );
            }
            for face in 0..f as u32 {
                for x in &pts {
                    assert!(p.face_distance(face, *x) < 1e-5);
                }
            }
        }
    }

    /// Hill-climbing from any vertex, from no hint (the seed table, or
    /// vertex 0 for small hulls) and from a bad index gives the
    /// brute-force maximum, on hulls below and above the seeded size.
    #[test]
    fn support_vertex_matches_brute_force_from_any_start() {
        let mut rng = crate::testkit::Rng::new(11);
        for n in [8, 60, 200, 1500] {
            let pts: Vec<Vec3> = (0..n)
                .map(|_| rng.unit_vector() * rng.range(0.5, 1.0))
                .collect();
            let p = ConvexPolytope::from_hull(&ConvexHull::new(&pts).expect("hull"));
            let nv = p.vertices().len() as u32;
            for k in 0..300 {
                let dir = rng.unit_vector() * rng.range(0.1, 10.0);
                let best = brute_max(&p, dir);
                for start in [NO_HINT, nv, k % nv] {
                    let got = p.vertex(p.support_vertex(dir, start)).dot(dir);
                    assert!(
                        got >= best - 1e-5 * best.abs().max(1.0),
                        "n {n} start {start}"
                    );
                    // The support map's point is its hint's vertex, bit for
                    // bit, whether it came from a scan or a walk.
                    let mut hint = start;
                    let point = SupportMap::support(&p, dir, &mut hint);
                    assert_eq!(point, p.vertex(hint), "n {n} start {start}");
                    assert_eq!(hint, p.support_vertex(dir, start), "n {n} start {start}");
                }
            }
        }
    }

    /// The largest `dir · v` over the hull's vertices, by a plain scan.
    fn brute_max(p: &ConvexPolytope, dir: Vec3) -> f32 {
        p.vertices()
            .iter()
            .map(|v| v.dot(dir))
            .fold(f32::MIN, f32::max)
    }

    /// The support value, scanned (under `WALK_FROM` vertices) or walked,
    /// is the value of the brute-force maximum, bit for bit (up to a
    /// zero's sign), from any hint: hulls of 4 vertices (one padded chunk),
    /// of multiples of 8 and not, and either side of the switch (63, 64,
    /// 65: points on a sphere are all vertices). A walk leaves its hint on
    /// a vertex of that value. A NaN direction gives no value (`−∞` or
    /// NaN), so that no caller reads a separation into it.
    #[test]
    fn support_value_is_the_brute_force_maximum_either_side_of_the_walk() {
        let mut rng = crate::testkit::Rng::new(12);
        for n in [4, 16, 23, 63, 64, 65, 130] {
            let pts: Vec<Vec3> = (0..n).map(|_| rng.unit_vector()).collect();
            let p = ConvexPolytope::from_hull(&ConvexHull::new(&pts).expect("hull"));
            let nv = p.vertex_count() as u32;
            assert_eq!(nv, n, "every point on the sphere is a vertex");
            for k in 0..200 {
                let dir = rng.unit_vector() * rng.range(0.1, 10.0);
                let best = brute_max(&p, dir);
                for start in [NO_HINT, nv, k % nv] {
                    let mut hint = start;
                    let got = p.support_value(dir, &mut hint);
                    assert!(got == best, "n {n} start {start}: {got} against {best}");
                    if hint != start {
                        assert!(p.vertex(hint).dot(dir) == best, "n {n} start {start}");
                    }
                }
            }
            for (dir, start) in [Vec3::NAN, Vec3::new(1.0, f32::NAN, 0.0)]
                .into_iter()
                .flat_map(|d| [(d, NO_HINT), (d, nv / 2)])
            {
                let mut hint = start;
                let v = p.support_value(dir, &mut hint);
                assert!(v == f32::NEG_INFINITY || v.is_nan(), "n {n}, {dir}: {v}");
                assert!(hint == start || hint < nv, "n {n}, {dir}: hint {hint}");
            }
        }
    }
}
