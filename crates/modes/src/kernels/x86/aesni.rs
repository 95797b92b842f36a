//! Hand-scheduled fused AES-GCM for AES-NI + PCLMULQDQ (VEX-encoded, 16 xmm
//! registers), 8 blocks per group.
//!
//! The steady-state group is inline assembly with fixed registers, because
//! LLVM's scheduler, given the same work as intrinsics, serialises the AES
//! rounds block by block and spills the GHASH state. One group:
//!
//! * 8 counter blocks `ctr + 0..8` (byte-reflected domain, so a 32-bit
//!   `vpaddd` is exactly GCM's `inc32`), byte-swapped and whitened;
//! * AES rounds 1..8 each carry one GHASH block: byte-swap, Karatsuba
//!   multiplication by H^(8−j) with 3 PCLMULQDQ (`hi ⊕ lo` of each power
//!   precomputed), the three partial products accumulated over the group;
//!   round 9 carries the one Montgomery reduction per 8 blocks; the AES and
//!   the carry-less multiplier ports work at the same time;
//! * the last round key is XORed with the input first, so `aesenclast` gives
//!   the output block directly.
//!
//! Register map: xmm0–7 AES states, xmm8/9/10 GHASH lo/mid/hi, xmm11 round
//! key, xmm12/13 temporaries, xmm14 the byte-swap mask, xmm15 the GHASH
//! state. Decryption hashes the group's own ciphertext (read before the
//! plaintext overwrites it); encryption hashes the previous group's
//! ciphertext (still in L1), the first group's AES and the last group's
//! GHASH running with intrinsics outside the loop.
//!
//! (An AVX-512VL instantiation would gain nothing: without VAES/VPCLMULQDQ,
//! `aesenc` and `pclmulqdq` cannot address xmm16–31.)

use super::{BSWAP, GFPOLY, GcmCall, POWERS, from_u128, reduce128, to_u128};
use aesflow_cipher::x86::v128;
use core::arch::{asm, x86_64::*};

/// The constants of one call, at fixed offsets used by the assembly.
#[repr(C, align(16))]
struct Tab {
    /// Round keys 0..=NR (offset 0).
    rk: [__m128i; 15],
    /// H^8..H^1 premultiplied by y: block j of a group uses `h[j]` (240).
    h: [__m128i; 8],
    /// `hi ⊕ lo` of `h[j]` in the low qword (368).
    hk: [__m128i; 8],
    /// The reduction constant (496).
    gf: __m128i,
    /// The byte-swap mask (512).
    mask: __m128i,
    /// Counter increments 0..8 in dword 0 (528).
    inc: [__m128i; 8],
    /// 8 in dword 0 (656).
    step: __m128i,
    /// Counter increments 0..8 on the last byte, for counters in byte
    /// order (672).
    inc_be: [__m128i; 8],
    /// 8 on the last byte (800).
    step_be: __m128i,
}

// The offsets the assembly uses.
const _: () = {
    assert!(core::mem::offset_of!(Tab, h) == 240);
    assert!(core::mem::offset_of!(Tab, hk) == 368);
    assert!(core::mem::offset_of!(Tab, gf) == 496);
    assert!(core::mem::offset_of!(Tab, mask) == 512);
    assert!(core::mem::offset_of!(Tab, inc) == 528);
    assert!(core::mem::offset_of!(Tab, step) == 656);
    assert!(core::mem::offset_of!(Tab, inc_be) == 672);
    assert!(core::mem::offset_of!(Tab, step_be) == 800);
};

/// The 8 `vaesenc` of one round with round key xmm11, and 8 more
/// instructions (string literals) between them.
macro_rules! aes_round_with {
    ($a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $f:expr, $g:expr, $h:expr) => {
        concat!(
            "vaesenc xmm0, xmm0, xmm11\n",
            $a,
            "\nvaesenc xmm1, xmm1, xmm11\n",
            $b,
            "\nvaesenc xmm2, xmm2, xmm11\n",
            $c,
            "\nvaesenc xmm3, xmm3, xmm11\n",
            $d,
            "\nvaesenc xmm4, xmm4, xmm11\n",
            $e,
            "\nvaesenc xmm5, xmm5, xmm11\n",
            $f,
            "\nvaesenc xmm6, xmm6, xmm11\n",
            $g,
            "\nvaesenc xmm7, xmm7, xmm11\n",
            $h,
            "\n",
        )
    };
}

/// AES round `$rk` (byte offset of its key in `Tab`) with GHASH block 0 (the
/// state xmm15 XORed in; starts the accumulators).
macro_rules! round_gh_first {
    ($rk:literal) => {
        concat!(
            "vmovdqa xmm11, [{t} + ",
            $rk,
            "]\n",
            aes_round_with!(
                "vmovdqu xmm12, [{gh}]",
                "vpshufb xmm12, xmm12, xmm14",
                "vpxor xmm12, xmm12, xmm15",
                "vpclmulqdq xmm8, xmm12, [{t} + 240], 0x00",
                "vpclmulqdq xmm10, xmm12, [{t} + 240], 0x11",
                "vpshufd xmm13, xmm12, 0x4e",
                "vpxor xmm12, xmm12, xmm13",
                "vpclmulqdq xmm9, xmm12, [{t} + 368], 0x00"
            ),
        )
    };
}

/// AES round `$rk` with GHASH block at byte offset `$blk`, power at `$h`,
/// its `hi ⊕ lo` at `$hk`, accumulated.
macro_rules! round_gh {
    ($rk:literal, $blk:literal, $h:literal, $hk:literal) => {
        concat!(
            "vmovdqa xmm11, [{t} + ",
            $rk,
            "]\n",
            "vmovdqu xmm12, [{gh} + ",
            $blk,
            "]\n",
            aes_round_with!(
                "vpshufb xmm12, xmm12, xmm14",
                concat!("vpclmulqdq xmm13, xmm12, [{t} + ", $h, "], 0x00"),
                "vpxor xmm8, xmm8, xmm13",
                concat!("vpclmulqdq xmm13, xmm12, [{t} + ", $h, "], 0x11"),
                "vpxor xmm10, xmm10, xmm13\nvpshufd xmm13, xmm12, 0x4e",
                "vpxor xmm12, xmm12, xmm13",
                concat!("vpclmulqdq xmm12, xmm12, [{t} + ", $hk, "], 0x00"),
                "vpxor xmm9, xmm9, xmm12"
            ),
        )
    };
}

/// A plain AES round (key at byte offset `$rk`).
macro_rules! round {
    ($rk:literal) => {
        concat!(
            "vmovdqa xmm11, [{t} + ",
            $rk,
            "]\n",
            aes_round_with!("", "", "", "", "", "", "", ""),
        )
    };
}

/// Counters `[{c}] + 0..8` (reflected: 32-bit adds, then a byte swap each)
/// whitened with round key 0 into xmm0–7, `[{c}]` advanced by 8; xmm11
/// round key 0, xmm14 the byte-swap mask.
macro_rules! counters_reflected {
    () => {
        concat!(
            "vmovdqa xmm14, [{t} + 512]\n",
            "vmovdqa xmm13, [{c}]\n",
            "vmovdqa xmm11, [{t}]\n",
            "vpshufb xmm0, xmm13, xmm14\n",
            "vpaddd xmm1, xmm13, [{t} + 544]\n",
            "vpaddd xmm2, xmm13, [{t} + 560]\n",
            "vpaddd xmm3, xmm13, [{t} + 576]\n",
            "vpaddd xmm4, xmm13, [{t} + 592]\n",
            "vpaddd xmm5, xmm13, [{t} + 608]\n",
            "vpaddd xmm6, xmm13, [{t} + 624]\n",
            "vpaddd xmm7, xmm13, [{t} + 640]\n",
            "vpaddd xmm13, xmm13, [{t} + 656]\n",
            "vmovdqa [{c}], xmm13\n",
            "vpxor xmm0, xmm0, xmm11\n",
            "vpshufb xmm1, xmm1, xmm14\n",
            "vpxor xmm1, xmm1, xmm11\n",
            "vpshufb xmm2, xmm2, xmm14\n",
            "vpxor xmm2, xmm2, xmm11\n",
            "vpshufb xmm3, xmm3, xmm14\n",
            "vpxor xmm3, xmm3, xmm11\n",
            "vpshufb xmm4, xmm4, xmm14\n",
            "vpxor xmm4, xmm4, xmm11\n",
            "vpshufb xmm5, xmm5, xmm14\n",
            "vpxor xmm5, xmm5, xmm11\n",
            "vpshufb xmm6, xmm6, xmm14\n",
            "vpxor xmm6, xmm6, xmm11\n",
            "vpshufb xmm7, xmm7, xmm14\n",
            "vpxor xmm7, xmm7, xmm11\n",
        )
    };
}

/// As `counters_reflected` for a counter `[{c}]` in byte order whose last
/// byte does not carry within the group: adds on that byte, no byte swap.
macro_rules! counters_in_order {
    () => {
        concat!(
            "vmovdqa xmm14, [{t} + 512]\n",
            "vmovdqa xmm13, [{c}]\n",
            "vmovdqa xmm11, [{t}]\n",
            "vpxor xmm0, xmm13, xmm11\n",
            "vpaddd xmm1, xmm13, [{t} + 688]\n",
            "vpaddd xmm2, xmm13, [{t} + 704]\n",
            "vpaddd xmm3, xmm13, [{t} + 720]\n",
            "vpaddd xmm4, xmm13, [{t} + 736]\n",
            "vpaddd xmm5, xmm13, [{t} + 752]\n",
            "vpaddd xmm6, xmm13, [{t} + 768]\n",
            "vpaddd xmm7, xmm13, [{t} + 784]\n",
            "vpaddd xmm13, xmm13, [{t} + 800]\n",
            "vmovdqa [{c}], xmm13\n",
            "vpxor xmm1, xmm1, xmm11\n",
            "vpxor xmm2, xmm2, xmm11\n",
            "vpxor xmm3, xmm3, xmm11\n",
            "vpxor xmm4, xmm4, xmm11\n",
            "vpxor xmm5, xmm5, xmm11\n",
            "vpxor xmm6, xmm6, xmm11\n",
            "vpxor xmm7, xmm7, xmm11\n",
        )
    };
}

/// One steady-state group: AES-CTR rounds 0..=9 of the counters (`$ctr`:
/// `counters_reflected!()` or `counters_in_order!()`) with the GHASH of the
/// 8 blocks at `{gh}` into xmm15; the AES states are left in xmm0–7.
macro_rules! group_head {
    ($ctr:expr) => {
        concat!(
            $ctr,
            // Rounds 1..8 with GHASH blocks 0..7.
            round_gh_first!("16"),
            round_gh!("32", "16", "256", "384"),
            round_gh!("48", "32", "272", "400"),
            round_gh!("64", "48", "288", "416"),
            round_gh!("80", "64", "304", "432"),
            round_gh!("96", "80", "320", "448"),
            round_gh!("112", "96", "336", "464"),
            round_gh!("128", "112", "352", "480"),
            // Round 9 with the Karatsuba fix-up and the Montgomery reduction (see
            // `gcm::ghash`): mid ^= lo ^ hi; mid ^= swap(lo) ^ lo.lo·gf.hi;
            // state = hi ^ swap(mid) ^ mid.lo·gf.hi.
            "vmovdqa xmm11, [{t} + 144]\n",
            aes_round_with!(
                "vpxor xmm9, xmm9, xmm8\nvpxor xmm9, xmm9, xmm10",
                "vpshufd xmm13, xmm8, 0x4e",
                "vpxor xmm9, xmm9, xmm13",
                "vpclmulqdq xmm13, xmm8, [{t} + 496], 0x10",
                "vpxor xmm9, xmm9, xmm13",
                "vpshufd xmm13, xmm9, 0x4e\nvpxor xmm10, xmm10, xmm13",
                "vpclmulqdq xmm13, xmm9, [{t} + 496], 0x10",
                "vpxor xmm15, xmm10, xmm13"
            ),
        )
    };
}

/// Rounds 10 and 11 (AES-192, AES-256).
macro_rules! rounds_10_11 {
    () => {
        concat!(round!("160"), round!("176"))
    };
}
/// Rounds 12 and 13 (AES-256).
macro_rules! rounds_12_13 {
    () => {
        concat!(round!("192"), round!("208"))
    };
}

/// The last round, XORed into the 8 blocks at `{src}`, stored to `{dst}`:
/// `aesenclast(s, k_last ⊕ x) = aesenclast(s, k_last) ⊕ x`.
macro_rules! group_tail {
    () => {
        concat!(
            "vmovdqa xmm11, [{kl}]\n",
            "vpxor xmm8, xmm11, [{src}]\n",
            "vpxor xmm9, xmm11, [{src} + 16]\n",
            "vpxor xmm10, xmm11, [{src} + 32]\n",
            "vpxor xmm12, xmm11, [{src} + 48]\n",
            "vaesenclast xmm0, xmm0, xmm8\n",
            "vaesenclast xmm1, xmm1, xmm9\n",
            "vaesenclast xmm2, xmm2, xmm10\n",
            "vaesenclast xmm3, xmm3, xmm12\n",
            "vpxor xmm8, xmm11, [{src} + 64]\n",
            "vpxor xmm9, xmm11, [{src} + 80]\n",
            "vpxor xmm10, xmm11, [{src} + 96]\n",
            "vpxor xmm12, xmm11, [{src} + 112]\n",
            "vaesenclast xmm4, xmm4, xmm8\n",
            "vaesenclast xmm5, xmm5, xmm9\n",
            "vaesenclast xmm6, xmm6, xmm10\n",
            "vaesenclast xmm7, xmm7, xmm12\n",
            "vmovdqu [{dst}], xmm0\n",
            "vmovdqu [{dst} + 16], xmm1\n",
            "vmovdqu [{dst} + 32], xmm2\n",
            "vmovdqu [{dst} + 48], xmm3\n",
            "vmovdqu [{dst} + 64], xmm4\n",
            "vmovdqu [{dst} + 80], xmm5\n",
            "vmovdqu [{dst} + 96], xmm6\n",
            "vmovdqu [{dst} + 112], xmm7\n",
        )
    };
}

/// Karatsuba fix-up and Montgomery reduction of `hi·y^128 + mi·y^64 + lo`,
/// `mi` still `(a.lo ⊕ a.hi)(b.lo ⊕ b.hi)` (as the assembly's round 9).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,avx")]
fn reduce(lo: __m128i, mi: __m128i, hi: __m128i) -> __m128i {
    reduce128(lo, _mm_xor_si128(mi, _mm_xor_si128(lo, hi)), hi)
}

/// GHASH of the 8 blocks at `gh` into `acc` (the encryption's last group).
///
/// # Safety
/// `gh` readable for 128 bytes.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,avx")]
unsafe fn ghash8(t: &Tab, gh: *const u8, acc: __m128i) -> __m128i {
    let z = _mm_setzero_si128();
    let (mut lo, mut mi, mut hi) = (z, z, z);
    for j in 0..8 {
        // SAFETY: j < 8, within the caller's 128 bytes.
        let mut d = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(gh.add(16 * j).cast()) }, t.mask);
        if j == 0 {
            d = _mm_xor_si128(d, acc);
        }
        let dk = _mm_xor_si128(d, _mm_shuffle_epi32::<0x4e>(d));
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(d, t.h[j]));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(d, t.h[j]));
        mi = _mm_xor_si128(mi, _mm_clmulepi64_si128::<0x00>(dk, t.hk[j]));
    }
    reduce(lo, mi, hi)
}

/// AES-CTR of one group without GHASH (the encryption's first group):
/// counters `ctr + 0..8`, XORed into the 128 bytes at `src`, written to
/// `dst` (the same, or not overlapping).
///
/// # Safety
/// `src` valid for reading and `dst` for writing 128 bytes.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,avx")]
unsafe fn ctr8<const NR: usize>(t: &Tab, ctr: __m128i, src: *const u8, dst: *mut u8) {
    let mut s = [_mm_setzero_si128(); 8];
    for (j, sj) in s.iter_mut().enumerate() {
        let c = _mm_add_epi32(ctr, t.inc[j]);
        *sj = _mm_xor_si128(_mm_shuffle_epi8(c, t.mask), t.rk[0]);
    }
    for k in &t.rk[1..NR] {
        for sj in s.iter_mut() {
            *sj = _mm_aesenc_si128(*sj, *k);
        }
    }
    for (j, sj) in s.iter().enumerate() {
        // SAFETY: j < 8, within the caller's 128 bytes.
        unsafe {
            let x = _mm_loadu_si128(src.add(16 * j).cast());
            _mm_storeu_si128(
                dst.add(16 * j).cast(),
                _mm_xor_si128(_mm_aesenclast_si128(*sj, t.rk[NR]), x),
            );
        }
    }
}

/// One steady-state group (the assembly above), the counter `ctr` in byte
/// order (`IN_ORDER`, its last byte not carrying within the group) or
/// reflected.
///
/// # Safety
/// `src` and `gh` readable, `dst` writable for 128 bytes (`dst` may equal
/// `src`, `gh` may equal `src`: it is read before `dst` is written); the CPU
/// has AES-NI, PCLMULQDQ and AVX.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,avx")]
unsafe fn group<const NR: usize, const IN_ORDER: bool>(
    t: &Tab,
    ctr: &mut __m128i,
    src: *const u8,
    dst: *mut u8,
    gh: *const u8,
    acc: &mut __m128i,
) {
    let kl: *const __m128i = &t.rk[NR];
    let (s0, s1, s2, s3, s4, s5, s6, s7): (
        __m128i,
        __m128i,
        __m128i,
        __m128i,
        __m128i,
        __m128i,
        __m128i,
        __m128i,
    );
    macro_rules! head {
        ($ctr:expr) => {
            // SAFETY: reads `Tab` at its asserted offsets, `*ctr` (read and
            // written) and 128 bytes at `gh`, all valid; writes only
            // registers and `*ctr`; the stack is not touched.
            unsafe {
                asm!(
                    group_head!($ctr),
                    t = in(reg) t,
                    c = in(reg) ctr as *mut __m128i,
                    gh = in(reg) gh,
                    out("xmm0") s0, out("xmm1") s1, out("xmm2") s2, out("xmm3") s3,
                    out("xmm4") s4, out("xmm5") s5, out("xmm6") s6, out("xmm7") s7,
                    out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
                    out("xmm12") _, out("xmm13") _, out("xmm14") _,
                    inout("xmm15") *acc,
                    options(nostack, preserves_flags),
                );
            }
        };
    }
    if IN_ORDER {
        head!(counters_in_order!());
    } else {
        head!(counters_reflected!());
    }
    let (mut s0, mut s1, mut s2, mut s3, mut s4, mut s5, mut s6, mut s7) =
        (s0, s1, s2, s3, s4, s5, s6, s7);
    macro_rules! more_rounds {
        ($text:expr) => {
            // SAFETY: reads round keys from `Tab`; registers only.
            unsafe {
                asm!(
                    $text,
                    t = in(reg) t,
                    inout("xmm0") s0, inout("xmm1") s1, inout("xmm2") s2, inout("xmm3") s3,
                    inout("xmm4") s4, inout("xmm5") s5, inout("xmm6") s6, inout("xmm7") s7,
                    out("xmm11") _,
                    options(nostack, preserves_flags, readonly),
                );
            }
        };
    }
    if NR > 10 {
        more_rounds!(rounds_10_11!());
    }
    if NR > 12 {
        more_rounds!(rounds_12_13!());
    }
    // SAFETY: reads the last round key and 128 bytes at `src`, writes 128
    // bytes at `dst`, all valid per the caller.
    unsafe {
        asm!(
            group_tail!(),
            kl = in(reg) kl,
            src = in(reg) src,
            dst = in(reg) dst,
            in("xmm0") s0, in("xmm1") s1, in("xmm2") s2, in("xmm3") s3,
            in("xmm4") s4, in("xmm5") s5, in("xmm6") s6, in("xmm7") s7,
            out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _, out("xmm12") _,
            options(nostack, preserves_flags),
        );
    }
}

/// Steady-state groups `range` of the data read at `src` and written at
/// `dst` (the same, or not overlapping) from counter `c` (as a register,
/// reflected, and its low 32 bits), each hashing its own input (`prev`
/// false: decryption) or the output of the group before it (`prev`:
/// encryption): runs through the byte-order counters while their last byte
/// cannot carry, one reflected group at each carry.
///
/// # Safety
/// As `group` for every group of `range` (bytes 128·g .. 128·(g+1) at `src`
/// and `dst`) and the one it hashes; the CPU has AES-NI, PCLMULQDQ and AVX.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,avx")]
unsafe fn run<const NR: usize>(
    t: &Tab,
    (c, lo): &mut (__m128i, u32),
    (src, dst): (*const u8, *mut u8),
    range: core::ops::Range<usize>,
    prev: bool,
    acc: &mut __m128i,
) {
    let mut g = range.start;
    while g < range.end {
        let n = ((256 - (*lo & 0xff) as usize) / 8).min(range.end - g);
        let mut be = _mm_shuffle_epi8(*c, t.mask);
        for g in g..g + n {
            // SAFETY: g in `range`, per the caller.
            unsafe {
                let (s, d) = (src.add(128 * g), dst.add(128 * g));
                let gh = if prev { d.sub(128).cast_const() } else { s };
                group::<NR, true>(t, &mut be, s, d, gh, acc);
            }
        }
        g += n;
        *c = _mm_add_epi32(*c, _mm_set_epi32(0, 0, 0, 8 * n as i32));
        *lo = lo.wrapping_add(8 * n as u32);
        if g < range.end {
            // SAFETY: as above.
            unsafe {
                let (s, d) = (src.add(128 * g), dst.add(128 * g));
                let gh = if prev { d.sub(128).cast_const() } else { s };
                group::<NR, false>(t, c, s, d, gh, acc);
            }
            g += 1;
            *lo = lo.wrapping_add(8);
        }
    }
}

/// One block encrypted in place with the `rk.len() − 1` rounds of the
/// round keys `rk` (GCM's `E(J0)` for the tag, without a trip through the AES
/// kernel's dispatch).
#[target_feature(enable = "aes,pclmulqdq,avx")]
pub(crate) fn encrypt_block(rk: &[[u8; 16]], b: &mut [u8; 16]) {
    *b = to_u128(super::aes_block(rk, from_u128(u128::from_le_bytes(*b)))).to_le_bytes();
}

/// GCM's counter mode (`inc32`) over `data`, any length, read from `input`
/// (as long as `data`) or in place, 8 blocks at a time, with AES-NI from
/// the round keys `rk`: the blocks after the fused kernel's whole groups,
/// and the keystream of a partial block. `ctr` advances by one per block
/// (a partial one included).
#[target_feature(enable = "aes,pclmulqdq,avx")]
pub(crate) fn ctr32(rk: &[[u8; 16]], ctr: &mut [u8; 16], input: Option<&[u8]>, data: &mut [u8]) {
    let k = |i: usize| from_u128(u128::from_le_bytes(rk[i]));
    let last = rk.len() - 1;
    let mask = from_u128(BSWAP);
    // Reflected: the 32-bit counter is dword 0, so a dword add is inc32.
    let mut c = from_u128(u128::from_be_bytes(*ctr));
    let mut ks = [0u8; 128];
    let mut at = 0;
    while at < data.len() {
        let mut s = [_mm_setzero_si128(); 8];
        for (j, sj) in s.iter_mut().enumerate() {
            let cj = _mm_add_epi32(c, _mm_set_epi32(0, 0, 0, j as i32));
            *sj = _mm_xor_si128(_mm_shuffle_epi8(cj, mask), k(0));
        }
        for i in 1..last {
            let ki = k(i);
            for sj in s.iter_mut() {
                *sj = _mm_aesenc_si128(*sj, ki);
            }
        }
        for (sj, b) in s.iter().zip(ks.chunks_exact_mut(16)) {
            b.copy_from_slice(&to_u128(_mm_aesenclast_si128(*sj, k(last))).to_le_bytes());
        }
        let n = (data.len() - at).min(128);
        let out = &mut data[at..at + n];
        if let Some(i) = input {
            out.copy_from_slice(&i[at..at + n]);
        }
        // 16 bytes at a time, then the bytes of a partial block.
        let (whole, part) = out.as_chunks_mut::<16>();
        for (d, k) in whole.iter_mut().zip(ks.as_chunks::<16>().0) {
            *d = (u128::from_ne_bytes(*d) ^ u128::from_ne_bytes(*k)).to_ne_bytes();
        }
        for (d, k) in part.iter_mut().zip(&ks[16 * whole.len()..]) {
            *d ^= k;
        }
        c = _mm_add_epi32(c, _mm_set_epi32(0, 0, 0, n.div_ceil(16) as i32));
        at += n;
    }
    *ctr = to_u128(c).to_be_bytes();
    // SAFETY: a plain byte array; the volatile write keeps the keystream
    // from outliving the call.
    unsafe { core::ptr::write_volatile(&mut ks, [0; 128]) };
}

/// The end of a one-shot message (`Gcm::seal_into` and the like) after the
/// fused kernel's whole groups: GCM's counter mode from counter block `ctr`
/// (`ctr` and `j0` as `u128::from_be_bytes`, in registers)
/// over the `data.len()` bytes left (whole blocks and a partial one), read
/// from `input` (as long as `data`) or in place, with `E(J0)` for the tag as
/// one more lane, the first, of the batches of AES-NI blocks (8 lanes, the
/// last batch 1, 2 or 4 if that covers it); then, with one
/// reduction (`ghash_seq`), the GHASH into `x` of those blocks' ciphertext,
/// the zero-padded partial block and the length block `lens`
/// (`[len A]_64 ‖ [len C]_64` as a `u128`). Returns the full tag (as
/// `u128::from_be_bytes`: in registers, not through memory). One
/// message's fixed cost: no separate `E(J0)`, length-block GHASH, or
/// partial block through a stack buffer.
#[target_feature(enable = "aes,pclmulqdq,avx")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish(
    rk: &[[u8; 16]],
    (powers, hk): (&[u128; POWERS], &[u128; POWERS]),
    x: u128,
    (ctr, j0): (u128, u128),
    input: Option<&[u8]>,
    data: &mut [u8],
    lens: u128,
    encrypt: bool,
) -> u128 {
    let n = data.len();
    let (whole, part) = (n / 16, n % 16);
    assert!(whole + 2 <= POWERS);
    assert!(input.is_none_or(|i| i.len() == n));
    let nb = n.div_ceil(16);
    let k = |i: usize| from_u128(u128::from_le_bytes(rk[i]));
    let last = rk.len() - 1;
    let mask = from_u128(BSWAP);
    // Reflected: the 32-bit counter is dword 0, so a dword add is inc32.
    let c = from_u128(ctr);
    let jv = _mm_shuffle_epi8(from_u128(j0), mask);
    let src = |data: &[u8], i: usize| -> [u8; 16] {
        let s = input.unwrap_or(data);
        s[16 * i..16 * i + 16].try_into().expect("16 bytes")
    };
    // The partial input block, zero-padded, as `u128::from_be_bytes`.
    let p_in = if part > 0 {
        super::super::be_partial(&input.unwrap_or(data)[16 * whole..])
    } else {
        0
    };
    // Decryption hashes the input before an in-place write overwrites it.
    let pad = |pct: u128| (part > 0).then_some(pct);
    let mut y = x;
    if !encrypt {
        let ct = &input.unwrap_or(data)[..16 * whole];
        // SAFETY: this function's features include PCLMULQDQ and SSE4.1.
        y = unsafe { super::ghash_seq(powers, hk, x, ct, pad(p_in), Some(lens)) };
    }
    let mut ej0 = _mm_setzero_si128();
    let mut pks = 0u128;
    let mut b0 = 0;
    // Lane 0 J0 (first: the tag waits for it, and decryption's GHASH does
    // not wait for the text), lanes 1..=nb the counter blocks; batches of 8
    // lanes, the last one of 1, 2 or 4 if that covers it (E(J0) alone after
    // the VAES kernel's groups: one lane, not eight).
    macro_rules! batch {
        ($l:literal) => {{
            let mut s = [_mm_setzero_si128(); $l];
            for (j, sj) in s.iter_mut().enumerate() {
                let lane = b0 + j;
                let b = if lane == 0 {
                    jv
                } else {
                    let i = lane as i32 - 1;
                    _mm_shuffle_epi8(_mm_add_epi32(c, _mm_set_epi32(0, 0, 0, i)), mask)
                };
                *sj = _mm_xor_si128(b, k(0));
            }
            for r in 1..last {
                let kr = k(r);
                for sj in s.iter_mut() {
                    *sj = _mm_aesenc_si128(*sj, kr);
                }
            }
            for (j, sj) in s.iter().enumerate() {
                let lane = b0 + j;
                let ks = _mm_aesenclast_si128(*sj, k(last));
                if lane == 0 {
                    ej0 = ks;
                } else if lane - 1 < whole {
                    let i = lane - 1;
                    let v = u128::from_le_bytes(src(data, i)) ^ to_u128(ks);
                    data[16 * i..16 * i + 16].copy_from_slice(&v.to_le_bytes());
                } else if lane - 1 < nb {
                    pks = u128::from_be_bytes(to_u128(ks).to_le_bytes());
                }
            }
            b0 += $l;
        }};
    }
    while b0 <= nb {
        match nb + 1 - b0 {
            1 => batch!(1),
            2 => batch!(2),
            3 | 4 => batch!(4),
            _ => batch!(8),
        }
    }
    if part > 0 {
        let keep = !0u128 << (8 * (16 - part));
        let out = (p_in ^ pks) & keep;
        let mut b = out.to_be_bytes();
        data[16 * whole..].copy_from_slice(&b[..part]);
        // SAFETY: a plain byte array; the volatile write keeps the text
        // from outliving the call.
        unsafe { core::ptr::write_volatile(&mut b, [0; 16]) };
        if encrypt {
            let ct = &data[..16 * whole];
            // SAFETY: as above.
            y = unsafe { super::ghash_seq(powers, hk, x, ct, pad(out), Some(lens)) };
        }
    } else if encrypt {
        // SAFETY: as above.
        y = unsafe { super::ghash_seq(powers, hk, x, &data[..16 * whole], None, Some(lens)) };
    }
    u128::from_be_bytes(to_u128(ej0).to_le_bytes()) ^ y
}

/// Fused GCM over whole groups of 8 blocks ([`GcmCall`], without
/// `finish`: the message ends in [`finish`]).
///
/// # Safety
/// The CPU has AES-NI, PCLMULQDQ and AVX.
#[target_feature(enable = "aes,pclmulqdq,avx")]
pub(crate) unsafe fn gcm_crypt<const NR: usize>(mut call: GcmCall<'_>) -> u128 {
    const { assert!(NR == 10 || NR == 12 || NR == 14) };
    assert_eq!(call.rk.len(), NR + 1);
    assert_eq!(call.data.len() % 128, 0);
    assert!(
        call.finish.is_none(),
        "the AES-NI kernel leaves the tag to `finish`"
    );
    let z = _mm_setzero_si128();
    let mut t = Tab {
        rk: v128::load_keys(call.rk),
        h: [z; 8],
        hk: [z; 8],
        gf: from_u128(GFPOLY),
        mask: from_u128(BSWAP),
        inc: [z; 8],
        step: _mm_set_epi32(0, 0, 0, 8),
        inc_be: [z; 8],
        step_be: _mm_set_epi32(8 << 24, 0, 0, 0),
    };
    for (j, p) in call.powers[POWERS - 8..].iter().enumerate() {
        t.h[j] = from_u128(*p);
        t.hk[j] = from_u128(((*p >> 64) ^ *p) as u64 as u128);
        t.inc[j] = _mm_set_epi32(0, 0, 0, j as i32);
        t.inc_be[j] = _mm_set_epi32((j as i32) << 24, 0, 0, 0);
    }
    let groups = call.data.len() / 128;
    let (p, src) = call.pointers();
    let mut c = (
        from_u128(u128::from_be_bytes(call.ctr)),
        u128::from_be_bytes(call.ctr) as u32,
    );
    let mut acc = from_u128(call.x);
    if call.encrypt {
        if groups > 0 {
            // SAFETY: the first group lies within `call.data` and the input
            // (of the same length; a shared borrow, so not overlapping).
            unsafe { ctr8::<NR>(&t, c.0, src, p) };
            c = (_mm_add_epi32(c.0, t.step), c.1.wrapping_add(8));
            // SAFETY: groups 1.. and each previous one lie within
            // `call.data`, exclusively borrowed, and the input.
            unsafe { run::<NR>(&t, &mut c, (src, p), 1..groups, true, &mut acc) };
            // SAFETY: the last group lies within `call.data`.
            acc = unsafe { ghash8(&t, p.add(128 * (groups - 1)), acc) };
        }
    } else {
        // SAFETY: the groups lie within `call.data`, exclusively borrowed,
        // and the input; each one's ciphertext is hashed before the
        // plaintext overwrites it (in place).
        unsafe { run::<NR>(&t, &mut c, (src, p), 0..groups, false, &mut acc) };
    }
    let x = to_u128(acc);
    // SAFETY: `Tab` is plain vectors; a volatile write of zeroes keeps the
    // key copies from outliving the call on the stack. `acc` too lives on
    // the stack (`run` takes it by reference): the GHASH state before the
    // last group, a polynomial in H of known coefficients (the
    // ciphertext), whose roots would give H.
    unsafe {
        core::ptr::write_volatile(&mut t, core::mem::zeroed());
        core::ptr::write_volatile(&mut acc, _mm_setzero_si128());
    }
    x
}
