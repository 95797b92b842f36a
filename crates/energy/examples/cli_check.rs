//! Compile check of the CLI module (crates/cli/src/energy_cmd.rs) and a way
//! to run it without the CLI: `cargo run -p aesflow-energy --example cli_check -- --help`.
#[path = "../../cli/src/energy_cmd.rs"]
mod energy_cmd;

use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: energy_cmd::EnergyArgs,
    /// Print the demo headline instead.
    #[arg(long)]
    headline: bool,
}

fn main() -> anyhow::Result<()> {
    let c = Cli::parse();
    if c.headline {
        print!("{}", energy_cmd::headline()?);
        return Ok(());
    }
    energy_cmd::run(c.args)
}
