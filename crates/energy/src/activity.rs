//! Per-core activity of an engine in steady state, from the simulator.
//!
//! An engine is simulated twice, on `n` and on `2n` blocks, and the two
//! runs' counters are subtracted: what is left is exactly `n` blocks of
//! steady state, without the pipeline's fill and drain (where cores sit
//! halted before the first block reaches them and after the last has
//! passed). Every engine run is also checked block for block against the
//! reference cipher.

use std::sync::Arc;

use aesflow_array::{Clocks, CoreClass, Mapping, Platform, SimResult, gather, map};
use aesflow_cipher::{Aes, KeyExpansion, KeySize};
use aesflow_designs::compile::compile;
use aesflow_designs::report::{fips_key, test_blocks};
use aesflow_designs::{Design, Engine, Expansion, Optimisations, build};

use crate::error::EnergyError;
use crate::power::PowerModel;

/// The platform the energy model simulates on: AsAP2 as in
/// [`Platform::asap2`], except the clock-halting latency.
///
/// [`Platform::halt_after`] (how many cycles a stalled core keeps its clock
/// running before it halts) never changes the timing, only how a stall
/// splits between "stall with active clock" and "stall with halted clock",
/// so the array model leaves it at a guess (8). Table 4 measures it: the SubByte row
/// stalls once per 70-cycle period, 16 cycles with the clock running, then
/// 15 halted — a 16-cycle halting latency. One value for every engine.
pub fn platform() -> Platform {
    Platform {
        halt_after: 16,
        ..Platform::asap2()
    }
}

/// Ticks per reference cycle for clocked (DVFS) runs: fine enough that a
/// core's period rounds to within 0.1%.
pub const TICKS: u64 = 1024;

/// One core's activity over the steady-state window.
#[derive(Clone, Debug, PartialEq)]
pub struct CoreActivity {
    /// Index in the mapping's cores (what per-core clock ratios are
    /// indexed by).
    pub index: usize,
    /// Core name.
    pub name: String,
    /// Kind (`SubBytes-4`, `MergeCore`, …).
    pub kind: String,
    /// Compute / Merge / Dispatch.
    pub class: CoreClass,
    /// Executing cycles (of the core's own clock).
    pub exec: f64,
    /// NOP cycles (own clock).
    pub nop: f64,
    /// Stall cycles with the clock running (own clock).
    pub stall: f64,
    /// Time halted, in reference cycles.
    pub halted: f64,
    /// Word-cycles on nearest-neighbour links this core sends on (links to
    /// and from the off-array ports count here too).
    pub near: f64,
    /// Word-cycles × tiles crossed beyond the neighbour on long links.
    pub long_tiles: f64,
    /// Word-cycles on long-distance links (for Table 4's column).
    pub long: f64,
    /// Clock as a fraction of the reference clock.
    pub freq: f64,
}

impl CoreActivity {
    /// Executing + NOP cycles: the cycles the core's program needs (N_exe of
    /// the talk's frequency-scaling rule).
    pub fn busy(&self) -> f64 {
        self.exec + self.nop
    }
}

/// An engine's steady-state activity.
#[derive(Clone, Debug)]
pub struct Activity {
    /// The design's name.
    pub name: String,
    /// Engine, if one of the paper's eight.
    pub engine: Option<Engine>,
    /// Key expansion.
    pub expansion: Expansion,
    /// Copies (Fig. 12 duplication; 1 otherwise).
    pub copies: usize,
    /// Cores on the mesh (the engine's, without the consumer of duplicated
    /// runs).
    pub cores: Vec<CoreActivity>,
    /// Window length in reference cycles.
    pub window: f64,
    /// Blocks completed in the window.
    pub blocks: f64,
    /// All blocks of both runs encrypted bit-identically to the reference.
    pub verified: bool,
    /// The mapping needs more tiles than AsAP2 has.
    pub exceeds_chip: bool,
    /// Communication cores (Merge + Dispatch) of the engine.
    pub comm_cores: usize,
    /// Entries in the mapping's core list (cores and off-array ports).
    pub mapping_len: usize,
}

impl Activity {
    /// Reference cycles per block in steady state.
    pub fn cycles_per_block(&self) -> f64 {
        self.window / self.blocks
    }

    /// Cores of the engine.
    pub fn n_cores(&self) -> usize {
        self.cores.len()
    }

    /// Throughput (bit/s) with the reference clock at `f` Hz.
    pub fn throughput(&self, f: f64) -> f64 {
        128.0 * f / self.cycles_per_block()
    }
}

/// Power of an engine, split as in Table 4 (W).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Power {
    /// Executing.
    pub exec: f64,
    /// NOPs and stalls with the clock on.
    pub stall: f64,
    /// Halted (leakage).
    pub leak: f64,
    /// Links.
    pub comm: f64,
}

impl Power {
    /// Total (eq. 3).
    pub fn total(&self) -> f64 {
        self.exec + self.stall + self.leak + self.comm
    }

    fn add(&mut self, o: Power) {
        self.exec += o.exec;
        self.stall += o.stall;
        self.leak += o.leak;
        self.comm += o.comm;
    }
}

/// Energy of one core over the window (J), split like [`Power`], with the
/// reference clock at `f` Hz and the core at supply `vdd`.
pub fn core_energy(m: &PowerModel, c: &CoreActivity, vdd: f64, f: f64) -> Power {
    Power {
        exec: c.exec * m.e_exec(vdd),
        stall: (c.nop + c.stall) * m.e_stall(vdd),
        leak: c.halted / f * m.leak(vdd),
        comm: c.near * m.e_near(vdd) + c.long_tiles * m.e_long_tile(vdd),
    }
}

/// Average power (W) of the engine with the reference clock at `f` and the
/// supply of core `i` given by `vdd(i)`.
pub fn power_with(
    m: &PowerModel,
    a: &Activity,
    f: f64,
    vdd: impl Fn(usize, &CoreActivity) -> f64,
) -> Power {
    let secs = a.window / f;
    let mut p = Power::default();
    for (i, c) in a.cores.iter().enumerate() {
        let e = core_energy(m, c, vdd(i, c), f);
        p.add(Power {
            exec: e.exec / secs,
            stall: e.stall / secs,
            leak: e.leak / secs,
            comm: e.comm / secs,
        });
    }
    p
}

/// Power at one supply and the matching clock (`f = f_max(vdd)` in the
/// paper's experiments).
pub fn power(m: &PowerModel, a: &Activity, vdd: f64, f: f64) -> Power {
    power_with(m, a, f, |_, _| vdd)
}

/// Energy per bit (eq. 7) in J/bit at supply `vdd` and clock `f`.
pub fn energy_per_bit(m: &PowerModel, a: &Activity, vdd: f64, f: f64) -> f64 {
    power(m, a, vdd, f).total() / a.throughput(f)
}

/// Power split per core kind: `(kind, count, per-core mean activity per
/// block, summed power)`, in order of first appearance.
pub fn by_kind(m: &PowerModel, a: &Activity, vdd: f64, f: f64) -> Vec<KindRow> {
    let secs = a.window / f;
    let mut rows: Vec<KindRow> = Vec::new();
    for c in &a.cores {
        let e = core_energy(m, c, vdd, f);
        let i = match rows.iter().position(|r| r.kind == c.kind) {
            Some(i) => i,
            None => {
                rows.push(KindRow {
                    kind: c.kind.clone(),
                    ..KindRow::default()
                });
                rows.len() - 1
            }
        };
        let r = &mut rows[i];
        r.count += 1;
        let b = a.blocks;
        r.exec += c.exec / b;
        r.nop += c.nop / b;
        r.stall += c.stall / b;
        r.halted += c.halted / b;
        r.near += c.near / b;
        r.long += c.long / b;
        r.power.add(Power {
            exec: e.exec / secs,
            stall: e.stall / secs,
            leak: e.leak / secs,
            comm: e.comm / secs,
        });
    }
    for r in rows.iter_mut() {
        let n = r.count as f64;
        r.exec /= n;
        r.nop /= n;
        r.stall /= n;
        r.halted /= n;
        r.near /= n;
        r.long /= n;
    }
    rows
}

/// One row of Table 4: a core kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindRow {
    /// Kind.
    pub kind: String,
    /// Cores of this kind.
    pub count: usize,
    /// Mean executing cycles per block, per core.
    pub exec: f64,
    /// Mean NOP cycles per block.
    pub nop: f64,
    /// Mean clock-on stall cycles per block.
    pub stall: f64,
    /// Mean halted cycles per block.
    pub halted: f64,
    /// Mean nearest-neighbour link cycles per block.
    pub near: f64,
    /// Mean long-distance link cycles per block.
    pub long: f64,
    /// Power of all cores of the kind (W).
    pub power: Power,
}

/// What to simulate.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// The design.
    pub design: Design,
    /// Engine, if one of the paper's eight.
    pub engine: Option<Engine>,
    /// Key expansion.
    pub expansion: Expansion,
    /// Copies gathered at the output (Fig. 12).
    pub copies: usize,
    /// Steady-state blocks (per copy: `n·copies` blocks in the window).
    pub blocks: usize,
}

impl RunSpec {
    /// One of the paper's engines, AES-128 by default key size, all §5
    /// optimisations.
    pub fn engine(e: Engine, key: KeySize, x: Expansion, blocks: usize) -> Self {
        RunSpec {
            design: build(e, key, x, Optimisations::ALL),
            engine: Some(e),
            expansion: x,
            copies: 1,
            blocks,
        }
    }
}

struct Raw {
    mapping: Mapping,
    sim: SimResult,
    verified: bool,
}

/// Compile, (gather,) map and simulate `spec` on `n` blocks per copy with
/// per-core clock ratios `freq` (indexed like the mapping's cores; `None`:
/// all on the reference clock).
fn raw_run(
    spec: &RunSpec,
    n: usize,
    platform: &Platform,
    freq: Option<&[f64]>,
) -> Result<Raw, EnergyError> {
    let key = fips_key(spec.design.key);
    let name = &spec.design.name;
    let build = |stage: &'static str, message: String| EnergyError::Build {
        design: name.clone(),
        copies: spec.copies.max(1),
        stage,
        message,
    };
    let k = spec.copies.max(1);
    let all = test_blocks(n * k, 0x5eed ^ n as u64);
    let mut apps = Vec::new();
    let mut outputs = Vec::new();
    for j in 0..k {
        let mine: Vec<[u8; 16]> = all.iter().skip(j).step_by(k).copied().collect();
        let c = compile(&spec.design, &key, Arc::new(mine), platform)
            .map_err(|e| build("compile", e.to_string()))?;
        let b = c.interleave as usize;
        if !n.is_multiple_of(b) {
            return Err(EnergyError::Blocks {
                design: name.clone(),
                blocks: n,
                interleave: b,
            });
        }
        outputs.push(c.output.clone());
        apps.push((c.app, b));
    }
    let interleave = apps[0].1;
    let app = gather(apps.into_iter().map(|(a, _)| a).collect())
        .map_err(|e| build("gather", e.to_string()))?;
    let mut mapping = map(app, platform).map_err(|e| build("map", e.to_string()))?;
    let periods = (n / interleave) as u64;
    let clocks = match freq {
        Some(f) => Clocks::from_ratios(f, TICKS),
        None => Clocks::uniform(mapping.cores.len()),
    };
    let sim = aesflow_array::simulate_clocked(&mut mapping, platform, periods, &clocks);
    for c in mapping.cores.iter_mut() {
        c.behavior = None;
    }
    if !sim.deadlocked.is_empty() {
        return Err(EnergyError::Deadlock {
            design: name.clone(),
            cores: sim.deadlocked.len(),
        });
    }
    let aes = Aes::with_kernel_name(&key, "reference", KeyExpansion::Offline)
        .map_err(|e| EnergyError::Reference(e.to_string()))?;
    let mut verified = true;
    for (j, out) in outputs.iter().enumerate() {
        let got = out
            .lock()
            .map_err(|_| build("output", "output lock poisoned".into()))?
            .clone();
        let mine: Vec<[u8; 16]> = all.iter().skip(j).step_by(k).copied().collect();
        verified &= got.len() >= mine.len()
            && got.iter().zip(&mine).all(|(c, p)| {
                let mut q = *p;
                aes.encrypt_block(&mut q);
                q == *c
            });
    }
    Ok(Raw {
        mapping,
        sim,
        verified,
    })
}

fn counters(raw: &Raw, tick: f64, period: &dyn Fn(usize) -> f64) -> Vec<(usize, [f64; 7])> {
    let m = &raw.mapping;
    let mut out = Vec::new();
    for (i, c) in m.cores.iter().enumerate() {
        if !c.class.is_core() || c.kind == "Consumer" {
            continue;
        }
        let s = &raw.sim.cores[i];
        let p = period(i);
        let mut near = 0.0;
        let mut long = 0.0;
        let mut long_tiles = 0.0;
        let mut links: Vec<u32> = c.outputs.clone();
        // Off-array input ports deliver into this core: count those links here.
        for &l in &c.inputs {
            if !m.cores[m.links[l as usize].src].class.is_core() {
                links.push(l);
            }
        }
        for l in links {
            let lk = &m.links[l as usize];
            let busy = raw.sim.links[l as usize].busy as f64 / tick;
            if lk.is_long() {
                long += busy;
                long_tiles += busy * f64::from(lk.tiles - 1);
            } else {
                near += busy;
            }
        }
        out.push((
            i,
            [
                s.exec as f64 / p,
                s.nop as f64 / p,
                s.stall as f64 / p,
                near,
                long,
                long_tiles,
                (s.exec + s.nop + s.stall) as f64 / tick,
            ],
        ));
    }
    out
}

/// Simulate `spec` in steady state (two runs, `n` and `2n` blocks per copy,
/// subtracted), with optional per-core clock ratios.
pub fn run(
    spec: &RunSpec,
    platform: &Platform,
    freq: Option<&[f64]>,
) -> Result<Activity, EnergyError> {
    let n = spec.blocks.max(8);
    let a = raw_run(spec, n, platform, freq)?;
    let b = raw_run(spec, 2 * n, platform, freq)?;
    let tick = if freq.is_some() { TICKS as f64 } else { 1.0 };
    let clocks = freq.map(|f| Clocks::from_ratios(f, TICKS));
    let period = |i: usize| -> f64 {
        match &clocks {
            Some(c) => c.period[i] as f64,
            None => 1.0,
        }
    };
    let ca = counters(&a, tick, &period);
    let cb = counters(&b, tick, &period);
    // The window: between the n-th and 2n-th block at the sink of the long
    // run, which is what the short run's totals subtract to.
    let window = (b.sim.cycles as f64 - a.sim.cycles as f64) / tick;
    let k = spec.copies.max(1);
    let mut cores = Vec::new();
    for ((i, x), (_, y)) in ca.iter().zip(&cb) {
        let c = &b.mapping.cores[*i];
        let d: Vec<f64> = (0..7).map(|j| y[j] - x[j]).collect();
        cores.push(CoreActivity {
            index: *i,
            name: c.name.clone(),
            kind: c.kind.clone(),
            class: c.class,
            exec: d[0],
            nop: d[1],
            stall: d[2],
            halted: (window - d[6]).max(0.0),
            near: d[3],
            long: d[4],
            long_tiles: d[5],
            freq: freq.map(|f| f[*i]).unwrap_or(1.0),
        });
    }
    let comm_cores = cores.iter().filter(|c| c.class.is_comm()).count();
    Ok(Activity {
        name: spec.design.name.clone(),
        engine: spec.engine,
        expansion: spec.expansion,
        copies: k,
        cores,
        window,
        blocks: (n * k) as f64,
        verified: a.verified && b.verified,
        exceeds_chip: b.mapping.exceeds_chip,
        comm_cores,
        mapping_len: b.mapping.cores.len(),
    })
}
