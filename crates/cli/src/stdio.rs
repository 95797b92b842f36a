//! Standard streams: closed ones, terminals.
//!
//! The Rust runtime reopens a closed stdin/stdout/stderr on `/dev/null`
//! (read-write) before `main`, so `aesflow encrypt <&-` would encrypt an
//! empty input and `decrypt -o - >&-` would send plaintext nowhere, both
//! "successfully". A shell redirection opens `/dev/null` read-only (`<`)
//! or write-only (`>`); a read-write `/dev/null` on fd 0 or 1 is therefore
//! the runtime's stand-in for a closed stream, and aesflow refuses it.

use rustix::fs::{FileType, OFlags};
use std::io::IsTerminal;
use std::os::fd::AsFd;

fn is_stand_in(fd: impl AsFd) -> bool {
    let Ok(st) = rustix::fs::fstat(&fd) else {
        return true; // really closed
    };
    let Ok(null) = rustix::fs::stat("/dev/null") else {
        return false;
    };
    let chr = FileType::from_raw_mode(st.st_mode) == FileType::CharacterDevice;
    let rdwr = rustix::fs::fcntl_getfl(&fd).is_ok_and(|f| f & OFlags::RWMODE == OFlags::RDWR);
    chr && st.st_rdev == null.st_rdev && rdwr
}

/// Stdin was closed when aesflow started.
pub fn stdin_closed() -> bool {
    is_stand_in(std::io::stdin())
}

/// Stdout was closed when aesflow started.
pub fn stdout_closed() -> bool {
    is_stand_in(std::io::stdout())
}

/// Stdout is a terminal.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Stdin is a terminal.
pub fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

/// Stderr is a terminal.
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}
