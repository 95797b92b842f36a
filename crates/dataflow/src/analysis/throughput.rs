//! Throughput of self-timed execution via the maximum cycle ratio of the
//! equivalent HSDF graph.
//!
//! In self-timed execution every actor fires as soon as it has enough input
//! tokens (and, without auto-concurrency, its previous firing has
//! finished). The execution becomes periodic and the average time per graph
//! iteration, the *period*, equals the maximum cycle ratio of the HSDF
//! graph, where each HSDF edge `u -> v` weighs the execution time of `u`.
//! Throughput is `1 / period` iterations per time unit. For a graph that is
//! not strongly connected this is the throughput of its slowest strongly
//! connected part (as in SDF3).

use super::AnalysisOptions;
use super::consistency::RepetitionVector;
use super::hsdf::Hsdf;
use crate::error::SdfError;
use crate::fxhash::FxSet;
use crate::graph::{ActorId, EdgeOrigin, SdfGraph};
use crate::rational::Rational;

/// One HSDF node on the critical cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CriticalFiring {
    /// The SDF actor.
    pub actor: ActorId,
    /// Which firing of the actor within an iteration.
    pub firing: u64,
    /// The SDF edge leading from this firing to the next one on the cycle.
    pub via: EdgeOrigin,
    /// Tokens on that HSDF edge.
    pub tokens: u64,
}

/// Result of [`SdfGraph::analyze_throughput`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThroughputAnalysis {
    /// Time units (cycles) per graph iteration in the periodic regime of
    /// self-timed execution. Zero if nothing constrains the execution (no
    /// cycle at all, e.g. an acyclic graph with auto-concurrency).
    pub period: Rational,
    /// The HSDF firings on a critical cycle, in cycle order (empty if
    /// `period` is zero because there is no cycle).
    pub critical_firings: Vec<CriticalFiring>,
    /// The repetition vector (firings per iteration).
    pub repetition_vector: RepetitionVector,
    /// Number of HSDF nodes and edges that were analysed.
    pub hsdf_size: (usize, usize),
}

impl ThroughputAnalysis {
    /// Iterations per time unit (`1 / period`), `f64::INFINITY` if the
    /// period is zero.
    pub fn throughput(&self) -> f64 {
        if self.period.is_zero() {
            f64::INFINITY
        } else {
            1.0 / self.period.to_f64()
        }
    }

    /// Exact throughput (`None` if unbounded).
    pub fn throughput_exact(&self) -> Option<Rational> {
        self.period.recip()
    }

    /// Distinct SDF actors on the critical cycle, in order of first
    /// appearance along it.
    pub fn critical_actors(&self) -> Vec<ActorId> {
        let mut seen = FxSet::default();
        self.critical_firings
            .iter()
            .map(|f| f.actor)
            .filter(|&a| seen.insert(a))
            .collect()
    }
}

impl Hsdf {
    /// The throughput analysis of the HSDF graph of a deadlock-free SDF
    /// graph, with at most `max_work` rounds of Howard's algorithm.
    pub(crate) fn throughput(self, max_work: u64) -> Result<ThroughputAnalysis, SdfError> {
        let h = self;
        let hsdf_size = (h.nodes.len(), h.edges.len());
        match h.critical_cycle(max_work)? {
            Err(z) => {
                // cannot happen after the deadlock check, but stay total
                let mut stuck: Vec<ActorId> = z
                    .edges
                    .iter()
                    .map(|&i| h.nodes[h.edges[i].src].actor)
                    .collect();
                stuck.sort();
                stuck.dedup();
                Err(SdfError::Deadlock { stuck })
            }
            Ok(None) => Ok(ThroughputAnalysis {
                period: Rational::ZERO,
                critical_firings: Vec::new(),
                repetition_vector: h.repetition_vector,
                hsdf_size,
            }),
            Ok(Some(c)) => {
                let critical_firings = c
                    .edges
                    .iter()
                    .map(|&i| {
                        let e = &h.edges[i];
                        let n = &h.nodes[e.src];
                        CriticalFiring {
                            actor: n.actor,
                            firing: n.firing,
                            via: e.origin,
                            tokens: e.tokens,
                        }
                    })
                    .collect();
                Ok(ThroughputAnalysis {
                    period: c.ratio,
                    critical_firings,
                    repetition_vector: h.repetition_vector,
                    hsdf_size,
                })
            }
        }
    }
}

impl SdfGraph {
    /// Throughput analysis with default options (no auto-concurrency,
    /// capacities respected). Fails on inconsistency or deadlock.
    pub fn analyze_throughput(&self) -> Result<ThroughputAnalysis, SdfError> {
        self.analyze_throughput_with(&AnalysisOptions::default())
    }

    /// Throughput analysis with explicit options.
    pub fn analyze_throughput_with(
        &self,
        opts: &AnalysisOptions,
    ) -> Result<ThroughputAnalysis, SdfError> {
        // the size guard runs first: the deadlock check is as large as the
        // HSDF graph
        let q = self.check_hsdf_size(opts)?;
        self.deadlock_for(&q, opts)?;
        self.hsdf_for(q, opts)?.throughput(opts.max_work)
    }

    /// Period (time units per iteration) of self-timed execution, default
    /// options.
    pub fn period(&self) -> Result<Rational, SdfError> {
        Ok(self.analyze_throughput()?.period)
    }

    /// Throughput (iterations per time unit) of self-timed execution,
    /// default options; `f64::INFINITY` if unconstrained.
    pub fn throughput(&self) -> Result<f64, SdfError> {
        Ok(self.analyze_throughput()?.throughput())
    }

    /// Distinct actors on a critical cycle, default options.
    pub fn critical_cycle(&self) -> Result<Vec<ActorId>, SdfError> {
        Ok(self.analyze_throughput()?.critical_actors())
    }
}
