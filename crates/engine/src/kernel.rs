//! The AES kernel the engine runs on.
//!
//! By default the fastest constant-time kernel of this CPU
//! ([`aesflow_cipher::detect_best`]). An application may choose another
//! once, at its edge, with [`use_kernel`]: the `aesflow` command passes
//! [`aesflow_cipher::default_kernel`], which follows `AESFLOW_KERNEL`, so
//! that the variable forces Cobblestone, parallel GCM and the raw modes
//! alike. The library itself never reads the environment.

use crate::error::{Error, Result};
use aesflow_cipher::{Aes, Kernel, KeyExpansion, detect_best};
use aesflow_modes::Gcm;
use std::sync::OnceLock;

static CHOSEN: OnceLock<&'static dyn Kernel> = OnceLock::new();

/// Run every later engine operation of this process on `kernel`. Once per
/// process: choosing a different kernel later is an error (operations in
/// flight could otherwise mix kernels).
pub fn use_kernel(kernel: &'static dyn Kernel) -> Result<()> {
    let chosen = *CHOSEN.get_or_init(|| kernel);
    if chosen.name() == kernel.name() {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "the engine already runs on the {} kernel; cannot switch to {}",
            chosen.name(),
            kernel.name()
        )))
    }
}

/// The kernel engine operations run on.
pub fn kernel() -> &'static dyn Kernel {
    CHOSEN.get().copied().unwrap_or_else(detect_best)
}

/// AES-GCM under `key` on [`kernel`] (offline key expansion, so the fused
/// AES+GHASH kernels apply where the kernel has them).
pub(crate) fn gcm(key: &[u8]) -> Result<Gcm> {
    Ok(Gcm::from_aes(Aes::with_kernel(
        key,
        kernel(),
        KeyExpansion::Offline,
    )?))
}
