//! 256-bit helpers: AVX2 with VAES, two blocks per ymm register — the
//! vector AES of CPUs (or virtual machines) without AVX-512.
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

/// A block in both lanes of a register.
#[inline]
#[target_feature(enable = "avx2")]
pub fn splat(b: &[u8; 16]) -> __m256i {
    _mm256_broadcastsi128_si256(super::v128::load(b))
}

round_keys!("avx2", __m256i, broadcast_keys, _mm256_setzero_si256, splat);

load_store!(
    "avx2",
    __m256i,
    32,
    load32,
    store32,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_setzero_si256,
    _mm256_xor_si256
);

super::aes_rounds!(pub, "avx2,vaes", __m256i, _mm256_xor_si256,
    enc: _mm256_aesenc_epi128, _mm256_aesenclast_epi128,
    dec: _mm256_aesdec_epi128, _mm256_aesdeclast_epi128);

/// `a + b` on each 128-bit little-endian lane (carry from the low into the
/// high 64 bits), wrapping; branch-free (AVX2 has no unsigned 64-bit
/// compare: the operands are biased by 2^63 for a signed one).
#[inline]
#[target_feature(enable = "avx2")]
pub fn add128(a: __m256i, b: __m256i) -> __m256i {
    let s = _mm256_add_epi64(a, b);
    let bias = _mm256_set1_epi64x(i64::MIN);
    // All ones in each qword where s < b unsigned, i.e. the add carried.
    let lt = _mm256_cmpgt_epi64(_mm256_xor_si256(b, bias), _mm256_xor_si256(s, bias));
    // Only the low qword's carry counts, into the high qword: subtract −1.
    _mm256_sub_epi64(s, _mm256_bslli_epi128::<8>(lt))
}

/// `N` registers of consecutive big-endian counter blocks from `ctr`
/// (lane `j` of register `i` holds `ctr + 2i + j`, 128-bit wrapping).
/// Branch-free whatever the counter's value (the slow path of [`Ctr`]).
#[inline]
#[target_feature(enable = "avx2")]
pub fn counters<const N: usize>(ctr: u128, x: &mut [__m256i; N]) {
    let bswap = _mm256_broadcastsi128_si256(_mm_set_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    ));
    let b = ctr.wrapping_add(1);
    let base = _mm256_set_epi64x((b >> 64) as i64, b as i64, (ctr >> 64) as i64, ctr as i64);
    for (i, v) in x.iter_mut().enumerate() {
        let step = (2 * i) as i64;
        let c = add128(base, _mm256_set_epi64x(0, step, 0, step));
        *v = _mm256_shuffle_epi8(c, bswap);
    }
}

/// `m` — plus `j` in lane `j` if `by_lane` — added to the last byte of
/// each lane of counters in byte order (the top byte of its dword 3), no
/// carry.
#[inline]
#[target_feature(enable = "avx2")]
fn add_last_byte(v: __m256i, m: u32, by_lane: bool) -> __m256i {
    let d = |j: u32| (m.wrapping_add(j * u32::from(by_lane)) << 24) as i32;
    _mm256_add_epi32(v, _mm256_set_epi32(d(1), 0, 0, 0, d(0), 0, 0, 0))
}

/// `c` in both lanes, big-endian (byte order).
#[inline]
#[target_feature(enable = "avx2")]
fn in_byte_order(c: u128) -> __m256i {
    _mm256_broadcastsi128_si256(super::v128::load(&c.to_be_bytes()))
}

ctr_state!("avx2", __m256i, 2);

/// The register whose lanes are the blocks preceding those of `c`: lane 1
/// of `prev`, then lane 0 of `c`.
#[inline]
#[target_feature(enable = "avx2")]
pub fn preceding(c: __m256i, prev: __m256i) -> __m256i {
    _mm256_permute2x128_si256::<0x21>(prev, c)
}

xts_mul_alpha_pow!(
    "avx2",
    __m256i,
    xts_mul_alpha2,
    2,
    _mm256_slli_epi64,
    _mm256_srli_epi64,
    _mm256_bslli_epi128,
    _mm256_bsrli_epi128,
    _mm256_xor_si256
);

/// Two consecutive XTS tweaks from the first: lane `j` of the result is
/// `t`·α^(`p` + `j`), `t` in both lanes (see [`splat`]), `p` + 1 < 40; as
/// `v512::xts_tweaks_at` (per-lane shifts, no chain through earlier
/// tweaks).
#[inline]
#[target_feature(enable = "avx2")]
pub fn xts_tweaks_at(t: __m256i, p: u64) -> __m256i {
    debug_assert!(p + 1 < 40);
    let n = _mm256_add_epi64(_mm256_set1_epi64x(p as i64), _mm256_set_epi64x(1, 1, 0, 0));
    let shifted = _mm256_sllv_epi64(t, n);
    let out = _mm256_srlv_epi64(t, _mm256_sub_epi64(_mm256_set1_epi64x(64), n));
    // Bits out of qword 0 enter qword 1; those out of qword 1, moved to
    // qword 0, times 0x87.
    let into_hi = _mm256_bslli_epi128::<8>(out);
    let hi = _mm256_bsrli_epi128::<8>(out);
    let red = _mm256_xor_si256(
        _mm256_xor_si256(hi, _mm256_add_epi64(hi, hi)),
        _mm256_xor_si256(_mm256_slli_epi64::<2>(hi), _mm256_slli_epi64::<7>(hi)),
    );
    _mm256_xor_si256(_mm256_xor_si256(shifted, into_hi), red)
}

/// Each 128-bit lane of `t` (an XTS tweak, little-endian) times α^16: the
/// lane shifted left by two bytes, its top two bytes moved to the bottom
/// and times x^7 + x^2 + x + 1 (four shifted copies; the product fits in
/// the low qword). Nine instructions against the eleven of the bit-shift
/// form of `xts_mul_alpha_pow!`: the tweak update of the XTS loop competes
/// with its AES rounds for the vector ports.
#[inline]
#[target_feature(enable = "avx2")]
pub fn xts_mul_alpha16_bytes(t: __m256i) -> __m256i {
    let hi = _mm256_bsrli_epi128::<14>(t);
    let red = _mm256_xor_si256(
        _mm256_xor_si256(hi, _mm256_add_epi64(hi, hi)),
        _mm256_xor_si256(_mm256_slli_epi64::<2>(hi), _mm256_slli_epi64::<7>(hi)),
    );
    _mm256_xor_si256(_mm256_bslli_epi128::<2>(t), red)
}

/// As [`xts_mul_alpha16_bytes`] with the reduction a carry-less multiply
/// (`VPCLMULQDQ`): four instructions.
#[inline]
#[target_feature(enable = "avx2,vpclmulqdq")]
pub fn xts_mul_alpha16_clmul(t: __m256i) -> __m256i {
    let hi = _mm256_bsrli_epi128::<14>(t);
    let red = _mm256_clmulepi64_epi128::<0x00>(hi, _mm256_set1_epi64x(0x87));
    _mm256_xor_si256(_mm256_bslli_epi128::<2>(t), red)
}

round_barrier_fn!(__m256i, ymm_reg, "avx");

/// The round sequences with [`round_barrier`] after each middle round:
/// without it, with the round keys competing for the sixteen ymm registers,
/// LLVM ran the rounds a register or two at a time, all rounds each, which
/// leaves the AES units idle for most of their latency (the `vaes256`
/// kernel's CTR measured 16.5 -> 21.6 GB/s with it, AES-128 on Zen 4).
pub mod ordered {
    #![allow(clippy::missing_safety_doc)]
    use core::arch::x86_64::*;
    super::super::aes_rounds!(pub, "avx2,vaes", __m256i, _mm256_xor_si256,
        enc: _mm256_aesenc_epi128, _mm256_aesenclast_epi128,
        dec: _mm256_aesdec_epi128, _mm256_aesdeclast_epi128,
        barrier: super::round_barrier);
}
