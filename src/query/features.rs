//! Closest points between the features of convex polytopes (vertices,
//! edges, planar convex faces), all in one common frame, for Lin–Canny.
//!
//! Point–segment and segment–segment are the primitives of
//! [`crate::geometry::closest`]. A polygon is given by its loop (vertices and in-plane side
//! normals pointing inward) and its normal; a point projects into it when it
//! is on the inner side of every side plane, else its closest point is on a
//! boundary edge. Segment–polygon and polygon–polygon take the minimum over
//! their vertex–polygon and edge–edge candidates, after checking whether a
//! segment pierces the polygon (distance 0).

use glam::{Affine3A, Vec3};

use crate::geometry::closest::{point_segment, segment_segment};
use crate::shape::{ConvexPolytope, Feature};

/// A feature of a polytope seen in another frame (`xf` maps the polytope's
/// local frame to the common frame).
#[derive(Clone, Copy)]
pub struct FeatureView<'a> {
    /// The polytope.
    pub poly: &'a ConvexPolytope,
    /// Local → common frame, and back; `None`: the polytope's own frame is
    /// the common one (no transform at all).
    pub xf: Option<(&'a Affine3A, &'a Affine3A)>,
    /// The feature.
    pub feature: Feature,
}

impl FeatureView<'_> {
    #[inline]
    fn point(&self, v: u32) -> Vec3 {
        self.common_point(self.poly.vertex(v))
    }

    #[inline]
    fn common_point(&self, p: Vec3) -> Vec3 {
        self.xf.map_or(p, |(xf, _)| xf.transform_point3(p))
    }

    #[inline]
    fn segment(&self, e: u32) -> (Vec3, Vec3) {
        let [p0, p1] = self.poly.edge(e).ends;
        (self.common_point(p0), self.common_point(p1))
    }
}

/// A face of a polytope, queried in the polytope's own frame: query points
/// are mapped in (one inverse transform each) and answers mapped back, so
/// the face's vertices and precomputed side normals are used as stored.
struct FaceView<'a> {
    poly: &'a ConvexPolytope,
    face: u32,
    /// Local → common frame and back (`None`: the same frame).
    xf: Option<(&'a Affine3A, &'a Affine3A)>,
    normal: Vec3,
    origin: Vec3,
}

impl<'a> FaceView<'a> {
    fn new(view: FeatureView<'a>, face: u32) -> Self {
        let f = view.poly.face(face);
        Self {
            poly: view.poly,
            face,
            xf: view.xf,
            normal: f.normal,
            origin: f.normal * f.offset,
        }
    }

    #[inline]
    fn local_point(&self, p: Vec3) -> Vec3 {
        self.xf.map_or(p, |(_, inv)| inv.transform_point3(p))
    }

    #[inline]
    fn common_point(&self, p: Vec3) -> Vec3 {
        self.xf.map_or(p, |(xf, _)| xf.transform_point3(p))
    }

    /// The boundary edges as local segments, in loop order (from the
    /// slots alone: no edge record is read).
    fn local_edges(&self) -> impl Iterator<Item = (Vec3, Vec3)> + '_ {
        let slots = self.poly.face_slots(self.face);
        let next = slots.iter().cycle().skip(1);
        slots.iter().zip(next).map(|(s, t)| (s.pos, t.pos))
    }

    fn contains_projection(&self, q: Vec3) -> bool {
        self.poly
            .face_slots(self.face)
            .iter()
            .all(|s| (q - s.pos).dot(s.side) >= 0.0)
    }

    /// Closest point of the face to local point `p` (local frame).
    fn closest_local(&self, p: Vec3) -> Vec3 {
        let q = p - self.normal * self.normal.dot(p - self.origin);
        if self.contains_projection(q) {
            return q;
        }
        closest_of(self.local_edges().map(|(a, b)| (p, point_segment(p, a, b)))).1
    }

    /// Closest point of the face to `p` (common frame).
    fn closest_to(&self, p: Vec3) -> Vec3 {
        self.common_point(self.closest_local(self.local_point(p)))
    }

    /// Closest points of segment `[p0, p1]` and the face (common frame).
    fn closest_to_segment(&self, p0: Vec3, p1: Vec3) -> (Vec3, Vec3) {
        let (a, b) = (self.local_point(p0), self.local_point(p1));
        let (x, y) = self.closest_local_segment(a, b);
        (self.common_point(x), self.common_point(y))
    }

    fn closest_local_segment(&self, p0: Vec3, p1: Vec3) -> (Vec3, Vec3) {
        let (s0, s1) = (
            self.normal.dot(p0 - self.origin),
            self.normal.dot(p1 - self.origin),
        );
        if s0 * s1 <= 0.0 && s0 != s1 {
            // The segment reaches the plane: does it pierce the face?
            let x = p0 + (p1 - p0) * (s0 / (s0 - s1)).clamp(0.0, 1.0);
            if self.contains_projection(x) {
                return (x, x);
            }
        }
        let ends = [(p0, self.closest_local(p0)), (p1, self.closest_local(p1))];
        let edges = self
            .local_edges()
            .map(|(a, b)| segment_segment(p0, p1, a, b));
        closest_of(ends.into_iter().chain(edges))
    }

    /// The boundary edges as segments in the common frame.
    fn edges(&self) -> impl Iterator<Item = (Vec3, Vec3)> + '_ {
        self.local_edges()
            .map(|(a, b)| (self.common_point(a), self.common_point(b)))
    }
}

/// The pair with the smallest distance.
#[inline]
fn closest_of(pairs: impl Iterator<Item = (Vec3, Vec3)>) -> (Vec3, Vec3) {
    pairs
        .min_by(|x, y| {
            x.0.distance_squared(x.1)
                .total_cmp(&y.0.distance_squared(y.1))
        })
        .unwrap_or((Vec3::ZERO, Vec3::ZERO))
}

/// Closest points of two features, in the common frame.
pub fn closest_points(a: FeatureView<'_>, b: FeatureView<'_>) -> (Vec3, Vec3) {
    use Feature::*;
    let swap = |(x, y): (Vec3, Vec3)| (y, x);
    match (a.feature, b.feature) {
        (Vertex(i), Vertex(j)) => (a.point(i), b.point(j)),
        (Vertex(i), Edge(e)) => {
            let p = a.point(i);
            let (s, t) = b.segment(e);
            (p, point_segment(p, s, t))
        }
        (Vertex(i), Face(f)) => {
            let p = a.point(i);
            (p, FaceView::new(b, f).closest_to(p))
        }
        (Edge(e), Edge(g)) => {
            let ((p0, p1), (q0, q1)) = (a.segment(e), b.segment(g));
            segment_segment(p0, p1, q0, q1)
        }
        (Edge(e), Face(f)) => {
            let (p0, p1) = a.segment(e);
            FaceView::new(b, f).closest_to_segment(p0, p1)
        }
        (Face(f), Face(g)) => {
            let (fa, fb) = (FaceView::new(a, f), FaceView::new(b, g));
            let ab = fa.edges().map(|(p0, p1)| fb.closest_to_segment(p0, p1));
            let ba = fb
                .edges()
                .map(|(q0, q1)| swap(fa.closest_to_segment(q0, q1)));
            closest_of(ab.chain(ba))
        }
        (Edge(_) | Face(_), Vertex(_)) | (Face(_), Edge(_)) => swap(closest_points(b, a)),
    }
}
