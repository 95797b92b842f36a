//! `cargo bench -p aesflow-bench --bench modes`: the modes section (CBC
//! through the multi-stream engine, CBC decryption, CTR, GCM beside
//! RustCrypto and OpenSSL) and a small engine section (64 MiB in memory, a
//! 256 MiB file) — `aesflow bench --modes --engine` runs the full-size one.
//!
//! `AESFLOW_BENCH_MEM_MIB` / `AESFLOW_BENCH_FILE_MIB` set the engine sizes
//! (0 skips that part), `AESFLOW_BENCH_OPENSSL=0` drops the OpenSSL peers.
//! It prints the rows as JSON (`aesflow bench` renders them as tables). Under `cargo test --benches` (no
//! `--bench` argument) it only runs a tiny smoke configuration.

use aesflow_bench::{
    EngineOptions, Measuring, ModesOptions, SuiteOptions, render_suite_json, run_suite,
};
use aesflow_cipher::KeySize;
use std::time::Duration;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let openssl = bench && !std::env::var("AESFLOW_BENCH_OPENSSL").is_ok_and(|v| v == "0");
    let mut modes = ModesOptions::default();
    modes.measuring.min_time = Duration::from_millis(100);
    modes.measuring.peers.openssl = openssl;
    modes.measuring.peers.ipsec_mb &= bench;
    let mut engine = EngineOptions {
        mem_size: (env_u64("AESFLOW_BENCH_MEM_MIB", 64) << 20) as usize,
        file_size: env_u64("AESFLOW_BENCH_FILE_MIB", 256) << 20,
        openssl,
        ipsec_mb: bench && cfg!(feature = "ipsec-mb"),
        openssl_seconds: 1,
        ..EngineOptions::default()
    };
    if !bench {
        modes = ModesOptions {
            streams: vec![1, 8],
            size: 1024,
            key_sizes: vec![KeySize::Aes128],
            measuring: Measuring {
                peers: modes.measuring.peers,
                ..Measuring::smoke()
            },
            ..modes
        };
        engine = EngineOptions {
            mem_size: 1 << 20,
            reps: 1,
            file_size: 1 << 20,
            file_reps: 1,
            ..engine
        };
    }
    let opts = SuiteOptions {
        kernels: None,
        modes: Some(modes),
        engine: Some(engine),
    };
    match run_suite(&opts, &mut |_| {}) {
        Ok(r) => println!("{}", render_suite_json(&r)),
        Err(e) => {
            eprintln!("aesflow-bench: {e}");
            std::process::exit(2);
        }
    }
}
