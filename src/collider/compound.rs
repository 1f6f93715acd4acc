//! Compound shapes: I-COLLIDE's non-convex objects as a hierarchy of convex
//! pieces (a hand: palm and finger segments).
//!
//! A [`Compound`] holds its pieces (each a [`SharedShape`] at a local
//! [`Pose`]) under a small AABB tree ([`AabbTree`], the crate's one tree
//! layout) built top-down by a median split of the piece centers along the
//! longest axis (one piece per leaf). The narrow
//! phase descends the tree with the other shape's box expressed in the
//! compound's frame and tests only the pieces whose boxes overlap it; each
//! tested piece pair keeps its own cache (a Lin–Canny feature pair for two
//! convex pieces), so coherence works piece by piece.
//!
//! Pieces may be of any kind but compounds and half-spaces: the
//! hierarchy has one level of pieces, as in I-COLLIDE.

use std::sync::Arc;

use super::kind::KindData;
use super::{ShapeData, ShapeError, ShapeKind, SharedShape, bounds_of};
use crate::bvh::AabbTree;
use crate::math::{Aabb, Pose};

/// One piece of a compound: a shape at a pose in the compound's frame.
#[derive(Clone, Debug)]
pub struct CompoundPiece {
    /// Where the piece sits in the compound's frame.
    pub pose: Pose,
    /// The piece's shape (convex or a mesh).
    pub shape: SharedShape,
}

/// Convex (or mesh) pieces under an AABB tree. See the module docs.
#[derive(Clone, Debug)]
pub struct Compound {
    pieces: Vec<CompoundPiece>,
    /// Each piece's box in the compound's frame.
    boxes: Vec<Aabb>,
    tree: AabbTree,
}

impl Compound {
    /// Builds the piece tree. Errors: no pieces, a non-finite or non-unit
    /// pose, a piece that is itself a compound, or a piece its pose puts
    /// beyond [`MAX_COORDINATE`](super::limits::MAX_COORDINATE).
    pub fn new(pieces: Vec<CompoundPiece>) -> Result<Self, ShapeError> {
        if pieces.is_empty() {
            return Err(ShapeError::InvalidParameter(
                "a compound needs at least one piece",
            ));
        }
        for p in &pieces {
            if p.pose.validate().is_err() {
                return Err(ShapeError::InvalidParameter(
                    "compound piece poses must be finite with a unit rotation",
                ));
            }
            if p.shape.compound().is_some() {
                return Err(ShapeError::InvalidParameter(
                    "a compound piece cannot be a compound or a polyline (composites do not nest)",
                ));
            }
            if p.shape.half_space().is_some() {
                return Err(ShapeError::InvalidParameter(
                    "a compound piece cannot be a half-space (it is unbounded)",
                ));
            }
        }
        let boxes: Vec<Aabb> = pieces
            .iter()
            .map(|p| p.shape.local_aabb().transformed(&p.pose))
            .collect();
        for (p, placed) in pieces.iter().zip(&boxes) {
            super::limits::check_piece(p.pose.translation, placed)?;
        }
        let tree = AabbTree::from_boxes(&boxes);
        Ok(Self {
            pieces,
            boxes,
            tree,
        })
    }

    /// The pieces, in the order given.
    pub fn pieces(&self) -> &[CompoundPiece] {
        &self.pieces
    }

    /// Piece `i`'s box in the compound's frame.
    pub fn piece_box(&self, i: u32) -> Aabb {
        self.boxes[i as usize]
    }

    /// Calls `visit(piece)` for every piece whose box (compound frame)
    /// overlaps `query` (compound frame), in tree order. `visit` returns
    /// `false` to stop early.
    pub fn for_each_overlap(&self, query: &Aabb, visit: impl FnMut(u32) -> bool) {
        self.tree.for_each_overlap(query, visit);
    }

    /// The piece tree (leaves are piece indices).
    pub fn tree(&self) -> &AabbTree {
        &self.tree
    }

    /// All the pieces' vertices in the compound's frame (what its bounds
    /// are computed from).
    pub(super) fn points(&self) -> Vec<glam::Vec3> {
        let mut out = Vec::new();
        for p in &self.pieces {
            let sharp = p.shape.bounds_pad() == 0.0;
            match p.shape.bounds_geometry() {
                super::BoundsGeometry::Hull(h) if sharp => {
                    out.extend(h.vertices().iter().map(|&v| p.pose.transform_point(v)));
                }
                super::BoundsGeometry::Points(pts) if sharp => {
                    out.extend(pts.iter().map(|&v| p.pose.transform_point(v)));
                }
                // The corners of its box: the hull holds the round piece (a
                // half-space is refused above).
                super::BoundsGeometry::Hull(_)
                | super::BoundsGeometry::Points(_)
                | super::BoundsGeometry::Rounded(_)
                | super::BoundsGeometry::Implicit(_)
                | super::BoundsGeometry::HalfSpace(_) => {
                    let corners = p.shape.local_aabb().corners();
                    out.extend(corners.map(|c| p.pose.transform_point(c)));
                }
            }
        }
        out
    }
}

impl KindData for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }
    fn parts(&self) -> Option<&Compound> {
        Some(self)
    }
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        let pieces = self
            .pieces()
            .iter()
            .map(|p| {
                Ok(CompoundPiece {
                    pose: Pose::new(p.pose.rotation, p.pose.translation * factor),
                    shape: p.shape.scaled(factor)?,
                })
            })
            .collect::<Result<Vec<_>, ShapeError>>()?;
        SharedShape::compound(pieces)
    }
}

impl SharedShape {
    /// A compound of pieces (convex shapes or meshes) at poses in the
    /// compound's frame: a non-convex object as a hierarchy of convex
    /// pieces. The pieces keep sharing their data (`Arc`).
    ///
    /// Errors: no pieces, a bad piece pose, a piece that is a compound, a
    /// piece placed beyond [`MAX_COORDINATE`](super::limits::MAX_COORDINATE).
    pub fn compound(pieces: Vec<CompoundPiece>) -> Result<Self, ShapeError> {
        let compound = Compound::new(pieces)?;
        let bounds = bounds_of(compound.points())?;
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::Compound(compound),
            bounds,
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn cube_at(x: f32) -> CompoundPiece {
        CompoundPiece {
            pose: Pose::from_translation(Vec3::new(x, 0.0, 0.0)),
            shape: SharedShape::cuboid(Vec3::splat(0.4)).expect("cube"),
        }
    }

    #[test]
    fn overlap_query_finds_exactly_the_overlapping_pieces() {
        let c = Compound::new((0..9).map(|i| cube_at(i as f32)).collect()).expect("compound");
        for lo in 0..9 {
            for hi in lo..9 {
                let q = Aabb::new(
                    Vec3::new(lo as f32, -0.1, -0.1),
                    Vec3::new(hi as f32, 0.1, 0.1),
                );
                let mut got = Vec::new();
                c.for_each_overlap(&q, |i| {
                    got.push(i);
                    true
                });
                got.sort_unstable();
                let want: Vec<u32> = (0..9).filter(|&i| c.piece_box(i).overlaps(&q)).collect();
                assert_eq!(got, want);
                c.tree().validate(&c.boxes).expect("valid piece tree");
            }
        }
    }

    #[test]
    fn bad_compounds_are_refused() {
        assert!(Compound::new(Vec::new()).is_err());
        let mut p = cube_at(0.0);
        p.pose.translation.x = f32::NAN;
        assert!(Compound::new(vec![p]).is_err());
    }
}
