//! Table 2 of the paper beside the model: cycles per byte, cores,
//! communication cores and normalised throughput per core, with the
//! relative error of each cell.

use std::fmt::Write as _;
use std::time::Instant;

use aesflow_array::Platform;
use aesflow_cipher::{Aes, KeyExpansion, KeySize};

use crate::analysis::sdf_bound;
use crate::engines::Engine;
use crate::error::Error;
use crate::optimize::Optimisations;
use crate::run::{Expansion, build, run_design};

/// One row of the paper's Table 2 (AES-128).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperRow {
    /// Cycles per byte.
    pub cycles_per_byte: f64,
    /// Total cores (online, offline).
    pub cores: [usize; 2],
    /// Communication cores (online, offline).
    pub comm: [usize; 2],
    /// Throughput per core normalised to Parallel-MixColumns online
    /// (online, offline).
    pub tpc: [f64; 2],
    /// Online core count before the §5 optimisations, where the text gives
    /// it.
    pub pre_opt_online: Option<usize>,
}

/// The paper's figures (Table 2, §4, §5.1).
pub fn paper(e: Engine) -> PaperRow {
    let r = |cpb, c: [usize; 2], m: [usize; 2], t: [f64; 2], pre| PaperRow {
        cycles_per_byte: cpb,
        cores: c,
        comm: m,
        tpc: t,
        pre_opt_online: pre,
    };
    match e {
        Engine::Small => r(167.375, [8, 6], [0, 0], [1.53, 2.04], None),
        Engine::Otop => r(223.875, [9, 7], [0, 0], [1.01, 1.30], Some(10)),
        Engine::ParallelMixColumns => r(136.25, [15, 12], [3, 2], [1.0, 1.25], Some(16)),
        Engine::ParallelSubBytesMixColumns => r(84.375, [18, 15], [3, 2], [1.35, 1.61], Some(22)),
        Engine::LoopUnrolledThree => r(68.625, [23, 15], [0, 0], [1.29, 1.99], Some(24)),
        Engine::LoopUnrolledNine => r(16.625, [50, 30], [0, 0], [2.46, 4.10], Some(60)),
        Engine::NoMerge => r(9.5, [59, 39], [0, 0], [3.65, 5.52], None),
        Engine::FullParallelism => r(4.375, [137, 107], [30, 20], [3.41, 4.37], Some(164)),
    }
}

/// One engine measured on the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Engine.
    pub engine: Engine,
    /// Key expansion.
    pub expansion: Expansion,
    /// Key size.
    pub key: KeySize,
    /// Cores on the mesh after the optimisations.
    pub cores: usize,
    /// Communication cores (Merge + Dispatch).
    pub comm: usize,
    /// MergeCores.
    pub merges: usize,
    /// DispatchCores.
    pub dispatches: usize,
    /// Cores before the optimisations.
    pub pre_opt_cores: usize,
    /// Simulated steady-state cycles per block.
    pub cycles_per_block: f64,
    /// SDF bound in cycles per block, and its critical actors.
    pub sdf_cycles_per_block: f64,
    /// Critical actors of the SDF bound.
    pub sdf_critical: Vec<String>,
    /// Throughput per core normalised to Parallel-MixColumns online (same
    /// key size) on the model.
    pub tpc: f64,
    /// Every block encrypted bit-identically to the reference cipher.
    pub verified: bool,
    /// Blocks simulated.
    pub blocks: usize,
    /// Wall-clock seconds for the simulation.
    pub sim_seconds: f64,
    /// The mapping needs more tiles than AsAP2 has.
    pub exceeds_chip: bool,
}

impl Row {
    /// Cycles per byte.
    pub fn cycles_per_byte(&self) -> f64 {
        self.cycles_per_block / 16.0
    }
    /// The paper's row, for AES-128.
    pub fn paper(&self) -> Option<PaperRow> {
        (self.key == KeySize::Aes128).then(|| paper(self.engine))
    }
    /// Relative error of the cycles per byte against the paper.
    pub fn cpb_error(&self) -> Option<f64> {
        self.paper()
            .map(|p| self.cycles_per_byte() / p.cycles_per_byte - 1.0)
    }
    /// 0 online, 1 offline (the paper's column).
    pub fn xi(&self) -> usize {
        match self.expansion {
            Expansion::Online => 0,
            Expansion::Offline => 1,
        }
    }
    /// Relative error of the throughput per core.
    pub fn tpc_error(&self) -> Option<f64> {
        self.paper().map(|p| self.tpc / p.tpc[self.xi()] - 1.0)
    }
    /// Paper's total cores.
    pub fn paper_cores(&self) -> Option<usize> {
        self.paper().map(|p| p.cores[self.xi()])
    }
    /// Paper's communication cores.
    pub fn paper_comm(&self) -> Option<usize> {
        self.paper().map(|p| p.comm[self.xi()])
    }
}

/// A deterministic pseudo-random block stream and key.
pub fn test_blocks(n: usize, seed: u64) -> Vec<[u8; 16]> {
    let mut x = seed ^ 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            let mut b = [0u8; 16];
            for chunk in b.chunks_mut(8) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
            }
            b
        })
        .collect()
}

/// The FIPS-197 Appendix C key of the given size (00 01 02 …).
pub fn fips_key(key: KeySize) -> Vec<u8> {
    (0..key.bytes() as u8).collect()
}

/// Measure one engine.
pub fn measure(
    engine: Engine,
    key: KeySize,
    exp: Expansion,
    opt: Optimisations,
    blocks: usize,
    platform: &Platform,
) -> Result<Row, Error> {
    let d = build(engine, key, exp, opt);
    let pre = build(engine, key, exp, Optimisations::NONE);
    let k = fips_key(key);
    let pts = test_blocks(blocks, 0x5eed);
    let t0 = Instant::now();
    let r = run_design(&d, &k, &pts, platform)?;
    let secs = t0.elapsed().as_secs_f64();
    let aes =
        Aes::with_kernel_name(&k, "reference", KeyExpansion::Offline).map_err(|e| Error::Key {
            design: d.name.clone(),
            message: e.to_string(),
        })?;
    let verified = r.ciphertext.len() == pts.len()
        && r.ciphertext.iter().zip(&pts).all(|(c, p)| {
            let mut q = *p;
            aes.encrypt_block(&mut q);
            q == *c
        });
    let pre_cores = crate::run::map_design(&pre, &k, platform)?.total_cores();
    let (sdf, crit) = sdf_bound(&d)?;
    Ok(Row {
        engine,
        expansion: exp,
        key,
        cores: r.mapping.total_cores(),
        comm: r.mapping.comm_cores(),
        merges: r.mapping.merge_cores(),
        dispatches: r.mapping.dispatch_cores(),
        pre_opt_cores: pre_cores,
        cycles_per_block: r.cycles_per_block,
        sdf_cycles_per_block: sdf,
        sdf_critical: crit,
        tpc: 0.0,
        verified,
        blocks,
        sim_seconds: secs,
        exceeds_chip: r.mapping.exceeds_chip,
    })
}

/// All 16 engines for a key size (online then offline per engine), with
/// throughput per core normalised to Parallel-MixColumns online.
pub fn table2(key: KeySize, blocks: usize, platform: &Platform) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for e in Engine::ALL {
        for x in Expansion::ALL {
            rows.push(measure(e, key, x, Optimisations::ALL, blocks, platform)?);
        }
    }
    normalise(&mut rows);
    Ok(rows)
}

/// Fill in [`Row::tpc`] relative to Parallel-MixColumns online.
pub fn normalise(rows: &mut [Row]) {
    let tp = |r: &Row| 1.0 / r.cycles_per_block / r.cores as f64;
    let base = rows
        .iter()
        .find(|r| r.engine == Engine::ParallelMixColumns && r.expansion == Expansion::Online)
        .map(tp);
    for r in rows.iter_mut() {
        r.tpc = base.map(|b| tp(r) / b).unwrap_or(f64::NAN);
    }
}

/// A JSON string literal for `s` (quotes, backslashes and control
/// characters escaped). Kept only for `aesflow-energy`'s JSON report until
/// it moves to serde; this crate writes its JSON with serde.
pub fn jstr(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A JSON number for `x`, or `null` when it is not finite.
pub fn jnum(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

/// One row as JSON (field names kept from the earlier hand-written form).
#[derive(serde::Serialize)]
struct RowJson<'a> {
    engine: &'static str,
    slug: &'static str,
    expansion: &'static str,
    key_bits: usize,
    cycles_per_block: Option<f64>,
    cycles_per_byte: Option<f64>,
    paper_cycles_per_byte: Option<f64>,
    cycles_per_byte_error: Option<f64>,
    cores: usize,
    paper_cores: Option<usize>,
    pre_opt_cores: usize,
    paper_pre_opt_cores: Option<usize>,
    comm_cores: usize,
    merge_cores: usize,
    dispatch_cores: usize,
    paper_comm_cores: Option<usize>,
    throughput_per_core: Option<f64>,
    paper_throughput_per_core: Option<f64>,
    throughput_per_core_error: Option<f64>,
    sdf_cycles_per_block: Option<f64>,
    sdf_critical: &'a [String],
    verified: bool,
    blocks: usize,
    exceeds_chip: bool,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Rows as a JSON array.
pub fn to_json(rows: &[Row]) -> String {
    let v: Vec<RowJson> = rows
        .iter()
        .map(|r| {
            let p = r.paper();
            RowJson {
                engine: r.engine.name(),
                slug: r.engine.slug(),
                expansion: r.expansion.name(),
                key_bits: r.key.bits(),
                cycles_per_block: finite(r.cycles_per_block),
                cycles_per_byte: finite(r.cycles_per_byte()),
                paper_cycles_per_byte: p.map(|p| p.cycles_per_byte),
                cycles_per_byte_error: r.cpb_error().and_then(finite),
                cores: r.cores,
                paper_cores: r.paper_cores(),
                pre_opt_cores: r.pre_opt_cores,
                paper_pre_opt_cores: p.and_then(|p| {
                    (r.expansion == Expansion::Online)
                        .then_some(p.pre_opt_online)
                        .flatten()
                }),
                comm_cores: r.comm,
                merge_cores: r.merges,
                dispatch_cores: r.dispatches,
                paper_comm_cores: r.paper_comm(),
                throughput_per_core: finite(r.tpc),
                paper_throughput_per_core: p.map(|p| p.tpc[r.xi()]),
                throughput_per_core_error: r.tpc_error().and_then(finite),
                sdf_cycles_per_block: finite(r.sdf_cycles_per_block),
                sdf_critical: &r.sdf_critical,
                verified: r.verified,
                blocks: r.blocks,
                exceeds_chip: r.exceeds_chip,
            }
        })
        .collect();
    serde_json::to_string_pretty(&v).unwrap_or_else(|_| "[]".into()) + "\n"
}
