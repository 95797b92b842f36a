//! The passphrase prompt: read from the controlling terminal with echo off
//! (turned off before the prompt is printed), at most [`MAX_SECRET`] bytes, and the terminal's settings restored on
//! every exit path — normal return, error, and SIGINT/SIGTERM/SIGHUP (the
//! signal handler calls [`restore_terminal`]).

use anyhow::{Result, bail};
use rustix::termios::{LocalModes, OptionalActions, Termios};
use std::fs::File;
use std::io::{Read, Write};
use std::sync::Mutex;
use zeroize::Zeroizing;

/// The longest passphrase or key read from anywhere (64 KiB).
pub const MAX_SECRET: usize = 64 * 1024;

/// The terminal and its settings while echo is off.
static SAVED: Mutex<Option<(File, Termios)>> = Mutex::new(None);

/// Put the terminal back as it was, if a prompt turned echo off.
pub fn restore_terminal() {
    let mut s = SAVED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((tty, t)) = s.take() {
        let _ = rustix::termios::tcsetattr(&tty, OptionalActions::Now, &t);
        let _ = (&tty).write_all(b"\n");
    }
}

/// Restores the terminal when dropped (errors and panics included).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Ask for a secret on the terminal without echo.
pub fn ask(prompt: &str) -> Result<Zeroizing<Vec<u8>>> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot prompt for the passphrase (no terminal: {e}); \
                 use --passphrase-file or --passphrase-env in scripts"
            )
        })?;
    let old = rustix::termios::tcgetattr(&tty)?;
    let mut quiet = old.clone();
    quiet.local_modes -= LocalModes::ECHO;
    quiet.local_modes |= LocalModes::ECHONL;
    let reader = tty.try_clone()?;
    *SAVED.lock().unwrap_or_else(|e| e.into_inner()) = Some((tty.try_clone()?, old));
    let _restore = Restore;
    // Echo off before the prompt appears: whoever answers the instant they
    // see it (a person typing ahead, an expect script) is not echoed.
    rustix::termios::tcsetattr(&tty, OptionalActions::Now, &quiet)?;
    (&tty).write_all(prompt.as_bytes())?;
    let mut line = Zeroizing::new(Vec::new());
    let mut byte = [0u8; 1];
    let mut r = &reader;
    loop {
        match r.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) if line.len() >= MAX_SECRET => {
                bail!("the passphrase is longer than {MAX_SECRET} bytes")
            }
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    // Echo is restored without the extra newline ECHONL already gave.
    let mut s = SAVED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((tty, t)) = s.take() {
        let _ = rustix::termios::tcsetattr(&tty, OptionalActions::Now, &t);
    }
    Ok(line)
}
