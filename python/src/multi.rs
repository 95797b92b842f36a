//! `cbc_encrypt_many`: many independent CBC encryptions in one call on the
//! multi-stream engine, spread over all cores.

use crate::buffer::{View, new_bytes_many_lazy};
use crate::errors;
use aesflow_engine::streams;
use aesflow_multistream::{Job, Mode, MultiStream};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The multi-stream engine of the kernel [`crate::kernel`] resolves
/// (`AESFLOW_KERNEL`, else the best constant-time one), through
/// [`MultiStream::with_kernel`]: `vaes` runs the 512-bit VAES engine,
/// `vaes256` the 256-bit one, `aesni` the 128-bit AES-NI one, a portable
/// kernel each stream alone on that kernel; its lanes for streams with keys
/// of their own follow [`crate::plan`].
fn engine() -> PyResult<MultiStream> {
    MultiStream::with_kernel(crate::kernel()?)
        .map(|e| e.with_plan(&crate::plan()))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The name of the multi-stream backend :func:`cbc_encrypt_many` runs on
/// (``"vaes"``, ``"vaes256"``, ``"aesni"`` or ``"portable"``), which follows
/// the kernel :func:`default_kernel` names.
#[pyfunction]
pub fn multistream_backend() -> PyResult<&'static str> {
    Ok(engine()?.backend().name())
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
    for (i, (k, b)) in kv.iter().zip(&bv).enumerate() {
        if ![16, 24, 32].contains(&k.len()) {
            return Err(PyValueError::new_err(format!(
                "keys[{i}] must be 16, 24 or 32 bytes, got {}",
                k.len()
            )));
        }
        if b.len() % 16 != 0 {
            return Err(PyValueError::new_err(format!(
                "buffers[{i}] must be a multiple of 16 bytes (no padding), got {}",
                b.len()
            )));
        }
    }
    let engine = engine()?;
    let keys_b: Vec<&[u8]> = kv.iter().map(View::bytes).collect();
    let ins: Vec<&[u8]> = bv.iter().map(View::bytes).collect();
    let lens: Vec<usize> = ins.iter().map(|b| b.len()).collect();
    let batch = BATCH_PER_THREAD * crate::pool().threads();
    // The outputs are written in place with the GIL released, batch by
    // batch (see `SEGMENT`).
    new_bytes_many_lazy(py, &lens, |outs| {
        let mut ivs = iv_arr;
        let longest = lens.iter().copied().max().unwrap_or(0);
        for start in (0..longest).step_by(SEGMENT) {
            let mut jobs: Vec<Job<'_>> = Vec::new();
            let mut owners: Vec<usize> = Vec::new();
            let mut bytes = 0;
            for (i, out) in outs.iter_mut().enumerate() {
                if ins[i].len() <= start {
                    continue;
                }
                let r = start..ins[i].len().min(start + SEGMENT);
                bytes += r.len();
                let input = &ins[i][r.clone()];
                jobs.push(Job::new(
                    Mode::CbcEncrypt,
                    keys_b[i],
                    ivs[i],
                    input,
                    out.zeroed(r),
                ));
                owners.push(i);
                if bytes >= batch {
                    run(&engine, &mut jobs, &owners, &mut ivs)?;
                    jobs.clear();
                    owners.clear();
                    bytes = 0;
                }
            }
            run(&engine, &mut jobs, &owners, &mut ivs)?;
        }
        Ok(())
    })
}

/// Bytes of each stream one round covers: a long stream is encrypted in
/// segments of this size, round by round, its chaining value carried from
/// one segment to the next.
const SEGMENT: usize = 64 * 1024;

/// Bytes per thread in one call to the multi-stream engine: a round's
/// segments go to the engine in batches of about this size per thread, so
/// that each batch's outputs are initialised and written while they are in
/// the core's cache. One pass over many streams at once (all their bytes
/// before the first is done) makes the throughput fall as the streams grow:
/// outputs initialised long before they are written, and more concurrent
/// memory streams than the prefetchers follow.
const BATCH_PER_THREAD: usize = 512 * 1024;

/// One batch on all cores; its jobs' chaining values go back to their
/// streams (`owners[j]`: the stream of job `j`).
fn run(
    engine: &MultiStream,
    jobs: &mut [Job<'_>],
    owners: &[usize],
    ivs: &mut [[u8; 16]],
) -> PyResult<()> {
    if jobs.is_empty() {
        return Ok(());
    }
    streams::process(crate::pool(), engine, jobs).map_err(errors::engine)?;
    for (j, &i) in jobs.iter().zip(owners) {
        ivs[i] = j.iv;
    }
    Ok(())
}
