//! AES-NI kernel: up to 8 streams, one per xmm register, each with its own
//! round keys (read from the lane context as memory operands).
//!
//! Per block step every lane does: load its input block, form the cipher
//! input (CBC: `P ^ C_prev`; CFB/OFB: the chaining value), run the rounds,
//! form the output, store it. The rounds of the lanes are interleaved so
//! that 8 independent `AESENC`s cover the instruction's latency.

use super::Sched;
use super::{CBC_ENC, CFB_DEC, CFB_ENC, LaneCtx, OFB};
use core::arch::x86_64::*;

/// Byte offset of lane `l`'s round key `r` from the start of `ctx.keys`.
#[inline(always)]
const fn key_offset(l: usize, r: usize) -> usize {
    (l / 4) * (super::MAX_RK * 64) + r * 64 + (l % 4) * 16
}

/// Run `n` blocks on lanes `base..base + active` (`active` in 1..=8,
/// `base + active <= MAX_LANES`).
///
/// # Safety
/// The CPU must support AES-NI and SSE2. For every lane in
/// `base..base + active`,
/// `ctx.src[l]` must be valid for reads and `ctx.dst[l]` valid for writes of
/// `n * ctx.step[l]` bytes (16-byte blocks, or the same scratch block when
/// the step is 0), the round keys of the lane must be set for `nr` rounds,
/// and `nr` must be 10, 12 or 14.
pub(super) unsafe fn step(
    mode: u8,
    nr: usize,
    base: usize,
    active: usize,
    ctx: &mut LaneCtx,
    n: usize,
) {
    type K = unsafe fn(usize, usize, &mut LaneCtx, usize);
    macro_rules! table {
        ($m:expr, $nr:expr) => {
            [
                lanes::<1, $m, $nr> as K,
                lanes::<2, $m, $nr>,
                lanes::<3, $m, $nr>,
                lanes::<4, $m, $nr>,
                lanes::<5, $m, $nr>,
                lanes::<6, $m, $nr>,
                lanes::<7, $m, $nr>,
                lanes::<8, $m, $nr>,
            ]
        };
    }
    macro_rules! by_rounds {
        ($m:expr) => {
            match nr {
                10 => table!($m, 10),
                12 => table!($m, 12),
                14 => table!($m, 14),
                _ => unreachable!("AES has 10, 12 or 14 rounds"),
            }
        };
    }
    // Round count and mode are compile-time constants of each kernel, so the
    // rounds are fully unrolled.
    let table: [K; 8] = match mode {
        CBC_ENC => by_rounds!(CBC_ENC),
        CFB_ENC => by_rounds!(CFB_ENC),
        CFB_DEC => by_rounds!(CFB_DEC),
        OFB => by_rounds!(OFB),
        _ => unreachable!("unknown mode code"),
    };
    assert!((1..=8).contains(&active), "AES-NI kernel runs 1..=8 lanes");
    assert!(base + active <= super::MAX_LANES);
    // SAFETY: the caller's contract is exactly the contract of `lanes` with
    // N = active.
    unsafe { table[active - 1](nr, base, ctx, n) }
}

/// The kernel proper, for `N` lanes from `base` on, and one mode.
///
/// # Safety
/// As [`step`] with `active = N`.
#[target_feature(enable = "aes,sse2")]
unsafe fn lanes<const N: usize, const MODE: u8, const NR: usize>(
    nr: usize,
    base: usize,
    ctx: &mut LaneCtx,
    n: usize,
) {
    debug_assert_eq!(nr, NR);
    let nr = NR;
    let keys = ctx.keys.as_ptr() as *const u8;
    let mut src = [core::ptr::null::<u8>(); N];
    let mut dst = [core::ptr::null_mut::<u8>(); N];
    let mut stp = [0usize; N];
    let mut st = [_mm_setzero_si128(); N];
    let mut koff = [0usize; N];
    for l in 0..N {
        let lane = base + l;
        src[l] = ctx.src[lane];
        dst[l] = ctx.dst[lane];
        stp[l] = ctx.step[lane];
        koff[l] = key_offset(lane, 0);
        // SAFETY: the lane's chaining value is 16 bytes inside `ctx.state`
        // (lane < MAX_LANES so group lane/4 < MAX_GROUPS); unaligned load.
        st[l] = unsafe {
            _mm_loadu_si128(
                (ctx.state.as_ptr() as *const u8).add(64 * (lane / 4) + 16 * (lane % 4))
                    as *const __m128i,
            )
        };
    }
    // SAFETY: (every call) koff[l] + 64 * r = key_offset(lane, r) with
    // lane < MAX_LANES and r <= nr < 15 stays inside `ctx.keys` (MAX_GROUPS
    // * MAX_RK rows of 64 bytes), and each row is 64-byte aligned so the
    // 16-byte slot is 16-byte aligned.
    let rk = |l: usize, r: usize| unsafe {
        _mm_load_si128(keys.add(koff[l] + 64 * r) as *const __m128i)
    };
    for _ in 0..n {
        let mut x = [_mm_setzero_si128(); N];
        for l in 0..N {
            x[l] = if MODE == CBC_ENC {
                // SAFETY: the caller guarantees `n` blocks (or the stride-0
                // scratch block) are readable at `src[l]`; this is one.
                let p = unsafe { _mm_loadu_si128(src[l] as *const __m128i) };
                // (P ^ k0) ^ C_prev: only one XOR on the chain.
                _mm_xor_si128(_mm_xor_si128(p, rk(l, 0)), st[l])
            } else {
                _mm_xor_si128(st[l], rk(l, 0))
            };
        }
        for r in 1..nr {
            for l in 0..N {
                x[l] = _mm_aesenc_si128(x[l], rk(l, r));
            }
        }
        for l in 0..N {
            x[l] = _mm_aesenclast_si128(x[l], rk(l, nr));
            // CFB/OFB read their input only now (not kept in a register
            // across the rounds: 16 xmm registers are not enough for 8
            // lanes of both).
            // SAFETY: as above; read before this lane's store, so in-place
            // data is fine.
            let inp = unsafe { _mm_loadu_si128(src[l] as *const __m128i) };
            let out = if MODE == CBC_ENC {
                x[l]
            } else {
                _mm_xor_si128(x[l], inp)
            };
            // SAFETY: the caller guarantees `n` blocks (or the stride-0
            // scratch block) are writable at `dst[l]`.
            unsafe { _mm_storeu_si128(dst[l] as *mut __m128i, out) };
            st[l] = match MODE {
                CFB_ENC => out,
                CFB_DEC => inp,
                _ => x[l],
            };
            // `wrapping_add`: after the last block the pointer may be one
            // past the end, which is never dereferenced.
            src[l] = src[l].wrapping_add(stp[l]);
            dst[l] = dst[l].wrapping_add(stp[l]);
        }
    }
    for l in 0..N {
        let lane = base + l;
        ctx.src[lane] = src[l];
        ctx.dst[lane] = dst[l];
        // SAFETY: as for the load of the chaining value above.
        unsafe {
            _mm_storeu_si128(
                (ctx.state.as_mut_ptr() as *mut u8).add(64 * (lane / 4) + 16 * (lane % 4))
                    as *mut __m128i,
                st[l],
            )
        };
    }
}

/// Encrypt one block.
///
/// # Safety
/// The CPU must support AES-NI and SSE2.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn encrypt_block(keys: &Sched, block: &mut [u8; 16]) {
    let rk = keys.enc();
    let nr = keys.nr();
    // SAFETY: `block` is 16 readable bytes.
    let mut x = unsafe { _mm_loadu_si128(block.as_ptr() as *const __m128i) };
    // SAFETY: every `rk[r]` (r <= nr) is 16 readable bytes.
    let k = |r: usize| unsafe { _mm_loadu_si128(rk[r].as_ptr() as *const __m128i) };
    x = _mm_xor_si128(x, k(0));
    for r in 1..nr {
        x = _mm_aesenc_si128(x, k(r));
    }
    x = _mm_aesenclast_si128(x, k(nr));
    // SAFETY: `block` is 16 writable bytes.
    unsafe { _mm_storeu_si128(block.as_mut_ptr() as *mut __m128i, x) };
}

/// SubWord of a FIPS-197 word (bytes in little-endian order): with the word
/// in all four columns, ShiftRows is the identity, so `AESENCLAST` with a
/// zero round key is SubBytes.
///
/// # Safety
/// The CPU must support AES-NI and SSE2.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn sub_word(w: u32) -> u32 {
    let v = _mm_set1_epi32(w as i32);
    _mm_cvtsi128_si32(_mm_aesenclast_si128(v, _mm_setzero_si128())) as u32
}
