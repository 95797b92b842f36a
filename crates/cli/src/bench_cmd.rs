//! `aesflow bench`: kernel throughput beside OpenSSL and RustCrypto, measured
//! in the same run (see the `aesflow-bench` crate for the method).

use aesflow_bench::{BenchOptions, Op, render_json, render_table, run as run_bench};
use aesflow_cipher::{KeyExpansion, KeySize};
use std::time::Duration;

/// Arguments of `aesflow bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The full matrix: every available kernel, all key sizes, 64 B, 1 KiB,
    /// 16 KiB and 1 MiB (the default is a quick run of the hardware kernels).
    #[arg(long)]
    pub full: bool,
    /// Kernels to measure (comma-separated names; default: see --full).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub kernels: Vec<String>,
    /// Key sizes in bits (comma-separated: 128,192,256).
    #[arg(long, value_delimiter = ',', value_name = "BITS")]
    pub keys: Vec<usize>,
    /// Buffer sizes in bytes (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "BYTES")]
    pub sizes: Vec<usize>,
    /// Operations (comma-separated: ecb-enc, ecb-dec, ctr).
    #[arg(long, value_delimiter = ',', value_name = "OPS")]
    pub ops: Vec<String>,
    /// Also measure online key expansion.
    #[arg(long)]
    pub online: bool,
    /// Measuring time per configuration, in milliseconds.
    #[arg(long, value_name = "MS")]
    pub time_ms: Option<u64>,
    /// Do not run `openssl speed` as a peer.
    #[arg(long)]
    pub no_openssl: bool,
    /// Machine-readable output (JSON).
    #[arg(long)]
    pub json: bool,
}

/// Build the harness options from the arguments.
pub fn options(a: &BenchArgs) -> anyhow::Result<BenchOptions> {
    let mut o = if a.full {
        BenchOptions::default()
    } else {
        BenchOptions::quick()
    };
    if !a.kernels.is_empty() {
        o.kernels = a.kernels.clone();
    }
    if !a.keys.is_empty() {
        o.key_sizes = a
            .keys
            .iter()
            .map(|&b| KeySize::from_bits(b).map_err(|e| anyhow::anyhow!("--keys: {e}")))
            .collect::<anyhow::Result<_>>()?;
    }
    if !a.sizes.is_empty() {
        if a.sizes.contains(&0) {
            anyhow::bail!("--sizes: a buffer size must be at least 1 byte");
        }
        o.sizes = a.sizes.clone();
    }
    if !a.ops.is_empty() {
        o.ops = a
            .ops
            .iter()
            .map(|s| {
                Op::parse(s).ok_or_else(|| {
                    anyhow::anyhow!("--ops: unknown operation '{s}' (ecb-enc, ecb-dec, ctr)")
                })
            })
            .collect::<anyhow::Result<_>>()?;
    }
    if a.online {
        o.styles = KeyExpansion::ALL.to_vec();
    }
    if let Some(ms) = a.time_ms {
        o.min_time = Duration::from_millis(ms.max(1));
    }
    if a.no_openssl {
        o.peers.openssl = false;
    }
    o.json = a.json;
    Ok(o)
}

pub fn run(a: BenchArgs) -> anyhow::Result<()> {
    let opts = options(&a)?;
    let report = run_bench(&opts)?;
    if a.json {
        println!("{}", render_json(&report));
    } else {
        print!("{}", render_table(&report));
    }
    Ok(())
}
