//! `aesflow`: the command-line tool.
//!
//! A thin edge over the libraries: each subcommand (`aesflow --help` lists
//! them) lives in its `*_cmd` module, parses its options, resolves what
//! the environment chooses (`AESFLOW_KERNEL`, the plan) once, calls the
//! libraries with those values, and renders what they return. The file
//! commands add the application around `aesflow-format`: job planning, key
//! sources, prompts, signals, progress, summaries and armor.

mod args;
mod armor;
mod bench_cmd;
mod demo;
mod designs_cmd;
mod energy_cmd;
mod exit;
mod explore_cmd;
mod files_cmd;
mod hw_cmd;
mod inspect_cmd;
mod jobs;
mod kernels_cmd;
mod keygen_cmd;
mod keys;
mod plan_cmd;
mod prompt;
mod report_cmd;
mod sdf_cmd;
mod signals;
mod stdio;
mod text_out;
mod version;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Parallel AES engines: the many-core designs of Liu & Baas, modelled and
/// run, and a fast AES engine for today's CPUs.
#[derive(Parser)]
#[command(name = "aesflow", version, long_version = version::long(), about, long_about = None,
          after_help = exit::HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the built-in demonstration: FIPS-197 on every kernel, the 16
    /// many-core engines simulated, a host benchmark and a file round trip.
    Demo,
    /// Encrypt files or stdin (Cobblestone-256 by default, or --raw modes).
    #[command(after_long_help = ENCRYPT_EXAMPLES)]
    Encrypt(files_cmd::EncryptArgs),
    /// Decrypt files or stdin (authenticated before the output is released).
    #[command(after_long_help = DECRYPT_EXAMPLES)]
    Decrypt(files_cmd::DecryptArgs),
    /// Write a new random key file for `encrypt --key-file`.
    Keygen(keygen_cmd::KeygenArgs),
    /// List the AES kernels, which this CPU can run, and the one in use.
    Kernels,
    /// Print a file's header without a key: format, suite, passphrase
    /// parameters, chunk count.
    Inspect(inspect_cmd::InspectArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout: `aesflow man > aesflow.1`.
    Man,
    /// The 16 many-core AES engines of Liu & Baas on the simulated AsAP
    /// array: list them, print Table 2 beside the model, export DOT/SVG/SDF3.
    Designs(designs_cmd::DesignsArgs),
    /// Power, energy, per-core DVFS, duplication and Table 5 of the many-core
    /// engines from simulated activity, beside the paper; SVG charts.
    Energy(energy_cmd::EnergyArgs),
    /// Generate and simulate the design space of many-core AES engines:
    /// Pareto fronts (throughput vs cores, vs energy/bit), the paper's designs
    /// against them, SVG charts.
    Explore(explore_cmd::ExploreArgs),
    /// Measure the kernels (ECB encrypt/decrypt, CTR) beside OpenSSL and
    /// RustCrypto in the same run.
    Bench(bench_cmd::BenchArgs),
    /// Time the variants of every operation whose best choice depends on
    /// the CPU, and write this CPU's plan (`aesflow kernels` shows the plan
    /// in force).
    Tune(plan_cmd::TuneArgs),
    /// Analyse an SDF3 graph: consistency, deadlock, throughput and critical
    /// cycle (SDF3's semantics), buffer sizing, latency; JSON or DOT.
    Sdf(sdf_cmd::SdfArgs),
    /// One self-contained HTML report: the engines beside the paper, their
    /// maps and graphs, this host's benchmark, the methods.
    Report(report_cmd::ReportArgs),
    /// The hardware papers as hardware: Verilog of the pipelined AES-128 CTR
    /// processors and the multi-stream core, simulated and synthesised.
    Hw(hw_cmd::HwArgs),
}

const ENCRYPT_EXAMPLES: &str = "\
Examples:
  aesflow keygen -o my.key                      # a new random 256-bit key
  aesflow encrypt -k my.key report.pdf          # writes report.pdf.cob
  aesflow encrypt -k my.key a.txt b.txt c.txt   # several files, concurrently
  tar c dir | aesflow encrypt -k my.key > dir.tar.cob
  aesflow encrypt --passphrase notes.txt        # asks for a passphrase twice
  AESFLOW_PASS=... aesflow encrypt --passphrase-env AESFLOW_PASS notes.txt
  aesflow keygen | aesflow encrypt -k - -o notes.cob notes.txt   # key on stdin
  AESFLOW_KEY=$(cat my.key) aesflow encrypt --key-env AESFLOW_KEY notes.txt
  aesflow encrypt --raw --mode cbc --key 000102030405060708090a0b0c0d0e0f \\
      --iv 0f0e0d0c0b0a09080706050403020100 -o out.bin in.bin   # = openssl enc
  aesflow encrypt --raw --mode cbc --pbkdf2 --passphrase -o out.bin in.bin
      # = openssl enc -aes-256-cbc -pbkdf2 -md sha256 (-iter 10000)

The format is Cobblestone-256 (C2SP chunked encryption with AES-256-GCM):
every 16 KiB chunk is authenticated. An output file appears only when
complete (an unnamed file linked into place, then synced; --no-sync skips the
sync); on any error, interrupt or kill no output file is left behind. An
existing file is never overwritten without --force, and a device or FIFO
never. Ciphertext is not written to a terminal unless -o - or --force.
A summary line per file is printed with -v (by default only when stdout is a
terminal); --json prints it as JSON.";

const DECRYPT_EXAMPLES: &str = "\
Examples:
  aesflow decrypt -k my.key report.pdf.cob      # writes report.pdf
  aesflow decrypt -k my.key -o - dir.tar.cob | tar x
  aesflow decrypt --passphrase notes.txt.cob
  aesflow inspect notes.txt.cob                 # the header, without a key
  aesflow decrypt --raw --mode cbc --pbkdf2 --passphrase -o in.bin out.bin

A file is decrypted and authenticated completely before its output file
appears. When decrypting to stdout, data is released chunk by chunk, each only
after it was authenticated; if a later chunk is damaged or the input is
truncated, aesflow stops, prints what is wrong and exits non-zero: treat the
output of a failed run as incomplete. A wrong key or passphrase is detected
before any output (key commitment).";

fn main() -> ExitCode {
    exit::quiet_broken_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo => demo::run(),
        Command::Encrypt(a) => files_cmd::run_encrypt(a),
        Command::Decrypt(a) => files_cmd::run_decrypt(a),
        Command::Keygen(a) => keygen_cmd::run(a),
        Command::Kernels => kernels_cmd::run(),
        Command::Inspect(a) => inspect_cmd::run(a),
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "aesflow",
                &mut std::io::stdout(),
            );
            Ok(())
        }
        Command::Man => clap_mangen::Man::new(Cli::command())
            .render(&mut std::io::stdout())
            .map_err(Into::into),
        Command::Designs(args) => designs_cmd::run(args),
        Command::Energy(args) => energy_cmd::run(args),
        Command::Explore(args) => explore_cmd::run(args),
        Command::Bench(args) => bench_cmd::run(args),
        Command::Tune(args) => plan_cmd::run(args),
        Command::Sdf(args) => sdf_cmd::run(args),
        Command::Report(args) => report_cmd::run(args),
        Command::Hw(args) => hw_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aesflow: {e:#}");
            ExitCode::from(exit::code(&e))
        }
    }
}
