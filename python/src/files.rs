//! Files: whole Cobblestone files on all cores (the `aesflow encrypt` /
//! `decrypt` job, with its atomic output rules), and the chunk-range
//! primitives the Dask driver (`aesflow.dask`) runs on its workers.
//!
//! A Cobblestone file is `prefix (56) ‖ chunk_0 ‖ chunk_1 ‖ …` with fixed
//! sizes (16384 plaintext bytes, 16400 encrypted, except the shorter last
//! chunk), so chunk `i` sits at plaintext offset `16384·i` and ciphertext
//! offset `56 + 16400·i`: any worker can seal or open any range of chunks
//! on its own, given the salt (encryption) or the prefix (decryption).

use crate::buffer::View;
use crate::errors::{self, InvalidTag};
use aesflow_format::Error;
use aesflow_format::cobblestone::{
    CHUNKS_PER_BATCH, ChunkKeys, PREFIX_SIZE, SALT_SIZE, Suite, chunk_bytes, chunk_count,
    chunk_runs, ciphertext_len, plaintext_len,
};
use aesflow_format::files::{Job, KeyMaterial, Operation, run_job};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::fs::{File, OpenOptions};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

fn suite_for(key: &[u8]) -> PyResult<Suite> {
    Suite::for_key_len(key.len()).ok_or_else(|| {
        PyValueError::new_err(format!(
            "key must be 32 bytes (Cobblestone-256) or 16 bytes (Cobblestone-128), got {}",
            key.len()
        ))
    })
}

fn key_and_context(
    key: &Bound<'_, PyAny>,
    context: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Suite, Zeroizing<Vec<u8>>, Vec<u8>)> {
    crate::kernel()?;
    let k = View::read(key, "key")?;
    let suite = suite_for(k.bytes())?;
    let c = crate::buffer::read_opt(context, "context")?;
    let ctx = c.as_ref().map_or(Vec::new(), |v| v.bytes().to_vec());
    Ok((suite, Zeroizing::new(k.bytes().to_vec()), ctx))
}

fn file_job(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    key: &Bound<'_, PyAny>,
    context: Option<&Bound<'_, PyAny>>,
    force: bool,
    encrypt: bool,
) -> PyResult<u64> {
    let (suite, key, context) = key_and_context(key, context)?;
    let op = Operation::Cobblestone {
        suite,
        context,
        key: KeyMaterial::Key(key),
    };
    let job = Job {
        input: Some(src),
        output: Some(dst),
    };
    let pool = crate::pool().clone().with_kernel(crate::kernel()?);
    let r = py
        .detach(|| run_job(&pool, &op, &job, encrypt, force))
        .map_err(errors::engine)?;
    Ok(r.bytes_out)
}

/// `encrypt_file` and `decrypt_file`: one whole-file job each way.
macro_rules! file_job_functions {
    ($($(#[$doc:meta])* $name:ident: $encrypt:literal;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (src, dst, key, context = None, *, force = false))]
        pub fn $name(
            py: Python<'_>,
            src: PathBuf,
            dst: PathBuf,
            key: &Bound<'_, PyAny>,
            context: Option<&Bound<'_, PyAny>>,
            force: bool,
        ) -> PyResult<u64> {
            file_job(py, src, dst, key, context, force, $encrypt)
        }
    )*};
}

file_job_functions! {
    /// Encrypt the file ``src`` to ``dst`` as Cobblestone (-256 for a 32-byte
    /// key, -128 for a 16-byte key) on all cores, exactly as ``aesflow
    /// encrypt -k KEY --context CONTEXT src -o dst``: the output is written to
    /// a temporary file beside ``dst`` and renamed into place only when
    /// complete; an existing ``dst`` is refused unless ``force``. Returns the
    /// bytes written.
    encrypt_file: true;
    /// Decrypt the Cobblestone file ``src`` to ``dst`` on all cores (as
    /// ``aesflow decrypt``). ``dst`` appears only if every chunk
    /// authenticated; otherwise :class:`aesflow.InvalidTag` is raised and no
    /// output is left. Returns the plaintext bytes written.
    decrypt_file: false;
}

fn io(what: String) -> impl FnOnce(std::io::Error) -> Error {
    move |e| Error::io(what, e)
}

fn open_read(p: &Path) -> Result<File, Error> {
    File::open(p).map_err(io(format!("opening {}", p.display())))
}

fn open_write(p: &Path) -> Result<File, Error> {
    OpenOptions::new()
        .write(true)
        .open(p)
        .map_err(io(format!("opening {}", p.display())))
}

fn check_len(f: &File, p: &Path, want: u64) -> Result<(), Error> {
    let len = f
        .metadata()
        .map_err(io(format!("reading {}", p.display())))?
        .len();
    if len != want {
        return Err(Error::InvalidInput(format!(
            "{} is {len} bytes, expected {want} (changed during the job?)",
            p.display()
        )));
    }
    Ok(())
}

/// Run `step(chunks, last)` over chunks `first .. first + count` in runs
/// of [`CHUNKS_PER_BATCH`] (`last`: the run ends with the message's final
/// chunk); returns the sum of what the steps return.
fn batches(
    first: u64,
    count: u64,
    total: u64,
    mut step: impl FnMut(Range<u64>, bool) -> Result<u64, Error>,
) -> Result<u64, Error> {
    chunk_runs(first..first + count, CHUNKS_PER_BATCH as u64)
        .map(|r| {
            let last = r.end == total;
            step(r, last)
        })
        .sum()
}

fn check_range(first: u64, count: u64, total: u64) -> PyResult<()> {
    if count == 0 || first.checked_add(count).is_none_or(|e| e > total) {
        return Err(PyValueError::new_err(format!(
            "chunk range {first}+{count} outside the message's {total} chunks"
        )));
    }
    Ok(())
}

/// The 56-byte prefix (salt ‖ key commitment) of the Cobblestone message
/// for ``key``, ``context`` and the 24-byte ``salt``.
#[pyfunction]
#[pyo3(signature = (key, context, salt))]
pub fn cobblestone_prefix<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    context: Option<&Bound<'py, PyAny>>,
    salt: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (suite, key, ctx) = key_and_context(key, context)?;
    let keys = derive(suite, &key, &ctx, salt)?;
    Ok(PyBytes::new(py, &keys.prefix()))
}

fn derive(suite: Suite, key: &[u8], ctx: &[u8], salt: &Bound<'_, PyAny>) -> PyResult<ChunkKeys> {
    let s = View::read(salt, "salt")?;
    let salt: [u8; SALT_SIZE] = s
        .bytes()
        .try_into()
        .map_err(|_| PyValueError::new_err("salt must be 24 bytes"))?;
    ChunkKeys::derive(crate::kernel_plan()?, suite, key, &salt, ctx).map_err(errors::engine)
}

/// Seal chunks ``first .. first + count`` of the plaintext file ``src``
/// (``plain_len`` bytes; checked) into ``dst`` at their ciphertext offsets
/// (``dst`` must exist; the prefix is not written). Runs on all cores of
/// this machine with the GIL released. Returns the plaintext bytes sealed.
#[pyfunction]
#[pyo3(signature = (src, dst, key, context, salt, plain_len, first, count))]
#[allow(clippy::too_many_arguments)]
pub fn seal_file_range(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    key: &Bound<'_, PyAny>,
    context: Option<&Bound<'_, PyAny>>,
    salt: &Bound<'_, PyAny>,
    plain_len: u64,
    first: u64,
    count: u64,
) -> PyResult<u64> {
    let (suite, key, ctx) = key_and_context(key, context)?;
    let keys = derive(suite, &key, &ctx, salt)?;
    let total = chunk_count(plain_len);
    check_range(first, count, total)?;
    py.detach(|| -> Result<u64, Error> {
        let input = open_read(&src)?;
        check_len(&input, &src, plain_len)?;
        let output = open_write(&dst)?;
        let mut plain = Zeroizing::new(Vec::new());
        let mut enc = Zeroizing::new(Vec::new());
        batches(first, count, total, |chunks, last| {
            let (p, c) = chunk_bytes(&chunks, plain_len);
            plain.resize((p.end - p.start) as usize, 0);
            input
                .read_exact_at(&mut plain, p.start)
                .map_err(io(format!("reading {}", src.display())))?;
            enc.resize((c.end - c.start) as usize, 0);
            keys.seal_chunks_into(crate::pool(), chunks.start, &plain, last, &mut enc)?;
            output
                .write_all_at(&enc, PREFIX_SIZE as u64 + c.start)
                .map_err(io(format!("writing {}", dst.display())))?;
            Ok(p.end - p.start)
        })
    })
    .map_err(errors::engine)
}

/// Open chunks ``first .. first + count`` of the Cobblestone file ``src``
/// (``ct_len`` bytes; checked) into ``dst`` at their plaintext offsets.
/// Checks the key commitment first; a failing chunk raises
/// :class:`aesflow.InvalidTag` (the driver then discards ``dst``). Returns
/// the plaintext bytes written.
#[pyfunction]
#[pyo3(signature = (src, dst, key, context, ct_len, first, count))]
#[allow(clippy::too_many_arguments)]
pub fn open_file_range(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    key: &Bound<'_, PyAny>,
    context: Option<&Bound<'_, PyAny>>,
    ct_len: u64,
    first: u64,
    count: u64,
) -> PyResult<u64> {
    let (suite, key, ctx) = key_and_context(key, context)?;
    let on = crate::kernel_plan()?;
    let plain_len = plaintext_len(ct_len).map_err(errors::engine)?;
    let total = chunk_count(plain_len);
    check_range(first, count, total)?;
    let r = py.detach(|| -> Result<u64, Error> {
        let input = open_read(&src)?;
        check_len(&input, &src, ct_len)?;
        let mut prefix = [0u8; PREFIX_SIZE];
        input
            .read_exact_at(&mut prefix, 0)
            .map_err(io(format!("reading {}", src.display())))?;
        let keys = ChunkKeys::from_prefix(on, suite, &key, &ctx, &prefix)?;
        let output = open_write(&dst)?;
        let mut enc = Vec::new();
        let mut plain = Zeroizing::new(Vec::new());
        batches(first, count, total, |chunks, last| {
            let (p, c) = chunk_bytes(&chunks, plain_len);
            enc.resize((c.end - c.start) as usize, 0);
            input
                .read_exact_at(&mut enc, PREFIX_SIZE as u64 + c.start)
                .map_err(io(format!("reading {}", src.display())))?;
            plain.resize((p.end - p.start) as usize, 0);
            keys.open_chunks_into(crate::pool(), chunks.start, &enc, last, &mut plain)?;
            output
                .write_all_at(&plain, p.start)
                .map_err(io(format!("writing {}", dst.display())))?;
            Ok(p.end - p.start)
        })
    });
    r.map_err(|e| match e {
        e @ (Error::WrongKey | Error::ChunkAuthentication(_) | Error::Truncated(_)) => {
            InvalidTag::new_err(e.to_string())
        }
        e => errors::engine(e),
    })
}

/// The ciphertext length of a plaintext length, and back (``ValueError``
/// for an impossible ciphertext length).
#[pyfunction]
pub fn cobblestone_ciphertext_len(plain_len: u64) -> u64 {
    ciphertext_len(plain_len)
}

/// The plaintext length of a Cobblestone ciphertext length; raises
/// :class:`aesflow.InvalidTag` for an impossible (truncated or extended) one.
#[pyfunction]
pub fn cobblestone_plaintext_len(ct_len: u64) -> PyResult<u64> {
    plaintext_len(ct_len).map_err(errors::engine)
}
