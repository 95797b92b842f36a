//! The CPU's features, detected once: the only place in aesflow that asks
//! the processor what it can do.
//!
//! [`features`] returns a [`Features`] token (plain booleans, detected on
//! first use and cached in a `OnceLock`); the capability sets the kernels
//! need are methods on it ([`Features::aesni`], [`Features::vaes`], …), so
//! every crate agrees on what "has VAES" means.
//!
//! [`Isa`] names the three families of code paths — portable, 128-bit
//! AES-NI + PCLMULQDQ, 512-bit VAES + VPCLMULQDQ. Every [`Kernel`] reports
//! its family ([`Kernel::isa`]), and code with its own fused hardware paths
//! (GCM, XTS, multi-stream) follows the family of the kernel it was given:
//! choosing the `aesni` kernel means 128-bit paths everywhere, `vaes` the
//! 512-bit ones, a portable kernel no hardware path at all.
//!
//! The environment (`AESFLOW_KERNEL`) is read only by
//! [`default_kernel`](crate::default_kernel), which applications call at
//! their edge; library constructors such as [`Aes::new`](crate::Aes::new)
//! take the best kernel this CPU supports.
//!
//! [`Kernel`]: crate::Kernel
//! [`Kernel::isa`]: crate::Kernel::isa

use std::sync::OnceLock;

/// `Features` and its detection from one table: each field with its
/// documentation and the name `is_x86_feature_detected!` knows it by.
macro_rules! features {
    ($($(#[$doc:meta])* $field:ident = $name:tt,)+) => {
        /// The x86-64 features aesflow's kernels use (all `false` elsewhere).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct Features {
            $($(#[$doc])* pub $field: bool,)+
        }

        impl Features {
            /// Ask the CPU now (no cache). Prefer [`features`].
            pub fn detect_now() -> Self {
                #[cfg(target_arch = "x86_64")]
                {
                    Features {
                        $($field: std::arch::is_x86_feature_detected!($name),)+
                    }
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    Features::default()
                }
            }
        }
    };
}

features! {
    /// AES-NI (`AESENC` … on xmm registers).
    aes = "aes",
    /// Carry-less multiplication on xmm registers.
    pclmulqdq = "pclmulqdq",
    /// SSE2 (part of x86-64).
    sse2 = "sse2",
    /// SSSE3 (`PSHUFB`).
    ssse3 = "ssse3",
    /// SSE4.1 (`PEXTRQ`, …).
    sse41 = "sse4.1",
    /// AVX (VEX encoding, three-operand forms).
    avx = "avx",
    /// AVX2.
    avx2 = "avx2",
    /// AVX-512 Foundation.
    avx512f = "avx512f",
    /// AVX-512 byte and word instructions (byte masks, 512-bit `VPSHUFB`).
    avx512bw = "avx512bw",
    /// AVX-512 vector-length extensions (EVEX on xmm/ymm).
    avx512vl = "avx512vl",
    /// Vector AES (`VAESENC` on ymm/zmm).
    vaes = "vaes",
    /// Vector carry-less multiplication (`VPCLMULQDQ` on ymm/zmm).
    vpclmulqdq = "vpclmulqdq",
}

impl Features {
    /// The `aesni` kernel: AES-NI with SSE2 and SSSE3.
    pub fn aesni(&self) -> bool {
        self.aes && self.sse2 && self.ssse3
    }

    /// The 128-bit carry-less paths (PCLMULQDQ GHASH, fused AES-NI GCM,
    /// XTS tweak doubling): AES-NI, PCLMULQDQ, SSE4.1 and AVX.
    pub fn aesni_clmul(&self) -> bool {
        self.aesni() && self.pclmulqdq && self.sse41 && self.avx
    }

    /// The `vaes` kernel: AVX-512F/BW, VAES and VPCLMULQDQ (XTS tweaks),
    /// plus AES-NI (`AESIMC` for online decryption keys).
    pub fn vaes(&self) -> bool {
        self.aesni() && self.avx512f && self.avx512bw && self.vaes && self.vpclmulqdq
    }

    /// The 512-bit carry-less paths (VPCLMULQDQ GHASH, fused VAES GCM):
    /// [`vaes`](Self::vaes) plus VPCLMULQDQ and the 128-bit set.
    pub fn vaes_clmul(&self) -> bool {
        self.vaes() && self.vpclmulqdq && self.aesni_clmul()
    }

    /// The `vaes256` kernel: VAES on 256-bit registers with AVX2, and
    /// AES-NI.
    pub fn vaes256(&self) -> bool {
        self.aesni() && self.avx2 && self.vaes
    }

    /// The 256-bit carry-less paths (fused VAES + VPCLMULQDQ GCM on ymm):
    /// [`vaes256`](Self::vaes256) plus VPCLMULQDQ and the 128-bit set.
    pub fn vaes256_clmul(&self) -> bool {
        self.vaes256() && self.vpclmulqdq && self.aesni_clmul()
    }

    /// AVX-512F/BW with AES-NI but not necessarily VAES: what the tests
    /// that emulate the 512-bit AES rounds with four 128-bit ones need.
    pub fn vaes_emulation(&self) -> bool {
        self.aesni() && self.avx512f && self.avx512bw
    }
}

/// This CPU's features, detected on first call and cached.
pub fn features() -> Features {
    static CACHE: OnceLock<Features> = OnceLock::new();
    *CACHE.get_or_init(Features::detect_now)
}

/// A CPU vendor, as CPUID's leaf 0 names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vendor {
    /// `AuthenticAMD`.
    Amd,
    /// `GenuineIntel`.
    Intel,
    /// Any other vendor, or not x86-64.
    Other,
}

impl Vendor {
    /// `"AMD"`, `"Intel"` or `"other"`.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Amd => "AMD",
            Vendor::Intel => "Intel",
            Vendor::Other => "other",
        }
    }
}

/// Which processor this is: vendor, family and model as CPUID reports them
/// (the extended family and model folded in as the vendors document it).
/// Tuning that depends on the microarchitecture rather than on a feature
/// flag keys on this (see the `aesflow-plan` crate), never on the features.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The vendor.
    pub vendor: Vendor,
    /// The family (0x19 for Zen 3 and Zen 4, 0x1A for Zen 5, 6 for most
    /// Intel cores).
    pub family: u32,
    /// The model within the family.
    pub model: u32,
}

/// This CPU's [`Identity`], read once (CPUID traps to the hypervisor in a
/// VM).
pub fn identity() -> Identity {
    static CACHE: OnceLock<Identity> = OnceLock::new();
    *CACHE.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            let (vendor, sig) = crate::x86::cpuid_vendor_signature();
            identity_of(vendor, sig)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Identity {
                vendor: Vendor::Other,
                family: 0,
                model: 0,
            }
        }
    })
}

/// [`Identity`] from CPUID's vendor words (leaf 0: EBX, EDX, ECX) and
/// signature (leaf 1: EAX). The extended family is added when the base
/// family is 0xF; the extended model is the model's high nibble when the
/// base family is 0xF, or 6 on Intel.
fn identity_of(vendor: [u32; 3], sig: u32) -> Identity {
    let word = u32::from_le_bytes;
    let vendor = if vendor == [word(*b"Auth"), word(*b"enti"), word(*b"cAMD")] {
        Vendor::Amd
    } else if vendor == [word(*b"Genu"), word(*b"ineI"), word(*b"ntel")] {
        Vendor::Intel
    } else {
        Vendor::Other
    };
    let base = (sig >> 8) & 0xf;
    let family = base + if base == 0xf { (sig >> 20) & 0xff } else { 0 };
    let extended_model = base == 0xf || (base == 6 && vendor == Vendor::Intel);
    let model = ((sig >> 4) & 0xf)
        | if extended_model {
            ((sig >> 16) & 0xf) << 4
        } else {
            0
        };
    Identity {
        vendor,
        family,
        model,
    }
}

/// A family of code paths: which instructions a kernel, and everything
/// that follows its choice, may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Portable Rust, no CPU-specific instruction.
    Portable,
    /// 128-bit AES-NI, PCLMULQDQ where available (x86-64).
    Aesni,
    /// 512-bit VAES and VPCLMULQDQ on AVX-512 (x86-64).
    Vaes,
}

impl Isa {
    /// Every family, portable first.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Aesni, Isa::Vaes];

    /// Whether this CPU runs the family's AES paths.
    pub fn is_available(self) -> bool {
        let f = features();
        match self {
            Isa::Portable => true,
            Isa::Aesni => f.aesni(),
            Isa::Vaes => f.vaes(),
        }
    }

    /// Whether this CPU also runs the family's carry-less multiplication
    /// paths (GHASH, fused GCM).
    pub fn has_clmul(self) -> bool {
        let f = features();
        match self {
            Isa::Portable => false,
            Isa::Aesni => f.aesni_clmul(),
            Isa::Vaes => f.vaes_clmul(),
        }
    }

    /// The widest family this CPU runs.
    pub fn best() -> Isa {
        *Self::ALL
            .iter()
            .rev()
            .find(|i| i.is_available())
            .unwrap_or(&Isa::Portable)
    }

    /// Short name (the matching kernel's name for the hardware families).
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Aesni => "aesni",
            Isa::Vaes => "vaes",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CPUID decoding of [`identity`]: the extended family is added on
    /// base family 0xF, the extended model on 0xF (AMD) and 6 (Intel).
    #[test]
    fn identity_from_cpuid() {
        let w = |s: &[u8; 4]| u32::from_le_bytes(*s);
        let amd = [w(b"Auth"), w(b"enti"), w(b"cAMD")];
        let intel = [w(b"Genu"), w(b"ineI"), w(b"ntel")];
        let id = |vendor, family, model| Identity {
            vendor,
            family,
            model,
        };
        // Zen 4 (EPYC 9004, family 19h model 11h), Zen 5 (family 1Ah model
        // 02h), Zen 2 (17h model 31h), Ice Lake server (6, 6Ah), Cascade
        // Lake (6, 55h).
        assert_eq!(identity_of(amd, 0x00a1_0f11), id(Vendor::Amd, 0x19, 0x11));
        assert_eq!(identity_of(amd, 0x00b0_0f20), id(Vendor::Amd, 0x1a, 0x02));
        assert_eq!(identity_of(amd, 0x0083_0f10), id(Vendor::Amd, 0x17, 0x31));
        assert_eq!(identity_of(intel, 0x0006_06a6), id(Vendor::Intel, 6, 0x6a));
        assert_eq!(identity_of(intel, 0x0005_0657), id(Vendor::Intel, 6, 0x55));
        assert_eq!(identity_of([0; 3], 0x0006_06a6).vendor, Vendor::Other);
        // Another vendor's family 6 has no extended model.
        assert_eq!(identity_of([0; 3], 0x0006_06a6).model, 0x0a);
    }

    #[test]
    fn cached_and_consistent() {
        assert_eq!(features(), Features::detect_now());
        let f = features();
        assert!(!f.vaes() || f.aesni());
        assert!(!f.vaes_clmul() || (f.vaes() && f.aesni_clmul()));
        assert!(Isa::best().is_available());
        assert!(Isa::Portable.is_available());
        assert!(!Isa::Portable.has_clmul());
        assert!(Isa::Portable < Isa::Aesni && Isa::Aesni < Isa::Vaes);
    }
}
