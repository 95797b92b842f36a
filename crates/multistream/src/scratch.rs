//! Working storage a caller keeps from call to call, so that the engine's
//! driver allocates none of its tables once they have grown to the call's
//! size.
//!
//! A packet-sized call (a few hundred blocks per stream) costs the engine
//! only a few microseconds of rounds, so what it spends around them —
//! allocating the per-call tables, hashing keys, sorting the streams —
//! shows in its throughput. [`Scratch`] keeps that storage: the key
//! schedules of the call (an entry per distinct key, borrowing the
//! caller's expanded keys), the table that finds repeated keys by address,
//! the continuation values, the order the streams run in (by class and
//! length class: one counting pass), the whole-block streams and the
//! partial final blocks.
//!
//! The vectors outlive the borrows of any one call: between calls they are
//! empty and typed with `'static` borrows, and a call takes each one as a
//! vector of its own borrows on the same allocation ([`recycle`]).

use crate::Mode;
use crate::kernels::{Sched, Stream, StreamData, wipe};
use core::fmt;

/// Reusable working storage of [`MultiStream`](crate::MultiStream) calls
/// ([`process_with`](crate::MultiStream::process_with),
/// [`process_in_place_with`](crate::MultiStream::process_in_place_with)).
///
/// A caller that runs many calls — a gateway encrypting bursts of packets —
/// keeps one `Scratch` per thread and passes it to every call: once it has
/// grown to the largest call, the driver allocates none of its tables
/// again, and finds repeated keys with one multiplication per job. Between
/// calls it holds no key
/// material and no data (round keys expanded by a call are wiped when the
/// call ends, continuation values are wiped once handed back).
///
/// ```
/// use aesflow_multistream::{InPlaceJob, Mode, MultiStream, RoundKeys, Scratch};
/// let engine = MultiStream::auto();
/// let keys: Vec<RoundKeys> = (0..4u8)
///     .map(|i| RoundKeys::from_bytes(&[i; 16]).unwrap())
///     .collect();
/// let mut scratch = Scratch::new();
/// let mut packets = vec![vec![0u8; 576]; 4];
/// for _burst in 0..3 {
///     let mut jobs: Vec<InPlaceJob<'_>> = packets
///         .iter_mut()
///         .zip(&keys)
///         .map(|(p, k)| InPlaceJob::new(Mode::CbcEncrypt, k, [0; 16], p))
///         .collect();
///     engine.process_in_place_with(&mut scratch, &mut jobs).unwrap();
/// }
/// ```
#[derive(Default)]
pub struct Scratch {
    /// Key schedules of a call (one per distinct key).
    pub(crate) keys: Vec<Sched<'static>>,
    /// Per job: its index in `keys` and its class (key size × mode).
    pub(crate) slot: Vec<(usize, usize)>,
    /// Per job: its continuation value.
    pub(crate) ivs: Vec<[u8; 16]>,
    /// The order of the whole-block streams: ([`run_key`], job).
    pub(crate) order: Vec<(u8, usize)>,
    /// [`counting_sort`]'s other buffer.
    pub(crate) sorted: Vec<(u8, usize)>,
    /// Per job: its whole-block part, if any (taken in `order`).
    pub(crate) heads: Vec<Option<StreamData<'static>>>,
    /// The whole-block streams of a call, in `order`.
    pub(crate) streams: Vec<Stream<'static, Sched<'static>>>,
    /// Partial final blocks (CFB/OFB).
    pub(crate) tails: Vec<Tail<'static>>,
    /// Keys seen in a call, by address.
    pub(crate) seen: KeyTable,
}

impl Scratch {
    /// Empty storage (allocates nothing until a call needs it).
    pub fn new() -> Self {
        Self::default()
    }

    /// Wipe the continuation values of the last call and empty them.
    pub(crate) fn wipe_ivs(&mut self) {
        for iv in self.ivs.iter_mut() {
            wipe(iv, [0; 16]);
        }
        self.ivs.clear();
    }
}

impl fmt::Debug for Scratch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scratch")
            .field("jobs", &self.slot.capacity())
            .field("streams", &self.streams.capacity())
            .finish_non_exhaustive()
    }
}

/// A job's partial final block (CFB/OFB).
pub(crate) struct Tail<'a> {
    /// Index of the job.
    pub(crate) job: usize,
    /// Its mode.
    pub(crate) mode: Mode,
    /// Its last `len % 16` bytes.
    pub(crate) data: StreamData<'a>,
}

/// An empty `Vec<U>` on `v`'s allocation when `T` and `U` have the same
/// size and alignment (the standard library collects a vector's
/// `into_iter().map(..)` in place), otherwise an empty one that allocates
/// when it grows. `T` and `U` are typically one type with different
/// borrows.
pub(crate) fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter()
        .map(|_| unreachable!("the vector is empty"))
        .collect()
}

/// Bits of a [`run_key`] below the class.
pub(crate) const CLASS_SHIFT: u32 = 4;

/// The key that orders a call's streams: its class (key size × mode, below
/// 16) in the top 4 bits, then its length class, longest first: `15 -
/// log2(blocks)` (capped), so that packets of a few sizes are ordered
/// exactly and the lanes' own sort by exact length finds at most streams
/// within a factor of two of each other out of order.
pub(crate) fn run_key(class: usize, blocks: usize) -> u8 {
    debug_assert!(class < 16 && blocks > 0);
    let log = (blocks.max(1).ilog2() as usize).min(15);
    ((class << CLASS_SHIFT) | (15 - log)) as u8
}

/// Sort `v` by key, stably, by one counting pass (`tmp` holds the other
/// copy); nothing to do when all keys are equal (a call's streams of one
/// class and size). No comparisons, so no mispredicted branches, where a
/// comparison sort of a burst of 128 packets of mixed lengths took as
/// long as the rest of the driver outside the lanes (`perf`, `aesflow
/// bench --gateway`).
pub(crate) fn counting_sort(v: &mut Vec<(u8, usize)>, tmp: &mut Vec<(u8, usize)>) {
    // Equal keys (packets of one size): no counters to clear.
    if v.windows(2).all(|w| w[0].0 == w[1].0) {
        return;
    }
    let mut start = [0usize; 257];
    for &(k, _) in v.iter() {
        start[usize::from(k) + 1] += 1;
    }
    for b in 0..256 {
        start[b + 1] += start[b];
    }
    tmp.clear();
    tmp.resize(v.len(), (0, 0));
    for &e in v.iter() {
        let b = usize::from(e.0);
        tmp[start[b]] = e;
        start[b] += 1;
    }
    core::mem::swap(v, tmp);
}

/// An open-addressing table from a key's address (and length) to its index
/// among the call's key schedules. Entries carry the call's generation, so
/// starting a call empties the table without writing it.
#[derive(Default)]
pub(crate) struct KeyTable {
    entries: Vec<Entry>,
    /// The current call's generation (0: never used).
    generation: u32,
    /// `64 - log2(entries.len())`.
    shift: u32,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    generation: u32,
    index: usize,
    addr: usize,
    len: usize,
}

/// Tables up to this many entries are kept whatever the call's size.
const KEEP_ENTRIES: usize = 1 << 12;

impl KeyTable {
    /// Start a call of up to `jobs` keys with an empty table, at most half
    /// full at the end of the call.
    pub(crate) fn start(&mut self, jobs: usize) {
        let want = (2 * jobs).next_power_of_two().max(16);
        let len = self.entries.len();
        if len < want || (len > KEEP_ENTRIES && len > 8 * want) {
            self.entries = vec![Entry::default(); want];
            self.shift = 64 - want.trailing_zeros();
            self.generation = 0;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.entries.fill(Entry::default());
            self.generation = 1;
        }
    }

    /// The index recorded for the key at `addr` of `len` bytes, or the
    /// position at which to [`insert`](Self::insert) it.
    pub(crate) fn find(&self, addr: usize, len: usize) -> Result<usize, usize> {
        let mask = self.entries.len() - 1;
        // Addresses are aligned (low bits zero): take the product's high
        // bits.
        let h = ((addr as u64) ^ (len as u64).rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut i = (h >> self.shift) as usize & mask;
        loop {
            let e = &self.entries[i];
            if e.generation != self.generation {
                return Err(i);
            }
            if e.addr == addr && e.len == len {
                return Ok(e.index);
            }
            i = (i + 1) & mask;
        }
    }

    /// Record `index` for the key at `addr` of `len` bytes at `pos`, a
    /// position [`find`](Self::find) returned for it.
    pub(crate) fn insert(&mut self, pos: usize, addr: usize, len: usize, index: usize) {
        self.entries[pos] = Entry {
            generation: self.generation,
            index,
            addr,
            len,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The storage survives the change of borrow: a scratch whose vectors
    /// were reallocated at every call would not be one.
    #[test]
    fn recycle_keeps_the_allocation() {
        let mut v: Vec<&'static u64> = Vec::with_capacity(100);
        let ptr = v.as_ptr() as usize;
        let x = 5u64;
        let mut w: Vec<&u64> = recycle(core::mem::take(&mut v));
        w.push(&x);
        assert_eq!(w.capacity(), 100);
        assert_eq!(w.as_ptr() as usize, ptr);
        let back: Vec<&'static u64> = recycle(w);
        assert_eq!(back.capacity(), 100);
        assert!(back.is_empty());
        // Another layout: a new, empty vector.
        let other: Vec<[u8; 3]> = recycle(back);
        assert!(other.is_empty());
    }

    #[test]
    fn counting_sort_orders_classes_then_longest_first_stably() {
        let mut x = 0x1234_5678u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut tmp = Vec::new();
        for n in [0, 1, 2, 17, 128, 1000] {
            for spread in [1, 3, 5000] {
                let mut v: Vec<(u8, usize)> = (0..n)
                    .map(|job| {
                        let class = (next() % 12) as usize;
                        let blocks = 1 + (next() % spread) as usize;
                        (run_key(class, blocks), job)
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_by_key(|e| e.0);
                counting_sort(&mut v, &mut tmp);
                assert_eq!(v, want, "{n} keys of spread {spread}");
            }
        }
        assert!(run_key(0, 36) < run_key(0, 4), "longest first");
        assert!(run_key(0, 1) < run_key(1, 1000), "class first");
        assert_eq!(run_key(2, 1 << 15), run_key(2, 1 << 20));
    }

    #[test]
    fn key_table_finds_what_it_holds_until_the_next_call() {
        let mut t = KeyTable::default();
        t.start(100);
        for k in 0..100usize {
            let addr = 0x1000 + 64 * k;
            let pos = t.find(addr, 16).expect_err("not yet seen");
            t.insert(pos, addr, 16, k);
        }
        for k in 0..100usize {
            assert_eq!(t.find(0x1000 + 64 * k, 16), Ok(k));
            assert!(
                t.find(0x1000 + 64 * k, 32).is_err(),
                "length is part of the key"
            );
        }
        t.start(100);
        assert!(t.find(0x1000, 16).is_err(), "a new call starts empty");
        // Generation wrap-around clears the table.
        t.generation = u32::MAX;
        let pos = t.find(0x1000, 16).unwrap_err();
        t.insert(pos, 0x1000, 16, 7);
        t.start(10);
        assert_eq!(t.generation, 1);
        assert!(t.find(0x1000, 16).is_err());
    }
}
