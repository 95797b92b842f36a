//! The modes section: CBC encryption through the multi-stream engine (1…64
//! streams), CBC decryption, CTR, GCM seal and open, each beside both
//! RustCrypto generations, OpenSSL and (feature `ipsec-mb`) Intel ipsec-mb,
//! measured in the same run; with [`ModesOptions::gateway`], the VPN
//! gateway rows of [`crate::gateway`] after them.
//!
//! | op | aesflow | RustCrypto | OpenSSL | ipsec-mb |
//! |---|---|---|---|---|
//! | `cbc-enc` | multi-stream engine, N streams of `size` bytes (distinct keys, expanded once); `aesflow_modes::cbc` for one | `cbc` `Encryptor` (one stream) | `openssl speed -evp aes-N-cbc` (one stream) | N CBC jobs submitted, then flushed (N lanes) |
//! | `cbc-dec` | `aesflow_modes::cbc::decrypt_in_place` | `cbc` `Decryptor` | `… -decrypt` | one CBC decrypt job |
//! | `ctr` | `aesflow_modes::Ctr` | `ctr` `Ctr128BE` | `… -evp aes-N-ctr` | one CNTR job |
//! | `gcm-seal` / `gcm-open` | `aesflow_modes::Gcm`, 12-byte nonce, 13 bytes of AAD (out of place: `seal_into`, `open_into`) | `aes-gcm` detached (open: copy, then in place) | `… -evp aes-N-gcm -aead [-decrypt]` | one GCM job |
//! | `xts-enc` / `xts-dec` | `aesflow_modes::Xts`, one data unit of `size` bytes (`encrypt_sector`), or units of `xts_unit` bytes (`encrypt_units`) | `xts-mode` `encrypt_sector` / `encrypt_area` | `… -evp aes-N-xts` (one unit only) | – (none in 1.3) |
//!
//! `buffer_slack` (`--buffer-slack`) allocates every multi-stream buffer,
//! aesflow's and ipsec-mb's, that many bytes longer: the layout decides
//! which L1 sets the streams share (see [`crate::measure::buffer`]).
//!
//! CBC encryption is serial within a stream, so one stream is bound by the
//! latency of the AES rounds; the multi-stream rows give the *total*
//! throughput of all streams on one core. Their RustCrypto and OpenSSL
//! ratios are against one stream (all those offer); their ipsec-mb ratio
//! is against ipsec-mb's multi-buffer manager with the same number of jobs
//! in flight. Everything runs on one thread; contenders of one group are
//! timed round-robin by the thread's on-CPU time
//! ([`crate::measure::measure_group_on_cpu`]), so that other processes
//! taking the core (a shared machine) do not count against the contender
//! that happened to be running.

pub(crate) mod aesflow;

use crate::measure::{Contender, measure_group_on_cpu, test_key};
use crate::openssl::OpensslSpeed;
use crate::row::{Peer, Row, Section};
use crate::rustcrypto::{self, Work};
use crate::{BenchError, Measuring, Report};
use aesflow_cipher::{Kernel, KeySize};
use aesflow_multistream::{Backend, MultiStream};
use serde::Serialize;
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
    /// GCM open (authenticate and decrypt one message).
    GcmOpen,
    /// XTS encryption of one data unit (XTS-AES-128/256).
    XtsEnc,
    /// XTS decryption of one data unit.
    XtsDec,
}

impl ModeOp {
    /// All operations, in report order.
    pub const ALL: [ModeOp; 7] = [
        ModeOp::CbcEnc,
        ModeOp::CbcDec,
        ModeOp::Ctr,
        ModeOp::GcmSeal,
        ModeOp::GcmOpen,
        ModeOp::XtsEnc,
        ModeOp::XtsDec,
    ];

    /// `"cbc-enc"`, `"cbc-dec"`, `"ctr"`, `"gcm-seal"`, `"gcm-open"`,
    /// `"xts-enc"` or `"xts-dec"`.
    pub fn name(self) -> &'static str {
        match self {
            ModeOp::CbcEnc => "cbc-enc",
            ModeOp::CbcDec => "cbc-dec",
            ModeOp::Ctr => "ctr",
            ModeOp::GcmSeal => "gcm-seal",
            ModeOp::GcmOpen => "gcm-open",
            ModeOp::XtsEnc => "xts-enc",
            ModeOp::XtsDec => "xts-dec",
        }
    }

    /// Parse a name (also `cbc`, `gcm`).
    pub fn parse(s: &str) -> Option<ModeOp> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cbc-enc" | "cbc" | "cbc-encrypt" => Some(ModeOp::CbcEnc),
            "cbc-dec" | "cbc-decrypt" => Some(ModeOp::CbcDec),
            "ctr" => Some(ModeOp::Ctr),
            "gcm-seal" | "gcm" => Some(ModeOp::GcmSeal),
            "gcm-open" => Some(ModeOp::GcmOpen),
            "xts-enc" | "xts" => Some(ModeOp::XtsEnc),
            "xts-dec" => Some(ModeOp::XtsDec),
            _ => None,
        }
    }

    fn work(self) -> Work {
        Work::Mode(self)
    }

    /// Whether the op takes whole blocks only.
    fn blocks_only(self) -> bool {
        matches!(self, ModeOp::CbcEnc | ModeOp::CbcDec)
    }
}

crate::display_name!(ModeOp);

/// What the modes section measures.
#[derive(Clone, Debug)]
pub struct ModesOptions {
    /// Stream counts for multi-stream CBC encryption.
    pub streams: Vec<usize>,
    /// Bytes per stream / per message (rounded down to whole blocks, at
    /// least one, for CBC).
    pub size: usize,
    /// Key sizes of the CBC-encryption rows (by default AES-128 alone:
    /// each size measures every stream count).
    pub cbc_enc_keys: Vec<KeySize>,
    /// Key sizes of the CBC-decryption, CTR and GCM rows.
    pub key_sizes: Vec<KeySize>,
    /// Operations.
    pub ops: Vec<ModeOp>,
    /// Multi-stream backend (`Auto`: the one of [`ModesOptions::kernel`]).
    pub backend: Backend,
    /// The AES kernel of aesflow's one-stream rows and of the `Auto`
    /// multi-stream backend (the application resolves it, e.g. from
    /// `AESFLOW_KERNEL`; ipsec-mb runs its SSE manager for `aesni`).
    pub kernel: &'static dyn Kernel,
    /// XTS data-unit length in bytes (`None`: each message is one unit).
    pub xts_unit: Option<usize>,
    /// Spare bytes allocated after each multi-stream buffer, aesflow's
    /// and ipsec-mb's alike (see [`crate::measure::buffer`]; default 0).
    pub buffer_slack: usize,
    /// Time, repetitions and peers.
    pub measuring: Measuring,
    /// The gateway rows (many tunnels, a packet mix; see
    /// [`crate::gateway`]), measured after the operations when present.
    pub gateway: Option<crate::gateway::GatewayOptions>,
    /// The plan the default rows run (GCM's blocks in flight, the
    /// multi-stream lanes); every other variant of the plan's operations
    /// that this CPU runs is measured in a row of its own beside them.
    pub plan: aesflow_plan::Plan,
}

impl Default for ModesOptions {
    /// 1, 2, 4, …, 64 streams of 16 KiB with AES-128 for CBC encryption;
    /// CBC decryption, CTR and GCM on 16 KiB with AES-128/192/256; every
    /// peer; 0.2 s per contender as the best of 5; 1 s per OpenSSL run.
    fn default() -> Self {
        ModesOptions {
            streams: vec![1, 2, 4, 8, 16, 32, 64],
            size: 16384,
            cbc_enc_keys: vec![KeySize::Aes128],
            key_sizes: KeySize::ALL.to_vec(),
            ops: ModeOp::ALL.to_vec(),
            backend: Backend::Auto,
            kernel: aesflow_cipher::detect_best(),
            buffer_slack: 0,
            xts_unit: None,
            measuring: Measuring::new(Duration::from_millis(200)),
            gateway: None,
            plan: aesflow_plan::Plan::for_this_cpu(),
        }
    }
}

/// The largest `--buffer-slack` (a layout knob, not a memory test).
const MAX_SLACK: usize = 1 << 20;

impl ModesOptions {
    fn check(&self) -> Result<(), BenchError> {
        if self.ops.is_empty() && self.gateway.is_none() {
            return Err(BenchError::Empty("mode operations"));
        }
        if let Some(g) = &self.gateway {
            g.check()?;
        }
        if self.ops.contains(&ModeOp::CbcEnc) && self.streams.is_empty() {
            return Err(BenchError::Empty("stream counts"));
        }
        if self.ops.contains(&ModeOp::CbcEnc) && self.cbc_enc_keys.is_empty() {
            return Err(BenchError::Empty("key sizes"));
        }
        if self.streams.contains(&0) {
            return Err(BenchError::Setup(
                "a stream count must be at least 1".into(),
            ));
        }
        if self.ops.iter().any(|&o| o != ModeOp::CbcEnc) && self.key_sizes.is_empty() {
            return Err(BenchError::Empty("key sizes"));
        }
        if self
            .xts_unit
            .is_some_and(|u| !(16..=self.size.max(16)).contains(&u))
        {
            return Err(BenchError::Setup(format!(
                "an XTS data unit must be 16 to {} bytes (the message size)",
                self.size.max(16)
            )));
        }
        if self.buffer_slack > MAX_SLACK {
            return Err(BenchError::Setup(format!(
                "a buffer slack of {} bytes is above the limit of {MAX_SLACK} (1 MiB)",
                self.buffer_slack
            )));
        }
        Ok(())
    }
}

/// The `openssl speed` peer of one op and key size.
fn openssl_peer(op: ModeOp, size: KeySize, n: usize, seconds: u32) -> OpensslSpeed {
    let bits = size.bits();
    let (mode, decrypt, aead) = match op {
        ModeOp::CbcEnc => ("cbc", false, false),
        ModeOp::CbcDec => ("cbc", true, false),
        ModeOp::Ctr => ("ctr", false, false),
        ModeOp::GcmSeal => ("gcm", false, true),
        ModeOp::GcmOpen => ("gcm", true, true),
        ModeOp::XtsEnc => ("xts", false, false),
        ModeOp::XtsDec => ("xts", true, false),
    };
    OpensslSpeed {
        decrypt,
        aead,
        ..OpensslSpeed::new(&format!("aes-{bits}-{mode}"), n, seconds)
    }
}

/// The shared state of one run of the section.
struct Run<'o> {
    opts: &'o ModesOptions,
    engine: MultiStream,
    clock: f64,
    use_openssl: bool,
    notes: Vec<String>,
}

/// A contender with the bytes it does per call and what its figure
/// becomes: an aesflow row (implementation, streams) or a peer's figure
/// (peer, lanes).
enum Who {
    Aesflow(String, usize),
    Peer(Peer, usize),
}

impl Run<'_> {
    /// Measure one op at one key size: aesflow's contenders and the
    /// in-process peers round-robin, then OpenSSL; one row per aesflow
    /// contender.
    fn measure(&mut self, op: ModeOp, size: KeySize) -> Result<Vec<Row>, BenchError> {
        let o = self.opts;
        let key = test_key(size);
        let n = if op.blocks_only() {
            (o.size / 16).max(1) * 16
        } else {
            o.size
        };
        let lanes: Vec<usize> = if op == ModeOp::CbcEnc {
            let mut l = vec![1];
            l.extend(o.streams.iter().copied().filter(|&s| s != 1));
            l
        } else {
            vec![1]
        };
        let mut who: Vec<(Who, usize)> = Vec::new();
        let mut contenders: Vec<Contender<'_>> = Vec::new();
        let unit = o.xts_unit.unwrap_or(n);
        let variants = [aesflow::Variant::Default]
            .into_iter()
            .chain(aesflow::variants(op, &o.plan));
        for v in variants {
            if let Some((f, name)) = aesflow::one_stream(op, &key, n, unit, o.kernel, v, &o.plan)? {
                // A variant this CPU runs as the default is one row.
                if who
                    .iter()
                    .any(|(w, _)| matches!(w, Who::Aesflow(m, 1) if *m == name))
                {
                    continue;
                }
                contenders.push(f);
                who.push((Who::Aesflow(name, 1), n));
            }
        }
        if op == ModeOp::CbcEnc {
            for &s in &o.streams {
                contenders.push(aesflow::multistream(
                    &self.engine,
                    size,
                    s,
                    n,
                    o.buffer_slack,
                ));
                who.push((
                    Who::Aesflow(
                        format!(
                            "multistream/{}",
                            aesflow::engine_name(&self.engine, &o.plan)
                        ),
                        s,
                    ),
                    s * n,
                ));
            }
        }
        for p in o.measuring.peers.rustcrypto_peers() {
            let f = match op {
                ModeOp::XtsEnc | ModeOp::XtsDec if p == Peer::RustCrypto => {
                    Some(rustcrypto::xts(size, op.work(), n, unit))
                }
                _ => rustcrypto::contender(p, size, op.work(), n),
            };
            if let Some(f) = f {
                contenders.push(f);
                who.push((Who::Peer(p, 1), n));
            }
        }
        if o.measuring.peers.ipsec_mb {
            for &l in &lanes {
                match crate::ipsec_mb_contender(op, size, l, n, o.buffer_slack, o.kernel) {
                    Ok(f) => {
                        contenders.push(f);
                        who.push((Who::Peer(Peer::IpsecMb, l), l * n));
                    }
                    Err(e) => crate::note_once(&mut self.notes, e),
                }
            }
        }
        let bytes: Vec<usize> = who.iter().map(|(_, b)| *b).collect();
        let bps = measure_group_on_cpu(
            &bytes,
            o.measuring.min_time,
            o.measuring.repetitions,
            &mut contenders,
        );
        drop(contenders);
        // `openssl speed` runs one XTS data unit per operation.
        let units = matches!(op, ModeOp::XtsEnc | ModeOp::XtsDec) && unit < n;
        if units && self.use_openssl {
            crate::note_once(
                &mut self.notes,
                "peer skipped: openssl speed has no XTS data units shorter than the message".into(),
            );
        }
        let ossl = (self.use_openssl && !units)
            .then(|| openssl_peer(op, size, n, o.measuring.openssl_seconds));
        let os = ossl.as_ref().and_then(|p| match p.run() {
            Ok(v) => Some(v / 1e9),
            Err(e) => {
                crate::note_once(&mut self.notes, e);
                None
            }
        });
        let peer_gbps = |peer: Peer, lanes: usize| {
            who.iter()
                .zip(&bps)
                .find(|((w, _), _)| matches!(w, Who::Peer(p, l) if *p == peer && *l == lanes))
                .map(|(_, b)| b / 1e9)
        };
        let mut rows = Vec::new();
        for ((w, _), b) in who.iter().zip(&bps) {
            let Who::Aesflow(name, streams) = w else {
                continue;
            };
            let total = (streams * n) as f64;
            let mut row = Row::new(
                Section::Modes,
                op.name(),
                name.clone(),
                Some(size.bits()),
                *streams,
                1,
                n as u64,
                total / b,
                self.clock,
            );
            for p in [Peer::RustCrypto, Peer::RustCrypto09] {
                row.add_peer(p, peer_gbps(p, 1), None);
            }
            row.add_peer(Peer::Openssl, os, ossl.as_ref().map(|p| p.command_line()));
            row.add_peer(Peer::IpsecMb, peer_gbps(Peer::IpsecMb, *streams), None);
            rows.push(row);
        }
        Ok(rows)
    }
}

/// Run the modes section. `progress` is told what is being measured.
pub fn run_modes(
    opts: &ModesOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, BenchError> {
    opts.check()?;
    let engine = match opts.backend {
        Backend::Auto => MultiStream::with_kernel(opts.kernel),
        b => MultiStream::new(b),
    }
    .map_err(|e| BenchError::Setup(format!("multistream: {e}")))?
    .with_plan(&opts.plan);
    let mut notes = Vec::new();
    let use_openssl = opts.measuring.peers.openssl_available(&mut notes);
    let mut run = Run {
        opts,
        engine,
        clock: crate::machine::cpuinfo().clock_ghz().0,
        use_openssl,
        notes,
    };
    let mut rows = Vec::new();
    for &op in ModeOp::ALL.iter().filter(|o| opts.ops.contains(o)) {
        let sizes = match op {
            ModeOp::CbcEnc => opts.cbc_enc_keys.clone(),
            // XTS-AES is defined for 128- and 256-bit keys only.
            ModeOp::XtsEnc | ModeOp::XtsDec => opts
                .key_sizes
                .iter()
                .copied()
                .filter(|&k| k != KeySize::Aes192)
                .collect(),
            _ => opts.key_sizes.clone(),
        };
        for size in sizes {
            progress(&format!("modes: {op} AES-{}", size.bits()));
            rows.extend(run.measure(op, size)?);
        }
    }
    xts_vs_ctr(&mut rows);
    let mut notes = run.notes;
    if let Some(g) = &opts.gateway {
        rows.extend(crate::gateway::run_gateway(
            g,
            engine,
            opts.kernel,
            &opts.plan,
            &opts.measuring,
            run.clock,
            progress,
            &mut notes,
        )?);
    }
    if opts.ops.contains(&ModeOp::CbcEnc) {
        notes.push(format!(
            "cbc-enc multistream rows: total GB/s of all streams on one thread ({} backend, \
             distinct keys expanded once, at most {} streams in flight of its {} lanes); RC/OSSL \
             ratios are against one stream, MB against ipsec-mb with as many jobs in flight; \
             every stream buffer (aesflow's and ipsec-mb's) allocated on its own, {} bytes \
             longer than its data (--buffer-slack)",
            run.engine.backend(),
            run.engine.own_key_lanes(),
            run.engine.lanes(),
            opts.buffer_slack
        ));
    }
    if opts
        .ops
        .iter()
        .any(|o| matches!(o, ModeOp::GcmSeal | ModeOp::GcmOpen))
    {
        notes.push(
            "gcm: one message per operation, 12-byte nonce, 13-byte AAD, tag computed \
             (openssl speed -aead does the same); aesflow seals and opens out of place \
             (seal_into/open_into, as ipsec-mb's src/dst jobs); RustCrypto seals in place and \
             copies the ciphertext in, then opens in place"
                .into(),
        );
    }
    if opts
        .ops
        .iter()
        .any(|o| matches!(o, ModeOp::XtsEnc | ModeOp::XtsDec))
    {
        notes.push(format!(
            "xts: {} per operation (tweaks: sequence numbers from 7; aesflow \
             encrypt_units, xts-mode encrypt_area); x base is against CTR of the same key \
             size on the same kernel; ipsec-mb 1.3 has no XTS",
            match opts.xts_unit {
                Some(u) if u < opts.size => format!("data units of {u} bytes"),
                _ => "one data unit of `size` bytes".into(),
            }
        ));
    }
    Ok(Report { rows, notes })
}

/// XTS rows take the CTR row of the same AES key size as their baseline
/// (XTS should run at CTR speed: every block is independent).
fn xts_vs_ctr(rows: &mut [Row]) {
    let ctr: Vec<Row> = rows.iter().filter(|r| r.op == "ctr").cloned().collect();
    for r in rows.iter_mut().filter(|r| r.op.starts_with("xts")) {
        if let Some(c) = ctr.iter().find(|c| c.key_bits == r.key_bits) {
            r.compare(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both sections' operations: every name parses back to its op.
    #[test]
    fn op_names_round_trip() {
        use crate::Op;
        assert!(Op::ALL.iter().all(|&op| Op::parse(op.name()) == Some(op)));
        assert!(
            ModeOp::ALL
                .iter()
                .all(|&op| ModeOp::parse(op.name()) == Some(op))
        );
        assert_eq!(Op::parse("nope"), None);
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
        let c = openssl_peer(ModeOp::GcmOpen, KeySize::Aes128, 16384, 2).command_line();
        assert!(c.contains("aes-128-gcm -decrypt -aead -bytes 16384 -seconds 2"));
    }

    #[test]
    fn tiny_run_renders() {
        let opts = ModesOptions {
            streams: vec![1, 3],
            size: 100,
            key_sizes: vec![KeySize::Aes192],
            measuring: Measuring {
                min_time: Duration::from_millis(1),
                ..Measuring::smoke()
            },
            ..ModesOptions::default()
        };
        let too_far = ModesOptions {
            buffer_slack: MAX_SLACK + 1,
            ..opts.clone()
        };
        assert!(run_modes(&too_far, &mut |_| {}).is_err());
        let slack = ModesOptions {
            buffer_slack: 64,
            ops: vec![ModeOp::CbcEnc],
            ..opts.clone()
        };
        let r = run_modes(&slack, &mut |_| {}).unwrap();
        assert_eq!(r.rows.len(), 3);
        assert!(r.notes.iter().any(|n| n.contains("64 bytes longer")));
        let r = run_modes(&opts, &mut |_| {}).unwrap();
        // Rows of the variants this CPU runs, per op and key size.
        let extra = |ops: &[ModeOp]| -> usize {
            ops.iter()
                .map(|&op| {
                    let v = aesflow::variants(op, &opts.plan);
                    v.iter()
                        .filter(|&&v| aesflow::available(v, &opts.plan))
                        .count()
                })
                .sum()
        };
        // cbc-enc: modes + 2 multistream; cbc-dec, ctr, gcm seal/open: one
        // each, and one per GCM variant; no XTS-AES-192.
        assert_eq!(r.rows.len(), 7 + extra(&[ModeOp::GcmSeal, ModeOp::GcmOpen]));
        assert!(r.rows.iter().all(|x| x.gbps > 0.0
            && x.peer(Peer::RustCrypto).is_some()
            && x.peer(Peer::RustCrypto09).is_some()));
        let xts_opts = ModesOptions {
            key_sizes: vec![KeySize::Aes128, KeySize::Aes256],
            ops: vec![ModeOp::Ctr, ModeOp::XtsEnc, ModeOp::XtsDec],
            size: 4096,
            ..opts.clone()
        };
        let r2 = run_modes(&xts_opts, &mut |_| {}).unwrap();
        let xts_extra = extra(&[ModeOp::XtsEnc, ModeOp::XtsDec]);
        assert_eq!(r2.rows.len(), 6 + 2 * xts_extra);
        let xts = r2
            .rows
            .iter()
            .find(|x| x.op == "xts-dec" && x.key_bits == Some(256));
        let xts = xts.unwrap();
        assert!(xts.vs_baseline.is_some() && xts.peer(Peer::RustCrypto).is_some());
        assert!(xts.baseline.as_deref().unwrap().starts_with("ctr"));
        // Data units shorter than the message: RustCrypto runs the same
        // units; a unit outside 16..=size is refused.
        let units = ModesOptions {
            xts_unit: Some(512),
            key_sizes: vec![KeySize::Aes128],
            ..xts_opts.clone()
        };
        let r3 = run_modes(&units, &mut |_| {}).unwrap();
        assert_eq!(r3.rows.len(), 3 + xts_extra);
        assert!(
            r3.notes
                .iter()
                .any(|n| n.contains("data units of 512 bytes"))
        );
        assert!(r3.rows.iter().all(|x| x.peer(Peer::RustCrypto).is_some()));
        for bad in [8, 4097] {
            let o = ModesOptions {
                xts_unit: Some(bad),
                ..units.clone()
            };
            assert!(run_modes(&o, &mut |_| {}).is_err(), "unit {bad}");
        }
        let ms = r.rows.iter().find(|x| x.streams == 3).unwrap();
        assert_eq!(
            (ms.op.as_str(), ms.bytes, ms.key_bits),
            ("cbc-enc", 96, Some(128))
        );
        let gcm = r.rows.iter().find(|x| x.op == "gcm-open").unwrap();
        assert_eq!((gcm.bytes, gcm.key_bits), (100, Some(192)));
        assert!(
            r.rows
                .iter()
                .any(|x| x.implementation.starts_with("multistream/"))
        );
    }
}
