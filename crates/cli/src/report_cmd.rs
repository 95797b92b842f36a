//! `aesflow report`: one self-contained HTML page (inline SVG and CSS, no
//! network) with the engines of Liu & Baas beside the paper, their maps and
//! graphs, this host's benchmark and the methods — all computed fresh.

use std::path::PathBuf;

use aesflow_report::{Inputs, Options, collect, render};

use crate::energy_cmd::{HostCpuArg, write_output};

/// Arguments of `aesflow report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// The HTML file to write (`-` = stdout).
    #[arg(short = 'o', long, value_name = "PATH", default_value = "report.html")]
    pub output: PathBuf,
    /// Overwrite an existing file.
    #[arg(long)]
    pub force: bool,
    /// Short runs (about a minute): fewer simulated blocks, a short
    /// benchmark without the OpenSSL peer or the file benchmark.
    #[arg(long)]
    pub quick: bool,
    /// Leave out the host benchmark (and Table 5's host row).
    #[arg(long)]
    pub no_bench: bool,
    /// The CPU whose area and power Table 5's host row assumes.
    #[arg(long, value_enum, default_value = "auto")]
    pub host_cpu: HostCpuArg,
}

/// Run `aesflow report`.
pub fn run(a: ReportArgs) -> anyhow::Result<()> {
    if a.output.as_os_str() != "-" && a.output.exists() && !a.force {
        anyhow::bail!("{} exists (use --force to overwrite)", a.output.display());
    }
    let command: Vec<String> = std::env::args()
        .enumerate()
        .map(|(i, s)| if i == 0 { "aesflow".into() } else { s })
        .collect();
    let host_cpu = match a.host_cpu {
        HostCpuArg::Auto => None,
        other => Some(crate::energy_cmd::cpu_choice_for(other)),
    };
    let inputs = Inputs {
        // Hook: when `aesflow explore` exists, hand its points in here.
        front: None,
        command: command.join(" "),
        host_cpu,
    };
    let bar = crate::energy_cmd::progress_bar("report");
    let progress = |part: &str, done: usize, total: usize| bar(part, done, total);
    let c = collect(
        &Options {
            quick: a.quick,
            bench: !a.no_bench,
        },
        inputs,
        &progress,
    )?;
    write_output(Some(&a.output), &render(&c), a.force)
}
