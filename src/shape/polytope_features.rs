//! What a convex polytope touches with: the feature on its supporting
//! plane in a direction (Lin & Canny's features: vertex, edge, face), used to
//! name the features of a shape cast's contact.

use glam::Vec3;

use super::{ConvexPolytope, Feature};

impl ConvexPolytope {
    /// The feature of the polytope on its supporting plane normal to `dir` (local
    /// frame): its support vertex, the edge to the one neighbor also on the
    /// plane, or, with two or more, the face of those edges whose normal is
    /// closest to `dir` (on the plane: within `2·10⁻³` of the polytope's
    /// radius, since a normal from points a tolerance apart is that coarse).
    pub(crate) fn supporting_feature(&self, dir: Vec3, hint: u32) -> Feature {
        let poly = self;
        let v = poly.support_vertex(dir, hint);
        let top = dir.dot(poly.vertex(v));
        let eps = 2e-3 * poly.radius() * dir.length();
        let on_plane = |e: &u32| dir.dot(poly.vertex(poly.other_vertex(*e, v))) >= top - eps;
        let mut edges = poly.vertex_edges(v).filter(on_plane);
        let (Some(first), second) = (edges.next(), edges.next()) else {
            return Feature::Vertex(v);
        };
        if second.is_none() {
            return Feature::Edge(first);
        }
        let faces = poly
            .vertex_edges(v)
            .filter(on_plane)
            .flat_map(|e| poly.edge(e).faces);
        let best = faces.max_by(|&f, &g| {
            let (nf, ng) = (poly.face(f).normal.dot(dir), poly.face(g).normal.dot(dir));
            nf.total_cmp(&ng)
        });
        best.map_or(Feature::Edge(first), Feature::Face)
    }
}
