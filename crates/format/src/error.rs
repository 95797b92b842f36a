//! The formats' error type: one variant per thing that can go wrong, each
//! with a one-line message fit for the command line.

use std::fmt;
use std::io;

/// Any error from this crate.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An I/O error, with what was being done.
    Io {
        /// What was being done (e.g. "reading input.bin").
        context: String,
        /// The underlying error.
        source: io::Error,
    },
    /// The key commitment does not match: wrong key, wrong context, or a
    /// corrupted salt or commitment.
    WrongKey,
    /// The passphrase header's key commitment does not match: wrong
    /// passphrase, or the header was altered.
    WrongPassphrase,
    /// A chunk failed authentication (its index).
    ChunkAuthentication(u64),
    /// The ciphertext is shorter than the smallest valid message, or its
    /// last chunk has an impossible length (truncated or extended).
    Truncated(&'static str),
    /// A malformed header (passphrase header, raw-mode parameters, …).
    BadHeader(String),
    /// A bad key, IV or parameter given by the caller.
    InvalidInput(String),
    /// PKCS#7 padding did not check out (raw mode: wrong key or corrupted).
    BadPadding,
    /// The input is too long for the format.
    TooLong,
    /// The operation was interrupted (signal).
    Interrupted,
    /// An error from a mode of operation.
    Mode(aesflow_modes::Error),
    /// The output file could not be created or committed.
    Output(aesflow_output::Error),
    /// A passphrase header's Argon2id parameters exceed the caller's limits.
    KdfLimit(String),
}

impl Error {
    /// An I/O error with context.
    pub fn io(context: impl Into<String>, source: io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { context, source } => write!(f, "{context}: {source}"),
            Error::WrongKey => f.write_str(
                "wrong key or context (the key commitment does not match), \
                 or the header is corrupted",
            ),
            Error::WrongPassphrase => f.write_str(
                "wrong passphrase (the key commitment does not match), \
                 or the header is corrupted",
            ),
            Error::ChunkAuthentication(i) => write!(
                f,
                "authentication failed in chunk {i}: the data is corrupted, \
                 tampered with or reordered"
            ),
            Error::Truncated(what) => write!(f, "invalid ciphertext: {what}"),
            Error::BadHeader(m) => write!(f, "bad header: {m}"),
            Error::InvalidInput(m) => f.write_str(m),
            Error::BadPadding => {
                f.write_str("bad padding: wrong key or IV, or the input is corrupted or truncated")
            }
            Error::TooLong => f.write_str("input too long for the format"),
            Error::Interrupted => f.write_str("interrupted"),
            Error::Mode(e) => e.fmt(f),
            Error::Output(e) => e.fmt(f),
            Error::KdfLimit(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Mode(e) => Some(e),
            // The I/O cause is part of the message already (no doubling).
            _ => None,
        }
    }
}

/// `From` conversions for `?`, one line each: source type => how it becomes
/// an [`Error`].
macro_rules! from_errors {
    ($($src:ty => |$e:ident| $to:expr;)*) => {$(
        impl From<$src> for Error {
            fn from($e: $src) -> Self { $to }
        }
    )*};
}

from_errors! {
    aesflow_modes::Error => |e| match e {
        aesflow_modes::Error::BadPadding => Error::BadPadding,
        e => Error::Mode(e),
    };
    aesflow_output::Error => |e| Error::Output(e);
    aesflow_cipher::Error => |e| Error::InvalidInput(e.to_string());
    aesflow_engine::Error => |e| match e {
        aesflow_engine::Error::TooLong => Error::TooLong,
        aesflow_engine::Error::Authentication => Error::ChunkAuthentication(0),
        aesflow_engine::Error::Mode(e) => e.into(),
        e => Error::InvalidInput(e.to_string()),
    };
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
