//! `aesflow`: the command-line tool.
//!
//! Subcommands: `demo` (the project's main job on built-in data), `kernels`
//! (the AES kernels and which this CPU runs).

mod demo;
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
    /// Run the built-in demonstration: every kernel and key-expansion style
    /// on the FIPS-197 examples.
    Demo,
    /// List the AES kernels, which this CPU can run, and the default.
    Kernels,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo => demo::run(),
        Command::Kernels => kernels_cmd::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aesflow: {e:#}");
            ExitCode::FAILURE
        }
    }
}
