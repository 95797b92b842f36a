//! The lanes and their scheduler.
//!
//! [`run`] takes the streams of one *class* (same key size, same mode), turns
//! their slices into raw lane pointers, and drives a kernel:
//!
//! 1. fill the lanes with the longest pending streams (LPT order);
//! 2. run `n = min(remaining blocks of the active lanes)` blocks on every lane
//!    (one kernel call; the chaining values stay in registers);
//! 3. retire every lane whose stream ended (its chaining value is written
//!    back), refill it with the next pending stream (pointers, chaining value
//!    and round keys are copied into the lane), or — when nothing is pending —
//!    move the last active lane into the hole so the active lanes stay dense
//!    (`0..active`) and the kernel runs on fewer registers.
//!
//! Soundness: every lane pointer is derived from a slice that the
//! [`Stream`] borrows (mutably for the output) for the whole call, and a lane
//! is only stepped `n <= remaining` blocks, so every load and store is in
//! bounds of the slice its pointer came from.

// Index loops over parallel per-lane arrays read better than zips here.
#![allow(clippy::needless_range_loop)]

use super::stream::{MAX_RK, Sched, Stream, wipe, wipe_slice};
use super::{Lanes, MAX_GROUPS, MAX_LANES};

/// 64 bytes, aligned for one zmm load.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Z(pub(crate) [u8; 64]);

/// Everything a kernel needs about its lanes. Lane `l` lives in group
/// `l / 4` at byte offset `16 * (l % 4)` of that group's 64-byte rows, so a
/// group's round key `r` and chaining values are one aligned zmm each; the
/// AES-NI kernel reads the same rows 16 bytes at a time.
pub(crate) struct LaneCtx {
    /// Round keys: `keys[group][round]`.
    pub(crate) keys: [[Z; MAX_RK]; MAX_GROUPS],
    /// The one key of every stream when the class shares a key.
    pub(crate) shared: [[u8; 16]; MAX_RK],
    /// Chaining values: `state[group]`.
    pub(crate) state: [Z; MAX_GROUPS],
    /// Next input block of each active lane.
    pub(crate) src: [*const u8; MAX_LANES],
    /// Next output block of each active lane.
    pub(crate) dst: [*mut u8; MAX_LANES],
    /// Round-key rows in use (`Nr + 1`).
    rows: usize,
    /// Whether one lane pointer may serve a stream's input and output
    /// (`MultiStream::with_shared_lane_pointers`).
    pub(crate) shared_pointers: bool,
    /// Groups that ever held a stream (what `drop` must wipe).
    used_groups: usize,
}

impl LaneCtx {
    /// Built on the caller's stack (about 9 KiB): no heap allocation. All
    /// zero, written in place: a struct literal is built in a temporary
    /// and copied (9 KiB of `memcpy` per call, a packet call's budget).
    #[inline(always)]
    fn new(nr: usize) -> Self {
        // SAFETY: every field is a byte array, a raw pointer array or an
        // integer, for which all-zero bytes are a valid value (null
        // pointers, no streams, zero keys).
        let mut ctx: LaneCtx = unsafe { core::mem::MaybeUninit::zeroed().assume_init() };
        ctx.rows = nr + 1;
        ctx
    }

    fn lane_state(&self, l: usize) -> [u8; 16] {
        let o = 16 * (l % 4);
        self.state[l / 4].0[o..o + 16].try_into().expect("16 bytes")
    }

    fn set_lane_state(&mut self, l: usize, s: &[u8; 16]) {
        let o = 16 * (l % 4);
        self.state[l / 4].0[o..o + 16].copy_from_slice(s);
    }

    fn set_lane_keys(&mut self, l: usize, rk: &Sched<'_>) {
        let o = 16 * (l % 4);
        self.used_groups = self.used_groups.max(l / 4 + 1);
        for (row, k) in self.keys[l / 4].iter_mut().zip(rk.enc()) {
            row.0[o..o + 16].copy_from_slice(k);
        }
    }

    fn copy_lane(&mut self, from: usize, to: usize) {
        let (fo, to_o) = (16 * (from % 4), 16 * (to % 4));
        for r in 0..self.rows {
            let mut k = [0u8; 16];
            k.copy_from_slice(&self.keys[from / 4][r].0[fo..fo + 16]);
            self.keys[to / 4][r].0[to_o..to_o + 16].copy_from_slice(&k);
            wipe(&mut k, [0; 16]);
        }
        let s = self.lane_state(from);
        self.set_lane_state(to, &s);
        self.src[to] = self.src[from];
        self.dst[to] = self.dst[from];
    }

    /// Lane `l` no longer holds a stream. Its key rows and chaining value
    /// stay in the context until it is dropped at the end of the call
    /// (which wipes every row a stream ever used): a kernel runs an idle
    /// lane on lane 0's input into a sink it wipes, and a wipe here would
    /// store every row twice per packet.
    fn set_idle(&mut self, l: usize) {
        self.src[l] = core::ptr::null();
        self.dst[l] = core::ptr::null_mut();
    }
}

impl Drop for LaneCtx {
    fn drop(&mut self) {
        let (groups, rows) = (self.used_groups, self.rows);
        for g in self.keys[..groups].iter_mut() {
            wipe_slice(&mut g[..rows], Z([0; 64]));
        }
        wipe_slice(&mut self.state, Z([0; 64]));
        wipe_slice(&mut self.shared, [0; 16]);
    }
}

/// A stream as the scheduler sees it.
struct Source<'k> {
    input: *const u8,
    output: *mut u8,
    blocks: usize,
    /// The chaining value: the IV, then (once the stream has left its
    /// lane) the value to continue with.
    state: core::cell::Cell<[u8; 16]>,
    keys: &'k Sched<'k>,
}

/// Run all streams of one class (same key size `nr`, same `mode` code)
/// through the SIMD engine, at most `own_key_lanes` of them at a time when
/// they have keys of their own ([`Simd::lanes`] when they share one key).
/// On return each stream's `state` is its new chaining value.
///
/// # Panics
/// If the CPU lacks the engine's features (callers check first), if a
/// stream's length is not a multiple of 16, its input and output lengths
/// differ, or its key size is not `nr`.
pub(crate) fn run(lanes: Lanes, mode: u8, nr: usize, streams: &mut [Stream<'_, Sched<'_>>]) {
    let Lanes {
        simd,
        own_key_lanes,
        batch,
        shared_pointers,
    } = lanes;
    simd.assert_available();
    assert!(mode <= super::OFB, "unknown mode code");
    // Raw views, taken once; `streams` is not touched again until the lanes
    // are done (then only to write back `state`). A stream's key size is
    // checked when it enters a lane, where its keys are read anyway.
    let mut src: Vec<Source<'_>> = Vec::with_capacity(streams.len());
    for s in streams.iter_mut() {
        assert_eq!(s.data.len() % 16, 0, "stream not a whole number of blocks");
        let (input, output) = s.data.raw();
        src.push(Source {
            input,
            output,
            blocks: s.data.len() / 16,
            state: core::cell::Cell::new(s.state),
            keys: s.keys,
        });
    }
    // Longest first: the streams that finish last start first, so lanes stay
    // busy until the end (LPT scheduling). The driver passes them longest
    // first by length class, so equal lengths (packets) need no sort.
    let mut order: Vec<usize> = (0..src.len()).filter(|&i| src[i].blocks > 0).collect();
    if !order.is_sorted_by_key(|&i| std::cmp::Reverse(src[i].blocks)) {
        order.sort_by_key(|&i| std::cmp::Reverse(src[i].blocks));
    }
    // One key for the whole class: the kernel keeps it in registers.
    let shared = order
        .first()
        .map(|&f| {
            order
                .iter()
                .all(|&i| core::ptr::eq(src[i].keys, src[f].keys))
        })
        .unwrap_or(false);
    let lanes_max = if shared {
        simd.lanes()
    } else {
        own_key_lanes.clamp(1, simd.lanes())
    };

    let mut ctx = LaneCtx::new(nr);
    ctx.shared_pointers = shared_pointers;
    if let (true, Some(&f)) = (shared, order.first()) {
        for (d, k) in ctx.shared.iter_mut().zip(src[f].keys.enc()) {
            *d = *k;
        }
    }
    let mut lane_stream = [usize::MAX; MAX_LANES];
    let mut rem = [0usize; MAX_LANES];
    let mut pending = order.into_iter();
    let mut active = 0;

    let load = |ctx: &mut LaneCtx, l: usize, i: usize, rem: &mut [usize], ls: &mut [usize]| {
        let s = &src[i];
        assert_eq!(s.keys.nr(), nr, "stream of another key size in this class");
        ctx.src[l] = s.input;
        ctx.dst[l] = s.output;
        ctx.set_lane_state(l, &s.state.get());
        // Also with a shared key: kernels that read keys from memory (AES-NI)
        // use the lane rows either way.
        ctx.set_lane_keys(l, s.keys);
        rem[l] = s.blocks;
        ls[l] = i;
    };
    while active < lanes_max {
        match pending.next() {
            Some(i) => {
                load(&mut ctx, active, i, &mut rem, &mut lane_stream);
                active += 1;
            }
            None => break,
        }
    }
    while active > 0 {
        let n = rem[..active].iter().copied().min().expect("active lanes");
        super::step(simd, batch, mode, nr, active, shared, &mut ctx, n);
        for l in 0..active {
            rem[l] -= n;
            // One past the end after the last block: never dereferenced.
            ctx.src[l] = ctx.src[l].wrapping_add(16 * n);
            ctx.dst[l] = ctx.dst[l].wrapping_add(16 * n);
        }
        let mut l = 0;
        while l < active {
            if rem[l] != 0 {
                l += 1;
                continue;
            }
            src[lane_stream[l]].state.set(ctx.lane_state(l));
            if let Some(i) = pending.next() {
                load(&mut ctx, l, i, &mut rem, &mut lane_stream);
                l += 1;
            } else {
                // Lanes at the end that finished as well retire in place:
                // packets of one size all end in the same call, and moving
                // each into the hole first would copy its keys for nothing.
                while active - 1 > l && rem[active - 1] == 0 {
                    active -= 1;
                    src[lane_stream[active]].state.set(ctx.lane_state(active));
                    ctx.set_idle(active);
                }
                active -= 1;
                if l != active {
                    ctx.copy_lane(active, l);
                    rem[l] = rem[active];
                    lane_stream[l] = lane_stream[active];
                    // Re-examine lane `l`: the moved stream may be done too.
                }
                ctx.set_idle(active);
                rem[active] = 0;
            }
        }
    }
    // `ctx` is wiped when it goes out of scope, in place (`drop(ctx)`
    // would move its 9 KiB first).
    for (s, x) in streams.iter_mut().zip(src.iter_mut()) {
        s.state = x.state.get();
        wipe(x.state.get_mut(), [0; 16]);
    }
}
