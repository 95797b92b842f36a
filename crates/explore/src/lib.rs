//! # aesflow-explore: the design space of many-core AES engines
//!
//! Liu & Baas (*Parallel AES Encryption Engines for Many-Core Processor
//! Arrays*, IEEE Transactions on Computers, 2013) built eight designs by
//! hand (§4), measured them (Table 2, §6) and sketched the moves between
//! them: loop unrolling, splitting SubBytes (16, 4 or 1 bytes per core:
//! SubBytes-16, -4, -1) and MixColumns (16 or 4) over cores, fusing steps,
//! avoiding communication cores, online or offline key expansion,
//! duplicating engines (§5.2, Fig. 12), longer keys (§4.9); and one choice
//! of the mapping the paper leaves open: where a core needs several
//! DispatchCores, a chain or a balanced tree of them. This
//! crate generates every design those moves reach
//! ([`aesflow_designs::space`]), maps each on the AsAP2 model with
//! automatic MergeCores and DispatchCores, simulates it in steady state with
//! every block checked against the reference cipher, and measures cycles
//! per byte, cores, throughput per core, and with the power model of
//! `aesflow-energy` (Table 3, §6) power and energy per bit at 1.3 V and at
//! the supply that minimises energy per bit. Over the designs that fit the
//! 164-core chip it computes two Pareto fronts — throughput against cores,
//! throughput against energy per bit (both at 1.3 V) — and says for each
//! of the paper's designs whether it lies on the front of the designs with
//! its key expansion (online or offline: like for like) or which generated
//! design dominates it, and by how much.
//!
//! * [`eval`] — one point: generate, map, simulate, verify, measure;
//! * [`pareto`] — fronts and dominance;
//! * [`chart`] — the scatter charts (drawn by `aesflow-energy`'s chart module).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod chart;
pub mod eval;
pub mod pareto;

use aesflow_cipher::KeySize;
use serde::Serialize;

pub use eval::{Metrics, Point, distinct_points, evaluate, evaluate_all};
pub use pareto::{Standing, front, standing};

/// Errors of the exploration, with the design they concern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A design could not be built, mapped or simulated.
    Design {
        /// The design's label.
        design: String,
        /// What went wrong.
        message: String,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Design { design, message } => write!(f, "design {design}: {message}"),
        }
    }
}

impl std::error::Error for Error {}

/// Which front.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Throughput against cores.
    Cores,
    /// Throughput against energy per bit at 1.3 V.
    Energy,
}

impl Axis {
    /// `(throughput, cost)` of a feasible point.
    pub fn objectives(self, p: &Point) -> Option<(f64, f64)> {
        let m = p.metrics.as_ref().filter(|_| p.feasible())?;
        Some(match self {
            Axis::Cores => (m.gbps, p.cores as f64),
            Axis::Energy => (m.gbps, m.nj_per_bit),
        })
    }
}

/// Where one of the paper's designs stands, among the designs with the
/// same key expansion.
#[derive(Clone, Debug, Serialize)]
pub struct PaperStanding {
    /// Index of its point.
    pub point: usize,
    /// On the (throughput, cores) front or dominated (`by` is a point index).
    pub cores: Standing,
    /// On the (throughput, energy per bit) front or dominated.
    pub energy: Standing,
}

/// A whole exploration.
#[derive(Clone, Debug, Serialize)]
pub struct Exploration {
    /// Key size in bits.
    pub key_bits: usize,
    /// Blocks simulated per design (the longer run).
    pub blocks: usize,
    /// Every evaluated design.
    pub points: Vec<Point>,
    /// Designs that failed, with the error (none expected).
    pub failed: Vec<String>,
    /// The (throughput, cores) front: point indices by increasing cores.
    pub front_cores: Vec<usize>,
    /// The (throughput, energy per bit) front, by increasing energy.
    pub front_energy: Vec<usize>,
    /// The paper's designs.
    pub paper: Vec<PaperStanding>,
}

/// The front over `axis` as indices into `points`.
pub fn front_of(points: &[Point], axis: Axis) -> Vec<usize> {
    let (idx, obj): (Vec<usize>, Vec<(f64, f64)>) = points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| axis.objectives(p).map(|o| (i, o)))
        .unzip();
    front(&obj).into_iter().map(|k| idx[k]).collect()
}

/// The standing of point `i` among the designs with the same key expansion
/// (an offline design cannot change keys per block: comparing it with an
/// online one would not be like for like).
fn standing_of(points: &[Point], i: usize, axis: Axis) -> Standing {
    let x = points[i].params.expansion;
    let (idx, obj): (Vec<usize>, Vec<(f64, f64)>) = points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.params.expansion == x)
        .filter_map(|(i, p)| axis.objectives(p).map(|o| (i, o)))
        .unzip();
    let Some(me) = axis.objectives(&points[i]) else {
        return Standing::OnFront;
    };
    match standing(&me, &obj) {
        Standing::Dominated {
            by,
            throughput_ratio,
            cost_ratio,
        } => Standing::Dominated {
            by: idx[by],
            throughput_ratio,
            cost_ratio,
        },
        s => s,
    }
}

/// Fronts and standings of evaluated points.
pub fn analyse(
    key: KeySize,
    blocks: usize,
    points: Vec<Point>,
    failed: Vec<String>,
) -> Exploration {
    let front_cores = front_of(&points, Axis::Cores);
    let front_energy = front_of(&points, Axis::Energy);
    let paper = (0..points.len())
        .filter(|&i| points[i].paper.is_some())
        .map(|i| PaperStanding {
            point: i,
            cores: standing_of(&points, i, Axis::Cores),
            energy: standing_of(&points, i, Axis::Energy),
        })
        .collect();
    Exploration {
        key_bits: key.bits(),
        blocks,
        points,
        failed,
        front_cores,
        front_energy,
        paper,
    }
}

/// Generate, evaluate (on `jobs` threads, `tick` after each design) and
/// analyse the whole space for `key`.
pub fn explore(key: KeySize, blocks: usize, jobs: usize, tick: &(dyn Fn() + Sync)) -> Exploration {
    let params = distinct_points(key);
    run_points(key, &params, blocks, jobs, tick)
}

/// [`explore`] over given points.
pub fn run_points(
    key: KeySize,
    params: &[aesflow_designs::space::Params],
    blocks: usize,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Exploration {
    let mut points = Vec::new();
    let mut failed = Vec::new();
    for r in evaluate_all(params, blocks, jobs, tick) {
        match r {
            Ok(p) => points.push(p),
            Err(e) => failed.push(e.to_string()),
        }
    }
    analyse(key, blocks, points, failed)
}

impl Exploration {
    /// The exploration as a JSON document.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The two charts: throughput vs cores, energy per bit vs throughput.
    pub fn charts(&self) -> [chart::Scatter; 2] {
        let feasible: Vec<&Point> = self.points.iter().filter(|p| p.feasible()).collect();
        let label = |p: &Point| {
            p.paper
                .map(|e| format!("{} {}", e.slug(), &p.params.expansion.name()[..3]))
        };
        let m = |p: &Point| p.metrics.clone().unwrap_or_else(|| unreachable!());
        let cores = chart::Scatter {
            title: format!(
                "AES-{}: throughput vs cores, {} designs on the AsAP2 model (1.3 V)",
                self.key_bits,
                feasible.len()
            ),
            xlabel: "cores".into(),
            ylabel: "throughput (Gbit/s)".into(),
            dots: feasible
                .iter()
                .map(|p| chart::Dot {
                    x: p.cores as f64,
                    y: m(p).gbps,
                    label: label(p),
                })
                .collect(),
            front: staircase(
                self.front_cores
                    .iter()
                    .map(|&i| (self.points[i].cores as f64, m(&self.points[i]).gbps)),
                true,
            ),
        };
        let energy = chart::Scatter {
            title: format!(
                "AES-{}: energy per bit vs throughput, {} designs (1.3 V, 1.2 GHz)",
                self.key_bits,
                feasible.len()
            ),
            xlabel: "throughput (Gbit/s)".into(),
            ylabel: "energy per bit (nJ/bit)".into(),
            dots: feasible
                .iter()
                .map(|p| chart::Dot {
                    x: m(p).gbps,
                    y: m(p).nj_per_bit,
                    label: label(p),
                })
                .collect(),
            front: staircase(
                self.front_energy.iter().map(|&i| {
                    let q = m(&self.points[i]);
                    (q.gbps, q.nj_per_bit)
                }),
                false,
            ),
        };
        [cores, energy]
    }
}

/// A front as a staircase through its points (in the given order): the
/// region it bounds is what the front's points dominate.
fn staircase(pts: impl Iterator<Item = (f64, f64)>, x_first: bool) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (x, y) in pts {
        if let Some(&(px, py)) = out.last() {
            out.push(if x_first { (x, py) } else { (px, y) });
        }
        out.push((x, y));
    }
    out
}
