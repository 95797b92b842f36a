//! Ad-hoc throughput check (the real benchmark lives in the bench crate):
//! `S` streams × `SIZE` bytes, distinct AES keys, one `process` call per
//! repetition, one core.
//!
//! ```text
//! cargo run -p aesflow-multistream --release --example speed -- [backend] [mode] [key-bits] [size]
//! ```
//! backend: auto|vaes|aesni|portable (default auto); mode: cbc|cfb|cfb-dec|ofb
//! (default cbc); key-bits: 128|192|256 (default 128); size in bytes (default 16384).

use aesflow_multistream::{Backend, Job, Mode, MultiStream};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let backend: Backend = args.first().map_or(Backend::Auto, |s| s.parse().unwrap());
    let mode = match args.get(1).map_or("cbc", |s| s.as_str()) {
        "cbc" => Mode::CbcEncrypt,
        "cfb" => Mode::CfbEncrypt,
        "cfb-dec" => Mode::CfbDecrypt,
        "ofb" => Mode::Ofb,
        m => panic!("unknown mode {m}"),
    };
    let bits: usize = args.get(2).map_or(128, |s| s.parse().unwrap());
    let size: usize = args.get(3).map_or(16384, |s| s.parse().unwrap());
    let engine = match MultiStream::new(backend) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    println!(
        "backend {} ({} lanes), {mode}, AES-{bits}, {size} bytes per stream",
        engine.backend(),
        engine.lanes()
    );
    println!("streams  wall GB/s  on-CPU GB/s");
    for streams in [1usize, 2, 4, 8, 16, 32, 64] {
        let keys: Vec<Vec<u8>> = (0..streams)
            .map(|s| (0..bits / 8).map(|i| (s * 31 + i * 7) as u8).collect())
            .collect();
        let input: Vec<Vec<u8>> = (0..streams)
            .map(|s| (0..size).map(|i| (s + i) as u8).collect())
            .collect();
        let mut output: Vec<Vec<u8>> = vec![vec![0u8; size]; streams];
        let mut run = || {
            let mut jobs: Vec<Job<'_>> = keys
                .iter()
                .zip(&input)
                .zip(output.iter_mut())
                .enumerate()
                .map(|(s, ((k, i), o))| Job::new(mode, k, [s as u8; 16], i, o))
                .collect();
            engine.process(&mut jobs).unwrap();
        };
        run();
        let (mut best, mut best_cpu) = (0.0f64, 0.0f64);
        for _ in 0..5 {
            let start = Instant::now();
            let cpu0 = cpu_ns();
            let mut reps = 0u64;
            while start.elapsed() < Duration::from_millis(200) {
                run();
                reps += 1;
            }
            let bytes = reps as f64 * (streams * size) as f64;
            best = best.max(bytes / start.elapsed().as_secs_f64() / 1e9);
            if let (Some(a), Some(b)) = (cpu0, cpu_ns()) {
                best_cpu = best_cpu.max(bytes / (b - a) as f64);
            }
        }
        println!("{streams:7}  {best:9.2}  {best_cpu:11.2}");
    }
}

/// Nanoseconds this thread has run on a CPU (Linux `schedstat`), so that a
/// busy shared machine does not distort the figure.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
