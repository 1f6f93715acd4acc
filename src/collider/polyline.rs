//! The polyline kind: a chain (or any set) of segments sharing vertices,
//! in 3D a set of segments without inside, as parry's `Polyline`.
//!
//! A polyline is a composite kind: its parts are its segments, each a
//! sharp segment ([`SharedShape::segment`], the support-mapped
//! `RoundConvex` core of radius 0) at the identity pose, under the
//! compound's AABB tree ([`Compound`]). Every query therefore takes the
//! composite path the compound takes (`query/compound.rs`: the part tree
//! descended to the segments whose boxes overlap, each segment tested as
//! its own shape), and reports the segment as the piece: contact and
//! closest-point `pieces`, the ray hit's `piece`. Its bounds are those of
//! its points (their hull's dynamic box, exact; the points themselves
//! when they are flat). It cannot be a compound piece (compounds do not
//! nest).

use std::sync::Arc;

use glam::Vec3;

use super::kind::KindData;
use super::{Compound, CompoundPiece, ShapeData, ShapeError, ShapeKind, SharedShape};
use super::{bounds_of, limits};
use crate::math::Pose;

/// Points and the segments between them, each segment a part.
#[derive(Clone, Debug)]
pub struct Polyline {
    points: Vec<Vec3>,
    segments: Vec<[u32; 2]>,
    parts: Compound,
}

impl Polyline {
    /// The points.
    pub fn points(&self) -> &[Vec3] {
        &self.points
    }

    /// The segments, as pairs of point indices; segment `i` is part `i`.
    pub fn segments(&self) -> &[[u32; 2]] {
        &self.segments
    }

    /// Segment `i`'s end points.
    pub fn segment(&self, i: u32) -> [Vec3; 2] {
        self.segments[i as usize].map(|k| self.points[k as usize])
    }
}

impl KindData for Polyline {
    fn name(&self) -> &'static str {
        "polyline"
    }
    fn parts(&self) -> Option<&Compound> {
        Some(&self.parts)
    }
    fn scaled(&self, factor: f32) -> Result<SharedShape, ShapeError> {
        let points = self.points.iter().map(|p| *p * factor).collect();
        SharedShape::polyline(points, Some(self.segments.clone()))
    }
}

impl ShapeData {
    /// The polyline, for polylines.
    pub fn polyline(&self) -> Option<&Polyline> {
        match &self.kind {
            ShapeKind::Polyline(l) => Some(l),
            _ => None,
        }
    }
}

impl SharedShape {
    /// A polyline through `points`: the segments `indices` (pairs of point
    /// indices), or, when `None`, the chain `0–1, 1–2, …`. Segment `i` is
    /// the piece `i` of contacts, closest points and ray hits.
    ///
    /// Errors ([`limits`]): a point not finite or beyond the shape limits,
    /// no segment, an index out of range, a segment of zero length.
    pub fn polyline(points: Vec<Vec3>, indices: Option<Vec<[u32; 2]>>) -> Result<Self, ShapeError> {
        let segments = indices.unwrap_or_else(|| chain(points.len()));
        limits::check_polyline(&points, &segments)?;
        let pieces = segments
            .iter()
            .map(|s| {
                let [a, b] = s.map(|k| points[k as usize]);
                Ok(CompoundPiece {
                    pose: Pose::IDENTITY,
                    shape: SharedShape::segment(a, b)?,
                })
            })
            .collect::<Result<Vec<_>, ShapeError>>()?;
        let used: Vec<Vec3> = segments
            .iter()
            .flatten()
            .map(|&k| points[k as usize])
            .collect();
        let bounds = bounds_of(used)?;
        let line = Polyline {
            points,
            segments,
            parts: Compound::new(pieces)?,
        };
        Ok(Self(Arc::new(ShapeData::new(
            ShapeKind::Polyline(line),
            bounds,
        ))))
    }
}

/// The segments of a chain through `n` points.
fn chain(n: usize) -> Vec<[u32; 2]> {
    (1..n as u32).map(|i| [i - 1, i]).collect()
}
