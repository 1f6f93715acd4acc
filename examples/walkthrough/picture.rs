//! The walkthrough's picture: the room from the top (x right, z down) and
//! from the side (x right, y up), each object as the outline of its
//! projected convex hull, touched objects in red, the hand's path in blue.
//! Plain SVG, written by hand: no plotting dependency.

use std::fmt::Write as _;

use glam::{Vec2, Vec3};

/// One object to draw: its hull vertices in world space.
pub struct Outline {
    pub name: String,
    pub points: Vec<Vec3>,
    pub touched: bool,
    pub is_hand: bool,
}

/// A view: which world axes go right and down on the page.
#[derive(Clone, Copy)]
struct View {
    title: &'static str,
    project: fn(Vec3) -> Vec2,
    /// Top-left corner of the panel on the page, px.
    origin: Vec2,
}

const SCALE: f32 = 90.0; // px per metre
const ROOM_MIN: Vec2 = Vec2::new(-3.2, -3.3);

/// Andrew's monotone chain: the convex hull of 2D points, counter-clockwise.
fn hull_2d(mut pts: Vec<Vec2>) -> Vec<Vec2> {
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut lower: Vec<Vec2> = Vec::new();
    for &p in &pts {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], p) <= 0.0 {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<Vec2> = Vec::new();
    for &p in pts.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], p) <= 0.0 {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

impl View {
    fn px(&self, p: Vec3) -> Vec2 {
        self.origin + ((self.project)(p) - ROOM_MIN) * SCALE
    }

    fn polygon(&self, out: &mut String, o: &Outline, label: bool) {
        let pts: Vec<Vec2> = o.points.iter().map(|&p| self.px(p)).collect();
        let hull = hull_2d(pts);
        let poly: Vec<String> = hull
            .iter()
            .map(|p| format!("{:.1},{:.1}", p.x, p.y))
            .collect();
        let (fill, stroke) = match (o.touched, o.is_hand) {
            (_, true) => ("#8ab4f8", "#1a56c4"),
            (true, false) => ("#e53935", "#8e0000"),
            (false, false) => ("none", "#555"),
        };
        let _ = writeln!(
            out,
            r#"<polygon points="{}" fill="{fill}" fill-opacity="0.55" stroke="{stroke}" stroke-width="1"><title>{}</title></polygon>"#,
            poly.join(" "),
            o.name
        );
        if label && o.name != "living_room" {
            let c = hull.iter().fold(Vec2::ZERO, |s, &p| s + p) / hull.len().max(1) as f32;
            let _ = writeln!(
                out,
                r##"<text x="{:.0}" y="{:.0}" font-size="10" fill="#333">{}</text>"##,
                c.x + 6.0,
                c.y - 4.0,
                o.name
            );
        }
    }

    fn path(&self, out: &mut String, path: &[Vec3]) {
        let pts: Vec<String> = path
            .iter()
            .map(|&p| {
                let q = self.px(p);
                format!("{:.1},{:.1}", q.x, q.y)
            })
            .collect();
        let _ = writeln!(
            out,
            r##"<polyline points="{}" fill="none" stroke="#1a56c4" stroke-width="1.5" stroke-dasharray="4 2"/>"##,
            pts.join(" ")
        );
    }
}

/// The SVG text: top view on the left, side view on the right.
pub fn svg(outlines: &[Outline], hand_path: &[Vec3]) -> String {
    let views = [
        View {
            title: "top view (x right, z down)",
            project: |p| Vec2::new(p.x, p.z),
            origin: Vec2::new(10.0, 30.0),
        },
        View {
            title: "side view (x right, y up)",
            project: |p| Vec2::new(p.x, -p.y),
            origin: Vec2::new(620.0, 30.0),
        },
    ];
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="640" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(out, r#"<rect width="1200" height="640" fill="white"/>"#);
    for (i, v) in views.iter().enumerate() {
        let _ = writeln!(out, r#"<text x="{}" y="20">{}</text>"#, v.origin.x, v.title);
        for o in outlines.iter().filter(|o| !o.is_hand) {
            v.polygon(&mut out, o, i == 0);
        }
        v.path(&mut out, hand_path);
        for o in outlines.iter().filter(|o| o.is_hand) {
            v.polygon(&mut out, o, i == 0);
        }
    }
    let _ = writeln!(
        out,
        r#"<text x="10" y="630">red: touched by the hand (or by what it held); blue: the hand at the end and its path</text>"#
    );
    out.push_str("</svg>\n");
    out
}
