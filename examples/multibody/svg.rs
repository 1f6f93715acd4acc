//! A small SVG line-plot writer: a few series of (x, y) points, linear or
//! logarithmic x, linear y from 0, grid, legend. No dependencies.

use std::fmt::Write;

/// One line of the plot.
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points, in x order.
    pub points: Vec<(f64, f64)>,
    /// CSS color.
    pub color: &'static str,
    /// Dashed line.
    pub dashed: bool,
}

/// A line plot.
pub struct Plot {
    /// Title, above the plot.
    pub title: String,
    /// A smaller line under the title.
    pub subtitle: String,
    /// Label under the x axis.
    pub x_label: String,
    /// Label left of the y axis.
    pub y_label: String,
    /// Logarithmic x axis, ticks at the data's x values.
    pub log_x: bool,
    /// Logarithmic y axis, ticks at the powers of ten.
    pub log_y: bool,
    /// The legend at the bottom left instead of the top left.
    pub legend_below: bool,
    /// The lines.
    pub series: Vec<Series>,
}

const W: f64 = 640.0;
const H: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 55.0;

/// Maps data to pixels.
struct Frame {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    log_x: bool,
    log_y: bool,
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        let f = |v: f64| if self.log_x { v.ln() } else { v };
        let t = (f(x) - f(self.x0)) / (f(self.x1) - f(self.x0)).max(1e-12);
        LEFT + t * (W - LEFT - RIGHT)
    }

    fn py(&self, y: f64) -> f64 {
        let f = |v: f64| if self.log_y { v.ln() } else { v };
        let t = (f(y) - f(self.y0)) / (f(self.y1) - f(self.y0)).max(1e-12);
        H - BOTTOM - t * (H - TOP - BOTTOM)
    }
}

/// The plot as an SVG document.
pub fn render(plot: &Plot) -> String {
    let xs: Vec<f64> = plot
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let y_max = plot
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let (y_ticks, y0, y1) = if plot.log_y {
        let y_min = plot
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .fold(f64::INFINITY, f64::min)
            .max(1e-12);
        let (lo, hi) = (y_min.log10().floor() as i32, y_max.log10().ceil() as i32);
        let ticks = (lo..=hi).map(|e| 10f64.powi(e)).collect();
        (ticks, 10f64.powi(lo), 10f64.powi(hi))
    } else {
        let (t, y1) = nice_ticks(y_max);
        (t, 0.0, y1)
    };
    let (x_ticks, x0, x1) = if plot.log_x {
        let mut t = xs.clone();
        t.sort_by(f64::total_cmp);
        t.dedup();
        let (lo, hi) = (t[0], t[t.len() - 1]);
        (t, lo / 1.15, hi * 1.15)
    } else {
        let (t, hi) = nice_ticks(xs.iter().copied().fold(0.0, f64::max));
        (t, 0.0, hi)
    };
    let frame = Frame {
        x0,
        x1,
        y0,
        y1,
        log_x: plot.log_x,
        log_y: plot.log_y,
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = write!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    axes(&mut s, plot, &frame, &x_ticks, &y_ticks);
    for series in &plot.series {
        line(&mut s, &frame, series);
    }
    legend(&mut s, &plot.series, plot.legend_below);
    s.push_str("</svg>\n");
    s
}

fn axes(s: &mut String, plot: &Plot, f: &Frame, x_ticks: &[f64], y_ticks: &[f64]) {
    let (bottom, right) = (H - BOTTOM, W - RIGHT);
    for &y in y_ticks {
        let py = f.py(y);
        let _ = write!(
            s,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{right}" y2="{py:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 6.0,
            py + 4.0,
            label(y)
        );
    }
    for &x in x_ticks {
        let px = f.px(x);
        let _ = write!(
            s,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{bottom}" stroke="#eee"/><text x="{px:.1}" y="{}" text-anchor="middle">{}</text>"##,
            bottom + 16.0,
            label(x)
        );
    }
    let _ = write!(
        s,
        r#"<path d="M{LEFT},{TOP}V{bottom}H{right}" fill="none" stroke="black"/>"#
    );
    let _ = write!(
        s,
        r#"<text x="{x}" y="20" text-anchor="middle" font-size="15">{}</text><text x="{x}" y="38" text-anchor="middle" font-size="11">{}</text>"#,
        plot.title,
        plot.subtitle,
        x = W / 2.0
    );
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        (LEFT + right) / 2.0,
        H - 14.0,
        plot.x_label
    );
    let _ = write!(
        s,
        r#"<text transform="translate(18,{}) rotate(-90)" text-anchor="middle">{}</text>"#,
        (TOP + bottom) / 2.0,
        plot.y_label
    );
}

fn line(s: &mut String, f: &Frame, series: &Series) {
    let pts: Vec<(f64, f64)> = series
        .points
        .iter()
        .map(|&(x, y)| (f.px(x), f.py(y)))
        .collect();
    let path: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
    let dash = if series.dashed {
        r#" stroke-dasharray="6,4""#
    } else {
        ""
    };
    let color = series.color;
    let _ = write!(
        s,
        r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
        path.join(" ")
    );
    for (x, y) in pts {
        let _ = write!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{color}"/>"#
        );
    }
}

fn legend(s: &mut String, series: &[Series], below: bool) {
    let first = if below {
        H - BOTTOM - 12.0 - 18.0 * (series.len() as f64 - 1.0)
    } else {
        TOP + 12.0
    };
    for (i, ser) in series.iter().enumerate() {
        let y = first + 18.0 * i as f64;
        let x = LEFT + 14.0;
        let dash = if ser.dashed {
            r#" stroke-dasharray="6,4""#
        } else {
            ""
        };
        let _ = write!(
            s,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{}" stroke-width="2"{dash}/><text x="{}" y="{}">{}</text>"#,
            x + 28.0,
            ser.color,
            x + 34.0,
            y + 4.0,
            ser.name
        );
    }
}

/// Ticks from 0 to a round number at or above `max`, steps of 1, 2 or 5
/// times a power of ten.
fn nice_ticks(max: f64) -> (Vec<f64>, f64) {
    let raw = (max / 5.0).max(1e-9);
    let e = 10f64.powf(raw.log10().floor());
    let step = e * [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|&m| raw <= m * e)
        .unwrap_or(10.0);
    let n = (max / step).ceil().max(1.0) as usize;
    ((0..=n).map(|i| i as f64 * step).collect(), n as f64 * step)
}

/// A number with as few decimals as it needs (up to 4).
fn label(v: f64) -> String {
    let d = (0..4)
        .find(|&d| {
            let k = 10f64.powi(d);
            ((v * k).round() / k - v).abs() < 1e-9 * v.abs().max(1.0)
        })
        .unwrap_or(4);
    format!("{v:.*}", d as usize)
}
