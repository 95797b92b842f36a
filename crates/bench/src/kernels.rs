//! The kernels section: ECB encryption/decryption and CTR of every AES
//! kernel × key size × key-expansion style × buffer size, beside both
//! RustCrypto generations (timed round-robin with the kernels) and
//! `openssl speed -evp aes-N-{ecb,ctr}` on the same size.

use crate::measure::{Contender, measure_group, test_key};
use crate::modes::ModeOp;
use crate::openssl::OpensslSpeed;
use crate::row::{Peer, Row, Section};
use crate::rustcrypto::{self, Work};
use crate::{BenchError, Measuring, Report};
use aesflow_cipher::{
    Kernel, KernelError, KeyExpansion, KeySchedule, KeySize, available_kernels, kernel_by_name,
    kernels,
};
use serde::Serialize;
use std::hint::black_box;
use std::time::Duration;

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

    fn work(self) -> Work {
        match self {
            Op::EcbEnc => Work::EcbEnc,
            Op::EcbDec => Work::EcbDec,
            Op::Ctr => Work::Mode(ModeOp::Ctr),
        }
    }
}

crate::display_name!(Op);

/// What the kernels section measures.
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
    /// Buffer sizes in bytes (rounded down to whole blocks for ECB, at
    /// least one block).
    pub sizes: Vec<usize>,
    /// Operations.
    pub ops: Vec<Op>,
    /// Time, repetitions and peers.
    pub measuring: Measuring,
}

impl Default for BenchOptions {
    /// The full matrix: every available kernel, all key sizes, offline keys,
    /// 64 B / 1 KiB / 16 KiB / 1 MiB, all operations, all peers, 0.3 s per
    /// configuration as the best of 5.
    fn default() -> Self {
        BenchOptions {
            kernels: Vec::new(),
            key_sizes: KeySize::ALL.to_vec(),
            styles: vec![KeyExpansion::Offline],
            sizes: vec![64, 1024, 16384, 1 << 20],
            ops: Op::ALL.to_vec(),
            measuring: Measuring::new(Duration::from_millis(300)),
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
            measuring: Measuring::new(Duration::from_millis(100)),
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
            o.measuring.peers.openssl = false;
        }
        o
    }

    fn check(&self) -> Result<(), BenchError> {
        for (empty, what) in [
            (self.sizes.is_empty(), "sizes"),
            (self.ops.is_empty(), "operations"),
            (self.key_sizes.is_empty(), "key sizes"),
            (self.styles.is_empty(), "key-expansion styles"),
        ] {
            if empty {
                return Err(BenchError::Empty(what));
            }
        }
        Ok(())
    }
}

/// The kernels to measure, with notes for the skipped ones.
fn choose_kernels(
    names: &[String],
    notes: &mut Vec<String>,
) -> Result<Vec<&'static dyn Kernel>, BenchError> {
    if names.is_empty() {
        for k in kernels() {
            if !k.is_available() {
                notes.push(format!("skipped: {} not available on this CPU", k.name()));
            }
        }
        return Ok(available_kernels());
    }
    let mut v: Vec<&'static dyn Kernel> = Vec::new();
    for name in names {
        match kernel_by_name(name) {
            Ok(k) if !v.iter().any(|x| x.name() == k.name()) => v.push(k),
            Ok(_) => {}
            Err(KernelError::Unavailable { name, .. }) => {
                notes.push(format!("skipped: {name} not available on this CPU"));
            }
            Err(e) => return Err(BenchError::UnknownKernel(e)),
        }
    }
    Ok(v)
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
            crate::measure::fill(blocks.as_flattened_mut());
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
            crate::measure::fill(&mut data);
            let mut ctr = [0u8; 16];
            Box::new(move || k.ctr_xor(ks, &mut ctr, black_box(&mut data[..])))
        }
    }
}

/// The `openssl speed` peer of one configuration.
fn openssl_peer(size: KeySize, op: Op, n: usize, seconds: u32) -> OpensslSpeed {
    let mode = if op == Op::Ctr { "ctr" } else { "ecb" };
    OpensslSpeed {
        decrypt: op == Op::EcbDec,
        ..OpensslSpeed::new(&format!("aes-{}-{mode}", size.bits()), n, seconds)
    }
}

/// Run the kernels section. `progress` is told what is being measured.
pub fn run(opts: &BenchOptions, progress: &mut dyn FnMut(&str)) -> Result<Report, BenchError> {
    opts.check()?;
    let mut notes = Vec::new();
    let chosen = choose_kernels(&opts.kernels, &mut notes)?;
    let clock = crate::machine::cpuinfo().clock_ghz().0;
    let m = &opts.measuring;
    let use_openssl = m.peers.openssl_available(&mut notes);
    let rc_peers = m.peers.rustcrypto_peers();
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
    let mut rows: Vec<((usize, usize, usize, usize), Row)> = Vec::new();
    for &size in &opts.key_sizes {
        for (oi, &op) in opts.ops.iter().enumerate() {
            for (li, &len) in opts.sizes.iter().enumerate() {
                let n = effective_size(op, len);
                progress(&format!("kernels: AES-{} {op} {n} B", size.bits()));
                let mut who: Vec<(usize, usize)> = Vec::new();
                let mut contenders: Vec<Contender<'_>> = Vec::new();
                for (ki, k) in chosen.iter().enumerate() {
                    for (si, _) in schedules.iter().enumerate().filter(|(_, s)| s.0 == size) {
                        who.push((ki, si));
                        contenders.push(kernel_contender(*k, &schedules[si].2, op, n));
                    }
                }
                for &p in &rc_peers {
                    contenders.extend(rustcrypto::contender(p, size, op.work(), n));
                }
                let bps = measure_group(n, m.min_time, m.repetitions, &mut contenders);
                drop(contenders);
                let ossl = use_openssl.then(|| openssl_peer(size, op, n, m.openssl_seconds));
                let os = ossl.as_ref().and_then(|p| match p.run() {
                    Ok(v) => Some(v / 1e9),
                    Err(e) => {
                        crate::note_once(&mut notes, e);
                        None
                    }
                });
                for (i, &(ki, si)) in who.iter().enumerate() {
                    let mut row = Row::new(
                        Section::Kernels,
                        op.name(),
                        chosen[ki].name(),
                        Some(size.bits()),
                        1,
                        1,
                        n as u64,
                        n as f64 / bps[i],
                        clock,
                    );
                    row.key_expansion = Some(schedules[si].1.name().to_string());
                    for (j, &p) in rc_peers.iter().enumerate() {
                        row.add_peer(p, Some(bps[who.len() + j] / 1e9), None);
                    }
                    row.add_peer(Peer::Openssl, os, ossl.as_ref().map(|p| p.command_line()));
                    rows.push(((ki, si, oi, li), row));
                }
            }
        }
    }
    rows.sort_by_key(|(k, _)| *k);
    Ok(Report {
        rows: rows.into_iter().map(|(_, r)| r).collect(),
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_kernel_is_an_error() {
        let opts = BenchOptions {
            kernels: vec!["nope".into()],
            ..BenchOptions::quick()
        };
        assert!(matches!(
            run(&opts, &mut |_| {}),
            Err(BenchError::UnknownKernel(_))
        ));
    }

    #[test]
    fn tiny_run_renders() {
        let opts = BenchOptions {
            kernels: vec!["ctime".into()],
            key_sizes: vec![KeySize::Aes128],
            sizes: vec![64, 100],
            measuring: Measuring {
                repetitions: 2,
                ..Measuring::smoke()
            },
            ..BenchOptions::default()
        };
        let mut steps = 0;
        let r = run(&opts, &mut |_| steps += 1).unwrap();
        assert_eq!((r.rows.len(), steps), (6, 6));
        assert!(r.rows.iter().all(|row| row.gbps > 0.0));
        // ECB rounds 100 bytes down to whole blocks; CTR takes any length.
        assert!(r.rows.iter().any(|x| x.op == "ecb-enc" && x.bytes == 96));
        assert!(r.rows.iter().any(|x| x.op == "ctr" && x.bytes == 100));
        assert!(r.rows.iter().all(|x| x.peer(Peer::RustCrypto09).is_some()));
        assert!(r.rows.iter().any(|x| x.implementation.contains("ctime")));
    }
}
