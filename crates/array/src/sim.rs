//! The timed, functional simulator.
//!
//! Every core runs its program self-timed: an `In` waits for a word (empty
//! FIFO: stall), an `Out` waits for room (full FIFO: stall), an `Exec`
//! advances the core's clock and transforms its data memory. Real 16-bit
//! words move through the FIFOs, so an engine built from AES actors really
//! encrypts.
//!
//! The simulator is exact for this machine model yet needs no global event
//! queue: each FIFO has one producer and one consumer, a word's arrival time
//! and each slot's release time are recorded, so a core can run ahead until
//! it would need a word not yet produced (or a slot not yet freed), and
//! resumes at the later of its own time and that word's (slot's) time. The
//! result does not depend on the order in which cores are run.

use std::collections::VecDeque;

use crate::app::Exec;
use crate::mapper::{CoreClass, Mapping, Op};
use crate::platform::Platform;

/// Per-core activity over a run (what the power model needs, paper §6.2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoreStats {
    /// Cycles executing useful instructions.
    pub exec: u64,
    /// Cycles in NOPs (hazards) with the clock running.
    pub nop: u64,
    /// Cycles stalled on an empty input or full output with the clock still
    /// running (the first [`Platform::halt_after`] cycles of each stall).
    pub stall: u64,
    /// Cycles with the clock halted (the rest of each stall, and all time
    /// before the first and after the last activity).
    pub halted: u64,
    /// Time the core finished its last operation.
    pub end: u64,
    /// Program periods completed.
    pub periods: u64,
}

/// Per-link activity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Words carried.
    pub words: u64,
    /// Cycles the link carried data.
    pub busy: u64,
}

/// The result of a simulation.
#[derive(Clone, Debug, Default)]
pub struct SimResult {
    /// Stats per core (indexed like [`Mapping::cores`]).
    pub cores: Vec<CoreStats>,
    /// Stats per link.
    pub links: Vec<LinkStats>,
    /// Completion time of every block, per sink (in sink order).
    pub sink_times: Vec<Vec<u64>>,
    /// Total simulated cycles (the last event).
    pub cycles: u64,
    /// Cores left waiting when nothing could run any more while a sink still
    /// expected data (empty if the run completed).
    pub deadlocked: Vec<usize>,
    /// The run was stopped at the step limit ([`Platform::step_slack`]):
    /// the core that was running then.
    pub step_limit: Option<usize>,
    /// Program steps executed by all cores.
    pub steps: u64,
}

/// Why a simulation did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// Nothing could run any more while these cores (by name) waited for
    /// words that never came or for room that never freed.
    Deadlock {
        /// Names of the stuck cores.
        stuck: Vec<String>,
    },
    /// The run executed more steps than the limit allows: a core runs
    /// without end (e.g. it reads no input).
    StepLimit {
        /// Name of the core running when the limit was hit.
        core: String,
        /// Steps executed.
        steps: u64,
    },
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Deadlock { stuck } => write!(
                f,
                "deadlock: nothing can run while {} wait(s) for data or room ({})",
                stuck.len(),
                stuck.join(", ")
            ),
            SimError::StepLimit { core, steps } => write!(
                f,
                "stopped after {steps} simulation steps without finishing: core {core} keeps running (does it read no input, or loop without end?)"
            ),
        }
    }
}

impl std::error::Error for SimError {}

impl SimResult {
    /// `Ok` if the run completed; otherwise what went wrong, with core names.
    pub fn check(&self, mapping: &Mapping) -> Result<(), SimError> {
        let name = |i: usize| {
            mapping
                .cores
                .get(i)
                .map_or_else(|| format!("#{i}"), |c| c.name.clone())
        };
        if let Some(c) = self.step_limit {
            return Err(SimError::StepLimit {
                core: name(c),
                steps: self.steps,
            });
        }
        if !self.deadlocked.is_empty() {
            return Err(SimError::Deadlock {
                stuck: self.deadlocked.iter().map(|&i| name(i)).collect(),
            });
        }
        Ok(())
    }

    /// Steady-state cycles between consecutive blocks at the first sink,
    /// measured over the second half of the run.
    pub fn cycles_per_block(&self) -> Option<f64> {
        let t = self.sink_times.first()?;
        if t.len() < 4 {
            return None;
        }
        let a = t.len() / 2;
        let b = t.len() - 1;
        Some((t[b] - t[a]) as f64 / (b - a) as f64)
    }
}

struct Fifo {
    buf: VecDeque<(u64, u16)>,
    depth: usize,
    latency: u64,
    last_arrival: u64,
    pushed: u64,
    popped: u64,
    pop_times: Vec<u64>,
    reader: usize,
    writer: usize,
    reader_waiting: bool,
    writer_waiting: bool,
}

struct Rt {
    pc: usize,
    t: u64,
    periods: u64,
    max_periods: Option<u64>,
    done: bool,
    mem: Vec<u16>,
}

/// Per-core clocks for a GALS run ([`simulate_clocked`]): time is counted in
/// *ticks*; the reference clock (the platform clock: link latency and link
/// bandwidth, off-array ports) has [`Clocks::ticks_per_cycle`] ticks per
/// cycle, and core `i` has [`Clocks::period`]`[i]` ticks per cycle of its
/// own oscillator (a core at `f_i` takes `cycles · f_ref / f_i` reference
/// cycles for `cycles` of its own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// Ticks per reference cycle.
    pub ticks_per_cycle: u64,
    /// Ticks per cycle of each core (indexed like [`Mapping::cores`]).
    pub period: Vec<u64>,
}

impl Clocks {
    /// Every core on the reference clock, one tick per cycle:
    /// [`simulate_clocked`] then equals [`simulate`].
    pub fn uniform(cores: usize) -> Self {
        Clocks {
            ticks_per_cycle: 1,
            period: vec![1; cores],
        }
    }

    /// Core `i` at `freq[i]` times the reference frequency (`0 < freq[i] ≤
    /// 1` in practice), with `ticks` ticks per reference cycle; each period
    /// is rounded to the nearest tick (at least one).
    pub fn from_ratios(freq: &[f64], ticks: u64) -> Self {
        Clocks {
            ticks_per_cycle: ticks.max(1),
            period: freq
                .iter()
                .map(|&r| ((ticks.max(1) as f64 / r).round() as u64).max(1))
                .collect(),
        }
    }
}

/// Simulate a mapping: sources run `source_periods` program periods, every
/// other core runs until no more input arrives.
pub fn simulate(mapping: &mut Mapping, platform: &Platform, source_periods: u64) -> SimResult {
    let clocks = Clocks::uniform(mapping.cores.len());
    simulate_clocked(mapping, platform, source_periods, &clocks)
}

/// The sink cores, and each core's index among them.
fn sink_cores(mapping: &Mapping) -> (Vec<usize>, Vec<Option<usize>>) {
    let n = mapping.cores.len();
    let sinks: Vec<usize> = (0..n)
        .filter(|&i| mapping.cores[i].class == CoreClass::Sink)
        .collect();
    let index = (0..n).map(|i| sinks.iter().position(|&s| s == i)).collect();
    (sinks, index)
}

/// Puts core `c` back on the run stack if it was waiting on a FIFO
/// (`waiting`, cleared).
#[inline]
fn wake(waiting: &mut bool, c: usize, queued: &mut [bool], stack: &mut Vec<usize>) {
    if std::mem::take(waiting) && !queued[c] {
        queued[c] = true;
        stack.push(c);
    }
}

/// A core whose clock is at `t` stalls until `until` (if later), its
/// clock running for at most `halt_after` of the stalled cycles.
#[inline]
fn stall_until(t: &mut u64, stall: &mut u64, until: u64, halt_after: u64) {
    if until > *t {
        *stall += (until - *t).min(halt_after);
        *t = until;
    }
}

/// [`simulate`] with each core on its own clock (GALS, per-core frequency
/// scaling). Every time-valued field of the result — [`CoreStats`]'s
/// `exec`, `nop`, `stall`, `halted`, `end`, [`LinkStats::busy`],
/// [`SimResult::cycles`], the sink times — is in ticks; divide by
/// [`Clocks::ticks_per_cycle`] for reference cycles. A stalled core keeps
/// its clock running for [`Platform::halt_after`] cycles *of its own clock*.
///
/// # Panics
/// If `clocks.period` does not have one entry per core.
pub fn simulate_clocked(
    mapping: &mut Mapping,
    platform: &Platform,
    source_periods: u64,
    clocks: &Clocks,
) -> SimResult {
    let n = mapping.cores.len();
    assert_eq!(clocks.period.len(), n, "one clock period per core");
    let tick = clocks.ticks_per_cycle.max(1);
    let mut fifos = fifos(mapping, platform, tick);
    let mut rts = runtimes(mapping, source_periods);
    let mut stats: Vec<CoreStats> = vec![CoreStats::default(); n];
    let mut link_stats: Vec<LinkStats> = vec![LinkStats::default(); mapping.links.len()];
    let (sinks, sink_index) = sink_cores(mapping);
    let mut sink_times: Vec<Vec<u64>> = vec![Vec::new(); sinks.len()];
    let cpw = platform.link_cycles_per_word * tick;

    let mut stack: Vec<usize> = (0..n).rev().collect();
    let mut queued = vec![true; n];
    // Every core running `source_periods + 1` periods, times the slack.
    let per_period: u64 = mapping.cores.iter().map(|c| c.program.len() as u64).sum();
    let budget = per_period
        .saturating_mul(source_periods.saturating_add(1))
        .saturating_mul(platform.step_slack.max(1));
    let mut steps = 0u64;
    let mut step_limit = None;
    while let Some(ci) = stack.pop() {
        if step_limit.is_some() {
            break;
        }
        queued[ci] = false;
        if rts[ci].done {
            continue;
        }
        let core = &mut mapping.cores[ci];
        let prog = &core.program;
        let rt = &mut rts[ci];
        let st = &mut stats[ci];
        let period = clocks.period[ci].max(1);
        let halt_after = platform.halt_after * period;
        loop {
            steps += 1;
            if steps > budget {
                step_limit = Some(ci);
                break;
            }
            if rt.pc == prog.len() {
                rt.pc = 0;
                rt.periods += 1;
                st.periods = rt.periods;
                if rt.max_periods.is_some_and(|m| rt.periods >= m) {
                    rt.done = true;
                    break;
                }
            }
            match prog[rt.pc] {
                Op::In { port, addr } => {
                    let fi = core.inputs[port as usize] as usize;
                    let f = &mut fifos[fi];
                    let Some(&(arr, v)) = f.buf.front() else {
                        f.reader_waiting = true;
                        break;
                    };
                    stall_until(&mut rt.t, &mut st.stall, arr, halt_after);
                    f.buf.pop_front();
                    let d = f.depth;
                    f.pop_times[(f.popped % d as u64) as usize] = rt.t;
                    f.popped += 1;
                    rt.mem[addr as usize] = v;
                    wake(&mut f.writer_waiting, f.writer, &mut queued, &mut stack);
                }
                Op::Out { link, addr } => {
                    let fi = link as usize;
                    let f = &mut fifos[fi];
                    let k = f.pushed;
                    let d = f.depth as u64;
                    if k >= d {
                        let idx = k - d;
                        if f.popped <= idx {
                            f.writer_waiting = true;
                            break;
                        }
                        let pt = f.pop_times[(idx % d) as usize];
                        stall_until(&mut rt.t, &mut st.stall, pt, halt_after);
                    }
                    let arr = (rt.t + f.latency).max(f.last_arrival + cpw);
                    f.last_arrival = arr;
                    f.buf.push_back((arr, rt.mem[addr as usize]));
                    f.pushed += 1;
                    link_stats[fi].words += 1;
                    link_stats[fi].busy += cpw;
                    wake(&mut f.reader_waiting, f.reader, &mut queued, &mut stack);
                }
                Op::Exec(Exec {
                    cycles,
                    nop,
                    action,
                }) => {
                    if action != u32::MAX
                        && let Some(b) = core.behavior.as_mut()
                    {
                        b.exec(action, &mut rt.mem, rt.t);
                    }
                    if let Some(si) = sink_index[ci] {
                        sink_times[si].push(rt.t);
                    }
                    rt.t += u64::from(cycles) * period;
                    st.exec += u64::from(cycles - nop) * period;
                    st.nop += u64::from(nop) * period;
                }
            }
            rt.pc += 1;
        }
        st.end = rt.t;
    }
    let cycles = stats.iter().map(|s| s.end).max().unwrap_or(0);
    let deadlocked = finish(mapping, &rts, &mut stats, cycles);
    SimResult {
        cores: stats,
        links: link_stats,
        sink_times,
        cycles,
        deadlocked,
        step_limit,
        steps,
    }
}

/// One FIFO per link, latencies in ticks.
fn fifos(mapping: &Mapping, platform: &Platform, tick: u64) -> Vec<Fifo> {
    mapping
        .links
        .iter()
        .map(|l| Fifo {
            buf: VecDeque::with_capacity(platform.fifo_depth),
            depth: platform.fifo_depth.max(1),
            latency: l.latency * tick,
            last_arrival: 0,
            pushed: 0,
            popped: 0,
            pop_times: vec![0; platform.fifo_depth.max(1)],
            reader: l.dst,
            writer: l.src,
            reader_waiting: false,
            writer_waiting: false,
        })
        .collect()
}

/// Each core's run-time state at time 0.
fn runtimes(mapping: &Mapping, source_periods: u64) -> Vec<Rt> {
    mapping
        .cores
        .iter()
        .map(|c| Rt {
            pc: 0,
            t: 0,
            periods: 0,
            max_periods: (c.class == CoreClass::Source).then_some(source_periods),
            done: c.program.is_empty(),
            mem: vec![0; c.mem_words.max(1)],
        })
        .collect()
}

/// Halted time of every core, and the cores stuck mid-period (a deadlock
/// if any is not a source).
fn finish(mapping: &Mapping, rts: &[Rt], stats: &mut [CoreStats], cycles: u64) -> Vec<usize> {
    let mut deadlocked = Vec::new();
    for (i, c) in mapping.cores.iter().enumerate() {
        let s = &mut stats[i];
        s.halted = cycles.saturating_sub(s.exec + s.nop + s.stall);
        let rt = &rts[i];
        let first_io = c
            .program
            .iter()
            .position(|o| !matches!(o, Op::Exec(_)))
            .unwrap_or(0);
        if c.class != CoreClass::Source && rt.pc != 0 && rt.pc != first_io && !rt.done {
            deadlocked.push(i);
        }
    }
    deadlocked
}
