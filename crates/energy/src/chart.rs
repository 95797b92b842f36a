//! Minimal hand-written SVG charts: line charts and grouped bar charts with
//! labelled axes (units in the labels).

use std::fmt::Write;

/// One data series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points `(x, y)`.
    pub points: Vec<(f64, f64)>,
}

const W: f64 = 760.0;
const H: f64 = 460.0;
const L: f64 = 80.0;
const R: f64 = 230.0;
const T: f64 = 50.0;
const B: f64 = 60.0;
const COLORS: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// "Nice" tick step for a range.
fn step(range: f64) -> f64 {
    let raw = range / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    mag * if n < 1.5 {
        1.0
    } else if n < 3.0 {
        2.0
    } else if n < 7.0 {
        5.0
    } else {
        10.0
    }
}

fn fmt_tick(v: f64, st: f64) -> String {
    let d = if st >= 1.0 {
        0
    } else {
        (-st.log10().floor()) as usize
    };
    format!("{v:.d$}")
}

fn header(s: &mut String, title: &str, xlabel: &str, ylabel: &str) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
        (L + W - R) / 2.0,
        esc(title)
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        (L + W - R) / 2.0,
        H - 15.0,
        esc(xlabel)
    );
    let _ = writeln!(
        s,
        r#"<text x="20" y="{}" text-anchor="middle" transform="rotate(-90 20 {})">{}</text>"#,
        (T + H - B) / 2.0,
        (T + H - B) / 2.0,
        esc(ylabel)
    );
}

fn y_axis(s: &mut String, y0: f64, y1: f64) -> impl Fn(f64) -> f64 + use<> {
    let st = step(y1 - y0);
    let py = move |y: f64| H - B - (y - y0) / (y1 - y0) * (H - B - T);
    let mut v = (y0 / st).ceil() * st;
    while v <= y1 + 1e-9 {
        let y = py(v);
        let _ = writeln!(
            s,
            r##"<line x1="{L}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            W - R,
            L - 6.0,
            y + 4.0,
            fmt_tick(v, st)
        );
        v += st;
    }
    let _ = writeln!(
        s,
        r#"<line x1="{L}" y1="{T}" x2="{L}" y2="{}" stroke="black"/><line x1="{L}" y1="{}" x2="{}" y2="{}" stroke="black"/>"#,
        H - B,
        H - B,
        W - R,
        H - B
    );
    py
}

fn legend(s: &mut String, labels: &[String]) {
    for (i, l) in labels.iter().enumerate() {
        let y = T + 10.0 + 18.0 * i as f64;
        let c = COLORS[i % COLORS.len()];
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="12" height="12" fill="{c}"/><text x="{}" y="{}">{}</text>"#,
            W - R + 12.0,
            y - 10.0,
            W - R + 30.0,
            y,
            esc(l)
        );
    }
}

/// A line chart (with point markers). `log_x` plots x on a log₂ scale.
pub fn line_chart(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[Series],
    log_x: bool,
) -> String {
    let mut s = String::new();
    header(&mut s, title, xlabel, ylabel);
    let tx = |x: f64| if log_x { x.max(1e-9).log2() } else { x };
    let pts = series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts {
        x0 = x0.min(tx(x));
        x1 = x1.max(tx(x));
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        (x0, x1, y1) = (0.0, 1.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let y1 = y1 * 1.08;
    let py = y_axis(&mut s, 0.0, y1);
    let px = |x: f64| L + (tx(x) - x0) / (x1 - x0) * (W - R - L);
    // x ticks
    if log_x {
        let mut e = x0.floor();
        while e <= x1 + 1e-9 {
            let v = 2f64.powf(e);
            let x = L + (e - x0) / (x1 - x0) * (W - R - L);
            let _ = writeln!(
                s,
                r#"<text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
                H - B + 18.0,
                fmt_tick(v, 1.0)
            );
            e += 1.0;
        }
    } else {
        let st = step(x1 - x0);
        let mut v = (x0 / st).ceil() * st;
        while v <= x1 + 1e-9 {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                px(v),
                H - B + 18.0,
                fmt_tick(v, st)
            );
            v += st;
        }
    }
    for (i, se) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let d: Vec<String> = se
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
            d.join(" ")
        );
        for &(x, y) in &se.points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{c}"/>"#,
                px(x),
                py(y)
            );
        }
    }
    legend(
        &mut s,
        &series.iter().map(|s| s.label.clone()).collect::<Vec<_>>(),
    );
    s.push_str("</svg>\n");
    s
}

/// A grouped bar chart: one group per category, one bar per series.
pub fn bar_chart(
    title: &str,
    ylabel: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
) -> String {
    let mut s = String::new();
    header(&mut s, title, "", ylabel);
    let y1 = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0f64, f64::max)
        * 1.1;
    let y1 = if y1 > 0.0 { y1 } else { 1.0 };
    let py = y_axis(&mut s, 0.0, y1);
    let n = categories.len().max(1) as f64;
    let gw = (W - R - L) / n;
    let bw = gw * 0.8 / series.len().max(1) as f64;
    for (ci, cat) in categories.iter().enumerate() {
        let gx = L + gw * ci as f64 + gw * 0.1;
        for (si, (_, v)) in series.iter().enumerate() {
            let val = v.get(ci).copied().unwrap_or(0.0).max(0.0);
            let x = gx + bw * si as f64;
            let y = py(val);
            let _ = writeln!(
                s,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{val:.3}</title></rect>"#,
                bw * 0.95,
                (H - B - y).max(0.0),
                COLORS[si % COLORS.len()]
            );
        }
        let tx = gx + gw * 0.4;
        let _ = writeln!(
            s,
            r#"<text x="{tx:.1}" y="{}" text-anchor="end" font-size="10" transform="rotate(-30 {tx:.1} {})">{}</text>"#,
            H - B + 14.0,
            H - B + 14.0,
            esc(cat)
        );
    }
    legend(
        &mut s,
        &series.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>(),
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_svg_with_labels() {
        let l = line_chart(
            "t",
            "Vdd (V)",
            "energy (nJ/bit)",
            &[Series {
                label: "a<b".into(),
                points: vec![(0.7, 0.4), (1.3, 1.5)],
            }],
            false,
        );
        assert!(l.starts_with("<svg") && l.contains("Vdd (V)") && l.contains("a&lt;b"));
        let b = bar_chart("t", "saving (%)", &["x".into()], &[("s".into(), vec![3.0])]);
        assert!(b.contains("<rect") && b.contains("saving (%)"));
    }
}
