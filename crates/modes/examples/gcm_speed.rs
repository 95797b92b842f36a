//! Ad-hoc AES-GCM throughput check (not a benchmark suite):
//!
//! `cargo run -p aesflow-modes --release --example gcm_speed [SIZE] [KEYBITS] [WHAT]`
//!
//! WHAT: `all` (default), `seal`, `open`, `seal-generic`, `ctr`, `ghash`.
//! Prints GB/s by wall clock; on a loaded machine prefer
//! the per-CPU-second figure (CPU time from /proc/self/stat).

use aesflow_modes::gcm::{FusedChoice, Gcm, GcmOptions, GhashImpl, GhashKey};
use std::time::Instant;

/// CPU time (user + system) of this process in seconds, from
/// `/proc/self/stat` (clock ticks of 10 ms): robust against other load on the
/// machine, unlike wall-clock time.
fn cpu_time() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of the whole line are 12 and 13 after the ')'.
    (tick(11) + tick(12)) / 100.0
}

fn run(label: &str, size: usize, budget: f64, mut f: impl FnMut()) {
    f();
    let (t, c) = (Instant::now(), cpu_time());
    let mut bytes = 0usize;
    // Best batch of ~64 KiB: on a shared machine the least disturbed one.
    let per = (1 << 16) / size.max(1) + 1;
    let mut best = f64::INFINITY;
    while t.elapsed().as_secs_f64() < budget {
        for _ in 0..16 {
            let b = Instant::now();
            for _ in 0..per {
                f();
            }
            best = best.min(b.elapsed().as_secs_f64());
            bytes += per * size;
        }
    }
    let (wall, cpu) = (t.elapsed().as_secs_f64(), cpu_time() - c);
    println!(
        "{label}: {:.2} GB/s per CPU-second ({:.2} GB/s wall, best batch {:.2} GB/s)",
        bytes as f64 / cpu / 1e9,
        bytes as f64 / wall / 1e9,
        (per * size) as f64 / best / 1e9
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(16384);
    let bits: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(128);
    let what = args.get(3).map(String::as_str).unwrap_or("all");
    let key = vec![0x42u8; bits / 8];
    let nonce = [7u8; 12];
    let mut buf = vec![0u8; size];
    let aes = aesflow_cipher::Aes::new(&key).unwrap();
    let on = |w: &str| what == "all" || what == w;
    println!("AES kernel: {}", aes.kernel().name());
    if on("ctr") {
        run(
            &format!("CTR alone ({})", aes.kernel().name()),
            size,
            3.0,
            || aes.ctr_xor(&mut [0u8; 16], &mut buf),
        );
    }
    if on("ghash") {
        for imp in GhashImpl::ALL.into_iter().filter(|g| g.is_available()) {
            let k = GhashKey::new(&[1; 16], imp);
            let mut x = 0u128;
            run(&format!("GHASH alone ({})", imp.name()), size, 3.0, || {
                k.update_padded(&mut x, &buf)
            });
        }
    }
    for (fused, suffix) in [(FusedChoice::Auto, ""), (FusedChoice::Off, "-generic")] {
        let gcm = Gcm::with_options(&aes, GcmOptions { ghash: None, fused }).unwrap();
        let label = format!(
            "AES-{bits}-GCM {size} B, fused={} ghash={}",
            gcm.fused_kernel().unwrap_or("none"),
            gcm.ghash_impl().name()
        );
        if on(&format!("seal{suffix}")) {
            run(&format!("{label} seal"), size, 3.0, || {
                gcm.seal_in_place_detached(&nonce, b"", &mut buf).unwrap();
            });
        }
        if on(&format!("open{suffix}")) {
            let mut ct = vec![0u8; size];
            let tag = gcm.seal_in_place_detached(&nonce, b"", &mut ct).unwrap();
            // Decrypt in place, then re-encrypt is not timed: instead open
            // and immediately re-seal would double the work, so open the
            // same ciphertext each time through a copy (memcpy included).
            run(&format!("{label} open (incl. copy)"), size, 3.0, || {
                gcm.open_into(&nonce, b"", &ct, &tag, &mut buf).unwrap();
            });
        }
    }
}
