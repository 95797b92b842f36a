//! Multi-stream throughput against ECB of the same width in the same run:
//! CBC/CFB/OFB encryption of `S` streams × 16 KiB, AES-128, distinct keys
//! (each stream its own `RoundKeys`, the gateway case) and one shared key,
//! on every backend this CPU runs; ECB on every available kernel is the
//! ceiling. On-CPU time of this thread (the machine is shared), best of
//! five 200 ms rounds; ratios are what to compare across machines. The
//! calls share one [`Scratch`], as a caller that makes many calls keeps
//! one.
//!
//! ```text
//! cargo bench -p aesflow-multistream --bench lanes [-- cbc|cfb|ofb]
//! ```
//!
//! `MS_SIZE` sets the bytes per stream; `MS_STREAMS=8,16` the stream counts,
//! `MS_BACKEND=vaes` the one backend to run; `MS_ALIGN=1` puts every
//! stream on a 64-byte boundary, `MS_PACKED=1` allocates each buffer at
//! exactly the stream's size, one after another. Without `--bench` (as under
//! `cargo test --benches`) it runs a tiny smoke configuration.

use aesflow_cipher::{KeySchedule, RoundKeys, available_kernels};
use aesflow_multistream::{Backend, Job, Mode, MultiStream, Scratch};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Best on-CPU GB/s of `f`, which processes `bytes` per call.
fn measure(bytes: usize, mut f: impl FnMut()) -> f64 {
    f();
    let full = std::env::args().any(|a| a == "--bench");
    let (rounds, round) = if full { (5, 200) } else { (1, 2) };
    let mut best = 0.0f64;
    for _ in 0..rounds {
        let start = Instant::now();
        let cpu0 = cpu_ns();
        let mut reps = 0u64;
        while start.elapsed() < Duration::from_millis(round) {
            f();
            reps += 1;
        }
        let secs = match (cpu0, cpu_ns()) {
            (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
            _ => start.elapsed().as_secs_f64(),
        };
        best = best.max(reps as f64 * bytes as f64 / secs / 1e9);
    }
    best
}

/// Nanoseconds this thread has run on a CPU (Linux `schedstat`).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn main() {
    // Bytes per stream: `MS_SIZE` (default 16 KiB).
    let size: usize = std::env::var("MS_SIZE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16384);
    let mode = match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(m) if m == "cfb" => Mode::CfbEncrypt,
        Some(m) if m == "ofb" => Mode::Ofb,
        _ => Mode::CbcEncrypt,
    };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    println!("CPU: {cpu}; {mode}, AES-128, {size} bytes per stream, on-CPU GB/s");
    let rk = RoundKeys::from_bytes(&[7u8; 16]).expect("key");
    let ks = KeySchedule::Offline(rk.clone());
    let mut blocks = vec![[5u8; 16]; size / 16];
    let mut ecb = Vec::new();
    for k in available_kernels() {
        let g = measure(size, || k.encrypt_blocks(&ks, black_box(&mut blocks)));
        println!("ECB {:10} {g:6.2}", k.name());
        ecb.push(g);
    }
    let ceiling = ecb.iter().copied().fold(0.0, f64::max);
    println!("streams  backend   keys      GB/s  x best ECB");
    // `MS_STREAMS=16,32` and `MS_BACKEND=vaes` narrow the table.
    let counts: Vec<usize> = std::env::var("MS_STREAMS")
        .ok()
        .map(|v| v.split(',').filter_map(|c| c.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2, 4, 8, 16, 32, 64]);
    let only = std::env::var("MS_BACKEND").ok();
    for backend in Backend::available() {
        if only.as_deref().is_some_and(|b| b != backend.name()) {
            continue;
        }
        let engine = MultiStream::new(backend).expect("available");
        for &streams in &counts {
            let keys: Vec<RoundKeys> = (0..streams)
                .map(|s| RoundKeys::from_bytes(&[s as u8 + 1; 16]).expect("key"))
                .collect();
            // `MS_SKEW=1`: stream `s` starts `320 s` bytes into its buffers
            // (a layout experiment: buffers otherwise share their offsets
            // modulo 4 KiB).
            let skew = std::env::var("MS_SKEW").is_ok_and(|v| v == "1");
            // `MS_PACKED=1`: every buffer exactly `size` bytes, inputs then
            // outputs, as an application allocates one 16 KiB buffer per
            // stream (malloc puts them 16 bytes past multiples of 4 KiB
            // apart, so four consecutive streams share an L1 set).
            let packed = std::env::var("MS_PACKED").is_ok_and(|v| v == "1");
            let pad = |s: usize| if skew { 320 * s } else { 0 };
            let (slack, gap) = if packed { (0, 0) } else { (64, 160) };
            // `MS_ALIGN=1`: every input and output starts on a 64-byte
            // boundary (a layout experiment).
            let align = std::env::var("MS_ALIGN").is_ok_and(|v| v == "1") && !packed;
            let fix = |p: *const u8| if align { p.align_offset(64) } else { 0 };
            let in_bufs: Vec<Vec<u8>> = (0..streams)
                .map(|s| vec![s as u8; size + pad(s) + slack])
                .collect();
            let mut out_bufs: Vec<Vec<u8>> = (0..streams)
                .map(|s| vec![0u8; size + pad(s) + gap + slack])
                .collect();
            let input: Vec<&[u8]> = in_bufs
                .iter()
                .enumerate()
                .map(|(s, b)| {
                    let o = pad(s) + fix(b[pad(s)..].as_ptr());
                    &b[o..o + size]
                })
                .collect();
            let mut output: Vec<&mut [u8]> = out_bufs
                .iter_mut()
                .enumerate()
                .map(|(s, b)| {
                    let o = pad(s) + gap + fix(b[pad(s) + gap..].as_ptr());
                    &mut b[o..o + size]
                })
                .collect();
            let mut scratch = Scratch::new();
            for shared in [false, true] {
                let g = measure(streams * size, || {
                    let mut jobs: Vec<Job<'_>> = input
                        .iter()
                        .zip(output.iter_mut())
                        .enumerate()
                        .map(|(s, (i, o))| {
                            let k = if shared { &rk } else { &keys[s] };
                            Job::new(mode, k, [s as u8; 16], i, &mut o[..])
                        })
                        .collect();
                    engine
                        .process_with(&mut scratch, black_box(&mut jobs))
                        .expect("valid");
                });
                let which = if shared { "shared" } else { "distinct" };
                println!(
                    "{streams:7}  {:8}  {which:8}  {g:5.2}  {:5.2}",
                    backend.name(),
                    g / ceiling
                );
            }
            if backend == Backend::Portable && streams >= 2 {
                break;
            }
        }
    }
}
