//! The explorer's scatter charts: every design a point, the Pareto front a
//! line, the paper's designs labelled, both axes logarithmic. The data is
//! kept here ([`Scatter`]); the drawing is the SVG chart crate
//! ([`aesflow_chart`]), which [`render`] hands it to.

use aesflow_chart::{AxisSpec, Label, LabelledChart, LineChart, Scale, Series, Size, Style};

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

/// The range of a logarithmic axis over `vals`: the positive values'
/// range widened by 1.3 each way and spanning at least a factor of 3.
fn log_range(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        (lo, hi) = (1.0, 10.0);
    }
    let lo = lo / 1.3;
    (lo, (hi * 1.3).max(lo * 3.0))
}

/// A logarithmic axis labelled `label` over the range of `vals`.
fn log_axis(label: &str, vals: impl Iterator<Item = f64>) -> AxisSpec {
    let (lo, hi) = log_range(vals);
    AxisSpec::new(format!("{label} (log scale)"), Scale::Log10).with_range(lo, hi)
}

/// The chart as the energy chart module draws it: the designs as dots,
/// the front as a red line, the paper's designs as labelled green squares,
/// on a 900 px wide picture with a 490 px plot.
pub fn chart(c: &Scatter) -> LabelledChart {
    let (labelled, plain): (Vec<&Dot>, Vec<&Dot>) = c.dots.iter().partition(|d| d.label.is_some());
    let series = |label: &str, points: Vec<(f64, f64)>, style, colour, tips| Series {
        label: label.into(),
        points,
        style,
        colour,
        tips,
    };
    let text = |d: &Dot| d.label.clone().unwrap_or_default();
    LabelledChart {
        chart: LineChart {
            title: c.title.clone(),
            x: log_axis(&c.xlabel, c.dots.iter().map(|d| d.x)),
            y: log_axis(&c.ylabel, c.dots.iter().map(|d| d.y)),
            series: vec![
                series(
                    "designs",
                    plain.iter().map(|d| (d.x, d.y)).collect(),
                    Style::Dots,
                    0,
                    vec![],
                ),
                series("Pareto front", c.front.clone(), Style::Path, 3, vec![]),
                series(
                    "the paper's designs",
                    labelled.iter().map(|d| (d.x, d.y)).collect(),
                    Style::Squares,
                    2,
                    labelled.iter().map(|d| text(d)).collect(),
                ),
            ],
            refs: vec![],
        },
        labels: labelled
            .iter()
            .map(|d| Label {
                x: d.x,
                y: d.y,
                text: text(d),
            })
            .collect(),
        // Larger than the energy study's charts: hundreds of points and
        // sixteen labels.
        size: Size {
            width: 900.0,
            plot_height: 490.0,
        },
    }
}

/// Render the chart as an SVG document.
pub fn render(c: &Scatter) -> String {
    chart(c).render()
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
        // One dot (the legend's dot has no <title>), one square.
        assert_eq!(s.matches("<circle").count(), 2);
        assert_eq!(s.matches("<title>Full</title>").count(), 1);
        // The axes span the data widened by 1.3 (at least a factor 3).
        assert_eq!(
            log_range([8.0, 137.0].into_iter()),
            (8.0 / 1.3, 137.0 * 1.3)
        );
        assert_eq!(log_range([2.0].into_iter()), (2.0 / 1.3, 2.0 / 1.3 * 3.0));
    }
}
