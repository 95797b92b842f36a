//! `cargo run -p aesflow-engine --release --example bench [MiB] [file-MiB] [dir]`:
//! the README's benchmark tables (in memory; file vs `openssl enc`).

use aesflow_engine::{Pool, bench};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mib: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(256);
    let file_mib: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
    let dir = args.get(3).cloned().unwrap_or_else(|| "/dev/shm".into());
    println!("| operation | threads | size | best time | throughput |");
    println!("|---|---|---|---|---|");
    for r in bench::bench_threads(mib << 20, 5, 0).expect("bench") {
        println!("{}", r.markdown());
    }
    if file_mib > 0 {
        let rows = bench::bench_file_vs_openssl(Pool::global(), dir.as_ref(), file_mib << 20, 3)
            .expect("file bench");
        for r in rows {
            println!("{}", r.markdown());
        }
    }
}
