//! Benchmarks behind the README's figures: one thread against all threads
//! in memory (CTR, GCM) beside `memcpy` of the same buffer, and file
//! encryption against `openssl enc -aes-256-ctr` on the same file.

use crate::cobblestone::{self, ChunkKeys, Suite};
use crate::error::{Error, Result};
use crate::par::{self, ParGcm};
use crate::pool::Pool;
use aesflow_cipher::Aes;
use std::path::Path;
use std::time::Instant;

/// One measurement.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// What was measured.
    pub name: String,
    /// Threads used.
    pub threads: usize,
    /// Bytes processed per repetition.
    pub bytes: u64,
    /// Best wall-clock seconds over the repetitions.
    pub seconds: f64,
}

impl Row {
    /// GB/s (10^9 bytes per second).
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / self.seconds.max(1e-12) / 1e9
    }

    /// A Markdown table row.
    pub fn markdown(&self) -> String {
        format!(
            "| {} | {} | {:.1} MiB | {:.4} s | {:.2} GB/s |",
            self.name,
            self.threads,
            self.bytes as f64 / 1048576.0,
            self.seconds,
            self.gbps()
        )
    }
}

fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    f(); // warm-up: pages faulted in, caches and pool started
    (0..reps.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// `memcpy`, CTR and GCM on `size` bytes in memory, with one thread and
/// with `threads` (0: all cores); best of `reps`.
pub fn bench_threads(size: usize, reps: usize, threads: usize) -> Result<Vec<Row>> {
    let one = Pool::new(1)?;
    let all = Pool::new(threads)?;
    let key = [0x42u8; 32];
    let aes = Aes::new(&key)?;
    let gcm = ParGcm::new(&key)?;
    let mut buf = vec![0x5au8; size];
    let mut dst = vec![0u8; size];
    let mut rows = Vec::new();
    let row = |name: &str, threads: usize, seconds: f64| Row {
        name: name.into(),
        threads,
        bytes: size as u64,
        seconds,
    };
    rows.push(row(
        "memcpy",
        1,
        best(reps, || {
            dst.copy_from_slice(&buf);
            std::hint::black_box(&mut dst);
        }),
    ));
    for pool in [&one, &all] {
        let s = best(reps, || {
            let mut c = [0u8; 16];
            par::ctr_xor(pool, &aes, &mut c, &mut buf);
        });
        rows.push(row("AES-256-CTR in place", pool.threads(), s));
    }
    for pool in [&one, &all] {
        let s = best(reps, || {
            let t = gcm.seal_in_place(pool, &[1; 12], b"", &mut buf);
            std::hint::black_box(t.ok());
        });
        rows.push(row("AES-256-GCM seal in place", pool.threads(), s));
    }
    for pool in [&one, &all] {
        let keys = ChunkKeys::for_encryption(Suite::Cobblestone256, &key, b"")?;
        let mut out = Vec::with_capacity(cobblestone::ciphertext_len(size as u64) as usize);
        let s = best(reps, || {
            keys.seal_chunks(pool, 0, &buf, true, &mut out)
                .expect("in range");
        });
        rows.push(row("Cobblestone-256 seal (copying)", pool.threads(), s));
    }
    Ok(rows)
}

/// Encrypt a `size`-byte file in `dir` with [`crate::files::run_job`]
/// (Cobblestone-256, all threads of `pool`) and with `openssl enc
/// -aes-256-ctr` (if on `PATH`), `reps` times each, alternating; best
/// times. The files are removed afterwards.
pub fn bench_file_vs_openssl(pool: &Pool, dir: &Path, size: u64, reps: usize) -> Result<Vec<Row>> {
    use crate::files::{Job, KeyMaterial, Operation, run_job};
    use std::io::Write;
    let input = dir.join("aesflow-bench-input.bin");
    let out_a = dir.join("aesflow-bench-input.bin.cob");
    let out_o = dir.join("aesflow-bench-openssl.bin");
    let cleanup = || {
        for p in [&input, &out_a, &out_o] {
            let _ = std::fs::remove_file(p);
        }
    };
    {
        let mut f =
            std::fs::File::create(&input).map_err(|e| Error::io("creating bench input", e))?;
        let mut block = vec![0u8; 1 << 20];
        let aes = Aes::new(&[9u8; 16])?;
        let mut ctr = [0u8; 16];
        let mut left = size;
        while left > 0 {
            block.fill(0);
            aes.ctr_xor(&mut ctr, &mut block);
            let n = left.min(block.len() as u64) as usize;
            f.write_all(&block[..n])
                .map_err(|e| Error::io("writing bench input", e))?;
            left -= n as u64;
        }
    }
    let op = Operation::Cobblestone {
        suite: Suite::Cobblestone256,
        context: Vec::new(),
        key: KeyMaterial::Key(zeroize::Zeroizing::new(vec![7u8; 32])),
    };
    let job = Job {
        input: Some(input.clone()),
        output: Some(out_a.clone()),
    };
    let have_openssl = std::process::Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    let (mut ta, mut to) = (f64::INFINITY, f64::INFINITY);
    let mut result = Ok(());
    for _ in 0..reps.max(1) {
        let _ = std::fs::remove_file(&out_a);
        let t = Instant::now();
        if let Err(e) = run_job(pool, &op, &job, true, true, false) {
            result = Err(e);
            break;
        }
        ta = ta.min(t.elapsed().as_secs_f64());
        let _ = std::fs::remove_file(&out_a);
        if have_openssl {
            let _ = std::fs::remove_file(&out_o);
            let t = Instant::now();
            let st = std::process::Command::new("openssl")
                .args(["enc", "-aes-256-ctr", "-K"])
                .arg("07".repeat(32))
                .args(["-iv", &"00".repeat(16), "-in"])
                .arg(&input)
                .arg("-out")
                .arg(&out_o)
                .status();
            if st.is_ok_and(|s| s.success()) {
                to = to.min(t.elapsed().as_secs_f64());
            }
            let _ = std::fs::remove_file(&out_o);
        }
    }
    cleanup();
    result?;
    let mut rows = vec![Row {
        name: "aesflow encrypt (Cobblestone-256, file)".into(),
        threads: pool.threads(),
        bytes: size,
        seconds: ta,
    }];
    if to.is_finite() {
        rows.push(Row {
            name: "openssl enc -aes-256-ctr (file)".into(),
            threads: 1,
            bytes: size,
            seconds: to,
        });
    }
    Ok(rows)
}
