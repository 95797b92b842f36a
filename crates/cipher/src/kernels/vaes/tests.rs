//! Tests of the `vaes` kernel, and of its code with emulated VAES rounds
//! on CPUs without VAES.

use super::*;
use crate::kernels::testutil;
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
    vaes_modes!("avx512f,avx512bw,aes");
}

/// The `vaes` kernel's code with emulated rounds and `W` registers in
/// flight, as a kernel for the shared checks.
struct Emulated<const W: usize>;

fn emu_available() -> bool {
    crate::cpu::features().vaes_emulation()
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
    fn cbc_decrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        assert!(emu_available());
        // SAFETY: avx512f, avx512bw and aes were just checked.
        unsafe { emu::chain_decrypt::<W, true>(keys, iv, blocks) }
    }
    fn cfb_decrypt(&self, keys: &KeySchedule, iv: &mut Block, blocks: &mut [Block]) {
        assert!(emu_available());
        // SAFETY: avx512f, avx512bw and aes were just checked.
        unsafe { emu::chain_decrypt::<W, false>(keys, iv, blocks) }
    }
    fn xts_blocks(
        &self,
        keys: &KeySchedule,
        tweak: &mut Block,
        blocks: &mut [Block],
        decrypt: bool,
    ) {
        assert!(emu_available());
        // SAFETY: avx512f, avx512bw and aes were just checked.
        unsafe { emu::xts_blocks::<W>(keys, tweak, blocks, decrypt) }
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

#[test]
fn chained_modes_match_reference() {
    if available() {
        testutil::check_chained(&Vaes, 21);
    }
}

#[test]
fn emulated_chained_modes_match_reference() {
    if emulation_available() {
        testutil::check_chained(&Emulated::<8>, 22);
        testutil::check_chained(&Emulated::<4>, 23);
    }
}
