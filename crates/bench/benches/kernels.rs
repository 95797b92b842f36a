//! `cargo bench -p aesflow-bench --bench kernels`: the kernel throughput
//! table.
//!
//! Quick by default (hardware kernels, AES-128/256, 1 KiB and 16 KiB);
//! `AESFLOW_BENCH_FULL=1` runs the full matrix (every available kernel, all
//! key sizes, 64 B to 1 MiB). `AESFLOW_BENCH_JSON=1` prints JSON instead.
//! Under `cargo test --benches` (no `--bench` argument) it only runs a tiny
//! smoke configuration.

use aesflow_bench::{
    BenchOptions, Measuring, SuiteOptions, render_suite_json, render_suite_table, run_suite,
};

fn main() {
    let mut opts = BenchOptions::from_env();
    let json = std::env::var("AESFLOW_BENCH_JSON").is_ok_and(|v| !v.is_empty() && v != "0");
    if !std::env::args().any(|a| a == "--bench") {
        opts.sizes = vec![1024];
        opts.measuring = Measuring::smoke();
    }
    let suite = SuiteOptions {
        kernels: Some(opts),
        ..SuiteOptions::default()
    };
    match run_suite(&suite, &mut |_| {}) {
        Ok(r) if json => println!("{}", render_suite_json(&r)),
        Ok(r) => print!("{}", render_suite_table(&r, None)),
        Err(e) => {
            eprintln!("aesflow-bench: {e}");
            std::process::exit(2);
        }
    }
}
