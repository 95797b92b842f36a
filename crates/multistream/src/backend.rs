//! The backends: which SIMD engine runs the lanes.

use crate::Error;
use crate::kernels::{self, Simd};
use aesflow_cipher::Isa;
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
    /// 128-bit AES-NI (the CPU set of the `aesni` kernel): 8 lanes.
    Aesni,
    /// Each stream alone on the default `aesflow-cipher` kernel.
    Portable,
}

impl Backend {
    /// The concrete backends, best first.
    pub const CONCRETE: [Backend; 3] = [Backend::Vaes, Backend::Aesni, Backend::Portable];

    /// Short name (`auto`, `vaes`, `aesni`, `portable`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Vaes => "vaes",
            Backend::Aesni => "aesni",
            Backend::Portable => "portable",
        }
    }

    /// Whether this CPU runs the backend (`Auto` and `Portable`: always).
    pub fn is_available(self) -> bool {
        match self {
            Backend::Auto | Backend::Portable => true,
            Backend::Vaes => kernels::has_vaes(),
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
        Self::for_isa(Isa::best())
    }

    /// The backend of a family of code paths: the multi-stream engine
    /// follows the kernel a caller chose ([`Kernel::isa`]).
    ///
    /// [`Kernel::isa`]: aesflow_cipher::Kernel::isa
    pub fn for_isa(isa: Isa) -> Backend {
        match isa {
            Isa::Vaes => Backend::Vaes,
            Isa::Aesni => Backend::Aesni,
            Isa::Portable => Backend::Portable,
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
        match self.resolve() {
            Backend::Vaes => Simd::Vaes.lanes(),
            Backend::Aesni => Simd::Aesni.lanes(),
            _ => 1,
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
            "aesni" | "aes-ni" => Ok(Backend::Aesni),
            "portable" => Ok(Backend::Portable),
            _ => Err(Error::UnknownBackend(s.to_string())),
        }
    }
}
