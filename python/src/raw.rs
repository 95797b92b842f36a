//! Raw modes, byte-identical to `openssl enc -aes-N-MODE -K … -iv …
//! [-nopad]` (the `--raw` of `aesflow encrypt`), and the multi-stream
//! engine for many CBC encryptions at once.
//!
//! ECB and CBC use PKCS#7 padding unless `padding=False` (then the data
//! must be whole 16-byte blocks); CTR counts the whole 16-byte IV as one
//! 128-bit big-endian counter (OpenSSL's convention); CFB is CFB128. ECB
//! ignores the IV (as `openssl enc` does). Nothing here authenticates:
//! prefer `AESGCM` or Cobblestone.
//!
//! The input is copied once, into the output, and processed there in place;
//! ECB, CTR and CBC decryption run on all cores. For padded decryption the
//! last block is decrypted first, so the exact output length is known
//! before anything is written.

use crate::buffer::{View, new_bytes, write_into};
use crate::errors;
use aesflow_cipher::Aes;
use aesflow_engine::par;
use aesflow_modes::padding::{pkcs7_pad_block, pkcs7_unpad_block};
use aesflow_modes::{cbc, cfb, ofb};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroize;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Ecb,
    Cbc,
    Ctr,
    Cfb,
    Ofb,
}

struct Params {
    mode: Mode,
    aes: Aes,
    iv: [u8; 16],
    pad: bool,
}

impl Params {
    fn new(mode: &str, key: &[u8], iv: Option<&[u8]>, padding: bool) -> PyResult<Self> {
        let mode = match mode.to_ascii_lowercase().as_str() {
            "ecb" => Mode::Ecb,
            "cbc" => Mode::Cbc,
            "ctr" => Mode::Ctr,
            "cfb" | "cfb128" => Mode::Cfb,
            "ofb" => Mode::Ofb,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown mode {mode:?} (ecb, cbc, ctr, cfb, ofb)"
                )));
            }
        };
        if ![16, 24, 32].contains(&key.len()) {
            return Err(PyValueError::new_err(format!(
                "key must be 16, 24 or 32 bytes (AES-128/192/256), got {}",
                key.len()
            )));
        }
        let mut ivb = [0u8; 16];
        match iv {
            Some(v) if mode != Mode::Ecb => {
                ivb = v.try_into().map_err(|_| {
                    PyValueError::new_err(format!("iv must be 16 bytes, got {}", v.len()))
                })?;
            }
            None if mode != Mode::Ecb => {
                return Err(PyValueError::new_err("this mode needs a 16-byte iv"));
            }
            _ => {}
        }
        let aes = crate::aes(key)?;
        let pad = padding && matches!(mode, Mode::Ecb | Mode::Cbc);
        Ok(Params {
            mode,
            aes,
            iv: ivb,
            pad,
        })
    }

    fn block_mode(&self) -> bool {
        matches!(self.mode, Mode::Ecb | Mode::Cbc)
    }

    fn enc_len(&self, n: usize) -> PyResult<usize> {
        if self.pad {
            Ok((n / 16 + 1) * 16)
        } else if self.block_mode() && !n.is_multiple_of(16) {
            Err(PyValueError::new_err(
                "with padding=False the data must be a multiple of 16 bytes",
            ))
        } else {
            Ok(n)
        }
    }

    /// Encrypt `data` into `out` (exactly `enc_len` bytes).
    fn encrypt(&self, data: &[u8], out: &mut [u8]) -> aesflow_engine::Result<()> {
        let whole = data.len() / 16 * 16;
        out[..data.len()].copy_from_slice(data);
        if self.pad {
            out[whole..].copy_from_slice(&pkcs7_pad_block(&data[whole..]));
        }
        let pool = crate::pool();
        let mut iv = self.iv;
        match self.mode {
            Mode::Ecb => par::ecb_encrypt(pool, &self.aes, out)?,
            Mode::Cbc => cbc::encrypt_in_place(&self.aes, &iv, out)?,
            Mode::Ctr => par::ctr_xor(pool, &self.aes, &mut iv, out),
            Mode::Cfb => cfb::encrypt_in_place(&self.aes, &iv, out)?,
            Mode::Ofb => ofb::apply_in_place(&self.aes, &iv, out)?,
        }
        Ok(())
    }

    /// The plaintext length of `data`: for padded modes the last block is
    /// decrypted and its padding checked first.
    fn dec_len(&self, data: &[u8]) -> PyResult<usize> {
        let n = data.len();
        if self.block_mode() && (!n.is_multiple_of(16) || (self.pad && n == 0)) {
            return Err(PyValueError::new_err(
                "the data is not a non-empty multiple of 16 bytes (truncated?)",
            ));
        }
        if !self.pad {
            return Ok(n);
        }
        let mut last = self.last_block(data);
        let r = pkcs7_unpad_block(&last);
        last.zeroize();
        Ok(n - 16 + r.map_err(errors::modes)?)
    }

    fn last_block(&self, data: &[u8]) -> [u8; 16] {
        let n = data.len();
        let mut b: [u8; 16] = data[n - 16..].try_into().expect("16 bytes");
        self.aes.decrypt_block(&mut b);
        if self.mode == Mode::Cbc {
            let prev = if n >= 32 {
                &data[n - 32..n - 16]
            } else {
                &self.iv[..]
            };
            for (x, p) in b.iter_mut().zip(prev) {
                *x ^= p;
            }
        }
        b
    }

    /// The output length of `data` in one direction.
    fn out_len(&self, encrypt: bool, data: &[u8]) -> PyResult<usize> {
        if encrypt {
            self.enc_len(data.len())
        } else {
            self.dec_len(data)
        }
    }

    /// Encrypt or decrypt `data` into `out` (exactly `out_len` bytes).
    fn run(&self, encrypt: bool, data: &[u8], out: &mut [u8]) -> aesflow_engine::Result<()> {
        if encrypt {
            self.encrypt(data, out)
        } else {
            self.decrypt(data, out)
        }
    }

    /// Decrypt `data` into `out` (exactly `dec_len` bytes).
    fn decrypt(&self, data: &[u8], out: &mut [u8]) -> aesflow_engine::Result<()> {
        let pool = crate::pool();
        let mut iv = self.iv;
        let body = if self.pad {
            data.len() - 16
        } else {
            data.len()
        };
        let (head, tail) = out.split_at_mut(body);
        head.copy_from_slice(&data[..body]);
        match self.mode {
            Mode::Ecb => par::ecb_decrypt(pool, &self.aes, head)?,
            Mode::Cbc => par::cbc_decrypt(pool, &self.aes, &mut iv, head)?,
            Mode::Ctr => par::ctr_xor(pool, &self.aes, &mut iv, head),
            Mode::Cfb => cfb::decrypt_in_place(&self.aes, &iv, head)?,
            Mode::Ofb => ofb::apply_in_place(&self.aes, &iv, head)?,
        }
        if self.pad {
            let mut last = self.last_block(data);
            tail.copy_from_slice(&last[..tail.len()]);
            last.zeroize();
        }
        Ok(())
    }
}

/// The parameters and the data of a call.
fn params(
    mode: &str,
    key: &Bound<'_, PyAny>,
    iv: Option<&Bound<'_, PyAny>>,
    data: &Bound<'_, PyAny>,
    padding: bool,
) -> PyResult<(Params, View)> {
    let k = View::read(key, "key")?;
    let v = crate::buffer::read_opt(iv, "iv")?;
    let p = Params::new(mode, k.bytes(), v.as_ref().map(|v| v.bytes()), padding)?;
    Ok((p, View::read(data, "data")?))
}

/// For each direction, the call to a new `bytes` and the one into a
/// caller's buffer (`out_len` runs with the GIL released: decryption
/// decrypts the last block to learn it).
macro_rules! raw_functions {
    ($(
        encrypt: $encrypt:literal,
        $(#[$doc:meta])* fn $name:ident;
        $(#[$doc_into:meta])* fn $name_into:ident;
    )*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (mode, key, iv, data, padding = true))]
        pub fn $name<'py>(
            py: Python<'py>,
            mode: &str,
            key: &Bound<'py, PyAny>,
            iv: Option<&Bound<'py, PyAny>>,
            data: &Bound<'py, PyAny>,
            padding: bool,
        ) -> PyResult<Bound<'py, PyBytes>> {
            let (p, d) = params(mode, key, iv, data, padding)?;
            let input = d.bytes();
            let n = py.detach(|| p.out_len($encrypt, input))?;
            new_bytes(py, n, |out| p.run($encrypt, input, out).map_err(errors::engine))
        }

        $(#[$doc_into])*
        #[pyfunction]
        #[pyo3(signature = (mode, key, iv, data, buf, padding = true))]
        pub fn $name_into(
            py: Python<'_>,
            mode: &str,
            key: &Bound<'_, PyAny>,
            iv: Option<&Bound<'_, PyAny>>,
            data: &Bound<'_, PyAny>,
            buf: &Bound<'_, PyAny>,
            padding: bool,
        ) -> PyResult<usize> {
            let (p, d) = params(mode, key, iv, data, padding)?;
            let whole = d.bytes();
            let n = py.detach(|| p.out_len($encrypt, whole))?;
            write_into(py, [Some(&d)], buf, n, false, |[input], out| p.run($encrypt, input, out))?
                .map_err(errors::engine)?;
            Ok(n)
        }
    )*};
}

raw_functions! {
    encrypt: true,
    /// Encrypt ``data`` in a raw mode (``"ecb"``, ``"cbc"``, ``"ctr"``,
    /// ``"cfb"``, ``"ofb"``), byte-identical to ``openssl enc -aes-N-MODE -K
    /// key -iv iv`` (``padding=False``: ``-nopad``). ECB ignores ``iv``.
    fn encrypt;
    /// :func:`encrypt` into the writable buffer ``buf`` (at least as long as
    /// the output; it may be ``data`` itself). Returns the bytes written.
    fn encrypt_into;

    encrypt: false,
    /// Decrypt ``data`` in a raw mode (the inverse of :func:`encrypt`); a
    /// wrong key or corrupted data under padding raises ``ValueError``.
    fn decrypt;
    /// :func:`decrypt` into the writable buffer ``buf`` (at least as long as
    /// the plaintext). Returns the bytes written.
    fn decrypt_into;
}
