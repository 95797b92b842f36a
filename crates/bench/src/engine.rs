//! The engine section (issue 5): the host engine's thread scaling in memory
//! and its file encryption, beside OpenSSL measured in the same run.
//!
//! * **Memory** — [`aesflow_engine::bench::bench_threads`]: `memcpy`, CTR,
//!   GCM seal and open, and Cobblestone sealing (chunked AES-256-GCM) of one
//!   buffer of `mem_size` bytes with one thread and with all threads, best
//!   of `reps`. Peers: `openssl speed -evp aes-256-ctr` / `-evp aes-256-gcm
//!   -aead [-decrypt]` with `-bytes` the same buffer size (so OpenSSL, too,
//!   streams the buffer through memory), one process for the one-thread rows
//!   and `-multi N` for the N-thread rows.
//! * **File** — [`aesflow_engine::bench::bench_file_vs_openssl`]: a
//!   `file_size`-byte file encrypted and decrypted by the engine
//!   (Cobblestone-256, all threads), `openssl enc -aes-256-ctr` and `cp`,
//!   alternating, best of `file_reps`; the files live in `dir` (default
//!   [`aesflow_engine::bench::default_dir`]: `/dev/shm` if writable) and are
//!   removed afterwards.
//!
//! The engine's own comparison of each row (all threads vs one thread, one
//! thread vs `memcpy`, file rows vs `openssl enc`) is kept as `baseline` /
//! `vs_baseline`.
//!
//! Both take seconds, which is why the section runs only when asked for.

use crate::{BenchError, OpensslSpeed, opt, render_grid};
use aesflow_engine::Pool;
use aesflow_engine::bench::{Row, bench_file_vs_openssl, bench_threads, default_dir};
use serde::Serialize;
use std::fmt::Write as _;
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
    /// `-seconds` of each `openssl speed` run.
    pub openssl_seconds: u32,
}

impl Default for EngineOptions {
    /// 256 MiB in memory (best of 3), a 1 GiB file (best of 3) in
    /// [`default_dir`], all threads, OpenSSL peers with 1 s runs (one per
    /// round, best of the rounds).
    fn default() -> Self {
        EngineOptions {
            mem_size: 256 << 20,
            reps: 3,
            threads: 0,
            file_size: 1 << 30,
            file_reps: 3,
            dir: default_dir(),
            openssl: true,
            openssl_seconds: 1,
        }
    }
}

/// One row of the engine section.
#[derive(Clone, Debug, Serialize)]
pub struct EngineRow {
    /// `"memory"` or `"file"`.
    pub group: String,
    /// What was measured (the engine's own row name).
    pub name: String,
    /// Threads (processes, for OpenSSL).
    pub threads: usize,
    /// Bytes per repetition.
    pub bytes: u64,
    /// Best wall-clock seconds.
    pub seconds: f64,
    /// 10^9 bytes/s.
    pub gbps: f64,
    /// The row the engine compares this one with (all threads: the same
    /// operation on one thread; one thread: `memcpy`; file: `openssl enc`).
    pub baseline: Option<String>,
    /// `gbps` / the baseline's.
    pub vs_baseline: Option<f64>,
    /// The OpenSSL peer's command line.
    pub openssl_command: Option<String>,
    /// The OpenSSL peer's throughput.
    pub openssl_gbps: Option<f64>,
    /// `gbps / openssl_gbps`.
    pub vs_openssl: Option<f64>,
}

/// The engine section's result.
#[derive(Clone, Debug, Serialize)]
pub struct EngineReport {
    /// Memory rows, then file rows.
    pub rows: Vec<EngineRow>,
    /// Threads of the "all threads" pool.
    pub threads: usize,
    /// Remarks and skipped parts.
    pub notes: Vec<String>,
}

/// The OpenSSL `speed` peer of an in-memory row, by its name.
fn memory_peer(name: &str, bytes: usize, threads: usize, seconds: u32) -> Option<OpensslSpeed> {
    let lower = name.to_ascii_lowercase();
    let mut p = if lower.contains("ctr") {
        OpensslSpeed::new("aes-256-ctr", bytes, seconds)
    } else if lower.contains("gcm") || lower.contains("cobblestone") {
        OpensslSpeed {
            aead: true,
            decrypt: lower.contains("open"),
            ..OpensslSpeed::new("aes-256-gcm", bytes, seconds)
        }
    } else {
        return None;
    };
    p.multi = threads;
    Some(p)
}

fn engine_row(group: &str, r: &Row) -> EngineRow {
    EngineRow {
        group: group.into(),
        name: r.name.clone(),
        threads: r.threads,
        bytes: r.bytes,
        seconds: r.seconds,
        gbps: r.gbps(),
        baseline: r.baseline.clone(),
        vs_baseline: r.vs_baseline,
        openssl_command: None,
        openssl_gbps: None,
        vs_openssl: None,
    }
}

/// Run the engine section.
pub fn run_engine(opts: &EngineOptions) -> Result<EngineReport, BenchError> {
    let setup = |e: aesflow_engine::Error| BenchError::Setup(format!("engine: {e}"));
    let pool = Pool::new(opts.threads).map_err(setup)?;
    let threads = pool.threads();
    let mut notes = Vec::new();
    let have_openssl = opts.openssl && crate::openssl_version().is_some();
    if opts.openssl && !have_openssl {
        notes.push("peer skipped: openssl not found".into());
    }
    let mut rows = Vec::new();
    if opts.mem_size > 0 {
        // `reps` rounds, each one `bench_threads` repetition (after its
        // warm-up) followed by one run of every OpenSSL peer, so that both
        // sides see the same background load; best of the rounds.
        let rounds = opts.reps.max(1);
        let mut best: Vec<Row> = Vec::new();
        let mut peers: Vec<(String, Option<f64>)> = Vec::new();
        for _ in 0..rounds {
            let measured = bench_threads(opts.mem_size, 1, opts.threads).map_err(setup)?;
            let mut round_peers: Vec<OpensslSpeed> = Vec::new();
            for r in measured {
                if let Some(p) =
                    memory_peer(&r.name, opts.mem_size, r.threads, opts.openssl_seconds)
                    && have_openssl
                    && !round_peers.contains(&p)
                {
                    round_peers.push(p);
                }
                match best
                    .iter_mut()
                    .find(|b| b.name == r.name && b.threads == r.threads)
                {
                    Some(b) if r.seconds < b.seconds => *b = r,
                    Some(_) => {}
                    None => best.push(r),
                }
            }
            for p in round_peers {
                let cmd = p.command_line();
                let v = match p.run() {
                    Ok(v) => Some(v / 1e9),
                    Err(e) => {
                        if !notes.contains(&e) {
                            notes.push(e);
                        }
                        None
                    }
                };
                match peers.iter_mut().find(|(c, _)| *c == cmd) {
                    Some((_, b)) => {
                        *b = match (*b, v) {
                            (Some(x), Some(y)) => Some(x.max(y)),
                            (x, y) => x.or(y),
                        }
                    }
                    None => peers.push((cmd, v)),
                }
            }
        }
        // Comparisons from the best times.
        let gbps_of = |label: &str| {
            best.iter()
                .find(|b| format!("{} ({} thr)", b.name, b.threads) == label)
                .map(Row::gbps)
        };
        for r in &best {
            let mut row = engine_row("memory", r);
            if let Some(b) = r.baseline.as_deref().and_then(gbps_of) {
                row.vs_baseline = Some(row.gbps / b);
            }
            if let Some(p) = memory_peer(&r.name, opts.mem_size, r.threads, opts.openssl_seconds)
                && let Some((cmd, v)) = peers.iter().find(|(c, _)| *c == p.command_line())
            {
                row.openssl_gbps = *v;
                row.vs_openssl = v.map(|p| row.gbps / p);
                row.openssl_command = Some(cmd.clone());
            }
            rows.push(row);
        }
        notes.push(format!(
            "memory: one {} MiB buffer, best of {rounds} rounds (each: one bench_threads \
             repetition, then one run of every OpenSSL peer); OpenSSL peers run `openssl speed` \
             on a buffer of the same size (-multi N for N threads); Cobblestone-256 (chunked \
             AES-256-GCM, copying) is compared with aes-256-gcm -aead",
            opts.mem_size >> 20,
        ));
    }
    if opts.file_size > 0 {
        let measured = bench_file_vs_openssl(&pool, &opts.dir, opts.file_size, opts.file_reps)
            .map_err(setup)?;
        let peer = measured
            .iter()
            .find(|r| r.name.to_ascii_lowercase().starts_with("openssl"))
            .map(Row::gbps)
            .filter(|_| opts.openssl);
        let cmd = "openssl enc -aes-256-ctr -K <64 hex> -iv <32 hex> -in FILE -out FILE2";
        for r in &measured {
            let lower = r.name.to_ascii_lowercase();
            if lower.starts_with("openssl") && !opts.openssl {
                continue; // measured by the engine's function anyway; not asked for
            }
            let mut row = engine_row("file", r);
            if lower.starts_with("aesflow") {
                row.openssl_gbps = peer;
                row.vs_openssl = peer.map(|p| row.gbps / p);
                row.openssl_command = peer.map(|_| cmd.to_string());
            }
            rows.push(row);
        }
        if peer.is_none() && opts.openssl {
            notes.push("file: openssl enc peer skipped (openssl not found or failed)".into());
        }
        notes.push(format!(
            "file: {} MiB in {}, best of {} (alternating cp / openssl / aesflow encrypt / \
             decrypt; aesflow runs in-process, openssl and cp pay their process start-up)",
            opts.file_size >> 20,
            opts.dir.display(),
            opts.file_reps.max(1)
        ));
    }
    Ok(EngineReport {
        rows,
        threads,
        notes,
    })
}

fn human_bytes(n: u64) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{} GiB", n >> 30)
    } else {
        format!("{:.0} MiB", n as f64 / 1048576.0)
    }
}

/// The engine rows as an aligned table (no machine header), notes beneath.
pub fn render_engine_table(report: &EngineReport) -> String {
    let mut s = String::new();
    let header = [
        "group",
        "what",
        "threads",
        "size",
        "best s",
        "GB/s",
        "vs baseline",
        "OpenSSL",
        "x OSSL",
    ];
    let mut table: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    for r in &report.rows {
        table.push(vec![
            r.group.clone(),
            r.name.clone(),
            r.threads.to_string(),
            human_bytes(r.bytes),
            format!("{:.4}", r.seconds),
            format!("{:.3}", r.gbps),
            match (r.vs_baseline, &r.baseline) {
                (Some(v), Some(b)) => format!("{v:.2}x {b}"),
                _ => "-".into(),
            },
            opt(r.openssl_gbps, 3),
            opt(r.vs_openssl, 2),
        ]);
    }
    render_grid(&mut s, &table, 2);
    let mut cmds: Vec<&str> = Vec::new();
    for c in report
        .rows
        .iter()
        .filter_map(|r| r.openssl_command.as_deref())
    {
        if !cmds.contains(&c) {
            cmds.push(c);
        }
    }
    for c in cmds {
        let _ = writeln!(s, "peer: {c}");
    }
    for n in &report.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_follow_row_names() {
        let p = memory_peer("AES-256-CTR in place", 1 << 20, 2, 1).unwrap();
        assert_eq!(
            p.command_line(),
            "openssl speed -mr -elapsed -multi 2 -evp aes-256-ctr -bytes 1048576 -seconds 1"
        );
        let p = memory_peer("Cobblestone-256 seal (copying)", 4096, 1, 1).unwrap();
        assert!(p.aead && p.cipher == "aes-256-gcm" && !p.command_line().contains("-multi"));
        assert!(memory_peer("memcpy", 4096, 1, 1).is_none());
        let p = memory_peer("AES-256-GCM open in place", 4096, 1, 1).unwrap();
        assert!(p.aead && p.decrypt);
    }

    #[test]
    fn renders_rows() {
        let r = EngineReport {
            rows: vec![EngineRow {
                group: "file".into(),
                name: "aesflow encrypt".into(),
                threads: 2,
                bytes: 1 << 30,
                seconds: 0.5,
                gbps: 2.147,
                baseline: Some("openssl enc -aes-256-ctr (file) (1 thr)".into()),
                vs_baseline: Some(2.147),
                openssl_command: Some("openssl enc".into()),
                openssl_gbps: Some(1.0),
                vs_openssl: Some(2.147),
            }],
            threads: 2,
            notes: vec!["hello".into()],
        };
        let t = render_engine_table(&r);
        assert!(t.contains("1 GiB") && t.contains("2.15") && t.contains("note: hello"));
    }
}
