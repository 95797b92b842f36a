//! A named, serialisable report of a graph's analyses (consistency,
//! repetition vector, deadlock, throughput and critical cycle, buffer
//! sizing, latency), with actor and channel names instead of ids: what a
//! tool prints or writes as JSON. Analyses that have no answer (a size or
//! work limit, an overflow, an inconsistent graph, a latency or state space
//! asked of a deadlocking graph) leave their error in [`Report::errors`]: a
//! report is an analysis error exactly when that list is not empty. A
//! deadlock is itself an answer ([`Report::deadlock_free`]).

use serde::Serialize;

use crate::analysis::AnalysisOptions;
use crate::analysis::buffer::{BufferAnalysis, BufferOptions, BufferProgress, UNBOUNDED};
use crate::error::SdfError;
use crate::graph::{EdgeOrigin, SdfGraph};
use crate::rational::Rational;

/// What [`analyse`] runs besides consistency, deadlock and throughput.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// The input's name, copied into [`Report::file`].
    pub file: String,
    /// Cross-check the period by state-space exploration.
    pub state_space: bool,
    /// Step budget of the state-space exploration and the latency
    /// simulation.
    pub max_steps: u64,
    /// Run the buffer sizing with these limits.
    pub buffers: Option<BufferOptions>,
    /// Latency between these two actors (by name).
    pub latency: Option<(String, String)>,
}

/// One actor's line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct ActorRow {
    /// Actor name.
    pub name: String,
    /// Firings per iteration (repetition vector entry).
    pub firings: u64,
    /// Execution time of one firing.
    pub exec_time: u64,
}

/// One firing on the critical cycle.
#[derive(Debug, Clone, Serialize)]
pub struct CycleStep {
    /// Actor name.
    pub actor: String,
    /// Which firing of the actor within an iteration.
    pub firing: u64,
    /// What leads to the next firing: a channel, a channel's capacity, or
    /// the actor's own sequential order.
    pub via: String,
    /// Initial tokens on the dependency (iterations it spans).
    pub tokens: u64,
}

/// Throughput of the graph and its critical cycle.
#[derive(Debug, Clone, Serialize)]
pub struct ThroughputReport {
    /// Time units per graph iteration, exact (`a` or `a/b`); `0` if
    /// nothing bounds the execution.
    pub period: String,
    /// The period, approximately.
    pub period_f64: f64,
    /// Iterations per time unit (`null` if unbounded).
    pub throughput: Option<f64>,
    /// Iterations per time unit, exact (`None` if unbounded).
    pub throughput_exact: Option<String>,
    /// The firings of a critical cycle, in cycle order.
    pub critical_cycle: Vec<CycleStep>,
    /// Distinct actors on the critical cycle.
    pub critical_actors: Vec<String>,
    /// Nodes of the equivalent HSDF graph.
    pub hsdf_nodes: usize,
    /// Edges of the equivalent HSDF graph.
    pub hsdf_edges: usize,
}

/// Everything `aesflow sdf` reports about a graph.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The input's name.
    pub file: String,
    /// The graph's name.
    pub graph: String,
    /// Number of actors.
    pub actors: usize,
    /// Number of channels.
    pub channels: usize,
    /// The throughput semantics, in words.
    pub semantics: String,
    /// Whether channel capacities bound the execution.
    pub capacities: bool,
    /// Corner cases met while reading the input.
    pub warnings: Vec<String>,
    /// Whether the balance equations have a solution.
    pub consistent: bool,
    /// Firings per iteration of every actor.
    pub repetition_vector: Vec<ActorRow>,
    /// Whether one iteration can complete (`None` if not checked).
    pub deadlock_free: Option<bool>,
    /// Actors that cannot complete an iteration.
    pub stuck_actors: Vec<String>,
    /// Throughput and critical cycle (`None` on error).
    pub throughput: Option<ThroughputReport>,
    /// Why an analysis has no answer (size or work limit, overflow, ...):
    /// one message per failed analysis.
    pub errors: Vec<String>,
    /// The analyses that failed, in the order of `errors`
    /// (`consistency`, `deadlock check`, `throughput`, `state space`,
    /// `buffer sizing`, `latency`).
    pub failed: Vec<&'static str>,
    /// State space period.
    pub state_space_period: Option<String>,
    /// Storage/throughput trade-off, if asked for.
    pub buffers: Option<BufferReport>,
    /// Latency, if asked for.
    pub latency: Option<LatencyReport>,
}

impl Report {
    fn fail(&mut self, analysis: &'static str, message: String) {
        self.failed.push(analysis);
        self.errors.push(message);
    }
}

/// One storage/throughput Pareto point.
#[derive(Debug, Clone, Serialize)]
pub struct BufferPoint {
    /// Total storage (tokens over all channels).
    pub size: u128,
    /// Iterations per time unit, exact (`unbounded` when no cycle with a
    /// positive time bounds it).
    pub throughput: String,
    /// Throughput f64 (`null` when unbounded).
    pub throughput_f64: Option<f64>,
    /// Capacity per channel name.
    pub capacities: Vec<(String, u64)>,
}

/// The storage/throughput trade-off.
#[derive(Debug, Clone, Serialize)]
pub struct BufferReport {
    /// Pareto points by increasing size.
    pub points: Vec<BufferPoint>,
    /// Index into `points` of the minimal deadlock-free distribution.
    pub min_deadlock_free: Option<usize>,
    /// Throughput with unbounded channels, exact (`None`: unbounded).
    pub max_throughput: Option<String>,
    /// Whether the search reached the maximal throughput; `false`: the
    /// points are a partial front.
    pub complete: bool,
    /// Which limit stopped a partial front (`None` when complete).
    pub stopped: Option<String>,
    /// Distributions evaluated.
    pub evaluated: usize,
    /// The evaluation cap (`--max-distributions`).
    pub max_distributions: usize,
    /// Work spent (HSDF nodes and edges evaluated, capacities stored).
    pub work: u64,
}

/// Latency between two actors.
#[derive(Debug, Clone, Serialize)]
pub struct LatencyReport {
    /// Source actor.
    pub src: String,
    /// Destination actor.
    pub dst: String,
    /// Time units from the start of a source iteration to the end of the destination firing answering it.
    pub latency: u64,
}

fn name(g: &SdfGraph, i: usize) -> String {
    g.actors()[i].name.clone()
}

/// Runs the analyses `ro` asks for on `g` under `opts`; a failing analysis
/// records its error in [`Report::errors`] and the others still run.
pub fn analyse(
    g: &SdfGraph,
    warnings: Vec<String>,
    opts: &AnalysisOptions,
    ro: &ReportOptions,
) -> Report {
    analyse_with_progress(g, warnings, opts, ro, &mut |_| {})
}

/// [`analyse`], telling `progress` which analysis runs (and, during buffer
/// sizing, after every distribution, how far it got) in one line of text.
pub fn analyse_with_progress(
    g: &SdfGraph,
    warnings: Vec<String>,
    opts: &AnalysisOptions,
    ro: &ReportOptions,
    progress: &mut dyn FnMut(&str),
) -> Report {
    let mut r = Report {
        file: ro.file.clone(),
        graph: g.name().to_string(),
        actors: g.num_actors(),
        channels: g.num_channels(),
        semantics: if opts.auto_concurrency {
            "sdf3 (auto-concurrency, SDF3's throughput)".into()
        } else {
            "sequential (no actor overlaps with itself)".into()
        },
        capacities: opts.respect_capacities,
        warnings,
        consistent: false,
        repetition_vector: Vec::new(),
        deadlock_free: None,
        stuck_actors: Vec::new(),
        throughput: None,
        errors: Vec::new(),
        failed: Vec::new(),
        state_space_period: None,
        buffers: None,
        latency: None,
    };
    progress("consistency and deadlock");
    let q = match g.repetition_vector() {
        Ok(q) => q,
        Err(e) => {
            r.fail("consistency", describe(g, &e));
            return r;
        }
    };
    r.consistent = true;
    r.repetition_vector = g
        .actors()
        .iter()
        .zip(q.as_slice())
        .map(|(act, &n)| ActorRow {
            name: act.name.clone(),
            firings: n,
            exec_time: act.exec_time,
        })
        .collect();
    // the deadlock check of `check_deadlock_with`, and the throughput
    // analysis of `analyze_throughput_with` (size guard, schedule, HSDF)
    // after it, without computing the repetition vector or the schedule
    // again
    let schedule = g.deadlock_for(&q, opts);
    match &schedule {
        Ok(_) => r.deadlock_free = Some(true),
        Err(SdfError::Deadlock { stuck }) => {
            r.deadlock_free = Some(false);
            r.stuck_actors = stuck.iter().map(|s| name(g, s.index())).collect();
        }
        Err(e) => r.fail("deadlock check", describe(g, e)),
    }
    if r.deadlock_free == Some(false) {
        // a deadlock is the answer of the deadlock check and leaves no
        // throughput; an analysis asked for that needs a live graph has no
        // answer, which is an error. Buffer sizing still runs: it chooses
        // the capacities itself.
        let dead = "not computed: the graph deadlocks";
        if ro.state_space {
            r.fail("state space", format!("state space: {dead}"));
        }
        buffers(g, opts, ro, &mut r, progress);
        if ro.latency.is_some() {
            r.fail("latency", format!("latency: {dead}"));
        }
        return r;
    }
    progress("throughput");
    let throughput = g
        .check_hsdf_size_for(&q, opts)
        .and(schedule)
        .and_then(|_| g.hsdf_for(q, opts)?.throughput(opts.max_work));
    match throughput {
        Ok(t) => {
            r.throughput = Some(ThroughputReport {
                period: t.period.to_string(),
                period_f64: t.period.to_f64(),
                throughput: (!t.period.is_zero()).then(|| t.throughput()),
                throughput_exact: t.throughput_exact().map(|x| x.to_string()),
                critical_cycle: t
                    .critical_firings
                    .iter()
                    .map(|f| CycleStep {
                        actor: name(g, f.actor.index()),
                        firing: f.firing,
                        via: via(g, f.via),
                        tokens: f.tokens,
                    })
                    .collect(),
                critical_actors: t
                    .critical_actors()
                    .iter()
                    .map(|x| name(g, x.index()))
                    .collect(),
                hsdf_nodes: t.hsdf_size.0,
                hsdf_edges: t.hsdf_size.1,
            })
        }
        Err(e) => r.fail("throughput", describe(g, &e)),
    }
    if ro.state_space {
        progress("state space");
        match g.self_timed_period(opts, ro.max_steps) {
            Ok(p) => r.state_space_period = Some(p.to_string()),
            Err(e) => r.fail("state space", format!("state space: {}", describe(g, &e))),
        }
    }
    buffers(g, opts, ro, &mut r, progress);
    if let Some((src, dst)) = &ro.latency {
        progress("latency");
        match latency(g, src, dst, opts, ro.max_steps) {
            Ok(l) => r.latency = Some(l),
            Err(e) => r.fail("latency", format!("latency: {}", describe(g, &e))),
        }
    }
    r
}

/// The buffer sizing `ro` asks for, into `r`.
fn buffers(
    g: &SdfGraph,
    opts: &AnalysisOptions,
    ro: &ReportOptions,
    r: &mut Report,
    progress: &mut dyn FnMut(&str),
) {
    let Some(bopts) = &ro.buffers else { return };
    progress("buffer sizing");
    let mut tell = |p: &BufferProgress| progress(&buffer_progress(p));
    match g.buffer_tradeoff_with_progress(opts, bopts, &mut tell) {
        Ok(b) => r.buffers = Some(buffer_report(g, &b, bopts)),
        Err(e) => r.fail(
            "buffer sizing",
            format!("buffer sizing: {}", describe(g, &e)),
        ),
    }
}

/// `buffer sizing: 1200/20000 distributions, 4 points, best 1.2e-3 (13.0 %
/// of the maximum)`.
pub fn buffer_progress(p: &BufferProgress) -> String {
    let share = match p.max_throughput {
        Some(m) if !m.is_zero() && p.best != UNBOUNDED => {
            format!(
                " ({:.1} % of the maximum)",
                100.0 * p.best.to_f64() / m.to_f64()
            )
        }
        _ => String::new(),
    };
    format!(
        "buffer sizing: {}/{} distributions, {} points, best {}{share}",
        p.evaluated,
        p.max_distributions,
        p.points,
        throughput_text(p.best).0
    )
}

/// A throughput as exact text and `f64`, `unbounded` / `None` for
/// [`UNBOUNDED`].
fn throughput_text(t: Rational) -> (String, Option<f64>) {
    if t == UNBOUNDED {
        ("unbounded".into(), None)
    } else {
        (t.to_string(), Some(t.to_f64()))
    }
}

fn buffer_report(g: &SdfGraph, b: &BufferAnalysis, bopts: &BufferOptions) -> BufferReport {
    BufferReport {
        points: b
            .points
            .iter()
            .map(|p| {
                let (throughput, throughput_f64) = throughput_text(p.throughput);
                BufferPoint {
                    size: p.size,
                    throughput,
                    throughput_f64,
                    capacities: g
                        .channels()
                        .iter()
                        .zip(&p.capacities)
                        .map(|(c, &n)| (c.name.clone(), n))
                        .collect(),
                }
            })
            .collect(),
        min_deadlock_free: b.points.iter().position(|p| !p.throughput.is_zero()),
        max_throughput: b.max_throughput.map(|t| t.to_string()),
        complete: b.complete,
        stopped: b.stopped.map(|s| s.describe().to_string()),
        evaluated: b.evaluated,
        max_distributions: bopts.max_distributions,
        work: b.work,
    }
}

fn latency(
    g: &SdfGraph,
    src: &str,
    dst: &str,
    opts: &AnalysisOptions,
    max_steps: u64,
) -> Result<LatencyReport, SdfError> {
    let find = |n: &str| {
        g.find_actor(n).ok_or_else(|| SdfError::UnknownActor {
            name: n.to_string(),
        })
    };
    let l = g.latency(find(src)?, find(dst)?, opts, max_steps)?;
    Ok(LatencyReport {
        src: src.to_string(),
        dst: dst.to_string(),
        latency: l,
    })
}

fn via(g: &SdfGraph, o: EdgeOrigin) -> String {
    match o {
        EdgeOrigin::Channel(c) => format!("channel {}", g.channel(c).name),
        EdgeOrigin::Capacity(c) => format!("capacity of {}", g.channel(c).name),
        EdgeOrigin::Sequential(x) => format!("{} runs one firing at a time", name(g, x.index())),
    }
}

/// An error message with actor and channel names instead of ids.
pub fn describe(g: &SdfGraph, e: &SdfError) -> String {
    match e {
        SdfError::Deadlock { stuck } => {
            let names: Vec<String> = stuck.iter().map(|s| name(g, s.index())).collect();
            format!("the graph deadlocks; stuck actors: {}", names.join(", "))
        }
        SdfError::Inconsistent { detail, .. } => format!("inconsistent: {detail}"),
        SdfError::HsdfTooLarge { nodes, limit } => format!(
            "the equivalent HSDF graph has {nodes} firings per iteration, more than --max-hsdf-nodes {limit}"
        ),
        other => other.to_string(),
    }
}
