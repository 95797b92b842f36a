//! `aesflow sdf FILE.xml`: analyse any synchronous dataflow graph in SDF3's
//! XML format — consistency and repetition vector, deadlock, throughput and
//! the critical cycle (SDF3's semantics by default), buffer sizing and
//! latency — as text, JSON or Graphviz DOT.

use std::path::{Path, PathBuf};

use aesflow_dataflow::AnalysisOptions;
use aesflow_dataflow::analysis::buffer::BufferOptions;
use aesflow_dataflow::report::{BufferReport, CycleStep, Report, ReportOptions, analyse};
use aesflow_dataflow::sdf3::{self, ReadOptions};
use anyhow::{Context, bail};
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

/// Largest input file read (the XML is held in memory while parsed).
const MAX_FILE_BYTES: u64 = 1 << 30;

/// Rows of a per-actor table printed without `--all`.
const TABLE_ROWS: usize = 40;

/// Execution semantics of the throughput analysis.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Semantics {
    /// SDF3's `throughput`: an actor may fire concurrently with itself
    /// (auto-concurrency) unless a self-edge forbids it.
    Sdf3,
    /// Every actor is a sequential process: its firings never overlap.
    Sequential,
}

/// Arguments of `aesflow sdf`.
#[derive(clap::Args, Debug)]
pub struct SdfArgs {
    /// The graph: an SDF3 XML file (`<sdf3 type="sdf">`); `-` reads stdin.
    pub file: PathBuf,
    /// Throughput semantics: `sdf3` (auto-concurrency, as SDF3) or
    /// `sequential` (no actor overlaps with itself).
    #[arg(long, value_enum, default_value_t = Semantics::Sdf3)]
    pub semantics: Semantics,
    /// Bound every channel by its `<bufferSize sz>` (SDF3's throughput
    /// analysis ignores buffer sizes; so does aesflow by default).
    #[arg(long)]
    pub capacities: bool,
    /// Storage/throughput trade-off: the Pareto points of total buffer size
    /// against throughput, and the minimal deadlock-free capacities.
    #[arg(long)]
    pub buffers: bool,
    /// Latency from actor SRC to actor DST in self-timed execution.
    #[arg(long, num_args = 2, value_names = ["SRC", "DST"])]
    pub latency: Option<Vec<String>>,
    /// Cross-check the throughput by explicit state-space exploration.
    #[arg(long)]
    pub state_space: bool,
    /// Machine-readable output (JSON).
    #[arg(long, conflicts_with = "dot")]
    pub json: bool,
    /// Write the graph as Graphviz DOT instead of the analysis.
    #[arg(long, conflicts_with = "sequential_xml")]
    pub dot: bool,
    /// Write the graph back as SDF3 XML with a self-edge on every actor, so
    /// that SDF3's semantics give its `--semantics sequential` period.
    #[arg(long)]
    pub sequential_xml: bool,
    /// Output file (`-` for stdout).
    #[arg(short = 'o', long, value_name = "PATH", default_value = "-")]
    pub output: PathBuf,
    /// Overwrite an existing output file.
    #[arg(long)]
    pub force: bool,
    /// List every actor (tables show the first 40 otherwise).
    #[arg(long)]
    pub all: bool,
    /// Deepest XML element nesting accepted (checked before parsing).
    #[arg(long, value_name = "N", default_value_t = ReadOptions::default().max_depth)]
    pub max_depth: usize,
    /// Largest equivalent HSDF graph analysed (sum of the repetition vector).
    #[arg(long, value_name = "N", default_value_t = AnalysisOptions::default().max_hsdf_nodes)]
    pub max_hsdf_nodes: u64,
    /// Work budget of the iterative analyses (steps / policy rounds).
    #[arg(long, value_name = "N", default_value_t = AnalysisOptions::default().max_work)]
    pub max_work: u64,
    /// Storage distributions evaluated at most by --buffers.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_distributions: usize,
}

/// Runs `aesflow sdf`.
pub fn run(a: SdfArgs) -> anyhow::Result<()> {
    let xml = read_input(&a.file)?;
    let ropts = ReadOptions {
        max_depth: a.max_depth,
        ..ReadOptions::default()
    };
    let imp = sdf3::from_xml_with(&xml, &ropts)
        .with_context(|| format!("reading {}", a.file.display()))?;
    drop(xml);
    let g = imp.graph;
    if a.dot {
        return emit(&a, &g.to_dot());
    }
    if a.sequential_xml {
        let w = sdf3::WriteOptions {
            sequential_actors: true,
        };
        return emit(&a, &sdf3::to_xml_with(&g, &w)?);
    }
    let opts = AnalysisOptions {
        auto_concurrency: a.semantics == Semantics::Sdf3,
        respect_capacities: a.capacities,
        max_hsdf_nodes: a.max_hsdf_nodes,
        max_work: a.max_work,
        ..AnalysisOptions::default()
    };
    let ro = ReportOptions {
        file: a.file.display().to_string(),
        state_space: a.state_space,
        max_steps: a.max_work,
        buffers: a.buffers.then_some(BufferOptions {
            max_distributions: a.max_distributions,
            ..BufferOptions::default()
        }),
        latency: a.latency.as_ref().map(|p| (p[0].clone(), p[1].clone())),
    };
    // Buffer sizing and the state space can take seconds: a spinner on a
    // terminal.
    let bar = crate::bench_cmd::progress_bar();
    if let Some(b) = &bar {
        b.set_message(format!("analysing {}", a.file.display()));
    }
    let report = analyse(&g, imp.warnings, &opts, &ro);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let text = if a.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        format_text(&report, a.all)
    };
    emit(&a, &text)
}

fn read_input(path: &Path) -> anyhow::Result<String> {
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin().lock(), &mut s)
            .context("reading stdin")?;
        return Ok(s);
    }
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    if meta.len() > MAX_FILE_BYTES {
        bail!(
            "{} is {} bytes, more than the {} accepted",
            path.display(),
            meta.len(),
            MAX_FILE_BYTES
        );
    }
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn emit(a: &SdfArgs, text: &str) -> anyhow::Result<()> {
    crate::text_out::write(&a.output, text, a.force)
}

fn format_buffers(b: &BufferReport, all: bool, line: &mut impl FnMut(String)) {
    line(format!(
        "buffer sizing: {} Pareto points ({} distributions evaluated{})",
        b.points.len(),
        b.evaluated,
        if b.complete {
            ""
        } else {
            "; stopped at --max-distributions before the maximal throughput"
        }
    ));
    let rows = b.points.iter().map(|p| {
        let caps: Vec<String> = p
            .capacities
            .iter()
            .map(|(c, n)| format!("{c}={n}"))
            .collect();
        [
            p.size.to_string(),
            format!("{:.6e}", p.throughput_f64),
            caps.join(" "),
        ]
    });
    print_table(
        line,
        ["size", "throughput", "capacities"],
        rows,
        all,
        "points (--all)",
        "size: total tokens of storage over all channels; throughput: iterations per time unit; capacities: tokens per channel of one minimal distribution",
    );
    if let Some(i) = b.min_deadlock_free {
        line(format!(
            "minimal deadlock-free capacities: total {} tokens (first row above with a positive throughput: row {})",
            b.points[i].size,
            i + 1
        ));
    }
}

/// Runs of consecutive cycle steps of one actor via the same kind of
/// dependency: (first index, last index, tokens summed).
fn runs(c: &[CycleStep]) -> Vec<(usize, usize, u64)> {
    let mut v: Vec<(usize, usize, u64)> = Vec::new();
    for (i, st) in c.iter().enumerate() {
        match v.last_mut() {
            Some((first, last, tok))
                if c[*first].actor == st.actor
                    && c[*first].via == st.via
                    && c[*last].firing + 1 == st.firing =>
            {
                *last = i;
                *tok = tok.saturating_add(st.tokens);
            }
            _ => v.push((i, i, st.tokens)),
        }
    }
    v
}

fn table() -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    if t.width().is_none() {
        // not a terminal: wrap for an 100-column page
        t.set_width(100);
    }
    t
}

/// A table of `rows` under `header` (the first [`TABLE_ROWS`] unless
/// `all`), then how many rows it leaves out (`... N more {more}`) and the
/// `legend`. Only the rows shown are formatted.
fn print_table<const N: usize>(
    line: &mut impl FnMut(String),
    header: [&str; N],
    rows: impl ExactSizeIterator<Item = [String; N]>,
    all: bool,
    more: &str,
    legend: &str,
) {
    let mut t = table();
    t.set_header(header);
    let total = rows.len();
    let shown = if all { total } else { TABLE_ROWS };
    for row in rows.take(shown) {
        t.add_row(row);
    }
    line(t.to_string());
    if total > shown {
        line(format!("... {} more {more}", total - shown));
    }
    line(legend.to_string());
}

fn format_text(r: &Report, all: bool) -> String {
    let mut s = String::new();
    let mut line = |x: String| {
        s.push_str(&x);
        s.push('\n');
    };
    line(format!(
        "graph {} ({}): {} actors, {} channels",
        r.graph, r.file, r.actors, r.channels
    ));
    line(format!("semantics: {}", r.semantics));
    if r.capacities {
        line("channel capacities (<bufferSize sz>) respected".into());
    }
    for w in &r.warnings {
        line(format!("note: {w}"));
    }
    if !r.consistent {
        for e in &r.errors {
            line(format!("NOT consistent: {e}"));
        }
        return s;
    }
    line("consistent: yes".into());
    let rows = r.repetition_vector.iter().map(|row| {
        [
            row.name.clone(),
            row.firings.to_string(),
            row.exec_time.to_string(),
        ]
    });
    print_table(
        &mut line,
        ["actor", "q", "exec"],
        rows,
        all,
        "actors (--all lists them, --json gives everything)",
        "q: firings per iteration (repetition vector); exec: execution time of one firing",
    );
    match r.deadlock_free {
        Some(true) => line("deadlock-free: yes".into()),
        Some(false) => line(format!(
            "deadlock-free: NO; stuck actors: {}",
            r.stuck_actors.join(", ")
        )),
        None => {}
    }
    if let Some(th) = &r.throughput {
        match th.throughput {
            Some(x) => line(format!(
                "throughput: {x:.6e} iterations per time unit (exactly {}); period {} = {:.3} time units per iteration",
                th.throughput_exact.as_deref().unwrap_or("-"),
                th.period,
                th.period_f64
            )),
            None => line("throughput: unbounded (no cycle constrains the execution)".into()),
        }
        if !th.critical_cycle.is_empty() {
            line(format!(
                "critical cycle ({} firings, actors {}):",
                th.critical_cycle.len(),
                th.critical_actors.join(" -> ")
            ));
            let rows = runs(&th.critical_cycle)
                .into_iter()
                .map(|(first, last, tok)| {
                    let (a, b) = (&th.critical_cycle[first], &th.critical_cycle[last]);
                    let firings = if first == last {
                        a.firing.to_string()
                    } else {
                        format!("{}..{}", a.firing, b.firing)
                    };
                    [a.actor.clone(), firings, a.via.clone(), tok.to_string()]
                });
            print_table(
                &mut line,
                ["actor", "firings", "to the next firing via", "tok"],
                rows,
                all,
                "rows (--all)",
                "firings: which firings of the actor within an iteration, in cycle order; tok: initial tokens on those dependencies (iterations they span)",
            );
        }
        line(format!(
            "equivalent HSDF graph: {} nodes, {} edges",
            th.hsdf_nodes, th.hsdf_edges
        ));
    }
    if let Some(p) = &r.state_space_period {
        line(format!("state-space exploration: period {p}"));
    }
    if let Some(b) = &r.buffers {
        format_buffers(b, all, &mut line);
    }
    if let Some(l) = &r.latency {
        line(format!(
            "latency {} -> {}: {} time units (self-timed, from the start of an iteration of {} to the end of the {} firing that answers it)",
            l.src, l.dst, l.latency, l.src, l.dst
        ));
    }
    for e in &r.errors {
        line(format!("error: {e}"));
    }
    s
}
