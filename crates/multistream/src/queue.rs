//! A submit/flush job queue for a gateway that receives packets from many
//! tunnels over time (the paper's VPN scenario).
//!
//! Tunnels are registered once with their key (expanded once, shared by all
//! their packets) and mode. Packets are [`submit`](MultiStreamQueue::submit)ted
//! with their IV and an owned buffer, which is encrypted in place; each gets
//! a [`Ticket`]. When `capacity` packets are pending, the queue runs them as
//! one multi-stream batch automatically; [`flush`](MultiStreamQueue::flush)
//! runs whatever is pending and hands back every completed packet.
//!
//! A caller that keeps a reference per tunnel (as an IPsec stack keeps one
//! per security association) takes its [`TunnelHandle`] once and submits
//! with [`submit_to`](MultiStreamQueue::submit_to): no lookup by id per
//! packet.
//!
//! Packets of one tunnel with their own IVs (IPsec-style explicit IVs) are
//! independent streams and share the lanes like packets of different
//! tunnels.
//!
//! A packet's cost outside the engine is kept small: the keys sit
//! side by side in slots, a pending packet names its slot (a slot is freed
//! only after the packets that name it are processed, so re-keying and
//! removal never touch pending packets), the tunnel lookup hashes the id by
//! one multiplication, and the pending, job, continuation-value and
//! completed storage and the engine's [`Scratch`] are kept from batch to
//! batch.
//! [`drain_completed`](MultiStreamQueue::drain_completed) and
//! [`flush_into`](MultiStreamQueue::flush_into) hand packets back without
//! allocating.

use crate::scratch::recycle;
use crate::{Error, InPlaceJob, Key, Mode, MultiStream, RoundKeys, Scratch};
use core::hash::{BuildHasher, Hasher};
use std::collections::HashMap;
use std::collections::hash_map::RandomState;

/// A tunnel's id.
pub type TunnelId = u64;

/// A submitted packet's ticket (increasing from 0 in submission order).
pub type Ticket = u64;

/// A registered tunnel's key as the queue holds it: taken once with
/// [`MultiStreamQueue::handle`] and passed to
/// [`MultiStreamQueue::submit_to`] with each packet, it saves the lookup by
/// id (as an IPsec stack keeps a reference to each security association,
/// and as Intel ipsec-mb's jobs carry key pointers). Re-keying or removing
/// the tunnel makes it stale: `submit_to` then refuses it
/// ([`Error::StaleHandle`]), and a new one is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunnelHandle {
    tunnel: TunnelId,
    slot: usize,
    generation: u64,
    mode: Mode,
}

impl TunnelHandle {
    /// The tunnel's id.
    pub fn tunnel(&self) -> TunnelId {
        self.tunnel
    }
}

/// A processed packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completed {
    /// The ticket [`MultiStreamQueue::submit`] returned.
    pub ticket: Ticket,
    /// The tunnel.
    pub tunnel: TunnelId,
    /// The result (the submitted buffer, transformed in place).
    pub data: Vec<u8>,
    /// The continuation value (see [`crate::Job::iv`]).
    pub iv: [u8; 16],
}

struct Pending {
    ticket: Ticket,
    tunnel: TunnelId,
    /// The index of the packet's key in `slots`.
    slot: usize,
    mode: Mode,
    iv: [u8; 16],
    data: Vec<u8>,
}

/// Hashes a [`TunnelId`] by one folded multiplication with keys drawn per
/// queue from the standard library's random source: a lookup per packet
/// costs a few cycles instead of SipHash's rounds, and the ids are the
/// application's own (it registers every tunnel), while the random keys
/// keep an observer of the traffic from predicting collisions.
#[derive(Clone, Copy)]
struct IdHasherBuilder([u64; 2]);

impl IdHasherBuilder {
    fn random() -> Self {
        let state = RandomState::new();
        IdHasherBuilder([state.hash_one(0u64), state.hash_one(1u64) | 1])
    }
}

impl BuildHasher for IdHasherBuilder {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher { keys: self.0, h: 0 }
    }
}

struct IdHasher {
    keys: [u64; 2],
    h: u64,
}

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        let p = u128::from(self.h ^ self.keys[0]) * u128::from(self.keys[1]);
        (p as u64) ^ ((p >> 64) as u64)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.h = (self.h.rotate_left(23) ^ i).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A submit/flush job queue for a gateway receiving packets from many
/// tunnels over time.
///
/// Tunnels are registered once with their key (expanded once, shared by all
/// their packets) and mode. Packets are submitted with their IV and an owned
/// buffer, encrypted in place, and get a [`Ticket`]. When `capacity`
/// packets are pending the queue runs them as one multi-stream batch;
/// [`flush`](Self::flush) runs whatever is pending and hands back every
/// completed packet in ticket order.
///
/// ```
/// use aesflow_multistream::{Mode, MultiStreamQueue};
/// let mut q = MultiStreamQueue::new(32);
/// q.add_tunnel(7, &[1u8; 16], Mode::CbcEncrypt).unwrap();
/// let t = q.submit(7, [0u8; 16], vec![0u8; 64]).unwrap();
/// let done = q.flush().unwrap();
/// assert_eq!(done[0].ticket, t);
/// ```
pub struct MultiStreamQueue {
    engine: MultiStream,
    capacity: usize,
    /// Tunnel id -> its slot and mode (read by `submit` without touching
    /// the keys).
    tunnels: HashMap<TunnelId, (usize, Mode), IdHasherBuilder>,
    /// The expanded keys, side by side; `None`: free.
    slots: Vec<Option<RoundKeys>>,
    /// Per slot: changed whenever its keys are placed or dropped, so that a
    /// [`TunnelHandle`] taken before is seen to be stale.
    generations: Vec<u64>,
    /// Free slots.
    free: Vec<usize>,
    /// Slots of re-keyed or removed tunnels that pending packets still use:
    /// freed once those packets are processed.
    retired: Vec<usize>,
    pending: Vec<Pending>,
    /// The continuation values of a batch (kept for the next batch).
    ivs: Vec<[u8; 16]>,
    /// The jobs of a batch (storage kept for the next batch).
    jobs: Vec<InPlaceJob<'static>>,
    /// The engine's working storage.
    scratch: Scratch,
    done: Vec<Completed>,
    next: Ticket,
}

impl std::fmt::Debug for MultiStreamQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiStreamQueue")
            .field("engine", &self.engine)
            .field("capacity", &self.capacity)
            .field("tunnels", &self.tunnels.len())
            .field("pending", &self.pending.len())
            .field("completed", &self.done.len())
            .finish()
    }
}

impl MultiStreamQueue {
    /// A queue on the best backend of this CPU that processes automatically
    /// once `capacity` packets are pending (at least 1). A few times
    /// [`MultiStream::lanes`] keeps the lanes full through refills.
    pub fn new(capacity: usize) -> Self {
        Self::with_engine(capacity, MultiStream::auto())
    }

    /// A queue on a chosen engine.
    pub fn with_engine(capacity: usize, engine: MultiStream) -> Self {
        MultiStreamQueue {
            engine,
            capacity: capacity.max(1),
            tunnels: HashMap::with_hasher(IdHasherBuilder::random()),
            slots: Vec::new(),
            generations: Vec::new(),
            free: Vec::new(),
            retired: Vec::new(),
            pending: Vec::new(),
            ivs: Vec::new(),
            jobs: Vec::new(),
            scratch: Scratch::new(),
            done: Vec::new(),
            next: 0,
        }
    }

    /// The engine.
    pub fn engine(&self) -> &MultiStream {
        &self.engine
    }

    /// Pending packets that trigger processing.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Register (or re-key) a tunnel; its key is expanded once here.
    /// Packets already submitted keep the key they were submitted with.
    pub fn add_tunnel(&mut self, id: TunnelId, key: &[u8], mode: Mode) -> Result<(), Error> {
        let keys = RoundKeys::from_bytes(key).map_err(|error| Error::Key { job: 0, error })?;
        self.add_tunnel_keys(id, keys, mode);
        Ok(())
    }

    /// Register (or re-key) a tunnel with expanded keys.
    pub fn add_tunnel_keys(&mut self, id: TunnelId, keys: RoundKeys, mode: Mode) {
        let slot = match self.tunnels.get(&id) {
            Some(&(slot, _)) if !self.in_use(slot) => {
                self.slots[slot] = Some(keys);
                self.generations[slot] += 1;
                slot
            }
            old => {
                if let Some(&(slot, _)) = old {
                    self.retire(slot);
                }
                self.place(keys)
            }
        };
        self.tunnels.insert(id, (slot, mode));
    }

    /// Forget a tunnel (its pending packets are still processed). Whether it
    /// existed.
    pub fn remove_tunnel(&mut self, id: TunnelId) -> bool {
        let Some((slot, _)) = self.tunnels.remove(&id) else {
            return false;
        };
        if self.in_use(slot) {
            self.retire(slot);
        } else {
            self.release(slot);
        }
        true
    }

    /// Whether a pending packet uses `slot` (a scan of at most `capacity`
    /// packets, on re-keying only: submitting stays one lookup).
    fn in_use(&self, slot: usize) -> bool {
        self.pending.iter().any(|p| p.slot == slot)
    }

    /// Store a key in a free slot.
    fn place(&mut self, keys: RoundKeys) -> usize {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = Some(keys);
                self.generations[slot] += 1;
                slot
            }
            None => {
                if self.slots.len() == self.slots.capacity() {
                    // Grow by copying: dropping the old storage zeroizes
                    // each key, where a reallocation would leave copies.
                    let mut grown = Vec::with_capacity((2 * self.slots.len()).max(4));
                    grown.extend(self.slots.iter().cloned());
                    self.slots = grown;
                }
                self.slots.push(Some(keys));
                self.generations.push(0);
                self.slots.len() - 1
            }
        }
    }

    /// Keep a slot's keys for the pending packets that use them, free it
    /// once they are processed; handles to it are stale from now on.
    fn retire(&mut self, slot: usize) {
        self.generations[slot] += 1;
        self.retired.push(slot);
    }

    /// Drop a slot's keys (zeroized) and make it free.
    fn release(&mut self, slot: usize) {
        self.slots[slot] = None;
        self.generations[slot] += 1;
        self.free.push(slot);
    }

    /// The handle of a registered tunnel's current key (`None`: no tunnel
    /// with this id), for [`submit_to`](Self::submit_to).
    pub fn handle(&self, tunnel: TunnelId) -> Option<TunnelHandle> {
        let &(slot, mode) = self.tunnels.get(&tunnel)?;
        Some(TunnelHandle {
            tunnel,
            slot,
            generation: self.generations[slot],
            mode,
        })
    }

    /// Queue a packet of `tunnel` with its IV; the buffer is transformed in
    /// place. Runs the pending batch if this fills the queue to `capacity`.
    /// Errors: unknown tunnel; a CBC packet that is not whole blocks
    /// ([`Error::NotBlockAligned`] with `job` = the ticket it would have had).
    #[inline]
    pub fn submit(
        &mut self,
        tunnel: TunnelId,
        iv: [u8; 16],
        data: Vec<u8>,
    ) -> Result<Ticket, Error> {
        let &(slot, mode) = self
            .tunnels
            .get(&tunnel)
            .ok_or(Error::UnknownTunnel(tunnel))?;
        self.push(tunnel, slot, mode, iv, data)
    }

    /// [`submit`](Self::submit) for the tunnel of a handle, without the
    /// lookup by id. Errors as `submit`, and [`Error::StaleHandle`] if the
    /// tunnel was re-keyed or removed since the handle was taken.
    #[inline]
    pub fn submit_to(
        &mut self,
        handle: TunnelHandle,
        iv: [u8; 16],
        data: Vec<u8>,
    ) -> Result<Ticket, Error> {
        if self.generations.get(handle.slot) != Some(&handle.generation) {
            return Err(Error::StaleHandle(handle.tunnel));
        }
        self.push(handle.tunnel, handle.slot, handle.mode, iv, data)
    }

    /// Queue a packet whose tunnel's key is in `slot`.
    #[inline]
    fn push(
        &mut self,
        tunnel: TunnelId,
        slot: usize,
        mode: Mode,
        iv: [u8; 16],
        data: Vec<u8>,
    ) -> Result<Ticket, Error> {
        if mode.needs_whole_blocks() && !data.len().is_multiple_of(16) {
            return Err(Error::NotBlockAligned {
                job: self.next as usize,
                len: data.len(),
            });
        }
        let ticket = self.next;
        self.next += 1;
        self.pending.push(Pending {
            ticket,
            tunnel,
            slot,
            mode,
            iv,
            data,
        });
        if self.pending.len() >= self.capacity {
            self.run_pending()?;
        }
        Ok(ticket)
    }

    /// Packets waiting to be processed.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Processed packets not yet handed back.
    pub fn completed(&self) -> usize {
        self.done.len()
    }

    /// Process everything pending and hand back every completed packet, in
    /// ticket order.
    pub fn flush(&mut self) -> Result<Vec<Completed>, Error> {
        self.run_pending()?;
        Ok(self.take_completed())
    }

    /// [`flush`](Self::flush) appending to `out`: the queue keeps its
    /// storage, so a caller that reuses `out` allocates nothing per batch.
    pub fn flush_into(&mut self, out: &mut Vec<Completed>) -> Result<(), Error> {
        self.run_pending()?;
        out.append(&mut self.done);
        Ok(())
    }

    /// Hand back the packets completed so far (no processing), in ticket
    /// order.
    pub fn take_completed(&mut self) -> Vec<Completed> {
        std::mem::take(&mut self.done)
    }

    /// [`take_completed`](Self::take_completed) as a draining iterator: the
    /// queue keeps its storage for the next batches. Packets the iterator
    /// does not reach when dropped are dropped too.
    #[inline]
    pub fn drain_completed(&mut self) -> std::vec::Drain<'_, Completed> {
        self.done.drain(..)
    }

    /// Run the pending packets as one batch. On error (validation, before
    /// anything is written) they stay pending.
    fn run_pending(&mut self) -> Result<(), Error> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let slots = &self.slots;
        let mut jobs: Vec<InPlaceJob<'_>> = recycle(core::mem::take(&mut self.jobs));
        jobs.extend(self.pending.iter_mut().map(|p| {
            let keys = slots[p.slot]
                .as_ref()
                .expect("a pending packet's slot is freed only after it is processed");
            InPlaceJob {
                key: Key::Expanded(keys),
                iv: p.iv,
                data: &mut p.data,
                mode: p.mode,
            }
        }));
        let ran = self
            .engine
            .process_in_place_with(&mut self.scratch, &mut jobs);
        self.ivs.clear();
        self.ivs.extend(jobs.iter().map(|j| j.iv));
        self.jobs = recycle(jobs);
        ran?;
        self.done.extend(
            self.pending
                .drain(..)
                .zip(self.ivs.drain(..))
                .map(|(p, iv)| Completed {
                    ticket: p.ticket,
                    tunnel: p.tunnel,
                    data: p.data,
                    iv,
                }),
        );
        while let Some(slot) = self.retired.pop() {
            self.release(slot);
        }
        Ok(())
    }
}
