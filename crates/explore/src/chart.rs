//! SVG scatter charts of the space: every design a point, the Pareto front
//! a line, the paper's designs labelled.

use std::fmt::Write;

use aesflow_array::svg::esc;

const W: f64 = 900.0;
const H: f64 = 600.0;
const L: f64 = 80.0;
const R: f64 = 30.0;
const T: f64 = 50.0;
const B: f64 = 60.0;

/// One point of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Dot {
    /// x value (positive: the axes are logarithmic).
    pub x: f64,
    /// y value (positive).
    pub y: f64,
    /// A label drawn beside the point (the paper's designs), if any.
    pub label: Option<String>,
}

/// A scatter chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Scatter {
    /// Title.
    pub title: String,
    /// x-axis label with unit.
    pub xlabel: String,
    /// y-axis label with unit.
    pub ylabel: String,
    /// All points.
    pub dots: Vec<Dot>,
    /// The front, as points in drawing order.
    pub front: Vec<(f64, f64)>,
}

/// A logarithmic axis over `[lo, hi]` (decades, with 2 and 5 ticks).
struct LogAxis {
    lo: f64,
    hi: f64,
}

impl LogAxis {
    fn new(vals: impl Iterator<Item = f64>) -> Self {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in vals.filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (lo, hi) = (1.0, 10.0);
        }
        let lo = lo / 1.3;
        let hi = (hi * 1.3).max(lo * 3.0);
        LogAxis { lo, hi }
    }
    fn frac(&self, v: f64) -> f64 {
        (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
    }
    fn ticks(&self) -> Vec<f64> {
        let mut out = Vec::new();
        let mut d = 10f64.powf(self.lo.log10().floor());
        while d <= self.hi {
            for m in [1.0, 2.0, 5.0] {
                let v = d * m;
                if v >= self.lo && v <= self.hi {
                    out.push(v);
                }
            }
            d *= 10.0;
        }
        out
    }
}

fn tick_label(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        let d = (-v.log10().floor()) as usize;
        format!("{v:.d$}")
    }
}

/// Render the chart as an SVG document.
pub fn render(c: &Scatter) -> String {
    let xa = LogAxis::new(c.dots.iter().map(|d| d.x));
    let ya = LogAxis::new(c.dots.iter().map(|d| d.y));
    let px = |x: f64| L + xa.frac(x) * (W - L - R);
    let py = |y: f64| H - B - ya.frac(y) * (H - T - B);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="28" font-size="16" text-anchor="middle">{}</text>"#,
        W / 2.0,
        esc(&c.title)
    );
    for v in xa.ticks() {
        let x = px(v);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{T}" x2="{x:.1}" y2="{}" stroke="#e4e4e4"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
            H - B,
            H - B + 18.0,
            tick_label(v)
        );
    }
    for v in ya.ticks() {
        let y = py(v);
        let _ = writeln!(
            s,
            r##"<line x1="{L}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#e4e4e4"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            W - R,
            L - 6.0,
            y + 4.0,
            tick_label(v)
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{L}" y="{T}" width="{}" height="{}" fill="none" stroke="black"/>"#,
        W - L - R,
        H - T - B
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{} (log scale)</text>"#,
        (L + W - R) / 2.0,
        H - 15.0,
        esc(&c.xlabel)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(20,{}) rotate(-90)" text-anchor="middle">{} (log scale)</text>"#,
        (T + H - B) / 2.0,
        esc(&c.ylabel)
    );
    for d in c.dots.iter().filter(|d| d.label.is_none()) {
        let _ = writeln!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="#7f9fbf" fill-opacity="0.6"/>"##,
            px(d.x),
            py(d.y)
        );
    }
    if !c.front.is_empty() {
        let pts: Vec<String> = c
            .front
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            s,
            r##"<polyline points="{}" fill="none" stroke="#d62728" stroke-width="2"/>"##,
            pts.join(" ")
        );
    }
    // Labels alternate above and below their marker so that pairs (a
    // design online and offline) do not overprint.
    for (k, d) in c.dots.iter().filter(|d| d.label.is_some()).enumerate() {
        let (x, y) = (px(d.x), py(d.y));
        let dy = if k % 2 == 0 { -7.0 } else { 15.0 };
        let _ = writeln!(
            s,
            r##"<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="#2ca02c" stroke="black"/><text x="{:.1}" y="{:.1}" font-size="11">{}</text>"##,
            x - 4.0,
            y - 4.0,
            x + 6.0,
            y + dy,
            esc(d.label.as_deref().unwrap_or(""))
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" font-size="11" text-anchor="end">dots: designs; red line: Pareto front; green squares: the paper's designs</text>"##,
        W - R - 4.0,
        T + 14.0
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_points_front_and_labels() {
        let c = Scatter {
            title: "t <&>".into(),
            xlabel: "cores".into(),
            ylabel: "Gbit/s".into(),
            dots: vec![
                Dot {
                    x: 8.0,
                    y: 0.05,
                    label: None,
                },
                Dot {
                    x: 137.0,
                    y: 2.2,
                    label: Some("Full".into()),
                },
            ],
            front: vec![(8.0, 0.05), (137.0, 2.2)],
        };
        let s = render(&c);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        assert!(s.contains("t &lt;&amp;&gt;"));
        assert!(s.contains("<polyline") && s.contains(">Full</text>"));
        assert_eq!(s.matches("<circle").count(), 1);
    }
}
