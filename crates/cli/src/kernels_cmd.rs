//! `aesflow kernels`: the kernel registry as a table.

use aesflow_cipher::{KERNEL_ENV, default_kernel, detect_best, kernels};

pub fn run() -> anyhow::Result<()> {
    let best = detect_best().name();
    let default = default_kernel()?.name();
    println!(
        "{:<10} {:<10} {:<14} description",
        "kernel", "available", "constant-time"
    );
    for k in kernels() {
        let mark = if k.name() == default {
            " (default)"
        } else {
            ""
        };
        println!(
            "{:<10} {:<10} {:<14} {}{mark}",
            k.name(),
            if k.is_available() { "yes" } else { "no" },
            if k.is_constant_time() { "yes" } else { "NO" },
            k.description(),
        );
    }
    println!("\nautodetected: {best}; set {KERNEL_ENV}=<name> to force a kernel.");
    Ok(())
}
