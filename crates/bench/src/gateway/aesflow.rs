//! aesflow's side of the gateway: CBC through [`MultiStreamQueue`] (one
//! registered tunnel per key, packets submitted as they arrive through the
//! tunnels' handles, the queue running a multi-stream batch whenever it
//! fills) and GCM sealed packet by packet with the tunnel's [`Gcm`] (keys
//! and hash powers made once).

use super::workload::Workload;
use crate::BenchError;
use crate::modes::aesflow::engine_name;
use aesflow_cipher::{Aes, KeyExpansion};
use aesflow_modes::Gcm;
use aesflow_modes::gcm::{FusedChoice, GcmOptions};
use aesflow_multistream::{
    Completed, InPlaceJob, Mode, MultiStream, MultiStreamQueue, RoundKeys, Scratch, TunnelHandle,
};

fn setup(what: &str, e: impl std::fmt::Display) -> BenchError {
    BenchError::Setup(format!("gateway: {what}: {e}"))
}

/// CBC encryption of every packet, in place, through the queue.
pub(crate) struct CbcQueue {
    queue: MultiStreamQueue,
    /// Tunnel (its handle, taken once, as a gateway keeps a reference to
    /// each security association) and IV of each packet.
    heads: Vec<(TunnelHandle, [u8; 16])>,
    /// The packets' buffers (moved into the queue and back on each pass).
    pub(crate) bufs: Vec<Vec<u8>>,
    /// The packets of the final flush (kept for the next pass).
    done: Vec<Completed>,
}

impl CbcQueue {
    /// Register every tunnel (its key expanded here, once) on a queue of
    /// `capacity` over `engine`; the buffers hold the padded plaintexts.
    pub(crate) fn new(
        work: &Workload,
        engine: MultiStream,
        capacity: usize,
    ) -> Result<CbcQueue, BenchError> {
        let mut queue = MultiStreamQueue::with_engine(capacity, engine);
        for (i, t) in work.tunnels.iter().enumerate() {
            queue
                .add_tunnel(i as u64, &t.key, Mode::CbcEncrypt)
                .map_err(|e| setup("tunnel key", e))?;
        }
        let heads = work
            .packets
            .iter()
            .map(|p| {
                let h = queue
                    .handle(p.tunnel as u64)
                    .expect("every tunnel registered");
                (h, p.iv)
            })
            .collect();
        Ok(CbcQueue {
            queue,
            heads,
            bufs: work
                .packets
                .iter()
                .map(|p| p.cbc_plain().to_vec())
                .collect(),
            done: Vec::new(),
        })
    }

    /// The engine's name, as the modes rows name it: `queue/vaes lanes32`.
    pub(crate) fn name(&self, plan: &aesflow_plan::Plan) -> String {
        format!("queue/{}", engine_name(self.queue.engine(), plan))
    }

    /// One pass: submit every packet in arrival order, taking completed
    /// packets back as their batch ends, flush, take the rest back.
    pub(crate) fn run(&mut self) -> Result<(), BenchError> {
        let mut first = None;
        let n = self.bufs.len();
        for i in 0..n {
            let (tunnel, iv) = self.heads[i];
            let t = self
                .queue
                .submit_to(tunnel, iv, std::mem::take(&mut self.bufs[i]))
                .map_err(|e| setup("submit", e))?;
            let base = *first.get_or_insert(t);
            // Packets leave as their batch completes, as a gateway sends
            // them on.
            for c in self.queue.drain_completed() {
                self.bufs[(c.ticket - base) as usize] = c.data;
            }
        }
        let base = first.unwrap_or(0);
        self.queue
            .flush_into(&mut self.done)
            .map_err(|e| setup("flush", e))?;
        for c in self.done.drain(..) {
            self.bufs[(c.ticket - base) as usize] = c.data;
        }
        Ok(())
    }
}

/// CBC encryption of every packet, in place, by the engine directly: the
/// trace cut into bursts of `burst` packets, each burst one
/// [`MultiStream::process_in_place_with`] call with the tunnels' expanded
/// keys and one [`Scratch`] kept from burst to burst (what the queue does
/// per batch, without its bookkeeping).
pub(crate) struct CbcBursts {
    engine: MultiStream,
    scratch: Scratch,
    burst: usize,
    keys: Vec<RoundKeys>,
    /// Tunnel and IV of each packet.
    heads: Vec<(usize, [u8; 16])>,
    /// The packets' buffers.
    pub(crate) bufs: Vec<Vec<u8>>,
}

impl CbcBursts {
    /// Every tunnel's key expanded here, once; bursts of `burst` packets.
    pub(crate) fn new(
        work: &Workload,
        engine: MultiStream,
        burst: usize,
    ) -> Result<CbcBursts, BenchError> {
        let keys = work
            .tunnels
            .iter()
            .map(|t| RoundKeys::from_bytes(&t.key).map_err(|e| setup("tunnel key", e)))
            .collect::<Result<_, _>>()?;
        Ok(CbcBursts {
            engine,
            scratch: Scratch::new(),
            burst: burst.max(1),
            keys,
            heads: work.packets.iter().map(|p| (p.tunnel, p.iv)).collect(),
            bufs: work
                .packets
                .iter()
                .map(|p| p.cbc_plain().to_vec())
                .collect(),
        })
    }

    /// `multistream/vaes lanes32`.
    pub(crate) fn name(&self, plan: &aesflow_plan::Plan) -> String {
        format!("multistream/{}", engine_name(&self.engine, plan))
    }

    /// One pass: every burst through the engine.
    pub(crate) fn run(&mut self) -> Result<(), BenchError> {
        let mut jobs: Vec<InPlaceJob<'_>> = Vec::with_capacity(self.burst);
        for (heads, bufs) in self
            .heads
            .chunks(self.burst)
            .zip(self.bufs.chunks_mut(self.burst))
        {
            jobs.clear();
            jobs.extend(
                heads
                    .iter()
                    .zip(bufs.iter_mut())
                    .map(|(&(t, iv), b)| InPlaceJob::new(Mode::CbcEncrypt, &self.keys[t], iv, b)),
            );
            self.engine
                .process_in_place_with(&mut self.scratch, &mut jobs)
                .map_err(|e| setup("process", e))?;
        }
        Ok(())
    }
}

/// GCM seal of every packet, in place, with its tunnel's [`Gcm`].
pub(crate) struct GcmTunnels {
    gcms: Vec<Gcm>,
    /// Tunnel, nonce and AAD (the ESP header) of each packet.
    heads: Vec<(usize, [u8; 12], [u8; 8])>,
    /// The packets' buffers.
    pub(crate) bufs: Vec<Vec<u8>>,
    /// The packets' tags.
    pub(crate) tags: Vec<[u8; 16]>,
}

impl GcmTunnels {
    /// Every tunnel's GCM on `kernel` with the plan's fused kernel (keys
    /// expanded here, once); the buffers hold the plaintexts.
    pub(crate) fn new(
        work: &Workload,
        kernel: &'static dyn aesflow_cipher::Kernel,
        plan: &aesflow_plan::Plan,
    ) -> Result<GcmTunnels, BenchError> {
        let gcms = work
            .tunnels
            .iter()
            .map(|t| {
                let aes = Aes::with_kernel(&t.key, kernel, KeyExpansion::Offline)
                    .map_err(|e| setup("tunnel key", e))?;
                let opts = GcmOptions {
                    ghash: None,
                    fused: FusedChoice::Plan(*plan),
                };
                Gcm::with_options(aes, opts).map_err(|e| setup("gcm", e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(GcmTunnels {
            gcms,
            heads: work
                .packets
                .iter()
                .map(|p| (p.tunnel, work.nonce(p), work.aad(p)))
                .collect(),
            bufs: work
                .packets
                .iter()
                .map(|p| p.gcm_plain().to_vec())
                .collect(),
            tags: vec![[0; 16]; work.packets.len()],
        })
    }

    /// The implementation's name, as the modes rows name it:
    /// `modes/vaes+vpclmul`.
    pub(crate) fn name(&self) -> String {
        let Some(g) = self.gcms.first() else {
            return "modes".into();
        };
        match g.fused_kernel() {
            Some(f) => format!("modes/{f}"),
            None => format!(
                "modes/{}+{}",
                g.aes().kernel().name(),
                g.ghash_impl().name()
            ),
        }
    }

    /// One pass: seal every packet in arrival order.
    pub(crate) fn run(&mut self) -> Result<(), BenchError> {
        for ((&(t, nonce, aad), buf), tag) in self
            .heads
            .iter()
            .zip(self.bufs.iter_mut())
            .zip(self.tags.iter_mut())
        {
            *tag = self.gcms[t]
                .seal_in_place_detached(&nonce, &aad, buf)
                .map_err(|e| setup("seal", e))?;
        }
        Ok(())
    }
}
