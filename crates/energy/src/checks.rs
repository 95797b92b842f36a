//! The model beside the paper: one [`Check`] per figure the paper prints.

use aesflow_designs::{Engine, Expansion};
use serde::Serialize;

use crate::compare::Platform5;
use crate::paper;
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
    /// Target tolerance (relative), if one is set.
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

fn get(engines: &[EngineEnergy], e: Engine) -> &EngineEnergy {
    engines
        .iter()
        .find(|r| r.engine == e && r.expansion == Expansion::Offline)
        .expect("every engine ran")
}

type Row = (&'static str, f64, f64, &'static str, Option<f64>);

/// One check per row `(figure, paper, model, unit, tolerance)`.
fn make(rows: &[Row]) -> Vec<Check> {
    rows.iter()
        .map(|&(figure, paper, model, unit, tolerance)| Check {
            figure: figure.into(),
            paper,
            model,
            unit: unit.into(),
            tolerance,
        })
        .collect()
}

/// Table 4's totals (offline Full-parallelism).
fn table4_checks(fp: &EngineEnergy, model: &PowerModel) -> Vec<Check> {
    make(&[
        (
            "Table 4: offline Full-parallelism total power",
            4.52,
            fp.power.total(),
            "W",
            Some(0.10),
        ),
        ("Table 4: execution power", 3.35, fp.power.exec, "W", None),
        (
            "Table 4: stall power (clock on)",
            1.09,
            fp.power.stall,
            "W",
            None,
        ),
        (
            "Table 4: leakage power",
            2.12,
            fp.power.leak * 1e3,
            "mW",
            None,
        ),
        (
            "Table 4: communication power",
            81.4,
            fp.power.comm * 1e3,
            "mW",
            None,
        ),
        (
            "Table 4: throughput at 1.2 GHz",
            2.21,
            fp.activity().throughput(model.f_ref) / 1e9,
            "Gbps",
            None,
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
            None,
        ),
        (
            "Table 5: No-merge offline throughput at 1.21 GHz",
            1019.0,
            nm.activity().throughput(NO_MERGE_MHZ * 1e6) / 1e6,
            "Mbps",
            None,
        ),
        (
            "Table 5: No-merge offline energy per bit at 1.3 V",
            1.55,
            nm.energy_per_bit * 1e9,
            "nJ/bit",
            Some(0.10),
        ),
        (
            "Fig. 14: No-merge energy per bit at 1.3 V",
            paper::FIG14_NO_MERGE.1,
            nm14.last().map_or(f64::NAN, |p| p.1),
            "nJ/bit",
            None,
        ),
        (
            "Fig. 14: No-merge energy per bit at 0.675 V",
            paper::FIG14_NO_MERGE.0,
            nm14.first().map_or(f64::NAN, |p| p.1),
            "nJ/bit",
            None,
        ),
        (
            "§6.3: Parallel-MixColumns / No-merge energy per block",
            2.0,
            pm.energy_per_bit / nm.energy_per_bit,
            "x",
            None,
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
    let percent = |figure: String, paper: f64, share: f64| Check {
        figure,
        paper,
        model: 100.0 * share,
        unit: "%".into(),
        tolerance: None,
    };
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
            None,
        ),
        (
            "Table 5: AsAP No-merge energy per bit",
            1.55,
            asap.nj_per_bit.unwrap_or(f64::NAN),
            "nJ/bit",
            None,
        ),
    ]));
    out
}

/// Every check, from the study's results.
pub(crate) fn checks(
    engines: &[EngineEnergy],
    fig14: &[(Engine, Vec<(f64, f64)>)],
    table5: &[Platform5],
    model: &PowerModel,
) -> Vec<Check> {
    let mut out = table4_checks(get(engines, Engine::FullParallelism), model);
    out.extend(no_merge_checks(engines, fig14, model));
    out.extend(spread_checks(engines, table5));
    out
}
