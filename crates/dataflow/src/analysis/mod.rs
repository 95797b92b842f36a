//! Analyses on SDF graphs.
//!
//! * [`consistency`]: balance equations and the repetition vector.
//! * [`deadlock`]: symbolic execution of one iteration (class-S schedule).
//! * [`hsdf`]: conversion to the equivalent homogeneous SDF graph.
//! * [`mcr`]: maximum cycle ratio (Howard's policy iteration) on weighted
//!   graphs, generic enough to be reused.
//! * [`throughput`]: self-timed throughput / period / critical cycle.
//! * [`statespace`]: explicit state-space exploration of self-timed
//!   execution (an independent cross-check, practical for small graphs);
//!   its self-timed executor also serves [`latency`].
//! * [`buffer`]: storage/throughput trade-off of bounded channels.
//! * [`latency`]: latency between two actors in self-timed execution.
//!
//! Every analysis returns the exact answer or an error, in memory and time
//! bounded by [`AnalysisOptions`] (and the explicit budgets of the
//! state-space functions): sizes are checked before allocating, and all
//! clock, token and weight arithmetic is checked.

pub mod buffer;
pub mod consistency;
mod csr;
pub mod deadlock;
pub mod hsdf;
pub mod latency;
pub mod mcr;
pub mod statespace;
pub mod throughput;

/// Semantic options shared by the deadlock, HSDF and throughput analyses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisOptions {
    /// Whether an actor may fire concurrently with itself (several firings
    /// overlapping in time). Default `false`: each actor is a sequential
    /// process (it runs on one processor), modelled by an implicit self-loop
    /// with one token on every actor. SDF3's `throughput` uses `true` (a
    /// self-edge in the graph is then needed to forbid overlap).
    pub auto_concurrency: bool,
    /// Whether bounded channels ([`Channel::capacity`](crate::Channel::capacity))
    /// are modelled (by a reverse edge carrying `capacity - initial_tokens`
    /// tokens). Default `true`.
    pub respect_capacities: bool,
    /// Upper bound on the number of HSDF nodes (sum of the repetition
    /// vector) the HSDF-based analyses accept, checked before anything is
    /// allocated. Default 4,000,000.
    pub max_hsdf_nodes: u64,
    /// Upper bound on HSDF edges (estimated from the rates before the
    /// expansion). Default 16,000,000.
    pub max_hsdf_edges: u64,
    /// Work budget of the iterative analyses: worklist steps of the
    /// deadlock check, policy-improvement rounds of Howard's algorithm.
    /// Default 100,000,000.
    pub max_work: u64,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            auto_concurrency: false,
            respect_capacities: true,
            max_hsdf_nodes: 4_000_000,
            max_hsdf_edges: 16_000_000,
            max_work: 100_000_000,
        }
    }
}

impl AnalysisOptions {
    /// The semantics of SDF3's `throughput` analysis: unbounded channels and
    /// auto-concurrency allowed.
    pub fn sdf3() -> Self {
        AnalysisOptions {
            auto_concurrency: true,
            respect_capacities: false,
            ..Self::default()
        }
    }
}
