//! `aesflow energy`: power, energy, per-core DVFS, scaling by duplication and
//! the platform comparison of the many-core engines, computed from the
//! simulator's per-core activity (Liu & Baas, "Parallel AES Encryption
//! Engines for Many-Core Processor Arrays", §5–7, Tables 3–5, Figs. 12–15;
//! the companion talk's DVFS), printed beside the paper's figures with the
//! error of each. Charts are written only where `--charts DIR` says.

use crate::args::KeySizeArg;
use std::io::IsTerminal;
use std::path::PathBuf;

use aesflow_energy::host::{CpuChoice, HostFigure, KNOWN_CPUS, cpu_by_key, identify};
use aesflow_energy::{Options, study_with_progress};

mod text;

/// `--host-cpu`: which CPU's silicon the host row of Table 5 assumes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HostCpuArg {
    /// Identify it from /proc/cpuinfo (and say when it is assumed).
    #[default]
    Auto,
    /// AMD EPYC 9005 (Zen 5, Turin).
    EpycZen5,
    /// AMD EPYC 9004 (Zen 4, Genoa).
    EpycZen4,
    /// Intel Xeon Scalable (Skylake-SP / Cascade Lake).
    XeonCascadeLake,
    /// AMD EPYC 7003 (Zen 3, Milan).
    EpycZen3,
    /// None: show the measured speed only (no area or power assumed).
    Unknown,
}

/// Arguments of `aesflow energy`.
#[derive(clap::Args, Debug)]
pub struct EnergyArgs {
    /// Machine-readable output (JSON) instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Write the report here instead of stdout (`-` = stdout).
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Also write the SVG charts (Figs. 12, 14, 15, DVFS) into this folder.
    #[arg(long, value_name = "DIR")]
    pub charts: Option<PathBuf>,
    /// Overwrite existing output files.
    #[arg(long)]
    pub force: bool,
    /// Key size in bits (the paper's figures are for 128).
    #[arg(long, value_enum, default_value = "128")]
    pub key_size: KeySizeArg,
    /// Steady-state blocks simulated per engine (and per copy).
    #[arg(long, default_value_t = 256)]
    pub blocks: usize,
    /// Skip the host measurement (the Table 5 row of this machine).
    #[arg(long)]
    pub no_host: bool,
    /// The CPU whose area and power the host row assumes.
    #[arg(long, value_enum, default_value = "auto")]
    pub host_cpu: HostCpuArg,
}

impl Default for EnergyArgs {
    fn default() -> Self {
        EnergyArgs {
            json: false,
            output: None,
            charts: None,
            force: false,
            key_size: KeySizeArg::Aes128,
            blocks: 256,
            no_host: false,
            host_cpu: HostCpuArg::Auto,
        }
    }
}

/// Measure the host figure of Table 5 with `aesflow-bench`: the fastest
/// constant-time kernel on AES-128-CTR over 16 KiB, one core, best of
/// `runs` repetitions, at `/proc/cpuinfo`'s nominal clock.
pub fn host_figure(runs: usize) -> anyhow::Result<HostFigure> {
    Ok(aesflow_report::host::host_figure_of(
        &aesflow_bench::measure_host(runs, 64)?,
        &aesflow_bench::Machine::describe(),
        &format!("AES-128-CTR, 16 KiB, one core, best of {runs}"),
    ))
}

/// The CPU the host row assumes, from `--host-cpu`.
pub fn cpu_choice(h: &HostFigure, arg: HostCpuArg) -> CpuChoice {
    match arg {
        HostCpuArg::Auto => identify(h),
        other => cpu_choice_for(other),
    }
}

/// The CPU an explicit `--host-cpu` names (`Auto` identifies nothing here:
/// see [`cpu_choice`]).
pub fn cpu_choice_for(arg: HostCpuArg) -> CpuChoice {
    let chosen = |key: &str| CpuChoice {
        spec: cpu_by_key(key),
        how: format!("chosen with --host-cpu {key}"),
    };
    match arg {
        HostCpuArg::Auto => CpuChoice {
            spec: None,
            how: "auto".into(),
        },
        HostCpuArg::EpycZen5 => chosen(KNOWN_CPUS[0].key),
        HostCpuArg::EpycZen4 => chosen(KNOWN_CPUS[1].key),
        HostCpuArg::XeonCascadeLake => chosen(KNOWN_CPUS[2].key),
        HostCpuArg::EpycZen3 => chosen(KNOWN_CPUS[3].key),
        HostCpuArg::Unknown => CpuChoice {
            spec: None,
            how: "none chosen (--host-cpu unknown): no area or power assumed".into(),
        },
    }
}

/// Progress on stderr: a bar when stderr is a terminal, else one line
/// when a part starts and one when it ends (with its seconds), so a long
/// run shows where it is in a log too; returns the callback
/// `(part, done, total)` that moves it.
pub fn progress_bar(what: &str) -> impl Fn(&str, usize, usize) + Sync + use<> {
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix}: {msg} [{bar:30}] {pos}/{len} {elapsed}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        b.set_prefix(what.to_string());
        Some(b)
    } else {
        None
    };
    let what = what.to_string();
    // When each part was first seen, and whether its end was reported.
    let lines = std::sync::Mutex::new(std::collections::HashMap::<
        String,
        (std::time::Instant, bool),
    >::new());
    move |part, done, total| {
        if let Some(b) = &bar {
            b.set_message(part.to_string());
            b.set_length(total as u64);
            b.set_position(done as u64);
            if done == total && part == "done" {
                b.finish_and_clear();
            }
            return;
        }
        if part == "done" {
            return;
        }
        let Ok(mut parts) = lines.lock() else { return };
        let new = !parts.contains_key(part);
        let (start, ended) = parts
            .entry(part.to_string())
            .or_insert((std::time::Instant::now(), false));
        if new && done < total {
            eprintln!("{what}: {part} ...");
        }
        if done == total && total > 0 && !*ended {
            eprintln!(
                "{what}: {part} done ({total}/{total}, {:.1} s)",
                start.elapsed().as_secs_f64()
            );
            *ended = true;
        }
    }
}

fn options(a: &EnergyArgs) -> anyhow::Result<Options> {
    let host = if a.no_host {
        None
    } else {
        let h = host_figure(7)?;
        let cpu = cpu_choice(&h, a.host_cpu);
        Some((h, cpu))
    };
    Ok(Options {
        blocks: a.blocks.max(8),
        key: a.key_size.into(),
        host,
        threads: 0,
    })
}

/// Run `aesflow energy`.
pub fn run(a: EnergyArgs) -> anyhow::Result<()> {
    // Refuse before the minutes of simulation, not after.
    if let Some(p) = &a.output
        && p.as_os_str() != "-"
        && p.exists()
        && !a.force
    {
        anyhow::bail!("{} exists (use --force to overwrite)", p.display());
    }
    if let Some(dir) = &a.charts
        && !a.force
    {
        for f in aesflow_energy::figures::FILES {
            if dir.join(f).exists() {
                anyhow::bail!(
                    "{} exists (use --force to overwrite)",
                    dir.join(f).display()
                );
            }
        }
    }
    let bar = progress_bar("energy");
    let s = study_with_progress(&options(&a)?, &|d, n| bar("simulating the engines", d, n))?;
    bar("done", 1, 1);
    let text = if a.json {
        aesflow_energy::to_json(&s)
    } else {
        text::format_text(&s)
    };
    crate::text_out::write_reported(a.output.as_deref(), &text, a.force)?;
    if let Some(dir) = &a.charts {
        for p in aesflow_energy::write_charts(&s, dir)
            .map_err(|e| anyhow::anyhow!("cannot write charts into {}: {e}", dir.display()))?
        {
            eprintln!("wrote {}", p.display());
        }
    }
    Ok(())
}

/// The headline lines for `demo` (paper vs model, with errors).
pub fn headline() -> anyhow::Result<String> {
    let s = study_with_progress(&options(&EnergyArgs::default())?, &|_, _| {})?;
    Ok(text::headline(&s))
}
