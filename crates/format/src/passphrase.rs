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
/// that a crafted or damaged header cannot make the reader allocate more
/// than a modest amount of memory or spin for long before "wrong
/// passphrase". The default admits 256 MiB (4 times this tool's default
/// memory), 16 passes, 16 lanes, and at most 1 GiB·pass of work (memory
/// times passes: 256 MiB × 4 passes, or 64 MiB × 16): about 2 s of
/// Argon2id on one core of a current x86 CPU (the `argon2` crate fills the
/// lanes one after another). A file made with more needs the limits
/// raised explicitly (`aesflow decrypt --kdf-max-memory-kib`, which raises
/// the work limit with it: [`KdfLimits::with_memory`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfLimits {
    /// Largest memory cost accepted, in KiB.
    pub max_memory_kib: u32,
    /// Largest number of passes accepted.
    pub max_iterations: u32,
    /// Largest number of lanes accepted.
    pub max_parallelism: u32,
    /// Largest work accepted: memory (KiB) times passes.
    pub max_work_kib: u64,
}

/// The passes over the largest admitted memory that the work limit
/// allows ([`KdfLimits::with_memory`]).
pub const WORK_PASSES: u64 = 4;

impl Default for KdfLimits {
    fn default() -> Self {
        KdfLimits {
            max_memory_kib: 256 * 1024,
            max_iterations: 16,
            max_parallelism: 16,
            max_work_kib: 256 * 1024 * WORK_PASSES,
        }
    }
}

impl KdfLimits {
    /// The default limits with the memory ceiling set to `kib`, and the
    /// work ceiling to [`WORK_PASSES`] passes over it (never below the
    /// default's).
    pub fn with_memory(kib: u32) -> Self {
        let d = KdfLimits::default();
        KdfLimits {
            max_memory_kib: kib,
            max_work_kib: d.max_work_kib.max(u64::from(kib) * WORK_PASSES),
            ..d
        }
    }

    /// The default limits, raised where needed to admit `p` (an encryption
    /// checks its own parameters with these).
    pub fn at_least(p: &KdfParams) -> Self {
        let d = KdfLimits::default();
        KdfLimits {
            max_memory_kib: d.max_memory_kib.max(p.memory_kib),
            max_iterations: d.max_iterations.max(p.iterations),
            max_parallelism: d.max_parallelism.max(p.parallelism),
            max_work_kib: d.max_work_kib.max(p.work_kib()),
        }
    }
}

/// A memory size for messages: whole MiB when it is one, else KiB (a
/// limit one KiB above another must not read as the same number).
pub fn memory_text(kib: u64) -> String {
    if kib.is_multiple_of(1024) {
        format!("{} MiB", kib / 1024)
    } else {
        format!("{kib} KiB")
    }
}

impl KdfParams {
    /// The work: memory (KiB) times passes.
    pub fn work_kib(&self) -> u64 {
        u64::from(self.memory_kib) * u64::from(self.iterations)
    }

    /// Refuse parameters beyond `limits` (a decryption's ceiling).
    pub fn check_limits(&self, limits: &KdfLimits) -> Result<()> {
        let raise = |kib: u64| {
            format!("raise the limit with --kdf-max-memory-kib {kib} if you trust this file")
        };
        if self.memory_kib > limits.max_memory_kib {
            return Err(Error::KdfLimit(format!(
                "the passphrase header asks Argon2id for {} of memory, above the \
                 limit of {} ({})",
                memory_text(self.memory_kib.into()),
                memory_text(limits.max_memory_kib.into()),
                raise(self.memory_kib.into())
            )));
        }
        if self.iterations > limits.max_iterations || self.parallelism > limits.max_parallelism {
            return Err(Error::KdfLimit(format!(
                "the passphrase header asks Argon2id for {} passes and {} lanes, above the \
                 limits of {} and {}",
                self.iterations, self.parallelism, limits.max_iterations, limits.max_parallelism
            )));
        }
        if self.work_kib() > limits.max_work_kib {
            return Err(Error::KdfLimit(format!(
                "the passphrase header asks Argon2id for {} passes over {}, more work \
                 than the limit of {} passes over {} ({})",
                self.iterations,
                memory_text(self.memory_kib.into()),
                WORK_PASSES,
                memory_text(limits.max_work_kib / WORK_PASSES),
                raise(self.work_kib().div_ceil(WORK_PASSES))
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
        if b.len() < HEADER_SIZE && b.starts_with(MAGIC) {
            return Err(Error::BadHeader(format!(
                "the passphrase header is truncated ({} of its {HEADER_SIZE} bytes)",
                b.len()
            )));
        }
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

    /// The Cobblestone input key for `passphrase`. Argon2id's memory is
    /// allocated here, fallibly: memory the system cannot give (a
    /// `ulimit -v`, a full machine) is an error, not an abort.
    pub fn derive_key(&self, passphrase: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        use zeroize::Zeroize;
        let p = &self.params;
        let params = argon2::Params::new(
            p.memory_kib,
            p.iterations,
            p.parallelism,
            Some(self.suite.key_len()),
        )
        .map_err(|e| Error::BadHeader(format!("Argon2id parameters: {e}")))?;
        let mut blocks: Vec<argon2::Block> = Vec::new();
        blocks
            .try_reserve_exact(params.block_count())
            .map_err(|_| {
                Error::io(
                    format!(
                        "Argon2id needs {} of memory",
                        memory_text(params.block_count() as u64)
                    ),
                    std::io::Error::new(
                        std::io::ErrorKind::OutOfMemory,
                        "the system cannot provide it (see ulimit -v)",
                    ),
                )
            })?;
        blocks.resize(params.block_count(), argon2::Block::default());
        let a = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
        let mut key = Zeroizing::new(vec![0u8; self.suite.key_len()]);
        let r = a.hash_password_into_with_memory(passphrase, &self.salt, &mut key, &mut blocks);
        blocks.iter_mut().for_each(Zeroize::zeroize);
        r.map_err(|e| Error::InvalidInput(format!("Argon2id: {e}")))?;
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(memory_kib: u32, iterations: u32, parallelism: u32) -> KdfParams {
        KdfParams {
            memory_kib,
            iterations,
            parallelism,
        }
    }

    #[test]
    fn default_limits_bound_memory_and_work() {
        let d = KdfLimits::default();
        let ok = |p: KdfParams, l: &KdfLimits| p.check_limits(l).is_ok();
        // The worst admitted: 256 MiB x 4 passes, 64 MiB x 16, 16 lanes.
        assert!(ok(params(256 << 10, 4, 16), &d));
        assert!(ok(params(64 << 10, 16, 16), &d));
        assert!(ok(KdfParams::default(), &d));
        // One step beyond, on each axis.
        for p in [
            params((256 << 10) + 1, 1, 1),
            params(256 << 10, 5, 1),
            params(64 << 10, 17, 1),
            params(8 * 17, 1, 17),
            params(1 << 20, 16, 16),
        ] {
            let e = p.check_limits(&d).unwrap_err();
            assert!(matches!(e, Error::KdfLimit(_)), "{p:?}: {e}");
        }
        // Raising the memory raises the work with it.
        let raised = KdfLimits::with_memory(1 << 20);
        assert!(ok(params(1 << 20, 4, 4), &raised));
        assert!(!ok(params(1 << 20, 5, 4), &raised));
        // An encryption's own parameters are always admitted.
        let p = params(2 << 20, 20, 32);
        assert!(ok(p, &KdfLimits::at_least(&p)));
    }

    #[test]
    fn limit_messages_do_not_round() {
        assert_eq!(memory_text(262_144), "256 MiB");
        assert_eq!(memory_text(262_145), "262145 KiB");
        let e = params(262_145, 1, 1)
            .check_limits(&KdfLimits::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("262145 KiB") && e.contains("limit of 256 MiB"),
            "{e}"
        );
        assert!(e.contains("--kdf-max-memory-kib 262145"), "{e}");
        let e = params(256 << 10, 5, 1)
            .check_limits(&KdfLimits::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("--kdf-max-memory-kib 327680"), "{e}");
    }

    #[test]
    fn a_cut_header_is_named_as_such() {
        let h = Header::new(Suite::Cobblestone256, params(64, 1, 1))
            .unwrap()
            .to_bytes();
        let e = Header::parse(&h[..37]).unwrap_err().to_string();
        assert!(e.contains("truncated (37 of its 38 bytes)"), "{e}");
        let e = Header::parse(b"not a header at all, not one, no sir!!")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no AESFLOWP header"), "{e}");
    }

    #[test]
    fn derivation_matches_the_argon2_crate() {
        let h = Header::new(Suite::Cobblestone128, params(64, 2, 2)).unwrap();
        let got = h.derive_key(b"pw").unwrap();
        let p = argon2::Params::new(64, 2, 2, Some(16)).unwrap();
        let a = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, p);
        let mut want = [0u8; 16];
        a.hash_password_into(b"pw", &h.salt, &mut want).unwrap();
        assert_eq!(&got[..], &want);
    }
}
