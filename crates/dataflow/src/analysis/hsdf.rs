//! Conversion of an SDF graph to its equivalent homogeneous SDF (HSDF)
//! graph.
//!
//! Every actor `a` becomes `q[a]` nodes `a_0 .. a_{q[a]-1}`, one per firing
//! within an iteration. For a channel `u -> v` (production `p`, consumption
//! `c`, `d` initial tokens), the `t`-th token consumed overall (0-based) is
//! produced by the global firing `f = floor((t - d) / p)` of `u` (negative
//! for initial tokens). Firing `j` of `v` in iteration `k` therefore depends
//! on node `u_(f mod q[u])` of iteration `k + floor(f / q[u])`, i.e. an HSDF
//! edge with `-floor(f / q[u])` tokens. Parallel edges between the same pair
//! of nodes are merged, keeping the smallest token count (the tightest
//! constraint).
//!
//! Unless [`AnalysisOptions::auto_concurrency`] is set, the firings of each
//! actor are chained `a_0 -> a_1 -> ... -> a_{q-1} -> a_0` with one token on
//! the back edge (equivalent to an SDF self-loop with one token): firing
//! `i+1` can only start when firing `i` has finished.

use super::AnalysisOptions;
use super::consistency::RepetitionVector;
use super::mcr::{CriticalCycle, McrError, RatioEdge, ZeroTokenCycle, max_cycle_ratio_with};
use crate::error::SdfError;
use crate::graph::{ActorId, EdgeOrigin, SdfGraph};

/// A node of the HSDF graph: one firing of an SDF actor within an iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HsdfNode {
    /// The SDF actor.
    pub actor: ActorId,
    /// Which firing of the actor within one iteration (`0 .. q[actor]`).
    pub firing: u64,
    /// Execution time (copied from the actor).
    pub exec_time: u64,
}

/// An edge of the HSDF graph (all rates are 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HsdfEdge {
    /// Source node index.
    pub src: usize,
    /// Destination node index.
    pub dst: usize,
    /// Initial tokens (iteration distance of the dependency).
    pub tokens: u64,
    /// The SDF edge this dependency comes from.
    pub origin: EdgeOrigin,
}

/// The equivalent homogeneous SDF graph.
#[derive(Debug, Clone)]
pub struct Hsdf {
    /// Nodes; the firings of actor `a` are contiguous, starting at
    /// [`first_node`](Self::first_node)`(a)`.
    pub nodes: Vec<HsdfNode>,
    /// Edges (deduplicated per node pair).
    pub edges: Vec<HsdfEdge>,
    /// The repetition vector used for the expansion.
    pub repetition_vector: RepetitionVector,
    first: Vec<usize>,
}

impl Hsdf {
    /// Index of the node for firing 0 of `actor`.
    pub fn first_node(&self, actor: ActorId) -> usize {
        self.first[actor.0]
    }

    /// The edges for [`max_cycle_ratio`](super::mcr::max_cycle_ratio):
    /// each weighs the execution time of its source firing, so the maximum
    /// cycle ratio is the period of self-timed execution.
    pub fn ratio_edges(&self) -> Vec<RatioEdge> {
        self.edges
            .iter()
            .map(|e| RatioEdge {
                src: e.src,
                dst: e.dst,
                weight: self.nodes[e.src].exec_time,
                tokens: e.tokens,
            })
            .collect()
    }

    /// Howard's algorithm on this graph with at most `max_work` rounds: a
    /// critical cycle (`None`: acyclic), or `Err` with a cycle that carries
    /// no tokens; running out of rounds or of bits is an [`SdfError`].
    pub(crate) fn critical_cycle(
        &self,
        max_work: u64,
    ) -> Result<Result<Option<CriticalCycle>, ZeroTokenCycle>, SdfError> {
        match max_cycle_ratio_with(self.nodes.len(), &self.ratio_edges(), max_work) {
            Ok(c) => Ok(Ok(c)),
            Err(McrError::ZeroTokenCycle(z)) => Ok(Err(z)),
            Err(McrError::Overflow) => Err(SdfError::Overflow {
                what: "cycle sums exceed 128 bits or scaled node values 256 bits",
            }),
            Err(McrError::IterationLimit(limit)) => Err(SdfError::WorkLimit {
                analysis: "Howard's max cycle ratio",
                limit,
            }),
        }
    }

    /// Index of the node for firing `firing` of `actor`.
    pub fn node(&self, actor: ActorId, firing: u64) -> usize {
        self.first[actor.0] + firing as usize
    }
}

impl SdfGraph {
    /// Checks, before anything of that size is allocated, that the HSDF
    /// graph stays within `opts.max_hsdf_nodes` nodes and
    /// `opts.max_hsdf_edges` edges (an upper bound computed from the
    /// rates); returns the repetition vector.
    pub fn check_hsdf_size(&self, opts: &AnalysisOptions) -> Result<RepetitionVector, SdfError> {
        let q = self.repetition_vector()?;
        self.check_hsdf_size_for(&q, opts)?;
        Ok(q)
    }

    /// [`check_hsdf_size`](Self::check_hsdf_size) for a repetition vector
    /// computed by the caller.
    pub(crate) fn check_hsdf_size_for(
        &self,
        q: &RepetitionVector,
        opts: &AnalysisOptions,
    ) -> Result<(), SdfError> {
        let total = q.total_firings();
        if total > opts.max_hsdf_nodes as u128 {
            return Err(SdfError::HsdfTooLarge {
                nodes: total,
                limit: opts.max_hsdf_nodes,
            });
        }
        // firing j of the consumer depends on at most min(q[src], (c-1)/p + 2)
        // firings of the producer; plus the chains of sequential actors
        let mut edges: u128 = if opts.auto_concurrency { 0 } else { total };
        for e in self.flow_edges(opts.respect_capacities)? {
            let per = (q.as_slice()[e.src] as u128).min((e.cons as u128 - 1) / e.prod as u128 + 2);
            edges = edges.saturating_add(q.as_slice()[e.dst] as u128 * per);
        }
        if edges > opts.max_hsdf_edges as u128 {
            return Err(SdfError::HsdfTooManyEdges {
                edges,
                limit: opts.max_hsdf_edges,
            });
        }
        Ok(())
    }

    /// Builds the equivalent HSDF graph with default options (no
    /// auto-concurrency, capacities respected).
    pub fn to_hsdf(&self) -> Result<Hsdf, SdfError> {
        self.to_hsdf_with(&AnalysisOptions::default())
    }

    /// Builds the equivalent HSDF graph. Fails if the graph is inconsistent
    /// or the HSDF graph would have more than `opts.max_hsdf_nodes` nodes.
    /// Deadlock is *not* checked here (it shows as a cycle without tokens).
    pub fn to_hsdf_with(&self, opts: &AnalysisOptions) -> Result<Hsdf, SdfError> {
        let q = self.check_hsdf_size(opts)?;
        self.hsdf_for(q, opts)
    }

    /// The expansion for a repetition vector that passed
    /// [`check_hsdf_size`](Self::check_hsdf_size).
    pub(crate) fn hsdf_for(
        &self,
        q: RepetitionVector,
        opts: &AnalysisOptions,
    ) -> Result<Hsdf, SdfError> {
        let total = q.total_firings();
        let flow = self.flow_edges(opts.respect_capacities)?;
        let mut nodes = Vec::with_capacity(total as usize);
        let mut first = Vec::with_capacity(self.num_actors());
        for (i, a) in self.actors().iter().enumerate() {
            first.push(nodes.len());
            for f in 0..q.as_slice()[i] {
                nodes.push(HsdfNode {
                    actor: ActorId(i),
                    firing: f,
                    exec_time: a.exec_time,
                });
            }
        }
        let mut edges: Vec<HsdfEdge> = Vec::new();
        let mut add = |src: usize, dst: usize, tokens: u64, origin: EdgeOrigin| {
            edges.push(HsdfEdge {
                src,
                dst,
                tokens,
                origin,
            })
        };
        for e in &flow {
            let qu = q.as_slice()[e.src] as i128;
            let qv = q.as_slice()[e.dst];
            let p = e.prod as i128;
            let c = e.cons as i128;
            let d = e.tokens as i128;
            for j in 0..qv {
                let t_lo = j as i128 * c;
                let t_hi = t_lo + c - 1;
                let f_hi = (t_hi - d).div_euclid(p);
                let f_lo = (t_lo - d).div_euclid(p).max(f_hi - qu + 1);
                for f in f_lo..=f_hi {
                    let node = f.rem_euclid(qu) as usize;
                    let delay = -f.div_euclid(qu);
                    debug_assert!(delay >= 0);
                    add(
                        first[e.src] + node,
                        first[e.dst] + j as usize,
                        delay as u64,
                        e.origin,
                    );
                }
            }
        }
        if !opts.auto_concurrency {
            for (i, &qa) in q.as_slice().iter().enumerate() {
                let origin = EdgeOrigin::Sequential(ActorId(i));
                let base = first[i];
                let qa = qa as usize;
                for f in 0..qa.saturating_sub(1) {
                    add(base + f, base + f + 1, 0, origin);
                }
                add(base + qa - 1, base, 1, origin);
            }
        }
        // merge parallel edges, keeping the fewest tokens (the first such
        // edge in generation order: the sort is stable)
        edges.sort_by_key(|e| (e.src, e.dst, e.tokens));
        edges.dedup_by(|later, kept| (later.src, later.dst) == (kept.src, kept.dst));
        Ok(Hsdf {
            nodes,
            edges,
            repetition_vector: q,
            first,
        })
    }
}
