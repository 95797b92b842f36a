//! `cargo bench -p aesflow-bench --bench kernels`: the kernel throughput
//! table.
//!
//! Quick by default (hardware kernels, AES-128/256, 1 KiB and 16 KiB);
//! `AESFLOW_BENCH_FULL=1` runs the full matrix (every available kernel, all
//! key sizes, 64 B to 1 MiB). `AESFLOW_BENCH_JSON=1` prints JSON instead.
//! Under `cargo test --benches` (no `--bench` argument) it only runs a tiny
//! smoke configuration.

use aesflow_bench::{BenchOptions, render_json, render_table, run};
use std::time::Duration;

fn main() {
    let mut opts = BenchOptions::from_env();
    opts.json = std::env::var("AESFLOW_BENCH_JSON").is_ok_and(|v| !v.is_empty() && v != "0");
    if !std::env::args().any(|a| a == "--bench") {
        opts.sizes = vec![1024];
        opts.min_time = Duration::from_millis(2);
        opts.repetitions = 1;
        opts.peers.openssl = false;
    }
    match run(&opts) {
        Ok(report) if opts.json => println!("{}", render_json(&report)),
        Ok(report) => print!("{}", render_table(&report)),
        Err(e) => {
            eprintln!("aesflow-bench: {e}");
            std::process::exit(2);
        }
    }
}
