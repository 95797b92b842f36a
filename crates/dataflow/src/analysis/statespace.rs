//! Explicit state-space exploration of self-timed execution (in the style of
//! SDF3 / Ghamarian et al., "Throughput analysis of synchronous data flow
//! graphs", ACSD 2006).
//!
//! The execution is simulated event by event: at each time point all
//! finishing firings produce their tokens, then every enabled actor starts
//! as many firings as it can (one at a time without auto-concurrency). The
//! state (tokens on every edge plus the remaining times of the ongoing
//! firings) is recorded after each start phase; once a state recurs, the
//! execution is periodic and the period follows from the elapsed time and
//! the number of completed firings of a reference actor between the two
//! occurrences.
//!
//! The exploration is done per strongly connected component of the graph
//! (including capacity edges and, without auto-concurrency, the implicit
//! self-loops), so that unbounded token accumulation between components
//! does not prevent recurrence; the result is the maximum over components,
//! which is what [`SdfGraph::analyze_throughput`] computes analytically.
//! It is exponential in the worst case and meant as an independent
//! cross-check on small graphs.

use std::collections::HashMap;

use super::AnalysisOptions;
use super::mcr::strongly_connected_components;
use crate::error::SdfError;
use crate::graph::{FlowEdge, SdfGraph};
use crate::rational::{Rational, gcd};

impl SdfGraph {
    /// Period (time units per iteration) of self-timed execution computed by
    /// state-space exploration. `max_steps` bounds the number of simulated
    /// time points per strongly connected component
    /// ([`SdfError::StateSpaceLimit`] when exceeded). Returns zero if
    /// nothing constrains the execution.
    pub fn self_timed_period(
        &self,
        opts: &AnalysisOptions,
        max_steps: u64,
    ) -> Result<Rational, SdfError> {
        self.check_deadlock_with(opts)?;
        let q = self.repetition_vector()?;
        let flow = self.flow_edges(opts.respect_capacities)?;
        let n = self.num_actors();
        let mut succ: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
        for (i, e) in flow.iter().enumerate() {
            succ[e.src].push((e.dst, i));
        }
        let (comp, ncomp) = strongly_connected_components(n, &succ);
        let mut best = Rational::ZERO;
        for c in 0..ncomp {
            let actors: Vec<usize> = (0..n).filter(|&a| comp[a] == c).collect();
            let edges: Vec<FlowEdge> = flow
                .iter()
                .filter(|e| comp[e.src] == c && comp[e.dst] == c)
                .copied()
                .collect();
            if opts.auto_concurrency && edges.is_empty() {
                continue; // a lone actor that may overlap with itself
            }
            if actors.iter().all(|&a| self.actors()[a].exec_time == 0) {
                continue; // takes no time at all
            }
            let mut local = vec![usize::MAX; n];
            for (i, &a) in actors.iter().enumerate() {
                local[a] = i;
            }
            let g = actors
                .iter()
                .fold(0u64, |g, &a| gcd(g as u128, q.as_slice()[a] as u128) as u64);
            let qloc: Vec<u64> = actors.iter().map(|&a| q.as_slice()[a] / g).collect();
            let exec: Vec<u64> = actors.iter().map(|&a| self.actors()[a].exec_time).collect();
            let ledges: Vec<FlowEdge> = edges
                .iter()
                .map(|e| FlowEdge {
                    src: local[e.src],
                    dst: local[e.dst],
                    ..*e
                })
                .collect();
            let p = simulate(&exec, &qloc, &ledges, opts.auto_concurrency, max_steps)?;
            let global = Rational::new(p.numer() * g as u128, p.denom());
            if global > best {
                best = global;
            }
        }
        Ok(best)
    }
}

/// Self-timed simulation of one strongly connected graph; returns the
/// period per (local) iteration.
fn simulate(
    exec: &[u64],
    q: &[u64],
    edges: &[FlowEdge],
    auto: bool,
    max_steps: u64,
) -> Result<Rational, SdfError> {
    let n = exec.len();
    let mut ins: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut outs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        ins[e.dst].push(i);
        outs[e.src].push(i);
    }
    let mut tokens: Vec<u64> = edges.iter().map(|e| e.tokens).collect();
    let mut active: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut time: u64 = 0;
    let mut ref_done: u64 = 0;
    let mut seen: HashMap<Vec<u64>, (u64, u64)> = HashMap::new();
    let limit_err = SdfError::StateSpaceLimit { steps: max_steps };
    let mut completed = vec![0u64; n];
    for _step in 0..max_steps {
        // start phase (zero-time firings complete immediately)
        let mut instant_firings: u64 = 0;
        loop {
            let mut progress = false;
            for a in 0..n {
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
                for &ei in &ins[a] {
                    tokens[ei] -= k * edges[ei].cons;
                }
                if exec[a] == 0 {
                    for &ei in &outs[a] {
                        tokens[ei] += k * edges[ei].prod;
                    }
                    if a == 0 {
                        ref_done += k;
                    }
                    instant_firings += k;
                    if instant_firings > max_steps {
                        return Err(limit_err);
                    }
                } else {
                    active[a].extend(std::iter::repeat_n(exec[a], k as usize));
                }
                progress = true;
            }
            if !progress {
                break;
            }
        }
        // record state
        let mut key: Vec<u64> = tokens.clone();
        for act in active.iter_mut() {
            act.sort_unstable();
            key.push(act.len() as u64);
            key.extend_from_slice(act);
        }
        if let Some(&(t0, r0)) = seen.get(&key) {
            let dr = ref_done - r0;
            if dr == 0 {
                return Err(limit_err);
            }
            // period per iteration = dt / (dr / q[0])
            return Ok(Rational::new(
                (time - t0) as u128 * q[0] as u128,
                dr as u128,
            ));
        }
        seen.insert(key, (time, ref_done));
        // advance time to the next completion
        let dt = active
            .iter()
            .filter_map(|v| v.first().copied())
            .min()
            .ok_or_else(|| SdfError::Deadlock { stuck: Vec::new() })?;
        time += dt;
        completed.iter_mut().for_each(|c| *c = 0);
        for (a, act) in active.iter_mut().enumerate() {
            for r in act.iter_mut() {
                *r -= dt;
                if *r == 0 {
                    completed[a] += 1;
                }
            }
            act.retain(|&r| r > 0);
        }
        for a in 0..n {
            if completed[a] > 0 {
                for &ei in &outs[a] {
                    tokens[ei] += completed[a] * edges[ei].prod;
                }
            }
        }
        ref_done += completed[0];
    }
    Err(limit_err)
}
