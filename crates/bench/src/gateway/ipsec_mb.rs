//! Intel ipsec-mb's side of the gateway: one multi-buffer manager
//! (`init_mb_mgr_auto`, or the SSE one beside the `aesni` kernel), each
//! tunnel's keys expanded once by the manager's own functions (the AES
//! schedules for CBC, the `gcm_key_data` with hash powers for GCM), every
//! packet one job of its tunnel, submitted in arrival order with completed
//! jobs collected as they come back, then a flush. CBC jobs fill the
//! manager's lanes (the multi-buffer path); GCM jobs run as they are
//! submitted (the job API calls its GCM functions directly).

use super::workload::Workload;
use crate::ModeOp;
use crate::ipsec_mb::{Arch, Manager, SaKeys, Spec};

/// Every packet of a workload as ipsec-mb jobs of one operation.
pub(crate) struct MbGateway {
    mgr: Manager,
    op: ModeOp,
    keys: Vec<SaKeys>,
    /// Tunnel, IV (CBC: 16 bytes; GCM: the 12-byte nonce) and AAD of each
    /// packet.
    heads: Vec<(usize, [u8; 16], [u8; 8])>,
    /// The packets' buffers, transformed in place.
    pub(crate) bufs: Vec<Vec<u8>>,
    /// The packets' tags (GCM).
    pub(crate) tags: Vec<[u8; 16]>,
}

impl MbGateway {
    /// `op` (`CbcEnc` or `GcmSeal`) over `work`'s packets with a manager of
    /// `arch`; every tunnel's keys expanded here, once.
    pub(crate) fn new(work: &Workload, op: ModeOp, arch: Arch) -> Result<MbGateway, String> {
        let cbc = op == ModeOp::CbcEnc;
        let first = work.tunnels.first().map_or(&[0u8; 16][..], |t| &t.key[..]);
        let mgr = Manager::new(arch, first)?;
        let keys = work
            .tunnels
            .iter()
            .map(|t| mgr.expand(&t.key))
            .collect::<Result<Vec<_>, _>>()?;
        let heads = work
            .packets
            .iter()
            .map(|p| {
                let iv = if cbc {
                    p.iv
                } else {
                    let mut n = [0u8; 16];
                    n[..12].copy_from_slice(&work.nonce(p));
                    n
                };
                (p.tunnel, iv, work.aad(p))
            })
            .collect();
        let bufs = work
            .packets
            .iter()
            .map(|p| {
                if cbc {
                    p.cbc_plain().to_vec()
                } else {
                    p.gcm_plain().to_vec()
                }
            })
            .collect();
        Ok(MbGateway {
            mgr,
            op,
            keys,
            heads,
            bufs,
            tags: vec![[0; 16]; work.packets.len()],
        })
    }

    /// One pass: every packet submitted in arrival order, then a flush.
    pub(crate) fn run(&mut self) -> Result<(), String> {
        let (op, keys) = (self.op, &self.keys);
        let iv_len = if op == ModeOp::CbcEnc { 16 } else { 12 };
        let specs = self
            .heads
            .iter()
            .zip(self.bufs.iter_mut())
            .zip(self.tags.iter_mut())
            .map(|(((t, iv, aad), buf), tag)| Spec {
                op,
                src: buf.as_ptr(),
                len: buf.len(),
                dst: buf.as_mut_ptr(),
                iv: &iv[..iv_len],
                tag: tag.as_mut_ptr(),
                keys: Some(&keys[*t]),
                aad,
            });
        // SAFETY: each job works in place on its own packet buffer (`src`
        // = `dst`, `len` bytes) and writes its own tag; the buffers and
        // tags are borrowed mutably, one per job, for the whole call.
        unsafe { self.mgr.run(specs) }
    }
}
