//! `aesflow designs`: the 16 many-core AES engines of Liu & Baas.

use std::path::PathBuf;

use aesflow_array::{Platform, svg};
use aesflow_cipher::KeySize;
use aesflow_designs::report::{fips_key, format_table, measure, normalise, table2, to_json};
use aesflow_designs::{
    Design, Engine, Expansion, Optimisations, analysis, describe, run::finish_design,
};

/// Arguments of `aesflow designs`.
#[derive(clap::Args, Debug, Default)]
pub struct DesignsArgs {
    /// Print Table 2 beside the model (cycles/byte, cores, communication
    /// cores, throughput per core) with the relative error of each cell.
    #[arg(long)]
    pub table: bool,
    /// Key size in bits: 128, 192 or 256.
    #[arg(long, default_value_t = 128)]
    pub key: usize,
    /// Write the Graphviz DOT of ENGINE's design to stdout.
    #[arg(long, value_name = "ENGINE")]
    pub dot: Option<String>,
    /// Write an SVG of ENGINE's placement on the mesh (to --out or ENGINE.svg).
    #[arg(long, value_name = "ENGINE")]
    pub map: Option<String>,
    /// Write ENGINE as an SDF3 XML graph (expanded firings) to stdout.
    #[arg(long, value_name = "ENGINE")]
    pub sdf3: Option<String>,
    /// Run a design from a description file (see `engines/*.aesflow`).
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Print a design's description (to edit and run with --file).
    #[arg(long, value_name = "ENGINE")]
    pub describe: Option<String>,
    /// Use offline key expansion for --dot/--map/--file/--describe.
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
    /// Output file for --map.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn key_size(bits: usize) -> anyhow::Result<KeySize> {
    KeySize::from_bits(bits).map_err(|e| anyhow::anyhow!("--key: {e}"))
}

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

fn design_of(a: &DesignsArgs, name: &str) -> anyhow::Result<Design> {
    let (x, o) = opts(a);
    Ok(aesflow_designs::build(
        engine(name)?,
        key_size(a.key)?,
        x,
        o,
    ))
}

/// The Table 2 text (for `demo`).
pub fn table_text(blocks: usize) -> anyhow::Result<String> {
    let p = Platform::default();
    let rows = table2(KeySize::Aes128, blocks, &p).map_err(anyhow::Error::msg)?;
    Ok(format_table(&rows, &p))
}

/// Run `aesflow designs`.
pub fn run(a: DesignsArgs) -> anyhow::Result<()> {
    let platform = Platform::default();
    let key = key_size(a.key)?;
    if let Some(name) = &a.dot {
        print!("{}", describe::to_dot(&design_of(&a, name)?));
        return Ok(());
    }
    if let Some(name) = &a.describe {
        print!("{}", describe::write(&design_of(&a, name)?));
        return Ok(());
    }
    if let Some(name) = &a.sdf3 {
        print!(
            "{}",
            analysis::to_sdf3(&design_of(&a, name)?).map_err(anyhow::Error::msg)?
        );
        return Ok(());
    }
    if let Some(name) = &a.map {
        let d = design_of(&a, name)?;
        let m = aesflow_designs::run::map_design(&d, &fips_key(key), &platform)
            .map_err(anyhow::Error::msg)?;
        let title = format!(
            "{} ({}, AES-{}): {} cores, {} communication",
            d.name,
            opts(&a).0.name(),
            key.bits(),
            m.total_cores(),
            m.comm_cores()
        );
        let slug = engine(name)?.slug();
        let path = a
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("{slug}.svg")));
        std::fs::write(&path, svg::render(&m, &title))?;
        eprintln!("wrote {}", path.display());
        return Ok(());
    }
    if let Some(path) = &a.file {
        let text = std::fs::read_to_string(path)?;
        let base = describe::parse(&text).map_err(anyhow::Error::msg)?;
        let (x, o) = opts(&a);
        let d = finish_design(base, x, o);
        let k = fips_key(d.key);
        let pts = aesflow_designs::report::test_blocks(a.blocks, 1);
        let r = aesflow_designs::run_design(&d, &k, &pts, &platform).map_err(anyhow::Error::msg)?;
        let aes = aesflow_cipher::Aes::with_kernel_name(
            &k,
            "reference",
            aesflow_cipher::KeyExpansion::Offline,
        )?;
        let ok = r.ciphertext.iter().zip(&pts).all(|(c, p)| {
            let mut q = *p;
            aes.encrypt_block(&mut q);
            q == *c
        }) && r.ciphertext.len() == pts.len();
        let (sdf, crit) = analysis::sdf_bound(&d).map_err(anyhow::Error::msg)?;
        println!(
            "{}: {} cores ({} communication), {:.1} cycles/block = {:.3} cycles/byte, SDF bound {:.1} ({}), encrypts correctly: {}",
            d.name,
            r.mapping.total_cores(),
            r.mapping.comm_cores(),
            r.cycles_per_block,
            r.cycles_per_byte(),
            sdf,
            crit.join(", "),
            if ok { "yes" } else { "NO" }
        );
        return Ok(());
    }
    if a.table {
        let rows = table2(key, a.blocks, &platform).map_err(anyhow::Error::msg)?;
        if a.json {
            print!("{}", to_json(&rows));
        } else {
            print!("{}", format_table(&rows, &platform));
        }
        return Ok(());
    }
    // Default: list the engines.
    let mut rows = Vec::new();
    for e in Engine::ALL {
        for x in Expansion::ALL {
            rows.push(
                measure(e, key, x, Optimisations::ALL, 256, &platform)
                    .map_err(anyhow::Error::msg)?,
            );
        }
    }
    normalise(&mut rows);
    if a.json {
        print!("{}", to_json(&rows));
        return Ok(());
    }
    println!(
        "{:<10} {:<30} {:>12} {:>13}",
        "slug", "engine", "cores on/off", "cycles/byte"
    );
    for pair in rows.chunks(2) {
        let e = pair[0].engine;
        println!(
            "{:<10} {:<30} {:>5} / {:<5} {:>8.3}",
            e.slug(),
            e.name(),
            pair[0].cores,
            pair[1].cores,
            pair[0].cycles_per_byte()
        );
    }
    Ok(())
}
