//! The kernels: one module per implementation strategy.
//!
//! | kernel | how | constant-time |
//! |---|---|---|
//! | [`reference`](mod@reference) | FIPS-197's steps, literally | no (S-box table) |
//! | [`ttable`] | T-tables: SubBytes+ShiftRows+MixColumns as four lookups per column | **no** |
//! | [`ctime`] | bitsliced: Boyar–Peralta S-box circuit on bit-planes, 8 blocks at a time | yes |
//! | `aesni` (x86-64) | AES-NI on 128-bit registers, 8 blocks interleaved, fused CTR | yes |
//! | `vaes256` (x86-64) | AVX2 + VAES, 2 blocks per 256-bit register, 16 blocks in flight (CPUs with VAES but no AVX-512) | yes |
//! | `vaes` (x86-64) | AVX-512 + VAES, 4 blocks per 512-bit register, 32 blocks in flight, fused CTR | yes |
//!
//! The hardware kernels are compiled on x86-64 only and check the CPU's
//! features at run time ([`Kernel::is_available`]).

#[cfg(target_arch = "x86_64")]
pub mod aesni;
pub mod ctime;
pub mod reference;
#[cfg(test)]
pub(crate) mod testutil;
pub mod ttable;
#[cfg(target_arch = "x86_64")]
pub mod vaes;
#[cfg(target_arch = "x86_64")]
pub mod vaes256;

use crate::kernel::Kernel;

/// Every kernel compiled into this build, in registry order.
pub(crate) static ALL: &[&dyn Kernel] = &[
    &reference::Reference,
    &ttable::TTable,
    &ctime::ConstantTime,
    #[cfg(target_arch = "x86_64")]
    &aesni::AesNi,
    #[cfg(target_arch = "x86_64")]
    &vaes256::Vaes256,
    #[cfg(target_arch = "x86_64")]
    &vaes::Vaes,
];
