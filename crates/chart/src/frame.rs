//! Axes and the picture's frame: scales, ticks, margins and the legend.

use std::fmt::Write;

use super::{
    AxisSpec, FONT, RIGHT, Reference, Scale, Size, TOP, colour, esc, nice_step, text_w, tick_label,
};

/// One axis mapped onto pixels.
#[derive(Clone, Copy, Debug)]
pub(super) struct Axis {
    pub(super) scale: Scale,
    pub(super) lo: f64,
    pub(super) hi: f64,
}

impl Axis {
    /// The axis `spec` describes: its fixed range, or fitted to `vals`.
    pub(super) fn of(spec: &AxisSpec, vals: impl Iterator<Item = f64>, from_zero: bool) -> Axis {
        match spec.range {
            Some((lo, hi)) => Axis {
                scale: spec.scale,
                lo,
                hi: if hi > lo { hi } else { lo + 1.0 },
            },
            None => Axis::new(spec.scale, vals, from_zero),
        }
    }

    pub(super) fn new(scale: Scale, vals: impl Iterator<Item = f64>, from_zero: bool) -> Axis {
        let pos = !matches!(scale, Scale::Linear);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in vals.filter(|v| v.is_finite() && (!pos || *v > 0.0)) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (lo, hi) = (1.0, 2.0);
        }
        match scale {
            Scale::Linear => {
                if from_zero {
                    lo = lo.min(0.0);
                }
                let pad = (hi - lo).max(hi.abs() * 0.1).max(1e-9) * 0.08;
                hi += pad;
                if !from_zero {
                    lo -= pad;
                }
            }
            Scale::Log2 => {
                lo = 2f64.powf(lo.log2().floor());
                hi = 2f64.powf(hi.log2().ceil());
            }
            Scale::Log10 => {
                // Snap to 1-2-5 steps, not whole decades: no empty decade.
                let steps = |v: f64| {
                    let d = 10f64.powf(v.log10().floor());
                    [d, 2.0 * d, 5.0 * d, 10.0 * d]
                };
                lo = steps(lo)
                    .into_iter()
                    .rev()
                    .find(|&s| s <= lo * (1.0 + 1e-9))
                    .unwrap_or(lo);
                hi = steps(hi)
                    .into_iter()
                    .find(|&s| s >= hi * (1.0 - 1e-9))
                    .unwrap_or(hi);
            }
        }
        if hi <= lo {
            hi = lo + 1.0;
        }
        Axis { scale, lo, hi }
    }

    pub(super) fn t(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => v,
            _ => v.max(1e-300).ln(),
        }
    }

    /// Fraction 0..1 along the axis.
    pub(super) fn frac(&self, v: f64) -> f64 {
        (self.t(v) - self.t(self.lo)) / (self.t(self.hi) - self.t(self.lo))
    }

    pub(super) fn ticks(&self) -> Vec<f64> {
        let inside = |v: &f64| *v >= self.lo * (1.0 - 1e-9) && *v <= self.hi * (1.0 + 1e-9);
        let mut out = Vec::new();
        match self.scale {
            Scale::Linear => {
                let st = nice_step(self.hi - self.lo);
                let mut v = (self.lo / st).ceil() * st;
                while v <= self.hi + st * 1e-9 {
                    out.push(if v.abs() < st * 1e-9 { 0.0 } else { v });
                    v += st;
                }
            }
            Scale::Log2 => {
                let mut v = self.lo;
                while v <= self.hi * (1.0 + 1e-9) {
                    out.push(v);
                    v *= 2.0;
                }
            }
            Scale::Log10 => {
                // Decades, then 1-2-5, then every digit: the first that
                // gives at least four ticks inside the range. Under a
                // decade with fewer, linear steps (1.5, 2, 2.5, 3 …).
                let decades = (self.hi / self.lo).log10();
                let sets: [&[f64]; 3] = [
                    &[1.0],
                    &[1.0, 2.0, 5.0],
                    &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
                ];
                for (i, mults) in sets.into_iter().enumerate() {
                    if i == 0 && decades <= 3.0 {
                        continue;
                    }
                    out.clear();
                    let mut d = 10f64.powf(self.lo.log10().floor());
                    while d <= self.hi * (1.0 + 1e-9) {
                        out.extend(mults.iter().map(|m| m * d));
                        d *= 10.0;
                    }
                    out.retain(inside);
                    if out.len() >= 4 {
                        break;
                    }
                }
                if out.len() < 4 {
                    let st = nice_step(self.hi - self.lo);
                    out.clear();
                    let mut v = (self.lo / st).ceil() * st;
                    while v <= self.hi + st * 1e-9 {
                        out.push(v);
                        v += st;
                    }
                }
            }
        }
        out.retain(inside);
        out
    }
}

/// The picture's frame: margins computed from the labels.
pub(super) struct Frame {
    /// Width of the picture.
    pub(super) w: f64,
    /// Height of the plot area.
    pub(super) plot_h: f64,
    pub(super) left: f64,
    pub(super) bottom_labels: f64,
    pub(super) plot_w: f64,
    pub(super) legend_rows: Vec<Vec<(String, LegendMark)>>,
    /// 1 when the chart has no x-axis label (bar charts), else 0.
    pub(super) no_xlabel: f64,
}

#[derive(Clone, Copy)]
pub(super) enum LegendMark {
    Line(usize),
    Hollow(usize),
    Band(usize),
    Bar(usize),
    Dot(usize),
    Path(usize),
    Square(usize),
}

impl Frame {
    pub(super) fn new(
        size: Size,
        y_ticks: &[String],
        left_overhang: f64,
        bottom_labels: f64,
        legend: Vec<(String, LegendMark)>,
    ) -> Frame {
        let widest = y_ticks.iter().map(|t| text_w(t, FONT)).fold(0.0, f64::max);
        let left = (widest + 40.0).max(left_overhang + 8.0).max(60.0);
        let w = size.width;
        let plot_w = w - left - RIGHT;
        // Legend: rows of entries, wrapped to the picture's width.
        let mut rows: Vec<Vec<(String, LegendMark)>> = vec![Vec::new()];
        let mut x = 0.0;
        for (label, m) in legend {
            let lw = 26.0 + text_w(&label, FONT) + 18.0;
            if x + lw > w - 20.0 && !rows.last().expect("a row").is_empty() {
                rows.push(Vec::new());
                x = 0.0;
            }
            x += lw;
            rows.last_mut().expect("a row").push((label, m));
        }
        Frame {
            w,
            plot_h: size.plot_height,
            left,
            bottom_labels,
            plot_w,
            legend_rows: rows,
            no_xlabel: 0.0,
        }
    }

    pub(super) fn plot_bottom(&self) -> f64 {
        TOP + self.plot_h
    }

    pub(super) fn height(&self) -> f64 {
        self.plot_bottom() + self.bottom_labels + 30.0 - self.no_xlabel * 18.0
            + 20.0 * self.legend_rows.len() as f64
            + 8.0
    }

    pub(super) fn open(&self, s: &mut String, title: &str, xlabel: &str, ylabel: &str) {
        let (w, h) = (self.w, self.height());
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{w}" height="{h:.0}" viewBox="0 0 {w} {h:.0}" font-family="sans-serif" font-size="{FONT}">"#
        );
        let _ = writeln!(s, r#"<rect width="{w}" height="{h:.0}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="14" font-weight="bold">{}</text>"#,
            w / 2.0,
            esc(title)
        );
        let cy = TOP + self.plot_h / 2.0;
        let _ = writeln!(
            s,
            r#"<text x="16" y="{cy}" text-anchor="middle" transform="rotate(-90 16 {cy})">{}</text>"#,
            esc(ylabel)
        );
        if !xlabel.is_empty() {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                self.left + self.plot_w / 2.0,
                self.plot_bottom() + self.bottom_labels + 18.0,
                esc(xlabel)
            );
        }
    }

    pub(super) fn y_axis(&self, s: &mut String, y: &Axis) {
        for v in y.ticks() {
            let py = self.py(y, v);
            let _ = writeln!(
                s,
                r##"<line x1="{:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#e3e3e3"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                self.left,
                self.left + self.plot_w,
                self.left - 6.0,
                py + 4.0,
                tick_label(v)
            );
        }
        let b = self.plot_bottom();
        let _ = writeln!(
            s,
            r#"<path d="M{l:.1},{TOP} V{b:.1} H{r:.1}" fill="none" stroke="black"/>"#,
            l = self.left,
            r = self.left + self.plot_w
        );
    }

    pub(super) fn py(&self, y: &Axis, v: f64) -> f64 {
        self.plot_bottom() - y.frac(v) * self.plot_h
    }

    pub(super) fn px(&self, x: &Axis, v: f64) -> f64 {
        self.left + x.frac(v) * self.plot_w
    }

    pub(super) fn references(&self, s: &mut String, y: &Axis, refs: &[Reference]) {
        for r in refs {
            let (a, b) = (self.py(y, r.hi), self.py(y, r.lo));
            let c = colour(r.colour);
            let tip = if r.lo == r.hi {
                format!("{}: {}", r.label, tick_label(r.lo))
            } else {
                format!("{}: {}–{}", r.label, tick_label(r.lo), tick_label(r.hi))
            };
            if (b - a).abs() < 1.0 {
                let _ = writeln!(
                    s,
                    r#"<line x1="{:.1}" y1="{a:.1}" x2="{:.1}" y2="{a:.1}" stroke="{c}" stroke-width="2" stroke-dasharray="6 4"><title>{}</title></line>"#,
                    self.left,
                    self.left + self.plot_w,
                    esc(&tip)
                );
            } else {
                let _ = writeln!(
                    s,
                    r#"<rect x="{:.1}" y="{a:.1}" width="{:.1}" height="{:.1}" fill="{c}" fill-opacity="0.15" stroke="{c}" stroke-dasharray="6 4"><title>{}</title></rect>"#,
                    self.left,
                    self.plot_w,
                    b - a,
                    esc(&tip)
                );
            }
        }
    }

    pub(super) fn legend(&self, s: &mut String) {
        let mut y = self.plot_bottom() + self.bottom_labels + 40.0 - self.no_xlabel * 18.0;
        for row in &self.legend_rows {
            let total: f64 = row.iter().map(|(l, _)| 26.0 + text_w(l, FONT) + 18.0).sum();
            let mut x = ((self.w - total) / 2.0).max(10.0);
            for (label, m) in row {
                let mark = match *m {
                    LegendMark::Line(c) => format!(
                        r#"<line x1="{x:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="2"/><circle cx="{:.1}" cy="{:.1}" r="3" fill="{}"/>"#,
                        y - 4.0,
                        x + 20.0,
                        y - 4.0,
                        colour(c),
                        x + 10.0,
                        y - 4.0,
                        colour(c)
                    ),
                    LegendMark::Hollow(c) => format!(
                        r#"<circle cx="{:.1}" cy="{:.1}" r="4.5" fill="white" stroke="{}" stroke-width="2"/>"#,
                        x + 10.0,
                        y - 4.0,
                        colour(c)
                    ),
                    LegendMark::Band(c) => format!(
                        r#"<rect x="{x:.1}" y="{:.1}" width="20" height="10" fill="{}" fill-opacity="0.15" stroke="{}" stroke-dasharray="4 2"/>"#,
                        y - 9.0,
                        colour(c),
                        colour(c)
                    ),
                    LegendMark::Bar(c) => format!(
                        r#"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="{}"/>"#,
                        x + 4.0,
                        y - 10.0,
                        colour(c)
                    ),
                    LegendMark::Dot(c) => format!(
                        r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{}" fill-opacity="0.6"/>"#,
                        x + 10.0,
                        y - 4.0,
                        colour(c)
                    ),
                    LegendMark::Path(c) => format!(
                        r#"<line x1="{x:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="2"/>"#,
                        y - 4.0,
                        x + 20.0,
                        y - 4.0,
                        colour(c)
                    ),
                    LegendMark::Square(c) => format!(
                        r#"<rect x="{:.1}" y="{:.1}" width="8" height="8" fill="{}" stroke="black"/>"#,
                        x + 6.0,
                        y - 8.0,
                        colour(c)
                    ),
                };
                let _ = writeln!(
                    s,
                    r#"<g class="legend">{mark}<text x="{:.1}" y="{y:.1}">{}</text></g>"#,
                    x + 26.0,
                    esc(label)
                );
                x += 26.0 + text_w(label, FONT) + 18.0;
            }
            y += 20.0;
        }
    }
}
