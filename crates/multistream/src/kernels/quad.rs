//! The multi-stream kernel, written once over a *quad*: four AES blocks,
//! one per stream of a 4-lane group (a zmm register with VAES, four xmm
//! registers with AES-NI).
//!
//! Each call runs `n` blocks on `G` groups (`4G` lanes), one block per
//! lane at a time: [`Quad::gather`] reads block `i` of a group's four
//! streams straight into the four lanes (with 512-bit VAES, four masked
//! 16-byte broadcast loads merged into one register: load uops, no
//! shuffles or ORs competing with `VAESENC` for its ports; issued during
//! the previous block's rounds, see [`Quad::PREFETCH`]), the `G` chains
//! run their rounds interleaved, and [`Quad::scatter`] writes each lane's
//! output block (`VEXTRACTI32X4`/`VEXTRACTI128` to memory: a store, no
//! shuffle). Idle lanes write into a stack sink, so no store is
//! conditional; a call runs in pieces of at most `PIECE` blocks, the
//! sink's size. (Loading four consecutive blocks of each stream and
//! transposing them in registers, the earlier design, costs shuffles on
//! the AES ports: on this project's Zen 3 machine the 256-bit kernel ran
//! 10–30 % slower that way.)
//!
//! All lanes advance by the same byte offset, so a call needs one base
//! pointer per lane and no per-lane pointer arithmetic per block. Lanes
//! from `active` on are idle: they read lane 0's input (always valid) and
//! their outputs are discarded.
//!
//! Round keys: with `SHARED` every lane has the same key, which is loaded
//! (broadcast to the four lanes) once per call and stays in registers;
//! otherwise round key `r` of group `g` is the 64-byte row
//! `ctx.keys[g][r]`, built by the scheduler from the four streams' keys,
//! and read as a memory operand.

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
    /// Whether the one-block-at-a-time path gathers the next block during
    /// this block's rounds: a second set of `G` quads live across the
    /// rounds, which pays with 32 zmm registers (llvm-mca, 32 streams:
    /// Zen 4 269 → 221 cycles per 128 blocks) but not with 16 xmm ones
    /// (AES-NI ×8 streams measured ~5 % slower: spills).
    const PREFETCH: bool = false;
    /// Lane `l` = the 16 bytes at `p[l] + off`.
    unsafe fn gather(p: &[*const u8; 4], off: usize) -> Self;
    /// Write lane `l` to the 16 bytes at `p[l] + off` (in lane order, so
    /// for equal pointers the last lane's block stays); nothing else is
    /// written.
    unsafe fn scatter(p: &[*mut u8; 4], off: usize, v: Self);
    /// A scheduling barrier (an empty `asm!` reading and writing `v` in
    /// its registers): LLVM keeps the barriers in program order, so round
    /// `r` of every chain issues before round `r + 1` of any. Without it
    /// LLVM runs each chain's rounds in turn, and the out-of-order window
    /// cannot overlap eight such chains.
    unsafe fn barrier(v: &mut Self);
}

/// Run `n` blocks on the `4G` lanes of groups `0..G`; lanes `0..active`
/// hold streams, the others are idle. Lane pointers are not advanced (the
/// scheduler does that); chaining values are read from and written back to
/// `ctx.state`.
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
    // The round keys, copied once into locals: the stores to the lanes'
    // outputs cannot alias them, so the compiler never reloads or re-copies
    // them inside the loop (with `SHARED` they fit in registers).
    let shared = if SHARED {
        // SAFETY: register values from `ctx.shared` (16-byte rows,
        // NR < MAX_RK); features are the caller's.
        unsafe { V::broadcast_keys(&ctx.shared[..=NR]) }
    } else {
        // SAFETY: a register value.
        [unsafe { V::zero() }; super::MAX_RK]
    };
    let keys: [[V; super::MAX_RK]; G] = core::array::from_fn(|g| {
        core::array::from_fn(|r| {
            if r > NR || SHARED {
                // SAFETY: a register value.
                unsafe { V::zero() }
            } else {
                // SAFETY: the row `ctx.keys[g][r]` (g < G <= MAX_GROUPS,
                // r <= NR < MAX_RK) is 64 initialized bytes.
                unsafe { V::load(ctx.keys[g][r].0.as_ptr()) }
            }
        })
    });
    let key = |g: usize, r: usize| -> V { if SHARED { shared[r] } else { keys[g][r] } };
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
        unsafe { blocks::<V, G, MODE, NR>(&from, &to, m, &mut st, &key) };
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

/// `m` blocks, one per lane at a time: gather, rounds, scatter. With
/// [`Quad::PREFETCH`], block `i + 1` is gathered during the rounds of
/// block `i` (after round 1, see [`block_step`]), so its loads are in
/// flight long before the chain needs them; the last step re-reads block
/// `m - 1`, so no read goes past the caller's `m` blocks.
///
/// # Safety
/// As [`run`]: `m` blocks are readable at every lane's `src` and writable
/// at every lane's `dst`.
#[inline(always)]
unsafe fn blocks<V: Quad, const G: usize, const MODE: u8, const NR: usize>(
    src: &[[*const u8; 4]; G],
    dst: &[[*mut u8; 4]; G],
    m: usize,
    st: &mut [V; G],
    key: &impl Fn(usize, usize) -> V,
) {
    if m == 0 {
        return;
    }
    let gather = |off: usize| -> [V; G] {
        // SAFETY: the caller's `off` is that of a block `< m`, readable at
        // every lane (caller); features are the caller's.
        core::array::from_fn(|g| unsafe { V::gather(&src[g], off) })
    };
    let mut inp = if V::PREFETCH {
        gather(0)
    } else {
        // SAFETY: a register value.
        [unsafe { V::zero() }; G]
    };
    for i in 0..m {
        if !V::PREFETCH {
            inp = gather(16 * i);
        }
        let fetch = V::PREFETCH.then_some((src, 16 * (i + 1).min(m - 1)));
        // SAFETY: register operations and (with `PREFETCH`) gathers of
        // block `min(i + 1, m - 1) < m` (readable: caller); features are
        // the caller's.
        let (out, next) = unsafe { block_step::<V, G, MODE, NR>(&inp, st, key, fetch) };
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
unsafe fn block_step<V: Quad, const G: usize, const MODE: u8, const NR: usize>(
    inp: &[V; G],
    st: &mut [V; G],
    key: &impl Fn(usize, usize) -> V,
    fetch: Option<(&[[*const u8; 4]; G], usize)>,
) -> ([V; G], [V; G]) {
    // SAFETY: register operations, and gathers the caller vouches for;
    // features are the caller's.
    unsafe {
        let mut x = [V::zero(); G];
        let mut next = [V::zero(); G];
        for g in 0..G {
            // CBC: (P ^ k0) ^ C_prev, so only one XOR is on the chain.
            x[g] = if MODE == CBC_ENC {
                V::xor(V::xor(inp[g], key(g, 0)), st[g])
            } else {
                V::xor(st[g], key(g, 0))
            };
        }
        // A macro, not a closure: a closure does not inherit the kernel's
        // target features.
        macro_rules! round {
            ($r:expr) => {
                for g in 0..G {
                    x[g] = V::enc(x[g], key(g, $r));
                }
                for v in x.iter_mut() {
                    V::barrier(v);
                }
            };
        }
        round!(1);
        // The next block's gathers after round 1, outside the round loop
        // (inside it, LLVM stops unrolling the rounds).
        if let Some((src, off)) = fetch {
            for g in 0..G {
                next[g] = V::gather(&src[g], off);
            }
        }
        for r in 2..NR {
            round!(r);
        }
        let mut out = [V::zero(); G];
        for g in 0..G {
            x[g] = V::enc_last(x[g], key(g, NR));
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
