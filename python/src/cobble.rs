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

use crate::buffer::{View, input_for};
use crate::chunks;
use crate::errors::{self, AlreadyFinalized, InvalidTag};
use aesflow_engine::Pool;
use aesflow_engine::cobblestone::{CHUNK_SIZE, ChunkKeys, ENC_CHUNK_SIZE, PREFIX_SIZE, Suite};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::{Zeroize, Zeroizing};

/// Checks the key length, and `AESFLOW_KERNEL` as the command does (the
/// chunk keys themselves run on the engine's best kernel).
fn check_key(suite: Suite, key: &[u8]) -> PyResult<()> {
    crate::kernel()?;
    if key.len() != suite.key_len() {
        return Err(PyValueError::new_err(format!(
            "key must be {} bytes.",
            suite.key_len()
        )));
    }
    Ok(())
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
        check_key(suite, key)?;
        Ok(EncState {
            keys: ChunkKeys::for_encryption(suite, key, context).map_err(errors::engine)?,
            buf: Zeroizing::new(Vec::with_capacity(CHUNK_SIZE)),
            index: 0,
            started: false,
            done: false,
        })
    }

    fn check(&self) -> PyResult<()> {
        if self.done {
            return Err(AlreadyFinalized::new_err("Context was already finalized."));
        }
        Ok(())
    }

    fn pre(&self) -> usize {
        if self.started { 0 } else { PREFIX_SIZE }
    }

    fn update_len(&self, n: usize) -> usize {
        self.pre() + (self.buf.len() + n) / CHUNK_SIZE * ENC_CHUNK_SIZE
    }

    fn final_len(&self) -> usize {
        self.pre() + chunks::sealed_len(self.buf.len(), true)
    }

    /// Seal what `data` completes into `out` (exactly `update_len` bytes).
    fn update(&mut self, data: &[u8], out: &mut [u8]) {
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
            chunks::seal(
                crate::pool(),
                &self.keys,
                self.index,
                whole,
                &mut out[off..],
                false,
            );
            self.index += m as u64;
            d = rest;
        }
        self.buf.extend_from_slice(d);
    }

    /// Seal the last (short) chunk into `out` (exactly `final_len` bytes).
    fn finalize(&mut self, out: &mut [u8]) {
        let pre = self.pre();
        if !self.started {
            out[..PREFIX_SIZE].copy_from_slice(&self.keys.prefix());
        }
        chunks::seal(
            Pool::inline(),
            &self.keys,
            self.index,
            &self.buf,
            &mut out[pre..],
            true,
        );
        self.buf.zeroize();
        self.done = true;
    }
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
        check_key(suite, key)?;
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

    fn check(&self) -> PyResult<()> {
        if self.done {
            return Err(AlreadyFinalized::new_err("Context was already finalized."));
        }
        Ok(())
    }

    /// Plaintext bytes an update with `n` bytes releases.
    fn update_len(&self, n: usize) -> usize {
        let p = (PREFIX_SIZE - self.prefix.len()).min(n);
        (self.buf.len() + n - p) / ENC_CHUNK_SIZE * CHUNK_SIZE
    }

    fn fail(&mut self) -> PyErr {
        self.done = true;
        self.buf.clear();
        InvalidTag::new_err("authentication failed")
    }

    /// Take prefix bytes from `d`; derive and check the keys once complete.
    fn take_prefix<'a>(&mut self, d: &'a [u8]) -> Result<&'a [u8], ()> {
        if self.keys.is_some() {
            return Ok(d);
        }
        let p = (PREFIX_SIZE - self.prefix.len()).min(d.len());
        self.prefix.extend_from_slice(&d[..p]);
        if self.prefix.len() == PREFIX_SIZE {
            let keys = ChunkKeys::from_prefix(self.suite, &self.key, &self.context, &self.prefix)
                .map_err(|_| ())?;
            self.keys = Some(keys);
            self.key.zeroize();
        }
        Ok(&d[p..])
    }

    /// Open every chunk `data` completes into `out` (exactly `update_len`).
    fn update(&mut self, data: &[u8], out: &mut [u8]) -> Result<(), ()> {
        let mut d = self.take_prefix(data)?;
        let Some(keys) = &self.keys else {
            return Ok(());
        };
        let mut off = 0;
        if !self.buf.is_empty() && self.buf.len() + d.len() >= ENC_CHUNK_SIZE {
            let need = ENC_CHUNK_SIZE - self.buf.len();
            self.buf.extend_from_slice(&d[..need]);
            chunks::open(
                Pool::inline(),
                keys,
                self.index,
                &self.buf,
                &mut out[..CHUNK_SIZE],
                false,
            )
            .map_err(|_| ())?;
            self.buf.clear();
            self.index += 1;
            off = CHUNK_SIZE;
            d = &d[need..];
        }
        if self.buf.is_empty() {
            let m = d.len() / ENC_CHUNK_SIZE;
            let (whole, rest) = d.split_at(m * ENC_CHUNK_SIZE);
            if chunks::open(
                crate::pool(),
                keys,
                self.index,
                whole,
                &mut out[off..],
                false,
            )
            .is_err()
            {
                out.zeroize();
                return Err(());
            }
            self.index += m as u64;
            d = rest;
        }
        self.buf.extend_from_slice(d);
        Ok(())
    }

    fn final_len(&self) -> Option<usize> {
        self.keys.as_ref()?;
        chunks::opened_len(self.buf.len(), true)
    }

    fn finalize(&mut self, out: &mut [u8]) -> Result<(), ()> {
        let keys = self.keys.as_ref().ok_or(())?;
        let r =
            chunks::open(Pool::inline(), keys, self.index, &self.buf, out, true).map_err(|_| ());
        self.done = true;
        r
    }
}

fn too_small(need: usize) -> PyErr {
    PyValueError::new_err(format!("buffer must be at least {need} bytes"))
}

macro_rules! cobblestone_classes {
    ($enc:ident, $dec:ident, $suite:expr, $name:literal, $bits:literal) => {
        #[doc = concat!("Streaming ", $name, " encryption (C2SP chunked encryption, HKDF-SHA-512, AES-", $bits, "-GCM). ")]
        #[doc = "`update(data)` returns the chunks completed so far (the first call also the 56-byte prefix); `finalize()` the last chunk. Interoperates with `cryptography.cobblestone` and `aesflow encrypt`. Keys are zeroized on drop; the GIL is released while sealing."]
        #[pyclass(module = "aesflow")]
        pub struct $enc {
            st: EncState,
        }

        #[pymethods]
        impl $enc {
            #[new]
            #[pyo3(signature = (key, context = None))]
            fn new(key: &Bound<'_, PyAny>, context: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
                let k = View::read(key, "key")?;
                let c = crate::buffer::read_opt(context, "context")?;
                let ctx = c.as_ref().map_or(&[][..], |v| v.bytes());
                Ok($enc { st: EncState::new($suite, k.bytes(), ctx)? })
            }

            #[doc = concat!("A new random ", $bits, "-bit key.")]
            #[staticmethod]
            fn generate_key(py: Python<'_>) -> PyResult<Bound<'_, PyBytes>> {
                crate::random_bytes(py, $suite.key_len())
            }

            /// Encrypt more data; returns the prefix (first call) and every
            /// chunk completed.
            fn update<'py>(&mut self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
                self.st.check()?;
                let d = View::read(data, "data")?;
                let st = &mut self.st;
                let input = d.bytes();
                PyBytes::new_with(py, st.update_len(d.len()), |out| {
                    py.detach(|| st.update(input, out));
                    Ok(())
                })
            }

            /// `update` into `buf` (at least as long as the output);
            /// returns the bytes written.
            fn update_into(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>, buf: &Bound<'_, PyAny>) -> PyResult<usize> {
                self.st.check()?;
                let d = View::read(data, "data")?;
                let mut b = View::write(buf, "buf")?;
                let n = self.st.update_len(d.len());
                if b.len() < n {
                    return Err(too_small(n));
                }
                let mut copy = Zeroizing::new(Vec::new());
                let input = input_for(&d, &b, &mut copy);
                let st = &mut self.st;
                let out = &mut b.bytes_mut()[..n];
                py.detach(|| st.update(input, out));
                Ok(n)
            }

            /// The last chunk (and the prefix if nothing was output yet).
            fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                self.st.check()?;
                let st = &mut self.st;
                PyBytes::new_with(py, st.final_len(), |out| {
                    st.finalize(out);
                    Ok(())
                })
            }
        }

        #[doc = concat!("Streaming ", $name, " decryption. `update(data)` returns the plaintext of every chunk completed so far, after authenticating it; `finalize()` authenticates and returns the last chunk. Any failure (wrong key or context, tampering, truncation) raises `aesflow.InvalidTag`.")]
        #[pyclass(module = "aesflow")]
        pub struct $dec {
            st: DecState,
        }

        #[pymethods]
        impl $dec {
            #[new]
            #[pyo3(signature = (key, context = None))]
            fn new(key: &Bound<'_, PyAny>, context: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
                let k = View::read(key, "key")?;
                let c = crate::buffer::read_opt(context, "context")?;
                let ctx = c.as_ref().map_or(&[][..], |v| v.bytes());
                Ok($dec { st: DecState::new($suite, k.bytes(), ctx)? })
            }

            /// Decrypt more data; returns the authenticated plaintext of
            /// every chunk completed.
            fn update<'py>(&mut self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
                self.st.check()?;
                let d = View::read(data, "data")?;
                let st = &mut self.st;
                let input = d.bytes();
                let r = PyBytes::new_with(py, st.update_len(d.len()), |out| {
                    py.detach(|| st.update(input, out))
                        .map_err(|_| InvalidTag::new_err("authentication failed"))
                });
                r.map_err(|e| { let _ = self.st.fail(); e })
            }

            /// `update` into `buf` (at least as long as the output);
            /// returns the bytes written.
            fn update_into(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>, buf: &Bound<'_, PyAny>) -> PyResult<usize> {
                self.st.check()?;
                let d = View::read(data, "data")?;
                let mut b = View::write(buf, "buf")?;
                let n = self.st.update_len(d.len());
                if b.len() < n {
                    return Err(too_small(n));
                }
                let mut copy = Zeroizing::new(Vec::new());
                let input = input_for(&d, &b, &mut copy);
                let st = &mut self.st;
                let out = &mut b.bytes_mut()[..n];
                match py.detach(|| st.update(input, out)) {
                    Ok(()) => Ok(n),
                    Err(()) => Err(self.st.fail()),
                }
            }

            /// Authenticate and return the last chunk; raises `InvalidTag`
            /// if the message is truncated, extended or tampered with.
            fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                self.st.check()?;
                let Some(n) = self.st.final_len() else {
                    return Err(self.st.fail());
                };
                let st = &mut self.st;
                let r = PyBytes::new_with(py, n, |out| {
                    st.finalize(out).map_err(|_| InvalidTag::new_err("authentication failed"))
                });
                r.map_err(|e| { let _ = self.st.fail(); e })
            }
        }
    };
}

cobblestone_classes!(
    Cobblestone256Encryptor,
    Cobblestone256Decryptor,
    Suite::Cobblestone256,
    "Cobblestone-256",
    "256"
);
cobblestone_classes!(
    Cobblestone128Encryptor,
    Cobblestone128Decryptor,
    Suite::Cobblestone128,
    "Cobblestone-128",
    "128"
);
