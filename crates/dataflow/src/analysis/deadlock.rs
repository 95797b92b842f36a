//! Deadlock detection by symbolic execution of one iteration.
//!
//! A consistent SDF graph is deadlock-free iff one complete iteration (every
//! actor `a` firing `q[a]` times) can be executed from the initial tokens.
//! Firing order does not matter for this question (SDF firing is monotone),
//! so a greedy worklist simulation that fires every enabled actor as often as
//! possible decides it. The simulation ignores time and auto-concurrency.
//!
//! ## Bounded work
//!
//! The worklist runs at most [`AnalysisOptions::max_work`] steps. Rates
//! near 2^62 on a cycle that carries few tokens make even that budget too
//! small, and a bound shows it before the run: on a simple cycle the
//! tokens of each channel, counted in iterations (`tokens / (q[dst] ·
//! consumption)`), sum to a constant, since a firing of an actor on the
//! cycle takes as much from its input as it adds to its output. So no
//! channel of a strongly connected component ever holds more than `X`, the
//! sum over the component's channels of their initial tokens in
//! iterations, and an actor there completes at most a fraction `X` of its
//! iteration per step: the component needs at least `n / X` steps for its
//! `n` actors. When that exceeds the budget the iteration cannot complete
//! within it; the check then looks at most [`PROBE_STEPS`] steps for an
//! early deadlock and otherwise refuses at once
//! ([`SdfError::WorkBound`]), instead of spending the whole budget on an
//! answer it cannot reach.

use std::collections::VecDeque;

use super::AnalysisOptions;
use super::consistency::RepetitionVector;
use super::csr::{Csr, in_out};
use super::mcr::scc;
use crate::error::SdfError;
use crate::graph::{ActorId, FlowEdge, SdfGraph};

/// Steps the deadlock check still runs, looking for an early deadlock,
/// when the iteration provably cannot complete within the work budget.
pub const PROBE_STEPS: u64 = 1 << 20;

impl SdfGraph {
    /// Checks that one iteration can complete, honouring channel capacities.
    /// Returns [`SdfError::Deadlock`] with the stuck actors otherwise (or the
    /// consistency error if the graph is inconsistent).
    pub fn check_deadlock(&self) -> Result<(), SdfError> {
        self.check_deadlock_with(&AnalysisOptions::default())
    }

    /// [`check_deadlock`](Self::check_deadlock) with explicit options (only
    /// `respect_capacities` matters).
    pub fn check_deadlock_with(&self, opts: &AnalysisOptions) -> Result<(), SdfError> {
        let q = self.repetition_vector()?;
        self.simulate(&q, opts, None)
    }

    /// A sequential (class-S) schedule of one iteration as a list of runs
    /// `(actor, k)`: fire `actor` `k` times in a row. Honours capacities.
    pub fn sequential_schedule(&self) -> Result<Vec<(ActorId, u64)>, SdfError> {
        self.sequential_schedule_with(&AnalysisOptions::default())
    }

    /// [`sequential_schedule`](Self::sequential_schedule) with explicit
    /// options (`respect_capacities`, and `max_work` bounds the worklist
    /// steps, so the schedule has at most `max_work` runs).
    pub fn sequential_schedule_with(
        &self,
        opts: &AnalysisOptions,
    ) -> Result<Vec<(ActorId, u64)>, SdfError> {
        let q = self.repetition_vector()?;
        self.schedule_for(&q, opts)
    }

    /// The schedule for a repetition vector computed by the caller.
    pub(crate) fn schedule_for(
        &self,
        q: &RepetitionVector,
        opts: &AnalysisOptions,
    ) -> Result<Vec<(ActorId, u64)>, SdfError> {
        let mut schedule = Vec::new();
        self.simulate(q, opts, Some(&mut schedule))?;
        Ok(schedule)
    }

    /// The deadlock check for a repetition vector computed by the caller,
    /// without recording a schedule.
    pub(crate) fn deadlock_for(
        &self,
        q: &RepetitionVector,
        opts: &AnalysisOptions,
    ) -> Result<(), SdfError> {
        self.simulate(q, opts, None)
    }

    /// Symbolic execution of one iteration; the runs go to `schedule` if
    /// given.
    fn simulate(
        &self,
        q: &RepetitionVector,
        opts: &AnalysisOptions,
        mut schedule: Option<&mut Vec<(ActorId, u64)>>,
    ) -> Result<(), SdfError> {
        let edges = self.flow_edges(opts.respect_capacities)?;
        let n = self.num_actors();
        let needed = steps_needed(n, &edges, q.as_slice());
        let budget = if needed > u128::from(opts.max_work) {
            opts.max_work.min(PROBE_STEPS)
        } else {
            opts.max_work
        };
        let (ins, outs) = in_out(n, &edges);
        let mut tokens: Vec<u128> = edges.iter().map(|e| e.tokens as u128).collect();
        let mut remaining: Vec<u64> = q.as_slice().to_vec();
        let mut queued = vec![true; n];
        let mut work: VecDeque<usize> = (0..n).collect();
        let mut steps = 0u64;
        while let Some(a) = work.pop_front() {
            steps += 1;
            if steps > budget {
                return Err(if budget < opts.max_work {
                    SdfError::WorkBound {
                        analysis: "deadlock check",
                        at_least: needed,
                        limit: opts.max_work,
                    }
                } else {
                    SdfError::WorkLimit {
                        analysis: "deadlock check",
                        limit: opts.max_work,
                    }
                });
            }
            queued[a] = false;
            if remaining[a] == 0 {
                continue;
            }
            let mut k = remaining[a] as u128;
            for &ei in ins.row(a) {
                let e = &edges[ei];
                let avail = firings(tokens[ei], e.cons);
                if e.src == e.dst {
                    // consistent self-loop: token count is invariant, one
                    // firing's worth is enough for any number of firings
                    if avail == 0 {
                        k = 0;
                    }
                } else {
                    k = k.min(avail);
                }
            }
            if k == 0 {
                continue;
            }
            for &ei in ins.row(a) {
                if edges[ei].src != edges[ei].dst {
                    tokens[ei] -= k * edges[ei].cons as u128;
                }
            }
            for &ei in outs.row(a) {
                if edges[ei].src == edges[ei].dst {
                    continue;
                }
                tokens[ei] = (k * edges[ei].prod as u128).checked_add(tokens[ei]).ok_or(
                    SdfError::Overflow {
                        what: "tokens on a channel during one iteration exceed 2^128",
                    },
                )?;
                let d = edges[ei].dst;
                if !queued[d] && remaining[d] > 0 {
                    queued[d] = true;
                    work.push_back(d);
                }
            }
            remaining[a] -= k as u64;
            if let Some(s) = schedule.as_deref_mut() {
                s.push((ActorId(a), k as u64));
            }
        }
        let stuck: Vec<ActorId> = (0..n).filter(|&a| remaining[a] > 0).map(ActorId).collect();
        if stuck.is_empty() {
            Ok(())
        } else {
            Err(SdfError::Deadlock { stuck })
        }
    }

    /// Whether the graph is consistent and deadlock-free.
    pub fn is_live(&self) -> bool {
        self.check_deadlock().is_ok()
    }
}

/// Firings that `tokens` allow at `cons` tokens each (64-bit division when
/// the count fits, as it nearly always does).
fn firings(tokens: u128, cons: u64) -> u128 {
    match u64::try_from(tokens) {
        Ok(t) => u128::from(t / cons),
        Err(_) => tokens / u128::from(cons),
    }
}

/// A lower bound on the worklist steps that complete one iteration (see
/// the module documentation): over the strongly connected components with
/// tokens on their channels, the largest `n / X`. Computed in `f64` and
/// rounded so that it never exceeds the true bound.
pub(crate) fn steps_needed(n: usize, edges: &[FlowEdge], q: &[u64]) -> u128 {
    let inner = edges.iter().enumerate().filter(|(_, e)| e.src != e.dst);
    let succ = Csr::new(n, inner.map(|(i, e)| (e.src, (e.dst, i))));
    let (comp, ncomp) = scc(&succ);
    let mut size = vec![0u64; ncomp];
    for &c in &comp {
        size[c] += 1;
    }
    // X per component, rounded up: every term a few ulps high, the sum too
    let mut x = vec![0f64; ncomp];
    let mut terms = vec![0u64; ncomp];
    let up = 1.0 + 4.0 * f64::EPSILON;
    for e in edges {
        let c = comp[e.src];
        if e.src == e.dst || comp[e.dst] != c || e.tokens == 0 {
            continue;
        }
        let per_iteration = q[e.dst] as f64 * e.cons as f64;
        x[c] += e.tokens as f64 / per_iteration * up;
        terms[c] += 1;
    }
    let mut best = 0u128;
    for c in 0..ncomp {
        if size[c] < 2 || x[c] == 0.0 {
            // no cycle, or one without tokens (a deadlock the run finds)
            continue;
        }
        let x_up = x[c] * (1.0 + (terms[c] as f64 + 2.0) * f64::EPSILON);
        let bound = size[c] as f64 / x_up * (1.0 - 4.0 * f64::EPSILON);
        // the float-to-int cast saturates; the bound only ever refuses
        best = best.max(bound as u128);
    }
    best
}
