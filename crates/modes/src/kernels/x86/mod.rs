//! x86-64 kernels: the shared body instantiated for 128-bit (AES-NI,
//! PCLMULQDQ, AVX), 256-bit (AVX2, VAES, VPCLMULQDQ) and 512-bit
//! (AVX-512F/BW, VAES, VPCLMULQDQ) registers,
//! the hand-scheduled AES-NI fused GCM kernel (`aesni`), which replaces
//! the 128-bit body's fused kernel in production (that one stays as its test
//! reference), and a whole short message on AVX-512 in one function
//! (`small`).

/// The reduction constant (see `gcm::ghash`).
const GFPOLY: u128 = crate::gcm::ghash::GFPOLY;

use crate::gcm::ghash::POWERS;

/// `pshufb` mask reversing the 16 bytes of each lane.
const BSWAP: u128 = u128::from_le_bytes([15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);

/// Entry `x`: a block of zeros but for `x mod 256` in its last byte (as
/// `u128::from_le_bytes`), for counter blocks in byte order: a counter
/// whose last byte is zero plus `x` < 256 is that block XORed with entry
/// `x`. 256 entries and the 32 after them, so that the fused kernels'
/// loads of a group's offsets (at most 32 from an `x` < 256) stay inside.
static CTR_LOW: &[u128; 288] = &CTR_LOW_PHASED.table;

/// [`CTR_LOW`] placed so that entries 2, 6, 10, … start cache lines: a
/// message's first counter is `J0 + 1`, last byte 2 for a 96-bit nonce,
/// and its groups' offsets in a window stay 2 mod 4, so every 512-bit
/// load of four entries lies within one line (not across two).
#[repr(C, align(64))]
struct Phased {
    _lead: [u128; 2],
    table: [u128; 288],
}

static CTR_LOW_PHASED: Phased = Phased {
    _lead: [0; 2],
    table: {
        let mut t = [0; 288];
        let mut x = 0;
        while x < 288 {
            t[x] = ((x % 256) as u128) << 120;
            x += 1;
        }
        t
    },
};

use core::arch::x86_64::*;

#[macro_use]
mod body;

pub(super) mod aesni;
pub(super) mod small;

/// One call of a fused GCM kernel (`gcm_crypt::<NR>` of `aesni` and of
/// each width): `rk` the NR + 1 round keys, `powers` H^72..H^1 and `hk`
/// the XOR of each one's qwords (`GhashKey`), CTR from
/// counter block `ctr` (32-bit increments) over `data` (whole groups) in
/// place or from `input`, GHASH of the ciphertext from state `x`; the
/// kernel returns the state after it (in registers: a state stored in two
/// halves and loaded whole, or the reverse, stalls on store forwarding).
/// With `finish` (the text is a whole one-shot message: `J0` and the
/// length block, as `u128::from_be_bytes`; not for `aesni`), it returns
/// the full tag instead: `E(J0)` runs beside the first group, the length
/// block is hashed with the state the last ones leave ([`tag_of`]).
pub(crate) struct GcmCall<'a> {
    pub(crate) rk: &'a [[u8; 16]],
    pub(crate) powers: &'a [u128; POWERS],
    pub(crate) hk: &'a [u128; POWERS],
    pub(crate) ctr: [u8; 16],
    pub(crate) x: u128,
    pub(crate) data: &'a mut [u8],
    /// Read the text from here (as long as `data`) and write `data`; `None`:
    /// in place.
    pub(crate) input: Option<&'a [u8]>,
    pub(crate) encrypt: bool,
    pub(crate) finish: Option<(u128, u128)>,
    /// Prefetch the text at every length (`Prefetch::Always`), not only
    /// from `PREFETCH_MIN` on.
    pub(crate) prefetch_always: bool,
    /// Out of place, the output streams to memory (`Prefetch::Stream`: a
    /// part of a buffer larger than the caches): the 512-bit kernels write
    /// its whole cache lines with non-temporal stores where no ciphertext
    /// is read back from it (`body`, `Ctx::nt`).
    pub(crate) stream: bool,
}

/// Block `b` (0..4) of a 512-bit register.
#[inline]
#[target_feature(enable = "avx512f")]
fn block512(x: __m512i, b: usize) -> __m128i {
    match b {
        0 => _mm512_extracti32x4_epi32::<0>(x),
        1 => _mm512_extracti32x4_epi32::<1>(x),
        2 => _mm512_extracti32x4_epi32::<2>(x),
        _ => _mm512_extracti32x4_epi32::<3>(x),
    }
}

/// `V` (a 64-byte register) as `__m512i`.
#[inline]
fn zmm<V: Copy>(v: &V) -> __m512i {
    assert!(size_of::<V>() == 64);
    // SAFETY: `V` is 64 bytes of plain vector data (checked above).
    unsafe { core::mem::transmute_copy::<V, __m512i>(v) }
}

/// Store the 64-byte register `v` at `q` (16-byte aligned, valid for
/// writing 64 bytes, directly after the bytes of `prev` if given) with a
/// non-temporal store (`vmovntdq`: the line is not read for ownership, and
/// goes to memory past the caches) of whole cache lines only. Where `q` is
/// not on a line, the line that holds `q` joins the end of `prev`, the
/// register stored just before at `q - 64`, and the start of `v`
/// (`vpermt2q`); without `prev` (the first register of a call), `v`'s
/// blocks before the line boundary are stored with ordinary 16-byte
/// stores. `v`'s blocks after the boundary wait for the next register, or
/// for `store_tail` after the last. So a call of the kernel reads at most
/// the two part lines at its ends for ownership. (On Zen 5, masked 512-bit
/// stores of the part lines ran the stream about ten times slower, and
/// part lines stored at every group of registers about 30 % slower.) The
/// kernel that calls it ends with `sfence`.
///
/// # Safety
/// The CPU has AVX-512F; `V` is a 64-byte register (`__m512i`); `q` and
/// `prev` are as above.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn store_line_nt<V: Copy>(q: *mut u8, prev: Option<V>, v: V) {
    let s = q as usize % 64;
    let v = zmm(&v);
    if s == 0 {
        // SAFETY: `q` is on a line, valid (caller).
        unsafe { _mm512_stream_si512(q.cast(), v) };
        return;
    }
    // Blocks of `v` before the line boundary it crosses.
    let head = (64 - s) / 16;
    match prev {
        Some(prev) => {
            let c = _mm512_set1_epi64(2 * head as i64);
            let idx = _mm512_add_epi64(c, _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
            let l = _mm512_permutex2var_epi64(zmm(&prev), idx, v);
            // SAFETY: the line that holds `q` starts `s` bytes before it,
            // within `prev`'s bytes (caller).
            unsafe { _mm512_stream_si512(q.sub(s).cast(), l) };
        }
        None => {
            for b in 0..head {
                // SAFETY: block b of `v`, before the line boundary, within
                // the output.
                unsafe { _mm_storeu_si128(q.add(16 * b).cast(), block512(v, b)) };
            }
        }
    }
}

/// The blocks of `v`, the last register `store_line_nt` stored, after
/// the line boundary it crosses (none if `end` is on a line), with
/// ordinary 16-byte stores; `end` is where `v`'s bytes end.
///
/// # Safety
/// The CPU has AVX-512F; `V` is a 64-byte register; `end - 64 .. end` is
/// valid for writing.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn store_tail<V: Copy>(end: *mut u8, v: &V) {
    let s = end as usize % 64;
    for b in (64 - s) / 16..4 {
        // SAFETY: block b of the register, within `end - 64 .. end`.
        unsafe { _mm_storeu_si128(end.sub(64 - 16 * b).cast(), block512(zmm(v), b)) };
    }
}

impl GcmCall<'_> {
    /// The pointers the kernels write (`data`) and read (`input`, or
    /// `data` itself in place); the lengths are checked equal.
    fn pointers(&mut self) -> (*mut u8, *const u8) {
        let p = self.data.as_mut_ptr();
        let src = match self.input {
            Some(i) => {
                assert_eq!(i.len(), self.data.len());
                i.as_ptr()
            }
            None => p.cast_const(),
        };
        (p, src)
    }
}

/// A `u128` as a register (low qword = low 64 bits).
#[inline]
#[target_feature(enable = "sse4.1")]
fn from_u128(x: u128) -> __m128i {
    _mm_set_epi64x((x >> 64) as i64, x as i64)
}

/// A register as a `u128`.
#[inline]
#[target_feature(enable = "sse4.1")]
fn to_u128(v: __m128i) -> u128 {
    let lo = _mm_cvtsi128_si64(v) as u64 as u128;
    let hi = _mm_extract_epi64::<1>(v) as u64 as u128;
    (hi << 64) | lo
}

/// Montgomery reduction (see `gcm::ghash`) of the 256-bit product
/// `hi·y^128 + mi·y^64 + lo` of 128-bit registers, `mi` the sum of the two
/// cross products.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn reduce128(lo: __m128i, mi: __m128i, hi: __m128i) -> __m128i {
    let gf = from_u128(GFPOLY);
    let mi = _mm_xor_si128(
        _mm_xor_si128(mi, _mm_shuffle_epi32::<0x4e>(lo)),
        _mm_clmulepi64_si128::<0x10>(lo, gf),
    );
    _mm_xor_si128(
        _mm_xor_si128(hi, _mm_shuffle_epi32::<0x4e>(mi)),
        _mm_clmulepi64_si128::<0x10>(mi, gf),
    )
}

/// `gcm::ghash::mont_mul` (the Montgomery product `a·b·y^-128`) with
/// PCLMULQDQ: for the powers of H of a new key.
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn mont_mul(a: u128, b: u128) -> u128 {
    let (a, b) = (from_u128(a), from_u128(b));
    let mi = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x01>(a, b),
        _mm_clmulepi64_si128::<0x10>(a, b),
    );
    let (lo, hi) = (
        _mm_clmulepi64_si128::<0x00>(a, b),
        _mm_clmulepi64_si128::<0x11>(a, b),
    );
    to_u128(reduce128(lo, mi, hi))
}

/// GHASH into state `x` of the whole blocks of `data` (a trailing partial
/// block is ignored) followed by the blocks `pad` and `len` if given, as
/// `u128::from_be_bytes` values (a zero-padded partial block, the length
/// block: passed in registers, never stored and reloaded whole, which
/// would stall on store forwarding), at most POWERS blocks in all, with
/// 128-bit PCLMULQDQ: block i of n multiplies H^(n−i) (Karatsuba, `hk`
/// the XOR of each power's qwords: three multiplications a block), one
/// Montgomery reduction (see `gcm::ghash`) for them all. The AAD of a
/// message, the few blocks after the fused kernels' groups, short
/// stand-alone GHASH, and a message's last blocks
/// with the length block (`aesni::finish`).
///
/// # Safety
/// The CPU has PCLMULQDQ and SSE4.1.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) unsafe fn ghash_seq(
    powers: &[u128; POWERS],
    hk: &[u128; POWERS],
    x: u128,
    data: &[u8],
    pad: Option<u128>,
    len: Option<u128>,
) -> u128 {
    let blocks = data.as_chunks::<16>().0;
    let nb = blocks.len();
    let n = nb + usize::from(pad.is_some()) + usize::from(len.is_some());
    assert!(n <= POWERS);
    if n == 0 {
        return x;
    }
    let mask = from_u128(BSWAP);
    let z = _mm_setzero_si128();
    let (mut lo, mut mi, mut hi) = (z, z, z);
    let first = POWERS - n;
    let mut acc = |i: usize, mut d: __m128i| {
        if i == 0 {
            d = _mm_xor_si128(d, from_u128(x));
        }
        let (p, k) = (from_u128(powers[first + i]), from_u128(hk[first + i]));
        let dk = _mm_xor_si128(d, _mm_shuffle_epi32::<0x4e>(d));
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(d, p));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(d, p));
        mi = _mm_xor_si128(mi, _mm_clmulepi64_si128::<0x00>(dk, k));
    };
    for (i, b) in blocks.iter().enumerate() {
        // One load and a byte swap: the block as `u128::from_be_bytes`.
        acc(
            i,
            _mm_shuffle_epi8(from_u128(u128::from_le_bytes(*b)), mask),
        );
    }
    if let Some(e) = pad {
        acc(nb, from_u128(e));
    }
    if let Some(e) = len {
        acc(n - 1, from_u128(e));
    }
    // Karatsuba's middle term, then the reduction.
    let mi = _mm_xor_si128(mi, _mm_xor_si128(lo, hi));
    to_u128(reduce128(lo, mi, hi))
}

/// One block (in a register, in byte order) encrypted with AES-NI from the
/// Nr + 1 round keys `rk`.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn aes_block(rk: &[[u8; 16]], b: __m128i) -> __m128i {
    let k = |i: usize| from_u128(u128::from_le_bytes(rk[i]));
    let last = rk.len() - 1;
    let mut s = _mm_xor_si128(b, k(0));
    for i in 1..last {
        s = _mm_aesenc_si128(s, k(i));
    }
    _mm_aesenclast_si128(s, k(last))
}

/// `E(J0)` (`j0` as `u128::from_be_bytes`) from the round keys `rk` (NR
/// rounds: unrolled), into `out`: the tag's mask, computed by a fused
/// kernel while its first group runs. Out of line: inlined beside the
/// kernel's broadcast of the same keys, LLVM took each key's low lane from
/// its broadcast register and spilled one to the stack; and written
/// through `out`, not returned (a vector returned from a function of other
/// target features goes through a stack temporary, left behind).
#[inline(never)]
#[target_feature(enable = "aes,sse4.1")]
fn e_j0<const NR: usize>(rk: &[[u8; 16]], j0: u128, out: &mut __m128i) {
    assert!(rk.len() > NR);
    let k = |i: usize| from_u128(u128::from_le_bytes(rk[i]));
    let mut s = _mm_xor_si128(from_u128(j0.swap_bytes()), k(0));
    for i in 1..NR {
        s = _mm_aesenc_si128(s, k(i));
    }
    *out = _mm_aesenclast_si128(s, k(NR));
}

/// The full tag of a message (as `u128::from_be_bytes`) from the GHASH
/// state `x` after its text (in a register, as the kernel leaves it), the
/// length block `lens` and `E(J0)` (`ej0`, from [`e_j0`]):
/// `(x ⊕ lens)·H ⊕ E(J0)`, one Karatsuba product and its reduction, all
/// in vector registers (the end of every fused call that ends a message:
/// its latency follows the last group's).
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn tag_of(
    powers: &[u128; POWERS],
    hk: &[u128; POWERS],
    x: __m128i,
    lens: u128,
    ej0: __m128i,
) -> u128 {
    let (h, k) = (from_u128(powers[POWERS - 1]), from_u128(hk[POWERS - 1]));
    let d = _mm_xor_si128(x, from_u128(lens));
    let dk = _mm_xor_si128(d, _mm_shuffle_epi32::<0x4e>(d));
    let lo = _mm_clmulepi64_si128::<0x00>(d, h);
    let hi = _mm_clmulepi64_si128::<0x11>(d, h);
    let mi = _mm_clmulepi64_si128::<0x00>(dk, k);
    // Karatsuba's middle term, then the reduction.
    let s = reduce128(lo, _mm_xor_si128(mi, _mm_xor_si128(lo, hi)), hi);
    // E(J0) in byte order; the state is `u128::from_be_bytes` of it.
    to_u128(_mm_xor_si128(s, _mm_shuffle_epi8(ej0, from_u128(BSWAP))))
}

/// Bytes of stack [`scrub_stack`] zeroes below its caller's stack pointer
/// after the 128-bit `ghash_blocks` (about 0.9 KiB deep in the release
/// build), with a margin. `kernels::residue_tests` checks that it suffices
/// (as for `SCRUB` of the 256-bit kernel and [`SCRUB_FINISH`]).
pub(super) const SCRUB_GHASH: usize = 1280;

/// The same for the end of a message (`aesni::finish`: about
/// 300 bytes deep).
pub(super) const SCRUB_FINISH: usize = 768;

/// Zero the `32 * N` bytes of stack just below the caller's stack pointer, where
/// the frames of the kernel it has just called lay: the registers a kernel
/// spills (AES states, keystream, GHASH sums of products with the powers of
/// H) stay there after it returns, and nothing else overwrites them soon.
/// Called right after the kernel, from the same function, so that this
/// frame covers the kernel's (`N` volatile 32-byte stores).
#[inline(never)]
#[target_feature(enable = "avx")]
pub(super) fn scrub_stack<const N: usize>() {
    let mut z = core::mem::MaybeUninit::<[__m256i; N]>::uninit();
    let p = z.as_mut_ptr().cast::<__m256i>();
    for i in 0..N {
        // SAFETY: element i < N of a local array, aligned for `__m256i`.
        unsafe { core::ptr::write_volatile(p.add(i), _mm256_setzero_si256()) };
    }
}

/// `#[inline]` wrappers `fn name(a: V, b: V) -> V` of two-operand intrinsics
/// for one register width (`width!`).
macro_rules! binary {
    ($feat:literal: $($name:ident = $f:ident),* $(,)?) => {
        $(
            #[inline]
            #[target_feature(enable = $feat)]
            fn $name(a: V, b: V) -> V {
                $f(a, b)
            }
        )*
    };
}

/// One register width: its vector type `V`, `LANES` blocks per register,
/// `REGS` registers per group, `RUN` groups per reduction, `LAZY`, the primitives of the shared body
/// (`body.rs`) from a table of the width's intrinsics — `splat` (a 128-bit
/// value broadcast with `bcast`), `xor`, `add32`, `clmul`, `swap` (the qwords
/// of each lane), `shuffle` (bytes), `aesenc`, `aesenclast`, `load` /
/// `store` (unaligned, one register) and `keys` (the round keys broadcast,
/// from `aesflow_cipher::x86`) — and the three that may not be one
/// intrinsic: `hxor` (the XOR of the lanes), `xor_lane0` (XOR into lane 0)
/// and `xor3` (of three registers: one `vpternlogq` with AVX-512); then the
/// body itself.
macro_rules! width {
    ($feat:literal, $v:ty, $cls:ident, lanes $lanes:literal, regs $regs:literal, run $run:literal, lazy $lazy:literal, held $held:literal, scrub $scrub:literal, [
        $bcast:path, $xor:ident, $add32:ident, $clmul:ident, $swap:ident, $shuffle:ident,
        $aesenc:ident, $aesenclast:ident, $load:ident, $store:ident, $keys:path,
        $unpacklo:ident, $unpackhi:ident $(,)?
    ],
    hxor: |$hv:ident| $hxor:expr,
    xor_lane0: |$xv:ident, $xx:ident| $xor_lane0:expr,
    xor3: |$ta:ident, $tb:ident, $tc:ident| $xor3:expr $(,)?) => {
        use super::{from_u128, to_u128};
        use core::arch::x86_64::*;

        type V = $v;
        const LANES: usize = $lanes;
        const REGS: usize = $regs;
        /// Groups per reduction in the fused kernels: a run of RUN groups
        /// shares one (shorter runs at the end of the data take the last
        /// groups' powers).
        const RUN: usize = $run;
        /// Whether a fused group loads each register's GHASH input and
        /// power vector in the AES round that multiplies it (through
        /// `after`), and each round key where it is used, rather than all
        /// of them before the group: with 512-bit registers, values loaded
        /// before the group do not fit in the register file beside the AES
        /// state and the sums, and LLVM spills them (secrets among them).
        const LAZY: bool = $lazy;
        /// Whether the fused encryption hashes each group's ciphertext
        /// beside the rounds of the group just after it, from the
        /// registers it was computed in, rather than beside the rounds of
        /// the group two after it, read back from L1 (and so one
        /// AES-only group at the start and one GHASH-only group at the
        /// end, not two each): only where the register file holds a
        /// group's AES state and a group's ciphertext at once (32 zmm
        /// registers, eight a group); with 16 ymm registers the held
        /// ciphertext is spilled, and at four zmm registers a group it
        /// gains nothing measurable.
        const HELD: bool = $held;
        /// 32-byte slots of stack the fused kernel zeroes after its `seal`
        /// or `open` returns (`scrub_stack`), where their spilled registers
        /// (AES states, GHASH sums) lay: only where they spill (16 ymm
        /// registers: about 1 KiB deep); 0: none.
        const SCRUB: usize = $scrub;

        #[inline]
        #[target_feature(enable = $feat)]
        fn hxor($hv: V) -> __m128i {
            $hxor
        }
        #[inline]
        #[target_feature(enable = $feat)]
        fn xor_lane0($xv: V, $xx: __m128i) -> V {
            $xor_lane0
        }
        #[inline]
        #[target_feature(enable = $feat)]
        fn xor3($ta: V, $tb: V, $tc: V) -> V {
            $xor3
        }
        /// An empty `asm!` taking `v` in a register: its computation cannot
        /// move after this point nor its uses before, and these points stay
        /// in program order — so the round-by-round weave of AES and GHASH
        /// (`aes_ghash_group!`) survives LLVM's instruction scheduler.
        #[inline]
        #[target_feature(enable = $feat)]
        fn pin(v: &mut V) {
            // SAFETY: the template is a comment: no instruction, no memory.
            unsafe {
                core::arch::asm!("/* pin {0} */", inout($cls) *v, options(nomem, nostack, preserves_flags))
            };
        }
        /// `a`, through an empty `asm!` that also takes `t` in a register:
        /// a load whose address depends on the result cannot be placed
        /// before `t` is computed (in program order; the CPU sees no
        /// dependency), so LLVM does not hoist it to the start of a group
        /// and spill what it loaded.
        #[inline]
        #[target_feature(enable = $feat)]
        fn after(mut a: usize, t: &V) -> usize {
            // SAFETY: the template is a comment: no instruction, no memory.
            unsafe {
                core::arch::asm!("/* {0} {1} */", inout(reg) a, in($cls) *t, options(nomem, nostack, preserves_flags))
            };
            a
        }
        #[inline]
        #[target_feature(enable = $feat)]
        fn splat(x: u128) -> V {
            $bcast(from_u128(x))
        }
        binary!($feat: xor = $xor, add32 = $add32, shuffle = $shuffle, aesenc = $aesenc, aesenclast = $aesenclast,
            unpacklo = $unpacklo, unpackhi = $unpackhi);
        #[inline]
        #[target_feature(enable = $feat)]
        fn clmul<const IMM: i32>(a: V, b: V) -> V {
            $clmul::<IMM>(a, b)
        }
        #[inline]
        #[target_feature(enable = $feat)]
        fn swap(a: V) -> V {
            $swap::<0x4e>(a)
        }
        /// # Safety
        /// `p` must be valid for reading `16 * LANES` bytes.
        #[inline]
        #[target_feature(enable = $feat)]
        unsafe fn load(p: *const u8) -> V {
            // SAFETY: guaranteed by the caller; unaligned load.
            unsafe { $load(p.cast()) }
        }
        /// # Safety
        /// `p` must be valid for writing `16 * LANES` bytes.
        #[inline]
        #[target_feature(enable = $feat)]
        unsafe fn store(p: *mut u8, v: V) {
            // SAFETY: guaranteed by the caller; unaligned store.
            unsafe { $store(p.cast(), v) }
        }
        #[inline]
        #[target_feature(enable = $feat)]
        fn keys(rk: &[[u8; 16]]) -> [V; 15] {
            $keys(rk)
        }
        gcm_body!($feat);
    };
}

/// 128-bit registers: one block each, 8 registers per group.
pub(super) mod w128 {
    use aesflow_cipher::x86::v128;
    use core::convert::identity;

    width! {
        "aes,pclmulqdq,avx", __m128i, xmm_reg, lanes 1, regs 8, run 4, lazy false, held false, scrub 0, [
            identity, _mm_xor_si128, _mm_add_epi32, _mm_clmulepi64_si128, _mm_shuffle_epi32,
            _mm_shuffle_epi8, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_loadu_si128,
            _mm_storeu_si128, v128::load_keys, _mm_unpacklo_epi64, _mm_unpackhi_epi64,
        ],
        hxor: |v| v,
        xor_lane0: |v, x| _mm_xor_si128(v, x),
        xor3: |a, b, c| _mm_xor_si128(_mm_xor_si128(a, b), c),
    }
}

/// 256-bit registers (AVX2): two blocks each, 8 registers per group;
/// round keys, power vectors and GHASH inputs loaded where used (`LAZY`,
/// as the 512-bit widths). With 16 vector registers a group's AES states
/// and GHASH sums still spill to the stack.
// Only the fused kernel is used: stand-alone GHASH (AAD, tails) of the
// 256-bit family runs the 128-bit PCLMULQDQ backend.
#[allow(dead_code)]
pub(super) mod w256 {
    use aesflow_cipher::x86::v256;

    width! {
        "avx2,vaes,vpclmulqdq", __m256i, ymm_reg, lanes 2, regs 8, run 4, lazy true, held false, scrub 40, [
            _mm256_broadcastsi128_si256, _mm256_xor_si256, _mm256_add_epi32,
            _mm256_clmulepi64_epi128, _mm256_shuffle_epi32, _mm256_shuffle_epi8,
            _mm256_aesenc_epi128, _mm256_aesenclast_epi128, _mm256_loadu_si256,
            _mm256_storeu_si256, v256::broadcast_keys, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64,
        ],
        hxor: |v| _mm_xor_si128(
            _mm256_extracti128_si256::<0>(v),
            _mm256_extracti128_si256::<1>(v),
        ),
        xor_lane0: |v, x| _mm256_xor_si256(v, _mm256_zextsi128_si256(x)),
        xor3: |a, b, c| _mm256_xor_si256(_mm256_xor_si256(a, b), c),
    }
}

/// `width!` on zmm registers (both 512-bit variants): the intrinsics
/// are the same, only the registers per group, the groups per reduction
/// and the lazy loads differ.
macro_rules! zmm_width {
    (regs $regs:literal, run $run:literal, lazy $lazy:literal, held $held:literal) => {
        width! {
            "avx512f,avx512bw,vaes,vpclmulqdq", __m512i, zmm_reg, lanes 4, regs $regs, run $run, lazy $lazy, held $held, scrub 0, [
                _mm512_broadcast_i32x4, _mm512_xor_si512, _mm512_add_epi32,
                _mm512_clmulepi64_epi128, _mm512_shuffle_epi32, _mm512_shuffle_epi8,
                _mm512_aesenc_epi128, _mm512_aesenclast_epi128, _mm512_loadu_si512,
                _mm512_storeu_si512, v512::broadcast_keys, _mm512_unpacklo_epi64,
                _mm512_unpackhi_epi64,
            ],
            // Halves, then quarters: two extracts and two XORs.
            hxor: |v| {
                let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
                _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
            },
            xor_lane0: |v, x| _mm512_xor_si512(v, _mm512_zextsi128_si512(x)),
            xor3: |a, b, c| _mm512_ternarylogic_epi64::<0x96>(a, b, c),
        }
    };
}

/// 512-bit registers: four blocks each, 4 registers per group; round keys,
/// power vectors and GHASH inputs loaded where used (`LAZY`), as in
/// `w512x8`: loaded before a group, LLVM copied round keys and power
/// vectors to the stack, where nothing wiped them.
pub(super) mod w512 {
    use aesflow_cipher::x86::v512;

    zmm_width!(regs 4, run 4, lazy true, held false);
}

/// 512-bit registers, 8 per group: 32 blocks in flight, two groups per
/// reduction (64 blocks, the key's powers H^64..H^1). Eight independent
/// AES chains keep a core that starts two 512-bit `VAESENC` per cycle
/// busy (four chains, `w512`, are bound by the instruction's latency
/// there), and the 24 Karatsuba multiplications of a group fit beside
/// its rounds. Only the fused kernel is used: stand-alone GHASH runs
/// `w512`'s.
#[allow(dead_code)]
pub(super) mod w512x8 {
    use aesflow_cipher::x86::v512;

    zmm_width!(regs 8, run 2, lazy true, held true);
}

/// The body at 128 bits with the 32-block kernel's shape (runs of two
/// groups, each register's GHASH input loaded in its round): a test
/// reference that runs on every x86-64 with AES-NI, so the logic of
/// `w512x8` is checked on CPUs without VAES too.
#[cfg(test)]
#[allow(dead_code)]
pub(super) mod w128x2 {
    use aesflow_cipher::x86::v128;
    use core::convert::identity;

    width! {
        "aes,pclmulqdq,avx", __m128i, xmm_reg, lanes 1, regs 8, run 2, lazy true, held true, scrub 0, [
            identity, _mm_xor_si128, _mm_add_epi32, _mm_clmulepi64_si128, _mm_shuffle_epi32,
            _mm_shuffle_epi8, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_loadu_si128,
            _mm_storeu_si128, v128::load_keys, _mm_unpacklo_epi64, _mm_unpackhi_epi64,
        ],
        hxor: |v| v,
        xor_lane0: |v, x| _mm_xor_si128(v, x),
        xor3: |a, b, c| _mm_xor_si128(_mm_xor_si128(a, b), c),
    }
}
