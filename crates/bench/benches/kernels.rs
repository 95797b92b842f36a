//! `cargo bench -p aesflow-bench --bench kernels`: the kernel throughput
//! rows, as JSON (`aesflow bench` renders the same rows as tables).
//!
//! Quick by default (hardware kernels, AES-128/256, 1 KiB and 16 KiB);
//! `AESFLOW_BENCH_FULL=1` runs the full matrix (every available kernel, all
//! key sizes, 64 B to 1 MiB).
//! Under `cargo test --benches` (no `--bench` argument) it only runs a tiny
//! smoke configuration.

use aesflow_bench::{BenchOptions, Measuring, SuiteOptions, render_suite_json, run_suite};

fn main() {
    let mut opts = BenchOptions::from_env();
    if !std::env::args().any(|a| a == "--bench") {
        opts.sizes = vec![1024];
        opts.measuring = Measuring::smoke();
    }
    let suite = SuiteOptions {
        kernels: Some(opts),
        ..SuiteOptions::default()
    };
    match run_suite(&suite, &mut |_| {}) {
        Ok(r) => println!("{}", render_suite_json(&r)),
        Err(e) => {
            eprintln!("aesflow-bench: {e}");
            std::process::exit(2);
        }
    }
}
