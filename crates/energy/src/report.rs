//! The whole study: every engine simulated once (plus its DVFS
//! re-simulations and duplicated copies), every figure derived from those
//! runs, printed beside the paper's, as text, JSON and SVG charts.

use std::fmt::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use aesflow_cipher::KeySize;
use aesflow_designs::report::{jnum, jstr};
use aesflow_designs::{Engine, Expansion};

use crate::activity::{
    Activity, KindRow, Power, RunSpec, by_kind, energy_per_bit, platform, power, run,
};
use crate::chart::{Series, bar_chart, line_chart};
use crate::compare::{
    HostInputs, HostMeasurement, Platform5, XEON_SKX_CLX, asap_row, host_row, measure_host,
    paper_rows, rule_scaled,
};
use crate::dvfs::{Dvfs, scale};
use crate::power::{FmaxCurve, PowerModel, vdd_grid};

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Steady-state blocks per engine (per copy).
    pub blocks: usize,
    /// Key size.
    pub key: KeySize,
    /// Measure the host row live (else it is left out).
    pub host: bool,
    /// Worker threads (0: all cores).
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            blocks: 256,
            key: KeySize::Aes128,
            host: true,
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

/// A paper-vs-model line.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// What.
    pub figure: String,
    /// The paper's value.
    pub paper: f64,
    /// The model's value.
    pub model: f64,
    /// Unit.
    pub unit: String,
    /// Target tolerance (relative), if the issue sets one.
    pub tolerance: Option<f64>,
}

impl Check {
    /// Relative error.
    pub fn error(&self) -> f64 {
        self.model / self.paper - 1.0
    }
    /// Inside the tolerance (true when there is none).
    pub fn ok(&self) -> bool {
        self.tolerance.is_none_or(|t| self.error().abs() <= t)
    }
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
    /// The host measurement and the inputs used.
    pub host: Option<(HostMeasurement, HostInputs)>,
    /// Paper vs model.
    pub checks: Vec<Check>,
}

fn par_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let n = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    let next = AtomicUsize::new(0);
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
pub fn study(opt: &Options) -> Result<Study, String> {
    let plat = platform();
    let model = PowerModel::TABLE3;
    let curve = FmaxCurve::asap2();
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
    let done = par_map(&jobs, opt.threads, |j| -> Result<Done, String> {
        match *j {
            Job::Engine(e, x) => {
                let spec = RunSpec::engine(e, opt.key, x, opt.blocks);
                let base = run(&spec, &plat, None)?;
                let pw = power(&model, &base, model.v_ref, model.f_ref);
                let epb = energy_per_bit(&model, &base, model.v_ref, model.f_ref);
                let d = scale(&spec, &plat, &model, &curve, base)?;
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
    });
    let mut engines = Vec::new();
    let mut dups: Vec<(Engine, DupPoint)> = Vec::new();
    for d in done {
        match d? {
            Done::Engine(x) => engines.push(*x),
            Done::Dup(e, p) => dups.push((e, p)),
        }
    }
    engines.sort_by_key(|x| (x.engine, x.expansion));
    let find = |e: Engine, x: Expansion| {
        engines
            .iter()
            .find(|r| r.engine == e && r.expansion == x)
            .expect("every engine ran")
    };
    let fp = find(Engine::FullParallelism, Expansion::Offline);
    let table4 = by_kind(&model, fp.activity(), model.v_ref, model.f_ref);
    let fig14: Vec<(Engine, Vec<(f64, f64)>)> = Engine::ALL
        .iter()
        .map(|&e| {
            let a = find(e, Expansion::Offline).activity();
            let pts = vdd_grid()
                .into_iter()
                .map(|v| (v, energy_per_bit(&model, a, v, curve.f_max(v)) * 1e9))
                .collect();
            (e, pts)
        })
        .collect();
    let fig12: Vec<(Engine, Vec<DupPoint>)> = Engine::ALL
        .iter()
        .map(|&e| {
            let a = find(e, Expansion::Offline).activity();
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
        .collect();

    // Table 5.
    let nm = find(Engine::NoMerge, Expansion::Offline);
    let nm_f = NO_MERGE_MHZ * 1e6;
    let nm_power = power(&model, nm.activity(), model.v_ref, nm_f).total();
    let mut table5 = paper_rows();
    table5.push(asap_row(
        "AsAP (this model)",
        nm.activity().n_cores(),
        nm.activity().cycles_per_block() / 16.0,
        NO_MERGE_MHZ,
        nm_power,
    ));
    let host = if opt.host {
        let m = measure_host(7, 64)?;
        table5.push(host_row(&m, &XEON_SKX_CLX));
        Some((m, XEON_SKX_CLX))
    } else {
        None
    };
    let table5_rule: Vec<Platform5> = paper_rows().iter().filter_map(rule_scaled).collect();

    // Checks.
    let mut checks = Vec::new();
    let mut chk = |figure: &str, paper: f64, model_v: f64, unit: &str, tol: Option<f64>| {
        checks.push(Check {
            figure: figure.into(),
            paper,
            model: model_v,
            unit: unit.into(),
            tolerance: tol,
        })
    };
    chk(
        "Table 4: offline Full-parallelism total power",
        4.52,
        fp.power.total(),
        "W",
        Some(0.10),
    );
    chk("Table 4: execution power", 3.35, fp.power.exec, "W", None);
    chk(
        "Table 4: stall power (clock on)",
        1.09,
        fp.power.stall,
        "W",
        None,
    );
    chk(
        "Table 4: leakage power",
        2.12,
        fp.power.leak * 1e3,
        "mW",
        None,
    );
    chk(
        "Table 4: communication power",
        81.4,
        fp.power.comm * 1e3,
        "mW",
        None,
    );
    chk(
        "Table 4: throughput at 1.2 GHz",
        2.21,
        fp.activity().throughput(model.f_ref) / 1e9,
        "Gbps",
        None,
    );
    chk(
        "Table 5: No-merge offline power at 1.3 V, 1.21 GHz",
        1.58,
        nm_power,
        "W",
        None,
    );
    chk(
        "Table 5: No-merge offline throughput at 1.21 GHz",
        1019.0,
        nm.activity().throughput(nm_f) / 1e6,
        "Mbps",
        None,
    );
    chk(
        "Table 5: No-merge offline energy per bit at 1.3 V",
        1.55,
        nm.energy_per_bit * 1e9,
        "nJ/bit",
        Some(0.10),
    );
    let nm14 = &fig14
        .iter()
        .find(|(e, _)| *e == Engine::NoMerge)
        .expect("no-merge")
        .1;
    chk(
        "Fig. 14: No-merge energy per bit at 1.3 V",
        1.54,
        nm14.last().map_or(f64::NAN, |p| p.1),
        "nJ/bit",
        None,
    );
    chk(
        "Fig. 14: No-merge energy per bit at 0.675 V",
        0.39,
        nm14.first().map_or(f64::NAN, |p| p.1),
        "nJ/bit",
        None,
    );
    let pm = find(Engine::ParallelMixColumns, Expansion::Offline);
    chk(
        "§6.3: Parallel-MixColumns / No-merge energy per block",
        2.0,
        pm.energy_per_bit / nm.energy_per_bit,
        "x",
        None,
    );
    let ovh: Vec<f64> = Engine::ALL.iter().map(|&e| overhead(&engines, e)).collect();
    let (omin, omax) = min_max(&ovh);
    chk(
        "Fig. 15: online energy overhead, lowest engine",
        35.0,
        100.0 * omin,
        "%",
        None,
    );
    chk(
        "Fig. 15: online energy overhead, highest engine",
        55.0,
        100.0 * omax,
        "%",
        None,
    );
    let fs: Vec<f64> = engines.iter().map(|r| r.dvfs.freq_saving()).collect();
    let ds: Vec<f64> = engines.iter().map(|r| r.dvfs.dual_saving()).collect();
    chk(
        "Talk: frequency scaling, best power saving",
        16.0,
        100.0 * min_max(&fs).1,
        "%",
        None,
    );
    chk(
        "Talk: frequency scaling, mean power saving",
        11.0,
        100.0 * mean(&fs),
        "%",
        None,
    );
    chk(
        "Talk: + dual supply, best power saving",
        32.0,
        100.0 * min_max(&ds).1,
        "%",
        None,
    );
    chk(
        "Talk: + dual supply, mean power saving",
        22.0,
        100.0 * mean(&ds),
        "%",
        None,
    );
    let asap = table5
        .iter()
        .find(|r| r.name == "AsAP (this model)")
        .expect("asap row");
    chk(
        "Table 5: AsAP No-merge throughput per area",
        153.70,
        asap.mbps_per_mm2.unwrap_or(f64::NAN),
        "Mbps/mm2",
        None,
    );
    chk(
        "Table 5: AsAP No-merge energy per bit",
        1.55,
        asap.nj_per_bit.unwrap_or(f64::NAN),
        "nJ/bit",
        None,
    );
    Ok(Study {
        options: opt.clone(),
        curve,
        model,
        halt_after: plat.halt_after,
        engines,
        table4,
        fig14,
        fig12,
        table5,
        table5_rule,
        host,
        checks,
    })
}

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
    let get = |x: Expansion| {
        engines
            .iter()
            .find(|r| r.engine == e && r.expansion == x)
            .map_or(f64::NAN, |r| r.energy_per_bit)
    };
    get(Expansion::Online) / get(Expansion::Offline) - 1.0
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        })
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn pct(x: f64) -> String {
    format!("{:+.1}%", 100.0 * x)
}

/// Table 4's rows as printed: kind, number, exec, NOP, stall AC, stall HC,
/// near, long cycles per 70-cycle period; then P exe, stall, leak, comm,
/// per-core total (mW).
pub const PAPER_TABLE4: [(&str, usize, [f64; 6], [f64; 4]); 5] = [
    (
        "AddKeyShiftRows",
        10,
        [37.0, 0.0, 18.0, 15.0, 8.0, 8.0],
        [31.47, 7.97, 0.03, 2.05],
    ),
    (
        "SubByte",
        40,
        [27.0, 12.0, 16.0, 15.0, 4.0, 0.0],
        [22.97, 12.40, 0.03, 0.34],
    ),
    (
        "MixColumn-4",
        36,
        [63.0, 7.0, 0.0, 0.0, 2.0, 2.0],
        [53.59, 3.10, 0.0, 0.51],
    ),
    (
        "FinalRoundAddKey",
        1,
        [18.0, 0.0, 40.0, 12.0, 16.0, 0.0],
        [15.31, 17.71, 0.02, 1.35],
    ),
    (
        "MergeCore",
        20,
        [10.0, 0.0, 44.0, 16.0, 0.0, 8.0],
        [8.34, 19.49, 0.03, 1.38],
    ),
];

/// The paper's Table 4 kind for a model kind.
pub fn paper_kind(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "AddKeyShiftRows" => "AddKeyShiftRows",
        "SubBytes-4" => "SubByte",
        "MixColumns-4" => "MixColumn-4",
        "AddRoundKey" => "FinalRoundAddKey",
        "MergeCore" => "MergeCore",
        _ => return None,
    })
}

/// The headline lines (for `demo`).
pub fn headline(s: &Study) -> String {
    let mut o = String::new();
    let c = |name: &str| s.checks.iter().find(|c| c.figure.starts_with(name));
    for key in [
        "Table 4: offline Full-parallelism total power",
        "Table 5: No-merge offline energy per bit",
        "Fig. 15: online energy overhead, lowest",
        "Fig. 15: online energy overhead, highest",
        "Talk: frequency scaling, best",
        "Talk: + dual supply, best",
    ] {
        if let Some(ch) = c(key) {
            let _ = writeln!(
                o,
                "{:<58} paper {:>8.2} {:<7} model {:>8.2}  ({})",
                ch.figure,
                ch.paper,
                ch.unit,
                ch.model,
                pct(ch.error())
            );
        }
    }
    if let Some((m, _)) = &s.host {
        let host = s.table5.last().expect("host row");
        let asap = s
            .table5
            .iter()
            .find(|r| r.name == "AsAP (this model)")
            .expect("asap");
        let _ = writeln!(
            o,
            "this host ({}, {:.2} cycles/byte): {:.0} Mbps/mm2, {:.3} nJ/bit at 65 nm/1.3 V vs AsAP model {:.0} Mbps/mm2, {:.2} nJ/bit",
            m.kernel,
            m.cycles_per_byte,
            host.mbps_per_mm2.unwrap_or(f64::NAN),
            host.nj_per_bit.unwrap_or(f64::NAN),
            asap.mbps_per_mm2.unwrap_or(f64::NAN),
            asap.nj_per_bit.unwrap_or(f64::NAN)
        );
    }
    o
}

fn opt(x: Option<f64>, prec: usize) -> String {
    x.map_or_else(|| "NA".into(), |v| format!("{v:.prec$}"))
}

/// The full text report.
pub fn format_text(s: &Study) -> String {
    let mut o = String::new();
    let m = &s.model;
    let _ = writeln!(
        o,
        "Power and energy of the many-core AES engines, from simulated activity (AES-{}, {} steady-state blocks per engine)",
        s.options.key.bits(),
        s.options.blocks
    );
    let _ = writeln!(
        o,
        "Model: Table 3 per core state at 1.3 V/1.2 GHz (exec {:.1} mW, NOP/stall clock-on {:.1} mW, halted {:.2} mW, near link {:.1} mW, long link {:.1} mW/tile); clock halts after {} stalled cycles",
        m.p_exec * 1e3,
        m.p_stall * 1e3,
        m.p_leak * 1e3,
        m.p_near * 1e3,
        m.p_long_tile * 1e3,
        s.halt_after
    );
    let _ = writeln!(
        o,
        "f_max(V) = k(V-Vt)^a/V fitted to AsAP2: Vt = {:.3} V, a = {:.3} (f_max(1.0 V) = {:.0} MHz); dynamic energy ~ Vdd^2, leakage ~ Vdd\n",
        s.curve.vt,
        s.curve.a,
        s.curve.f_max(1.0) / 1e6
    );
    let _ = writeln!(o, "Paper vs model");
    let _ = writeln!(
        o,
        "  {:<58} {:>9} {:>9} {:<8} {:>8}  target",
        "figure", "paper", "model", "unit", "error"
    );
    for c in &s.checks {
        let _ = writeln!(
            o,
            "  {:<58} {:>9.3} {:>9.3} {:<8} {:>8}  {}",
            c.figure,
            c.paper,
            c.model,
            c.unit,
            pct(c.error()),
            match c.tolerance {
                Some(t) => format!(
                    "±{:.0}% {}",
                    100.0 * t,
                    if c.ok() { "ok" } else { "MISSED" }
                ),
                None => "-".into(),
            }
        );
    }

    let fp = s
        .engines
        .iter()
        .find(|r| r.engine == Engine::FullParallelism && r.expansion == Expansion::Offline)
        .expect("fp");
    let _ = writeln!(
        o,
        "\nTable 4: offline Full-parallelism at 1.3 V / 1.2 GHz, {:.1} cycles per block (cycles per block per core; power per core in mW; paper in brackets)",
        fp.activity().cycles_per_block()
    );
    let _ = writeln!(
        o,
        "  {:<17} {:>9} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9} | {:>13} {:>13} {:>11} {:>11} {:>13}",
        "kind",
        "number",
        "exec",
        "NOP",
        "stall AC",
        "stall HC",
        "near",
        "long",
        "P exec",
        "P stall",
        "P leak",
        "P comm",
        "P core"
    );
    for r in &s.table4 {
        let p = paper_kind(&r.kind).and_then(|k| PAPER_TABLE4.iter().find(|x| x.0 == k));
        let br = |i: usize| p.map_or(String::new(), |p| format!("({:.0})", p.2[i]));
        let bp = |i: usize| p.map_or(String::new(), |p| format!("({:.2})", p.3[i]));
        let n = r.count as f64;
        let tot = r.power.total() / n * 1e3;
        let ptot = p.map_or(String::new(), |p| {
            format!("({:.2})", p.3.iter().sum::<f64>())
        });
        let _ = writeln!(
            o,
            "  {:<17} {:>4}{:>5} {:>5.1}{:>6} {:>5.1}{:>6} {:>5.1}{:>6} {:>5.1}{:>6} {:>4.1}{:>5} {:>4.1}{:>5} | {:>6.2}{:>7} {:>6.2}{:>7} {:>4.2}{:>7} {:>4.2}{:>7} {:>6.2}{:>7}",
            r.kind,
            r.count,
            p.map_or(String::new(), |p| format!("({})", p.1)),
            r.exec,
            br(0),
            r.nop,
            br(1),
            r.stall,
            br(2),
            r.halted,
            br(3),
            r.near,
            br(4),
            r.long,
            br(5),
            r.power.exec / n * 1e3,
            bp(0),
            r.power.stall / n * 1e3,
            bp(1),
            r.power.leak / n * 1e3,
            bp(2),
            r.power.comm / n * 1e3,
            bp(3),
            tot,
            ptot
        );
    }
    let p = &fp.power;
    let _ = writeln!(
        o,
        "  total: execution {:.2} W (3.35), stall {:.2} W (1.09), leakage {:.2} mW (2.12), communication {:.1} mW (81.4): {:.2} W (4.52) at {:.2} Gbps (2.21)",
        p.exec,
        p.stall,
        p.leak * 1e3,
        p.comm * 1e3,
        p.total(),
        fp.activity().throughput(m.f_ref) / 1e9
    );

    let _ = writeln!(
        o,
        "\nEnergy per engine at 1.3 V / 1.2 GHz (Figs. 14-15): online | offline"
    );
    let _ = writeln!(
        o,
        "  {:<29} {:>8} {:>8} {:>6} {:>6} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "engine",
        "c/B on",
        "c/B off",
        "cores",
        "cores",
        "W on",
        "W off",
        "nJ/b on",
        "nJ/b off",
        "overhead"
    );
    for e in Engine::ALL {
        let on = s
            .engines
            .iter()
            .find(|r| r.engine == e && r.expansion == Expansion::Online)
            .expect("online");
        let off = s
            .engines
            .iter()
            .find(|r| r.engine == e && r.expansion == Expansion::Offline)
            .expect("offline");
        let _ = writeln!(
            o,
            "  {:<29} {:>8.3} {:>8.3} {:>6} {:>6} {:>8.3} {:>8.3} {:>9.3} {:>9.3} {:>9}",
            e.name(),
            on.activity().cycles_per_block() / 16.0,
            off.activity().cycles_per_block() / 16.0,
            on.activity().n_cores(),
            off.activity().n_cores(),
            on.power.total(),
            off.power.total(),
            on.energy_per_bit * 1e9,
            off.energy_per_bit * 1e9,
            pct(overhead(&s.engines, e))
        );
    }
    let _ = writeln!(
        o,
        "  paper: online engines spend 35-55% more energy; No-merge offline 1.55 nJ/bit, the lowest; Parallel-MixColumns about 2x No-merge"
    );

    let _ = writeln!(
        o,
        "\nFig. 14: energy per bit (nJ/bit) of the offline engines vs supply, each at f_max(Vdd)"
    );
    let shown = [0.675, 0.75, 0.85, 0.95, 1.05, 1.15, 1.2, 1.3];
    let _ = write!(o, "  {:<29}", "Vdd (V) / f_max (MHz)");
    for v in shown {
        let _ = write!(o, " {:>6.3}/{:<5.0}", v, s.curve.f_max(v) / 1e6);
    }
    let _ = writeln!(o);
    for (e, pts) in &s.fig14 {
        let _ = write!(o, "  {:<29}", e.name());
        for v in shown {
            let y = pts
                .iter()
                .find(|p| (p.0 - v).abs() < 1e-6)
                .map_or(f64::NAN, |p| p.1);
            let _ = write!(o, " {:>12.3}", y);
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "  paper: No-merge 0.39-1.54 nJ/bit across the range");

    let _ = writeln!(
        o,
        "\nPer-core DVFS (talk): f_opt,i = N_exe,i/N_exe,crit * 1.2 GHz, re-simulated (GALS) at the scaled clocks; margin k raises all scaled clocks where a loop needs it"
    );
    let _ = writeln!(
        o,
        "  {:<29} {:<7} {:>7} {:>10} {:>9} {:>9} {:>10} {:>11}",
        "engine", "keys", "k", "freq only", "Vdd_Low", "on low", "freq+dual", "throughput"
    );
    for r in &s.engines {
        let d = &r.dvfs;
        let _ = writeln!(
            o,
            "  {:<29} {:<7} {:>7.3} {:>10} {:>8.3}V {:>5}/{:<3} {:>10} {:>11}",
            r.engine.name(),
            r.expansion.name(),
            d.margin,
            pct(-d.freq_saving()),
            d.v_low,
            d.cores_low,
            d.base.n_cores(),
            pct(-d.dual_saving()),
            pct(d.throughput_change())
        );
    }
    let fs: Vec<f64> = s.engines.iter().map(|r| r.dvfs.freq_saving()).collect();
    let ds: Vec<f64> = s.engines.iter().map(|r| r.dvfs.dual_saving()).collect();
    let off: Vec<&EngineEnergy> = s
        .engines
        .iter()
        .filter(|r| r.expansion == Expansion::Offline)
        .collect();
    let fso: Vec<f64> = off.iter().map(|r| r.dvfs.freq_saving()).collect();
    let dso: Vec<f64> = off.iter().map(|r| r.dvfs.dual_saving()).collect();
    let _ = writeln!(
        o,
        "  power saved, all 16: frequency up to {:.1}% (mean {:.1}%), with dual supply up to {:.1}% (mean {:.1}%); offline 8: {:.1}% ({:.1}%), {:.1}% ({:.1}%)",
        100.0 * min_max(&fs).1,
        100.0 * mean(&fs),
        100.0 * min_max(&ds).1,
        100.0 * mean(&ds),
        100.0 * min_max(&fso).1,
        100.0 * mean(&fso),
        100.0 * min_max(&dso).1,
        100.0 * mean(&dso)
    );
    let _ = writeln!(
        o,
        "  talk: frequency up to 16% (mean 11%), with dual supply up to 32% (mean 22%)"
    );

    let _ = writeln!(
        o,
        "\nFig. 12: throughput vs cores, offline engines duplicated (outputs gathered by the next core's two ports; MergeCores as needed)"
    );
    let _ = writeln!(
        o,
        "  {:<29} {:>18} {:>24} {:>24}",
        "engine", "1x cores / Gbps", "2x cores / Gbps", "4x cores (merges) / Gbps"
    );
    for (e, pts) in &s.fig12 {
        let _ = write!(o, "  {:<29}", e.name());
        for p in pts {
            let _ = write!(
                o,
                " {:>9} / {:>6.3}{}{}",
                if p.copies > 1 {
                    format!("{} ({})", p.cores, p.gather_merges)
                } else {
                    p.cores.to_string()
                },
                p.gbps,
                if p.exceeds_chip { "*" } else { " " },
                if p.verified { " " } else { "!" }
            );
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(
        o,
        "  * needs more than AsAP2's 164 tiles (the mesh is grown); ! = did not encrypt correctly"
    );

    let _ = writeln!(
        o,
        "\nTable 5: software AES platforms scaled to 65 nm / 1.3 V (paper rows PTM-scaled as printed; [rule] = the general rule of Fig. 16's caption)"
    );
    let _ = writeln!(
        o,
        "  {:<38} {:>5} {:>7} {:>5} {:>6} {:>7} {:>7} | {:>8} {:>8} {:>9} {:>8} | {:>9} {:>8}",
        "platform",
        "nm",
        "mm2",
        "V",
        "MHz",
        "c/B",
        "W",
        "Mbps",
        "mm2",
        "Mbps/mm2",
        "nJ/bit",
        "[rule]M/mm2",
        "[rule]nJ"
    );
    for r in &s.table5 {
        let rule = s.table5_rule.iter().find(|x| x.name == r.name);
        let _ = writeln!(
            o,
            "  {:<38} {:>5.0} {:>7} {:>5.2} {:>6.0} {:>7} {:>7} | {:>8.0} {:>8} {:>9} {:>8} | {:>11} {:>8}",
            r.name,
            r.tech_nm,
            opt(r.area_mm2, 2),
            r.vdd,
            r.mhz,
            opt(r.cycles_per_byte, 3),
            opt(r.power_w, 2),
            r.scaled_mbps,
            opt(r.scaled_area, 1),
            opt(r.mbps_per_mm2, 2),
            opt(r.nj_per_bit, 3),
            rule.map_or("".into(), |x| opt(x.mbps_per_mm2, 2)),
            rule.map_or("".into(), |x| opt(x.nj_per_bit, 2)),
        );
    }
    if let Some((m, h)) = &s.host {
        let _ = writeln!(
            o,
            "  host: {} measured {:.3} ns/byte = {:.3} cycles/byte at {:.0} MHz ({}); assumed inputs: {:.0} nm, {:.1} mm2 and {:.2} W TDP per core (half used), {:.2} V — see aesflow_energy::compare::XEON_SKX_CLX",
            m.kernel,
            m.ns_per_byte,
            m.cycles_per_byte,
            m.mhz,
            m.mhz_source,
            h.tech_nm,
            h.area_mm2,
            h.tdp_per_core_w,
            h.vdd
        );
    }
    o
}

fn jopt(x: Option<f64>) -> String {
    x.map_or_else(|| "null".into(), jnum)
}

fn jpower(p: &Power) -> String {
    format!(
        "{{\"exec_w\": {}, \"stall_w\": {}, \"leak_w\": {}, \"comm_w\": {}, \"total_w\": {}}}",
        jnum(p.exec),
        jnum(p.stall),
        jnum(p.leak),
        jnum(p.comm),
        jnum(p.total())
    )
}

/// The study as JSON.
pub fn to_json(s: &Study) -> String {
    let mut o = String::from("{\n");
    let _ = writeln!(
        o,
        "  \"key_bits\": {}, \"blocks\": {}, \"halt_after\": {},",
        s.options.key.bits(),
        s.options.blocks,
        s.halt_after
    );
    let _ = writeln!(
        o,
        "  \"fmax_fit\": {{\"k\": {}, \"vt\": {}, \"a\": {}}},",
        jnum(s.curve.k),
        jnum(s.curve.vt),
        jnum(s.curve.a)
    );
    let checks: Vec<String> = s
        .checks
        .iter()
        .map(|c| {
            format!(
                "    {{\"figure\": {}, \"paper\": {}, \"model\": {}, \"unit\": {}, \"error\": {}, \"tolerance\": {}, \"ok\": {}}}",
                jstr(&c.figure),
                jnum(c.paper),
                jnum(c.model),
                jstr(&c.unit),
                jnum(c.error()),
                jopt(c.tolerance),
                c.ok()
            )
        })
        .collect();
    let _ = writeln!(o, "  \"checks\": [\n{}\n  ],", checks.join(",\n"));
    let t4: Vec<String> = s
        .table4
        .iter()
        .map(|r| {
            format!(
                "    {{\"kind\": {}, \"paper_kind\": {}, \"number\": {}, \"exec\": {}, \"nop\": {}, \"stall_clock_on\": {}, \"halted\": {}, \"near\": {}, \"long\": {}, \"power\": {}}}",
                jstr(&r.kind),
                paper_kind(&r.kind).map_or("null".into(), jstr),
                r.count,
                jnum(r.exec),
                jnum(r.nop),
                jnum(r.stall),
                jnum(r.halted),
                jnum(r.near),
                jnum(r.long),
                jpower(&r.power)
            )
        })
        .collect();
    let _ = writeln!(o, "  \"table4\": [\n{}\n  ],", t4.join(",\n"));
    let eng: Vec<String> = s
        .engines
        .iter()
        .map(|r| {
            let d = &r.dvfs;
            format!(
                "    {{\"engine\": {}, \"slug\": {}, \"expansion\": {}, \"cores\": {}, \"comm_cores\": {}, \"cycles_per_block\": {}, \"verified\": {}, \"power\": {}, \"energy_per_bit_nj\": {}, \"online_overhead\": {}, \"dvfs\": {{\"margin\": {}, \"freq_power\": {}, \"dual_power\": {}, \"vdd_low\": {}, \"cores_on_low\": {}, \"freq_saving\": {}, \"dual_saving\": {}, \"throughput_change\": {}, \"verified\": {}}}}}",
                jstr(r.engine.name()),
                jstr(r.engine.slug()),
                jstr(r.expansion.name()),
                r.activity().n_cores(),
                r.activity().comm_cores,
                jnum(r.activity().cycles_per_block()),
                r.activity().verified,
                jpower(&r.power),
                jnum(r.energy_per_bit * 1e9),
                jnum(overhead(&s.engines, r.engine)),
                jnum(d.margin),
                jpower(&d.p_freq),
                jpower(&d.p_dual),
                jnum(d.v_low),
                d.cores_low,
                jnum(d.freq_saving()),
                jnum(d.dual_saving()),
                jnum(d.throughput_change()),
                d.scaled.verified
            )
        })
        .collect();
    let _ = writeln!(o, "  \"engines\": [\n{}\n  ],", eng.join(",\n"));
    let f14: Vec<String> = s
        .fig14
        .iter()
        .map(|(e, pts)| {
            let p: Vec<String> = pts
                .iter()
                .map(|(v, y)| format!("[{}, {}]", jnum(*v), jnum(*y)))
                .collect();
            format!(
                "    {{\"engine\": {}, \"vdd_nj_per_bit\": [{}]}}",
                jstr(e.name()),
                p.join(", ")
            )
        })
        .collect();
    let _ = writeln!(o, "  \"fig14\": [\n{}\n  ],", f14.join(",\n"));
    let f12: Vec<String> = s
        .fig12
        .iter()
        .map(|(e, pts)| {
            let p: Vec<String> = pts
                .iter()
                .map(|p| {
                    format!(
                        "{{\"copies\": {}, \"cores\": {}, \"gather_merges\": {}, \"gbps\": {}, \"verified\": {}, \"exceeds_chip\": {}}}",
                        p.copies,
                        p.cores,
                        p.gather_merges,
                        jnum(p.gbps),
                        p.verified,
                        p.exceeds_chip
                    )
                })
                .collect();
            format!(
                "    {{\"engine\": {}, \"points\": [{}]}}",
                jstr(e.name()),
                p.join(", ")
            )
        })
        .collect();
    let _ = writeln!(o, "  \"fig12\": [\n{}\n  ],", f12.join(",\n"));
    let row = |r: &Platform5| {
        format!(
            "    {{\"platform\": {}, \"method\": {}, \"tech_nm\": {}, \"area_mm2\": {}, \"vdd\": {}, \"mhz\": {}, \"cycles_per_byte\": {}, \"power_w\": {}, \"scaled_mbps\": {}, \"scaled_area_mm2\": {}, \"mbps_per_mm2\": {}, \"nj_per_bit\": {}}}",
            jstr(&r.name),
            jstr(&r.method),
            jnum(r.tech_nm),
            jopt(r.area_mm2),
            jnum(r.vdd),
            jnum(r.mhz),
            jopt(r.cycles_per_byte),
            jopt(r.power_w),
            jnum(r.scaled_mbps),
            jopt(r.scaled_area),
            jopt(r.mbps_per_mm2),
            jopt(r.nj_per_bit)
        )
    };
    let t5: Vec<String> = s.table5.iter().map(row).collect();
    let _ = writeln!(o, "  \"table5\": [\n{}\n  ],", t5.join(",\n"));
    let t5r: Vec<String> = s.table5_rule.iter().map(row).collect();
    let _ = writeln!(o, "  \"table5_general_rule\": [\n{}\n  ],", t5r.join(",\n"));
    match &s.host {
        Some((m, h)) => {
            let _ = writeln!(
                o,
                "  \"host\": {{\"kernel\": {}, \"ns_per_byte\": {}, \"mhz\": {}, \"mhz_source\": {}, \"cycles_per_byte\": {}, \"assumed_tech_nm\": {}, \"assumed_area_mm2\": {}, \"assumed_tdp_per_core_w\": {}, \"assumed_vdd\": {}}}",
                jstr(&m.kernel),
                jnum(m.ns_per_byte),
                jnum(m.mhz),
                jstr(&m.mhz_source),
                jnum(m.cycles_per_byte),
                jnum(h.tech_nm),
                jnum(h.area_mm2),
                jnum(h.tdp_per_core_w),
                jnum(h.vdd)
            );
        }
        None => o.push_str("  \"host\": null\n"),
    }
    o.push_str("}\n");
    o
}

/// Write the SVG charts (Figs. 12, 14, 15 and the DVFS savings) into `dir`;
/// returns the paths written.
pub fn write_charts(s: &Study, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut out = Vec::new();
    let mut put = |name: &str, svg: String| -> std::io::Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, svg)?;
        out.push(p);
        Ok(())
    };
    let f12: Vec<Series> = s
        .fig12
        .iter()
        .map(|(e, pts)| Series {
            label: e.name().into(),
            points: pts.iter().map(|p| (p.cores as f64, p.gbps)).collect(),
        })
        .collect();
    put(
        "fig12_throughput_vs_cores.svg",
        line_chart(
            "Fig. 12: offline engines duplicated 1x, 2x, 4x (1.2 GHz)",
            "cores (log2 scale)",
            "throughput (Gbit/s)",
            &f12,
            true,
        ),
    )?;
    let f14: Vec<Series> = s
        .fig14
        .iter()
        .map(|(e, pts)| Series {
            label: e.name().into(),
            points: pts.clone(),
        })
        .collect();
    put(
        "fig14_energy_vs_vdd.svg",
        line_chart(
            "Fig. 14: energy per bit vs supply (offline, at f_max(Vdd))",
            "supply voltage Vdd (V)",
            "energy per bit (nJ/bit)",
            &f14,
            false,
        ),
    )?;
    let cats: Vec<String> = Engine::ALL.iter().map(|e| e.name().to_string()).collect();
    let ovh: Vec<f64> = Engine::ALL
        .iter()
        .map(|&e| 100.0 * overhead(&s.engines, e))
        .collect();
    put(
        "fig15_online_overhead.svg",
        bar_chart(
            "Fig. 15: energy overhead of online vs offline key expansion (1.3 V)",
            "extra energy per bit (%)",
            &cats,
            &[("model".into(), ovh)],
        ),
    )?;
    let mut labels = Vec::new();
    let mut fsv = Vec::new();
    let mut dsv = Vec::new();
    for r in &s.engines {
        labels.push(format!("{} ({})", r.engine.slug(), r.expansion.name()));
        fsv.push(100.0 * r.dvfs.freq_saving().max(0.0));
        dsv.push(100.0 * r.dvfs.dual_saving().max(0.0));
    }
    put(
        "dvfs_power_saving.svg",
        bar_chart(
            "Per-core DVFS: power saved at unchanged throughput",
            "power saved (%)",
            &labels,
            &[
                ("frequency scaling".into(), fsv),
                ("frequency + dual supply".into(), dsv),
            ],
        ),
    )?;
    Ok(out)
}
