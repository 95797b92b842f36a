//! `cargo run -p aesflow-format --release --example scaling -- [MiB] [reps]`:
//! where the time of parallel GCM and Cobblestone goes, one thread against
//! all threads. Prints, per operation and pool size, the best wall time and
//! the CPU time all threads spent (from `/proc/self/task/*/schedstat`,
//! robust against other load on a shared machine): if the CPU time per
//! byte stays flat as threads are added, the work is parallel and the wall
//! time scales on an idle machine; if it grows, the threads contend.
//! (`aesflow bench --engine` is the benchmark; this is the diagnosis.)

use aesflow_engine::par::{self, ParGcm};
use aesflow_format::Pool;
use aesflow_format::cobblestone::{ChunkKeys, Suite};
use std::time::Instant;

/// (thread id, nanoseconds it has run on a CPU) of every thread.
fn cpu_ns() -> Vec<(String, u64)> {
    std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|t| {
            let s = std::fs::read_to_string(t.path().join("schedstat")).ok()?;
            let ns = s.split_whitespace().next()?.parse::<u64>().ok()?;
            Some((t.file_name().to_string_lossy().into_owned(), ns))
        })
        .collect()
}

/// CPU seconds per thread between two samples, busiest first.
fn per_thread(a: &[(String, u64)], b: &[(String, u64)]) -> Vec<f64> {
    let mut v: Vec<f64> = b
        .iter()
        .map(|(t, n)| {
            let before = a.iter().find(|(u, _)| u == t).map_or(0, |x| x.1);
            (n - before) as f64 / 1e9
        })
        .filter(|s| *s > 1e-4)
        .collect();
    v.sort_by(|x, y| y.total_cmp(x));
    v
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mib: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(256);
    let reps: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let size = mib << 20;
    let gcm = ParGcm::new(&[0x42; 32]).unwrap();
    let keys = ChunkKeys::for_encryption(Suite::Cobblestone256, &[0x42; 32], b"").unwrap();
    let mut buf = vec![0x5au8; size];
    let mut out = Vec::new();
    let mut back = Vec::new();
    println!("{mib} MiB, best of {reps}; cpu = CPU seconds of all threads in that rep");
    println!(
        "{:<18} {:>3} {:>9} {:>9} {:>9}",
        "op", "thr", "wall s", "cpu s", "GB/s"
    );
    // The per-piece combination: a bit-serial GF(2^128) multiply, 3 per
    // piece on the workers and one per piece (plus two powers) serially.
    let (c, t) = (cpu_ns(), Instant::now());
    let mut x = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
    for i in 0..100_000u128 {
        x = par::gf128_mul(x, i | 1 << 100);
    }
    std::hint::black_box(x);
    let ns = per_thread(&c, &cpu_ns()).iter().sum::<f64>() * 1e9 / 100_000.0;
    let pieces = size.div_ceil(par::GCM_PIECE) as f64;
    println!(
        "gf128_mul: {ns:.0} ns on-CPU ({:.0} ns wall); {pieces} pieces: {:.3} ms serial + \
         {:.3} ms on the workers per seal",
        t.elapsed().as_secs_f64() * 1e9 / 100_000.0,
        (pieces + 4.0 * 18.0) * ns / 1e6,
        3.0 * pieces * ns / 1e6
    );
    let pools = [Pool::new(1).unwrap(), Pool::new(0).unwrap()];
    for op in [
        "gcm-seal",
        "gcm-open",
        "cobblestone-seal",
        "cobblestone-open",
    ] {
        for pool in &pools {
            let mut best = (f64::INFINITY, Vec::new());
            for _ in 0..=reps {
                let tag = gcm.seal_in_place(pool, &[1; 12], b"", &mut buf).unwrap();
                if op == "cobblestone-open" && out.is_empty() {
                    keys.seal_chunks(pool, 0, &buf, true, &mut out).unwrap();
                }
                let (c, t) = (cpu_ns(), Instant::now());
                match op {
                    "gcm-seal" => drop(gcm.seal_in_place(pool, &[1; 12], b"", &mut buf)),
                    "gcm-open" => gcm
                        .open_in_place(pool, &[1; 12], b"", &mut buf, &tag)
                        .unwrap(),
                    "cobblestone-seal" => keys.seal_chunks(pool, 0, &buf, true, &mut out).unwrap(),
                    _ => keys.open_chunks(pool, 0, &out, true, &mut back).unwrap(),
                }
                let w = t.elapsed().as_secs_f64();
                let cpu = per_thread(&c, &cpu_ns());
                if w < best.0 {
                    best = (w, cpu);
                }
            }
            println!(
                "{op:<18} {:>3} {:>9.4} {:>9.4} {:>9.3}  per thread {:.4?}",
                pool.threads(),
                best.0,
                best.1.iter().sum::<f64>(),
                size as f64 / best.0 / 1e9,
                best.1
            );
        }
    }
}
