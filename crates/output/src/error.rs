//! The crate's error: one variant per reason an output cannot be written,
//! each a single line fit for a command line (the path once, the cause once).

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why an output file could not be created or committed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The destination exists and overwriting was not allowed.
    Exists(PathBuf),
    /// The destination is a directory.
    IsDirectory(PathBuf),
    /// The destination is a special file (character or block device, FIFO,
    /// socket), which is never replaced, even when overwriting is allowed.
    Special {
        /// The destination.
        path: PathBuf,
        /// What it is, e.g. "a character device".
        kind: &'static str,
    },
    /// The destination is the input being read.
    SameAsInput(PathBuf),
    /// The destination cannot be a file's name: it ends in `/` (or `.`,
    /// `..`), or its last component is longer than the file system allows.
    BadName {
        /// The destination.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// An I/O error: what was being done, on which path, and the cause.
    Io {
        /// What was being done ("creating a file in", "syncing", …).
        action: &'static str,
        /// The path concerned.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The process is being interrupted ([`crate::abort_all`] ran): no
    /// output is committed any more.
    Aborted,
}

impl Error {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Exists(p) => write!(
                f,
                "{} already exists (use --force to overwrite it)",
                p.display()
            ),
            Error::IsDirectory(p) => write!(f, "{} is a directory", p.display()),
            Error::Special { path, kind } => write!(
                f,
                "{} is {kind}, not a regular file; it is never replaced \
                 (write to stdout with -o - and redirect instead)",
                path.display()
            ),
            Error::BadName { path, reason } => {
                write!(
                    f,
                    "{}: cannot be an output file's name: {reason}",
                    path.display()
                )
            }
            Error::SameAsInput(p) => {
                write!(f, "{}: input and output are the same file", p.display())
            }
            Error::Io {
                action,
                path,
                source,
            } => write!(f, "{action} {}: {source}", path.display()),
            Error::Aborted => f.write_str("interrupted; the output was not written"),
        }
    }
}

impl std::error::Error for Error {}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
