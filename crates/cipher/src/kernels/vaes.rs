//! The `vaes` kernel: AVX-512 with the vector AES instructions (VAES).
//!
//! * `VAESENC` on a 512-bit register runs one round on four blocks; the main
//!   loop keeps [`IN_FLIGHT`] registers (32 blocks) in flight so the
//!   instruction's latency is hidden even on cores that issue two per cycle.
//! * The round keys are broadcast to all four lanes once per call
//!   (`VBROADCASTI32X4`) and stay in registers (AES-256 needs 15 of the 32).
//! * Tails: whole 512-bit registers in 4/2/1-register steps, then the last
//!   one to three blocks (ECB) or up to 63 bytes (CTR) with masked loads and
//!   stores, so no scalar fallback is needed.
//! * Counter mode is fused: counters are generated in registers as
//!   little-endian 128-bit lanes and byte-swapped to big-endian
//!   (`VPSHUFB`). When no carry can leave the low 64 bits within a batch a
//!   64-bit add suffices (fast path); otherwise a full 128-bit add with the
//!   carry propagated through a mask register is used.
//! * Decryption uses the equivalent inverse cipher like [`aesni`]; online key
//!   expansion derives the round keys once per [`super::aesni::ONLINE_BATCH`] blocks,
//!   converting decryption keys with `AESIMC`.
//!
//! Needs `avx512f`, `avx512bw` (byte masks and `VPSHUFB` on 512 bits),
//! `vaes`, and `aes` (`AESIMC` for online decryption keys).
//!
//! Constant-time: the AES instructions take data-independent time and no
//! memory access depends on the key or the data.
//!
//! The kernel body is written once as a macro and instantiated twice: with
//! the real VAES instructions, and (in tests) with each 512-bit AES round
//! emulated by four 128-bit AES-NI instructions, so that everything but the
//! VAES instructions themselves — counters, carries, masks, tails, online
//! keys — is tested on AVX-512 machines without VAES too.
//!
//! [`aesni`]: super::aesni

// The AVX-512 intrinsics and target features need Rust 1.89; the workspace's
// declared MSRV predates that.
#![allow(clippy::incompatible_msrv)]

use crate::kernel::{Block, Kernel};
use crate::key_schedule::KeySchedule;

/// The VAES kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Vaes;

/// 512-bit registers (4 blocks each) in flight in the main loop. 8 (32
/// blocks) covers a 4-cycle latency at two `VAESENC` per cycle (Zen 4,
/// Ice Lake and later); 4 (16 blocks) is the alternative.
pub const IN_FLIGHT: usize = 8;

fn detected() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("vaes")
        && std::arch::is_x86_feature_detected!("aes")
}

fn require() {
    if !detected() {
        panic!(
            "aesflow: the 'vaes' kernel needs the CPU features avx512f, avx512bw, vaes and aes, \
             which this CPU lacks; choose a kernel with kernel_by_name/available_kernels"
        );
    }
}

/// The kernel body, parameterised by the target features it is compiled for
/// and the four 512-bit AES round operations.
macro_rules! vaes_body {
    ($features:literal, $enc:path, $enclast:path, $dec:path, $declast:path) => {
        use crate::kernel::Block;
        use crate::kernels::aesni::{Dir, ONLINE_BATCH, for_each_keyed};
        use crate::key_schedule::{KeySchedule, MAX_ROUND_KEYS};
        use core::arch::x86_64::*;

        type Keys = [__m512i; MAX_ROUND_KEYS];

        #[inline]
        #[target_feature(enable = $features)]
        fn load_keys(rk: &[[u8; 16]]) -> Keys {
            let mut k = [_mm512_setzero_si512(); MAX_ROUND_KEYS];
            for (d, s) in k.iter_mut().zip(rk) {
                // SAFETY: `s` is 16 readable bytes; unaligned load.
                let x = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
                *d = _mm512_broadcast_i32x4(x);
            }
            k
        }

        /// 64 bytes from the start of `p`.
        #[inline]
        #[target_feature(enable = $features)]
        fn load64(p: &[u8]) -> __m512i {
            assert!(p.len() >= 64);
            // SAFETY: just checked that 64 bytes are readable; unaligned load.
            unsafe { _mm512_loadu_si512(p.as_ptr().cast()) }
        }

        /// 64 bytes to the start of `p`.
        #[inline]
        #[target_feature(enable = $features)]
        fn store64(p: &mut [u8], v: __m512i) {
            assert!(p.len() >= 64);
            // SAFETY: just checked that 64 bytes are writable; unaligned store.
            unsafe { _mm512_storeu_si512(p.as_mut_ptr().cast(), v) }
        }

        /// The first `p.len()` (< 64) bytes of a register, rest zero.
        #[inline]
        #[target_feature(enable = $features)]
        fn load_partial(p: &[u8]) -> __m512i {
            assert!(p.len() < 64);
            let mask: __mmask64 = (1u64 << p.len()) - 1;
            // SAFETY: only the bytes selected by `mask`, which lie inside
            // `p`, are accessed; masked-off bytes are neither read nor
            // faulted on (AVX-512 fault suppression).
            unsafe { _mm512_maskz_loadu_epi8(mask, p.as_ptr().cast()) }
        }

        /// Store the first `p.len()` (< 64) bytes of `v` into `p`.
        #[inline]
        #[target_feature(enable = $features)]
        fn store_partial(p: &mut [u8], v: __m512i) {
            assert!(p.len() < 64);
            let mask: __mmask64 = (1u64 << p.len()) - 1;
            // SAFETY: only the bytes selected by `mask`, which lie inside
            // `p`, are written; masked-off bytes are untouched.
            unsafe { _mm512_mask_storeu_epi8(p.as_mut_ptr().cast(), mask, v) }
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn enc_n<const NR: usize, const N: usize>(x: &mut [__m512i; N], k: &Keys) {
            for v in x.iter_mut() {
                *v = _mm512_xor_si512(*v, k[0]);
            }
            for kr in &k[1..NR] {
                for v in x.iter_mut() {
                    *v = $enc(*v, *kr);
                }
            }
            for v in x.iter_mut() {
                *v = $enclast(*v, k[NR]);
            }
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn dec_n<const NR: usize, const N: usize>(x: &mut [__m512i; N], k: &Keys) {
            for v in x.iter_mut() {
                *v = _mm512_xor_si512(*v, k[0]);
            }
            for kr in &k[1..NR] {
                for v in x.iter_mut() {
                    *v = $dec(*v, *kr);
                }
            }
            for v in x.iter_mut() {
                *v = $declast(*v, k[NR]);
            }
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn crypt_n<const NR: usize, const N: usize, const DEC: bool>(
            x: &mut [__m512i; N],
            k: &Keys,
        ) {
            if DEC {
                dec_n::<NR, N>(x, k)
            } else {
                enc_n::<NR, N>(x, k)
            }
        }

        /// ECB over exactly `64 * N` bytes (`4 * N` blocks).
        #[inline]
        #[target_feature(enable = $features)]
        fn ecb_step<const NR: usize, const N: usize, const DEC: bool>(d: &mut [u8], k: &Keys) {
            assert_eq!(d.len(), 64 * N);
            let mut x = [_mm512_setzero_si512(); N];
            for (v, c) in x.iter_mut().zip(d.chunks_exact(64)) {
                *v = load64(c);
            }
            crypt_n::<NR, N, DEC>(&mut x, k);
            for (v, c) in x.iter().zip(d.chunks_exact_mut(64)) {
                store64(c, *v);
            }
        }

        #[target_feature(enable = $features)]
        fn ecb<const NR: usize, const W: usize, const DEC: bool>(
            rk: &[[u8; 16]],
            blocks: &mut [Block],
        ) {
            let k = load_keys(rk);
            let data = blocks.as_flattened_mut();
            let mut chunks = data.chunks_exact_mut(64 * W);
            for c in &mut chunks {
                ecb_step::<NR, W, DEC>(c, &k);
            }
            let mut rest = chunks.into_remainder();
            if W > 4 && rest.len() >= 256 {
                let (a, b) = rest.split_at_mut(256);
                ecb_step::<NR, 4, DEC>(a, &k);
                rest = b;
            }
            if rest.len() >= 128 {
                let (a, b) = rest.split_at_mut(128);
                ecb_step::<NR, 2, DEC>(a, &k);
                rest = b;
            }
            if rest.len() >= 64 {
                let (a, b) = rest.split_at_mut(64);
                ecb_step::<NR, 1, DEC>(a, &k);
                rest = b;
            }
            if !rest.is_empty() {
                // One to three whole blocks.
                let mut x = [load_partial(rest)];
                crypt_n::<NR, 1, DEC>(&mut x, &k);
                store_partial(rest, x[0]);
            }
        }

        /// `a + b` on each 128-bit little-endian lane (carry from the low
        /// into the high 64 bits), wrapping.
        #[inline]
        #[target_feature(enable = $features)]
        fn add128(a: __m512i, b: __m512i) -> __m512i {
            let s = _mm512_add_epi64(a, b);
            // Carry out of each low qword (even qword positions).
            let carry = _mm512_cmplt_epu64_mask(s, b) & 0x55;
            _mm512_mask_add_epi64(s, carry << 1, s, _mm512_set1_epi64(1))
        }

        /// `N` registers of consecutive counters from `ctr` (lane `j` of
        /// register `i` holds `ctr + 4i + j`), big-endian.
        #[inline]
        #[target_feature(enable = $features)]
        fn counters<const N: usize>(ctr: u128, x: &mut [__m512i; N]) {
            let bswap = _mm512_broadcast_i32x4(_mm_set_epi8(
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
            ));
            let lo = ctr as u64;
            let hi = (ctr >> 64) as u64;
            let base = _mm512_broadcast_i32x4(_mm_set_epi64x(hi as i64, lo as i64));
            let lanes = _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0);
            if lo <= u64::MAX - (4 * N as u64 - 1) {
                // Fast path: no carry out of the low 64 bits in this batch.
                let c0 = _mm512_add_epi64(base, lanes);
                for (i, v) in x.iter_mut().enumerate() {
                    let step = (4 * i) as i64;
                    let inc = _mm512_set_epi64(0, step, 0, step, 0, step, 0, step);
                    *v = _mm512_shuffle_epi8(_mm512_add_epi64(c0, inc), bswap);
                }
            } else {
                for (i, v) in x.iter_mut().enumerate() {
                    let step = (4 * i) as i64;
                    let inc = _mm512_set_epi64(0, step, 0, step, 0, step, 0, step);
                    let off = _mm512_add_epi64(lanes, inc);
                    *v = _mm512_shuffle_epi8(add128(base, off), bswap);
                }
            }
        }

        /// CTR over exactly `64 * N` bytes.
        #[inline]
        #[target_feature(enable = $features)]
        fn ctr_step<const NR: usize, const N: usize>(d: &mut [u8], ctr: &mut u128, k: &Keys) {
            assert_eq!(d.len(), 64 * N);
            let mut x = [_mm512_setzero_si512(); N];
            counters::<N>(*ctr, &mut x);
            *ctr = ctr.wrapping_add(4 * N as u128);
            enc_n::<NR, N>(&mut x, k);
            for (v, c) in x.iter().zip(d.chunks_exact_mut(64)) {
                store64(c, _mm512_xor_si512(load64(c), *v));
            }
        }

        #[target_feature(enable = $features)]
        fn ctr<const NR: usize, const W: usize>(rk: &[[u8; 16]], ctr: &mut u128, data: &mut [u8]) {
            let k = load_keys(rk);
            let mut chunks = data.chunks_exact_mut(64 * W);
            for c in &mut chunks {
                ctr_step::<NR, W>(c, ctr, &k);
            }
            let mut rest = chunks.into_remainder();
            if W > 4 && rest.len() >= 256 {
                let (a, b) = rest.split_at_mut(256);
                ctr_step::<NR, 4>(a, ctr, &k);
                rest = b;
            }
            if rest.len() >= 128 {
                let (a, b) = rest.split_at_mut(128);
                ctr_step::<NR, 2>(a, ctr, &k);
                rest = b;
            }
            if rest.len() >= 64 {
                let (a, b) = rest.split_at_mut(64);
                ctr_step::<NR, 1>(a, ctr, &k);
                rest = b;
            }
            if !rest.is_empty() {
                // Up to 63 bytes; a partial final block consumes its counter.
                let mut x = [_mm512_setzero_si512()];
                counters::<1>(*ctr, &mut x);
                *ctr = ctr.wrapping_add(rest.len().div_ceil(16) as u128);
                enc_n::<NR, 1>(&mut x, &k);
                store_partial(rest, _mm512_xor_si512(load_partial(rest), x[0]));
            }
        }

        /// # Safety
        /// The CPU must support the features this module is compiled for.
        unsafe fn ecb_dispatch<const W: usize, const DEC: bool>(
            rk: &[[u8; 16]],
            blocks: &mut [Block],
        ) {
            // SAFETY: the caller guarantees the features these functions
            // enable.
            unsafe {
                match rk.len() - 1 {
                    10 => ecb::<10, W, DEC>(rk, blocks),
                    12 => ecb::<12, W, DEC>(rk, blocks),
                    14 => ecb::<14, W, DEC>(rk, blocks),
                    n => unreachable!("AES has 10, 12 or 14 rounds, not {n}"),
                }
            }
        }

        /// # Safety
        /// The CPU must support the features this module is compiled for.
        unsafe fn ctr_dispatch<const W: usize>(rk: &[[u8; 16]], c: &mut u128, data: &mut [u8]) {
            // SAFETY: the caller guarantees the features these functions
            // enable.
            unsafe {
                match rk.len() - 1 {
                    10 => ctr::<10, W>(rk, c, data),
                    12 => ctr::<12, W>(rk, c, data),
                    14 => ctr::<14, W>(rk, c, data),
                    n => unreachable!("AES has 10, 12 or 14 rounds, not {n}"),
                }
            }
        }

        /// ECB encryption or decryption with `W` registers in flight.
        ///
        /// # Safety
        /// The CPU must support the features this module is compiled for,
        /// and `aes` (online decryption keys use `AESIMC`).
        pub(super) unsafe fn ecb_blocks<const W: usize, const DEC: bool>(
            keys: &KeySchedule,
            blocks: &mut [Block],
        ) {
            let dir = if DEC { Dir::Dec } else { Dir::Enc };
            for_each_keyed(keys, dir, blocks, ONLINE_BATCH, |rk, b| {
                // SAFETY: the caller guarantees the features.
                unsafe { ecb_dispatch::<W, DEC>(rk, b) }
            });
        }

        /// Counter mode with `W` registers in flight (see
        /// `Kernel::ctr_xor`).
        ///
        /// # Safety
        /// The CPU must support the features this module is compiled for.
        pub(super) unsafe fn ctr_xor<const W: usize>(
            keys: &KeySchedule,
            counter: &mut Block,
            data: &mut [u8],
        ) {
            let mut c = u128::from_be_bytes(*counter);
            for_each_keyed(keys, Dir::Enc, data, ONLINE_BATCH * 16, |rk, d| {
                // SAFETY: the caller guarantees the features.
                unsafe { ctr_dispatch::<W>(rk, &mut c, d) }
            });
            *counter = c.to_be_bytes();
        }
    };
}

/// The real thing: VAES instructions.
mod hw {
    vaes_body!(
        "avx512f,avx512bw,vaes",
        _mm512_aesenc_epi128,
        _mm512_aesenclast_epi128,
        _mm512_aesdec_epi128,
        _mm512_aesdeclast_epi128
    );
}

impl Kernel for Vaes {
    fn name(&self) -> &'static str {
        "vaes"
    }
    fn description(&self) -> &'static str {
        "AVX-512 + VAES, 32 blocks in flight, fused CTR (constant-time)"
    }
    fn is_available(&self) -> bool {
        detected()
    }
    fn is_constant_time(&self) -> bool {
        true
    }
    fn rank(&self) -> u32 {
        30
    }
    fn uses_aes_instructions(&self) -> bool {
        true
    }
    fn encrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::ecb_blocks::<IN_FLIGHT, false>(keys, blocks) }
    }
    fn decrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::ecb_blocks::<IN_FLIGHT, true>(keys, blocks) }
    }
    fn ctr_xor(&self, keys: &KeySchedule, counter: &mut Block, data: &mut [u8]) {
        require();
        // SAFETY: `require` checked avx512f, avx512bw, vaes and aes.
        unsafe { hw::ctr_xor::<IN_FLIGHT>(keys, counter, data) }
    }
    /// CBC encryption is serial: the 128-bit AES-NI loop is as fast as it
    /// gets (a CPU with VAES has AES-NI).
    fn cbc_encrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        require();
        super::aesni::cbc_encrypt_ni(keys, iv, blocks);
    }
    /// CBC decryption through the AES-NI kernel's eight-block loop (a
    /// 512-bit version is future work).
    fn cbc_decrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        require();
        super::aesni::cbc_decrypt_ni(keys, iv, blocks);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::aesni::testutil;
    use core::arch::x86_64::*;

    /// A 512-bit AES round emulated with four 128-bit AES-NI instructions.
    macro_rules! emulate {
        ($name:ident, $op:ident) => {
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,aes")]
            fn $name(x: __m512i, k: __m512i) -> __m512i {
                let mut r = x;
                r = _mm512_inserti32x4::<0>(
                    r,
                    $op(
                        _mm512_extracti32x4_epi32::<0>(x),
                        _mm512_extracti32x4_epi32::<0>(k),
                    ),
                );
                r = _mm512_inserti32x4::<1>(
                    r,
                    $op(
                        _mm512_extracti32x4_epi32::<1>(x),
                        _mm512_extracti32x4_epi32::<1>(k),
                    ),
                );
                r = _mm512_inserti32x4::<2>(
                    r,
                    $op(
                        _mm512_extracti32x4_epi32::<2>(x),
                        _mm512_extracti32x4_epi32::<2>(k),
                    ),
                );
                _mm512_inserti32x4::<3>(
                    r,
                    $op(
                        _mm512_extracti32x4_epi32::<3>(x),
                        _mm512_extracti32x4_epi32::<3>(k),
                    ),
                )
            }
        };
    }
    emulate!(emu_enc, _mm_aesenc_si128);
    emulate!(emu_enclast, _mm_aesenclast_si128);
    emulate!(emu_dec, _mm_aesdec_si128);
    emulate!(emu_declast, _mm_aesdeclast_si128);

    /// The kernel body with emulated 512-bit AES rounds.
    mod emu {
        vaes_body!(
            "avx512f,avx512bw,aes",
            super::emu_enc,
            super::emu_enclast,
            super::emu_dec,
            super::emu_declast
        );
    }

    /// The `vaes` kernel's code with emulated rounds and `W` registers in
    /// flight, as a kernel for the shared checks.
    struct Emulated<const W: usize>;

    fn emu_available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("aes")
    }

    impl<const W: usize> Kernel for Emulated<W> {
        fn name(&self) -> &'static str {
            "vaes-emulated"
        }
        fn description(&self) -> &'static str {
            "vaes kernel body with emulated VAES rounds (tests only)"
        }
        fn is_available(&self) -> bool {
            emu_available()
        }
        fn is_constant_time(&self) -> bool {
            true
        }
        fn rank(&self) -> u32 {
            0
        }
        fn encrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
            assert!(emu_available());
            // SAFETY: avx512f, avx512bw and aes were just checked.
            unsafe { emu::ecb_blocks::<W, false>(keys, blocks) }
        }
        fn decrypt_blocks(&self, keys: &KeySchedule, blocks: &mut [Block]) {
            assert!(emu_available());
            // SAFETY: avx512f, avx512bw and aes were just checked.
            unsafe { emu::ecb_blocks::<W, true>(keys, blocks) }
        }
        fn ctr_xor(&self, keys: &KeySchedule, counter: &mut Block, data: &mut [u8]) {
            assert!(emu_available());
            // SAFETY: avx512f, avx512bw and aes were just checked.
            unsafe { emu::ctr_xor::<W>(keys, counter, data) }
        }
    }

    fn available() -> bool {
        if Vaes.is_available() {
            true
        } else {
            println!("skipped: vaes not available");
            false
        }
    }

    fn emulation_available() -> bool {
        if emu_available() {
            true
        } else {
            println!("skipped: vaes (emulated) not available: needs avx512f, avx512bw, aes");
            false
        }
    }

    #[test]
    fn ecb_matches_reference() {
        if available() {
            testutil::check_ecb(&Vaes, 11);
        }
    }

    #[test]
    fn ctr_matches_reference() {
        if available() {
            testutil::check_ctr(&Vaes, 12);
        }
    }

    #[test]
    fn emulated_ecb_matches_reference() {
        if emulation_available() {
            testutil::check_ecb(&Emulated::<8>, 13);
            testutil::check_ecb(&Emulated::<4>, 14);
        }
    }

    #[test]
    fn emulated_ctr_matches_reference() {
        if emulation_available() {
            testutil::check_ctr(&Emulated::<8>, 15);
            testutil::check_ctr(&Emulated::<4>, 16);
        }
    }

    #[test]
    fn metadata() {
        assert_eq!(Vaes.name(), "vaes");
        assert_eq!(Vaes.rank(), 30);
        assert!(Vaes.is_constant_time());
    }

    #[test]
    fn unavailable_kernel_panics_cleanly() {
        if !Vaes.is_available() {
            let ks = KeySchedule::new(&[0; 16], crate::KeyExpansion::Offline).unwrap();
            let r = std::panic::catch_unwind(|| Vaes.encrypt_blocks(&ks, &mut [[0; 16]]));
            assert!(r.is_err());
        }
    }
}
