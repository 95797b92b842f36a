//! `aesflow explore`: the design space of many-core AES engines, its Pareto
//! fronts, and where the paper's eight designs stand.

use crate::args::KeySizeArg;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use aesflow_explore::{Exploration, Point, Standing, chart, distinct_points, run_points};
use comfy_table::{ContentArrangement, Table, presets};

/// Arguments of `aesflow explore`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXPLORE_HELP)]
pub struct ExploreArgs {
    /// Key size of the designs.
    #[arg(long, value_enum, default_value = "128")]
    pub key_size: KeySizeArg,
    /// Blocks simulated per design (the longer of its two steady-state runs).
    #[arg(long, default_value_t = 4096)]
    pub blocks: usize,
    /// Worker threads (default: the CPUs available).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print the whole exploration as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Also list every design, not only the fronts.
    #[arg(long)]
    pub all: bool,
    /// Write both charts into this directory (explore-cores.svg,
    /// explore-energy.svg; created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Write the throughput-vs-cores chart here (`-`: stdout).
    #[arg(long, value_name = "PATH")]
    pub chart_cores: Option<PathBuf>,
    /// Write the energy-per-bit-vs-throughput chart here (`-`: stdout).
    #[arg(long, value_name = "PATH")]
    pub chart_energy: Option<PathBuf>,
    /// Overwrite existing chart files.
    #[arg(long)]
    pub force: bool,
}

const EXPLORE_HELP: &str = "\
The space: round loops S (every divisor of Nr-1: none, partial, full
unrolling), SubBytes on 1, 4 or 16 cores (16, 4 or 1 bytes each), MixColumns
on 1 or 4 cores, MixColumns fused with AddRoundKey or not, the no-merge style,
loops holding 1 or 2 blocks, AddRoundKey fused with the next ShiftRows or not,
online or offline key expansion, 1, 2 or 4 copies of the engine, and where a
core needs several DispatchCores (SubBytes on 16 cores) their shape: a chain
(the default) or a balanced tree (`tree` in the label). Switches that build the
same design are counted once. Designs with more cores than the 164-core chip are mapped
and flagged, never simulated and never on a front.

Examples:
  aesflow explore                          # AES-128: fronts and the paper's designs
  aesflow explore -o charts/               # also charts/explore-cores.svg, explore-energy.svg
  aesflow explore --json > space.json
  aesflow explore --key-size 256 --all";

fn standing_text(x: &Exploration, s: &Standing, cost: &str) -> String {
    match s {
        Standing::OnFront => "on the front".into(),
        Standing::Dominated {
            by,
            throughput_ratio,
            cost_ratio,
        } => format!(
            "dominated by {}: {:.3}x throughput, {:.3}x {cost}",
            x.points[*by].name(),
            throughput_ratio,
            cost_ratio
        ),
    }
}

/// A table that fits the terminal.
pub fn table() -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t
}

fn design_table(x: &Exploration, idx: &[usize]) -> Table {
    let mut t = table();
    t.set_header(vec![
        "design",
        "cores",
        "comm",
        "c/B",
        "Gbit/s",
        "Mb/s/core",
        "W",
        "nJ/bit",
        "best",
    ]);
    for &i in idx {
        let p = &x.points[i];
        let mut row = vec![p.name(), p.cores.to_string(), p.comm_cores.to_string()];
        match &p.metrics {
            Some(m) => row.extend([
                format!("{:.3}", m.cycles_per_byte),
                format!("{:.3}", m.gbps),
                format!("{:.1}", m.mbps_per_core),
                format!("{:.2}", m.power_w),
                format!("{:.3}", m.nj_per_bit),
                format!("{:.3} @ {:.3} V", m.best_nj_per_bit, m.best_vdd),
            ]),
            None => row.extend(["exceeds the 164-core chip".to_string()]),
        }
        t.add_row(row);
    }
    t
}

const LEGEND: &str = "\
Legend: cores = compute + communication cores on the mesh (all copies); comm =
MergeCores + DispatchCores; c/B = cycles per byte; Gbit/s, Mb/s/core, W and
nJ/bit at 1.3 V and 1.2 GHz (Table 3's power model); best = lowest energy per
bit over supplies 0.675-1.3 V, each at its f_max, and that supply. Design
labels: S = round loops, sbN/mcN = bytes of SubBytes/MixColumns per core, +ark =
MixColumns fused with AddRoundKey, iN = blocks per loop, no-arksr = AddRoundKey
not fused with ShiftRows, xN = copies, tree = DispatchCores as a balanced tree
(default: a chain).";

fn print_text(x: &Exploration, all: bool, secs: f64, jobs: usize) {
    let feasible = x.points.iter().filter(|p| p.feasible()).count();
    let over = x.points.iter().filter(|p| p.exceeds_chip).count();
    let bad = x
        .points
        .iter()
        .filter(|p| p.metrics.as_ref().is_some_and(|m| !m.verified))
        .count();
    println!(
        "AES-{} design space: {} designs; {} fit the 164-core chip and were simulated on {} blocks each ({} encrypt correctly), {} exceed the chip; {:.1} s on {} threads.",
        x.key_bits,
        x.points.len(),
        x.points.len() - over,
        x.blocks,
        x.points.len() - over - bad,
        over,
        secs,
        jobs
    );
    println!(
        "\nPareto front: throughput vs cores ({} designs)",
        x.front_cores.len()
    );
    println!("{}", design_table(x, &x.front_cores));
    println!(
        "\nPareto front: throughput vs energy per bit ({} designs)",
        x.front_energy.len()
    );
    println!("{}", design_table(x, &x.front_energy));
    if !x.paper.is_empty() {
        println!(
            "\nThe paper's designs against the designs with the same key expansion (online or offline)"
        );
        let mut t = table();
        t.set_header(vec![
            "design",
            "cores",
            "Gbit/s",
            "nJ/bit",
            "throughput vs cores",
            "throughput vs energy",
        ]);
        for s in &x.paper {
            let p = &x.points[s.point];
            let m = p.metrics.as_ref();
            t.add_row(vec![
                p.name(),
                p.cores.to_string(),
                m.map_or("-".into(), |m| format!("{:.3}", m.gbps)),
                m.map_or("-".into(), |m| format!("{:.3}", m.nj_per_bit)),
                standing_text(x, &s.cores, "cores"),
                standing_text(x, &s.energy, "energy/bit"),
            ]);
        }
        println!("{t}");
    }
    if all {
        println!("\nEvery design");
        let idx: Vec<usize> = (0..x.points.len()).collect();
        println!("{}", design_table(x, &idx));
    }
    println!("{LEGEND}");
    if feasible == 0 {
        println!("(no design fits the chip)");
    }
}

/// Run `aesflow explore`.
pub fn run(a: ExploreArgs) -> anyhow::Result<()> {
    if a.blocks < 16 {
        anyhow::bail!("--blocks must be at least 16 (two steady-state runs of 8 or more)");
    }
    let mut charts: Vec<(usize, PathBuf)> = Vec::new();
    if let Some(dir) = &a.output {
        if !dir.exists() {
            // The folder the user named (like `energy --charts DIR`).
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("-o {}: {e}", dir.display()))?;
        }
        if !dir.is_dir() {
            anyhow::bail!("-o {}: not a directory", dir.display());
        }
        charts.push((0, dir.join("explore-cores.svg")));
        charts.push((1, dir.join("explore-energy.svg")));
    }
    if let Some(p) = &a.chart_cores {
        charts.push((0, p.clone()));
    }
    if let Some(p) = &a.chart_energy {
        charts.push((1, p.clone()));
    }
    if !a.force {
        for (_, p) in &charts {
            if p != Path::new("-") && p.exists() {
                anyhow::bail!("{} exists (use --force to overwrite)", p.display());
            }
        }
    }
    let key = a.key_size.size();
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let params = distinct_points(key);
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(params.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:40}] {pos}/{len} designs ({elapsed}, about {eta} left)",
        ) {
            b.set_style(style.progress_chars("=> "));
        }
        b.set_message(format!("AES-{}", key.bits()));
        Some(b)
    } else {
        None
    };
    let t0 = Instant::now();
    // Without a terminal, a line on stderr at every tenth of the designs.
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = params.len();
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
            return;
        }
        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if d == total || (d * 10 / total.max(1)) != ((d - 1) * 10 / total.max(1)) {
            eprintln!(
                "explore: AES-{} {d}/{total} designs ({:.1} s)",
                key.bits(),
                t0.elapsed().as_secs_f64()
            );
        }
    };
    let x = run_points(key, &params, a.blocks, jobs, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let secs = t0.elapsed().as_secs_f64();
    if a.json {
        println!("{}", x.to_json());
    } else {
        print_text(&x, a.all, secs, jobs);
    }
    let svgs = x.charts();
    for (i, path) in &charts {
        crate::text_out::write_reported(Some(path), &chart::render(&svgs[*i]), a.force)?;
    }
    let unverified: Vec<&Point> = x
        .points
        .iter()
        .filter(|p| p.metrics.as_ref().is_some_and(|m| !m.verified))
        .collect();
    if !x.failed.is_empty() || !unverified.is_empty() {
        for f in &x.failed {
            eprintln!("aesflow explore: {f}");
        }
        for p in &unverified {
            eprintln!("aesflow explore: {} does not encrypt correctly", p.label);
        }
        anyhow::bail!(
            "{} designs failed, {} encrypt wrongly",
            x.failed.len(),
            unverified.len()
        );
    }
    Ok(())
}
