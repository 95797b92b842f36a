//! The paper's tables and figures beside the model's: Table 2 (three key
//! sizes), the energy checks, Tables 4 and 5, the per-engine energy and
//! DVFS, Figs. 12, 14, 15, and the design-space front.

use std::fmt::Write;

use aesflow_array::Platform;
use aesflow_chart::{AxisSpec, LineChart, Scale, Series, Style};
use aesflow_cipher::KeySize;
use aesflow_designs::report::{Row, table2};
use aesflow_designs::{Engine, Expansion};
use aesflow_energy::paper::{PAPER_TABLE4, paper_kind};

use crate::html::{Cell, Table, esc, figure};
use crate::{Collected, ReportError};

/// Table 2 for AES-128, -192 and -256, `blocks` blocks per engine.
pub fn table2_all(
    blocks: usize,
    progress: &(dyn Fn(&str, usize, usize) + Sync),
) -> Result<Vec<Vec<Row>>, ReportError> {
    let p = Platform::default();
    let mut out = Vec::new();
    for (i, key) in KeySize::ALL.into_iter().enumerate() {
        progress("Table 2", i, 3);
        out.push(
            table2(key, blocks, &p).map_err(|message| ReportError::Table2 {
                key: key.bits(),
                message: message.to_string(),
            })?,
        );
    }
    progress("Table 2", 3, 3);
    Ok(out)
}

fn colour_key() -> &'static str {
    r#"<p class="legend key">Error = model / paper − 1: <span class="err-ok">within ±5%</span><span class="err-mid">within ±15%</span><span class="err-bad">beyond ±15%</span>. Click a column header to sort (with scripts on); hover a header for its meaning.</p>"#
}

/// The headline: every figure the paper prints, beside the model.
pub fn summary(c: &Collected) -> String {
    let mut t = Table::new(
        "checks",
        "Paper vs model: every energy figure (AES-128)",
        &[
            ("figure", ""),
            ("paper", "the paper's (or the talk's) value"),
            ("model", "computed from the simulated activity"),
            ("unit", ""),
            ("error", "model / paper − 1"),
            (
                "target",
                "the tolerance the model is held to, where one is set",
            ),
        ],
    );
    for ch in &c.study.checks {
        t.rows.push(vec![
            Cell::text(&ch.figure),
            Cell::num(ch.paper, 3),
            Cell::num(ch.model, 3),
            Cell::text(&ch.unit),
            Cell::err(Some(ch.error())),
            Cell::text(match ch.tolerance {
                Some(tol) => format!(
                    "±{:.0}% {}",
                    100.0 * tol,
                    if ch.ok() { "met" } else { "MISSED" }
                ),
                None => "-".into(),
            }),
        ]);
    }
    format!(
        "<section id=\"summary\"><h2>1. Model beside paper</h2>{}{}</section>\n",
        colour_key(),
        t.render()
    )
}

/// Table 2: 16 engines for AES-128 beside the paper, and the model's
/// AES-192 and AES-256.
pub fn table2_section(c: &Collected) -> String {
    let mut s = String::from(
        "<section id=\"table2\"><h2>2. Table 2: the 16 engines</h2>\
         <p>Each engine compiled to the AsAP2 model, mapped on the mesh and simulated cycle by \
         cycle; every block checked against the reference cipher.</p>",
    );
    for rows in &c.table2 {
        let key = rows.first().map_or(128, |r| r.key.bits());
        let mut t = Table::new(
            &format!("table2-{key}"),
            &format!(
                "AES-{key}{}",
                if key == 128 {
                    ": model vs the paper's Table 2"
                } else {
                    ": model only (the paper reports AES-128)"
                }
            ),
            &[
                ("engine", ""),
                ("keys", "online or offline key expansion"),
                ("c/B", "simulated cycles per byte"),
                ("paper c/B", "Table 2's cycles per byte"),
                ("err c/B", "error of the cycles per byte"),
                ("cores", "cores on the mesh after the §5 optimisations"),
                ("paper cores", "Table 2's cores"),
                ("comm", "communication cores (MergeCores + DispatchCores)"),
                ("paper comm", "Table 2's communication cores"),
                (
                    "TPC",
                    "throughput per core, normalised to Parallel-MixColumns online",
                ),
                ("paper TPC", "Table 2's throughput per core"),
                ("err TPC", "error of the throughput per core"),
                ("Gbps", "throughput at 1.2 GHz"),
                ("ok", "every block encrypted correctly"),
            ],
        );
        for r in rows {
            let p = r.paper();
            let xi = usize::from(r.expansion == Expansion::Offline);
            t.rows.push(vec![
                Cell::text(r.engine.name()),
                Cell::text(r.expansion.name()),
                Cell::num(r.cycles_per_byte(), 3),
                Cell::opt(p.map(|p| p.cycles_per_byte), 3),
                Cell::err(r.cpb_error()),
                Cell::num(r.cores as f64, 0),
                Cell::opt(r.paper_cores().map(|v| v as f64), 0),
                Cell::num(r.comm as f64, 0),
                Cell::opt(r.paper_comm().map(|v| v as f64), 0),
                Cell::num(r.tpc, 2),
                Cell::opt(p.map(|p| p.tpc[xi]), 2),
                Cell::err(r.tpc_error()),
                Cell::num(128.0 * 1.2e9 / r.cycles_per_block / 1e9, 3),
                Cell::text(if r.verified { "yes" } else { "NO" }),
            ]);
        }
        s.push_str(&t.render());
    }
    s.push_str("</section>\n");
    s
}

fn table4(c: &Collected) -> String {
    let mut t = Table::new(
        "table4",
        "Table 4: offline Full-parallelism at 1.3 V / 1.2 GHz, per core of each kind (paper in brackets)",
        &[
            ("kind", ""),
            ("n", "cores of the kind (paper)"),
            ("exec", "executing cycles per block"),
            ("NOP", "no-operation cycles per block"),
            ("stall AC", "stalled cycles with the clock active"),
            ("stall HC", "stalled cycles with the clock halted"),
            ("P core", "power per core, mW"),
            ("err P", "error of the power per core"),
        ],
    );
    for r in &c.study.table4 {
        let p = paper_kind(&r.kind).and_then(|k| PAPER_TABLE4.iter().find(|x| x.0 == k));
        let n = r.count as f64;
        let pair = |v: f64, i: usize| match p {
            Some(p) => Cell {
                html: format!("{v:.1} ({:.0})", p.2[i]),
                sort: Some(v),
                class: "num",
            },
            None => Cell::num(v, 1),
        };
        let pc = r.power.total() / n * 1e3;
        let ppc = p.map(|p| p.3.iter().sum::<f64>());
        t.rows.push(vec![
            Cell::text(&r.kind),
            Cell::text(match p {
                Some(p) => format!("{} ({})", r.count, p.1),
                None => r.count.to_string(),
            }),
            pair(r.exec, 0),
            pair(r.nop, 1),
            pair(r.stall, 2),
            pair(r.halted, 3),
            Cell {
                html: match ppc {
                    Some(x) => format!("{pc:.2} ({x:.2})"),
                    None => format!("{pc:.2}"),
                },
                sort: Some(pc),
                class: "num",
            },
            Cell::err(ppc.map(|x| pc / x - 1.0)),
        ]);
    }
    t.render()
}

fn per_engine(c: &Collected) -> String {
    let s = &c.study;
    let mut t = Table::new(
        "energy",
        "Energy per engine at 1.3 V / 1.2 GHz (Figs. 14–15) and per-core DVFS (the talk)",
        &[
            ("engine", ""),
            ("nJ/b off", "energy per bit, offline key expansion"),
            ("nJ/b on", "energy per bit, online key expansion"),
            (
                "overhead",
                "online over offline energy (Fig. 15; paper 35–55%)",
            ),
            ("W off", "total power, offline"),
            (
                "freq saved",
                "power saved by per-core frequency scaling, offline (talk: up to 16%)",
            ),
            (
                "dual saved",
                "power saved with a second, lower supply as well, offline (talk: up to 32%)",
            ),
            ("Vdd_Low", "the best second supply (V)"),
        ],
    );
    let (lo, hi) = aesflow_energy::paper::FIG15_RANGE;
    let (lo, hi) = (lo / 100.0, hi / 100.0);
    for e in Engine::ALL {
        let on = s.engine(e, Expansion::Online);
        let off = s.engine(e, Expansion::Offline);
        let ovh = s.overhead(e);
        let ovh_err = if ovh < lo {
            ovh / lo - 1.0
        } else if ovh > hi {
            ovh / hi - 1.0
        } else {
            0.0
        };
        t.rows.push(vec![
            Cell::text(e.name()),
            Cell::num(off.energy_per_bit * 1e9, 3),
            Cell::num(on.energy_per_bit * 1e9, 3),
            Cell {
                html: format!("{:+.1}%", 100.0 * ovh),
                sort: Some(ovh),
                class: crate::html::err_class(ovh_err),
            },
            Cell::num(off.power.total(), 3),
            Cell::num(100.0 * off.dvfs.freq_saving(), 1),
            Cell::num(100.0 * off.dvfs.dual_saving(), 1),
            Cell::num(off.dvfs.v_low, 3),
        ]);
    }
    t.notes.push(
        "The overhead cell is coloured by its distance from the paper's 35–55% range.".to_string(),
    );
    t.render()
}

fn table5(c: &Collected) -> String {
    let s = &c.study;
    let mut t = Table::new(
        "table5",
        "Table 5: software AES platforms scaled to 65 nm / 1.3 V",
        &[
            ("platform", ""),
            ("nm", "process node"),
            ("MHz", "clock"),
            ("c/B", "cycles per byte"),
            ("Mbps", "throughput scaled to 65 nm"),
            ("mm²", "area scaled to 65 nm (one core's share for CPUs)"),
            ("Mbps/mm²", "throughput per area"),
            ("nJ/bit", "energy per bit at 1.3 V"),
            (
                "rule Mbps/mm²",
                "the paper's row recomputed by the general rule of Fig. 16's caption",
            ),
            ("rule nJ/bit", "the same, energy per bit"),
        ],
    );
    for r in &s.table5 {
        let rule = s.table5_rule.iter().find(|x| x.name == r.name);
        t.rows.push(vec![
            Cell::text(&r.name),
            Cell::num(r.tech_nm, 0),
            Cell::num(r.mhz, 0),
            Cell::opt(r.cycles_per_byte, 3),
            Cell::num(r.scaled_mbps, 0),
            Cell::opt(r.scaled_area, 1),
            Cell::opt(r.mbps_per_mm2, 2),
            Cell::opt(r.nj_per_bit, 3),
            Cell::opt(rule.and_then(|x| x.mbps_per_mm2), 2),
            Cell::opt(rule.and_then(|x| x.nj_per_bit), 2),
        ]);
    }
    if let Some((h, cpu)) = &s.host {
        t.notes.push(format!(
            "Host row: {} measured {:.2} GB/s ({}) = {:.3} cycles/byte at {:.2} GHz ({}). CPU {}.",
            esc(&h.kernel),
            h.bytes_per_second / 1e9,
            esc(&h.workload),
            h.cycles_per_byte(),
            h.clock_ghz,
            esc(&h.clock_source),
            esc(&cpu.how)
        ));
        if let Some(spec) = cpu.spec {
            t.notes.push(format!(
                "Assumed silicon ({}): {}.",
                esc(spec.name),
                esc(spec.basis)
            ));
        }
    }
    t.render()
}

/// Tables 4 and 5, the per-engine energy and DVFS.
pub fn energy_section(c: &Collected) -> String {
    format!(
        "<section id=\"energy\"><h2>3. Power and energy: Tables 4 and 5</h2>\
         <p>From the simulated per-core activity (executing, NOP, stall with the clock on, \
         halted; link traffic) and Table 3's power per state; AES-128, {} steady-state blocks \
         per engine.</p>{}{}{}</section>\n",
        c.study.options.blocks,
        table4(c),
        per_engine(c),
        table5(c)
    )
}

/// Figs. 12, 14, 15 and the DVFS savings, paper beside model.
pub fn figures_section(c: &Collected) -> String {
    let mut s = String::from(
        "<section id=\"figures\"><h2>4. Figures</h2><p>Filled marks and bars: the model. Hollow \
         marks and shaded bands: the paper's (or the talk's) values. Hover a mark for its value \
         and error.</p>",
    );
    for f in aesflow_energy::figures(&c.study) {
        let id = f.file.trim_end_matches(".svg").replace('_', "-");
        s.push_str(&figure(&id, &f.svg, &esc(&f.caption)));
    }
    s.push_str("</section>\n");
    s
}

/// The design-space front of `aesflow explore`, when handed in.
pub fn front_section(c: &Collected) -> String {
    let Some(points) = &c.inputs.front else {
        return "<section id=\"front\"><h2>6. Design-space front</h2><p>Not in this build: \
                the design-space explorer (<code>aesflow explore</code>) hands its points to \
                the report through <code>aesflow_report::Inputs::front</code>; when it is \
                present, this section shows every explored design's cores and throughput and \
                marks the Pareto front.</p></section>\n"
            .into();
    };
    let gbps = |p: &crate::FrontPoint| 1.2 * 8.0 / p.cycles_per_byte;
    // Front first, then by cores: the front's line runs left to right.
    let mut points: Vec<&crate::FrontPoint> = points.iter().collect();
    points.sort_by(|a, b| {
        b.on_front
            .cmp(&a.on_front)
            .then(a.cores.cmp(&b.cores))
            .then(gbps(a).total_cmp(&gbps(b)))
    });
    let series = |front: bool, colour: usize, label: &str, style: Style| Series {
        label: label.into(),
        points: points
            .iter()
            .filter(|p| p.on_front == front)
            .map(|p| (p.cores as f64, gbps(p)))
            .collect(),
        style,
        colour,
        tips: points
            .iter()
            .filter(|p| p.on_front == front)
            .map(|p| format!("{}: {} cores, {:.3} Gbit/s", p.label, p.cores, gbps(p)))
            .collect(),
    };
    let chart = LineChart {
        title: "Design space: throughput vs cores (1.2 GHz)".into(),
        x: AxisSpec::new("cores (log scale)", Scale::Log2),
        y: AxisSpec::new("throughput (Gbit/s, log scale)", Scale::Log10),
        series: vec![
            series(false, 7, "explored design", Style::Markers),
            series(true, 3, "Pareto front", Style::Line),
        ],
        refs: vec![],
    }
    .render();
    let mut t = Table::new(
        "front",
        "Explored designs",
        &[
            ("design", ""),
            ("cores", "cores on the mesh"),
            ("c/B", "simulated cycles per byte"),
            ("nJ/bit", "energy per bit at 1.3 V"),
            ("front", "on the Pareto front"),
        ],
    );
    for p in &points {
        t.rows.push(vec![
            Cell::text(&p.label),
            Cell::num(p.cores as f64, 0),
            Cell::num(p.cycles_per_byte, 3),
            Cell::opt(p.nj_per_bit, 3),
            Cell::text(if p.on_front { "yes" } else { "" }),
        ]);
    }
    let mut s = String::from(
        "<section id=\"front\"><h2>6. Design-space front</h2><p>Every design the explorer \
         generates (loop structures, bytes per core, fusions, interleaving, key expansion, \
         copies) that fits the 164-core chip and encrypts correctly, simulated like the \
         paper's eight; the Pareto front of throughput against cores is drawn as a line. \
         Reproduce: <code>aesflow explore</code> (<code>--all</code> lists every design).</p>",
    );
    s.push_str(&figure(
        "front-chart",
        &chart,
        "Throughput at 1.2 GHz against cores; hover a mark for the design.",
    ));
    let _ = writeln!(
        s,
        "<details><summary>All {} designs (the front first)</summary>{}</details></section>",
        points.len(),
        t.render()
    );
    s
}
