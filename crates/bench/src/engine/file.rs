//! A file encrypted and decrypted by the engine (Cobblestone-256 through
//! `cobblestone::encrypt_file` / `decrypt_file`: parallel positional I/O,
//! output to a temporary file that is synced and renamed into place, as the
//! CLI writes its outputs) against `openssl enc -aes-256-ctr` and `cp` of
//! the same file, alternating, in the same run.

use crate::row::{Peer, Row, Section};
use aesflow_cipher::Aes;
use aesflow_format::cobblestone::{self, ChunkKeys, Suite};
use aesflow_format::{Error, Pool, Result};
use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Where the file benchmark (and the demo) put their files: `/dev/shm` if
/// it is a writable directory (tmpfs: measures the engine, not a disk), else
/// the system temporary directory.
pub fn default_dir() -> std::path::PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() && tempfile::tempdir_in(shm).is_ok() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

fn io(what: &'static str) -> impl Fn(std::io::Error) -> Error {
    move |e| Error::io(what, e)
}

fn write_input(path: &Path, size: u64) -> Result<()> {
    use std::io::Write;
    let mut f = File::create(path).map_err(io("creating bench input"))?;
    let mut block = vec![0u8; 1 << 20];
    let aes = Aes::new(&[9u8; 16])?;
    let mut ctr = [0u8; 16];
    let mut left = size;
    while left > 0 {
        block.fill(0);
        aes.ctr_xor(&mut ctr, &mut block);
        let n = left.min(block.len() as u64) as usize;
        f.write_all(&block[..n])
            .map_err(io("writing bench input"))?;
        left -= n as u64;
    }
    Ok(())
}

fn run_timed(cmd: &mut Command) -> Option<f64> {
    let t = Instant::now();
    let st = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status();
    st.is_ok_and(|s| s.success())
        .then(|| t.elapsed().as_secs_f64())
}

/// Write `out` through a temporary file in its directory: `f` fills it,
/// then it is synced and renamed onto `out`.
fn atomically(out: &Path, f: impl FnOnce(&File) -> Result<()>) -> Result<()> {
    let dir = out.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(io("creating output"))?;
    f(tmp.as_file())?;
    tmp.as_file().sync_all().map_err(io("syncing output"))?;
    tmp.persist(out)
        .map_err(|e| Error::io("renaming output", e.error))?;
    Ok(())
}

fn encrypt(pool: &Pool, input: &Path, out: &Path) -> Result<()> {
    let keys = ChunkKeys::for_encryption(pool, Suite::Cobblestone256, &[7u8; 32], b"")?;
    let src = File::open(input).map_err(io("opening input"))?;
    let len = src.metadata().map_err(io("reading input"))?.len();
    atomically(out, |dst| {
        cobblestone::encrypt_file(pool, &keys, &src, len, dst, 0, &|_| {}).map(|_| ())
    })
}

fn decrypt(pool: &Pool, input: &Path, out: &Path) -> Result<()> {
    let src = File::open(input).map_err(io("opening input"))?;
    let len = src.metadata().map_err(io("reading input"))?.len();
    atomically(out, |dst| {
        cobblestone::decrypt_file(
            pool,
            Suite::Cobblestone256,
            &[7u8; 32],
            b"",
            &src,
            0,
            len,
            dst,
            &|_| {},
        )
        .map(|_| ())
    })
}

/// Best seconds of `cp`, `openssl enc -aes-256-ctr` (each `None` when not
/// runnable), aesflow encrypt and decrypt, over `reps` alternating rounds.
fn time_rounds(pool: &Pool, dir: &Path, size: u64, reps: usize) -> Result<[Option<f64>; 4]> {
    let input = dir.join("input.bin");
    let (out_a, back) = (dir.join("input.bin.cob"), dir.join("back.bin"));
    let (out_o, out_c) = (dir.join("openssl.bin"), dir.join("copy.bin"));
    write_input(&input, size)?;
    let works = |c: &str, arg: &str| {
        Command::new(c)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let (have_openssl, have_cp) = (works("openssl", "version"), works("cp", "--version"));
    let mut best = [f64::INFINITY; 4];
    let mut min = |i: usize, t: Option<f64>| {
        if let Some(t) = t {
            best[i] = best[i].min(t);
        }
    };
    for _ in 0..reps.max(1) {
        if have_cp {
            min(0, run_timed(Command::new("cp").arg(&input).arg(&out_c)));
            let _ = std::fs::remove_file(&out_c);
        }
        if have_openssl {
            let t = run_timed(
                Command::new("openssl")
                    .args(["enc", "-aes-256-ctr", "-K"])
                    .arg("07".repeat(32))
                    .args(["-iv", &"00".repeat(16), "-in"])
                    .arg(&input)
                    .arg("-out")
                    .arg(&out_o),
            );
            min(1, t);
            let _ = std::fs::remove_file(&out_o);
        }
        let t = Instant::now();
        encrypt(pool, &input, &out_a)?;
        min(2, Some(t.elapsed().as_secs_f64()));
        let t = Instant::now();
        decrypt(pool, &out_a, &back)?;
        min(3, Some(t.elapsed().as_secs_f64()));
        let _ = std::fs::remove_file(&back);
        let _ = std::fs::remove_file(&out_a);
    }
    Ok(best.map(|t| t.is_finite().then_some(t)))
}

/// The file rows: `cp` (no crypto: the floor of any read-and-write of the
/// file), then aesflow encrypt and decrypt (all threads of `pool`) with
/// `openssl enc -aes-256-ctr` (one thread, unauthenticated) as their
/// OpenSSL peer. The files live in a fresh temporary directory inside `dir`
/// that is removed afterwards.
pub fn bench_file(pool: &Pool, dir: &Path, size: u64, reps: usize, clock: f64) -> Result<Vec<Row>> {
    let tmp = tempfile::Builder::new()
        .prefix("aesflow-bench-")
        .tempdir_in(dir)
        .map_err(|e| Error::io(format!("creating a directory in {}", dir.display()), e))?;
    let [tc, to, te, td] = time_rounds(pool, tmp.path(), size, reps)?;
    drop(tmp);
    let row = |op: &str, imp: &str, threads: usize, t: f64| {
        Row::new(
            Section::Engine,
            op,
            imp,
            Some(256),
            1,
            threads,
            size,
            t,
            clock,
        )
    };
    let mut rows = Vec::new();
    if let Some(t) = tc {
        rows.push(row("file-copy", "cp (no crypto)", 1, t));
    }
    let cmd = "openssl enc -aes-256-ctr -K <64 hex> -iv <32 hex> -in FILE -out FILE2";
    for (op, t) in [("file-encrypt", te), ("file-decrypt", td)] {
        let mut r = row(
            op,
            "engine (Cobblestone-256)",
            pool.threads(),
            t.unwrap_or(f64::NAN),
        );
        r.add_peer(
            Peer::Openssl,
            to.map(|t| size as f64 / t / 1e9),
            Some(cmd.into()),
        );
        rows.push(r);
    }
    Ok(rows)
}
