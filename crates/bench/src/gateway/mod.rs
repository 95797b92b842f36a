//! The gateway rows of the modes section: an IPsec VPN gateway, the
//! scenario of Pericàs et al., *Vectorized AES Core for High-Throughput
//! Secure Environments* (§1, §5): many tunnels, each with its own key,
//! every packet a short CBC or GCM message of its tunnel.
//!
//! A fixed-seed generator ([`workload`]) draws the tunnels (key, GCM salt,
//! SPI) and a trace of packets: lengths from a mix (default the simple
//! IMIX, 7:4:1 of 64/576/1500 bytes), tunnels uniform among all (default
//! 1,000), each packet with its own IV. Every contender gets the same trace;
//! keys are expanded once, outside the timed loop, by each contender (a
//! gateway keeps its security associations). One pass encrypts every
//! packet of the trace in place, in arrival order:
//!
//! | op | aesflow | Intel ipsec-mb |
//! |---|---|---|
//! | `gateway-cbc-enc` | `MultiStreamQueue`: tunnels registered with their keys, packets submitted, a multi-stream batch run whenever `queue_capacity` are pending, completed packets taken back as their batch ends, a flush at the end (`queue/…`); and the engine alone, `MultiStream::process_in_place` on bursts of as many packets with the expanded keys (`multistream/…`: the queue's batches without its bookkeeping) | one CBC job per packet with its tunnel's expanded keys, completed jobs collected while submitting, then a flush (the multi-buffer lanes) |
//! | `gateway-gcm-seal` | each packet sealed with its tunnel's `Gcm` (nonce: salt ‖ 8-byte IV; AAD: the 8-byte ESP header) | one GCM job per packet with its tunnel's `gcm_key_data` (the job API) |
//!
//! CBC payloads are padded to whole blocks (ESP padding: 1500 becomes
//! 1504 bytes); GCM seals the unpadded lengths. Before timing, one pass of
//! each contender runs on fresh plaintexts and its outputs are checked:
//! aesflow's against ipsec-mb's (every packet, every tag) and against a
//! reference (`aesflow_modes::cbc` one packet at a time; RustCrypto
//! `aes-gcm`), so the figures are for the same, correct work.
//!
//! The contenders are timed round-robin by the thread's on-CPU time
//! ([`crate::measure::measure_group_on_cpu`]): a pass is a few
//! milliseconds, and on a shared machine wall-clock passes include the
//! time other processes held the core.

mod aesflow;
#[cfg(feature = "ipsec-mb")]
mod ipsec_mb;
pub mod workload;

use crate::measure::{Contender, measure_group_on_cpu};
use crate::row::{Packets, Peer, Row, Section};
use crate::{BenchError, Measuring};
use aesflow_cipher::{Kernel, KeySize};
use aesflow_multistream::MultiStream;
pub use workload::{Mix, MixPart, Workload};

/// What the gateway rows measure.
#[derive(Clone, Debug, PartialEq)]
pub struct GatewayOptions {
    /// Tunnels, each with its own key (default 1,000).
    pub tunnels: usize,
    /// Packets per pass (default 4,096).
    pub packets: usize,
    /// Packet lengths (default [`Mix::imix`]).
    pub mix: Mix,
    /// Pending packets at which the queue runs a batch, and the burst of
    /// the engine-only row (default 128: four times the 32 lanes of the
    /// 512-bit engine, a burst size packet frameworks use).
    pub queue_capacity: usize,
    /// Key sizes (default AES-128).
    pub key_sizes: Vec<KeySize>,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            tunnels: 1000,
            packets: 4096,
            mix: Mix::imix(),
            queue_capacity: 128,
            key_sizes: vec![KeySize::Aes128],
        }
    }
}

/// The largest tunnel count and pass length.
pub const MAX_COUNT: usize = 1_000_000;

impl GatewayOptions {
    /// An error for counts out of range or an empty mix.
    pub fn check(&self) -> Result<(), BenchError> {
        for (what, n) in [
            ("tunnel count", self.tunnels),
            ("packet count", self.packets),
            ("queue capacity", self.queue_capacity),
        ] {
            if !(1..=MAX_COUNT).contains(&n) {
                return Err(BenchError::Setup(format!(
                    "gateway: a {what} must be 1 to {MAX_COUNT}, not {n}"
                )));
            }
        }
        if self.mix.0.is_empty() {
            return Err(BenchError::Empty("packet lengths"));
        }
        if self.key_sizes.is_empty() {
            return Err(BenchError::Empty("key sizes"));
        }
        Ok(())
    }
}

/// The gateway's operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GatewayOp {
    Cbc,
    Gcm,
}

impl GatewayOp {
    fn name(self) -> &'static str {
        match self {
            GatewayOp::Cbc => "gateway-cbc-enc",
            GatewayOp::Gcm => "gateway-gcm-seal",
        }
    }
}

/// One pass's outputs: every packet's buffer and (GCM) tag.
pub(crate) type Outputs = (Vec<Vec<u8>>, Vec<[u8; 16]>);

/// aesflow's contenders for `op`, each after one pass: the contender,
/// its implementation name and its outputs of that pass.
fn aesflow_contenders(
    op: GatewayOp,
    work: &Workload,
    o: &GatewayOptions,
    engine: MultiStream,
    kernel: &'static dyn Kernel,
    plan: &aesflow_plan::Plan,
) -> Result<Vec<(Contender<'static>, String, Outputs)>, BenchError> {
    match op {
        GatewayOp::Cbc => {
            let mut q = aesflow::CbcQueue::new(work, engine, o.queue_capacity)?;
            q.run()?;
            let out = (q.bufs.clone(), Vec::new());
            let name = q.name(plan);
            let f: Contender<'static> = Box::new(move || q.run().expect("checked pass ran"));
            let mut b = aesflow::CbcBursts::new(work, engine, o.queue_capacity)?;
            b.run()?;
            let out_b = (b.bufs.clone(), Vec::new());
            let name_b = b.name(plan);
            let g: Contender<'static> = Box::new(move || b.run().expect("checked pass ran"));
            Ok(vec![(f, name, out), (g, name_b, out_b)])
        }
        GatewayOp::Gcm => {
            let mut g = aesflow::GcmTunnels::new(work, kernel, plan)?;
            g.run()?;
            let out = (g.bufs.clone(), g.tags.clone());
            let name = g.name();
            let f: Contender<'static> = Box::new(move || g.run().expect("checked pass ran"));
            Ok(vec![(f, name, out)])
        }
    }
}

/// ipsec-mb's contender for `op` after one pass, and that pass's outputs
/// (an explanation without the feature).
fn ipsec_mb_contender(
    op: GatewayOp,
    work: &Workload,
    kernel: &'static dyn Kernel,
) -> Result<(Contender<'static>, Outputs), String> {
    #[cfg(feature = "ipsec-mb")]
    {
        let mode = match op {
            GatewayOp::Cbc => crate::ModeOp::CbcEnc,
            GatewayOp::Gcm => crate::ModeOp::GcmSeal,
        };
        let arch = crate::ipsec_mb::Arch::for_kernel(kernel);
        let mut m = ipsec_mb::MbGateway::new(work, mode, arch)?;
        m.run()?;
        let tags = if op == GatewayOp::Gcm {
            m.tags.clone()
        } else {
            Vec::new()
        };
        let out = (m.bufs.clone(), tags);
        let f: Contender<'static> = Box::new(move || m.run().expect("ipsec-mb jobs complete"));
        Ok((f, out))
    }
    #[cfg(not(feature = "ipsec-mb"))]
    {
        let _ = (op, work, kernel);
        Err("peer skipped: ipsec-mb not built in (cargo feature ipsec-mb)".into())
    }
}

/// The reference outputs of `op` on every packet: `aesflow_modes::cbc`
/// one packet at a time, RustCrypto `aes-gcm` (independent of aesflow).
pub(crate) fn reference(op: GatewayOp, work: &Workload) -> Result<Outputs, BenchError> {
    let mut bufs = Vec::with_capacity(work.packets.len());
    let mut tags = Vec::new();
    match op {
        GatewayOp::Cbc => {
            let aes: Vec<aesflow_cipher::Aes> = work
                .tunnels
                .iter()
                .map(|t| aesflow_cipher::Aes::new(&t.key))
                .collect::<Result<_, _>>()
                .map_err(|e| BenchError::Setup(format!("gateway: {e}")))?;
            for p in &work.packets {
                let mut b = p.cbc_plain().to_vec();
                aesflow_modes::cbc::encrypt_in_place(&aes[p.tunnel], &p.iv, &mut b)
                    .map_err(|e| BenchError::Setup(format!("gateway: {e}")))?;
                bufs.push(b);
            }
        }
        GatewayOp::Gcm => {
            for p in &work.packets {
                let mut b = p.gcm_plain().to_vec();
                let key = &work.tunnels[p.tunnel].key;
                let tag = crate::rustcrypto::gcm_seal(key, &work.nonce(p), &work.aad(p), &mut b);
                bufs.push(b);
                tags.push(tag);
            }
        }
    }
    Ok((bufs, tags))
}

/// The first packet where two passes differ, if any.
pub(crate) fn first_difference(a: &Outputs, b: &Outputs) -> Option<usize> {
    if a.0.len() != b.0.len() || a.1.len() != b.1.len() {
        return Some(0);
    }
    (0..a.0.len()).find(|&i| a.0[i] != b.0[i] || a.1.get(i) != b.1.get(i))
}

/// Measure the gateway rows: per key size, CBC then GCM, aesflow and
/// ipsec-mb timed round-robin. `engine`, `kernel` and `plan` are the modes
/// section's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_gateway(
    o: &GatewayOptions,
    engine: MultiStream,
    kernel: &'static dyn Kernel,
    plan: &aesflow_plan::Plan,
    measuring: &Measuring,
    clock: f64,
    progress: &mut dyn FnMut(&str),
    notes: &mut Vec<String>,
) -> Result<Vec<Row>, BenchError> {
    o.check()?;
    let mut rows = Vec::new();
    for &size in &o.key_sizes {
        let work = Workload::generate(o.tunnels, o.packets, &o.mix, size);
        for op in [GatewayOp::Cbc, GatewayOp::Gcm] {
            progress(&format!("modes: {} AES-{}", op.name(), size.bits()));
            let ours = aesflow_contenders(op, &work, o, engine, kernel, plan)?;
            let want = reference(op, &work)?;
            let mut contenders = Vec::new();
            let mut names = Vec::new();
            for (f, name, out) in ours {
                if let Some(i) = first_difference(&out, &want) {
                    return Err(BenchError::Setup(format!(
                        "gateway: aesflow's {} ({name}) differs from the reference at packet {i}",
                        op.name()
                    )));
                }
                contenders.push(f);
                names.push(name);
            }
            let mut peer = false;
            // Without the feature the rows say that the peer is missing.
            if measuring.peers.ipsec_mb || !cfg!(feature = "ipsec-mb") {
                match ipsec_mb_contender(op, &work, kernel) {
                    Ok((g, theirs)) => {
                        if let Some(i) = first_difference(&want, &theirs) {
                            return Err(BenchError::Setup(format!(
                                "gateway: ipsec-mb differs from aesflow and the reference at \
                                 packet {i} of {}",
                                op.name()
                            )));
                        }
                        contenders.push(g);
                        peer = true;
                    }
                    Err(e) => crate::note_once(notes, e),
                }
            }
            let bytes = work.bytes(op == GatewayOp::Cbc);
            let bps = measure_group_on_cpu(
                &vec![bytes; contenders.len()],
                measuring.min_time,
                measuring.repetitions,
                &mut contenders,
            );
            let mb = peer.then(|| bps[bps.len() - 1] / 1e9);
            for (name, b) in names.into_iter().zip(&bps) {
                let mut row = Row::new(
                    Section::Modes,
                    op.name(),
                    name,
                    Some(size.bits()),
                    1,
                    1,
                    bytes as u64,
                    bytes as f64 / b,
                    clock,
                );
                row.packets = Some(Packets {
                    tunnels: o.tunnels,
                    packets: o.packets,
                    mix: o.mix.describe(),
                    mpps: o.packets as f64 * b / bytes as f64 / 1e6,
                });
                row.add_peer(Peer::IpsecMb, mb, None);
                rows.push(row);
            }
        }
    }
    notes.push(format!(
        "gateway rows: {} tunnels with their own keys (expanded once, before timing, by \
         each contender), {} packets per pass ({}; CBC pads to whole blocks), tunnels drawn \
         uniformly by a fixed-seed generator, every packet in place with its own IV; size: \
         bytes of one pass; Mpps: 10^6 packets/s; CBC through MultiStreamQueue (a batch per \
         {} pending packets: queue/…) and, without the queue's bookkeeping, the multi-stream \
         engine called on bursts of as many packets (multistream/…); GCM sealed per packet with the tunnel's Gcm (AAD: 8-byte ESP \
         header); on-CPU time (CLOCK_THREAD_CPUTIME_ID); MB: the same packets as ipsec-mb jobs with per-tunnel keys (CBC: \
         multi-buffer lanes; GCM: job API), outputs checked equal to aesflow's before timing",
        o.tunnels,
        o.packets,
        o.mix.describe(),
        o.queue_capacity
    ));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn small() -> (GatewayOptions, Workload) {
        let o = GatewayOptions {
            tunnels: 50,
            packets: 300,
            ..GatewayOptions::default()
        };
        let w = Workload::generate(o.tunnels, o.packets, &o.mix, KeySize::Aes128);
        (o, w)
    }

    /// aesflow's queue and per-tunnel GCM produce the reference outputs,
    /// and the comparison sees a changed byte or tag.
    #[test]
    fn aesflow_matches_the_references() {
        let (o, w) = small();
        let kernel = aesflow_cipher::detect_best();
        let plan = aesflow_plan::Plan::for_this_cpu();
        let engine = MultiStream::with_kernel(kernel).unwrap().with_plan(&plan);
        for op in [GatewayOp::Cbc, GatewayOp::Gcm] {
            let all = aesflow_contenders(op, &w, &o, engine, kernel, &plan).unwrap();
            let want = reference(op, &w).unwrap();
            for (_, name, out) in &all {
                assert_eq!(first_difference(out, &want), None, "{op:?} {name}");
            }
            let ours = all.into_iter().next().unwrap().2;
            // The check can fail: one flipped byte, one flipped tag bit.
            let mut bad = ours.clone();
            bad.0[123][0] ^= 1;
            assert_eq!(first_difference(&bad, &want), Some(123));
            if op == GatewayOp::Gcm {
                let mut bad = ours.clone();
                bad.1[7][15] ^= 0x80;
                assert_eq!(first_difference(&bad, &want), Some(7));
            }
            // Ciphertext differs from the plaintext.
            assert_ne!(ours.0[0][..16], w.packets[0].data[..16]);
        }
    }

    /// ipsec-mb, fed the same trace, produces exactly aesflow's outputs.
    #[cfg(feature = "ipsec-mb")]
    #[test]
    fn ipsec_mb_matches_aesflow() {
        for size in [KeySize::Aes128, KeySize::Aes256] {
            let (o, _) = small();
            let w = Workload::generate(o.tunnels, o.packets, &o.mix, size);
            let kernel = aesflow_cipher::detect_best();
            let plan = aesflow_plan::Plan::for_this_cpu();
            let engine = MultiStream::with_kernel(kernel).unwrap().with_plan(&plan);
            for op in [GatewayOp::Cbc, GatewayOp::Gcm] {
                let ours = aesflow_contenders(op, &w, &o, engine, kernel, &plan).unwrap();
                let (_, theirs) = ipsec_mb_contender(op, &w, kernel).unwrap();
                for (_, name, out) in &ours {
                    assert_eq!(
                        first_difference(out, &theirs),
                        None,
                        "{op:?} {size:?} {name}"
                    );
                }
            }
        }
    }

    #[test]
    fn rows_and_notes() {
        let (o, _) = small();
        let kernel = aesflow_cipher::detect_best();
        let plan = aesflow_plan::Plan::for_this_cpu();
        let engine = MultiStream::with_kernel(kernel).unwrap().with_plan(&plan);
        let m = Measuring {
            min_time: Duration::from_millis(2),
            ..Measuring::smoke()
        };
        let mut notes = Vec::new();
        let rows =
            run_gateway(&o, engine, kernel, &plan, &m, 2.0, &mut |_| {}, &mut notes).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].op, "gateway-cbc-enc");
        assert!(rows[0].implementation.starts_with("queue/"));
        assert!(rows[1].implementation.starts_with("multistream/"));
        assert_eq!(rows[2].op, "gateway-gcm-seal");
        for r in &rows {
            let p = r.packets.as_ref().unwrap();
            assert_eq!((p.tunnels, p.packets), (50, 300));
            assert!(p.mpps > 0.0 && r.gbps > 0.0);
            assert_eq!(r.peer(Peer::IpsecMb).is_some(), cfg!(feature = "ipsec-mb"));
        }
        assert!(notes.iter().any(|n| n.contains("50 tunnels")));
        if !cfg!(feature = "ipsec-mb") {
            assert!(notes.iter().any(|n| n.contains("ipsec-mb not built in")));
        }
        let bad = GatewayOptions {
            tunnels: 0,
            ..o.clone()
        };
        assert!(
            run_gateway(
                &bad,
                engine,
                kernel,
                &plan,
                &m,
                2.0,
                &mut |_| {},
                &mut notes
            )
            .is_err()
        );
    }
}
