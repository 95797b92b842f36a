//! The x86 quads and their kernel entry points: [`Zmm`] (512-bit VAES, a
//! group in one register), [`Ymm2`] (256-bit VAES, two ymm registers) and
//! [`Xmm4`] (AES-NI, four xmm registers), and the AES-NI single-block path
//! of CFB/OFB tails. Barriers, key broadcasts and the
//! single-block rounds are `aesflow-cipher`'s shared x86 helpers.

use super::lanes::LaneCtx;
use super::quad::{self, Quad};
use super::stream::{MAX_RK, Sched};
use super::{Batch, CBC_ENC, CFB_DEC, CFB_ENC, OFB};
use aesflow_cipher::x86::{v128, v256, v512};
use core::arch::x86_64::*;

/// The [`Quad`] operations of a quad held as an array of `$reg` registers
/// that are one intrinsic on each register: `zero`, `load` and `store` (64
/// bytes, register `r` at byte `r · size_of::<$reg>()`), and the binary
/// operations `op(a, b)` (the intrinsic on each pair of registers).
macro_rules! register_array_ops {
    ($reg:ty, zero: $zero:ident, load: $load:ident, store: $store:ident,
     $($op:ident: $intrinsic:ident),+ $(,)?) => {
        #[inline(always)]
        unsafe fn zero() -> Self {
            // SAFETY: the CPU features of this quad type (caller).
            Self(core::array::from_fn(|_| unsafe { $zero() }))
        }
        #[inline(always)]
        unsafe fn load(p: *const u8) -> Self {
            // SAFETY: 64 readable bytes and the CPU features (caller).
            Self(core::array::from_fn(|r| unsafe {
                $load(p.add(r * size_of::<$reg>()).cast())
            }))
        }
        #[inline(always)]
        unsafe fn store(p: *mut u8, v: Self) {
            for (r, x) in v.0.iter().enumerate() {
                // SAFETY: 64 writable bytes and the CPU features (caller).
                unsafe { $store(p.add(r * size_of::<$reg>()).cast(), *x) }
            }
        }
        $(
            #[inline(always)]
            unsafe fn $op(a: Self, b: Self) -> Self {
                // SAFETY: the CPU features of this quad type (caller).
                Self(core::array::from_fn(|r| unsafe { $intrinsic(a.0[r], b.0[r]) }))
            }
        )+
    };
}

/// A group as one zmm register (lane `l` = 128-bit lane `l`).
#[derive(Clone, Copy)]
pub(super) struct Zmm(__m512i);

impl Quad for Zmm {
    const PREFETCH: bool = true;
    const OWN_BY_LOOP: bool = true;
    #[inline(always)]
    unsafe fn load_cols<const B: usize>(p: &[*const u8; 4], off: usize) -> [Self; B] {
        // SAFETY: AVX-512F and 16B readable bytes at each `p[l] + off`
        // (caller).
        unsafe {
            match B {
                2 => {
                    let pair = |a: *const u8, b: *const u8| {
                        let lo = _mm512_castsi256_si512(_mm256_loadu_si256(a.add(off).cast()));
                        _mm512_inserti64x4::<1>(lo, _mm256_loadu_si256(b.add(off).cast()))
                    };
                    // a = [p0.0 p0.1 p1.0 p1.1], b = [p2.0 p2.1 p3.0 p3.1].
                    let (a, b) = (pair(p[0], p[1]), pair(p[2], p[3]));
                    let c = [
                        _mm512_shuffle_i64x2::<0x88>(a, b),
                        _mm512_shuffle_i64x2::<0xDD>(a, b),
                    ];
                    core::array::from_fn(|j| Zmm(c[j]))
                }
                _ => core::array::from_fn(|j| Zmm::gather_impl(p, off + 16 * j)),
            }
        }
    }
    #[inline(always)]
    unsafe fn store_cols<const B: usize>(p: &[*mut u8; 4], off: usize, v: &[Self; B]) {
        // SAFETY: AVX-512F and 16B writable bytes at each `p[l] + off`
        // (caller).
        unsafe {
            match B {
                2 => {
                    // [c0.0 c1.0 c0.1 c1.1] and [c0.2 c1.2 c0.3 c1.3]:
                    // streams 0, 1 and 2, 3, two blocks each.
                    let (c0, c1) = (v[0].0, v[1].0);
                    let a = _mm512_permutex2var_epi64(
                        c0,
                        _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0),
                        c1,
                    );
                    let b = _mm512_permutex2var_epi64(
                        c0,
                        _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4),
                        c1,
                    );
                    let to = |l: usize, x: __m256i| _mm256_storeu_si256(p[l].add(off).cast(), x);
                    to(0, _mm512_castsi512_si256(a));
                    to(1, _mm512_extracti64x4_epi64::<1>(a));
                    to(2, _mm512_castsi512_si256(b));
                    to(3, _mm512_extracti64x4_epi64::<1>(b));
                }
                _ => {
                    for (j, x) in v.iter().enumerate() {
                        Zmm::scatter(p, off + 16 * j, *x);
                    }
                }
            }
        }
    }
    #[inline(always)]
    unsafe fn gather(p: &[*const u8; 4], off: usize) -> Self {
        // SAFETY: AVX-512F and 16 readable bytes at each `p[l] + off`
        // (caller).
        unsafe { Zmm::gather_impl(p, off) }
    }

    #[inline(always)]
    unsafe fn scatter(p: &[*mut u8; 4], off: usize, v: Self) {
        // SAFETY: 16 writable bytes at each `p[l] + off` (caller), written
        // by `VEXTRACTI32X4` to memory (a store, no shuffle uop); AVX-512F
        // (caller).
        unsafe {
            let to = |l: usize, x: __m128i| _mm_storeu_si128(p[l].add(off).cast(), x);
            to(0, _mm512_castsi512_si128(v.0));
            to(1, _mm512_extracti32x4_epi32::<1>(v.0));
            to(2, _mm512_extracti32x4_epi32::<2>(v.0));
            to(3, _mm512_extracti32x4_epi32::<3>(v.0));
        }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX-512F (caller).
        Zmm(unsafe { _mm512_setzero_si512() })
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes and AVX-512F.
        Zmm(unsafe { _mm512_loadu_si512(p as *const _) })
    }
    #[inline(always)]
    unsafe fn broadcast_keys(rk: &[[u8; 16]]) -> [Self; MAX_RK] {
        // SAFETY: AVX-512F (caller).
        unsafe { v512::broadcast_keys(rk) }.map(Zmm)
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: 64 writable bytes (caller).
        unsafe { _mm512_storeu_si512(p as *mut _, v.0) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F (caller).
        Zmm(unsafe { _mm512_xor_si512(a.0, b.0) })
    }
    #[inline(always)]
    unsafe fn enc(a: Self, k: Self) -> Self {
        // SAFETY: AVX-512F and VAES (caller).
        Zmm(unsafe { _mm512_aesenc_epi128(a.0, k.0) })
    }
    #[inline(always)]
    unsafe fn enc_last(a: Self, k: Self) -> Self {
        // SAFETY: AVX-512F and VAES (caller).
        Zmm(unsafe { _mm512_aesenclast_epi128(a.0, k.0) })
    }
    #[inline(always)]
    unsafe fn barrier(v: &mut Self) {
        // SAFETY: AVX-512F (caller).
        unsafe { Zmm::barrier_impl(v) }
    }
    #[inline(always)]
    unsafe fn enc_row<const GR: usize, const R: usize>(a: Self, rows: *const u8) -> Self {
        // SAFETY: the row is 64 readable bytes (caller); AVX-512F, VAES
        // (caller).
        unsafe { Zmm::enc_row_impl::<GR, R, false>(a, rows) }
    }
    #[inline(always)]
    unsafe fn enc_last_row<const GR: usize, const R: usize>(a: Self, rows: *const u8) -> Self {
        // SAFETY: as `enc_row`.
        unsafe { Zmm::enc_row_impl::<GR, R, true>(a, rows) }
    }
    #[inline(always)]
    unsafe fn cbc_pairs8<const NR: usize>(
        src: &[[*const u8; 4]; 8],
        dst: &[[*mut u8; 4]; 8],
        rows: *const u8,
        st: &mut [Self; 8],
        iters: usize,
        shared_pointers: bool,
    ) -> bool {
        // SAFETY: the caller's contract (`Quad::cbc_pairs8`); AVX-512F and
        // VAES (caller).
        unsafe { Zmm::cbc_pairs8_impl::<NR>(src, dst, rows, st, iters, shared_pointers) };
        true
    }
}

impl Zmm {
    /// [`Quad::cbc_pairs8`]: one `asm!` loop, so that no input spills and
    /// the order is the one written. Chains in zmm0-7, a batch's inputs
    /// (then outputs) in zmm8-23 (group `c`: blocks 0 and 1 in zmm`8+2c`,
    /// zmm`9+2c`), the store permutations in zmm29-30. Per batch: each
    /// group's two blocks of four lanes by two 32-byte loads, two
    /// `VINSERTI64X4` and two `VSHUFI64X2`; per block `VPTERNLOGQ` (input,
    /// chaining value, round key 0) and the rounds with the key rows as
    /// memory operands; the outputs back by two `VPERMT2Q` and 32-byte
    /// stores. Lane pointers are read from a table per access (sixteen
    /// general registers do not hold 64 of them).
    ///
    /// With `shared_pointers`, and when every lane's output lies at the
    /// same distance from its input (in place: none; or buffers allocated
    /// in step), one pointer per lane serves both: each lane's outputs are
    /// stored and its next inputs loaded right after one pointer read, and
    /// the next batch is in registers before the loop turns. Otherwise the
    /// loop reads a source and a destination pointer per lane, stores the
    /// batch, and loads the next one at the head of the loop. Which is
    /// faster depends on where the data is (see
    /// `MultiStream::with_shared_lane_pointers`).
    ///
    /// # Safety
    /// AVX-512F and VAES; `2 iters` blocks readable at every `src` lane
    /// and writable at every `dst` lane; `rows` as [`Quad::enc_row`] for
    /// groups 0-7 and `NR` rounds.
    #[inline]
    #[target_feature(enable = "avx512f,vaes")]
    unsafe fn cbc_pairs8_impl<const NR: usize>(
        src: &[[*const u8; 4]; 8],
        dst: &[[*mut u8; 4]; 8],
        rows: *const u8,
        st: &mut [Self; 8],
        iters: usize,
        shared_pointers: bool,
    ) {
        /// Qword indices of `VPERMT2Q`: lanes 0, 1 and 2, 3 of two
        /// quads of blocks 0 and 1 as two 32-byte rows per lane.
        #[repr(C, align(64))]
        struct Perm([u64; 16]);
        static PERM: Perm = Perm([0, 1, 8, 9, 2, 3, 10, 11, 12, 13, 4, 5, 14, 15, 6, 7]);
        // The assembler macros both loops share: `MS_LD c, a, b, off`
        // loads group `c`'s next two blocks (at `off` from each lane's
        // source pointer) transposed into zmm `a` and zmm `b`;
        // `MS_PERM a, b` turns a group's outputs (blocks 0 and 1 in zmm `a`,
        // zmm `b`) into lanes 0, 1 as zmm31 and lanes 2, 3 as zmm `b`, 32
        // bytes per lane; `MS_BLOCK x0 .. x7` runs one block of every chain
        // (inputs zmm `x0` .. `x7`, which then hold the outputs);
        // `MS_LD8 off` loads all eight groups into zmm8-23, `MS_BLOCKS`
        // runs both blocks of the batch, and `MS_EACH m` applies the
        // group macro `m` (`c, a, b`) to every group.
        macro_rules! cbc8_macros {
            () => {
                concat!(
                    ".macro MS_LD c, a, b, off\n",
                    "mov r9, qword ptr [{tab} + 8*(4*\\c)]\n",
                    "vmovdqu64 ymm\\a, ymmword ptr [r9 + \\off]\n",
                    "mov r9, qword ptr [{tab} + 8*(4*\\c+1)]\n",
                    "vinserti64x4 zmm\\a, zmm\\a, ymmword ptr [r9 + \\off], 1\n",
                    "mov r9, qword ptr [{tab} + 8*(4*\\c+2)]\n",
                    "vmovdqu64 ymm31, ymmword ptr [r9 + \\off]\n",
                    "mov r9, qword ptr [{tab} + 8*(4*\\c+3)]\n",
                    "vinserti64x4 zmm31, zmm31, ymmword ptr [r9 + \\off], 1\n",
                    "vshufi64x2 zmm\\b, zmm\\a, zmm31, 0xdd\n",
                    "vshufi64x2 zmm\\a, zmm\\a, zmm31, 0x88\n",
                    ".endm\n",
                    ".macro MS_PERM a, b\n",
                    "vmovdqa64 zmm31, zmm\\a\n",
                    "vpermt2q zmm31, zmm29, zmm\\b\n",
                    "vpermt2q zmm\\b, zmm30, zmm\\a\n",
                    ".endm\n",
                    ".macro MS_BLOCK x0, x1, x2, x3, x4, x5, x6, x7\n",
                    "vpternlogq zmm0, zmm\\x0, zmmword ptr [{k} + 64*(0*{mrk})], 0x96\n",
                    "vpternlogq zmm1, zmm\\x1, zmmword ptr [{k} + 64*(1*{mrk})], 0x96\n",
                    "vpternlogq zmm2, zmm\\x2, zmmword ptr [{k} + 64*(2*{mrk})], 0x96\n",
                    "vpternlogq zmm3, zmm\\x3, zmmword ptr [{k} + 64*(3*{mrk})], 0x96\n",
                    "vpternlogq zmm4, zmm\\x4, zmmword ptr [{k} + 64*(4*{mrk})], 0x96\n",
                    "vpternlogq zmm5, zmm\\x5, zmmword ptr [{k} + 64*(5*{mrk})], 0x96\n",
                    "vpternlogq zmm6, zmm\\x6, zmmword ptr [{k} + 64*(6*{mrk})], 0x96\n",
                    "vpternlogq zmm7, zmm\\x7, zmmword ptr [{k} + 64*(7*{mrk})], 0x96\n",
                    ".irp r,1,2,3,4,5,6,7,8,9,10,11,12,13\n",
                    ".if \\r < {nr}\n",
                    ".irp c,0,1,2,3,4,5,6,7\n",
                    "vaesenc zmm\\c, zmm\\c, zmmword ptr [{k} + 64*(\\c*{mrk}+\\r)]\n",
                    ".endr\n",
                    ".endif\n",
                    ".endr\n",
                    ".irp c,0,1,2,3,4,5,6,7\n",
                    "vaesenclast zmm\\c, zmm\\c, zmmword ptr [{k} + 64*(\\c*{mrk}+{nr})]\n",
                    ".endr\n",
                    "vmovdqa64 zmm\\x0, zmm0\n",
                    "vmovdqa64 zmm\\x1, zmm1\n",
                    "vmovdqa64 zmm\\x2, zmm2\n",
                    "vmovdqa64 zmm\\x3, zmm3\n",
                    "vmovdqa64 zmm\\x4, zmm4\n",
                    "vmovdqa64 zmm\\x5, zmm5\n",
                    "vmovdqa64 zmm\\x6, zmm6\n",
                    "vmovdqa64 zmm\\x7, zmm7\n",
                    ".endm\n",
                    ".macro MS_LD8 off\n",
                    "MS_LD 0, 8, 9, \\off\n",
                    "MS_LD 1, 10, 11, \\off\n",
                    "MS_LD 2, 12, 13, \\off\n",
                    "MS_LD 3, 14, 15, \\off\n",
                    "MS_LD 4, 16, 17, \\off\n",
                    "MS_LD 5, 18, 19, \\off\n",
                    "MS_LD 6, 20, 21, \\off\n",
                    "MS_LD 7, 22, 23, \\off\n",
                    ".endm\n",
                    ".macro MS_BLOCKS\n",
                    "MS_BLOCK 8, 10, 12, 14, 16, 18, 20, 22\n",
                    "MS_BLOCK 9, 11, 13, 15, 17, 19, 21, 23\n",
                    ".endm\n",
                    ".macro MS_EACH m\n",
                    "\\m 0, 8, 9\n",
                    "\\m 1, 10, 11\n",
                    "\\m 2, 12, 13\n",
                    "\\m 3, 14, 15\n",
                    "\\m 4, 16, 17\n",
                    "\\m 5, 18, 19\n",
                    "\\m 6, 20, 21\n",
                    "\\m 7, 22, 23\n",
                    ".endm\n",
                    "vmovdqa64 zmm29, zmmword ptr [{p}]\n",
                    "vmovdqa64 zmm30, zmmword ptr [{p} + 64]\n",
                    ".irp c,0,1,2,3,4,5,6,7\n",
                    "vmovdqa64 zmm\\c, zmmword ptr [{s} + 64*\\c]\n",
                    ".endr",
                )
            };
        }
        // The end of both loops: the next batch's offset, the loop, the
        // chains back to memory, the shared macros purged.
        macro_rules! cbc8_end {
            () => {
                concat!(
                    "add r8, 32\n",
                    "dec rcx\n",
                    "jnz 2b\n",
                    ".irp c,0,1,2,3,4,5,6,7\n",
                    "vmovdqa64 zmmword ptr [{s} + 64*\\c], zmm\\c\n",
                    ".endr\n",
                    ".purgem MS_LD\n",
                    ".purgem MS_PERM\n",
                    ".purgem MS_BLOCK\n",
                    ".purgem MS_LD8\n",
                    ".purgem MS_BLOCKS\n",
                    ".purgem MS_EACH",
                )
            };
        }
        let delta = dst[0][0].addr().wrapping_sub(src[0][0].addr());
        let one_pointer = shared_pointers
            && (0..32).all(|i| {
                dst[i / 4][i % 4]
                    .addr()
                    .wrapping_sub(src[i / 4][i % 4].addr())
                    == delta
            });
        let mut tab = [0usize; 64];
        for g in 0..8 {
            for l in 0..4 {
                tab[4 * g + l] = src[g][l] as usize;
                tab[32 + 4 * g + l] = dst[g][l] as usize;
            }
        }
        #[repr(C, align(64))]
        struct Chains([__m512i; 8]);
        let mut chains = Chains(st.map(|z| z.0));
        if one_pointer {
            // SAFETY: reads `2 iters` blocks at every source lane (the
            // last batch loads itself again instead of the blocks after
            // it) and the key rows, writes `2 iters` blocks at every
            // destination lane (source + `delta`; the caller vouches for
            // all of them) and the chains (a local); the clobbered
            // registers are declared (`clobber_abi`).
            unsafe {
                core::arch::asm!(
                    cbc8_macros!(),
                    // Group c's outputs to [lane + r11], then its next
                    // inputs from [lane + r10], one pointer read per lane.
                    ".macro MS_STLD c, a, b",
                    "MS_PERM \\a, \\b",
                    "mov r9, qword ptr [{tab} + 8*(4*\\c)]",
                    "vmovdqu64 ymmword ptr [r9 + r11], ymm31",
                    "vmovdqu64 ymm\\a, ymmword ptr [r9 + r10]",
                    "mov r9, qword ptr [{tab} + 8*(4*\\c+1)]",
                    "vextracti64x4 ymmword ptr [r9 + r11], zmm31, 1",
                    "vinserti64x4 zmm\\a, zmm\\a, ymmword ptr [r9 + r10], 1",
                    "mov r9, qword ptr [{tab} + 8*(4*\\c+2)]",
                    "vmovdqu64 ymmword ptr [r9 + r11], ymm\\b",
                    "vmovdqu64 ymm31, ymmword ptr [r9 + r10]",
                    "mov r9, qword ptr [{tab} + 8*(4*\\c+3)]",
                    "vextracti64x4 ymmword ptr [r9 + r11], zmm\\b, 1",
                    "vinserti64x4 zmm31, zmm31, ymmword ptr [r9 + r10], 1",
                    "vshufi64x2 zmm\\b, zmm\\a, zmm31, 0xdd",
                    "vshufi64x2 zmm\\a, zmm\\a, zmm31, 0x88",
                    ".endm",
                    "MS_LD8 r8",
                    "2:",
                    // The next batch's offset (this one's again at the
                    // last), and the outputs' offset.
                    "lea r10, [r8 + 32]",
                    "cmp rcx, 1",
                    "cmove r10, r8",
                    "lea r11, [r8 + {delta}]",
                    "MS_BLOCKS",
                    "MS_EACH MS_STLD",
                    cbc8_end!(),
                    ".purgem MS_STLD",
                    p = in(reg) PERM.0.as_ptr(),
                    s = in(reg) chains.0.as_mut_ptr(),
                    tab = in(reg) tab.as_ptr(),
                    k = in(reg) rows,
                    delta = in(reg) delta,
                    inout("r8") 0usize => _,
                    inout("rcx") iters => _,
                    out("r9") _,
                    out("r10") _,
                    out("r11") _,
                    nr = const NR,
                    mrk = const MAX_RK,
                    clobber_abi("C"),
                    options(nostack)
                );
            }
        } else {
            // SAFETY: reads `2 iters` blocks at every source lane and the
            // key rows, writes `2 iters` blocks at every destination lane
            // (the caller vouches for all of them) and the chains (a
            // local); the clobbered registers are declared (`clobber_abi`).
            unsafe {
                core::arch::asm!(
                    cbc8_macros!(),
                    // Group c's outputs to its destination pointers.
                    ".macro MS_ST c, a, b",
                    "MS_PERM \\a, \\b",
                    "mov r9, qword ptr [{tab} + 8*(32+4*\\c)]",
                    "vmovdqu64 ymmword ptr [r9 + r8], ymm31",
                    "mov r9, qword ptr [{tab} + 8*(32+4*\\c+1)]",
                    "vextracti64x4 ymmword ptr [r9 + r8], zmm31, 1",
                    "mov r9, qword ptr [{tab} + 8*(32+4*\\c+2)]",
                    "vmovdqu64 ymmword ptr [r9 + r8], ymm\\b",
                    "mov r9, qword ptr [{tab} + 8*(32+4*\\c+3)]",
                    "vextracti64x4 ymmword ptr [r9 + r8], zmm\\b, 1",
                    ".endm",
                    "2:",
                    "MS_LD8 r8",
                    "MS_BLOCKS",
                    "MS_EACH MS_ST",
                    cbc8_end!(),
                    ".purgem MS_ST",
                    p = in(reg) PERM.0.as_ptr(),
                    s = in(reg) chains.0.as_mut_ptr(),
                    tab = in(reg) tab.as_ptr(),
                    k = in(reg) rows,
                    inout("r8") 0usize => _,
                    inout("rcx") iters => _,
                    out("r9") _,
                    nr = const NR,
                    mrk = const MAX_RK,
                    clobber_abi("C"),
                    options(nostack)
                );
            }
        }
        *st = chains.0.map(Zmm);
    }

    /// [`Quad::gather`]: lane 0 by a zero-masked `VBROADCASTI32X4` (so
    /// the other lanes are zero; AVX-512F alone, no VL for an EVEX xmm
    /// load), lanes 1–3 by `VBROADCASTI32X4` loads merge-masked into the
    /// same register: four load uops and no OR, shuffle or logic
    /// op on the vector ports (zero-masked loads ORed together cost two
    /// 512-bit logic ops per quad, which the Zen 4 model puts on the AES
    /// ports). The merges chain only their blends, not the loads, and the
    /// kernel gathers a block one step ahead, off the CBC chain. One
    /// `asm!` block: LLVM turns the intrinsic form into
    /// `VINSERTI128`/`VINSERTI64X4` shuffles. Not `pure`, so that it stays
    /// where the kernel puts it among the rounds (a `pure` block may be
    /// moved, and LLVM hoists all of a step's gathers and spills).
    ///
    /// # Safety
    /// 16 readable bytes at each `p[l] + off`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn gather_impl(p: &[*const u8; 4], off: usize) -> Self {
        let v: __m512i;
        // SAFETY: reads the 16 bytes at each `p[l] + off` (readable:
        // caller) into lane `l` of `v`; writes only its register operand,
        // no memory, stack or flags.
        unsafe {
            core::arch::asm!(
                "vbroadcasti32x4 {v}{{{k0}}}{{z}}, xmmword ptr [{p0} + {o}]",
                "vbroadcasti32x4 {v}{{{k1}}}, xmmword ptr [{p1} + {o}]",
                "vbroadcasti32x4 {v}{{{k2}}}, xmmword ptr [{p2} + {o}]",
                "vbroadcasti32x4 {v}{{{k3}}}, xmmword ptr [{p3} + {o}]",
                v = out(zmm_reg) v,
                k0 = in(kreg) 0x000Fu16,
                k1 = in(kreg) 0x00F0u16,
                k2 = in(kreg) 0x0F00u16,
                k3 = in(kreg) 0xF000u16,
                p0 = in(reg) p[0],
                p1 = in(reg) p[1],
                p2 = in(reg) p[2],
                p3 = in(reg) p[3],
                o = in(reg) off,
                options(readonly, nostack, preserves_flags)
            );
        }
        Zmm(v)
    }

    /// [`Quad::enc_row`] (`LAST`: [`Quad::enc_last_row`]): `VAESENC` with
    /// the row as its memory operand, at a constant offset from `rows`,
    /// so that no key occupies a register. Not `pure`: the rounds stay in
    /// the order the kernel writes them.
    ///
    /// # Safety
    /// 64 readable bytes at `rows + 64 (GR · MAX_RK + R)`.
    #[inline]
    #[target_feature(enable = "avx512f,vaes")]
    unsafe fn enc_row_impl<const GR: usize, const R: usize, const LAST: bool>(
        a: Self,
        rows: *const u8,
    ) -> Self {
        let mut x = a.0;
        // SAFETY: reads the 64 bytes of the row (readable: caller); writes
        // only its register operand, no memory, stack or flags.
        unsafe {
            macro_rules! round_from_row {
                ($op:literal) => {
                    core::arch::asm!(
                        concat!($op, " {x}, {x}, zmmword ptr [{k} + {o}]"),
                        x = inout(zmm_reg) x,
                        k = in(reg) rows,
                        o = const 64 * (GR * MAX_RK + R),
                        options(readonly, nostack, preserves_flags)
                    )
                };
            }
            if LAST {
                round_from_row!("vaesenclast");
            } else {
                round_from_row!("vaesenc");
            }
        }
        Zmm(x)
    }

    /// [`Quad::barrier`] (the `zmm_reg` class needs the feature here).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn barrier_impl(v: &mut Self) {
        // SAFETY: an empty instruction sequence that reads and writes one
        // zmm register in place; it touches no memory, stack or flags.
        unsafe {
            core::arch::asm!("/* {0} */", inout(zmm_reg) v.0, options(nomem, nostack, preserves_flags));
        }
    }
}

/// A group as two ymm registers (lanes 0–1 in the first, 2–3 in the
/// second): VAES on CPUs with AVX2 but without AVX-512.
#[derive(Clone, Copy)]
pub(super) struct Ymm2([__m256i; 2]);

impl Ymm2 {
    /// [`Quad::barrier`] (the `ymm_reg` class needs the feature here).
    #[inline]
    #[target_feature(enable = "avx")]
    fn barrier_impl(v: &mut Self) {
        for y in v.0.iter_mut() {
            // SAFETY: an empty instruction sequence that reads and writes
            // one ymm register in place; it touches no memory, stack or
            // flags.
            unsafe {
                core::arch::asm!(
                    "/* {0} */",
                    inout(ymm_reg) * y,
                    options(nomem, nostack, preserves_flags)
                );
            }
        }
    }
}

impl Quad for Ymm2 {
    const PREFETCH: bool = false;
    #[inline(always)]
    unsafe fn gather(p: &[*const u8; 4], off: usize) -> Self {
        // SAFETY: 16 readable bytes at each `p[l] + off` (caller); AVX2.
        unsafe {
            let pair = |a: *const u8, b: *const u8| {
                let lo = _mm256_castsi128_si256(_mm_loadu_si128(a.add(off).cast()));
                _mm256_inserti128_si256::<1>(lo, _mm_loadu_si128(b.add(off).cast()))
            };
            Ymm2([pair(p[0], p[1]), pair(p[2], p[3])])
        }
    }
    #[inline(always)]
    unsafe fn scatter(p: &[*mut u8; 4], off: usize, v: Self) {
        // SAFETY: 16 writable bytes at each `p[l] + off` (caller); AVX2.
        unsafe {
            let to = |l: usize, x: __m128i| _mm_storeu_si128(p[l].add(off).cast(), x);
            to(0, _mm256_castsi256_si128(v.0[0]));
            to(1, _mm256_extracti128_si256::<1>(v.0[0]));
            to(2, _mm256_castsi256_si128(v.0[1]));
            to(3, _mm256_extracti128_si256::<1>(v.0[1]));
        }
    }
    register_array_ops! {
        __m256i,
        zero: _mm256_setzero_si256,
        load: _mm256_loadu_si256,
        store: _mm256_storeu_si256,
        xor: _mm256_xor_si256,
        enc: _mm256_aesenc_epi128,
        enc_last: _mm256_aesenclast_epi128,
    }
    #[inline(always)]
    unsafe fn broadcast_keys(rk: &[[u8; 16]]) -> [Self; MAX_RK] {
        // SAFETY: AVX2 (caller).
        unsafe { v256::broadcast_keys(rk) }.map(|k| Ymm2([k, k]))
    }
    #[inline(always)]
    unsafe fn barrier(v: &mut Self) {
        // SAFETY: AVX (caller).
        unsafe { Ymm2::barrier_impl(v) }
    }
}

/// A group as four xmm registers (lane `l` = register `l`).
#[derive(Clone, Copy)]
pub(super) struct Xmm4([__m128i; 4]);

impl Quad for Xmm4 {
    // Four loads either way; one block at a time needs fewer registers.
    // Not with 16 xmm registers (it spills), but in the unit tests, where
    // the 32-lane emulation of the VAES kernel runs on these quads.
    const PREFETCH: bool = cfg!(test);
    register_array_ops! {
        __m128i,
        zero: _mm_setzero_si128,
        load: _mm_loadu_si128,
        store: _mm_storeu_si128,
        xor: _mm_xor_si128,
        enc: _mm_aesenc_si128,
        enc_last: _mm_aesenclast_si128,
    }
    #[inline(always)]
    unsafe fn broadcast_keys(rk: &[[u8; 16]]) -> [Self; MAX_RK] {
        // SAFETY: SSE2 (caller).
        unsafe { v128::load_keys(rk) }.map(|k| Xmm4([k; 4]))
    }
    #[inline(always)]
    unsafe fn gather(p: &[*const u8; 4], off: usize) -> Self {
        // SAFETY: 16 readable bytes at each `p[l] + off` (caller); SSE2.
        Xmm4(core::array::from_fn(|l| unsafe {
            _mm_loadu_si128(p[l].add(off).cast())
        }))
    }
    #[inline(always)]
    unsafe fn scatter(p: &[*mut u8; 4], off: usize, v: Self) {
        for (q, x) in p.iter().zip(v.0) {
            // SAFETY: 16 writable bytes at `q + off` (caller); SSE2. In lane
            // order, so for equal pointers the last lane's block stays.
            unsafe { _mm_storeu_si128(q.add(off).cast(), x) }
        }
    }
    #[inline(always)]
    unsafe fn barrier(v: &mut Self) {
        v128::round_barrier(&mut v.0);
    }
}

/// A kernel entry point: `(ctx, active, n)`.
pub(super) type Kernel = unsafe fn(&mut LaneCtx, usize, usize);

/// Kernel entry points: `name: quad type, target features, what`, each
/// running [`quad::run`] on its quad type with its CPU features enabled.
macro_rules! entry_points {
    ($($name:ident: $q:ty, $feat:literal, $what:literal;)+) => {$(
        #[doc = concat!("The ", $what, " kernel for `G` groups.")]
        ///
        /// # Safety
        #[doc = concat!("The CPU has `", $feat, "`; the contract of [`quad::run`].")]
        #[target_feature(enable = $feat)]
        unsafe fn $name<
            const G: usize,
            const MODE: u8,
            const NR: usize,
            const SHARED: bool,
            const B: usize,
        >(
            ctx: &mut LaneCtx,
            active: usize,
            n: usize,
        ) {
            // SAFETY: the caller's contract.
            unsafe { quad::run::<$q, G, MODE, NR, SHARED, B>(ctx, active, n) }
        }
    )+};
}

entry_points! {
    zmm: Zmm, "avx512f,vaes,aes", "VAES";
    ymm: Ymm2, "avx2,vaes,aes", "256-bit VAES";
    xmm: Xmm4, "aes,sse2", "AES-NI";
    xmm_vex: Xmm4, "aes,avx", "AES-NI, VEX-encoded (three-operand forms, no register copies)";
}

/// `$f::<G, MODE, NR, SHARED, B>` for runtime values: `(G, B)` must be one
/// of the listed (group count, batch) pairs.
macro_rules! pick {
    ($f:ident, $g:expr, $b:expr, $mode:expr, $nr:expr, $shared:expr, [$(($G:literal, $B:literal)),+]) => {{
        macro_rules! s {
            ($GG:literal, $BB:literal, $M:expr, $N:literal) => {
                if $shared {
                    $f::<$GG, { $M }, $N, true, $BB> as Kernel
                } else {
                    $f::<$GG, { $M }, $N, false, $BB> as Kernel
                }
            };
        }
        macro_rules! n {
            ($GG:literal, $BB:literal, $M:expr) => {
                match $nr {
                    10 => s!($GG, $BB, $M, 10),
                    12 => s!($GG, $BB, $M, 12),
                    _ => s!($GG, $BB, $M, 14),
                }
            };
        }
        macro_rules! m {
            ($GG:literal, $BB:literal) => {
                match $mode {
                    CBC_ENC => n!($GG, $BB, CBC_ENC),
                    CFB_ENC => n!($GG, $BB, CFB_ENC),
                    CFB_DEC => n!($GG, $BB, CFB_DEC),
                    _ => n!($GG, $BB, OFB),
                }
            };
        }
        let (g, b) = ($g, $b);
        let mut k = None;
        $( if k.is_none() && g == $G && b == $B { k = Some(m!($G, $B)); } )+
        k.expect("a (groups, batch) pair the kernel is built for")
    }};
}

/// Group counts the VAES kernel is built for (a call with fewer groups
/// runs the next size up with idle groups: below 8 groups the chains are
/// latency-bound, so the idle ones cost no AES throughput).
pub(super) const ZMM_GROUPS: [usize; 4] = [1, 2, 4, 8];
/// Group counts of the AES-NI kernel (8 lanes at most).
#[cfg_attr(test, allow(dead_code))]
pub(super) const XMM_GROUPS: [usize; 2] = [1, 2];

/// The (group count, batch) pairs the VAES kernel is built for: every
/// [`Batch::blocks`] of [`ZMM_GROUPS`].
macro_rules! zmm_pairs {
    ($f:ident, $g:expr, $b:expr, $mode:expr, $nr:expr, $shared:expr) => {
        pick!(
            $f,
            $g,
            $b,
            $mode,
            $nr,
            $shared,
            [(1, 2), (2, 2), (4, 2), (4, 1), (8, 2)]
        )
    };
}

/// The VAES kernel for at least `groups` groups with `batch`; returns it
/// and its group count.
pub(super) fn zmm_kernel(
    groups: usize,
    mode: u8,
    nr: usize,
    shared: bool,
    batch: Batch,
) -> (Kernel, usize) {
    assert!(matches!(nr, 10 | 12 | 14) && mode <= OFB && (1..=8).contains(&groups));
    let g = round_up(groups, &ZMM_GROUPS);
    (zmm_pairs!(zmm, g, batch.blocks(g), mode, nr, shared), g)
}

/// Group counts of the 256-bit VAES kernel (16 lanes: 8 ymm chains, what
/// 16 ymm registers hold beside the round keys' memory operands).
pub(super) const YMM_GROUPS: [usize; 3] = [1, 2, 4];

/// The 256-bit VAES kernel for at least `groups` groups (keys stay in
/// memory: 16 ymm registers hold the chains, not the round keys too; one
/// block at a time).
pub(super) fn ymm_kernel(groups: usize, mode: u8, nr: usize) -> (Kernel, usize) {
    assert!(matches!(nr, 10 | 12 | 14) && mode <= OFB && (1..=4).contains(&groups));
    let g = round_up(groups, &YMM_GROUPS);
    (
        pick!(ymm, g, 1, mode, nr, false, [(1, 1), (2, 1), (4, 1)]),
        g,
    )
}

/// The AES-NI kernel for at least `groups` groups (1 or 2, one block at a
/// time; in the test build up to 8 with the VAES kernel's batches, the
/// 32-lane emulation of the VAES kernel, which also honours `shared` so
/// that the VAES kernel's shared-key path is tested on CPUs without VAES).
/// In the normal build the keys stay in memory (16 xmm registers are not
/// enough for 8 chains and the round keys).
pub(super) fn xmm_kernel(
    groups: usize,
    mode: u8,
    nr: usize,
    shared: bool,
    vex: bool,
    batch: Batch,
) -> (Kernel, usize) {
    assert!(matches!(nr, 10 | 12 | 14) && mode <= OFB);
    #[cfg(test)]
    {
        assert!((1..=8).contains(&groups));
        let g = round_up(groups, &ZMM_GROUPS);
        let b = batch.blocks(g);
        let k = if vex {
            zmm_pairs!(xmm_vex, g, b, mode, nr, shared)
        } else {
            zmm_pairs!(xmm, g, b, mode, nr, shared)
        };
        (k, g)
    }
    #[cfg(not(test))]
    {
        assert!((1..=2).contains(&groups), "AES-NI kernel runs 1..=2 groups");
        let _ = (shared, batch);
        let g = round_up(groups, &XMM_GROUPS);
        let k = if vex {
            pick!(xmm_vex, g, 1, mode, nr, false, [(1, 1), (2, 1)])
        } else {
            pick!(xmm, g, 1, mode, nr, false, [(1, 1), (2, 1)])
        };
        (k, g)
    }
}

fn round_up(g: usize, sizes: &[usize]) -> usize {
    *sizes
        .iter()
        .find(|&&s| s >= g)
        .expect("group count within range")
}

/// Encrypt one block (the shared AES-NI round sequence of
/// `aesflow-cipher`).
///
/// # Safety
/// The CPU must support AES-NI and SSE2.
#[target_feature(enable = "aes,sse2")]
pub(super) unsafe fn encrypt_block(keys: &Sched<'_>, block: &mut [u8; 16]) {
    let k = v128::load_keys(keys.enc());
    let mut x = [v128::load(block)];
    match keys.nr() {
        10 => v128::enc_n::<10, 1>(&mut x, &k),
        12 => v128::enc_n::<12, 1>(&mut x, &k),
        _ => v128::enc_n::<14, 1>(&mut x, &k),
    }
    v128::store(block, x[0]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Zmm::gather`] and [`Zmm::scatter`] on buffers `bufs` at byte
    /// offset `off`: the gathered 64 bytes and the four output buffers after
    /// scattering them into `outs` (the pointers `to` index `outs`).
    ///
    /// # Safety
    /// AVX-512F; `off + 16` within every buffer.
    #[target_feature(enable = "avx512f")]
    unsafe fn round_trip(
        bufs: &[Vec<u8>; 4],
        outs: &mut [Vec<u8>; 4],
        to: [usize; 4],
        off: usize,
    ) -> [u8; 64] {
        let p = bufs.each_ref().map(|b| b.as_ptr());
        let q: Vec<*mut u8> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
        let mut g = [0u8; 64];
        // SAFETY: `off + 16` within every buffer (caller); AVX-512F
        // (caller).
        unsafe {
            let v = Zmm::gather(&p, off);
            Zmm::store(g.as_mut_ptr(), v);
            Zmm::scatter(&to.map(|i| q[i]), off, v);
        }
        g
    }

    /// [`Zmm::load_cols`] and [`Zmm::store_cols`] for `B` blocks at offset
    /// `off` of four buffers: the loaded quads (as 64-byte arrays) and the
    /// four output buffers after storing them into `outs` at `to`.
    ///
    /// # Safety
    /// AVX-512F; `off + 16 B` within every buffer.
    #[target_feature(enable = "avx512f")]
    unsafe fn cols_round_trip<const B: usize>(
        bufs: &[Vec<u8>; 4],
        outs: &mut [Vec<u8>; 4],
        to: [usize; 4],
        off: usize,
    ) -> [[u8; 64]; B] {
        let p = bufs.each_ref().map(|b| b.as_ptr());
        let q: Vec<*mut u8> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
        let mut g = [[0u8; 64]; B];
        // SAFETY: `off + 16 B` within every buffer (caller); AVX-512F
        // (caller).
        unsafe {
            let v = Zmm::load_cols::<B>(&p, off);
            for (d, x) in g.iter_mut().zip(&v) {
                Zmm::store(d.as_mut_ptr(), *x);
            }
            Zmm::store_cols::<B>(&to.map(|i| q[i]), off, &v);
        }
        g
    }

    /// The batched path's 512-bit loads and stores: 2 blocks per stream
    /// (two 32-byte loads and two shuffles), and the gathers for any other
    /// count, at every offset, to distinct buffers and (idle lanes) several
    /// lanes to one.
    #[test]
    fn zmm_cols_round_trip() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        fn check<const B: usize>() {
            let bufs: [Vec<u8>; 4] =
                core::array::from_fn(|l| (0..160).map(|i| (l * 160 + i * 7 + 3) as u8).collect());
            for to in [[0, 1, 2, 3], [3, 2, 1, 0], [0, 1, 3, 3], [2, 2, 2, 2]] {
                for off in 0..=(160 - 16 * B) {
                    let mut outs: [Vec<u8>; 4] = core::array::from_fn(|_| vec![0u8; 160]);
                    // SAFETY: AVX-512F checked above; off + 16B <= 160.
                    let g = unsafe { cols_round_trip::<B>(&bufs, &mut outs, to, off) };
                    for (j, q) in g.iter().enumerate() {
                        for l in 0..4 {
                            let o = off + 16 * j;
                            assert_eq!(
                                &q[16 * l..16 * l + 16],
                                &bufs[l][o..o + 16],
                                "B={B} col {j} lane {l} at {off}"
                            );
                        }
                    }
                    for (l, &t) in to.iter().enumerate() {
                        // Lanes sharing a buffer: any one of them may stay.
                        if to.iter().filter(|&&u| u == t).count() > 1 {
                            continue;
                        }
                        let mut want = vec![0u8; 160];
                        want[off..off + 16 * B].copy_from_slice(&bufs[l][off..off + 16 * B]);
                        assert_eq!(outs[t], want, "B={B} store lane {l} to {t} at {off}");
                    }
                }
            }
        }
        check::<1>();
        check::<2>();
        check::<3>();
    }

    /// The 512-bit gather (masked broadcasts in `asm!`) and scatter
    /// (extract stores) — AVX-512F only, so this runs on any AVX-512F CPU
    /// (VAES not needed) and skips elsewhere: every offset, lanes to
    /// distinct buffers and (the idle lanes' sink) several lanes to one.
    #[test]
    fn zmm_gather_scatter() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            return;
        }
        let bufs: [Vec<u8>; 4] =
            core::array::from_fn(|l| (0..96).map(|i| (l * 96 + i * 7) as u8).collect());
        for to in [[0, 1, 2, 3], [3, 2, 1, 0], [0, 1, 3, 3], [2, 2, 2, 2]] {
            for off in 0..=80 {
                let mut outs: [Vec<u8>; 4] = core::array::from_fn(|_| vec![0u8; 96]);
                // SAFETY: AVX-512F checked above; off + 16 <= 96.
                let g = unsafe { round_trip(&bufs, &mut outs, to, off) };
                let mut want: [Vec<u8>; 4] = core::array::from_fn(|_| vec![0u8; 96]);
                for l in 0..4 {
                    let block = &bufs[l][off..off + 16];
                    assert_eq!(&g[16 * l..16 * l + 16], block, "gather lane {l} at {off}");
                    // In lane order: for a shared buffer the last lane stays.
                    want[to[l]][off..off + 16].copy_from_slice(block);
                }
                assert_eq!(outs, want, "scatter {to:?} at {off}");
            }
        }
    }
}
