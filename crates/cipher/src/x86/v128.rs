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

/// The round keys as registers (only `0..=Nr` are meaningful).
pub type Keys = [__m128i; MAX_ROUND_KEYS];

/// A block as a register.
#[inline]
#[target_feature(enable = "sse2")]
pub fn load(b: &[u8; 16]) -> __m128i {
    // SAFETY: `b` is 16 readable bytes and `loadu` has no alignment
    // requirement; `sse2` is enabled on this function.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// A register into a block.
#[inline]
#[target_feature(enable = "sse2")]
pub fn store(b: &mut [u8; 16], v: __m128i) {
    // SAFETY: `b` is 16 writable bytes and `storeu` has no alignment
    // requirement; `sse2` is enabled on this function.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
}

/// The first 16 bytes of `p` (at least 16 long).
#[inline]
#[target_feature(enable = "sse2")]
pub fn load_at(p: &[u8]) -> __m128i {
    assert!(p.len() >= 16);
    // SAFETY: just checked that 16 bytes are readable; unaligned load.
    unsafe { _mm_loadu_si128(p.as_ptr().cast()) }
}

/// Store to the first 16 bytes of `p` (at least 16 long).
#[inline]
#[target_feature(enable = "sse2")]
pub fn store_at(p: &mut [u8], v: __m128i) {
    assert!(p.len() >= 16);
    // SAFETY: just checked that 16 bytes are writable; unaligned store.
    unsafe { _mm_storeu_si128(p.as_mut_ptr().cast(), v) }
}

/// The round keys `rk` (at most 15) into registers.
#[inline]
#[target_feature(enable = "sse2")]
pub fn load_keys(rk: &[[u8; 16]]) -> Keys {
    let mut k = [_mm_setzero_si128(); MAX_ROUND_KEYS];
    for (d, s) in k.iter_mut().zip(rk) {
        *d = load(s);
    }
    k
}

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

/// Encrypt `N` blocks held in registers (AES-`NR`), rounds interleaved
/// across blocks.
#[inline]
#[target_feature(enable = "aes,sse2")]
pub fn enc_n<const NR: usize, const N: usize>(x: &mut [__m128i; N], k: &Keys) {
    for v in x.iter_mut() {
        *v = _mm_xor_si128(*v, k[0]);
    }
    for kr in &k[1..NR] {
        for v in x.iter_mut() {
            *v = _mm_aesenc_si128(*v, *kr);
        }
        round_barrier(x);
    }
    for v in x.iter_mut() {
        *v = _mm_aesenclast_si128(*v, k[NR]);
    }
}

/// Decrypt `N` blocks held in registers with the equivalent inverse
/// cipher's keys (FIPS-197 §5.3.5), in decryption order.
#[inline]
#[target_feature(enable = "aes,sse2")]
pub fn dec_n<const NR: usize, const N: usize>(x: &mut [__m128i; N], k: &Keys) {
    for v in x.iter_mut() {
        *v = _mm_xor_si128(*v, k[0]);
    }
    for kr in &k[1..NR] {
        for v in x.iter_mut() {
            *v = _mm_aesdec_si128(*v, *kr);
        }
        round_barrier(x);
    }
    for v in x.iter_mut() {
        *v = _mm_aesdeclast_si128(*v, k[NR]);
    }
}

/// Encrypt or decrypt (`DEC`) `N` blocks in registers.
#[inline]
#[target_feature(enable = "aes,sse2")]
pub fn crypt_n<const NR: usize, const N: usize, const DEC: bool>(x: &mut [__m128i; N], k: &Keys) {
    if DEC {
        dec_n::<NR, N>(x, k)
    } else {
        enc_n::<NR, N>(x, k)
    }
}

/// `VPSHUFB` mask reversing the 16 bytes of a register.
#[inline]
#[target_feature(enable = "sse2")]
pub fn bswap_mask() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// `N` consecutive counter blocks `ctr + i` (128-bit, wrapping), big-endian.
/// Branch-free: the carry into the high half is an `adc`, whatever the
/// counter's value (which may derive from a key).
#[inline]
#[target_feature(enable = "sse2,ssse3")]
pub fn counters<const N: usize>(ctr: u128, x: &mut [__m128i; N]) {
    let bswap = bswap_mask();
    for (i, v) in x.iter_mut().enumerate() {
        let c = ctr.wrapping_add(i as u128);
        *v = _mm_shuffle_epi8(_mm_set_epi64x((c >> 64) as i64, c as i64), bswap);
    }
}

/// The XTS tweak times α (IEEE 1619 §5.2, little-endian: bit 127 carries
/// into the constant 0x87 in byte 0), branch-free.
#[inline]
#[target_feature(enable = "sse2")]
pub fn xts_double(t: __m128i) -> __m128i {
    // Each 64-bit half shifted left by one; bit 63 moves into bit 64 and
    // bit 127 is reduced into byte 0 with 0x87. Dwords [t3, t3, t1, t1]
    // sign-extended give the masks.
    let hi_bits = _mm_srai_epi32::<31>(_mm_shuffle_epi32::<0x5f>(t));
    let mask = _mm_and_si128(hi_bits, _mm_set_epi32(0, 1, 0, 0x87));
    _mm_xor_si128(_mm_add_epi64(t, t), mask)
}
