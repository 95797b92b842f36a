//! `aesflow designs`: the 16 many-core AES engines of Liu & Baas, and
//! design files a user writes.

use std::path::PathBuf;

use aesflow_array::{Platform, svg};
use aesflow_designs::report::{Row, fips_key, measure, normalise, table2, test_blocks, to_json};
use aesflow_designs::{
    Design, Engine, Expansion, Optimisations, analysis, describe, run::finish_design,
};

use crate::args::KeySizeArg;
use crate::explore_cmd::table;
use crate::text_out::write_reported;

/// Arguments of `aesflow designs`.
#[derive(clap::Args, Debug, Default)]
#[command(after_long_help = DESIGNS_HELP)]
pub struct DesignsArgs {
    /// Print Table 2 beside the model (cycles/byte, cores, communication
    /// cores, throughput per core) with the relative error of each cell.
    #[arg(long)]
    pub table: bool,
    /// Key size of the built-in engines (a design file states its own; a
    /// different --key-size is an error).
    #[arg(long, value_enum)]
    pub key_size: Option<KeySizeArg>,
    /// Write the Graphviz DOT of ENGINE's design (or of --file's).
    #[arg(long, value_name = "ENGINE", num_args = 0..=1, default_missing_value = "")]
    pub dot: Option<String>,
    /// Write an SVG of ENGINE's (or --file's) placement on the mesh to -o.
    #[arg(long, value_name = "ENGINE", num_args = 0..=1, default_missing_value = "")]
    pub map: Option<String>,
    /// Write ENGINE's (or --file's) design as an SDF3 XML graph.
    #[arg(long, value_name = "ENGINE", num_args = 0..=1, default_missing_value = "")]
    pub sdf3: Option<String>,
    /// Print ENGINE's (or --file's) description (to edit and run with --file).
    #[arg(long, value_name = "ENGINE", num_args = 0..=1, default_missing_value = "")]
    pub describe: Option<String>,
    /// A design from a description file (see `engines/*.aesflow`): run it,
    /// or export it with --dot/--map/--sdf3/--describe.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Use offline key expansion.
    #[arg(long)]
    pub offline: bool,
    /// Skip the area optimisations of §5.
    #[arg(long)]
    pub no_opt: bool,
    /// Blocks to simulate per engine.
    #[arg(long, default_value_t = 4096)]
    pub blocks: usize,
    /// Machine-readable output (JSON).
    #[arg(long)]
    pub json: bool,
    /// Output file for --dot/--map/--sdf3/--describe (`-`: stdout; --map
    /// needs it).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Overwrite an existing output file.
    #[arg(long)]
    pub force: bool,
}

const DESIGNS_HELP: &str = "\
Examples:
  aesflow designs                                  # list the engines
  aesflow designs --table                          # Table 2 beside the model
  aesflow designs --dot full -o full.dot           # Graphviz DOT of Full-parallelism
  aesflow designs --map no-merge -o no-merge.svg   # its placement on the mesh
  aesflow designs --describe otop -o mine.aesflow  # a design file to edit
  aesflow designs --file mine.aesflow              # simulate it, check the ciphertext
  aesflow designs --file mine.aesflow --sdf3 -o mine.xml

A design file that deadlocks, runs without end, lacks a key path or encrypts
wrongly is reported and the command exits non-zero.";

fn engine(s: &str) -> anyhow::Result<Engine> {
    Engine::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Engine::ALL.iter().map(|e| e.slug()).collect();
        anyhow::anyhow!("unknown engine {s}; one of: {}", names.join(", "))
    })
}

fn opts(a: &DesignsArgs) -> (Expansion, Optimisations) {
    (
        if a.offline {
            Expansion::Offline
        } else {
            Expansion::Online
        },
        if a.no_opt {
            Optimisations::NONE
        } else {
            Optimisations::ALL
        },
    )
}

/// The design to export or run: `--file`'s, or the named built-in engine.
fn the_design(a: &DesignsArgs, name: &str) -> anyhow::Result<Design> {
    let (x, o) = opts(a);
    match (&a.file, name.is_empty()) {
        (Some(_), false) => {
            anyhow::bail!("give either --file or an engine name ({name}), not both")
        }
        (None, true) => anyhow::bail!("name an engine (e.g. full) or give --file"),
        (None, false) => {
            let key = a.key_size.unwrap_or_default().size();
            Ok(aesflow_designs::build(engine(name)?, key, x, o))
        }
        (Some(path), true) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            let base =
                describe::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            if let Some(k) = a.key_size
                && k.size() != base.key
            {
                anyhow::bail!(
                    "{} is an AES-{} design (its `key` line); --key-size {} conflicts",
                    path.display(),
                    base.key.bits(),
                    k.size().bits()
                );
            }
            Ok(finish_design(base, x, o))
        }
    }
}

fn over_chip(p: &Platform) -> String {
    format!(
        "EXCEEDS the {}-core chip: the mesh was grown to simulate it",
        p.chip_cores
    )
}

/// The Table 2 text (for `demo`).
pub fn table_text(blocks: usize) -> anyhow::Result<String> {
    let p = Platform::default();
    let rows = table2(aesflow_cipher::KeySize::Aes128, blocks, &p)?;
    Ok(format_table(&rows, &p))
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:+.1}%", 100.0 * v))
}

fn opt<T: std::fmt::Display>(x: Option<T>) -> String {
    x.map_or("-".into(), |v| v.to_string())
}

const TABLE_LEGEND: &str = "\
Legend: keys = key expansion; c/B = cycles per byte, simulated (model) and
Table 2's (paper), err = model / paper - 1; cores = cores on the mesh after
the optimisations of section 5; pre = cores before them; comm = MergeCores +
DispatchCores; pap. = the paper's figure for the column to its left; TPC =
throughput per core normalised to Parallel-MixColumns online; SDF c/blk = the
SDF bound in cycles per block (block-level, no word overlap); Gbps at 1.2 GHz;
ok = every block encrypted like the reference cipher; chip = fits the
164-core chip, or OVER (more cores: the mesh was grown to simulate it).";

/// Rows as a table (model beside paper, with errors) and its legend.
pub fn format_table(rows: &[Row], platform: &Platform) -> String {
    let key = rows.first().map_or(128, |r| r.key.bits());
    let mut t = table();
    t.set_header(vec![
        "engine",
        "keys",
        "c/B",
        "paper",
        "err",
        "cores",
        "paper",
        "pre",
        "comm",
        "pap.",
        "TPC",
        "paper",
        "err",
        "SDF c/blk",
        "Gbps",
        "ok",
        "chip",
    ]);
    for r in rows {
        let p = r.paper();
        t.add_row(vec![
            r.engine.name().to_string(),
            r.expansion.name().to_string(),
            format!("{:.3}", r.cycles_per_byte()),
            opt(p.map(|p| format!("{:.3}", p.cycles_per_byte))),
            pct(r.cpb_error()),
            r.cores.to_string(),
            opt(r.paper_cores()),
            r.pre_opt_cores.to_string(),
            r.comm.to_string(),
            opt(r.paper_comm()),
            format!("{:.2}", r.tpc),
            opt(p.map(|p| format!("{:.2}", p.tpc[r.xi()]))),
            pct(r.tpc_error()),
            format!("{:.1}", r.sdf_cycles_per_block),
            format!(
                "{:.3}",
                128.0 * platform.clock_hz / r.cycles_per_block / 1e9
            ),
            (if r.verified { "yes" } else { "NO" }).into(),
            (if r.exceeds_chip { "OVER" } else { "fits" }).into(),
        ]);
    }
    format!(
        "AES-{key}: model (timed simulation on the AsAP2 model) vs Liu & Baas Table 2; {} blocks each\n{t}\n{TABLE_LEGEND}\n",
        rows.first().map_or(0, |r| r.blocks)
    )
}

/// The result of running a design file, as JSON.
#[derive(serde::Serialize)]
struct FileRun<'a> {
    design: &'a str,
    key_bits: usize,
    expansion: &'static str,
    cores: usize,
    comm_cores: usize,
    exceeds_chip: bool,
    cycles_per_block: Option<f64>,
    cycles_per_byte: Option<f64>,
    sdf_cycles_per_block: f64,
    sdf_critical: &'a [String],
    blocks: usize,
    verified: bool,
}

fn run_file(a: &DesignsArgs, platform: &Platform) -> anyhow::Result<()> {
    let d = the_design(a, "")?;
    let k = fips_key(d.key);
    let pts = test_blocks(a.blocks, 1);
    let r = aesflow_designs::run_design(&d, &k, &pts, platform)?;
    let aes = aesflow_cipher::Aes::with_kernel_name(
        &k,
        "reference",
        aesflow_cipher::KeyExpansion::Offline,
    )?;
    let ok = r.ciphertext.len() == pts.len()
        && r.ciphertext.iter().zip(&pts).all(|(c, p)| {
            let mut q = *p;
            aes.encrypt_block(&mut q);
            q == *c
        });
    let (sdf, crit) = analysis::sdf_bound(&d)?;
    let cpb = r.cycles_per_block.is_finite().then_some(r.cycles_per_block);
    if a.json {
        let j = FileRun {
            design: &d.name,
            key_bits: d.key.bits(),
            expansion: opts(a).0.name(),
            cores: r.mapping.total_cores(),
            comm_cores: r.mapping.comm_cores(),
            exceeds_chip: r.mapping.exceeds_chip,
            cycles_per_block: cpb,
            cycles_per_byte: cpb.map(|c| c / 16.0),
            sdf_cycles_per_block: sdf,
            sdf_critical: &crit,
            blocks: pts.len(),
            verified: ok,
        };
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        let speed = cpb.map_or("too few blocks for a steady-state figure".into(), |c| {
            format!("{c:.1} cycles/block = {:.3} cycles/byte", c / 16.0)
        });
        println!(
            "{} (AES-{}): {} cores ({} communication){}, {speed}, SDF bound {sdf:.1} ({}), encrypts correctly: {}",
            d.name,
            d.key.bits(),
            r.mapping.total_cores(),
            r.mapping.comm_cores(),
            if r.mapping.exceeds_chip {
                format!(", {}", over_chip(platform))
            } else {
                String::new()
            },
            crit.join(", "),
            if ok { "yes" } else { "NO" }
        );
    }
    if !ok {
        anyhow::bail!(
            "{}: the ciphertext differs from the reference cipher's",
            d.name
        );
    }
    Ok(())
}

fn export(a: &DesignsArgs, platform: &Platform) -> anyhow::Result<bool> {
    let out = a.output.clone();
    let to = |text: String| -> anyhow::Result<bool> {
        write_reported(out.as_deref(), &text, a.force)?;
        Ok(true)
    };
    let picked = [&a.dot, &a.map, &a.sdf3, &a.describe]
        .iter()
        .filter(|x| x.is_some())
        .count();
    if picked > 1 {
        anyhow::bail!("give one of --dot, --map, --sdf3, --describe at a time");
    }
    if let Some(name) = &a.dot {
        return to(describe::to_dot(&the_design(a, name)?));
    }
    if let Some(name) = &a.describe {
        return to(describe::write(&the_design(a, name)?));
    }
    if let Some(name) = &a.sdf3 {
        return to(analysis::to_sdf3(&the_design(a, name)?)?);
    }
    if let Some(name) = &a.map {
        let Some(path) = &a.output else {
            anyhow::bail!("--map writes an SVG: name the file with -o PATH (or -o - for stdout)");
        };
        let d = the_design(a, name)?;
        let m = aesflow_designs::run::map_design(&d, &fips_key(d.key), platform)?;
        let mut title = format!(
            "{} ({}, AES-{}): {} cores, {} communication",
            d.name,
            opts(a).0.name(),
            d.key.bits(),
            m.total_cores(),
            m.comm_cores()
        );
        if m.exceeds_chip {
            title += &format!(" - {}", over_chip(platform));
            eprintln!("aesflow designs: {}: {}", d.name, over_chip(platform));
        }
        write_reported(Some(path), &svg::render(&m, &title), a.force)?;
        return Ok(true);
    }
    Ok(false)
}

/// Run `aesflow designs`.
pub fn run(a: DesignsArgs) -> anyhow::Result<()> {
    let platform = Platform::default();
    if a.blocks < 8 {
        anyhow::bail!(
            "--blocks {}: simulate at least 8 blocks (the steady state is measured over the second half)",
            a.blocks
        );
    }
    if export(&a, &platform)? {
        return Ok(());
    }
    if a.output.is_some() {
        anyhow::bail!("-o names the output of --dot, --map, --sdf3 or --describe");
    }
    if a.file.is_some() {
        return run_file(&a, &platform);
    }
    let key = a.key_size.unwrap_or_default().size();
    if a.table {
        let bar = crate::bench_cmd::progress_bar();
        if let Some(b) = &bar {
            b.set_message(format!(
                "simulating the 16 engines on {} blocks each",
                a.blocks
            ));
        }
        let rows = table2(key, a.blocks, &platform);
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        let rows = rows?;
        if a.json {
            print!("{}", to_json(&rows));
        } else {
            print!("{}", format_table(&rows, &platform));
        }
        let wrong: Vec<String> = rows
            .iter()
            .filter(|r| !r.verified)
            .map(|r| format!("{} ({})", r.engine.name(), r.expansion.name()))
            .collect();
        if !wrong.is_empty() {
            anyhow::bail!("encrypts wrongly: {}", wrong.join(", "));
        }
        return Ok(());
    }
    // Default: list the engines.
    let mut rows = Vec::new();
    for e in Engine::ALL {
        for x in Expansion::ALL {
            rows.push(measure(
                e,
                key,
                x,
                Optimisations::ALL,
                256.min(a.blocks),
                &platform,
            )?);
        }
    }
    normalise(&mut rows);
    if a.json {
        print!("{}", to_json(&rows));
        return Ok(());
    }
    let mut t = table();
    t.set_header(vec![
        "slug",
        "engine",
        "cores online",
        "cores offline",
        "c/B",
    ]);
    for pair in rows.chunks(2) {
        let e = pair[0].engine;
        let flag = |r: &Row| {
            if r.exceeds_chip {
                format!("{} (over the chip)", r.cores)
            } else {
                r.cores.to_string()
            }
        };
        t.add_row(vec![
            e.slug().to_string(),
            e.name().to_string(),
            flag(&pair[0]),
            flag(&pair[1]),
            format!("{:.3}", pair[0].cycles_per_byte()),
        ]);
    }
    println!(
        "AES-{} engines (c/B: cycles per byte, online)\n{t}",
        key.bits()
    );
    Ok(())
}
