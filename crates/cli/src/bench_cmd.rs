//! `aesflow bench`: throughput beside OpenSSL and RustCrypto, measured in
//! the same run (see the `aesflow-bench` crate for the method), in three
//! sections: `kernels` (ECB/CTR of the AES kernels; the default, quick),
//! `modes` (multi-stream CBC, CBC decryption, CTR, GCM) and `engine` (the
//! host engine's thread scaling in memory and file encryption; slow).

use aesflow_bench::{
    BenchOptions, EngineOptions, ModesOptions, Op, Section, SuiteOptions, render_suite_json,
    render_suite_table, run_suite,
};
use aesflow_cipher::{KeyExpansion, KeySize};
use std::path::PathBuf;
use std::time::Duration;

const EXAMPLES: &str = "\
Sections:
  kernels  ECB enc/dec and CTR of the hardware kernels (default; ~10 s)
  modes    CBC encryption through the multi-stream engine (1..64 streams of
           16 KiB), CBC decryption, CTR and GCM per key size (~20 s)
  engine   256 MiB in memory with 1 thread and all threads (memcpy, CTR,
           GCM seal/open, Cobblestone) vs `openssl speed` on the same size,
           and a 1 GiB file: aesflow encrypt/decrypt vs `openssl enc
           -aes-256-ctr` and `cp` (~1 min)

Examples:
  aesflow bench                          # kernels, quick
  aesflow bench --full                   # kernels, full matrix
  aesflow bench --modes                  # modes only
  aesflow bench --engine --file-size 512 # engine only, 512 MiB file
  aesflow bench --all --json > bench.json
  aesflow bench --sections kernels,modes --keys 128";

/// Arguments of `aesflow bench`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXAMPLES)]
pub struct BenchArgs {
    /// Run the modes section (multi-stream CBC, CBC decryption, CTR, GCM).
    #[arg(long)]
    pub modes: bool,
    /// Run the engine section (threads in memory, file vs openssl enc; slow).
    #[arg(long)]
    pub engine: bool,
    /// Run every section (kernels, modes, engine).
    #[arg(long)]
    pub all: bool,
    /// Sections to run (comma-separated: kernels, modes, engine); default
    /// kernels, or what --modes/--engine/--all select.
    #[arg(long, value_delimiter = ',', value_name = "SECTIONS")]
    pub sections: Vec<String>,
    /// Kernels section: the full matrix: every available kernel, all key
    /// sizes, 64 B, 1 KiB, 16 KiB and 1 MiB (default: a quick run of the
    /// hardware kernels).
    #[arg(long)]
    pub full: bool,
    /// Kernels section: kernels to measure (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub kernels: Vec<String>,
    /// Key sizes in bits (comma-separated: 128,192,256); kernels section,
    /// and CBC decryption/CTR/GCM of the modes section.
    #[arg(long, value_delimiter = ',', value_name = "BITS")]
    pub keys: Vec<usize>,
    /// Kernels section: buffer sizes in bytes (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "BYTES")]
    pub sizes: Vec<usize>,
    /// Kernels section: operations (comma-separated: ecb-enc, ecb-dec, ctr).
    #[arg(long, value_delimiter = ',', value_name = "OPS")]
    pub ops: Vec<String>,
    /// Kernels section: also measure online key expansion.
    #[arg(long)]
    pub online: bool,
    /// Measuring time per configuration (kernels) or contender (modes), in
    /// milliseconds.
    #[arg(long, value_name = "MS")]
    pub time_ms: Option<u64>,
    /// Modes section: stream counts for multi-stream CBC encryption
    /// (comma-separated; default 1,2,4,8,16,32,64).
    #[arg(long, value_delimiter = ',', value_name = "COUNTS")]
    pub streams: Vec<usize>,
    /// Modes section: bytes per stream / message (default 16384).
    #[arg(long, value_name = "BYTES")]
    pub mode_size: Option<usize>,
    /// Engine section: file size in MiB (default 1024; 0 skips the file
    /// benchmark).
    #[arg(long, value_name = "MIB")]
    pub file_size: Option<u64>,
    /// Engine section: in-memory buffer in MiB (default 256; 0 skips it).
    #[arg(long, value_name = "MIB")]
    pub mem_size: Option<u64>,
    /// Engine section: threads of the "all threads" rows (default: all).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Engine section: repetitions (default 3): rounds of the in-memory
    /// benchmark, each with one run of every OpenSSL peer, and file runs.
    #[arg(long, value_name = "N")]
    pub reps: Option<usize>,
    /// Engine section: directory for the benchmark files (default: /dev/shm
    /// if writable, else the temporary directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Seconds per `openssl speed` run (default 1).
    #[arg(long, value_name = "S")]
    pub openssl_seconds: Option<u32>,
    /// Do not run OpenSSL as a peer.
    #[arg(long)]
    pub no_openssl: bool,
    /// Machine-readable output: one JSON document with every section run.
    #[arg(long)]
    pub json: bool,
}

/// The sections selected by the arguments, in report order.
pub fn sections(a: &BenchArgs) -> anyhow::Result<Vec<Section>> {
    let mut want: Vec<Section> = Vec::new();
    for s in &a.sections {
        if s.trim().eq_ignore_ascii_case("all") {
            want.extend(Section::ALL);
            continue;
        }
        want.push(Section::parse(s).ok_or_else(|| {
            anyhow::anyhow!("--sections: unknown section '{s}' (kernels, modes, engine, all)")
        })?);
    }
    if a.all {
        want.extend(Section::ALL);
    }
    if a.modes {
        want.push(Section::Modes);
    }
    if a.engine {
        want.push(Section::Engine);
    }
    if want.is_empty() {
        want.push(Section::Kernels);
    }
    Ok(Section::ALL
        .into_iter()
        .filter(|s| want.contains(s))
        .collect())
}

fn key_sizes(a: &BenchArgs) -> anyhow::Result<Vec<KeySize>> {
    a.keys
        .iter()
        .map(|&b| KeySize::from_bits(b).map_err(|e| anyhow::anyhow!("--keys: {e}")))
        .collect()
}

/// Options of the kernels section.
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
        o.key_sizes = key_sizes(a)?;
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
    if let Some(s) = a.openssl_seconds {
        o.openssl_seconds = s.max(1);
    }
    if a.no_openssl {
        o.peers.openssl = false;
    }
    o.json = a.json;
    Ok(o)
}

/// Options of the modes section.
pub fn modes_options(a: &BenchArgs) -> anyhow::Result<ModesOptions> {
    let mut o = ModesOptions::default();
    if !a.keys.is_empty() {
        o.key_sizes = key_sizes(a)?;
    }
    if !a.streams.is_empty() {
        if a.streams.contains(&0) {
            anyhow::bail!("--streams: a stream count must be at least 1");
        }
        o.streams = a.streams.clone();
    }
    if let Some(n) = a.mode_size {
        if n == 0 {
            anyhow::bail!("--mode-size: must be at least 1 byte");
        }
        o.size = n;
    }
    if let Some(ms) = a.time_ms {
        o.min_time = Duration::from_millis(ms.max(1));
    }
    if let Some(s) = a.openssl_seconds {
        o.openssl_seconds = s.max(1);
    }
    if a.no_openssl {
        o.peers.openssl = false;
    }
    Ok(o)
}

/// Options of the engine section.
pub fn engine_options(a: &BenchArgs) -> anyhow::Result<EngineOptions> {
    let mut o = EngineOptions::default();
    if let Some(m) = a.mem_size {
        o.mem_size = usize::try_from(m << 20)
            .map_err(|_| anyhow::anyhow!("--mem-size: too large for this machine"))?;
    }
    if let Some(m) = a.file_size {
        o.file_size = m << 20;
    }
    if o.mem_size == 0 && o.file_size == 0 {
        anyhow::bail!("--mem-size 0 and --file-size 0: nothing left to measure in the engine");
    }
    if let Some(t) = a.threads {
        o.threads = t;
    }
    if let Some(r) = a.reps {
        o.reps = r.max(1);
        o.file_reps = r.max(1);
    }
    if let Some(d) = &a.dir {
        o.dir = d.clone();
    }
    if let Some(s) = a.openssl_seconds {
        o.openssl_seconds = s.max(1);
    }
    if a.no_openssl {
        o.openssl = false;
    }
    Ok(o)
}

/// The suite the arguments ask for. Options of a section that is not run
/// are an error rather than silently ignored.
pub fn suite_options(a: &BenchArgs) -> anyhow::Result<SuiteOptions> {
    let secs = sections(a)?;
    let kernel_only = [
        ("--full", a.full),
        ("--kernels", !a.kernels.is_empty()),
        ("--sizes", !a.sizes.is_empty()),
        ("--ops", !a.ops.is_empty()),
        ("--online", a.online),
    ];
    let modes_only = [
        ("--streams", !a.streams.is_empty()),
        ("--mode-size", a.mode_size.is_some()),
    ];
    let engine_only = [
        ("--file-size", a.file_size.is_some()),
        ("--mem-size", a.mem_size.is_some()),
        ("--threads", a.threads.is_some()),
        ("--reps", a.reps.is_some()),
        ("--dir", a.dir.is_some()),
    ];
    for (sec, flags) in [
        (Section::Kernels, &kernel_only[..]),
        (Section::Modes, &modes_only[..]),
        (Section::Engine, &engine_only[..]),
    ] {
        if let Some((flag, _)) = flags.iter().find(|(_, given)| *given)
            && !secs.contains(&sec)
        {
            anyhow::bail!(
                "{flag} applies to the {} section, which is not selected (add --sections {} or --all)",
                sec.name(),
                secs.iter()
                    .chain([&sec])
                    .map(|s| s.name())
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
    }
    Ok(SuiteOptions {
        kernels: secs
            .contains(&Section::Kernels)
            .then(|| options(a))
            .transpose()?,
        modes: secs
            .contains(&Section::Modes)
            .then(|| modes_options(a))
            .transpose()?,
        engine: secs
            .contains(&Section::Engine)
            .then(|| engine_options(a))
            .transpose()?,
    })
}

pub fn run(a: BenchArgs) -> anyhow::Result<()> {
    let opts = suite_options(&a)?;
    let report = run_suite(&opts)?;
    if a.json {
        println!("{}", render_suite_json(&report));
    } else {
        print!("{}", render_suite_table(&report));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        a: BenchArgs,
    }

    fn parse(args: &[&str]) -> BenchArgs {
        T::try_parse_from(std::iter::once("bench").chain(args.iter().copied()))
            .unwrap()
            .a
    }

    #[test]
    fn default_is_kernels_only() {
        let o = suite_options(&parse(&[])).unwrap();
        assert!(o.kernels.is_some() && o.modes.is_none() && o.engine.is_none());
        let o = suite_options(&parse(&["--full", "--keys", "128", "--json"])).unwrap();
        assert_eq!(o.kernels.unwrap().key_sizes, vec![KeySize::Aes128]);
    }

    #[test]
    fn section_selectors() {
        let s = |args: &[&str]| sections(&parse(args)).unwrap();
        assert_eq!(s(&["--modes"]), vec![Section::Modes]);
        assert_eq!(
            s(&["--engine", "--modes"]),
            vec![Section::Modes, Section::Engine]
        );
        assert_eq!(s(&["--all"]), Section::ALL.to_vec());
        assert_eq!(
            s(&["--sections", "engine,kernels"]),
            vec![Section::Kernels, Section::Engine]
        );
        assert_eq!(s(&["--sections", "all"]), Section::ALL.to_vec());
        assert!(sections(&parse(&["--sections", "nope"])).is_err());
    }

    #[test]
    fn section_options() {
        let o = suite_options(&parse(&[
            "--engine",
            "--file-size",
            "512",
            "--mem-size",
            "64",
            "--threads",
            "2",
            "--no-openssl",
        ]))
        .unwrap();
        let e = o.engine.unwrap();
        assert_eq!(
            (e.file_size, e.mem_size, e.threads),
            (512 << 20, 64 << 20, 2)
        );
        assert!(!e.openssl && o.kernels.is_none());
        let o = suite_options(&parse(&["--modes", "--streams", "1,8", "--keys", "256"])).unwrap();
        let m = o.modes.unwrap();
        assert_eq!(m.streams, vec![1, 8]);
        assert_eq!(m.key_sizes, vec![KeySize::Aes256]);
    }

    #[test]
    fn flags_of_unselected_sections_are_errors() {
        let e = suite_options(&parse(&["--file-size", "10"])).unwrap_err();
        assert!(e.to_string().contains("--sections kernels,engine"), "{e}");
        assert!(suite_options(&parse(&["--modes", "--full"])).is_err());
        assert!(suite_options(&parse(&["--streams", "0", "--modes"])).is_err());
        assert!(suite_options(&parse(&["--all", "--full", "--file-size", "1"])).is_ok());
    }
}
