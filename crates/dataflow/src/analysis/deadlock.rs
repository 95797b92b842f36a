//! Deadlock detection by symbolic execution of one iteration.
//!
//! A consistent SDF graph is deadlock-free iff one complete iteration (every
//! actor `a` firing `q[a]` times) can be executed from the initial tokens.
//! Firing order does not matter for this question (SDF firing is monotone),
//! so a greedy worklist simulation that fires every enabled actor as often as
//! possible decides it. The simulation ignores time and auto-concurrency.

use std::collections::VecDeque;

use super::AnalysisOptions;
use super::consistency::RepetitionVector;
use super::csr::in_out;
use crate::error::SdfError;
use crate::graph::{ActorId, SdfGraph};

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
        self.sequential_schedule_with(opts).map(|_| ())
    }

    /// A sequential (class-S) schedule of one iteration as a list of runs
    /// `(actor, k)`: fire `actor` `k` times in a row. Honours capacities.
    pub fn sequential_schedule(&self) -> Result<Vec<(ActorId, u64)>, SdfError> {
        self.sequential_schedule_with(&AnalysisOptions::default())
    }

    /// [`sequential_schedule`](Self::sequential_schedule) with explicit
    /// options (`respect_capacities`, and `max_work` bounds the worklist
    /// steps).
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
        let edges = self.flow_edges(opts.respect_capacities)?;
        let n = self.num_actors();
        let (ins, outs) = in_out(n, &edges);
        let mut tokens: Vec<u128> = edges.iter().map(|e| e.tokens as u128).collect();
        let mut remaining: Vec<u64> = q.as_slice().to_vec();
        let mut queued = vec![true; n];
        let mut work: VecDeque<usize> = (0..n).collect();
        let mut schedule = Vec::new();
        let mut steps = 0u64;
        while let Some(a) = work.pop_front() {
            steps += 1;
            if steps > opts.max_work {
                return Err(SdfError::WorkLimit {
                    analysis: "deadlock check",
                    limit: opts.max_work,
                });
            }
            queued[a] = false;
            if remaining[a] == 0 {
                continue;
            }
            let mut k = remaining[a] as u128;
            for &ei in ins.row(a) {
                let e = &edges[ei];
                let avail = tokens[ei] / e.cons as u128;
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
            schedule.push((ActorId(a), k as u64));
        }
        let stuck: Vec<ActorId> = (0..n).filter(|&a| remaining[a] > 0).map(ActorId).collect();
        if stuck.is_empty() {
            Ok(schedule)
        } else {
            Err(SdfError::Deadlock { stuck })
        }
    }

    /// Whether the graph is consistent and deadlock-free.
    pub fn is_live(&self) -> bool {
        self.check_deadlock().is_ok()
    }
}
