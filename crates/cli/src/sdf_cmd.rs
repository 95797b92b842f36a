//! `aesflow sdf FILE.xml`: analyse any synchronous dataflow graph in SDF3's
//! XML format — consistency and repetition vector, deadlock, throughput and
//! the critical cycle (SDF3's semantics by default), buffer sizing and
//! latency — as text, JSON or Graphviz DOT.
//!
//! Exit status: 0 when every analysis asked for has its answer (a deadlock
//! is an answer); 1 when one has none (an inconsistent graph, a size or
//! work limit, an overflow, latency on a graph that is not strongly
//! connected, ...): the report is still written, with an `error:` line per
//! failed analysis, and stderr names them; 2 for an actor name in
//! `--latency` that the graph does not have (nothing is analysed).
//!
//! The text report stays readable and linear in the input's size: a name
//! longer than [`NAME_CHARS`] characters is shown by its ends and its
//! length, a list of more than [`LIST_ITEMS`] actors (a long critical
//! cycle, the stuck actors) by its first and last ones and its length, and
//! a storage distribution by its first channels; `--json` has everything.

use std::path::{Path, PathBuf};

use aesflow_dataflow::AnalysisOptions;
use aesflow_dataflow::analysis::buffer::BufferOptions;
use aesflow_dataflow::report::{
    BufferReport, CycleStep, Report, ReportOptions, analyse_with_progress,
};
use aesflow_dataflow::sdf3::{self, ReadOptions};
use anyhow::{Context, bail};
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

/// Largest input file read (the XML is held in memory while parsed).
const MAX_FILE_BYTES: u64 = 1 << 30;

/// Rows of a per-actor table printed without `--all`.
const TABLE_ROWS: usize = 40;

/// Longest name printed whole in the text report.
pub const NAME_CHARS: usize = 60;

/// Longest list of actors printed whole in the text report.
pub const LIST_ITEMS: usize = 12;

/// Channel capacities printed per Pareto point without `--all`.
const CAPACITIES_SHOWN: usize = 8;

/// Exit status of a usage error (as clap's).
const USAGE: u8 = 2;

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
    /// Work budget of the iterative analyses: steps of the deadlock check
    /// and of the latency and state-space simulations, policy rounds of
    /// Howard's algorithm, and for --buffers the HSDF nodes and edges of
    /// every distribution evaluated (its pending distributions may hold at
    /// most N/8 capacities, N bytes).
    #[arg(long, value_name = "N", default_value_t = AnalysisOptions::default().max_work)]
    pub max_work: u64,
    /// Storage distributions evaluated at most by --buffers; a search
    /// stopped by it reports a partial front.
    #[arg(long, value_name = "N", default_value_t = BufferOptions::default().max_distributions)]
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
    if let Some(names) = &a.latency {
        for n in names {
            if g.find_actor(n).is_none() {
                return Err(crate::exit::CliError {
                    code: USAGE,
                    message: format!(
                        "--latency: {} has no actor named `{}`",
                        a.file.display(),
                        short(n)
                    ),
                }
                .into());
            }
        }
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
    // terminal, with the buffer search's progress.
    let bar = crate::bench_cmd::progress_bar();
    let file = short(&a.file.display().to_string()).into_owned();
    let report = analyse_with_progress(&g, imp.warnings, &opts, &ro, &mut |step| {
        if let Some(b) = &bar {
            b.set_message(format!("{file}: {step}"));
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let text = if a.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        format_text(&report, a.all)
    };
    emit(&a, &text)?;
    if report.errors.is_empty() {
        return Ok(());
    }
    // the report holds the messages; stderr says which analyses failed
    let n = report.failed.len();
    let place = if a.json {
        "\"errors\" in the report"
    } else {
        "the report"
    };
    anyhow::bail!(
        "{n} analysis error{} ({}); the messages are in {place}",
        if n == 1 { "" } else { "s" },
        report.failed.join(", ")
    )
}

/// `name`, or for a name longer than [`NAME_CHARS`] characters its first
/// and last characters and its length.
fn short(name: &str) -> std::borrow::Cow<'_, str> {
    let n = name.chars().count();
    if n <= NAME_CHARS {
        return name.into();
    }
    let keep = (NAME_CHARS - 20) / 2;
    let head: String = name.chars().take(keep).collect();
    let tail: String = name.chars().skip(n - keep).collect();
    format!("{head}…{tail} ({n} chars)").into()
}

/// `items` joined by `sep` (names shortened), or for more than
/// [`LIST_ITEMS`] the first and last few and how many there are.
fn summary(items: &[String], sep: &str) -> String {
    let n = items.len();
    let join = |v: &[String]| v.iter().map(|x| short(x)).collect::<Vec<_>>().join(sep);
    if n <= LIST_ITEMS {
        return join(items);
    }
    let k = LIST_ITEMS / 2 - 1;
    format!(
        "{}{sep}…{sep}{} ({n} in all; --json lists them)",
        join(&items[..k]),
        join(&items[n - k..])
    )
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
    let best = b.points.last();
    let share = match (best.and_then(|p| p.throughput_f64), &b.max_throughput) {
        (Some(t), Some(m)) => {
            let m = m
                .split_once('/')
                .map_or_else(
                    || m.parse::<f64>(),
                    |(x, y)| Ok(x.parse::<f64>()? / y.parse::<f64>()?),
                )
                .unwrap_or(f64::NAN);
            format!(", {:.1} % of the maximal throughput", 100.0 * t / m)
        }
        _ => String::new(),
    };
    line(format!(
        "buffer sizing: {} Pareto points ({} of at most {} distributions evaluated){}",
        b.points.len(),
        b.evaluated,
        b.max_distributions,
        if b.complete {
            String::new()
        } else {
            format!(
                "; PARTIAL FRONT ({}){share}",
                b.stopped.as_deref().unwrap_or("stopped")
            )
        }
    ));
    let rows = b.points.iter().map(|p| {
        let shown = if all {
            p.capacities.len()
        } else {
            CAPACITIES_SHOWN
        };
        let mut caps: Vec<String> = p
            .capacities
            .iter()
            .take(shown)
            .map(|(c, n)| format!("{}={n}", short(c)))
            .collect();
        if p.capacities.len() > shown {
            caps.push(format!(
                "… ({} channels; --all or --json)",
                p.capacities.len()
            ));
        }
        [
            p.size.to_string(),
            p.throughput_f64
                .map_or_else(|| "unbounded".to_string(), |t| format!("{t:.6e}")),
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
    if !b.complete {
        line(format!(
            "partial front: the search stopped ({}) before the maximal throughput; larger distributions may reach more",
            b.stopped.as_deref().unwrap_or("stopped")
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
        short(&r.graph),
        short(&r.file),
        r.actors,
        r.channels
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
            short(&row.name).into_owned(),
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
            summary(&r.stuck_actors, ", ")
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
                "critical cycle ({} firings, {} actors: {}):",
                th.critical_cycle.len(),
                th.critical_actors.len(),
                summary(&th.critical_actors, " -> ")
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
                    [
                        short(&a.actor).into_owned(),
                        firings,
                        short(&a.via).into_owned(),
                        tok.to_string(),
                    ]
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
            "latency {src} -> {dst}: {} time units (self-timed, from the start of an iteration of {src} to the end of the {dst} firing that answers it)",
            l.latency,
            src = short(&l.src),
            dst = short(&l.dst),
        ));
    }
    for e in &r.errors {
        line(format!("error: {e}"));
    }
    s
}
