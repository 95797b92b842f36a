//! Keys and passphrases: from a file, stdin (`-k -`), an environment
//! variable or the terminal. Every read is bounded (a key file is at most
//! [`MAX_KEY_FILE`] bytes, a passphrase [`crate::prompt::MAX_SECRET`]), and
//! a key or passphrase file readable by group or others draws a warning.
//! The Cobblestone suite follows from the key's length unless `--suite`
//! says otherwise, and a mismatch is named as such.

use crate::prompt::{self, MAX_SECRET};
use aesflow_format::cobblestone::Suite;
use anyhow::{Result, anyhow, bail};
use std::io::Read;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

/// The largest key file read (a key is 16 or 32 bytes, or hex of them).
pub const MAX_KEY_FILE: usize = 4096;

/// Where a Cobblestone key comes from.
#[derive(Clone, Debug)]
pub enum KeySource {
    /// A file (`-k FILE`).
    File(PathBuf),
    /// Stdin (`-k -`).
    Stdin,
    /// An environment variable holding hex (`--key-env VAR`).
    Env(String),
}

/// Where a passphrase comes from.
#[derive(Clone, Debug)]
pub enum PassSource {
    /// The terminal, without echo (twice when encrypting).
    Prompt,
    /// The first line of a file.
    File(PathBuf),
    /// The first line of an environment variable.
    Env(String),
}

/// Read at most `max` bytes of `r`; more is an error naming `what`.
fn read_bounded(r: impl Read, max: usize, what: &str) -> Result<Zeroizing<Vec<u8>>> {
    let mut v = Zeroizing::new(Vec::new());
    r.take(max as u64 + 1)
        .read_to_end(&mut v)
        .map_err(|e| anyhow!("cannot read {what}: {e}"))?;
    if v.len() > max {
        bail!("{what} is larger than {max} bytes; that is not a key or passphrase");
    }
    Ok(v)
}

/// The bytes of environment variable `var` (a key or passphrase).
fn env_secret(var: &str) -> Result<Zeroizing<Vec<u8>>> {
    let v =
        std::env::var_os(var).ok_or_else(|| anyhow!("environment variable {var} is not set"))?;
    Ok(Zeroizing::new(v.into_encoded_bytes()))
}

/// Open and read a secret file, warning if group or others may read it.
fn read_secret_file(path: &Path, max: usize, what: &str) -> Result<Zeroizing<Vec<u8>>> {
    use std::os::unix::fs::PermissionsExt;
    let label = format!("{what} {}", path.display());
    let f = std::fs::File::open(path).map_err(|e| anyhow!("cannot open {label}: {e}"))?;
    let meta = f
        .metadata()
        .map_err(|e| anyhow!("cannot read {label}: {e}"))?;
    if meta.is_dir() {
        bail!("{label} is a directory");
    }
    let mode = meta.permissions().mode();
    if meta.is_file() && mode & 0o077 != 0 {
        eprintln!(
            "aesflow: warning: {label} is readable by {} (mode {:o}); chmod 600 {}",
            if mode & 0o007 != 0 {
                "everyone"
            } else {
                "its group"
            },
            mode & 0o777,
            path.display()
        );
    }
    read_bounded(f, max, &label)
}

/// Decode hex digits (whitespace around them ignored).
fn hex(s: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    let t = std::str::from_utf8(s).ok()?.trim();
    aesflow_format::raw::parse_hex(t, "key").ok()
}

/// The key in `data`: 16 or 32 raw bytes, or 32 or 64 hex digits.
fn parse_key(data: &[u8], what: &str) -> Result<Zeroizing<Vec<u8>>> {
    if let Some(k) = hex(data).filter(|k| k.len() == 16 || k.len() == 32) {
        return Ok(k);
    }
    if data.len() == 16 || data.len() == 32 {
        return Ok(Zeroizing::new(data.to_vec()));
    }
    bail!(
        "{what} must hold a key: 32 raw bytes or 64 hex digits (Cobblestone-256), \
         or 16 raw bytes or 32 hex digits (Cobblestone-128); it has {} bytes",
        data.len()
    )
}

/// Read the key from its source.
pub fn load_key(src: &KeySource) -> Result<Zeroizing<Vec<u8>>> {
    match src {
        KeySource::File(p) => {
            let what = format!("key file {}", p.display());
            parse_key(&read_secret_file(p, MAX_KEY_FILE, "key file")?, &what)
        }
        KeySource::Stdin => {
            let d = read_bounded(std::io::stdin().lock(), MAX_KEY_FILE, "the key on stdin")?;
            parse_key(&d, "the key on stdin")
        }
        KeySource::Env(var) => {
            let v = env_secret(var)?;
            match hex(&v).filter(|k| k.len() == 16 || k.len() == 32) {
                Some(k) => Ok(k),
                None => bail!("environment variable {var} must hold a key as 32 or 64 hex digits"),
            }
        }
    }
}

/// The suite for a key of `key_len` bytes; `asked` is `--suite`.
pub fn suite_for(key_len: usize, asked: Option<Suite>) -> Result<Suite> {
    let by_len = Suite::for_key_len(key_len).unwrap_or_default();
    match asked {
        Some(s) if s != by_len => Err(crate::exit::usage(format!(
            "the key is {} bits, a {} key, but --suite asks for {} ({}-bit keys); \
             drop --suite (the key's length chooses) or use the matching key",
            8 * key_len,
            by_len.name(),
            s.name(),
            8 * s.key_len()
        ))),
        _ => Ok(by_len),
    }
}

/// The first line of a passphrase file or variable, without its line end
/// (`\n` or `\r\n`): every source gives the same passphrase for the same
/// line (`echo pw > f`, `PW=$(cat f)`, `PW="$(printf 'pw\n')"` and the
/// prompt all give `pw`).
fn first_line(data: &[u8]) -> Zeroizing<Vec<u8>> {
    let line = data.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    Zeroizing::new(line.to_vec())
}

/// Obtain a passphrase (`confirm`: ask twice on the terminal): the first
/// line of its source; an empty or all-whitespace one is refused.
pub fn passphrase(src: &PassSource, confirm: bool) -> Result<Zeroizing<Vec<u8>>> {
    let p = match src {
        PassSource::Prompt => {
            let a = prompt::ask("Passphrase: ")?;
            if confirm {
                let b = prompt::ask("Passphrase (again): ")?;
                if a != b {
                    bail!("the passphrases do not match");
                }
            }
            a
        }
        PassSource::File(path) => {
            let data = read_secret_file(path, MAX_SECRET, "passphrase file")?;
            first_line(&data)
        }
        PassSource::Env(var) => first_line(&env_secret(var)?),
    };
    if p.is_empty() {
        bail!("the passphrase is empty");
    }
    if p.iter().all(u8::is_ascii_whitespace) {
        bail!("the passphrase is only whitespace; choose one with other characters");
    }
    if p.len() > MAX_SECRET {
        bail!("the passphrase is longer than {MAX_SECRET} bytes");
    }
    Ok(p)
}
