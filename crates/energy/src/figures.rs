//! The study's figures as SVG: Figs. 12, 14, 15 and the DVFS savings, each
//! with the paper's values (hollow markers, shaded ranges) beside the
//! model's and the error in every hover text.

use std::path::{Path, PathBuf};

use aesflow_designs::Engine;

use crate::chart::pct;
use crate::chart::{AxisSpec, BarChart, LineChart, Reference, Scale, Series, Style, tick_label};
use crate::paper::{FIG14_NO_MERGE, FIG15_RANGE, TALK_DVFS};
use crate::study::Study;

/// One drawn figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// File name when written (`fig12_throughput_vs_cores.svg`, …).
    pub file: &'static str,
    /// Short caption.
    pub caption: String,
    /// The SVG.
    pub svg: String,
}

/// Colour of the paper's legend entry (grey).
const PAPER: usize = 7;

fn err(model: f64, paper: f64) -> String {
    pct(model / paper - 1.0)
}

/// The paper's 1× throughput of an offline engine at 1.2 GHz (Table 2's
/// cycles per byte) and its offline core count.
pub fn paper_fig12(e: Engine) -> (usize, f64) {
    let p = aesflow_designs::report::paper(e);
    (p.cores[1], 1.2 * 8.0 / p.cycles_per_byte)
}

fn fig12(s: &Study) -> Figure {
    let mut series = Vec::new();
    for (i, (e, pts)) in s.fig12.iter().enumerate() {
        let (pc, pg) = paper_fig12(*e);
        series.push(Series {
            label: e.name().into(),
            points: pts.iter().map(|p| (p.cores as f64, p.gbps)).collect(),
            style: Style::Line,
            colour: i,
            tips: pts
                .iter()
                .map(|p| {
                    let paper = if p.copies == 1 {
                        format!("; paper {pc} cores, {pg:.3} Gbit/s ({})", err(p.gbps, pg))
                    } else {
                        String::new()
                    };
                    format!(
                        "{} {}x: {} cores, {:.3} Gbit/s{paper}",
                        e.name(),
                        p.copies,
                        p.cores,
                        p.gbps
                    )
                })
                .collect(),
        });
        series.push(Series {
            label: String::new(),
            points: vec![(pc as f64, pg)],
            style: Style::Markers,
            colour: i,
            tips: vec![format!(
                "{} paper 1x (Table 2): {pc} cores, {pg:.3} Gbit/s; model {}",
                e.name(),
                err(pts[0].gbps, pg)
            )],
        });
    }
    series.push(Series {
        label: "paper 1x (Table 2), same colour as the engine".into(),
        points: vec![],
        style: Style::Markers,
        colour: PAPER,
        tips: vec![],
    });
    Figure {
        file: "fig12_throughput_vs_cores.svg",
        caption: "Fig. 12: offline engines duplicated 1x, 2x, 4x at 1.2 GHz (log-log)".into(),
        svg: LineChart {
            title: "Fig. 12: throughput vs cores, offline engines 1x/2x/4x (1.2 GHz)".into(),
            x: AxisSpec::new("cores (log scale)", Scale::Log2),
            y: AxisSpec::new("throughput (Gbit/s, log scale)", Scale::Log10),
            series,
            refs: vec![],
        }
        .render(),
    }
}

fn fig14(s: &Study) -> Figure {
    let mut series: Vec<Series> = s
        .fig14
        .iter()
        .enumerate()
        .map(|(i, (e, pts))| Series {
            label: e.name().into(),
            points: pts.clone(),
            style: Style::Line,
            colour: i,
            tips: vec![],
        })
        .collect();
    let nm = s.fig14.iter().position(|(e, _)| *e == Engine::NoMerge);
    if let Some(i) = nm {
        let pts = &s.fig14[i].1;
        let (lo, hi) = FIG14_NO_MERGE;
        let model_lo = pts.first().map_or(f64::NAN, |p| p.1);
        let model_hi = pts.last().map_or(f64::NAN, |p| p.1);
        series.push(Series {
            label: "paper: No-merge at 0.675 V and 1.3 V (§6.3)".into(),
            points: vec![(0.675, lo), (1.3, hi)],
            style: Style::Markers,
            colour: i,
            tips: vec![
                format!(
                    "paper No-merge 0.675 V: {lo} nJ/bit; model {model_lo:.3} ({})",
                    err(model_lo, lo)
                ),
                format!(
                    "paper No-merge 1.3 V: {hi} nJ/bit; model {model_hi:.3} ({})",
                    err(model_hi, hi)
                ),
            ],
        });
    }
    Figure {
        file: "fig14_energy_vs_vdd.svg",
        caption: "Fig. 14: energy per bit vs supply voltage, offline engines at f_max(Vdd)".into(),
        svg: LineChart {
            title: "Fig. 14: energy per bit vs supply (offline engines, each at f_max(Vdd))".into(),
            x: AxisSpec::new("supply voltage Vdd (V)", Scale::Linear),
            y: AxisSpec::new("energy per bit (nJ/bit)", Scale::Linear),
            series,
            refs: vec![],
        }
        .render_end_labelled(crate::chart::Size::STANDARD),
    }
}

fn fig15(s: &Study) -> Figure {
    let (lo, hi) = FIG15_RANGE;
    let ovh: Vec<f64> = Engine::ALL.iter().map(|&e| 100.0 * s.overhead(e)).collect();
    let tips = Engine::ALL
        .iter()
        .zip(&ovh)
        .map(|(e, &v)| {
            let where_ = if v < lo {
                format!("{:.1} points below", lo - v)
            } else if v > hi {
                format!("{:.1} points above", v - hi)
            } else {
                "inside".into()
            };
            format!(
                "{}: model {v:.1}%; paper range {lo}-{hi}%: {where_}",
                e.name()
            )
        })
        .collect();
    Figure {
        file: "fig15_online_overhead.svg",
        caption: "Fig. 15: energy overhead of online key expansion".into(),
        svg: BarChart {
            title: "Fig. 15: extra energy of online vs offline key expansion (1.3 V)".into(),
            ylabel: "extra energy per bit (%)".into(),
            categories: Engine::ALL.iter().map(|e| e.name().to_string()).collect(),
            series: vec![("model".into(), ovh)],
            tips: vec![tips],
            refs: vec![Reference {
                label: format!("paper: {lo}-{hi}% (§6.3)"),
                lo,
                hi,
                colour: 3,
            }],
        }
        .render(),
    }
}

fn dvfs(s: &Study) -> Figure {
    let mut labels = Vec::new();
    let mut fsv = Vec::new();
    let mut dsv = Vec::new();
    let mut ftip = Vec::new();
    let mut dtip = Vec::new();
    let t = TALK_DVFS;
    for r in &s.engines {
        let name = format!("{} ({})", r.engine.slug(), r.expansion.name());
        let f = 100.0 * r.dvfs.freq_saving();
        let d = 100.0 * r.dvfs.dual_saving();
        ftip.push(format!(
            "{name}, frequency scaling: {f:.1}% saved (talk: mean {}%, best {}%)",
            tick_label(t.freq_mean),
            tick_label(t.freq_best)
        ));
        dtip.push(format!(
            "{name}, + dual supply ({:.3} V): {d:.1}% saved (talk: mean {}%, best {}%)",
            r.dvfs.v_low,
            tick_label(t.dual_mean),
            tick_label(t.dual_best)
        ));
        labels.push(name);
        fsv.push(f);
        dsv.push(d);
    }
    Figure {
        file: "dvfs_power_saving.svg",
        caption: "Per-core DVFS: power saved at unchanged throughput".into(),
        svg: BarChart {
            title: "Per-core DVFS: power saved at unchanged throughput (1.3 V, 1.2 GHz critical)"
                .into(),
            ylabel: "power saved (%)".into(),
            categories: labels,
            series: vec![
                ("frequency scaling".into(), fsv),
                ("frequency + dual supply".into(), dsv),
            ],
            tips: vec![ftip, dtip],
            refs: vec![
                Reference {
                    label: format!(
                        "talk, frequency: mean-best {}-{}%",
                        t.freq_mean, t.freq_best
                    ),
                    lo: t.freq_mean,
                    hi: t.freq_best,
                    colour: 0,
                },
                Reference {
                    label: format!("talk, dual supply: {}-{}%", t.dual_mean, t.dual_best),
                    lo: t.dual_mean,
                    hi: t.dual_best,
                    colour: 1,
                },
            ],
        }
        .render(),
    }
}

/// The file names [`write_charts`] writes.
pub const FILES: [&str; 4] = [
    "fig12_throughput_vs_cores.svg",
    "fig14_energy_vs_vdd.svg",
    "fig15_online_overhead.svg",
    "dvfs_power_saving.svg",
];

/// Figs. 12, 14, 15 and the DVFS savings.
pub fn figures(s: &Study) -> Vec<Figure> {
    vec![fig12(s), fig14(s), fig15(s), dvfs(s)]
}

/// Write [`figures`] into `dir` (created if needed); returns the paths.
pub fn write_charts(s: &Study, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::new();
    for f in figures(s) {
        let p = dir.join(f.file);
        std::fs::write(&p, f.svg)?;
        out.push(p);
    }
    Ok(out)
}
