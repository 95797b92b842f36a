//! The crate's error type.

use crate::{Backend, TunnelId};
use aesflow_cipher::{KernelError, KeyError};
use core::fmt;

/// An error of this crate. Calls validate every job before touching any
/// output, so on error no output has been written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Job `job` has a key of a bad length.
    Key {
        /// Index of the job.
        job: usize,
        /// The key error.
        error: KeyError,
    },
    /// Job `job`'s output is not as long as its input.
    LengthMismatch {
        /// Index of the job.
        job: usize,
        /// Input length.
        input: usize,
        /// Output length.
        output: usize,
    },
    /// Job `job` is CBC and its length is not a multiple of 16.
    NotBlockAligned {
        /// Index of the job.
        job: usize,
        /// Its length.
        len: usize,
    },
    /// The forced backend needs CPU features this machine lacks.
    BackendUnavailable {
        /// The backend asked for.
        backend: Backend,
        /// The backends this CPU runs.
        available: Vec<Backend>,
    },
    /// No backend has this name.
    UnknownBackend(String),
    /// The kernel asked for cannot run on this CPU.
    Kernel(KernelError),
    /// [`MultiStreamQueue`](crate::MultiStreamQueue): no tunnel with this id.
    UnknownTunnel(TunnelId),
    /// [`MultiStreamQueue::submit_to`](crate::MultiStreamQueue::submit_to):
    /// the handle was taken before the tunnel was re-keyed or removed.
    StaleHandle(TunnelId),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Key { job, error } => write!(f, "job {job}: {error}"),
            Error::LengthMismatch { job, input, output } => write!(
                f,
                "job {job}: output is {output} bytes but input is {input} bytes"
            ),
            Error::NotBlockAligned { job, len } => write!(
                f,
                "job {job}: CBC input of {len} bytes is not a multiple of 16 (no padding here)"
            ),
            Error::BackendUnavailable { backend, available } => write!(
                f,
                "multi-stream backend '{backend}' needs CPU features this machine lacks \
                 (available here: {})",
                available
                    .iter()
                    .map(|b| b.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Error::UnknownBackend(s) => write!(
                f,
                "unknown multi-stream backend '{s}' (known: auto, vaes, aesni, portable)"
            ),
            Error::Kernel(e) => e.fmt(f),
            Error::UnknownTunnel(id) => write!(f, "no tunnel with id {id}"),
            Error::StaleHandle(id) => write!(
                f,
                "the handle of tunnel {id} is stale (the tunnel was re-keyed or removed since)"
            ),
        }
    }
}

impl std::error::Error for Error {}
