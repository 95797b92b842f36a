//! Exit codes: distinct, documented (in `--help` and the README), so that
//! scripts can tell a wrong key from a file that already exists.

use aesflow_format::Error as EngineError;
use aesflow_output::Error as OutputError;
use std::fmt;

// 0: success.

/// Any other error (I/O, a missing input, a bad key file, …).
pub const FAILURE: u8 = 1;
/// A usage error: an unknown option or a bad value (clap's code for its
/// own errors, and ours for values clap cannot check: bad hex, a thread
/// count, inputs and outputs that do not pair, a key that contradicts
/// `--suite`).
pub const USAGE: u8 = 2;
/// Authentication failed: wrong key, passphrase or context, or the data was
/// corrupted, truncated or tampered with (nothing unauthenticated released).
pub const AUTH: u8 = 3;
/// The input is not in a format aesflow reads, or its header is refused
/// (unknown version, Argon2id parameters beyond the limits).
pub const FORMAT: u8 = 4;
/// The output was refused: it exists (no `--force`), is a directory, a
/// special file, or the input itself.
pub const OUTPUT: u8 = 5;
/// Refused for safety: ciphertext to a terminal, or a kernel that is not
/// constant-time without `--allow-variable-time`.
pub const REFUSED: u8 = 6;
/// Interrupted by SIGINT, SIGTERM or SIGHUP.
pub const INTERRUPTED: u8 = 130;
/// Standard output was closed by its reader (`aesflow … | head`) while text
/// was being printed: the status a shell shows for a process ended by
/// SIGPIPE (128 + 13).
pub const BROKEN_PIPE: u8 = 141;

/// The table printed under `aesflow --help`.
pub const HELP: &str = "\
Exit status:
  0    success
  1    error (I/O, missing input, bad key file, an `sdf` analysis
       without an answer, ...)
  2    usage error (unknown option, bad value, inputs and outputs that
       do not pair)
  3    authentication failed: wrong key, passphrase or context, or the data
       is corrupted, truncated or tampered with
  4    not an aesflow/openssl file, or its header is refused (unknown
       version, Argon2id parameters beyond the limits that
       --kdf-max-memory-kib raises)
  5    output refused: exists (no --force), directory, special file, or
       the input itself
  6    refused for safety: ciphertext to a terminal, or a variable-time
       kernel without --allow-variable-time
  130  interrupted (SIGINT, SIGTERM, SIGHUP)
  141  standard output closed by its reader (`aesflow ... | head`)";

/// Make a closed standard output end the process quietly with
/// [`BROKEN_PIPE`]. Rust ignores SIGPIPE, so `println!` to a pipe whose
/// reader has gone (`aesflow kernels | head -1`) panics; this hook turns
/// exactly that panic into the exit status such a process has in a shell,
/// without a message. Every other panic keeps the default report. The file
/// commands do not print with `println!`: a stream cut short there is an
/// error that says how much reached stdout.
pub fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout")
            && (message.contains("Broken pipe") || message.contains("os error 32"))
        {
            std::process::exit(BROKEN_PIPE.into());
        }
        default(info);
    }));
}

/// An error the command line raises itself, with its exit code.
#[derive(Debug)]
pub struct CliError {
    /// The exit code.
    pub code: u8,
    /// The message.
    pub message: String,
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// A usage error ([`USAGE`]).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    CliError {
        code: USAGE,
        message: message.into(),
    }
    .into()
}

/// `r` with its error, if any, reported as a usage error ([`USAGE`]).
pub fn as_usage<T, E: std::fmt::Display>(r: Result<T, E>) -> anyhow::Result<T> {
    r.map_err(|e| usage(e.to_string()))
}

/// A refusal for safety ([`REFUSED`]).
pub fn refused(message: impl Into<String>) -> anyhow::Error {
    CliError {
        code: REFUSED,
        message: message.into(),
    }
    .into()
}

fn engine_code(e: &EngineError) -> u8 {
    match e {
        EngineError::WrongKey
        | EngineError::WrongPassphrase
        | EngineError::ChunkAuthentication(_)
        | EngineError::Truncated(_)
        | EngineError::BadPadding => AUTH,
        EngineError::BadHeader(_) | EngineError::KdfLimit(_) => FORMAT,
        EngineError::Output(o) => output_code(o),
        // Damaged or cut ASCII armor: corrupted or truncated data.
        EngineError::Io { source, .. }
            if source
                .get_ref()
                .is_some_and(|e| e.is::<crate::armor::ArmorError>()) =>
        {
            AUTH
        }
        EngineError::Interrupted => INTERRUPTED,
        _ => FAILURE,
    }
}

fn output_code(e: &OutputError) -> u8 {
    match e {
        OutputError::Io { .. } => FAILURE,
        OutputError::Aborted => INTERRUPTED,
        _ => OUTPUT,
    }
}

/// The exit code for an error.
pub fn code(e: &anyhow::Error) -> u8 {
    for cause in e.chain() {
        if let Some(c) = cause.downcast_ref::<CliError>() {
            return c.code;
        }
        if let Some(x) = cause.downcast_ref::<EngineError>() {
            return engine_code(x);
        }
        if let Some(x) = cause.downcast_ref::<OutputError>() {
            return output_code(x);
        }
    }
    FAILURE
}
