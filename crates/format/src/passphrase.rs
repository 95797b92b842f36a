//! The passphrase header: Argon2id parameters and salt in front of a
//! Cobblestone message whose input key is derived from a passphrase.
//!
//! Layout (38 bytes, version 1):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `AESFLOWP` |
//! | 1 | version = 1 |
//! | 1 | suite: 1 = Cobblestone-128, 2 = Cobblestone-256 |
//! | 4 | Argon2id memory cost in KiB (big-endian) |
//! | 4 | Argon2id iterations |
//! | 4 | Argon2id parallelism (lanes) |
//! | 16 | Argon2id salt |
//!
//! The input key is `Argon2id(passphrase, salt, params)` with the suite's key
//! length, and the Cobblestone *context* is the 38 header bytes themselves,
//! so the header is bound to the message: any change to it (or a wrong
//! passphrase) makes the key commitment fail before a chunk is opened. The
//! rest of the file is a plain Cobblestone message that any implementation
//! opens given the derived key and that context.

use crate::cobblestone::Suite;
use crate::error::{Error, Result};
use zeroize::Zeroizing;

/// The header's magic bytes.
pub const MAGIC: &[u8; 8] = b"AESFLOWP";
/// The header version written.
pub const VERSION: u8 = 1;
/// The header length.
pub const HEADER_SIZE: usize = 38;
/// Argon2 salt length.
pub const KDF_SALT_SIZE: usize = 16;

/// Argon2id cost parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfParams {
    /// Memory in KiB.
    pub memory_kib: u32,
    /// Iterations.
    pub iterations: u32,
    /// Lanes.
    pub parallelism: u32,
}

impl Default for KdfParams {
    /// RFC 9106's second recommended option: 64 MiB, 3 passes, 4 lanes.
    fn default() -> Self {
        KdfParams {
            memory_kib: 64 * 1024,
            iterations: 3,
            parallelism: 4,
        }
    }
}

impl KdfParams {
    /// Reject parameters outside the range this tool accepts (so a crafted
    /// header cannot make decryption allocate without bound).
    pub fn check(&self) -> Result<()> {
        let ok = (1..=64).contains(&self.parallelism)
            && (1..=64).contains(&self.iterations)
            && self.memory_kib >= 8 * self.parallelism
            && self.memory_kib <= 4 * 1024 * 1024;
        if ok {
            Ok(())
        } else {
            Err(Error::BadHeader(format!(
                "Argon2id parameters out of range (memory {} KiB, {} iterations, {} lanes; \
                 accepted: 1-64 lanes, 1-64 iterations, 8 KiB per lane to 4 GiB)",
                self.memory_kib, self.iterations, self.parallelism
            )))
        }
    }
}

/// The ceiling a decryption puts on a header's Argon2id parameters, so
/// that a crafted or damaged header cannot make the reader allocate
/// gigabytes or spin for minutes before "wrong passphrase". The default
/// admits 16 times this tool's default memory (1 GiB), 16 passes and 16
/// lanes; a file made with more needs the limit raised explicitly
/// (`aesflow decrypt --kdf-max-memory-kib`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfLimits {
    /// Largest memory cost accepted, in KiB.
    pub max_memory_kib: u32,
    /// Largest number of passes accepted.
    pub max_iterations: u32,
    /// Largest number of lanes accepted.
    pub max_parallelism: u32,
}

impl Default for KdfLimits {
    fn default() -> Self {
        KdfLimits {
            max_memory_kib: 1024 * 1024,
            max_iterations: 16,
            max_parallelism: 16,
        }
    }
}

impl KdfParams {
    /// Refuse parameters beyond `limits` (a decryption's ceiling).
    pub fn check_limits(&self, limits: &KdfLimits) -> Result<()> {
        if self.memory_kib > limits.max_memory_kib {
            return Err(Error::KdfLimit(format!(
                "the passphrase header asks Argon2id for {} MiB of memory, above the \
                 limit of {} MiB (raise it with --kdf-max-memory-kib {} if you trust this file)",
                self.memory_kib / 1024,
                limits.max_memory_kib / 1024,
                self.memory_kib
            )));
        }
        if self.iterations > limits.max_iterations || self.parallelism > limits.max_parallelism {
            return Err(Error::KdfLimit(format!(
                "the passphrase header asks Argon2id for {} passes and {} lanes, above the \
                 limits of {} and {}",
                self.iterations, self.parallelism, limits.max_iterations, limits.max_parallelism
            )));
        }
        Ok(())
    }
}

/// A parsed or new passphrase header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The Cobblestone suite of the message that follows.
    pub suite: Suite,
    /// The Argon2id parameters.
    pub params: KdfParams,
    /// The Argon2id salt.
    pub salt: [u8; KDF_SALT_SIZE],
}

impl Header {
    /// A header with a fresh random salt.
    pub fn new(suite: Suite, params: KdfParams) -> Result<Self> {
        params.check()?;
        let mut salt = [0u8; KDF_SALT_SIZE];
        getrandom::fill(&mut salt)
            .map_err(|e| Error::io("getting random bytes", std::io::Error::other(e.to_string())))?;
        Ok(Header {
            suite,
            params,
            salt,
        })
    }

    /// The header bytes (also the Cobblestone context).
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        let mut b = [0u8; HEADER_SIZE];
        b[..8].copy_from_slice(MAGIC);
        b[8] = VERSION;
        b[9] = match self.suite {
            Suite::Cobblestone128 => 1,
            Suite::Cobblestone256 => 2,
        };
        b[10..14].copy_from_slice(&self.params.memory_kib.to_be_bytes());
        b[14..18].copy_from_slice(&self.params.iterations.to_be_bytes());
        b[18..22].copy_from_slice(&self.params.parallelism.to_be_bytes());
        b[22..].copy_from_slice(&self.salt);
        b
    }

    /// Parse a header (the first [`HEADER_SIZE`] bytes of `b`).
    pub fn parse(b: &[u8]) -> Result<Self> {
        if b.len() < HEADER_SIZE || &b[..8] != MAGIC {
            return Err(Error::BadHeader(
                "not an aesflow passphrase file (no AESFLOWP header); \
                 a bare Cobblestone message needs a key (-k)"
                    .into(),
            ));
        }
        if b[8] != VERSION {
            return Err(Error::BadHeader(format!(
                "unsupported passphrase header version {} (this aesflow reads version {VERSION})",
                b[8]
            )));
        }
        let suite = match b[9] {
            1 => Suite::Cobblestone128,
            2 => Suite::Cobblestone256,
            x => return Err(Error::BadHeader(format!("unknown suite {x}"))),
        };
        let word = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let params = KdfParams {
            memory_kib: word(10),
            iterations: word(14),
            parallelism: word(18),
        };
        params.check()?;
        Ok(Header {
            suite,
            params,
            salt: b[22..HEADER_SIZE].try_into().expect("16 bytes"),
        })
    }

    /// The Cobblestone input key for `passphrase`.
    pub fn derive_key(&self, passphrase: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let p = &self.params;
        let params = argon2::Params::new(
            p.memory_kib,
            p.iterations,
            p.parallelism,
            Some(self.suite.key_len()),
        )
        .map_err(|e| Error::BadHeader(format!("Argon2id parameters: {e}")))?;
        let a = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
        let mut key = Zeroizing::new(vec![0u8; self.suite.key_len()]);
        a.hash_password_into(passphrase, &self.salt, &mut key)
            .map_err(|e| Error::InvalidInput(format!("Argon2id: {e}")))?;
        Ok(key)
    }
}
