//! This host's benchmark, run through `aesflow-bench` (kernels, modes,
//! engine, with their peers in the same run), shown as tables and as GB/s
//! by message size; and the host figure of Table 5 taken from it.

use std::fmt::Write;
use std::time::Duration;

use aesflow_bench::{
    BenchOptions, EngineOptions, Machine, Measuring, ModesOptions, Op, Peer, Peers, Row, Section,
    SuiteOptions, SuiteReport, run_suite,
};
use aesflow_chart::{AxisSpec, LineChart, Scale, Series, Style};
use aesflow_cipher::{Kernel, KeySize};
use aesflow_energy::host::{HostCpu, HostFigure};

use crate::html::{Cell, Table, esc, figure};
use crate::{Collected, ReportError};

/// The options of the report's benchmark run: `quick` keeps it to a few
/// seconds (AES-128, three sizes, in-process RustCrypto peers only, no
/// file benchmark); otherwise sizes from 64 B to 1 MiB, AES-128 and
/// AES-256, every peer. The modes and engine sections run on `kernel`.
pub fn suite_options(quick: bool, kernel: &'static dyn Kernel) -> SuiteOptions {
    // The quick run's value or the full run's.
    fn pick<T>(quick: bool, q: T, full: T) -> T {
        if quick { q } else { full }
    }
    let mut peers = Peers::default();
    if quick {
        (peers.openssl, peers.ipsec_mb) = (false, false);
    }
    let measuring = Measuring {
        min_time: Duration::from_millis(pick(quick, 40, 200)),
        repetitions: pick(quick, 3, 5),
        peers,
        openssl_seconds: 1,
    };
    let kernels = BenchOptions {
        key_sizes: pick(
            quick,
            vec![KeySize::Aes128],
            vec![KeySize::Aes128, KeySize::Aes256],
        ),
        sizes: pick(
            quick,
            vec![64, 1024, 16384],
            vec![64, 256, 1024, 4096, 16384, 65536, 1 << 20],
        ),
        ops: pick(quick, vec![Op::EcbEnc, Op::Ctr], Op::ALL.to_vec()),
        measuring,
        ..BenchOptions::quick()
    };
    let modes = ModesOptions {
        streams: pick(quick, vec![1, 8], vec![1, 2, 4, 8, 16, 32, 64]),
        key_sizes: pick(quick, vec![KeySize::Aes128], KeySize::ALL.to_vec()),
        measuring,
        kernel,
        ..ModesOptions::default()
    };
    let engine = EngineOptions {
        mem_size: pick(quick, 8 << 20, 128 << 20),
        reps: pick(quick, 1, 3),
        file_size: pick(quick, 0, 256 << 20),
        file_reps: 2,
        openssl: !quick,
        ipsec_mb: !quick && peers.ipsec_mb,
        kernel,
        ..EngineOptions::default()
    };
    SuiteOptions {
        kernels: Some(kernels),
        modes: Some(modes),
        engine: Some(engine),
    }
}

/// Run the benchmark suite; `progress` is told what is being measured.
pub fn run_bench(
    quick: bool,
    kernel: &'static dyn Kernel,
    progress: &mut dyn FnMut(&str),
) -> Result<SuiteReport, ReportError> {
    run_suite(&suite_options(quick, kernel), progress)
        .map_err(|e| ReportError::Bench(e.to_string()))
}

fn rows(v: &SuiteReport, section: Section) -> &[Row] {
    v.section(section).map_or(&[], |r| r.rows.as_slice())
}

/// The host figure of Table 5 from the kernels section: the fastest kernel
/// on AES-128-CTR at 16 KiB, one core.
pub fn host_figure(v: &SuiteReport) -> Option<HostFigure> {
    let best = rows(v, Section::Kernels)
        .iter()
        .filter(|r| r.op == Op::Ctr.name() && r.key_bits == Some(128) && r.bytes == 16384)
        .max_by(|a, b| a.gbps.total_cmp(&b.gbps))?;
    Some(host_figure_of(
        best,
        &v.machine,
        "AES-128-CTR, 16 KiB, one core (aesflow bench, best of the repetitions)",
    ))
}

/// The energy model's host figure from a benchmark row of one core and the
/// machine it ran on: the speed, the clock and the CPU's name, as plain
/// values (the energy model does not depend on the benchmark).
pub fn host_figure_of(row: &Row, machine: &Machine, workload: &str) -> HostFigure {
    HostFigure {
        kernel: row.implementation.clone(),
        workload: workload.into(),
        bytes_per_second: row.gbps * 1e9,
        clock_ghz: machine.clock_ghz,
        clock_source: machine.clock_source.clone(),
        processor: HostCpu {
            name: machine.cpu.model.clone(),
            family: machine.cpu.family,
            model: machine.cpu.model_number,
        },
    }
}

/// The peers present in any of `rows`, in column order.
fn peers_in<'a>(rows: impl Iterator<Item = &'a Row> + Clone) -> Vec<Peer> {
    Peer::ALL
        .into_iter()
        .filter(|p| rows.clone().any(|r| r.peers.iter().any(|f| f.peer == *p)))
        .collect()
}

/// A section's rows as a table: what was measured, aesflow's GB/s and
/// cycles per byte, each peer's GB/s and aesflow's ratio to it.
fn rows_table(id: &str, caption: &str, rows: &[Row]) -> String {
    let peers = peers_in(rows.iter());
    let mut headers: Vec<(String, String)> = vec![
        ("op".into(), "operation".into()),
        ("implementation".into(), "aesflow kernel or path".into()),
        ("key".into(), "AES key size (bits)".into()),
        ("bytes".into(), "message or buffer size".into()),
        (
            "streams".into(),
            "independent messages processed together".into(),
        ),
        ("threads".into(), "worker threads".into()),
        (
            "GB/s".into(),
            "aesflow's throughput, 10^9 bytes per second".into(),
        ),
        ("c/B".into(), "cycles per byte at the nominal clock".into()),
        (
            "vs base".into(),
            "ratio to the row named in its baseline".into(),
        ),
    ];
    for p in &peers {
        headers.push((format!("{} GB/s", p.abbrev()), p.describe().into()));
        headers.push((
            format!("x {}", p.abbrev()),
            format!("aesflow / {} (above 1: aesflow faster)", p.abbrev()),
        ));
    }
    let h: Vec<(&str, &str)> = headers
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let mut t = Table::new(id, caption, &h);
    for r in rows {
        let mut cells = vec![
            Cell::text(&r.op),
            Cell::text(&r.implementation),
            Cell::opt(r.key_bits.map(|b| b as f64), 0),
            Cell {
                html: esc(&aesflow_bench::measure::human_size(r.bytes)),
                sort: Some(r.bytes as f64),
                class: "num",
            },
            Cell::num(r.streams as f64, 0),
            Cell::num(r.threads as f64, 0),
            Cell::num(r.gbps, 3),
            Cell::num(r.cycles_per_byte, 3),
            match (&r.baseline, r.vs_baseline) {
                (Some(b), Some(v)) => Cell {
                    html: format!("{v:.2} ({})", esc(b)),
                    sort: Some(v),
                    class: "num",
                },
                _ => Cell::text("-"),
            },
        ];
        for p in &peers {
            let f = r.peers.iter().find(|f| f.peer == *p);
            cells.push(Cell::opt(f.map(|f| f.gbps), 3));
            cells.push(Cell::opt(f.map(|f| f.ratio), 2));
        }
        t.rows.push(cells);
    }
    t.render()
}

/// GB/s by message size: one chart per kernel operation at AES-128, one
/// line per kernel, the peers as hollow markers.
fn size_charts(v: &SuiteReport) -> String {
    let rs: Vec<&Row> = rows(v, Section::Kernels)
        .iter()
        .filter(|r| r.key_bits == Some(128))
        .collect();
    let mut ops: Vec<&str> = rs.iter().map(|r| r.op.as_str()).collect();
    ops.sort_unstable();
    ops.dedup();
    let mut out = String::new();
    for op in ops {
        let mine: Vec<&&Row> = rs.iter().filter(|r| r.op == op).collect();
        let mut kernels: Vec<&str> = mine.iter().map(|r| r.implementation.as_str()).collect();
        kernels.sort_unstable();
        kernels.dedup();
        let line = |k: &str, g: &dyn Fn(&Row) -> Option<f64>| -> Vec<(f64, f64)> {
            let mut p: Vec<(f64, f64)> = mine
                .iter()
                .filter(|r| r.implementation == k)
                .filter_map(|r| Some((r.bytes as f64, g(r)?)))
                .collect();
            p.sort_by(|a, b| a.0.total_cmp(&b.0));
            p
        };
        let mut series: Vec<Series> = kernels
            .iter()
            .enumerate()
            .map(|(i, k)| Series {
                label: format!("aesflow {k}"),
                points: line(k, &|r| Some(r.gbps)),
                style: Style::Line,
                colour: i,
                tips: vec![],
            })
            .collect();
        let first = kernels.first().copied().unwrap_or("");
        for (j, p) in peers_in(mine.iter().map(|r| **r)).into_iter().enumerate() {
            series.push(Series {
                label: format!("{} (peer, same run)", p.describe()),
                points: line(first, &|r| {
                    r.peers.iter().find(|f| f.peer == p).map(|f| f.gbps)
                }),
                style: Style::Markers,
                colour: 5 + j,
                tips: vec![],
            });
        }
        let svg = LineChart {
            title: format!("AES-128 {op}: throughput by message size (one core)"),
            x: AxisSpec::new("message size (bytes, log scale)", Scale::Log2),
            y: AxisSpec::new("throughput (GB/s)", Scale::Linear),
            series,
            refs: vec![],
        }
        .render();
        out.push_str(&figure(
            &format!("bench-size-{op}"),
            &svg,
            &format!(
                "GB/s by message size, AES-128 {}, measured on this host.",
                esc(op)
            ),
        ));
    }
    out
}

fn machine(v: &SuiteReport, c: &Collected) -> String {
    let m = &v.machine;
    let secs: Vec<String> = v
        .sections
        .iter()
        .map(|s| format!("{} {:.1} s", s.section.name(), s.seconds))
        .collect();
    format!(
        "<p>CPU: <b>{}</b>, {} logical CPUs, nominal clock {:.2} GHz ({}); default kernel {}. \
         {}; OpenSSL: {}; ipsec-mb: {}; aesflow {}. Load average before {}, after {} (the \
         machine may be shared: every figure is the best of several repetitions, and every \
         ratio compares runs made side by side). Sections: {}. Mode: {}.</p>",
        esc(m.cpu.model.as_deref().unwrap_or("unknown")),
        m.logical_cpus,
        m.clock_ghz,
        esc(&m.clock_source),
        esc(&m.default_kernel),
        esc(&m.rustc),
        m.openssl.as_deref().map_or("not found".into(), esc),
        m.ipsec_mb.as_deref().map_or("not built in".into(), esc),
        env!("CARGO_PKG_VERSION"),
        esc(m.load_before.as_deref().unwrap_or("?")),
        esc(m.load_after.as_deref().unwrap_or("?")),
        secs.join(", "),
        if c.options.quick {
            "--quick (short runs, in-process peers only, no file benchmark)"
        } else {
            "full"
        }
    )
}

/// The host benchmark section.
pub fn section(c: &Collected) -> String {
    let mut s = String::from("<section id=\"host\"><h2>7. This host: benchmark</h2>");
    let Some((v, _)) = &c.bench else {
        s.push_str("<p>Not run (<code>--no-bench</code>).</p></section>\n");
        return s;
    };
    s.push_str(&machine(v, c));
    s.push_str(&size_charts(v));
    for sec in &v.sections {
        let caption = match sec.section {
            Section::Kernels => "Kernels: ECB and CTR on one core, beside the peers",
            Section::Modes => "Modes: multi-stream CBC, CBC decryption, CTR, GCM, XTS",
            Section::Engine => "Engine: all cores, in memory and on files",
        };
        let _ = write!(s, "<h3>{}</h3>", esc(caption));
        s.push_str(&rows_table(
            &format!("bench-{}", sec.section.name()),
            caption,
            &sec.report.rows,
        ));
        if !sec.report.notes.is_empty() {
            s.push_str("<ul class=\"legend\">");
            for n in &sec.report.notes {
                let _ = write!(s, "<li>{}</li>", esc(n));
            }
            s.push_str("</ul>");
        }
    }
    s.push_str("</section>\n");
    s
}
