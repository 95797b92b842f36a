//! `aesflow hw`: the hardware papers as hardware — generate the Verilog of a
//! pipelined AES-128 CTR processor (Hodjat & Verbauwhede) or of the
//! multi-stream core (Pericàs et al.), check variants in Icarus Verilog, and
//! measure the design space with Yosys.

use crate::exit::CliError;
use aesflow_hw::multistream::{MultiStream, multistream};
use aesflow_hw::sweep::{Sweep, SweepOptions, sweep};
use aesflow_hw::verify::{check_blocks, check_ctr, fips197_cases, random_cases};
use aesflow_hw::{KeyMode, SboxKind, Variant, charts, processor};
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
    /// List the processor variants with their latency.
    List,
    /// Write one variant as a standalone Verilog file.
    Generate(GenerateArgs),
    /// Simulate variants in Icarus Verilog against aesflow's cipher and CTR.
    Verify(VerifyArgs),
    /// Synthesise the design space with Yosys and simulate the multi-stream
    /// core: tables, the papers' percentages, charts.
    Sweep(SweepArgs),
}

#[derive(clap::Args, Debug)]
struct GenerateArgs {
    /// A variant by name (SBOX-STAGES-KEYS, see `aesflow hw list`).
    #[arg(long, conflicts_with_all = ["sbox", "stages", "keys", "multistream"])]
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
    /// Variants by name (default: all sixteen).
    variants: Vec<String>,
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
    /// hw-offline.svg, hw-packets.svg, hw-streams.svg; created if missing).
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
    /// Overwrite existing chart files.
    #[arg(long)]
    force: bool,
}

const HW_HELP: &str = "\
Examples:
  aesflow hw list
  aesflow hw generate --sbox composite-3 --stages 4 --keys offline -o aes_ctr.v
  aesflow hw generate --variant lut-2-online -o lut2.v
  aesflow hw generate --multistream --streams 2 --bus 64 -o ms.v
  aesflow hw verify composite-2-3-online lut-1-offline
  aesflow hw verify                     # all sixteen variants (minutes)
  aesflow hw sweep --json > sweep.json  # Yosys over the space (tens of minutes)
  aesflow hw sweep --from sweep.json -o docs --force   # charts from a saved sweep

Verification needs iverilog/vvp, the sweep yosys (Debian packages `iverilog`,
`yosys`); generation needs nothing.";

fn usage(message: String) -> anyhow::Error {
    CliError { code: 2, message }.into()
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
    Variant::new(sbox, stages, keys).map_err(|e| usage(e.to_string()))
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

fn list() {
    println!(
        "{:<24} {:>7} {:>7}  key schedule",
        "variant", "stages", "latency"
    );
    for v in Variant::all() {
        let ks = match v.keys {
            KeyMode::Online => "online (unrolled)".to_string(),
            KeyMode::Offline => format!("offline ({} cycles per key)", v.key_schedule_cycles()),
        };
        println!("{:<24} {:>7} {:>7}  {ks}", v.name(), v.stages, v.latency());
    }
}

fn verify(a: VerifyArgs) -> anyhow::Result<()> {
    let variants = if a.variants.is_empty() {
        Variant::all()
    } else {
        a.variants
            .iter()
            .map(|n| Variant::parse(n).map_err(|e| usage(e.to_string())))
            .collect::<anyhow::Result<_>>()?
    };
    let total = variants.len();
    for (i, v) in variants.iter().enumerate() {
        eprintln!("[{}/{total}] simulating {}", i + 1, v.name());
        let mut cases = fips197_cases();
        cases.extend(random_cases(0x5eed + i as u64, a.random_keys, 16));
        let b = check_blocks(v, &cases)?;
        let (k1, k2) = (cases[0].key, cases[1].key);
        let c = check_ctr(v, &k1, &k2, &[0xff; 16], 24, 16)?;
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
                reverse: false,
            };
            sweep(opts, &mut |m| eprintln!("aesflow hw sweep: {m}"))?
        }
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

/// Run `aesflow hw`.
pub fn run(a: HwArgs) -> anyhow::Result<()> {
    match a.command {
        HwCommand::List => {
            list();
            Ok(())
        }
        HwCommand::Generate(g) => generate(g),
        HwCommand::Verify(v) => verify(v),
        HwCommand::Sweep(s) => sweep_cmd(s),
    }
}
