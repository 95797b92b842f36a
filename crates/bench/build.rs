//! Records the `rustc` that builds this crate (for the machine description
//! of every report) and, with the `ipsec-mb` feature, finds the static
//! `libIPSec_MB.a` (`IPSEC_MB_LIB_DIR`, else the usual library directories).

use std::path::Path;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=AESFLOW_BENCH_RUSTC={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rerun-if-env-changed=IPSEC_MB_LIB_DIR");
    if std::env::var_os("CARGO_FEATURE_IPSEC_MB").is_none() {
        return;
    }
    let candidates = std::env::var("IPSEC_MB_LIB_DIR").into_iter().chain(
        [
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib64",
            "/usr/local/lib",
            "/usr/lib",
        ]
        .map(String::from),
    );
    for dir in candidates {
        if Path::new(&dir).join("libIPSec_MB.a").is_file() {
            println!("cargo:rustc-link-search=native={dir}");
            return;
        }
    }
    panic!(
        "feature ipsec-mb: libIPSec_MB.a not found (install libipsec-mb-dev, \
         or set IPSEC_MB_LIB_DIR to its directory)"
    );
}
