//! `aesflow.AESGCM`: the interface of pyca/cryptography's
//! `cryptography.hazmat.primitives.ciphers.aead.AESGCM`, on aesflow's fused
//! AES+GHASH kernels; a long message with a 96-bit nonce is sealed or
//! opened on all cores (`aesflow_engine::par::ParGcm`).

use crate::buffer::{Data, View, new_bytes, read_opt, write_into_data};
use crate::errors::{self, InvalidTag};
use aesflow_engine::par::{GCM_PARALLEL_MIN, ParGcm};
use aesflow_modes::Gcm;
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

const TAG: usize = 16;

/// AES-GCM (NIST SP 800-38D) with a 128-, 192- or 256-bit key and a
/// 16-byte tag; a drop-in for pyca/cryptography's ``AESGCM``.
///
/// ``encrypt`` returns ciphertext || tag; ``decrypt`` raises
/// :class:`aesflow.InvalidTag` when the tag does not verify and then
/// releases nothing. Every call releases the GIL and reads its inputs in
/// place (any contiguous buffer: bytes, bytearray, memoryview, numpy).
/// The expanded key is zeroized when the object is dropped.
#[pyclass(module = "aesflow", name = "AESGCM", frozen)]
pub struct AesGcm {
    /// One-thread GCM on the kernel `AESFLOW_KERNEL` resolves to and the
    /// plan in force.
    gcm: Gcm,
    /// The multi-core path, on the same kernel and plan (the pool's).
    par: Option<ParGcm>,
}

fn check_nonce(n: &[u8]) -> PyResult<()> {
    if !(8..=128).contains(&n.len()) {
        return Err(PyValueError::new_err(
            "Nonce must be between 8 and 128 bytes",
        ));
    }
    Ok(())
}

impl AesGcm {
    /// Whether a `len`-byte text under `nonce` runs on the one-thread
    /// kernel directly: a short text, a nonce other than 96 bits, or a
    /// kernel that is not the engine's. Longer texts go to the engine,
    /// which splits them over the pool's threads, or on one thread starts
    /// the bulk of the output on a cache line (`ParGcm`).
    fn one_thread(&self, nonce: &[u8], len: usize) -> bool {
        self.par.is_none() || nonce.len() != 12 || len < GCM_PARALLEL_MIN
    }

    /// Seal `data` (`None`: `out` itself, in place) into `out` (the same
    /// length); the tag. For a long text the engine seals every piece
    /// from `data` straight into `out` (`ParGcm::seal_into`), for a short
    /// one the fused kernel does the same for the whole text: no copy
    /// first either way.
    fn seal_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        data: Option<&[u8]>,
        out: &mut [u8],
    ) -> PyResult<[u8; 16]> {
        match (&self.par, <&[u8; 12]>::try_from(nonce), data) {
            (Some(par), Ok(n12), data) if !self.one_thread(nonce, out.len()) => match data {
                Some(d) => par.seal_into(crate::pool(), n12, aad, d, out),
                None => par.seal_in_place(crate::pool(), n12, aad, out),
            }
            .map_err(errors::engine),
            (_, _, Some(d)) => self
                .gcm
                .seal_into(nonce, aad, d, out)
                .map_err(errors::modes),
            (_, _, None) => self
                .gcm
                .seal_in_place_detached(nonce, aad, out)
                .map_err(errors::modes),
        }
    }

    /// Open `ct` (`None`: `out` itself, in place) into `out` (the same
    /// length) and verify `tag`: `InvalidTag` (with `out` zeroed) if it
    /// does not verify. As `seal_into`, no copy.
    fn open_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct: Option<&[u8]>,
        tag: &[u8],
        out: &mut [u8],
    ) -> PyResult<()> {
        let ok = match (
            &self.par,
            <&[u8; 12]>::try_from(nonce),
            <&[u8; 16]>::try_from(tag),
        ) {
            (Some(par), Ok(n12), Ok(t16)) if !self.one_thread(nonce, out.len()) => match ct {
                Some(ct) => par.open_into(crate::pool(), n12, aad, ct, t16, out),
                None => par.open_in_place(crate::pool(), n12, aad, out, t16),
            }
            .is_ok(),
            _ => match ct {
                Some(ct) => self.gcm.open_into(nonce, aad, ct, tag, out),
                None => self.gcm.open_in_place_detached(nonce, aad, out, tag),
            }
            .is_ok(),
        };
        if ok {
            Ok(())
        } else {
            Err(InvalidTag::new_err("authentication failed"))
        }
    }

    /// `encrypt`/`decrypt` into a new `bytes` (its fresh pages first
    /// touched on the pool's threads), which the text is sealed or opened
    /// into.
    fn run_new<'py>(
        &self,
        py: Python<'py>,
        encrypt: bool,
        [nonce, aad]: [&[u8]; 2],
        data: &[u8],
        out_len: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        new_bytes(py, out_len, |out| {
            self.run_into(encrypt, [nonce, aad], Data::Separate(data), out)
        })
    }

    /// `encrypt_into`/`decrypt_into`: seal `data` into `out` (`data.len() +
    /// 16` bytes), or open it (ciphertext ‖ tag) into `out` (`data.len() -
    /// 16` bytes; zeroed on failure). Data that begins where `out` begins
    /// is sealed or opened in place ([`Data::InPlace`]).
    fn run_into(
        &self,
        encrypt: bool,
        [nonce, aad]: [&[u8]; 2],
        data: Data<'_>,
        out: &mut [u8],
    ) -> PyResult<()> {
        if encrypt {
            let len = out.len() - TAG;
            let (body, tag) = out.split_at_mut(len);
            let t = match data {
                Data::Separate(d) => self.seal_into(nonce, aad, Some(d), body)?,
                Data::InPlace { .. } => self.seal_into(nonce, aad, None, body)?,
            };
            tag.copy_from_slice(&t);
            return Ok(());
        }
        match data {
            Data::Separate(d) => {
                let (ct, tag) = d.split_at(out.len());
                self.open_into(nonce, aad, Some(ct), tag, out)
            }
            Data::InPlace { beyond } => self.open_into(nonce, aad, None, beyond, out),
        }
    }
}

/// pyca/cryptography's limit on the plaintext and the associated data of
/// one call (`OverflowError` beyond it).
const MAX_LEN: usize = i32::MAX as usize;

/// The arguments of an AEAD call, read and checked, and its output length.
struct Args {
    nonce: View,
    data: View,
    aad: Option<View>,
    out_len: usize,
}

impl Args {
    fn read(
        encrypt: bool,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let nonce = View::read(nonce, "nonce")?;
        let data = View::read(data, "data")?;
        let aad = read_opt(associated_data, "associated_data")?;
        check_nonce(nonce.bytes())?;
        if aad.as_ref().is_some_and(|a| a.len() > MAX_LEN) || (encrypt && data.len() > MAX_LEN) {
            return Err(PyOverflowError::new_err(
                "Data or associated data too long. Max 2**31 - 1 bytes",
            ));
        }
        let out_len = if encrypt {
            data.len() + TAG
        } else {
            (data.len().checked_sub(TAG))
                .ok_or_else(|| InvalidTag::new_err("shorter than the 16-byte tag"))?
        };
        Ok(Args {
            nonce,
            data,
            aad,
            out_len,
        })
    }

    /// The nonce and the associated data.
    fn nonce_aad(&self) -> [&[u8]; 2] {
        let aad = self.aad.as_ref().map_or(&[][..], |v| v.bytes());
        [self.nonce.bytes(), aad]
    }
}

/// The `#[pymethods]`, with the four AEAD calls written once: for each
/// direction, to a new `bytes` and into a caller's buffer.
macro_rules! aesgcm_methods {
    ($(
        encrypt: $encrypt:literal,
        $(#[$doc:meta])* fn $name:ident;
        $(#[$doc_into:meta])* fn $name_into:ident;
    )*) => {
        #[pymethods]
        impl AesGcm {
            #[new]
            fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
                let k = View::read(key, "key")?;
                if ![16, 24, 32].contains(&k.len()) {
                    return Err(PyValueError::new_err(
                        "AESGCM key must be 128, 192, or 256 bits.",
                    ));
                }
                let kernel = crate::kernel()?;
                let gcm = aesflow_engine::kernel::gcm_planned(k.bytes(), kernel, crate::plan())
                    .map_err(errors::engine)?;
                // The multi-core path runs the same kernel and plan.
                let pool = crate::pool();
                let par = (pool.kernel().name() == kernel.name())
                    .then(|| ParGcm::for_pool(k.bytes(), pool))
                    .transpose()
                    .map_err(errors::engine)?;
                Ok(AesGcm { gcm, par })
            }

            /// A new random key of ``bit_length`` (128, 192 or 256) bits, from the
            /// operating system's CSPRNG.
            #[staticmethod]
            fn generate_key(py: Python<'_>, bit_length: u32) -> PyResult<Bound<'_, PyBytes>> {
                // `u32`: a negative or huge int is pyca's `OverflowError`.
                if ![128, 192, 256].contains(&bit_length) {
                    return Err(PyValueError::new_err("bit_length must be 128, 192, or 256"));
                }
                crate::random_bytes(py, bit_length as usize / 8)
            }

            $(
                $(#[$doc])*
                #[pyo3(signature = (nonce, data, associated_data))]
                fn $name<'py>(
                    &self,
                    py: Python<'py>,
                    nonce: &Bound<'py, PyAny>,
                    data: &Bound<'py, PyAny>,
                    associated_data: Option<&Bound<'py, PyAny>>,
                ) -> PyResult<Bound<'py, PyBytes>> {
                    let a = Args::read($encrypt, nonce, data, associated_data)?;
                    self.run_new(py, $encrypt, a.nonce_aad(), a.data.bytes(), a.out_len)
                }

                $(#[$doc_into])*
                #[pyo3(signature = (nonce, data, associated_data, buf))]
                fn $name_into(
                    &self,
                    py: Python<'_>,
                    nonce: &Bound<'_, PyAny>,
                    data: &Bound<'_, PyAny>,
                    associated_data: Option<&Bound<'_, PyAny>>,
                    buf: &Bound<'_, PyAny>,
                ) -> PyResult<usize> {
                    let a = Args::read($encrypt, nonce, data, associated_data)?;
                    let inputs = [Some(&a.nonce), a.aad.as_ref()];
                    write_into_data(py, inputs, Some(&a.data), buf, a.out_len, true, |[nonce, aad], data, out| {
                        self.run_into($encrypt, [nonce, aad], data, out)
                    })??;
                    Ok(a.out_len)
                }
            )*

            fn __repr__(&self) -> String {
                format!(
                    "<aesflow.AESGCM AES-{} kernel={}>",
                    self.gcm.aes().key_size().bits(),
                    self.gcm.aes().kernel().name()
                )
            }
        }
    };
}

aesgcm_methods! {
    encrypt: true,
    /// Encrypt and authenticate ``data`` (and authenticate
    /// ``associated_data``, which may be ``None``) under ``nonce`` (8–128
    /// bytes; 12 recommended, never reused with a key). Returns ciphertext
    /// || 16-byte tag.
    fn encrypt;
    /// ``encrypt`` into ``buf``, a writable buffer of exactly ``len(data) +
    /// 16`` bytes, which may share memory with any input. With ``data``
    /// at the start of ``buf`` (``data = memoryview(buf)[:-16]``) the text
    /// is sealed in place, without a copy; any other overlap costs a copy
    /// of the overlapping input first. Returns the bytes written.
    fn encrypt_into;

    encrypt: false,
    /// Verify and decrypt ``data`` (ciphertext || tag). Raises
    /// :class:`aesflow.InvalidTag` if the tag does not verify (wrong key,
    /// nonce or associated data, or tampered data).
    fn decrypt;
    /// ``decrypt`` into ``buf``, a writable buffer of exactly ``len(data) -
    /// 16`` bytes. With ``buf`` the start of ``data`` (``buf =
    /// memoryview(data)[:-16]``) the text is opened in place, without a
    /// copy. Returns the bytes written; on :class:`InvalidTag` the buffer
    /// is zeroed.
    fn decrypt_into;
}
