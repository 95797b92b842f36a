//! # aesflow-bench: kernel throughput, with peers measured in the same run
//!
//! The harness behind both `cargo bench -p aesflow-bench` and the
//! `aesflow bench` command. For every kernel × key size × operation × buffer
//! size it measures aesflow's throughput, and, for the same key size,
//! operation and size, two peers:
//!
//! * **RustCrypto** (`aes` 0.8, runtime-detected AES-NI): ECB through
//!   `BlockEncrypt::encrypt_blocks` / `BlockDecrypt::decrypt_blocks`, CTR
//!   through `ctr::Ctr128BE`;
//! * **OpenSSL** through `openssl speed -evp aes-N-{ecb,ctr} [-decrypt]
//!   -bytes SIZE -seconds S -elapsed -mr` (wall-clock, machine-readable
//!   output). If `openssl` is not on `PATH` the peer is skipped with a note
//!   and its ratio left blank.
//!
//! Each measurement is the best of several repetitions (the machine may be
//! shared); throughput is in GB/s (10^9 bytes per second) and in cycles per
//! byte at the nominal clock that `/proc/cpuinfo` reports ([`tsc_ghz`]).
//! With turbo the core clock can run faster, so these are nominal cycles.
//!
//! ```no_run
//! use aesflow_bench::{BenchOptions, render_table, run};
//! let report = run(&BenchOptions::quick()).unwrap();
//! print!("{}", render_table(&report));
//! ```

#![warn(missing_docs)]

pub mod engine;
pub mod modes;

pub use engine::{EngineOptions, EngineReport, EngineRow, render_engine_table, run_engine};
pub use modes::{ModeOp, ModesOptions, ModesReport, ModesRow, render_modes_table, run_modes};

use aesflow_cipher::{Kernel, KeyExpansion, KeySchedule, KeySize, available_kernels, kernels};
use serde::Serialize;
use std::fmt::{self, Write as _};
use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

/// The operation measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    /// ECB encryption (`encrypt_blocks`).
    EcbEnc,
    /// ECB decryption (`decrypt_blocks`).
    EcbDec,
    /// Counter mode (`ctr_xor`).
    Ctr,
}

impl Op {
    /// All operations.
    pub const ALL: [Op; 3] = [Op::EcbEnc, Op::EcbDec, Op::Ctr];

    /// `"ecb-enc"`, `"ecb-dec"` or `"ctr"`.
    pub fn name(self) -> &'static str {
        match self {
            Op::EcbEnc => "ecb-enc",
            Op::EcbDec => "ecb-dec",
            Op::Ctr => "ctr",
        }
    }

    /// Parse `ecb-enc`/`ecb`/`enc`, `ecb-dec`/`dec`, `ctr`.
    pub fn parse(s: &str) -> Option<Op> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ecb-enc" | "ecb" | "enc" | "encrypt" => Some(Op::EcbEnc),
            "ecb-dec" | "dec" | "decrypt" => Some(Op::EcbDec),
            "ctr" => Some(Op::Ctr),
            _ => None,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which peers to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peers {
    /// RustCrypto `aes` + `ctr`.
    pub rustcrypto: bool,
    /// `openssl speed` (skipped with a note if `openssl` is not found).
    pub openssl: bool,
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Kernel names; empty means every kernel this CPU runs. Naming a kernel
    /// this CPU cannot run adds a note and skips it; an unknown name is an
    /// error.
    pub kernels: Vec<String>,
    /// Key sizes.
    pub key_sizes: Vec<KeySize>,
    /// Key-expansion styles (offline is the usual one).
    pub styles: Vec<KeyExpansion>,
    /// Buffer sizes in bytes (multiples of 16 for ECB; others are rounded
    /// down to whole blocks for ECB, at least one block).
    pub sizes: Vec<usize>,
    /// Operations.
    pub ops: Vec<Op>,
    /// Measuring time per configuration, split over `repetitions`.
    pub min_time: Duration,
    /// Repetitions per configuration; the best is reported.
    pub repetitions: usize,
    /// Peers to measure alongside.
    pub peers: Peers,
    /// `-seconds` for each `openssl speed` run.
    pub openssl_seconds: u32,
    /// Whether the caller wants JSON ([`render_json`]) rather than the table
    /// ([`render_table`]); the harness itself does not look at it.
    pub json: bool,
}

impl Default for BenchOptions {
    /// The full matrix: every available kernel, all key sizes, offline keys,
    /// 64 B / 1 KiB / 16 KiB / 1 MiB, all operations, both peers, 0.3 s per
    /// configuration as the best of 5.
    fn default() -> Self {
        BenchOptions {
            kernels: Vec::new(),
            key_sizes: KeySize::ALL.to_vec(),
            styles: vec![KeyExpansion::Offline],
            sizes: vec![64, 1024, 16384, 1 << 20],
            ops: Op::ALL.to_vec(),
            min_time: Duration::from_millis(300),
            repetitions: 5,
            peers: Peers {
                rustcrypto: true,
                openssl: true,
            },
            openssl_seconds: 1,
            json: false,
        }
    }
}

/// The environment variable that makes [`BenchOptions::from_env`] run the
/// full matrix (`AESFLOW_BENCH_FULL=1`).
pub const FULL_ENV: &str = "AESFLOW_BENCH_FULL";

impl BenchOptions {
    /// A quick run (a few seconds plus OpenSSL): the hardware kernels (or
    /// every available kernel if there are none), AES-128 and AES-256,
    /// 1 KiB and 16 KiB, all operations, 0.1 s per configuration.
    pub fn quick() -> Self {
        let hw: Vec<String> = available_kernels()
            .iter()
            .filter(|k| k.rank() >= 20)
            .map(|k| k.name().to_string())
            .collect();
        BenchOptions {
            kernels: hw,
            key_sizes: vec![KeySize::Aes128, KeySize::Aes256],
            sizes: vec![1024, 16384],
            min_time: Duration::from_millis(100),
            repetitions: 5,
            ..Self::default()
        }
    }

    /// [`BenchOptions::quick`], or the full matrix ([`Default`]) if
    /// `AESFLOW_BENCH_FULL` is set to anything but `0` or empty; then
    /// narrowed by the comma-separated lists in `AESFLOW_BENCH_KERNELS`
    /// (names), `AESFLOW_BENCH_KEYS` (128/192/256), `AESFLOW_BENCH_SIZES`
    /// (bytes), `AESFLOW_BENCH_OPS` (ecb-enc/ecb-dec/ctr) and
    /// `AESFLOW_BENCH_OPENSSL=0` (no OpenSSL peer). Unparsable entries are
    /// ignored.
    pub fn from_env() -> Self {
        let mut o = match std::env::var(FULL_ENV) {
            Ok(v) if !v.is_empty() && v != "0" => Self::default(),
            _ => Self::quick(),
        };
        let list = |name: &str| -> Option<Vec<String>> {
            let v = std::env::var(name).ok()?;
            let items: Vec<String> = v
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            (!items.is_empty()).then_some(items)
        };
        if let Some(k) = list("AESFLOW_BENCH_KERNELS") {
            o.kernels = k;
        }
        if let Some(k) = list("AESFLOW_BENCH_KEYS") {
            o.key_sizes = k
                .iter()
                .filter_map(|b| b.parse().ok().and_then(|b| KeySize::from_bits(b).ok()))
                .collect();
        }
        if let Some(k) = list("AESFLOW_BENCH_SIZES") {
            o.sizes = k.iter().filter_map(|b| b.parse().ok()).collect();
        }
        if let Some(k) = list("AESFLOW_BENCH_OPS") {
            o.ops = k.iter().filter_map(|b| Op::parse(b)).collect();
        }
        if std::env::var("AESFLOW_BENCH_OPENSSL").is_ok_and(|v| v == "0") {
            o.peers.openssl = false;
        }
        o
    }
}

/// One measured configuration.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// Kernel name.
    pub kernel: String,
    /// 128, 192 or 256.
    pub key_bits: usize,
    /// `"offline"` or `"online"`.
    pub style: String,
    /// Operation.
    pub op: Op,
    /// Bytes per call.
    pub size: usize,
    /// aesflow throughput, 10^9 bytes/s (best of the repetitions).
    pub gbps: f64,
    /// Cycles per byte at the nominal clock (see [`tsc_ghz`]).
    pub cycles_per_byte: f64,
    /// RustCrypto throughput for the same key size, op and size.
    pub rustcrypto_gbps: Option<f64>,
    /// OpenSSL throughput for the same key size, op and size.
    pub openssl_gbps: Option<f64>,
    /// `gbps / rustcrypto_gbps`.
    pub vs_rustcrypto: Option<f64>,
    /// `gbps / openssl_gbps`.
    pub vs_openssl: Option<f64>,
}

/// A whole run: rows plus what was measured about the machine.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// The rows, in kernel, key size, style, op, size order.
    pub rows: Vec<BenchRow>,
    /// CPU model from `/proc/cpuinfo`, if readable.
    pub cpu: Option<String>,
    /// Nominal CPU clock in GHz (the unit of `cycles_per_byte`).
    pub tsc_ghz: f64,
    /// How `tsc_ghz` was obtained.
    pub tsc_method: String,
    /// `openssl version`, if OpenSSL was used.
    pub openssl_version: Option<String>,
    /// Skipped kernels and peers, and other remarks.
    pub notes: Vec<String>,
}

/// A bad option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchError {
    /// No kernel has this name.
    UnknownKernel {
        /// The name given.
        name: String,
        /// The kernels that exist.
        known: Vec<&'static str>,
    },
    /// Nothing to measure (an empty list of sizes, ops or key sizes).
    Empty(&'static str),
    /// A section could not be set up or failed (bad option, backend
    /// unavailable, engine I/O error).
    Setup(String),
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::UnknownKernel { name, known } => write!(
                f,
                "unknown AES kernel '{name}' (known kernels: {})",
                known.join(", ")
            ),
            BenchError::Empty(what) => write!(f, "nothing to benchmark: no {what} given"),
            BenchError::Setup(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for BenchError {}

/// The CPU clock used to turn seconds into cycles: the `cpu MHz` that
/// `/proc/cpuinfo` reports for the first CPU (the nominal clock on most
/// virtual machines; with turbo the core may run faster, so these are
/// nominal cycles). Falls back to 1 GHz, said so in the method string, when
/// the file is unreadable. (No `rdtsc`: `unsafe` stays in kernel modules.)
pub fn tsc_ghz() -> (f64, String) {
    let mhz = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("cpu MHz"))
            .and_then(|l| l.split(':').nth(1))
            .and_then(|v| v.trim().parse::<f64>().ok())
    });
    match mhz {
        Some(m) if m > 0.0 => (
            m / 1000.0,
            "/proc/cpuinfo 'cpu MHz' (nominal clock; turbo may run faster)".into(),
        ),
        _ => (
            1.0,
            "unknown clock: /proc/cpuinfo unreadable, cycles assume 1 GHz".into(),
        ),
    }
}

/// CPU model from `/proc/cpuinfo`, if readable.
pub fn cpu_model() -> Option<String> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    s.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|v| v.trim().to_string())
}

/// A thing to time: processes `bytes` bytes per call.
pub(crate) type Contender<'a> = Box<dyn FnMut() + 'a>;

/// Best-of-`reps` throughputs in bytes/s of several contenders that each
/// process `bytes` bytes per call, spending about `total` on each. The
/// repetitions are run round-robin, so that every contender sees the same
/// background load (the machine may be shared) and the ratios stay fair.
pub fn measure_group(
    bytes: usize,
    total: Duration,
    reps: usize,
    contenders: &mut [Box<dyn FnMut() + '_>],
) -> Vec<f64> {
    let sizes = vec![bytes; contenders.len()];
    measure_group_sized(&sizes, total, reps, contenders)
}

/// [`measure_group`] for contenders that process different numbers of
/// bytes per call: `bytes[i]` for `contenders[i]`.
///
/// # Panics
///
/// If `bytes` and `contenders` differ in length.
pub fn measure_group_sized(
    bytes: &[usize],
    total: Duration,
    reps: usize,
    contenders: &mut [Box<dyn FnMut() + '_>],
) -> Vec<f64> {
    assert_eq!(bytes.len(), contenders.len(), "one size per contender");
    let reps = reps.max(1);
    let per_rep = total / reps as u32;
    let iters: Vec<usize> = contenders
        .iter_mut()
        .map(|f| {
            f(); // warm up
            let t = Instant::now();
            f();
            let once = t.elapsed().max(Duration::from_nanos(20));
            ((per_rep.as_secs_f64() / once.as_secs_f64()) as usize).max(1)
        })
        .collect();
    let mut best = vec![f64::INFINITY; contenders.len()];
    for _ in 0..reps {
        for ((f, &n), b) in contenders.iter_mut().zip(&iters).zip(best.iter_mut()) {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            *b = b.min(t.elapsed().as_secs_f64() / n as f64);
        }
    }
    best.iter().zip(bytes).map(|(t, &n)| n as f64 / t).collect()
}

/// Best-of-`reps` throughput in bytes/s of one function (see
/// [`measure_group`]).
pub fn measure(bytes: usize, total: Duration, reps: usize, f: impl FnMut()) -> f64 {
    measure_group(bytes, total, reps, &mut [Box::new(f)])[0]
}

pub(crate) fn fill(buf: &mut [u8]) {
    let mut x: u32 = 0x1234_5678;
    for b in buf {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x as u8;
    }
}

pub(crate) fn test_key(size: KeySize) -> Vec<u8> {
    (0..size.bytes() as u8)
        .map(|i| i.wrapping_mul(29).wrapping_add(7))
        .collect()
}

/// Bytes actually processed for `op` on a requested `size`.
fn effective_size(op: Op, size: usize) -> usize {
    match op {
        Op::Ctr => size,
        _ => (size / 16).max(1) * 16,
    }
}

/// An aesflow kernel on `n` bytes.
fn kernel_contender<'a>(
    k: &'static dyn Kernel,
    ks: &'a KeySchedule,
    op: Op,
    n: usize,
) -> Contender<'a> {
    match op {
        Op::EcbEnc | Op::EcbDec => {
            let mut blocks = vec![[0u8; 16]; n / 16];
            fill(blocks.as_flattened_mut());
            Box::new(move || {
                let b = black_box(&mut blocks[..]);
                if op == Op::EcbEnc {
                    k.encrypt_blocks(ks, b);
                } else {
                    k.decrypt_blocks(ks, b);
                }
            })
        }
        Op::Ctr => {
            let mut data = vec![0u8; n];
            fill(&mut data);
            let mut ctr = [0u8; 16];
            Box::new(move || k.ctr_xor(ks, &mut ctr, black_box(&mut data[..])))
        }
    }
}

/// RustCrypto (`aes` + `ctr`) on `n` bytes.
fn rustcrypto_contender(size: KeySize, op: Op, n: usize) -> Contender<'static> {
    use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit, KeyIvInit, StreamCipher};
    macro_rules! with_cipher {
        ($c:ty) => {{
            let key = test_key(size);
            if op == Op::Ctr {
                let mut data = vec![0u8; n];
                fill(&mut data);
                let mut c = ctr::Ctr128BE::<$c>::new_from_slices(&key, &[0u8; 16])
                    .expect("key and IV lengths match");
                Box::new(move || c.apply_keystream(black_box(&mut data[..])))
            } else {
                let c = <$c>::new_from_slice(&key).expect("key length matches");
                let mut blocks = vec![aes::Block::default(); n / 16];
                for (i, b) in blocks.iter_mut().enumerate() {
                    b[0] = i as u8;
                }
                Box::new(move || {
                    let b = black_box(&mut blocks[..]);
                    if op == Op::EcbDec {
                        c.decrypt_blocks(b);
                    } else {
                        c.encrypt_blocks(b);
                    }
                })
            }
        }};
    }
    match size {
        KeySize::Aes128 => with_cipher!(aes::Aes128),
        KeySize::Aes192 => with_cipher!(aes::Aes192),
        KeySize::Aes256 => with_cipher!(aes::Aes256),
    }
}

/// `openssl version`, or `None` if OpenSSL cannot be run.
pub fn openssl_version() -> Option<String> {
    let out = Command::new("openssl").arg("version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// OpenSSL throughput (bytes/s) from `openssl speed`, or an explanation.
pub fn measure_openssl(size: KeySize, op: Op, n: usize, seconds: u32) -> Result<f64, String> {
    let mode = if op == Op::Ctr { "ctr" } else { "ecb" };
    let cipher = format!("aes-{}-{mode}", size.bits());
    OpensslSpeed {
        decrypt: op == Op::EcbDec,
        ..OpensslSpeed::new(&cipher, n, seconds)
    }
    .run()
}

/// One `openssl speed -mr -elapsed -evp CIPHER -bytes N -seconds S` run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpensslSpeed {
    /// EVP cipher name, e.g. `aes-128-cbc`.
    pub cipher: String,
    /// Bytes per operation (`-bytes`).
    pub bytes: usize,
    /// `-seconds` (at least 1).
    pub seconds: u32,
    /// `-decrypt`.
    pub decrypt: bool,
    /// `-aead`: each operation is a whole AEAD message (IV set, 13 bytes of
    /// AAD, the data, the tag), as a one-shot seal is.
    pub aead: bool,
    /// `-multi N` (N processes, figures summed) if above 1.
    pub multi: usize,
}

impl OpensslSpeed {
    /// Encryption, one process.
    pub fn new(cipher: &str, bytes: usize, seconds: u32) -> Self {
        OpensslSpeed {
            cipher: cipher.to_string(),
            bytes,
            seconds,
            decrypt: false,
            aead: false,
            multi: 1,
        }
    }

    /// The arguments after `openssl`.
    pub fn args(&self) -> Vec<String> {
        let mut a: Vec<String> = ["speed", "-mr", "-elapsed"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if self.multi > 1 {
            a.extend(["-multi".into(), self.multi.to_string()]);
        }
        a.extend(["-evp".into(), self.cipher.clone()]);
        if self.decrypt {
            a.push("-decrypt".into());
        }
        if self.aead {
            a.push("-aead".into());
        }
        a.extend([
            "-bytes".into(),
            self.bytes.to_string(),
            "-seconds".into(),
            self.seconds.max(1).to_string(),
        ]);
        a
    }

    /// The command line, for notes and reports.
    pub fn command_line(&self) -> String {
        format!("openssl {}", self.args().join(" "))
    }

    /// Run it: bytes/s (summed over the processes with `-multi`), or an
    /// explanation of why the peer is skipped.
    pub fn run(&self) -> Result<f64, String> {
        let out = Command::new("openssl")
            .args(self.args())
            .output()
            .map_err(|e| format!("peer skipped: openssl not found ({e})"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        parse_openssl_speed(&text).ok_or_else(|| {
            format!(
                "peer skipped: could not parse `{}` output (exit {})",
                self.command_line(),
                out.status
            )
        })
    }
}

/// The bytes/s figure of `openssl speed -mr` output (its `+F:` line).
pub fn parse_openssl_speed(text: &str) -> Option<f64> {
    text.lines()
        .filter(|l| l.starts_with("+F:"))
        .filter_map(|l| l.rsplit(':').next()?.trim().parse::<f64>().ok())
        .next_back()
}

/// Run the benchmarks.
pub fn run(opts: &BenchOptions) -> Result<BenchReport, BenchError> {
    if opts.sizes.is_empty() {
        return Err(BenchError::Empty("sizes"));
    }
    if opts.ops.is_empty() {
        return Err(BenchError::Empty("operations"));
    }
    if opts.key_sizes.is_empty() {
        return Err(BenchError::Empty("key sizes"));
    }
    if opts.styles.is_empty() {
        return Err(BenchError::Empty("key-expansion styles"));
    }
    let mut notes = Vec::new();
    let chosen: Vec<&'static dyn Kernel> = if opts.kernels.is_empty() {
        for k in kernels() {
            if !k.is_available() {
                notes.push(format!("skipped: {} not available on this CPU", k.name()));
            }
        }
        available_kernels()
    } else {
        let mut v: Vec<&'static dyn Kernel> = Vec::new();
        for name in &opts.kernels {
            let k = kernels()
                .iter()
                .copied()
                .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
                .ok_or_else(|| BenchError::UnknownKernel {
                    name: name.clone(),
                    known: kernels().iter().map(|k| k.name()).collect(),
                })?;
            if !k.is_available() {
                notes.push(format!("skipped: {} not available on this CPU", k.name()));
            } else if !v.iter().any(|x| x.name() == k.name()) {
                v.push(k);
            }
        }
        v
    };
    let (tsc, tsc_method) = tsc_ghz();

    let openssl_version = if opts.peers.openssl {
        let v = openssl_version();
        if v.is_none() {
            notes.push("peer skipped: openssl not found".into());
        }
        v
    } else {
        None
    };

    let schedules: Vec<(KeySize, KeyExpansion, KeySchedule)> = opts
        .key_sizes
        .iter()
        .flat_map(|&size| {
            opts.styles.iter().map(move |&style| {
                let ks = KeySchedule::new(&test_key(size), style).expect("valid key length");
                (size, style, ks)
            })
        })
        .collect();

    // (kernel index, schedule index, op index, size index) -> row.
    let mut rows: Vec<((usize, usize, usize, usize), BenchRow)> = Vec::new();
    for &size in &opts.key_sizes {
        for (oi, &op) in opts.ops.iter().enumerate() {
            for (li, &len) in opts.sizes.iter().enumerate() {
                let n = effective_size(op, len);
                // Every kernel × style of this key size, and RustCrypto, timed
                // round-robin.
                let mut who: Vec<(usize, usize)> = Vec::new();
                let mut contenders: Vec<Contender<'_>> = Vec::new();
                for (ki, k) in chosen.iter().enumerate() {
                    for (si, (_, _, ks)) in schedules
                        .iter()
                        .enumerate()
                        .filter(|(_, (s, _, _))| *s == size)
                    {
                        who.push((ki, si));
                        contenders.push(kernel_contender(*k, ks, op, n));
                    }
                }
                if opts.peers.rustcrypto {
                    contenders.push(rustcrypto_contender(size, op, n));
                }
                let bps = measure_group(n, opts.min_time, opts.repetitions, &mut contenders);
                drop(contenders);
                let rc = opts.peers.rustcrypto.then(|| bps[who.len()] / 1e9);
                let os = if openssl_version.is_some() {
                    match measure_openssl(size, op, n, opts.openssl_seconds) {
                        Ok(v) => Some(v / 1e9),
                        Err(e) => {
                            if !notes.contains(&e) {
                                notes.push(e);
                            }
                            None
                        }
                    }
                } else {
                    None
                };
                for (&(ki, si), &b) in who.iter().zip(&bps) {
                    let gbps = b / 1e9;
                    rows.push((
                        (ki, si, oi, li),
                        BenchRow {
                            kernel: chosen[ki].name().to_string(),
                            key_bits: size.bits(),
                            style: schedules[si].1.name().to_string(),
                            op,
                            size: n,
                            gbps,
                            cycles_per_byte: tsc * 1e9 / b,
                            rustcrypto_gbps: rc,
                            openssl_gbps: os,
                            vs_rustcrypto: rc.map(|p| gbps / p),
                            vs_openssl: os.map(|p| gbps / p),
                        },
                    ));
                }
            }
        }
    }
    rows.sort_by_key(|(k, _)| *k);
    Ok(BenchReport {
        rows: rows.into_iter().map(|(_, r)| r).collect(),
        cpu: cpu_model(),
        tsc_ghz: tsc,
        tsc_method,
        openssl_version,
        notes,
    })
}

pub(crate) fn human_size(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

pub(crate) fn opt(v: Option<f64>, prec: usize) -> String {
    v.map(|v| format!("{v:.prec$}"))
        .unwrap_or_else(|| "-".into())
}

/// The report as an aligned text table with a header describing the
/// machine and units, and the notes underneath.
pub fn render_table(report: &BenchReport) -> String {
    let mut s = machine_header(
        report.cpu.as_deref(),
        report.tsc_ghz,
        &report.tsc_method,
        report.openssl_version.as_deref(),
    );
    s.push_str(&render_kernel_rows(report));
    s
}

fn machine_header(cpu: Option<&str>, tsc: f64, method: &str, openssl: Option<&str>) -> String {
    let mut s = String::new();
    if let Some(cpu) = cpu {
        let _ = writeln!(s, "cpu: {cpu}");
    }
    let _ = writeln!(s, "cycles: at {tsc:.3} GHz ({method})");
    if let Some(v) = openssl {
        let _ = writeln!(s, "openssl: {v}");
    }
    let _ = writeln!(
        s,
        "GB/s = 10^9 bytes/s, best of repetitions; ratios are aesflow / peer"
    );
    s
}

/// The kernel rows and notes of [`render_table`], without the header.
fn render_kernel_rows(report: &BenchReport) -> String {
    let mut s = String::new();
    let header = [
        "kernel",
        "key",
        "keys",
        "op",
        "size",
        "GB/s",
        "cyc/B",
        "RustCrypto",
        "x RC",
        "OpenSSL",
        "x OSSL",
    ];
    let mut table: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    for r in &report.rows {
        table.push(vec![
            r.kernel.clone(),
            format!("AES-{}", r.key_bits),
            r.style.clone(),
            r.op.name().to_string(),
            human_size(r.size),
            format!("{:.3}", r.gbps),
            format!("{:.3}", r.cycles_per_byte),
            opt(r.rustcrypto_gbps, 3),
            opt(r.vs_rustcrypto, 2),
            opt(r.openssl_gbps, 3),
            opt(r.vs_openssl, 2),
        ]);
    }
    render_grid(&mut s, &table, 5);
    for n in &report.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

/// Append `table` (first row: the header) aligned: the first `left`
/// columns left-aligned, the others right-aligned, a rule under the header.
pub(crate) fn render_grid(s: &mut String, table: &[Vec<String>], left: usize) {
    let cols = table.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            table
                .iter()
                .map(|row| row.get(c).map_or(0, |x| x.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (i, row) in table.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c < left {
                    format!("{cell:<w$}", w = widths[c])
                } else {
                    format!("{cell:>w$}", w = widths[c])
                }
            })
            .collect();
        let _ = writeln!(s, "{}", line.join("  ").trim_end());
        if i == 0 {
            let total = widths.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
            let _ = writeln!(s, "{}", "-".repeat(total));
        }
    }
}

/// The report as pretty-printed JSON.
pub fn render_json(report: &BenchReport) -> String {
    serde_json::to_string_pretty(report).expect("the report serializes")
}

/// A section of the suite run by `aesflow bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    /// AES kernels: ECB and CTR ([`run`]).
    Kernels,
    /// Modes of operation, multi-stream CBC ([`run_modes`]).
    Modes,
    /// The host engine: threads and files ([`run_engine`]); slow.
    Engine,
}

impl Section {
    /// All sections, in report order.
    pub const ALL: [Section; 3] = [Section::Kernels, Section::Modes, Section::Engine];

    /// `"kernels"`, `"modes"` or `"engine"`.
    pub fn name(self) -> &'static str {
        match self {
            Section::Kernels => "kernels",
            Section::Modes => "modes",
            Section::Engine => "engine",
        }
    }

    /// Parse a section name (`all` is not a section; see the CLI).
    pub fn parse(s: &str) -> Option<Section> {
        match s.trim().to_ascii_lowercase().as_str() {
            "kernels" | "kernel" | "ecb" => Some(Section::Kernels),
            "modes" | "mode" => Some(Section::Modes),
            "engine" | "host" => Some(Section::Engine),
            _ => None,
        }
    }
}

/// Options of a suite run: each present section is run, in
/// [`Section::ALL`] order.
#[derive(Clone, Debug, Default)]
pub struct SuiteOptions {
    /// The kernels section.
    pub kernels: Option<BenchOptions>,
    /// The modes section.
    pub modes: Option<ModesOptions>,
    /// The engine section.
    pub engine: Option<EngineOptions>,
}

/// Result of a suite run: the machine, then one entry per section (`None`
/// when not run). This is the document `aesflow bench --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    /// Sections run.
    pub sections: Vec<Section>,
    /// CPU model.
    pub cpu: Option<String>,
    /// Logical CPUs.
    pub cpus: usize,
    /// Nominal CPU clock in GHz.
    pub tsc_ghz: f64,
    /// How `tsc_ghz` was obtained.
    pub tsc_method: String,
    /// `openssl version`, if found.
    pub openssl_version: Option<String>,
    /// `/proc/loadavg` before the run (the machine may be shared).
    pub load_before: Option<String>,
    /// `/proc/loadavg` after the run.
    pub load_after: Option<String>,
    /// Wall-clock seconds per section, in `sections` order.
    pub section_seconds: Vec<f64>,
    /// Kernels section.
    pub kernels: Option<BenchReport>,
    /// Modes section.
    pub modes: Option<ModesReport>,
    /// Engine section.
    pub engine: Option<EngineReport>,
}

fn loadavg() -> Option<String> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

/// Run the sections present in `opts`.
pub fn run_suite(opts: &SuiteOptions) -> Result<SuiteReport, BenchError> {
    let load_before = loadavg();
    let (tsc, tsc_method) = tsc_ghz();
    let mut sections = Vec::new();
    let mut section_seconds = Vec::new();
    let mut timed = |s: Section| {
        sections.push(s);
        let t = Instant::now();
        move |secs: &mut Vec<f64>| secs.push(t.elapsed().as_secs_f64())
    };
    let kernels = match &opts.kernels {
        Some(o) => {
            let done = timed(Section::Kernels);
            let r = run(o)?;
            done(&mut section_seconds);
            Some(r)
        }
        None => None,
    };
    let modes = match &opts.modes {
        Some(o) => {
            let done = timed(Section::Modes);
            let r = run_modes(o)?;
            done(&mut section_seconds);
            Some(r)
        }
        None => None,
    };
    let engine = match &opts.engine {
        Some(o) => {
            let done = timed(Section::Engine);
            let r = run_engine(o)?;
            done(&mut section_seconds);
            Some(r)
        }
        None => None,
    };
    let any_openssl = opts.kernels.as_ref().is_some_and(|o| o.peers.openssl)
        || opts.modes.as_ref().is_some_and(|o| o.peers.openssl)
        || opts.engine.as_ref().is_some_and(|o| o.openssl);
    Ok(SuiteReport {
        sections,
        cpu: cpu_model(),
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        tsc_ghz: kernels.as_ref().map_or(tsc, |k| k.tsc_ghz),
        tsc_method,
        openssl_version: if any_openssl { openssl_version() } else { None },
        load_before,
        load_after: loadavg(),
        section_seconds,
        kernels,
        modes,
        engine,
    })
}

/// The suite as text: a machine header, then each section's table.
pub fn render_suite_table(report: &SuiteReport) -> String {
    let mut s = machine_header(
        report.cpu.as_deref(),
        report.tsc_ghz,
        &report.tsc_method,
        report.openssl_version.as_deref(),
    );
    let _ = writeln!(
        s,
        "logical CPUs: {}; load average before: {}, after: {}",
        report.cpus,
        report.load_before.as_deref().unwrap_or("?"),
        report.load_after.as_deref().unwrap_or("?")
    );
    for (sec, secs) in report.sections.iter().zip(&report.section_seconds) {
        let _ = writeln!(s, "\n== {} ({secs:.1} s) ==", sec.name());
        match sec {
            Section::Kernels => {
                if let Some(r) = &report.kernels {
                    s.push_str(&render_kernel_rows(r));
                }
            }
            Section::Modes => {
                if let Some(r) = &report.modes {
                    s.push_str(&render_modes_table(r));
                }
            }
            Section::Engine => {
                if let Some(r) = &report.engine {
                    s.push_str(&render_engine_table(r));
                }
            }
        }
    }
    s
}

/// The suite as one pretty-printed JSON document.
pub fn render_suite_json(report: &SuiteReport) -> String {
    serde_json::to_string_pretty(report).expect("the report serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_names_round_trip() {
        for s in Section::ALL {
            assert_eq!(Section::parse(s.name()), Some(s));
        }
        assert_eq!(Section::parse("all"), None);
    }

    #[test]
    fn openssl_speed_args() {
        let p = OpensslSpeed {
            decrypt: true,
            multi: 2,
            ..OpensslSpeed::new("aes-128-cbc", 16384, 0)
        };
        assert_eq!(
            p.command_line(),
            "openssl speed -mr -elapsed -multi 2 -evp aes-128-cbc -decrypt -bytes 16384 -seconds 1"
        );
    }

    #[test]
    fn parses_openssl_multi_output() {
        let out = "Got: +H:16384 from 0\nGot: +F:25:AES-256-CTR:1.5e9 from 0\n\
                   +H:16384\n+F:25:AES-256-CTR:2532418446.22\n";
        assert_eq!(parse_openssl_speed(out), Some(2532418446.22));
    }

    #[test]
    fn empty_suite_renders() {
        let r = run_suite(&SuiteOptions::default()).unwrap();
        assert!(r.sections.is_empty() && r.kernels.is_none());
        assert!(render_suite_table(&r).contains("load average"));
        let j: serde_json::Value = serde_json::from_str(&render_suite_json(&r)).unwrap();
        assert!(j["modes"].is_null() && j["sections"].as_array().unwrap().is_empty());
    }

    #[test]
    fn parses_openssl_mr_output() {
        let out = "+DT:AES-128-CTR:1:16384\n+R:183617:AES-128-CTR:0.620000\n\
                   +H:16384\n+F:25:AES-128-CTR:4852227303.23\n";
        assert_eq!(parse_openssl_speed(out), Some(4852227303.23));
        assert_eq!(parse_openssl_speed("garbage"), None);
    }

    #[test]
    fn op_names_round_trip() {
        for op in Op::ALL {
            assert_eq!(Op::parse(op.name()), Some(op));
        }
        assert_eq!(Op::parse("nope"), None);
    }

    #[test]
    fn unknown_kernel_is_an_error() {
        let opts = BenchOptions {
            kernels: vec!["nope".into()],
            ..BenchOptions::quick()
        };
        assert!(matches!(run(&opts), Err(BenchError::UnknownKernel { .. })));
    }

    #[test]
    fn tiny_run_renders() {
        let opts = BenchOptions {
            kernels: vec!["ctime".into()],
            key_sizes: vec![KeySize::Aes128],
            sizes: vec![64, 100],
            min_time: Duration::from_millis(2),
            repetitions: 2,
            peers: Peers {
                rustcrypto: true,
                openssl: false,
            },
            ..BenchOptions::default()
        };
        let r = run(&opts).unwrap();
        assert_eq!(r.rows.len(), 6);
        assert!(r.rows.iter().all(|row| row.gbps > 0.0));
        // ECB rounds 100 bytes down to whole blocks; CTR takes any length.
        assert!(
            r.rows
                .iter()
                .any(|row| row.op == Op::EcbEnc && row.size == 96)
        );
        assert!(
            r.rows
                .iter()
                .any(|row| row.op == Op::Ctr && row.size == 100)
        );
        let t = render_table(&r);
        assert!(t.contains("ctime") && t.contains("x RC"));
        let j: serde_json::Value = serde_json::from_str(&render_json(&r)).unwrap();
        assert_eq!(j["rows"].as_array().unwrap().len(), 6);
        assert_eq!(j["rows"][0]["op"], "ecb-enc");
    }
}
