//! The AES kernel the engine runs on: a value, chosen at the application's
//! edge and handed down.
//!
//! A [`Pool`](crate::Pool) carries its kernel ([`Pool::with_kernel`],
//! [`Pool::kernel`](crate::Pool::kernel)); keys set up outside a pool take
//! it as a parameter ([`ParGcm::new`](crate::par::ParGcm::new)), or take
//! both from the pool ([`ParGcm::for_pool`](crate::par::ParGcm::for_pool)
//! also follows its plan). Without a
//! choice it is the fastest constant-time kernel of this CPU
//! ([`aesflow_cipher::detect_best`]). The library never reads the
//! environment and keeps no kernel of its own: the `aesflow` command and
//! the Python package resolve `AESFLOW_KERNEL` once, through
//! [`aesflow_cipher::default_kernel`], and pass the result in.
//!
//! [`Pool::with_kernel`]: crate::Pool::with_kernel

use crate::Result;
use aesflow_cipher::{Aes, Kernel, KeyExpansion};
use aesflow_modes::Gcm;
use aesflow_modes::gcm::{FusedChoice, GcmOptions};
use aesflow_plan::Plan;

/// AES-GCM under `key` on `kernel` (offline key expansion, so the fused
/// AES+GHASH kernels apply where the kernel has them), with the variants of
/// the table of measured CPUs.
pub fn gcm(key: &[u8], kernel: &'static dyn Kernel) -> Result<Gcm> {
    gcm_planned(key, kernel, Plan::for_this_cpu())
}

/// [`gcm`] with the fused kernel's variant from `plan` (e.g. a pool's
/// [`Pool::plan`](crate::Pool::plan)).
pub fn gcm_planned(key: &[u8], kernel: &'static dyn Kernel, plan: Plan) -> Result<Gcm> {
    let aes = Aes::with_kernel(key, kernel, KeyExpansion::Offline)?;
    let options = GcmOptions {
        ghash: None,
        fused: FusedChoice::Plan(plan),
    };
    Ok(Gcm::with_options(aes, options)?)
}
