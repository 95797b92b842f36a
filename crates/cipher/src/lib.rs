//! # aesflow-cipher: the AES core
//!
//! One FIPS-197 implementation that everything in aesflow is built from: the
//! many-core engines of Liu & Baas (*Parallel AES Encryption Engines for
//! Many-Core Processor Arrays*) distribute its [`steps`] over
//! simulated cores, and the host engine runs its [`kernels`](mod@kernels) on real CPUs.
//!
//! * [`sbox`] — the S-box derived from its definition (GF(2^8) inverse +
//!   affine map) in `const fn`s.
//! * [`steps`] — SubBytes, ShiftRows, MixColumns, AddRoundKey and their
//!   inverses, on a whole state or on the part one actor owns (SubBytes-4,
//!   MixColumns-4), and the key-expansion steps KeyRotWord, KeySubWord,
//!   KeyXOR (paper §4.1, Table 1).
//! * [`key_schedule`] — offline ([`RoundKeys`]) and online
//!   ([`OnlineKeyExpansion`]) key expansion (paper §4: every engine exists in
//!   both styles). Secrets are zeroized on drop.
//! * [`cpu`] — the CPU's features, detected once ([`features`]), and the
//!   families of code paths ([`Isa`]) that follow a kernel's choice.
//! * [`kernel`] — the [`Kernel`] trait, the registry ([`kernels`](fn@kernels),
//!   [`kernel_by_name`]) and runtime selection ([`detect_best`]; at an
//!   application's edge [`default_kernel`], which honours `AESFLOW_KERNEL`).
//! * `x86` (x86-64 only) — the AES-round, round-key broadcast and counter
//!   helpers on 128- and 512-bit registers that the kernels here and the
//!   fused paths of the other crates share.
//! * [`kernels`](mod@kernels) — the implementations: `reference`, `ttable`
//!   (not constant-time), `ctime`, and the hardware kernels where compiled.
//!
//! ```
//! use aesflow_cipher::Aes;
//! let aes = Aes::new(&[0u8; 16]).unwrap();
//! let mut block = [0u8; 16];
//! aes.encrypt_block(&mut block);
//! aes.decrypt_block(&mut block);
//! assert_eq!(block, [0u8; 16]);
//! ```

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod cpu;
pub mod kernel;
pub mod kernels;
pub mod key_schedule;
pub mod sbox;
pub mod steps;
#[cfg(target_arch = "x86_64")]
pub mod x86;

pub use cpu::{Features, Identity, Isa, Vendor, features, identity};
pub use kernel::{
    Block, KERNEL_ENV, Kernel, KernelError, XtsTweakMul, available_kernels, default_kernel,
    detect_best, kernel_by_name, kernels, xts_mul_alpha,
};
pub use key_schedule::{
    CipherKey, KeyError, KeyExpansion, KeySchedule, KeySize, OnlineKeyExpansion, RoundKeys,
};

use core::fmt;

/// Any error from this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A bad key.
    Key(KeyError),
    /// A bad kernel choice.
    Kernel(KernelError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Key(e) => e.fmt(f),
            Error::Kernel(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

impl From<KeyError> for Error {
    fn from(e: KeyError) -> Self {
        Error::Key(e)
    }
}

impl From<KernelError> for Error {
    fn from(e: KernelError) -> Self {
        Error::Kernel(e)
    }
}

/// An AES instance: a key schedule bound to a kernel.
///
/// The main entry point for users: [`Aes::new`] picks the fastest
/// constant-time kernel on this CPU ([`detect_best`]) and offline key
/// expansion; [`Aes::with_kernel`] takes a chosen one, e.g. the
/// [`default_kernel`] an application resolved from `AESFLOW_KERNEL`.
/// [`Aes::with_xts_tweak_mul`] sets how XTS multiplies its tweaks (a
/// plan's choice, [`XtsTweakMul`]).
#[derive(Clone)]
pub struct Aes {
    kernel: &'static dyn Kernel,
    keys: KeySchedule,
    xts_mul: XtsTweakMul,
}

impl Aes {
    /// AES with the fastest constant-time kernel this CPU runs
    /// ([`detect_best`]) and offline key expansion. Does not read the
    /// environment: to honour `AESFLOW_KERNEL`, pass [`default_kernel`] to
    /// [`Aes::with_kernel`].
    pub fn new(key: &[u8]) -> Result<Self, Error> {
        Self::with_kernel(key, detect_best(), KeyExpansion::Offline)
    }

    /// AES with a chosen kernel and key-expansion style.
    pub fn with_kernel(
        key: &[u8],
        kernel: &'static dyn Kernel,
        style: KeyExpansion,
    ) -> Result<Self, Error> {
        if !kernel.is_available() {
            return Err(Error::Kernel(KernelError::Unavailable {
                name: kernel.name(),
                available: available_kernels().iter().map(|k| k.name()).collect(),
            }));
        }
        Ok(Aes {
            kernel,
            keys: KeySchedule::new(key, style)?,
            xts_mul: XtsTweakMul::default(),
        })
    }

    /// AES with a kernel chosen by name (see [`kernels`](fn@kernels)).
    pub fn with_kernel_name(key: &[u8], name: &str, style: KeyExpansion) -> Result<Self, Error> {
        Self::with_kernel(key, kernel_by_name(name)?, style)
    }

    /// The kernel in use.
    pub fn kernel(&self) -> &'static dyn Kernel {
        self.kernel
    }

    /// The key schedule.
    pub fn key_schedule(&self) -> &KeySchedule {
        &self.keys
    }

    /// The key size.
    pub fn key_size(&self) -> KeySize {
        self.keys.size()
    }

    /// Encrypt one block in place.
    pub fn encrypt_block(&self, block: &mut Block) {
        self.kernel
            .encrypt_blocks(&self.keys, core::slice::from_mut(block));
    }

    /// Decrypt one block in place.
    pub fn decrypt_block(&self, block: &mut Block) {
        self.kernel
            .decrypt_blocks(&self.keys, core::slice::from_mut(block));
    }

    /// Encrypt blocks in place (ECB).
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        self.kernel.encrypt_blocks(&self.keys, blocks);
    }

    /// Decrypt blocks in place (ECB).
    pub fn decrypt_blocks(&self, blocks: &mut [Block]) {
        self.kernel.decrypt_blocks(&self.keys, blocks);
    }

    /// Counter-mode keystream XOR over `data` (see [`Kernel::ctr_xor`]).
    pub fn ctr_xor(&self, counter: &mut Block, data: &mut [u8]) {
        self.kernel.ctr_xor(&self.keys, counter, data);
    }

    /// CBC encryption of whole blocks in place (see [`Kernel::cbc_encrypt`]).
    pub fn cbc_encrypt(&self, iv: &mut Block, blocks: &mut [Block]) {
        self.kernel.cbc_encrypt(&self.keys, iv, blocks);
    }

    /// CBC decryption of whole blocks in place (see [`Kernel::cbc_decrypt`]).
    pub fn cbc_decrypt(&self, iv: &mut Block, blocks: &mut [Block]) {
        self.kernel.cbc_decrypt(&self.keys, iv, blocks);
    }

    /// CFB128 decryption of whole blocks in place (see
    /// [`Kernel::cfb_decrypt`]).
    pub fn cfb_decrypt(&self, iv: &mut Block, blocks: &mut [Block]) {
        self.kernel.cfb_decrypt(&self.keys, iv, blocks);
    }

    /// XTS of whole blocks in place with this instance as the data-unit
    /// key and `tweak` the encrypted tweak (see [`Kernel::xts_blocks`]).
    pub fn xts_blocks(&self, tweak: &mut Block, blocks: &mut [Block], decrypt: bool) {
        self.kernel
            .xts_blocks(&self.keys, tweak, blocks, decrypt, self.xts_mul);
    }

    /// This instance with XTS's tweaks multiplied as `mul` says (the
    /// default: [`XtsTweakMul::default`]); a plan's choice, taken as a
    /// value (`aesflow_plan::Plan::xts_tweak_mul`).
    pub fn with_xts_tweak_mul(mut self, mul: XtsTweakMul) -> Self {
        self.xts_mul = mul;
        self
    }

    /// How XTS multiplies its tweaks.
    pub fn xts_tweak_mul(&self) -> XtsTweakMul {
        self.xts_mul
    }

    /// XTS of consecutive data units of `unit_blocks` whole blocks each in
    /// place, unit `u` under the encrypted tweak `tweaks[u]` (see
    /// [`Kernel::xts_units`]).
    pub fn xts_units(
        &self,
        tweaks: &mut [Block],
        unit_blocks: usize,
        blocks: &mut [Block],
        decrypt: bool,
    ) {
        self.kernel.xts_units(
            &self.keys,
            tweaks,
            unit_blocks,
            blocks,
            decrypt,
            self.xts_mul,
        );
    }
}

impl fmt::Debug for Aes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Aes")
            .field("kernel", &self.kernel.name())
            .field("keys", &self.keys)
            .field("xts_mul", &self.xts_mul)
            .finish()
    }
}
