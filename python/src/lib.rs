//! # aesflow-python: the `aesflow._aesflow` extension module
//!
//! The Python face of aesflow, built with PyO3 as one abi3 wheel for every
//! CPython from 3.9. The pure-Python package `aesflow` (beside this crate)
//! re-exports it and adds `aesflow.dask`.
//!
//! * [`gcm`] — `AESGCM`, pyca/cryptography's interface on the fused kernels.
//! * [`cobble`] — streaming Cobblestone (`Cobblestone256Encryptor`, …).
//! * [`files`] — whole files on all cores, and the chunk-range primitives
//!   that let Dask workers seal or open parts of one file independently.
//! * [`raw`] — `openssl enc`-compatible raw modes.
//! * [`multi`] — `cbc_encrypt_many`: the multi-stream engine, which fills
//!   the AES units with many independent CBC streams at once (the
//!   two-stream interleaving of *Vectorized AES Core for High-Throughput
//!   Secure Environments*, §3, generalised to SIMD lanes and cores).
//! * [`buffer`] — zero-copy access to any buffer-protocol object.
//!
//! Every call that does real work releases the GIL. Errors are Python
//! exceptions (`ValueError`, `TypeError`, `OSError`, `aesflow.InvalidTag`,
//! `aesflow.AlreadyFinalized`); a Rust panic would surface as
//! `pyo3_runtime.PanicException`, never as a crash.

mod buffer;
mod cobble;
mod errors;
mod files;
mod gcm;
mod multi;
mod raw;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// `n` random bytes from the operating system.
pub(crate) fn random_bytes(py: Python<'_>, n: usize) -> PyResult<Bound<'_, PyBytes>> {
    PyBytes::new_with(py, n, |b| {
        getrandom::fill(b).map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))
    })
}

/// The kernel new keys use, resolved as by the `aesflow` command:
/// `AESFLOW_KERNEL` if set (unknown or unsupported: `ValueError`), else the
/// fastest constant-time kernel; a variable-time kernel (`reference`,
/// `ttable`) is refused unless `AESFLOW_ALLOW_VARIABLE_TIME=1` (the
/// command's `--allow-variable-time`).
pub(crate) fn kernel() -> PyResult<&'static dyn aesflow_cipher::Kernel> {
    let k = aesflow_cipher::default_kernel()
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let allowed = std::env::var("AESFLOW_ALLOW_VARIABLE_TIME").is_ok_and(|v| v.trim() == "1");
    if !k.is_constant_time() && !allowed {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "the {} kernel (chosen by {}) is not constant-time: its timing can leak the key; \
             unset {} or set AESFLOW_ALLOW_VARIABLE_TIME=1",
            k.name(),
            aesflow_cipher::KERNEL_ENV,
            aesflow_cipher::KERNEL_ENV
        )));
    }
    Ok(k)
}

/// The kernel new keys use ([`kernel`]) with the plan in force ([`plan`]):
/// what key set-ups that take both (Cobblestone's) are given.
pub(crate) fn kernel_plan() -> PyResult<aesflow_engine::kernel::KernelPlan> {
    Ok(aesflow_engine::kernel::KernelPlan {
        kernel: kernel()?,
        plan: plan(),
    })
}

/// The plan in force, resolved once as by the `aesflow` command: the file
/// `AESFLOW_PLAN` names, else the one `aesflow tune` wrote to the user's
/// cache directory, else the table of measured CPUs; a plan file that is
/// ignored (unreadable, or written on another CPU) is said once on stderr.
pub(crate) fn plan() -> aesflow_plan::Plan {
    static PLAN: std::sync::OnceLock<aesflow_plan::Plan> = std::sync::OnceLock::new();
    *PLAN.get_or_init(|| {
        let r = aesflow_plan::resolve();
        if let Some(w) = r.warning {
            eprintln!("aesflow: warning: {w}");
        }
        r.plan
    })
}

/// AES under `key` with [`kernel`] and offline key expansion.
pub(crate) fn aes(key: &[u8]) -> PyResult<aesflow_cipher::Aes> {
    aesflow_cipher::Aes::with_kernel(key, kernel()?, aesflow_cipher::KeyExpansion::Offline)
        .map_err(errors::cipher)
}

/// Every AES kernel compiled in, as dicts with ``name``, ``available`` (this
/// CPU can run it), ``constant_time``, ``default`` and ``description``.
#[pyfunction]
fn kernels(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let default = aesflow_cipher::default_kernel().ok().map(|k| k.name());
    aesflow_cipher::kernels()
        .iter()
        .map(|k| {
            let d = PyDict::new(py);
            d.set_item("name", k.name())?;
            d.set_item("available", k.is_available())?;
            d.set_item("constant_time", k.is_constant_time())?;
            d.set_item("default", Some(k.name()) == default)?;
            d.set_item("description", k.description())?;
            Ok(d)
        })
        .collect()
}

/// The name of the kernel new objects use: ``AESFLOW_KERNEL`` if set (a
/// ``ValueError`` if it names an unknown kernel or one this CPU cannot
/// run), else the fastest constant-time kernel of this CPU. The variable is
/// read at every key setup, as by the ``aesflow`` command.
#[pyfunction]
fn default_kernel() -> PyResult<&'static str> {
    aesflow_cipher::default_kernel()
        .map(|k| k.name())
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// The pool every call spreads its work over: `AESFLOW_THREADS` workers if
/// that variable is set to a positive number when aesflow first needs them,
/// else one per available CPU.
pub(crate) fn pool() -> &'static aesflow_engine::Pool {
    static POOL: std::sync::OnceLock<aesflow_engine::Pool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let n = std::env::var("AESFLOW_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(0);
        let pool = aesflow_engine::Pool::new(n.min(4096))
            .or_else(|_| aesflow_engine::Pool::new(1))
            .expect("a one-thread pool needs no threads")
            .with_plan(plan());
        // A kernel `AESFLOW_KERNEL` cannot name is refused where keys are
        // set up (`kernel()`); the pool keeps the default then.
        match kernel() {
            Ok(k) => pool.with_kernel(k),
            Err(_) => pool,
        }
    })
}

/// The number of threads one call spreads its work over (one per CPU, or
/// ``AESFLOW_THREADS`` if set before the first call).
#[pyfunction]
fn threads() -> usize {
    pool().threads()
}

/// Remove the temporary files that processes which are gone left in
/// ``directory`` (the Dask driver's and the ``aesflow`` command's, by the
/// command's own code); returns their paths.
#[pyfunction]
fn remove_stale(directory: std::path::PathBuf) -> Vec<std::path::PathBuf> {
    aesflow_output::remove_stale(&directory)
}

/// A fresh name for the Dask driver's temporary file in this process:
/// ``.aesflow-dask-tmp-<host>-<pid>-<16 hex digits>``.
#[pyfunction]
fn dask_temp_name() -> String {
    aesflow_output::dask_temp_name()
}

#[pymodule]
mod _aesflow {
    #[pymodule_export]
    use super::{dask_temp_name, default_kernel, kernels, remove_stale, threads};
    #[pymodule_export]
    use crate::cobble::{
        Cobblestone128Decryptor, Cobblestone128Encryptor, Cobblestone256Decryptor,
        Cobblestone256Encryptor,
    };
    #[pymodule_export]
    use crate::files::{
        cobblestone_ciphertext_len, cobblestone_plaintext_len, cobblestone_prefix, decrypt_file,
        encrypt_file, open_file_range, seal_file_range,
    };
    #[pymodule_export]
    use crate::gcm::AesGcm;
    #[pymodule_export]
    use crate::multi::{cbc_encrypt_many, cbc_encrypt_many_into, multistream_backend};
    #[pymodule_export]
    use crate::raw::{decrypt, decrypt_into, encrypt, encrypt_into};

    #[pymodule_export]
    const DASK_TEMP_PREFIX: &str = aesflow_output::DASK_TEMP_PREFIX;
    #[pymodule_export]
    const CHUNK_SIZE: usize = aesflow_format::cobblestone::CHUNK_SIZE;
    #[pymodule_export]
    const ENC_CHUNK_SIZE: usize = aesflow_format::cobblestone::ENC_CHUNK_SIZE;
    #[pymodule_export]
    const PREFIX_SIZE: usize = aesflow_format::cobblestone::PREFIX_SIZE;
    #[pymodule_export]
    const SALT_SIZE: usize = aesflow_format::cobblestone::SALT_SIZE;
}
