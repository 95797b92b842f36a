//! `cbc_encrypt_many`: many independent CBC encryptions in one call on the
//! multi-stream engine, spread over all cores.

use crate::buffer::{View, new_bytes_many};
use crate::errors;
use aesflow_engine::streams;
use aesflow_multistream::{Backend, Job, Mode, MultiStream};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The engine for the kernel `AESFLOW_KERNEL` names, else the best one.
fn engine() -> PyResult<MultiStream> {
    let k = crate::kernel()?;
    let backend = match k.name() {
        "vaes" => Some(Backend::Vaes),
        "aesni" => Some(Backend::Aesni),
        _ => None,
    };
    let e = match backend {
        _ if std::env::var_os(aesflow_cipher::KERNEL_ENV).is_none() => Ok(MultiStream::auto()),
        Some(b) => MultiStream::new(b),
        None => MultiStream::portable_with_kernel(k),
    };
    e.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// CBC-encrypt many independent streams at once: ``buffers[i]`` under
/// ``keys[i]`` (16, 24 or 32 bytes each; keys may differ) and ``ivs[i]``
/// (16 bytes). No padding: every buffer must be a multiple of 16 bytes
/// (pad first, e.g. with ``aesflow.encrypt("cbc", …)`` for one stream).
/// Returns ``[ciphertext_i]``, each equal to ``encrypt("cbc", keys[i],
/// ivs[i], buffers[i], padding=False)``. The streams are interleaved
/// across the AES units' SIMD lanes and all cores, which is where CBC
/// encryption, serial within one stream, gets its throughput.
#[pyfunction]
pub fn cbc_encrypt_many<'py>(
    py: Python<'py>,
    keys: Vec<Bound<'py, PyAny>>,
    ivs: Vec<Bound<'py, PyAny>>,
    buffers: Vec<Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    if keys.len() != ivs.len() || keys.len() != buffers.len() {
        return Err(PyValueError::new_err(format!(
            "keys, ivs and buffers must have the same length (got {}, {}, {})",
            keys.len(),
            ivs.len(),
            buffers.len()
        )));
    }
    let kv: Vec<View> = keys
        .iter()
        .map(|k| View::read(k, "keys[i]"))
        .collect::<PyResult<_>>()?;
    let bv: Vec<View> = buffers
        .iter()
        .map(|b| View::read(b, "buffers[i]"))
        .collect::<PyResult<_>>()?;
    let mut iv_arr = Vec::with_capacity(ivs.len());
    for (i, v) in ivs.iter().enumerate() {
        let v = View::read(v, "ivs[i]")?;
        let a: [u8; 16] = v.bytes().try_into().map_err(|_| {
            PyValueError::new_err(format!("ivs[{i}] must be 16 bytes, got {}", v.len()))
        })?;
        iv_arr.push(a);
    }
    let engine = engine()?;
    let keys_b: Vec<&[u8]> = kv.iter().map(View::bytes).collect();
    let ins: Vec<&[u8]> = bv.iter().map(View::bytes).collect();
    let lens: Vec<usize> = ins.iter().map(|b| b.len()).collect();
    // The outputs are written in place, GIL released (a copy of every
    // ciphertext into its `bytes` with the GIL held would stall the
    // interpreter for a large part of the call).
    new_bytes_many(py, &lens, |mut outs| {
        let mut jobs: Vec<Job<'_>> = outs
            .iter_mut()
            .zip(&ins)
            .zip(&keys_b)
            .zip(&iv_arr)
            .map(|(((o, i), k), iv)| Job::new(Mode::CbcEncrypt, *k, *iv, i, o))
            .collect();
        streams::process(crate::pool(), &engine, &mut jobs).map_err(errors::engine)
    })
}
