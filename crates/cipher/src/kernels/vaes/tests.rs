//! Tests of the `vaes` kernel, and of its code with emulated VAES rounds
//! on CPUs without VAES.

use super::*;
use crate::kernel::Kernel;
use crate::kernels::testutil::matches_reference;
use crate::key_schedule::KeySchedule;
use core::arch::x86_64::*;

/// A 512-bit AES round emulated with four 128-bit AES-NI instructions.
macro_rules! emulate {
    ($name:ident, $op:ident) => {
        emulate!($name, $op, 0, 1, 2, 3);
    };
    ($name:ident, $op:ident, $($lane:literal),+) => {
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,aes")]
        fn $name(x: __m512i, k: __m512i) -> __m512i {
            let mut r = x;
            $(
                let (xl, kl) = (
                    _mm512_extracti32x4_epi32::<$lane>(x),
                    _mm512_extracti32x4_epi32::<$lane>(k),
                );
                r = _mm512_inserti32x4::<$lane>(r, $op(xl, kl));
            )+
            r
        }
    };
}
emulate!(emu_enc, _mm_aesenc_si128);
emulate!(emu_enclast, _mm_aesenclast_si128);
emulate!(emu_dec, _mm_aesdec_si128);
emulate!(emu_declast, _mm_aesdeclast_si128);

/// Panics unless the CPU runs the emulation.
fn emu_check() {
    assert!(
        emu_available(),
        "vaes emulation needs avx512f, avx512bw and aes"
    );
}

fn emu_available() -> bool {
    crate::cpu::features().vaes_emulation()
}

/// The kernel body with emulated 512-bit AES rounds.
mod emu {
    vaes_body!(
        "avx512f,avx512bw,aes",
        super::emu_check,
        super::emu_enc,
        super::emu_enclast,
        super::emu_dec,
        super::emu_declast
    );
    vaes_modes!(
        "avx512f,avx512bw,aes",
        super::emu_check,
        crate::x86::v512::xts_mul_alpha_bytes::<1, 15>,
        crate::x86::v512::xts_mul_alpha_bytes::<2, 14>,
        crate::x86::v512::xts_mul_alpha_bytes::<1, 15>,
        crate::x86::v512::xts_mul_alpha_bytes::<2, 14>
    );
}

/// The `vaes` kernel's code with emulated rounds and `W` registers in
/// flight, as a kernel for the shared checks.
struct Emulated<const W: usize>;

vaes_kernel! {
    impl [const W: usize] for Emulated<W> => emu, W {
        name: "vaes-emulated",
        description: "vaes kernel body with emulated VAES rounds (tests only)",
        available: emu_available(),
        constant_time: true,
        rank: 0,
    }
}

matches_reference!(
    Vaes => 11,
    Emulated::<8> => 13,
    Emulated::<4> => 17
);

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
fn xts_units_match_xts_blocks() {
    use crate::kernel::xts_units_check::check;
    for (k, seed) in [
        (&Vaes as &dyn Kernel, 21),
        (&Emulated::<8>, 22),
        (&Emulated::<4>, 23),
    ] {
        if crate::kernels::testutil::runnable(k) {
            check(k, seed);
        }
    }
}
