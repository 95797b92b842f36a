//! `aesflow kernels`: the kernel registry as a table, and the truth about
//! which kernel runs: the fastest constant-time one this CPU has, or the
//! one `AESFLOW_KERNEL` forces (which `--raw` modes honour; Cobblestone
//! always runs on the fastest constant-time kernel).

use aesflow_cipher::{KERNEL_ENV, default_kernel, detect_best, kernels};

pub fn run() -> anyhow::Result<()> {
    let best = detect_best().name();
    let chosen = default_kernel()?.name();
    let forced = std::env::var(KERNEL_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty());
    println!(
        "{:<10} {:<10} {:<14} description",
        "kernel", "available", "constant-time"
    );
    for k in kernels() {
        let mark = match (k.name() == chosen, forced.is_some()) {
            (true, true) => " (forced)",
            (true, false) => " (default)",
            _ => "",
        };
        println!(
            "{:<10} {:<10} {:<14} {}{mark}",
            k.name(),
            if k.is_available() { "yes" } else { "no" },
            if k.is_constant_time() { "yes" } else { "NO" },
            k.description(),
        );
    }
    match forced {
        Some(v) => println!(
            "\n{KERNEL_ENV}={} forces the {chosen} kernel (raw modes, benchmarks); \
             autodetected: {best} (Cobblestone encrypt/decrypt always runs on it).",
            v.trim()
        ),
        None => println!(
            "\nin use: {best} (autodetected: the fastest constant-time kernel); \
             set {KERNEL_ENV}=<name> to force another."
        ),
    }
    crate::plan_cmd::print_plan();
    Ok(())
}
