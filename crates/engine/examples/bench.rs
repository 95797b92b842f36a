//! `cargo run -p aesflow-engine --release --example bench [MiB] [file-MiB] [dir] [reps]`:
//! the benchmark table — one thread vs all threads in memory (CTR,
//! GCM, Cobblestone) beside `memcpy`, and a file encrypted by the engine vs
//! `cp` and `openssl enc -aes-256-ctr` (default 256 MiB in memory, a 1 GiB
//! file in /dev/shm if present, else the temporary directory; best of 5).

use aesflow_engine::{Pool, bench};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(256);
    let file_mib: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let dir = args
        .get(3)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(bench::default_dir);
    let reps: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(5);
    let mut rows = Vec::new();
    if mib > 0 {
        rows.extend(bench::bench_threads(mib << 20, reps, 0).expect("bench"));
    }
    if file_mib > 0 {
        rows.extend(
            bench::bench_file_vs_openssl(Pool::global(), &dir, file_mib << 20, reps)
                .expect("file bench"),
        );
    }
    print!("{}", bench::markdown_table(&rows));
    if std::env::var_os("AESFLOW_BENCH_JSON").is_some() {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("rows serialize")
        );
    }
}
