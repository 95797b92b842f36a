//! The backends: which SIMD engine runs the lanes.

use crate::Error;
use crate::kernels::{self, Simd};
use aesflow_cipher::{Isa, Kernel};
use core::fmt;
use std::str::FromStr;

/// Which implementation runs the streams.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Follow the selected `aesflow-cipher` kernel
    /// ([`MultiStream::new`](crate::MultiStream::new)): the `vaes` kernel
    /// means `Vaes`, `aesni` means `Aesni`, a portable kernel `Portable`.
    #[default]
    Auto,
    /// 512-bit VAES (the CPU set of the `vaes` kernel): 32 lanes.
    Vaes,
    /// 256-bit VAES on AVX2 (the CPU set of the `vaes256` kernel, for CPUs
    /// with VAES but no AVX-512): 16 lanes.
    Vaes256,
    /// 128-bit AES-NI (the CPU set of the `aesni` kernel): 8 lanes.
    Aesni,
    /// Each stream alone on the default `aesflow-cipher` kernel.
    Portable,
}

impl Backend {
    /// The concrete backends, best first.
    pub const CONCRETE: [Backend; 4] = [
        Backend::Vaes,
        Backend::Vaes256,
        Backend::Aesni,
        Backend::Portable,
    ];

    /// Short name (`auto`, `vaes`, `aesni`, `portable`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Vaes => "vaes",
            Backend::Vaes256 => "vaes256",
            Backend::Aesni => "aesni",
            Backend::Portable => "portable",
        }
    }

    /// Whether this CPU runs the backend (`Auto` and `Portable`: always).
    pub fn is_available(self) -> bool {
        match self {
            Backend::Auto | Backend::Portable => true,
            Backend::Vaes => kernels::has_vaes(),
            Backend::Vaes256 => kernels::has_vaes256(),
            Backend::Aesni => kernels::has_aesni(),
        }
    }

    /// The concrete backends this CPU runs, best first.
    pub fn available() -> Vec<Backend> {
        Self::CONCRETE
            .into_iter()
            .filter(|b| b.is_available())
            .collect()
    }

    /// The best concrete backend of this CPU.
    pub fn detect() -> Backend {
        Self::available()[0]
    }

    /// The backend that follows a kernel: its family ([`Kernel::isa`]) and
    /// register width ([`Kernel::vector_bits`]) — `vaes` gives `Vaes`,
    /// `vaes256` gives `Vaes256`, `aesni` gives `Aesni`, a portable kernel
    /// `Portable`.
    pub fn for_kernel(kernel: &dyn Kernel) -> Backend {
        match (kernel.isa(), kernel.vector_bits()) {
            (Isa::Vaes, _) => Backend::Vaes,
            (Isa::Aesni, 256) => Backend::Vaes256,
            (Isa::Aesni, _) => Backend::Aesni,
            (Isa::Portable, _) => Backend::Portable,
        }
    }

    /// `Auto` resolved to a concrete backend.
    pub fn resolve(self) -> Backend {
        match self {
            Backend::Auto => Self::detect(),
            b => b,
        }
    }

    /// Streams the backend keeps in flight (1 for `Portable`).
    pub fn lanes(self) -> usize {
        self.resolve().simd().map_or(1, Simd::lanes)
    }

    /// The SIMD engine of a hardware backend (`None` for `Auto` and
    /// `Portable`).
    pub(crate) fn simd(self) -> Option<Simd> {
        match self {
            Backend::Vaes => Some(Simd::Vaes),
            Backend::Vaes256 => Some(Simd::Vaes256),
            Backend::Aesni => Some(Simd::Aesni),
            Backend::Auto | Backend::Portable => None,
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Backend::Auto),
            "vaes" => Ok(Backend::Vaes),
            "vaes256" | "vaes-256" => Ok(Backend::Vaes256),
            "aesni" | "aes-ni" => Ok(Backend::Aesni),
            "portable" => Ok(Backend::Portable),
            _ => Err(Error::UnknownBackend(s.to_string())),
        }
    }
}
