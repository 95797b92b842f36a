//! 128-bit helpers: AES-NI on xmm registers, one block per register.
//!
//! # Safety
//!
//! Every function here is safe to call from code compiled with its target
//! features; from anywhere else it is `unsafe`, and the caller must have
//! checked that the CPU has those features ([`features`](crate::cpu::features)).

// The shared `# Safety` section above covers every function of the module.
#![allow(clippy::missing_safety_doc)]

use super::MAX_ROUND_KEYS;
use core::arch::x86_64::*;

load_store!(
    "sse2",
    __m128i,
    16,
    load_at,
    store_at,
    _mm_loadu_si128,
    _mm_storeu_si128,
    _mm_setzero_si128,
    _mm_xor_si128
);

/// A block as a register.
#[inline]
#[target_feature(enable = "sse2")]
pub fn load(b: &[u8; 16]) -> __m128i {
    load_at(b)
}

/// A register into a block.
#[inline]
#[target_feature(enable = "sse2")]
pub fn store(b: &mut [u8; 16], v: __m128i) {
    store_at(b, v)
}

round_keys!("sse2", __m128i, load_keys, _mm_setzero_si128, load);

/// A scheduling barrier: an empty `asm!` that LLVM must keep in program
/// order with the other barriers, so round `r` of every block in flight is
/// issued before round `r + 1` of any. Without it LLVM runs each block's
/// whole round chain in turn (one dependent `AESENC` after another), which
/// leaves the AES unit idle for most of its latency, worst with 14 rounds.
#[inline(always)]
pub fn round_barrier<const N: usize>(x: &mut [__m128i; N]) {
    for v in x.iter_mut() {
        // SAFETY: an empty instruction sequence that reads and writes one
        // xmm register in place; it touches no memory, stack or flags.
        unsafe {
            core::arch::asm!(
                "/* {0} */",
                inout(xmm_reg) * v,
                options(nomem, nostack, preserves_flags)
            );
        }
    }
}

super::aes_rounds!(pub, "aes,sse2", __m128i, _mm_xor_si128,
    enc: _mm_aesenc_si128, _mm_aesenclast_si128,
    dec: _mm_aesdec_si128, _mm_aesdeclast_si128,
    barrier: round_barrier);

/// `VPSHUFB` mask reversing the 16 bytes of a register.
#[inline]
#[target_feature(enable = "sse2")]
pub fn bswap_mask() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// `N` consecutive counter blocks `ctr + i` (128-bit, wrapping), big-endian.
/// Branch-free whatever the counter's value (every call of [`Ctr`]):
/// block `i` carries into the high half iff `i ≥ 2^64 − lo`, i.e. iff
/// `i ≥ m` with `m = min(2^64 − lo, N)` computed arithmetically, and the
/// carry is added with a vector compare and mask.
#[inline]
#[target_feature(enable = "sse2,ssse3")]
pub fn counters<const N: usize>(ctr: u128, x: &mut [__m128i; N]) {
    let bswap = bswap_mask();
    let base = _mm_set_epi64x((ctr >> 64) as i64, ctr as i64);
    // d = 2^64 − lo as a u64 (0 meaning 2^64); m = N where d = 0 or d > N.
    let d = 0u64.wrapping_sub(ctr as u64);
    let big = u64::from(d.wrapping_sub(1) >= N as u64);
    let m = big * N as u64 + (1 - big) * d;
    let mv = _mm_set1_epi32(m as i32);
    let one_hi = _mm_set_epi32(0, 1, 0, 0);
    for (i, v) in x.iter_mut().enumerate() {
        let c = _mm_add_epi64(base, _mm_set_epi64x(0, i as i64));
        // i ≥ m  ⇔  i + 1 > m.
        let carry = _mm_and_si128(_mm_cmpgt_epi32(_mm_set1_epi32(i as i32 + 1), mv), one_hi);
        *v = _mm_shuffle_epi8(_mm_add_epi64(c, carry), bswap);
    }
}

ctr_state!("sse2,ssse3", __m128i, 1, branch_free);
