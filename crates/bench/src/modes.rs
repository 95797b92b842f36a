//! The modes section (issue 4): CBC encryption through the multi-stream
//! engine, CBC decryption, CTR and GCM, each beside RustCrypto and OpenSSL
//! measured in the same run.
//!
//! | op | aesflow | RustCrypto | OpenSSL |
//! |---|---|---|---|
//! | `cbc-enc` | `aesflow_multistream` with 1…64 streams of `size` bytes (distinct keys, expanded once), and `aesflow_modes::cbc::encrypt_in_place` (one stream) | `cbc` 0.1 `Encryptor` (one stream) | `openssl speed -evp aes-128-cbc` (one stream) |
//! | `cbc-dec` | `aesflow_modes::cbc::decrypt_in_place` | `cbc` 0.1 `Decryptor` | `… -evp aes-N-cbc -decrypt` |
//! | `ctr` | `aesflow_modes::Ctr` | `ctr` 0.9 `Ctr128BE` | `… -evp aes-N-ctr` |
//! | `gcm-seal` | `aesflow_modes::Gcm::seal_in_place_detached`, 12-byte nonce, 13 bytes of AAD | `aes-gcm` 0.10 `encrypt_in_place_detached`, same | `… -evp aes-N-gcm -aead` (IV, 13-byte AAD, data, tag per operation) |
//!
//! CBC encryption is serial within a stream, so one stream is bound by the
//! latency of the AES rounds; the multi-stream rows give the *total*
//! throughput of all streams on one core, and their ratios are against the
//! peers' single stream (which is all `openssl speed` and `cbc` offer).
//! Everything runs on one thread; rows are wall-clock, best of the
//! repetitions, contenders of one group timed round-robin (see
//! [`crate::measure_group_sized`]).

use crate::{
    BenchError, Contender, OpensslSpeed, Peers, fill, human_size, measure_group_sized,
    openssl_version, opt, render_grid, test_key, tsc_ghz,
};
use aesflow_cipher::{Aes, KeySize, RoundKeys};
use aesflow_multistream::{Backend, Job, Mode, MultiStream};
use serde::Serialize;
use std::fmt::{self, Write as _};
use std::hint::black_box;
use std::time::Duration;

/// An operation of the modes section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModeOp {
    /// CBC encryption (serial per stream; the multi-stream engine).
    CbcEnc,
    /// CBC decryption (parallel within a stream).
    CbcDec,
    /// Counter mode.
    Ctr,
    /// GCM seal (encrypt and authenticate one message).
    GcmSeal,
}

impl ModeOp {
    /// All operations, in report order.
    pub const ALL: [ModeOp; 4] = [ModeOp::CbcEnc, ModeOp::CbcDec, ModeOp::Ctr, ModeOp::GcmSeal];

    /// `"cbc-enc"`, `"cbc-dec"`, `"ctr"` or `"gcm-seal"`.
    pub fn name(self) -> &'static str {
        match self {
            ModeOp::CbcEnc => "cbc-enc",
            ModeOp::CbcDec => "cbc-dec",
            ModeOp::Ctr => "ctr",
            ModeOp::GcmSeal => "gcm-seal",
        }
    }

    /// Parse a name (also `cbc`, `gcm`).
    pub fn parse(s: &str) -> Option<ModeOp> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cbc-enc" | "cbc" | "cbc-encrypt" => Some(ModeOp::CbcEnc),
            "cbc-dec" | "cbc-decrypt" => Some(ModeOp::CbcDec),
            "ctr" => Some(ModeOp::Ctr),
            "gcm-seal" | "gcm" => Some(ModeOp::GcmSeal),
            _ => None,
        }
    }
}

impl fmt::Display for ModeOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the modes section measures.
#[derive(Clone, Debug)]
pub struct ModesOptions {
    /// Stream counts for multi-stream CBC encryption.
    pub streams: Vec<usize>,
    /// Bytes per stream / per message (rounded down to whole blocks, at
    /// least one, for CBC).
    pub size: usize,
    /// Key size of the CBC-encryption rows.
    pub cbc_enc_key: KeySize,
    /// Key sizes of the CBC-decryption, CTR and GCM rows.
    pub key_sizes: Vec<KeySize>,
    /// Operations.
    pub ops: Vec<ModeOp>,
    /// Multi-stream backend (`Auto`: the best this CPU runs).
    pub backend: Backend,
    /// Measuring time per contender, split over `repetitions`.
    pub min_time: Duration,
    /// Repetitions; the best is reported.
    pub repetitions: usize,
    /// Peers.
    pub peers: Peers,
    /// `-seconds` of each `openssl speed` run.
    pub openssl_seconds: u32,
}

impl Default for ModesOptions {
    /// 1, 2, 4, …, 64 streams of 16 KiB with AES-128 for CBC encryption;
    /// CBC decryption, CTR and GCM on 16 KiB with AES-128/192/256; both
    /// peers; 0.2 s per contender as the best of 5; 1 s per OpenSSL run.
    fn default() -> Self {
        ModesOptions {
            streams: vec![1, 2, 4, 8, 16, 32, 64],
            size: 16384,
            cbc_enc_key: KeySize::Aes128,
            key_sizes: KeySize::ALL.to_vec(),
            ops: ModeOp::ALL.to_vec(),
            backend: Backend::Auto,
            min_time: Duration::from_millis(200),
            repetitions: 5,
            peers: Peers {
                rustcrypto: true,
                openssl: true,
            },
            openssl_seconds: 1,
        }
    }
}

/// One measured configuration of the modes section.
#[derive(Clone, Debug, Serialize)]
pub struct ModesRow {
    /// Operation.
    pub op: ModeOp,
    /// What ran: `multistream/<backend>` or `modes/<kernel>`.
    pub implementation: String,
    /// 128, 192 or 256.
    pub key_bits: usize,
    /// Independent streams processed per call (1 except multi-stream).
    pub streams: usize,
    /// Bytes per stream.
    pub size: usize,
    /// Total throughput over all streams, 10^9 bytes/s.
    pub gbps: f64,
    /// Cycles per byte (total) at the nominal clock.
    pub cycles_per_byte: f64,
    /// RustCrypto, one stream of `size` bytes.
    pub rustcrypto_gbps: Option<f64>,
    /// OpenSSL (`openssl speed`), one stream of `size` bytes.
    pub openssl_gbps: Option<f64>,
    /// `gbps / rustcrypto_gbps`.
    pub vs_rustcrypto: Option<f64>,
    /// `gbps / openssl_gbps`.
    pub vs_openssl: Option<f64>,
}

/// The modes section's result.
#[derive(Clone, Debug, Serialize)]
pub struct ModesReport {
    /// Rows in op, key size, implementation, streams order.
    pub rows: Vec<ModesRow>,
    /// The multi-stream backend used and its lanes.
    pub multistream_backend: String,
    /// Lanes the backend keeps in flight.
    pub multistream_lanes: usize,
    /// The `openssl speed` command lines run.
    pub openssl_commands: Vec<String>,
    /// Nominal clock used for `cycles_per_byte`.
    pub tsc_ghz: f64,
    /// Remarks and skipped peers.
    pub notes: Vec<String>,
}

/// One stream's key of the multi-stream rows (distinct per stream).
fn stream_key(size: KeySize, s: usize) -> Vec<u8> {
    (0..size.bytes())
        .map(|i| (s * 31 + i * 7 + 1) as u8)
        .collect()
}

fn blocks_of(n: usize) -> usize {
    (n / 16).max(1) * 16
}

/// RustCrypto CBC on `n` bytes (one stream).
fn rustcrypto_cbc(size: KeySize, decrypt: bool, n: usize) -> Contender<'static> {
    use cbc::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
    macro_rules! with {
        ($c:ty) => {{
            let key = test_key(size);
            let mut blocks = vec![aes::Block::default(); n / 16];
            for (i, b) in blocks.iter_mut().enumerate() {
                b[0] = i as u8;
                b[7] = (i >> 8) as u8;
            }
            if decrypt {
                let mut c = cbc::Decryptor::<$c>::new_from_slices(&key, &[3u8; 16])
                    .expect("key and IV lengths match");
                Box::new(move || c.decrypt_blocks_mut(black_box(&mut blocks[..])))
                    as Contender<'static>
            } else {
                let mut c = cbc::Encryptor::<$c>::new_from_slices(&key, &[3u8; 16])
                    .expect("key and IV lengths match");
                Box::new(move || c.encrypt_blocks_mut(black_box(&mut blocks[..])))
            }
        }};
    }
    match size {
        KeySize::Aes128 => with!(aes::Aes128),
        KeySize::Aes192 => with!(aes::Aes192),
        KeySize::Aes256 => with!(aes::Aes256),
    }
}

/// RustCrypto CTR on `n` bytes.
fn rustcrypto_ctr(size: KeySize, n: usize) -> Contender<'static> {
    use aes::cipher::{KeyIvInit, StreamCipher};
    let key = test_key(size);
    let mut data = vec![0u8; n];
    fill(&mut data);
    macro_rules! with {
        ($c:ty) => {{
            let mut c = ctr::Ctr128BE::<$c>::new_from_slices(&key, &[0u8; 16])
                .expect("key and IV lengths match");
            Box::new(move || c.apply_keystream(black_box(&mut data[..])))
        }};
    }
    match size {
        KeySize::Aes128 => with!(aes::Aes128),
        KeySize::Aes192 => with!(aes::Aes192),
        KeySize::Aes256 => with!(aes::Aes256),
    }
}

/// The AAD length `openssl speed -aead` uses (a TLS record header).
const AEAD_AAD: [u8; 13] = [0x17; 13];

/// RustCrypto AES-GCM seal of `n` bytes (12-byte nonce, 13 bytes of AAD).
fn rustcrypto_gcm(size: KeySize, n: usize) -> Contender<'static> {
    use aes_gcm::aead::consts::U12;
    use aes_gcm::{AeadInPlace, AesGcm, KeyInit, Nonce};
    let key = test_key(size);
    let mut data = vec![0u8; n];
    fill(&mut data);
    macro_rules! with {
        ($c:ty) => {{
            let c = AesGcm::<$c, U12>::new_from_slice(&key).expect("key length matches");
            Box::new(move || {
                let tag = c
                    .encrypt_in_place_detached(
                        Nonce::from_slice(&[1u8; 12]),
                        &AEAD_AAD,
                        black_box(&mut data[..]),
                    )
                    .expect("message within limits");
                black_box(tag);
            })
        }};
    }
    match size {
        KeySize::Aes128 => with!(aes::Aes128),
        KeySize::Aes192 => with!(aes::Aes192),
        KeySize::Aes256 => with!(aes::Aes256),
    }
}

/// The OpenSSL peer of one op and key size.
fn openssl_peer(op: ModeOp, size: KeySize, n: usize, seconds: u32) -> OpensslSpeed {
    let bits = size.bits();
    match op {
        ModeOp::CbcEnc => OpensslSpeed::new(&format!("aes-{bits}-cbc"), n, seconds),
        ModeOp::CbcDec => OpensslSpeed {
            decrypt: true,
            ..OpensslSpeed::new(&format!("aes-{bits}-cbc"), n, seconds)
        },
        ModeOp::Ctr => OpensslSpeed::new(&format!("aes-{bits}-ctr"), n, seconds),
        ModeOp::GcmSeal => OpensslSpeed {
            aead: true,
            ..OpensslSpeed::new(&format!("aes-{bits}-gcm"), n, seconds)
        },
    }
}

/// Run the modes section.
pub fn run_modes(opts: &ModesOptions) -> Result<ModesReport, BenchError> {
    if opts.ops.is_empty() {
        return Err(BenchError::Empty("mode operations"));
    }
    if opts.ops.contains(&ModeOp::CbcEnc) && opts.streams.is_empty() {
        return Err(BenchError::Empty("stream counts"));
    }
    if opts.streams.contains(&0) {
        return Err(BenchError::Setup(
            "a stream count must be at least 1".into(),
        ));
    }
    let non_cbc_enc = opts.ops.iter().any(|&o| o != ModeOp::CbcEnc);
    if non_cbc_enc && opts.key_sizes.is_empty() {
        return Err(BenchError::Empty("key sizes"));
    }
    let engine = MultiStream::new(opts.backend)
        .map_err(|e| BenchError::Setup(format!("multistream: {e}")))?;
    let (tsc, _) = tsc_ghz();
    let mut notes = Vec::new();
    let use_openssl = if opts.peers.openssl {
        let v = openssl_version().is_some();
        if !v {
            notes.push("peer skipped: openssl not found".into());
        }
        v
    } else {
        false
    };
    let mut openssl_commands = Vec::new();
    let mut openssl = |op: ModeOp, size: KeySize, n: usize, notes: &mut Vec<String>| {
        if !use_openssl {
            return None;
        }
        let p = openssl_peer(op, size, n, opts.openssl_seconds);
        openssl_commands.push(p.command_line());
        match p.run() {
            Ok(v) => Some(v / 1e9),
            Err(e) => {
                notes.push(e);
                None
            }
        }
    };
    let row = |op: ModeOp,
               implementation: String,
               size: KeySize,
               streams: usize,
               n: usize,
               bps: f64,
               rc: Option<f64>,
               os: Option<f64>| {
        let gbps = bps / 1e9;
        ModesRow {
            op,
            implementation,
            key_bits: size.bits(),
            streams,
            size: n,
            gbps,
            cycles_per_byte: tsc * 1e9 / bps,
            rustcrypto_gbps: rc,
            openssl_gbps: os,
            vs_rustcrypto: rc.map(|p| gbps / p),
            vs_openssl: os.map(|p| gbps / p),
        }
    };
    let mut rows = Vec::new();

    for &op in ModeOp::ALL.iter().filter(|o| opts.ops.contains(o)) {
        let sizes: Vec<KeySize> = if op == ModeOp::CbcEnc {
            vec![opts.cbc_enc_key]
        } else {
            opts.key_sizes.clone()
        };
        for size in sizes {
            let key = test_key(size);
            let aes = Aes::new(&key).map_err(|e| BenchError::Setup(e.to_string()))?;
            let kernel = aes.kernel().name();
            let n = if matches!(op, ModeOp::CbcEnc | ModeOp::CbcDec) {
                blocks_of(opts.size)
            } else {
                opts.size
            };
            // (implementation, streams) of each aesflow contender; RustCrypto
            // last.
            let mut who: Vec<(String, usize)> = Vec::new();
            let mut bytes: Vec<usize> = Vec::new();
            let mut contenders: Vec<Contender<'_>> = Vec::new();
            match op {
                ModeOp::CbcEnc => {
                    let mut buf = vec![0u8; n];
                    fill(&mut buf);
                    let a = &aes;
                    contenders.push(Box::new(move || {
                        aesflow_modes::cbc::encrypt_in_place(a, &[3u8; 16], black_box(&mut buf))
                            .expect("whole blocks");
                    }));
                    who.push((format!("modes/{kernel}"), 1));
                    bytes.push(n);
                    for &s in &opts.streams {
                        let keys: Vec<RoundKeys> = (0..s)
                            .map(|i| RoundKeys::from_bytes(&stream_key(size, i)).expect("key"))
                            .collect();
                        let inputs: Vec<Vec<u8>> = (0..s)
                            .map(|i| {
                                let mut v = vec![0u8; n];
                                fill(&mut v);
                                v[0] = i as u8;
                                v
                            })
                            .collect();
                        let mut outputs = vec![vec![0u8; n]; s];
                        let e = &engine;
                        contenders.push(Box::new(move || {
                            let mut jobs: Vec<Job<'_>> = keys
                                .iter()
                                .zip(&inputs)
                                .zip(outputs.iter_mut())
                                .enumerate()
                                .map(|(i, ((k, inp), out))| {
                                    Job::new(Mode::CbcEncrypt, k, [i as u8; 16], inp, out)
                                })
                                .collect();
                            e.process(black_box(&mut jobs)).expect("valid jobs");
                        }));
                        who.push((format!("multistream/{}", engine.backend()), s));
                        bytes.push(s * n);
                    }
                }
                ModeOp::CbcDec => {
                    let mut buf = vec![0u8; n];
                    fill(&mut buf);
                    let a = &aes;
                    contenders.push(Box::new(move || {
                        aesflow_modes::cbc::decrypt_in_place(a, &[3u8; 16], black_box(&mut buf))
                            .expect("whole blocks");
                    }));
                    who.push((format!("modes/{kernel}"), 1));
                    bytes.push(n);
                }
                ModeOp::Ctr => {
                    let mut buf = vec![0u8; n];
                    fill(&mut buf);
                    let mut c = aesflow_modes::Ctr::new(&aes, &[0u8; 16])
                        .map_err(|e| BenchError::Setup(e.to_string()))?;
                    contenders.push(Box::new(move || c.apply_keystream(black_box(&mut buf))));
                    who.push((format!("modes/{kernel}"), 1));
                    bytes.push(n);
                }
                ModeOp::GcmSeal => {
                    let gcm = aesflow_modes::Gcm::new(&key)
                        .map_err(|e| BenchError::Setup(e.to_string()))?;
                    let name = match gcm.fused_kernel() {
                        Some(f) => format!("modes/{f}"),
                        None => format!(
                            "modes/{}+{}",
                            gcm.aes().kernel().name(),
                            gcm.ghash_impl().name()
                        ),
                    };
                    let mut buf = vec![0u8; n];
                    fill(&mut buf);
                    contenders.push(Box::new(move || {
                        let tag = gcm
                            .seal_in_place_detached(&[1u8; 12], &AEAD_AAD, black_box(&mut buf))
                            .expect("message within limits");
                        black_box(tag);
                    }));
                    who.push((name, 1));
                    bytes.push(n);
                }
            }
            if opts.peers.rustcrypto {
                contenders.push(match op {
                    ModeOp::CbcEnc => rustcrypto_cbc(size, false, n),
                    ModeOp::CbcDec => rustcrypto_cbc(size, true, n),
                    ModeOp::Ctr => rustcrypto_ctr(size, n),
                    ModeOp::GcmSeal => rustcrypto_gcm(size, n),
                });
                bytes.push(n);
            }
            let bps = measure_group_sized(&bytes, opts.min_time, opts.repetitions, &mut contenders);
            drop(contenders);
            let rc = opts.peers.rustcrypto.then(|| bps[who.len()] / 1e9);
            let os = openssl(op, size, n, &mut notes);
            for ((imp, streams), &b) in who.into_iter().zip(&bps) {
                rows.push(row(op, imp, size, streams, n, b, rc, os));
            }
        }
    }
    if opts.ops.contains(&ModeOp::CbcEnc) {
        notes.push(format!(
            "cbc-enc multistream rows: total GB/s of all streams on one thread ({} backend, {} \
             lanes, distinct keys expanded once); the peers are one stream",
            engine.backend(),
            engine.lanes()
        ));
    }
    if opts.ops.contains(&ModeOp::GcmSeal) {
        notes.push(
            "gcm-seal: one message per operation, 12-byte nonce, 13-byte AAD, tag computed \
             (openssl speed -aead does the same)"
                .into(),
        );
    }
    Ok(ModesReport {
        rows,
        multistream_backend: engine.backend().to_string(),
        multistream_lanes: engine.lanes(),
        openssl_commands,
        tsc_ghz: tsc,
        notes,
    })
}

/// The modes rows as an aligned table (no machine header), notes beneath.
pub fn render_modes_table(report: &ModesReport) -> String {
    let mut s = String::new();
    let header = [
        "op",
        "key",
        "implementation",
        "streams",
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
            r.op.name().to_string(),
            format!("AES-{}", r.key_bits),
            r.implementation.clone(),
            r.streams.to_string(),
            human_size(r.size),
            format!("{:.3}", r.gbps),
            format!("{:.3}", r.cycles_per_byte),
            opt(r.rustcrypto_gbps, 3),
            opt(r.vs_rustcrypto, 2),
            opt(r.openssl_gbps, 3),
            opt(r.vs_openssl, 2),
        ]);
    }
    render_grid(&mut s, &table, 3);
    for n in &report.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_names_round_trip() {
        for op in ModeOp::ALL {
            assert_eq!(ModeOp::parse(op.name()), Some(op));
        }
        assert_eq!(ModeOp::parse("gcm"), Some(ModeOp::GcmSeal));
        assert_eq!(ModeOp::parse("ecb"), None);
    }

    #[test]
    fn openssl_peer_commands() {
        let c = openssl_peer(ModeOp::GcmSeal, KeySize::Aes256, 16384, 1).command_line();
        assert_eq!(
            c,
            "openssl speed -mr -elapsed -evp aes-256-gcm -aead -bytes 16384 -seconds 1"
        );
        let c = openssl_peer(ModeOp::CbcDec, KeySize::Aes128, 16384, 2).command_line();
        assert!(c.contains("aes-128-cbc -decrypt -bytes 16384 -seconds 2"));
    }

    #[test]
    fn tiny_run_renders() {
        let opts = ModesOptions {
            streams: vec![1, 3],
            size: 100,
            key_sizes: vec![KeySize::Aes192],
            min_time: Duration::from_millis(1),
            repetitions: 1,
            peers: Peers {
                rustcrypto: true,
                openssl: false,
            },
            ..ModesOptions::default()
        };
        let r = run_modes(&opts).unwrap();
        // cbc-enc: modes + 2 multistream; cbc-dec, ctr, gcm: one each.
        assert_eq!(r.rows.len(), 6);
        assert!(
            r.rows
                .iter()
                .all(|x| x.gbps > 0.0 && x.vs_rustcrypto.is_some())
        );
        let ms = r.rows.iter().find(|x| x.streams == 3).unwrap();
        assert_eq!((ms.op, ms.size, ms.key_bits), (ModeOp::CbcEnc, 96, 128));
        let gcm = r.rows.iter().find(|x| x.op == ModeOp::GcmSeal).unwrap();
        assert_eq!((gcm.size, gcm.key_bits), (100, 192));
        let t = render_modes_table(&r);
        assert!(t.contains("multistream/") && t.contains("gcm-seal"));
    }
}
