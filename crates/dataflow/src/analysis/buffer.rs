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
//!
//! A graph whose critical cycle takes no time (every execution time on it
//! zero) has an unbounded throughput ([`UNBOUNDED`]); a distribution that
//! reaches it ends the search like any other that reaches the maximum.
//!
//! ## Bounded work and memory
//!
//! The number of distributions can grow combinatorially (every channel of a
//! critical ring is a storage dependency), so the search is bounded three
//! ways, and stops with a *partial* front that says which bound it met
//! ([`Stop`]): at most [`BufferOptions::max_distributions`] evaluations;
//! at most [`AnalysisOptions::max_work`] units of work (each evaluation
//! costs the nodes and edges of its HSDF graph plus one unit per channel,
//! each stored distribution one unit per channel); and the capacities held
//! for distributions not yet evaluated total at most `max_work / 8` values
//! (so at most `max_work` bytes). Only distributions that can still be
//! evaluated before the evaluation cap are kept, and duplicates are
//! removed per total size (a distribution can only be reached from smaller
//! ones, which are all evaluated before its own size comes up), so no set
//! of every distribution ever seen is held.

use std::collections::{BTreeMap, HashMap};

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

/// The throughput of a distribution whose cycles all take no time (or that
/// has no cycle at all): nothing bounds it. Shown as `unbounded` by the
/// report.
pub const UNBOUNDED: Rational = Rational::from_integer(u128::MAX);

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

/// Which bound ended a search before the maximal throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// [`BufferOptions::max_distributions`] distributions were evaluated.
    MaxDistributions,
    /// The work budget [`AnalysisOptions::max_work`] was spent.
    MaxWork,
    /// The distributions waiting to be evaluated would hold more than
    /// `max_work / 8` capacities.
    Memory,
}

impl Stop {
    /// The bound in words, naming the `aesflow sdf` option that raises it.
    pub fn describe(self) -> &'static str {
        match self {
            Stop::MaxDistributions => "cap reached: --max-distributions",
            Stop::MaxWork => "work limit reached: --max-work",
            Stop::Memory => {
                "memory limit reached: pending distributions hold max-work/8 capacities (--max-work)"
            }
        }
    }
}

/// Where a running [`SdfGraph::buffer_tradeoff_with_progress`] stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferProgress {
    /// Distributions evaluated so far.
    pub evaluated: usize,
    /// The evaluation cap.
    pub max_distributions: usize,
    /// Pareto points found so far.
    pub points: usize,
    /// The best throughput so far (zero: every distribution deadlocked).
    pub best: Rational,
    /// The throughput with unbounded channels (`None`: unbounded).
    pub max_throughput: Option<Rational>,
    /// Work spent so far (see the module documentation).
    pub work: u64,
}

/// Result of [`SdfGraph::buffer_tradeoff`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BufferAnalysis {
    /// Pareto points by increasing size and throughput.
    pub points: Vec<ParetoPoint>,
    /// Throughput with unbounded channels (`None`: unbounded).
    pub max_throughput: Option<Rational>,
    /// Whether the search reached the maximal throughput (or the bound);
    /// `false` if a limit stopped it: the points are then a partial front.
    pub complete: bool,
    /// The limit that stopped the search (`None` when complete).
    pub stopped: Option<Stop>,
    /// Distributions evaluated.
    pub evaluated: usize,
    /// Work spent (see the module documentation).
    pub work: u64,
    /// The most capacities held at once for distributions waiting to be
    /// evaluated.
    pub peak_pending_values: u64,
}

impl BufferAnalysis {
    /// The smallest distribution with a positive throughput: minimal
    /// deadlock-free capacities.
    pub fn min_deadlock_free(&self) -> Option<&ParetoPoint> {
        self.points.iter().find(|p| !p.throughput.is_zero())
    }
}

/// Throughput of a distribution, the channels whose capacity is on the
/// critical cycle (or on a token-free cycle when it deadlocks), and the
/// size of the HSDF graph analysed (nodes + edges).
fn evaluate(
    g: &mut SdfGraph,
    caps: &[u64],
    opts: &AnalysisOptions,
) -> Result<(Rational, Vec<ChannelId>, u64), SdfError> {
    for (i, &c) in caps.iter().enumerate() {
        g.channel_mut(ChannelId::from_index(i))
            .set_capacity(Some(c));
    }
    let q = g.check_hsdf_size(opts)?;
    let h = g.hsdf_for(q, opts)?;
    let size = (h.nodes.len() as u64).saturating_add(h.edges.len() as u64);
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
        // a critical cycle that takes no time bounds nothing
        Ok(Some(c)) => (c.ratio.recip().unwrap_or(UNBOUNDED), deps(&c.edges), size),
        // no cycle at all: nothing bounds the throughput
        Ok(None) => (UNBOUNDED, Vec::new(), size),
        Err(z) => (Rational::ZERO, deps(&z.edges), size),
    })
}

/// The distributions waiting to be evaluated: per total size, each
/// distribution once, with the order in which it was found.
#[derive(Default)]
struct Pending {
    levels: BTreeMap<u128, HashMap<Vec<u64>, u64>>,
    count: usize,
    seq: u64,
    /// Whether [`Pending::truncate`] dropped any: the cap then ends the
    /// search, even once nothing is left.
    dropped: bool,
}

impl Pending {
    /// Adds `d` of total size `sz` unless it is already waiting.
    fn insert(&mut self, sz: u128, d: Vec<u64>) -> bool {
        let level = self.levels.entry(sz).or_default();
        if level.contains_key(&d) {
            return false;
        }
        level.insert(d, self.seq);
        self.seq += 1;
        self.count += 1;
        true
    }

    /// The smallest size and its distributions, in the order found.
    fn pop_first(&mut self) -> Option<(u128, Vec<Vec<u64>>)> {
        let (sz, level) = self.levels.pop_first()?;
        self.count -= level.len();
        let mut v: Vec<(Vec<u64>, u64)> = level.into_iter().collect();
        v.sort_unstable_by_key(|x| x.1);
        Some((sz, v.into_iter().map(|x| x.0).collect()))
    }

    /// Drops the last distributions (largest size, latest found) beyond
    /// the first `keep`: they could only be evaluated after `keep` others.
    fn truncate(&mut self, keep: usize) {
        while self.count > keep {
            self.dropped = true;
            let Some(mut last) = self.levels.last_entry() else {
                return;
            };
            let excess = self.count - keep;
            let level = last.get_mut();
            if level.len() <= excess {
                self.count -= level.len();
                last.remove();
            } else {
                let mut order: Vec<u64> = level.values().copied().collect();
                order.sort_unstable();
                let cut = order[level.len() - excess];
                level.retain(|_, s| *s < cut);
                self.count -= excess;
            }
        }
    }
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
        self.buffer_tradeoff_with_progress(opts, bopts, &mut |_| {})
    }

    /// [`buffer_tradeoff`](Self::buffer_tradeoff), calling `progress`
    /// after every distribution evaluated.
    pub fn buffer_tradeoff_with_progress(
        &self,
        opts: &AnalysisOptions,
        bopts: &BufferOptions,
        progress: &mut dyn FnMut(&BufferProgress),
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
        let mut pending = Pending::default();
        pending.insert(size(&lower), lower);
        let mut r = BufferAnalysis {
            points: Vec::new(),
            max_throughput,
            complete: false,
            stopped: None,
            evaluated: 0,
            work: 0,
            peak_pending_values: m as u64,
        };
        let max_pending_values = opts.max_work / 8;
        let goal = bopts
            .throughput_bound
            .or(max_throughput)
            .unwrap_or(UNBOUNDED);
        let per_channel = m as u64;
        while let Some((sz, set)) = pending.pop_first() {
            let mut best: Option<(Rational, Vec<u64>)> = None;
            let level = set.len();
            for (j, d) in set.into_iter().enumerate() {
                if r.evaluated >= bopts.max_distributions {
                    r.stopped = Some(Stop::MaxDistributions);
                    return Ok(finish(r, sz, best, goal));
                }
                r.evaluated += 1;
                let (thr, deps, cost) = evaluate(&mut g, &d, &bounded)?;
                r.work = r
                    .work
                    .saturating_add(cost)
                    .saturating_add(per_channel)
                    .saturating_add(per_channel.saturating_mul(deps.len() as u64));
                for c in deps {
                    let i = c.index();
                    if self.channel(c).is_self_loop() {
                        continue;
                    }
                    let mut nd = d.clone();
                    nd[i] = nd[i].checked_add(step[i]).ok_or(SdfError::Overflow {
                        what: "a channel capacity exceeds 2^64",
                    })?;
                    pending.insert(sz + u128::from(step[i]), nd);
                }
                if best.as_ref().is_none_or(|b| thr > b.0) {
                    best = Some((thr, d));
                }
                // the rest of this size comes first, then the smallest
                // pending ones, as many as the cap still allows
                let left = bopts
                    .max_distributions
                    .saturating_sub(r.evaluated)
                    .saturating_sub(level - j - 1);
                pending.truncate(left);
                let values = (pending.count as u64).saturating_mul(per_channel);
                r.peak_pending_values = r.peak_pending_values.max(values);
                progress(&BufferProgress {
                    evaluated: r.evaluated,
                    max_distributions: bopts.max_distributions,
                    points: r.points.len(),
                    best: best
                        .as_ref()
                        .map(|b| b.0)
                        .max(r.points.last().map(|p| p.throughput))
                        .unwrap_or(Rational::ZERO),
                    max_throughput,
                    work: r.work,
                });
                if r.work > opts.max_work {
                    r.stopped = Some(Stop::MaxWork);
                } else if values > max_pending_values {
                    r.stopped = Some(Stop::Memory);
                }
                if r.stopped.is_some() {
                    return Ok(finish(r, sz, best, goal));
                }
            }
            if push_point(&mut r.points, sz, best)
                && r.points.last().is_some_and(|p| p.throughput >= goal)
            {
                r.complete = true;
                return Ok(r);
            }
        }
        if pending.dropped {
            // what is left could only be evaluated beyond the cap
            r.stopped = Some(Stop::MaxDistributions);
            return Ok(r);
        }
        // nothing left to enlarge: the last point is the best there is
        r.complete = true;
        Ok(r)
    }
}

/// A search stopped by a limit within size `sz`: the best distribution
/// of that size evaluated so far is still a point (every smaller size was
/// evaluated whole), and if it reaches the goal the front is complete.
fn finish(
    mut r: BufferAnalysis,
    sz: u128,
    best: Option<(Rational, Vec<u64>)>,
    goal: Rational,
) -> BufferAnalysis {
    if push_point(&mut r.points, sz, best) && r.points.last().is_some_and(|p| p.throughput >= goal)
    {
        r.complete = true;
        r.stopped = None;
    }
    r
}

/// Appends `best` (at total size `sz`) to the front if it raises the
/// throughput; whether it did.
fn push_point(points: &mut Vec<ParetoPoint>, sz: u128, best: Option<(Rational, Vec<u64>)>) -> bool {
    let Some((thr, d)) = best else { return false };
    if points.last().is_some_and(|p| thr <= p.throughput) {
        return false;
    }
    points.push(ParetoPoint {
        size: sz,
        throughput: thr,
        capacities: d,
    });
    true
}
