//! `cargo bench -p aesflow-bench`: the kernel throughput table.
//!
//! Quick by default (hardware kernels, AES-128/256, 1 KiB and 16 KiB);
//! `AESFLOW_BENCH_FULL=1` runs the full matrix (every available kernel, all
//! key sizes, 64 B to 1 MiB). `AESFLOW_BENCH_JSON=1` prints JSON instead.

use aesflow_bench::{BenchOptions, render_json, render_table, run};

fn main() {
    let mut opts = BenchOptions::from_env();
    opts.json = std::env::var("AESFLOW_BENCH_JSON").is_ok_and(|v| !v.is_empty() && v != "0");
    match run(&opts) {
        Ok(report) if opts.json => println!("{}", render_json(&report)),
        Ok(report) => print!("{}", render_table(&report)),
        Err(e) => {
            eprintln!("aesflow-bench: {e}");
            std::process::exit(2);
        }
    }
}
