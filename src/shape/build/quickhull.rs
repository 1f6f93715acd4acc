//! The Quickhull loop (see the [module docs](super)): initial simplex,
//! conflict lists, visible region, horizon, cone.

use glam::{DVec3, Vec3};

use super::HullError;
use super::prune::point_triangle_distance;

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
pub(super) const NONE: usize = usize::MAX;

/// Converts the input to `f64`, rejecting empty and non-finite input.
pub(super) fn to_f64(points: &[Vec3]) -> Result<Vec<DVec3>, HullError> {
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
pub(super) fn tolerance_f64(pts: &[DVec3]) -> f64 {
    let m = pts.iter().fold(DVec3::ZERO, |m, p| m.max(p.abs()));
    3.0 * f64::from(f32::EPSILON) * (m.x + m.y + m.z)
}

/// Finds four points spanning a tetrahedron of height > `eps`, or tells why
/// none exists.
pub(super) fn initial_simplex(pts: &[DVec3], eps: f64) -> Result<[usize; 4], HullError> {
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
pub(super) fn quickhull(pts: &[DVec3], eps: f64, simplex: [usize; 4]) -> Vec<[usize; 3]> {
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
