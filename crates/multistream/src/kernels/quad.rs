//! The multi-stream kernel, written once over a *quad*: four AES blocks,
//! one per stream of a 4-lane group (a zmm register with VAES, four xmm
//! registers with AES-NI).
//!
//! Each call runs `n` blocks on `G` groups (`4G` lanes). CBC encryption
//! can only advance a stream one block per step, but its plaintext can be
//! read ahead, so a call has two paths:
//!
//! * **Batches** ([`batched`], two blocks per stream: the 512-bit VAES
//!   quad): [`Quad::load_cols`] reads the next two blocks of each of a
//!   group's four streams at once (with VAES, two 32-byte loads and
//!   shuffles per pair of streams), the two steps run, and
//!   [`Quad::store_cols`] transposes the two outputs back and writes each
//!   stream's 32 bytes with wide stores. With up to four groups the next
//!   batch is loaded before this batch's stores, as the last step begins.
//!   Loads issued after the stores wait whenever their addresses match a
//!   pending store's in the low 12 bits — which the streams' buffers,
//!   allocated one after another, do at some offset — and such a wait sits
//!   at the head of every chain; loaded ahead, the inputs are in registers
//!   before the stores issue. With eight groups the registers hold no
//!   second batch (it spills), so the loads follow the stores (with
//!   shared lane pointers each group's right after its own, see
//!   [`Quad::cbc_pairs8`]); CBC
//!   encryption with keys of their own runs there as one hand-scheduled
//!   loop where the quad has one ([`Quad::cbc_pairs8`]: the 512-bit VAES
//!   quad, where the compiled loop spills inputs and reloads them at the
//!   head of the chains). Which group counts run batches is the engine's
//!   `Batch`: four groups with keys of their own run one block at a time
//!   instead, with the last rounds' key rows in registers ([`held`]),
//!   which on the review CPU (AMD Zen 5) is ahead of batches whose key
//!   rows are all read from memory.
//! * **One block at a time** ([`single`]: the rest of a call after its
//!   batches, and every block on the 256-bit and AES-NI quads):
//!   [`Quad::gather`] reads block `i` of a group's four streams straight
//!   into the four lanes (512-bit VAES: four masked 16-byte broadcast
//!   loads merged into one register; issued during the previous block's
//!   rounds, see [`Quad::PREFETCH`]), and [`Quad::scatter`] writes each
//!   lane's output block (`VEXTRACTI32X4`/`VEXTRACTI128` to memory).
//!
//! In both the `G` chains run their rounds interleaved. Idle lanes write
//! into a stack sink, so no store is conditional; a call with idle lanes
//! runs in pieces of at most `PIECE` blocks, the sink's size.
//!
//! All lanes advance by the same byte offset, so a call needs one base
//! pointer per lane and no per-lane pointer arithmetic per block. Lanes
//! from `active` on are idle: they read lane 0's input (always valid) and
//! their outputs are discarded.
//!
//! Round keys: with `SHARED` every lane has the same key, which is loaded
//! (broadcast to the four lanes) once per call and stays in registers;
//! otherwise round key `r` of group `g` is the 64-byte row
//! `ctx.keys[g][r]`, built by the scheduler from the four streams' keys.
//! The rows that [`held`] names (all of them up to two groups, the last
//! rounds' with four) are loaded once per call and stay in registers; the
//! others are read in place by [`Quad::enc_row`] — with VAES as `VAESENC`'s memory operand at a
//! constant offset (`asm!`), so no key takes a register (LLVM otherwise
//! loads rows into registers and spills the batch's inputs).

use super::lanes::LaneCtx;
use super::{CBC_ENC, CFB_DEC, CFB_ENC};
use zeroize::Zeroize;

/// Blocks per piece of the one-block-at-a-time path (idle lanes write
/// into a stack sink of this many blocks).
const PIECE: usize = 64;

/// Four AES blocks, one per lane of a group (lane `l` at bytes
/// `16l..16l + 16` when loaded from or stored to memory).
///
/// # Safety
/// Every method needs the CPU features of the implementation; pointer
/// arguments must be valid for the bytes the method names.
pub(super) trait Quad: Copy {
    /// How the key rows held in registers are loaded at the start of a
    /// call: by a loop in the kernel (`true`), or by
    /// `core::array::from_fn`, whose generic driver is compiled without the
    /// kernel's target features, so that each load in it is a call. The
    /// 512-bit group takes the loop (16 streams of 576 B: 8.0-8.2 to
    /// 8.7-9.0 GB/s on Zen 5); the register arrays keep `from_fn`, with
    /// which the 256-bit kernel measured faster (16.6-17.1 against
    /// 15.5-15.9 GB/s at 16 streams of 16 KiB, same CPU).
    const OWN_BY_LOOP: bool = false;
    /// All zero.
    unsafe fn zero() -> Self;
    /// 64 bytes at `p` (unaligned).
    unsafe fn load(p: *const u8) -> Self;
    /// Round keys `rk` (at most 15), each in all four lanes; the rest
    /// zero.
    unsafe fn broadcast_keys(rk: &[[u8; 16]]) -> [Self; super::MAX_RK];
    /// Store 64 bytes at `p` (unaligned).
    unsafe fn store(p: *mut u8, v: Self);
    /// Lane-wise XOR.
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// One AES round (`AESENC`) on each lane with that lane's round key.
    unsafe fn enc(a: Self, k: Self) -> Self;
    /// The last AES round (`AESENCLAST`).
    unsafe fn enc_last(a: Self, k: Self) -> Self;
    /// [`Quad::enc`] with round key `R` of group `GR` from the lanes' key
    /// rows at `rows` (`ctx.keys`: row `(GR, R)` is the 64 bytes at
    /// `rows + 64 (GR · MAX_RK + R)`). With 512-bit VAES it is `AESENC`'s
    /// memory operand (`asm!`: LLVM otherwise loads the rows into
    /// registers, which then crowd out the batched path's inputs).
    #[inline(always)]
    unsafe fn enc_row<const GR: usize, const R: usize>(a: Self, rows: *const u8) -> Self {
        // SAFETY: the row is 64 readable bytes (caller); features are the
        // caller's.
        unsafe { Self::enc(a, Self::load(rows.add(64 * (GR * super::MAX_RK + R)))) }
    }
    /// [`Quad::enc_last`] with a key row, as [`Quad::enc_row`].
    #[inline(always)]
    unsafe fn enc_last_row<const GR: usize, const R: usize>(a: Self, rows: *const u8) -> Self {
        // SAFETY: as `enc_row`.
        unsafe { Self::enc_last(a, Self::load(rows.add(64 * (GR * super::MAX_RK + R)))) }
    }
    /// Whether the one-block-at-a-time path gathers the next block during
    /// this block's rounds: a second set of `G` quads live across the
    /// rounds, which pays with 32 zmm registers but not with 16 xmm ones
    /// (spills).
    const PREFETCH: bool = false;
    /// Lane `l` = the 16 bytes at `p[l] + off`.
    unsafe fn gather(p: &[*const u8; 4], off: usize) -> Self;
    /// Write lane `l` to the 16 bytes at `p[l] + off` (in lane order, so
    /// for equal pointers the last lane's block stays); nothing else is
    /// written.
    unsafe fn scatter(p: &[*mut u8; 4], off: usize, v: Self);
    /// Blocks `j = 0..B` of the four lanes, transposed: `[j]` lane `l` =
    /// the 16 bytes at `p[l] + off + 16j`. Default: `B` gathers.
    #[inline(always)]
    unsafe fn load_cols<const B: usize>(p: &[*const u8; 4], off: usize) -> [Self; B] {
        // SAFETY: a register value; features are the caller's.
        let mut v = [unsafe { Self::zero() }; B];
        for (j, x) in v.iter_mut().enumerate() {
            // SAFETY: 16B readable bytes at each `p[l] + off` (caller).
            *x = unsafe { Self::gather(p, off + 16 * j) };
        }
        v
    }
    /// The inverse of [`Quad::load_cols`]: lane `l` of `v[j]` to the 16
    /// bytes at `p[l] + off + 16j`, nothing else written (idle lanes may
    /// share a pointer; then which lane's bytes stay is unspecified).
    /// Default: `B` scatters.
    #[inline(always)]
    unsafe fn store_cols<const B: usize>(p: &[*mut u8; 4], off: usize, v: &[Self; B]) {
        for (j, x) in v.iter().enumerate() {
            // SAFETY: 16B writable bytes at each `p[l] + off` (caller).
            unsafe { Self::scatter(p, off + 16 * j, *x) }
        }
    }
    /// A scheduling barrier (an empty `asm!` reading and writing `v` in
    /// its registers): LLVM keeps the barriers in program order, so round
    /// `r` of every chain issues before round `r + 1` of any. Without it
    /// LLVM runs each chain's rounds in turn, and the out-of-order window
    /// cannot overlap eight such chains.
    unsafe fn barrier(v: &mut Self);
    /// CBC encryption of `2 iters` blocks on eight groups whose lanes
    /// have keys of their own (rows at `rows`, as [`Quad::enc_row`]), two
    /// blocks per lane at a time, chaining values in `st`: one
    /// hand-scheduled loop, where the quad has one (returns whether it
    /// ran; the default has none). `shared_pointers`: one pointer per lane
    /// may serve input and output (`MultiStream::with_shared_lane_pointers`).
    #[inline(always)]
    unsafe fn cbc_pairs8<const NR: usize>(
        _src: &[[*const u8; 4]; 8],
        _dst: &[[*mut u8; 4]; 8],
        _rows: *const u8,
        _st: &mut [Self; 8],
        _iters: usize,
        _shared_pointers: bool,
    ) -> bool {
        false
    }
}

/// Run `n` blocks on the `4G` lanes of groups `0..G`; lanes `0..active`
/// hold streams, the others are idle. Lane pointers are not advanced (the
/// scheduler does that); chaining values are read from and written back to
/// `ctx.state`. `B` is the batch: blocks per stream read at once by
/// [`Quad::load_cols`] (2; 1 runs every block by [`Quad::gather`]).
/// A batch keeps `B` quads of input per group in registers beside the `G`
/// chains, so it is what the register file holds.
///
/// # Safety
/// The CPU has `V`'s features. `1 <= active <= 4G <= MAX_LANES`. For every
/// lane `l < active`, `ctx.src[l]` is readable and `ctx.dst[l]` writable
/// for `16n` bytes (`src == dst` allowed, other overlaps not); its round
/// keys are set for `NR` rounds in `ctx.keys` or, with `SHARED`, every
/// active lane's key is `ctx.shared`.
#[inline(always)]
pub(super) unsafe fn run<
    V: Quad,
    const G: usize,
    const MODE: u8,
    const NR: usize,
    const SHARED: bool,
    const B: usize,
>(
    ctx: &mut LaneCtx,
    active: usize,
    n: usize,
) {
    debug_assert!(active >= 1 && active <= 4 * G && 4 * G <= super::MAX_LANES);
    let mut src = [[core::ptr::null::<u8>(); 4]; G];
    let mut dst = [[core::ptr::null_mut::<u8>(); 4]; G];
    let mut live = [[false; 4]; G];
    for g in 0..G {
        for l in 0..4 {
            let lane = 4 * g + l;
            live[g][l] = lane < active;
            // Idle lanes read lane 0's input (valid for `n` blocks) and
            // never store.
            let from = if live[g][l] { lane } else { 0 };
            src[g][l] = ctx.src[from];
            dst[g][l] = ctx.dst[from];
        }
    }
    // SAFETY: a register value; features are the caller's.
    let mut st = [unsafe { V::zero() }; G];
    for (g, s) in st.iter_mut().enumerate() {
        // SAFETY: `ctx.state[g]` (g < G <= MAX_GROUPS) is 64 initialized
        // bytes.
        *s = unsafe { V::load(ctx.state[g].0.as_ptr()) };
    }
    // With `SHARED` the one key, broadcast once into registers; otherwise
    // the lanes' rows in `ctx.keys`, read in place as memory operands.
    let shared = if SHARED {
        // SAFETY: register values from `ctx.shared` (16-byte rows,
        // NR < MAX_RK); features are the caller's.
        unsafe { V::broadcast_keys(&ctx.shared[..=NR]) }
    } else {
        // SAFETY: a register value.
        [unsafe { V::zero() }; super::MAX_RK]
    };
    // With keys of their own: the rows [`held`] in registers, copied
    // once into locals, which then stay there.
    let hold = |g: usize, r: usize| !SHARED && g < G && r <= NR && held::<G, NR>(r);
    let own: [[V; super::MAX_RK]; HELD_GROUPS] = if V::OWN_BY_LOOP {
        // SAFETY: a register value.
        let mut own = [[unsafe { V::zero() }; super::MAX_RK]; HELD_GROUPS];
        for (g, rows) in own.iter_mut().enumerate() {
            for (r, row) in rows.iter_mut().enumerate() {
                if hold(g, r) {
                    // SAFETY: the row `ctx.keys[g][r]` (g < G <= MAX_GROUPS,
                    // r <= NR < MAX_RK) is 64 initialized bytes.
                    *row = unsafe { V::load(ctx.keys[g][r].0.as_ptr()) };
                }
            }
        }
        own
    } else {
        core::array::from_fn(|g| {
            core::array::from_fn(|r| {
                if hold(g, r) {
                    // SAFETY: as above.
                    unsafe { V::load(ctx.keys[g][r].0.as_ptr()) }
                } else {
                    // SAFETY: a register value.
                    unsafe { V::zero() }
                }
            })
        })
    };
    let keys = Keys::<V> {
        shared: &shared,
        own: &own,
        rows: ctx.keys.as_ptr().cast(),
    };
    let key = &keys;
    // Idle lanes store into `sink` (so that no store is conditional);
    // with idle lanes the call runs in pieces of at most `PIECE` blocks.
    let idle = active < 4 * G;
    let piece = if idle { PIECE } else { n.max(1) };
    let mut sink = [0u64; 2 * PIECE];
    let mut done = 0;
    while done < n {
        let (m, base) = ((n - done).min(piece), 16 * done);
        let from: [[*const u8; 4]; G] =
            core::array::from_fn(|g| core::array::from_fn(|l| src[g][l].wrapping_add(base)));
        let to: [[*mut u8; 4]; G] = core::array::from_fn(|g| {
            core::array::from_fn(|l| match live[g][l] {
                true => dst[g][l].wrapping_add(base),
                false => sink.as_mut_ptr().cast(),
            })
        });
        // SAFETY: blocks `done..done + m` (done + m <= n) of every lane
        // are readable at `src` and writable at every live lane's `dst`
        // (caller); idle lanes (only with `idle`: m <= PIECE) write
        // blocks `..m` of `sink`.
        unsafe {
            blocks::<V, G, MODE, NR, SHARED, B>(&from, &to, m, &mut st, key, ctx.shared_pointers)
        };
        done += m;
    }
    if idle {
        // Idle lanes' outputs: lane 0's input under their keys.
        sink[..2 * n.min(PIECE)].zeroize();
    }
    for (g, s) in st.iter().enumerate() {
        // SAFETY: `ctx.state[g]` is 64 writable bytes.
        unsafe { V::store(ctx.state[g].0.as_mut_ptr(), *s) };
    }
}

/// A call's round keys: with `SHARED`, the one key broadcast into
/// registers (`shared`); otherwise the lanes' 64-byte rows `ctx.keys`
/// (`rows`), read in place.
struct Keys<'a, V> {
    shared: &'a [V; super::MAX_RK],
    /// Without `SHARED`: the rows [`held`] in registers.
    own: &'a [[V; super::MAX_RK]; HELD_GROUPS],
    rows: *const u8,
}

/// Most groups whose rows a call holds in registers.
const HELD_GROUPS: usize = 4;

/// Whether a call with `G` groups and keys of their own holds round key
/// `r` (of `NR` rounds) in registers rather than reading its rows from
/// memory as `VAESENC`'s operand: all of them up to two groups (22 zmm
/// beside the chains and a batch's inputs); with four groups the last
/// `HELD_ROUNDS` rounds (20 zmm beside the 12 of the one-block-at-a-time
/// path: chains, inputs, the next inputs); with eight none.
const fn held<const G: usize, const NR: usize>(r: usize) -> bool {
    match G {
        1 | 2 => true,
        4 => r + HELD_ROUNDS > NR,
        _ => false,
    }
}

/// Rounds whose rows a four-group call holds in registers.
const HELD_ROUNDS: usize = 5;

impl<V: Quad> Keys<'_, V> {
    /// Round key 0 of group `g`.
    ///
    /// # Safety
    /// Without `SHARED`, `g < MAX_GROUPS`; features are the caller's.
    #[inline(always)]
    unsafe fn k0<const G: usize, const NR: usize, const SHARED: bool>(&self, g: usize) -> V {
        if SHARED {
            self.shared[0]
        } else if held::<G, NR>(0) {
            self.own[g % HELD_GROUPS][0]
        } else {
            // SAFETY: row `(g, 0)` of `ctx.keys` (g < MAX_GROUPS: caller).
            unsafe { V::load(self.rows.add(64 * g * super::MAX_RK)) }
        }
    }
}

/// `m` blocks: first batches of `B` blocks per lane ([`batched`], for
/// `B` = 2), then the rest one block at a time ([`single`]).
///
/// # Safety
/// As [`run`]: `m` blocks are readable at every lane's `src` and writable
/// at every lane's `dst`.
#[inline(always)]
unsafe fn blocks<
    V: Quad,
    const G: usize,
    const MODE: u8,
    const NR: usize,
    const SHARED: bool,
    const B: usize,
>(
    src: &[[*const u8; 4]; G],
    dst: &[[*mut u8; 4]; G],
    m: usize,
    st: &mut [V; G],
    key: &Keys<'_, V>,
    shared_pointers: bool,
) {
    // SAFETY: the caller's contract, passed on.
    let done = unsafe {
        match B {
            2 if G == 8 && MODE == CBC_ENC && !SHARED && m >= 2 => {
                // SAFETY: G == 8, so these are the same arrays.
                let (s8, d8, st8) = (
                    &*(src as *const [[*const u8; 4]; G]).cast::<[[*const u8; 4]; 8]>(),
                    &*(dst as *const [[*mut u8; 4]; G]).cast::<[[*mut u8; 4]; 8]>(),
                    &mut *(st as *mut [V; G]).cast::<[V; 8]>(),
                );
                if V::cbc_pairs8::<NR>(s8, d8, key.rows, st8, m / 2, shared_pointers) {
                    m / 2 * 2
                } else {
                    batched::<V, G, MODE, NR, SHARED, 2>(src, dst, m, st, key)
                }
            }
            2 => batched::<V, G, MODE, NR, SHARED, 2>(src, dst, m, st, key),
            _ => 0,
        }
    };
    // SAFETY: blocks `done..m` remain, readable and writable (caller).
    unsafe { single::<V, G, MODE, NR, SHARED>(src, dst, done, m, st, key) }
}

/// Blocks `at..at + B` of every lane of the `G` groups, transposed per
/// group ([`Quad::load_cols`]). A function with `inline(always)`, not a
/// closure: a closure is compiled on its own without the kernel's target
/// features, and each load in it became a call.
///
/// # Safety
/// Blocks `at..at + B` of every lane readable; the CPU features of `V`.
#[inline(always)]
unsafe fn load_batch<V: Quad, const G: usize, const B: usize>(
    src: &[[*const u8; 4]; G],
    at: usize,
) -> [[V; B]; G] {
    // SAFETY: a register value; features are the caller's.
    let mut v = [[unsafe { V::zero() }; B]; G];
    for (g, x) in v.iter_mut().enumerate() {
        // SAFETY: blocks `at..at + B` of every lane are readable (caller).
        *x = unsafe { V::load_cols::<B>(&src[g], 16 * at) };
    }
    v
}

/// `B` blocks per lane at a time while `B` remain: each group's next `B`
/// blocks are loaded with [`Quad::load_cols`] (with 512-bit VAES: one
/// 32-byte load per stream and shuffles in registers, instead of four
/// 16-byte gathers per block), the `B` steps run, and their outputs
/// go out with [`Quad::store_cols`]. Returns the blocks done (a multiple
/// of `B`, at most `m`).
///
/// # Safety
/// As [`blocks`].
#[inline(always)]
#[allow(clippy::needless_range_loop)]
unsafe fn batched<
    V: Quad,
    const G: usize,
    const MODE: u8,
    const NR: usize,
    const SHARED: bool,
    const B: usize,
>(
    src: &[[*const u8; 4]; G],
    dst: &[[*mut u8; 4]; G],
    m: usize,
    st: &mut [V; G],
    key: &Keys<'_, V>,
) -> usize {
    if B > m {
        return 0;
    }
    // Every call passes `at + B <= m`: blocks `at..at + B` of every lane
    // are readable (caller).
    // SAFETY: as above; features are the caller's.
    let load = |at: usize| unsafe { load_batch::<V, G, B>(src, at) };
    let mut cols = load(0);
    let mut i = 0;
    while i + B <= m {
        // The next batch (this one again after the last), loaded before
        // this batch's stores: see the module docs.
        let ahead = if i + 2 * B <= m { i + B } else { i };
        let mut next = cols;
        // SAFETY: a register value.
        let mut out = [[unsafe { V::zero() }; B]; G];
        // Step `j` of the batch; a macro, so that the steps are unrolled
        // (as a loop LLVM keeps `cols` and `out` on the stack).
        macro_rules! step {
            ($j:expr) => {
                if $j < B {
                    if $j == B - 1 && G <= AHEAD_GROUPS {
                        next = load(ahead);
                    }
                    let inp: [V; G] = core::array::from_fn(|g| cols[g][$j]);
                    let (o, _) = {
                        // SAFETY: register operations; features are the
                        // caller's.
                        unsafe { block_step::<V, G, MODE, NR, SHARED>(&inp, st, key, None) }
                    };
                    for g in 0..G {
                        out[g][$j] = o[g];
                    }
                }
            };
        }
        const { assert!(B <= 2) };
        step!(0);
        step!(1);
        for g in 0..G {
            // SAFETY: blocks `i..i + B` of every lane are writable (caller).
            unsafe { V::store_cols::<B>(&dst[g], 16 * i, &out[g]) };
        }
        i += B;
        cols = if G <= AHEAD_GROUPS {
            next
        } else if i + B <= m {
            load(i)
        } else {
            cols
        };
    }
    i
}

/// Blocks `from..m`, one per lane at a time: gather, rounds, scatter. With
/// [`Quad::PREFETCH`], block `i + 1` is gathered during the rounds of
/// block `i` (after round 1, see [`block_step`]), so its loads are in
/// flight long before the chain needs them; the last step re-reads block
/// `m - 1`, so no read goes past the caller's `m` blocks.
///
/// # Safety
/// As [`run`]: `m` blocks are readable at every lane's `src` and writable
/// at every lane's `dst`.
#[inline(always)]
unsafe fn single<V: Quad, const G: usize, const MODE: u8, const NR: usize, const SHARED: bool>(
    src: &[[*const u8; 4]; G],
    dst: &[[*mut u8; 4]; G],
    from: usize,
    m: usize,
    st: &mut [V; G],
    key: &Keys<'_, V>,
) {
    if from >= m {
        return;
    }
    let gather = |off: usize| -> [V; G] {
        // SAFETY: a register value; features are the caller's.
        let mut v = [unsafe { V::zero() }; G];
        for (g, x) in v.iter_mut().enumerate() {
            // SAFETY: the caller's `off` is that of a block `< m`, readable
            // at every lane (caller); features are the caller's.
            *x = unsafe { V::gather(&src[g], off) };
        }
        v
    };
    let mut inp = if V::PREFETCH {
        gather(16 * from)
    } else {
        // SAFETY: a register value.
        [unsafe { V::zero() }; G]
    };
    for i in from..m {
        if !V::PREFETCH {
            inp = gather(16 * i);
        }
        let fetch = V::PREFETCH.then_some((src, 16 * (i + 1).min(m - 1)));
        // SAFETY: register operations and (with `PREFETCH`) gathers of
        // block `min(i + 1, m - 1) < m` (readable: caller); features are
        // the caller's.
        let (out, next) = unsafe { block_step::<V, G, MODE, NR, SHARED>(&inp, st, key, fetch) };
        for g in 0..G {
            // SAFETY: block `i < m` of every lane is writable (caller).
            unsafe { V::scatter(&dst[g], 16 * i, out[g]) };
        }
        if V::PREFETCH {
            inp = next;
        }
    }
}

/// One block of every group (input `inp[g]`, returned output `[g]`): the
/// rounds of the `G` chains interleaved. With `fetch = Some((src, off))`,
/// every group's quad at `src[g]` + `off` is gathered after round 1 (so
/// the loads overlap the remaining rounds) and returned as the second
/// array; with `None` that array is zero.
///
/// # Safety
/// The CPU has `V`'s features; with `fetch`, 16 bytes at every
/// `src[g][l] + off` are readable.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
unsafe fn block_step<
    V: Quad,
    const G: usize,
    const MODE: u8,
    const NR: usize,
    const SHARED: bool,
>(
    inp: &[V; G],
    st: &mut [V; G],
    key: &Keys<'_, V>,
    fetch: Option<(&[[*const u8; 4]; G], usize)>,
) -> ([V; G], [V; G]) {
    // SAFETY: register operations, and gathers the caller vouches for;
    // features are the caller's.
    unsafe {
        let mut x = [V::zero(); G];
        let mut next = [V::zero(); G];
        for g in 0..G {
            let k0 = key.k0::<G, NR, SHARED>(g);
            // CBC: (P ^ k0) ^ C_prev, so only one XOR is on the chain.
            x[g] = if MODE == CBC_ENC {
                V::xor(V::xor(inp[g], k0), st[g])
            } else {
                V::xor(st[g], k0)
            };
        }
        // Macros, not closures: a closure does not inherit the kernel's
        // target features. Group and round are literals, so that a key
        // row's offset is a constant of the instruction.
        macro_rules! enc_g {
            ($f:ident, $fr:ident, $r:literal: $($g:literal)+) => {$(
                if $g < G {
                    x[$g] = if SHARED {
                        V::$f(x[$g], key.shared[$r])
                    } else if held::<G, NR>($r) {
                        V::$f(x[$g], key.own[$g % HELD_GROUPS][$r])
                    } else {
                        V::$fr::<$g, $r>(x[$g], key.rows)
                    };
                }
            )+};
        }
        macro_rules! round {
            ($($r:literal)+) => {$(
                if $r < NR {
                    enc_g!(enc, enc_row, $r: 0 1 2 3 4 5 6 7);
                    for v in x.iter_mut() {
                        V::barrier(v);
                    }
                }
            )+};
        }
        const { assert!(G <= 8 && NR <= 14) };
        round!(1);
        // The next block's gathers after round 1, outside the round loop
        // (inside it, LLVM stops unrolling the rounds).
        if let Some((src, off)) = fetch {
            for g in 0..G {
                next[g] = V::gather(&src[g], off);
            }
        }
        round!(2 3 4 5 6 7 8 9 10 11 12 13);
        match NR {
            10 => {
                enc_g!(enc_last, enc_last_row, 10: 0 1 2 3 4 5 6 7);
            }
            12 => {
                enc_g!(enc_last, enc_last_row, 12: 0 1 2 3 4 5 6 7);
            }
            _ => {
                enc_g!(enc_last, enc_last_row, 14: 0 1 2 3 4 5 6 7);
            }
        }
        let mut out = [V::zero(); G];
        for g in 0..G {
            out[g] = if MODE == CBC_ENC {
                x[g]
            } else {
                V::xor(x[g], inp[g])
            };
            st[g] = match MODE {
                CFB_ENC => out[g],
                CFB_DEC => inp[g],
                _ => x[g],
            };
        }
        (out, next)
    }
}

/// Group counts up to which the batched path loads the next batch before
/// this batch's stores (more groups: no registers for it).
const AHEAD_GROUPS: usize = 4;
