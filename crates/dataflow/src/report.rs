//! A named, serialisable report of a graph's analyses (consistency,
//! repetition vector, deadlock, throughput and critical cycle, buffer
//! sizing, latency), with actor and channel names instead of ids: what a
//! tool prints or writes as JSON. Analyses that fail (a size limit, a
//! deadlock) leave their error in [`Report::errors`].

use serde::Serialize;

use crate::analysis::AnalysisOptions;
use crate::analysis::buffer::{BufferAnalysis, BufferOptions};
use crate::error::SdfError;
use crate::graph::{EdgeOrigin, SdfGraph};

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
    /// Why there is no throughput figure (size limit, deadlock, ...).
    pub errors: Vec<String>,
    /// State space period.
    pub state_space_period: Option<String>,
    /// Storage/throughput trade-off, if asked for.
    pub buffers: Option<BufferReport>,
    /// Latency, if asked for.
    pub latency: Option<LatencyReport>,
}

/// One storage/throughput Pareto point.
#[derive(Debug, Clone, Serialize)]
pub struct BufferPoint {
    /// Total storage (tokens over all channels).
    pub size: u128,
    /// Iterations per time unit, exact.
    pub throughput: String,
    /// Throughput f64.
    pub throughput_f64: f64,
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
    /// Whether the search reached the maximal throughput.
    pub complete: bool,
    /// Distributions evaluated.
    pub evaluated: usize,
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
        state_space_period: None,
        buffers: None,
        latency: None,
    };
    let q = match g.repetition_vector() {
        Ok(q) => q,
        Err(e) => {
            r.errors.push(describe(g, &e));
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
    let schedule = g.schedule_for(&q, opts);
    match &schedule {
        Ok(_) => r.deadlock_free = Some(true),
        Err(SdfError::Deadlock { stuck }) => {
            r.deadlock_free = Some(false);
            r.stuck_actors = stuck.iter().map(|s| name(g, s.index())).collect();
            return r;
        }
        Err(e) => r.errors.push(describe(g, e)),
    }
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
        Err(e) => r.errors.push(describe(g, &e)),
    }
    if ro.state_space {
        match g.self_timed_period(opts, ro.max_steps) {
            Ok(p) => r.state_space_period = Some(p.to_string()),
            Err(e) => r.errors.push(format!("state space: {}", describe(g, &e))),
        }
    }
    if let Some(bopts) = &ro.buffers {
        match g.buffer_tradeoff(opts, bopts) {
            Ok(b) => r.buffers = Some(buffer_report(g, &b)),
            Err(e) => r.errors.push(format!("buffer sizing: {}", describe(g, &e))),
        }
    }
    if let Some((src, dst)) = &ro.latency {
        match latency(g, src, dst, opts, ro.max_steps) {
            Ok(l) => r.latency = Some(l),
            Err(e) => r.errors.push(format!("latency: {}", describe(g, &e))),
        }
    }
    r
}

fn buffer_report(g: &SdfGraph, b: &BufferAnalysis) -> BufferReport {
    BufferReport {
        points: b
            .points
            .iter()
            .map(|p| BufferPoint {
                size: p.size,
                throughput: p.throughput.to_string(),
                throughput_f64: p.throughput.to_f64(),
                capacities: g
                    .channels()
                    .iter()
                    .zip(&p.capacities)
                    .map(|(c, &n)| (c.name.clone(), n))
                    .collect(),
            })
            .collect(),
        min_deadlock_free: b.points.iter().position(|p| !p.throughput.is_zero()),
        max_throughput: b.max_throughput.map(|t| t.to_string()),
        complete: b.complete,
        evaluated: b.evaluated,
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
