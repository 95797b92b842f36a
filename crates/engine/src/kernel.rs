//! The AES kernel the engine runs on.
//!
//! By default the fastest constant-time kernel of this CPU
//! ([`aesflow_cipher::detect_best`]). An application chooses another at its
//! edge with [`use_kernel`]: the `aesflow` command passes
//! [`aesflow_cipher::default_kernel`], which follows `AESFLOW_KERNEL`, so
//! that the variable forces Cobblestone, parallel GCM and the raw modes
//! alike. The library itself never reads the environment.

use crate::Result;
use aesflow_cipher::{Aes, Kernel, KeyExpansion, detect_best};
use aesflow_modes::Gcm;
use std::sync::RwLock;

static CHOSEN: RwLock<Option<&'static dyn Kernel>> = RwLock::new(None);

/// Run the engine operations that start from now on `kernel`. An operation
/// keeps the kernel it started with (its keys hold their cipher), so a later
/// choice never mixes kernels within one message.
pub fn use_kernel(kernel: &'static dyn Kernel) {
    *CHOSEN.write().unwrap_or_else(|e| e.into_inner()) = Some(kernel);
}

/// The kernel engine operations run on.
pub fn kernel() -> &'static dyn Kernel {
    let chosen = *CHOSEN.read().unwrap_or_else(|e| e.into_inner());
    chosen.unwrap_or_else(detect_best)
}

/// AES-GCM under `key` on [`kernel`] (offline key expansion, so the fused
/// AES+GHASH kernels apply where the kernel has them).
pub fn gcm(key: &[u8]) -> Result<Gcm> {
    Ok(Gcm::from_aes(Aes::with_kernel(
        key,
        kernel(),
        KeyExpansion::Offline,
    )?))
}
