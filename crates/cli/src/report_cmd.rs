//! `aesflow report`: one self-contained HTML page (inline SVG and CSS, no
//! network) with the engines of Liu & Baas beside the paper, their maps and
//! graphs, the design space of `aesflow explore`, this host's benchmark and
//! the methods — all computed fresh.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use aesflow_cipher::KeySize;
use aesflow_report::paper::EXPLORE_BLOCKS;
use aesflow_report::{DesignSpace, FrontPoint, Inputs, Options, collect, render};

use crate::energy_cmd::HostCpuArg;
use crate::text_out::write_reported;

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
    /// The hardware section from this sweep (`aesflow hw sweep --json >
    /// FILE`) instead of the measured one kept in `aesflow-hw`.
    #[arg(long, value_name = "FILE")]
    pub hw_sweep: Option<PathBuf>,
}

/// The design space of `aesflow explore` (AES-128) for the report: the
/// explorer run on the same block count as `aesflow explore` (its
/// default, 4096; 32 with `--quick`), its two charts as that command
/// writes them, and every design that fits the chip and encrypts
/// correctly, marked when it is on the (throughput, cores) front.
fn design_space(quick: bool, progress: &(dyn Fn(&str, usize, usize) + Sync)) -> DesignSpace {
    let params = aesflow_explore::distinct_points(KeySize::Aes128);
    let total = params.len();
    let done = AtomicUsize::new(0);
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let tick = || {
        let d = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress("design space", d, total);
    };
    let blocks = if quick { 32 } else { EXPLORE_BLOCKS };
    let x = aesflow_explore::run_points(KeySize::Aes128, &params, blocks, jobs, &tick);
    let points = x
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.feasible())
        .filter_map(|(i, p)| {
            let m = p.metrics.as_ref()?;
            Some(FrontPoint {
                label: p.name(),
                cores: p.cores,
                cycles_per_byte: m.cycles_per_byte,
                nj_per_bit: Some(m.nj_per_bit),
                on_front: x.front_cores.contains(&i),
            })
        })
        .collect();
    DesignSpace {
        points,
        charts: x
            .charts()
            .iter()
            .map(aesflow_explore::chart::render)
            .collect(),
        blocks,
    }
}

/// Run `aesflow report`.
pub fn run(a: ReportArgs) -> anyhow::Result<()> {
    if a.output.as_os_str() != "-" && a.output.exists() && !a.force {
        anyhow::bail!("{} exists (use --force to overwrite)", a.output.display());
    }
    // The kernel of the host benchmark, resolved before any work is done.
    let kernel = aesflow_cipher::default_kernel()?;
    let command: Vec<String> = std::env::args()
        .enumerate()
        .map(|(i, s)| if i == 0 { "aesflow".into() } else { s })
        .collect();
    let host_cpu = match a.host_cpu {
        HostCpuArg::Auto => None,
        other => Some(crate::energy_cmd::cpu_choice_for(other)),
    };
    let bar = crate::energy_cmd::progress_bar("report");
    let progress = |part: &str, done: usize, total: usize| bar(part, done, total);
    let hardware = match &a.hw_sweep {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("--hw-sweep {}: {e}", path.display()))?;
            aesflow_hw::sweep::Sweep::from_json(&text).map_err(|e| {
                anyhow::anyhow!(
                    "--hw-sweep {}: not a sweep from `aesflow hw sweep --json` ({e})",
                    path.display()
                )
            })?
        }
        None => aesflow_hw::sweep::Sweep::measured(),
    };
    let inputs = Inputs {
        front: Some(design_space(a.quick, &progress)),
        command: command.join(" "),
        host_cpu,
        hardware: Some(hardware),
    };
    let c = collect(
        &Options {
            quick: a.quick,
            bench: !a.no_bench,
            kernel,
        },
        inputs,
        &progress,
    )?;
    write_reported(Some(&a.output), &render(&c), a.force)
}
