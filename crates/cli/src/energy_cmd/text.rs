//! The energy study as terminal text: one table per figure of the paper
//! (the `comfy-table` crate, fitted to the terminal's width), each with a
//! legend explaining its abbreviated headers, the paper's value beside the
//! model's. The library returns the study; this is its rendering.

use std::fmt::Write;

use aesflow_designs::{Engine, Expansion};
use comfy_table::{CellAlignment, ContentArrangement, Table, presets};

use aesflow_chart::pct;
use aesflow_energy::compare::Platform5;
use aesflow_energy::paper::{PAPER_TABLE4, paper_kind};
use aesflow_energy::study::{ASAP_MODEL_ROW, EngineEnergy, Study, mean, min_max};

fn opt(x: Option<f64>, prec: usize) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.prec$}"))
}

thread_local! {
    /// A width set by [`format_text_at`] for the text being made.
    static FIXED_WIDTH: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// The width text is fitted to: the one [`format_text_at`] was given, else
/// [`terminal_width`].
fn width() -> usize {
    FIXED_WIDTH
        .with(std::cell::Cell::get)
        .unwrap_or_else(terminal_width)
}

/// The terminal's width, else `$COLUMNS`, else 120 (within 60..=400).
pub fn terminal_width() -> usize {
    let mut probe = Table::new();
    probe.set_content_arrangement(ContentArrangement::Dynamic);
    probe
        .width()
        .map(usize::from)
        .or_else(|| std::env::var("COLUMNS").ok()?.parse().ok())
        .unwrap_or(120)
        .clamp(60, 400)
}

/// `text` wrapped at [`width`]: the first line indented by `first`
/// spaces, the others by `rest`.
fn wrap(text: &str, first: usize, rest: usize) -> String {
    let w = width();
    let mut out = String::new();
    let mut line = " ".repeat(first);
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > w {
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(rest);
        } else if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out
}

/// A table with `headers`, the first `left` columns left-aligned and the
/// rest right-aligned, fitted to [`width`].
fn table(headers: &[&str], left: usize, rows: Vec<Vec<String>>) -> String {
    let mut t = Table::new();
    t.load_preset(presets::ASCII_BORDERS_ONLY_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width() as u16)
        .set_header(headers.to_vec());
    for r in rows {
        t.add_row(r);
    }
    for (i, c) in t.column_iter_mut().enumerate() {
        c.set_cell_alignment(if i < left {
            CellAlignment::Left
        } else {
            CellAlignment::Right
        });
    }
    t.to_string()
}

fn section(o: &mut String, title: &str, body: String, legend: &[&str]) {
    let _ = writeln!(o, "\n{title}\n{body}");
    for l in legend {
        let _ = writeln!(o, "  {l}");
    }
}

/// The full text report, fitted to the [`terminal_width`].
pub fn format_text(s: &Study) -> String {
    format_text_at(s, terminal_width())
}

/// The full text report fitted to `columns` (at least 60).
pub fn format_text_at(s: &Study, columns: usize) -> String {
    FIXED_WIDTH.with(|w| w.set(Some(columns.max(60))));
    let out = format_all(s);
    FIXED_WIDTH.with(|w| w.set(None));
    out
}

fn format_all(s: &Study) -> String {
    let mut o = header(s);
    checks(&mut o, s);
    table4(&mut o, s);
    per_engine(&mut o, s);
    fig14(&mut o, s);
    dvfs(&mut o, s);
    fig12(&mut o, s);
    table5(&mut o, s);
    fit(&o)
}

/// Wrap every prose line (not the tables' lines) at [`width`].
fn fit(text: &str) -> String {
    let w = width();
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if line.chars().count() <= w || t.starts_with('|') || t.starts_with('+') {
            out.push_str(line);
        } else {
            let lead = line.len() - t.len();
            out.push_str(&wrap(t, lead, lead + 2));
        }
        out.push('\n');
    }
    out
}

fn header(s: &Study) -> String {
    let m = &s.model;
    format!(
        "Power and energy of the many-core AES engines, from simulated activity \
         (AES-{}, {} steady-state blocks per engine)\n\
         Model: Table 3 per core state at 1.3 V / 1.2 GHz: executing {:.1} mW, NOP or stall \
         with clock on {:.1} mW, halted {:.2} mW, near link {:.1} mW, long link {:.1} mW per tile; \
         the clock halts after {} stalled cycles.\n\
         f_max(V) = k(V-Vt)^a/V fitted to AsAP2: Vt = {:.3} V, a = {:.3} (f_max(1.0 V) = {:.0} MHz); \
         dynamic energy ~ Vdd^2, leakage ~ Vdd.\n",
        s.options.key.bits(),
        s.options.blocks,
        m.p_exec * 1e3,
        m.p_stall * 1e3,
        m.p_leak * 1e3,
        m.p_near * 1e3,
        m.p_long_tile * 1e3,
        s.halt_after,
        s.curve.vt,
        s.curve.a,
        s.curve.f_max(1.0) / 1e6
    )
}

fn checks(o: &mut String, s: &Study) {
    // Exceptions are numbered in the target column; their reasons follow
    // the table.
    let numbers = aesflow_energy::checks::note_numbers(&s.checks);
    let rows = s
        .checks
        .iter()
        .zip(&numbers)
        .map(|(c, &n)| {
            vec![
                c.figure.clone(),
                format!("{:.3}", c.paper),
                format!("{:.3}", c.model),
                c.unit.clone(),
                pct(c.error()),
                c.target_text("ok", n),
            ]
        })
        .collect();
    let notes = s
        .checks
        .iter()
        .zip(&numbers)
        .filter_map(|(c, n)| Some(format!("[{}] {}: {}", (*n)?, c.figure, c.note.as_deref()?)));
    let mut legend = vec![
        "error = model / paper - 1; target = the tolerance the model is held to: 10 %, or a \
         documented exception's band [n], whose reason follows"
            .to_string(),
    ];
    legend.extend(notes);
    let legend: Vec<&str> = legend.iter().map(String::as_str).collect();
    section(
        o,
        "Paper vs model",
        table(
            &["figure", "paper", "model", "unit", "error", "target"],
            1,
            rows,
        ),
        &legend,
    );
}

fn full_parallelism(s: &Study) -> &EngineEnergy {
    s.engine(Engine::FullParallelism, Expansion::Offline)
}

fn table4(o: &mut String, s: &Study) {
    let fp = full_parallelism(s);
    let paper = |k: &str| paper_kind(k).and_then(|k| PAPER_TABLE4.iter().find(|x| x.0 == k));
    let cell = |v: f64, p: Option<f64>, prec: usize| match p {
        Some(p) => format!("{v:.prec$} ({p:.prec$})"),
        None => format!("{v:.prec$}"),
    };
    let mut cyc = Vec::new();
    let mut pow = Vec::new();
    for r in &s.table4 {
        let p = paper(&r.kind);
        let n = r.count as f64;
        let c = |i: usize, v: f64| cell(v, p.map(|p| p.2[i]), 1);
        cyc.push(vec![
            r.kind.clone(),
            match p {
                Some(p) => format!("{} ({})", r.count, p.1),
                None => r.count.to_string(),
            },
            c(0, r.exec),
            c(1, r.nop),
            c(2, r.stall),
            c(3, r.halted),
            c(4, r.near),
            c(5, r.long),
        ]);
        let w = |i: usize, v: f64| cell(v / n * 1e3, p.map(|p| p.3[i]), 2);
        pow.push(vec![
            r.kind.clone(),
            w(0, r.power.exec),
            w(1, r.power.stall),
            w(2, r.power.leak),
            w(3, r.power.comm),
            cell(
                r.power.total() / n * 1e3,
                p.map(|p| p.3.iter().sum::<f64>()),
                2,
            ),
        ]);
    }
    section(
        o,
        &format!(
            "Table 4: offline Full-parallelism at 1.3 V / 1.2 GHz, {:.1} cycles per block: \
             cycles per block per core (paper in brackets)",
            fp.activity().cycles_per_block()
        ),
        table(
            &[
                "kind", "n", "exec", "NOP", "stall AC", "stall HC", "near", "long",
            ],
            1,
            cyc,
        ),
        &[
            "n = cores of the kind; exec = executing; NOP = no-operation; stall AC / HC = stalled \
             with the clock active / halted; near / long = words sent on nearest-neighbour / long links",
        ],
    );
    section(
        o,
        "Table 4 (cont.): power per core in mW (paper in brackets)",
        table(
            &["kind", "P exec", "P stall", "P leak", "P comm", "P core"],
            1,
            pow,
        ),
        &[
            "P exec / stall / leak / comm = executing, clock-on stall, leakage and link power; P core = their sum",
        ],
    );
    let p = &fp.power;
    let _ = writeln!(
        o,
        "  total: execution {:.2} W (3.35), stall {:.2} W (1.09), leakage {:.2} mW (2.12), \
         communication {:.1} mW (81.4): {:.2} W (4.52) at {:.2} Gbps (2.21)",
        p.exec,
        p.stall,
        p.leak * 1e3,
        p.comm * 1e3,
        p.total(),
        fp.activity().throughput(s.model.f_ref) / 1e9
    );
}

fn per_engine(o: &mut String, s: &Study) {
    let rows = Engine::ALL
        .iter()
        .map(|&e| {
            let on = s.engine(e, Expansion::Online);
            let off = s.engine(e, Expansion::Offline);
            vec![
                e.name().to_string(),
                format!("{:.3}", on.activity().cycles_per_block() / 16.0),
                format!("{:.3}", off.activity().cycles_per_block() / 16.0),
                format!("{}/{}", on.activity().n_cores(), off.activity().n_cores()),
                format!("{:.3}", on.power.total()),
                format!("{:.3}", off.power.total()),
                format!("{:.3}", on.energy_per_bit * 1e9),
                format!("{:.3}", off.energy_per_bit * 1e9),
                pct(s.overhead(e)),
            ]
        })
        .collect();
    section(
        o,
        "Energy per engine at 1.3 V / 1.2 GHz (Figs. 14-15)",
        table(
            &[
                "engine", "c/B on", "c/B off", "cores", "W on", "W off", "nJ/b on", "nJ/b off",
                "overhead",
            ],
            1,
            rows,
        ),
        &[
            "on / off = online / offline key expansion; c/B = cycles per byte; cores = online/offline; \
             W = total power; nJ/b = energy per bit; overhead = online energy over offline (Fig. 15)",
            "paper: online engines spend 35-55% more energy; No-merge offline 1.55 nJ/bit, the lowest; \
             Parallel-MixColumns about 2x No-merge",
        ],
    );
}

fn fig14(o: &mut String, s: &Study) {
    let shown = [0.675, 0.75, 0.85, 0.95, 1.05, 1.15, 1.2, 1.3];
    let mut headers = vec!["engine".to_string()];
    headers.extend(shown.iter().map(|v| format!("{v}")));
    let mut rows = vec![{
        let mut r = vec!["f_max (MHz)".to_string()];
        r.extend(
            shown
                .iter()
                .map(|&v| format!("{:.0}", s.curve.f_max(v) / 1e6)),
        );
        r
    }];
    for (e, pts) in &s.fig14 {
        let mut r = vec![e.name().to_string()];
        for v in shown {
            let y = pts
                .iter()
                .find(|p| (p.0 - v).abs() < 1e-6)
                .map_or(f64::NAN, |p| p.1);
            r.push(format!("{y:.3}"));
        }
        rows.push(r);
    }
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    section(
        o,
        "Fig. 14: energy per bit (nJ/bit) of the offline engines vs supply voltage (V), each at f_max(Vdd)",
        table(&h, 1, rows),
        &[
            "columns = supply voltage Vdd in volts; the first row is the clock each runs at; \
           paper: No-merge 0.39-1.54 nJ/bit across the range",
        ],
    );
}

fn dvfs(o: &mut String, s: &Study) {
    let rows = s
        .engines
        .iter()
        .map(|r| {
            let d = &r.dvfs;
            vec![
                r.engine.name().to_string(),
                r.expansion.name().to_string(),
                format!("{:.3}", d.margin),
                pct(-d.freq_saving()),
                format!("{:.3} V", d.v_low),
                format!("{}/{}", d.cores_low, d.base.n_cores()),
                pct(-d.dual_saving()),
                pct(d.throughput_change()),
            ]
        })
        .collect();
    section(
        o,
        "Per-core DVFS (the talk): f_opt,i = N_exe,i / N_exe,crit * 1.2 GHz, re-simulated with every core on its own clock",
        table(
            &[
                "engine",
                "keys",
                "k",
                "freq",
                "Vdd_Low",
                "on low",
                "freq+dual",
                "tput",
            ],
            2,
            rows,
        ),
        &[
            "keys = key expansion; k = margin raising all scaled clocks where a loop needs it; \
             freq = power change with frequency scaling alone; Vdd_Low = the best second supply; \
             on low = cores on it; freq+dual = power change with both; tput = throughput change",
        ],
    );
    let saving = |f: fn(&aesflow_energy::dvfs::Dvfs) -> f64, offline: bool| -> (f64, f64) {
        let v: Vec<f64> = s
            .engines
            .iter()
            .filter(|r| !offline || r.expansion == Expansion::Offline)
            .map(|r| f(&r.dvfs))
            .collect();
        (100.0 * min_max(&v).1, 100.0 * mean(&v))
    };
    let (fa, fm) = saving(aesflow_energy::dvfs::Dvfs::freq_saving, false);
    let (da, dm) = saving(aesflow_energy::dvfs::Dvfs::dual_saving, false);
    let (fo, fom) = saving(aesflow_energy::dvfs::Dvfs::freq_saving, true);
    let (dof, dom) = saving(aesflow_energy::dvfs::Dvfs::dual_saving, true);
    let _ = writeln!(
        o,
        "  power saved, all 16: frequency up to {fa:.1}% (mean {fm:.1}%), with dual supply up to \
         {da:.1}% (mean {dm:.1}%); offline 8: {fo:.1}% ({fom:.1}%), {dof:.1}% ({dom:.1}%)\n  \
         talk: frequency up to 16% (mean 11%), with dual supply up to 32% (mean 22%)"
    );
}

fn fig12(o: &mut String, s: &Study) {
    let rows = s
        .fig12
        .iter()
        .map(|(e, pts)| {
            let mut r = vec![e.name().to_string()];
            for p in pts {
                r.push(format!(
                    "{} / {:.3}{}{}",
                    if p.copies > 1 {
                        format!("{} ({})", p.cores, p.gather_merges)
                    } else {
                        p.cores.to_string()
                    },
                    p.gbps,
                    if p.exceeds_chip { "*" } else { "" },
                    if p.verified { "" } else { "!" }
                ));
            }
            r
        })
        .collect();
    section(
        o,
        "Fig. 12: throughput vs cores, offline engines duplicated (outputs gathered by the next core's two ports)",
        table(&["engine", "1x", "2x", "4x"], 1, rows),
        &[
            "cells = cores (MergeCores added to gather) / Gbit/s at 1.2 GHz",
            "* needs more than AsAP2's 164 tiles (the mesh is grown); ! = did not encrypt correctly",
        ],
    );
}

fn table5(o: &mut String, s: &Study) {
    let inputs = s
        .table5
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                format!("{:.0}", r.tech_nm),
                opt(r.area_mm2, 2),
                format!("{:.2}", r.vdd),
                format!("{:.0}", r.mhz),
                opt(r.cycles_per_byte, 3),
                opt(r.power_w, 2),
            ]
        })
        .collect();
    section(
        o,
        "Table 5: software AES platforms as built",
        table(
            &["platform", "nm", "mm2", "V", "MHz", "c/B", "W"],
            1,
            inputs,
        ),
        &[
            "nm = process node; mm2 = area (one core's share for multi-core CPUs); V = supply; \
           c/B = cycles per byte; W = power (half the TDP share for CPUs)",
        ],
    );
    let rule = |r: &Platform5, f: fn(&Platform5) -> Option<f64>| {
        s.table5_rule
            .iter()
            .find(|x| x.name == r.name)
            .map_or("".into(), |x| opt(f(x), 2))
    };
    let scaled = s
        .table5
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                format!("{:.0}", r.scaled_mbps),
                opt(r.scaled_area, 1),
                opt(r.mbps_per_mm2, 2),
                opt(r.nj_per_bit, 3),
                rule(r, |x| x.mbps_per_mm2),
                rule(r, |x| x.nj_per_bit),
            ]
        })
        .collect();
    section(
        o,
        "Table 5 (cont.): scaled to 65 nm / 1.3 V",
        table(
            &[
                "platform",
                "Mbps",
                "mm2",
                "Mbps/mm2",
                "nJ/bit",
                "rule Mb/mm2",
                "rule nJ/b",
            ],
            1,
            scaled,
        ),
        &[
            "paper rows as printed (PTM-scaled); rule = the same rows by the general rule of Fig. 16's \
             caption (area 1/s^2, delay 1/s, power 1/v^2), which the host row uses",
        ],
    );
    if let Some((h, cpu)) = &s.host {
        let _ = writeln!(
            o,
            "  host: {} measured {:.3} GB/s = {:.3} cycles/byte at {:.2} GHz ({}); CPU {}",
            h.kernel,
            h.bytes_per_second / 1e9,
            h.cycles_per_byte(),
            h.clock_ghz,
            h.clock_source,
            cpu.how
        );
        if let Some(c) = cpu.spec {
            let _ = writeln!(o, "  assumed silicon ({}): {}", c.name, c.basis);
        }
    }
}

/// The headline lines (for `demo`).
pub fn headline(s: &Study) -> String {
    let mut o = String::new();
    let c = |name: &str| s.checks.iter().find(|c| c.figure.starts_with(name));
    for key in [
        "Table 4: offline Full-parallelism total power",
        "Table 5: No-merge offline energy per bit",
        "Fig. 15: online energy overhead, lowest",
        "Fig. 15: online energy overhead, highest",
        "Talk: frequency scaling, best",
        "Talk: + dual supply, best",
    ] {
        if let Some(ch) = c(key) {
            let _ = writeln!(
                o,
                "{:<52} paper {:>7.2} {:<6} model {:>7.2}  ({})",
                ch.figure,
                ch.paper,
                ch.unit,
                ch.model,
                pct(ch.error())
            );
        }
    }
    if let Some((h, cpu)) = &s.host {
        let host = s.table5.last().expect("host row");
        let asap = s
            .table5
            .iter()
            .find(|r| r.name == ASAP_MODEL_ROW)
            .expect("asap");
        let _ = writeln!(
            o,
            "this host ({}, {:.2} cycles/byte): {} Mbps/mm2, {} nJ/bit at 65 nm/1.3 V vs AsAP model {:.0} Mbps/mm2, {:.2} nJ/bit\n  CPU {}",
            h.kernel,
            h.cycles_per_byte(),
            opt(host.mbps_per_mm2, 0),
            opt(host.nj_per_bit, 3),
            asap.mbps_per_mm2.unwrap_or(f64::NAN),
            asap.nj_per_bit.unwrap_or(f64::NAN),
            cpu.how
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_printed_fitted_and_explained() {
        let s = aesflow_energy::study(&aesflow_energy::Options {
            blocks: 16,
            ..Default::default()
        })
        .expect("the study runs");
        let t = format_text(&s);
        for h in [
            "Paper vs model",
            "Table 4",
            "Fig. 14",
            "Fig. 12",
            "Table 5",
            "DVFS",
        ] {
            assert!(t.contains(h), "{h}");
        }
        // Fits an 80-column terminal, every abbreviated header explained.
        let narrow = format_text_at(&s, 80);
        for line in narrow.lines() {
            let n = line.chars().count();
            assert!(n <= 80, "{n} columns: {line}");
        }
        for legend in [
            "c/B = cycles per byte",
            "stall AC / HC",
            "Vdd_Low",
            "nJ/b = energy per bit",
        ] {
            assert!(narrow.contains(legend), "no legend for {legend}");
        }
        assert!(headline(&s).contains('%'));
    }
}
