//! Build, map and simulate an engine.

use std::sync::Arc;

use aesflow_array::{Mapping, Platform, SimResult, map, simulate};
use aesflow_cipher::KeySize;

use crate::compile::compile;
use crate::engines::Engine;
use crate::error::Error;
use crate::graph::Design;
use crate::optimize::{Optimisations, optimise, to_offline};

/// Online or offline key expansion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Expansion {
    /// Round keys computed for every block by key-expansion cores.
    Online,
    /// Round keys computed once and stored in the AddRoundKey cores.
    Offline,
}

impl Expansion {
    /// Both, online first (Table 2's column order).
    pub const ALL: [Expansion; 2] = [Expansion::Online, Expansion::Offline];
    /// `online` / `offline`.
    pub fn name(self) -> &'static str {
        match self {
            Expansion::Online => "online",
            Expansion::Offline => "offline",
        }
    }
}

/// Build an engine's design: the base graph, the chosen optimisations,
/// then (offline) the key-expansion cores removed.
pub fn build(engine: Engine, key: KeySize, exp: Expansion, opt: Optimisations) -> Design {
    finish_design(engine.base_design(key), exp, opt)
}

/// Apply optimisations and the expansion style to any base design.
pub fn finish_design(mut d: Design, exp: Expansion, opt: Optimisations) -> Design {
    crate::optimize::sort_edges(&mut d);
    optimise(&mut d, opt);
    if exp == Expansion::Offline {
        to_offline(&mut d);
    }
    d
}

/// Result of running a design on the array.
#[derive(Debug)]
pub struct Run {
    /// The mapping (behaviours consumed).
    pub mapping: Mapping,
    /// Simulator output.
    pub sim: SimResult,
    /// Ciphertext blocks in output order.
    pub ciphertext: Vec<[u8; 16]>,
    /// Steady-state cycles per block.
    pub cycles_per_block: f64,
}

impl Run {
    /// Cycles per byte.
    pub fn cycles_per_byte(&self) -> f64 {
        self.cycles_per_block / 16.0
    }
    /// Throughput in Gbit/s at the platform clock.
    pub fn gbps(&self, platform: &Platform) -> f64 {
        128.0 * platform.clock_hz / self.cycles_per_block / 1e9
    }
}

/// Map a design.
pub fn map_design(d: &Design, key: &[u8], platform: &Platform) -> Result<Mapping, Error> {
    let c = compile(d, key, Arc::new(vec![[0u8; 16]]), platform)?;
    map(c.app, platform).map_err(|source| Error::Map {
        design: d.name.clone(),
        source,
    })
}

/// Map and simulate `d` encrypting `blocks` (rounded up to the interleave).
pub fn run_design(
    d: &Design,
    key: &[u8],
    blocks: &[[u8; 16]],
    platform: &Platform,
) -> Result<Run, Error> {
    let c = compile(d, key, Arc::new(blocks.to_vec()), platform)?;
    let b = u64::from(c.interleave);
    let out = c.output.clone();
    let mut mapping = map(c.app, platform).map_err(|source| Error::Map {
        design: d.name.clone(),
        source,
    })?;
    let periods = (blocks.len() as u64).div_ceil(b);
    let sim = simulate(&mut mapping, platform, periods);
    sim.check(&mapping).map_err(|source| Error::Sim {
        design: d.name.clone(),
        source,
    })?;
    let mut ciphertext = out
        .lock()
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default();
    ciphertext.truncate(blocks.len());
    let cycles_per_block = sim.cycles_per_block().unwrap_or(f64::NAN);
    for c in mapping.cores.iter_mut() {
        c.behavior = None;
    }
    Ok(Run {
        mapping,
        sim,
        ciphertext,
        cycles_per_block,
    })
}
