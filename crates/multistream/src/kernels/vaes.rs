//! VAES kernel: up to 8 zmm registers in flight, four streams per register
//! (one per 128-bit lane), so up to 32 streams. Every 128-bit lane has its
//! own round keys: round key `r` of a group is the 64-byte row
//! `ctx.keys[group][r]`, built by the scheduler from the four streams' keys
//! (rebuilt when a lane is refilled) and used as a memory operand.
//!
//! Blocks are gathered from the four streams' buffers with one 128-bit load
//! and three `VINSERTI32X4`s, and scattered back with `VEXTRACTI32X4`
//! stores.

use super::{CBC_ENC, CFB_DEC, CFB_ENC, LaneCtx, OFB};
use core::arch::x86_64::*;

/// Run `n` blocks on groups `0..groups` (1..=8) of four lanes.
///
/// # Safety
/// The CPU must support AVX-512F and VAES. For every lane of the groups,
/// `ctx.src[l]` must be valid for reads and `ctx.dst[l]` valid for writes of
/// `n * ctx.step[l]` bytes (16-byte blocks, or the same scratch block when
/// the step is 0), its round keys must be set for `nr` rounds, and `nr`
/// must be 10, 12 or 14.
pub(super) unsafe fn step(mode: u8, nr: usize, groups: usize, ctx: &mut LaneCtx, n: usize) {
    type K = unsafe fn(usize, &mut LaneCtx, usize);
    macro_rules! table {
        ($m:expr) => {
            [
                groups_kernel::<1, $m> as K,
                groups_kernel::<2, $m>,
                groups_kernel::<3, $m>,
                groups_kernel::<4, $m>,
                groups_kernel::<5, $m>,
                groups_kernel::<6, $m>,
                groups_kernel::<7, $m>,
                groups_kernel::<8, $m>,
            ]
        };
    }
    let table: [K; 8] = match mode {
        CBC_ENC => table!(CBC_ENC),
        CFB_ENC => table!(CFB_ENC),
        CFB_DEC => table!(CFB_DEC),
        OFB => table!(OFB),
        _ => unreachable!("unknown mode code"),
    };
    assert!((1..=8).contains(&groups), "VAES kernel runs 1..=8 groups");
    // SAFETY: the caller's contract is exactly the contract of
    // `groups_kernel` with G = groups.
    unsafe { table[groups - 1](nr, ctx, n) }
}

/// Gather one block from each of four pointers into a zmm register.
///
/// # Safety
/// AVX-512F; each pointer readable for 16 bytes.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather(p: &[*const u8; 4]) -> __m512i {
    // SAFETY: each pointer is readable for 16 bytes (caller).
    unsafe {
        let v = _mm512_castsi128_si512(_mm_loadu_si128(p[0] as *const __m128i));
        let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(p[1] as *const __m128i));
        let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(p[2] as *const __m128i));
        _mm512_inserti32x4::<3>(v, _mm_loadu_si128(p[3] as *const __m128i))
    }
}

/// Scatter a zmm register's four blocks to four pointers.
///
/// # Safety
/// AVX-512F; each pointer writable for 16 bytes.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn scatter(p: &[*mut u8; 4], v: __m512i) {
    // SAFETY: each pointer is writable for 16 bytes (caller).
    unsafe {
        _mm_storeu_si128(p[0] as *mut __m128i, _mm512_castsi512_si128(v));
        _mm_storeu_si128(p[1] as *mut __m128i, _mm512_extracti32x4_epi32::<1>(v));
        _mm_storeu_si128(p[2] as *mut __m128i, _mm512_extracti32x4_epi32::<2>(v));
        _mm_storeu_si128(p[3] as *mut __m128i, _mm512_extracti32x4_epi32::<3>(v));
    }
}

/// The kernel proper, for `G` groups and one mode.
///
/// # Safety
/// As [`step`] with `groups = G`.
#[target_feature(enable = "avx512f,vaes,aes")]
unsafe fn groups_kernel<const G: usize, const MODE: u8>(nr: usize, ctx: &mut LaneCtx, n: usize) {
    debug_assert!(matches!(nr, 10 | 12 | 14));
    let mut src = [[core::ptr::null::<u8>(); 4]; G];
    let mut dst = [[core::ptr::null_mut::<u8>(); 4]; G];
    let mut stp = [[0usize; 4]; G];
    let mut st = [_mm512_setzero_si512(); G];
    for g in 0..G {
        for j in 0..4 {
            src[g][j] = ctx.src[4 * g + j];
            dst[g][j] = ctx.dst[4 * g + j];
            stp[g][j] = ctx.step[4 * g + j];
        }
        // SAFETY: `ctx.state[g]` (g < 8) is 64 aligned, readable bytes.
        st[g] = unsafe { _mm512_load_si512(ctx.state[g].0.as_ptr() as *const __m512i) };
    }
    let keys = &ctx.keys;
    for _ in 0..n {
        let mut inp = [_mm512_setzero_si512(); G];
        let mut x = [_mm512_setzero_si512(); G];
        for g in 0..G {
            // SAFETY: the caller guarantees `n` blocks (or the stride-0
            // scratch block) are readable at each lane pointer.
            inp[g] = unsafe { gather(&src[g]) };
            // SAFETY: each key row is 64 aligned, readable bytes.
            let k0 = unsafe { _mm512_load_si512(keys[g][0].0.as_ptr() as *const __m512i) };
            // CBC: (P ^ k0) ^ C_prev, so only one XOR is on the chain.
            x[g] = if MODE == CBC_ENC {
                _mm512_xor_si512(_mm512_xor_si512(inp[g], k0), st[g])
            } else {
                _mm512_xor_si512(st[g], k0)
            };
        }
        for r in 1..nr {
            for g in 0..G {
                // SAFETY: r < nr < 15 = MAX_RK; the row is 64 aligned bytes.
                let k = unsafe { _mm512_load_si512(keys[g][r].0.as_ptr() as *const __m512i) };
                x[g] = _mm512_aesenc_epi128(x[g], k);
            }
        }
        for g in 0..G {
            // SAFETY: nr < 15 = MAX_RK; the row is 64 aligned bytes.
            let k = unsafe { _mm512_load_si512(keys[g][nr].0.as_ptr() as *const __m512i) };
            x[g] = _mm512_aesenclast_epi128(x[g], k);
            let out = if MODE == CBC_ENC {
                x[g]
            } else {
                _mm512_xor_si512(x[g], inp[g])
            };
            // SAFETY: the caller guarantees `n` blocks (or the stride-0
            // scratch block) are writable at each lane pointer; this
            // group's inputs were all loaded above (in-place is fine).
            unsafe { scatter(&dst[g], out) };
            st[g] = match MODE {
                CFB_ENC => out,
                CFB_DEC => inp[g],
                _ => x[g],
            };
            for j in 0..4 {
                // One past the end after the last block: never dereferenced.
                src[g][j] = src[g][j].wrapping_add(stp[g][j]);
                dst[g][j] = dst[g][j].wrapping_add(stp[g][j]);
            }
        }
    }
    for g in 0..G {
        for j in 0..4 {
            ctx.src[4 * g + j] = src[g][j];
            ctx.dst[4 * g + j] = dst[g][j];
        }
        // SAFETY: `ctx.state[g]` is 64 aligned, writable bytes.
        unsafe { _mm512_store_si512(ctx.state[g].0.as_mut_ptr() as *mut __m512i, st[g]) };
    }
}
