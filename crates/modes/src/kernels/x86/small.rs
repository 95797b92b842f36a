//! A whole short or middle-sized GCM message in one function on AVX-512
//! (VAES + VPCLMULQDQ on zmm registers): `Gcm::one_shot`'s path for texts
//! of at most [`MAX_TEXT`] bytes and an AAD of at most [`MAX_AAD`] bytes (a
//! longer AAD hashed first, its state passed in) with the `vaes` kernels.
//!
//! Everything stays in registers (nothing secret is spilled to the stack):
//! the round keys broadcast from the cipher's schedule in each chunk where
//! its rounds use them, the counter blocks built from J0 (reflected, so a
//! dword add is `inc32`), the text in chunks of 32 blocks (8 registers:
//! eight independent AES chains, which a core starting two 512-bit
//! `VAESENC` per cycle needs and one starting one does not mind; the last
//! chunks of 4 registers or fewer; whole registers loaded and stored
//! plainly, a last partial one with a byte mask, so a partial block needs
//! no buffer; the text XORed into the last round key), and `E(J0)` last,
//! a 128-bit AES chain beside the last GHASH products. The GHASH of
//! the AAD (one masked register), of every ciphertext block and of the
//! length block is aggregated per *segment* of [`SEGMENT`] text blocks —
//! stream position i of a segment of T multiplies H^(T−i) (Karatsuba,
//! powers loaded from the key, the lanes past the end masked off) — with
//! one Montgomery reduction per segment (one for a message of up to 1 KiB),
//! the state carried into the next segment as one more product. Each
//! chunk's products are computed after its rounds, from the ciphertext
//! just written (encryption) or the input just loaded (decryption), so the
//! carry-less multiplications of one chunk run beside the AES rounds of
//! the next: no chunk waits for another.

use super::{BSWAP, POWERS, from_u128, to_u128};
use core::arch::x86_64::*;

/// The longest text: 4 KiB. Up to there one function is faster than the
/// fused kernels' groups, whose fixed costs (a pipeline of groups to fill
/// and drain; calls for the AAD, the groups and the last blocks) weigh on
/// a few groups; at 8 KiB the groups' interleaved GHASH is faster (on a
/// Zen 5, AES-128 and AES-256, seal and open).
pub(crate) const MAX_TEXT: usize = 4 * 1024;
/// Text blocks per reduction: with an AAD of up to 4 blocks, the state
/// carried in and the length block, a segment hashes at most POWERS
/// blocks; whole chunks of 8 registers.
const SEGMENT: usize = 64;
const _: () = assert!(4 + SEGMENT < POWERS && SEGMENT.is_multiple_of(32));
/// The longest AAD hashed here (one register); a longer one is hashed first.
pub(crate) const MAX_AAD: usize = 64;

/// The NR + 1 round keys of a call, in memory (the cipher's schedule).
#[derive(Clone, Copy)]
struct Keys(*const [u8; 16]);

impl Keys {
    /// The same pointer, through an empty `asm!`: LLVM cannot tell that
    /// loads through it read what loads through the original read, so it
    /// does not keep the keys of one chunk live into the next.
    #[inline]
    fn opaque(self) -> Keys {
        let mut a = self.0.addr();
        // SAFETY: the template is a comment: no instruction, no memory.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) a, options(nomem, nostack, preserves_flags))
        };
        Keys(self.0.with_addr(a))
    }

    /// The same pointer, through `after`: a key loaded through it is loaded
    /// after `v` is computed (in program order), so LLVM does not load a
    /// chunk's keys all at its start and spill them.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn after(self, v: &__m512i) -> Keys {
        Keys(after(self.0, v))
    }

    /// Round key `i` in every lane.
    ///
    /// # Safety
    /// `i` ≤ NR of the call (the keys are NR + 1).
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn get(self, i: usize) -> __m512i {
        // SAFETY: key i lies within the schedule (caller).
        _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(self.0.add(i).cast()) })
    }
}

/// `p`, through an empty `asm!` that also takes `v` in a register: a load
/// through the result is placed after `v` is computed (in program order).
#[inline]
#[target_feature(enable = "avx512f")]
fn after<T>(p: *const T, v: &__m512i) -> *const T {
    let mut a = p.addr();
    // SAFETY: the template is a comment: no instruction, no memory.
    unsafe {
        core::arch::asm!("/* {0} {1} */", inout(reg) a, in(zmm_reg) *v, options(nomem, nostack, preserves_flags))
    };
    p.with_addr(a)
}

/// The sums through an empty `asm!` (in registers): their computation
/// cannot move past this point, nor their later uses before it.
#[inline]
#[target_feature(enable = "avx512f")]
fn pin(s: &mut Sums) {
    // SAFETY: the template is a comment: no instruction, no memory.
    unsafe {
        core::arch::asm!(
            "/* {0} {1} {2} */",
            inout(zmm_reg) s.0,
            inout(zmm_reg) s.1,
            inout(zmm_reg) s.2,
            options(nomem, nostack, preserves_flags)
        )
    };
}

/// Unreduced GHASH sums (lo, mid, hi), lane by lane.
type Sums = (__m512i, __m512i, __m512i);

/// The first `n` (≤ 64) bytes as a mask.
#[inline]
fn byte_mask(n: usize) -> __mmask64 {
    if n >= 64 { !0 } else { (1u64 << n) - 1 }
}

/// The products of the reflected blocks `d` at stream positions `i ..
/// i + v` (`v` of the 4 lanes in use, the rest zero) by H^(T−i)..,
/// added to `s`; `first` is the powers index of stream position 0.
///
/// # Safety
/// `first + i + v ≤ POWERS` (the lanes past `v` are masked off).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,avx512f,avx512bw,vaes,vpclmulqdq")]
unsafe fn products(
    (powers, hk): (&[u128; POWERS], &[u128; POWERS]),
    first: usize,
    i: usize,
    v: usize,
    d: __m512i,
    s: Sums,
) -> Sums {
    // The callers' positions lie within a segment of at most POWERS blocks
    // (`SEGMENT`, checked at compile time, and `one_shot`'s entry
    // asserts); checked again in debug builds only: a panic path here
    // would be a call in the chunks' loop, across which LLVM spills every
    // vector register live (the GHASH state among them) to the stack.
    debug_assert!((1..=4).contains(&v) && first + i + v <= POWERS);
    let m = (0xffu16 >> (8 - 2 * v)) as __mmask8;
    // SAFETY: lanes 0..v are powers[first + i .. first + i + v], within
    // the arrays (caller); the lanes past them are neither read nor
    // faulted on (masked).
    let (p, k) = unsafe {
        let (pp, kp) = (powers.as_ptr().add(first + i), hk.as_ptr().add(first + i));
        // Loaded after `d` (in program order): LLVM does not load a
        // chunk's powers before its rounds and spill them.
        let (pp, kp) = (after(pp, &d), after(kp, &d));
        if v == 4 {
            (_mm512_loadu_si512(pp.cast()), _mm512_loadu_si512(kp.cast()))
        } else {
            (
                _mm512_maskz_loadu_epi64(m, pp.cast()),
                _mm512_maskz_loadu_epi64(m, kp.cast()),
            )
        }
    };
    let dk = _mm512_xor_si512(d, _mm512_shuffle_epi32::<0x4e>(d));
    (
        _mm512_xor_si512(s.0, _mm512_clmulepi64_epi128::<0x00>(d, p)),
        _mm512_xor_si512(s.1, _mm512_clmulepi64_epi128::<0x00>(dk, k)),
        _mm512_xor_si512(s.2, _mm512_clmulepi64_epi128::<0x11>(d, p)),
    )
}

/// One chunk of `R` (1..=8) registers (4·R blocks, from text block `b0`): AES-CTR
/// from the reflected counters `ctr` (advanced by 4·R), XORed with the text
/// read at `src` and written at `dst` (`len` bytes left from `b0` on: a
/// last register past them loaded and stored with a byte mask), and the
/// GHASH products of the ciphertext (at stream position `pos`) added to
/// `s`; returns the sums.
///
/// # Safety
/// `src` readable and `dst` writable for `min(len, 64·R)` bytes (the same
/// pointer, or not overlapping); the powers as `products`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,avx512f,avx512bw,vaes,vpclmulqdq")]
#[allow(clippy::too_many_arguments)]
unsafe fn chunk<const NR: usize, const R: usize, const ENC: bool>(
    rk: Keys,
    key: (&[u128; POWERS], &[u128; POWERS]),
    (first, pos): (usize, usize),
    ctr: &mut __m512i,
    (src, dst, len): (*const u8, *mut u8, usize),
    mut s: Sums,
) -> Sums {
    const { assert!(R >= 1 && R <= 8) };
    let mask = _mm512_broadcast_i32x4(from_u128(BSWAP));
    let step = _mm512_broadcast_i32x4(_mm_set_epi32(0, 0, 0, 4));
    // The round keys broadcast from memory where each round uses them (LLVM
    // cannot hoist them out of the chunk: `Keys::opaque`), so they do not
    // stay in registers across chunks, which for 13 or 15 keys spilled
    // copies of them to the stack.
    let rk = rk.opaque();
    // SAFETY: every use has i ≤ NR; `rk` holds NR + 1 keys (caller).
    let k = |i: usize| unsafe { rk.get(i) };
    let mut st = [_mm512_setzero_si512(); R];
    for sr in st.iter_mut() {
        *sr = _mm512_xor_si512(_mm512_shuffle_epi8(*ctr, mask), k(0));
        *ctr = _mm512_add_epi32(*ctr, step);
    }
    // Register r of the text: a plain load if whole, else masked (zeroes
    // past `len`, and the masked-off bytes are neither read nor faulted on).
    let partial = len < 64 * R;
    let last = byte_mask(len - 64 * (R - 1));
    let load = |r: usize| {
        // SAFETY: the bytes read lie within the caller's `len`.
        unsafe {
            if r + 1 == R && partial {
                _mm512_maskz_loadu_epi8(last, src.add(64 * r).cast())
            } else {
                _mm512_loadu_si512(src.add(64 * r).cast())
            }
        }
    };
    let lanes = |r: usize| (len - 64 * r).div_ceil(16).min(4);
    for i in 1..NR {
        // SAFETY: i < NR; `rk` holds NR + 1 keys (caller).
        let ki = unsafe { rk.after(&st[0]).get(i) };
        for sr in st.iter_mut() {
            *sr = _mm512_aesenc_epi128(*sr, ki);
        }
    }
    let kl = k(NR);
    // Unrolled (a loop over eight registers would keep the state on the
    // stack): whole registers with plain stores and four lanes of products,
    // the last one perhaps partial.
    unrolled!(I in 0 1 2 3 4 5 6 7 => {
        if I < R {
            // aesenclast(s, k ⊕ t) = aesenclast(s, k) ⊕ t.
            let t = load(I);
            let mut o = _mm512_aesenclast_epi128(st[I], _mm512_xor_si512(kl, t));
            let v = if I + 1 == R { lanes(I) } else { 4 };
            // SAFETY: the bytes written lie within the caller's `len`.
            unsafe {
                if I + 1 == R && partial {
                    // The bytes past the text zeroed: hashed as padding.
                    o = _mm512_maskz_mov_epi8(last, o);
                    _mm512_mask_storeu_epi8(dst.add(64 * I).cast(), last, o);
                } else {
                    _mm512_storeu_si512(dst.add(64 * I).cast(), o);
                }
            }
            // The ciphertext hashed: the output to encrypt, the input (its
            // bytes past the text loaded as zeroes) to decrypt.
            let d = _mm512_shuffle_epi8(if ENC { o } else { t }, mask);
            // SAFETY: per the caller.
            s = unsafe { products(key, first, pos + 4 * I, v, d, s) };
            // This register's products done here (in program order): LLVM
            // would otherwise gather them after the chunk and spill the
            // powers it loaded.
            pin(&mut s);
        }
    });
    s
}

/// A whole message: CTR from `inc32(J0)` (`j0` as `u128::from_be_bytes`)
/// over `data`, read from `input` (as long as `data`) or in place; the
/// GHASH of the state `x` of an AAD hashed before (if given), of `aad` (at
/// most [`MAX_AAD`] bytes, zero-padded; empty if `x` is given), of the
/// ciphertext (zero-padded: read from `input` to decrypt, the output to
/// encrypt, `ENC`) and of the length block `lens`, one reduction per
/// segment of [`SEGMENT`] text blocks; returns the full tag `E(J0) ⊕
/// GHASH` (as `u128::from_be_bytes`). `NR` rounds, `rk` NR + 1 keys.
///
/// # Safety
/// The CPU has AES-NI, PCLMULQDQ, AVX-512F/BW, VAES and VPCLMULQDQ.
#[target_feature(enable = "aes,pclmulqdq,avx512f,avx512bw,vaes,vpclmulqdq")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn one_shot<const NR: usize, const ENC: bool>(
    rk: &[[u8; 16]],
    key: (&[u128; POWERS], &[u128; POWERS]),
    (x, aad): (Option<u128>, &[u8]),
    j0: u128,
    (input, data): (Option<&[u8]>, &mut [u8]),
    lens: u128,
) -> u128 {
    let n = data.len();
    assert!(n <= MAX_TEXT && aad.len() <= MAX_AAD && rk.len() == NR + 1);
    assert!(x.is_none() || aad.is_empty());
    assert!(input.is_none_or(|i| i.len() == n));
    let (a, nb) = (aad.len().div_ceil(16), n.div_ceil(16));
    let k = Keys(rk.as_ptr());
    let mask = _mm512_broadcast_i32x4(from_u128(BSWAP));
    let z = _mm512_setzero_si512();
    let j = from_u128(j0);
    // Counters inc32(J0) + 0..: reflected, lane l of the first register
    // J0 + 1 + l in dword 0.
    let mut ctr = _mm512_add_epi32(
        _mm512_broadcast_i32x4(j),
        _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1),
    );
    let p = data.as_mut_ptr();
    let src = input.map_or(p.cast_const(), <[u8]>::as_ptr);
    // The state carried into the next segment (first: an AAD's, if any).
    let mut carry = None;
    if let Some(x) = x {
        carry = Some(from_u128(x));
    }
    // Text blocks done (whole segments).
    let mut b0 = 0;
    let y = loop {
        // A segment: the AAD (the first only), `sb` text blocks, the length
        // block (the last only) at stream positions 0..t; position i
        // multiplies H^(t−i), powers[first + i].
        let sb = (nb - b0).min(SEGMENT);
        let lead = if b0 == 0 { a } else { 0 };
        let last = b0 + sb == nb;
        let t = lead + sb + usize::from(last);
        let first = POWERS - t;
        let mut s: Sums = (z, z, z);
        if b0 == 0 && a > 0 {
            // SAFETY: the bytes selected lie within `aad`.
            let d = unsafe { _mm512_maskz_loadu_epi8(byte_mask(aad.len()), aad.as_ptr().cast()) };
            // SAFETY: first + a ≤ POWERS.
            s = unsafe { products(key, first, 0, a, _mm512_shuffle_epi8(d, mask), s) };
        }
        // Text blocks of the segment done.
        let mut c0 = 0;
        while c0 < sb {
            let b = b0 + c0;
            let left = n - 16 * b;
            // SAFETY: bytes 16·b .. n lie in `data` and `input`.
            let io = unsafe { (src.add(16 * b), p.add(16 * b), left) };
            let pos = (first, lead + c0);
            let blocks;
            // SAFETY: `io` within the text (above); the chunk's positions
            // lead + c0 .. lead + min(sb, c0 + 4·R) < t ≤ POWERS − first (a
            // segment is whole chunks of 8 registers but the last, whose
            // chunks end with the text).
            (s, blocks) = unsafe {
                match left.div_ceil(64) {
                    1 => (chunk::<NR, 1, ENC>(k, key, pos, &mut ctr, io, s), 4),
                    2 => (chunk::<NR, 2, ENC>(k, key, pos, &mut ctr, io, s), 8),
                    3 => (chunk::<NR, 3, ENC>(k, key, pos, &mut ctr, io, s), 12),
                    4..8 => (chunk::<NR, 4, ENC>(k, key, pos, &mut ctr, io, s), 16),
                    _ => (chunk::<NR, 8, ENC>(k, key, pos, &mut ctr, io, s), 32),
                }
            };
            c0 += blocks;
        }
        if let Some(c) = carry {
            // The state so far XORed into the segment's first block
            // (position 0): its own product, the same by linearity. Added
            // last, so the segment's products do not wait for it.
            // SAFETY: first + 1 ≤ POWERS.
            s = unsafe { products(key, first, 0, 1, _mm512_zextsi128_si512(c), s) };
        }
        if last {
            // The length block at position t − 1.
            // SAFETY: first + t − 1 + 1 = POWERS.
            s = unsafe {
                products(
                    key,
                    first,
                    t - 1,
                    1,
                    _mm512_zextsi128_si512(from_u128(lens)),
                    s,
                )
            };
            break super::w512::reduce(s);
        }
        carry = Some(super::w512::reduce(s));
        b0 += sb;
    };
    // E(J0) last, from the keys in memory: no secret stays live through
    // the chunks (where it would be spilled to the stack), and its rounds
    // run beside the last chunk's GHASH and the reduction.
    let k = k.opaque();
    // SAFETY: keys 0..=NR (the schedule holds NR + 1).
    let kx = |i: usize| unsafe { _mm_loadu_si128(k.0.add(i).cast()) };
    let mut ej = _mm_xor_si128(_mm_shuffle_epi8(j, from_u128(BSWAP)), kx(0));
    for i in 1..NR {
        ej = _mm_aesenc_si128(ej, kx(i));
    }
    ej = _mm_aesenclast_si128(ej, kx(NR));
    let t = _mm_xor_si128(_mm_shuffle_epi8(y, from_u128(BSWAP)), ej);
    to_u128(t).swap_bytes()
}
