//! 512-bit helpers: AVX-512 with VAES, four blocks per zmm register.
//!
//! The non-AES helpers need only AVX-512F/BW, so the tests that emulate a
//! 512-bit AES round with four 128-bit ones (on CPUs without VAES) share
//! them; the round sequences [`enc_n`] / [`dec_n`] need VAES.
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

/// A block in all four lanes of a register (`VBROADCASTI32X4`).
#[inline]
#[target_feature(enable = "avx512f")]
pub fn splat(b: &[u8; 16]) -> __m512i {
    _mm512_broadcast_i32x4(super::v128::load(b))
}

round_keys!(
    "avx512f",
    __m512i,
    broadcast_keys,
    _mm512_setzero_si512,
    splat
);

load_store!(
    "avx512f",
    __m512i,
    64,
    load64,
    store64,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_setzero_si512,
    _mm512_xor_si512
);

/// The first `p.len()` (< 64) bytes of a register, rest zero.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub fn load_partial(p: &[u8]) -> __m512i {
    assert!(p.len() < 64);
    let mask: __mmask64 = (1u64 << p.len()) - 1;
    // SAFETY: only the bytes selected by `mask`, which lie inside `p`, are
    // accessed; masked-off bytes are neither read nor faulted on (AVX-512
    // fault suppression).
    unsafe { _mm512_maskz_loadu_epi8(mask, p.as_ptr().cast()) }
}

/// Store the first `p.len()` (< 64) bytes of `v` into `p`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub fn store_partial(p: &mut [u8], v: __m512i) {
    assert!(p.len() < 64);
    let mask: __mmask64 = (1u64 << p.len()) - 1;
    // SAFETY: only the bytes selected by `mask`, which lie inside `p`, are
    // written; masked-off bytes are untouched.
    unsafe { _mm512_mask_storeu_epi8(p.as_mut_ptr().cast(), mask, v) }
}

super::aes_rounds!(pub, "avx512f,vaes", __m512i, _mm512_xor_si512,
    enc: _mm512_aesenc_epi128, _mm512_aesenclast_epi128,
    dec: _mm512_aesdec_epi128, _mm512_aesdeclast_epi128);

/// `VPSHUFB` mask reversing the bytes of each 128-bit lane.
#[inline]
#[target_feature(enable = "avx512f")]
pub fn bswap_mask() -> __m512i {
    _mm512_broadcast_i32x4(_mm_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ))
}

/// `a + b` on each 128-bit little-endian lane (carry from the low into the
/// high 64 bits), wrapping; branch-free.
#[inline]
#[target_feature(enable = "avx512f")]
pub fn add128(a: __m512i, b: __m512i) -> __m512i {
    let s = _mm512_add_epi64(a, b);
    // Carry out of each low qword (even qword positions).
    let carry = _mm512_cmplt_epu64_mask(s, b) & 0x55;
    _mm512_mask_add_epi64(s, carry << 1, s, _mm512_set1_epi64(1))
}

/// `N` registers of consecutive counters from `ctr` (lane `j` of register
/// `i` holds `ctr + 4i + j`, 128-bit wrapping), big-endian. Branch-free
/// whatever the counter's value (the slow path of [`Ctr`]).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub fn counters<const N: usize>(ctr: u128, x: &mut [__m512i; N]) {
    let bswap = bswap_mask();
    let base = _mm512_broadcast_i32x4(_mm_set_epi64x((ctr >> 64) as i64, ctr as i64));
    let lanes = _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0);
    for (i, v) in x.iter_mut().enumerate() {
        let step = (4 * i) as i64;
        let off = _mm512_add_epi64(lanes, _mm512_set_epi64(0, step, 0, step, 0, step, 0, step));
        *v = _mm512_shuffle_epi8(add128(base, off), bswap);
    }
}

/// `m` — plus `j` in lane `j` if `by_lane` — added to the last byte of
/// each lane of counters in byte order (the top byte of its dword 3), no
/// carry.
#[inline]
#[target_feature(enable = "avx512f")]
fn add_last_byte(v: __m512i, m: u32, by_lane: bool) -> __m512i {
    let d = |j: u32| (m.wrapping_add(j * u32::from(by_lane)) << 24) as i32;
    _mm512_add_epi32(
        v,
        _mm512_set_epi32(d(3), 0, 0, 0, d(2), 0, 0, 0, d(1), 0, 0, 0, d(0), 0, 0, 0),
    )
}

/// `c` in every lane, big-endian (byte order).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn in_byte_order(c: u128) -> __m512i {
    _mm512_shuffle_epi8(
        _mm512_broadcast_i32x4(_mm_set_epi64x((c >> 64) as i64, c as i64)),
        bswap_mask(),
    )
}

ctr_state!("avx512f,avx512bw", __m512i, 4);

xts_mul_alpha_pow!(
    "avx512f,avx512bw",
    __m512i,
    xts_mul_alpha4,
    4,
    _mm512_slli_epi64,
    _mm512_srli_epi64,
    _mm512_bslli_epi128,
    _mm512_bsrli_epi128,
    _mm512_xor_si512
);

/// Four consecutive XTS tweaks from the first: lane `j` of the result is
/// `t`·α^(`p` + `j`), `t` in every lane (see [`splat`]), `p` + 3 < 40.
/// Each lane shifted left by its own count (`VPSLLVQ`), the bits out of
/// the top reduced with x^7 + x^2 + x + 1 (at most 39 bits: their product
/// with 0x87 fits in 64): nine instructions with no chain through earlier
/// tweaks, so a kernel's start-up tweak registers are all one short
/// dependency away from `t`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub fn xts_tweaks_at(t: __m512i, p: u64) -> __m512i {
    debug_assert!(p + 3 < 40);
    let n = _mm512_add_epi64(
        _mm512_set1_epi64(p as i64),
        _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0),
    );
    let shifted = _mm512_sllv_epi64(t, n);
    let out = _mm512_srlv_epi64(t, _mm512_sub_epi64(_mm512_set1_epi64(64), n));
    // Bits out of qword 0 enter qword 1; those out of qword 1, moved to
    // qword 0, times 0x87.
    let into_hi = _mm512_bslli_epi128::<8>(out);
    let hi = _mm512_bsrli_epi128::<8>(out);
    let red = _mm512_ternarylogic_epi64::<0x96>(
        hi,
        _mm512_slli_epi64::<1>(hi),
        _mm512_slli_epi64::<2>(hi),
    );
    _mm512_ternarylogic_epi64::<0x96>(
        shifted,
        into_hi,
        _mm512_xor_si512(red, _mm512_slli_epi64::<7>(hi)),
    )
}

/// Each 128-bit lane of `t` (an XTS tweak, little-endian) times α^`8·B`
/// for a whole number of bytes `B` (1, 2 or 4; `TOP` = 16 − `B`): the lane
/// shifted left by `B` bytes, and its top `B` bytes, moved to the bottom, times x^7 + x^2 + x +
/// 1 (four shifted copies: the product fits in the low qword). Seven
/// instructions, two of them three-way XORs — cheaper than the bit-shift
/// form of [`xts_mul_alpha4`], and the tweak update of the XTS loop competes
/// with its AES rounds for the vector ports.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub fn xts_mul_alpha_bytes<const B: i32, const TOP: i32>(t: __m512i) -> __m512i {
    let shifted = _mm512_bslli_epi128::<B>(t);
    let hi = _mm512_bsrli_epi128::<TOP>(t);
    let a = _mm512_ternarylogic_epi64::<0x96>(shifted, hi, _mm512_slli_epi64::<1>(hi));
    _mm512_ternarylogic_epi64::<0x96>(a, _mm512_slli_epi64::<2>(hi), _mm512_slli_epi64::<7>(hi))
}

/// As [`xts_mul_alpha_bytes`] with the reduction a carry-less multiply
/// (`VPCLMULQDQ`) and one byte shuffle instead of two (beside the XTS
/// loop's AES rounds on Zen 5 the byte shuffles are what costs: the loop
/// ran no faster with the multiply left out, and faster with this form
/// than with two shuffles). The lane rotated left by `B` bytes
/// (`VPALIGNR`) is t·x^(8B) with the top `B` bytes wrapped to the bottom,
/// i.e. their product with 1 already in place; their product with x^7 +
/// x^2 + x (0x86) comes from the high qword shifted down by a per-qword
/// shift (`VPSRLQ`, which leaves them alone in it) and selected by the
/// multiply. Four instructions.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
pub fn xts_mul_alpha_bytes_clmul<const B: i32, const TOP: i32>(t: __m512i) -> __m512i {
    const { assert!(TOP == 16 - B) };
    let (rot, top) = match B {
        1 => (_mm512_alignr_epi8::<15>(t, t), _mm512_srli_epi64::<56>(t)),
        2 => (_mm512_alignr_epi8::<14>(t, t), _mm512_srli_epi64::<48>(t)),
        4 => (_mm512_alignr_epi8::<12>(t, t), _mm512_srli_epi64::<32>(t)),
        _ => unreachable!("B is 1, 2 or 4"),
    };
    let red = _mm512_clmulepi64_epi128::<0x01>(top, _mm512_set1_epi64(0x86));
    _mm512_xor_si512(rot, red)
}

round_barrier_fn!(__m512i, zmm_reg, "avx512f");
