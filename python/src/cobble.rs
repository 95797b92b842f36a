//! `Cobblestone{256,128}{Encryptor,Decryptor}`: streaming Cobblestone
//! (C2SP chunked encryption with HKDF-SHA-512 and AES-GCM), with the
//! interface of pyca/cryptography's `cryptography.cobblestone`: `update`
//! returns every chunk completed so far, `finalize` the rest.
//!
//! The encryptor emits the 56-byte prefix with the first output and seals
//! a chunk as soon as its 16384 bytes are there (a full chunk is never the
//! last). The decryptor checks the key commitment as soon as the prefix is
//! in, opens every complete 16400-byte chunk, and releases a call's
//! plaintext only after all of that call's chunks authenticated; a failure
//! raises `InvalidTag` and ends the object.

use crate::buffer::{View, new_bytes, write_into};
use crate::errors::{self, AlreadyFinalized, InvalidTag};
use aesflow_format::Pool;
use aesflow_format::cobblestone::{
    CHUNK_SIZE, ChunkKeys, ENC_CHUNK_SIZE, PREFIX_SIZE, Suite, opened_len, sealed_len,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::{Zeroize, Zeroizing};

/// Reads the key and the context (required, as by pyca/cryptography: `b""`
/// for none; `None` is a `TypeError`); checks the key length, and
/// `AESFLOW_KERNEL` as the command does (the chunk keys run on that kernel).
fn key_and_context<T>(
    suite: Suite,
    key: &Bound<'_, PyAny>,
    context: &Bound<'_, PyAny>,
    new: impl FnOnce(&[u8], &[u8]) -> PyResult<T>,
) -> PyResult<T> {
    let k = View::read(key, "key")?;
    let c = View::read(context, "context")?;
    crate::kernel()?;
    if k.len() != suite.key_len() {
        return Err(PyValueError::new_err(format!(
            "key must be {} bytes.",
            suite.key_len()
        )));
    }
    new(k.bytes(), c.bytes())
}

fn auth_failed() -> PyErr {
    InvalidTag::new_err("authentication failed")
}

/// What the encryption and decryption states share: the four classes'
/// methods are written once over it.
trait Stream: Send {
    /// Whether the object was finalized (or failed).
    fn done(&self) -> bool;
    /// Output bytes an update with `n` input bytes releases.
    fn update_len(&self, n: usize) -> usize;
    /// Process `data` into `out` (exactly `update_len` bytes).
    fn update(&mut self, data: &[u8], out: &mut [u8]) -> PyResult<()>;
    /// The last output's length; `None` if the message cannot end here.
    fn final_len(&self) -> Option<usize>;
    /// The last output into `out` (exactly `final_len` bytes).
    fn finalize(&mut self, out: &mut [u8]) -> PyResult<()>;
    /// Record a failed call.
    fn fail(&mut self);

    fn check(&self) -> PyResult<()> {
        if self.done() {
            return Err(AlreadyFinalized::new_err("Context was already finalized."));
        }
        Ok(())
    }
}

/// `update`: a new `bytes` (filled with the GIL released).
fn update<'py>(
    st: &mut impl Stream,
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    st.check()?;
    let d = View::read(data, "data")?;
    let input = d.bytes();
    let r = new_bytes(py, st.update_len(d.len()), |out| st.update(input, out));
    r.inspect_err(|_| st.fail())
}

/// `update_into`: into the writable buffer `buf`; returns the bytes written.
fn update_into(
    st: &mut impl Stream,
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    buf: &Bound<'_, PyAny>,
) -> PyResult<usize> {
    st.check()?;
    let d = View::read(data, "data")?;
    let n = st.update_len(d.len());
    let r = write_into(py, [Some(&d)], buf, n, false, |[input], out| {
        st.update(input, out)
    })?;
    r.inspect_err(|_| st.fail()).map(|()| n)
}

/// `finalize`: the last output as a new `bytes`.
fn finalize<'py>(st: &mut impl Stream, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
    st.check()?;
    let r = match st.final_len() {
        Some(n) => PyBytes::new_with(py, n, |out| st.finalize(out)),
        None => Err(auth_failed()),
    };
    r.inspect_err(|_| st.fail())
}

/// Encryption state: the derived keys, the partial chunk, the next index.
pub struct EncState {
    keys: ChunkKeys,
    buf: Zeroizing<Vec<u8>>,
    index: u64,
    started: bool,
    done: bool,
}

impl EncState {
    fn new(suite: Suite, key: &[u8], context: &[u8]) -> PyResult<Self> {
        Ok(EncState {
            keys: ChunkKeys::for_encryption(crate::kernel_plan()?, suite, key, context)
                .map_err(errors::engine)?,
            buf: Zeroizing::new(Vec::with_capacity(CHUNK_SIZE)),
            index: 0,
            started: false,
            done: false,
        })
    }

    fn pre(&self) -> usize {
        if self.started { 0 } else { PREFIX_SIZE }
    }
}

impl Stream for EncState {
    fn done(&self) -> bool {
        self.done
    }

    fn update_len(&self, n: usize) -> usize {
        self.pre() + (self.buf.len() + n) / CHUNK_SIZE * ENC_CHUNK_SIZE
    }

    /// Seal what `data` completes.
    fn update(&mut self, data: &[u8], out: &mut [u8]) -> PyResult<()> {
        let mut off = 0;
        if !self.started {
            out[..PREFIX_SIZE].copy_from_slice(&self.keys.prefix());
            off = PREFIX_SIZE;
            self.started = true;
        }
        let mut d = data;
        if !self.buf.is_empty() && self.buf.len() + d.len() >= CHUNK_SIZE {
            let need = CHUNK_SIZE - self.buf.len();
            let slot = &mut out[off..off + ENC_CHUNK_SIZE];
            slot[..self.buf.len()].copy_from_slice(&self.buf);
            slot[self.buf.len()..CHUNK_SIZE].copy_from_slice(&d[..need]);
            let tag = self.keys.seal_chunk(self.index, &mut slot[..CHUNK_SIZE]);
            slot[CHUNK_SIZE..].copy_from_slice(&tag);
            self.buf.zeroize();
            self.buf.clear();
            self.index += 1;
            off += ENC_CHUNK_SIZE;
            d = &d[need..];
        }
        if self.buf.is_empty() {
            let m = d.len() / CHUNK_SIZE;
            let (whole, rest) = d.split_at(m * CHUNK_SIZE);
            let (pool, out) = (crate::pool(), &mut out[off..]);
            let sealed = self
                .keys
                .seal_chunks_into(pool, self.index, whole, false, out);
            sealed.map_err(errors::engine)?;
            self.index += m as u64;
            d = rest;
        }
        self.buf.extend_from_slice(d);
        Ok(())
    }

    fn final_len(&self) -> Option<usize> {
        Some(self.pre() + sealed_len(self.buf.len(), true))
    }

    /// Seal the last (short) chunk, after the prefix if nothing was output.
    fn finalize(&mut self, out: &mut [u8]) -> PyResult<()> {
        let pre = self.pre();
        if !self.started {
            out[..PREFIX_SIZE].copy_from_slice(&self.keys.prefix());
        }
        let (pool, out) = (Pool::inline(), &mut out[pre..]);
        let r = self
            .keys
            .seal_chunks_into(pool, self.index, &self.buf, true, out);
        self.buf.zeroize();
        self.done = true;
        r.map_err(errors::engine)
    }

    /// Sealing does not fail: an error before it (no memory for the
    /// output) leaves the state as it was.
    fn fail(&mut self) {}
}

/// Decryption state: the input key until the prefix is in, then the keys.
pub struct DecState {
    suite: Suite,
    key: Zeroizing<Vec<u8>>,
    context: Vec<u8>,
    prefix: Vec<u8>,
    keys: Option<ChunkKeys>,
    buf: Vec<u8>,
    index: u64,
    done: bool,
}

impl DecState {
    fn new(suite: Suite, key: &[u8], context: &[u8]) -> PyResult<Self> {
        Ok(DecState {
            suite,
            key: Zeroizing::new(key.to_vec()),
            context: context.to_vec(),
            prefix: Vec::with_capacity(PREFIX_SIZE),
            keys: None,
            buf: Vec::with_capacity(ENC_CHUNK_SIZE),
            index: 0,
            done: false,
        })
    }

    /// Take prefix bytes from `d`; derive and check the keys once complete.
    fn take_prefix<'a>(&mut self, d: &'a [u8]) -> PyResult<&'a [u8]> {
        if self.keys.is_some() {
            return Ok(d);
        }
        let p = (PREFIX_SIZE - self.prefix.len()).min(d.len());
        self.prefix.extend_from_slice(&d[..p]);
        if self.prefix.len() == PREFIX_SIZE {
            let keys = ChunkKeys::from_prefix(
                crate::kernel_plan()?,
                self.suite,
                &self.key,
                &self.context,
                &self.prefix,
            )
            .map_err(|_| auth_failed())?;
            self.keys = Some(keys);
            self.key.zeroize();
        }
        Ok(&d[p..])
    }
}

impl Stream for DecState {
    fn done(&self) -> bool {
        self.done
    }

    fn update_len(&self, n: usize) -> usize {
        let p = (PREFIX_SIZE - self.prefix.len()).min(n);
        (self.buf.len() + n - p) / ENC_CHUNK_SIZE * CHUNK_SIZE
    }

    /// Open every chunk `data` completes; on failure `out` is zeroed.
    fn update(&mut self, data: &[u8], out: &mut [u8]) -> PyResult<()> {
        let mut d = self.take_prefix(data)?;
        let Some(keys) = &self.keys else {
            return Ok(());
        };
        let mut off = 0;
        if !self.buf.is_empty() && self.buf.len() + d.len() >= ENC_CHUNK_SIZE {
            let need = ENC_CHUNK_SIZE - self.buf.len();
            self.buf.extend_from_slice(&d[..need]);
            let (pool, first) = (Pool::inline(), &mut out[..CHUNK_SIZE]);
            let opened = keys.open_chunks_into(pool, self.index, &self.buf, false, first);
            opened.map_err(|_| auth_failed())?;
            self.buf.clear();
            self.index += 1;
            off = CHUNK_SIZE;
            d = &d[need..];
        }
        if self.buf.is_empty() {
            let m = d.len() / ENC_CHUNK_SIZE;
            let (whole, rest) = d.split_at(m * ENC_CHUNK_SIZE);
            let (pool, bulk) = (crate::pool(), &mut out[off..]);
            if keys
                .open_chunks_into(pool, self.index, whole, false, bulk)
                .is_err()
            {
                out.zeroize();
                return Err(auth_failed());
            }
            self.index += m as u64;
            d = rest;
        }
        self.buf.extend_from_slice(d);
        Ok(())
    }

    fn final_len(&self) -> Option<usize> {
        self.keys.as_ref()?;
        opened_len(self.buf.len(), true).ok()
    }

    /// Authenticate and open the last chunk.
    fn finalize(&mut self, out: &mut [u8]) -> PyResult<()> {
        let keys = self.keys.as_ref().ok_or_else(auth_failed)?;
        let r = keys.open_chunks_into(Pool::inline(), self.index, &self.buf, true, out);
        self.done = true;
        r.map_err(|_| auth_failed())
    }

    /// A failure ends the object.
    fn fail(&mut self) {
        self.done = true;
        self.buf.clear();
    }
}

/// One class: `$state` behind the interface of `cryptography.cobblestone`,
/// with the docstrings of its `update` and `finalize`, and `$extra` methods.
macro_rules! cobblestone_class {
    (
        $(#[$doc:meta])*
        $class:ident($state:ident, $suite:expr),
        update: $update_doc:literal,
        finalize: $finalize_doc:literal,
        { $($extra:tt)* }
    ) => {
        $(#[$doc])*
        #[pyclass(module = "aesflow")]
        pub struct $class {
            st: $state,
        }

        #[pymethods]
        impl $class {
            #[new]
            #[pyo3(signature = (key, context))]
            fn new(key: &Bound<'_, PyAny>, context: &Bound<'_, PyAny>) -> PyResult<Self> {
                let st = key_and_context($suite, key, context, |k, c| $state::new($suite, k, c))?;
                Ok($class { st })
            }

            $($extra)*

            #[doc = $update_doc]
            fn update<'py>(&mut self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
                update(&mut self.st, py, data)
            }

            /// `update` into `buf` (at least as long as the output);
            /// returns the bytes written.
            fn update_into(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>, buf: &Bound<'_, PyAny>) -> PyResult<usize> {
                update_into(&mut self.st, py, data, buf)
            }

            #[doc = $finalize_doc]
            fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                finalize(&mut self.st, py)
            }
        }
    };
}

macro_rules! cobblestone_suite {
    ($enc:ident, $dec:ident, $suite:expr, $name:literal, $bits:literal) => {
        cobblestone_class! {
            #[doc = concat!("Streaming ", $name, " encryption (C2SP chunked encryption, HKDF-SHA-512, AES-", $bits, "-GCM). ")]
            #[doc = "`update(data)` returns the chunks completed so far (the first call also the 56-byte prefix); `finalize()` the last chunk. Interoperates with `cryptography.cobblestone` and `aesflow encrypt`. Keys are zeroized on drop; the GIL is released while sealing."]
            $enc(EncState, $suite),
            update: "Encrypt more data; returns the prefix (first call) and every\nchunk completed.",
            finalize: "The last chunk (and the prefix if nothing was output yet).",
            {
                #[doc = concat!("A new random ", $bits, "-bit key.")]
                #[staticmethod]
                fn generate_key(py: Python<'_>) -> PyResult<Bound<'_, PyBytes>> {
                    crate::random_bytes(py, $suite.key_len())
                }
            }
        }
        cobblestone_class! {
            #[doc = concat!("Streaming ", $name, " decryption. `update(data)` returns the plaintext of every chunk completed so far, after authenticating it; `finalize()` authenticates and returns the last chunk. Any failure (wrong key or context, tampering, truncation) raises `aesflow.InvalidTag`.")]
            $dec(DecState, $suite),
            update: "Decrypt more data; returns the authenticated plaintext of\nevery chunk completed.",
            finalize: "Authenticate and return the last chunk; raises `InvalidTag`\nif the message is truncated, extended or tampered with.",
            {}
        }
    };
}

cobblestone_suite!(
    Cobblestone256Encryptor,
    Cobblestone256Decryptor,
    Suite::Cobblestone256,
    "Cobblestone-256",
    "256"
);
cobblestone_suite!(
    Cobblestone128Encryptor,
    Cobblestone128Decryptor,
    Suite::Cobblestone128,
    "Cobblestone-128",
    "128"
);
