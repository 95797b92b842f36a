//! `aesflow energy`: power, energy, per-core DVFS, scaling by duplication and
//! the platform comparison of the many-core engines, computed from the
//! simulator's per-core activity (Liu & Baas §5–7, Tables 3–5, Figs. 12–15;
//! the talk's DVFS), printed beside the paper's figures with the error of
//! each, and drawn as SVG charts.

use std::path::PathBuf;

use aesflow_cipher::KeySize;
use aesflow_energy::report::{format_text, headline as headline_text, to_json, write_charts};
use aesflow_energy::{Options, study};

/// Arguments of `aesflow energy`.
#[derive(clap::Args, Debug)]
pub struct EnergyArgs {
    /// Machine-readable output (JSON) instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Folder for the SVG charts (Figs. 12, 14, 15 and the DVFS savings).
    #[arg(long, value_name = "DIR", default_value = "energy-charts")]
    pub charts: PathBuf,
    /// Do not write the charts.
    #[arg(long)]
    pub no_charts: bool,
    /// Key size in bits: 128, 192 or 256 (the paper's figures are for 128).
    #[arg(long, default_value_t = 128)]
    pub key: usize,
    /// Steady-state blocks simulated per engine (and per copy).
    #[arg(long, default_value_t = 256)]
    pub blocks: usize,
    /// Skip the live host measurement (the Table 5 row of this machine).
    #[arg(long)]
    pub no_host: bool,
}

impl Default for EnergyArgs {
    fn default() -> Self {
        EnergyArgs {
            json: false,
            charts: PathBuf::from("energy-charts"),
            no_charts: false,
            key: 128,
            blocks: 256,
            no_host: false,
        }
    }
}

fn options(a: &EnergyArgs) -> anyhow::Result<Options> {
    Ok(Options {
        blocks: a.blocks.max(8),
        key: KeySize::from_bits(a.key).map_err(|e| anyhow::anyhow!("--key: {e}"))?,
        host: !a.no_host,
        threads: 0,
    })
}

/// Run `aesflow energy`.
pub fn run(a: EnergyArgs) -> anyhow::Result<()> {
    let s = study(&options(&a)?).map_err(anyhow::Error::msg)?;
    if a.json {
        print!("{}", to_json(&s));
    } else {
        print!("{}", format_text(&s));
    }
    if !a.no_charts {
        let written = write_charts(&s, &a.charts)?;
        for p in written {
            eprintln!("wrote {}", p.display());
        }
    }
    Ok(())
}

/// The headline lines for `demo` (paper vs model, with errors).
pub fn headline() -> anyhow::Result<String> {
    let s = study(&Options::default()).map_err(anyhow::Error::msg)?;
    Ok(headline_text(&s))
}
