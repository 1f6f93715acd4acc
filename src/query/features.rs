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
use crate::shape::{ConvexPolytope, FaceSlot, Feature};

/// Where a polytope sits in the common frame. Two kinds, so that the walk's
/// code for each side is compiled for it (no branch on the frame in the
/// point transforms): [`Own`] for the polytope whose frame is the common
/// one, [`Moved`] for the other.
pub trait Frame: Copy {
    /// Local → common.
    fn to_common(&self, p: Vec3) -> Vec3;
    /// Common → local.
    fn to_local(&self, p: Vec3) -> Vec3;
}

/// The polytope's own frame is the common one.
#[derive(Clone, Copy)]
pub struct Own;

impl Frame for Own {
    #[inline(always)]
    fn to_common(&self, p: Vec3) -> Vec3 {
        p
    }
    #[inline(always)]
    fn to_local(&self, p: Vec3) -> Vec3 {
        p
    }
}

/// Local → common frame (`to`) and back (`from`).
#[derive(Clone, Copy)]
pub struct Moved<'a> {
    /// Local → common.
    pub to: &'a Affine3A,
    /// Common → local.
    pub from: &'a Affine3A,
}

impl Frame for Moved<'_> {
    #[inline(always)]
    fn to_common(&self, p: Vec3) -> Vec3 {
        self.to.transform_point3(p)
    }
    #[inline(always)]
    fn to_local(&self, p: Vec3) -> Vec3 {
        self.from.transform_point3(p)
    }
}

/// A feature of a polytope seen in the common frame.
#[derive(Clone, Copy)]
pub struct FeatureView<'a, F: Frame> {
    /// The polytope.
    pub poly: &'a ConvexPolytope,
    /// Where it sits.
    pub frame: F,
    /// The feature.
    pub feature: Feature,
}

impl<F: Frame> FeatureView<'_, F> {
    #[inline]
    fn point(&self, v: u32) -> Vec3 {
        self.frame.to_common(self.poly.vertex(v))
    }

    #[inline]
    fn segment(&self, e: u32) -> (Vec3, Vec3) {
        let [p0, p1] = self.poly.edge(e).ends;
        (self.frame.to_common(p0), self.frame.to_common(p1))
    }
}

/// A face of a polytope, queried in the polytope's own frame: query points
/// are mapped in (one inverse transform each) and answers mapped back, so
/// the face's vertices and precomputed side normals are used as stored.
struct FaceView<'a, F: Frame> {
    slots: &'a [FaceSlot],
    frame: F,
    normal: Vec3,
    offset: f32,
}

impl<'a, F: Frame> FaceView<'a, F> {
    #[inline]
    fn new(view: FeatureView<'a, F>, face: u32) -> Self {
        let f = view.poly.face(face);
        Self {
            slots: view.poly.face_slots(face),
            frame: view.frame,
            normal: f.normal,
            offset: f.offset,
        }
    }

    /// The boundary edges as local segments, in loop order (from the
    /// slots alone: no edge record is read).
    fn local_edges(&self) -> impl Iterator<Item = (Vec3, Vec3)> + '_ {
        let next = self.slots.iter().cycle().skip(1);
        self.slots.iter().zip(next).map(|(s, t)| (s.pos, t.pos))
    }

    #[inline]
    fn contains_projection(&self, q: Vec3) -> bool {
        self.slots.iter().all(|s| (q - s.pos).dot(s.side) >= 0.0)
    }

    /// Signed distance of local point `p` above the face's plane.
    #[inline]
    fn height(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.offset
    }

    /// Closest point of the face to local point `p` (local frame).
    fn closest_local(&self, p: Vec3) -> Vec3 {
        let q = p - self.normal * self.height(p);
        if self.contains_projection(q) {
            return q;
        }
        closest_of(self.local_edges().map(|(a, b)| (p, point_segment(p, a, b)))).1
    }

    /// Closest point of the face to `p` (common frame).
    #[inline]
    fn closest_to(&self, p: Vec3) -> Vec3 {
        let local = self.closest_local(self.frame.to_local(p));
        self.frame.to_common(local)
    }

    /// Closest points of segment `[p0, p1]` and the face (common frame).
    fn closest_to_segment(&self, p0: Vec3, p1: Vec3) -> (Vec3, Vec3) {
        let (a, b) = (self.frame.to_local(p0), self.frame.to_local(p1));
        let (x, y) = self.closest_local_segment(a, b);
        (self.frame.to_common(x), self.frame.to_common(y))
    }

    fn closest_local_segment(&self, p0: Vec3, p1: Vec3) -> (Vec3, Vec3) {
        let (s0, s1) = (self.height(p0), self.height(p1));
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
            .map(|(a, b)| (self.frame.to_common(a), self.frame.to_common(b)))
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
pub fn closest_points<FA: Frame, FB: Frame>(
    a: FeatureView<'_, FA>,
    b: FeatureView<'_, FB>,
) -> (Vec3, Vec3) {
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
