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

round_barrier_fn!(__m128i, xmm_reg);

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
/// Branch-free whatever the counter's value (every call of [`Ctr`]): each
/// block's counter is a 128-bit add on general-purpose registers (add with
/// carry: the integer ports are idle beside the AES rounds), moved into a
/// register and byte-swapped.
#[inline]
#[target_feature(enable = "sse2,ssse3")]
pub fn counters<const N: usize>(ctr: u128, x: &mut [__m128i; N]) {
    let bswap = bswap_mask();
    for (i, v) in x.iter_mut().enumerate() {
        let c = ctr.wrapping_add(i as u128);
        *v = _mm_shuffle_epi8(_mm_set_epi64x((c >> 64) as i64, c as i64), bswap);
    }
}

ctr_state!("sse2,ssse3", __m128i, 1, branch_free);
