//! Per-core frequency and dual-supply-voltage scaling (the companion talk to "Parallel AES Encryption Engines for Many-Core Processor Arrays").
//!
//! * **Frequency scaling.** The critical cores run at `f_critical` (1.2 GHz,
//!   set by the throughput); every other core *i* at
//!   `f_opt,i = N_exe,i / N_exe,critical · f_critical`, where `N_exe` is the
//!   cycles a core's program needs per block (executing + NOP, from the
//!   simulator) and the critical core is the one that needs the most.
//! * **Re-simulation.** The engine is simulated again with every core on its
//!   own clock (GALS: a core at `f_i` takes `cycles · f_critical / f_i`
//!   reference cycles). Where the design is bound by a loop's latency rather
//!   than by its busiest core (the non-unrolled designs), slowing every
//!   loop core down would lengthen the loop and lose throughput; then all
//!   scaled clocks are raised by one common margin `k ≥ 1`
//!   (`f_i = min(f_critical, k · f_opt,i)`), the smallest `k` (by bisection)
//!   that keeps the throughput within 0.5% of the unscaled run.
//! * **Dual supply.** Each core is tied to `Vdd_Low` if `f_i ≤ f_max(Vdd_Low)`,
//!   else to `Vdd_High` = 1.3 V; `Vdd_Low` is swept over 0.675–1.3 V in
//!   25 mV steps and the value with the lowest power kept.
//!
//! Voltage does not change timing, so both variants use the same re-simulated
//! activity.

use aesflow_array::Platform;

use crate::activity::{Activity, Power, RunSpec, power, power_with, run};
use crate::power::{FmaxCurve, PowerModel, vdd_grid};

/// Throughput loss the re-simulation may show (clock periods are rounded to
/// 1/1024 of a cycle).
pub const THROUGHPUT_TOLERANCE: f64 = 0.005;

/// The result of scaling one engine.
#[derive(Clone, Debug)]
pub struct Dvfs {
    /// Activity at one clock for all cores.
    pub base: Activity,
    /// Activity re-simulated with the scaled clocks.
    pub scaled: Activity,
    /// Clock ratio of each core of `scaled` (same order as its `cores`).
    pub ratios: Vec<f64>,
    /// The common margin `k` (1 when the talk's rule keeps the throughput).
    pub margin: f64,
    /// Power at 1.3 V, one clock.
    pub p_base: Power,
    /// Power with frequency scaling (all at 1.3 V).
    pub p_freq: Power,
    /// Power with frequency and dual supply scaling.
    pub p_dual: Power,
    /// The best `Vdd_Low`.
    pub v_low: f64,
    /// Cores on `Vdd_Low`.
    pub cores_low: usize,
}

impl Dvfs {
    /// Power saved by frequency scaling alone (fraction).
    pub fn freq_saving(&self) -> f64 {
        1.0 - self.p_freq.total() / self.p_base.total()
    }
    /// Power saved by frequency and dual-supply scaling (fraction).
    pub fn dual_saving(&self) -> f64 {
        1.0 - self.p_dual.total() / self.p_base.total()
    }
    /// Throughput change of the re-simulated run (fraction; ≤ 0.5% by
    /// construction).
    pub fn throughput_change(&self) -> f64 {
        self.base.cycles_per_block() / self.scaled.cycles_per_block() - 1.0
    }
}

fn freq_vec(base: &Activity, ratios: &[f64]) -> Vec<f64> {
    let mut f = vec![1.0; base.mapping_len];
    for (c, &r) in base.cores.iter().zip(ratios) {
        f[c.index] = r;
    }
    f
}

/// Scale one engine (see the module docs).
pub fn scale(
    spec: &RunSpec,
    platform: &Platform,
    model: &PowerModel,
    curve: &FmaxCurve,
    base: Activity,
) -> Result<Dvfs, crate::EnergyError> {
    let v_high = model.v_ref;
    let f_crit = model.f_ref;
    let n_crit = base
        .cores
        .iter()
        .map(|c| c.busy())
        .fold(0.0f64, f64::max)
        .max(1.0);
    let r: Vec<f64> = base
        .cores
        .iter()
        .map(|c| (c.busy() / n_crit).clamp(1e-3, 1.0))
        .collect();
    let target = base.cycles_per_block() * (1.0 + THROUGHPUT_TOLERANCE);
    let with = |k: f64| -> Vec<f64> { r.iter().map(|&x| (x * k).min(1.0)).collect() };
    let try_k = |k: f64| -> Result<(Activity, Vec<f64>), crate::EnergyError> {
        let ratios = with(k);
        let a = run(spec, platform, Some(&freq_vec(&base, &ratios)))?;
        Ok((a, ratios))
    };
    let (mut scaled, mut ratios) = try_k(1.0)?;
    let mut margin = 1.0;
    if scaled.cycles_per_block() > target {
        let mut lo = 1.0;
        let mut hi = r.iter().fold(1.0f64, |m, &x| m.max(1.0 / x));
        let (a_hi, r_hi) = try_k(hi)?;
        scaled = a_hi;
        ratios = r_hi;
        margin = hi;
        for _ in 0..7 {
            let mid = 0.5 * (lo + hi);
            let (a, rr) = try_k(mid)?;
            if a.cycles_per_block() <= target {
                hi = mid;
                scaled = a;
                ratios = rr;
                margin = mid;
            } else {
                lo = mid;
            }
        }
    }
    let p_base = power(model, &base, v_high, f_crit);
    let p_freq = power(model, &scaled, v_high, f_crit);
    let mut best = (p_freq, v_high, 0usize);
    for v_low in vdd_grid() {
        if v_low >= v_high {
            continue;
        }
        let fm = curve.f_max(v_low);
        let on_low = |ratio: f64| ratio * f_crit <= fm;
        let p = power_with(model, &scaled, f_crit, |i, _| {
            if on_low(ratios[i]) { v_low } else { v_high }
        });
        if p.total() < best.0.total() {
            let n = ratios.iter().filter(|&&x| on_low(x)).count();
            best = (p, v_low, n);
        }
    }
    Ok(Dvfs {
        base,
        scaled,
        ratios,
        margin,
        p_base,
        p_freq,
        p_dual: best.0,
        v_low: best.1,
        cores_low: best.2,
    })
}
