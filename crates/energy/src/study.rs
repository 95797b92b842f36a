//! The whole study: every engine simulated once (plus its DVFS
//! re-simulations and duplicated copies), and every figure derived from
//! those runs. Printing lives in the CLI (`aesflow energy`), JSON in [`crate::json`],
//! charts in [`crate::figures`](mod@crate::figures).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use aesflow_cipher::KeySize;
use aesflow_designs::{Engine, Expansion};

use crate::activity::{
    Activity, KindRow, Power, RunSpec, by_kind, energy_per_bit, platform, power, run,
};
use crate::checks::{Check, checks};
use crate::compare::{Platform5, asap_row, paper_rows, rule_scaled};
use crate::dvfs::{Dvfs, scale};
use crate::error::EnergyError;
use crate::host::{CpuChoice, HostFigure, host_row};
use crate::power::{FmaxCurve, PowerModel, vdd_grid};

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Steady-state blocks per engine (per copy).
    pub blocks: usize,
    /// Key size.
    pub key: KeySize,
    /// The host's measured speed and the CPU it is taken to be (Table 5's
    /// host row); `None` leaves the row out.
    pub host: Option<(HostFigure, CpuChoice)>,
    /// Worker threads (0: all cores).
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            blocks: 256,
            key: KeySize::Aes128,
            host: None,
            threads: 0,
        }
    }
}

/// One engine with one key expansion at 1.3 V / 1.2 GHz.
#[derive(Clone, Debug)]
pub struct EngineEnergy {
    /// Engine.
    pub engine: Engine,
    /// Key expansion.
    pub expansion: Expansion,
    /// Steady-state activity and the DVFS results.
    pub dvfs: Dvfs,
    /// Power at 1.3 V / 1.2 GHz.
    pub power: Power,
    /// Energy per bit at 1.3 V (J/bit).
    pub energy_per_bit: f64,
}

impl EngineEnergy {
    /// The unscaled activity.
    pub fn activity(&self) -> &Activity {
        &self.dvfs.base
    }
}

/// One duplication point of Fig. 12.
#[derive(Clone, Debug, PartialEq)]
pub struct DupPoint {
    /// Copies.
    pub copies: usize,
    /// Cores of the duplicated engine (copies + MergeCores in front of the
    /// consumer).
    pub cores: usize,
    /// MergeCores added to gather the outputs.
    pub gather_merges: usize,
    /// Throughput at 1.2 GHz (Gbit/s).
    pub gbps: f64,
    /// Encrypts correctly.
    pub verified: bool,
    /// Needs more tiles than AsAP2's 164.
    pub exceeds_chip: bool,
}

/// Everything `aesflow energy` reports.
#[derive(Clone, Debug)]
pub struct Study {
    /// Options used.
    pub options: Options,
    /// The f_max(Vdd) fit.
    pub curve: FmaxCurve,
    /// Table 3.
    pub model: PowerModel,
    /// Halting latency of the energy platform (cycles).
    pub halt_after: u64,
    /// All engines, online then offline per engine, Table 2's order.
    pub engines: Vec<EngineEnergy>,
    /// Table 4 rows (offline Full-parallelism).
    pub table4: Vec<KindRow>,
    /// Fig. 14: per offline engine, (Vdd, nJ/bit).
    pub fig14: Vec<(Engine, Vec<(f64, f64)>)>,
    /// Fig. 12: per offline engine, the 1×/2×/4× points.
    pub fig12: Vec<(Engine, Vec<DupPoint>)>,
    /// Table 5 rows: the paper's, the model's AsAP row, the host row.
    pub table5: Vec<Platform5>,
    /// The paper's rows rescaled by the general rule.
    pub table5_rule: Vec<Platform5>,
    /// The host figure and CPU used for the host row.
    pub host: Option<(HostFigure, CpuChoice)>,
    /// Paper vs model.
    pub checks: Vec<Check>,
}

impl Study {
    /// One engine's result.
    ///
    /// # Panics
    ///
    /// Never for a finished study: every engine and expansion ran.
    pub fn engine(&self, e: Engine, x: Expansion) -> &EngineEnergy {
        find(&self.engines, e, x)
    }

    /// Online energy per bit over offline, minus one, for an engine.
    pub fn overhead(&self, e: Engine) -> f64 {
        overhead(&self.engines, e)
    }
}

fn lookup(engines: &[EngineEnergy], e: Engine, x: Expansion) -> Option<&EngineEnergy> {
    engines.iter().find(|r| r.engine == e && r.expansion == x)
}

fn find(engines: &[EngineEnergy], e: Engine, x: Expansion) -> &EngineEnergy {
    lookup(engines, e, x).expect("every engine ran")
}

/// `f` over `items` on `threads` threads (0: one per available CPU), in
/// the order of `items`; `progress(done, total)` is called after each.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let n = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..n.min(items.len()).max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    let r = f(&items[i]);
                    out.lock().expect("par_map lock")[i] = Some(r);
                    progress(finished.fetch_add(1, Ordering::Relaxed) + 1, items.len());
                }
            });
        }
    });
    out.into_inner()
        .expect("par_map lock")
        .into_iter()
        .map(|r| r.expect("every item computed"))
        .collect()
}

/// Power of No-merge at the paper's Table 5 clock (1.21 GHz).
pub const NO_MERGE_MHZ: f64 = 1210.0;

enum Job {
    Engine(Engine, Expansion),
    Dup(Engine, usize),
}

enum Done {
    Engine(Box<EngineEnergy>),
    Dup(Engine, DupPoint),
}

/// Run the study.
pub fn study(opt: &Options) -> Result<Study, EnergyError> {
    study_with_progress(opt, &|_, _| {})
}

/// Run the study, calling `progress(done, total)` as each of its
/// simulations (one per engine and expansion, one per duplicated copy)
/// finishes.
pub fn study_with_progress(
    opt: &Options,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Study, EnergyError> {
    let model = PowerModel::TABLE3;
    let curve = FmaxCurve::asap2();
    let (engines, dups) = simulate_all(opt, &model, &curve, progress)?;
    let fp = find(&engines, Engine::FullParallelism, Expansion::Offline);
    let table4 = by_kind(&model, fp.activity(), model.v_ref, model.f_ref);
    let fig14 = fig14_of(&engines, &model, &curve);
    let fig12 = fig12_of(&engines, &dups, &model);
    let (table5, table5_rule) = table5_of(&engines, &model, opt.host.as_ref());
    let checks = checks(&engines, &table4, &fig14, &table5, &model);
    Ok(Study {
        options: opt.clone(),
        curve,
        model,
        halt_after: platform().halt_after,
        engines,
        table4,
        fig14,
        fig12,
        table5,
        table5_rule,
        host: opt.host.clone(),
        checks,
    })
}

/// The engines' results and the duplicated copies' points.
type Simulated = (Vec<EngineEnergy>, Vec<(Engine, DupPoint)>);

/// Every engine with both key expansions (with its DVFS re-simulations),
/// and every offline engine duplicated 2× and 4×.
fn simulate_all(
    opt: &Options,
    model: &PowerModel,
    curve: &FmaxCurve,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Simulated, EnergyError> {
    let plat = platform();
    let mut jobs = Vec::new();
    for e in Engine::ALL {
        for x in Expansion::ALL {
            jobs.push(Job::Engine(e, x));
        }
    }
    for e in Engine::ALL {
        for k in [2, 4] {
            jobs.push(Job::Dup(e, k));
        }
    }
    // Big jobs first for a better balance on few cores.
    jobs.reverse();
    let done = par_map(
        &jobs,
        opt.threads,
        progress,
        |j| -> Result<Done, EnergyError> {
            match *j {
                Job::Engine(e, x) => {
                    let spec = RunSpec::engine(e, opt.key, x, opt.blocks);
                    let base = run(&spec, &plat, None)?;
                    let pw = power(model, &base, model.v_ref, model.f_ref);
                    let epb = energy_per_bit(model, &base, model.v_ref, model.f_ref);
                    let d = scale(&spec, &plat, model, curve, base)?;
                    Ok(Done::Engine(Box::new(EngineEnergy {
                        engine: e,
                        expansion: x,
                        dvfs: d,
                        power: pw,
                        energy_per_bit: epb,
                    })))
                }
                Job::Dup(e, k) => {
                    let mut spec = RunSpec::engine(e, opt.key, Expansion::Offline, opt.blocks);
                    spec.copies = k;
                    let a = run(&spec, &plat, None)?;
                    Ok(Done::Dup(e, dup_point(&a, k, model.f_ref)))
                }
            }
        },
    );
    let mut engines = Vec::new();
    let mut dups = Vec::new();
    for d in done {
        match d? {
            Done::Engine(x) => engines.push(*x),
            Done::Dup(e, p) => dups.push((e, p)),
        }
    }
    engines.sort_by_key(|x| (x.engine, x.expansion));
    Ok((engines, dups))
}

/// Fig. 14: energy per bit of each offline engine across the supply grid,
/// each point at `f_max(Vdd)`.
fn fig14_of(
    engines: &[EngineEnergy],
    model: &PowerModel,
    curve: &FmaxCurve,
) -> Vec<(Engine, Vec<(f64, f64)>)> {
    Engine::ALL
        .iter()
        .map(|&e| {
            let a = find(engines, e, Expansion::Offline).activity();
            let pts = vdd_grid()
                .into_iter()
                .map(|v| (v, energy_per_bit(model, a, v, curve.f_max(v)) * 1e9))
                .collect();
            (e, pts)
        })
        .collect()
}

/// Fig. 12: each offline engine's 1×, 2× and 4× points.
fn fig12_of(
    engines: &[EngineEnergy],
    dups: &[(Engine, DupPoint)],
    model: &PowerModel,
) -> Vec<(Engine, Vec<DupPoint>)> {
    Engine::ALL
        .iter()
        .map(|&e| {
            let a = find(engines, e, Expansion::Offline).activity();
            let mut pts = vec![dup_point(a, 1, model.f_ref)];
            let mut more: Vec<DupPoint> = dups
                .iter()
                .filter(|(d, _)| *d == e)
                .map(|(_, p)| DupPoint {
                    gather_merges: p.cores.saturating_sub(p.copies * a.n_cores()),
                    ..p.clone()
                })
                .collect();
            more.sort_by_key(|p| p.copies);
            pts.extend(more);
            (e, pts)
        })
        .collect()
}

/// The model's No-merge power at 1.3 V and the paper's 1.21 GHz.
pub(crate) fn no_merge_power(engines: &[EngineEnergy], model: &PowerModel) -> f64 {
    let nm = find(engines, Engine::NoMerge, Expansion::Offline);
    power(model, nm.activity(), model.v_ref, NO_MERGE_MHZ * 1e6).total()
}

/// Table 5: the paper's rows, the model's AsAP row, the host row; and the
/// paper's rows recomputed by the general scaling rule.
fn table5_of(
    engines: &[EngineEnergy],
    model: &PowerModel,
    host: Option<&(HostFigure, CpuChoice)>,
) -> (Vec<Platform5>, Vec<Platform5>) {
    let nm = find(engines, Engine::NoMerge, Expansion::Offline);
    let mut table5 = paper_rows();
    table5.push(asap_row(
        ASAP_MODEL_ROW,
        nm.activity().n_cores(),
        nm.activity().cycles_per_block() / 16.0,
        NO_MERGE_MHZ,
        no_merge_power(engines, model),
    ));
    if let Some((h, cpu)) = host {
        table5.push(host_row(h, cpu));
    }
    let rule = paper_rows().iter().filter_map(rule_scaled).collect();
    (table5, rule)
}

/// The name of the model's AsAP row in Table 5.
pub const ASAP_MODEL_ROW: &str = "AsAP (this model)";

fn dup_point(a: &Activity, copies: usize, f: f64) -> DupPoint {
    DupPoint {
        copies,
        cores: a.n_cores(),
        gather_merges: 0,
        gbps: a.throughput(f) / 1e9,
        verified: a.verified,
        exceeds_chip: a.exceeds_chip,
    }
}

/// Online energy per bit over offline, minus one, for an engine.
pub fn overhead(engines: &[EngineEnergy], e: Engine) -> f64 {
    let get = |x: Expansion| lookup(engines, e, x).map_or(f64::NAN, |r| r.energy_per_bit);
    get(Expansion::Online) / get(Expansion::Offline) - 1.0
}

/// Smallest and largest of `v`.
pub fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        })
}

/// Arithmetic mean of `v` (0 when empty).
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}
