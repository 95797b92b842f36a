//! `aesflow`: the command-line tool.
//!
//! Subcommands: `demo` (the project's main job on built-in data),
//! `encrypt`/`decrypt` (files and streams), `kernels`
//! (the AES kernels and which this CPU runs), `designs` (the many-core
//! engines of Liu & Baas, simulated), `bench` (kernel throughput beside
//! OpenSSL and RustCrypto).

mod bench_cmd;
mod demo;
mod designs_cmd;
mod files_cmd;
mod kernels_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Parallel AES engines: the many-core designs of Liu & Baas, modelled and
/// run, and a fast AES engine for today's CPUs.
#[derive(Parser)]
#[command(name = "aesflow", version, about, long_about = None)]
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
    Encrypt(files_cmd::EncryptArgs),
    /// Decrypt files or stdin (authenticated before the output is released).
    Decrypt(files_cmd::DecryptArgs),
    /// List the AES kernels, which this CPU can run, and the default.
    Kernels,
    /// The 16 many-core AES engines of Liu & Baas on the simulated AsAP
    /// array: list them, print Table 2 beside the model, export DOT/SVG/SDF3.
    Designs(designs_cmd::DesignsArgs),
    /// Measure the kernels (ECB encrypt/decrypt, CTR) beside OpenSSL and
    /// RustCrypto in the same run.
    Bench(bench_cmd::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo => demo::run(),
        Command::Encrypt(a) => files_cmd::run_encrypt(a),
        Command::Decrypt(a) => files_cmd::run_decrypt(a),
        Command::Kernels => kernels_cmd::run(),
        Command::Designs(args) => designs_cmd::run(args),
        Command::Bench(args) => bench_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aesflow: {e:#}");
            ExitCode::FAILURE
        }
    }
}
