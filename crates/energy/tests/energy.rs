//! The model's acceptance checks against the paper, from simulated activity.

use std::sync::OnceLock;

use aesflow_array::{Clocks, Platform, map, simulate, simulate_clocked};
use aesflow_cipher::KeySize;
use aesflow_designs::compile::compile;
use aesflow_designs::report::fips_key;
use aesflow_designs::{Engine, Expansion, Optimisations, build};
use aesflow_energy::{Options, study};
use aesflow_energy::{Study, overhead};

fn the_study() -> &'static Study {
    static S: OnceLock<Study> = OnceLock::new();
    S.get_or_init(|| {
        study(&Options {
            blocks: 128,
            ..Options::default()
        })
        .expect("study runs")
    })
}

fn check(name: &str) -> &'static aesflow_energy::Check {
    the_study()
        .checks
        .iter()
        .find(|c| c.figure.starts_with(name))
        .unwrap_or_else(|| panic!("no check {name}"))
}

#[test]
fn every_engine_encrypts_correctly_in_every_run() {
    let s = the_study();
    for r in &s.engines {
        assert!(r.activity().verified, "{:?} {:?}", r.engine, r.expansion);
        assert!(
            r.dvfs.scaled.verified,
            "{:?} {:?} scaled",
            r.engine, r.expansion
        );
    }
    for (e, pts) in &s.fig12 {
        for p in pts {
            assert!(p.verified, "{e:?} x{}", p.copies);
        }
    }
}

#[test]
fn full_parallelism_offline_total_power_within_5_percent_of_4_52_w() {
    let c = check("Table 4: offline Full-parallelism total power");
    assert!(c.error().abs() <= 0.05, "{c:?}");
    // The components add up and the throughput is the paper's.
    let t = check("Table 4: throughput");
    assert!(t.error().abs() < 0.01, "{t:?}");
    let leak = check("Table 4: leakage");
    assert!(leak.model < 10.0, "leakage stays negligible: {leak:?}");
}

/// The target: No-merge offline at 1.3 V within ±10% of 1.55 nJ/bit. The
/// model meets it through global rules for fused ShiftRows (19 of 38 cycles
/// beside AddRoundKey, derived from Table 4; nothing beside SubBytes, which
/// packs each byte anyway; see `aesflow_designs::kinds::step_delays` and
/// the crate docs): about 1.57 nJ/bit, +1.1%.
#[test]
fn no_merge_offline_energy_per_bit_within_10_percent_of_1_55() {
    let c = check("Table 5: No-merge offline energy per bit");
    assert!(c.error().abs() <= 0.10, "{c:?}");
    let s = the_study();
    let fp = s
        .engines
        .iter()
        .find(|r| r.engine == Engine::FullParallelism && r.expansion == Expansion::Offline)
        .unwrap();
    // The same rule, with AddRoundKey executing 18 of its 22 cycles (Table
    // 4's FinalRoundAddKey), makes Table 4's fused row execute the paper's
    // 37 cycles per block, and halt its clock part of each period as the
    // paper's does (15 cycles there).
    let row = aesflow_energy::activity::by_kind(
        &aesflow_energy::power::PowerModel::default(),
        fp.activity(),
        1.3,
        1.2e9,
    )
    .into_iter()
    .find(|r| r.kind == "AddKeyShiftRows")
    .expect("AddKeyShiftRows row");
    assert!((row.exec - 37.0).abs() < 0.5, "{row:?}");
    assert!(row.halted > 5.0, "{row:?}");
    // Table 4's execution power within 5%.
    let x = check("Table 4: execution power");
    assert!(x.error().abs() <= 0.05, "{x:?}");
}

#[test]
fn online_overhead_of_every_engine_is_inside_25_to_65_percent() {
    let s = the_study();
    for e in Engine::ALL {
        let o = overhead(&s.engines, e);
        assert!((0.25..=0.65).contains(&o), "{e:?}: {:.1}%", 100.0 * o);
    }
}

#[test]
fn energy_per_bit_falls_with_the_supply_nearly_quadratically() {
    let s = the_study();
    for (e, pts) in &s.fig14 {
        // Near threshold the clock collapses (66 MHz at 0.675 V) and the
        // leakage of halted cores per block grows: a minimum-energy point
        // can appear just above 0.675 V. Above 0.75 V energy rises with V.
        for w in pts.windows(2).filter(|w| w[0].0 >= 0.75) {
            assert!(w[1].1 > w[0].1, "{e:?}: not increasing at {} V", w[1].0);
        }
        let lo = pts.first().unwrap();
        let hi = pts.last().unwrap();
        let v2 = (lo.0 / hi.0).powi(2);
        let ratio = lo.1 / hi.1;
        // V² plus the leakage of halted cores, which grows as f drops.
        assert!(ratio >= v2 && ratio < v2 * 1.5, "{e:?}: {ratio} vs {v2}");
    }
}

#[test]
fn dvfs_keeps_throughput_and_saves_power() {
    let s = the_study();
    let mut best_f: f64 = 0.0;
    let mut best_d: f64 = 0.0;
    for r in &s.engines {
        let d = &r.dvfs;
        assert!(
            d.throughput_change() > -0.006,
            "{:?} {:?}: {}",
            r.engine,
            r.expansion,
            d.throughput_change()
        );
        assert!(d.freq_saving() > -0.01, "{:?}", r.engine);
        assert!(d.dual_saving() >= d.freq_saving() - 1e-12);
        best_f = best_f.max(d.freq_saving());
        best_d = best_d.max(d.dual_saving());
    }
    // The talk: up to 16% and 32%.
    assert!(best_f > 0.08 && best_f < 0.2, "{best_f}");
    assert!(best_d > 0.2 && best_d < 0.4, "{best_d}");
}

#[test]
fn duplication_needs_two_merge_cores_for_four_copies() {
    let s = the_study();
    for (e, pts) in &s.fig12 {
        assert_eq!(pts.len(), 3);
        let base = &pts[0];
        assert_eq!(pts[1].gather_merges, 0, "{e:?}");
        assert_eq!(pts[1].cores, 2 * base.cores);
        assert_eq!(pts[2].gather_merges, 2, "{e:?}");
        assert_eq!(pts[2].cores, 4 * base.cores + 2);
        assert!(pts[1].gbps > 1.9 * base.gbps, "{e:?}");
        assert!(pts[2].gbps > 3.6 * base.gbps, "{e:?}");
    }
}

#[test]
fn charts_and_json_cover_every_figure() {
    let s = the_study();
    let dir = std::env::temp_dir().join(format!("aesflow-energy-{}", std::process::id()));
    let written = aesflow_energy::write_charts(s, &dir).unwrap();
    assert_eq!(written.len(), 4);
    for p in &written {
        let t = std::fs::read_to_string(p).unwrap();
        assert!(t.starts_with("<svg") && t.contains("</svg>"));
        // The paper's (or the talk's) values are drawn beside the model's.
        assert!(t.contains("paper") || t.contains("talk"), "{}", p.display());
    }
    let f14 = std::fs::read_to_string(dir.join("fig14_energy_vs_vdd.svg")).unwrap();
    assert!(f14.contains("Vdd (V)") && f14.contains("nJ/bit"));
    let _ = std::fs::remove_dir_all(&dir);
    let j: serde_json::Value = serde_json::from_str(&aesflow_energy::to_json(s)).unwrap();
    assert_eq!(j["checks"].as_array().unwrap().len(), s.checks.len());
    assert_eq!(j["engines"].as_array().unwrap().len(), 16);
    assert!(j["host"].is_null());
}

fn mapped(e: Engine) -> (aesflow_array::Mapping, Platform) {
    let p = aesflow_energy::activity::platform();
    let d = build(e, KeySize::Aes128, Expansion::Offline, Optimisations::ALL);
    let blocks = aesflow_designs::report::test_blocks(64, 3);
    let c = compile(
        &d,
        &fips_key(KeySize::Aes128),
        std::sync::Arc::new(blocks),
        &p,
    )
    .unwrap();
    (map(c.app, &p).unwrap(), p)
}

#[test]
fn clocked_simulation_with_uniform_clocks_is_the_plain_simulation() {
    let (mut a, p) = mapped(Engine::NoMerge);
    let (mut b, _) = mapped(Engine::NoMerge);
    let r1 = simulate(&mut a, &p, 64);
    let n = b.cores.len();
    let r2 = simulate_clocked(&mut b, &p, 64, &Clocks::uniform(n));
    assert_eq!(r1.cores, r2.cores);
    assert_eq!(r1.links, r2.links);
    assert_eq!(r1.sink_times, r2.sink_times);
    // Every core at the same scaled clock: the same run, stretched.
    let (mut c, _) = mapped(Engine::NoMerge);
    let r3 = simulate_clocked(&mut c, &p, 64, &Clocks::from_ratios(&vec![1.0; n], 4));
    assert_eq!(r3.cycles, 4 * r1.cycles);
}

#[test]
fn slowing_the_critical_core_costs_throughput() {
    let (mut a, p) = mapped(Engine::FullParallelism);
    let n = a.cores.len();
    let mut f = vec![1.0; n];
    let mc = a
        .cores
        .iter()
        .position(|c| c.kind == "MixColumns-4")
        .unwrap();
    f[mc] = 0.5;
    let r = simulate_clocked(&mut a, &p, 64, &Clocks::from_ratios(&f, 16));
    let cpb = r.cycles_per_block().unwrap() / 16.0;
    assert!(cpb > 130.0, "{cpb}");
}

/// Every figure beside the paper is held to ±10%, or to the band of a
/// documented exception that says why ([`aesflow_energy::checks::EXCEPTIONS`]):
/// a figure that drifts beyond either fails here.
#[test]
fn every_figure_is_within_10_percent_or_its_documented_exception() {
    use aesflow_energy::checks::{EXCEPTIONS, TOLERANCE};
    let s = the_study();
    let mut outside = Vec::new();
    for c in &s.checks {
        let t = c.tolerance.expect("every figure has a tolerance");
        match &c.note {
            None => assert_eq!(t, TOLERANCE, "{c:?}"),
            Some(n) => assert!(t > TOLERANCE && !n.is_empty(), "{c:?}"),
        }
        if !c.ok() {
            outside.push(format!(
                "{}: {:+.1}% (held to ±{:.0}%)",
                c.figure,
                100.0 * c.error(),
                100.0 * t
            ));
        }
    }
    assert!(outside.is_empty(), "{outside:#?}");
    // Each exception names a figure the study reports.
    for (prefix, _, _) in EXCEPTIONS {
        assert!(
            s.checks.iter().any(|c| c.figure.starts_with(prefix)),
            "exception for no figure: {prefix}"
        );
    }
    // Table 4's per-kind power is checked for all five of the paper's kinds.
    let kinds = s
        .checks
        .iter()
        .filter(|c| c.figure.ends_with("power per core"))
        .count();
    assert_eq!(kinds, 5);
    // Most figures are within 5%: the headline ones at least.
    for name in [
        "Table 4: offline Full-parallelism total power",
        "Table 4: execution power",
        "Table 4: throughput",
        "Table 5: No-merge offline throughput",
        "Table 5: AsAP No-merge throughput per area",
    ] {
        let c = check(name);
        assert!(c.error().abs() <= 0.05, "{c:?}");
    }
}
