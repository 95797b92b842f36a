//! The engine section: the host engine's thread scaling in memory and its
//! file encryption, beside OpenSSL (and, feature `ipsec-mb`, Intel
//! ipsec-mb) measured in the same run.
//!
//! * **Memory** ([`bench_threads`]): `memcpy`, CTR, GCM seal and open,
//!   Cobblestone seal and open (chunked AES-256-GCM), and CBC encryption of
//!   64 streams through the multi-stream engine on all cores, on one buffer
//!   of `mem_size` bytes with one thread and with all threads. Peers:
//!   `openssl speed -evp aes-256-ctr` / `-evp aes-256-gcm -aead [-decrypt]`
//!   with `-bytes` the same buffer size (one process for the one-thread
//!   rows, `-multi N` for the N-thread rows), and ipsec-mb on the same
//!   buffer (one manager per thread, the buffer split between threads).
//! * **File** ([`bench_file`]): a `file_size`-byte file encrypted and
//!   decrypted by the engine, `openssl enc -aes-256-ctr` and `cp`.
//!
//! Every all-threads row is compared with its one-thread row (`x base`).

mod file;
mod threads;

pub use file::{bench_file, default_dir};
pub use threads::{ENGINE_STREAMS, bench_threads};

use crate::openssl::OpensslSpeed;
use crate::row::{Peer, Row};
use crate::{BenchError, Report};
use aesflow_engine::Pool;
use std::path::PathBuf;

/// What the engine section measures.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// In-memory buffer size in bytes (0: skip the in-memory benchmark).
    pub mem_size: usize,
    /// Repetitions of the in-memory benchmark (best reported).
    pub reps: usize,
    /// Threads of the "all threads" rows (0: all cores).
    pub threads: usize,
    /// File size in bytes (0: skip the file benchmark).
    pub file_size: u64,
    /// Repetitions of the file benchmark.
    pub file_reps: usize,
    /// Directory for the file benchmark's files.
    pub dir: PathBuf,
    /// Measure the OpenSSL peers.
    pub openssl: bool,
    /// Measure the ipsec-mb peers (only with the `ipsec-mb` feature).
    pub ipsec_mb: bool,
    /// `-seconds` of each `openssl speed` run.
    pub openssl_seconds: u32,
}

impl Default for EngineOptions {
    /// 256 MiB in memory (best of 3), a 1 GiB file (best of 3) in
    /// [`default_dir`], all threads, every peer, 1 s OpenSSL runs.
    fn default() -> Self {
        EngineOptions {
            mem_size: 256 << 20,
            reps: 3,
            threads: 0,
            file_size: 1 << 30,
            file_reps: 3,
            dir: default_dir(),
            openssl: true,
            ipsec_mb: cfg!(feature = "ipsec-mb"),
            openssl_seconds: 1,
        }
    }
}

/// The OpenSSL `speed` peer of an in-memory row, by its op.
fn memory_peer(op: &str, bytes: usize, threads: usize, seconds: u32) -> Option<OpensslSpeed> {
    let mut p = match op {
        "ctr" => OpensslSpeed::new("aes-256-ctr", bytes, seconds),
        "gcm-seal" | "gcm-open" | "cobblestone-seal" | "cobblestone-open" => OpensslSpeed {
            aead: true,
            decrypt: op.ends_with("open"),
            ..OpensslSpeed::new("aes-256-gcm", bytes, seconds)
        },
        _ => return None,
    };
    p.multi = threads;
    Some(p)
}

/// Keep the faster of two measurements of the same row.
fn keep_best(best: &mut Vec<Row>, r: Row) {
    match best
        .iter_mut()
        .find(|b| b.op == r.op && b.threads == r.threads)
    {
        Some(b) if r.seconds < b.seconds => *b = r,
        Some(_) => {}
        None => best.push(r),
    }
}

/// `reps` rounds, each one [`bench_threads`] repetition followed by one run
/// of every peer, so that both sides see the same background load; best of
/// the rounds.
fn memory_rows(
    opts: &EngineOptions,
    clock: f64,
    notes: &mut Vec<String>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Row>, BenchError> {
    let setup = |e: aesflow_format::Error| BenchError::Setup(format!("engine: {e}"));
    let rounds = opts.reps.max(1);
    let mut best: Vec<Row> = Vec::new();
    let mut peers: Vec<(String, Option<f64>)> = Vec::new();
    let mut mb: Vec<(String, usize, f64)> = Vec::new();
    for round in 1..=rounds {
        progress(&format!("engine: memory, round {round} of {rounds}"));
        let measured = bench_threads(opts.mem_size, 1, opts.threads, clock).map_err(setup)?;
        let mut round_peers: Vec<OpensslSpeed> = Vec::new();
        for r in measured {
            if let Some(p) = memory_peer(&r.op, opts.mem_size, r.threads, opts.openssl_seconds)
                && opts.openssl
                && !round_peers.contains(&p)
            {
                round_peers.push(p);
            }
            if opts.ipsec_mb
                && !mb.iter().any(|(o, t, _)| *o == r.op && *t == r.threads)
                && let Some(g) = crate::ipsec_mb_engine(&r.op, opts.mem_size, r.threads, notes)
            {
                mb.push((r.op.clone(), r.threads, g));
            }
            keep_best(&mut best, r);
        }
        for p in round_peers {
            let cmd = p.command_line();
            let v = p.run().map_err(|e| crate::note_once(notes, e)).ok();
            let v = v.map(|v| v / 1e9);
            match peers.iter_mut().find(|(c, _)| *c == cmd) {
                Some((_, b)) => *b = [*b, v].into_iter().flatten().reduce(f64::max),
                None => peers.push((cmd, v)),
            }
        }
    }
    // Comparisons from the best times.
    let base: Vec<Row> = best.iter().filter(|r| r.threads == 1).cloned().collect();
    for r in &mut best {
        if r.threads > 1
            && let Some(b) = base.iter().find(|b| b.op == r.op)
        {
            r.compare(b);
        }
        if let Some(p) = memory_peer(&r.op, opts.mem_size, r.threads, opts.openssl_seconds)
            && let Some((cmd, v)) = peers.iter().find(|(c, _)| *c == p.command_line())
        {
            r.add_peer(Peer::Openssl, *v, Some(cmd.clone()));
        }
        if let Some((_, _, g)) = mb.iter().find(|(o, t, _)| *o == r.op && *t == r.threads) {
            r.add_peer(Peer::IpsecMb, Some(*g), None);
        }
    }
    notes.push(format!(
        "memory: one {} MiB buffer, best of {rounds} rounds (each: one repetition of every \
         row, then one run of every peer); OpenSSL runs `openssl speed` on a buffer of the same \
         size (-multi N for N threads); Cobblestone (chunked AES-256-GCM, out of place) is compared \
         with aes-256-gcm -aead",
        opts.mem_size >> 20,
    ));
    Ok(best)
}

/// Run the engine section. `progress` is told what is being measured.
pub fn run_engine(
    opts: &EngineOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, BenchError> {
    let setup = |e: aesflow_format::Error| BenchError::Setup(format!("engine: {e}"));
    let pool = Pool::new(opts.threads).map_err(|e| setup(e.into()))?;
    let clock = crate::machine::cpuinfo().clock_ghz().0;
    let mut notes = Vec::new();
    let mut o = opts.clone();
    o.openssl = crate::Peers {
        openssl: opts.openssl,
        ..crate::Peers::default()
    }
    .openssl_available(&mut notes);
    o.ipsec_mb = opts.ipsec_mb && cfg!(feature = "ipsec-mb");
    let mut rows = Vec::new();
    if o.mem_size > 0 {
        rows = memory_rows(&o, clock, &mut notes, progress)?;
    }
    if o.file_size > 0 {
        progress(&format!("engine: {} MiB file", o.file_size >> 20));
        let mut file = bench_file(&pool, &o.dir, o.file_size, o.file_reps, clock).map_err(setup)?;
        if !o.openssl {
            file.iter_mut().for_each(|r| r.peers.clear());
        }
        rows.extend(file);
        notes.push(format!(
            "file: {} MiB in {}, best of {} (alternating cp / openssl enc / aesflow encrypt / \
             decrypt; aesflow runs in-process, openssl and cp pay their process start-up)",
            o.file_size >> 20,
            o.dir.display(),
            o.file_reps.max(1)
        ));
    }
    Ok(Report { rows, notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_follow_row_ops() {
        let p = memory_peer("ctr", 1 << 20, 2, 1).unwrap();
        assert_eq!(
            p.command_line(),
            "openssl speed -mr -elapsed -multi 2 -evp aes-256-ctr -bytes 1048576 -seconds 1"
        );
        let p = memory_peer("cobblestone-seal", 4096, 1, 1).unwrap();
        assert!(p.aead && p.cipher == "aes-256-gcm" && !p.command_line().contains("-multi"));
        assert!(memory_peer("memcpy", 4096, 1, 1).is_none());
        assert!(memory_peer("gcm-open", 4096, 1, 1).unwrap().decrypt);
    }

    #[test]
    fn tiny_engine_run() {
        let opts = EngineOptions {
            mem_size: 2 << 20,
            reps: 1,
            threads: 2,
            file_size: 1 << 20,
            file_reps: 1,
            dir: std::env::temp_dir(),
            openssl: false,
            ipsec_mb: false,
            openssl_seconds: 1,
        };
        let r = run_engine(&opts, &mut |_| {}).unwrap();
        for op in [
            "memcpy",
            "ctr",
            "gcm-seal",
            "gcm-open",
            "cobblestone-open",
            "cbc-enc",
        ] {
            assert!(r.rows.iter().any(|x| x.op == op && x.threads == 2), "{op}");
        }
        let ms = r.rows.iter().find(|x| x.op == "cbc-enc").unwrap();
        assert_eq!(ms.streams, ENGINE_STREAMS);
        assert!(
            r.rows
                .iter()
                .any(|x| x.op == "file-decrypt" && x.gbps > 0.0)
        );
        let two = r
            .rows
            .iter()
            .find(|x| x.op == "gcm-open" && x.threads == 2)
            .unwrap();
        assert!(two.vs_baseline.is_some());
    }
}
