//! # aesflow-engine: AES on every core
//!
//! The compute half of aesflow's host side: it takes an AES kernel from
//! `aesflow-cipher` (one core's fastest constant-time one by default) and
//! keeps all cores busy with it. Liu & Baas (*Parallel AES Encryption
//! Engines for Many-Core Processor Arrays*) spread one cipher over many
//! small cores by splitting the *rounds*; on a CPU each core runs whole
//! rounds in SIMD registers, so this engine splits the *data* instead:
//!
//! * [`pool`] — a reusable pool of persistent worker threads ([`Pool`]);
//!   default: one per available CPU. A one-thread pool runs inline.
//! * [`par`] — the modes whose blocks are independent (CTR, ECB, CBC
//!   decryption) cut into L2-sized pieces, one per worker, and GCM with
//!   per-piece GHASH values joined by powers of H ([`par::ParGcm`]). The
//!   bytes are exactly those of the serial modes.
//! * [`streams`] — modes that are serial within a message (CBC encryption,
//!   CFB, OFB) made parallel *across* messages: many independent streams,
//!   grouped per worker and interleaved over each core's SIMD lanes by
//!   `aesflow-multistream`.
//! * [`kernel`] — the AES kernel the engine runs on (chosen once, at the
//!   application's edge).
//! * [`cache`] — the last-level cache's size, for the calls that write
//!   larger outputs past the caches.
//!
//! What is encrypted — file formats, headers, key derivation, whole file
//! jobs — is the `aesflow-format` crate, which runs on this engine.
//!
//! ```
//! use aesflow_cipher::Aes;
//! use aesflow_engine::{Pool, par};
//! let pool = Pool::new(0).unwrap();
//! let aes = Aes::new(&[7u8; 32]).unwrap();
//! let mut data = vec![42u8; 1 << 20];
//! par::ctr_xor(&pool, &aes, &mut [0u8; 16], &mut data);
//! let mut serial = vec![42u8; 1 << 20];
//! aes.ctr_xor(&mut [0u8; 16], &mut serial);
//! assert_eq!(data, serial);
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod cache;
pub mod kernel;
pub mod par;
pub mod pool;
pub mod streams;

pub use pool::{Pool, available_threads};

use std::fmt;

/// Any error from this crate.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A bad key, length or parameter given by the caller, or worker
    /// threads that could not be started.
    InvalidInput(String),
    /// The input is longer than the mode allows (GCM: 2^36 - 32 bytes).
    TooLong,
    /// A GCM tag did not verify (the buffer was zeroed).
    Authentication,
    /// An error from a mode of operation.
    Mode(aesflow_modes::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidInput(m) => f.write_str(m),
            Error::TooLong => f.write_str("input too long for the mode"),
            Error::Authentication => f.write_str(
                "authentication failed: the data is corrupted or tampered with, \
                 or the key, nonce or associated data differ",
            ),
            Error::Mode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Mode(e) => Some(e),
            _ => None,
        }
    }
}

impl From<aesflow_modes::Error> for Error {
    fn from(e: aesflow_modes::Error) -> Self {
        Error::Mode(e)
    }
}

impl From<aesflow_cipher::Error> for Error {
    fn from(e: aesflow_cipher::Error) -> Self {
        Error::InvalidInput(e.to_string())
    }
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
