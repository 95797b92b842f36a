//! Benchmarks behind the README's figures (the issue's table in one call:
//! [`issue_table`]):
//!
//! * [`bench_threads`] — one thread against all threads in memory (CTR,
//!   GCM seal and open, Cobblestone sealing) beside `memcpy` of the same
//!   buffer (one thread first: the baseline; then all threads).
//! * [`bench_file_vs_openssl`] — `aesflow encrypt` / `decrypt` of a file
//!   (Cobblestone-256, the whole [`crate::files::run_job`] path: temporary
//!   output, sync, rename) against `openssl enc -aes-256-ctr` and a plain
//!   `cp` of the same file, alternating, in the same run.
//!
//! Every figure is the best of the repetitions (after one warm-up for the
//! in-memory rows): on a shared machine the best run is the one least
//! disturbed by other load.

use crate::cobblestone::{self, ChunkKeys, Suite};
use crate::error::{Error, Result};
use crate::par::{self, ParGcm};
use crate::pool::Pool;
use aesflow_cipher::Aes;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One measurement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// What was measured.
    pub name: String,
    /// Threads used.
    pub threads: usize,
    /// Bytes processed per repetition.
    pub bytes: u64,
    /// Best wall-clock seconds over the repetitions.
    pub seconds: f64,
    /// `bytes / seconds` in GB/s (10^9 bytes per second).
    pub gb_per_s: f64,
    /// The row this one is compared with (`None` for a baseline).
    pub baseline: Option<String>,
    /// This row's throughput divided by the baseline's.
    pub vs_baseline: Option<f64>,
}

impl Row {
    /// A row without comparison.
    pub fn new(name: impl Into<String>, threads: usize, bytes: u64, seconds: f64) -> Row {
        Row {
            name: name.into(),
            threads,
            bytes,
            seconds,
            gb_per_s: bytes as f64 / seconds.max(1e-12) / 1e9,
            baseline: None,
            vs_baseline: None,
        }
    }

    /// GB/s (10^9 bytes per second).
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / self.seconds.max(1e-12) / 1e9
    }

    /// Compare with `base` (sets `baseline` and `vs_baseline`).
    pub fn compare(&mut self, base: &Row) {
        self.baseline = Some(format!("{} ({} thr)", base.name, base.threads));
        self.vs_baseline = Some(self.gbps() / base.gbps().max(1e-12));
    }

    /// A Markdown table row (see [`markdown_table`] for the header).
    pub fn markdown(&self) -> String {
        let vs = match (&self.baseline, self.vs_baseline) {
            (Some(b), Some(v)) => format!("{v:.2}× {b}"),
            _ => String::new(),
        };
        format!(
            "| {} | {} | {:.1} MiB | {:.4} s | {:.2} GB/s | {} |",
            self.name,
            self.threads,
            self.bytes as f64 / 1048576.0,
            self.seconds,
            self.gbps(),
            vs
        )
    }
}

/// Rows as a Markdown table with its header.
pub fn markdown_table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| operation | threads | size | best time | throughput | vs |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&r.markdown());
        s.push('\n');
    }
    s
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

/// Best seconds of `f(one)` and `f(all)` over `reps` alternating runs,
/// after one warm-up of each (`f` returns the seconds it measured).
fn pair(
    one: &Pool,
    all: &Pool,
    reps: usize,
    mut f: impl FnMut(&Pool) -> Result<f64>,
) -> Result<(f64, f64)> {
    f(one)?;
    f(all)?;
    let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..reps.max(1) {
        a = a.min(f(one)?);
        b = b.min(f(all)?);
    }
    Ok((a, b))
}

/// `memcpy`, CTR, GCM (seal and open) and Cobblestone sealing on `size`
/// bytes in memory, with one thread and with `threads` (0: all cores);
/// best of `reps`. The first row is the one-thread `memcpy` (the baseline
/// of the CTR/GCM target); every all-threads row is compared with its
/// one-thread row, every one-thread row with that `memcpy`.
pub fn bench_threads(size: usize, reps: usize, threads: usize) -> Result<Vec<Row>> {
    let one = Pool::new(1)?;
    let all = Pool::new(threads)?;
    let key = [0x42u8; 32];
    let aes = Aes::new(&key)?;
    let gcm = ParGcm::new(&key)?;
    let mut buf = vec![0x5au8; size];
    let mut dst = vec![0u8; size];
    let mut rows: Vec<Row> = Vec::new();
    let push = |rows: &mut Vec<Row>, name: &str, threads: usize, seconds: f64| {
        let mut r = Row::new(name, threads, size as u64, seconds);
        if let Some(base) = rows.iter().find(|b| b.name == name && b.threads == 1) {
            r.compare(base);
        } else if let Some(m) = rows.first() {
            r.compare(m);
        }
        rows.push(r);
    };
    let s = best(reps, || {
        dst.copy_from_slice(&buf);
        std::hint::black_box(&mut dst);
    });
    rows.push(Row::new("memcpy", 1, size as u64, s));
    if all.threads() > 1 {
        let piece = crate::pool::PIECE;
        let s = best(reps, || {
            all.for_each_piece(&mut dst, piece, |i, d| {
                d.copy_from_slice(&buf[i * piece..i * piece + d.len()]);
            });
            std::hint::black_box(&mut dst);
        });
        push(&mut rows, "memcpy", all.threads(), s);
    }
    drop(dst);
    // Each operation alternates one thread and all threads rep by rep, so
    // both see the same background load.
    let (a, b) = pair(&one, &all, reps, |pool| {
        let mut c = [0u8; 16];
        let t = Instant::now();
        par::ctr_xor(pool, &aes, &mut c, &mut buf);
        Ok(t.elapsed().as_secs_f64())
    })?;
    push(&mut rows, "AES-256-CTR in place", one.threads(), a);
    push(&mut rows, "AES-256-CTR in place", all.threads(), b);
    let (a, b) = pair(&one, &all, reps, |pool| {
        let t = Instant::now();
        let tag = gcm.seal_in_place(pool, &[1; 12], b"", &mut buf);
        let s = t.elapsed().as_secs_f64();
        tag.map(|_| s)
    })?;
    push(&mut rows, "AES-256-GCM seal in place", one.threads(), a);
    push(&mut rows, "AES-256-GCM seal in place", all.threads(), b);
    // Open: each open decrypts the buffer, so the next one needs the tag of
    // the new contents: a seal (untimed) before every open.
    let (a, b) = pair(&one, &all, reps, |pool| {
        let tag = gcm.seal_in_place(pool, &[2; 12], b"", &mut buf)?;
        let t = Instant::now();
        gcm.open_in_place(pool, &[2; 12], b"", &mut buf, &tag)?;
        Ok(t.elapsed().as_secs_f64())
    })?;
    push(&mut rows, "AES-256-GCM open in place", one.threads(), a);
    push(&mut rows, "AES-256-GCM open in place", all.threads(), b);
    let keys = ChunkKeys::for_encryption(Suite::Cobblestone256, &key, b"")?;
    let mut out = Vec::with_capacity(cobblestone::ciphertext_len(size as u64) as usize);
    let (a, b) = pair(&one, &all, reps, |pool| {
        let t = Instant::now();
        keys.seal_chunks(pool, 0, &buf, true, &mut out)?;
        Ok(t.elapsed().as_secs_f64())
    })?;
    push(
        &mut rows,
        "Cobblestone-256 seal (copying)",
        one.threads(),
        a,
    );
    push(
        &mut rows,
        "Cobblestone-256 seal (copying)",
        all.threads(),
        b,
    );
    if all.threads() == 1 {
        // One pool: the "all threads" rows are the one-thread rows again.
        rows.dedup_by(|b, a| a.name == b.name && a.threads == b.threads);
    }
    Ok(rows)
}

/// Where the file benchmark should put its files: `/dev/shm` if it is a
/// writable directory (tmpfs: measures the engine, not a disk), else the
/// system temporary directory.
pub fn default_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() && tempfile::tempdir_in(shm).is_ok() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

fn write_input(path: &Path, size: u64) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create(path).map_err(|e| Error::io("creating bench input", e))?;
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
    Ok(())
}

fn run_timed(cmd: &mut std::process::Command) -> Option<f64> {
    let t = Instant::now();
    let st = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    st.is_ok_and(|s| s.success())
        .then(|| t.elapsed().as_secs_f64())
}

/// Encrypt a `size`-byte file with [`crate::files::run_job`]
/// (Cobblestone-256, all threads of `pool`, atomic output: temporary file,
/// sync, rename) and decrypt it back, beside `openssl enc -aes-256-ctr`
/// and `cp` of the same file (each if on `PATH`), `reps` times each,
/// alternating; best times. The files live in a fresh temporary directory
/// inside `dir` (see [`default_dir`]) that is removed afterwards.
///
/// Rows: `cp` (no crypto: the floor of any read-and-write of the file),
/// `openssl enc -aes-256-ctr` (one thread, unauthenticated), `aesflow
/// encrypt` and `aesflow decrypt` (compared with the `openssl` row). The
/// engine runs in this process (no process start-up; `openssl` and `cp`
/// pay theirs, a few milliseconds).
pub fn bench_file_vs_openssl(pool: &Pool, dir: &Path, size: u64, reps: usize) -> Result<Vec<Row>> {
    use crate::files::{Job, KeyMaterial, Operation, run_job};
    let tmp = tempfile::Builder::new()
        .prefix("aesflow-bench-")
        .tempdir_in(dir)
        .map_err(|e| Error::io(format!("creating a directory in {}", dir.display()), e))?;
    let input = tmp.path().join("input.bin");
    let out_a = tmp.path().join("input.bin.cob");
    let back = tmp.path().join("back.bin");
    let out_o = tmp.path().join("openssl.bin");
    let out_c = tmp.path().join("copy.bin");
    write_input(&input, size)?;
    let op = Operation::Cobblestone {
        suite: Suite::Cobblestone256,
        context: Vec::new(),
        key: KeyMaterial::Key(zeroize::Zeroizing::new(vec![7u8; 32])),
    };
    let enc = Job {
        input: Some(input.clone()),
        output: Some(out_a.clone()),
    };
    let dec = Job {
        input: Some(out_a.clone()),
        output: Some(back.clone()),
    };
    let works = |c: &str, arg: &str| {
        std::process::Command::new(c)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let have_openssl = works("openssl", "version");
    let have_cp = works("cp", "--version");
    let (mut te, mut td, mut to, mut tc) = [f64::INFINITY; 4].into();
    for _ in 0..reps.max(1) {
        if have_cp {
            let _ = std::fs::remove_file(&out_c);
            if let Some(t) = run_timed(std::process::Command::new("cp").arg(&input).arg(&out_c)) {
                tc = f64::min(tc, t);
            }
            let _ = std::fs::remove_file(&out_c);
        }
        if have_openssl {
            let _ = std::fs::remove_file(&out_o);
            let t = run_timed(
                std::process::Command::new("openssl")
                    .args(["enc", "-aes-256-ctr", "-K"])
                    .arg("07".repeat(32))
                    .args(["-iv", &"00".repeat(16), "-in"])
                    .arg(&input)
                    .arg("-out")
                    .arg(&out_o),
            );
            if let Some(t) = t {
                to = f64::min(to, t);
            }
            let _ = std::fs::remove_file(&out_o);
        }
        let _ = std::fs::remove_file(&out_a);
        let t = Instant::now();
        run_job(pool, &op, &enc, true, true, false)?;
        te = te.min(t.elapsed().as_secs_f64());
        let _ = std::fs::remove_file(&back);
        let t = Instant::now();
        run_job(pool, &op, &dec, false, true, false)?;
        td = td.min(t.elapsed().as_secs_f64());
        let _ = std::fs::remove_file(&back);
        let _ = std::fs::remove_file(&out_a);
    }
    drop(tmp);
    let mut rows = Vec::new();
    let mut base = None;
    if tc.is_finite() {
        rows.push(Row::new("cp (copy, no crypto)", 1, size, tc));
    }
    if to.is_finite() {
        let r = Row::new("openssl enc -aes-256-ctr (file)", 1, size, to);
        base = Some(r.clone());
        rows.push(r);
    }
    for (name, t) in [
        ("aesflow encrypt (Cobblestone-256, file)", te),
        ("aesflow decrypt (Cobblestone-256, file)", td),
    ] {
        let mut r = Row::new(name, pool.threads(), size, t);
        if let Some(b) = &base {
            r.compare(b);
        }
        rows.push(r);
    }
    if let (Some(b), true) = (&base, tc.is_finite()) {
        rows[0].compare(b);
    }
    Ok(rows)
}

/// The issue's whole benchmark table: [`bench_threads`] on `mem_size`
/// bytes (all cores) and [`bench_file_vs_openssl`] on a `file_size`-byte
/// file in [`default_dir`] (skipped if `file_size` is 0), best of `reps`.
pub fn issue_table(mem_size: usize, file_size: u64, reps: usize) -> Result<Vec<Row>> {
    let mut rows = bench_threads(mem_size, reps, 0)?;
    if file_size > 0 {
        rows.extend(bench_file_vs_openssl(
            Pool::global(),
            &default_dir(),
            file_size,
            reps,
        )?);
    }
    Ok(rows)
}
