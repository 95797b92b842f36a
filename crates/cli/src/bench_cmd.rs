//! `aesflow bench`: throughput beside RustCrypto, OpenSSL and (built with
//! the `ipsec-mb` feature) Intel ipsec-mb, measured in the same run (see the
//! `aesflow-bench` crate for the method), in three sections: `kernels`
//! (ECB/CTR of the AES kernels; the default, quick), `modes` (multi-stream
//! CBC, CBC decryption, CTR, GCM seal/open) and `engine` (the host engine's
//! thread scaling in memory and file encryption; slow).

use crate::args::KeySizeArg;
use aesflow_bench::{
    BenchOptions, EngineOptions, GatewayOptions, Measuring, ModeOp, ModesOptions, Op, Section,
    SuiteOptions, render_suite_json, run_suite,
};
use aesflow_cipher::KeySize;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

mod text;
pub(crate) use text::render_report;
use text::render_suite_table;

const EXAMPLES: &str = "\
Sections:
  kernels  ECB enc/dec and CTR of the hardware kernels (default; ~10 s)
  modes    CBC encryption through the multi-stream engine (1..64 streams of
           16 KiB), CBC decryption, CTR, GCM seal and open, XTS per key
           size (~40 s); --gateway adds (or alone, runs only) the VPN
           gateway rows: an IMIX packet mix (7:4:1 of 64/576/1500 B) over
           1000 tunnels with their own keys, CBC through the multi-stream
           queue and GCM per packet, vs ipsec-mb's job API (~5 s)
  engine   256 MiB in memory with 1 thread and all threads (memcpy, CTR, GCM
           seal/open, Cobblestone seal/open, 64-stream CBC) vs `openssl
           speed` on the same size, and a 1 GiB file: aesflow encrypt/decrypt
           vs `openssl enc -aes-256-ctr` and `cp` (~1 min)

Peers: RC = RustCrypto aes 0.8 generation, RC9 = aes 0.9 generation,
OSSL = OpenSSL, MB = Intel ipsec-mb (build with --features ipsec-mb).
With AESFLOW_KERNEL=aesni, ipsec-mb runs its SSE (AES-NI only) manager.

Examples:
  aesflow bench                              # kernels, quick
  aesflow bench --all --json > bench.json    # every section, full size
  aesflow bench --modes --key-size 128,256
  aesflow bench --engine --file-size 512     # engine only, 512 MiB file
  aesflow bench --gateway --tunnels 1000     # IMIX over 1000 tunnels, CBC and GCM
  aesflow bench --sections kernels,modes --mode-ops gcm-seal,gcm-open";

/// The parser of a comma-separated option whose values are one of a bench
/// enum's `all` names (`--sections`, `--ops`, `--mode-ops`).
fn one_of<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(all.iter().map(|&v| name(v))).map(move |s| {
        *all.iter()
            .find(|&&v| name(v) == s)
            .expect("clap accepts only the possible values")
    })
}

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
    /// Run the gateway rows of the modes section: a packet mix over many
    /// tunnels with their own keys, CBC through the multi-stream queue and
    /// GCM per packet, beside ipsec-mb's job API (only these rows unless
    /// --modes or --all asks for the whole section).
    #[arg(long)]
    pub gateway: bool,
    /// Gateway rows: tunnels, each with its own key (default 1000).
    #[arg(long, value_name = "N", value_parser = count)]
    pub tunnels: Option<usize>,
    /// Gateway rows: packets per pass (default 4096).
    #[arg(long, value_name = "N", value_parser = count)]
    pub packets: Option<usize>,
    /// Gateway rows: packet lengths as WEIGHT:BYTES,... (default the simple
    /// IMIX, 7:64,4:576,1:1500).
    #[arg(long, value_name = "MIX", value_parser = aesflow_bench::Mix::parse)]
    pub mix: Option<aesflow_bench::Mix>,
    /// Gateway rows: pending packets at which the multi-stream queue runs a
    /// batch, and the burst of the engine-only row (default 128).
    #[arg(long, value_name = "N", value_parser = count)]
    pub queue_capacity: Option<usize>,
    /// Run every section, the kernels section with its full matrix (every
    /// available kernel, all key sizes, 64 B to 1 MiB).
    #[arg(long)]
    pub all: bool,
    /// Sections to run (default: kernels, or what --modes/--engine/--all
    /// select).
    #[arg(long, value_delimiter = ',', value_name = "SECTIONS",
          value_parser = one_of(&Section::ALL, Section::name))]
    pub sections: Vec<Section>,
    /// Kernels section: kernels to measure (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub kernels: Vec<String>,
    /// Key sizes in bits: kernels section, and every operation of the modes
    /// section (without it, multi-stream CBC encryption runs AES-128 only).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "BITS")]
    pub key_size: Vec<KeySizeArg>,
    /// Kernels section: buffer sizes in bytes (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "BYTES")]
    pub sizes: Vec<usize>,
    /// Kernels section: operations.
    #[arg(long, value_delimiter = ',', value_name = "OPS",
          value_parser = one_of(&Op::ALL, Op::name))]
    pub ops: Vec<Op>,
    /// Modes section: operations.
    #[arg(long, value_delimiter = ',', value_name = "OPS",
          value_parser = one_of(&ModeOp::ALL, ModeOp::name))]
    pub mode_ops: Vec<ModeOp>,
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
    /// Modes section: allocate each multi-stream buffer (aesflow's and
    /// ipsec-mb's) this many bytes longer than its data (default 0). With
    /// 0, malloc puts consecutive 16 KiB buffers 16 bytes past multiples of
    /// 4 KiB apart, so four streams share each L1 set; 64 spreads them.
    #[arg(long, value_name = "BYTES")]
    pub buffer_slack: Option<usize>,
    /// Modes section: XTS data units of this many bytes (16 up to the
    /// message size; default: each message is one unit, as a disk sector
    /// of `--mode-size`).
    #[arg(long, value_name = "BYTES")]
    pub xts_unit: Option<usize>,
    /// Modes section: run these plan variants in the default rows instead
    /// of the plan in force (`aesflow kernels` lists the plan; e.g.
    /// `--variant groups16,lanes16`); the other variants of each operation
    /// are still measured beside them.
    #[arg(long, value_delimiter = ',', value_name = "NAMES", value_parser = parse_variant)]
    pub variant: Vec<aesflow_plan::Variant>,
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
    /// benchmark, each with one run of every peer, and file runs.
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
    /// Do not run ipsec-mb as a peer (when built in).
    #[arg(long)]
    pub no_ipsec_mb: bool,
    /// Machine-readable output: one JSON document with every section run.
    #[arg(long)]
    pub json: bool,
}

/// The sections selected by the arguments, in report order.
pub fn sections(a: &BenchArgs) -> Vec<Section> {
    let mut want: Vec<Section> = a.sections.clone();
    if a.all {
        want.extend(Section::ALL);
    }
    if a.modes || a.gateway {
        want.push(Section::Modes);
    }
    if a.engine {
        want.push(Section::Engine);
    }
    if want.is_empty() {
        want.push(Section::Kernels);
    }
    Section::ALL
        .into_iter()
        .filter(|s| want.contains(s))
        .collect()
}

fn key_sizes(a: &BenchArgs) -> Vec<KeySize> {
    a.key_size.iter().map(|&k| k.into()).collect()
}

/// `--openssl-seconds` (at least 1), `--no-openssl` and `--no-ipsec-mb`
/// into a section's options.
fn peer_options(a: &BenchArgs, openssl_seconds: &mut u32, openssl: &mut bool, ipsec_mb: &mut bool) {
    if let Some(s) = a.openssl_seconds {
        *openssl_seconds = s.max(1);
    }
    *openssl &= !a.no_openssl;
    *ipsec_mb &= !a.no_ipsec_mb;
}

/// `--time-ms` (at least 1) and the peer flags into the kernels or modes
/// section's options.
fn measuring_options(a: &BenchArgs, m: &mut Measuring) {
    if let Some(ms) = a.time_ms {
        m.min_time = Duration::from_millis(ms.max(1));
    }
    let p = &mut m.peers;
    peer_options(a, &mut m.openssl_seconds, &mut p.openssl, &mut p.ipsec_mb);
}

/// Options of the kernels section.
pub fn options(a: &BenchArgs) -> anyhow::Result<BenchOptions> {
    let mut o = if a.all {
        BenchOptions::default()
    } else {
        BenchOptions::quick()
    };
    if !a.kernels.is_empty() {
        o.kernels = a.kernels.clone();
    }
    if !a.key_size.is_empty() {
        o.key_sizes = key_sizes(a);
    }
    if !a.sizes.is_empty() {
        if a.sizes.contains(&0) {
            return Err(crate::exit::usage(
                "--sizes: a buffer size must be at least 1 byte",
            ));
        }
        o.sizes = a.sizes.clone();
    }
    if !a.ops.is_empty() {
        o.ops = a.ops.clone();
    }
    if a.online {
        o.styles = aesflow_cipher::KeyExpansion::ALL.to_vec();
    }
    measuring_options(a, &mut o.measuring);
    Ok(o)
}

/// Options of the modes section.
pub fn modes_options(a: &BenchArgs) -> anyhow::Result<ModesOptions> {
    let mut o = ModesOptions {
        kernel: aesflow_cipher::default_kernel()?,
        ..ModesOptions::default()
    };
    if !a.key_size.is_empty() {
        o.key_sizes = key_sizes(a);
        o.cbc_enc_keys = key_sizes(a);
    }
    if !a.mode_ops.is_empty() {
        o.ops = a.mode_ops.clone();
    }
    if !a.streams.is_empty() {
        if a.streams.contains(&0) {
            return Err(crate::exit::usage(
                "--streams: a stream count must be at least 1",
            ));
        }
        o.streams = a.streams.clone();
    }
    if let Some(n) = a.mode_size {
        if n == 0 {
            return Err(crate::exit::usage("--mode-size: must be at least 1 byte"));
        }
        o.size = n;
    }
    if let Some(s) = a.buffer_slack {
        o.buffer_slack = s;
    }
    o.xts_unit = a.xts_unit;
    o.gateway = gateway_options(a);
    // --gateway alone: only the gateway rows.
    if a.gateway
        && !a.modes
        && !a.all
        && !a.sections.contains(&Section::Modes)
        && a.mode_ops.is_empty()
    {
        o.ops.clear();
    }
    o.plan = a
        .variant
        .iter()
        .fold(crate::plan_cmd::resolved().plan, |p, &v| p.with(v));
    measuring_options(a, &mut o.measuring);
    Ok(o)
}

/// A count of the gateway rows: 1 to [`aesflow_bench::gateway::MAX_COUNT`].
fn count(s: &str) -> Result<usize, String> {
    let max = aesflow_bench::gateway::MAX_COUNT;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("{s:?}: must be a whole number from 1 to {max}")),
    }
}

/// Options of the gateway rows, if asked for.
fn gateway_options(a: &BenchArgs) -> Option<GatewayOptions> {
    if !(a.gateway || a.all) {
        return None;
    }
    let d = GatewayOptions::default();
    Some(GatewayOptions {
        tunnels: a.tunnels.unwrap_or(d.tunnels),
        packets: a.packets.unwrap_or(d.packets),
        mix: a.mix.clone().unwrap_or(d.mix),
        queue_capacity: a.queue_capacity.unwrap_or(d.queue_capacity),
        key_sizes: if a.key_size.is_empty() {
            d.key_sizes
        } else {
            key_sizes(a)
        },
    })
}

/// A `--variant` name: one of the plan's variants.
fn parse_variant(name: &str) -> Result<aesflow_plan::Variant, String> {
    aesflow_plan::Variant::from_name(name).ok_or_else(|| {
        let all: Vec<String> = aesflow_plan::Operation::ALL
            .iter()
            .map(|o| {
                let names: Vec<&str> = o.variants().iter().map(|v| v.name()).collect();
                format!("{}: {}", o.name(), names.join(", "))
            })
            .collect();
        format!("unknown variant {name:?} (variants: {})", all.join("; "))
    })
}

/// Options of the engine section.
pub fn engine_options(a: &BenchArgs) -> anyhow::Result<EngineOptions> {
    let mut o = EngineOptions {
        kernel: aesflow_cipher::default_kernel()?,
        ..EngineOptions::default()
    };
    if let Some(m) = a.mem_size {
        o.mem_size = m
            .checked_mul(1 << 20)
            .and_then(|b| usize::try_from(b).ok())
            .ok_or_else(|| crate::exit::usage("--mem-size: too large for this machine"))?;
    }
    if let Some(m) = a.file_size {
        o.file_size = m
            .checked_mul(1 << 20)
            .ok_or_else(|| crate::exit::usage("--file-size: too large"))?;
    }
    if o.mem_size == 0 && o.file_size == 0 {
        return Err(crate::exit::usage(
            "--mem-size 0 and --file-size 0: nothing left to measure in the engine",
        ));
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
    peer_options(a, &mut o.openssl_seconds, &mut o.openssl, &mut o.ipsec_mb);
    Ok(o)
}

/// The suite the arguments ask for. Options of a section that is not run
/// are an error rather than silently ignored.
pub fn suite_options(a: &BenchArgs) -> anyhow::Result<SuiteOptions> {
    let secs = sections(a);
    let kernel_only = [
        ("--kernels", !a.kernels.is_empty()),
        ("--sizes", !a.sizes.is_empty()),
        ("--ops", !a.ops.is_empty()),
        ("--online", a.online),
    ];
    let modes_only = [
        ("--streams", !a.streams.is_empty()),
        ("--mode-size", a.mode_size.is_some()),
        ("--mode-ops", !a.mode_ops.is_empty()),
        ("--buffer-slack", a.buffer_slack.is_some()),
        ("--xts-unit", a.xts_unit.is_some()),
        ("--variant", !a.variant.is_empty()),
    ];
    let gateway_only = [
        ("--tunnels", a.tunnels.is_some()),
        ("--packets", a.packets.is_some()),
        ("--mix", a.mix.is_some()),
        ("--queue-capacity", a.queue_capacity.is_some()),
    ];
    if let Some((flag, _)) = gateway_only.iter().find(|(_, given)| *given)
        && !(a.gateway || a.all)
    {
        return Err(crate::exit::usage(format!(
            "{flag} applies to the gateway rows, which are not selected (add --gateway)"
        )));
    }
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
            return Err(crate::exit::usage(format!(
                "{flag} applies to the {} section, which is not selected (add --sections {} or --all)",
                sec.name(),
                secs.iter()
                    .chain([&sec])
                    .map(|s| s.name())
                    .collect::<Vec<_>>()
                    .join(",")
            )));
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

/// A spinner on stderr naming the step being measured, only when stderr
/// is a terminal (also used by `aesflow sdf`).
pub(crate) fn progress_bar() -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::new_spinner();
    b.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    b.enable_steady_tick(Duration::from_millis(200));
    Some(b)
}

pub fn run(a: BenchArgs) -> anyhow::Result<()> {
    let opts = suite_options(&a)?;
    let bar = progress_bar();
    let report = run_suite(&opts, &mut |step| {
        if let Some(b) = &bar {
            b.set_message(step.to_string());
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let report = report?;
    if a.json {
        println!("{}", render_suite_json(&report));
    } else {
        print!("{}", render_suite_table(&report, None));
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

    fn parses(args: &[&str]) -> bool {
        T::try_parse_from(std::iter::once("bench").chain(args.iter().copied())).is_ok()
    }

    #[test]
    fn default_is_kernels_only() {
        let o = suite_options(&parse(&[])).unwrap();
        assert!(o.kernels.is_some() && o.modes.is_none() && o.engine.is_none());
        let o = suite_options(&parse(&["--key-size", "128", "--json"])).unwrap();
        assert_eq!(o.kernels.unwrap().key_sizes, vec![KeySize::Aes128]);
    }

    #[test]
    fn enumerated_options_are_checked_by_clap() {
        assert!(!parses(&["--key-size", "100"]));
        assert!(!parses(&["--keys", "128"]));
        assert!(!parses(&["--full"]));
        assert!(!parses(&["--sections", "nope"]));
        assert!(!parses(&["--ops", "cbc"]));
        assert!(parses(&["--mode-ops", "gcm-open,cbc-enc", "--modes"]));
    }

    #[test]
    fn section_selectors() {
        let s = |args: &[&str]| sections(&parse(args));
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
        // --all is the full run: every section, the full kernel matrix.
        let o = suite_options(&parse(&["--all"])).unwrap();
        assert_eq!(o.kernels.unwrap().sizes.len(), 4);
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
        let o = suite_options(&parse(&[
            "--modes",
            "--streams",
            "1,8",
            "--key-size",
            "256",
            "--mode-ops",
            "gcm-open",
            "--buffer-slack",
            "64",
            "--xts-unit",
            "512",
        ]))
        .unwrap();
        let m = o.modes.unwrap();
        assert_eq!(m.streams, vec![1, 8]);
        assert_eq!((m.buffer_slack, m.xts_unit), (64, Some(512)));
        assert_eq!(m.key_sizes, vec![KeySize::Aes256]);
        assert_eq!(m.cbc_enc_keys, vec![KeySize::Aes256]);
        assert_eq!(m.ops, vec![ModeOp::GcmOpen]);
    }

    #[test]
    fn flags_of_unselected_sections_are_errors() {
        let e = suite_options(&parse(&["--file-size", "10"])).unwrap_err();
        assert!(e.to_string().contains("--sections kernels,engine"), "{e}");
        assert!(suite_options(&parse(&["--modes", "--sizes", "64"])).is_err());
        assert!(suite_options(&parse(&["--buffer-slack", "64"])).is_err());
        assert!(suite_options(&parse(&["--streams", "0", "--modes"])).is_err());
        assert!(
            suite_options(&parse(&["--file-size", "1", "--mem-size", "0", "--engine"])).is_ok()
        );
        assert!(suite_options(&parse(&["--engine", "--mem-size", "99999999999999"])).is_err());
    }

    #[test]
    fn gateway_flags() {
        let o = suite_options(&parse(&["--gateway"])).unwrap();
        let m = o.modes.unwrap();
        assert!(m.ops.is_empty() && o.kernels.is_none());
        assert_eq!(m.gateway, Some(GatewayOptions::default()));
        let o = suite_options(&parse(&[
            "--gateway",
            "--modes",
            "--tunnels",
            "10",
            "--packets",
            "99",
            "--mix",
            "1:64,1:9000",
            "--queue-capacity",
            "128",
            "--key-size",
            "256",
        ]))
        .unwrap();
        let m = o.modes.unwrap();
        let g = m.gateway.unwrap();
        assert_eq!((g.tunnels, g.packets, g.queue_capacity), (10, 99, 128));
        assert_eq!(g.mix.describe(), "1:1 of 64/9000 B");
        assert_eq!(g.key_sizes, vec![KeySize::Aes256]);
        assert_eq!(m.ops, ModeOp::ALL.to_vec());
        // --gateway with --mode-ops: those ops and the gateway rows.
        let m = suite_options(&parse(&["--gateway", "--mode-ops", "ctr"]))
            .unwrap()
            .modes
            .unwrap();
        assert_eq!(m.ops, vec![ModeOp::Ctr]);
        // --modes alone has no gateway rows; --all has them.
        let m = suite_options(&parse(&["--modes"])).unwrap().modes.unwrap();
        assert!(m.gateway.is_none());
        assert_eq!(m.cbc_enc_keys, vec![KeySize::Aes128]);
        let o = suite_options(&parse(&["--all"])).unwrap();
        assert!(o.modes.unwrap().gateway.is_some());
        for bad in [
            &["--gateway", "--tunnels", "0"][..],
            &["--gateway", "--packets", "x"],
            &["--gateway", "--mix", "64"],
            &["--gateway", "--queue-capacity", "1000001"],
        ] {
            assert!(!parses(bad), "{bad:?}");
        }
        let e = suite_options(&parse(&["--modes", "--tunnels", "3"])).unwrap_err();
        assert!(e.to_string().contains("--gateway"), "{e}");
        assert_eq!(crate::exit::code(&e), crate::exit::USAGE);
    }
}
