//! The model beside the paper: one [`Check`] per figure the paper prints.

use aesflow_designs::{Engine, Expansion};
use serde::Serialize;

use crate::activity::KindRow;
use crate::compare::Platform5;
use crate::paper::{self, PAPER_TABLE4, paper_kind};
use crate::power::PowerModel;
use crate::study::{
    ASAP_MODEL_ROW, EngineEnergy, NO_MERGE_MHZ, mean, min_max, no_merge_power, overhead,
};

/// A paper-vs-model line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// What.
    pub figure: String,
    /// The paper's value.
    pub paper: f64,
    /// The model's value.
    pub model: f64,
    /// Unit.
    pub unit: String,
    /// Tolerance (relative) the model is held to: [`TOLERANCE`], or a
    /// documented exception's band ([`EXCEPTIONS`]).
    pub tolerance: Option<f64>,
    /// Why the figure is outside [`TOLERANCE`], with the evidence (an
    /// exception of [`EXCEPTIONS`]); `None` for a figure within it.
    pub note: Option<String>,
}

/// The tolerance every figure is held to unless it is a documented
/// exception.
pub const TOLERANCE: f64 = 0.10;

/// The figures the model cannot bring within [`TOLERANCE`] of the paper:
/// `(figure prefix, band, reason)`. The band is the error the model is
/// held to instead (a little above today's, so that a drift fails a
/// test); the reason cites the evidence. The crate docs give the
/// derivations.
pub const EXCEPTIONS: [(&str, f64, &str); 11] = [
    (
        "Table 4: stall power",
        0.25,
        "MergeCores: Table 4's wait 44 cycles per block with the clock on and 16 halted; with the 16-cycle halting latency of Table 4's SubByte row that needs three or more separate waits of 12+ cycles per block (words arriving spread over the period); the model's MixColumns-4 write their column together, so a MergeCore waits once (16 on, 40 halted). Spreading MixColumns' output word by word gives -6% here but +13% on No-merge's energy per bit (from +2%) and +42% on the best frequency-scaling saving",
    ),
    (
        "Table 4: leakage power",
        0.35,
        "the same MergeCores: halted 40 of 70 cycles in the model, 16 in Table 4 (0.13 mW each while halted); leakage is 0.05% of the total",
    ),
    (
        "Table 4: MergeCore power per core",
        0.40,
        "the MergeCore's waits (see the stall power): 18 cycles with the clock on against Table 4's 44; the paper's printed per-core total (18.63 mW) does not match its own components (29.24 mW), the model's 18.6 mW matches the printed one",
    ),
    (
        "Table 4: communication power",
        0.13,
        "Table 4 counts a core's words in and out (FinalRoundAddKey: 16 = 8 in + 8 out), every link at both ends, a long word at one tile's 12.1 mW; the model counts each link once, at its sender, per tile crossed: the traffic agrees (656 word-ends per block against 640), the placement does not (75% of them on long links against 49%)",
    ),
    (
        "Fig. 14: No-merge energy per bit at 0.675 V",
        0.15,
        "follows the 1.3 V figure (+2%) by the stated law, energy ~ Vdd^2 (0.27 at 0.675 V, with the leakage of halted cores at 66 MHz 0.275); the paper's own end points are 0.39 / 1.54 = 0.25, steeper than Vdd^2",
    ),
    (
        "§6.3: Parallel-MixColumns / No-merge",
        0.35,
        "a loop design's cores wait most of each block; the model halts their clocks 16 cycles into every wait (Table 4's latency), so Parallel-MixColumns costs about its work (282 nJ per block, 199 executing; its cores halted about 17,000 of 24,200 core-cycles); the paper's 2x (about 400 nJ) needs about a quarter of those halted cycles to run with the clock on",
    ),
    (
        "Fig. 15: online energy overhead, lowest",
        0.20,
        "the key-expansion cores (Table 1: KeySubWord 56, KeySchedule 60 cycles per round key) wait most of each block and halt like the loop designs' cores (see the §6.3 ratio); the paper's overheads imply clock-on waiting",
    ),
    (
        "Fig. 15: online energy overhead, highest",
        0.25,
        "as the lowest engine's: the key-expansion cores halt while they wait",
    ),
    (
        "Talk: frequency scaling, best",
        0.28,
        "the pipelined engines (Full, No-merge, Loop-unrolled Nine) save 6-12%; the talk does not say which engine saves 16% nor its clock granularity",
    ),
    (
        "Talk: frequency scaling, mean",
        0.58,
        "in the non-unrolled designs the loop holds one block, so every core is on the loop's critical path: slowing any core loses throughput, the re-simulation raises the clocks back (margin 2-7) and little is saved; the pipelined engines alone are inside the talk's range",
    ),
    (
        "Talk: + dual supply, mean",
        0.35,
        "as frequency scaling's mean: the loop designs keep their cores near full clock, so few can move to the low supply",
    ),
];

/// The exception for `figure`, if it is one.
pub fn exception(figure: &str) -> Option<(f64, &'static str)> {
    EXCEPTIONS
        .iter()
        .find(|(prefix, _, _)| figure.starts_with(prefix))
        .map(|&(_, band, reason)| (band, reason))
}

impl Check {
    /// The target as the tables print it: `±10% ok`, with `met` for "ok"
    /// (`MISSED` when outside), and the exception's footnote number
    /// (` [n]`, see [`note_numbers`]); `-` without a tolerance.
    pub fn target_text(&self, met: &str, note: Option<usize>) -> String {
        match self.tolerance {
            Some(t) => format!(
                "±{:.0}% {}{}",
                100.0 * t,
                if self.ok() { met } else { "MISSED" },
                note.map_or(String::new(), |n| format!(" [{n}]"))
            ),
            None => "-".into(),
        }
    }

    /// Relative error.
    pub fn error(&self) -> f64 {
        self.model / self.paper - 1.0
    }
    /// Inside the tolerance (true when there is none).
    pub fn ok(&self) -> bool {
        self.tolerance.is_none_or(|t| self.error().abs() <= t)
    }

    /// A check held to [`TOLERANCE`], or to its exception's band with the
    /// reason as its note.
    pub fn new(figure: &str, paper: f64, model: f64, unit: &str) -> Check {
        let (tolerance, note) = match exception(figure) {
            Some((band, reason)) => (band, Some(reason.to_string())),
            None => (TOLERANCE, None),
        };
        Check {
            figure: figure.into(),
            paper,
            model,
            unit: unit.into(),
            tolerance: Some(tolerance),
            note,
        }
    }
}

fn get(engines: &[EngineEnergy], e: Engine) -> &EngineEnergy {
    engines
        .iter()
        .find(|r| r.engine == e && r.expansion == Expansion::Offline)
        .expect("every engine ran")
}

type Row = (&'static str, f64, f64, &'static str);

/// One check per row `(figure, paper, model, unit)`.
fn make(rows: &[Row]) -> Vec<Check> {
    rows.iter()
        .map(|&(figure, paper, model, unit)| Check::new(figure, paper, model, unit))
        .collect()
}

/// Table 4's power per core of each kind: the model's kinds beside the
/// paper's rows (the paper's per-core power is the sum of its four
/// component columns; see [`crate::paper::PAPER_TABLE4`]).
fn table4_kind_checks(rows: &[KindRow]) -> Vec<Check> {
    let mut out = Vec::new();
    for r in rows {
        let Some(kind) = paper_kind(&r.kind) else {
            continue;
        };
        let Some(p) = PAPER_TABLE4.iter().find(|p| p.0 == kind) else {
            continue;
        };
        let paper: f64 = p.3.iter().sum();
        let model = r.power.total() * 1e3 / r.count.max(1) as f64;
        out.push(Check::new(
            &format!("Table 4: {kind} power per core"),
            paper,
            model,
            "mW",
        ));
    }
    out
}

/// Table 4's totals (offline Full-parallelism).
fn table4_checks(fp: &EngineEnergy, model: &PowerModel) -> Vec<Check> {
    make(&[
        (
            "Table 4: offline Full-parallelism total power",
            4.52,
            fp.power.total(),
            "W",
        ),
        ("Table 4: execution power", 3.35, fp.power.exec, "W"),
        ("Table 4: stall power (clock on)", 1.09, fp.power.stall, "W"),
        ("Table 4: leakage power", 2.12, fp.power.leak * 1e3, "mW"),
        (
            "Table 4: communication power",
            81.4,
            fp.power.comm * 1e3,
            "mW",
        ),
        (
            "Table 4: throughput at 1.2 GHz",
            2.21,
            fp.activity().throughput(model.f_ref) / 1e9,
            "Gbps",
        ),
    ])
}

/// Table 5's No-merge figures, Fig. 14's end points and §6.3's ratio.
fn no_merge_checks(
    engines: &[EngineEnergy],
    fig14: &[(Engine, Vec<(f64, f64)>)],
    model: &PowerModel,
) -> Vec<Check> {
    let nm = get(engines, Engine::NoMerge);
    let pm = get(engines, Engine::ParallelMixColumns);
    let nm14 = &fig14
        .iter()
        .find(|(e, _)| *e == Engine::NoMerge)
        .expect("no-merge")
        .1;
    make(&[
        (
            "Table 5: No-merge offline power at 1.3 V, 1.21 GHz",
            1.58,
            no_merge_power(engines, model),
            "W",
        ),
        (
            "Table 5: No-merge offline throughput at 1.21 GHz",
            1019.0,
            nm.activity().throughput(NO_MERGE_MHZ * 1e6) / 1e6,
            "Mbps",
        ),
        (
            "Table 5: No-merge offline energy per bit at 1.3 V",
            1.55,
            nm.energy_per_bit * 1e9,
            "nJ/bit",
        ),
        (
            "Fig. 14: No-merge energy per bit at 1.3 V",
            paper::FIG14_NO_MERGE.1,
            nm14.last().map_or(f64::NAN, |p| p.1),
            "nJ/bit",
        ),
        (
            "Fig. 14: No-merge energy per bit at 0.675 V",
            paper::FIG14_NO_MERGE.0,
            nm14.first().map_or(f64::NAN, |p| p.1),
            "nJ/bit",
        ),
        (
            "§6.3: Parallel-MixColumns / No-merge energy per block",
            2.0,
            pm.energy_per_bit / nm.energy_per_bit,
            "x",
        ),
    ])
}

/// Fig. 15's range, the talk's DVFS savings and Table 5's AsAP row.
fn spread_checks(engines: &[EngineEnergy], table5: &[Platform5]) -> Vec<Check> {
    let ovh: Vec<f64> = Engine::ALL.iter().map(|&e| overhead(engines, e)).collect();
    let fs: Vec<f64> = engines.iter().map(|r| r.dvfs.freq_saving()).collect();
    let ds: Vec<f64> = engines.iter().map(|r| r.dvfs.dual_saving()).collect();
    let asap = table5
        .iter()
        .find(|r| r.name == ASAP_MODEL_ROW)
        .expect("asap row");
    let t = paper::TALK_DVFS;
    // Shares in percent, no tolerance.
    let percent =
        |figure: String, paper: f64, share: f64| Check::new(&figure, paper, 100.0 * share, "%");
    let (lo, hi) = min_max(&ovh);
    let fig15 = "Fig. 15: online energy overhead";
    let mut out = vec![
        percent(format!("{fig15}, lowest engine"), paper::FIG15_RANGE.0, lo),
        percent(format!("{fig15}, highest engine"), paper::FIG15_RANGE.1, hi),
    ];
    for (what, savings, best, mean_saving) in [
        ("frequency scaling", &fs, t.freq_best, t.freq_mean),
        ("+ dual supply", &ds, t.dual_best, t.dual_mean),
    ] {
        let talk = format!("Talk: {what}");
        out.push(percent(
            format!("{talk}, best power saving"),
            best,
            min_max(savings).1,
        ));
        out.push(percent(
            format!("{talk}, mean power saving"),
            mean_saving,
            mean(savings),
        ));
    }
    out.extend(make(&[
        (
            "Table 5: AsAP No-merge throughput per area",
            153.70,
            asap.mbps_per_mm2.unwrap_or(f64::NAN),
            "Mbps/mm2",
        ),
        (
            "Table 5: AsAP No-merge energy per bit",
            1.55,
            asap.nj_per_bit.unwrap_or(f64::NAN),
            "nJ/bit",
        ),
    ]));
    out
}

/// Every check, from the study's results.
pub(crate) fn checks(
    engines: &[EngineEnergy],
    table4: &[KindRow],
    fig14: &[(Engine, Vec<(f64, f64)>)],
    table5: &[Platform5],
    model: &PowerModel,
) -> Vec<Check> {
    let mut out = table4_checks(get(engines, Engine::FullParallelism), model);
    out.extend(table4_kind_checks(table4));
    out.extend(no_merge_checks(engines, fig14, model));
    out.extend(spread_checks(engines, table5));
    out
}

/// Each check's footnote number: 1, 2, … for the checks with a note (the
/// documented exceptions) in their order, `None` for the others.
pub fn note_numbers(checks: &[Check]) -> Vec<Option<usize>> {
    let mut n = 0;
    checks
        .iter()
        .map(|c| {
            c.note.as_ref().map(|_| {
                n += 1;
                n
            })
        })
        .collect()
}
