//! `aesflow.AESGCM`: the interface of pyca/cryptography's
//! `cryptography.hazmat.primitives.ciphers.aead.AESGCM`, on aesflow's fused
//! AES+GHASH kernels; a long message with a 96-bit nonce is sealed or
//! opened on all cores (`aesflow_engine::par::ParGcm`).

use crate::buffer::{View, input_for, read_opt};
use crate::errors::{self, InvalidTag};
use aesflow_engine::par::ParGcm;
use aesflow_modes::Gcm;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

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
    /// One-thread GCM on the kernel `AESFLOW_KERNEL` resolves to.
    gcm: Gcm,
    /// The multi-core path, when that kernel is the engine's (the best one).
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
    fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> aesflow_engine::Result<[u8; 16]> {
        match (&self.par, <&[u8; 12]>::try_from(nonce)) {
            (Some(par), Ok(n12)) => par.seal_in_place(crate::pool(), n12, aad, buf),
            _ => Ok(self.gcm.seal_in_place_detached(nonce, aad, buf)?),
        }
    }

    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
        match (
            &self.par,
            <&[u8; 12]>::try_from(nonce),
            <&[u8; 16]>::try_from(tag),
        ) {
            (Some(par), Ok(n12), Ok(t16)) => {
                par.open_in_place(crate::pool(), n12, aad, buf, t16).is_ok()
            }
            _ => self
                .gcm
                .open_in_place_detached(nonce, aad, buf, tag)
                .is_ok(),
        }
    }

    /// Seal `data` into `out` (`data.len() + 16` bytes), GIL released.
    fn seal_to(
        &self,
        py: Python<'_>,
        nonce: &[u8],
        aad: &[u8],
        data: &[u8],
        out: &mut [u8],
    ) -> PyResult<()> {
        py.detach(|| {
            let (body, tag) = out.split_at_mut(data.len());
            body.copy_from_slice(data);
            let t = self.seal(nonce, aad, body)?;
            tag.copy_from_slice(&t);
            Ok(())
        })
        .map_err(errors::engine)
    }

    /// Open `data` (ciphertext ‖ tag) into `out` (`data.len() - 16` bytes),
    /// GIL released; `out` is zeroed on failure.
    fn open_to(
        &self,
        py: Python<'_>,
        nonce: &[u8],
        aad: &[u8],
        data: &[u8],
        out: &mut [u8],
    ) -> PyResult<()> {
        let ok = py.detach(|| {
            let (ct, tag) = data.split_at(data.len() - TAG);
            out.copy_from_slice(ct);
            self.open(nonce, aad, out, tag)
        });
        if ok {
            Ok(())
        } else {
            Err(InvalidTag::new_err("authentication failed"))
        }
    }
}

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
        let aes = crate::aes(k.bytes())?;
        // The multi-core path runs the engine's kernel (the best one): use it
        // only when AESFLOW_KERNEL does not force another.
        let par = if aes.kernel().name() == aesflow_cipher::detect_best().name() {
            Some(ParGcm::new(k.bytes()).map_err(errors::engine)?)
        } else {
            None
        };
        Ok(AesGcm {
            gcm: Gcm::from_aes(aes),
            par,
        })
    }

    /// A new random key of ``bit_length`` (128, 192 or 256) bits, from the
    /// operating system's CSPRNG.
    #[staticmethod]
    fn generate_key(py: Python<'_>, bit_length: i64) -> PyResult<Bound<'_, PyBytes>> {
        if ![128, 192, 256].contains(&bit_length) {
            return Err(PyValueError::new_err("bit_length must be 128, 192, or 256"));
        }
        crate::random_bytes(py, bit_length as usize / 8)
    }

    /// Encrypt and authenticate ``data`` (and authenticate
    /// ``associated_data``, which may be ``None``) under ``nonce`` (8–128
    /// bytes; 12 recommended, never reused with a key). Returns ciphertext
    /// || 16-byte tag.
    #[pyo3(signature = (nonce, data, associated_data))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let n = View::read(nonce, "nonce")?;
        let d = View::read(data, "data")?;
        let a = read_opt(associated_data, "associated_data")?;
        check_nonce(n.bytes())?;
        let aad = a.as_ref().map_or(&[][..], |v| v.bytes());
        PyBytes::new_with(py, d.len() + TAG, |out| {
            self.seal_to(py, n.bytes(), aad, d.bytes(), out)
        })
    }

    /// Verify and decrypt ``data`` (ciphertext || tag). Raises
    /// :class:`aesflow.InvalidTag` if the tag does not verify (wrong key,
    /// nonce or associated data, or tampered data).
    #[pyo3(signature = (nonce, data, associated_data))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let n = View::read(nonce, "nonce")?;
        let d = View::read(data, "data")?;
        let a = read_opt(associated_data, "associated_data")?;
        check_nonce(n.bytes())?;
        if d.len() < TAG {
            return Err(InvalidTag::new_err("shorter than the 16-byte tag"));
        }
        let aad = a.as_ref().map_or(&[][..], |v| v.bytes());
        PyBytes::new_with(py, d.len() - TAG, |out| {
            self.open_to(py, n.bytes(), aad, d.bytes(), out)
        })
    }

    /// ``encrypt`` into ``buf``, a writable buffer of exactly ``len(data) +
    /// 16`` bytes (it may be ``data`` itself grown by 16 bytes, or share
    /// memory with it). Returns the bytes written.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let n = View::read(nonce, "nonce")?;
        let d = View::read(data, "data")?;
        let a = read_opt(associated_data, "associated_data")?;
        let mut b = View::write(buf, "buf")?;
        check_nonce(n.bytes())?;
        let want = d.len() + TAG;
        if b.len() != want {
            return Err(PyValueError::new_err(format!(
                "buffer must be {want} bytes"
            )));
        }
        let aad = a.as_ref().map_or(&[][..], |v| v.bytes());
        let mut copy = Zeroizing::new(Vec::new());
        let input = input_for(&d, &b, &mut copy);
        self.seal_to(py, n.bytes(), aad, input, b.bytes_mut())?;
        Ok(want)
    }

    /// ``decrypt`` into ``buf``, a writable buffer of exactly ``len(data) -
    /// 16`` bytes. Returns the bytes written; on :class:`InvalidTag` the
    /// buffer is zeroed.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let n = View::read(nonce, "nonce")?;
        let d = View::read(data, "data")?;
        let a = read_opt(associated_data, "associated_data")?;
        let mut b = View::write(buf, "buf")?;
        check_nonce(n.bytes())?;
        if d.len() < TAG {
            return Err(InvalidTag::new_err("shorter than the 16-byte tag"));
        }
        let want = d.len() - TAG;
        if b.len() != want {
            return Err(PyValueError::new_err(format!(
                "buffer must be {want} bytes"
            )));
        }
        let aad = a.as_ref().map_or(&[][..], |v| v.bytes());
        let mut copy = Zeroizing::new(Vec::new());
        let input = input_for(&d, &b, &mut copy);
        self.open_to(py, n.bytes(), aad, input, b.bytes_mut())?;
        Ok(want)
    }

    fn __repr__(&self) -> String {
        format!(
            "<aesflow.AESGCM AES-{} kernel={}>",
            self.gcm.aes().key_size().bits(),
            self.gcm.aes().kernel().name()
        )
    }
}
