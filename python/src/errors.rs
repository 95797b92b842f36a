//! The package's exceptions and the mapping of engine errors to Python ones.

use aesflow_format::Error;
use pyo3::exceptions::{
    PyException, PyFileExistsError, PyIsADirectoryError, PyOSError, PyOverflowError, PyValueError,
};
use pyo3::prelude::*;

pyo3::create_exception!(
    aesflow,
    InvalidTag,
    PyException,
    "Authentication failed: wrong key or context, or the data is corrupted, truncated or tampered with. No plaintext was released."
);
pyo3::create_exception!(
    aesflow,
    AlreadyFinalized,
    PyException,
    "The encryptor or decryptor was already finalized (or failed)."
);

/// An engine error as the Python exception a user expects.
pub fn engine(e: impl Into<Error>) -> PyErr {
    let e = e.into();
    match e {
        Error::WrongKey
        | Error::WrongPassphrase
        | Error::ChunkAuthentication(_)
        | Error::Truncated(_) => InvalidTag::new_err(e.to_string()),
        Error::Io { context, source } => {
            let msg = format!("{context}: {source}");
            match source.raw_os_error() {
                Some(code) => PyOSError::new_err((code, msg)),
                None => PyOSError::new_err(msg),
            }
        }
        Error::InvalidInput(m) if m.contains("already exists") => PyFileExistsError::new_err(m),
        Error::Output(o) => output(o),
        Error::TooLong => PyOverflowError::new_err(e.to_string()),
        e => PyValueError::new_err(e.to_string()),
    }
}

/// An output-file error (`aesflow-output`) as the matching `OSError`.
fn output(e: aesflow_output::Error) -> PyErr {
    use aesflow_output::Error as O;
    let msg = e.to_string();
    match e {
        O::Exists(_) => PyFileExistsError::new_err(msg),
        O::IsDirectory(_) => PyIsADirectoryError::new_err(msg),
        O::SameAsInput(_) | O::Special { .. } => PyValueError::new_err(msg),
        O::Io { source, .. } => match source.raw_os_error() {
            Some(code) => PyOSError::new_err((code, msg)),
            None => PyOSError::new_err(msg),
        },
        _ => PyOSError::new_err(msg),
    }
}

/// A modes error (bad key, IV, padding…) as `ValueError`.
pub fn modes(e: aesflow_modes::Error) -> PyErr {
    engine(e)
}

/// A cipher error (key length, unknown or unavailable kernel) as `ValueError`.
pub fn cipher(e: aesflow_cipher::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}
