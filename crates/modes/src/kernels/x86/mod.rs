//! x86-64 kernels: the shared body instantiated for 128-bit (AES-NI,
//! PCLMULQDQ, AVX), 256-bit (AVX2, VAES, VPCLMULQDQ) and 512-bit
//! (AVX-512F/BW, VAES, VPCLMULQDQ) registers,
//! and the hand-scheduled AES-NI fused GCM kernel (`aesni`), which replaces
//! the 128-bit body's fused kernel in production (that one stays as its test
//! reference).

/// The reduction constant (see `gcm::ghash`).
const GFPOLY: u128 = crate::gcm::ghash::GFPOLY;

/// `pshufb` mask reversing the 16 bytes of each lane.
const BSWAP: u128 = u128::from_le_bytes([15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);

#[macro_use]
mod body;

pub(super) mod aesni;

/// GHASH of at most 16 whole blocks (a trailing partial block is ignored)
/// into state `x` with 128-bit PCLMULQDQ: block i of n multiplies
/// H^(n−i), one Montgomery reduction (see `gcm::ghash`). For the few
/// blocks after the whole groups, and the one length block of every tag.
///
/// # Safety
/// The CPU has PCLMULQDQ and SSE4.1.
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) unsafe fn ghash_few(powers: &[u128; 16], x: u128, data: &[u8]) -> u128 {
    use core::arch::x86_64::*;
    let v = |x: u128| _mm_set_epi64x((x >> 64) as i64, x as i64);
    let blocks = data.as_chunks::<16>().0;
    let n = blocks.len();
    assert!(n <= 16);
    let z = _mm_setzero_si128();
    let (mut lo, mut mi, mut hi) = (z, z, z);
    for (i, b) in blocks.iter().enumerate() {
        let d = u128::from_be_bytes(*b) ^ if i == 0 { x } else { 0 };
        let (d, p) = (v(d), v(powers[16 - n + i]));
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(d, p));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(d, p));
        mi = _mm_xor_si128(mi, _mm_clmulepi64_si128::<0x01>(d, p));
        mi = _mm_xor_si128(mi, _mm_clmulepi64_si128::<0x10>(d, p));
    }
    if n == 0 {
        return x;
    }
    let gf = v(GFPOLY);
    let mi = _mm_xor_si128(
        _mm_xor_si128(mi, _mm_shuffle_epi32::<0x4e>(lo)),
        _mm_clmulepi64_si128::<0x10>(lo, gf),
    );
    let r = _mm_xor_si128(
        _mm_xor_si128(hi, _mm_shuffle_epi32::<0x4e>(mi)),
        _mm_clmulepi64_si128::<0x10>(mi, gf),
    );
    let lo = _mm_cvtsi128_si64(r) as u64 as u128;
    let hi = _mm_extract_epi64::<1>(r) as u64 as u128;
    (hi << 64) | lo
}

/// 128-bit registers: one block each, 8 registers per group.
pub(super) mod w128 {
    use core::arch::x86_64::*;

    type V = __m128i;
    const LANES: usize = 1;
    const REGS: usize = 8;

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn splat(x: u128) -> V {
        _mm_set_epi64x((x >> 64) as i64, x as i64)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn lanes(x: [u128; LANES]) -> V {
        splat(x[0])
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn to_u128(v: __m128i) -> u128 {
        let lo = _mm_cvtsi128_si64(v) as u64 as u128;
        let hi = _mm_extract_epi64::<1>(v) as u64 as u128;
        (hi << 64) | lo
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn from_u128(x: u128) -> __m128i {
        splat(x)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn hxor(v: V) -> __m128i {
        v
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn xor_lane0(v: V, x: __m128i) -> V {
        _mm_xor_si128(v, x)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn xor(a: V, b: V) -> V {
        _mm_xor_si128(a, b)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn add32(a: V, b: V) -> V {
        _mm_add_epi32(a, b)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn clmul<const IMM: i32>(a: V, b: V) -> V {
        _mm_clmulepi64_si128::<IMM>(a, b)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn swap(a: V) -> V {
        _mm_shuffle_epi32::<0x4e>(a)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn shuffle(a: V, m: V) -> V {
        _mm_shuffle_epi8(a, m)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn aesenc(a: V, k: V) -> V {
        _mm_aesenc_si128(a, k)
    }

    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    fn aesenclast(a: V, k: V) -> V {
        _mm_aesenclast_si128(a, k)
    }

    /// # Safety
    /// `p` must be valid for reading 16 bytes.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    unsafe fn load(p: *const u8) -> V {
        // SAFETY: guaranteed by the caller; unaligned load.
        unsafe { _mm_loadu_si128(p.cast()) }
    }

    /// # Safety
    /// `p` must be valid for writing 16 bytes.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,avx")]
    unsafe fn store(p: *mut u8, v: V) {
        // SAFETY: guaranteed by the caller; unaligned store.
        unsafe { _mm_storeu_si128(p.cast(), v) }
    }

    gcm_body!("aes,pclmulqdq,avx");
}

/// 256-bit registers (AVX2): two blocks each, 8 registers per group.
// Only the fused kernel is used: stand-alone GHASH (AAD, tails) of the
// 256-bit family runs the 128-bit PCLMULQDQ backend.
#[allow(dead_code)]
pub(super) mod w256 {
    use core::arch::x86_64::*;

    type V = __m256i;
    const LANES: usize = 2;
    const REGS: usize = 8;

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn x128(x: u128) -> __m128i {
        _mm_set_epi64x((x >> 64) as i64, x as i64)
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn splat(x: u128) -> V {
        _mm256_broadcastsi128_si256(x128(x))
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn lanes(x: [u128; LANES]) -> V {
        let h = |i: usize| (x[i] >> 64) as i64;
        let l = |i: usize| x[i] as i64;
        _mm256_set_epi64x(h(1), l(1), h(0), l(0))
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn to_u128(v: __m128i) -> u128 {
        let lo = _mm_cvtsi128_si64(v) as u64 as u128;
        let hi = _mm_extract_epi64::<1>(v) as u64 as u128;
        (hi << 64) | lo
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn from_u128(x: u128) -> __m128i {
        x128(x)
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn hxor(v: V) -> __m128i {
        _mm_xor_si128(
            _mm256_extracti128_si256::<0>(v),
            _mm256_extracti128_si256::<1>(v),
        )
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn xor_lane0(v: V, x: __m128i) -> V {
        _mm256_xor_si256(v, _mm256_inserti128_si256::<0>(_mm256_setzero_si256(), x))
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn xor(a: V, b: V) -> V {
        _mm256_xor_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn add32(a: V, b: V) -> V {
        _mm256_add_epi32(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn clmul<const IMM: i32>(a: V, b: V) -> V {
        _mm256_clmulepi64_epi128::<IMM>(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn swap(a: V) -> V {
        _mm256_shuffle_epi32::<0x4e>(a)
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn shuffle(a: V, m: V) -> V {
        _mm256_shuffle_epi8(a, m)
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn aesenc(a: V, k: V) -> V {
        _mm256_aesenc_epi128(a, k)
    }

    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    fn aesenclast(a: V, k: V) -> V {
        _mm256_aesenclast_epi128(a, k)
    }

    /// # Safety
    /// `p` must be valid for reading 32 bytes.
    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    unsafe fn load(p: *const u8) -> V {
        // SAFETY: guaranteed by the caller; unaligned load.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }

    /// # Safety
    /// `p` must be valid for writing 32 bytes.
    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq")]
    unsafe fn store(p: *mut u8, v: V) {
        // SAFETY: guaranteed by the caller; unaligned store.
        unsafe { _mm256_storeu_si256(p.cast(), v) }
    }

    gcm_body!("avx2,vaes,vpclmulqdq");
}

/// 512-bit registers: four blocks each, 4 registers per group.
pub(super) mod w512 {
    use core::arch::x86_64::*;

    type V = __m512i;
    const LANES: usize = 4;
    const REGS: usize = 4;

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn x128(x: u128) -> __m128i {
        _mm_set_epi64x((x >> 64) as i64, x as i64)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn splat(x: u128) -> V {
        _mm512_broadcast_i32x4(x128(x))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn lanes(x: [u128; LANES]) -> V {
        let h = |i: usize| (x[i] >> 64) as i64;
        let l = |i: usize| x[i] as i64;
        _mm512_set_epi64(h(3), l(3), h(2), l(2), h(1), l(1), h(0), l(0))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn to_u128(v: __m128i) -> u128 {
        let lo = _mm_cvtsi128_si64(v) as u64 as u128;
        let hi = _mm_extract_epi64::<1>(v) as u64 as u128;
        (hi << 64) | lo
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn from_u128(x: u128) -> __m128i {
        x128(x)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn hxor(v: V) -> __m128i {
        let a = _mm_xor_si128(
            _mm512_extracti32x4_epi32::<0>(v),
            _mm512_extracti32x4_epi32::<1>(v),
        );
        let b = _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(v),
            _mm512_extracti32x4_epi32::<3>(v),
        );
        _mm_xor_si128(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn xor_lane0(v: V, x: __m128i) -> V {
        _mm512_xor_si512(v, _mm512_inserti32x4::<0>(_mm512_setzero_si512(), x))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn xor(a: V, b: V) -> V {
        _mm512_xor_si512(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn add32(a: V, b: V) -> V {
        _mm512_add_epi32(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn clmul<const IMM: i32>(a: V, b: V) -> V {
        _mm512_clmulepi64_epi128::<IMM>(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn swap(a: V) -> V {
        _mm512_shuffle_epi32::<0x4e>(a)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn shuffle(a: V, m: V) -> V {
        _mm512_shuffle_epi8(a, m)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn aesenc(a: V, k: V) -> V {
        _mm512_aesenc_epi128(a, k)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    fn aesenclast(a: V, k: V) -> V {
        _mm512_aesenclast_epi128(a, k)
    }

    /// # Safety
    /// `p` must be valid for reading 64 bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    unsafe fn load(p: *const u8) -> V {
        // SAFETY: guaranteed by the caller; unaligned load.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }

    /// # Safety
    /// `p` must be valid for writing 64 bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq")]
    unsafe fn store(p: *mut u8, v: V) {
        // SAFETY: guaranteed by the caller; unaligned store.
        unsafe { _mm512_storeu_si512(p.cast(), v) }
    }

    gcm_body!("avx512f,avx512bw,vaes,vpclmulqdq");
}
