//! The paper's tables and figures beside the model's: Table 2 (three key
//! sizes), the energy checks, Tables 4 and 5, the per-engine energy and
//! DVFS, Figs. 12, 14, 15, and the design-space front.

use std::fmt::Write;

use aesflow_array::Platform;
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
    // Exceptions are numbered in the target column; their reasons follow
    // the table.
    let numbers = aesflow_energy::checks::note_numbers(&c.study.checks);
    let mut notes = String::new();
    for (ch, &n) in c.study.checks.iter().zip(&numbers) {
        if let Some(note) = &ch.note {
            notes.push_str(&format!(
                "<li><b>{}</b>: {}</li>",
                esc(&ch.figure),
                esc(note)
            ));
        }
        t.rows.push(vec![
            Cell::text(&ch.figure),
            Cell::num(ch.paper, 3),
            Cell::num(ch.model, 3),
            Cell::text(&ch.unit),
            Cell::err(Some(ch.error())),
            Cell::text(ch.target_text("met", n)),
        ]);
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(
            "<p>Every figure is held to 10&nbsp;% of the paper except these documented \
             exceptions [n], each held to its own band:</p><ol class=\"notes\">{notes}</ol>"
        )
    };
    format!(
        "<section id=\"summary\"><h2>1. Model beside paper</h2>{}{}{notes}<p>Reproduce: {} \
         (its first table).</p></section>\n",
        colour_key(),
        t.render(),
        energy_command(c, "")
    )
}

/// Table 2: 16 engines for AES-128 beside the paper, and the model's
/// AES-192 and AES-256.
pub fn table2_section(c: &Collected) -> String {
    let blocks = c
        .table2
        .first()
        .and_then(|r| r.first())
        .map_or(0, |r| r.blocks);
    let mut s = format!(
        "<section id=\"table2\"><h2>2. Table 2: the 16 engines</h2>\
         <p>Each engine compiled to the AsAP2 model, mapped on the mesh and simulated cycle by \
         cycle on {blocks} blocks; every block checked against the reference cipher. An engine \
         with more cores than the 164-core chip is flagged <b>over the chip</b> (the mesh is \
         grown to simulate it). Reproduce: <code>aesflow designs --table{}</code> (add \
         <code>--key-size 192</code> or <code>256</code>).</p>",
        if blocks == crate::TABLE2_BLOCKS {
            String::new()
        } else {
            format!(" --blocks {blocks}")
        }
    );
    for rows in &c.table2 {
        let key = rows.first().map_or(128, |r| r.key.bits());
        let paper_cols = key == 128;
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
                ("chip", "fits the 164-core chip, or over the chip"),
                ("ok", "every block encrypted correctly"),
            ],
        );
        if !paper_cols {
            t.headers
                .retain(|(h, _)| !h.starts_with("paper") && !h.starts_with("err"));
        }
        for r in rows {
            let p = r.paper();
            let xi = usize::from(r.expansion == Expansion::Offline);
            let mut row = vec![
                Cell::text(r.engine.name()),
                Cell::text(r.expansion.name()),
                Cell::num(r.cycles_per_byte(), 3),
                Cell::opt(p.map(|p| p.cycles_per_byte), 3),
                Cell::err(r.cpb_error()),
                Cell {
                    class: if r.exceeds_chip { "num over" } else { "num" },
                    ..Cell::num(r.cores as f64, 0)
                },
                Cell::opt(r.paper_cores().map(|v| v as f64), 0),
                Cell::num(r.comm as f64, 0),
                Cell::opt(r.paper_comm().map(|v| v as f64), 0),
                Cell::num(r.tpc, 2),
                Cell::opt(p.map(|p| p.tpc[xi]), 2),
                Cell::err(r.tpc_error()),
                Cell::num(128.0 * 1.2e9 / r.cycles_per_block / 1e9, 3),
                if r.exceeds_chip {
                    Cell {
                        class: "over",
                        ..Cell::text("over the chip")
                    }
                } else {
                    Cell::text("fits")
                },
                Cell::text(if r.verified { "yes" } else { "NO" }),
            ];
            if !paper_cols {
                // Paper c/B, err c/B, paper cores, paper comm, paper TPC,
                // err TPC: the paper reports AES-128 only.
                for i in [11, 10, 8, 6, 4, 3] {
                    row.remove(i);
                }
            }
            t.rows.push(row);
        }
        s.push_str(&t.render());
    }
    s.push_str("</section>\n");
    s
}

/// A model value with the paper's in brackets (sorted by the model's).
fn pair(v: f64, paper: Option<f64>, prec: usize) -> Cell {
    Cell {
        html: match paper {
            Some(p) => format!("{v:.prec$} ({p:.prec$})"),
            None => format!("{v:.prec$}"),
        },
        sort: Some(v),
        class: "num",
    }
}

/// Table 4 as the paper prints it: cycles per block per core (the four
/// states and the two kinds of link), then power per core by state, each
/// with the paper's value in brackets; and the totals.
fn table4(c: &Collected) -> String {
    let paper = |k: &str| paper_kind(k).and_then(|k| PAPER_TABLE4.iter().find(|x| x.0 == k));
    let mut cyc = Table::new(
        "table4",
        "Table 4: offline Full-parallelism at 1.3 V / 1.2 GHz: cycles per block per core of each kind (paper in brackets)",
        &[
            ("kind", ""),
            ("n", "cores of the kind (paper)"),
            ("exec", "executing cycles per block"),
            ("NOP", "no-operation cycles per block"),
            ("stall AC", "stalled cycles with the clock active"),
            ("stall HC", "stalled cycles with the clock halted"),
            ("near", "words sent on nearest-neighbour links per block"),
            ("long", "words sent on long-distance links per block"),
        ],
    );
    let mut pow = Table::new(
        "table4-power",
        "Table 4 (cont.): power per core by state, mW (paper in brackets)",
        &[
            ("kind", ""),
            ("P exec", "executing power per core"),
            ("P stall", "NOP and clock-on stall power per core"),
            ("P leak", "leakage (halted) power per core"),
            ("P comm", "link power per core"),
            ("P core", "power per core: the sum"),
            ("err P", "error of the power per core"),
        ],
    );
    for r in &c.study.table4 {
        let p = paper(&r.kind);
        let n = r.count as f64;
        let cy = |i: usize, v: f64| pair(v, p.map(|p| p.2[i]), 1);
        cyc.rows.push(vec![
            Cell::text(&r.kind),
            Cell::text(match p {
                Some(p) => format!("{} ({})", r.count, p.1),
                None => r.count.to_string(),
            }),
            cy(0, r.exec),
            cy(1, r.nop),
            cy(2, r.stall),
            cy(3, r.halted),
            cy(4, r.near),
            cy(5, r.long),
        ]);
        let w = |i: usize, v: f64| pair(v / n * 1e3, p.map(|p| p.3[i]), 2);
        let pc = r.power.total() / n * 1e3;
        let ppc = p.map(|p| p.3.iter().sum::<f64>());
        pow.rows.push(vec![
            Cell::text(&r.kind),
            w(0, r.power.exec),
            w(1, r.power.stall),
            w(2, r.power.leak),
            w(3, r.power.comm),
            pair(pc, ppc, 2),
            Cell::err(ppc.map(|x| pc / x - 1.0)),
        ]);
    }
    let fp = c
        .study
        .engines
        .iter()
        .find(|e| e.engine == Engine::FullParallelism && e.expansion == Expansion::Offline);
    if let Some(fp) = fp {
        let t = &fp.power;
        pow.notes.push(format!(
            "Total: execution {:.2} W (paper 3.35), stall {:.2} W (1.09), leakage {:.2} mW \
             (2.12), communication {:.1} mW (81.4): {:.2} W (4.52), at {:.1} cycles per block.",
            t.exec,
            t.stall,
            t.leak * 1e3,
            t.comm * 1e3,
            t.total(),
            fp.activity().cycles_per_block()
        ));
    }
    format!("{}{}", cyc.render(), pow.render())
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

/// Blocks per engine of `aesflow energy` by default.
pub const ENERGY_BLOCKS: usize = 256;

/// The command that reproduces the energy study's numbers.
pub fn energy_command(c: &Collected, extra: &str) -> String {
    let b = c.study.options.blocks;
    let blocks = if b == ENERGY_BLOCKS {
        String::new()
    } else {
        format!(" --blocks {b}")
    };
    format!("<code>aesflow energy{blocks}{extra}</code>")
}

/// Tables 4 and 5, the per-engine energy and DVFS.
pub fn energy_section(c: &Collected) -> String {
    format!(
        "<section id=\"energy\"><h2>3. Power and energy: Tables 4 and 5</h2>\
         <p>From the simulated per-core activity (executing, NOP, stall with the clock on, \
         halted; link traffic) and Table 3's power per state; AES-128, {} steady-state blocks \
         per engine. Reproduce: {} (Table 5's host row is measured again there).</p>{}{}{}</section>\n",
        c.study.options.blocks,
        energy_command(c, ""),
        table4(c),
        per_engine(c),
        table5(c)
    )
}

/// Figs. 12, 14, 15 and the DVFS savings, paper beside model.
pub fn figures_section(c: &Collected) -> String {
    let mut s = format!(
        "<section id=\"figures\"><h2>4. Figures</h2><p>Filled marks and bars: the model. Hollow \
         marks and shaded bands: the paper's (or the talk's) values. Hover a mark for its value \
         and error. Reproduce: {} writes these four SVGs.</p>",
        energy_command(c, " --charts DIR")
    );
    for f in aesflow_energy::figures(&c.study) {
        let id = f.file.trim_end_matches(".svg").replace('_', "-");
        s.push_str(&figure(&id, &f.svg, &esc(&f.caption)));
    }
    s.push_str("</section>\n");
    s
}

/// The design space of `aesflow explore`, when handed in: the explorer's
/// own charts (the paper's eight designs labelled, the fronts as
/// staircases) on the same block count, and every design in a table.
pub fn front_section(c: &Collected) -> String {
    let Some(space) = &c.inputs.front else {
        return "<section id=\"front\"><h2>6. Design space</h2><p>Not in this report: \
                the design-space explorer (<code>aesflow explore</code>) hands its designs \
                to the report through <code>aesflow_report::Inputs::front</code>; with them, \
                this section shows the explorer's charts and every design.</p></section>\n"
            .into();
    };
    let blocks = if space.blocks == EXPLORE_BLOCKS {
        String::new()
    } else {
        format!(" --blocks {}", space.blocks)
    };
    let mut points: Vec<&crate::FrontPoint> = space.points.iter().collect();
    points.sort_by(|a, b| {
        b.on_front
            .cmp(&a.on_front)
            .then(a.cores.cmp(&b.cores))
            .then(b.cycles_per_byte.total_cmp(&a.cycles_per_byte))
    });
    let mut t = Table::new(
        "front",
        "Explored designs (the front of throughput against cores first)",
        &[
            ("design", ""),
            ("cores", "cores on the mesh"),
            ("c/B", "simulated cycles per byte"),
            ("Gbit/s", "throughput at 1.2 GHz"),
            ("nJ/bit", "energy per bit at 1.3 V"),
            ("front", "on the Pareto front of throughput against cores"),
        ],
    );
    for p in &points {
        t.rows.push(vec![
            Cell::text(&p.label),
            Cell::num(p.cores as f64, 0),
            Cell::num(p.cycles_per_byte, 3),
            Cell::num(1.2 * 8.0 / p.cycles_per_byte, 3),
            Cell::opt(p.nj_per_bit, 3),
            Cell::text(if p.on_front { "yes" } else { "" }),
        ]);
    }
    let mut s = format!(
        "<section id=\"front\"><h2>6. Design space</h2><p>Every design the explorer \
         generates (loop structures, bytes per core, fusions, interleaving, key expansion, \
         copies) that fits the 164-core chip and encrypts correctly, simulated on {} blocks \
         like the paper's eight (green squares, labelled); the Pareto fronts are drawn as \
         staircases: a design is on the front when no other has at least its throughput \
         with fewer cores (or less energy per bit). Reproduce: \
         <code>aesflow explore{blocks} -o DIR</code> writes these two charts \
         (<code>--all</code> lists every design).</p>",
        space.blocks
    );
    let captions = [
        "Throughput against cores (explore-cores.svg); hover a mark for its value.",
        "Energy per bit at 1.3 V against throughput (explore-energy.svg).",
    ];
    for (i, svg) in space.charts.iter().enumerate() {
        s.push_str(&figure(
            &format!("front-chart-{i}"),
            svg,
            captions.get(i).copied().unwrap_or(""),
        ));
    }
    let _ = writeln!(
        s,
        "<details><summary>All {} designs (the front first)</summary>{}</details></section>",
        points.len(),
        t.render()
    );
    s
}

/// Blocks per design of `aesflow explore` by default.
pub const EXPLORE_BLOCKS: usize = 4096;
