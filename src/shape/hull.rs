//! Robust 3D convex hull built with Quickhull.
//!
//! The algorithm is the one of C. B. Barber, D. P. Dobkin and H. Huhdanpaa,
//! *"The Quickhull Algorithm for Convex Hulls"*, ACM Transactions on
//! Mathematical Software 22(4), 1996, pp. 469–483:
//!
//! 1. Build an initial tetrahedron from extreme points: the two farthest
//!    points among the six axis extremes, the point farthest from the line
//!    through them, and the point farthest from the plane through those three.
//!    The same search detects degenerate inputs (coincident, collinear,
//!    coplanar points).
//! 2. Give every remaining point to the face it lies farthest outside of
//!    (the face's *conflict list*); points that are outside no face are inside
//!    the hull and are dropped for good.
//! 3. While some face's conflict list holds a point clearly outside the hull,
//!    take the farthest such point (the *apex*). Starting at that face, a
//!    depth-first search over the triangle neighbours collects every face the
//!    apex can see. The edges between visible and hidden faces form the
//!    *horizon*, a closed loop that is put in order. The visible faces are
//!    deleted, a cone of new triangles joins the apex to every horizon edge,
//!    and the points of the deleted faces' conflict lists (the *orphans*) are
//!    handed to the new faces.
//!
//! # Robustness
//!
//! All plane tests run in `f64` on the (exactly converted) `f32` inputs. The
//! distance tolerance is modelled on qhull's:
//! `eps = 3 * f32::EPSILON * (max|x| + max|y| + max|z|)`.
//!
//! * A point becomes an apex only when it lies more than `eps` above its
//!   face's plane (or, at the knife edges of very thin hulls, more than `eps`
//!   away from that face's and its neighbours' triangles). Duplicate,
//!   coplanar and nearly coplanar points are thus never added.
//! * The faces an apex *sees*, and the points kept in conflict lists, use a
//!   much smaller threshold, `VISIBILITY * eps` (`1e-3 * eps`): far above
//!   rounding noise, so exactly coplanar or collinear points never give
//!   zero-area triangles (every new triangle stands more than that threshold
//!   above a deleted face), yet small enough that the new cone meets the
//!   hidden faces in convex edges. (With `eps` there, the slightly concave
//!   edges get amplified by thin triangles and can even fold a new triangle
//!   over its neighbour.) A hidden face is also made visible when its third
//!   vertex would stand more than `eps` above the new triangle over its
//!   horizon edge.
//! * The horizon must form one simple loop (each vertex once); if rounding
//!   ever gives a visible region that is not a disc, the apex is skipped
//!   rather than corrupting the mesh.
//! * A final pass removes hull vertices that lie within `eps` of a triangle
//!   spanned by their neighbours (points on a flat face or a straight edge
//!   that were added before the true corners) and rebuilds the hull from the
//!   remaining vertices, so that the output holds only extreme points.
//!
//! The result is a closed 2-manifold of genus 0 whose vertices are exact
//! copies of input points; every input point lies within a few `eps` of the
//! inner side of every face plane.
//!
//! Dead triangles are tombstoned and their slots recycled through a free
//! list; the live triangles are compacted at the end. Memory stays linear in
//! the number of input points, and the main loop runs at most once per point.

use glam::{DVec3, Vec3};

/// Why a hull could not be built.
#[derive(Debug, Clone, PartialEq)]
pub enum HullError {
    /// No points given.
    Empty,
    /// Point `index` has a NaN or infinite coordinate.
    NonFinite {
        /// Index of the first offending point.
        index: usize,
    },
    /// All points coincide (within tolerance).
    Coincident,
    /// All points lie on one line (within tolerance).
    Collinear,
    /// All points lie in one plane (within tolerance): a hull needs 4 non-coplanar points.
    Coplanar,
}

impl std::fmt::Display for HullError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => write!(f, "cannot build a convex hull: no points given"),
            Self::NonFinite { index } => write!(
                f,
                "cannot build a convex hull: point {index} has a NaN or infinite coordinate"
            ),
            Self::Coincident => write!(
                f,
                "cannot build a convex hull: all points coincide (within tolerance)"
            ),
            Self::Collinear => write!(
                f,
                "cannot build a convex hull: all points lie on one line (within tolerance)"
            ),
            Self::Coplanar => write!(
                f,
                "cannot build a convex hull: all points lie in one plane (within tolerance); \
                 at least 4 non-coplanar points are needed"
            ),
        }
    }
}

impl std::error::Error for HullError {}

/// A closed convex hull: unique vertices, outward-facing triangles, vertex adjacency.
///
/// The triangles form a closed 2-manifold of genus 0: every edge belongs to
/// exactly two triangles (with opposite orientation) and
/// `V - E + F = 2`.
#[derive(Debug, Clone)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    adjacency_offsets: Vec<u32>,
    adjacency: Vec<u32>,
}

impl ConvexHull {
    /// Builds the convex hull of `points` with Quickhull.
    ///
    /// # Errors
    /// See [`HullError`]: no points, a non-finite coordinate, or all points
    /// coincident, collinear or coplanar within [`ConvexHull::tolerance`].
    pub fn new(points: &[Vec3]) -> Result<Self, HullError> {
        let pts = to_f64(points)?;
        let eps = tolerance_f64(&pts);
        let simplex = initial_simplex(&pts, eps)?;
        let mesh = Mesh::new(pts.len(), &quickhull(&pts, eps, simplex));
        let mesh = prune_redundant(mesh, &pts, eps);
        Ok(Self::from_mesh(points, &mesh))
    }

    /// The distance tolerance used for `points`:
    /// `3 * f32::EPSILON * (max|x| + max|y| + max|z|)`.
    ///
    /// Non-finite coordinates are ignored.
    pub fn tolerance(points: &[Vec3]) -> f64 {
        let pts: Vec<DVec3> = points
            .iter()
            .filter(|p| p.is_finite())
            .map(|p| p.as_dvec3())
            .collect();
        tolerance_f64(&pts)
    }

    /// The hull's extreme points, each once. Each is an exact copy of an input point.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The hull's triangles, indexing [`ConvexHull::vertices`], counter-clockwise
    /// seen from outside (the right-hand normal points out).
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The vertices that share an edge with vertex `v`, sorted ascending,
    /// without duplicates. Empty if `v` is out of range.
    pub fn neighbors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (
            self.adjacency_offsets.get(v),
            self.adjacency_offsets.get(v + 1),
        ) {
            (Some(&start), Some(&end)) => self
                .adjacency
                .get(start as usize..end as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The number of (undirected) edges of the hull.
    pub fn edge_count(&self) -> usize {
        self.adjacency.len() / 2
    }

    /// Copies the mesh's vertices from the original `f32` input and builds the
    /// CSR vertex adjacency from the triangle edges.
    fn from_mesh(points: &[Vec3], mesh: &Mesh) -> Self {
        let vertices = mesh.verts.iter().map(|&i| points[i]).collect();
        // Indices fit in u32: a hull of more than 4 billion vertices cannot be held in memory.
        let triangles: Vec<[u32; 3]> = mesh.tris.iter().map(|t| t.map(|i| i as u32)).collect();
        let mut edges: Vec<(u32, u32)> = triangles
            .iter()
            .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a), (b, a), (c, b), (a, c)])
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let mut adjacency_offsets = vec![0u32; mesh.verts.len() + 1];
        for &(a, _) in &edges {
            adjacency_offsets[a as usize + 1] += 1;
        }
        for i in 1..adjacency_offsets.len() {
            adjacency_offsets[i] += adjacency_offsets[i - 1];
        }
        let adjacency = edges.into_iter().map(|(_, b)| b).collect();
        Self {
            vertices,
            triangles,
            adjacency_offsets,
            adjacency,
        }
    }
}

/// Ratio of the visibility threshold to `eps`.
///
/// An apex must lie more than `eps` above the face whose conflict list holds
/// it, but the faces it *sees* are those it lies more than `VISIBILITY * eps`
/// above: far above rounding noise (so exactly coplanar or collinear points
/// never make zero-area triangles) yet small enough that the edges between the
/// new cone and the hidden faces stay convex. Using `eps` there would leave
/// hidden faces up to `eps` below the apex; the resulting concave edge is
/// amplified by thin triangles and can even fold a new triangle over its
/// neighbour. Conflict lists keep every point above this threshold, so
/// points just outside a knife edge of a thin hull are not lost.
const VISIBILITY: f64 = 1e-3;

/// Sentinel for "no face".
const NONE: usize = usize::MAX;

/// Converts the input to `f64`, rejecting empty and non-finite input.
fn to_f64(points: &[Vec3]) -> Result<Vec<DVec3>, HullError> {
    if points.is_empty() {
        return Err(HullError::Empty);
    }
    points
        .iter()
        .enumerate()
        .map(|(index, p)| {
            if p.is_finite() {
                Ok(p.as_dvec3())
            } else {
                Err(HullError::NonFinite { index })
            }
        })
        .collect()
}

/// qhull-style point-plane distance tolerance.
fn tolerance_f64(pts: &[DVec3]) -> f64 {
    let m = pts.iter().fold(DVec3::ZERO, |m, p| m.max(p.abs()));
    3.0 * f64::from(f32::EPSILON) * (m.x + m.y + m.z)
}

/// Finds four points spanning a tetrahedron of height > `eps`, or tells why
/// none exists.
fn initial_simplex(pts: &[DVec3], eps: f64) -> Result<[usize; 4], HullError> {
    let ext = axis_extremes(pts);
    let extent = (0..3)
        .map(|k| pts[ext[2 * k + 1]][k] - pts[ext[2 * k]][k])
        .fold(0.0, f64::max);
    if extent <= eps {
        return Err(HullError::Coincident);
    }
    let (i0, i1) = farthest_pair(pts, &ext);
    let (a, b) = (pts[i0], pts[i1]);
    let dir = (b - a).normalize_or_zero();
    let (i2, d2) = farthest(pts, |p| (p - a).cross(dir).length());
    if d2 <= eps {
        return Err(HullError::Collinear);
    }
    let normal = (b - a).cross(pts[i2] - a).normalize_or_zero();
    let (i3, d3) = farthest(pts, |p| normal.dot(p - a).abs());
    if d3 <= eps {
        return Err(HullError::Coplanar);
    }
    Ok([i0, i1, i2, i3])
}

/// Indices of the points with minimal and maximal x, y, z: `[min x, max x, min y, ...]`.
fn axis_extremes(pts: &[DVec3]) -> [usize; 6] {
    let mut ext = [0usize; 6];
    for (i, p) in pts.iter().enumerate() {
        for k in 0..3 {
            if p[k] < pts[ext[2 * k]][k] {
                ext[2 * k] = i;
            }
            if p[k] > pts[ext[2 * k + 1]][k] {
                ext[2 * k + 1] = i;
            }
        }
    }
    ext
}

/// The two farthest apart of the given candidate points.
fn farthest_pair(pts: &[DVec3], candidates: &[usize]) -> (usize, usize) {
    let mut best = (candidates[0], candidates[0], -1.0);
    for (k, &i) in candidates.iter().enumerate() {
        for &j in &candidates[k + 1..] {
            let d = pts[i].distance_squared(pts[j]);
            if d > best.2 {
                best = (i, j, d);
            }
        }
    }
    (best.0, best.1)
}

/// The point maximising `measure`, with its value.
fn farthest(pts: &[DVec3], measure: impl Fn(DVec3) -> f64) -> (usize, f64) {
    pts.iter()
        .enumerate()
        .map(|(i, &p)| (i, measure(p)))
        .fold(
            (0, f64::NEG_INFINITY),
            |best, c| if c.1 > best.1 { c } else { best },
        )
}

/// The `slot`-th directed edge of a triangle: `(v[slot], v[slot + 1])`.
fn edge(v: [usize; 3], slot: usize) -> (usize, usize) {
    (v[slot], v[(slot + 1) % 3])
}

/// A triangle of the hull under construction.
#[derive(Debug)]
struct Face {
    /// Point indices, counter-clockwise seen from outside.
    v: [usize; 3],
    /// `adj[i]` is the face across edge `(v[i], v[i + 1])`.
    adj: [usize; 3],
    /// Unit outward normal.
    normal: DVec3,
    /// Plane offset: the plane is `normal · x = offset`.
    offset: f64,
    /// Conflict list: points outside this face (farther than the visibility
    /// threshold); only those farther than `eps` can become apexes.
    outside: Vec<usize>,
    /// `false` once deleted (a tombstone whose slot can be reused).
    alive: bool,
    /// Search stamp: `visible` is meaningful when `mark` equals the current stamp.
    mark: u64,
    /// Whether the current apex sees this face.
    visible: bool,
}

impl Face {
    /// Signed distance of `p` above the face's plane.
    fn dist(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }

    /// The slot of the directed edge `(a, b)`, if the face has it.
    fn slot_of(&self, a: usize, b: usize) -> Option<usize> {
        (0..3).find(|&s| edge(self.v, s) == (a, b))
    }
}

/// A horizon edge `(a, b)` of a visible face, with the hidden face across it
/// and that face's slot for the edge `(b, a)`.
#[derive(Debug, Clone, Copy)]
struct HorizonEdge {
    a: usize,
    b: usize,
    face: usize,
    slot: usize,
}

/// The state of one Quickhull run.
struct Builder<'a> {
    pts: &'a [DVec3],
    eps: f64,
    /// Visibility threshold for faces seen from the apex: [`VISIBILITY`] times `eps`.
    see: f64,
    faces: Vec<Face>,
    /// Slots of deleted faces, for reuse.
    free: Vec<usize>,
    /// Faces that may have a non-empty conflict list (stale entries are skipped).
    pending: Vec<usize>,
    stamp: u64,
    // Scratch buffers, reused across iterations.
    stack: Vec<usize>,
    visible: Vec<usize>,
    horizon: Vec<HorizonEdge>,
    ordered: Vec<HorizonEdge>,
    cone: Vec<usize>,
    orphans: Vec<usize>,
}

/// Runs Quickhull from the given initial tetrahedron; returns the hull's
/// triangles as indices into `pts`.
fn quickhull(pts: &[DVec3], eps: f64, simplex: [usize; 4]) -> Vec<[usize; 3]> {
    let mut builder = Builder::new(pts, eps, simplex);
    builder.run();
    builder
        .faces
        .iter()
        .filter(|f| f.alive)
        .map(|f| f.v)
        .collect()
}

impl<'a> Builder<'a> {
    /// Creates the tetrahedron `simplex` and distributes all points to its faces.
    fn new(pts: &'a [DVec3], eps: f64, simplex: [usize; 4]) -> Self {
        let mut b = Self {
            pts,
            eps,
            see: eps * VISIBILITY,
            faces: Vec::new(),
            free: Vec::new(),
            pending: Vec::new(),
            stamp: 0,
            stack: Vec::new(),
            visible: Vec::new(),
            horizon: Vec::new(),
            ordered: Vec::new(),
            cone: Vec::new(),
            orphans: Vec::new(),
        };
        let [p0, mut p1, mut p2, p3] = simplex;
        let n = (pts[p1] - pts[p0]).cross(pts[p2] - pts[p0]);
        if n.dot(pts[p3] - pts[p0]) > 0.0 {
            std::mem::swap(&mut p1, &mut p2);
        }
        // p3 is now below the plane (p0, p1, p2).
        for v in [[p0, p1, p2], [p1, p0, p3], [p2, p1, p3], [p0, p2, p3]] {
            b.new_face(v);
        }
        b.link_tetrahedron();
        b.orphans = (0..pts.len()).filter(|i| !simplex.contains(i)).collect();
        b.cone = vec![0, 1, 2, 3];
        b.distribute_orphans(NONE);
        b
    }

    /// Sets the neighbours of the four faces of the initial tetrahedron.
    fn link_tetrahedron(&mut self) {
        for f in 0..4 {
            for s in 0..3 {
                let (a, b) = edge(self.faces[f].v, s);
                if let Some(g) = (0..4).find(|&g| self.faces[g].slot_of(b, a).is_some()) {
                    self.faces[f].adj[s] = g;
                }
            }
        }
    }

    /// Adds a face with vertices `v` (neighbours unset), reusing a free slot if any.
    fn new_face(&mut self, v: [usize; 3]) -> usize {
        let [a, b, c] = v.map(|i| self.pts[i]);
        let normal = (b - a).cross(c - a).normalize_or_zero();
        let face = Face {
            v,
            adj: [NONE; 3],
            normal,
            offset: normal.dot((a + b + c) / 3.0),
            outside: Vec::new(),
            alive: true,
            mark: 0,
            visible: false,
        };
        if let Some(i) = self.free.pop() {
            self.faces[i] = face;
            i
        } else {
            self.faces.push(face);
            self.faces.len() - 1
        }
    }

    /// The main loop: adds conflict points until all conflict lists are empty.
    /// Every iteration removes one point from the conflict lists for good, so
    /// it runs at most once per input point.
    fn run(&mut self) {
        let mut budget = self.pts.len();
        while let Some(f) = self.pending.pop() {
            let Some(apex) = self.furthest(f) else {
                continue;
            };
            if budget == 0 {
                break;
            }
            budget -= 1;
            if !self.add_point(f, apex) {
                self.faces[f].outside.retain(|&i| i != apex);
                if !self.faces[f].outside.is_empty() {
                    self.pending.push(f);
                }
            }
        }
    }

    /// The next apex from face `f`'s conflict list: the farthest point among
    /// those that are clearly outside the hull (see [`Builder::clearly_outside`]).
    /// Among points within `eps` of the maximal distance, the one farthest
    /// from the face's centroid is taken: of several (nearly) equally high
    /// points, that one is an extreme point rather than one lying between the
    /// others.
    fn furthest(&self, f: usize) -> Option<usize> {
        let face = self.faces.get(f).filter(|face| face.alive)?;
        let dist = |i: &usize| face.dist(self.pts[*i]);
        let eligible: Vec<usize> = face
            .outside
            .iter()
            .copied()
            .filter(|&i| self.clearly_outside(face, self.pts[i]))
            .collect();
        let top = eligible.iter().map(dist).fold(f64::NEG_INFINITY, f64::max);
        let [a, b, c] = face.v.map(|i| self.pts[i]);
        let centroid = (a + b + c) / 3.0;
        let spread = |i: usize| self.pts[i].distance_squared(centroid);
        eligible
            .into_iter()
            .filter(|i| dist(i) >= top - self.eps)
            .max_by(|&i, &j| spread(i).total_cmp(&spread(j)))
    }

    /// Whether `q`, which lies above `face`, may become an apex: it lies more
    /// than `eps` above the face's plane, or more than `eps` away from the
    /// face's triangle and from its three neighbours' triangles.
    ///
    /// The second case matters at knife edges of very thin hulls, where the
    /// two nearly parallel face planes meet: a point far beyond such an edge
    /// can lie within `eps` of both planes.
    fn clearly_outside(&self, face: &Face, q: DVec3) -> bool {
        if face.dist(q) > self.eps {
            return true;
        }
        let far = |g: &Face| {
            let [a, b, c] = g.v.map(|i| self.pts[i]);
            point_triangle_distance(q, a, b, c) > self.eps
        };
        far(face) && face.adj.iter().all(|&g| self.faces.get(g).is_some_and(far))
    }

    /// Adds point `p` (in face `f`'s conflict list) to the hull. Returns
    /// `false`, changing nothing, if the visible region is not a disc.
    fn add_point(&mut self, f: usize, p: usize) -> bool {
        if !self.find_visible(f, p) || !self.order_horizon() {
            return false;
        }
        self.remove_visible();
        self.build_cone(p);
        self.distribute_orphans(p);
        true
    }

    /// Finds the faces that apex `p` sees, starting from face `f`, and the
    /// horizon edges around them.
    ///
    /// A face is visible when `p` lies more than `eps` above it. A hidden face
    /// across the horizon is made visible too when the new triangle over that
    /// horizon edge would leave the face's third vertex more than `eps` above
    /// it (a concave edge, which happens when `p` lies within `eps` above the
    /// hidden face and close to the edge's line). Returns `false` if the mesh
    /// is inconsistent or everything became visible.
    fn find_visible(&mut self, f: usize, p: usize) -> bool {
        let apex = self.pts[p];
        self.stamp += 1;
        self.visible.clear();
        self.stack.clear();
        self.mark_visible(f);
        // Every round makes at least one more face visible.
        for _ in 0..self.faces.len() {
            if !self.flood(apex) || !self.collect_horizon() {
                return false;
            }
            if !self.expand_concave(apex) {
                return true;
            }
        }
        false
    }

    /// Marks face `g` visible and queues it for the search.
    fn mark_visible(&mut self, g: usize) {
        self.faces[g].mark = self.stamp;
        self.faces[g].visible = true;
        self.visible.push(g);
        self.stack.push(g);
    }

    /// Depth-first search over the triangle neighbours of the queued visible
    /// faces, testing each face met for the first time.
    fn flood(&mut self, apex: DVec3) -> bool {
        while let Some(g) = self.stack.pop() {
            for slot in 0..3 {
                let nb = self.faces[g].adj[slot];
                let Some(face) = self.faces.get_mut(nb).filter(|face| face.alive) else {
                    return false;
                };
                if face.mark == self.stamp {
                    continue;
                }
                face.mark = self.stamp;
                face.visible = false;
                if face.dist(apex) > self.see {
                    self.mark_visible(nb);
                }
            }
        }
        true
    }

    /// Collects the edges between visible and hidden faces (unordered).
    fn collect_horizon(&mut self) -> bool {
        self.horizon.clear();
        for &g in &self.visible {
            let face = &self.faces[g];
            for slot in 0..3 {
                let nb = face.adj[slot];
                let other = &self.faces[nb];
                if other.mark == self.stamp && other.visible {
                    continue;
                }
                let (a, b) = edge(face.v, slot);
                let Some(slot) = other.slot_of(b, a) else {
                    return false;
                };
                self.horizon.push(HorizonEdge {
                    a,
                    b,
                    face: nb,
                    slot,
                });
            }
        }
        true
    }

    /// Makes visible the hidden faces whose edge with the new cone would be
    /// concave by more than `eps`. Returns whether any face was added.
    fn expand_concave(&mut self, apex: DVec3) -> bool {
        let mut grew = false;
        for k in 0..self.horizon.len() {
            let e = self.horizon[k];
            let face = &self.faces[e.face];
            if face.visible {
                continue; // already added through another of its edges
            }
            let w = self.pts[face.v[(e.slot + 2) % 3]];
            let a = self.pts[e.a];
            let normal = (self.pts[e.b] - a).cross(apex - a).normalize_or_zero();
            if normal.dot(w - a) > self.eps {
                self.mark_visible(e.face);
                grew = true;
            }
        }
        grew
    }

    /// Puts the horizon edges in order as one loop (`ordered[k].b ==
    /// ordered[k + 1].a`). Returns `false` unless they form exactly one simple
    /// loop, i.e. unless the visible region is a disc.
    fn order_horizon(&mut self) -> bool {
        let h = self.horizon.len();
        self.ordered.clear();
        if h < 3 {
            return false;
        }
        self.horizon.sort_unstable_by_key(|e| e.a);
        if self.horizon.windows(2).any(|w| w[0].a == w[1].a) {
            return false; // the loop passes twice through a vertex
        }
        let start = self.horizon[0];
        let mut cur = start;
        for step in 1..=h {
            self.ordered.push(cur);
            let Ok(k) = self.horizon.binary_search_by_key(&cur.b, |e| e.a) else {
                return false;
            };
            cur = self.horizon[k];
            if cur.a == start.a {
                return step == h; // otherwise there are several loops
            }
        }
        false
    }

    /// Deletes the visible faces, moving their conflict points to `orphans`.
    fn remove_visible(&mut self) {
        self.orphans.clear();
        for &g in &self.visible {
            let face = &mut self.faces[g];
            face.alive = false;
            self.orphans.extend(std::mem::take(&mut face.outside));
            self.free.push(g);
        }
    }

    /// Joins apex `p` to every horizon edge, linking the new faces to each
    /// other and to the hidden faces across the horizon.
    fn build_cone(&mut self, p: usize) {
        self.cone.clear();
        for k in 0..self.ordered.len() {
            let e = self.ordered[k];
            let id = self.new_face([e.a, e.b, p]);
            self.cone.push(id);
        }
        let h = self.cone.len();
        for (k, e) in self.ordered.iter().enumerate() {
            let id = self.cone[k];
            let next = self.cone[(k + 1) % h];
            let prev = self.cone[(k + h - 1) % h];
            self.faces[id].adj = [e.face, next, prev];
            self.faces[e.face].adj[e.slot] = id;
        }
    }

    /// Gives each orphan (other than `skip`) to the face in `cone` it lies
    /// farthest outside of (by more than the visibility threshold), or drops
    /// it if it is outside none; then queues
    /// those faces whose conflict lists are non-empty.
    fn distribute_orphans(&mut self, skip: usize) {
        for &q in &self.orphans {
            if q == skip {
                continue;
            }
            let p = self.pts[q];
            let best = self.cone.iter().map(|&f| (f, self.faces[f].dist(p))).fold(
                (NONE, self.see),
                |best, c| if c.1 > best.1 { c } else { best },
            );
            if let Some(face) = self.faces.get_mut(best.0) {
                face.outside.push(q);
            }
        }
        self.orphans.clear();
        for &f in &self.cone {
            if !self.faces[f].outside.is_empty() {
                self.pending.push(f);
            }
        }
    }
}

/// A compact triangle mesh: `verts[i]` is the input index of vertex `i`
/// (ascending), `tris` index `verts`.
struct Mesh {
    verts: Vec<usize>,
    tris: Vec<[usize; 3]>,
}

impl Mesh {
    /// Compacts triangles given as indices into `n` points, keeping only the
    /// points they use.
    fn new(n: usize, tris: &[[usize; 3]]) -> Self {
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
fn prune_redundant(mut mesh: Mesh, pts: &[DVec3], eps: f64) -> Mesh {
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
fn point_triangle_distance(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64* pseudo-random generator.
    /// The crate's seeded generator, with the sampling these tests need.
    struct Rng(crate::scenes::Rng);

    impl Rng {
        fn new(seed: u64) -> Self {
            Self(crate::scenes::Rng::new(seed))
        }

        /// Uniform in [0, 1).
        fn unit(&mut self) -> f32 {
            self.0.f32()
        }

        /// Uniform in [-1, 1).
        fn signed(&mut self) -> f32 {
            self.0.range(-1.0, 1.0)
        }

        fn below(&mut self, n: usize) -> usize {
            self.0.below(n)
        }

        fn shuffle<T>(&mut self, v: &mut [T]) {
            for i in (1..v.len()).rev() {
                v.swap(i, self.below(i + 1));
            }
        }

        /// Log-uniform size in `lo..=hi`.
        fn size(&mut self, lo: usize, hi: usize) -> usize {
            let t = f64::from(self.unit());
            let s = (lo as f64) * (hi as f64 / lo as f64).powf(t);
            (s.round() as usize).clamp(lo, hi)
        }
    }

    fn random_cube(rng: &mut Rng, n: usize, scale: f32) -> Vec<Vec3> {
        (0..n)
            .map(|_| Vec3::new(rng.signed(), rng.signed(), rng.signed()) * scale)
            .collect()
    }

    fn random_sphere(rng: &mut Rng, n: usize, scale: f32) -> Vec<Vec3> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let v = Vec3::new(rng.signed(), rng.signed(), rng.signed());
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                out.push(v / l * scale);
            }
        }
        out
    }

    fn scale_of(points: &[Vec3]) -> f64 {
        let m = points
            .iter()
            .fold(Vec3::ZERO, |m, p| m.max(p.abs()))
            .as_dvec3();
        m.x + m.y + m.z
    }

    /// Test tolerance: about 11 times the hull's `eps`.
    fn test_tol(points: &[Vec3]) -> f64 {
        4e-6 * scale_of(points)
    }

    fn directed_edges(hull: &ConvexHull) -> Vec<(u32, u32)> {
        let mut e: Vec<(u32, u32)> = hull
            .triangles()
            .iter()
            .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
            .collect();
        e.sort_unstable();
        e
    }

    fn check_manifold(hull: &ConvexHull) {
        let v = hull.vertices().len();
        let f = hull.triangles().len();
        assert!(v >= 4 && f >= 4);
        let mut used = vec![false; v];
        for t in hull.triangles() {
            assert!(t.iter().all(|&i| (i as usize) < v), "index out of range");
            assert!(t[0] != t[1] && t[1] != t[2] && t[2] != t[0]);
            t.iter().for_each(|&i| used[i as usize] = true);
            let [a, b, c] = t.map(|i| hull.vertices()[i as usize].as_dvec3());
            assert!((b - a).cross(c - a).length() > 0.0, "degenerate triangle");
        }
        assert!(used.iter().all(|&u| u), "unused vertex");
        let edges = directed_edges(hull);
        assert!(
            edges.windows(2).all(|w| w[0] != w[1]),
            "edge used twice in one direction"
        );
        for &(a, b) in &edges {
            assert!(edges.binary_search(&(b, a)).is_ok(), "edge without twin");
        }
        let e = edges.len() / 2;
        assert_eq!(e, hull.edge_count());
        assert_eq!(v as i64 - e as i64 + f as i64, 2, "Euler characteristic");
        let mut sorted: Vec<[u32; 3]> = hull
            .vertices()
            .iter()
            .map(|p| p.to_array().map(f32::to_bits))
            .collect();
        sorted.sort_unstable();
        assert!(sorted.windows(2).all(|w| w[0] != w[1]), "duplicate vertex");
    }

    fn check_adjacency(hull: &ConvexHull) {
        let edges = directed_edges(hull);
        for v in 0..hull.vertices().len() as u32 {
            let nb = hull.neighbors(v);
            assert!(
                nb.windows(2).all(|w| w[0] < w[1]),
                "neighbours not sorted/unique"
            );
            let expected: Vec<u32> = edges.iter().filter(|e| e.0 == v).map(|e| e.1).collect();
            let mut expected = expected;
            expected.sort_unstable();
            assert_eq!(nb, expected.as_slice());
            for &u in nb {
                assert!(
                    hull.neighbors(u).binary_search(&v).is_ok(),
                    "asymmetric adjacency"
                );
            }
        }
        assert!(hull.neighbors(u32::MAX).is_empty());
    }

    fn check_containment(points: &[Vec3], hull: &ConvexHull, tol: f64) {
        for t in hull.triangles() {
            let [a, b, c] = t.map(|i| hull.vertices()[i as usize].as_dvec3());
            let n = (b - a).cross(c - a).normalize();
            for p in points {
                let d = n.dot(p.as_dvec3() - a);
                assert!(d <= tol, "point {p} is {d} outside a face (tol {tol})");
            }
        }
    }

    fn check_extremes(points: &[Vec3], hull: &ConvexHull, tol: f64) {
        let mut dirs = vec![];
        for k in 0..3 {
            let mut d = DVec3::ZERO;
            d[k] = 1.0;
            dirs.extend([d, -d]);
        }
        for sx in [-1.0, 1.0] {
            for sy in [-1.0, 1.0] {
                for sz in [-1.0, 1.0] {
                    dirs.push(DVec3::new(sx, sy, sz).normalize());
                }
            }
        }
        let max_dot = |set: &[Vec3], d: DVec3| {
            set.iter()
                .map(|p| p.as_dvec3().dot(d))
                .fold(f64::NEG_INFINITY, f64::max)
        };
        for d in dirs {
            let diff = max_dot(points, d) - max_dot(hull.vertices(), d);
            assert!(
                diff <= tol,
                "extreme point in direction {d} missing: {diff}"
            );
        }
    }

    fn check_from_input(points: &[Vec3], hull: &ConvexHull) {
        let mut input: Vec<[u32; 3]> = points
            .iter()
            .map(|p| p.to_array().map(f32::to_bits))
            .collect();
        input.sort_unstable();
        for v in hull.vertices() {
            assert!(input.binary_search(&v.to_array().map(f32::to_bits)).is_ok());
        }
    }

    fn check_hull(points: &[Vec3], hull: &ConvexHull) {
        let tol = test_tol(points);
        check_manifold(hull);
        check_adjacency(hull);
        check_containment(points, hull, tol);
        check_extremes(points, hull, tol);
        check_from_input(points, hull);
    }

    fn build_and_check(points: &[Vec3]) -> ConvexHull {
        let hull = ConvexHull::new(points).expect("hull");
        check_hull(points, &hull);
        hull
    }

    fn seeded_sizes(seed: u64, rng: &mut Rng) -> usize {
        match seed {
            0 => 4,
            1 => 2000,
            _ => rng.size(4, 2000),
        }
    }

    #[test]
    fn random_cube_points() {
        for seed in 0..200 {
            let mut rng = Rng::new(seed);
            let n = seeded_sizes(seed, &mut rng);
            build_and_check(&random_cube(&mut rng, n, 1.0));
        }
    }

    #[test]
    fn random_sphere_points() {
        for seed in 0..200 {
            let mut rng = Rng::new(1000 + seed);
            let n = seeded_sizes(seed, &mut rng);
            let points = random_sphere(&mut rng, n, 1.0);
            let hull = build_and_check(&points);
            // All points are strictly convex and far apart compared with eps.
            if n <= 200 {
                assert_eq!(hull.vertices().len(), n, "seed {seed}");
            }
        }
    }

    #[test]
    fn huge_and_tiny_scales() {
        for seed in 0..20 {
            for scale in [1e6f32, 1e-6] {
                let mut rng = Rng::new(5000 + seed);
                let n = rng.size(4, 500);
                build_and_check(&random_sphere(&mut rng, n, scale));
                let mut pts = random_cube(&mut rng, n, scale);
                pts.iter_mut().for_each(|p| *p += Vec3::splat(3.0 * scale));
                build_and_check(&pts);
            }
        }
    }

    fn cube_corners() -> Vec<Vec3> {
        (0..8)
            .map(|i| {
                let s = |b: i32| if i & b != 0 { 1.0 } else { -1.0 };
                Vec3::new(s(1), s(2), s(4))
            })
            .collect()
    }

    fn assert_cube(points: &[Vec3]) {
        let hull = build_and_check(points);
        assert_eq!(hull.vertices().len(), 8);
        assert_eq!(hull.triangles().len(), 12);
        assert_eq!(hull.edge_count(), 18);
        for c in cube_corners() {
            assert!(hull.vertices().contains(&c));
        }
    }

    #[test]
    fn cube_with_duplicates_and_face_points() {
        for seed in 0..30 {
            let mut rng = Rng::new(seed);
            let mut pts = Vec::new();
            for _ in 0..5 {
                pts.extend(cube_corners());
            }
            for _ in 0..300 {
                // a point on a face (k fixed to ±1) or on an edge (two fixed)
                let mut p = Vec3::new(rng.signed(), rng.signed(), rng.signed());
                let k = rng.below(3);
                p[k] = if rng.below(2) == 0 { -1.0 } else { 1.0 };
                if rng.below(3) == 0 {
                    let j = (k + 1 + rng.below(2)) % 3;
                    p[j] = if rng.below(2) == 0 { -1.0 } else { 1.0 };
                }
                pts.push(p);
            }
            pts.extend(random_cube(&mut rng, 100, 0.999));
            rng.shuffle(&mut pts);
            assert_cube(&pts);
        }
    }

    #[test]
    fn grid_on_cube_faces_and_lattice() {
        // a 9x9 grid on each face of the cube
        let mut faces = Vec::new();
        for k in 0..3 {
            for s in [-1.0, 1.0] {
                for i in 0..9 {
                    for j in 0..9 {
                        let mut p = Vec3::ZERO;
                        p[k] = s;
                        p[(k + 1) % 3] = i as f32 / 4.0 - 1.0;
                        p[(k + 2) % 3] = j as f32 / 4.0 - 1.0;
                        faces.push(p);
                    }
                }
            }
        }
        assert_cube(&faces);
        // a full 7x7x7 lattice, in several orders
        let mut lattice = Vec::new();
        for i in 0..7 {
            for j in 0..7 {
                for k in 0..7 {
                    lattice.push(Vec3::new(i as f32, j as f32, k as f32) / 3.0 - 1.0);
                }
            }
        }
        assert_cube(&lattice);
        for seed in 0..10 {
            Rng::new(seed).shuffle(&mut lattice);
            assert_cube(&lattice);
            Rng::new(seed).shuffle(&mut faces);
            assert_cube(&faces);
        }
    }

    #[test]
    fn latitude_longitude_grid_on_sphere() {
        let (rings, segs) = (12, 24);
        let mut pts = Vec::new();
        for r in 1..rings {
            let theta = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..segs {
                let phi = std::f32::consts::TAU * s as f32 / segs as f32;
                pts.push(Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.sin() * phi.sin(),
                    theta.cos(),
                ));
            }
            // every ring also repeats the poles
            pts.extend([Vec3::Z, -Vec3::Z]);
        }
        for seed in 0..5 {
            Rng::new(seed).shuffle(&mut pts);
            let hull = build_and_check(&pts);
            assert_eq!(hull.vertices().len(), (rings - 1) * segs + 2);
        }
    }

    /// A 1 x 1 x 1e-6 box: when its points are more than eps (about 7e-7
    /// here) from the plane of the initial triangle, a valid, closed, very
    /// thin hull that passes every check, in-plane extremes included (small
    /// sets may instead be `Coplanar`, which is the only error allowed). A
    /// 1e-8 thick box is always `Coplanar`.
    #[test]
    fn thin_box_builds_a_thin_hull() {
        for seed in 0..100 {
            let mut rng = Rng::new(seed);
            let n = rng.size(4, 500);
            let pts: Vec<Vec3> = (0..n)
                .map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit() * 1e-6))
                .collect();
            let hull = match ConvexHull::new(&pts) {
                Ok(hull) => hull,
                Err(e) => {
                    assert_eq!(e, HullError::Coplanar);
                    assert!(n < 200, "a large thin box should give a hull");
                    continue;
                }
            };
            check_hull(&pts, &hull);
        }
        let mut rng = Rng::new(7);
        let pts: Vec<Vec3> = (0..100)
            .map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit() * 1e-8))
            .collect();
        assert_eq!(ConvexHull::new(&pts).err(), Some(HullError::Coplanar));
    }

    #[test]
    fn degenerate_inputs_are_errors() {
        assert_eq!(ConvexHull::new(&[]).err(), Some(HullError::Empty));
        let mut pts = cube_corners();
        pts[3].y = f32::NAN;
        pts[5].x = f32::INFINITY;
        assert_eq!(
            ConvexHull::new(&pts).err(),
            Some(HullError::NonFinite { index: 3 })
        );
        pts[3].y = 0.0;
        assert_eq!(
            ConvexHull::new(&pts).err(),
            Some(HullError::NonFinite { index: 5 })
        );
        pts[5].x = f32::NEG_INFINITY;
        assert_eq!(
            ConvexHull::new(&pts).err(),
            Some(HullError::NonFinite { index: 5 })
        );

        let p = Vec3::new(1.5, -2.0, 3.25);
        assert_eq!(ConvexHull::new(&[p]).err(), Some(HullError::Coincident));
        assert_eq!(ConvexHull::new(&[p; 50]).err(), Some(HullError::Coincident));
        assert_eq!(
            ConvexHull::new(&[Vec3::ZERO; 3]).err(),
            Some(HullError::Coincident)
        );

        let line: Vec<Vec3> = (0..40)
            .map(|i| Vec3::new(1.0, 2.0, -1.0) * (i % 13) as f32)
            .collect();
        assert_eq!(ConvexHull::new(&line).err(), Some(HullError::Collinear));
        assert_eq!(
            ConvexHull::new(&[Vec3::X, Vec3::Y]).err(),
            Some(HullError::Collinear)
        );

        let mut rng = Rng::new(3);
        let plane: Vec<Vec3> = (0..200)
            .map(|_| {
                let (x, y) = ((rng.below(64) as f32) / 8.0, (rng.below(64) as f32) / 8.0);
                Vec3::new(x, y, x - 2.0 * y)
            })
            .collect();
        assert_eq!(ConvexHull::new(&plane).err(), Some(HullError::Coplanar));
        assert_eq!(
            ConvexHull::new(&[Vec3::X, Vec3::Y, Vec3::Z]).err(),
            Some(HullError::Coplanar)
        );

        for e in [
            HullError::Empty,
            HullError::NonFinite { index: 2 },
            HullError::Coincident,
            HullError::Collinear,
            HullError::Coplanar,
        ] {
            assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn tetrahedron_with_duplicates() {
        let corners = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 3.0, 0.0),
            Vec3::new(0.5, 0.5, 4.0),
        ];
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let mut pts: Vec<Vec3> = (0..90).map(|i| corners[i % 4]).collect();
            for _ in 0..10 {
                let w = [rng.unit(), rng.unit(), rng.unit(), rng.unit()];
                let s: f32 = w.iter().sum::<f32>() + 0.1;
                pts.push(corners.iter().zip(w).map(|(c, w)| *c * (w / s)).sum());
            }
            rng.shuffle(&mut pts);
            let hull = build_and_check(&pts);
            assert_eq!(hull.vertices().len(), 4);
            assert_eq!(hull.triangles().len(), 4);
            assert_eq!(hull.edge_count(), 6);
        }
    }

    #[test]
    fn cylinder_with_flat_caps() {
        let mut pts = Vec::new();
        for i in 0..64 {
            let a = std::f32::consts::TAU * i as f32 / 64.0;
            for z in [-1.0, 1.0] {
                pts.push(Vec3::new(a.cos(), a.sin(), z));
            }
        }
        pts.extend([Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.0, 0.0, 1.0)]);
        for seed in 0..10 {
            Rng::new(seed).shuffle(&mut pts);
            let hull = build_and_check(&pts);
            assert_eq!(hull.vertices().len(), 128);
        }
    }

    #[test]
    fn nearly_coplanar_noise_on_cube_faces() {
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let mut pts = cube_corners();
            for _ in 0..500 {
                let mut p = Vec3::new(rng.signed(), rng.signed(), rng.signed());
                let k = rng.below(3);
                p[k] = p[k].signum() * (1.0 - rng.unit() * 1e-7);
                pts.push(p);
            }
            rng.shuffle(&mut pts);
            build_and_check(&pts);
        }
    }

    #[test]
    fn tolerance_helper() {
        let pts = [Vec3::new(1.0, -2.0, 0.5), Vec3::new(f32::NAN, 0.0, 0.0)];
        let eps = ConvexHull::tolerance(&pts);
        assert!((eps - 3.0 * f64::from(f32::EPSILON) * 3.5).abs() < 1e-15);
    }
}
