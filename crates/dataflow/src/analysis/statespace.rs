//! Explicit state-space exploration of self-timed execution (in the style of
//! SDF3 / Ghamarian et al., "Throughput analysis of synchronous data flow
//! graphs", ACSD 2006).
//!
//! The execution is simulated event by event by `SelfTimed`, the crate's
//! one self-timed executor: at each time point all finishing firings
//! produce their tokens, then every enabled actor starts as many firings as
//! it can (one at a time without auto-concurrency). The state (tokens on
//! every edge plus the remaining times of the ongoing firings) is recorded
//! after each start phase; once a state recurs, the execution is periodic
//! and the period follows from the elapsed time and the number of completed
//! firings of a reference actor between the two occurrences. The latency
//! analysis ([`super::latency`]) drives the same executor, reading the
//! firings it starts and completes per actor at each time point.
//!
//! The exploration is done per strongly connected component of the graph
//! (including capacity edges and, without auto-concurrency, the implicit
//! self-loops), so that unbounded token accumulation between components
//! does not prevent recurrence; the result is the maximum over components,
//! which is what [`SdfGraph::analyze_throughput`] computes analytically.
//! It is exponential in the worst case and meant as an independent
//! cross-check on small graphs; it is nevertheless bounded: ongoing firings
//! are stored as (remaining time, count) pairs, so a rate of 2^31 costs one
//! pair, not 2^31 entries; the stored states are limited to
//! `max_values` integers in total ([`SdfError::StateSpaceTooLarge`]); the
//! clock and token counts are checked ([`SdfError::Overflow`]).

use std::collections::HashMap;

use super::AnalysisOptions;
use super::csr::{Csr, in_out, successors};
use super::mcr::scc;
use crate::error::SdfError;
use crate::graph::{FlowEdge, SdfGraph};
use crate::rational::{Rational, gcd};

impl SdfGraph {
    /// Period (time units per iteration) of self-timed execution computed by
    /// state-space exploration. `max_steps` bounds the number of simulated
    /// time points per strongly connected component
    /// ([`SdfError::StateSpaceLimit`] when exceeded); at most
    /// [`DEFAULT_MAX_STATE_VALUES`] integers of state are stored. Returns
    /// zero if nothing constrains the execution.
    pub fn self_timed_period(
        &self,
        opts: &AnalysisOptions,
        max_steps: u64,
    ) -> Result<Rational, SdfError> {
        self.self_timed_period_bounded(opts, max_steps, DEFAULT_MAX_STATE_VALUES)
    }

    /// [`self_timed_period`](Self::self_timed_period) with an explicit bound
    /// on the integers stored for visited states (summed over components).
    pub fn self_timed_period_bounded(
        &self,
        opts: &AnalysisOptions,
        max_steps: u64,
        max_values: u64,
    ) -> Result<Rational, SdfError> {
        self.check_deadlock_with(opts)?;
        let q = self.repetition_vector()?;
        let flow = self.flow_edges(opts.respect_capacities)?;
        let n = self.num_actors();
        let (comp, ncomp) = scc(&successors(n, &flow));
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
        for (a, &c) in comp.iter().enumerate() {
            members[c].push(a);
        }
        let mut comp_edges: Vec<Vec<FlowEdge>> = vec![Vec::new(); ncomp];
        for e in &flow {
            if comp[e.src] == comp[e.dst] {
                comp_edges[comp[e.src]].push(*e);
            }
        }
        let mut local = vec![usize::MAX; n];
        let mut budget = Budget {
            steps: max_steps,
            values: 0,
            max_values,
        };
        let mut best = Rational::ZERO;
        for (actors, edges) in members.iter().zip(&comp_edges) {
            if opts.auto_concurrency && edges.is_empty() {
                continue; // a lone actor that may overlap with itself
            }
            if actors.iter().all(|&a| self.actors()[a].exec_time == 0) {
                continue; // takes no time at all
            }
            for (i, &a) in actors.iter().enumerate() {
                local[a] = i;
            }
            let g = actors
                .iter()
                .fold(0u128, |g, &a| gcd(g, q.as_slice()[a] as u128));
            let qloc: Vec<u64> = actors
                .iter()
                .map(|&a| (q.as_slice()[a] as u128 / g) as u64)
                .collect();
            let exec: Vec<u64> = actors.iter().map(|&a| self.actors()[a].exec_time).collect();
            let ledges: Vec<FlowEdge> = edges
                .iter()
                .map(|e| FlowEdge {
                    src: local[e.src],
                    dst: local[e.dst],
                    ..*e
                })
                .collect();
            let p = simulate(&exec, &qloc, &ledges, opts.auto_concurrency, &mut budget)?;
            let num = p.numer().checked_mul(g).ok_or(SdfError::Overflow {
                what: "period per iteration exceeds 2^128",
            })?;
            let global = Rational::new(num, p.denom());
            if global > best {
                best = global;
            }
        }
        Ok(best)
    }
}

/// Default bound on the integers stored for visited states (8 bytes each):
/// 16 million, 128 MiB.
pub const DEFAULT_MAX_STATE_VALUES: u64 = 16_000_000;

struct Budget {
    steps: u64,
    values: u64,
    max_values: u64,
}

const CLOCK: SdfError = SdfError::Overflow {
    what: "the clock of the state-space exploration exceeds 2^64",
};
/// Too many tokens on a channel (also met by the untimed distance
/// execution of the latency analysis).
pub(super) const TOKENS: SdfError = SdfError::Overflow {
    what: "tokens on a channel exceed 2^64",
};

/// Self-timed simulation of one strongly connected graph; returns the
/// period per (local) iteration.
fn simulate(
    exec: &[u64],
    q: &[u64],
    edges: &[FlowEdge],
    auto: bool,
    budget: &mut Budget,
) -> Result<Rational, SdfError> {
    let mut sim = SelfTimed::new(exec, edges, auto, CLOCK);
    let mut ref_done: u64 = 0;
    let mut seen: HashMap<Vec<u64>, (u64, u64)> = HashMap::new();
    let limit_err = SdfError::StateSpaceLimit {
        steps: budget.steps,
    };
    for _step in 0..budget.steps {
        sim.start(budget.steps)?;
        ref_done = ref_done.checked_add(sim.completed[0]).ok_or(TOKENS)?;
        let key = sim.key();
        if let Some(&(t0, r0)) = seen.get(&key) {
            let dr = ref_done - r0;
            if dr == 0 {
                return Err(limit_err);
            }
            // period per iteration = dt / (dr / q[0])
            return Ok(Rational::new(
                (sim.time - t0) as u128 * q[0] as u128,
                dr as u128,
            ));
        }
        budget.values = budget.values.saturating_add(key.len() as u64 + 2);
        if budget.values > budget.max_values {
            return Err(SdfError::StateSpaceTooLarge {
                values: budget.values,
                limit: budget.max_values,
            });
        }
        seen.insert(key, (sim.time, ref_done));
        sim.advance()?;
        ref_done = ref_done.checked_add(sim.completed[0]).ok_or(TOKENS)?;
    }
    Err(limit_err)
}

/// Ongoing firings of one actor: (remaining time, how many), sorted by
/// remaining time.
type Active = Vec<(u64, u64)>;

/// The self-timed executor shared by the period ([`simulate`]) and the
/// latency analysis: tokens on every edge and the ongoing firings of every
/// actor, advanced one time point at a time by its driver, which alternates
/// [`start`](Self::start) and [`advance`](Self::advance) and reads what
/// each phase did from [`started`](Self::started) and
/// [`completed`](Self::completed).
pub(super) struct SelfTimed<'a> {
    exec: &'a [u64],
    edges: &'a [FlowEdge],
    auto: bool,
    ins: Csr<usize>,
    outs: Csr<usize>,
    tokens: Vec<u64>,
    active: Vec<Active>,
    /// The error when the clock passes 2^64 (each analysis names itself).
    clock: SdfError,
    /// The current time point.
    pub(super) time: u64,
    /// Firings started per actor by the last start phase (saturating).
    pub(super) started: Vec<u64>,
    /// Firings completed per actor by the last phase: the zero-time
    /// firings of a start phase, the timed ones of an advance (saturating).
    pub(super) completed: Vec<u64>,
}

impl<'a> SelfTimed<'a> {
    /// The execution at time 0 with the initial tokens of `edges` (between
    /// actors `0..exec.len()`, with execution times `exec`), nothing
    /// running; `auto` allows firings of one actor to overlap.
    pub(super) fn new(exec: &'a [u64], edges: &'a [FlowEdge], auto: bool, clock: SdfError) -> Self {
        let n = exec.len();
        let (ins, outs) = in_out(n, edges);
        SelfTimed {
            exec,
            edges,
            auto,
            ins,
            outs,
            tokens: edges.iter().map(|e| e.tokens).collect(),
            active: vec![Vec::new(); n],
            clock,
            time: 0,
            started: vec![0; n],
            completed: vec![0; n],
        }
    }

    /// The start phase at the current time point: every enabled actor
    /// starts as many firings as it may (zero-time firings complete at
    /// once). More than `max_steps` zero-time firings, or an actor without
    /// inputs that would fire infinitely often, is
    /// [`SdfError::StateSpaceLimit`].
    #[inline]
    pub(super) fn start(&mut self, max_steps: u64) -> Result<(), SdfError> {
        let limit_err = SdfError::StateSpaceLimit { steps: max_steps };
        let SelfTimed {
            exec,
            edges,
            auto,
            ins,
            outs,
            tokens,
            active,
            started,
            completed,
            ..
        } = self;
        let (exec, edges, auto): (&[u64], &[FlowEdge], bool) = (exec, edges, *auto);
        let (tokens, active): (&mut [u64], &mut [Active]) = (tokens, active);
        started.fill(0);
        completed.fill(0);
        let mut instant_firings: u64 = 0;
        loop {
            let mut progress = false;
            #[allow(clippy::needless_range_loop)] // `a` indexes several lists
            for a in 0..exec.len() {
                if !auto && !active[a].is_empty() {
                    continue;
                }
                let in_min = ins[a]
                    .iter()
                    .map(|&ei| tokens[ei] / edges[ei].cons)
                    .min()
                    .unwrap_or(u64::MAX);
                if in_min == 0 {
                    continue;
                }
                if in_min == u64::MAX && (auto || exec[a] == 0) {
                    // an unconstrained actor would fire infinitely often
                    return Err(limit_err);
                }
                let k = if !auto || exec[a] == 0 { 1 } else { in_min };
                for &ei in ins.row(a) {
                    tokens[ei] -= k * edges[ei].cons;
                }
                started[a] = started[a].saturating_add(k);
                if exec[a] == 0 {
                    produce(edges, outs.row(a), k, tokens)?;
                    completed[a] = completed[a].saturating_add(k);
                    instant_firings = instant_firings.saturating_add(k);
                    if instant_firings > max_steps {
                        return Err(limit_err);
                    }
                } else {
                    let act = &mut active[a];
                    match act.binary_search_by_key(&exec[a], |f| f.0) {
                        Ok(i) => act[i].1 = act[i].1.checked_add(k).ok_or(TOKENS)?,
                        Err(i) => act.insert(i, (exec[a], k)),
                    }
                }
                progress = true;
            }
            if !progress {
                return Ok(());
            }
        }
    }

    /// The state: tokens on every edge, then per actor the number of
    /// (remaining time, count) pairs and the pairs.
    #[inline]
    pub(super) fn key(&self) -> Vec<u64> {
        let mut key = self.tokens.clone();
        for act in &self.active {
            key.push(act.len() as u64);
            for &(r, k) in act {
                key.extend_from_slice(&[r, k]);
            }
        }
        key
    }

    /// Advances the clock to the next completion, whose firings produce
    /// their tokens; [`SdfError::Deadlock`] (with no actors named) if
    /// nothing is running.
    #[inline]
    pub(super) fn advance(&mut self) -> Result<(), SdfError> {
        let dt = self
            .active
            .iter()
            .filter_map(|v| v.first().map(|f| f.0))
            .min()
            .ok_or_else(|| SdfError::Deadlock { stuck: Vec::new() })?;
        self.time = self
            .time
            .checked_add(dt)
            .ok_or_else(|| self.clock.clone())?;
        let SelfTimed {
            edges,
            outs,
            tokens,
            active,
            completed,
            ..
        } = self;
        completed.fill(0);
        for (a, act) in active.iter_mut().enumerate() {
            let mut done = 0u64;
            for f in act.iter_mut() {
                f.0 -= dt;
                if f.0 == 0 {
                    done = done.saturating_add(f.1);
                }
            }
            act.retain(|f| f.0 > 0);
            if done > 0 {
                produce(edges, outs.row(a), done, tokens)?;
                completed[a] = done;
            }
        }
        Ok(())
    }
}

/// Adds the tokens of `k` firings to the edges `outs` of an actor.
fn produce(edges: &[FlowEdge], outs: &[usize], k: u64, tokens: &mut [u64]) -> Result<(), SdfError> {
    for &ei in outs {
        let add = k.checked_mul(edges[ei].prod).ok_or(TOKENS)?;
        tokens[ei] = tokens[ei].checked_add(add).ok_or(TOKENS)?;
    }
    Ok(())
}
