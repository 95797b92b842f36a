//! Standard streams: closed ones, terminals, paths that name stdout, and
//! the count of bytes written to stdout (for the messages after an error
//! or a signal: a stream that already released output must say so).
//!
//! The Rust runtime reopens a closed stdin/stdout/stderr on `/dev/null`
//! (read-write) before `main`, so `aesflow encrypt <&-` would encrypt an
//! empty input and `decrypt -o - >&-` would send plaintext nowhere, both
//! "successfully". A shell redirection opens `/dev/null` read-only (`<`)
//! or write-only (`>`); a read-write `/dev/null` on fd 0 or 1 is therefore
//! the runtime's stand-in for a closed stream, and aesflow refuses it.

use rustix::fs::{FileType, OFlags};
use std::io::{IsTerminal, Write};
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Whether `path` names the file stdout is (following links: `/dev/stdout`,
/// `/dev/fd/1`, `/proc/self/fd/1`, a pipe's or a terminal's own name).
pub fn is_stdout(path: &Path) -> bool {
    let (Ok(out), Ok(p)) = (rustix::fs::fstat(std::io::stdout()), rustix::fs::stat(path)) else {
        return false;
    };
    out.st_dev == p.st_dev && out.st_ino == p.st_ino
}

/// Bytes handed to stdout so far.
static STDOUT_BYTES: AtomicU64 = AtomicU64::new(0);

/// The bytes written to stdout so far (by [`Counted`] writers).
pub fn stdout_bytes() -> u64 {
    STDOUT_BYTES.load(Ordering::SeqCst)
}

/// The most handed to stdout in one call: a pipe's default capacity, so
/// that a write blocked on a full pipe has counted what went before it.
const COUNTED_STEP: usize = 64 * 1024;

/// A writer to stdout that counts what it writes, [`COUNTED_STEP`] bytes
/// at a time at most.
pub struct Counted<W: Write>(pub W);

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(&buf[..buf.len().min(COUNTED_STEP)])?;
        STDOUT_BYTES.fetch_add(n as u64, Ordering::SeqCst);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// What a failed or interrupted run tells about stdout, if anything was
/// written there: the size, and that the output is incomplete.
pub fn stdout_note() -> Option<String> {
    let n = stdout_bytes();
    (n > 0).then(|| {
        format!(
            "{n} bytes ({}) had already been written to stdout: that output is \
             incomplete, discard it",
            crate::jobs::human_size(n)
        )
    })
}
