//! # aesflow-bench: throughput, with peers measured in the same run
//!
//! The one measurement harness of the workspace, behind `aesflow bench`,
//! `cargo bench -p aesflow-bench` and the demo. Three sections:
//!
//! * [`kernels`] — ECB and CTR of every AES kernel × key size × buffer size;
//! * [`modes`] — CBC encryption through the multi-stream engine (the
//!   multi-stream AES core of Liu & Baas's *"An Energy-Efficient
//!   Multi-Stream AES Engine"*, brought to one CPU core), CBC decryption,
//!   CTR, GCM seal and open, and the [`gateway`] rows (an IMIX packet mix
//!   over many tunnels with their own keys);
//! * [`engine`] — the host engine on all cores (in memory and on files).
//!
//! Every figure has its peers beside it, measured in the same run: both
//! RustCrypto generations in-process, OpenSSL as a subprocess (`openssl
//! speed`), and Intel ipsec-mb linked in with the `ipsec-mb` feature (the
//! default build needs nothing but Rust). Every row is a [`Row`] (one type,
//! serde); every report carries the [`Machine`] (CPU, clock from the one
//! `/proc/cpuinfo` reader, load, versions). The energy model's host
//! figures come from [`measure_host`].
//!
//! Each measurement is the best of several repetitions, contenders timed
//! round-robin (the machine may be shared); GB/s are 10^9 bytes per second,
//! cycles are at the nominal clock.
//!
//! ```no_run
//! use aesflow_bench::{BenchOptions, run};
//! let report = run(&BenchOptions::quick()).unwrap();
//! for row in &report.rows {
//!     println!("{} {} {:.2} GB/s", row.op, row.implementation, row.gbps);
//! }
//! ```

#![warn(missing_docs)]

/// `Display` as the type's `name()` (the operation enums).
macro_rules! display_name {
    ($t:ty) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use display_name;

pub mod engine;
pub mod gateway;
pub mod host;
#[cfg(feature = "ipsec-mb")]
pub mod ipsec_mb;
pub mod kernels;
pub mod machine;
pub mod measure;
pub mod modes;
pub mod openssl;
pub mod row;
pub mod rustcrypto;
pub mod suite;
pub mod tune;

pub use engine::{EngineOptions, default_dir, run_engine};
pub use gateway::{GatewayOptions, Mix};
pub use host::measure_host;
pub use kernels::{BenchOptions, FULL_ENV, Op};
pub use machine::{CpuInfo, Machine};
pub use modes::{ModeOp, ModesOptions, run_modes};
pub use openssl::{OpensslSpeed, openssl_version};
pub use row::{Packets, Peer, PeerFigure, Row, Section};
pub use suite::{SectionReport, SuiteOptions, SuiteReport, render_suite_json, run_suite};

use aesflow_cipher::KernelError;
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// Rows and notes of one section.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// The rows, in the section's order.
    pub rows: Vec<Row>,
    /// Skipped kernels and peers, and what the rows mean.
    pub notes: Vec<String>,
}

/// Run the kernels section without progress reports.
pub fn run(opts: &BenchOptions) -> Result<Report, BenchError> {
    kernels::run(opts, &mut |_| {})
}

/// How the kernels and modes sections measure: time, repetitions and the
/// peers beside aesflow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measuring {
    /// Measuring time per configuration (kernels) or contender (modes),
    /// split over `repetitions`.
    pub min_time: Duration,
    /// Repetitions per configuration or contender; the best is reported.
    pub repetitions: usize,
    /// Peers to measure alongside.
    pub peers: Peers,
    /// `-seconds` for each `openssl speed` run.
    pub openssl_seconds: u32,
}

impl Measuring {
    /// `min_time` per configuration as the best of 5, every peer, 1 s per
    /// OpenSSL run.
    pub fn new(min_time: Duration) -> Self {
        Measuring {
            min_time,
            repetitions: 5,
            peers: Peers::default(),
            openssl_seconds: 1,
        }
    }

    /// A smoke run (tests, `cargo test --benches`): 2 ms once per
    /// configuration, every peer but OpenSSL.
    pub fn smoke() -> Self {
        Measuring {
            repetitions: 1,
            peers: Peers {
                openssl: false,
                ..Peers::default()
            },
            ..Measuring::new(Duration::from_millis(2))
        }
    }
}

/// Which peers to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peers {
    /// RustCrypto `aes` 0.8 generation.
    pub rustcrypto: bool,
    /// RustCrypto `aes` 0.9 generation.
    pub rustcrypto09: bool,
    /// `openssl speed` (skipped with a note if `openssl` is not found).
    pub openssl: bool,
    /// Intel ipsec-mb (needs the `ipsec-mb` feature; a note otherwise).
    pub ipsec_mb: bool,
}

impl Default for Peers {
    /// Every peer (ipsec-mb only when built in).
    fn default() -> Self {
        Peers {
            rustcrypto: true,
            rustcrypto09: true,
            openssl: true,
            ipsec_mb: cfg!(feature = "ipsec-mb"),
        }
    }
}

impl Peers {
    /// The RustCrypto generations asked for.
    pub fn rustcrypto_peers(&self) -> Vec<Peer> {
        [
            (self.rustcrypto, Peer::RustCrypto),
            (self.rustcrypto09, Peer::RustCrypto09),
        ]
        .into_iter()
        .filter_map(|(on, p)| on.then_some(p))
        .collect()
    }

    /// Whether to run OpenSSL: asked for and found (a note if not found).
    pub fn openssl_available(&self, notes: &mut Vec<String>) -> bool {
        if !self.openssl {
            return false;
        }
        let found = openssl_version().is_some();
        if !found {
            note_once(notes, "peer skipped: openssl not found".into());
        }
        found
    }
}

/// Add `note` unless it is already there.
pub(crate) fn note_once(notes: &mut Vec<String>, note: String) {
    if !notes.contains(&note) {
        notes.push(note);
    }
}

/// ipsec-mb's version, if built in.
pub(crate) fn ipsec_mb_version() -> Option<String> {
    #[cfg(feature = "ipsec-mb")]
    return Some(ipsec_mb::version());
    #[cfg(not(feature = "ipsec-mb"))]
    None
}

/// The ipsec-mb contender of a modes row (an explanation without the
/// feature).
pub(crate) fn ipsec_mb_contender(
    op: ModeOp,
    size: aesflow_cipher::KeySize,
    lanes: usize,
    n: usize,
    slack: usize,
    kernel: &'static dyn aesflow_cipher::Kernel,
) -> Result<measure::Contender<'static>, String> {
    #[cfg(feature = "ipsec-mb")]
    return ipsec_mb::contender(
        op,
        size,
        lanes,
        n,
        slack,
        ipsec_mb::Arch::for_kernel(kernel),
    );
    #[cfg(not(feature = "ipsec-mb"))]
    {
        let _ = (op, size, lanes, n, slack, kernel);
        Err("peer skipped: ipsec-mb not built in (cargo feature ipsec-mb)".into())
    }
}

/// The ipsec-mb figure (GB/s) of an engine row, if it has one.
pub(crate) fn ipsec_mb_engine(
    op: &str,
    bytes: usize,
    threads: usize,
    kernel: &'static dyn aesflow_cipher::Kernel,
    notes: &mut Vec<String>,
) -> Option<f64> {
    #[cfg(feature = "ipsec-mb")]
    return match ipsec_mb::engine_gbps(op, bytes, threads, ipsec_mb::Arch::for_kernel(kernel))? {
        Ok(g) => Some(g),
        Err(e) => {
            note_once(notes, e);
            None
        }
    };
    #[cfg(not(feature = "ipsec-mb"))]
    {
        let _ = (op, bytes, threads, kernel);
        note_once(
            notes,
            "peer skipped: ipsec-mb not built in (cargo feature ipsec-mb)".into(),
        );
        None
    }
}

/// A bad option or a failed section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchError {
    /// No kernel has this name ([`KernelError::Unknown`]).
    UnknownKernel(KernelError),
    /// Nothing to measure (an empty list of sizes, ops or key sizes).
    Empty(&'static str),
    /// A section could not be set up or failed (bad option, backend
    /// unavailable, engine I/O error).
    Setup(String),
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::UnknownKernel(e) => e.fmt(f),
            BenchError::Empty(what) => write!(f, "nothing to benchmark: no {what} given"),
            BenchError::Setup(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for BenchError {}
