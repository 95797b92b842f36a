//! The host row of Table 5: a measured speed (an *input*, measured by the
//! benchmark harness) and the silicon the host's CPU is made of (a small
//! table of known CPUs, because area, power and supply cannot be measured
//! from software).
//!
//! The row follows the paper's rule for its one-core CPU rows (Table 5 of
//! "Parallel AES Encryption Engines for Many-Core Processor Arrays", §7):
//! one core's share of the die, half of its share of the TDP as typical
//! power, scaled to 65 nm / 1.3 V by the general rule of Fig. 16's caption
//! ([`crate::compare::general_rule`]).

use serde::Serialize;
use std::sync::LazyLock;

use crate::compare::{Platform5, general_rule, table5_row};
use crate::table;

/// The host's measured speed, handed in by the caller (the `aesflow` CLI
/// and `aesflow report` measure it with `aesflow-bench`): what ran, how
/// fast, at which clock, on which CPU. A plain value: the energy model
/// never times anything itself and does not depend on the benchmark.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostFigure {
    /// The kernel that ran (e.g. `vaes512`).
    pub kernel: String,
    /// What was timed (e.g. `AES-128-CTR, 16 KiB, one core, best of 7`).
    pub workload: String,
    /// Measured throughput on one core (bytes per second).
    pub bytes_per_second: f64,
    /// The clock that turns time into cycles (GHz).
    pub clock_ghz: f64,
    /// Where the clock figure came from (e.g. `/proc/cpuinfo`).
    pub clock_source: String,
    /// The CPU, as `/proc/cpuinfo` names it: it picks the silicon.
    pub processor: HostCpu,
}

/// The host's CPU as the operating system reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HostCpu {
    /// Model name (`AMD EPYC 9555 64-Core Processor`), if known.
    pub name: Option<String>,
    /// CPU family number, if known.
    pub family: Option<u32>,
    /// Model number within the family, if known.
    pub model: Option<u32>,
}

impl HostFigure {
    /// Cycles per byte at the machine's clock.
    pub fn cycles_per_byte(&self) -> f64 {
        self.clock_ghz * 1e9 / self.bytes_per_second
    }
}

/// A CPU's silicon, per core: published figures and stated assumptions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CpuSpec {
    /// Short name for `--host-cpu`.
    pub key: &'static str,
    /// What it is.
    pub name: &'static str,
    /// Process node (nm, the foundry's name for it).
    pub tech_nm: f64,
    /// Area per core (mm²).
    pub area_mm2: f64,
    /// TDP per core (W); the row uses half of it, as the paper does.
    pub tdp_per_core_w: f64,
    /// Core supply under load (V): an assumption, not readable from a VM.
    pub vdd: f64,
    /// Where the numbers come from.
    pub basis: &'static str,
}

/// The CPUs the host row knows (`data/known-cpus.txt`: per-die area,
/// chip TDP and cores, the assumed supply, the sources).
pub static KNOWN_CPUS: LazyLock<Vec<CpuSpec>> = LazyLock::new(|| {
    table::rows(include_str!("../data/known-cpus.txt"))
        .map(
            |[key, name, tech, die_mm2, die_cores, tdp, cores, vdd, basis]| CpuSpec {
                key,
                name,
                tech_nm: table::num(tech),
                area_mm2: table::num::<f64>(die_mm2) / table::num::<f64>(die_cores),
                tdp_per_core_w: table::num::<f64>(tdp) / table::num::<f64>(cores),
                vdd: table::num(vdd),
                basis,
            },
        )
        .collect()
});

/// How the host's CPU was matched to [`KNOWN_CPUS`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CpuChoice {
    /// The spec used, if any.
    pub spec: Option<CpuSpec>,
    /// Identified, assumed or unknown, and why.
    pub how: String,
}

/// A spec by its `--host-cpu` key.
pub fn cpu_by_key(key: &str) -> Option<CpuSpec> {
    KNOWN_CPUS.iter().copied().find(|c| c.key == key)
}

/// Match the host's CPU to [`KNOWN_CPUS`] from `/proc/cpuinfo`'s model name,
/// family and model. A virtual machine may hide the part (model name "AMD
/// EPYC"): then the newest EPYC is *assumed* and the choice says so.
pub fn identify(h: &HostFigure) -> CpuChoice {
    let cpu = &h.processor;
    let name = cpu.name.as_deref().unwrap_or("");
    let (fam, model) = (cpu.family, cpu.model);
    let desc = format!(
        "{} (family {}, model {})",
        if name.is_empty() { "unknown CPU" } else { name },
        fam.map_or("?".into(), |f| f.to_string()),
        model.map_or("?".into(), |m| m.to_string())
    );
    let pick = |key: &str, how: String| CpuChoice {
        spec: cpu_by_key(key),
        how,
    };
    if name.contains("Intel") && fam == Some(6) && model == Some(85) {
        return pick("xeon-cascade-lake", format!("identified: {desc}"));
    }
    if name.contains("AMD EPYC") {
        let named_9005 = name
            .split_whitespace()
            .any(|w| w.len() == 4 && w.starts_with('9') && w.ends_with('5'));
        let named_9004 = name
            .split_whitespace()
            .any(|w| w.len() == 4 && w.starts_with('9') && w.ends_with('4'));
        if fam == Some(26) || named_9005 {
            return pick("epyc-zen5", format!("identified: {desc}"));
        }
        if named_9004 || (fam == Some(25) && model.is_some_and(|m| m >= 0x10)) {
            return pick("epyc-zen4", format!("identified: {desc}"));
        }
        // Family 25 (0x19), models 0x00–0x0f: Zen 3 (Milan); the VAES
        // without AVX-512 that such a CPU reports agrees.
        if fam == Some(25) {
            return pick("epyc-zen3", format!("identified: {desc}: Zen 3 class"));
        }
        return pick(
            "epyc-zen5",
            format!(
                "assumed: {desc} does not name the part (a virtual machine hides it); \
                 Zen 5 assumed — choose with --host-cpu"
            ),
        );
    }
    CpuChoice {
        spec: None,
        how: format!(
            "unknown: {desc} is not in the table of known CPUs; no area or power assumed \
             (choose one with --host-cpu)"
        ),
    }
}

/// The host row of Table 5: measured speed, the chosen CPU's silicon,
/// scaled by the general rule. Without a spec only the throughput is shown
/// (unscaled: the node is unknown).
pub fn host_row(h: &HostFigure, cpu: &CpuChoice) -> Platform5 {
    let mhz = h.clock_ghz * 1e3;
    let cpb = h.cycles_per_byte();
    let mbps = h.bytes_per_second * 8.0 / 1e6;
    let name = format!("this host, one core ({})", h.kernel);
    let method = format!("{} (measured)", h.workload);
    let row = |tech, area, vdd, power| {
        let cpb = Some(cpb);
        table5_row(
            &name, &method, tech, area, vdd, mhz, cpb, power, mbps, None, None, None,
        )
    };
    match cpu.spec {
        Some(c) => {
            let power = 0.5 * c.tdp_per_core_w;
            let (sm, sa, sw) = general_rule(c.tech_nm, c.vdd, mbps, c.area_mm2, power);
            row(c.tech_nm, Some(c.area_mm2), c.vdd, Some(power)).with_scaled(sm, sa, sw)
        }
        None => row(f64::NAN, None, f64::NAN, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(name: &str, fam: u32, model: u32) -> HostFigure {
        // 16 KiB in 3.2768 µs: 5 GB/s, at 2.5 GHz.
        HostFigure {
            kernel: "aesni".into(),
            workload: "AES-128-CTR".into(),
            bytes_per_second: 16384.0 / 3.2768e-6,
            clock_ghz: 2.5,
            clock_source: "test".into(),
            processor: HostCpu {
                name: Some(name.into()),
                family: Some(fam),
                model: Some(model),
            },
        }
    }

    #[test]
    fn known_cpus_read_as_published() {
        let keys: Vec<&str> = KNOWN_CPUS.iter().map(|c| c.key).collect();
        assert_eq!(
            keys,
            ["epyc-zen5", "epyc-zen4", "xeon-cascade-lake", "epyc-zen3"]
        );
        let zen4 = cpu_by_key("epyc-zen4").unwrap();
        assert_eq!(
            (zen4.tech_nm, zen4.area_mm2, zen4.tdp_per_core_w, zen4.vdd),
            (5.0, 66.3 / 8.0, 360.0 / 96.0, 1.0)
        );
        assert!(zen4.basis.ends_with(
            "CCD (TSMC N5; I/O die not counted); EPYC 9654: 360 W for 96 cores; 1.0 V assumed"
        ));
    }

    #[test]
    fn known_cpus_are_identified_or_assumed_with_a_reason() {
        let x = identify(&fig("Intel(R) Xeon(R) Platinum 8280 CPU @ 2.70GHz", 6, 85));
        assert_eq!(x.spec.unwrap().key, "xeon-cascade-lake");
        assert!(x.how.starts_with("identified"));
        let z = identify(&fig("AMD EPYC 9555 64-Core Processor", 26, 2));
        assert_eq!(z.spec.unwrap().key, "epyc-zen5");
        let g = identify(&fig("AMD EPYC 9654 96-Core Processor", 25, 17));
        assert_eq!(g.spec.unwrap().key, "epyc-zen4");
        // A virtual machine that hides the part: family 25 model 1 is Zen 3.
        let m = identify(&fig("AMD EPYC", 25, 1));
        assert_eq!(m.spec.unwrap().key, "epyc-zen3");
        assert!(m.how.starts_with("identified"), "{}", m.how);
        // An EPYC the table cannot place: assumed, and said so.
        let v = identify(&fig("AMD EPYC", 23, 49));
        assert_eq!(v.spec.unwrap().key, "epyc-zen5");
        assert!(v.how.starts_with("assumed"), "{}", v.how);
        let u = identify(&fig("ARM Neoverse", 0, 0));
        assert!(u.spec.is_none() && u.how.starts_with("unknown"));
    }

    #[test]
    fn the_row_scales_by_the_general_rule_or_stays_unscaled() {
        let h = fig("AMD EPYC", 25, 1);
        assert!((h.cycles_per_byte() - 0.5).abs() < 1e-12);
        let r = host_row(&h, &identify(&h));
        assert!(r.mbps_per_mm2.unwrap() > 0.0 && r.nj_per_bit.unwrap() > 0.0);
        let u = host_row(
            &h,
            &CpuChoice {
                spec: None,
                how: "unknown".into(),
            },
        );
        assert!((u.scaled_mbps - 40_000.0).abs() < 1e-6);
        assert!(u.nj_per_bit.is_none());
    }
}
