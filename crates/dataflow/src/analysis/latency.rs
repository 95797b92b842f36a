//! Latency between two actors in self-timed execution, as SDF3's
//! self-timed latency analysis (`sdf3analysis --algo latency(st,SRC,DST)`;
//! Ghamarian, Stuijk, Basten, Geilen, Theelen, *Latency minimization for
//! synchronous data flow graphs*, DSD 2007, §3).
//!
//! The graph runs self-timed from its initial tokens. Firing `k·q[src]` of
//! the source (the first of its `k`-th iteration) starts at `s_k`; the
//! destination firings that can complete without any source firing, `d`
//! (its *distance*, rounded up to the last firing of a destination
//! iteration: `d - d mod q[dst] + q[dst] - 1`), are not caused by it, so
//! the firing `k·q[dst] + d` of the destination is the one that answers
//! iteration `k`; it ends at `e_k`. The latency is `max_k (e_k - s_k)`. The
//! execution is periodic after a transient, so the maximum is reached
//! within the transient and one period, which the simulation detects as a
//! recurrent state. Like SDF3, the graph must be strongly connected.
//!
//! The execution is that of the state-space analysis: this module drives
//! its executor ([`super::statespace`]'s `SelfTimed`) time point by time
//! point, recording when the source starts and the destination ends its
//! firings; the destination's distance comes from an untimed execution in
//! which the source never fires.
//!
//! On random strongly connected graphs this equals SDF3's figure, except
//! where SDF3 stops its simulation as soon as it has seen as many
//! destination firings as source firings plus the distance: it then
//! misses the iterations answered later and can report less (on
//! `tests/data/sdf3-reference/latency-r21.xml`, SDF3 says 24, the first
//! iteration's latency; every later iteration takes 31).

use std::collections::HashMap;

use super::AnalysisOptions;
use super::csr::{in_out, successors};
use super::mcr::scc;
use super::statespace::{SelfTimed, TOKENS};
use crate::error::SdfError;
use crate::graph::{ActorId, FlowEdge, SdfGraph};

const CLOCK: SdfError = SdfError::Overflow {
    what: "the clock of the latency simulation exceeds 2^64",
};

impl SdfGraph {
    /// Latency (time units) from the start of an iteration of `src` to the
    /// end of the `dst` firing that answers it, in self-timed execution
    /// under `opts` (SDF3's figure under [`AnalysisOptions::sdf3`]).
    /// `max_steps` bounds the simulated time points
    /// ([`SdfError::StateSpaceLimit`]).
    pub fn latency(
        &self,
        src: ActorId,
        dst: ActorId,
        opts: &AnalysisOptions,
        max_steps: u64,
    ) -> Result<u64, SdfError> {
        let q = self.repetition_vector()?;
        self.check_deadlock_with(opts)?;
        let flow = self.flow_edges(opts.respect_capacities)?;
        let n = self.num_actors();
        if scc(&successors(n, &flow)).1 != 1 {
            return Err(SdfError::NotStronglyConnected);
        }
        if self.actors().iter().all(|a| a.exec_time == 0) {
            return Ok(0); // nothing takes time
        }
        let (qs, qd) = (q[src], q[dst]);
        let d = distance(n, &flow, src.index(), dst.index(), max_steps)?;
        // the last firing of the iteration `d` falls in (saturates: a firing
        // that far is never recorded, so the answer is then the step limit)
        let dist = (d - d % qd).saturating_add(qd - 1);
        let exec: Vec<u64> = self.actors().iter().map(|a| a.exec_time).collect();
        let mut sim = SelfTimed::new(&exec, &flow, opts.auto_concurrency, CLOCK);
        let (s, e) = (src.index(), dst.index());
        let mut starts: Vec<u64> = Vec::new();
        let mut ends: Vec<u64> = Vec::new();
        let mut seen: HashMap<Vec<u64>, u64> = HashMap::new();
        let mut record_until: Option<u64> = None;
        let limit = SdfError::StateSpaceLimit { steps: max_steps };
        for _ in 0..max_steps {
            let recording = record_until.is_none_or(|t| sim.time < t);
            sim.start(max_steps)?;
            if recording {
                push_n(&mut starts, sim.time, sim.started[s], max_steps)?;
            }
            push_n(&mut ends, sim.time, sim.completed[e], max_steps)?;
            if record_until.is_none() {
                let key = sim.key();
                if let Some(&t1) = seen.get(&key) {
                    // one more period, so that whole iterations are covered
                    record_until = Some(sim.time.checked_add(sim.time - t1).ok_or(CLOCK)?);
                } else {
                    seen.insert(key, sim.time);
                }
            }
            if record_until.is_some_and(|t| sim.time >= t) {
                let full = starts.len() as u64 / qs;
                if full == 0 || ends.len() as u64 > qd.saturating_mul(full - 1).saturating_add(dist)
                {
                    return Ok(max_latency(&starts, &ends, qs, qd, dist));
                }
            }
            sim.advance()?;
            push_n(&mut ends, sim.time, sim.completed[e], max_steps)?;
        }
        Err(limit)
    }
}

fn push_n(v: &mut Vec<u64>, t: u64, k: u64, max: u64) -> Result<(), SdfError> {
    if v.len() as u64 + k > max {
        return Err(SdfError::StateSpaceLimit { steps: max });
    }
    v.extend(std::iter::repeat_n(t, k as usize));
    Ok(())
}

fn max_latency(starts: &[u64], ends: &[u64], qs: u64, qd: u64, dist: u64) -> u64 {
    let mut best = 0;
    let mut i = 0u64;
    while qs.saturating_mul(i + 1) <= starts.len() as u64
        && qd.saturating_mul(i).saturating_add(dist) < ends.len() as u64
    {
        let l = ends[(qd * i + dist) as usize].saturating_sub(starts[(qs * i) as usize]);
        best = best.max(l);
        i += 1;
    }
    best
}

/// Destination firings possible while the source never fires (untimed).
fn distance(
    n: usize,
    flow: &[FlowEdge],
    src: usize,
    dst: usize,
    max_steps: u64,
) -> Result<u64, SdfError> {
    let (ins, outs) = in_out(n, flow);
    let mut tokens: Vec<u64> = flow.iter().map(|e| e.tokens).collect();
    let mut count = 0u64;
    for _ in 0..max_steps {
        let mut progress = false;
        for a in (0..n).filter(|&a| a != src) {
            let k = ins[a]
                .iter()
                .map(|&i| tokens[i] / flow[i].cons)
                .min()
                .unwrap_or(0)
                .min(1);
            if k == 0 {
                continue;
            }
            for &i in ins.row(a) {
                tokens[i] -= flow[i].cons;
            }
            for &i in outs.row(a) {
                tokens[i] = tokens[i].checked_add(flow[i].prod).ok_or(TOKENS)?;
            }
            count += u64::from(a == dst);
            progress = true;
        }
        if !progress {
            return Ok(count);
        }
    }
    Err(SdfError::WorkLimit {
        analysis: "latency distance (the destination fires without bound while the source waits)",
        limit: max_steps,
    })
}
