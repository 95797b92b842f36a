//! The AES kernel the engine runs on: a value, chosen at the application's
//! edge and handed down.
//!
//! A [`Pool`] carries its kernel ([`Pool::with_kernel`],
//! [`Pool::kernel`]); keys set up outside a pool take
//! it as a parameter ([`ParGcm::new`](crate::par::ParGcm::new)), or take
//! both from the pool ([`ParGcm::for_pool`](crate::par::ParGcm::for_pool)
//! also follows its plan). Without a
//! choice it is the fastest constant-time kernel of this CPU
//! ([`aesflow_cipher::detect_best`]). The library never reads the
//! environment and keeps no kernel of its own: the `aesflow` command and
//! the Python package resolve `AESFLOW_KERNEL` once, through
//! [`aesflow_cipher::default_kernel`], and pass the result in.
//!
//! Key set-ups that follow both choices take a [`KernelPlan`]: a kernel
//! alone (the plan of the table of measured CPUs) or a pool (its kernel and
//! its plan) converts into one.

use crate::{Pool, Result};
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

/// The two choices a key set-up takes from the edge: the AES kernel and the
/// plan of kernel variants. A `&'static dyn Kernel` converts with the plan
/// of the table of measured CPUs ([`Plan::for_this_cpu`]); a [`&Pool`](Pool)
/// with its own kernel and plan (e.g. one `aesflow tune` wrote).
#[derive(Clone, Copy, Debug)]
pub struct KernelPlan {
    /// The AES kernel.
    pub kernel: &'static dyn Kernel,
    /// The variants of the modes' kernels.
    pub plan: Plan,
}

impl KernelPlan {
    /// AES-GCM under `key` with these choices ([`gcm_planned`]).
    pub fn gcm(self, key: &[u8]) -> Result<Gcm> {
        gcm_planned(key, self.kernel, self.plan)
    }
}

impl From<&'static dyn Kernel> for KernelPlan {
    fn from(kernel: &'static dyn Kernel) -> Self {
        KernelPlan {
            kernel,
            plan: Plan::for_this_cpu(),
        }
    }
}

impl From<&Pool> for KernelPlan {
    fn from(pool: &Pool) -> Self {
        KernelPlan {
            kernel: pool.kernel(),
            plan: pool.plan(),
        }
    }
}
