//! Buffer sizing: the trade-off between the storage space of the channels
//! and the throughput, as in SDF3's buffer analysis (Stuijk, Geilen,
//! Basten, *Exploring trade-offs in buffer requirements and throughput
//! constraints for synchronous dataflow graphs*, DAC 2006, §4–5).
//!
//! A *storage distribution* gives every channel a capacity. A producer
//! claims space for its output tokens when a firing starts and the consumer
//! frees it when its firing ends (modelled by a reverse edge carrying the
//! free space, see [`crate::Channel::capacity`]). The search starts from the
//! per-channel lower bound `p + c - gcd(p, c) + t mod gcd(p, c)` (at least
//! the initial tokens `t`; a self-edge gets `p + max(c, t)` and is never
//! enlarged), evaluates distributions in order of total size, and enlarges
//! by `gcd(p, c)` only the channels whose capacity lies on the critical
//! cycle (the paper's *storage dependencies*: enlarging any other channel
//! cannot raise the throughput). Every size at which the throughput rises
//! is a Pareto point; the search ends at the throughput of the graph with
//! unbounded channels. The first point with a positive throughput gives
//! minimal deadlock-free capacities.
//!
//! Where SDF3 finds the storage dependencies in the state space, this
//! module takes them from the critical cycle of the equivalent HSDF graph
//! (with Howard's algorithm), so throughputs are exact fractions. Under
//! [`AnalysisOptions::sdf3`] semantics (auto-concurrency) the Pareto points
//! equal SDF3's on its testbench (`tests/buffer.rs`).

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::AnalysisOptions;
use crate::error::SdfError;
use crate::graph::{ChannelId, EdgeOrigin, SdfGraph};
use crate::rational::{Rational, gcd};

/// One storage/throughput Pareto point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParetoPoint {
    /// Total storage space (tokens, summed over the channels).
    pub size: u128,
    /// Graph iterations per time unit with these capacities (zero:
    /// deadlock).
    pub throughput: Rational,
    /// A minimal distribution reaching it: the capacity of every channel,
    /// indexed by [`ChannelId::index`].
    pub capacities: Vec<u64>,
}

/// Limits of [`SdfGraph::buffer_tradeoff`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferOptions {
    /// Storage distributions evaluated at most (each costs one throughput
    /// analysis). Default 20,000.
    pub max_distributions: usize,
    /// Stop at the first point reaching this throughput (`None`: explore up
    /// to the maximal throughput).
    pub throughput_bound: Option<Rational>,
}

impl Default for BufferOptions {
    fn default() -> Self {
        BufferOptions {
            max_distributions: 20_000,
            throughput_bound: None,
        }
    }
}

/// Result of [`SdfGraph::buffer_tradeoff`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BufferAnalysis {
    /// Pareto points by increasing size and throughput.
    pub points: Vec<ParetoPoint>,
    /// Throughput with unbounded channels (`None`: unbounded).
    pub max_throughput: Option<Rational>,
    /// Whether the search reached the maximal throughput (or the bound);
    /// `false` if it stopped at [`BufferOptions::max_distributions`].
    pub complete: bool,
    /// Distributions evaluated.
    pub evaluated: usize,
}

impl BufferAnalysis {
    /// The smallest distribution with a positive throughput: minimal
    /// deadlock-free capacities.
    pub fn min_deadlock_free(&self) -> Option<&ParetoPoint> {
        self.points.iter().find(|p| !p.throughput.is_zero())
    }
}

/// Throughput of a distribution and the channels whose capacity is on the
/// critical cycle (or on a token-free cycle when it deadlocks).
fn evaluate(
    g: &mut SdfGraph,
    caps: &[u64],
    opts: &AnalysisOptions,
) -> Result<(Rational, Vec<ChannelId>), SdfError> {
    for (i, &c) in caps.iter().enumerate() {
        g.channel_mut(ChannelId::from_index(i))
            .set_capacity(Some(c));
    }
    let q = g.check_hsdf_size(opts)?;
    let h = g.hsdf_for(q, opts)?;
    let deps = |cycle: &[usize]| {
        let mut v: Vec<ChannelId> = cycle
            .iter()
            .filter_map(|&i| match h.edges[i].origin {
                EdgeOrigin::Capacity(c) => Some(c),
                _ => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    Ok(match h.critical_cycle(opts.max_work)? {
        Ok(Some(c)) => (c.ratio.recip().unwrap_or(Rational::ZERO), deps(&c.edges)),
        // no cycle at all: nothing bounds the throughput
        Ok(None) => (Rational::from_integer(u128::MAX), Vec::new()),
        Err(z) => (Rational::ZERO, deps(&z.edges)),
    })
}

impl SdfGraph {
    /// The storage/throughput trade-off (see the module documentation).
    /// `opts.respect_capacities` is ignored (the search sets the
    /// capacities); the other options give the semantics and limits.
    pub fn buffer_tradeoff(
        &self,
        opts: &AnalysisOptions,
        bopts: &BufferOptions,
    ) -> Result<BufferAnalysis, SdfError> {
        let unbounded = AnalysisOptions {
            respect_capacities: false,
            ..*opts
        };
        let max_t = self.analyze_throughput_with(&unbounded)?;
        let max_throughput = max_t.throughput_exact();
        let bounded = AnalysisOptions {
            respect_capacities: true,
            ..*opts
        };
        let m = self.num_channels();
        let mut step = Vec::with_capacity(m);
        let mut lower = Vec::with_capacity(m);
        for c in self.channels() {
            let p = self.port(c.src).rate;
            let k = self.port(c.dst).rate;
            let t = c.initial_tokens;
            let gg = gcd(u128::from(p), u128::from(k)) as u64;
            let over = SdfError::Overflow {
                what: "buffer lower bound exceeds 2^64",
            };
            let lb = if c.is_self_loop() {
                p.checked_add(k.max(t)).ok_or(over)?
            } else {
                (p - gg)
                    .checked_add(k)
                    .and_then(|x| x.checked_add(t % gg))
                    .ok_or(over)?
                    .max(t)
            };
            step.push(gg);
            lower.push(lb);
        }
        let mut g = self.clone();
        let size = |d: &[u64]| d.iter().map(|&x| u128::from(x)).sum::<u128>();
        let mut check: BTreeMap<u128, Vec<Vec<u64>>> = BTreeMap::new();
        let mut seen: HashSet<Vec<u64>> = HashSet::new();
        check.insert(size(&lower), vec![lower.clone()]);
        seen.insert(lower);
        let mut points: Vec<ParetoPoint> = Vec::new();
        let mut evaluated = 0usize;
        let goal = bopts.throughput_bound.or(max_throughput);
        while let Some((sz, set)) = check.pop_first() {
            let mut best: Option<(Rational, Vec<u64>)> = None;
            for d in set {
                if evaluated >= bopts.max_distributions {
                    return Ok(BufferAnalysis {
                        points,
                        max_throughput,
                        complete: false,
                        evaluated,
                    });
                }
                evaluated += 1;
                let (thr, deps) = evaluate(&mut g, &d, &bounded)?;
                for c in deps {
                    let i = c.index();
                    if self.channel(c).is_self_loop() {
                        continue;
                    }
                    let mut nd = d.clone();
                    nd[i] = nd[i].checked_add(step[i]).ok_or(SdfError::Overflow {
                        what: "a channel capacity exceeds 2^64",
                    })?;
                    if seen.insert(nd.clone()) {
                        check.entry(sz + u128::from(step[i])).or_default().push(nd);
                    }
                }
                if best.as_ref().is_none_or(|b| thr > b.0) {
                    best = Some((thr, d));
                }
            }
            let Some((thr, d)) = best else { continue };
            if points.last().is_none_or(|p| thr > p.throughput) {
                points.push(ParetoPoint {
                    size: sz,
                    throughput: thr,
                    capacities: d,
                });
                if goal.is_some_and(|goal| thr >= goal) {
                    return Ok(BufferAnalysis {
                        points,
                        max_throughput,
                        complete: true,
                        evaluated,
                    });
                }
            }
        }
        // nothing left to enlarge: the last point is the best there is
        Ok(BufferAnalysis {
            points,
            max_throughput,
            complete: true,
            evaluated,
        })
    }
}
