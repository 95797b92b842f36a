//! Evaluate one point of the design space: build, map, simulate, verify,
//! and measure speed, cores, power and energy per bit.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::Arc;

use aesflow_array::{Platform, gather, map};
use aesflow_cipher::KeySize;
use aesflow_designs::compile::compile;
use aesflow_designs::report::fips_key;
use aesflow_designs::space::{Params, Split, Style, generate};
use aesflow_designs::{Design, Engine};
use aesflow_energy::activity::{self, Activity, RunSpec, energy_per_bit};
use aesflow_energy::power::{FmaxCurve, PowerModel, vdd_grid};
use aesflow_energy::study::par_map;
use serde::Serialize;

use crate::Error;

/// The supply of Table 3 (V), where the clock is 1.2 GHz.
pub const NOMINAL_VDD: f64 = 1.3;

/// Figures of a simulated design.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    /// Steady-state cycles per block (all copies together).
    pub cycles_per_block: f64,
    /// Cycles per byte.
    pub cycles_per_byte: f64,
    /// Throughput at 1.3 V (1.2 GHz), Gbit/s.
    pub gbps: f64,
    /// Throughput per core at 1.3 V, Mbit/s.
    pub mbps_per_core: f64,
    /// Power at 1.3 V, W.
    pub power_w: f64,
    /// Energy per bit at 1.3 V, nJ/bit.
    pub nj_per_bit: f64,
    /// The supply (V) with the lowest energy per bit, each supply at its
    /// `f_max`.
    pub best_vdd: f64,
    /// Energy per bit at [`Metrics::best_vdd`], nJ/bit.
    pub best_nj_per_bit: f64,
    /// Throughput at [`Metrics::best_vdd`], Gbit/s.
    pub best_gbps: f64,
    /// Every block of both runs encrypted like the reference cipher.
    pub verified: bool,
    /// Blocks simulated (the longer of the two runs).
    pub blocks: usize,
}

/// One evaluated design.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    /// Its parameters.
    #[serde(serialize_with = "ser_params")]
    pub params: Params,
    /// A short label of the parameters.
    pub label: String,
    /// The paper's engine, if the point is one (AES-128, one copy).
    #[serde(serialize_with = "ser_engine")]
    pub paper: Option<Engine>,
    /// Cores on the mesh (compute and communication, all copies).
    pub cores: usize,
    /// Communication cores.
    pub comm_cores: usize,
    /// More cores than the chip has: mapped but not simulated, never on a
    /// front.
    pub exceeds_chip: bool,
    /// The simulated figures (`None` when the design exceeds the chip).
    pub metrics: Option<Metrics>,
}

impl Point {
    /// On the chip, simulated and verified: eligible for the fronts.
    pub fn feasible(&self) -> bool {
        !self.exceeds_chip && self.metrics.as_ref().is_some_and(|m| m.verified)
    }
    /// The paper's name or the label.
    pub fn name(&self) -> String {
        match self.paper {
            Some(e) => format!("{} ({})", e.name(), self.params.expansion.name()),
            None => self.label.clone(),
        }
    }
}

fn ser_engine<S: serde::Serializer>(e: &Option<Engine>, s: S) -> Result<S::Ok, S::Error> {
    match e {
        Some(e) => s.serialize_some(e.name()),
        None => s.serialize_none(),
    }
}

/// The parameters as JSON.
#[derive(Serialize)]
struct ParamsJson {
    key_bits: usize,
    loops: u32,
    style: &'static str,
    sub_bytes_per_core: Option<usize>,
    mix_bytes_per_core: Option<usize>,
    fuse_mix_key: bool,
    interleave: u32,
    fuse_key_shift: bool,
    expansion: &'static str,
    copies: u32,
    dispatch: &'static str,
}

fn ser_params<S: serde::Serializer>(p: &Params, s: S) -> Result<S::Ok, S::Error> {
    let (style, sub, mix, fmk) = match p.style {
        Style::NoMerge => ("no-merge", None, None, true),
        Style::Merge {
            sub,
            mix,
            fuse_mix_key,
        } => (
            "merge",
            Some(Split::bytes(sub)),
            Some(Split::bytes(mix)),
            fuse_mix_key,
        ),
    };
    ParamsJson {
        key_bits: p.key.bits(),
        loops: p.loops,
        style,
        sub_bytes_per_core: sub,
        mix_bytes_per_core: mix,
        fuse_mix_key: fmk,
        interleave: p.interleave,
        fuse_key_shift: p.fuse_key_shift,
        expansion: p.expansion.name(),
        copies: p.copies,
        dispatch: p.dispatch.name(),
    }
    .serialize(s)
}

/// Map `copies` copies of `d` (gathered as in Fig. 12): cores,
/// communication cores, and whether the chip is exceeded.
pub fn map_copies(
    d: &Design,
    copies: u32,
    platform: &Platform,
) -> Result<(usize, usize, bool), Error> {
    let key = fips_key(d.key);
    let ctx = |e: String| Error::Design {
        design: d.name.clone(),
        message: e,
    };
    let ctx_d = |e: aesflow_designs::Error| ctx(e.to_string());
    let mut apps = Vec::new();
    for _ in 0..copies.max(1) {
        apps.push(
            compile(d, &key, Arc::new(vec![[0u8; 16]]), platform)
                .map_err(ctx_d)?
                .app,
        );
    }
    let m = map(gather(apps).map_err(|e| ctx(e.to_string()))?, platform)
        .map_err(|e| ctx(e.to_string()))?;
    let consumer = usize::from(copies > 1);
    Ok((m.total_cores() - consumer, m.comm_cores(), m.exceeds_chip))
}

/// Energy figures from an activity: (power at 1.3 V, J/bit at 1.3 V,
/// best Vdd, J/bit there, bit/s there).
fn energy(a: &Activity) -> (f64, f64, f64, f64, f64) {
    let m = PowerModel::TABLE3;
    let curve = FmaxCurve::asap2();
    let f = curve.f_max(NOMINAL_VDD);
    let p = activity::power(&m, a, NOMINAL_VDD, f).total();
    let e = energy_per_bit(&m, a, NOMINAL_VDD, f);
    let (bv, be) = vdd_grid()
        .into_iter()
        .map(|v| (v, energy_per_bit(&m, a, v, curve.f_max(v))))
        .fold((NOMINAL_VDD, e), |b, x| if x.1 < b.1 { x } else { b });
    (p, e, bv, be, a.throughput(curve.f_max(bv)))
}

/// Evaluate one point: generate, map (all copies), and unless the chip is
/// exceeded simulate in steady state (`blocks` blocks in the longer run,
/// half of them in the window) with every block checked.
pub fn evaluate(p: &Params, blocks: usize) -> Result<Point, Error> {
    let platform = p.platform(&activity::platform());
    let d = generate(p).map_err(|e| Error::Design {
        design: p.label(),
        message: e.to_string(),
    })?;
    let (cores, comm_cores, exceeds_chip) = map_copies(&d, p.copies, &platform)?;
    let mut point = Point {
        params: *p,
        label: p.label(),
        paper: p.paper_engine().filter(|_| p.key == KeySize::Aes128),
        cores,
        comm_cores,
        exceeds_chip,
        metrics: None,
    };
    if exceeds_chip {
        return Ok(point);
    }
    let copies = p.copies.max(1) as usize;
    // The short run has n blocks per copy, the long one 2n: `blocks` in all.
    let il = p.interleave.max(1) as usize;
    let n = (blocks / 2 / copies / il).max(4) * il;
    let spec = RunSpec {
        design: d,
        engine: point.paper,
        expansion: p.expansion,
        copies,
        blocks: n,
    };
    let a = activity::run(&spec, &platform, None).map_err(|e| Error::Design {
        design: p.label(),
        message: e.to_string(),
    })?;
    let f = FmaxCurve::asap2().f_max(NOMINAL_VDD);
    let (power_w, e, best_vdd, best_e, best_bps) = energy(&a);
    let cpb = a.cycles_per_block();
    let bps = a.throughput(f);
    point.metrics = Some(Metrics {
        cycles_per_block: cpb,
        cycles_per_byte: cpb / 16.0,
        gbps: bps / 1e9,
        mbps_per_core: bps / 1e6 / cores as f64,
        power_w,
        nj_per_bit: e * 1e9,
        best_vdd,
        best_nj_per_bit: best_e * 1e9,
        best_gbps: best_bps / 1e9,
        verified: a.verified,
        blocks: 2 * n * copies,
    });
    Ok(point)
}

/// The points of the space for `key`, with points that build the same
/// design (a switch that changes nothing there) with the same copies and
/// dispatch shape kept once: the first in [`Params::enumerate`]'s order.
/// (The space offers the tree dispatch shape only where it changes the
/// mapping, so no two kept points map alike.)
///
/// A design's key is its `Debug` text with the name cleared: `Design` and
/// everything in it derive `Debug` and `Eq` and hold no floats, so two
/// designs have the same text exactly when they are equal.
pub fn distinct_points(key: KeySize) -> Vec<Params> {
    first_of_each(Params::enumerate(key).into_iter().filter_map(|p| {
        let mut d = generate(&p).ok()?;
        d.name.clear();
        Some((p, (format!("{d:?}"), p.copies, p.dispatch)))
    }))
}

/// The items of `(item, key)` pairs whose key has not been seen before, in
/// their order (expected O(n) with hashing).
pub(crate) fn first_of_each<T, K: Eq + Hash>(pairs: impl IntoIterator<Item = (T, K)>) -> Vec<T> {
    let mut seen = HashSet::new();
    pairs
        .into_iter()
        .filter_map(|(t, k)| seen.insert(k).then_some(t))
        .collect()
}

/// Evaluate many points on `jobs` threads (the energy study's
/// [`par_map`]); `tick` is called after each. Results are in the order of
/// `points`.
pub fn evaluate_all(
    points: &[Params],
    blocks: usize,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Vec<Result<Point, Error>> {
    par_map(points, jobs.max(1), &|_, _| tick(), |p| evaluate(p, blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `distinct_points` keeps what the quadratic scan it replaced kept,
    /// in the same order (labels as it gave them, AES-128).
    #[test]
    fn distinct_points_are_pinned() {
        let want = include_str!("../tests/data/distinct-points-aes128.txt");
        let got: Vec<String> = distinct_points(KeySize::Aes128)
            .iter()
            .map(Params::label)
            .collect();
        assert_eq!(got, want.lines().collect::<Vec<_>>());
    }

    /// The first of each key, in order, over many items with many repeats.
    #[test]
    fn first_of_each_keeps_first_occurrences_in_order() {
        let n = 200_000u64;
        // Keys repeat with period 7919 after a scramble; the first time a
        // key appears is in the first period.
        let key = |i: u64| (i % 7919).wrapping_mul(2_654_435_761) % 1_000_003;
        let got = first_of_each((0..n).map(|i| (i, key(i))));
        assert_eq!(got, (0..7919).collect::<Vec<u64>>());
        let got = first_of_each((0..n).rev().map(|i| (i, key(i))));
        assert_eq!(got, ((n - 7919)..n).rev().collect::<Vec<u64>>());
        assert!(first_of_each(std::iter::empty::<(u8, u8)>()).is_empty());
    }
}
