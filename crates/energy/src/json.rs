//! The study as one JSON document (serde), the same figures as the text.

use serde::Serialize;

use crate::activity::Power;
use crate::checks::Check;
use crate::compare::Platform5;
use crate::host::{CpuChoice, HostFigure};
use crate::paper::paper_kind;
use crate::study::{DupPoint, EngineEnergy, Study};

#[derive(Serialize)]
struct PowerJ {
    exec_w: f64,
    stall_w: f64,
    leak_w: f64,
    comm_w: f64,
    total_w: f64,
}

impl From<&Power> for PowerJ {
    fn from(p: &Power) -> Self {
        PowerJ {
            exec_w: p.exec,
            stall_w: p.stall,
            leak_w: p.leak,
            comm_w: p.comm,
            total_w: p.total(),
        }
    }
}

#[derive(Serialize)]
struct CheckJ<'a> {
    #[serde(flatten)]
    check: &'a Check,
    error: f64,
    ok: bool,
}

#[derive(Serialize)]
struct KindJ<'a> {
    kind: &'a str,
    paper_kind: Option<&'static str>,
    number: usize,
    exec: f64,
    nop: f64,
    stall_clock_on: f64,
    halted: f64,
    near: f64,
    long: f64,
    power: PowerJ,
}

#[derive(Serialize)]
struct DvfsJ {
    margin: f64,
    freq_power: PowerJ,
    dual_power: PowerJ,
    vdd_low: f64,
    cores_on_low: usize,
    freq_saving: f64,
    dual_saving: f64,
    throughput_change: f64,
    verified: bool,
}

#[derive(Serialize)]
struct EngineJ {
    engine: &'static str,
    slug: &'static str,
    expansion: &'static str,
    cores: usize,
    comm_cores: usize,
    cycles_per_block: f64,
    verified: bool,
    power: PowerJ,
    energy_per_bit_nj: f64,
    online_overhead: f64,
    dvfs: DvfsJ,
}

#[derive(Serialize)]
struct Fig14J {
    engine: &'static str,
    vdd_nj_per_bit: Vec<(f64, f64)>,
}

#[derive(Serialize)]
struct DupJ {
    copies: usize,
    cores: usize,
    gather_merges: usize,
    gbps: f64,
    verified: bool,
    exceeds_chip: bool,
}

impl From<&DupPoint> for DupJ {
    fn from(p: &DupPoint) -> Self {
        DupJ {
            copies: p.copies,
            cores: p.cores,
            gather_merges: p.gather_merges,
            gbps: p.gbps,
            verified: p.verified,
            exceeds_chip: p.exceeds_chip,
        }
    }
}

#[derive(Serialize)]
struct Fig12J {
    engine: &'static str,
    points: Vec<DupJ>,
}

#[derive(Serialize)]
struct FitJ {
    k: f64,
    vt: f64,
    a: f64,
}

#[derive(Serialize)]
struct HostJ<'a> {
    #[serde(flatten)]
    figure: &'a HostFigure,
    cycles_per_byte: f64,
    cpu: &'a CpuChoice,
}

#[derive(Serialize)]
struct StudyJ<'a> {
    key_bits: usize,
    blocks: usize,
    halt_after: u64,
    fmax_fit: FitJ,
    checks: Vec<CheckJ<'a>>,
    table4: Vec<KindJ<'a>>,
    engines: Vec<EngineJ>,
    fig14: Vec<Fig14J>,
    fig12: Vec<Fig12J>,
    table5: &'a [Platform5],
    table5_general_rule: &'a [Platform5],
    host: Option<HostJ<'a>>,
}

fn engine_j(s: &Study, r: &EngineEnergy) -> EngineJ {
    let d = &r.dvfs;
    EngineJ {
        engine: r.engine.name(),
        slug: r.engine.slug(),
        expansion: r.expansion.name(),
        cores: r.activity().n_cores(),
        comm_cores: r.activity().comm_cores,
        cycles_per_block: r.activity().cycles_per_block(),
        verified: r.activity().verified,
        power: (&r.power).into(),
        energy_per_bit_nj: r.energy_per_bit * 1e9,
        online_overhead: s.overhead(r.engine),
        dvfs: DvfsJ {
            margin: d.margin,
            freq_power: (&d.p_freq).into(),
            dual_power: (&d.p_dual).into(),
            vdd_low: d.v_low,
            cores_on_low: d.cores_low,
            freq_saving: d.freq_saving(),
            dual_saving: d.dual_saving(),
            throughput_change: d.throughput_change(),
            verified: d.scaled.verified,
        },
    }
}

/// The study as JSON.
pub fn to_json(s: &Study) -> String {
    let doc = StudyJ {
        key_bits: s.options.key.bits(),
        blocks: s.options.blocks,
        halt_after: s.halt_after,
        fmax_fit: FitJ {
            k: s.curve.k,
            vt: s.curve.vt,
            a: s.curve.a,
        },
        checks: s
            .checks
            .iter()
            .map(|c| CheckJ {
                check: c,
                error: c.error(),
                ok: c.ok(),
            })
            .collect(),
        table4: s
            .table4
            .iter()
            .map(|r| KindJ {
                kind: &r.kind,
                paper_kind: paper_kind(&r.kind),
                number: r.count,
                exec: r.exec,
                nop: r.nop,
                stall_clock_on: r.stall,
                halted: r.halted,
                near: r.near,
                long: r.long,
                power: (&r.power).into(),
            })
            .collect(),
        engines: s.engines.iter().map(|r| engine_j(s, r)).collect(),
        fig14: s
            .fig14
            .iter()
            .map(|(e, pts)| Fig14J {
                engine: e.name(),
                vdd_nj_per_bit: pts.clone(),
            })
            .collect(),
        fig12: s
            .fig12
            .iter()
            .map(|(e, pts)| Fig12J {
                engine: e.name(),
                points: pts.iter().map(DupJ::from).collect(),
            })
            .collect(),
        table5: &s.table5,
        table5_general_rule: &s.table5_rule,
        host: s.host.as_ref().map(|(h, cpu)| HostJ {
            figure: h,
            cycles_per_byte: h.cycles_per_byte(),
            cpu,
        }),
    };
    let mut out = serde_json::to_string_pretty(&doc).expect("the study serialises");
    out.push('\n');
    out
}
