//! # aesflow-chart: small SVG charts and the XML escaper
//!
//! Every picture aesflow writes — the energy study's figures (Liu & Baas,
//! "Parallel AES Encryption Engines for Many-Core Processor Arrays",
//! Figs. 12, 14, 15), the design-space explorer's scatter charts, the
//! report's host charts and the mesh maps — is plain SVG text built here
//! (or escaped with [`esc`]). The crate has no dependencies: a chart is a
//! value ([`LineChart`], [`LabelledChart`], [`BarChart`]) that renders
//! itself to a `String`; writing files is the caller's business.
//!
//! * Line charts: linear, log₂ or log₁₀ axes; lines, markers, scatters of
//!   dots, bare paths and highlighted squares; texts beside chosen points
//!   with [`LabelledChart`]; horizontal reference lines and bands.
//! * Grouped bar charts with rotated category labels.
//! * [`COLOURS`]: one palette, colour-blind-safe, for every series.
//!
//! Layout is computed, not guessed: the margins grow to fit the longest
//! tick and category labels (rotated labels included), ticks are generated
//! only inside the axis range, the legend sits under the plot and wraps,
//! and every mark carries a `<title>` (the value, shown on hover). A test
//! checks that every text's estimated extent lies inside the picture.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::fmt::Write;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// Solid line with filled markers (the model).
    Line,
    /// Hollow markers, no line (the paper's figures).
    Markers,
    /// Small filled, translucent markers, no line (a scatter of many points).
    Dots,
    /// A line without markers (a boundary, such as a Pareto front).
    Path,
    /// Filled squares with a black outline, no line (points singled out).
    Squares,
}

/// One data series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Points `(x, y)`.
    pub points: Vec<(f64, f64)>,
    /// Drawing style.
    pub style: Style,
    /// Colour index (series of one engine share a colour).
    pub colour: usize,
    /// Hover text per point (empty: the coordinates).
    pub tips: Vec<String>,
}

/// An axis scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Linear from zero (y) or from the data's minimum (x).
    Linear,
    /// Logarithmic, powers of two ticks.
    Log2,
    /// Logarithmic, decade ticks (1, 2, 5 within a decade when few).
    Log10,
}

/// One axis of a [`LineChart`]: its label, scale and range.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisSpec {
    /// Label (with unit).
    pub label: String,
    /// Scale.
    pub scale: Scale,
    /// `(lo, hi)` drawn as given; `None`: computed from the data (see
    /// [`Scale`]).
    pub range: Option<(f64, f64)>,
}

impl AxisSpec {
    /// An axis labelled `label` on `scale`, its range fitted to the data.
    pub fn new(label: impl Into<String>, scale: Scale) -> Self {
        AxisSpec {
            label: label.into(),
            scale,
            range: None,
        }
    }

    /// The same axis over `lo..=hi` whatever the data.
    pub fn with_range(self, lo: f64, hi: f64) -> Self {
        AxisSpec {
            range: Some((lo, hi)),
            ..self
        }
    }
}

/// A horizontal reference: a line (`lo == hi`) or a shaded band.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// Legend label.
    pub label: String,
    /// Bottom.
    pub lo: f64,
    /// Top.
    pub hi: f64,
    /// Colour index.
    pub colour: usize,
}

/// Width of a chart of [`Size::STANDARD`] (px).
pub const W: f64 = 760.0;
const PLOT_H: f64 = 300.0;
const TOP: f64 = 44.0;
const RIGHT: f64 = 24.0;
const CHAR_W: f64 = 6.6;
const FONT: f64 = 12.0;
/// The palette of series colours: Okabe & Ito's colour-blind-safe set
/// (blue, orange, bluish green, vermillion, reddish purple, sky blue,
/// black), then grey, a dark wine and yellow, used in this order.
pub const COLOURS: [&str; 10] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999",
    "#882255", "#F0E442",
];

/// The colour of a core kind on the maps and dataflow graphs: each step
/// family has its own hue (AddRoundKey blues, SubBytes oranges, ShiftRows
/// purple, MixColumns greens, key expansion ochres, communication greys),
/// variants of a family differ in lightness, and every kind one engine
/// uses gets a colour of its own. Light enough for black text. Paul Tol's
/// colour-blind-safe schemes; an unknown kind takes a stable pick from
/// them.
pub fn kind_colour(kind: &str) -> String {
    const FIXED: [(&str, &str); 17] = [
        ("AddRoundKey", "#6699CC"),
        ("AddKeyShiftRows", "#99DDFF"),
        ("ShiftRowsAddKey", "#99DDFF"),
        ("ShiftRows", "#AA77CC"),
        ("SubBytes-16", "#EE7733"),
        ("SubBytes-8", "#EE7733"),
        ("SubBytes-4", "#FFAABB"),
        ("SubBytesShiftRows", "#EE6677"),
        ("ShiftRowsSubBytes-8", "#EE6677"),
        ("MixColumns-16", "#44BB99"),
        ("MixColumns-4", "#44BB99"),
        ("MixColumnsAddKey-16", "#99CC66"),
        ("MixColumnsAddKey-8", "#99CC66"),
        ("KeySchedule", "#DDAA33"),
        ("KeySubWord", "#EEDD88"),
        ("MergeCore", "#BBBBBB"),
        ("DispatchCore", "#888888"),
    ];
    if let Some((_, c)) = FIXED.iter().find(|(k, _)| *k == kind) {
        return (*c).to_string();
    }
    const SPARE: [&str; 6] = [
        "#AAAA00", "#99DDFF", "#FFAABB", "#44BB99", "#EEDD88", "#77AADD",
    ];
    let mut h: u32 = 2166136261;
    for b in kind.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(16777619);
    }
    SPARE[h as usize % SPARE.len()].to_string()
}

/// The size of a chart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size {
    /// Width of the picture (px).
    pub width: f64,
    /// Height of the plot area (px); title, tick labels, axis label and
    /// legend come on top of it.
    pub plot_height: f64,
}

impl Size {
    /// The size of [`LineChart`]s and [`BarChart`]s: [`W`] wide, a 300 px
    /// plot.
    pub const STANDARD: Size = Size {
        width: W,
        plot_height: PLOT_H,
    };
}

fn colour(i: usize) -> &'static str {
    COLOURS[i % COLOURS.len()]
}

/// XML/HTML-escape text (the one escaper of the SVG and HTML writers).
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn text_w(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * CHAR_W * size / FONT
}

/// A signed percentage (`+4.1%`): the error of a model's figure against
/// the paper's, `x` = model / paper − 1.
pub fn pct(x: f64) -> String {
    format!("{:+.1}%", 100.0 * x)
}

/// A tick label for `v`.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 || (a >= 1.0 && (v - v.round()).abs() < 1e-9) {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        let d = (-a.log10().floor()) as usize + 1;
        let s = format!("{v:.d$}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn nice_step(range: f64) -> f64 {
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

mod frame;
use frame::{Axis, Frame, LegendMark};

/// A line chart.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    /// Title.
    pub title: String,
    /// The x axis.
    pub x: AxisSpec,
    /// The y axis.
    pub y: AxisSpec,
    /// The series.
    pub series: Vec<Series>,
    /// Horizontal references.
    pub refs: Vec<Reference>,
}

fn mark(s: &mut String, style: Style, c: &str, x: f64, y: f64, tip: &str) {
    let _ = match style {
        Style::Line => writeln!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{c}"><title>{}</title></circle>"#,
            esc(tip)
        ),
        Style::Markers => writeln!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="5" fill="white" fill-opacity="0.6" stroke="{c}" stroke-width="2"><title>{}</title></circle>"#,
            esc(tip)
        ),
        Style::Dots => writeln!(
            s,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{c}" fill-opacity="0.6"><title>{}</title></circle>"#,
            esc(tip)
        ),
        Style::Path => Ok(()),
        Style::Squares => writeln!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="{c}" stroke="black"><title>{}</title></rect>"#,
            x - 4.0,
            y - 4.0,
            esc(tip)
        ),
    };
}

/// A text beside a point of a [`LabelledChart`].
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// The point's x.
    pub x: f64,
    /// The point's y.
    pub y: f64,
    /// The text.
    pub text: String,
}

/// A [`LineChart`] with texts beside some of its points.
///
/// Each text goes beside its point — right of it, or left where it would
/// leave the picture, and above or below it, alternating, so that two
/// close points (a design online and offline) do not overprint — at the
/// first of those places (then up to three lines further up or down) that
/// overlaps no text drawn before it and crosses no line of the chart (a
/// Pareto front stays readable).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelledChart {
    /// The chart.
    pub chart: LineChart,
    /// The texts, in drawing order.
    pub labels: Vec<Label>,
    /// The size ([`Size::STANDARD`], or larger for many points).
    pub size: Size,
}

impl LabelledChart {
    /// Render as SVG.
    pub fn render(&self) -> String {
        self.chart.draw(&self.labels, self.size, false)
    }
}

/// A text's box: x from, x to, y top, y bottom (pixels).
type TextBox = (f64, f64, f64, f64);

/// A line segment in pixels: `(x1, y1, x2, y2)`.
type Segment = (f64, f64, f64, f64);

/// Whether segment `g` passes through box `b` (Liang–Barsky clipping).
fn crosses(g: &Segment, b: &TextBox) -> bool {
    let (x1, y1, x2, y2) = *g;
    let (dx, dy) = (x2 - x1, y2 - y1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, x1 - b.0),
        (dx, b.1 - x1),
        (-dy, y1 - b.2),
        (dy, b.3 - y1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    t0 <= t1
}

fn labels(s: &mut String, f: &Frame, x: &Axis, y: &Axis, labels: &[Label], lines: &[Segment]) {
    const SIZE: f64 = 11.0;
    let mut placed: Vec<TextBox> = Vec::new();
    for (k, l) in labels.iter().enumerate() {
        let (px, py) = (f.px(x, l.x), f.py(y, l.y));
        let w = text_w(&l.text, SIZE);
        // Baseline offsets: the alternating one first, then the other
        // side, then up to three lines further out on each; a place is
        // taken only if it overlaps no earlier text and no drawn line.
        let (near, far) = if k % 2 == 0 {
            (-7.0, 15.0)
        } else {
            (15.0, -7.0)
        };
        let right_fits = px + 6.0 + w <= f.w;
        let spot = |dy: f64, right: bool| -> (f64, bool, TextBox) {
            let tx = if right { px + 6.0 } else { px - 6.0 };
            let x0 = if right { tx } else { tx - w };
            (py + dy, right, (x0, x0 + w, py + dy - SIZE, py + dy + 2.0))
        };
        let sides = [right_fits, !right_fits];
        let out = [0.0, 12.0, 24.0, 36.0];
        let mut candidates = out
            .into_iter()
            .flat_map(|o| {
                let (up, down) = (-7.0 - o, 15.0 + o);
                if near < far { [up, down] } else { [down, up] }
            })
            .flat_map(|dy| sides.map(|right| spot(dy, right)))
            .filter(|&(_, _, (x0, x1, ..))| x0 >= 0.0 && x1 <= f.w);
        let free = |b: &TextBox| {
            placed
                .iter()
                .all(|p| b.1 <= p.0 || p.1 <= b.0 || b.3 <= p.2 || p.3 <= b.2)
                && !lines.iter().any(|g| crosses(g, b))
        };
        let (ty, right, b) = candidates
            .find(|(_, _, b)| free(b))
            .unwrap_or_else(|| spot(near, right_fits));
        placed.push(b);
        let (tx, anchor) = if right {
            (px + 6.0, "")
        } else {
            (px - 6.0, r#" text-anchor="end""#)
        };
        let _ = writeln!(
            s,
            r#"<text x="{tx:.1}" y="{ty:.1}" font-size="11"{anchor}>{}</text>"#,
            esc(&l.text)
        );
    }
}

impl LineChart {
    /// Render as SVG.
    pub fn render(&self) -> String {
        self.draw(&[], Size::STANDARD, false)
    }

    /// Render as SVG at `size`, each line (a [`Style::Line`] or
    /// [`Style::Path`] series with a label) named at its right end: the
    /// names stand in a column right of the plot, at their lines' last
    /// points, moved apart where they would overlap, with a thin leader
    /// from the line's end to a moved name.
    pub fn render_end_labelled(&self, size: Size) -> String {
        self.draw(&[], size, true)
    }

    /// Render as SVG at `size` with `texts` beside their points (and the
    /// lines named at their ends if `end_labels`).
    fn draw(&self, texts: &[Label], size: Size, end_labels: bool) -> String {
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let x = Axis::of(&self.x, pts().map(|p| p.0), false);
        let refs = self.refs.iter().flat_map(|r| [r.lo, r.hi]);
        let y = Axis::of(&self.y, pts().map(|p| p.1).chain(refs), true);
        let yt: Vec<String> = y.ticks().into_iter().map(tick_label).collect();
        let legend = self
            .series
            .iter()
            .filter(|s| !s.label.is_empty())
            .map(|s| {
                let m = match s.style {
                    Style::Line => LegendMark::Line(s.colour),
                    Style::Markers => LegendMark::Hollow(s.colour),
                    Style::Dots => LegendMark::Dot(s.colour),
                    Style::Path => LegendMark::Path(s.colour),
                    Style::Squares => LegendMark::Square(s.colour),
                };
                (s.label.clone(), m)
            })
            .chain(
                self.refs
                    .iter()
                    .map(|r| (r.label.clone(), LegendMark::Band(r.colour))),
            )
            .collect();
        let ends: Vec<&Series> = if end_labels {
            self.series
                .iter()
                .filter(|se| matches!(se.style, Style::Line | Style::Path))
                .filter(|se| !se.label.is_empty() && !se.points.is_empty())
                .collect()
        } else {
            Vec::new()
        };
        let end_w = ends
            .iter()
            .map(|se| text_w(&se.label, END_FONT) + 14.0)
            .fold(0.0, f64::max);
        let mut f = Frame::new(size, &yt, 0.0, 22.0, legend);
        f.plot_w -= end_w;
        let mut s = String::new();
        f.open(&mut s, &self.title, &self.x.label, &self.y.label);
        f.y_axis(&mut s, &y);
        for v in x.ticks() {
            let px = f.px(&x, v);
            let _ = writeln!(
                s,
                r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{:.1}" stroke="#f0f0f0"/><text x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                f.plot_bottom(),
                f.plot_bottom() + 18.0,
                tick_label(v)
            );
        }
        f.references(&mut s, &y, &self.refs);
        for se in &self.series {
            let c = colour(se.colour);
            if matches!(se.style, Style::Line | Style::Path) && se.points.len() > 1 {
                let d: Vec<String> = se
                    .points
                    .iter()
                    .map(|&(a, b)| format!("{:.1},{:.1}", f.px(&x, a), f.py(&y, b)))
                    .collect();
                let _ = writeln!(
                    s,
                    r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
                    d.join(" ")
                );
            }
            for (i, &(a, b)) in se.points.iter().enumerate() {
                let tip = se.tips.get(i).cloned().unwrap_or_else(|| {
                    format!("{}: {}, {}", se.label, tick_label(a), tick_label(b))
                });
                mark(&mut s, se.style, c, f.px(&x, a), f.py(&y, b), &tip);
            }
        }
        let lines: Vec<Segment> = self
            .series
            .iter()
            .filter(|se| matches!(se.style, Style::Line | Style::Path))
            .flat_map(|se| se.points.windows(2))
            .map(|w| {
                let (a, b) = (w[0], w[1]);
                (f.px(&x, a.0), f.py(&y, a.1), f.px(&x, b.0), f.py(&y, b.1))
            })
            .collect();
        labels(&mut s, &f, &x, &y, texts, &lines);
        end_names(&mut s, &f, &x, &y, &ends);
        f.legend(&mut s);
        s.push_str("</svg>\n");
        s
    }
}

/// Font size of the names at the lines' ends.
const END_FONT: f64 = 11.0;

/// The names of `ends` right of the plot, at their last points' heights,
/// pushed apart to one line each (downwards, then back up from the plot's
/// bottom), each with a leader from its line's end.
fn end_names(s: &mut String, f: &Frame, x: &Axis, y: &Axis, ends: &[&Series]) {
    const GAP: f64 = END_FONT + 3.0;
    let mut at: Vec<(f64, f64, f64, &Series)> = ends
        .iter()
        .map(|se| {
            let &(a, b) = se.points.last().expect("a point");
            let (px, py) = (f.px(x, a), f.py(y, b));
            (py, px, py, *se)
        })
        .collect();
    at.sort_by(|a, b| a.0.total_cmp(&b.0));
    for i in 1..at.len() {
        at[i].0 = at[i].0.max(at[i - 1].0 + GAP);
    }
    let bottom = f.plot_bottom();
    if let Some(last) = at.last_mut() {
        last.0 = last.0.min(bottom);
    }
    for i in (0..at.len().saturating_sub(1)).rev() {
        at[i].0 = at[i].0.min(at[i + 1].0 - GAP);
    }
    let tx = f.left + f.plot_w + 10.0;
    for (ty, px, py, se) in at {
        let c = colour(se.colour);
        let _ = writeln!(
            s,
            r#"<path d="M{px:.1},{py:.1} L{:.1},{ty:.1}" fill="none" stroke="{c}" stroke-width="0.8"/><text x="{tx:.1}" y="{:.1}" font-size="{END_FONT}" fill="{c}">{}</text>"#,
            tx - 3.0,
            ty + 4.0,
            esc(&se.label)
        );
    }
}

/// A grouped bar chart: one group per category, one bar per series, and
/// optionally the paper's value per category as a hollow marker.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// Title.
    pub title: String,
    /// Y axis label (with unit).
    pub ylabel: String,
    /// Category labels (drawn rotated under the axis).
    pub categories: Vec<String>,
    /// `(label, value per category)`.
    pub series: Vec<(String, Vec<f64>)>,
    /// Hover text per series and category (empty: the value).
    pub tips: Vec<Vec<String>>,
    /// Horizontal references (the paper's ranges).
    pub refs: Vec<Reference>,
}

/// Rotation of category labels (degrees).
const ROT: f64 = 35.0;

impl BarChart {
    /// Render as SVG.
    pub fn render(&self) -> String {
        let vals = self.series.iter().flat_map(|(_, v)| v.iter().copied());
        let refs = self.refs.iter().flat_map(|r| [r.lo, r.hi]);
        let y = Axis::new(Scale::Linear, vals.chain(refs), true);
        let yt: Vec<String> = y.ticks().into_iter().map(tick_label).collect();
        let (sin, cos) = ROT.to_radians().sin_cos();
        let longest = self
            .categories
            .iter()
            .map(|c| text_w(c, 11.0))
            .fold(0.0, f64::max);
        let n = self.categories.len().max(1) as f64;
        let legend = self
            .series
            .iter()
            .enumerate()
            .map(|(i, (l, _))| (l.clone(), LegendMark::Bar(i)))
            .chain(
                self.refs
                    .iter()
                    .map(|r| (r.label.clone(), LegendMark::Band(r.colour))),
            )
            .collect();
        // The first label, anchored at its end under the first group, runs
        // left by its width·cos: the left margin makes room for it.
        let first = self.categories.first().map_or(0.0, |c| text_w(c, 11.0));
        let mut f = Frame::new(Size::STANDARD, &yt, 0.0, longest * sin + 20.0, legend);
        let gw0 = f.plot_w / n;
        let overhang = first * cos - gw0 / 2.0;
        if overhang + 8.0 > f.left {
            f = Frame::new(
                Size::STANDARD,
                &yt,
                overhang,
                longest * sin + 20.0,
                f.legend_rows.concat(),
            );
        }
        f.no_xlabel = 1.0;
        let gw = f.plot_w / n;
        let bw = gw * 0.8 / self.series.len().max(1) as f64;
        let mut s = String::new();
        f.open(&mut s, &self.title, "", &self.ylabel);
        f.y_axis(&mut s, &y);
        f.references(&mut s, &y, &self.refs);
        let base = f.py(&y, 0.0f64.max(y.lo));
        for (ci, cat) in self.categories.iter().enumerate() {
            let gx = f.left + gw * ci as f64 + gw * 0.1;
            for (si, (label, v)) in self.series.iter().enumerate() {
                let val = v.get(ci).copied().unwrap_or(f64::NAN);
                if !val.is_finite() {
                    continue;
                }
                let top = f.py(&y, val);
                let tip = self
                    .tips
                    .get(si)
                    .and_then(|t| t.get(ci))
                    .cloned()
                    .unwrap_or_else(|| format!("{cat}, {label}: {}", tick_label(val)));
                let _ = writeln!(
                    s,
                    r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}</title></rect>"#,
                    gx + bw * si as f64,
                    top.min(base),
                    bw * 0.92,
                    (base - top).abs().max(0.5),
                    colour(si),
                    esc(&tip)
                );
            }
            let tx = f.left + gw * (ci as f64 + 0.5);
            let ty = f.plot_bottom() + 14.0;
            let _ = writeln!(
                s,
                r#"<text x="{tx:.1}" y="{ty:.1}" text-anchor="end" font-size="11" transform="rotate(-{ROT} {tx:.1} {ty:.1})">{}</text>"#,
                esc(cat)
            );
        }
        f.legend(&mut s);
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `<text>`'s estimated box lies inside the viewBox.
    fn texts_inside(svg: &str) {
        let size = |k: &str| -> f64 {
            svg.split(&format!("{k}=\""))
                .nth(1)
                .and_then(|t| t.split('"').next())
                .and_then(|t| t.parse().ok())
                .expect("the picture's size")
        };
        let (pw, h) = (size("width"), size("height"));
        for part in svg.split("<text ").skip(1) {
            let attr = |k: &str| -> Option<f64> {
                part.split(&format!(" {k}=\""))
                    .nth(1)
                    .or_else(|| part.strip_prefix(&format!("{k}=\"")))
                    .and_then(|t| t.split('"').next())
                    .and_then(|t| t.parse().ok())
            };
            let (x, y) = (attr("x").expect("x"), attr("y").expect("y"));
            let body = part
                .split('>')
                .nth(1)
                .unwrap_or("")
                .split('<')
                .next()
                .unwrap_or("");
            let size = attr("font-size").unwrap_or(FONT);
            let w = text_w(body, size);
            let (x0, x1) = if part.contains("text-anchor=\"end\"") {
                (x - w, x)
            } else if part.contains("text-anchor=\"middle\"") {
                (x - w / 2.0, x + w / 2.0)
            } else {
                (x, x + w)
            };
            if part.contains("rotate(-90") {
                assert!(y - w / 2.0 >= 0.0 && y + w / 2.0 <= h, "{body}");
                continue;
            }
            if part.contains("rotate(-") {
                let (sin, cos) = ROT.to_radians().sin_cos();
                assert!(x - w * cos >= 0.0, "rotated label cut at the left: {body}");
                assert!(y + w * sin <= h, "rotated label cut at the bottom: {body}");
                continue;
            }
            assert!(
                x0 >= 0.0 && x1 <= pw + 0.5,
                "text outside: {body} {x0}..{x1}"
            );
            assert!(y <= h && y >= size * 0.7, "text outside: {body} y {y}");
        }
    }

    #[test]
    fn log_axes_tick_only_inside_and_labels_fit() {
        let c = LineChart {
            title: "t".into(),
            x: AxisSpec::new("cores", Scale::Log2),
            y: AxisSpec::new("Gbit/s", Scale::Log10),
            series: vec![Series {
                label: "a<b".into(),
                points: vec![(6.0, 0.05), (12.0, 0.1), (26.0, 0.2), (428.0, 8.8)],
                style: Style::Line,
                colour: 0,
                tips: vec![],
            }],
            refs: vec![],
        };
        let svg = c.render();
        assert!(svg.contains("a&lt;b"));
        let x = Axis::new(Scale::Log2, [6.0, 428.0].into_iter(), false);
        assert!(x.ticks().iter().all(|&t| (x.lo..=x.hi).contains(&t)));
        assert_eq!(x.ticks().first(), Some(&4.0));
        texts_inside(&svg);
    }

    #[test]
    fn scatter_with_path_squares_labels_and_fixed_range() {
        let c = LabelledChart {
            chart: LineChart {
                title: "t".into(),
                x: AxisSpec::new("cores", Scale::Log10).with_range(5.0, 200.0),
                y: AxisSpec::new("Gbit/s", Scale::Log10).with_range(0.04, 0.9),
                series: vec![
                    Series {
                        label: "designs".into(),
                        points: vec![(6.0, 0.05), (40.0, 0.3), (190.0, 0.8)],
                        style: Style::Dots,
                        colour: 0,
                        tips: vec![],
                    },
                    Series {
                        label: "front".into(),
                        points: vec![(6.0, 0.05), (190.0, 0.05), (190.0, 0.8)],
                        style: Style::Path,
                        colour: 3,
                        tips: vec![],
                    },
                    Series {
                        label: "named".into(),
                        points: vec![(190.0, 0.8)],
                        style: Style::Squares,
                        colour: 2,
                        tips: vec!["A long name <x>".into()],
                    },
                ],
                refs: vec![],
            },
            labels: vec![Label {
                x: 190.0,
                y: 0.8,
                text: "A long name <x>".into(),
            }],
            size: Size {
                width: 900.0,
                plot_height: 490.0,
            },
        };
        let svg = c.render();
        // Three dots, no marker on the path, one square: the ticks are the
        // 1-2-5 steps inside the given range, not a range fitted to the data.
        assert_eq!(svg.matches("fill-opacity=\"0.6\"><title>").count(), 3);
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches("stroke=\"black\"><title>").count(), 1);
        assert!(svg.contains(">A long name &lt;x&gt;</text>"));
        assert!(svg.contains(">5</text>") && svg.contains(">200</text>"));
        assert!(!svg.contains(">1</text>") && !svg.contains(">500</text>"));
        assert!(svg.contains(">0.05</text>") && !svg.contains(">0.02</text>"));
        // The label near the right edge is drawn to the left of its point.
        assert!(svg.contains("font-size=\"11\" text-anchor=\"end\">A long"));
        assert!(svg.contains(r#"width="900" height="614""#));
        texts_inside(&svg);
    }

    /// Texts at one point, and at two points a pixel apart, take
    /// different places: no two of their boxes overlap.
    #[test]
    fn labels_at_close_points_do_not_overprint() {
        let dot = |x: f64, y: f64, text: &str| Label {
            x,
            y,
            text: text.into(),
        };
        let c = LabelledChart {
            chart: LineChart {
                title: "t".into(),
                x: AxisSpec::new("x", Scale::Log10).with_range(1.0, 100.0),
                y: AxisSpec::new("y", Scale::Log10).with_range(1.0, 100.0),
                series: vec![Series {
                    label: "s".into(),
                    points: vec![(10.0, 10.0), (10.1, 10.0)],
                    style: Style::Dots,
                    colour: 0,
                    tips: vec![],
                }],
                refs: vec![],
            },
            labels: vec![
                dot(10.0, 10.0, "first label"),
                dot(10.0, 10.0, "second label"),
                dot(10.1, 10.0, "third label"),
                dot(10.1, 10.0, "fourth label"),
            ],
            size: Size::STANDARD,
        };
        let svg = c.render();
        let boxes = boxes_of(&svg, " label</text>");
        assert_eq!(boxes.len(), 4, "{svg}");
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[..i] {
                let apart = a.1 <= b.0 || b.1 <= a.0 || a.3 <= b.2 || b.3 <= a.2;
                assert!(apart, "{a:?} overlaps {b:?}");
            }
        }
        texts_inside(&svg);
    }

    #[test]
    fn long_rotated_categories_are_not_cut() {
        let cats: Vec<String> = [
            "Parallel-SubBytes-MixColumns",
            "Small",
            "Loop-unrolled-Nine",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let b = BarChart {
            title: "t".into(),
            ylabel: "saving (%)".into(),
            categories: cats,
            series: vec![("model".into(), vec![3.0, 40.0, 20.0])],
            tips: vec![],
            refs: vec![Reference {
                label: "paper range".into(),
                lo: 35.0,
                hi: 55.0,
                colour: 3,
            }],
        };
        let svg = b.render();
        assert!(svg.contains("<rect") && svg.contains("saving (%)"));
        texts_inside(&svg);
    }

    #[test]
    fn a_log_axis_under_a_decade_has_at_least_four_ticks() {
        for (lo, hi) in [
            (1.4, 6.0),
            (1.5, 4.5),
            (2.0, 5.0),
            (0.3, 0.9),
            (1.0, 1000.0),
        ] {
            let a = Axis::new(Scale::Log10, [lo, hi].into_iter(), false);
            let t = a.ticks();
            assert!(t.len() >= 4, "{lo}..{hi}: {t:?}");
            assert!(t.iter().all(|&v| (a.lo..=a.hi).contains(&v)), "{t:?}");
        }
    }

    fn boxes_of(svg: &str, marker: &str) -> Vec<TextBox> {
        svg.lines()
            .filter(|l| l.contains(marker) && l.contains("<text"))
            .map(|l| {
                let l = &l[l.find("<text").unwrap()..];
                let num = |key: &str| -> f64 {
                    let v = &l[l.find(key).unwrap() + key.len()..];
                    v[..v.find('"').unwrap()].parse().unwrap()
                };
                let (x, y) = (num(" x=\""), num(" y=\""));
                let text = &l[l.rfind("\">").unwrap() + 2..l.find("</text>").unwrap()];
                let w = text_w(text, 11.0);
                let x0 = if l.contains("text-anchor=\"end\"") {
                    x - w
                } else {
                    x
                };
                (x0, x0 + w, y - 11.0, y + 2.0)
            })
            .collect()
    }

    /// A label whose first place lies on the front goes elsewhere.
    #[test]
    fn labels_keep_off_the_lines() {
        let front = vec![(1.0, 10.0), (10.0, 10.0), (10.0, 100.0)];
        let c = LabelledChart {
            chart: LineChart {
                title: "t".into(),
                x: AxisSpec::new("x", Scale::Log10).with_range(1.0, 100.0),
                y: AxisSpec::new("y", Scale::Log10).with_range(1.0, 100.0),
                series: vec![Series {
                    label: "front".into(),
                    points: front.clone(),
                    style: Style::Path,
                    colour: 3,
                    tips: vec![],
                }],
                refs: vec![],
            },
            labels: vec![
                Label {
                    x: 3.0,
                    y: 9.0,
                    text: "on the front".into(),
                },
                Label {
                    x: 9.0,
                    y: 30.0,
                    text: "on the riser".into(),
                },
            ],
            size: Size::STANDARD,
        };
        let svg = c.render();
        let (f, x, y) = {
            let yt: Vec<String> = vec!["100".into()];
            let f = Frame::new(
                Size::STANDARD,
                &yt,
                0.0,
                22.0,
                vec![("front".into(), LegendMark::Path(3))],
            );
            let x = Axis::of(&c.chart.x, std::iter::empty(), false);
            let y = Axis::of(&c.chart.y, std::iter::empty(), true);
            (f, x, y)
        };
        let segs: Vec<Segment> = front
            .windows(2)
            .map(|w| {
                (
                    f.px(&x, w[0].0),
                    f.py(&y, w[0].1),
                    f.px(&x, w[1].0),
                    f.py(&y, w[1].1),
                )
            })
            .collect();
        let boxes = boxes_of(&svg, ">on the ");
        assert_eq!(boxes.len(), 2, "{svg}");
        for b in &boxes {
            assert!(
                !segs.iter().any(|g| crosses(g, b)),
                "{b:?} crosses the front"
            );
        }
        texts_inside(&svg);
    }

    #[test]
    fn lines_are_named_at_their_ends_without_overlap() {
        let line = |label: &str, end: f64, colour: usize| Series {
            label: label.into(),
            points: vec![(0.7, 0.5), (1.3, end)],
            style: Style::Line,
            colour,
            tips: vec![],
        };
        let c = LineChart {
            title: "t".into(),
            x: AxisSpec::new("Vdd (V)", Scale::Linear),
            y: AxisSpec::new("nJ/bit", Scale::Linear),
            series: (0..8)
                .map(|i| line(&format!("Engine number {i}"), 1.6 + 0.02 * i as f64, i))
                .collect(),
            refs: vec![],
        };
        let svg = c.render_end_labelled(Size::STANDARD);
        // The names at the ends: each drawn after its leader.
        let leaders: Vec<&str> = svg.lines().filter(|l| l.starts_with("<path d=")).collect();
        let ends = boxes_of(&leaders.join("\n"), ">Engine number");
        assert_eq!(ends.len(), 8, "{svg}");
        for (i, a) in ends.iter().enumerate() {
            for b in &ends[..i] {
                assert!(a.3 <= b.2 || b.3 <= a.2, "{a:?} overlaps {b:?}");
            }
        }
        texts_inside(&svg);
    }
}
