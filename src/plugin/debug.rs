//! Debug drawing with Bevy gizmos (feature `debug-render`, off by default).
//!
//! See [`CollisionDebugPlugin`] for what is drawn and how to set it.

use bevy_app::prelude::*;
use bevy_color::{Color, palettes::css};
use bevy_ecs::prelude::*;
#[cfg(feature = "reflect")]
use bevy_ecs::reflect::ReflectComponent;
use bevy_ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy_gizmos::config::GizmoConfigGroup;
use bevy_gizmos::prelude::{AppGizmoBuilder, Gizmos};
use bevy_reflect::{Reflect, std_traits::ReflectDefault};
use glam::{Mat3, Vec3};

use super::CollisionSystems;
use super::components::{Collider, ColliderAabb, CollidingEntities};
use super::resources::CollisionState;
use crate::bounds::BoundsMode;
use crate::bvh::Obb;
use crate::collider::{ShapeData, ShapeKind, SharedShape};
use crate::math::Pose;
use crate::narrow_phase::PairState;
use crate::pipeline::BodyHandle;
use crate::shape::{
    ConvexPolytope, HalfSpace, Implicit, ImplicitKind, RoundConvex, RoundCore, TriMesh,
};

/// Draws with gizmos, after the collision plugin's `Report` stage, what
/// the collision world holds, as I-COLLIDE's own viewer drew it:
///
/// - every collider's world box, fixed cubes and dynamic boxes in different
///   colors ([`BoundsMode`](crate::bounds::BoundsMode));
/// - convex shapes (and the convex pieces of compounds) as their edges,
///   tinted while they touch something;
/// - one level of a collider's OBB or AABB tree
///   ([`DebugRender::with_tree_depth`]);
/// - active broad-phase pairs (a line between the two box centers);
/// - for separated convex pairs, the line between the closest points (the
///   closest features Lin–Canny keeps); for touching pairs, the contact
///   points and the normal;
/// - for pairs with a triangle mesh, the intersecting triangles.
///
/// Global settings are the gizmo group [`CollisionGizmos`] (in Bevy's
/// `GizmoConfigStore`: turn the whole group off, change line widths, colors;
/// a `None` color skips that item); per entity, [`DebugRender`] hides a
/// collider, overrides its colors or picks the tree level to show.
///
/// The lines are recorded by `bevy_gizmos`; a renderer (Bevy's default
/// plugins, `bevy_gizmos_render`) shows them. `GizmoPlugin` (part of Bevy's
/// default plugins) must be in the app: without it the debug plugin logs an
/// error and draws nothing.
pub struct CollisionDebugPlugin {
    schedule: InternedScheduleLabel,
}

impl Default for CollisionDebugPlugin {
    /// Draws in `PostUpdate`, the [`CollisionPlugin`](super::CollisionPlugin)'s
    /// default schedule.
    fn default() -> Self {
        Self::new(PostUpdate)
    }
}

impl CollisionDebugPlugin {
    /// Draws in `schedule`: the one the collision plugin runs in.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
        }
    }
}

impl Plugin for CollisionDebugPlugin {
    fn build(&self, _app: &mut App) {}

    /// Registers in `finish`, once every plugin is built, so the order in
    /// which the app adds this plugin and Bevy's `GizmoPlugin` does not
    /// matter.
    fn finish(&self, app: &mut App) {
        if !app.is_plugin_added::<bevy_gizmos::GizmoPlugin>() {
            log::error!(
                "CollisionDebugPlugin needs bevy_gizmos' GizmoPlugin (in Bevy's DefaultPlugins): nothing will be drawn"
            );
            return;
        }
        app.init_gizmo_group::<CollisionGizmos>();
        #[cfg(feature = "reflect")]
        app.register_type::<DebugRender>()
            .register_type::<CollisionGizmos>();
        app.add_systems(
            self.schedule,
            (draw_colliders, draw_pairs).after(CollisionSystems::Report),
        );
    }
}

/// Global debug-drawing settings: a gizmo config group, so Bevy's
/// `GizmoConfigStore` also turns it on and off and sets its line style.
/// A `None` color skips that item.
#[derive(Reflect, GizmoConfigGroup, Clone, Debug, PartialEq)]
#[reflect(Default)]
pub struct CollisionGizmos {
    /// Boxes of colliders kept as fixed-size cubes.
    pub fixed_cube_color: Option<Color>,
    /// Boxes of colliders kept as dynamic boxes (hill-climbing or vertex
    /// transform).
    pub dynamic_box_color: Option<Color>,
    /// Edges of convex shapes and convex compound pieces.
    pub shape_color: Option<Color>,
    /// The shape's edges while it touches another collider.
    pub colliding_color: Option<Color>,
    /// Active broad-phase pairs: box center to box center.
    pub pair_color: Option<Color>,
    /// Separated convex pairs: closest point to closest point.
    pub closest_points_color: Option<Color>,
    /// Touching pairs: a cross at each contact point.
    pub contact_point_color: Option<Color>,
    /// Touching pairs: the normal (from the first collider to the second).
    pub contact_normal_color: Option<Color>,
    /// Length of the drawn normal and size of the contact crosses.
    pub contact_size: f32,
    /// Pairs with a triangle mesh: the intersecting triangles of both sides.
    pub triangle_color: Option<Color>,
    /// The tree level chosen by [`DebugRender::with_tree_depth`].
    pub tree_color: Option<Color>,
}

impl Default for CollisionGizmos {
    fn default() -> Self {
        Self {
            fixed_cube_color: Some(css::GRAY.into()),
            dynamic_box_color: Some(css::DARK_CYAN.into()),
            shape_color: Some(css::WHITE_SMOKE.into()),
            colliding_color: Some(css::RED.into()),
            pair_color: Some(css::GOLD.into()),
            closest_points_color: Some(css::LIME.into()),
            contact_point_color: Some(css::ORANGE_RED.into()),
            contact_normal_color: Some(css::ORANGE.into()),
            contact_size: 0.25,
            triangle_color: Some(css::MAGENTA.into()),
            tree_color: Some(css::CORNFLOWER_BLUE.into()),
        }
    }
}

/// Per-collider debug settings; without it the collider is drawn with the
/// [`CollisionGizmos`] settings.
#[derive(Component, Clone, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "reflect",
    derive(Reflect),
    reflect(Component, Default, Debug)
)]
pub struct DebugRender {
    /// Draw nothing of this collider (its pairs still are).
    pub hidden: bool,
    /// Its box color instead of the global one.
    pub box_color: Option<Color>,
    /// Its shape color instead of the global one.
    pub shape_color: Option<Color>,
    /// Draw this level of its mesh's tree (0 = the root box).
    pub tree_depth: Option<u32>,
}

impl DebugRender {
    /// Draw nothing of this collider.
    pub fn hidden() -> Self {
        Self {
            hidden: true,
            ..Self::default()
        }
    }

    /// Its box in `color`.
    pub fn with_box_color(mut self, color: impl Into<Color>) -> Self {
        self.box_color = Some(color.into());
        self
    }

    /// Its shape in `color`.
    pub fn with_shape_color(mut self, color: impl Into<Color>) -> Self {
        self.shape_color = Some(color.into());
        self
    }

    /// Draw level `depth` of its tree (see
    /// [`TreeRef::for_each_box_at_depth`](crate::bvh::TreeRef::for_each_box_at_depth)).
    pub fn with_tree_depth(mut self, depth: u32) -> Self {
        self.tree_depth = Some(depth);
        self
    }
}

/// The 12 edges of a box given by its 8 corners in [`crate::math::Aabb::corners`]
/// order (bit 0 = x, bit 1 = y, bit 2 = z), which [`Obb::corners`] keeps.
fn box_lines(gizmos: &mut Gizmos<CollisionGizmos>, corners: [Vec3; 8], color: Color) {
    for i in 0..8usize {
        for bit in [1, 2, 4] {
            if i & bit == 0 {
                gizmos.line(corners[i], corners[i | bit], color);
            }
        }
    }
}

/// What one collider's drawing needs.
struct ColliderView<'a> {
    shape: &'a SharedShape,
    pose: Pose,
    body: BodyHandle,
    touching: bool,
    settings: Option<&'a DebugRender>,
}

/// Boxes, shapes and tree levels of every collider.
fn draw_colliders(
    mut gizmos: Gizmos<CollisionGizmos>,
    state: Res<CollisionState>,
    colliders: Query<(
        Entity,
        &Collider,
        &ColliderAabb,
        &CollidingEntities,
        Option<&DebugRender>,
    )>,
) {
    let config = gizmos.config_ext.clone();
    for (entity, collider, aabb, colliding, settings) in &colliders {
        let Some(&body) = state.entity_body.get(&entity) else {
            continue;
        };
        let Some(pose) = state.world.pose(body) else {
            continue;
        };
        if settings.is_some_and(|s| s.hidden) {
            continue;
        }
        let mode_color = match collider.bounds() {
            BoundsMode::FixedCube => config.fixed_cube_color,
            BoundsMode::DynamicBox => config.dynamic_box_color,
        };
        if let Some(color) = settings.and_then(|s| s.box_color).or(mode_color) {
            box_lines(&mut gizmos, aabb.0.corners(), color);
        }
        let view = ColliderView {
            shape: collider.shape(),
            pose,
            body,
            touching: !colliding.is_empty(),
            settings,
        };
        draw_shape(&mut gizmos, &config, &view);
        draw_tree_level(&mut gizmos, &config, &state, &view);
    }
}

/// Edges of a convex shape, a cylinder's or cone's outline, or those of a
/// compound's pieces.
fn draw_shape(gizmos: &mut Gizmos<CollisionGizmos>, config: &CollisionGizmos, view: &ColliderView) {
    let own = view.settings.and_then(|s| s.shape_color);
    let color = if view.touching {
        config.colliding_color.or(own).or(config.shape_color)
    } else {
        own.or(config.shape_color)
    };
    let Some(color) = color else { return };
    draw_kind(gizmos, view.shape, &view.pose, color);
}

/// One shape's outline at `pose`: a composite kind (a compound, a
/// polyline) by its parts', the others by their own.
fn draw_kind(gizmos: &mut Gizmos<CollisionGizmos>, shape: &ShapeData, pose: &Pose, color: Color) {
    if let Some(parts) = shape.compound() {
        for piece in parts.pieces() {
            draw_kind(gizmos, &piece.shape, &pose.mul(&piece.pose), color);
        }
        return;
    }
    match shape.kind() {
        ShapeKind::Convex(_) => polytope_lines(gizmos, shape.polytope(), pose, color),
        ShapeKind::Implicit(s) => implicit_lines(gizmos, s, pose, color),
        ShapeKind::RoundConvex(s) => round_convex_lines(gizmos, s, pose, color),
        ShapeKind::HalfSpace(h) => half_space_lines(gizmos, h, pose, color),
        ShapeKind::HeightField(h) => heightfield_lines(gizmos, h, pose, color),
        // Meshes are drawn by their tree levels; spheres and capsules by
        // their boxes; composites above.
        _ => {}
    }
}

/// A rounded convex shape's outline: each face of its core pushed out by
/// the radius along its normal (the flat faces of the Minkowski sum); a
/// segment's or triangle's edges (pushed out both ways when rounded).
fn round_convex_lines(
    gizmos: &mut Gizmos<CollisionGizmos>,
    s: &RoundConvex,
    pose: &Pose,
    color: Color,
) {
    let r = s.radius();
    match s.core() {
        RoundCore::Polytope(p) => {
            for (i, f) in (0..).zip(p.faces()) {
                let slots = p.face_slots(i);
                let at = |k: u32| slots[(k % f.len) as usize].pos + r * f.normal;
                for k in 0..f.len {
                    gizmos.line(
                        pose.transform_point(at(k)),
                        pose.transform_point(at(k + 1)),
                        color,
                    );
                }
            }
        }
        RoundCore::Points(pts) => {
            let normal = match **pts {
                [a, b, c] => (b - a).cross(c - a).normalize_or_zero(),
                _ => Vec3::ZERO,
            };
            let offsets: &[f32] = if r > 0.0 && normal != Vec3::ZERO {
                &[-1.0, 1.0]
            } else {
                &[0.0]
            };
            // A triangle's three edges; a segment's one.
            let edges = if pts.len() == 2 { 1 } else { pts.len() };
            for &o in offsets {
                for k in 0..edges {
                    let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
                    let push = normal * (o * r);
                    gizmos.line(
                        pose.transform_point(a + push),
                        pose.transform_point(b + push),
                        color,
                    );
                }
            }
        }
    }
}

/// A height field's outline: its border and up to 17 rows and 17 columns
/// of its grid, each a polyline through every `step`-th sample (a
/// 1024 × 1024 terrain stays about 2 000 segments; nothing allocated).
fn heightfield_lines(
    gizmos: &mut Gizmos<CollisionGizmos>,
    h: &crate::shape::HeightField,
    pose: &Pose,
    color: Color,
) {
    let (n, m) = (h.nrows() as u32, h.ncols() as u32);
    let picks = |count: u32| {
        let step = ((count - 1).div_ceil(16)).max(1) as usize;
        (0..count - 1).step_by(step).chain([count - 1])
    };
    let at = |i: u32, j: u32| pose.transform_point(h.vertex(i, j));
    for i in picks(n) {
        for (j0, j1) in picks(m).zip(picks(m).skip(1)) {
            gizmos.line(at(i, j0), at(i, j1), color);
        }
    }
    for j in picks(m) {
        for (i0, i1) in picks(n).zip(picks(n).skip(1)) {
            gizmos.line(at(i0, j), at(i1, j), color);
        }
    }
}

/// A half-space's plane: a square of 8 × 8 cells of side 1 around the
/// body's origin, and its normal.
fn half_space_lines(
    gizmos: &mut Gizmos<CollisionGizmos>,
    h: &HalfSpace,
    pose: &Pose,
    color: Color,
) {
    let n = h.normal;
    let u = n.any_orthonormal_vector();
    let v = n.cross(u);
    let at = |x: f32, y: f32| pose.transform_point(u * x + v * y);
    for k in -4..=4 {
        let k = k as f32;
        gizmos.line(at(k, -4.0), at(k, 4.0), color);
        gizmos.line(at(-4.0, k), at(4.0, k), color);
    }
    gizmos.line(at(0.0, 0.0), pose.transform_point(n), color);
}

/// A cylinder's or cone's outline: its rims (a cone's apex rim is a
/// point) and four lines between them; a rounded one's core outline grown
/// by the rounding (rims and sides pushed out).
fn implicit_lines(gizmos: &mut Gizmos<CollisionGizmos>, s: &Implicit, pose: &Pose, color: Color) {
    const N: usize = 24;
    let (h, b) = (s.half_height, s.rounding);
    let top_radius = match s.kind {
        ImplicitKind::Cylinder => s.radius,
        ImplicitKind::Cone => 0.0,
    };
    let rim = |k: usize, y: f32, r: f32| {
        let a = std::f32::consts::TAU * k as f32 / N as f32;
        pose.transform_point(Vec3::new(r * a.cos(), y, r * a.sin()))
    };
    let (bottom, top) = (s.radius + b, top_radius + b);
    for k in 0..N {
        gizmos.line(rim(k, -h, bottom), rim(k + 1, -h, bottom), color);
        if top > 0.0 {
            gizmos.line(rim(k, h, top), rim(k + 1, h, top), color);
        }
        if k % (N / 4) == 0 {
            gizmos.line(rim(k, -h, bottom), rim(k, h, top), color);
        }
    }
}

fn polytope_lines(
    gizmos: &mut Gizmos<CollisionGizmos>,
    polytope: Option<&ConvexPolytope>,
    pose: &Pose,
    color: Color,
) {
    let Some(p) = polytope else { return };
    for e in p.edges() {
        let [a, b] = e.v.map(|v| pose.transform_point(p.vertex(v)));
        gizmos.line(a, b, color);
    }
}

/// The chosen level of the collider's tree (the deformed tree of a
/// deformable collider).
fn draw_tree_level(
    gizmos: &mut Gizmos<CollisionGizmos>,
    config: &CollisionGizmos,
    state: &CollisionState,
    view: &ColliderView,
) {
    let (Some(depth), Some(color)) = (view.settings.and_then(|s| s.tree_depth), config.tree_color)
    else {
        return;
    };
    let tree = match state.world.deformed_tree(view.body) {
        Some(t) => crate::bvh::TreeRef::Aabb(t),
        None => view.shape.surface_tree().as_ref(),
    };
    let scale = state.world.scale(view.body).unwrap_or(Vec3::ONE);
    tree.for_each_scaled_box_at_depth(depth as usize, scale, |rotation, center, half_extents| {
        let node = Obb {
            center,
            axes: Mat3::from_quat(rotation),
            half_extents,
        };
        let corners = node.corners().map(|c| view.pose.transform_point(c));
        box_lines(gizmos, corners, color);
    });
}

/// Broad-phase pairs, closest points, contacts and intersecting triangles.
fn draw_pairs(mut gizmos: Gizmos<CollisionGizmos>, state: Res<CollisionState>) {
    let config = gizmos.config_ext.clone();
    let world = &state.world;
    for ([a, b], pair) in world.pairs() {
        let (Some(box_a), Some(box_b)) = (world.aabb(a), world.aabb(b)) else {
            continue;
        };
        if let Some(color) = config.pair_color {
            gizmos.line(box_a.center(), box_b.center(), color);
        }
        draw_contact(&mut gizmos, &config, pair);
        draw_triangles(&mut gizmos, &config, &state, [a, b], pair);
    }
}

/// Closest points of a separated pair, or contact points and normal of a
/// touching one, when the pair computes contact data.
fn draw_contact(gizmos: &mut Gizmos<CollisionGizmos>, config: &CollisionGizmos, pair: &PairState) {
    let Some(c) = pair.result.contact else { return };
    if !pair.result.touching {
        if let Some(color) = config.closest_points_color {
            gizmos.line(c.point_a, c.point_b, color);
        }
        return;
    }
    let size = config.contact_size;
    if let Some(color) = config.contact_point_color {
        for p in [c.point_a, c.point_b] {
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                gizmos.line(p - axis * size * 0.5, p + axis * size * 0.5, color);
            }
        }
    }
    if let Some(color) = config.contact_normal_color {
        gizmos.line(c.point_a, c.point_a + c.normal * size * 2.0, color);
    }
}

/// The intersecting triangles of a pair with a triangle mesh (both sides),
/// in world space.
fn draw_triangles(
    gizmos: &mut Gizmos<CollisionGizmos>,
    config: &CollisionGizmos,
    state: &CollisionState,
    bodies: [BodyHandle; 2],
    pair: &PairState,
) {
    let (Some(color), Some(pairs)) = (config.triangle_color, pair.triangle_pairs()) else {
        return;
    };
    let sides = bodies.map(|b| {
        let scale = state.world.scale(b).unwrap_or(Vec3::ONE);
        mesh_of(state, b).zip(state.world.pose(b).map(|p| (p, scale)))
    });
    for ids in pairs {
        for (side, &t) in sides.iter().zip(ids) {
            // A convex side's "triangles" are its hull's (see `SharedShape::surface`).
            let Some((mesh, (pose, scale))) = side else {
                continue;
            };
            if let Some(&[p, q, r]) = mesh.triangles().get(t as usize) {
                let [p, q, r] =
                    [p, q, r].map(|v| pose.transform_point(mesh.vertices()[v as usize] * *scale));
                gizmos.line(p, q, color);
                gizmos.line(q, r, color);
                gizmos.line(r, p, color);
            }
        }
    }
}

/// The triangles a body's triangle ids refer to: its deformed mesh, its
/// mesh, or its convex hull's triangles.
fn mesh_of(state: &CollisionState, body: BodyHandle) -> Option<&TriMesh> {
    state
        .world
        .deformed_mesh(body)
        .or_else(|| Some(state.world.shape(body)?.surface()?.mesh))
}
