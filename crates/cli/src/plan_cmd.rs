//! The plan at the command's edge: resolved once from `AESFLOW_PLAN`, the
//! user's cache directory or the table of measured CPUs (a warning about an
//! ignored plan file printed once), handed to the libraries as a value;
//! `aesflow tune`, which measures and writes it; and the lines `aesflow
//! kernels` prints about it.

use aesflow_plan::{Operation, Plan, Resolved};
use clap::Args;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The plan in force for this process (resolved on first use; a warning
/// about an ignored plan file goes to stderr then, once).
pub fn resolved() -> &'static Resolved {
    static PLAN: OnceLock<Resolved> = OnceLock::new();
    PLAN.get_or_init(|| {
        let r = aesflow_plan::resolve();
        if let Some(w) = &r.warning {
            eprintln!("aesflow: warning: {w}");
        }
        r
    })
}

/// The plan's lines of `aesflow kernels`.
pub fn print_plan() {
    let r = resolved();
    println!("\nplan: {}", r.plan.describe());
    println!("  from {}", r.origin);
    println!(
        "  `aesflow tune` measures this CPU and writes its own; {}=FILE uses another.",
        aesflow_plan::PLAN_ENV
    );
}

/// `aesflow tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Where to write the plan (default: the file `AESFLOW_PLAN` names, else
    /// the user's cache directory, `~/.cache/aesflow/plan.json`).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Measuring time per operation, in milliseconds (every variant of the
    /// operation shares it).
    #[arg(long, value_name = "MS", default_value_t = 3000,
          value_parser = clap::value_parser!(u64).range(10..=20_000))]
    pub time_ms: u64,
    /// Measure and print, but write no file.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(args: TuneArgs) -> anyhow::Result<()> {
    let path = match (&args.output, args.dry_run) {
        (_, true) => None,
        (Some(p), false) => Some(p.clone()),
        (None, false) => Some(
            std::env::var_os(aesflow_plan::PLAN_ENV)
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .or_else(aesflow_plan::file::default_path)
                .ok_or_else(|| {
                    anyhow::anyhow!("no cache directory ($XDG_CACHE_HOME and $HOME are unset): use --output FILE")
                })?,
        ),
    };
    let cpu = aesflow_cipher::identity();
    let (base, origin) = Plan::for_cpu(cpu, aesflow_cipher::features());
    eprintln!(
        "tuning on {} family {:#x} model {:#x}: {} operations, about {} ms each",
        cpu.vendor.name(),
        cpu.family,
        cpu.model,
        Operation::ALL.len(),
        args.time_ms
    );
    let start = Instant::now();
    let tuned = aesflow_bench::tune::tune(base, Duration::from_millis(args.time_ms), &mut |s| {
        eprintln!("  {s}")
    });
    println!("{:<24} {:<10} {:>8}", "operation", "variant", "GB/s");
    for m in &tuned.measurements {
        let chosen = Operation::from_name(&m.operation)
            .is_some_and(|o| tuned.plan.variant(o).name() == m.variant);
        println!(
            "{:<24} {:<10} {:>8.2}{}",
            m.operation,
            m.variant,
            m.gbps,
            if chosen { "  (chosen)" } else { "" }
        );
    }
    for (op, why) in &tuned.skipped {
        println!(
            "{:<24} not timed: {why}; keeps {}",
            op.name(),
            base.variant(*op)
        );
    }
    println!(
        "plan: {} (without tuning: {}, from {origin})",
        tuned.plan.describe(),
        base.describe()
    );
    eprintln!("tuned in {:.1} s", start.elapsed().as_secs_f64());
    if let Some(path) = path {
        aesflow_plan::file::write(&path, &tuned.plan, cpu, &tuned.measurements)
            .map_err(|e| anyhow::anyhow!("cannot write the plan to {}: {e}", path.display()))?;
        println!("written to {}", path.display());
    }
    Ok(())
}
